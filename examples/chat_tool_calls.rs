//! A reasoning model's turn as Qwen writes it: `<think>…</think>`, free
//! text, then two typed tool calls in `<tool_call>` tags, ended by a special
//! token, all within a token budget, with a stand-in model on the embedded
//! o200k vocabulary. The reasoning is capped at 12 tokens: the third turn's
//! budget would let it run on, and the cap closes it. The turn comes back
//! as Rust values.
//!
//! `cargo run --release --example chat_tool_calls`

mod common;

use std::sync::Arc;
use std::time::Instant;

use gcd::{Chat, Constrained, Vocabulary};
use serde::Deserialize;

// The fields are read through `Debug` only, in this example.
#[allow(dead_code)]
#[derive(Constrained, Deserialize, Debug)]
#[serde(tag = "name", content = "arguments", rename_all = "snake_case")]
enum Tool {
    GetWeather {
        #[constrained(pattern = "[A-Z][a-z]+")]
        city: String,
        #[constrained(range = 1..=7)]
        days: u8,
    },
    SendEmail {
        #[constrained(pattern = "[a-z]+@[a-z]+\\.com")]
        to: String,
        #[constrained(max_len = 24)]
        subject: String,
    },
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let vocab = Arc::new(Vocabulary::o200k_base()?);
    // o200k has no `<|im_end|>`; its `<|endofprompt|>` ends the turn here.
    let chat = Chat::hermes()
        .reasoning(true)
        .end_token("<|endofprompt|>")
        .calls(2, Some(2))
        .max_reasoning_tokens(12);
    let t0 = Instant::now();
    let least = chat
        .decoder::<Tool>(vocab.clone())?
        .matcher()
        .min_tokens_to_complete();
    println!(
        "turn grammar composed and bound in {:.0} ms; the shortest turn takes {least} tokens",
        t0.elapsed().as_secs_f64() * 1e3
    );
    let mut model = common::StandInModel::new(&vocab, 7);
    for budget in [least + 10, least + 40, least + 120] {
        let mut decoder = chat.decoder::<Tool>(vocab.clone())?.with_budget(budget)?;
        let t0 = Instant::now();
        let turn = decoder.greedy(&mut model, budget + 1)?;
        let used = decoder.matcher().tokens().len() - usize::from(decoder.matcher().is_finished());
        println!(
            "\nbudget {budget}: {used} tokens in {:.1} ms",
            t0.elapsed().as_secs_f64() * 1e3
        );
        println!("  text:      {:?}", decoder.matcher().text());
        println!("  reasoning: {:?}", turn.reasoning.unwrap_or_default());
        println!("  free text: {:?}", turn.text);
        for call in &turn.calls {
            println!("  call:      {call:?}");
        }
    }
    Ok(())
}
