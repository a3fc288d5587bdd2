//! How long a lexer state's first token tables take on a real vocabulary:
//! one whole-trie walk per state, with every cache bypassed. This is what
//! a mask waits for the first time it meets a state (a string body, each
//! count of a length-bounded string), so it sets the cold path's floor.
//!
//! `cargo run --release -p gcd-core --example state_walk [TOKENIZER_JSON]`
//! (default: the embedded o200k).

use std::sync::Arc;
use std::time::Instant;

use gcd_core::{BoundGrammar, CompiledGrammar, Vocabulary};

const GRAMMAR: &str = r#"
start: "{\"q\":" STR ",\"p\":" SHORT "}"
STR: /"([^"\\\x00-\x1f]|\\["\\\/bfnrt])*"/
SHORT: /"[^"\\\x00-\x1f]{0,16}"/
"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let vocab = match std::env::args().nth(1) {
        Some(path) => Vocabulary::from_tokenizer_json(&path)?,
        None => Vocabulary::o200k_base()?,
    };
    let grammar = gcd_core::lark::parse_grammar(GRAMMAR)?;
    let compiled = Arc::new(CompiledGrammar::new(&grammar)?);
    let bound = BoundGrammar::try_new(compiled, Arc::new(vocab))?;
    let nodes = bound.trie().num_nodes();
    let rounds = 5;
    let (mut total, mut slowest) = (0f64, (0f64, 0u32));
    for q in 0..bound.num_states() as u32 {
        let mut best = f64::MAX;
        for _ in 0..rounds {
            let t = Instant::now();
            let tables = bound.state_uncached(q);
            best = best.min(t.elapsed().as_secs_f64() * 1e6);
            std::hint::black_box(tables);
        }
        total += best;
        if best > slowest.0 {
            slowest = (best, q);
        }
    }
    println!(
        "{} ids, {nodes} trie nodes, {} lexer states: {:.0} us per state on average, \
         slowest {:.0} us (state {}), best of {rounds}",
        bound.vocab().len(),
        bound.num_states(),
        total / bound.num_states() as f64,
        slowest.0,
        slowest.1,
    );
    Ok(())
}
