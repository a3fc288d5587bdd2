//! The three forms of `grammar!` input:
//!
//! ```text
//! grammar! { pub Arith; start: expr ... }          // inline Rust tokens
//! grammar! { pub Arith = "start: expr ..."; }      // grammar text
//! grammar! { pub Arith = file "grammars/a.lark"; } // a file, relative to the crate
//! ```
//!
//! Any of them may start with `#[gcd(generalized)]`: the grammar need not be
//! LL(1) (conflicts are resolved by forking at run time, see gcd-core's
//! ARCHITECTURE.md). Without it a conflict or an unused rule is a compile
//! error, as LL(1) is what most inline grammars mean to be.
//! `#[gcd(dynamic_lexing)]` lets a lexeme end wherever a terminal matches
//! (gcd-core's `Lexing::Dynamic`) instead of refusing a grammar where
//! maximal munch would swallow the next terminal.

use proc_macro2::TokenStream;
use syn::parse::{Parse, ParseStream};
use syn::{Attribute, Ident, LitStr, Token, Visibility};

pub struct GrammarInput {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    pub source: Source,
    /// `#[gcd(generalized)]` was given.
    pub generalized: bool,
    /// `#[gcd(dynamic_lexing)]` was given.
    pub dynamic_lexing: bool,
}

pub enum Source {
    Tokens(TokenStream),
    Text(LitStr),
    File(LitStr),
}

impl Parse for GrammarInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut attrs = input.call(Attribute::parse_outer)?;
        let mut generalized = false;
        let mut dynamic_lexing = false;
        let mut bad = None;
        attrs.retain(|a| {
            if !a.path().is_ident("gcd") {
                return true;
            }
            let r = a.parse_nested_meta(|m| {
                if m.path.is_ident("generalized") {
                    generalized = true;
                    Ok(())
                } else if m.path.is_ident("dynamic_lexing") {
                    dynamic_lexing = true;
                    Ok(())
                } else {
                    Err(m.error(
                        "unknown gcd option; the options are `generalized` and `dynamic_lexing`",
                    ))
                }
            });
            if let Err(e) = r {
                bad.get_or_insert(e);
            }
            false
        });
        if let Some(e) = bad {
            return Err(e);
        }
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
            generalized,
            dynamic_lexing,
        })
    }
}
