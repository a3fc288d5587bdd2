//! gcd-core: the engine behind gcd, from grammar IR to token masks.
//!
//! One folder per stage of the data flow (see `ARCHITECTURE.md` at the
//! repository root for the map, the data flow and the invariants between
//! stages):
//!
//! - [`error`]: diagnostics with kinds and spans, shared by every stage.
//! - `codec`: the byte framing every snapshot shares (internal).
//! - `counters`: process-wide counters that tests and benches read (hidden).
//! - [`gbnf`]: llama.cpp's GBNF, lowered so that its character-level
//!   meaning is kept exactly.
//! - [`lark`]: the Lark-subset front end, and the grammars that ship with
//!   gcd ([`lark::builtin`]: RFC 8259 JSON).
//! - [`json`]: JSON shapes (the derive's; gcd-schema shares its numbers and
//!   whitespace policy) lowered to the IR through the builder.
//! - [`grammar`]: the grammar IR and [`GrammarBuilder`](grammar::GrammarBuilder),
//!   which desugars EBNF.
//! - `analysis`: nullable/FIRST/FOLLOW, the LL(1) table, transforms to
//!   LL(1), parser contexts and lexical soundness (internal; public only for
//!   gcd's own tests and command line).
//! - [`lexer`]: terminal DFAs and the contextual lexer automaton.
//! - `parser`: the LL(1) stack machine with member sets (internal).
//! - [`compiled`]: the compile driver, [`CompiledGrammar`], and shortest
//!   completions; `snapshot` writes and checks its tables as bytes.
//! - [`vocab`]: a real tokenizer's token bytes and the token trie.
//! - [`bind`]: [`BoundGrammar`], per-lexer-state token tables and the
//!   budget's token-cost tables.
//! - [`runtime`]: the per-request [`Matcher`], decoding strategies, parse
//!   trees and the brute-force reference recognizer.
//!
//! Feature `vocab` (default) brings [`vocab`], [`bind`] and the matcher, and
//! with them the tokenizer stack; without it only the compile-time stages
//! are built (what the proc macros need).

// Library code never unwraps or panics on what callers pass in: an
// invariant states itself with `expect`, and CI runs clippy with these.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::panic))]
// Every public item says what it is for: a user reads the docs, not the code.
#![deny(missing_docs)]

#[doc(hidden)]
pub mod analysis;
#[cfg(feature = "vocab")]
pub mod bind;
mod codec;
pub mod compiled;
#[doc(hidden)]
pub mod counters;
pub mod error;
pub mod gbnf;
pub mod grammar;
pub mod json;
pub mod lark;
pub mod lexer;
pub mod limits;
mod option_name;
// Without `vocab` the matcher and the budget, which use most of the
// parser's stack API, are not built.
#[cfg_attr(not(feature = "vocab"), allow(dead_code, unused_imports))]
pub(crate) mod parser;
pub mod runtime;
#[doc(hidden)]
pub mod shared_data;
mod snapshot;
#[cfg(feature = "vocab")]
pub mod vocab;

#[cfg(feature = "vocab")]
pub use bind::BoundGrammar;
pub use codec::SnapshotError;
pub use compiled::{CompiledGrammar, Config, Lexing};
pub use error::{Diagnostic, DiagnosticKind, GrammarError, Pos, Span};
pub use limits::Limits;
pub use option_name::UnknownOptionName;
#[cfg(feature = "vocab")]
pub use runtime::{MatchError, MatchErrorKind, Matcher};
#[cfg(feature = "vocab")]
pub use vocab::Vocabulary;
