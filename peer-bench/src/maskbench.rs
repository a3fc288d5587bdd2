//! `peer-bench maskbench`: the MaskBench protocol run by gcd and llguidance
//! side by side, schema by schema, in one process.
//!
//! Per schema file, each engine compiles the schema (gcd with
//! `gcd_schema::compile`, llguidance through its JSON-Schema front end,
//! `TopLevelGrammar::from_json_schema`), binds it and computes a first
//! mask: the time to first mask (TTFM). Then every test instance is
//! serialized like Python's `json.dumps`, tokenized once by gcd's encoder
//! and replayed through both: at each token both masks are timed (TBM),
//! compared bit for bit where both engines are still going, and each engine
//! advances if its own mask allows the token. Valid instances must be
//! accepted to the end, invalid ones refused somewhere; each engine is
//! scored on its own, exactly as `gcd maskbench` scores gcd.
//!
//! The engines take turns going first (per schema for compiling, per step
//! for masks), so a busy machine slows both alike and their ratio holds.
//! Both use their defaults: flexible whitespace, formats as each engine
//! supports them; masks can differ where the two read a schema differently,
//! and the report counts and shows those differences.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use bitvec::prelude::*;
use gcd_core::bind::BoundGrammar;
use gcd_core::runtime::matcher::Matcher;
use gcd_core::vocab::trie::TokenTrie;
use gcd_core::vocab::Vocabulary;
use llguidance::api::TopLevelGrammar;
use llguidance::ParserFactory;
use serde_json::Value;
use toktrie_hf_tokenizers::ByteTokenizer;

use crate::compare::{diff, mean, ms, pct, peak_rss_mb, us};

struct Args {
    tokenizer: PathBuf,
    data: PathBuf,
    stride: usize,
    gcd: bool,
    llg: bool,
    examples: usize,
    /// Print each file's time to first mask.
    each: bool,
}

fn parse_args(mut it: impl Iterator<Item = String>) -> Result<Args> {
    let mut a = Args {
        tokenizer: "../shared/data/tokenizers/llama3/tokenizer.json".into(),
        data: "../shared/data/maskbench".into(),
        stride: 1,
        gcd: true,
        llg: true,
        examples: 5,
        each: false,
    };
    while let Some(flag) = it.next() {
        let mut val = || it.next().ok_or_else(|| anyhow!("{flag} needs a value"));
        match flag.as_str() {
            "--tokenizer" => a.tokenizer = val()?.into(),
            "--data" => a.data = val()?.into(),
            "--stride" => a.stride = val()?.parse().context("--stride")?,
            "--examples" => a.examples = val()?.parse().context("--examples")?,
            "--each" => a.each = true,
            "--only" => match val()?.as_str() {
                "gcd" => a.llg = false,
                "llg" | "llguidance" => a.gcd = false,
                other => bail!("--only takes `gcd` or `llg`, not {other:?}"),
            },
            "-h" | "--help" => {
                println!(
                    "peer-bench maskbench [--tokenizer tokenizer.json] [--data MASKBENCH_DIR] [--stride N]\n\
                     \x20                    [--only gcd|llg] [--examples K] [--each]\n\
                     Runs the MaskBench protocol on every N-th schema file with gcd and llguidance\n\
                     side by side. --only runs one engine (its peak memory on its own). --each prints\n\
                     each file's time to first mask for both engines (µs; - when refused)."
                );
                std::process::exit(0);
            }
            other => bail!("unknown argument {other} (try --help)"),
        }
    }
    if a.stride == 0 {
        bail!("--stride must be at least 1");
    }
    a.tokenizer = crate::from_repo_root(a.tokenizer);
    a.data = crate::from_repo_root(a.data);
    Ok(a)
}

/// gcd's options as `gcd maskbench` sets them: any JSON whitespace, every
/// integer spelling and members in any order (MaskBench's valid instances
/// keep their own), at most 20,000 lexer states.
fn gcd_options() -> gcd_schema::Options {
    gcd_schema::Options::default()
        .whitespace(gcd_schema::Whitespace::Json)
        .integers(gcd_schema::Integers::Json)
        .properties(gcd_schema::PropertyOrder::Any)
        .max_lexer_states(20_000)
}

/// One engine's score and times, in the protocol's terms.
#[derive(Default)]
struct Side {
    schemas: usize,
    pass: usize,
    compile_err: usize,
    validation_err: usize,
    invalid_accepted: usize,
    tbm_us: Vec<f64>,
    ttfm_us: Vec<f64>,
    /// The first few compile errors, for the report.
    errors: Vec<String>,
}

