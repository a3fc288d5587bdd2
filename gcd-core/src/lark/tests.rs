//! Unit tests of the Lark front end, mostly through [`parse_grammar`]: each
//! construct, each diagnostic with its position, the limits, and the
//! `common` library.

mod regex;
mod templates;

use super::libraries::library_terminals;
use super::regex::BACKREFERENCE_MSG;
use super::*;
use crate::error::{DiagnosticKind, Pos};
use crate::grammar::{Expr, RuleKind, Symbol, Terminal, TerminalPattern};

fn ok(src: &str) -> Grammar {
    match parse_grammar(src) {
        Ok(g) => g,
        Err(e) => panic!("grammar failed to load:\n{e}\n--- source:\n{src}"),
    }
}

fn err(src: &str) -> GrammarError {
    match parse_grammar(src) {
        Ok(g) => panic!("grammar loaded but should not have: {g:#?}"),
        Err(e) => e,
    }
}

/// The first diagnostic, checked for kind, `line:col` and message parts.
#[track_caller]
fn assert_diag(e: &GrammarError, kind: DiagnosticKind, line: u32, col: u32, parts: &[&str]) {
    let d = e
        .diagnostics()
        .iter()
        .find(|d| d.kind == kind && d.span.is_some_and(|s| s.start == Pos { line, col }))
        .unwrap_or_else(|| panic!("no {kind:?} diagnostic at {line}:{col} in:\n{e}"));
    for p in parts {
        assert!(d.message.contains(p), "message {:?} lacks {p:?}", d.message);
    }
}

fn term<'g>(g: &'g Grammar, name: &str) -> &'g Terminal {
    g.terminals
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no terminal {name}: {g:#?}"))
}

fn regex(g: &Grammar, name: &str) -> String {
    term(g, name).pattern.to_regex()
}

/// Whole-string match with a regex-automata DFA, as the lexer will.
fn full_match(re: &str, s: &str) -> bool {
    let r = regex_automata::dfa::regex::Regex::new(&format!(r"\A(?:{re})\z")).unwrap();
    r.is_match(s)
}

fn rhs_names(g: &Grammar, rule: &str) -> Vec<Vec<String>> {
    let n = g.nonterminals.iter().position(|n| n.name == rule).unwrap();
    g.productions_of(NtIdx(n).into())
        .map(|(_, p)| p.rhs.iter().map(|s| g.display_symbol(*s)).collect())
        .collect()
}

struct NtIdx(usize);
impl From<NtIdx> for crate::grammar::NtId {
    fn from(n: NtIdx) -> Self {
        crate::grammar::NtId(n.0 as u32)
    }
}

// --- rules -----------------------------------------------------------

#[test]
fn rules_alternatives_and_continuation_lines() {
    let g = ok("start: a \"x\"\n     | b\n\n  // a comment\n     | \"y\"\na: \"a\"\nb: \"b\" # hash comment\n");
    assert_eq!(g.nonterminal(g.start).name, "start");
    assert_eq!(
        rhs_names(&g, "start"),
        vec![vec!["a", "\"x\""], vec!["b"], vec!["\"y\""]]
    );
}

#[test]
fn rule_kinds_and_priorities() {
    let g = ok("start: a _b c d _e\n?a: \"a\"\n_b: \"b\"\n!c: \"c\"\nd.2: \"d\"\n?_e: \"e\"\n");
    let kind = |n: &str| g.nonterminals.iter().find(|x| x.name == n).unwrap().kind;
    assert_eq!(kind("a"), RuleKind::InlineSingle);
    assert_eq!(kind("_b"), RuleKind::Hidden);
    assert_eq!(kind("c"), RuleKind::Normal);
    assert_eq!(kind("d"), RuleKind::Normal);
    assert_eq!(kind("_e"), RuleKind::Hidden);
}

#[test]
fn aliases() {
    let g = ok("start: \"a\" b -> first\n  | b -> second\n  | b\nb: \"b\"\n");
    let aliases: Vec<_> = g
        .productions
        .iter()
        .filter(|p| p.lhs == g.start)
        .map(|p| p.alias.clone())
        .collect();
    assert_eq!(
        aliases,
        vec![Some("first".into()), Some("second".into()), None]
    );
}

