//! Compile the grammar now; emit the item or the diagnostics.

use std::path::PathBuf;

use gcd_core::compiled::{CompiledGrammar, Config, Lexing};
use gcd_core::grammar::{Expr, Grammar, GrammarBuilder};
use gcd_core::lark::{parse_with_embeds, Embeds};
use gcd_core::limits::Limits;
use gcd_core::{Diagnostic, GrammarError};
use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::input::{GrammarInput, Source};
use super::lark_text::{self, LarkText};

pub fn expand(input: GrammarInput) -> syn::Result<TokenStream> {
    let (text, origin) = match &input.source {
        Source::Tokens(tokens) => {
            let lt = lark_text::from_tokens(tokens.clone())?;
            (lt.text.clone(), Origin::Tokens(lt))
        }
        Source::Text(lit) => (
            lit.value(),
            Origin::Literal {
                lit: lit.clone(),
                path: None,
            },
        ),
        Source::File(lit) => {
            let path = crate_relative(&lit.value());
            let text = std::fs::read_to_string(&path).map_err(|e| {
                syn::Error::new(
                    lit.span(),
                    format!(
                        "cannot read grammar file `{}` (paths are relative to the crate's Cargo.toml): {e}",
                        lit.value()
                    ),
                )
            })?;
            (
                text,
                Origin::Literal {
                    lit: lit.clone(),
                    path: Some(path),
                },
            )
        }
    };
    let stand_ins = StandIns::default();
    let compiled = parse_with_embeds(&text, &Limits::default(), &stand_ins)
        .and_then(|b| b.build())
        .and_then(|g| {
            let lexing = match input.dynamic_lexing {
                true => Lexing::Dynamic,
                false => Lexing::MaximalMunch,
            };
            let config = Config::default()
                .ll1_only(!input.generalized)
                .lexing(lexing);
            CompiledGrammar::with_config(&g, &config)
        })
        .map_err(|e| origin.errors(&e))?;
    let names_special_tokens = compiled.grammar().special_tokens().next().is_some();
    let types = stand_ins.names.into_inner();
    let tables = if types.is_empty() {
        Tables::Snapshot(compiled.to_bytes())
    } else {
        Tables::Linked(linked_types(&types, &origin)?)
    };
    Ok(emit(&input, &text, &tables, &origin, names_special_tokens))
}

/// Each `@Type` of a grammar stands for the JSON of a Rust type, which only
/// rustc knows: the macro checks the grammar with each type as one opaque
/// lexeme (every rule, name, conflict and hazard that does not involve the
/// type's JSON), and the item links the real grammars at first use.
#[derive(Default)]
struct StandIns {
    names: std::cell::RefCell<Vec<String>>,
}

impl Embeds for StandIns {
    fn rust_type(&self, name: &str) -> Result<Grammar, String> {
        self.names.borrow_mut().push(name.to_string());
        let mut b = GrammarBuilder::new();
        b.rule("value", vec![Expr::literal(&format!("\u{0}@{name}\u{0}"))]);
        b.build().map_err(|e| e.to_string())
    }
}

/// How the item gets its tables: the snapshot made now, or (with `@Type`
/// rules) linked at first use with these types, each as a path and the
/// tokens to point errors at.
enum Tables {
    Snapshot(Vec<u8>),
    Linked(Vec<(String, syn::Path, proc_macro2::Span)>),
}

fn linked_types(
    names: &[String],
    origin: &Origin,
) -> syn::Result<Vec<(String, syn::Path, proc_macro2::Span)>> {
    let mut out = Vec::new();
    for name in names {
        let span = match origin {
            Origin::Tokens(lt) => lt
                .tokens_of(&format!("@{name}"))
                .and_then(|t| t.into_iter().last())
                .map_or_else(proc_macro2::Span::call_site, |t| t.span()),
            Origin::Literal { lit, .. } => lit.span(),
        };
        let path: syn::Path = syn::parse_str(name)
            .map_err(|e| syn::Error::new(span, format!("`@{name}`: not a Rust type path: {e}")))?;
        let path = respan(path, span);
        out.push((name.clone(), path, span));
    }
    Ok(out)
}

