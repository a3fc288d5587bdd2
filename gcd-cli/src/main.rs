//! `gcd`: check grammars, replay and sample constrained outputs, measure.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use gcd_cli::stats::Summary;
use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::{CompiledGrammar, Lexing};
use gcd_core::runtime::matcher::Matcher;
use gcd_core::vocab::Vocabulary;
use gcd_schema::{GrammarFormat, GrammarReader, PropertyOrder};
use indicatif::{ProgressBar, ProgressStyle};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;

mod accepts;
mod bench;
mod check;
mod replay;
use check::check;

#[derive(Parser)]
#[command(
    name = "gcd",
    version,
    about = "Grammar-constrained decoding: exact token masks from grammars"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// How a Lark grammar's text is cut into lexemes: `maximal-munch` (a
    /// lexeme grows while it can; grammars where that swallows the next
    /// terminal are refused) or `dynamic` (a lexeme may end wherever a
    /// terminal matches, as in Lark's Earley parser; slower masks, no budget).
    #[arg(
        long,
        global = true,
        value_parser = named::<Lexing>(&Lexing::NAMES),
        default_value_t = Lexing::MaximalMunch
    )]
    lexing: Lexing,
    /// Print one JSON object for tools instead of text (`sample` prints one
    /// JSON line per output either way). Errors come as `{"error": ...}` on
    /// stdout, with exit code 2.
    #[arg(long, global = true)]
    json: bool,
    /// The start rule of a Lark grammar that has no rule named `start`
    /// (as Lark's `start=` option; such a grammar is refused without it).
    #[arg(long, global = true, value_name = "RULE")]
    start: Option<String>,
    /// The language of grammar files: Lark (the default) or GBNF
    /// (llama.cpp's; also picked by a `.gbnf` extension).
    #[arg(long, global = true, value_parser = named::<GrammarFormat>(&GrammarFormat::NAMES))]
    format: Option<GrammarFormat>,
}

/// A flag taking one of an option type's names: `--help` and clap's
/// errors list them, and the type's own `FromStr` reads them.
fn named<T>(names: &'static [&'static str]) -> impl clap::builder::TypedValueParser<Value = T>
where
    T: std::str::FromStr<Err = gcd_core::UnknownOptionName> + Clone + Send + Sync + 'static,
{
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(names.iter().copied())
        .try_map(|name| name.parse::<T>())
}

/// `--format`, set once from the command line.
static FORMAT: std::sync::OnceLock<Option<GrammarFormat>> = std::sync::OnceLock::new();

/// `--start`, set once from the command line: every Lark grammar this
/// process reads takes it.
static START_RULE: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();

