//! Sizes and costs of each `format`'s automaton:
//! `cargo run --release -p gcd-schema --example format_sizes`.
//!
//! Per format and escape policy: states of the string terminal's DFA,
//! contextual-lexer states, schema compile time (cold DFA cache), and the
//! time to bind every lexer state to the llama3 vocabulary (128k tokens),
//! when ../shared/data is present. Bound states are cached process-wide,
//! so for per-format bind times run one format per process:
//! `GCD_FORMATS=uri cargo run …` (comma-separated; default: all).

use std::sync::Arc;
use std::time::Instant;

use gcd_core::bind::BoundGrammar;
use gcd_core::vocab::trie::TokenTrie;
use gcd_core::vocab::Vocabulary;
use gcd_schema::{compile, Escapes, Options};
use serde_json::json;

use gcd_schema::format::SUPPORTED as FORMATS;

fn main() {
    let tokenizer = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/tokenizers/llama3/tokenizer.json"
    );
    let vocab = Vocabulary::from_tokenizer_json(tokenizer)
        .ok()
        .map(Arc::new);
    if vocab.is_none() {
        eprintln!("{tokenizer} not found: bind times skipped");
    }
    let trie = vocab.as_ref().map(|v| Arc::new(TokenTrie::new(v)));
    println!("format | escapes | DFA states | lexer states | compile ms | bind-all ms");
    let only = std::env::var("GCD_FORMATS").ok();
    let wanted = |f: &str| only.as_ref().is_none_or(|o| o.split(',').any(|x| x == f));
    for esc in [Escapes::Canonical, Escapes::Any] {
        for f in FORMATS.iter().filter(|f| wanted(f)) {
            let schema = json!({"type": "string", "format": f});
            let opts = Options::default().escapes(esc);
            let t0 = Instant::now();
            let c = compile(&schema, &opts).unwrap();
            let compile_ms = t0.elapsed().as_secs_f64() * 1e3;
            let dfa = c.dfas().iter().map(|d| d.len()).max().unwrap();
            let lexer = c.lexer().num_states();
            let bind = match (&vocab, &trie) {
                (Some(v), Some(t)) => {
                    let t0 = Instant::now();
                    let b = BoundGrammar::with_trie(Arc::new(c), v.clone(), t.clone());
                    b.build_all();
                    format!("{:.0}", t0.elapsed().as_secs_f64() * 1e3)
                }
                _ => "-".into(),
            };
            println!("{f} | {esc:?} | {dfa} | {lexer} | {compile_ms:.1} | {bind}");
        }
    }
}