#[test]
fn ebnf_in_rules() {
    let b = parse("start: a? b* c+ [d] (a | b) e ~ 2 f ~ 1..3 \"\"\n").unwrap();
    let dbg = format!("{b:?}");
    assert!(dbg.contains("Opt(Name(\"a\""), "{dbg}");
    assert!(dbg.contains("Star(Name(\"b\""), "{dbg}");
    assert!(dbg.contains("Plus(Name(\"c\""), "{dbg}");
    assert!(dbg.contains("Opt(Name(\"d\""), "{dbg}");
    assert!(dbg.contains("Alt([Name(\"a\""), "{dbg}");
    assert!(
        dbg.contains("Repeat(Name(\"e\", Some(Span { start: Pos { line: 1, col: 29 }"),
        "{dbg}"
    );
    assert!(dbg.contains(", 2, 2)"), "{dbg}");
    assert!(dbg.contains(", 1, 3)"), "{dbg}");
}

#[test]
fn group_may_span_lines() {
    let g = ok("start: (\"a\"\n   \"b\"\n | \"c\")\nnext: \"d\"\n");
    assert_eq!(
        g.nonterminals
            .iter()
            .filter(|n| n.kind != RuleKind::Generated)
            .count(),
        2
    );
}

#[test]
fn anonymous_patterns_reuse_named_terminals() {
    let g = ok("start: \"true\" TRUE /[0-9]+/ NUM \"t\"i\nTRUE: \"true\"\nNUM: /[0-9]+/\n");
    let names: Vec<_> = g.productions[0]
        .rhs
        .iter()
        .map(|s| g.symbol_name(*s).to_string())
        .collect();
    assert_eq!(names[..4], ["TRUE", "TRUE", "NUM", "NUM"]);
    let t = g.terminal(match g.productions[0].rhs[4] {
        Symbol::T(t) => t,
        _ => unreachable!(),
    });
    assert_eq!(
        t.pattern,
        TerminalPattern::Literal {
            text: "t".into(),
            case_insensitive: true
        }
    );
}

#[test]
fn ranges_in_rules() {
    let g = ok("start: \"a\"..\"f\" \"-\"..\"/\"\n");
    let pats: Vec<_> = g.terminals.iter().map(|t| t.pattern.to_regex()).collect();
    assert_eq!(
        pats,
        vec!["[a-f]".to_string(), "[\\x{2d}-\\x{2f}]".to_string()]
    );
    assert!(full_match(&pats[1], "."));
}

// --- terminals -------------------------------------------------------

#[test]
fn literal_terminals_stay_literals() {
    let g = ok("start: A B C D E\nA: \"a\\\"b\"\nB: \"select\"i\nC: \"x\" \"y\"\nD: A\nE: \"\\n\\t\\\\\\q\"\n");
    assert_eq!(
        term(&g, "A").pattern,
        TerminalPattern::Literal {
            text: "a\"b".into(),
            case_insensitive: false
        }
    );
    assert_eq!(
        term(&g, "B").pattern,
        TerminalPattern::Literal {
            text: "select".into(),
            case_insensitive: true
        }
    );
    assert_eq!(
        term(&g, "C").pattern,
        TerminalPattern::Literal {
            text: "xy".into(),
            case_insensitive: false
        }
    );
    assert_eq!(
        term(&g, "D").pattern,
        TerminalPattern::Literal {
            text: "a\"b".into(),
            case_insensitive: false
        }
    );
    assert_eq!(
        term(&g, "E").pattern,
        TerminalPattern::Literal {
            text: "\n\t\\\\q".into(),
            case_insensitive: false
        }
    );
}

#[test]
fn terminal_expressions_compile_to_one_regex() {
    let g = ok("start: NUM ID KW\n\
                DIGIT: \"0\"..\"9\"\n\
                NUM.2: \"-\"? DIGIT+ (\".\" DIGIT+)?\n\
                ID.-1: /[a-z]/ (/[a-z]/ | DIGIT | \"_\")*\n\
                KW: \"if\"i \"!\" ~ 2..3 | /x+/i\n");
    assert_eq!(regex(&g, "NUM"), r"\-?[0-9]+(?:\.[0-9]+)?");
    assert_eq!(term(&g, "NUM").priority, 2);
    assert_eq!(regex(&g, "ID"), r"[a-z](?:[a-z]|[0-9]|_)*");
    assert_eq!(term(&g, "ID").priority, -1);
    assert_eq!(regex(&g, "KW"), r"(?i:if)!{2,3}|(?i:x+)");
    assert!(full_match(&regex(&g, "NUM"), "-12.5"));
    assert!(!full_match(&regex(&g, "NUM"), "12."));
    assert!(full_match(&regex(&g, "KW"), "IF!!!"));
    assert!(full_match(&regex(&g, "KW"), "xXx"));
    // DIGIT is used by no rule: left out, as in Lark.
    assert!(!g.terminals.iter().any(|t| t.name == "DIGIT"));
}