/// `path` with every token at `span`, so rustc's errors about the type
/// point at the `@Type` the user wrote.
fn respan(path: syn::Path, span: proc_macro2::Span) -> syn::Path {
    let tokens: TokenStream = quote!(#path)
        .into_iter()
        .map(|mut t| {
            t.set_span(span);
            t
        })
        .collect();
    syn::parse2(tokens).unwrap_or(path)
}

/// Where the grammar text came from, to place errors.
enum Origin {
    Tokens(LarkText),
    Literal {
        lit: syn::LitStr,
        path: Option<PathBuf>,
    },
}

impl Origin {
    fn errors(&self, e: &GrammarError) -> syn::Error {
        let mut all: Option<syn::Error> = None;
        for d in e.diagnostics() {
            for err in self.diagnostic(d) {
                match &mut all {
                    Some(a) => a.combine(err),
                    None => all = Some(err),
                }
            }
        }
        all.expect("a GrammarError has a diagnostic")
    }

    /// The main error, then one per note that points somewhere else.
    fn diagnostic(&self, d: &Diagnostic) -> Vec<syn::Error> {
        match self {
            Origin::Tokens(lt) => {
                // A note at the culprit itself (or nowhere) reads best as a
                // line of the main message; others point at their place.
                let elsewhere = |span: &Option<gcd_core::Span>| span.is_some() && *span != d.span;
                let mut message = d.message.clone();
                for (_, note) in d.notes.iter().filter(|(s, _)| !elsewhere(s)) {
                    message.push_str(&format!("\n= note: {note}"));
                }
                let main = match d.span {
                    Some(s) => lt.error_at(s.byte_start..s.byte_end, &message),
                    None => syn::Error::new(proc_macro2::Span::call_site(), message),
                };
                let notes =
                    d.notes
                        .iter()
                        .filter(|(s, _)| elsewhere(s))
                        .filter_map(|(span, note)| {
                            span.map(|s| {
                                lt.error_at(s.byte_start..s.byte_end, &format!("note: {note}"))
                            })
                        });
                std::iter::once(main).chain(notes).collect()
            }
            Origin::Literal { lit, path } => {
                let at = |span: Option<gcd_core::Span>| match (path, span) {
                    (Some(p), Some(s)) => format!("{}:{s}: ", p.display()),
                    (Some(p), None) => format!("{}: ", p.display()),
                    (None, Some(s)) => format!("line {}, column {}: ", s.start.line, s.start.col),
                    (None, None) => String::new(),
                };
                let mut message = format!("{}{}", at(d.span), d.message);
                for (span, note) in &d.notes {
                    message.push_str(&format!("\n= note: {}{note}", at(*span)));
                }
                vec![syn::Error::new(lit.span(), message)]
            }
        }
    }
}

/// `SNAPSHOT` and a `compiled()` that loads it.
fn snapshot_tables(
    name: &syn::Ident,
    snapshot: &[u8],
    rebuild_on_change: &TokenStream,
    core: &TokenStream,
) -> TokenStream {
    let snapshot = Literal::byte_string(snapshot);
    quote! {
        /// The compiled tables (terminal DFAs, LL(1) table, lexer
        /// automaton), serialized when the crate was built.
        pub const SNAPSHOT: &'static [u8] = #snapshot;

        /// The compiled grammar, loaded from [`Self::SNAPSHOT`] on first
        /// use: no regex is compiled and no analysis runs at run time.
        /// Clone the `Arc` to share it.
        pub fn compiled() -> &'static ::std::sync::Arc<#core::compiled::CompiledGrammar> {
            #rebuild_on_change
            static COMPILED: ::std::sync::OnceLock<::std::sync::Arc<#core::compiled::CompiledGrammar>> =
                ::std::sync::OnceLock::new();
            COMPILED
                .get_or_init(|| {
                    let g = #core::compiled::CompiledGrammar::from_bytes(Self::SNAPSHOT).unwrap_or_else(|e| {
                        ::core::panic!(
                            "grammar `{}`: {} (gcd-macros and gcd-core must come from the same gcd release)",
                            ::core::stringify!(#name),
                            e
                        )
                    });
                    ::std::sync::Arc::new(g)
                })
        }
    }
}

