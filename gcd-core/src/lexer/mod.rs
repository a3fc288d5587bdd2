//! Terminal DFAs and the contextual lexer automaton.
//!
//! Every terminal's regex is compiled by regex-automata and then read out
//! into a plain table ([`TerminalDfa`]): per state, the next state for each
//! byte, whether the lexeme so far matches, and whether it can still grow
//! into a match. Owning the table lets us compute liveness (regex-automata's
//! dead state only covers part of it) and combine DFAs.
//!
//! The lexer of ARCHITECTURE.md ("Semantics") is contextual maximal munch: at
//! a lexeme start only the candidate terminals (those the parser accepts
//! next, plus the ignored ones) are tried, and the lexeme ends when the next
//! byte extends no candidate. [`LexerAutomaton`] is the product of the
//! candidates' DFAs, one start state per candidate set, built once per
//! grammar. A state of it knows which candidates are still alive and which
//! one wins if the lexeme ends now.

pub mod automaton;
mod classes;
mod combination;
mod counted;
mod determinize;
mod dfa;
mod factor;
pub mod lookaround;
mod product;
mod table;

pub use automaton::{LexerAutomaton, NO_TERMINAL};
pub use classes::ByteClasses;
pub use counted::ChainLayout;
pub use dfa::{DfaError, TerminalDfa};

/// Marks "no state": the lexeme cannot take this byte.
pub const DEAD: u32 = u32::MAX;

/// The distance to a match from a state that cannot reach one.
pub const UNREACHABLE: u32 = u32::MAX;

#[cfg(test)]
mod tests;
