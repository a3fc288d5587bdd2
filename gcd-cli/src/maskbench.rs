//! The MaskBench protocol (JSONSchemaBench's `maskbench/`), as a library
//! function so the `gcd` CLI and the tests share it.
//!
//! Per schema: compile + bind + first mask is the *time to first mask*
//! (TTFM). Per test instance: serialize like Python's `json.dumps`,
//! tokenize canonically, and for every token compute the mask (timed: TBM),
//! check the token is allowed, advance. A valid instance must be accepted
//! to the end (EOS allowed after the last token); an invalid one must be
//! refused at some token or at the end. `validation_err` and
//! `invalid_accepted` count test instances; `pass` counts schemas that
//! compiled and got every instance right.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gcd_core::bind::BoundGrammar;
use gcd_core::counters::{stage_times, Stage};
use gcd_core::runtime::matcher::Matcher;
use gcd_core::vocab::trie::TokenTrie;
use gcd_core::vocab::Vocabulary;
use serde_json::Value;

use gcd_schema::{compile, Options};

use crate::pyjson::{python_layout, to_python_json};

/// A MaskBench file's instances as written (see [`python_layout`]).
#[derive(serde::Deserialize)]
struct RawTests<'a> {
    #[serde(borrow, default)]
    tests: Vec<RawTest<'a>>,
}

#[derive(serde::Deserialize)]
struct RawTest<'a> {
    #[serde(borrow)]
    data: &'a serde_json::value::RawValue,
}
use crate::stats::Summary;

/// What to run.
#[derive(Debug, Clone)]
pub struct Config {
    /// Folder with the MaskBench JSON files.
    pub data: PathBuf,
    /// Run every `stride`-th file (in name order); 1 = all.
    pub stride: usize,
    /// How each schema is compiled.
    pub options: Options,
    /// Replay under a token budget of each instance's own token count plus
    /// this many, and time the first mask under a budget (which builds the
    /// budget's tables); `None`: no budget.
    pub budget_slack: Option<usize>,
}

/// Per-category counts.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Category {
    /// Schema files of this category that were run.
    pub schemas: usize,
    /// Of those, the ones that compiled and got every instance right.
    pub pass: usize,
    /// Of those, the ones refused at compile time.
    pub compile_err: usize,
}

/// Everything the run measured.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Schema files run.
    pub schemas: usize,
    /// Schemas that compiled and got every instance right.
    pub pass: usize,
    /// Schemas refused at compile time.
    pub compile_err: usize,
    /// Valid instances rejected (must stay 0).
    pub validation_err: usize,
    /// Invalid instances accepted to the end (must stay 0).
    pub invalid_accepted: usize,
    /// Schemas that compiled with a `format` no draft defines, kept as an
    /// annotation (see `gcd_schema::compile`).
    pub annotated: usize,
    /// Time of each mask, in µs.
    pub tbm_us: Vec<f64>,
    /// Time to first mask per compiled schema, in µs.
    pub ttfm_us: Vec<f64>,
    /// Per compiled schema (as `ttfm_us`), the part of its TTFM spent in
    /// each of gcd-core's [`Stage`]s, in µs.
    pub ttfm_stages_us: Vec<[f64; Stage::ALL.len()]>,
    /// Per compiled schema (as `ttfm_us`), its file name.
    pub ttfm_files: Vec<String>,
    /// The same, for the schema compiled a second time in the process (a
    /// server that sees a tool definition again): the terminal DFAs and
    /// lexer-state tables are cached by then.
    pub ttfm_again_us: Vec<f64>,
    /// Counts per file-name category ([`category`]).
    pub categories: BTreeMap<String, Category>,
    /// Compile errors by keyword (or error kind when no keyword is named).
    pub error_keywords: BTreeMap<String, usize>,
    /// One line per validation error / accepted invalid instance.
    pub failures: Vec<String>,
    /// One line per schema refused: the file and the error.
    pub compile_errors: Vec<String>,
    /// With a budget: valid instances that the plain mask accepts but the
    /// budget refused (its plans are upper bounds, see the budget docs).
    pub budget_refused: usize,
    /// With a budget: schemas whose budget tables would pass the size
    /// limit, replayed without a budget.
    pub budget_unavailable: usize,
    /// Whether the run was under a budget (see [`Config::budget_slack`]).
    pub budgeted: bool,
    /// Per compiled schema, the bytes of the tables its binding built by
    /// the end of its replay (the vocabulary's trie, shared, left out).
    pub table_bytes: Vec<f64>,
    /// The slowest masks of the replays, slowest first (at most
    /// [`SLOWEST_KEPT`]): the tail of TBM, and which stages it was spent in.
    pub slowest_masks: Vec<SlowMask>,
    /// Masks of at least [`TAIL_US`]: how many, their time per stage (the
    /// walk last), and their time per schema file.
    pub tail: Tail,
}

