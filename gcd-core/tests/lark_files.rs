//! Loads every real Lark grammar in `../shared/data/grammars` with the
//! Lark-subset reader and checks that each one either loads or fails only
//! because of constructs gcd does not support (and that really are in the
//! file). Run with `--nocapture` to see the table.

mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;

use gcd_core::grammar::{Grammar, TerminalPattern};
use gcd_core::lark::parse_grammar;
use gcd_core::lexer::TerminalDfa;
use gcd_core::{Diagnostic, DiagnosticKind, GrammarError};

fn grammars_dir() -> Option<PathBuf> {
    let dir = gcd_core::shared_data::path("grammars")?;
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("SKIPPED: shared grammar folder {} is absent", dir.display());
        None
    }
}

/// What we expect of each file.
#[derive(Debug, PartialEq)]
enum Expect {
    Loads,
    /// Fails only with Unsupported diagnostics, naming these constructs.
    Unsupported(&'static [&'static str]),
    /// Not a grammar with rules (a terminal library or a licence text).
    NotAGrammar,
}

use Expect::*;

const EXPECTED: &[(&str, Expect)] = &[
    ("lark-llguidance/lark.lark", Loads),
    // `TEXT: (...)*` can be empty; llguidance tolerates empty lexemes, gcd does not.
    // Its TEXT matches the empty string: read as optional, as llguidance does.
    ("lark-llguidance/rfc.lark", Loads),
    ("lark-syncode/c_grammar.lark", Loads),
    ("lark-syncode/calc_grammar.lark", Loads),
    ("lark-syncode/go_grammar.lark", Loads),
    ("lark-syncode/invariants.lark", Loads),
    ("lark-syncode/java_grammar.lark", Loads),
    ("lark-syncode/json_grammar.lark", Loads),
    ("lark-syncode/prover9_grammar.lark", Loads),
    (
        "lark-syncode/python_grammar.lark",
        Unsupported(&["%declare"]),
    ),
    ("lark-syncode/sql_grammar.lark", Loads),
    ("lark-syncode/tiny_grammar.lark", Loads),
    ("lark-upstream/LICENSE.lark", NotAGrammar),
    (
        "lark-upstream/examples/advanced-python2.lark",
        Unsupported(&["%declare"]),
    ),
    ("lark-upstream/examples/advanced-template_lark.lark", Loads),
    ("lark-upstream/examples/composition-csv.lark", Loads),
    ("lark-upstream/examples/composition-json.lark", Loads),
    (
        "lark-upstream/examples/composition-storage.lark",
        Unsupported(&["%import (relative)"]),
    ),
    ("lark-upstream/examples/grammars-verilog.lark", Loads),
    ("lark-upstream/examples/standalone-json.lark", Loads),
    (
        "lark-upstream/examples-inline/advanced-_json_parser--json_grammar.lark",
        Loads,
    ),
    (
        "lark-upstream/examples-inline/advanced-conf_earley--Lark-line19.lark",
        Loads,
    ),
    (
        "lark-upstream/examples-inline/advanced-conf_lalr--Lark-line22.lark",
        Loads,
    ),
    (
        "lark-upstream/examples-inline/advanced-create_ast--Lark-line83.lark",
        Loads,
    ),
    (
        "lark-upstream/examples-inline/advanced-custom_lexer--Lark-line28.lark",
        Unsupported(&["%declare"]),
    ),
    (
        "lark-upstream/examples-inline/advanced-dynamic_complete--GRAMMAR.lark",
        Loads,
    ),
    (
        "lark-upstream/examples-inline/advanced-prioritizer--grammar.lark",
        Loads,
    ),
    (
        "lark-upstream/examples-inline/advanced-qscintilla_json--grammar.lark",
        Loads,
    ),
    (
        "lark-upstream/examples-inline/advanced-scan_json--json_grammar.lark",
        Loads,
    ),
    (
        "lark-upstream/examples-inline/advanced-templates--grammar.lark",
        Loads,
    ),
    (
        "lark-upstream/examples-inline/advanced-tree_forest_transformer--grammar.lark",
        Loads,
    ),
    (
        "lark-upstream/examples-inline/calc--calc_grammar.lark",
        Loads,
    ),
    (
        "lark-upstream/examples-inline/fruitflies--grammar.lark",
        Loads,
    ),
    (
        "lark-upstream/examples-inline/indented_tree--tree_grammar.lark",
        Unsupported(&["%declare"]),
    ),
    (
        "lark-upstream/examples-inline/json_parser--json_grammar.lark",
        Loads,
    ),
    (
        "lark-upstream/examples-inline/turtle_dsl--turtle_grammar.lark",
        Loads,
    ),
    // Lark's own terminal library: no rules.
    ("lark-upstream/grammars/common.lark", NotAGrammar),
    ("lark-upstream/grammars/lark.lark", Loads),
    (
        "lark-upstream/grammars/python.lark",
        Unsupported(&["%declare"]),
    ),
    // A terminal library without rules.
    ("lark-upstream/grammars/unicode.lark", NotAGrammar),
    ("truncproof/c_subset.lark", Loads),
    ("truncproof/json_rfc8259.lark", Loads),
];

