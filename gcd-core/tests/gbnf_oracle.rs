//! An oracle for the GBNF front end that shares nothing with gcd but the
//! grammar text: XGrammar's GBNF engine (`pip install --no-deps xgrammar
//! apache-tvm-ffi numpy pydantic`), run in a Python process
//! (`tests/oracle/gbnf_oracle.py`).
//!
//! On random grammars (the generator of `gbnf_props.rs`, without `.`,
//! which XGrammar does not read) and on hand-written ones (JSON as
//! llama.cpp writes it, arithmetic, the README's examples), strings drawn
//! from gcd's masks, their one-byte and one-piece edits (invalid UTF-8
//! included) and random strings get the same verdict from both engines:
//! GBNF's meaning has no lexer, so there is no direction in which one may
//! accept more.
//!
//! One difference is gcd's by design: bytes `ED A0..BF ..` encode a UTF-16
//! surrogate, which is not UTF-8, and gcd refuses them where XGrammar
//! (like llama.cpp) decodes them as a code point; they are counted apart.
//!
//! XGrammar's reader differs from llama.cpp's in three places, which the
//! grammars here avoid: it has no `.`, no `{,n}`, and no empty first
//! alternative (`ws ::= | " "`; written `ws ::= "" | " "` here).
//!
//! Without XGrammar the test skips with a message, except under CI (`CI`
//! set), whose script installs it. `GCD_XGRAMMAR_PYTHON` names the Python
//! to run (default `python3`).

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use common::byte_fed::ByteFed;
use gcd_core::compiled::CompiledGrammar;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

struct XGrammar {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

fn python() -> String {
    std::env::var("GCD_XGRAMMAR_PYTHON").unwrap_or_else(|_| "python3".into())
}

impl XGrammar {
    fn start() -> Option<XGrammar> {
        let has = Command::new(python())
            .args([
                "-c",
                "import importlib.util, sys; sys.exit(importlib.util.find_spec('xgrammar') is None)",
            ])
            .status()
            .is_ok_and(|s| s.success());
        if !has {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must run the XGrammar oracle: `pip install --no-deps xgrammar ...` (see .ci/run)"
            );
            eprintln!("SKIP: python3 with xgrammar not found (see this file's docs)");
            return None;
        }
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/oracle/gbnf_oracle.py");
        let mut child = Command::new(python())
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Some(XGrammar {
            child,
            stdin,
            stdout,
        })
    }

