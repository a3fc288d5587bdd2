//! gcd: typed, grammar-constrained LLM output.
//!
//! This facade re-exports the engine ([`core`]), the JSON Schema front end
//! ([`schema`]) and the procedural macros ([`grammar!`]).

// Library code never unwraps or panics on what callers pass in: an
// invariant states itself with `expect`, and CI runs clippy with these.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::panic))]

// Lets code emitted by the macros name `::gcd` inside this crate's own
// tests and doc tests too.
extern crate self as gcd;

pub mod build;
#[cfg(feature = "candle")]
pub mod candle;
pub mod constrained;

pub use constrained::{Constrained, ConstraintError, Decoder};
pub use gcd_core as core;
pub use gcd_macros::{grammar, Constrained};
pub use gcd_schema as schema;