#[test]
fn ignore_forms() {
    let g = ok("start: \"a\"\nWS: /[ \\t]+/\n%ignore WS\n%ignore \"#\"\n%ignore /\\/\\/[^\\n]*/\n%ignore (\"x\" | \"y\")\n");
    let ignored: Vec<_> = g
        .terminals
        .iter()
        .filter(|t| t.ignored)
        .map(|t| t.pattern.to_regex())
        .collect();
    assert_eq!(ignored, vec![r"[ \t]+", r"\#", r"\/\/[^\n]*", "x|y"]);
}

#[test]
fn imports_from_common() {
    let g = ok("start: NUMBER NAME ESCAPED_STRING INT\n\
                %import common.NUMBER\n\
                %import common.CNAME -> NAME\n\
                %import common (ESCAPED_STRING, INT, WS)\n\
                %ignore WS\n");
    assert!(full_match(&regex(&g, "NUMBER"), "1.5e-3"));
    assert!(full_match(&regex(&g, "NAME"), "_foo1"));
    assert!(!full_match(&regex(&g, "NAME"), "1foo"));
    assert!(term(&g, "WS").ignored);
    assert!(!g
        .terminals
        .iter()
        .any(|t| t.name == "DIGIT" || t.name == "CNAME"));
}

#[test]
fn imported_dependencies_live_in_their_own_namespace() {
    // The user's DIGIT does not change common's INT.
    let g = ok("start: INT DIGIT\nDIGIT: \"x\"\n%import common.INT\n");
    assert!(full_match(&regex(&g, "INT"), "123"));
}

