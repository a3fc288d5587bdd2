//! No code: a workspace member that depends on `gcd` with its `candle`
//! feature, so that `cargo test --workspace` builds and tests the candle
//! integration (`tests/candle_generate.rs`, the `gcd::candle` doc example)
//! with everything else.
//!
//! Cargo unifies features over the members a command builds. A separate
//! `cargo test --features candle` changed the features of dependencies
//! that candle shares with the rest (memchr, hashbrown, num-traits, …),
//! and so rebuilt the whole tree a second time (12 minutes of a CI run on
//! this project's 2-core machine).
//! `cargo run --example tool_call` and `cargo build -p gcd` build the root
//! package alone and stay without candle.