impl Side {
    /// The protocol's three lines (as `gcd maskbench` prints them).
    fn lines(&mut self) -> String {
        self.tbm_us.sort_by(f64::total_cmp);
        self.ttfm_us.sort_by(f64::total_cmp);
        let (tbm, ttfm) = (&self.tbm_us, &self.ttfm_us);
        format!(
            "schemas={} pass={} compile_err={} validation_err={} invalid_accepted={} masks={}\n\
             TBM_us avg={:.1} p50={:.1} p90={:.1} p99={:.1} p999={:.1} max={:.1}\n\
             TTFM_us p50={:.1} p90={:.1} p99={:.1} max={:.1}",
            self.schemas,
            self.pass,
            self.compile_err,
            self.validation_err,
            self.invalid_accepted,
            tbm.len(),
            mean(tbm),
            pct(tbm, 50.0),
            pct(tbm, 90.0),
            pct(tbm, 99.0),
            pct(tbm, 99.9),
            tbm.last().copied().unwrap_or(0.0),
            pct(ttfm, 50.0),
            pct(ttfm, 90.0),
            pct(ttfm, 99.0),
            ttfm.last().copied().unwrap_or(0.0),
        )
    }

    /// Counts an instance's verdict; false when it was wrong.
    fn score(&mut self, accepted: bool, valid: bool) -> bool {
        match (accepted, valid) {
            (true, false) => self.invalid_accepted += 1,
            (false, true) => self.validation_err += 1,
            _ => return true,
        }
        false
    }
}

/// Masks of both engines that differed, with an example of each kind.
#[derive(Default)]
struct Differences {
    compared: usize,
    differ: usize,
    /// Of those, the masks where only gcd allows some token, where only
    /// llguidance does, and where each allows some the other does not.
    gcd_more: usize,
    llg_more: usize,
    both_more: usize,
    examples: Vec<String>,
    /// The first token only gcd allows and the first only llguidance
    /// allows, of each example.
    kinds: Vec<(Option<u32>, Option<u32>)>,
    /// Examples kept of each of the three classes above.
    shown: [usize; 3],
}

