//! The whole loop for an agent's tool call: derive `Constrained` on the
//! call type, decode under a token budget with a stand-in model on the
//! embedded o200k vocabulary, and get the Rust value back.
//!
//! `cargo run --release --example tool_call`

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use gcd::{Constrained, Decoder, LogitsSource, Vocabulary};
use serde::Deserialize;

// The fields are read through `Debug` only, in this example.
#[allow(dead_code)]
#[derive(Constrained, Deserialize, Debug)]
#[serde(tag = "tool", content = "args", rename_all = "snake_case")]
enum ToolCall {
    Search {
        query: String,
        #[constrained(range = 1..=10)]
        limit: u8,
    },
    Weather {
        #[constrained(pattern = "[A-Z][a-z]+( [A-Z][a-z]+)?")]
        city: String,
        unit: Option<Unit>,
    },
    ReadFile {
        #[constrained(max_len = 16)]
        path: String,
    },
}

#[derive(Constrained, Deserialize, Debug)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let t0 = Instant::now();
    let vocab = Arc::new(Vocabulary::o200k_base()?);
    println!(
        "vocabulary {} ({} ids) loaded in {:.0} ms",
        vocab.name(),
        vocab.len(),
        t0.elapsed().as_secs_f64() * 1e3
    );
    let mut model = common::StandInModel::new(&vocab, 42);
    let mut logits = vec![0f32; vocab.len()];
    let t0 = Instant::now();
    gcd::constrained::compiled::<ToolCall>(ToolCall::WHITESPACE)?;
    println!(
        "ToolCall's grammar linked (shapes to LL(1) tables) in {:.2} ms, once per process",
        t0.elapsed().as_secs_f64() * 1e3
    );
    let t0 = Instant::now();
    let first = Decoder::<ToolCall>::new(vocab.clone())?;
    let bind = t0.elapsed();
    println!(
        "... bound to the vocabulary in {:.0} ms (nearly all of it the token trie, once per \
         vocabulary)",
        bind.as_secs_f64() * 1e3
    );
    // Binding started a worker on the token and budget tables of every
    // lexer state. A model loop reads its prompt meanwhile; this example
    // has no prompt, so it waits for them (and lends a hand).
    let bound = first.matcher().bound();
    let t0 = Instant::now();
    bound.build_all();
    println!(
        "... token and budget tables of its {} lexer states ready {:.0} ms later, once per \
         process (built on a worker thread beside the caller; without it, each call's first \
         masks would build them)",
        bound.num_states(),
        t0.elapsed().as_secs_f64() * 1e3,
    );
    println!(
        "... the shortest call takes {} tokens",
        first.matcher().min_tokens_to_complete()
    );
    for (i, budget) in [24usize, 32, 48].into_iter().cycle().take(6).enumerate() {
        let t0 = Instant::now();
        let mut decoder = Decoder::<ToolCall>::new(vocab.clone())?.with_budget(budget)?;
        let setup = t0.elapsed();
        let (mut mask_time, mut apply_time, mut slowest) = (Duration::ZERO, Duration::ZERO, 0.0f64);
        let mut steps = 0;
        while !decoder.matcher().is_finished() {
            model.next_logits(decoder.matcher().tokens(), &mut logits);
            // The mask, then setting what it forbids in the logits: the
            // second is a pass over the whole row, whatever the grammar.
            let t = Instant::now();
            let mask = decoder.matcher().compute_mask(logits.len());
            let took = t.elapsed();
            let t = Instant::now();
            gcd::core::runtime::matcher::apply_mask(&mask, &mut logits);
            apply_time += t.elapsed();
            mask_time += took;
            slowest = slowest.max(took.as_secs_f64() * 1e6);
            steps += 1;
            let best = (0..logits.len())
                .max_by(|&a, &b| logits[a].total_cmp(&logits[b]))
                .expect("a vocabulary");
            decoder.advance(best as u32)?;
        }
        let json = String::from_utf8_lossy(decoder.matcher().output()).into_owned();
        let call: ToolCall = decoder.finish()?;
        println!("\n#{i}: {json}");
        println!("    {call:?}");
        println!(
            "    {} of {budget} tokens; setup {:.1} ms; mask avg {:.1} us over {steps} steps \
             (max {slowest:.0} us), applying it to the logits {:.1} us",
            decoder.matcher().tokens().len() - 1,
            setup.as_secs_f64() * 1e3,
            mask_time.as_secs_f64() * 1e6 / steps as f64,
            apply_time.as_secs_f64() * 1e6 / steps as f64,
        );
    }
    Ok(())
}
