//! Run time, per request: the [`Matcher`] that computes masks and advances
//! by tokens, decoding strategies that drive matchers, parse trees for
//! grammars that are not JSON, and the brute-force reference recognizer
//! that every fast path is tested against.

#[cfg(feature = "vocab")]
pub mod batch;
#[cfg(feature = "vocab")]
pub mod decode;
#[cfg(feature = "vocab")]
pub mod matcher;
#[cfg(feature = "vocab")]
pub mod overlap;
pub mod recognizer;
pub mod tree;

#[cfg(feature = "vocab")]
pub use matcher::{MatchError, MatchErrorKind, Matcher};