/// Where a mask counts as the tail of TBM, in µs.
pub const TAIL_US: f64 = 1000.0;

/// The masks of at least [`TAIL_US`], summed: what the TBM tail is made of.
#[derive(Debug, Default, Clone)]
pub struct Tail {
    /// How many masks took at least [`TAIL_US`].
    pub masks: usize,
    /// Their time, in µs.
    pub us: f64,
    /// Per [`Stage`], then the walk.
    pub stages_us: [f64; Stage::ALL.len() + 1],
    /// Per schema file: its tail masks and their time.
    pub by_file_us: BTreeMap<String, (usize, f64)>,
}

/// How many of the slowest masks a report keeps.
pub const SLOWEST_KEPT: usize = 10;

/// One mask of a replay, with where it was and what it spent its time on.
#[derive(Debug, Clone)]
pub struct SlowMask {
    /// How long it took, in µs.
    pub us: f64,
    /// `file#instance@token`.
    pub at: String,
    /// Its time in each of gcd-core's [`Stage`]s, in µs (the rest is the
    /// walk itself).
    pub stages_us: [f64; Stage::ALL.len()],
}

impl Report {
    /// Keeps a mask among the slowest if it is one.
    fn note_mask(
        &mut self,
        us: f64,
        at: impl FnOnce() -> String,
        stages_us: [f64; Stage::ALL.len()],
        file: &str,
    ) {
        if us >= TAIL_US {
            let t = &mut self.tail;
            t.masks += 1;
            t.us += us;
            for (sum, x) in t.stages_us.iter_mut().zip(&stages_us) {
                *sum += x;
            }
            t.stages_us[Stage::ALL.len()] += (us - stages_us.iter().sum::<f64>()).max(0.0);
            let f = t.by_file_us.entry(file.to_string()).or_default();
            f.0 += 1;
            f.1 += us;
        }
        if self.slowest_masks.len() == SLOWEST_KEPT
            && self.slowest_masks.last().is_some_and(|m| m.us >= us)
        {
            return;
        }
        let at = at();
        let k = self.slowest_masks.partition_point(|m| m.us >= us);
        self.slowest_masks.insert(k, SlowMask { us, at, stages_us });
        self.slowest_masks.truncate(SLOWEST_KEPT);
    }
}

/// The category of a MaskBench file name (`Github_easy---o1234.json`,
/// `BFCL_java_11.json`).
pub fn category(file: &str) -> String {
    let stem = file.trim_end_matches(".json");
    if let Some((c, _)) = stem.split_once("---") {
        return c.to_string();
    }
    match stem.rsplit_once('_') {
        Some((c, n)) if n.chars().all(|d| d.is_ascii_digit()) => c.to_string(),
        _ => stem.to_string(),
    }
}

