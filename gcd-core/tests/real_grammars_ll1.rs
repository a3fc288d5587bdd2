//! Every Lark grammar of the shared data either compiles (LL(1) after the
//! transforms, or generalized, with no lexical hazard) or fails with
//! diagnostics naming a real problem. The table below is what we observed; a
//! change shows here. Those refused for a lexical hazard compile under
//! dynamic lexing. Under `Config::ll1_only` the generalized ones fail
//! with their conflicts.

mod common;

use gcd_core::compiled::{CompiledGrammar, Config, Lexing};
use gcd_core::DiagnosticKind;

/// Ok(true) for LL(1), Ok(false) for generalized, or the first diagnostic's kind.
type Verdict = Result<bool, DiagnosticKind>;
const LL1: Verdict = Ok(true);
const GENERALIZED: Verdict = Ok(false);

/// (file, verdict).
const EXPECTED: &[(&str, Verdict)] = &[
    (
        "lark-llguidance/lark.lark",
        Err(DiagnosticKind::LexicalHazard),
    ),
    // TEXT matches "" and is read as optional; `(text | ...)+` then
    // repeats its non-empty part, and two TEXTs in a row need dynamic lexing.
    (
        "lark-llguidance/rfc.lark",
        Err(DiagnosticKind::LexicalHazard),
    ),
    (
        "lark-syncode/c_grammar.lark",
        Err(DiagnosticKind::LexicalHazard),
    ),
    ("lark-syncode/calc_grammar.lark", LL1),
    ("lark-syncode/go_grammar.lark", GENERALIZED),
    (
        "lark-syncode/invariants.lark",
        Err(DiagnosticKind::LexicalHazard),
    ),
    ("lark-syncode/java_grammar.lark", GENERALIZED),
    ("lark-syncode/json_grammar.lark", LL1),
    ("lark-syncode/prover9_grammar.lark", GENERALIZED),
    (
        "lark-syncode/python_grammar.lark",
        Err(DiagnosticKind::Unsupported),
    ),
    (
        "lark-syncode/sql_grammar.lark",
        Err(DiagnosticKind::LexicalHazard),
    ),
    ("lark-syncode/tiny_grammar.lark", LL1),
    (
        "lark-upstream/examples-inline/advanced-_json_parser--json_grammar.lark",
        LL1,
    ),
    (
        "lark-upstream/examples-inline/advanced-conf_earley--Lark-line19.lark",
        LL1,
    ),
    (
        "lark-upstream/examples-inline/advanced-conf_lalr--Lark-line22.lark",
        LL1,
    ),
    (
        "lark-upstream/examples-inline/advanced-prioritizer--grammar.lark",
        Err(DiagnosticKind::LexicalHazard),
    ),
    (
        "lark-upstream/examples-inline/advanced-qscintilla_json--grammar.lark",
        LL1,
    ),
    (
        "lark-upstream/examples-inline/advanced-scan_json--json_grammar.lark",
        LL1,
    ),
    (
        "lark-upstream/examples-inline/advanced-tree_forest_transformer--grammar.lark",
        LL1,
    ),
    (
        "lark-upstream/examples-inline/calc--calc_grammar.lark",
        GENERALIZED,
    ),
    (
        "lark-upstream/examples-inline/fruitflies--grammar.lark",
        LL1,
    ),
    (
        "lark-upstream/examples-inline/json_parser--json_grammar.lark",
        LL1,
    ),
    (
        "lark-upstream/examples-inline/turtle_dsl--turtle_grammar.lark",
        LL1,
    ),
    (
        "lark-upstream/examples/composition-csv.lark",
        Err(DiagnosticKind::LexicalHazard),
    ),
    ("lark-upstream/examples/composition-json.lark", LL1),
    ("lark-upstream/examples/standalone-json.lark", LL1),
    (
        "lark-upstream/grammars/lark.lark",
        Err(DiagnosticKind::LexicalHazard),
    ),
    // Lookarounds compiled within the lexeme.
    ("lark-upstream/examples/grammars-verilog.lark", GENERALIZED),
    (
        "lark-upstream/examples-inline/advanced-dynamic_complete--GRAMMAR.lark",
        LL1,
    ),
    (
        "lark-upstream/examples/advanced-template_lark.lark",
        Err(DiagnosticKind::LexicalHazard),
    ),
    (
        "lark-upstream/grammars/python.lark",
        Err(DiagnosticKind::Unsupported),
    ),
    ("truncproof/c_subset.lark", LL1),
    ("truncproof/json_rfc8259.lark", LL1),
];

#[test]
fn real_grammars_compile_or_name_the_problem() {
    let Some(root) = common::data::shared_data() else {
        return;
    };
    let mut failures = Vec::new();
    let mut lexed_dynamically = 0;
    for (file, expected) in EXPECTED {
        let path = root.join("grammars").join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let parse = || common::data::parse_lark_file(&path, &text);
        let got = parse().and_then(|g| CompiledGrammar::new(&g));
        if let Ok(c) = &got {
            // Strict mode refuses exactly the generalized ones, by their conflicts.
            let g = parse().unwrap();
            let strict = CompiledGrammar::with_config(&g, &Config::default().ll1_only(true));
            match (c.is_ll1(), strict) {
                (true, Ok(_)) => {}
                (false, Err(e)) if e.has_kind(DiagnosticKind::Conflict) => {
                    assert_eq!(e.diagnostics().len(), c.conflicts().len(), "{file}")
                }
                // Unused rules are refused first (and are warnings otherwise).
                (false, Err(e)) if e.has_kind(DiagnosticKind::Unreachable) => {
                    assert_eq!(e.diagnostics().len(), c.warnings().len(), "{file}")
                }
                (ll1, strict) => failures.push(format!(
                    "{file}: is_ll1 {ll1} but strict gives {:?}",
                    strict.map(|_| ()).map_err(|e| e.to_string())
                )),
            }
        }
        let got_kind = got.as_ref().map(|c| c.is_ll1()).map_err(|e| e.kind());
        let first = got
            .as_ref()
            .err()
            .map(|e| e.diagnostics()[0].to_string())
            .unwrap_or_default();
        eprintln!(
            "{file:<80} {:?} {}",
            got_kind,
            first.lines().next().unwrap_or("")
        );
        if got_kind != *expected {
            failures.push(format!(
                "{file}: expected {expected:?}, got {got_kind:?}: {first}"
            ));
        }
        // What maximal munch refuses for a lexical hazard, dynamic lexing takes.
        if got_kind == Err(DiagnosticKind::LexicalHazard) {
            let g = parse().unwrap();
            let dynamic = Config::default().lexing(Lexing::Dynamic);
            match CompiledGrammar::with_config(&g, &dynamic) {
                Ok(_) => lexed_dynamically += 1,
                Err(e) => failures.push(format!("{file}: refused under dynamic lexing: {e}")),
            }
        }
        // Every diagnostic of a file read from text has a position.
        if let Err(e) = &got {
            for d in e.diagnostics() {
                if matches!(
                    d.kind,
                    DiagnosticKind::Conflict
                        | DiagnosticKind::LexicalHazard
                        | DiagnosticKind::Unsupported
                ) {
                    assert!(
                        d.span.is_some()
                            || d.notes.iter().any(|(s, _)| s.is_some())
                            || d.message.contains("__"),
                        "{file}: no position in {d}"
                    );
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The maximal-munch refusals, rfc.lark among them, all load dynamically.
    assert_eq!(lexed_dynamically, 9);
}
