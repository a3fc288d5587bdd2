//! peer-bench: gcd's JSON token masks against llguidance's, measured in the
//! same process on the same documents with the same tokenizer.
//!
//! For every test instance of every N-th MaskBench file, the instance is
//! serialized like Python's `json.dumps`, tokenized once (gcd's encoder),
//! and replayed through both engines: at each token both compute the full
//! mask (timed separately), the masks are compared bit for bit, the token
//! must be allowed by both, and both advance.
//!
//! llguidance is used through its public API only (`ParserFactory`,
//! `TopLevelGrammar::from_lark`, `Matcher`), built without its `rayon`
//! feature; its mask computation is single-threaded either way (rayon only
//! serves its batch FFI entry point).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use bitvec::prelude::*;
use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::vocab::{TokenKind, Vocabulary};
use llguidance::api::TopLevelGrammar;
use llguidance::toktrie::TokEnv;
use llguidance::ParserFactory;
use toktrie_hf_tokenizers::ByteTokenizer;

mod compare;
mod maskbench;

use compare::{ms, us};

/// The rules and terminals of gcd-core/src/lark/json.lark in llguidance
/// Lark (`?rule` inlining and `-> alias` dropped: they only shape parse trees).
macro_rules! gcd_json_rules {
    () => {
        r#"
value: object | array | STRING | NUMBER | "true" | "false" | "null"
object: "{" [member ("," member)*] "}"
member: STRING ":" value
array: "[" [value ("," value)*] "]"
STRING: /"(?:[^"\\\x00-\x1f]|\\["\\\/bfnrt]|\\u(?:[0-9a-cA-CefEF][0-9a-fA-F]{3}|[dD][0-7][0-9a-fA-F]{2})|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})*"/
NUMBER: /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/
WS: /[ \t\n\r]+/
%ignore WS
"#
    };
}

/// gcd's built-in JSON grammar (gcd-core/src/lark/json.lark) written in
/// llguidance's Lark dialect: the same rules, the same terminal regexes and
/// the same ignored whitespace, so the two engines accept the same language.
///
/// Two lines adapt llguidance's `%ignore`, which only skips whitespace
/// *before a lexeme that follows another lexeme*: `allow_initial_skip`
/// admits leading whitespace, and the explicit optional `TRAIL` admits
/// trailing whitespace after the value. gcd (like Lark and RFC 8259's
/// `ws value ws`) allows both.
const GCD_JSON_IN_LLG_LARK: &str = concat!(
    r#"%llguidance {"allow_initial_skip": true}
start: value TRAIL?
TRAIL: /[ \t\n\r]+/
"#,
    gcd_json_rules!()
);

/// The literal translation, without those two lines: llguidance then forbids
/// whitespace before and after the top-level value.
const GCD_JSON_IN_LLG_LARK_PLAIN: &str = concat!("start: value\n", gcd_json_rules!());

/// llguidance's own "any JSON": its JSON-Schema compiler on the empty schema.
const LLG_BUILTIN_JSON: &str = "start: %json {}\n";

struct Args {
    tokenizer: PathBuf,
    data: PathBuf,
    stride: usize,
    llg_grammar: String,
    examples: usize,
}

fn parse_args() -> Result<Args> {
    let mut a = Args {
        tokenizer: "../shared/data/tokenizers/llama3/tokenizer.json".into(),
        data: "../shared/data/maskbench".into(),
        stride: 20,
        llg_grammar: "json".into(),
        examples: 8,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().ok_or_else(|| anyhow!("{flag} needs a value"));
        match flag.as_str() {
            "--tokenizer" => a.tokenizer = val()?.into(),
            "--data" => a.data = val()?.into(),
            "--stride" => a.stride = val()?.parse().context("--stride")?,
            "--llg-grammar" => a.llg_grammar = val()?,
            "--examples" => a.examples = val()?.parse().context("--examples")?,
            "-h" | "--help" => {
                println!(
                    "peer-bench [--tokenizer tokenizer.json] [--data MASKBENCH_DIR] [--stride N]\n\
                     \x20          [--llg-grammar json|gcd|gcd-plain] [--examples K]\n\
                     --llg-grammar json:      llguidance's built-in any-JSON (`start: %json {{}}`, default)\n\
                     --llg-grammar gcd:       gcd's JSON grammar in llguidance's Lark, whitespace edges matched\n\
                     --llg-grammar gcd-plain: the same, translated literally (no leading/trailing whitespace)"
                );
                std::process::exit(0);
            }
            other => bail!("unknown argument {other} (try --help)"),
        }
    }
    if a.stride == 0 {
        bail!("--stride must be at least 1");
    }
    a.tokenizer = from_repo_root(a.tokenizer);
    a.data = from_repo_root(a.data);
    Ok(a)
}