    /// XGrammar's verdict on each string, or why it refuses the grammar.
    fn verdicts(&mut self, grammar: &str, strings: &[Vec<u8>]) -> Result<Vec<bool>, String> {
        let hex: Vec<String> = (strings.iter())
            .map(|s| s.iter().map(|b| format!("{b:02x}")).collect())
            .collect();
        let request = serde_json::json!({ "grammar": grammar, "strings": hex });
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

impl Drop for XGrammar {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Samples, their one-edit mutations (a piece or a lone byte inserted,
/// removed or replaced) and random strings of the pieces.
fn candidate_strings(
    gcd: &ByteFed,
    pieces: &[&str],
    rng: &mut StdRng,
    samples: usize,
) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for _ in 0..samples {
        let slack = rng.random_range(0..8);
        out.extend(gcd.sample(rng, slack));
    }
    for i in 0..out.len() {
        for _ in 0..4 {
            let mut s = out[i].clone();
            let piece: Vec<u8> = match rng.random_range(0..4) {
                0 => vec![rng.random_range(0x80..=0xFFu8)],
                _ => pieces[rng.random_range(0..pieces.len())]
                    .as_bytes()
                    .to_vec(),
            };
            let at = rng.random_range(0..=s.len());
            match rng.random_range(0..3) {
                0 if !s.is_empty() => {
                    s.remove(at.min(s.len() - 1));
                }
                1 => {
                    s.splice(at..at, piece);
                }
                _ => {
                    let end = (at + 1).min(s.len());
                    s.splice(at..end, piece);
                }
            }
            out.push(s);
        }
    }
    for _ in 0..6 {
        let n = rng.random_range(0..6);
        out.push(
            (0..n)
                .flat_map(|_| pieces[rng.random_range(0..pieces.len())].bytes())
                .collect(),
        );
    }
    out.sort();
    out.dedup();
    out
}

#[derive(Default, Debug)]
struct Tally {
    grammars: usize,
    refused_by_gcd: usize,
    refused_by_gcd_only: usize,
    /// Strings XGrammar accepts but that encode a UTF-16 surrogate, which
    /// is not UTF-8: gcd refuses them, by design.
    surrogates_refused: usize,
    refused_by_xgrammar: usize,
    strings: usize,
    accepted: usize,
    disagreements: Vec<String>,
}

/// Compares both engines on one grammar.
fn compare(
    xg: &mut XGrammar,
    text: &str,
    pieces: &[&str],
    rng: &mut StdRng,
    samples: usize,
    t: &mut Tally,
) {
    let compiled = gcd_core::gbnf::parse_grammar(text)
        .ok()
        .and_then(|g| CompiledGrammar::new(&g).ok());
    let Some(compiled) = compiled else {
        // gcd refuses left recursion it cannot remove and rules that
        // derive nothing: a limit, not a wrong verdict, but counted apart
        // when XGrammar takes the grammar.
        t.refused_by_gcd += 1;
        t.refused_by_gcd_only += usize::from(xg.verdicts(text, &[]).is_ok());
        return;
    };
    let gcd = ByteFed::new(compiled, pieces, rng);
    let candidates = candidate_strings(&gcd, pieces, rng, samples);
    let xg_says = match xg.verdicts(text, &candidates) {
        Ok(v) => v,
        Err(e) => {
            t.refused_by_xgrammar += 1;
            t.disagreements
                .push(format!("XGrammar refuses what gcd compiles: {e}\n{text}"));
            return;
        }
    };
    t.grammars += 1;
    for (s, xg_ok) in candidates.iter().zip(xg_says) {
        let Some(gcd_ok) = gcd.accepts(s) else {
            continue;
        };
        t.strings += 1;
        t.accepted += usize::from(gcd_ok && xg_ok);
        if !gcd_ok && xg_ok && encodes_surrogate(s) {
            // Not UTF-8 (RFC 3629 excludes U+D800..U+DFFF); XGrammar, like
            // llama.cpp, decodes such bytes as a code point anyway.
            t.surrogates_refused += 1;
        } else if gcd_ok != xg_ok {
            t.disagreements.push(format!(
                "{:?} ({}): gcd {gcd_ok}, XGrammar {xg_ok}\n{text}",
                String::from_utf8_lossy(s),
                s.iter().map(|b| format!("{b:02x}")).collect::<String>()
            ));
        }
    }
}

/// Whether `s` is not UTF-8 because it encodes a surrogate (`ED A0..BF`).
fn encodes_surrogate(s: &[u8]) -> bool {
    std::str::from_utf8(s).is_err() && s.windows(2).any(|w| w[0] == 0xED && w[1] >= 0xA0)
}

fn report(what: &str, t: &Tally) {
    eprintln!(
        "{what}: {} grammars compared ({} refused by gcd, {} of them taken by XGrammar; \
         {} refused by XGrammar only), {} strings, {} accepted by both, {} surrogate encodings \
         only XGrammar accepts, {} disagreements",
        t.grammars,
        t.refused_by_gcd,
        t.refused_by_gcd_only,
        t.refused_by_xgrammar,
        t.strings,
        t.accepted,
        t.surrogates_refused,
        t.disagreements.len()
    );
    for d in t.disagreements.iter().take(10) {
        eprintln!("--- {d}");
    }
}

#[test]
fn random_gbnf_grammars_agree_with_xgrammar() {
    let Some(mut xg) = XGrammar::start() else {
        return;
    };
    let pieces = ["a", "b", "c", "é", "è", "€", "ab"];
    let mut t = Tally::default();
    for seed in 0..250u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let (_, text) = common::gbnf::random_grammar(&mut rng, false);
        compare(&mut xg, &text, &pieces, &mut rng, 6, &mut t);
    }
    report("random grammars", &t);
    assert!(t.disagreements.is_empty(), "see the disagreements above");
    assert!(
        t.grammars >= 150 && t.strings >= 4000 && t.accepted >= 600,
        "{t:?}"
    );
}

/// JSON as llama.cpp's `grammars/json.gbnf` writes it.
const JSON: &str = r#"root   ::= object
value  ::= object | array | string | number | ("true" | "false" | "null") ws

object ::=
  "{" ws (
            string ":" ws value
    ("," ws string ":" ws value)*
  )? "}" ws

array  ::=
  "[" ws (
            value
    ("," ws value)*
  )? "]" ws

string ::=
  "\"" (
    [^"\\\x7F\x00-\x1F] |
    "\\" (["\\bfnrt] | "u" [0-9a-fA-F]{4}) # escapes
  )* "\"" ws

number ::= ("-"? ([0-9] | [1-9] [0-9]{0,15})) ("." [0-9]+)? ([eE] [-+]? [0-9] [1-9]{0,15})? ws

# Optional space: by convention, applied in this grammar after literal chars when allowed
ws ::= "" | " " | "\n" [ \t]{0,20}
"#;

const ARITHMETIC: &str = r#"root  ::= expr
expr  ::= term ([-+*/] term)*
term  ::= num | "(" space expr ")" space
num   ::= [0-9]+ space
space ::= [ \t\n]*
"#;

/// The README's generated grammar for a name/age array (bounds shrunk).
const NAME_AGE: &str = r#"char ::= [^"\\\x7F\x00-\x1F] | [\\] (["\\bfnrt] | "u" [0-9a-fA-F]{4})
item ::= "{" space item-name-kv "," space item-age-kv "}" space
item-age ::= ([0-9] | ([1-8] [0-9] | [9] [0-9]) | "1" ([0-4] [0-9] | [5] "0")) space
item-age-kv ::= "\"age\"" space ":" space item-age
item-name ::= "\"" char{1,10} "\"" space
item-name-kv ::= "\"name\"" space ":" space item-name
root ::= "[" space item ("," space item){0,3} "]" space
space ::= "" | " " | "\n" [ \t]{0,20}
"#;

const LIST: &str = "root ::= (\"- \" item)+\nitem ::= [^\\n]+ \"\\n\"\n";

/// Traps for a lexer: a class swallowing what follows, classes and
/// literals that overlap, non-ASCII characters sharing a first byte.
const TRAPS: &str = r#"root ::= word " " word tail
word ::= [a-z]+ [a-z] | "é" [é-ê]*
tail ::= "" | "!" tail | [a-z] "?"
"#;

#[test]
fn hand_written_gbnf_grammars_agree_with_xgrammar() {
    let Some(mut xg) = XGrammar::start() else {
        return;
    };
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "json",
            JSON,
            &[
                "{", "}", "[", "]", "\"", ",", ":", " ", "\n", "1", "-", "e", ".", "a", "\\", "u",
                "true", "é",
            ],
        ),
        (
            "arithmetic",
            ARITHMETIC,
            &["1", "2", "+", "*", "(", ")", " ", "\n", "x"],
        ),
        (
            "name-age",
            NAME_AGE,
            &[
                "[", "]", "{", "}", "\"name\"", "\"age\"", ":", ",", " ", "\"", "a", "1", "9", "0",
            ],
        ),
        ("list", LIST, &["- ", "a", "\n", "b", " ", "-"]),
        ("traps", TRAPS, &["a", "b", " ", "!", "?", "é", "ê", "è"]),
    ];
    let mut t = Tally::default();
    for (i, (name, text, pieces)) in cases.iter().enumerate() {
        let mut rng = StdRng::seed_from_u64(i as u64);
        let before = t.grammars;
        compare(&mut xg, text, pieces, &mut rng, 40, &mut t);
        if t.grammars != before + 1 {
            report(name, &t);
            panic!("{name} was refused");
        }
    }
    report("hand-written grammars", &t);
    assert!(t.disagreements.is_empty(), "see the disagreements above");
    assert!(t.strings >= 500 && t.accepted >= 100, "{t:?}");
}
