//! `gcd batch`: masks per second when each step fills the int32 bitmask
//! rows of a whole batch in one call, for each batch size.

use std::process::ExitCode;

use gcd_cli::throughput::{random_walks, replay, Throughput};
use serde_json::json;

use crate::args::{bind, load_vocab, GlobalArgs, GrammarArgs, Result};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    grammar: GrammarArgs,
    /// Random walks to replay (each complete within --budget tokens).
    #[arg(long, default_value_t = 512)]
    walks: usize,
    #[arg(long, default_value_t = 48)]
    budget: usize,
    #[arg(long, value_delimiter = ',', default_value = "1,8,64,512")]
    sizes: Vec<usize>,
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<ExitCode> {
    let GrammarArgs { grammar, tokenizer } = &args.grammar;
    if args.sizes.contains(&0) {
        return Err("--sizes: a batch holds at least one sequence; give sizes of 1 or more".into());
    }
    let bound = bind(global.load_grammar(grammar)?, load_vocab(tokenizer)?)?;
    let walks = random_walks(&bound, args.walks, args.budget, 0);
    let threads = rayon::current_num_threads();
    // The first replay builds the tables its states need; the timed ones
    // after it find them built, as a server does after its first requests.
    let cold = replay(&bound, &walks, 64);
    #[derive(serde::Serialize)]
    struct Row {
        batch: usize,
        masks_per_s: f64,
        us_per_mask: f64,
    }
    let row = |batch: usize, t: &Throughput| Row {
        batch,
        masks_per_s: t.masks_per_second(),
        us_per_mask: 1e6 / t.masks_per_second(),
    };
    let rows: Vec<_> = (args.sizes.iter())
        .map(|&size| row(size, &replay(&bound, &walks, size)))
        .collect();
    if global.json {
        let report = json!({
            "grammar": grammar,
            "tokenizer": bound.vocab().name(),
            "walks": walks.len(),
            "masks_per_pass": cold.masks,
            "threads": threads,
            "cold": row(64, &cold),
            "batches": rows,
        });
        println!("{report:#}");
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "grammar={grammar} vocab={} walks={} masks_per_pass={} threads={threads}",
        bound.vocab().name(),
        walks.len(),
        cold.masks
    );
    let cold = row(64, &cold);
    for (label, r) in std::iter::once(("cold ", &cold)).chain(rows.iter().map(|r| ("", r))) {
        println!(
            "{label}batch={} masks_per_s={:.0} us_per_mask={:.2}",
            r.batch, r.masks_per_s, r.us_per_mask
        );
    }
    Ok(ExitCode::SUCCESS)
}
