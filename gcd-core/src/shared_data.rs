//! Where the shared data lives: real tokenizers, schemas and grammars that
//! tests, examples and benchmarks read but the repository does not hold.
//!
//! One lookup for every crate, so that one variable can hide the data from
//! the whole suite: CI runs it once with the data and once with
//! `GCD_SHARED_DATA=/nonexistent`, which is what a fresh clone without
//! `../shared` sees.

use std::path::PathBuf;

/// The variable that overrides the location (a folder; a missing one
/// means "no shared data").
pub const VAR: &str = "GCD_SHARED_DATA";

/// The shared data folder: `$GCD_SHARED_DATA` when set, else
/// `../shared/data` beside the workspace. `None` (with a `SKIP:` line on
/// stderr, so a skipped test says why) when the folder is absent.
pub fn root() -> Option<PathBuf> {
    let p = match std::env::var_os(VAR) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data")),
    };
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!(
            "SKIP: shared data not found at {} (set {VAR} or place ../shared/data beside the checkout); real-data tests skipped",
            p.display()
        );
        None
    }
}

/// `rel` inside the shared data folder, if that folder exists.
pub fn path(rel: &str) -> Option<PathBuf> {
    root().map(|r| r.join(rel))
}
