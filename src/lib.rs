//! gcd: typed, grammar-constrained LLM output.
//!
//! At every decoding step gcd computes the exact set of tokens that keep
//! the output a valid prefix of a grammar, over a real tokenizer's
//! vocabulary; with a token budget, it also keeps the output completable
//! within the budget, so it always ends complete. The grammar comes from a
//! Rust type, a JSON Schema, or a Lark grammar; the output comes back as
//! the Rust value.
//!
//! This facade re-exports the engine ([`core`]), the JSON Schema front end
//! ([`schema`]) and the procedural macros ([`grammar!`],
//! [`Constrained`](macro@Constrained)).
//!
//! # A Rust type
//!
//! ```
//! # use std::sync::Arc;
//! #[derive(gcd::Constrained, serde::Deserialize, Debug)]
//! #[serde(tag = "tool", content = "args", rename_all = "snake_case")]
//! enum ToolCall {
//!     Search { query: String, #[constrained(range = 1..=10)] limit: u8 },
//!     Stop,
//! }
//!
//! let vocab = Arc::new(gcd::Vocabulary::o200k_base()?);
//! let mut decoder = gcd::Decoder::<ToolCall>::new(vocab.clone())?.with_budget(32)?;
//! // A model would pick among the allowed tokens; here the text is given.
//! for token in vocab.encode(r#"{"tool":"search","args":{"query":"rust","limit":3}}"#)? {
//!     let mut logits = vec![0.0f32; vocab.len()];
//!     decoder.mask_logits(&mut logits);
//!     assert!(logits[token as usize].is_finite(), "the mask allows it");
//!     decoder.advance(token)?;
//! }
//! let call = decoder.finish()?;
//! assert!(matches!(call, ToolCall::Search { limit: 3, .. }));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # A JSON Schema
//!
//! ```
//! # use std::sync::Arc;
//! let vocab = Arc::new(gcd::Vocabulary::o200k_base()?);
//! let schema = serde_json::json!({"type": "array", "items": {"type": "integer"}, "maxItems": 2});
//! let options = gcd::schema::Options::default();
//! let mut decoder = gcd::Decoder::<Vec<i64>>::from_schema(&schema, &options, vocab.clone())?;
//! for token in vocab.encode("[1, 2")? {
//!     decoder.advance(token)?;
//! }
//! // A third item is not allowed: `]` is the only way on.
//! assert!(decoder.matcher().accepts_bytes(b"]") && !decoder.matcher().accepts_bytes(b","));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # A grammar, checked when the crate builds
//!
//! ```
//! # use std::sync::Arc;
//! gcd::grammar! {
//!     pub Sums;
//!     start: expr
//!     ?expr: expr "+" NUMBER -> add | NUMBER
//!     NUMBER: /"[0-9]+"/
//! }
//! let tree = Sums::parse("1+2+3")?;
//! assert_eq!(tree.to_string(), "(start (add (add 1 2) 3))");
//! let vocab = Arc::new(gcd::Vocabulary::o200k_base()?);
//! let matcher = gcd::Matcher::new(Sums::bind(vocab));
//! assert!(matcher.accepts_bytes(b"12+"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # A budget
//!
//! ```
//! # use std::sync::Arc;
//! let vocab = Arc::new(gcd::Vocabulary::o200k_base()?);
//! let bound = Arc::new(gcd::BoundGrammar::new(
//!     gcd::core::lark::builtin::json_compiled(),
//!     vocab.clone(),
//! ));
//! // Open three arrays, then ask for at most 4 tokens in all: only tokens
//! // that still leave a way to close them in time are allowed.
//! let mut m = gcd::Matcher::new(bound).with_budget(4)?;
//! let open = vocab.encode("[[")?;
//! for &t in &open {
//!     m.advance(t)?;
//! }
//! assert!(m.min_tokens_to_complete() <= 4 - open.len());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Models plug in through [`LogitsSource`] (greedy
//! and beam search), the `candle` feature (`candle`: logits tensors and a
//! typed generation loop), `int32` bitmasks for serving engines
//! ([`core::runtime::batch`], and the Python package in `python/`).

// Library code never unwraps or panics on what callers pass in: an
// invariant states itself with `expect`, and CI runs clippy with these.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::panic))]
// Every public item says what it is for: a user reads the docs, not the code.
#![deny(missing_docs)]

// Lets code emitted by the macros name `::gcd` inside this crate's own
// tests and doc tests too.
extern crate self as gcd;

pub mod build;
#[cfg(feature = "candle")]
pub mod candle;
pub mod chat;
pub mod constrained;

pub use chat::{Chat, ChatDecoder, ChatFormat, ChatTurn};
pub use constrained::{Constrained, ConstraintError, Decoder};
pub use gcd_core as core;
// What every user names, at the top: a vocabulary, a grammar bound to it,
// a matcher per request, and the model behind `greedy` and beam search.
// The rest stays under `core::`.
pub use gcd_core::runtime::decode::LogitsSource;
pub use gcd_core::{BoundGrammar, Matcher, Vocabulary};
pub use gcd_macros::{grammar, Constrained};
pub use gcd_schema as schema;