/// Each terminal of `library` matches its `yes` strings whole and none of
/// its `no` strings; every one compiles to a DFA.
fn check_library(library: &str, cases: &[(&str, &[&str], &[&str])]) {
    let c = library_terminals(library).unwrap();
    let re = |n: &str| c[n].regex();
    for (name, yes, no) in cases {
        for s in *yes {
            assert!(
                full_match(&re(name), s),
                "{name} should match {s:?} (regex {})",
                re(name)
            );
        }
        for s in *no {
            assert!(
                !full_match(&re(name), s),
                "{name} should not match {s:?} (regex {})",
                re(name)
            );
        }
    }
    for (name, f) in c {
        let re = f.regex();
        regex_automata::dfa::dense::DFA::new(&re).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// The cases follow Lark's `python.lark` regexes as its lexer runs them:
/// a lazy string ends at the first unescaped closing quote (so `"a"b"` is
/// no one string, though Python's `fullmatch` would stretch it to one).
#[test]
fn python_library_languages() {
    check_library(
        "python",
        &[
            ("NAME", &["x", "_a1", "\u{e9}t\u{e9}"], &["1a", "", "a-b"]),
            ("COMMENT", &["#", "# x"], &["# x\n", "x"]),
            (
                "STRING",
                &[
                    r#""""#,
                    r#""a\"b""#,
                    r#"r"x""#,
                    "B'y'",
                    r#"rb"z""#,
                    r#"Rf"q""#,
                    r#"ur"a""#,
                    r#""a\\""#,
                ],
                &[r#""a"b""#, "\"a\nb\"", r#"x"a""#, r#"bu"a""#, r#""\""#],
            ),
            (
                "LONG_STRING",
                &[
                    r#""""a""""#,
                    "\"\"\"a\nb\"\"\"",
                    "'''x'''",
                    r#""""a"b""""#,
                    r#""""a""b""""#,
                    r#""""\"""""#,
                    r#"rb"""x""""#,
                    r#""""""""#,
                ],
                &[r#""""a"""""#, r#""""a""""b""""#, r#""""a""#],
            ),
            (
                "DEC_NUMBER",
                &["1", "1_000", "10", "0", "0_0"],
                &["01", "1__0", "1_", "0_1"],
            ),
            ("HEX_NUMBER", &["0x1f", "0X_F"], &["0x", "0xg"]),
            ("OCT_NUMBER", &["0o17"], &["0o8"]),
            ("BIN_NUMBER", &["0b1_0"], &["0b2"]),
            (
                "FLOAT_NUMBER",
                &["1e5", "1.5", ".5", "1.", "1_0.5e-3"],
                &["1", "e5", "."],
            ),
            ("IMAG_NUMBER", &["1j", "1.5J", "0j"], &["j", "1"]),
        ],
    );
}

#[test]
fn common_library_languages() {
    let cases: &[(&str, &[&str], &[&str])] = &[
        ("DIGIT", &["0", "9"], &["a", "10"]),
        ("HEXDIGIT", &["a", "F", "7"], &["g", ""]),
        ("INT", &["0", "0123"], &["", "-1", "1.0"]),
        ("SIGNED_INT", &["+1", "-01", "7"], &["+", "1-"]),
        ("DECIMAL", &["1.", "1.5", ".5"], &[".", "1"]),
        ("FLOAT", &["1e5", "1.5E-3", ".5", "1."], &["1", "e5", "1e"]),
        ("SIGNED_FLOAT", &["-1.5", "+.5e+2"], &["-1"]),
        ("NUMBER", &["1", "1.5", "1e3"], &["-1", ""]),
        ("SIGNED_NUMBER", &["-1", "+2.5", "3"], &["--1"]),
        (
            "ESCAPED_STRING",
            &[
                r#""""#,
                r#""a\"b""#,
                r#""\\""#,
                r#""a\nb""#,
                "\"tab\there\"",
            ],
            &[r#""a"b""#, r#""\""#, "\"a\nb\"", "\"a\\\nb\"", r#""abc"#],
        ),
        ("LETTER", &["a", "Z"], &["1", "ab"]),
        ("WORD", &["abcXYZ"], &["ab1", ""]),
        ("CNAME", &["_", "a1_b", "Foo"], &["1a", ""]),
        ("WS_INLINE", &[" \t "], &["\n", ""]),
        ("WS", &[" \t\n\r\x0c"], &["", "x"]),
        ("CR", &["\r"], &["\n"]),
        ("LF", &["\n"], &["\r"]),
        ("NEWLINE", &["\n", "\r\n\n"], &["\r", ""]),
        ("SH_COMMENT", &["#", "# x"], &["# x\n"]),
        ("CPP_COMMENT", &["//", "// x"], &["/ x", "// x\n"]),
        (
            "C_COMMENT",
            &["/**/", "/* a * b */", "/***/", "/* x\n y **/"],
            &["/*/", "/* */ */", "/* a"],
        ),
        ("SQL_COMMENT", &["--", "-- x"], &["- x"]),
    ];
    check_library("common", cases);
}

#[test]
fn builder_can_be_extended() {
    let mut b = parse("item: \"x\"\n").unwrap();
    b.rule("start", vec![Expr::plus(Expr::name("item"))]);
    let g = b.build().unwrap();
    assert_eq!(g.nonterminal(g.start).name, "start");
}

// --- errors ----------------------------------------------------------

#[test]
fn syntax_errors_have_positions_and_expectations() {
    let e = err("start: a\n\na: \"x\" | ( \"y\" : \n");
    assert_diag(
        &e,
        DiagnosticKind::Syntax,
        3,
        16,
        &["expected", "found `:`"],
    );

    let e = err("start: a -> \n");
    assert_diag(
        &e,
        DiagnosticKind::Syntax,
        1,
        13,
        &["expected a rule name after `->`", "end of line"],
    );

    let e = err("start: (\"a\" \"b\"\nb: \"c\"\n");
    assert_diag(
        &e,
        DiagnosticKind::Syntax,
        1,
        16,
        &["expected `)` to close the `(` at 1:8", "end of line"],
    );

    let e = err("start: \"a\" )\n");
    assert_diag(
        &e,
        DiagnosticKind::Syntax,
        1,
        12,
        &["`)` without a matching `(`"],
    );

    let e = err("start \"a\"\n");
    assert_diag(
        &e,
        DiagnosticKind::Syntax,
        1,
        7,
        &["expected `:` after `start`", "found \"a\""],
    );

    // `~ x` is llguidance's negation of `x`, for terminals only; a rule
    // that meant a repetition hears of both.
    let e = err("start: \"a\" ~ x\n");
    assert_diag(
        &e,
        DiagnosticKind::Syntax,
        1,
        12,
        &[
            "`~` combines terminals only",
            "repetition is written `item ~ N`",
        ],
    );

    let e = err("start: \"a\"+*\n");
    assert_diag(&e, DiagnosticKind::Syntax, 1, 12, &["only one operator"]);

    let e = err("start: \"a\" ~ 3..2\n");
    assert_diag(
        &e,
        DiagnosticKind::Syntax,
        1,
        17,
        &["maximum must be at least the minimum"],
    );

    let e = err("start: \"ab\"..\"z\"\n");
    assert_diag(&e, DiagnosticKind::Syntax, 1, 8, &["single character"]);

    let e = err("start: (\"a\" -> x)\n");
    assert_diag(
        &e,
        DiagnosticKind::Syntax,
        1,
        13,
        &["top-level alternative"],
    );

    let e = err("start: A\nA: \"a\" -> x\n");
    assert_diag(&e, DiagnosticKind::Syntax, 2, 11, &["cannot have an alias"]);

    let e = err("start: \"a\"\n%foo x\n");
    assert_diag(
        &e,
        DiagnosticKind::Syntax,
        2,
        1,
        &["unknown directive `%foo`"],
    );
}

#[test]
fn lexical_errors() {
    let e = err("start: \"abc\nnext: \"x\"\n");
    assert_diag(&e, DiagnosticKind::Syntax, 1, 8, &["unterminated string"]);
    let e = err("start: /abc\nnext: \"x\"\n");
    assert_diag(&e, DiagnosticKind::Syntax, 1, 8, &["unterminated regex"]);
    let e = err("start: \"\\xZZ\"\n");
    assert_diag(&e, DiagnosticKind::Syntax, 1, 9, &["invalid escape"]);
    let e = err("start: \"a\" $\n");
    assert_diag(
        &e,
        DiagnosticKind::Syntax,
        1,
        12,
        &["unexpected character '$'"],
    );
    let e = err("start: \"a\" @\n");
    assert_diag(
        &e,
        DiagnosticKind::Syntax,
        1,
        12,
        &["expected a Rust type after `@`"],
    );
}

#[test]
fn errors_are_collected_across_definitions() {
    let e = err("start: a (\n  | b\na: \"x\" ]\nb: B\nB: /[/\n%declare C\n");
    let kinds: Vec<_> = e
        .diagnostics()
        .iter()
        .map(|d| (d.kind, d.span.map(|s| s.start.line)))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (DiagnosticKind::Syntax, Some(2)),
            (DiagnosticKind::Syntax, Some(3)),
            (DiagnosticKind::InvalidRegex, Some(5)),
            (DiagnosticKind::Unsupported, Some(6)),
        ],
        "{e}"
    );
}

#[test]
fn unsupported_constructs_are_named() {
    let e = err("start: A\n%declare A\n");
    assert_diag(
        &e,
        DiagnosticKind::Unsupported,
        2,
        1,
        &["`%declare` is not supported"],
    );
    let e = err("start: A\n%override a: \"x\"\n");
    assert_diag(
        &e,
        DiagnosticKind::Unsupported,
        2,
        1,
        &["`%override` is not supported"],
    );
    let e = err("start: A\n%extend a: \"x\"\n");
    assert_diag(
        &e,
        DiagnosticKind::Unsupported,
        2,
        1,
        &["`%extend` is not supported"],
    );
    let e = err("start: NAME\n%import java (NAME, STRING)\n");
    assert_diag(
        &e,
        DiagnosticKind::Unsupported,
        2,
        1,
        &["`%import java` is not supported"],
    );
    let e = err("start: NAME\n%import python (NAME, expr)\n");
    assert_diag(
        &e,
        DiagnosticKind::Undefined,
        2,
        23,
        &["`python` has no terminal `expr`"],
    );
    let e = err("start: x\n%import .other.x\n");
    assert_diag(&e, DiagnosticKind::Unsupported, 2, 1, &["relative imports"]);

    let e = err("start: A\nA: /a(?!b(?=c))/\n");
    assert_diag(
        &e,
        DiagnosticKind::Unsupported,
        2,
        4,
        &["a lookaround inside a lookaround"],
    );
    let e = err("start: A\nA: /x(?<=^a)/\n");
    assert_diag(&e, DiagnosticKind::Unsupported, 2, 4, &["anchors"]);
    let e = err("start: /(a)\\1/\n");
    assert_diag(&e, DiagnosticKind::Unsupported, 1, 12, &[BACKREFERENCE_MSG]);
    let e = err("start: /^a$/\n");
    assert_diag(
        &e,
        DiagnosticKind::Unsupported,
        1,
        8,
        &["anchors and word boundaries"],
    );
}

#[test]
fn empty_matches() {
    // A pattern that also matches "" keeps its other lexemes, and each use
    // becomes optional (llguidance's reading; the language is unchanged).
    let g = ok("start: A \"b\"\nA: /a*/\n");
    assert_eq!(
        term(&g, "A").pattern,
        TerminalPattern::Intersection(vec!["a*".into(), "(?s:.)+".into()]),
        "{:?}",
        term(&g, "A").pattern
    );
    ok("start: /x?/ \"b\"\n");
    ok("start: \"a\"\n%ignore /\\s*/\n");
    // A helper that only other terminals use may match the empty string.
    ok("start: S\n_INNER: /[a-z]*/\nS: \"'\" _INNER \"'\"\n");
    // What cannot be taken apart stays an error: an empty literal, and a
    // pattern with lookaround.
    let e = err("start: A \"b\"\nA: \"\"\n");
    assert_diag(
        &e,
        DiagnosticKind::EmptyMatch,
        2,
        1,
        &["terminal `A` matches the empty string; every lexeme must consume at least one byte"],
    );
    let e = err("start: A \"b\"\nA: /(?=a)a*/\n");
    assert!(e.has_kind(DiagnosticKind::EmptyMatch), "{e}");
}

#[test]
fn terminal_definition_errors() {
    let e = err("start: A\nA: \"a\" B\nB: \"b\" A\n");
    assert_diag(
        &e,
        DiagnosticKind::Syntax,
        3,
        8,
        &["defined in terms of itself", "A -> B -> A"],
    );
    let e = err("start: A\nA: \"a\" b\nb: \"b\"\n");
    assert_diag(
        &e,
        DiagnosticKind::Syntax,
        2,
        8,
        &["terminal `A` cannot use rule `b`"],
    );
    let e = err("start: A\nA: \"a\" C\n");
    assert_diag(
        &e,
        DiagnosticKind::Undefined,
        2,
        8,
        &["terminal `C` is used in terminal `A` but never defined"],
    );
    let e = err("start: A\nA: \"a\"\nA: \"b\"\n");
    assert_diag(
        &e,
        DiagnosticKind::Duplicate,
        3,
        1,
        &["terminal `A` is defined twice"],
    );
    let e = err("start: WS\n%import common.NOPE\n");
    assert_diag(
        &e,
        DiagnosticKind::Undefined,
        2,
        16,
        &["`common` has no terminal `NOPE`", "ESCAPED_STRING"],
    );
}

#[test]
fn limits() {
    let deep = format!("start: {}\"a\"{}\n", "(".repeat(200), ")".repeat(200));
    assert!(err(&deep).has_kind(DiagnosticKind::TooLarge));
    let e = err("start: (\"a\" ~ 1000) ~ 1000\n");
    assert!(e.has_kind(DiagnosticKind::TooLarge), "{e}");
    let mut src = String::from("start: T40\nT0: \"ab\" | \"c\"\n");
    for i in 1..=40 {
        src.push_str(&format!("T{i}: T{} T{}\n", i - 1, i - 1));
    }
    assert!(err(&src).has_kind(DiagnosticKind::TooLarge));

    // Deep groups in a long chain of terminals, defined top-down so that
    // compiling the first one recurses through all: an error, not a stack
    // overflow.
    let mut src = String::from("start: T150\n");
    for i in (1..=150).rev() {
        let nested = format!("{}T{}{}", "(\"b\" ".repeat(60), i - 1, ")".repeat(60));
        src.push_str(&format!("T{i}: {nested}\n"));
    }
    src.push_str("T0: \"a\"\n");
    assert!(err(&src).has_kind(DiagnosticKind::TooLarge));
    let mut src = String::from("start: T1000\n");
    for i in (1..=1000).rev() {
        src.push_str(&format!("T{i}: T{} \"a\"\n", i - 1));
    }
    src.push_str("T0: \"a\"\n");
    assert!(err(&src).has_kind(DiagnosticKind::TooLarge));
}

// --- robustness --------------------------------------------------------

const SAMPLE: &str = r#"?start: value
?value: object | array | STRING | NUMBER -> number | "true"i -> t
object: "{" [pair ("," pair)*] "}"
pair: STRING ":" value
array: "[" value ~ 0..3 "]"
STRING: "\"" /[^"\\]*/ "\""
NUMBER.2: /-?\d+/ ("." DIGIT+)?
DIGIT: "0".."9"
%import common.WS
%ignore WS
"#;

#[test]
fn sample_loads() {
    ok(SAMPLE);
}

proptest::proptest! {
    // A fixed seed keeps CI deterministic.
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 2000,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x6763_6424),
        ..proptest::prelude::ProptestConfig::default()
    })]

    #[test]
    fn never_panics_on_arbitrary_text(s in "\\PC{0,80}") {
        let _ = parse_grammar(&s);
    }

    #[test]
    fn never_panics_on_grammar_like_text(s in "[a-zA-Z_?!:|()\\[\\]\"/\\\\.~*+%{}, \n0-9#-]{0,120}") {
        let _ = parse_grammar(&s);
    }

    /// llguidance's extensions: `&`, `~`, token sets, `%regex`,
    /// `%llguidance` and rule attributes.
    #[test]
    fn never_panics_on_llguidance_like_text(s in "(start|T|A|[a-z]|[A-Z]|:|=|&|~|\\||\\(|\\)|\\[|\\]|<\\[|\\]>|\\^|\\*|,|-|[0-9]|/a/|\"b\"|%regex|%llguidance|\\{|\\}|\"substring_words\"|lazy|\n| ){0,40}") {
        if let Ok(g) = parse_grammar(&s) {
            let _ = crate::compiled::CompiledGrammar::new(&g);
        }
    }

    #[test]
    fn never_panics_on_mutated_grammars(edits in proptest::collection::vec((0usize..400, 0usize..4, proptest::char::any()), 1..6)) {
        let mut s: Vec<char> = SAMPLE.chars().collect();
        for (at, op, c) in edits {
            let at = at % (s.len() + 1);
            match op {
                0 => s.insert(at, c),
                1 if at < s.len() => { s.remove(at); }
                2 if at < s.len() => s[at] = c,
                _ => { let tail: Vec<char> = s[at..].to_vec(); s.truncate(at); s.extend(tail.iter().rev()); }
            }
        }
        let text: String = s.into_iter().collect();
        let _ = parse_grammar(&text);
    }
}

