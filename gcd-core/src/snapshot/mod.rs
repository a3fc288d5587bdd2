//! Snapshots of whole grammars: a [`CompiledGrammar`](crate::CompiledGrammar)
//! (what the `grammar!` macro embeds) and a bound grammar's
//! vocabulary-dependent tables (what `gcd::build` writes for a fixed
//! tokenizer). Each is checked on load for every index the matcher relies
//! on, so a corrupt snapshot is an error, not a panic later.

#[cfg(feature = "vocab")]
mod bound;
mod grammar;
