//! Build-script helpers: bind a grammar to a tokenizer fixed at build time.
//!
//! A deployment with one model need not bind at start-up. In `build.rs`:
//!
//! ```no_run
//! // build.rs (with `gcd` as a build-dependency)
//! let grammar = gcd::core::lark::builtin::json_compiled();
//! gcd::build::write_bound_tables("json.bound", &grammar, "tokenizers/model/tokenizer.json").unwrap();
//! ```
//!
//! and at run time, with the same grammar and tokenizer:
//!
//! ```ignore
//! static TABLES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/json.bound"));
//! let bound = BoundGrammar::from_bytes(grammar, vocab, TABLES)?; // or `MyGrammar::load_bound`
//! ```
//!
//! Loading checks that the grammar and the vocabulary are the ones the tables
//! were built for (by fingerprint), so a swapped tokenizer file is an error,
//! not wrong masks.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::vocab::Vocabulary;

/// Binds `grammar` to `tokenizer` (a tokenizer.json or .tiktoken path, or
/// an embedded name such as `o200k_base`) and writes the tables to
/// `$OUT_DIR/file_name`; returns the path. Also tells Cargo to rerun when
/// the tokenizer file changes.
pub fn write_bound_tables(
    file_name: &str,
    grammar: &Arc<CompiledGrammar>,
    tokenizer: &str,
) -> Result<PathBuf, Box<dyn std::error::Error>> {
    let out_dir =
        std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set: call this from a build script")?;
    if Path::new(tokenizer).exists() {
        println!("cargo:rerun-if-changed={tokenizer}");
    }
    write_bound_tables_to(Path::new(&out_dir).join(file_name), grammar, tokenizer)
}

/// [`write_bound_tables`] to any path.
pub fn write_bound_tables_to(
    path: PathBuf,
    grammar: &Arc<CompiledGrammar>,
    tokenizer: &str,
) -> Result<PathBuf, Box<dyn std::error::Error>> {
    let vocab = Arc::new(Vocabulary::load(tokenizer)?);
    let bound = BoundGrammar::try_new(grammar.clone(), vocab)?;
    std::fs::write(&path, bound.to_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}
