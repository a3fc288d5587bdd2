//! gcd: typed, grammar-constrained LLM output.
//!
//! This facade re-exports the engine ([`core`]), the JSON Schema front end
//! ([`schema`]) and the procedural macros.
pub use gcd_core as core;
pub use gcd_schema as schema;