/// The source text a diagnostic points at (from its start to the end of that line).
fn pointed_text<'s>(src: &'s str, d: &Diagnostic) -> &'s str {
    let Some(span) = d.span else { return "" };
    let rest = &src[span.byte_start..];
    &rest[..rest.find('\n').unwrap_or(rest.len())]
}

/// Which construct an Unsupported diagnostic names, after checking that the
/// source really has it where the diagnostic points.
fn unsupported_construct(src: &str, d: &Diagnostic) -> Result<&'static str, String> {
    let at = pointed_text(src, d);
    let m = &d.message;
    let (name, present) = if m.contains("`%declare`") {
        ("%declare", at.starts_with("%declare"))
    } else if m.contains("relative imports") {
        (
            "%import (relative)",
            at.starts_with("%import") && at["%import".len()..].trim_start().starts_with('.'),
        )
    } else if m.contains("`%import") {
        (
            "%import (not common)",
            at.starts_with("%import") && !at.contains("common"),
        )
    } else if m.contains("backreferences are not supported") {
        let is_backref = at.starts_with('\\') && at[1..].starts_with(|c: char| c.is_ascii_digit());
        ("backreference", is_backref)
    } else {
        return Err(format!("unexpected Unsupported diagnostic: {d}"));
    };
    if present {
        Ok(name)
    } else {
        Err(format!(
            "diagnostic names {name} but the source there reads {at:?}: {d}"
        ))
    }
}

/// What a file did, in the terms of [`Expect`].
#[derive(Debug, PartialEq)]
enum Observed {
    Loads,
    Unsupported(Vec<String>),
    EmptyMatch(Vec<String>),
    /// Some other error (the message).
    Other(String),
}

impl Expect {
    fn matches(&self, obs: &Observed) -> bool {
        let same = |a: &[&str], b: &[String]| a.iter().copied().eq(b.iter().map(String::as_str));
        match (self, obs) {
            (Loads, Observed::Loads) => true,
            (Unsupported(a), Observed::Unsupported(b)) => same(a, b),
            // Anything but success: there is nothing to load.
            (NotAGrammar, obs) => *obs != Observed::Loads,
            _ => false,
        }
    }
}

fn observe(src: &str, res: &Result<Grammar, GrammarError>) -> (String, Observed) {
    let e = match res {
        Ok(g) => {
            let line = format!(
                "loaded ({} terminals, {} productions)",
                g.terminals.len(),
                g.productions.len()
            );
            return (line, Observed::Loads);
        }
        Err(e) => e,
    };
    let all = |k: DiagnosticKind| e.diagnostics().iter().all(|d| d.kind == k);
    if all(DiagnosticKind::Unsupported) {
        let mut names = BTreeSet::new();
        for d in e.diagnostics() {
            match unsupported_construct(src, d) {
                Ok(n) => {
                    names.insert(n.to_string());
                }
                Err(msg) => return (msg.clone(), Observed::Other(msg)),
            }
        }
        let names: Vec<String> = names.into_iter().collect();
        (
            format!("unsupported: {}", names.join(", ")),
            Observed::Unsupported(names),
        )
    } else if all(DiagnosticKind::EmptyMatch) {
        let names: Vec<String> = e
            .diagnostics()
            .iter()
            .map(|d| d.message.split('`').nth(1).unwrap_or("?").to_string())
            .collect();
        (
            format!("empty-matching terminal: {}", names.join(", ")),
            Observed::EmptyMatch(names),
        )
    } else {
        let kinds: BTreeSet<_> = e
            .diagnostics()
            .iter()
            .map(|d| format!("{:?}", d.kind))
            .collect();
        let first = e.diagnostics()[0].to_string();
        (
            format!("errors {kinds:?}: {first}"),
            Observed::Other(e.to_string()),
        )
    }
}

