//! The bench side of gcd: the MaskBench protocol and the Python-style JSON
//! that protocol tokenizes. They serve the `gcd` command line, the
//! benchmarks and tests in the other crates, not users of the library, so
//! they live here rather than in gcd-core or gcd-schema.

// The bench library is public to the CLI, benchmarks and tests; keep it
// documented like the library crates.
#![deny(missing_docs)]

pub mod maskbench;
pub mod pyjson;
pub mod stats;
pub mod throughput;