/// Runs MaskBench; `progress(done, total)` is called after each file.
pub fn run(
    cfg: &Config,
    vocab: Arc<Vocabulary>,
    progress: &mut dyn FnMut(usize, usize),
) -> std::io::Result<Report> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(&cfg.data)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let files: Vec<PathBuf> = files.into_iter().step_by(cfg.stride.max(1)).collect();
    let trie = Arc::new(TokenTrie::new(&vocab));
    let mut r = Report {
        budgeted: cfg.budget_slack.is_some(),
        ..Report::default()
    };
    for (i, f) in files.iter().enumerate() {
        run_file(f, cfg, &vocab, &trie, &mut r)?;
        progress(i + 1, files.len());
    }
    Ok(r)
}

fn run_file(
    f: &Path,
    cfg: &Config,
    vocab: &Arc<Vocabulary>,
    trie: &Arc<TokenTrie>,
    r: &mut Report,
) -> std::io::Result<()> {
    let name = f
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .to_string();
    let bytes = std::fs::read(f)?;
    let invalid = |e: serde_json::Error| {
        std::io::Error::new(std::io::ErrorKind::InvalidData, format!("{name}: {e}"))
    };
    let doc: Value = serde_json::from_slice(&bytes).map_err(invalid)?;
    let raw: RawTests = serde_json::from_slice(&bytes).map_err(invalid)?;
    let cat = r.categories.entry(category(&name)).or_default();
    cat.schemas += 1;
    r.schemas += 1;
    let width = vocab.len();
    let stages_before = stage_times();
    let start = Instant::now();
    let compiled = match compile(&doc["schema"], &cfg.options) {
        Ok(c) => c,
        Err(e) => {
            cat.compile_err += 1;
            r.compile_err += 1;
            let key = e
                .keyword()
                .map_or_else(|| format!("{:?}", e.kind()), str::to_string);
            *r.error_keywords.entry(key).or_default() += 1;
            r.compile_errors.push(format!("{name}: {e}"));
            return Ok(());
        }
    };
    if !compiled.warnings().is_empty() {
        r.annotated += 1;
    }
    let bound = Arc::new(BoundGrammar::with_trie(
        Arc::new(compiled),
        vocab.clone(),
        trie.clone(),
    ));
    // Under a budget the first mask builds the budget's tables; a budget
    // far above any instance's length keeps every token allowed.
    let first_matcher = |b: Arc<BoundGrammar>| {
        let m = Matcher::new(b);
        match cfg.budget_slack {
            Some(_) => m.clone().with_budget(1 << 20).unwrap_or(m),
            None => m,
        }
    };
    let mask = first_matcher(bound.clone()).compute_mask(width);
    r.ttfm_us.push(us(start.elapsed()));
    let stages_after = stage_times();
    r.ttfm_stages_us.push(std::array::from_fn(|i| {
        us(stages_after[i] - stages_before[i])
    }));
    r.ttfm_files.push(name.clone());
    drop(mask);
    let budget_available = bound.budget_available().is_ok();
    if cfg.budget_slack.is_some() && !budget_available {
        r.budget_unavailable += 1;
    }
    let again = Instant::now();
    if let Ok(c) = compile(&doc["schema"], &cfg.options) {
        let b = Arc::new(BoundGrammar::with_trie(
            Arc::new(c),
            vocab.clone(),
            trie.clone(),
        ));
        drop(first_matcher(b).compute_mask(width));
        r.ttfm_again_us.push(us(again.elapsed()));
    }
    let mut ok = true;
    for (ti, t) in doc["tests"].as_array().into_iter().flatten().enumerate() {
        let valid = t["valid"].as_bool().unwrap_or(true);
        // Numbers as the file writes them: an integer past 2^53 read into
        // a Value would be written back as a float the schema may refuse.
        let text = (raw.tests.get(ti))
            .and_then(|r| python_layout(r.data.get()))
            .unwrap_or_else(|| to_python_json(&t["data"]));
        let Ok(ids) = vocab.encode(&text) else {
            r.failures.push(format!("{name}#{ti}: cannot tokenize"));
            r.validation_err += 1;
            ok = false;
            continue;
        };
        let mut m = Matcher::new(bound.clone());
        if let Some(slack) = cfg.budget_slack.filter(|_| budget_available) {
            // Refused only when the instance's length is below the fewest
            // tokens the schema needs; it is then refused by the budget.
            if m.set_budget(Some(ids.len() + slack)).is_err() {
                refused_by_budget(&bound, &ids, valid, r);
                continue;
            }
        }
        let mut accepted = true;
        for (step, &tok) in ids.iter().enumerate() {
            let before = stage_times();
            let t0 = Instant::now();
            let mask = m.compute_mask(width);
            let dt = us(t0.elapsed());
            r.tbm_us.push(dt);
            let after = stage_times();
            r.note_mask(
                dt,
                || {
                    // The output's last bytes say where the mask was.
                    let out = m.output();
                    let tail = String::from_utf8_lossy(&out[out.len().saturating_sub(24)..]);
                    format!("{name}#{ti}@{step} after {tail:?}")
                },
                std::array::from_fn(|i| us(after[i] - before[i])),
                &name,
            );
            let allowed = mask.get(tok as usize).is_some_and(|b| *b);
            let advanced = m.advance(tok).is_ok();
            if allowed != advanced {
                r.failures.push(format!(
                    "{name}#{ti}: mask says {allowed}, advance says {advanced} for token {tok}"
                ));
                r.validation_err += 1;
                ok = false;
            }
            if !allowed || !advanced {
                accepted = false;
                break;
            }
        }
        if accepted && !m.is_complete() {
            accepted = false;
        }
        if valid && !accepted && m.budget().is_some() {
            refused_by_budget(&bound, &ids, valid, r);
            continue;
        }
        if accepted != valid {
            ok = false;
            if valid {
                r.validation_err += 1;
                r.failures.push(format!(
                    "{name}#{ti}: valid instance rejected: {}",
                    truncate(&text)
                ));
            } else {
                r.invalid_accepted += 1;
                r.failures.push(format!(
                    "{name}#{ti}: INVALID instance accepted: {}",
                    truncate(&text)
                ));
            }
        }
    }
    r.table_bytes.push(bound.table_bytes() as f64);
    if ok {
        r.pass += 1;
        r.categories.get_mut(&category(&name)).unwrap().pass += 1;
    }
    Ok(())
}

