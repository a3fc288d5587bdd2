//! Every mask of one decode, timed, in functions a profiler can single out:
//! a schema, a document that satisfies it (tokenized by the vocabulary), and
//! one mask per token. Prints each step's µs and the text before it; with
//! `GCD_STEP=N`, step N's mask runs inside `chosen_step` and the others inside
//! `other_step`, so `callgrind --toggle-collect='*chosen_step*'` counts that
//! mask alone. The vocabulary `o200k` is the embedded one.
//!
//! `cargo run --release -p gcd-schema --example step_profile -- TOKENIZER SCHEMA.json DOCUMENT`
use std::sync::Arc;
use std::time::Instant;

use gcd_core::bind::BoundGrammar;
use gcd_core::runtime::matcher::Matcher;
use gcd_core::vocab::Vocabulary;

#[inline(never)]
fn chosen_step(m: &Matcher, n: usize) -> usize {
    // Not the same code as `other_step`, or the linker folds the two.
    m.compute_mask(n).count_ones() + std::hint::black_box(0)
}

#[inline(never)]
fn other_step(m: &Matcher, n: usize) -> usize {
    m.compute_mask(n).count_ones()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [tokenizer, schema, document] = &args[..] else {
        return Err("usage: TOKENIZER SCHEMA.json DOCUMENT".into());
    };
    let vocab = Arc::new(if tokenizer == "o200k" {
        Vocabulary::o200k_base()?
    } else {
        Vocabulary::load(tokenizer)?
    });
    let schema: serde_json::Value = serde_json::from_slice(&std::fs::read(schema)?)?;
    let chosen: Option<usize> = std::env::var("GCD_STEP").ok().and_then(|s| s.parse().ok());
    let grammar = gcd_schema::to_grammar(&schema, &gcd_schema::Options::default())?;
    let compiled = Arc::new(gcd_core::compiled::CompiledGrammar::new(&grammar)?);
    let mut m = Matcher::new(Arc::new(BoundGrammar::new(compiled, vocab.clone())));
    let tokens = vocab.encode(document)?;
    for (step, &token) in tokens.iter().enumerate() {
        let t = Instant::now();
        let allowed = if chosen == Some(step) {
            chosen_step(&m, vocab.len())
        } else {
            other_step(&m, vocab.len())
        };
        let us = t.elapsed().as_secs_f64() * 1e6;
        let before = String::from_utf8_lossy(m.output()).into_owned();
        println!("{step:3} {us:8.0} us {allowed:7} allowed  after {before:?}");
        m.advance(token)?;
    }
    Ok(())
}
