//! A reasoning model's turn as Qwen writes it: `<think>…</think>`, free
//! text, then two typed tool calls in `<tool_call>` tags, ended by a special
//! token, all within a token budget, with a stand-in model on the embedded
//! o200k vocabulary. The reasoning is capped at 12 tokens: the third turn's
//! budget would let it run on, and the cap closes it. The turn comes back
//! as Rust values.
//!
//! `cargo run --release --example chat_tool_calls`
//!
//! `-- --format NAME` runs a model family of XGrammar's registry instead
//! (`llama`, `qwen_3`, `qwen_3_5`, `qwen_3_coder`, `mimo`, `glm_4_7`,
//! `kimi`, `deepseek_r1`, `deepseek_v3_1`, `minimax`, `harmony`; `hermes`
//! is the default above), with `--tool-choice none|auto|required|TOOL`
//! (`required` unless given) and `--no-parallel` (OpenAI's `tool_choice` and
//! `parallel_tool_calls`). The family's turn ends with the vocabulary's
//! EOS; the reasoning cap is kept where the family's grammar allows one.

mod common;

use std::sync::Arc;
use std::time::Instant;

use gcd::chat::ToolChoice;
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

/// The tools of the family turns: XML-style families write string
/// arguments raw, so no patterns here.
#[allow(dead_code)]
#[derive(Constrained, Deserialize, Debug)]
#[serde(tag = "name", content = "arguments", rename_all = "snake_case")]
enum FamilyTool {
    GetWeather {
        #[constrained(max_len = 16)]
        city: String,
        #[constrained(range = 1..=7)]
        days: u8,
    },
    SendEmail {
        to: String,
        #[constrained(max_len = 24)]
        subject: String,
    },
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag =
        |name: &str| (args.iter().position(|a| a == name)).and_then(|i| args.get(i + 1).cloned());
    match flag("--format").as_deref() {
        None | Some("hermes") => {}
        Some(family) => {
            let choice = match flag("--tool-choice").as_deref() {
                Some("auto") => ToolChoice::Auto,
                Some("none") => ToolChoice::None,
                None | Some("required") => ToolChoice::Required,
                Some(tool) => ToolChoice::Named(tool.to_string()),
            };
            let parallel = !args.iter().any(|a| a == "--no-parallel");
            return family_turns(family, choice, parallel);
        }
    }
    let vocab = Arc::new(Vocabulary::o200k_base()?);
    // o200k has no `<|im_end|>`; its `<|endofprompt|>` ends the turn here.
    let chat = Chat::hermes()
        .reasoning(true)
        .end_token("<|endofprompt|>")
        .calls(2, Some(2))
        .max_reasoning_tokens(12);
    budgeted_turns::<Tool>(&chat, &vocab, "")
}

/// Three budgeted turns of `family`.
fn family_turns(
    family: &str,
    choice: ToolChoice,
    parallel: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    let vocab = Arc::new(Vocabulary::o200k_base()?);
    let base = Chat::family(family)?
        .reasoning(family != "llama")
        .tool_choice(choice)
        .parallel_tool_calls(parallel);
    // The cap where the grammar allows one (JSON arguments).
    let capped = base.clone().max_reasoning_tokens(12);
    let chat = match capped.decoder::<FamilyTool>(vocab.clone()) {
        Ok(_) => capped,
        Err(e) => {
            println!("no reasoning cap: {e}");
            base
        }
    };
    budgeted_turns::<FamilyTool>(&chat, &vocab, &format!("{family}: "))
}

/// Three turns of `chat` under growing budgets, from the fewest tokens a
/// turn takes; `label` starts the first line.
fn budgeted_turns<T: serde::de::DeserializeOwned + Constrained + std::fmt::Debug + 'static>(
    chat: &Chat,
    vocab: &Arc<Vocabulary>,
    label: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    let t0 = Instant::now();
    let least = chat
        .decoder::<T>(vocab.clone())?
        .matcher()
        .min_tokens_to_complete();
    println!(
        "{label}turn grammar composed and bound in {:.0} ms; the shortest turn takes {least} tokens",
        t0.elapsed().as_secs_f64() * 1e3
    );
    let mut model = common::StandInModel::new(vocab, 7);
    for budget in [least + 10, least + 40, least + 120] {
        let mut decoder = chat.decoder::<T>(vocab.clone())?.with_budget(budget)?;
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
