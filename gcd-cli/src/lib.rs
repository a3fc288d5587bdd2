//! The bench side of gcd: the MaskBench protocol and the Python-style JSON
//! that protocol tokenizes. They serve the `gcd` command line, the
//! benchmarks and tests in the other crates, not users of the library, so
//! they live here rather than in gcd-core or gcd-schema.

pub mod maskbench;
pub mod pyjson;
pub mod throughput;
