//! An oracle that shares nothing with the engine but the grammar text:
//! Lark's own Earley parser (`pip install lark`), run in a Python process.
//!
//! The reference recognizer reuses gcd's compiled tables, so a bug in
//! compiling them (the transforms, the prediction table, forking) would go
//! unseen there. Here grammars are written as Lark text, compiled by gcd and
//! loaded by Lark, and verdicts on the same strings are compared:
//!
//! - Grammars whose terminals are a prefix-free set of literals have one
//!   lexing of any string, so maximal munch and Lark's "every split" lexing
//!   define the same language: gcd and Lark must agree on every string
//!   (samples drawn from gcd's masks, their mutations, random strings).
//! - With regex terminals maximal munch is narrower than every split, so
//!   only one direction holds: whatever gcd accepts, Lark accepts.
//! - The real grammars in shared data: samples drawn from gcd's masks under
//!   a budget are complete, and Lark parses them.
//!
//! Without Lark the test skips with a message, except under CI (`CI` set),
//! whose script installs it.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use common::byte_fed::ByteFed;
use gcd_core::compiled::{CompiledGrammar, Config, Lexing};
use gcd_core::lark::parse_grammar;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The Python process that answers for Lark.
struct Lark {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Lark {
    fn start() -> Option<Lark> {
        let has_lark = Command::new("python3")
            .args(["-c", "import lark"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !has_lark {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must run the Lark oracle: `pip install lark` (see .ci/run)"
            );
            eprintln!("SKIP: python3 with lark not found (pip install lark)");
            return None;
        }
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/oracle/lark_oracle.py");
        let mut child = Command::new("python3")
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Some(Lark {
            child,
            stdin,
            stdout,
        })
    }

    /// Lark's verdict on each string, or why it could not load the grammar.
    fn verdicts(
        &mut self,
        grammar: &str,
        start: &str,
        lexer: &str,
        strings: &[String],
    ) -> Result<Vec<bool>, String> {
        self.verdicts_in_file(grammar, None, start, lexer, strings)
    }

    /// [`verdicts`](Self::verdicts) for a grammar read from `path`, whose
    /// relative imports Lark resolves beside it.
    fn verdicts_in_file(
        &mut self,
        grammar: &str,
        path: Option<&std::path::Path>,
        start: &str,
        lexer: &str,
        strings: &[String],
    ) -> Result<Vec<bool>, String> {
        let request = serde_json::json!({
            "grammar": grammar, "start": start, "lexer": lexer, "strings": strings,
            "source_path": path.map(|p| p.display().to_string()),
        });
        writeln!(self.stdin, "{request}").unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        let answer: serde_json::Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("oracle said {line:?}: {e}"));
        if let Some(e) = answer["error"].as_str() {
            return Err(e.to_string());
        }
        let verdicts: Vec<bool> = serde_json::from_value(answer["verdicts"].clone()).unwrap();
        assert_eq!(verdicts.len(), strings.len());
        Ok(verdicts)
    }
}

impl Drop for Lark {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Literals no one of which is a prefix of another.
const PREFIX_FREE: &[&str] = &["a", "b", "c", "(", ")", ",", ";", "xy", "xz", "qq", "+"];
/// Literals and regexes whose lexings can differ from Lark's splits.
const OVERLAPPING: &[&str] = &[
    "\"a\"", "\"if\"", "\"ab\"", "\"(\"", "\")\"", "\",\"", "NAME", "NUM",
];
const REGEX_TERMINALS: &str = "NAME: /[a-z]+/\nNUM: /[0-9]+/\n";

/// A random grammar as Lark text: rules `start`, `r1`.. with alternatives
/// of terminals, rule references (left recursion included), groups with
/// `?`, `*`, `+` and `[ ]`.
fn random_lark(rng: &mut StdRng, terminals: &[String], ignore_space: bool) -> String {
    let rules = rng.random_range(1..=4);
    let name = |i: usize| {
        if i == 0 {
            "start".to_string()
        } else {
            format!("r{i}")
        }
    };
    let mut text = String::new();
    for r in 0..rules {
        let alts: Vec<String> = (0..rng.random_range(1..=3))
            .map(|_| random_seq(rng, terminals, rules, &name, 2))
            .collect();
        text += &format!("{}: {}\n", name(r), alts.join(" | "));
    }
    if ignore_space {
        text += "%ignore \" \"\n";
    }
    text
}

fn random_seq(
    rng: &mut StdRng,
    terminals: &[String],
    rules: usize,
    name: &dyn Fn(usize) -> String,
    depth: u32,
) -> String {
    let n = rng.random_range(1..=3);
    let items: Vec<String> = (0..n)
        .map(|_| match rng.random_range(0..100) {
            0..=49 => terminals[rng.random_range(0..terminals.len())].clone(),
            50..=74 => name(rng.random_range(0..rules)),
            _ if depth > 0 => {
                let inner: Vec<String> = (0..rng.random_range(1..=2))
                    .map(|_| random_seq(rng, terminals, rules, name, depth - 1))
                    .collect();
                let inner = inner.join(" | ");
                match rng.random_range(0..5) {
                    0 => format!("[{inner}]"),
                    k => format!("({inner}){}", ["", "?", "*", "+"][k - 1]),
                }
            }
            _ => terminals[rng.random_range(0..terminals.len())].clone(),
        })
        .collect();
    items.join(" ")
}

/// Samples, their one-edit mutations and random strings of the pieces.
fn candidate_strings(gcd: &ByteFed, pieces: &[&str], rng: &mut StdRng) -> Vec<String> {
    let mut out = Vec::new();
    for _ in 0..6 {
        let slack = rng.random_range(0..6);
        if let Some(s) = gcd.sample(rng, slack) {
            out.push(String::from_utf8(s).unwrap());
        }
    }
    for i in 0..out.len() {
        for _ in 0..4 {
            let mut s = out[i].clone().into_bytes();
            let piece = pieces[rng.random_range(0..pieces.len())].as_bytes();
            let at = rng.random_range(0..=s.len());
            match rng.random_range(0..3) {
                0 if !s.is_empty() => {
                    s.remove(at.min(s.len() - 1));
                }
                1 => {
                    s.splice(at..at, piece.iter().copied());
                }
                _ => {
                    let end = (at + 1).min(s.len());
                    s.splice(at..end, piece.iter().copied());
                }
            }
            out.push(String::from_utf8(s).unwrap());
        }
    }
    for _ in 0..6 {
        let n = rng.random_range(0..6);
        out.push(
            (0..n)
                .map(|_| pieces[rng.random_range(0..pieces.len())])
                .collect(),
        );
    }
    out.sort();
    out.dedup();
    out
}

/// Runs `count` random grammars; returns (grammars compared, strings compared,
/// strings both accept).
fn compare_random(
    lark: &mut Lark,
    count: u64,
    terminals: &[&str],
    extra_text: &str,
    pieces: &[&str],
    exact: bool,
    config: &Config,
) -> (usize, usize, usize) {
    let terminals: Vec<String> = terminals
        .iter()
        .map(|t| {
            if t.starts_with('"') || t.chars().all(|c| c.is_ascii_uppercase()) {
                t.to_string()
            } else {
                format!("{t:?}")
            }
        })
        .collect();
    let (mut grammars, mut strings, mut accepted) = (0, 0, 0);
    for seed in 0..count {
        let mut rng = StdRng::seed_from_u64(seed);
        let space = rng.random_bool(0.4);
        let text = random_lark(&mut rng, &terminals, space) + extra_text;
        // gcd may refuse a grammar (no finite string, a lexical hazard);
        // that is its own tests' business.
        let Some(compiled) = parse_grammar(&text)
            .ok()
            .and_then(|g| CompiledGrammar::with_config(&g, config).ok())
        else {
            continue;
        };
        let mut pieces = pieces.to_vec();
        if space {
            pieces.push(" ");
        }
        let gcd = ByteFed::new(compiled, &pieces, &mut rng);
        let candidates = candidate_strings(&gcd, &pieces, &mut rng);
        let lark_says = match lark.verdicts(&text, "start", "dynamic_complete", &candidates) {
            Ok(v) => v,
            // Lark refuses alternatives that its expansion of `?` and `[ ]`
            // makes identical; gcd merges them.
            Err(e) if e.contains("Rules defined twice") => continue,
            Err(e) => panic!("Lark refuses a grammar gcd compiles: {e}\n{text}"),
        };
        for (s, lark_ok) in candidates.iter().zip(lark_says) {
            let Some(gcd_ok) = gcd.accepts(s.as_bytes()) else {
                continue;
            };
            strings += 1;
            accepted += usize::from(gcd_ok && lark_ok);
            if exact {
                assert_eq!(
                    gcd_ok, lark_ok,
                    "{s:?}: gcd {gcd_ok}, Lark {lark_ok}\n{text}"
                );
            } else {
                assert!(
                    lark_ok || !gcd_ok,
                    "{s:?}: gcd accepts, Lark does not\n{text}"
                );
            }
        }
        grammars += 1;
    }
    (grammars, strings, accepted)
}

#[test]
fn prefix_free_literals_agree_with_lark_both_ways() {
    let Some(mut lark) = Lark::start() else {
        return;
    };
    let (grammars, strings, accepted) = compare_random(
        &mut lark,
        600,
        PREFIX_FREE,
        "",
        PREFIX_FREE,
        true,
        &Config::default(),
    );
    eprintln!("{grammars} grammars, {strings} strings, {accepted} in both languages");
    assert!(
        grammars >= 300 && strings >= 8000 && accepted >= 1400,
        "{grammars} {strings} {accepted}"
    );
}

#[test]
fn what_gcd_accepts_lark_accepts() {
    let Some(mut lark) = Lark::start() else {
        return;
    };
    let pieces = ["a", "if", "ab", "(", ")", ",", "x", "1", "9"];
    let (grammars, strings, accepted) = compare_random(
        &mut lark,
        400,
        OVERLAPPING,
        REGEX_TERMINALS,
        &pieces,
        false,
        &Config::default(),
    );
    eprintln!("{grammars} grammars, {strings} strings, {accepted} in both languages");
    assert!(
        grammars >= 130 && strings >= 3800 && accepted >= 1200,
        "{grammars} {strings} {accepted}"
    );
}

/// Dynamic lexing is Lark's `dynamic_complete`: with overlapping literals,
/// regex terminals (where maximal munch is narrower) and an ignored
/// comment, gcd and Lark agree on every string.
#[test]
fn dynamic_lexing_agrees_with_lark_both_ways() {
    let Some(mut lark) = Lark::start() else {
        return;
    };
    // A comment that runs over names: an ignored lexeme ends at its
    // longest match only, as in Lark.
    let pieces = ["a", "if", "ab", "(", ")", ",", "x", "1", "9", "#"];
    let extra = format!("{REGEX_TERMINALS}COMMENT: /#[a-z ]*/\n%ignore COMMENT\n");
    let dynamic = Config::default().lexing(Lexing::Dynamic);
    let (grammars, strings, accepted) =
        compare_random(&mut lark, 400, OVERLAPPING, &extra, &pieces, true, &dynamic);
    eprintln!("{grammars} grammars, {strings} strings, {accepted} in both languages");
    assert!(
        grammars >= 200 && strings >= 5000 && accepted >= 1500,
        "{grammars} {strings} {accepted}"
    );
}

/// Budgeted samples from every real grammar gcd compiles parse with Lark,
/// and so do their one-edit mutations that gcd accepts. The grammars that
/// maximal munch refuses (C, SQL, CSV, Lark's own grammar) are lexed
/// dynamically and checked with Lark's `dynamic_complete`.
#[test]
fn samples_of_real_grammars_parse_with_lark() {
    let Some(root) = common::data::shared_data() else {
        return;
    };
    let Some(mut lark) = Lark::start() else {
        return;
    };
    let mut files = Vec::new();
    common::data::lark_files(&root.join("grammars"), &mut files);
    let (mut grammars, mut samples, mut near_misses, mut dynamic) = (0, 0, 0, 0);
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let name = file.strip_prefix(&root).unwrap().display().to_string();
        // Grammars maximal munch refuses for a lexical hazard are lexed
        // dynamically, and then only every split is the language.
        let mut lexing = Lexing::MaximalMunch;
        let compiled = common::data::parse_lark_file(file, &text)
            .map_err(|e| e.to_string())
            .and_then(|g| match CompiledGrammar::new(&g) {
                Err(e) if e.kind() == gcd_core::DiagnosticKind::LexicalHazard => {
                    lexing = Lexing::Dynamic;
                    CompiledGrammar::with_config(&g, &Config::default().lexing(lexing))
                        .map(|c| (g, c))
                        .map_err(|e| e.to_string())
                }
                c => c.map(|c| (g, c)).map_err(|e| e.to_string()),
            });
        let (g, compiled) = match compiled {
            Ok(x) => x,
            // Refusals are lark_files.rs's business.
            Err(e) => {
                eprintln!("{name}: gcd refuses it: {}", e.lines().next().unwrap_or(""));
                continue;
            }
        };
        let start = g.nonterminal(g.start).name.clone();
        let literals: Vec<String> = (0..g.terminals.len())
            .filter_map(|i| match &g.terminals[i].pattern {
                gcd_core::grammar::TerminalPattern::Literal { text, .. } => Some(text.clone()),
                _ => None,
            })
            .collect();
        let mut pieces: Vec<&str> = literals.iter().map(String::as_str).collect();
        pieces.extend([" ", "\n", "a", "1"]);
        let mut rng = StdRng::seed_from_u64(grammars as u64);
        let gcd = ByteFed::new(compiled, &pieces, &mut rng);
        // Lark reads text: a sample that is not UTF-8 (a bytes regex) is left out.
        let mut drawn: Vec<String> = (0..3)
            .filter_map(|_| gcd.sample(&mut rng, 12))
            .filter_map(|s| String::from_utf8(s).ok())
            .collect();
        let complete = drawn.len();
        // Near misses that gcd still accepts must parse too.
        for s in drawn.clone() {
            for _ in 0..4 {
                let mut t = s.clone().into_bytes();
                let piece = pieces[rng.random_range(0..pieces.len())].as_bytes();
                let at = rng.random_range(0..=t.len());
                if rng.random_bool(0.5) && !t.is_empty() {
                    t.remove(at.min(t.len() - 1));
                } else {
                    t.splice(at..at, piece.iter().copied());
                }
                if gcd.accepts(&t) == Some(true) {
                    drawn.extend(String::from_utf8(t));
                }
            }
        }
        let lexer = match lexing {
            Lexing::Dynamic => "dynamic_complete",
            _ => "dynamic",
        };
        let verdicts = match lark.verdicts(&text, &start, lexer, &drawn) {
            Ok(v) => v,
            // Lark cannot resolve these imports from text alone.
            Err(e) if text.contains("%import .") => {
                eprintln!("{name}: Lark cannot load it here ({e})");
                continue;
            }
            // llguidance's dialect, which gcd reads on purpose (terminals
            // that match "" as optional uses, `x{m,n}`): not Lark's.
            Err(e)
                if e.contains("Empty terminals are not allowed")
                    && name.contains("lark-llguidance/") =>
            {
                eprintln!("{name}: llguidance's dialect, which Lark does not read ({e})");
                continue;
            }
            Err(e) => panic!("{name}: gcd compiles it, Lark refuses it: {e}"),
        };
        for (s, ok) in drawn.iter().zip(verdicts) {
            // `dynamic` takes each terminal's longest match; every split
            // is what the definition of the language allows.
            let ok = ok
                || lexing == Lexing::MaximalMunch
                    && lark
                        .verdicts(&text, &start, "dynamic_complete", std::slice::from_ref(s))
                        .unwrap()[0];
            assert!(ok, "{name}: Lark does not parse {s:?}, which gcd accepts");
        }
        eprintln!(
            "{name}: {complete} samples and {} near misses gcd accepts parse{}",
            drawn.len() - complete,
            if lexing == Lexing::Dynamic {
                " (lexed dynamically)"
            } else {
                ""
            }
        );
        grammars += 1;
        dynamic += usize::from(lexing == Lexing::Dynamic);
        samples += complete;
        near_misses += drawn.len() - complete;
    }
    assert!(
        grammars >= 31 && samples >= 90 && near_misses >= 25 && dynamic >= 8,
        "{grammars} {samples} {near_misses} {dynamic}"
    );
}

/// Grammar files importing each other (Lark's composition example: a
/// storage format of CSV and JSON blocks, `%import .csv.start -> csv__start`)
/// read beside each other by gcd's `FileImports` and by Lark: both agree on
/// samples, their mutations and random strings (dynamic lexing, which the
/// CSV grammar needs, is every split on both sides).
#[test]
fn imported_grammar_files_agree_with_lark() {
    let Some(root) = common::data::shared_data() else {
        return;
    };
    let Some(mut lark) = Lark::start() else {
        return;
    };
    let examples = root.join("grammars/lark-upstream/examples");
    let dir = std::env::temp_dir().join(format!("gcd-imports-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Shared data names them after their folder; Lark's example imports
    // them by their own names.
    for name in ["csv", "json", "storage"] {
        std::fs::copy(
            examples.join(format!("composition-{name}.lark")),
            dir.join(format!("{name}.lark")),
        )
        .unwrap();
    }
    struct Plain;
    impl gcd_core::lark::Embeds for Plain {}
    let path = dir.join("storage.lark");
    let text = std::fs::read_to_string(&path).unwrap();
    let files = gcd_core::lark::FileImports {
        dir: dir.clone(),
        inner: &Plain,
    };
    let g = gcd_core::lark::parse_with_embeds(&text, &Default::default(), &files)
        .and_then(|b| b.build())
        .unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = g.nonterminals.iter().map(|n| n.name.as_str()).collect();
    assert!(
        names.contains(&"csv__start") && names.contains(&"json__value"),
        "{names:?}"
    );
    let compiled =
        CompiledGrammar::with_config(&g, &Config::default().lexing(Lexing::Dynamic)).unwrap();
    let pieces = [
        "#", " ", "\n", "a", "b1", "1", "2.5", ",", "{", "}", "[", "]", ":", "\"x\"", "true",
    ];
    let (mut strings, mut accepted) = (0, 0);
    for seed in 0..6 {
        let mut rng = StdRng::seed_from_u64(seed);
        let gcd = ByteFed::new(compiled.clone(), &pieces, &mut rng);
        let candidates = candidate_strings(&gcd, &pieces, &mut rng);
        let lark_says = lark
            .verdicts_in_file(&text, Some(&path), "start", "dynamic_complete", &candidates)
            .unwrap_or_else(|e| panic!("Lark cannot load the composed grammar: {e}"));
        for (s, lark_ok) in candidates.iter().zip(lark_says) {
            let Some(gcd_ok) = gcd.accepts(s.as_bytes()) else {
                continue;
            };
            assert_eq!(gcd_ok, lark_ok, "{s:?}: gcd {gcd_ok}, Lark {lark_ok}");
            strings += 1;
            accepted += usize::from(gcd_ok);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("{strings} strings compared, {accepted} accepted by both");
    assert!(strings >= 60 && accepted >= 20, "{strings} {accepted}");
}

/// gcd's `python` terminal library against Lark's `python.lark` terminals,
/// one lexeme per string (so lexing cannot differ): names, strings with
/// prefixes, escapes and triple quotes, numbers of every base.
#[test]
fn python_terminals_agree_with_lark() {
    let Some(mut lark) = Lark::start() else {
        return;
    };
    let terms = "NAME, STRING, LONG_STRING, DEC_NUMBER, HEX_NUMBER, OCT_NUMBER, BIN_NUMBER, \
                 FLOAT_NUMBER, IMAG_NUMBER";
    let text = format!(
        "start: {}\n%import python ({terms})\n",
        terms.replace(", ", " | ")
    );
    let g = parse_grammar(&text).unwrap_or_else(|e| panic!("{e}"));
    let compiled = CompiledGrammar::new(&g).unwrap_or_else(|e| panic!("{e}"));
    let pieces = [
        "0", "1", "7", "_", "x", "b", "o", "e", "j", "J", ".", "+", "\"", "'", "\\", "r", "u", "f",
        "\n", "é", "\"\"\"",
    ];
    let mut rng = StdRng::seed_from_u64(7);
    let gcd = ByteFed::new(compiled, &pieces, &mut rng);
    let mut strings: Vec<String> = [
        "x1",
        "_é",
        "1_000",
        "0",
        "00",
        "0x1F",
        "0o17",
        "0b101",
        "1e5",
        ".5",
        "1.",
        "1_0.5e-3",
        "3j",
        "1.5J",
        "r\"a\\\"\"",
        "\"a\\\\\"",
        "rb'x'",
        "f\"\"",
        "\"\"\"a\"b\"\"\"",
        "'''x\ny'''",
        "\"\"\"\"\"\"",
        "\"a\"b\"",
        "\"\"\"a\"\"\"\"",
        "01",
        "1__0",
        "0x",
        "bu\"a\"",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for _ in 0..400 {
        let n = rng.random_range(1..7);
        strings.push(
            (0..n)
                .map(|_| pieces[rng.random_range(0..pieces.len())])
                .collect(),
        );
    }
    for _ in 0..60 {
        if let Some(s) = gcd.sample(&mut rng, 6) {
            strings.push(String::from_utf8(s).unwrap());
        }
    }
    strings.sort();
    strings.dedup();
    let verdicts = lark
        .verdicts(&text, "start", "dynamic_complete", &strings)
        .unwrap_or_else(|e| panic!("Lark refuses {text}: {e}"));
    let mut accepted = 0;
    for (s, lark_ok) in strings.iter().zip(verdicts) {
        let gcd_ok = gcd.accepts(s.as_bytes()).unwrap();
        assert_eq!(gcd_ok, lark_ok, "{s:?}: gcd {gcd_ok}, Lark {lark_ok}");
        accepted += usize::from(gcd_ok);
    }
    eprintln!("{} strings, {accepted} accepted by both", strings.len());
    assert!(accepted >= 60, "{accepted}");
}