/// A valid instance refused under a budget: a budget refusal if the plain
/// mask accepts it, else a validation error.
fn refused_by_budget(bound: &Arc<BoundGrammar>, ids: &[u32], valid: bool, r: &mut Report) {
    let mut plain = Matcher::new(bound.clone());
    let accepted = ids.iter().all(|&t| plain.advance(t).is_ok()) && plain.is_complete();
    if valid && accepted {
        r.budget_refused += 1;
    } else if valid {
        r.validation_err += 1;
        r.failures
            .push(format!("valid instance rejected: {} tokens", ids.len()));
    }
}

fn truncate(s: &str) -> String {
    s.chars().take(160).collect()
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

impl Report {
    /// Mask times (TBM), in microseconds.
    pub fn tbm(&self) -> Summary {
        Summary::of(&mut self.tbm_us.clone())
    }

    /// Times to first mask (TTFM), in microseconds.
    pub fn ttfm(&self) -> Summary {
        Summary::of(&mut self.ttfm_us.clone())
    }

    /// The three summary lines of the protocol.
    pub fn summary(&self) -> String {
        let (tbm, ttfm) = (self.tbm(), self.ttfm());
        let mut s = String::new();
        let _ = writeln!(
            s,
            "schemas={} pass={} compile_err={} validation_err={} invalid_accepted={} masks={}",
            self.schemas,
            self.pass,
            self.compile_err,
            self.validation_err,
            self.invalid_accepted,
            tbm.n
        );
        let _ = writeln!(
            s,
            "compiled with formats kept as annotations (no draft defines them): {}",
            self.annotated
        );
        if self.budgeted {
            let _ = writeln!(
                s,
                "under a budget: valid instances the budget refused (plain masks accept them): {}; schemas without budget tables (too large): {}",
                self.budget_refused, self.budget_unavailable
            );
        }
        let _ = writeln!(
            s,
            "TBM_us avg={:.1} p50={:.1} p90={:.1} p99={:.1} p999={:.1} max={:.1}",
            tbm.avg, tbm.p50, tbm.p90, tbm.p99, tbm.p999, tbm.max
        );
        let _ = writeln!(
            s,
            "TTFM_us p50={:.1} p90={:.1} p99={:.1} max={:.1}",
            ttfm.p50, ttfm.p90, ttfm.p99, ttfm.max
        );
        s
    }

    /// The whole report as one JSON object, for tools: the counts, the
    /// timing summaries (microseconds), per-category counts, compile-error
    /// keywords, and each refusal and failure.
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "schemas": self.schemas,
            "pass": self.pass,
            "compile_err": self.compile_err,
            "validation_err": self.validation_err,
            "invalid_accepted": self.invalid_accepted,
            "annotated": self.annotated,
            "budgeted": self.budgeted,
            "budget_refused": self.budget_refused,
            "budget_unavailable": self.budget_unavailable,
            "tbm_us": self.tbm(),
            "ttfm_us": self.ttfm(),
            "ttfm_stages_ms": (Stage::ALL.iter().enumerate())
                .map(|(i, st)| (st.name().to_string(), serde_json::json!(
                    self.ttfm_stages_us.iter().map(|x| x[i]).sum::<f64>() / 1e3
                )))
                .collect::<serde_json::Map<String, Value>>(),
            "ttfm_again_us": Summary::of(&mut self.ttfm_again_us.clone()),
            "bound_table_bytes": Summary::of(&mut self.table_bytes.clone()),
            "categories": self.categories,
            "error_keywords": self.error_keywords,
            "compile_errors": self.compile_errors,
            "failures": self.failures,
        })
    }

    /// Where time to first mask went: per stage, its share of the total
    /// and its distribution over schemas; the rest (the mask's own walk,
    /// reading the schema file aside) last.
    pub fn stage_breakdown(&self) -> String {
        let mut s = String::new();
        let total: f64 = self.ttfm_us.iter().sum();
        let _ = writeln!(
            s,
            "TTFM by stage over {} schemas (total {:.0} ms; per-schema µs):",
            self.ttfm_us.len(),
            total / 1e3
        );
        let _ = writeln!(
            s,
            "  {:<14} {:>9} {:>6} {:>9} {:>9} {:>9} {:>10}",
            "stage", "total ms", "share", "p50", "p90", "p99", "max"
        );
        let rest: Vec<f64> = (self.ttfm_us.iter().zip(&self.ttfm_stages_us))
            .map(|(t, st)| (t - st.iter().sum::<f64>()).max(0.0))
            .collect();
        let columns = (Stage::ALL.iter().enumerate())
            .map(|(i, st)| {
                (
                    st.name(),
                    self.ttfm_stages_us.iter().map(|x| x[i]).collect(),
                )
            })
            .chain([("mask_walk", rest)]);
        for (name, mut v) in columns {
            let sum: f64 = v.iter().sum();
            let q = Summary::of(&mut v);
            let _ = writeln!(
                s,
                "  {name:<14} {:>9.1} {:>5.1}% {:>9.1} {:>9.1} {:>9.1} {:>10.1}",
                sum / 1e3,
                100.0 * sum / total.max(1e-9),
                q.p50,
                q.p90,
                q.p99,
                q.max
            );
        }
        // The TTFM tail is a few schemas; name them, as the TBM tail is.
        let mut order: Vec<usize> = (0..self.ttfm_us.len()).collect();
        order.sort_by(|&a, &b| self.ttfm_us[b].total_cmp(&self.ttfm_us[a]));
        let _ = writeln!(s, "slowest first masks (ms; stages over 10% of it):");
        for &i in order.iter().take(8) {
            let t = self.ttfm_us[i];
            let rest = (t - self.ttfm_stages_us[i].iter().sum::<f64>()).max(0.0);
            let shares: Vec<String> = (Stage::ALL.iter().map(|st| st.name()))
                .chain(["mask_walk"])
                .zip(self.ttfm_stages_us[i].iter().chain([&rest]))
                .filter(|(_, &x)| x >= 0.1 * t)
                .map(|(n, x)| format!("{n} {:.0}%", 100.0 * x / t.max(1e-9)))
                .collect();
            let file = self.ttfm_files.get(i).map_or("?", String::as_str);
            let _ = writeln!(s, "  {:>8.1}  {file}: {}", t / 1e3, shares.join(", "));
        }
        s
    }

    /// The slowest masks, each with the stages it spent more than a tenth
    /// of its time in; then the masks of at least [`TAIL_US`] summed, by
    /// stage and by the schemas that hold most of them.
    pub fn slowest(&self) -> String {
        let mut s = String::new();
        let t = &self.tail;
        let names = Stage::ALL.iter().map(|st| st.name()).chain(["walk"]);
        let stages: Vec<String> = (names.zip(&t.stages_us))
            .filter(|(_, &x)| x > 0.0)
            .map(|(n, x)| format!("{n} {:.0}%", 100.0 * x / t.us.max(1e-9)))
            .collect();
        let _ = writeln!(
            s,
            "masks of {TAIL_US:.0} µs or more: {} ({:.1} ms): {}",
            t.masks,
            t.us / 1e3,
            stages.join(", ")
        );
        let mut files: Vec<_> = t.by_file_us.iter().collect();
        files.sort_by(|a, b| b.1 .1.total_cmp(&a.1 .1));
        for (f, (n, us)) in files.iter().take(8) {
            let _ = writeln!(s, "  {:>9.1} ms in {n:>5} masks  {f}", us / 1e3);
        }
        let _ = writeln!(s, "slowest masks (µs; stages over 10% of the mask):");
        for m in &self.slowest_masks {
            let mut parts: Vec<String> = (Stage::ALL.iter().zip(&m.stages_us))
                .filter(|(_, &t)| t > m.us / 10.0)
                .map(|(st, t)| format!("{} {t:.0}", st.name()))
                .collect();
            let walk = m.us - m.stages_us.iter().sum::<f64>();
            if walk > m.us / 10.0 {
                parts.push(format!("walk {walk:.0}"));
            }
            let _ = writeln!(s, "  {:>9.1}  {}  {}", m.us, m.at, parts.join(", "));
        }
        s
    }

    /// TTFM for schemas compiled a second time, per-category pass / compile
    /// errors, and the ten most common compile-error keywords.
    pub fn breakdown(&self) -> String {
        let mut s = String::new();
        let again = Summary::of(&mut self.ttfm_again_us.clone());
        let _ = writeln!(
            s,
            "TTFM_again_us p50={:.1} p90={:.1} p99={:.1} max={:.1} (each schema compiled a second time: its DFAs and lexer-state tables cached)",
            again.p50, again.p90, again.p99, again.max
        );
        let kb = Summary::of(
            &mut self
                .table_bytes
                .iter()
                .map(|b| b / 1024.0)
                .collect::<Vec<_>>(),
        );
        let _ = writeln!(
            s,
            "bound_table_kB p50={:.0} p90={:.0} p99={:.0} max={:.0} (per schema, after its replay; the shared trie left out)",
            kb.p50, kb.p90, kb.p99, kb.max
        );
        for (c, k) in &self.categories {
            let _ = writeln!(
                s,
                "  {c:<24} schemas={:<5} pass={:<5} compile_err={}",
                k.schemas, k.pass, k.compile_err
            );
        }
        let mut kw: Vec<_> = self.error_keywords.iter().collect();
        kw.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let top: Vec<String> = kw
            .iter()
            .take(10)
            .map(|(k, n)| format!("{k}={n}"))
            .collect();
        let _ = writeln!(s, "top compile-error keywords: {}", top.join(" "));
        s
    }
}