#[derive(Subcommand)]
enum Command {
    /// Report whether a grammar is LL(1), generalized (its conflicts listed
    /// as notes) or unusable; exit 1 only if it is unusable.
    Check {
        /// A Lark-subset grammar file, a GBNF file (`.gbnf` or `--format gbnf`), a JSON Schema (`.json`), or a
        /// built-in name (`json`).
        grammar: String,
        /// Refuse anything that is not LL(1) after the transforms (conflicts
        /// and unused rules are errors).
        #[arg(long)]
        ll1: bool,
        /// Instead, read each file against the grammar and print whether it
        /// is a whole sentence, a valid prefix, or where it is rejected
        /// (exit 1 unless every file is a whole sentence).
        #[arg(long, num_args = 1.., value_name = "FILE")]
        accepts: Vec<PathBuf>,
    },
    /// Feed files token by token through the mask; report where they are rejected.
    Replay {
        #[arg(long, default_value = "json")]
        grammar: String,
        /// tokenizer.json, a .tiktoken file, or `o200k` / `cl100k` (embedded).
        #[arg(long, default_value = "o200k")]
        tokenizer: String,
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
    },
    /// Sample outputs uniformly among allowed tokens; one JSON line each.
    Sample {
        #[arg(long, default_value = "json")]
        grammar: String,
        #[arg(long, default_value = "o200k")]
        tokenizer: String,
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
    },
    /// Print the fewest tokens any complete output needs (the minimum budget).
    Budget {
        #[arg(long, default_value = "json")]
        grammar: String,
        #[arg(long, default_value = "o200k")]
        tokenizer: String,
    },
    /// Measure load, bind and mask times by replaying a JSON corpus.
    Bench {
        #[arg(long, default_value = "json")]
        grammar: String,
        #[arg(long, default_value = "o200k")]
        tokenizer: String,
        /// A directory of MaskBench files (their test instances are replayed).
        #[arg(long)]
        data: PathBuf,
        /// Use every N-th file.
        #[arg(long, default_value_t = 1)]
        stride: usize,
    },
    /// Batch throughput: masks per second when each step fills the int32
    /// bitmask rows of a whole batch in one call (rows in parallel), for
    /// each batch size, over random walks of the grammar.
    Batch {
        #[arg(long, default_value = "json")]
        grammar: String,
        #[arg(long, default_value = "o200k")]
        tokenizer: String,
        /// Random walks to replay (each complete within --budget tokens).
        #[arg(long, default_value_t = 512)]
        walks: usize,
        #[arg(long, default_value_t = 48)]
        budget: usize,
        #[arg(long, value_delimiter = ',', default_value = "1,8,64,512")]
        sizes: Vec<usize>,
    },
    /// MaskBench: compile each schema, replay its instances token by token,
    /// and print pass / error counts, mask times and time to first mask.
    Maskbench {
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
    },
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
    START_RULE.get_or_init(|| cli.start.clone());
    FORMAT.get_or_init(|| cli.format);
    let lexing = cli.lexing;
    let json = cli.json;
    let result = match cli.command {
        Command::Check {
            grammar, accepts, ..
        } if !accepts.is_empty() => {
            load_grammar(&grammar, lexing).and_then(|g| accepts::accepts(g, &accepts, json))
        }
        Command::Check { grammar, ll1, .. } => check(&grammar, ll1, lexing, json),
        Command::Replay {
            grammar,
            tokenizer,
            expect_reject,
            passes,
            files,
        } => replay::replay(&replay::Replay {
            grammar: &grammar,
            tokenizer: &tokenizer,
            expect_reject,
            passes,
            files: &files,
            lexing,
            json,
        }),
        Command::Sample {
            grammar,
            tokenizer,
            count,
            seed,
            max_tokens,
            budget,
            caps,
            timings,
        } => sample(
            &grammar, &tokenizer, count, seed, max_tokens, budget, &caps, timings, lexing, json,
        ),
        Command::Budget { grammar, tokenizer } => min_budget(&grammar, &tokenizer, lexing, json),
        Command::Bench {
            grammar,
            tokenizer,
            data,
            stride,
        } => bench::bench(&grammar, &tokenizer, &data, stride, lexing, json),
        Command::Batch {
            grammar,
            tokenizer,
            walks,
            budget,
            sizes,
        } => batch(&grammar, &tokenizer, walks, budget, &sizes, lexing, json),
        Command::Maskbench {
            tokenizer,
            data,
            stride,
            max_lexer_states,
            properties,
            budget_slack,
            timings,
        } => bench::maskbench(
            &tokenizer,
            data,
            stride,
            max_lexer_states,
            properties,
            budget_slack,
            timings,
            json,
        ),
    };
    match result {
        Ok(code) => code,
        Err(e) if json => {
            println!("{}", json!({ "error": e }));
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

type Result<T> = std::result::Result<T, String>;

fn load_grammar(spec: &str, lexing: Lexing) -> Result<Arc<CompiledGrammar>> {
    if let Some(g) = gcd_core::lark::builtin::by_name(spec) {
        return g.map_err(|e| e.to_string());
    }
    if spec.ends_with(".json") {
        let c = load_schema(spec)?;
        for w in c.warnings() {
            eprintln!("{spec}: {w}");
        }
        return Ok(Arc::new(c));
    }
    let text = std::fs::read_to_string(spec).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            format!(
                "{spec}: no such file, and not a built-in grammar; pass a Lark grammar file, \
                 a GBNF file (.gbnf), a JSON Schema ending in .json, or `json`"
            )
        } else {
            format!("{spec}: {e}")
        }
    })?;
    let config = gcd_core::compiled::Config::default().lexing(lexing);
    grammar_reader(spec)
        .compile(&text, &config)
        .map(Arc::new)
        .map_err(|e| format!("{spec}:\n{e}"))
}

/// The grammar `text` of file `spec`, as `--format` and `--start` say.
fn read_grammar(
    spec: &str,
    text: &str,
) -> std::result::Result<gcd_core::grammar::Grammar, gcd_core::GrammarError> {
    grammar_reader(spec).read(text)
}

/// How to read the file `spec`: by its name unless `--format` says, from
/// `--start` if given.
fn grammar_reader(spec: &str) -> GrammarReader {
    let mut reader = GrammarReader::for_file(std::path::Path::new(spec));
    if let Some(Some(format)) = FORMAT.get() {
        reader = reader.format(*format);
    }
    if let Some(Some(start)) = START_RULE.get() {
        reader = reader.start(start);
    }
    reader
}

/// A JSON Schema file, compiled with the default options.
fn load_schema(spec: &str) -> Result<CompiledGrammar> {
    let text = std::fs::read_to_string(spec).map_err(|e| format!("{spec}: {e}"))?;
    let schema: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{spec}: not JSON: {e}"))?;
    gcd_schema::compile(&schema, &gcd_schema::Options::default())
        .map_err(|e| format!("{spec}: {e}"))
}

/// A progress bar on stderr (hidden when stderr is not a terminal), for
/// work that can take seconds: binding a large grammar, MaskBench.
fn progress_bar(template: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(0), indicatif::ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}

