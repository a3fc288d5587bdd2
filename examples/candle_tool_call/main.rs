//! A typed tool call from a real Llama-family model on candle, with the
//! mask computed while the model runs and a hard token budget.
//!
//! ```text
//! cargo run --release --features candle --example candle_tool_call -- --model DIR
//! cargo run --release --features candle --example candle_tool_call -- --gguf FILE --tokenizer tokenizer.json
//! ```
//!
//! `DIR` is a Hugging Face model folder (`config.json`, `tokenizer.json`,
//! `model.safetensors` or its shards), e.g. a Llama 3.2 1B Instruct
//! download; `FILE` a quantized GGUF of a Llama-architecture model. With
//! neither, it says what to pass and exits.

mod llama;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use candle_core::{DType, Device};
use candle_transformers::generation::{LogitsProcessor, Sampling};
use gcd::candle::{generate, NextTokenLogits};
use gcd::{Constrained, Vocabulary};
use serde::Deserialize;

#[allow(dead_code)] // read through Debug
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
    },
}

const USAGE: &str = "usage: candle_tool_call (--model DIR | --gguf FILE --tokenizer FILE) \
[--prompt TEXT] [--budget N] [--seed N]
  DIR   a Hugging Face Llama-family folder: config.json, tokenizer.json, model.safetensors (or shards)
  FILE  a quantized GGUF of a Llama-architecture model, with the model's tokenizer.json";

struct Args {
    model: Option<PathBuf>,
    gguf: Option<PathBuf>,
    tokenizer: Option<PathBuf>,
    prompt: String,
    budget: usize,
    seed: u64,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        model: None,
        gguf: None,
        tokenizer: None,
        prompt:
            "The user asks: what is the weather in New York? Answer with one tool call as JSON.\n"
                .into(),
        budget: 40,
        seed: 1,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--model" => args.model = Some(value()?.into()),
            "--gguf" => args.gguf = Some(value()?.into()),
            "--tokenizer" => args.tokenizer = Some(value()?.into()),
            "--prompt" => args.prompt = value()?,
            "--budget" => args.budget = value()?.parse().map_err(|e| format!("--budget: {e}"))?,
            "--seed" => args.seed = value()?.parse().map_err(|e| format!("--seed: {e}"))?,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(args)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let device = Device::Cpu;
    let (mut model, tokenizer): (Box<dyn NextTokenLogits>, PathBuf) =
        match (&args.model, &args.gguf, &args.tokenizer) {
            (Some(dir), None, _) => {
                let t0 = Instant::now();
                let m = llama::SafetensorsLlama::load(dir, DType::F32, &device)?;
                println!(
                    "model loaded from {} in {:.1} s",
                    dir.display(),
                    t0.elapsed().as_secs_f64()
                );
                let tok = args.tokenizer.clone().unwrap_or(dir.join("tokenizer.json"));
                (Box::new(m), tok)
            }
            (None, Some(file), Some(tok)) => {
                let t0 = Instant::now();
                let m = llama::GgufLlama::load(file, &device)?;
                println!(
                    "model loaded from {} in {:.1} s",
                    file.display(),
                    t0.elapsed().as_secs_f64()
                );
                (Box::new(m), tok.clone())
            }
            _ => {
                println!("no model given: nothing to run.\n{USAGE}");
                return Ok(());
            }
        };
    let vocab = Arc::new(Vocabulary::from_tokenizer_json(&tokenizer)?);
    let mut sampler = LogitsProcessor::from_sampling(args.seed, Sampling::ArgMax);
    let t0 = Instant::now();
    let out =
        generate::<ToolCall, _>(&mut *model, &vocab, &args.prompt, args.budget, &mut sampler)?;
    println!("{}", out.text);
    println!("{:?}", out.value);
    println!(
        "{} tokens (budget {}) in {:.1} s",
        out.tokens.len(),
        args.budget,
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}