/// Relative paths are taken from the current directory, or, when nothing is
/// there, from the gcd repository root (the parent of this crate), so the
/// defaults work from either directory.
fn from_repo_root(p: PathBuf) -> PathBuf {
    if p.is_absolute() || p.exists() {
        return p;
    }
    let alt = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(&p);
    if alt.exists() {
        alt
    } else {
        p
    }
}

struct Stats {
    n: usize,
    avg: f64,
    p50: f64,
    p90: f64,
    p99: f64,
    max: f64,
}

fn stats(times: &mut [Duration]) -> Stats {
    times.sort();
    let n = times.len();
    if n == 0 {
        return Stats {
            n,
            avg: 0.0,
            p50: 0.0,
            p90: 0.0,
            p99: 0.0,
            max: 0.0,
        };
    }
    let pct = |p: f64| us(times[((n - 1) as f64 * p).round() as usize]);
    Stats {
        n,
        avg: times.iter().map(|d| us(*d)).sum::<f64>() / n as f64,
        p50: pct(0.5),
        p90: pct(0.9),
        p99: pct(0.99),
        max: us(times[n - 1]),
    }
}

/// Every `stride`-th JSON file of `dir`, in name order.
fn json_files(dir: &std::path::Path, stride: usize) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    Ok(files.into_iter().step_by(stride).collect())
}

/// A token's bytes, printable.
fn show(bytes: &[u8]) -> String {
    format!("{:?}", String::from_utf8_lossy(bytes))
}

/// The last `n` bytes of the output so far, printable.
fn tail(bytes: &[u8], n: usize) -> String {
    let start = bytes.len().saturating_sub(n);
    let mut s = show(&bytes[start..]);
    if start > 0 {
        s.insert(0, '…');
    }
    s
}

struct Disagreement {
    file: String,
    step: usize,
    prefix_tail: String,
    gcd_only: Vec<u32>,
    llg_only: Vec<u32>,
}