pub fn run(args: impl Iterator<Item = String>) -> Result<ExitCode> {
    let args = parse_args(args)?;

    // ---- tokenizers: each engine's own loading and per-vocabulary setup ----
    let t0 = Instant::now();
    let vocab = Arc::new(
        Vocabulary::from_tokenizer_json(&args.tokenizer)
            .with_context(|| format!("gcd: loading {}", args.tokenizer.display()))?,
    );
    let t_gcd_load = t0.elapsed();
    let t0 = Instant::now();
    let trie = Arc::new(TokenTrie::new(&vocab));
    let t_gcd_trie = t0.elapsed();
    let width = vocab.len();

    let (mut t_llg_load, mut t_llg_factory) = (Duration::ZERO, Duration::ZERO);
    let factory = if args.llg {
        let t0 = Instant::now();
        let mut bt = ByteTokenizer::from_file(&args.tokenizer)
            .with_context(|| format!("llguidance: loading {}", args.tokenizer.display()))?;
        // The same end-of-sequence ids as gcd, so EOS bits compare.
        bt.set_eos_tokens(vocab.eos_ids());
        let env = bt.into_tok_env(Some(width))?;
        t_llg_load = t0.elapsed();
        let t0 = Instant::now();
        let mut f = ParserFactory::new_simple(&env)?;
        f.quiet();
        t_llg_factory = t0.elapsed();
        Some(f)
    } else {
        None
    };

    let files = crate::json_files(&args.data, args.stride)?;

    let (mut g, mut l) = (Side::default(), Side::default());
    let mut diffs = Differences::default();
    let mut table_bytes: Vec<usize> = Vec::new();
    let mut gmask = bitvec![u64, Lsb0; 0; width];
    let wall = Instant::now();
    for (fi, f) in files.iter().enumerate() {
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let doc: Value = serde_json::from_slice(&std::fs::read(f)?)
            .with_context(|| format!("{name}: not JSON"))?;
        let schema = &doc["schema"];

        // ---- compile + bind + first mask, the engines taking turns first ----
        let mut gcd_bound = None;
        let mut llg_template = None;
        for turn in 0..2 {
            if (turn + fi) % 2 == 0 && args.gcd {
                g.schemas += 1;
                let t0 = Instant::now();
                match gcd_schema::compile(schema, &gcd_options()) {
                    Ok(c) => {
                        let b = Arc::new(BoundGrammar::with_trie(
                            Arc::new(c),
                            vocab.clone(),
                            trie.clone(),
                        ));
                        Matcher::new(b.clone()).fill_mask(&mut gmask);
                        g.ttfm_us.push(us(t0.elapsed()));
                        gcd_bound = Some(b);
                    }
                    Err(e) => {
                        g.compile_err += 1;
                        if g.errors.len() < args.examples {
                            g.errors.push(format!("{name}: {e}"));
                        }
                    }
                }
            } else if (turn + fi) % 2 == 1 {
                let Some(factory) = &factory else { continue };
                l.schemas += 1;
                let t0 = Instant::now();
                let grammar = TopLevelGrammar::from_json_schema(schema.clone());
                let mut m = llguidance::Matcher::new(factory.create_parser(grammar));
                let first = m.compute_mask();
                match (m.get_error(), first) {
                    (None, Ok(_)) => {
                        l.ttfm_us.push(us(t0.elapsed()));
                        llg_template = Some(m);
                    }
                    (e, first) => {
                        l.compile_err += 1;
                        if l.errors.len() < args.examples {
                            let e = e.or(first.err().map(|e| e.to_string()));
                            l.errors.push(format!("{name}: {}", e.unwrap_or_default()));
                        }
                    }
                }
            }
        }

        if args.each {
            let of = |ok: bool, side: &Side| match ok {
                true => format!("{:.0}", side.ttfm_us.last().copied().unwrap_or(0.0)),
                false => "-".to_string(),
            };
            println!(
                "TTFM {name} gcd {} llg {}",
                of(gcd_bound.is_some(), &g),
                of(llg_template.is_some(), &l)
            );
        }

        // ---- replay ----------------------------------------------------------
        let (mut g_ok, mut l_ok) = (gcd_bound.is_some(), llg_template.is_some());
        for (ti, t) in doc["tests"].as_array().into_iter().flatten().enumerate() {
            let valid = t["valid"].as_bool().unwrap_or(true);
            let text = gcd_cli::pyjson::to_python_json(&t["data"]);
            let tokens = vocab
                .encode(&text)
                .map_err(|e| anyhow!("{name}#{ti}: cannot tokenize: {e}"))?;
            let mut gm = gcd_bound.as_ref().map(|b| Matcher::new(b.clone()));
            // A shallow clone shares llguidance's lexer cache with the
            // template, as a server reusing one compiled schema does.
            let mut lm = llg_template.clone();
            for (step, &tok) in tokens.iter().enumerate() {
                let mut lmask = None;
                for turn in 0..2 {
                    if (turn + step) % 2 == 0 {
                        if let Some(m) = &gm {
                            let t0 = Instant::now();
                            m.fill_mask(&mut gmask);
                            g.tbm_us.push(us(t0.elapsed()));
                        }
                    } else if let Some(m) = &mut lm {
                        let t0 = Instant::now();
                        let mask = m.compute_mask();
                        l.tbm_us.push(us(t0.elapsed()));
                        match mask {
                            Ok(mask) => lmask = Some(mask),
                            Err(_) => lm = None,
                        }
                    }
                }
                if let (Some(_), Some(lmask)) = (&gm, &lmask) {
                    diffs.compared += 1;
                    let (gcd_only, llg_only) = diff(&gmask, lmask);
                    if !gcd_only.is_empty() || !llg_only.is_empty() {
                        diffs.differ += 1;
                        let class = match (gcd_only.is_empty(), llg_only.is_empty()) {
                            (false, true) => 0,
                            (true, false) => 1,
                            _ => 2,
                        };
                        let counts = [
                            &mut diffs.gcd_more,
                            &mut diffs.llg_more,
                            &mut diffs.both_more,
                        ];
                        *counts[class] += 1;
                        // Examples of each class, each of a new kind: a new
                        // first differing token.
                        let kind = (gcd_only.first().copied(), llg_only.first().copied());
                        let fresh = !diffs.kinds.contains(&kind);
                        let shown = diffs.shown[class];
                        if shown < args.examples && fresh {
                            diffs.shown[class] += 1;
                            let show = |ids: &[u32]| -> String {
                                let shown: Vec<String> = (ids.iter().take(4))
                                    .map(|&i| {
                                        crate::show(vocab.token_bytes(i).unwrap_or(b"<special>"))
                                    })
                                    .collect();
                                format!("{} {}", ids.len(), shown.join(" "))
                            };
                            let prefix = gm.as_ref().map_or(&[][..], |m| m.output());
                            diffs.kinds.push(kind);
                            diffs.examples.push(format!(
                                "{name}#{ti} step {step} after {}: only gcd allows {}; only llguidance allows {}",
                                crate::tail(prefix, 40),
                                show(&gcd_only),
                                show(&llg_only)
                            ));
                        }
                    }
                }
                if let Some(m) = &mut gm {
                    if !(gmask[tok as usize] && m.advance(tok).is_ok()) {
                        gm = None;
                    }
                }
                let l_allows = lmask.is_some_and(|mask| mask.is_allowed(tok));
                if let Some(m) = &mut lm {
                    if !(l_allows && m.consume_token(tok).is_ok()) {
                        lm = None;
                    }
                }
                if gm.is_none() && lm.is_none() {
                    break;
                }
            }
            if gcd_bound.is_some() {
                let accepted = gm.as_ref().is_some_and(Matcher::is_complete);
                g_ok &= g.score(accepted, valid);
            }
            if llg_template.is_some() {
                let accepted = lm
                    .as_mut()
                    .is_some_and(|m| m.is_accepting().unwrap_or(false));
                l_ok &= l.score(accepted, valid);
            }
        }
        g.pass += usize::from(g_ok);
        l.pass += usize::from(l_ok);
        if let Some(b) = &gcd_bound {
            table_bytes.push(b.table_bytes());
        }
    }
    let wall = wall.elapsed();

    // ---- report ----------------------------------------------------------------
    println!(
        "peer-bench maskbench: gcd vs llguidance {} on {} ({} of the files, every {}th), {} ids",
        crate::llguidance_version(),
        args.data.display(),
        files.len(),
        args.stride,
        width
    );
    println!(
        "tokenizer load: gcd {:.0} ms (+ token trie {:.0} ms); llguidance {:.0} ms (+ ParserFactory {:.0} ms)",
        ms(t_gcd_load),
        ms(t_gcd_trie),
        ms(t_llg_load),
        ms(t_llg_factory)
    );
    if args.gcd {
        println!("gcd:\n{}", g.lines());
    }
    if args.llg {
        println!("llguidance:\n{}", l.lines());
    }
    if args.gcd && args.llg {
        let r = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
        let (gt, lt) = (&g.tbm_us, &l.tbm_us);
        let (gf, lf) = (&g.ttfm_us, &l.ttfm_us);
        println!(
            "ratio gcd/llguidance (below 1: gcd faster): TBM avg={:.2} p50={:.2} p90={:.2} p99={:.2} p999={:.2} max={:.2}; \
             TTFM p50={:.2} p90={:.2} p99={:.2} max={:.2}",
            r(mean(gt), mean(lt)),
            r(pct(gt, 50.0), pct(lt, 50.0)),
            r(pct(gt, 90.0), pct(lt, 90.0)),
            r(pct(gt, 99.0), pct(lt, 99.0)),
            r(pct(gt, 99.9), pct(lt, 99.9)),
            r(gt.last().copied().unwrap_or(0.0), lt.last().copied().unwrap_or(0.0)),
            r(pct(gf, 50.0), pct(lf, 50.0)),
            r(pct(gf, 90.0), pct(lf, 90.0)),
            r(pct(gf, 99.0), pct(lf, 99.0)),
            r(gf.last().copied().unwrap_or(0.0), lf.last().copied().unwrap_or(0.0)),
        );
        println!(
            "masks compared where both engines went on: {}, differing: {} (only gcd allows more: {}, only llguidance: {}, each some: {})",
            diffs.compared, diffs.differ, diffs.gcd_more, diffs.llg_more, diffs.both_more
        );
        for e in &diffs.examples {
            println!("  {e}");
        }
    }
    if !table_bytes.is_empty() {
        table_bytes.sort_unstable();
        println!(
            "gcd bound-table bytes per schema: median {:.2} MB, max {:.2} MB",
            table_bytes[table_bytes.len() / 2] as f64 / 1e6,
            table_bytes[table_bytes.len() - 1] as f64 / 1e6
        );
    }
    let rss = peak_rss_mb().map_or("unknown".into(), |mb| format!("{mb:.0} MB"));
    println!(
        "peak RSS of this process: {rss} ({}); replay wall {:.1} s",
        match (args.gcd, args.llg) {
            (true, true) => "both engines; --only gcd / --only llg measure each alone",
            (true, false) => "gcd alone",
            _ => "llguidance alone",
        },
        wall.as_secs_f64()
    );
    for (who, side) in [("gcd", &g), ("llguidance", &l)] {
        for e in &side.errors {
            println!("  {who} refused {e}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
