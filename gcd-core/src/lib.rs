//! gcd-core: grammar IR, analysis, lexer, vocabulary binding and the matcher.
//!
//! The stages, one module each: [`grammar`] (IR, builder, Lark-subset text
//! format), [`transform`] (left recursion, left factoring), [`analysis`]
//! (nullable/FIRST/FOLLOW, LL(1) table), [`lexer`] (terminal DFAs and the
//! contextual lexer automaton), [`parser`] (the LL(1) stack machine),
//! [`compiled`] (everything that does not depend on a vocabulary),
//! [`recognizer`] (the brute-force reference), [`vocab`], [`bind`] and
//! [`matcher`].

pub mod analysis;
#[cfg(feature = "vocab")]
pub mod bind;
pub mod builtin;
pub mod compiled;
pub mod counters;
pub mod error;
pub mod grammar;
pub mod json_shape;
pub mod jsonfmt;
pub mod lexer;
pub mod parser;
pub mod runtime;
pub mod snapshot;
#[cfg(feature = "vocab")]
pub mod vocab;

pub use error::{Diagnostic, DiagnosticKind, GrammarError, Pos, Span};