fn main() -> ExitCode {
    let result = if std::env::args().nth(1).as_deref() == Some("maskbench") {
        maskbench::run(std::env::args().skip(2))
    } else {
        run()
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("peer-bench: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<ExitCode> {
    let args = parse_args()?;
    let (llg_lark, llg_desc) = match args.llg_grammar.as_str() {
        "json" => (LLG_BUILTIN_JSON, "llguidance built-in any-JSON: `start: %json {}`"),
        "gcd" => (
            GCD_JSON_IN_LLG_LARK,
            "gcd-core/src/lark/json.lark translated to llguidance Lark, + allow_initial_skip and trailing WS",
        ),
        "gcd-plain" => (GCD_JSON_IN_LLG_LARK_PLAIN, "gcd-core/src/lark/json.lark translated literally to llguidance Lark"),
        other => bail!("--llg-grammar must be `json`, `gcd` or `gcd-plain`, not {other:?}"),
    };

    // ---- tokenizers -------------------------------------------------------
    let t0 = Instant::now();
    let vocab = Arc::new(
        Vocabulary::from_tokenizer_json(&args.tokenizer)
            .with_context(|| format!("gcd: loading {}", args.tokenizer.display()))?,
    );
    let t_gcd_vocab = t0.elapsed();
    let width = vocab.len();

    let t0 = Instant::now();
    let mut bt = ByteTokenizer::from_file(&args.tokenizer)
        .with_context(|| format!("llguidance: loading {}", args.tokenizer.display()))?;
    let llg_default_eos = bt.eos_tokens();
    // Same end-of-sequence ids as gcd, so EOS bits are comparable.
    bt.set_eos_tokens(vocab.eos_ids());
    let llg_bytes = bt.token_bytes();
    let tok_env: TokEnv = bt.into_tok_env(Some(width))?;
    let t_llg_vocab = t0.elapsed();

    // Do the two engines see the same bytes for every ordinary token?
    let (mut same, mut differ) = (0usize, Vec::new());
    for (id, b) in vocab.normal_tokens() {
        if llg_bytes
            .get(id as usize)
            .is_some_and(|l| l.as_slice() == b)
        {
            same += 1;
        } else {
            differ.push(id);
        }
    }

    // ---- setup: gcd = compile + bind; llg = factory + first parser ---------
    let t0 = Instant::now();
    let compiled = Arc::new(
        CompiledGrammar::new(&gcd_core::lark::builtin::json()).map_err(|e| anyhow!("{e}"))?,
    );
    let t_gcd_compile = t0.elapsed();
    let t0 = Instant::now();
    let bound = Arc::new(BoundGrammar::new(compiled, vocab.clone()));
    let t_gcd_bind = t0.elapsed();

    let t0 = Instant::now();
    let mut factory = ParserFactory::new_simple(&tok_env)?;
    factory.quiet();
    let t_llg_factory = t0.elapsed();
    let t0 = Instant::now();
    let parser = factory.create_parser(TopLevelGrammar::from_lark(llg_lark.to_string()))?;
    let llg_template = llguidance::Matcher::new(Ok(parser));
    if let Some(e) = llg_template.get_error() {
        bail!("llguidance: {e}");
    }
    let t_llg_parser = t0.elapsed();

    // ---- replay ------------------------------------------------------------
    let files = json_files(&args.data, args.stride)?;

    let mut gmask = bitvec![u64, Lsb0; 0; width];
    let (mut t_gcd, mut t_llg) = (Vec::new(), Vec::new());
    let (mut adv_gcd, mut adv_llg) = (Duration::ZERO, Duration::ZERO);
    let (mut docs, mut tokens_total) = (0usize, 0usize);
    let (mut gcd_rejects, mut llg_rejects, mut llg_errors) = (0usize, 0usize, 0usize);
    let mut disagreeing_masks = 0usize;
    let (mut bits_gcd_only, mut bits_llg_only) = (0usize, 0usize);
    let mut eos_disagree = 0usize;
    let mut examples: Vec<Disagreement> = Vec::new();
    // differing token id -> (times gcd-only, times llg-only)
    let mut by_token: BTreeMap<u32, (usize, usize)> = BTreeMap::new();
    let eos_ids: Vec<u32> = vocab.eos_ids().to_vec();
    let wall = Instant::now();

    for f in &files {
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(&std::fs::read(f)?) else {
            eprintln!("{name}: not JSON, skipped");
            continue;
        };
        for t in v["tests"].as_array().into_iter().flatten() {
            let text = gcd_cli::pyjson::to_python_json(&t["data"]);
            let tokens = vocab.encode(&text).map_err(|e| anyhow!("{e}"))?;
            docs += 1;
            let mut gm = gcd_core::runtime::matcher::Matcher::new(bound.clone());
            // Shallow clone: shares the (lazily built) lexer cache with the
            // template, as a server reusing one compiled grammar does.
            let mut lm = llg_template.clone();
            for (step, &tok) in tokens.iter().enumerate() {
                // Alternate which engine runs first, so neither always gets
                // the warmer cache.
                let (dg, lres, dl);
                if step % 2 == 0 {
                    let s = Instant::now();
                    gm.fill_mask(&mut gmask);
                    dg = s.elapsed();
                    let s = Instant::now();
                    lres = lm.compute_mask();
                    dl = s.elapsed();
                } else {
                    let s = Instant::now();
                    lres = lm.compute_mask();
                    dl = s.elapsed();
                    let s = Instant::now();
                    gm.fill_mask(&mut gmask);
                    dg = s.elapsed();
                }
                t_gcd.push(dg);
                t_llg.push(dl);
                tokens_total += 1;
                let lmask = match lres {
                    Ok(m) => m,
                    Err(e) => {
                        llg_errors += 1;
                        eprintln!("{name}: llguidance error at step {step}: {e}");
                        break;
                    }
                };

                let (gcd_only, llg_only) = compare::diff(&gmask, &lmask);
                if !gcd_only.is_empty() || !llg_only.is_empty() {
                    disagreeing_masks += 1;
                    bits_gcd_only += gcd_only.len();
                    bits_llg_only += llg_only.len();
                    if gcd_only
                        .iter()
                        .chain(&llg_only)
                        .any(|id| eos_ids.contains(id))
                    {
                        eos_disagree += 1;
                    }
                    for &id in &gcd_only {
                        by_token.entry(id).or_default().0 += 1;
                    }
                    for &id in &llg_only {
                        by_token.entry(id).or_default().1 += 1;
                    }
                    // Keep examples of distinct kinds: a new example only
                    // when its first differing token is a new one.
                    let first = gcd_only.first().or(llg_only.first()).copied();
                    let seen = examples
                        .iter()
                        .any(|e| e.gcd_only.first().or(e.llg_only.first()).copied() == first);
                    if examples.len() < args.examples && !seen {
                        examples.push(Disagreement {
                            file: name.clone(),
                            step,
                            prefix_tail: tail(gm.output(), 40),
                            gcd_only: gcd_only.clone(),
                            llg_only: llg_only.clone(),
                        });
                    }
                }

                let g_ok = gmask[tok as usize];
                let l_ok = lmask.is_allowed(tok);
                if !g_ok {
                    gcd_rejects += 1;
                    eprintln!(
                        "{name}: gcd forbids token {tok} {} at byte {}",
                        show(vocab.token_bytes(tok).unwrap_or(b"?")),
                        gm.output().len()
                    );
                }
                if !l_ok {
                    llg_rejects += 1;
                    eprintln!(
                        "{name}: llguidance forbids token {tok} {} at byte {}",
                        show(vocab.token_bytes(tok).unwrap_or(b"?")),
                        gm.output().len()
                    );
                }
                if !g_ok || !l_ok {
                    break;
                }
                let s = Instant::now();
                let ga = gm.advance(tok);
                adv_gcd += s.elapsed();
                let s = Instant::now();
                let la = lm.consume_token(tok);
                adv_llg += s.elapsed();
                if let Err(e) = ga {
                    gcd_rejects += 1;
                    eprintln!("{name}: gcd advance failed: {e}");
                    break;
                }
                if let Err(e) = la {
                    llg_rejects += 1;
                    eprintln!("{name}: llguidance consume_token failed: {e}");
                    break;
                }
            }
        }
    }
    let wall = wall.elapsed();

    // ---- report ------------------------------------------------------------
    let tok_name = |id: u32| -> String {
        match vocab.kind(id) {
            Ok(TokenKind::Normal) => show(vocab.token_bytes(id).unwrap_or(b"?")),
            _ => tok_env.tok_trie().token_dbg(id),
        }
    };
    println!(
        "peer-bench: gcd vs llguidance {} (JSON token masks)",
        llguidance_version()
    );
    println!(
        "tokenizer     {} ({} ids, width {width})",
        args.tokenizer.display(),
        vocab.len()
    );
    println!(
        "  gcd load    {:8.1} ms  (Vocabulary::from_tokenizer_json; token trie is built in bind)",
        ms(t_gcd_vocab)
    );
    println!(
        "  llg load    {:8.1} ms  (ByteTokenizer::from_file + TokEnv incl. its token trie)",
        ms(t_llg_vocab)
    );
    println!(
        "  token bytes: {same} ordinary ids identical in both, {} differ{}",
        differ.len(),
        if differ.is_empty() {
            String::new()
        } else {
            format!(" (e.g. {:?})", &differ[..differ.len().min(5)])
        }
    );
    println!(
        "  EOS ids     gcd {:?}; llguidance default {:?}, set to gcd's for the run",
        vocab.eos_ids(),
        llg_default_eos
    );
    println!("grammars      gcd: built-in json (gcd-core/src/lark/json.lark)");
    println!("              llg: {llg_desc}");
    println!(
        "setup         gcd: {:8.1} ms  (compile {:.1} ms + bind {:.1} ms)",
        ms(t_gcd_compile + t_gcd_bind),
        ms(t_gcd_compile),
        ms(t_gcd_bind)
    );
    println!(
        "              llg: {:8.1} ms  (ParserFactory {:.1} ms + first parser {:.1} ms)",
        ms(t_llg_factory + t_llg_parser),
        ms(t_llg_factory),
        ms(t_llg_parser)
    );
    println!("data          {} files (every {}th of {}), {docs} documents, {tokens_total} masks each, replay wall {:.1} s",
        files.len(), args.stride, args.data.display(), wall.as_secs_f64());
    let sg = stats(&mut t_gcd);
    let sl = stats(&mut t_llg);
    println!("per mask (us)      n      avg      p50      p90      p99      max");
    for (name, s) in [("gcd", &sg), ("llguidance", &sl)] {
        println!(
            "{name:<12} {:>8} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.1}",
            s.n, s.avg, s.p50, s.p90, s.p99, s.max
        );
    }
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
    println!(
        "ratio llguidance/gcd: avg {:.2}x, p50 {:.2}x, p99 {:.2}x",
        ratio(sl.avg, sg.avg),
        ratio(sl.p50, sg.p50),
        ratio(sl.p99, sg.p99)
    );
    let n = tokens_total.max(1) as f64;
    println!(
        "advance (us avg): gcd {:.2}, llguidance {:.2}",
        us(adv_gcd) / n,
        us(adv_llg) / n
    );
    println!(
        "rejections: gcd {gcd_rejects}, llguidance {llg_rejects}, llguidance errors {llg_errors}"
    );
    println!(
        "mask disagreements: {disagreeing_masks} of {tokens_total} masks differ ({bits_gcd_only} token bits allowed only by gcd, {bits_llg_only} only by llguidance; {eos_disagree} masks differ on EOS)"
    );
    if !by_token.is_empty() {
        let mut top: Vec<(u32, (usize, usize))> = by_token.into_iter().collect();
        top.sort_by_key(|(_, (a, b))| std::cmp::Reverse(a + b));
        println!("  most frequent differing tokens (id bytes: masks where only gcd / only llguidance allows it):");
        for (id, (a, b)) in top.iter().take(12) {
            println!(
                "    {id:>6} {:<24} gcd-only {a:>6}  llg-only {b:>6}",
                tok_name(*id)
            );
        }
        println!("  examples (first of each kind):");
        for e in &examples {
            let list = |ids: &[u32]| -> String {
                let mut s: Vec<String> = ids
                    .iter()
                    .take(6)
                    .map(|&i| format!("{i} {}", tok_name(i)))
                    .collect();
                if ids.len() > 6 {
                    s.push(format!("… {} in all", ids.len()));
                }
                s.join(", ")
            };
            println!("    {} step {} after {}:", e.file, e.step, e.prefix_tail);
            if !e.gcd_only.is_empty() {
                println!("      only gcd allows: {}", list(&e.gcd_only));
            }
            if !e.llg_only.is_empty() {
                println!("      only llguidance allows: {}", list(&e.llg_only));
            }
        }
    }
    Ok(if gcd_rejects + llg_rejects + llg_errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn llguidance_version() -> &'static str {
    env!("LLG_VERSION")
}