#[test]
fn a_grammar_without_start_names_its_rules() {
    // Lark and llguidance refuse it; starting from the first rule would
    // silently give another language when that rule is a helper.
    let e = err("item: WORD\nlist: item (\",\" item)*\nWORD: /[a-z]+/\n");
    let msg = e.to_string();
    assert!(e.has_kind(DiagnosticKind::Undefined), "{e}");
    for part in ["no rule named `start`", "`item`", "`list`"] {
        assert!(msg.contains(part), "{msg} lacks {part}");
    }
    // Given explicitly, any rule starts it.
    let g = parse("item: WORD\nlist: item (\",\" item)*\nWORD: /[a-z]+/\n")
        .unwrap()
        .start("list")
        .build()
        .unwrap();
    assert_eq!(g.nonterminal(g.start).name, "list");
}

#[test]
fn special_tokens_no_tokenizer_has_are_refused_when_read() {
    // Found at compile time, not when binding to a vocabulary.
    let e = err("start: <||>\n");
    assert_diag(
        &e,
        DiagnosticKind::Syntax,
        1,
        8,
        &["`<||>` names no special token"],
    );
    let e = err("start: <[99999999999]>\n");
    assert_diag(&e, DiagnosticKind::Syntax, 1, 8, &["past any vocabulary"]);
    let e = err("start: <[1-99999999999]>\n");
    assert_diag(
        &e,
        DiagnosticKind::Syntax,
        1,
        8,
        &["`99999999999` is not a token id"],
    );
}