/// `compiled()` and `try_compiled()` for a grammar with `@Type` rules:
/// each type's grammar (its `Constrained` impl, which rustc checks here)
/// is embedded and the whole compiled at first use, once per process.
fn linked_tables(
    input: &GrammarInput,
    types: &[(String, syn::Path, proc_macro2::Span)],
    rebuild_on_change: &TokenStream,
    core: &TokenStream,
) -> TokenStream {
    let name = &input.name;
    let arms = types.iter().map(|(text, path, span)| {
        quote::quote_spanned! {*span=>
            #text => ::gcd::constrained::json_grammar::<#path>(<#path as ::gcd::Constrained>::WHITESPACE)
                .map_err(|e| e.to_string()),
        }
    });
    let generalized = input.generalized;
    let lexing = if input.dynamic_lexing {
        quote!(#core::compiled::Lexing::Dynamic)
    } else {
        quote!(#core::compiled::Lexing::MaximalMunch)
    };
    quote! {
        /// The compiled grammar, with each `@Type`'s grammar linked in on
        /// first use (the rest was checked when the crate was built).
        ///
        /// # Panics
        /// If a type's grammar does not fit the rules around it (a conflict
        /// or a lexical hazard the opaque stand-in hid); see
        /// [`try_compiled`](Self::try_compiled).
        pub fn compiled() -> &'static ::std::sync::Arc<#core::compiled::CompiledGrammar> {
            Self::try_compiled().unwrap_or_else(|e| {
                ::core::panic!("grammar `{}`: {}", ::core::stringify!(#name), e)
            })
        }

        /// The compiled grammar, or why the types' grammars do not fit it.
        pub fn try_compiled() -> ::core::result::Result<&'static ::std::sync::Arc<#core::compiled::CompiledGrammar>, &'static #core::GrammarError> {
            #rebuild_on_change
            struct Types;
            impl #core::lark::Embeds for Types {
                fn rust_type(&self, name: &str) -> ::core::result::Result<#core::grammar::Grammar, ::std::string::String> {
                    match name {
                        #(#arms)*
                        _ => ::core::result::Result::Err(::std::format!("unknown type `{name}`")),
                    }
                }
            }
            static COMPILED: ::std::sync::OnceLock<::core::result::Result<::std::sync::Arc<#core::compiled::CompiledGrammar>, #core::GrammarError>> =
                ::std::sync::OnceLock::new();
            COMPILED
                .get_or_init(|| {
                    let g = #core::lark::parse_with_embeds(Self::SOURCE, &#core::Limits::default(), &Types)?.build()?;
                    let config = #core::compiled::Config::default().ll1_only(!#generalized).lexing(#lexing);
                    #core::compiled::CompiledGrammar::with_config(&g, &config).map(::std::sync::Arc::new)
                })
                .as_ref()
        }
    }
}

/// A path relative to the crate being compiled, as `include_str!` resolves
/// `concat!(env!("CARGO_MANIFEST_DIR"), ...)`.
fn crate_relative(path: &str) -> PathBuf {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_default();
    dir.join(path)
}

/// The emitted item. Kept apart from compilation so it can be read and
/// tested as plain code.
fn emit(
    input: &GrammarInput,
    text: &str,
    tables: &Tables,
    origin: &Origin,
    names_special_tokens: bool,
) -> TokenStream {
    let GrammarInput {
        attrs, vis, name, ..
    } = input;
    let rebuild_on_change = match origin {
        Origin::Literal { path: Some(p), .. } => {
            let p = p.display().to_string();
            quote! { const _: &str = ::core::include_str!(#p); }
        }
        _ => quote! {},
    };
    let core = quote! { ::gcd::core };
    let tables = match tables {
        Tables::Snapshot(bytes) => snapshot_tables(name, bytes, &rebuild_on_change, &core),
        Tables::Linked(types) => linked_tables(input, types, &rebuild_on_change, &core),
    };
    // Binding can only fail on a special token the vocabulary lacks: a
    // grammar that names none keeps an infallible `bind`.
    let bind = if names_special_tokens {
        quote! {}
    } else {
        quote! {
            /// Binds the grammar to a vocabulary, for token masks.
            pub fn bind(
                vocab: ::std::sync::Arc<#core::vocab::Vocabulary>,
            ) -> ::std::sync::Arc<#core::bind::BoundGrammar> {
                ::std::sync::Arc::new(#core::bind::BoundGrammar::new(Self::compiled().clone(), vocab))
            }
        }
    };
    quote! {
        #(#attrs)*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        #vis struct #name;

        impl #name {
            /// The grammar text (gcd's Lark subset) this item was compiled from.
            pub const SOURCE: &'static str = #text;

            #tables

            /// Parses `input` into a parse tree (rule names, children,
            /// token texts with byte spans).
            pub fn parse(input: &str) -> ::core::result::Result<#core::runtime::tree::Node, #core::runtime::tree::ParseError> {
                #core::runtime::tree::parse(Self::compiled(), input)
            }

            /// Loads tables bound at build time to this same vocabulary
            /// (see `gcd::build`) instead of binding now.
            pub fn load_bound(
                vocab: ::std::sync::Arc<#core::vocab::Vocabulary>,
                tables: &[u8],
            ) -> ::core::result::Result<::std::sync::Arc<#core::bind::BoundGrammar>, #core::SnapshotError> {
                #core::bind::BoundGrammar::from_bytes(Self::compiled().clone(), vocab, tables).map(::std::sync::Arc::new)
            }

            #bind
            /// Binds the grammar to a vocabulary, for token masks; an error
            /// names a special token the grammar names and `vocab` lacks.
            pub fn try_bind(
                vocab: ::std::sync::Arc<#core::vocab::Vocabulary>,
            ) -> ::core::result::Result<::std::sync::Arc<#core::bind::BoundGrammar>, #core::vocab::VocabError> {
                #core::bind::BoundGrammar::try_new(Self::compiled().clone(), vocab).map(::std::sync::Arc::new)
            }
        }
    }
}