#[test]
fn real_grammar_files() {
    let Some(dir) = grammars_dir() else { return };
    let mut files = Vec::new();
    common::data::lark_files(&dir, &mut files);
    assert!(!files.is_empty(), "no .lark files under {}", dir.display());

    let mut failures = Vec::new();
    println!("{:<80} status", "file");
    for f in &files {
        let name = f
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let src = std::fs::read_to_string(f).unwrap();
        let res = common::data::parse_lark_file(f, &src);
        let (line, observed) = observe(&src, &res);
        println!("{name:<80} {line}");
        match EXPECTED.iter().find(|(n, _)| *n == name).map(|(_, e)| e) {
            Some(exp) if exp.matches(&observed) => {}
            Some(exp) => failures.push(format!("{name}: expected {exp:?}, observed {observed:?}")),
            None if matches!(observed, Observed::Loads | Observed::Unsupported(_)) => {
                eprintln!("note: {name} is new; add it to EXPECTED");
            }
            None => failures.push(format!("{name}: new file fails with {observed:?}")),
        }
        // What loads must compile to the engine's terminal DFAs.
        if let Ok(g) = &res {
            for t in &g.terminals {
                let dfa = match &t.pattern {
                    TerminalPattern::Intersection(rs) => TerminalDfa::intersection(rs),
                    p => TerminalDfa::new(&p.to_regex()),
                };
                if let Err(e) = dfa {
                    failures.push(format!(
                        "{name}: terminal {} does not build a DFA: {e:?}",
                        t.name
                    ));
                }
            }
        }
    }
    for (name, _) in EXPECTED {
        if !files.iter().any(|f| {
            f.strip_prefix(&dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
                == *name
        }) {
            failures.push(format!("{name}: listed in EXPECTED but missing"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn rfc_loads_with_dynamic_lexing() {
    let Some(dir) = grammars_dir() else { return };
    let src = std::fs::read_to_string(dir.join("lark-llguidance/rfc.lark")).unwrap();
    let g = parse_grammar(&src).unwrap_or_else(|e| panic!("{e}"));
    let text = g.terminals.iter().find(|t| t.name == "TEXT").unwrap();
    assert!(
        matches!(&text.pattern, TerminalPattern::Intersection(rs) if rs.len() == 2),
        "{:?}",
        text.pattern
    );
    // It then repeats something that can be empty, `(text | element44 |
    // ...)+`: the repetition takes the non-empty part (same language).
    // Two `text`s in a row then need Lark's dynamic lexing, which is named.
    let e = gcd_core::CompiledGrammar::new(&g).unwrap_err().to_string();
    assert!(
        e.contains("maximal munch merges `TEXT` with the `TEXT`") && e.contains("--lexing dynamic"),
        "{e}"
    );
    let dynamic = gcd_core::compiled::Config::default().lexing(gcd_core::compiled::Lexing::Dynamic);
    let c = gcd_core::CompiledGrammar::with_config(&g, &dynamic).unwrap_or_else(|e| panic!("{e}"));
    assert!(c
        .report()
        .rewrites
        .iter()
        .any(|r| r.kind == gcd_core::analysis::transform::RewriteKind::NonEmptyRepetition));
}

#[test]
fn truncproof_json_loads() {
    let Some(dir) = grammars_dir() else { return };
    let src = std::fs::read_to_string(dir.join("truncproof/json_rfc8259.lark")).unwrap();
    let g = parse_grammar(&src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(g.nonterminal(g.start).name, "start");
    let t = |n: &str| {
        g.terminals
            .iter()
            .find(|t| t.name == n)
            .unwrap_or_else(|| panic!("no {n}"))
    };
    assert_eq!(
        t("MINUS").pattern,
        TerminalPattern::Literal {
            text: "-".into(),
            case_insensitive: false
        }
    );
    assert!(t("_BEGIN_ARR").hidden);
    assert_eq!(t("INT").pattern.to_regex(), "0|[1-9][0-9]*");
    assert_eq!(t("EXP").pattern.to_regex(), "(?:e|E)(?:\\+|\\-)?[0-9]+");
    for lit in ["true", "false", "null"] {
        assert!(g.terminals.iter().any(|t| t.pattern
            == TerminalPattern::Literal {
                text: lit.into(),
                case_insensitive: false
            }));
    }
    let aliases: BTreeSet<_> = g
        .productions
        .iter()
        .filter_map(|p| p.alias.clone())
        .collect();
    assert_eq!(
        aliases,
        ["false", "null", "true"]
            .into_iter()
            .map(String::from)
            .collect()
    );
    // DIGIT is only used inside other terminals: left out, as Lark does.
    assert!(!g.terminals.iter().any(|t| t.name == "DIGIT"));
}

#[test]
fn mutated_real_grammars_never_panic() {
    use rand::{Rng, SeedableRng};
    let Some(dir) = grammars_dir() else { return };
    let mut files = Vec::new();
    common::data::lark_files(&dir, &mut files);
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x6cd);
    let alphabet: Vec<char> = "()[]{}|:?!*+~.\"/\\%_-> \n\taZ0#,é".chars().collect();
    for f in &files {
        let src: Vec<char> = std::fs::read_to_string(f).unwrap().chars().collect();
        for _ in 0..60 {
            let mut s = src.clone();
            for _ in 0..rng.random_range(1..8) {
                let at = rng.random_range(0..=s.len());
                match rng.random_range(0..4) {
                    0 => s.insert(at, alphabet[rng.random_range(0..alphabet.len())]),
                    1 if at < s.len() => {
                        s.remove(at);
                    }
                    2 if at < s.len() => s[at] = alphabet[rng.random_range(0..alphabet.len())],
                    _ => s.truncate(at),
                }
            }
            let text: String = s.into_iter().collect();
            let _ = parse_grammar(&text);
        }
    }
}
