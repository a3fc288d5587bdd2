//! `gcd maskbench`: the MaskBench protocol, schema by schema: compile
//! each, replay its instances token by token, report pass and error
//! counts, mask times and time to first mask.

use std::path::PathBuf;
use std::process::ExitCode;

use gcd_schema::PropertyOrder;
use serde_json::json;

use crate::args::{load_vocab, named, progress_bar, GlobalArgs, Result};

#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    tokenizer: String,
    #[arg(long)]
    data: PathBuf,
    /// Use every N-th file.
    #[arg(long, default_value_t = 1)]
    stride: usize,
    /// Refuse schemas whose lexer needs more states (binding memory grows with them).
    #[arg(long, default_value_t = 20_000)]
    max_lexer_states: usize,
    /// Member order: `any` (what JSON Schema allows; MaskBench's valid
    /// instances keep their own order) or `schema`.
    #[arg(
        long,
        default_value = "any",
        value_parser = named::<PropertyOrder>(&PropertyOrder::NAMES)
    )]
    properties: PropertyOrder,
    /// Replay each instance under a token budget of its own length plus
    /// this many tokens (and time the first mask under a budget).
    #[arg(long)]
    budget_slack: Option<usize>,
    /// Split time to first mask by stage (schema to IR, each compile
    /// stage, binding, first tables) and print it.
    #[arg(long)]
    timings: bool,
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<ExitCode> {
    let vocab = load_vocab(&args.tokenizer)?;
    let cfg = gcd_cli::maskbench::Config {
        budget_slack: args.budget_slack,
        data: args.data,
        stride: args.stride,
        // MaskBench's documents: any JSON whitespace, as the protocol has it.
        options: gcd_schema::Options::default()
            .whitespace(gcd_schema::Whitespace::Json)
            .integers(gcd_schema::Integers::Json)
            .max_lexer_states(args.max_lexer_states)
            .properties(args.properties),
    };
    let bar = progress_bar("{bar:30} {pos}/{len} schema files");
    let report = gcd_cli::maskbench::run(&cfg, vocab, &mut |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    })
    .map_err(|e| {
        format!(
            "--data {}: {e} (pass the folder of MaskBench's JSON files)",
            cfg.data.display()
        )
    })?;
    bar.finish_and_clear();
    use gcd_core::counters;
    if global.json {
        let mut v = report.to_json();
        v["lexer_state_tables"] = json!({
            "walked": counters::state_tables_walked(),
            "shared": counters::state_tables_shared(),
            "regexes_determinized": counters::regex_compilations(),
        });
        println!("{v:#}");
        return Ok(ExitCode::SUCCESS);
    }
    print!("{}", report.summary());
    print!("{}", report.breakdown());
    if args.timings {
        print!("{}", report.stage_breakdown());
        print!("{}", report.slowest());
    }
    for e in &report.compile_errors {
        eprintln!("REFUSED {e}");
    }
    for f in &report.failures {
        eprintln!("FAIL {f}");
    }
    println!(
        "lexer-state token tables: {} walked, {} shared from other schemas; {} terminal regexes determinized",
        counters::state_tables_walked(),
        counters::state_tables_shared(),
        counters::regex_compilations()
    );
    Ok(ExitCode::SUCCESS)
}
