//! `gcd`: check grammars, replay and sample constrained outputs, measure.
//!
//! One module per command under `cmd/`, each with its flags (`Args`) and
//! `run`; the flags several commands share, and the loading they do, are
//! in `args.rs`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::json;

mod args;
mod cmd;

#[derive(Parser)]
#[command(
    name = "gcd",
    version,
    about = "Grammar-constrained decoding: exact token masks from grammars"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    global: args::GlobalArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Report whether a grammar is LL(1), generalized (its conflicts listed
    /// as notes) or unusable; exit 1 only if it is unusable.
    Check(cmd::check::Args),
    /// Feed files token by token through the mask; report where they are rejected.
    Replay(cmd::replay::Args),
    /// Sample outputs uniformly among allowed tokens; one JSON line each.
    Sample(cmd::sample::Args),
    /// Print the fewest tokens any complete output needs (the minimum budget).
    Budget(cmd::budget::Args),
    /// Measure load, bind and mask times by replaying a JSON corpus.
    Bench(cmd::bench::Args),
    /// Batch throughput: masks per second when each step fills the int32
    /// bitmask rows of a whole batch in one call (rows in parallel), for
    /// each batch size, over random walks of the grammar.
    Batch(cmd::batch::Args),
    /// MaskBench: compile each schema, replay its instances token by token,
    /// and print pass / error counts, mask times and time to first mask.
    Maskbench(cmd::maskbench::Args),
}

fn main() -> ExitCode {
    // Output piped into `head` ends quietly, as other command-line tools
    // do, instead of panicking on the closed pipe.
    #[cfg(unix)]
    // SAFETY: restores the default action of one signal before any thread
    // starts; nothing else here handles SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let global = &cli.global;
    let result = match cli.command {
        Command::Check(args) => cmd::check::run(args, global),
        Command::Replay(args) => cmd::replay::run(args, global),
        Command::Sample(args) => cmd::sample::run(args, global),
        Command::Budget(args) => cmd::budget::run(args, global),
        Command::Bench(args) => cmd::bench::run(args, global),
        Command::Batch(args) => cmd::batch::run(args, global),
        Command::Maskbench(args) => cmd::maskbench::run(args, global),
    };
    match result {
        Ok(code) => code,
        Err(e) if global.json => {
            println!("{}", json!({ "error": e }));
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
