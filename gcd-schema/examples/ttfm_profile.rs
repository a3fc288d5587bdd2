//! Time to first mask for MaskBench files, in one function a profiler can
//! single out: each file's schema is compiled, bound and asked for one mask
//! inside `first_mask`, so callgrind counts exactly that work
//! (`--toggle-collect='*first_mask*'`), with the process-wide caches as warm
//! as the files before it left them. Prints p50/p90/p99 in µs; with
//! `--each`, one line per file (µs, then the path).
//!
//! `cargo run --release -p gcd-schema --example ttfm_profile -- TOKENIZER [--each] FILE...`
use std::sync::Arc;
use std::time::Instant;

use gcd_core::bind::BoundGrammar;
use gcd_core::runtime::matcher::Matcher;
use gcd_core::vocab::trie::TokenTrie;
use gcd_core::vocab::Vocabulary;

/// Whether the schema compiled (a refused one costs its refusal only).
#[inline(never)]
fn first_mask(
    schema: &serde_json::Value,
    vocab: &Arc<Vocabulary>,
    trie: &Arc<TokenTrie>,
    options: &gcd_schema::Options,
) -> bool {
    let Ok(g) = gcd_schema::to_grammar(schema, options) else {
        return false;
    };
    let Ok(c) = gcd_core::compiled::CompiledGrammar::new(&g) else {
        return false;
    };
    let b = BoundGrammar::with_trie(Arc::new(c), vocab.clone(), trie.clone());
    drop(Matcher::new(Arc::new(b)).compute_mask(vocab.len()));
    true
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let vocab = Arc::new(Vocabulary::load(
        &args.next().ok_or("usage: TOKENIZER FILE...")?,
    )?);
    let trie = Arc::new(TokenTrie::new(&vocab));
    let options = gcd_schema::Options::default();
    let (mut each, mut times) = (false, Vec::new());
    for f in args {
        if f == "--each" {
            each = true;
            continue;
        }
        let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&f)?)?;
        let t = Instant::now();
        if first_mask(&doc["schema"], &vocab, &trie, &options) {
            let us = t.elapsed().as_secs_f64() * 1e6;
            times.push(us);
            if each {
                println!("{us:.0} {f}");
            }
        }
    }
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    if !times.is_empty() {
        eprintln!(
            "{} compiled; TTFM p50 {:.0} p90 {:.0} p99 {:.0} us",
            times.len(),
            at(0.5),
            at(0.9),
            at(0.99)
        );
    }
    Ok(())
}
