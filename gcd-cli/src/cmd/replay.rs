//! `gcd replay`: feed files token by token through the mask, report where
//! each is rejected, and time the masks per pass over the files.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gcd_cli::stats::Summary;
use gcd_core::bind::BoundGrammar;
use gcd_core::runtime::matcher::{MatchErrorKind, Matcher};

use crate::args::{bind, load_vocab, GlobalArgs, GrammarArgs, Result};

/// What to replay and how to report it.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    grammar: GrammarArgs,
    /// Succeed only if every file is rejected.
    #[arg(long)]
    expect_reject: bool,
    /// Replay the files this many times with one binding, reporting mask
    /// times per pass: the first pass builds the tables masks cache (a
    /// server's first requests), later ones find them built.
    #[arg(long, default_value_t = 1)]
    passes: usize,
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

/// What one pass over the files measured.
#[derive(Default)]
struct ReplayStats {
    mask_times: Vec<Duration>,
    peak_configurations: usize,
}

pub fn run(r: Args, global: &GlobalArgs) -> Result<ExitCode> {
    let g = global.load_grammar(&r.grammar.grammar)?;
    let vocab = load_vocab(&r.grammar.tokenizer)?;
    let t0 = Instant::now();
    let bound = bind(g, vocab)?;
    // Encoded as the grammar reads the vocabulary: the names of special
    // tokens it names are those tokens.
    let vocab = bound.vocab().clone();
    let bind_ms = t0.elapsed().as_secs_f64() * 1e3;
    let mut texts = Vec::with_capacity(r.files.len());
    for f in &r.files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        texts.push(vocab.encode(&text).map_err(|e| e.to_string())?);
    }
    let mut verdicts = Vec::new();
    let mut passes = Vec::new();
    for pass in 0..r.passes.max(1) {
        let mut stats = ReplayStats::default();
        for tokens in &texts {
            let verdict = replay_tokens(&bound, tokens, &mut stats);
            if pass == 0 {
                verdicts.push(verdict);
            }
        }
        passes.push((
            Summary::of_durations(&stats.mask_times),
            stats.peak_configurations,
        ));
    }
    let all_as_expected = verdicts.iter().all(|v| v.is_ok() != r.expect_reject);
    if global.json {
        let files: Vec<_> = r
            .files
            .iter()
            .zip(&verdicts)
            .map(|(f, v)| {
                serde_json::json!({
                    "file": f.display().to_string(),
                    "accepted": v.is_ok(),
                    "reason": v.as_ref().err(),
                })
            })
            .collect();
        let passes: Vec<_> = passes
            .iter()
            .map(|(masks_us, peak)| {
                serde_json::json!({"masks_us": masks_us, "peak_configurations": peak})
            })
            .collect();
        let report = serde_json::json!({
            "grammar": r.grammar.grammar,
            "tokenizer": bound.vocab().name(),
            "bind_ms": bind_ms,
            "files": files,
            "passes": passes,
            "as_expected": all_as_expected,
        });
        println!("{report:#}");
    } else {
        for (f, v) in r.files.iter().zip(&verdicts) {
            match v {
                Ok(()) => println!("{}: ok", f.display()),
                Err(msg) => println!("{}: {msg}", f.display()),
            }
        }
        for (k, (t, peak)) in passes.iter().enumerate() {
            let label = if passes.len() > 1 {
                format!("pass {}: ", k + 1)
            } else {
                String::new()
            };
            println!(
                "{label}bind {bind_ms:.0} ms; {} masks: p50 {:.0} µs, p99 {:.0} µs, max {:.0} µs; peak live configurations {peak}",
                t.n, t.p50, t.p99, t.max
            );
        }
    }
    Ok(if all_as_expected {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Feeds `tokens`, checking each against the mask, then EOS.
fn replay_tokens(
    bound: &Arc<BoundGrammar>,
    tokens: &[u32],
    stats: &mut ReplayStats,
) -> std::result::Result<(), String> {
    let mut m = Matcher::new(bound.clone());
    let width = bound.vocab().len();
    for (i, &t) in tokens.iter().enumerate() {
        let start = Instant::now();
        let mask = m.compute_mask(width);
        stats.mask_times.push(start.elapsed());
        stats.peak_configurations = stats.peak_configurations.max(m.configurations());
        let allowed = mask.get(t as usize).is_some_and(|b| *b);
        if allowed {
            if let Err(e) = m.advance(t) {
                if e.kind() == MatchErrorKind::TooManyConfigurations {
                    return Err(format!("gave up at token {i}: {e}"));
                }
            }
        }
        if !allowed || m.tokens().len() != i + 1 {
            let text = bound
                .vocab()
                .token_bytes(t)
                .map(|b| bound.vocab().render(b))
                .unwrap_or_default();
            return Err(format!(
                "rejected at token {i} (byte {}, {text:?})",
                m.output().len()
            ));
        }
    }
    if !m.is_complete() {
        return Err(format!(
            "rejected at end of input (byte {}): the output is not complete",
            m.output().len()
        ));
    }
    Ok(())
}
