//! `gcd`: check grammars, replay and sample constrained outputs, measure.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::{CompiledGrammar, Lexing};
use gcd_core::runtime::matcher::Matcher;
use gcd_core::vocab::trie::TokenTrie;
use gcd_core::vocab::Vocabulary;
use indicatif::{ProgressBar, ProgressStyle};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

mod check;
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
    #[arg(long, global = true, value_enum, default_value_t = LexingArg::MaximalMunch)]
    lexing: LexingArg,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum LexingArg {
    MaximalMunch,
    Dynamic,
}

impl From<LexingArg> for Lexing {
    fn from(a: LexingArg) -> Lexing {
        match a {
            LexingArg::MaximalMunch => Lexing::MaximalMunch,
            LexingArg::Dynamic => Lexing::Dynamic,
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Report whether a grammar is LL(1), generalized (its conflicts listed
    /// as notes) or unusable; exit 1 only if it is unusable.
    Check {
        /// A Lark-subset grammar file, a JSON Schema (`.json`), or a
        /// built-in name (`json`).
        grammar: String,
        /// Refuse anything that is not LL(1) after the transforms (conflicts
        /// and unused rules are errors).
        #[arg(long)]
        ll1: bool,
        /// Print one JSON object (verdict, warnings, rewrites, conflicts,
        /// errors) instead of text, for tools.
        #[arg(long)]
        json: bool,
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
        #[arg(long, default_value = "any", value_parser = ["any", "schema"])]
        properties: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let lexing = Lexing::from(cli.lexing);
    let result = match cli.command {
        Command::Check { grammar, ll1, json } => check(&grammar, ll1, lexing, json),
        Command::Replay {
            grammar,
            tokenizer,
            expect_reject,
            passes,
            files,
        } => replay(&grammar, &tokenizer, expect_reject, passes, &files, lexing),
        Command::Sample {
            grammar,
            tokenizer,
            count,
            seed,
            max_tokens,
            budget,
            timings,
        } => sample(
            &grammar, &tokenizer, count, seed, max_tokens, budget, timings, lexing,
        ),
        Command::Budget { grammar, tokenizer } => min_budget(&grammar, &tokenizer, lexing),
        Command::Bench {
            grammar,
            tokenizer,
            data,
            stride,
        } => bench(&grammar, &tokenizer, &data, stride, lexing),
        Command::Batch {
            grammar,
            tokenizer,
            walks,
            budget,
            sizes,
        } => batch(&grammar, &tokenizer, walks, budget, &sizes, lexing),
        Command::Maskbench {
            tokenizer,
            data,
            stride,
            max_lexer_states,
            properties,
        } => {
            let order = match properties.as_str() {
                "schema" => gcd_schema::PropertyOrder::Schema,
                _ => gcd_schema::PropertyOrder::Any,
            };
            maskbench(&tokenizer, data, stride, max_lexer_states, order)
        }
    };
    match result {
        Ok(code) => code,
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
    let text = std::fs::read_to_string(spec).map_err(|e| format!("{spec}: {e}"))?;
    let g = gcd_core::lark::parse_grammar(&text).map_err(|e| format!("{spec}:\n{e}"))?;
    let config = gcd_core::compiled::Config::default().lexing(lexing);
    CompiledGrammar::with_config(&g, &config)
        .map(Arc::new)
        .map_err(|e| format!("{spec}:\n{e}"))
}

/// A JSON Schema file, compiled with the default options.
fn load_schema(spec: &str) -> Result<CompiledGrammar> {
    let text = std::fs::read_to_string(spec).map_err(|e| format!("{spec}: {e}"))?;
    let schema: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{spec}: not JSON: {e}"))?;
    gcd_schema::compile(&schema, &gcd_schema::Options::default())
        .map_err(|e| format!("{spec}: {e}"))
}

fn load_vocab(spec: &str) -> Result<Arc<Vocabulary>> {
    Vocabulary::load(spec)
        .map(Arc::new)
        .map_err(|e| e.to_string())
}

/// Binds with a progress bar on stderr when binding takes a while.
fn bind(grammar: Arc<CompiledGrammar>, vocab: Arc<Vocabulary>) -> Arc<BoundGrammar> {
    let trie = Arc::new(TokenTrie::new(&vocab));
    let bar = ProgressBar::new(grammar.lexer().num_states() as u64);
    bar.set_style(
        ProgressStyle::with_template("binding {bar:30} {pos}/{len} lexer states")
            .expect("valid template"),
    );
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    let bound = BoundGrammar::with_progress(grammar, vocab, trie, &mut |done, _| {
        bar.set_position(done as u64)
    });
    bar.finish_and_clear();
    Arc::new(bound)
}

fn replay(
    grammar: &str,
    tokenizer: &str,
    expect_reject: bool,
    passes: usize,
    files: &[PathBuf],
    lexing: Lexing,
) -> Result<ExitCode> {
    let g = load_grammar(grammar, lexing)?;
    let vocab = load_vocab(tokenizer)?;
    let t0 = Instant::now();
    let bound = bind(g, vocab.clone());
    let t_bind = t0.elapsed();
    let mut all_as_expected = true;
    let mut texts = Vec::with_capacity(files.len());
    for f in files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        texts.push(vocab.encode(&text).map_err(|e| e.to_string())?);
    }
    for pass in 0..passes.max(1) {
        let mut stats = ReplayStats::default();
        for (f, tokens) in files.iter().zip(&texts) {
            let verdict = replay_tokens(&bound, tokens, &mut stats);
            if pass == 0 {
                match &verdict {
                    Ok(()) => println!("{}: ok", f.display()),
                    Err(msg) => println!("{}: {msg}", f.display()),
                }
                all_as_expected &= verdict.is_ok() != expect_reject;
            }
        }
        let mut times = stats.mask_times;
        times.sort_unstable();
        let pct = |p: f64| {
            times
                .get(((times.len() as f64 * p) as usize).min(times.len().saturating_sub(1)))
                .map_or(0.0, |d| d.as_secs_f64() * 1e6)
        };
        let label = if passes > 1 {
            format!("pass {}: ", pass + 1)
        } else {
            String::new()
        };
        println!(
            "{label}bind {:.0} ms; {} masks: p50 {:.0} µs, p99 {:.0} µs, max {:.0} µs; peak live configurations {}",
            t_bind.as_secs_f64() * 1e3,
            times.len(),
            pct(0.5),
            pct(0.99),
            times.last().map_or(0.0, |d| d.as_secs_f64() * 1e6),
            stats.peak_configurations
        );
    }
    Ok(if all_as_expected {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Feeds `tokens`, checking each against the mask, then EOS.
/// What a replay measured.
#[derive(Default)]
struct ReplayStats {
    mask_times: Vec<Duration>,
    peak_configurations: usize,
}

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
                if e.kind() == gcd_core::runtime::matcher::MatchErrorKind::TooManyConfigurations {
                    return Err(format!("gave up at token {i}: {e}"));
                }
            }
        }
        if !allowed || m.tokens().len() != i + 1 {
            let text = bound
                .vocab()
                .token_bytes(t)
                .map(|b| String::from_utf8_lossy(b).into_owned())
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

fn batch(
    grammar: &str,
    tokenizer: &str,
    walks: usize,
    budget: usize,
    sizes: &[usize],
    lexing: Lexing,
) -> Result<ExitCode> {
    use gcd_cli::throughput::{random_walks, replay};
    let bound = bind(load_grammar(grammar, lexing)?, load_vocab(tokenizer)?);
    let walks = random_walks(&bound, walks, budget, 0);
    let threads = rayon::current_num_threads();
    // The first replay builds the tables its states need; the timed ones
    // after it find them built, as a server does after its first requests.
    let cold = replay(&bound, &walks, 64);
    println!(
        "grammar={grammar} vocab={} walks={} masks_per_pass={} threads={threads}",
        bound.vocab().name(),
        walks.len(),
        cold.masks
    );
    println!(
        "cold batch=64 masks_per_s={:.0} us_per_mask={:.2}",
        cold.masks_per_second(),
        1e6 / cold.masks_per_second()
    );
    for &size in sizes {
        if size == 0 {
            return Err("--sizes: a batch holds at least one sequence".into());
        }
        let t = replay(&bound, &walks, size);
        println!(
            "batch={size} masks_per_s={:.0} us_per_mask={:.2}",
            t.masks_per_second(),
            1e6 / t.masks_per_second()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn min_budget(grammar: &str, tokenizer: &str, lexing: Lexing) -> Result<ExitCode> {
    let bound = bind(load_grammar(grammar, lexing)?, load_vocab(tokenizer)?);
    let min = Matcher::new(bound).min_tokens_to_complete();
    if min >= gcd_core::bind::INF as usize {
        return Err(format!(
            "{grammar}: no budget plan completes it with this vocabulary (a terminal \
             that no sequence of whole tokens spells); sample without --budget"
        ));
    }
    println!("minimum budget: {min} tokens");
    Ok(ExitCode::SUCCESS)
}

fn sample(
    grammar: &str,
    tokenizer: &str,
    count: usize,
    seed: u64,
    max_tokens: usize,
    budget: Option<usize>,
    timings: bool,
    lexing: Lexing,
) -> Result<ExitCode> {
    let (g, t_compile) = timed(|| load_grammar(grammar, lexing))?;
    let (vocab, t_vocab) = timed(|| load_vocab(tokenizer))?;
    let t0 = Instant::now();
    let bound = bind(g, vocab.clone());
    let t_bind = t0.elapsed();
    let mut mask_times = Vec::new();
    let width = vocab.len();
    for k in 0..count {
        let mut rng = StdRng::seed_from_u64(seed.wrapping_add(k as u64));
        let mut m = Matcher::new(bound.clone());
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
        let text = String::from_utf8_lossy(m.output()).into_owned();
        let used = m.tokens().len() - usize::from(m.is_finished());
        let line = serde_json::json!({"text": text, "tokens": used, "complete": m.is_finished() || m.is_complete()});
        println!("{line}");
    }
    if timings {
        eprintln!(
            "grammar {:.2} ms, tokenizer {} ({} ids) {:.0} ms, bind {:.1} ms, masks: {}",
            ms(t_compile),
            vocab.name(),
            vocab.len(),
            ms(t_vocab),
            ms(t_bind),
            summarize(&mut mask_times)
        );
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

fn summarize(times: &mut [Duration]) -> String {
    if times.is_empty() {
        return "none".into();
    }
    times.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let pct = |p: f64| us(times[((times.len() - 1) as f64 * p).round() as usize]);
    let avg = times.iter().map(|d| us(*d)).sum::<f64>() / times.len() as f64;
    format!(
        "n={} avg={avg:.1}us p50={:.1}us p99={:.1}us max={:.1}us",
        times.len(),
        pct(0.5),
        pct(0.99),
        us(*times.last().expect("non-empty"))
    )
}

fn bench(
    grammar: &str,
    tokenizer: &str,
    data: &Path,
    stride: usize,
    lexing: Lexing,
) -> Result<ExitCode> {
    let (g, t_compile) = timed(|| load_grammar(grammar, lexing))?;
    let (vocab, t_vocab) = timed(|| load_vocab(tokenizer))?;
    let t0 = Instant::now();
    let trie = Arc::new(TokenTrie::new(&vocab));
    let t_trie = t0.elapsed();
    let t0 = Instant::now();
    let bound = Arc::new(BoundGrammar::with_trie(
        g.clone(),
        vocab.clone(),
        trie.clone(),
    ));
    drop(Matcher::new(bound.clone()).compute_mask(vocab.len()));
    let t_first_mask = t0.elapsed();
    let t0 = Instant::now();
    let mut slowest_state = Duration::ZERO;
    for q in 0..bound.num_states() as u32 {
        let t = Instant::now();
        bound.state(q);
        slowest_state = slowest_state.max(t.elapsed());
    }
    bound.build_all();
    let t_bind = t_first_mask + t0.elapsed();
    let mut files: Vec<PathBuf> = std::fs::read_dir(data)
        .map_err(|e| format!("{}: {e}", data.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let width = vocab.len();
    let mut mask = bitvec::bitvec![u64, bitvec::order::Lsb0; 0; width];
    let mut times = Vec::new();
    let (mut docs, mut rejected) = (0, 0);
    let mut slowest = (Duration::ZERO, String::new());
    for f in files.iter().step_by(stride.max(1)) {
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(
            &std::fs::read(f).map_err(|e| e.to_string())?,
        ) else {
            continue;
        };
        for t in v["tests"].as_array().into_iter().flatten() {
            let text = gcd_cli::pyjson::to_python_json(&t["data"]);
            let tokens = vocab.encode(&text).map_err(|e| e.to_string())?;
            let mut m = Matcher::new(bound.clone());
            docs += 1;
            for &tok in &tokens {
                let t0 = Instant::now();
                m.fill_mask(&mut mask);
                let dt = t0.elapsed();
                if dt > slowest.0 {
                    let out = m.output();
                    let tail =
                        String::from_utf8_lossy(&out[out.len().saturating_sub(40)..]).into_owned();
                    slowest = (dt, format!("{} after ...{tail:?}", f.display()));
                }
                times.push(dt);
                if !mask[tok as usize] || m.advance(tok).is_err() {
                    rejected += 1;
                    eprintln!("{}: rejected at byte {}", f.display(), m.output().len());
                    break;
                }
            }
        }
    }
    let grammar_snapshot = g.to_bytes();
    let (_, t_grammar_load) =
        timed(|| CompiledGrammar::from_bytes(&grammar_snapshot).map_err(|e| e.to_string()))?;
    println!(
        "grammar {grammar}: compile {:.2} ms, or load its grammar! snapshot {:.2} ms ({:.0} KB)",
        ms(t_compile),
        ms(t_grammar_load),
        grammar_snapshot.len() as f64 / 1e3
    );
    println!(
        "tokenizer {} ({} ids): load {:.0} ms, trie {:.1} ms ({} nodes, {:.1} MB)",
        vocab.name(),
        vocab.len(),
        ms(t_vocab),
        ms(t_trie),
        trie.num_nodes(),
        trie.heap_bytes() as f64 / 1e6
    );
    println!(
        "bind: first mask after {:.2} ms (tables are built per lexer state on first use), all {} lexer states {:.1} ms (slowest state {:.2} ms), tables {:.2} MB",
        ms(t_first_mask),
        g.lexer().num_states(),
        ms(t_bind),
        ms(slowest_state),
        bound.table_bytes() as f64 / 1e6
    );
    let snapshot = bound.to_bytes();
    let (loaded, t_load) = timed(|| {
        BoundGrammar::from_bytes(g.clone(), vocab.clone(), &snapshot).map_err(|e| e.to_string())
    })?;
    drop(loaded);
    println!(
        "start-up with tables prebuilt for this tokenizer: load {:.1} ms ({:.1} MB) vs trie + bind {:.1} ms",
        ms(t_load),
        snapshot.len() as f64 / 1e6,
        ms(t_trie) + ms(t_bind)
    );
    println!(
        "replayed {docs} documents ({rejected} rejected), masks {}",
        summarize(&mut times)
    );
    println!(
        "slowest mask {:.1}us: {}",
        slowest.0.as_secs_f64() * 1e6,
        slowest.1
    );
    Ok(if rejected == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn maskbench(
    tokenizer: &str,
    data: PathBuf,
    stride: usize,
    max_lexer_states: usize,
    properties: gcd_schema::PropertyOrder,
) -> Result<ExitCode> {
    let vocab = load_vocab(tokenizer)?;
    let cfg = gcd_cli::maskbench::Config {
        data,
        stride,
        // MaskBench's documents: any JSON whitespace, as the protocol has it.
        options: gcd_schema::Options::default()
            .whitespace(gcd_schema::Whitespace::Json)
            .max_lexer_states(max_lexer_states)
            .properties(properties),
    };
    let bar = indicatif::ProgressBar::new(0);
    let report = gcd_cli::maskbench::run(&cfg, vocab, &mut |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    })
    .map_err(|e| format!("{}: {e}", cfg.data.display()))?;
    bar.finish_and_clear();
    print!("{}", report.summary());
    print!("{}", report.breakdown());
    for e in &report.compile_errors {
        eprintln!("REFUSED {e}");
    }
    for f in &report.failures {
        eprintln!("FAIL {f}");
    }
    use gcd_core::counters;
    println!(
        "lexer-state token tables: {} walked, {} shared from other schemas; {} terminal regexes determinized",
        counters::state_tables_walked(),
        counters::state_tables_shared(),
        counters::regex_compilations()
    );
    Ok(ExitCode::SUCCESS)
}
