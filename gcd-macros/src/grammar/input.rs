//! The three forms of `grammar!` input:
//!
//! ```text
//! grammar! { pub Arith; start: expr ... }          // inline Rust tokens
//! grammar! { pub Arith = "start: expr ..."; }      // grammar text
//! grammar! { pub Arith = file "grammars/a.lark"; } // a file, relative to the crate
//! ```

use proc_macro2::TokenStream;
use syn::parse::{Parse, ParseStream};
use syn::{Attribute, Ident, LitStr, Token, Visibility};

pub struct GrammarInput {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    pub source: Source,
}

pub enum Source {
    Tokens(TokenStream),
    Text(LitStr),
    File(LitStr),
}

impl Parse for GrammarInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        let name: Ident = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected the grammar's name first, as in `grammar! { pub Arith; start: ... }`",
            )
        })?;
        let source = if input.peek(Token![;]) {
            input.parse::<Token![;]>()?;
            Source::Tokens(input.parse()?)
        } else if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            let source = if input.peek(LitStr) {
                Source::Text(input.parse()?)
            } else {
                let kw: Ident = input.parse()?;
                if kw != "file" {
                    return Err(syn::Error::new(
                        kw.span(),
                        "expected a string literal with the grammar, or `file \"path\"`",
                    ));
                }
                Source::File(input.parse()?)
            };
            if input.peek(Token![;]) {
                input.parse::<Token![;]>()?;
            }
            if !input.is_empty() {
                return Err(input.error("unexpected tokens after the grammar source"));
            }
            source
        } else if input.peek(Token![:]) {
            return Err(input.error(format!(
                "expected `;` after the grammar's name: the first item names the grammar, \
                 as in `grammar! {{ pub Arith; {name}: ... }}`"
            )));
        } else {
            return Err(input.error(
                "expected `;` and the grammar rules, or `= \"grammar text\"`, or `= file \"path\"` after the name",
            ));
        };
        Ok(GrammarInput {
            attrs,
            vis,
            name,
            source,
        })
    }
}
