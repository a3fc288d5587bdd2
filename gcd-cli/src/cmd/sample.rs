//! `gcd sample`: outputs drawn uniformly among the allowed tokens at each
//! step, one JSON line each, optionally under a budget and lexeme caps.

use std::process::ExitCode;
use std::time::Instant;

use gcd_cli::stats::Summary;
use gcd_core::runtime::matcher::Matcher;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;

use super::{ms, summarize, timed};
use crate::args::{bind, load_vocab, GlobalArgs, GrammarArgs, Result};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    grammar: GrammarArgs,
    /// XGrammar's structural tag (`{"type": "structural_tag", "format":
    /// ...}`, as vLLM and SGLang pass it) in a JSON file, instead of
    /// `--grammar`.
    #[arg(long, value_name = "FILE", conflicts_with = "grammar")]
    structural_tag: Option<String>,
    #[arg(long, default_value_t = 5)]
    count: usize,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[arg(long, default_value_t = 64)]
    max_tokens: usize,
    /// Hard token budget: every output is complete within N tokens.
    #[arg(long)]
    budget: Option<usize>,
    /// `TERMINAL=K`: every lexeme of TERMINAL holds at most K tokens and
    /// still ends (a reasoning segment, say); repeatable.
    #[arg(long = "cap", value_name = "TERMINAL=K")]
    caps: Vec<String>,
    /// Print timings to stderr.
    #[arg(long)]
    timings: bool,
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<ExitCode> {
    let GrammarArgs { grammar, tokenizer } = &args.grammar;
    let caps = (args.caps.iter())
        .map(|c| {
            let (name, k) = c
                .split_once('=')
                .ok_or(format!("--cap {c}: expected TERMINAL=K"))?;
            let k = k.parse::<usize>().map_err(|e| format!("--cap {c}: {e}"))?;
            Ok((name.to_string(), k))
        })
        .collect::<Result<Vec<_>>>()?;
    let (g, t_compile) = match &args.structural_tag {
        Some(file) => timed(|| global.load_structural_tag(file))?,
        None => timed(|| global.load_grammar(grammar))?,
    };
    let (vocab, t_vocab) = timed(|| load_vocab(tokenizer))?;
    let t0 = Instant::now();
    let bound = bind(g, vocab)?;
    let t_bind = t0.elapsed();
    // The vocabulary as the grammar reads it (its special tokens as symbols).
    let vocab = bound.vocab().clone();
    let mut mask_times = Vec::new();
    let width = vocab.len();
    let budget = args.budget;
    for k in 0..args.count {
        let mut rng = StdRng::seed_from_u64(args.seed.wrapping_add(k as u64));
        let mut m = Matcher::new(bound.clone());
        for (name, k) in &caps {
            m.set_lexeme_cap(name, Some(*k))
                .map_err(|e| e.to_string())?;
        }
        if budget.is_some() {
            m.set_budget(budget).map_err(|e| e.to_string())?;
        }
        let limit = budget.map_or(args.max_tokens, |b| b + 1);
        let mut mask = bitvec::bitvec![u64, bitvec::order::Lsb0; 0; width];
        while m.tokens().len() < limit && !m.is_finished() {
            let t = Instant::now();
            m.fill_mask(&mut mask);
            mask_times.push(t.elapsed());
            let allowed: Vec<usize> = mask.iter_ones().collect();
            if allowed.is_empty() {
                break;
            }
            let pick = allowed[rng.random_range(0..allowed.len())] as u32;
            m.advance(pick).map_err(|e| e.to_string())?;
        }
        let text = vocab.render(m.output());
        let used = m.tokens().len() - usize::from(m.is_finished());
        let line =
            json!({"text": text, "tokens": used, "complete": m.is_finished() || m.is_complete()});
        println!("{line}");
    }
    if args.timings {
        let masks = Summary::of_durations(&mask_times);
        if global.json {
            let line = json!({
                "grammar_ms": ms(t_compile),
                "tokenizer": vocab.name(),
                "vocab_ids": vocab.len(),
                "tokenizer_load_ms": ms(t_vocab),
                "bind_ms": ms(t_bind),
                "masks_us": masks,
            });
            eprintln!("{line}");
        } else {
            eprintln!(
                "grammar {:.2} ms, tokenizer {} ({} ids) {:.0} ms, bind {:.1} ms, masks: {}",
                ms(t_compile),
                vocab.name(),
                vocab.len(),
                ms(t_vocab),
                ms(t_bind),
                summarize(&masks)
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