fn load_vocab(spec: &str) -> Result<Arc<Vocabulary>> {
    Vocabulary::load(spec)
        .map(Arc::new)
        .map_err(|e| e.to_string())
}

/// Binds with a progress bar on stderr when binding takes a while. Fails
/// when the grammar names a special token the vocabulary lacks.
fn bind(grammar: Arc<CompiledGrammar>, vocab: Arc<Vocabulary>) -> Result<Arc<BoundGrammar>> {
    let bar = progress_bar("binding {bar:30} {pos}/{len} lexer states");
    bar.set_length(grammar.lexer().num_states() as u64);
    let bound =
        BoundGrammar::with_progress(grammar, vocab, &mut |done, _| bar.set_position(done as u64));
    bar.finish_and_clear();
    bound.map(Arc::new).map_err(|e| e.to_string())
}

fn batch(
    grammar: &str,
    tokenizer: &str,
    walks: usize,
    budget: usize,
    sizes: &[usize],
    lexing: Lexing,
    json: bool,
) -> Result<ExitCode> {
    use gcd_cli::throughput::{random_walks, replay, Throughput};
    if sizes.contains(&0) {
        return Err("--sizes: a batch holds at least one sequence; give sizes of 1 or more".into());
    }
    let bound = bind(load_grammar(grammar, lexing)?, load_vocab(tokenizer)?)?;
    let walks = random_walks(&bound, walks, budget, 0);
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
    let rows: Vec<_> = sizes
        .iter()
        .map(|&size| row(size, &replay(&bound, &walks, size)))
        .collect();
    if json {
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

fn min_budget(grammar: &str, tokenizer: &str, lexing: Lexing, json: bool) -> Result<ExitCode> {
    let bound = bind(load_grammar(grammar, lexing)?, load_vocab(tokenizer)?)?;
    let tokenizer = bound.vocab().name().to_string();
    let min = Matcher::new(bound).min_tokens_to_complete();
    if min >= gcd_core::bind::INF as usize {
        return Err(format!(
            "{grammar}: no budget plan completes it with this vocabulary (a terminal \
             that no sequence of whole tokens spells); sample without --budget"
        ));
    }
    if json {
        println!(
            "{}",
            json!({ "grammar": grammar, "tokenizer": tokenizer, "min_tokens": min })
        );
    } else {
        println!("minimum budget: {min} tokens");
    }
    Ok(ExitCode::SUCCESS)
}

#[allow(clippy::too_many_arguments)]
fn sample(
    grammar: &str,
    tokenizer: &str,
    count: usize,
    seed: u64,
    max_tokens: usize,
    budget: Option<usize>,
    caps: &[String],
    timings: bool,
    lexing: Lexing,
    json: bool,
) -> Result<ExitCode> {
    let caps = caps
        .iter()
        .map(|c| {
            let (name, k) = c
                .split_once('=')
                .ok_or(format!("--cap {c}: expected TERMINAL=K"))?;
            let k = k.parse::<usize>().map_err(|e| format!("--cap {c}: {e}"))?;
            Ok((name.to_string(), k))
        })
        .collect::<Result<Vec<_>>>()?;
    let (g, t_compile) = timed(|| load_grammar(grammar, lexing))?;
    let (vocab, t_vocab) = timed(|| load_vocab(tokenizer))?;
    let t0 = Instant::now();
    let bound = bind(g, vocab)?;
    let t_bind = t0.elapsed();
    // The vocabulary as the grammar reads it (its special tokens as symbols).
    let vocab = bound.vocab().clone();
    let mut mask_times = Vec::new();
    let width = vocab.len();
    for k in 0..count {
        let mut rng = StdRng::seed_from_u64(seed.wrapping_add(k as u64));
        let mut m = Matcher::new(bound.clone());
        for (name, k) in &caps {
            m.set_lexeme_cap(name, Some(*k))
                .map_err(|e| e.to_string())?;
        }
        if budget.is_some() {
            m.set_budget(budget).map_err(|e| e.to_string())?;
        }
        let limit = budget.map_or(max_tokens, |b| b + 1);
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
    if timings {
        let masks = Summary::of_durations(&mask_times);
        if json {
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

/// Runs `f`, returning its result with how long it took.
fn timed<T>(f: impl FnOnce() -> Result<T>) -> Result<(T, Duration)> {
    let t0 = Instant::now();
    let value = f()?;
    Ok((value, t0.elapsed()))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Mask times in the text form `sample --timings` and `bench` print.
fn summarize(masks: &Summary) -> String {
    if masks.n == 0 {
        return "none".into();
    }
    format!(
        "n={} avg={:.1}us p50={:.1}us p99={:.1}us max={:.1}us",
        masks.n, masks.avg, masks.p50, masks.p99, masks.max
    )
}
