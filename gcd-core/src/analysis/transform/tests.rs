//! Unit tests of the transforms: rewrites on small grammars, checked
//! against the language they derive (bounded length) and the report.

use std::collections::BTreeSet;

use super::*;
use crate::analysis;
use crate::error::{DiagnosticKind, Pos};
use crate::grammar::{
    Alternative, Expr, GrammarBuilder, Production, RuleKind, Symbol, TerminalPattern,
};

/// `'x'` is a literal, an all-caps word a regex terminal, anything else
/// a rule name.
fn expr(tok: &str) -> Expr {
    if let Some(lit) = tok.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
        Expr::literal(lit)
    } else {
        Expr::name(tok)
    }
}

fn seq(alt: &str) -> Expr {
    Expr::seq(alt.split_whitespace().map(expr).collect())
}

/// Rules as `("name", &["alt one", "alt two", ""])`; the first is the start.
fn grammar(rules: &[(&str, &[&str])]) -> Grammar {
    let mut b = GrammarBuilder::new();
    for (_, alts) in rules {
        for alt in alts.iter() {
            for tok in alt.split_whitespace() {
                if tok.chars().all(|c| c.is_ascii_uppercase()) && !b.has_terminal(tok) {
                    b.terminal(tok, TerminalPattern::Regex("[0-9]+".into()));
                }
            }
        }
    }
    for (name, alts) in rules {
        b.rule(name, alts.iter().map(|a| seq(a)).collect());
    }
    b.start(rules[0].0);
    b.build().expect("test grammar builds")
}

fn span(line: u32) -> Option<Span> {
    Some(Span {
        start: Pos { line, col: 1 },
        end: Pos { line, col: 10 },
        byte_start: line as usize * 100,
        byte_end: line as usize * 100 + 9,
    })
}

/// Every terminal string of length <= `max` the start rule derives
/// (least fixpoint of the rules on length-bounded string sets).
fn language(g: &Grammar, max: usize) -> BTreeSet<Vec<u32>> {
    let mut lang: Vec<BTreeSet<Vec<u32>>> = vec![BTreeSet::new(); g.nonterminals.len()];
    loop {
        let mut changed = false;
        for p in &g.productions {
            let mut acc: BTreeSet<Vec<u32>> = BTreeSet::from([Vec::new()]);
            for s in &p.rhs {
                let items: Vec<Vec<u32>> = match s {
                    Symbol::T(t) => vec![vec![t.0]],
                    Symbol::N(n) => lang[n.index()].iter().cloned().collect(),
                };
                let mut next = BTreeSet::new();
                for x in &acc {
                    for y in &items {
                        if x.len() + y.len() <= max {
                            let mut w = x.clone();
                            w.extend(y);
                            next.insert(w);
                        }
                    }
                }
                acc = next;
            }
            for w in acc {
                changed |= lang[p.lhs.index()].insert(w);
            }
        }
        if !changed {
            return lang[g.start.index()].clone();
        }
    }
}

fn kinds(r: &[Rewrite]) -> Vec<RewriteKind> {
    r.iter().map(|r| r.kind).collect()
}

fn rule_text(g: &Grammar, name: &str) -> Vec<String> {
    let n = g
        .nonterminals
        .iter()
        .position(|n| n.name == name)
        .expect("rule exists");
    g.productions_of(NtId(n as u32))
        .map(|(p, _)| g.display_production(p))
        .collect()
}

fn assert_same_language(a: &Grammar, b: &Grammar, max: usize) {
    assert_eq!(
        language(a, max),
        language(b, max),
        "languages differ up to length {max}"
    );
}

fn arithmetic() -> Grammar {
    grammar(&[
        ("expr", &["expr '+' term", "term"]),
        ("term", &["term '*' factor", "factor"]),
        ("factor", &["'(' expr ')'", "NUM"]),
    ])
}

#[test]
fn arithmetic_becomes_ll1() {
    let g = arithmetic();
    assert!(analysis::analyze(&g).is_err());
    let (h, report) = make_ll1(&g).unwrap();
    analysis::analyze(&h).expect("LL(1) after the transform");
    assert_eq!(
        kinds(&report.rewrites),
        [RewriteKind::LeftRecursion, RewriteKind::LeftRecursion]
    );
    let expr = report.rewrites.iter().find(|r| r.rule == "expr").unwrap();
    let tail = expr.tail.clone().unwrap();
    assert!(tail.starts_with("expr__lr"), "{tail}");
    assert_eq!(
        expr.message,
        format!("removed direct left recursion in `expr`: expr -> term {tail}; {tail} -> \"+\" term {tail} | <empty>")
    );
    assert_eq!(rule_text(&h, "expr"), [format!("expr: term {tail}")]);
    let t = h.nonterminals.iter().find(|n| n.name == tail).unwrap();
    assert_eq!(t.kind, RuleKind::Generated);
    assert_eq!(report.tails().count(), 2);
    assert!(report.tails().any(|(r, t)| r == "expr" && t == tail));
    assert!(find_left_recursion(&h).is_none());
    assert_same_language(&g, &h, 7);
}

#[test]
fn several_recursive_and_base_alternatives_keep_order() {
    let g = grammar(&[("e", &["e '+' 'n'", "'n'", "e '-' 'n'", "'(' e ')'"])]);
    let (h, report) = make_ll1(&g).unwrap();
    analysis::analyze(&h).unwrap();
    let t = report.rewrites[0].tail.clone().unwrap();
    assert_eq!(
        rule_text(&h, "e"),
        [format!("e: \"n\" {t}"), format!("e: \"(\" e \")\" {t}")]
    );
    assert_eq!(
        rule_text(&h, &t),
        [
            format!("{t}: \"+\" \"n\" {t}"),
            format!("{t}: \"-\" \"n\" {t}"),
            format!("{t}: <empty>")
        ]
    );
    assert_same_language(&g, &h, 7);
}

#[test]
fn spans_and_aliases_follow_the_alternatives() {
    let mut b = GrammarBuilder::new();
    let alt = |e: &str, alias: Option<&str>, line| Alternative {
        expr: seq(e),
        alias: alias.map(str::to_string),
        span: span(line),
    };
    b.rule_full(
        "sum",
        RuleKind::Normal,
        vec![
            alt("sum '+' 'n'", Some("add"), 2),
            alt("'n'", Some("num"), 3),
        ],
        span(1),
    );
    let g = b.build().unwrap();
    let (h, report) = make_ll1(&g).unwrap();
    analysis::analyze(&h).unwrap();
    let t = report.rewrites[0].tail.clone().unwrap();
    let sum = &h.productions[h
        .productions
        .iter()
        .position(|p| h.nonterminal(p.lhs).name == "sum")
        .unwrap()];
    assert_eq!((sum.alias.as_deref(), sum.span), (Some("num"), span(3)));
    let tail: Vec<&Production> = h
        .productions
        .iter()
        .filter(|p| h.nonterminal(p.lhs).name == t)
        .collect();
    assert_eq!(
        (tail[0].alias.as_deref(), tail[0].span),
        (Some("add"), span(2))
    );
    assert_eq!(tail[1].rhs, []);
    assert_eq!(report.rewrites[0].span, span(1));
    assert_eq!(
        h.nonterminals.iter().find(|n| n.name == t).unwrap().span,
        span(1)
    );
}

#[test]
fn indirect_left_recursion() {
    let g = grammar(&[("a", &["b 'x'", "'z'"]), ("b", &["a 'y'", "'w'"])]);
    let (h, report) = make_ll1(&g).unwrap();
    analysis::analyze(&h).expect("LL(1)");
    assert_eq!(
        kinds(&report.rewrites),
        [RewriteKind::IndirectLeftRecursion, RewriteKind::RemovedRule]
    );
    let r = &report.rewrites[0];
    // The entry rule `a` absorbs `b`, which is then unused.
    assert_eq!(r.rule, "a");
    assert!(r.message.contains("(a -> b -> a)"), "{}", r.message);
    assert!(r.message.contains("substituted `b`"), "{}", r.message);
    let t = r.tail.clone().unwrap();
    assert_eq!(
        rule_text(&h, "a"),
        [format!("a: \"w\" \"x\" {t}"), format!("a: \"z\" {t}")]
    );
    assert_eq!(report.rewrites[1].rule, "b");
    assert!(h.nonterminals.iter().all(|n| n.name != "b"));
    assert_same_language(&g, &h, 8);

    // When `b` is used elsewhere too it stays.
    let g = grammar(&[
        ("s", &["a", "'u' b"]),
        ("a", &["b 'x'", "'z'"]),
        ("b", &["a 'y'", "'w'"]),
    ]);
    let (h, report) = make_ll1(&g).unwrap();
    assert_eq!(report.rewrites[0].kind, RewriteKind::IndirectLeftRecursion);
    assert!(report
        .rewrites
        .iter()
        .all(|r| r.kind != RewriteKind::RemovedRule));
    assert!(find_left_recursion(&h).is_none());
    assert_same_language(&g, &h, 8);
}

#[test]
fn indirect_left_recursion_through_three_rules() {
    let g = grammar(&[
        ("s", &["a 'end'"]),
        ("a", &["b 'x'", "'p'"]),
        ("b", &["c 'y'", "'q'"]),
        ("c", &["a 'z'", "'r'"]),
    ]);
    let (h, report) = make_ll1(&g).unwrap();
    analysis::analyze(&h).expect("LL(1)");
    assert!(report
        .rewrites
        .iter()
        .any(|r| r.kind == RewriteKind::IndirectLeftRecursion));
    assert!(find_left_recursion(&h).is_none());
    assert_same_language(&g, &h, 9);
}

#[test]
fn only_left_recursive_components_are_touched() {
    let g = grammar(&[
        ("s", &["list ';' other"]),
        ("list", &["list ',' 'i'", "'i'"]),
        ("other", &["'a' other", "'b'"]),
    ]);
    let (h, report) = make_ll1(&g).unwrap();
    analysis::analyze(&h).unwrap();
    assert_eq!(report.rewrites.len(), 1);
    assert_eq!(rule_text(&h, "s"), rule_text(&g, "s"));
    assert_eq!(rule_text(&h, "other"), rule_text(&g, "other"));
}

#[test]
fn hidden_left_recursion_through_nullable_prefix() {
    let g = grammar(&[("a", &["b a 'x'", "'y'"]), ("b", &["'b'", ""])]);
    assert!(find_left_recursion(&g).is_some());
    let (h, report) = make_ll1(&g).unwrap();
    assert_eq!(report.rewrites[0].kind, RewriteKind::HiddenLeftRecursion);
    assert!(
        report.rewrites[0].message.contains("nullable `b`"),
        "{}",
        report.rewrites[0].message
    );
    assert!(find_left_recursion(&h).is_none());
    assert_same_language(&g, &h, 8);
    // The language (b^n y x^m, m >= n) is not LL(1); the conflict stays.
    let e = analysis::analyze(&h).unwrap_err();
    assert!(
        e.diagnostics()
            .iter()
            .all(|d| d.kind == DiagnosticKind::Conflict),
        "{e}"
    );
}

#[test]
fn left_recursion_with_empty_base() {
    let g = grammar(&[("s", &["items 'end'"]), ("items", &["items 'i'", ""])]);
    let (h, _) = make_ll1(&g).unwrap();
    analysis::analyze(&h).unwrap();
    assert_same_language(&g, &h, 6);
}

#[test]
fn left_recursion_uncovered_among_new_rules() {
    // a: a a 'x' | <empty>: the first tail is `a 'x' tail` and `a` is
    // nullable, so the tail is left-recursive through `a`.
    let g = grammar(&[("s", &["a 'end'"]), ("a", &["a a 'x'", ""])]);
    let (h, _) = make_ll1(&g).unwrap();
    assert!(find_left_recursion(&h).is_none());
    assert_same_language(&g, &h, 7);

    let g = grammar(&[
        ("s", &["a 'end'"]),
        ("a", &["a b", ""]),
        ("b", &["a 'c'", "'d'"]),
    ]);
    let (h, _) = make_ll1(&g).unwrap();
    assert!(find_left_recursion(&h).is_none());
    assert_same_language(&g, &h, 7);
}

#[test]
fn cycles_are_errors_naming_the_cycle() {
    let mut b = GrammarBuilder::new();
    let alt = |e: &str, line| Alternative {
        expr: seq(e),
        alias: None,
        span: span(line),
    };
    b.rule_full(
        "a",
        RuleKind::Normal,
        vec![alt("b", 1), alt("'x'", 2)],
        None,
    );
    b.rule_full(
        "b",
        RuleKind::Normal,
        vec![alt("a", 3), alt("'y'", 4)],
        None,
    );
    let g = b.build().unwrap();
    let e = make_ll1(&g).unwrap_err();
    assert_eq!(e.kind(), DiagnosticKind::LeftRecursion);
    let d = &e.diagnostics()[0];
    assert!(d.message.contains("`a -> b -> a`"), "{}", d.message);
    assert_eq!(d.span, span(1));
    assert_eq!(d.notes.len(), 2);
    assert!(remove_left_recursion(&g).is_err());

    // a: a b with b nullable: a =>+ a.
    let g = grammar(&[("a", &["a b", "'x'"]), ("b", &["'y'", ""])]);
    let e = make_ll1(&g).unwrap_err();
    assert_eq!(e.kind(), DiagnosticKind::LeftRecursion);
    assert!(e.diagnostics()[0].message.contains("`a -> a`"), "{e}");
}

#[test]
fn repetition_of_nullable_sugar_repeats_its_non_empty_part() {
    // s: ("a"? "c"?)* "b" -- the star's body can be empty. (Desugaring
    // strips `(x?)*` to `x*` itself, but not a sequence of optionals.)
    let mut b = GrammarBuilder::new();
    let body = Expr::seq(vec![
        Expr::star(Expr::seq(vec![
            Expr::opt(Expr::literal("a")),
            Expr::opt(Expr::literal("c")),
        ])),
        Expr::literal("b"),
    ]);
    b.rule_full(
        "s",
        RuleKind::Normal,
        vec![Alternative {
            expr: body,
            alias: None,
            span: span(7),
        }],
        None,
    );
    let g = b.build().unwrap();
    // The repetition takes its non-empty part: no cycle, reported at the
    // user's rule.
    let (_, report) = make_ll1(&g).unwrap();
    let r = &report.rewrites[0];
    assert_eq!(r.kind, RewriteKind::NonEmptyRepetition);
    assert_eq!(r.span, span(7));
    assert!(r.message.contains("in rule `s`"), "{}", r.message);
}

#[test]
fn endless_left_recursion_is_unproductive() {
    let g = grammar(&[("s", &["a", "'z'"]), ("a", &["a 'x'"])]);
    let e = make_ll1(&g).unwrap_err();
    assert_eq!(e.kind(), DiagnosticKind::Unproductive);
    assert!(
        e.to_string()
            .contains("rule `a` is left-recursive (a -> a)"),
        "{e}"
    );
}

#[test]
fn common_prefix_is_factored_and_dangling_else_stays_a_conflict() {
    let g = grammar(&[
        (
            "stmt",
            &[
                "'if' e 'then' stmt",
                "'if' e 'then' stmt 'else' stmt",
                "'go'",
            ],
        ),
        ("e", &["'c'"]),
    ]);
    let (h, report) = make_ll1(&g).unwrap();
    assert_eq!(kinds(&report.rewrites), [RewriteKind::LeftFactoring]);
    let f = report.rewrites[0].new_rules[0].clone();
    assert_eq!(
        rule_text(&h, "stmt"),
        [
            format!("stmt: \"if\" e \"then\" stmt {f}"),
            "stmt: \"go\"".to_string()
        ]
    );
    assert_eq!(
        rule_text(&h, &f),
        [format!("{f}: <empty>"), format!("{f}: \"else\" stmt")]
    );
    let e = analysis::analyze(&h).unwrap_err();
    assert_eq!(e.kind(), DiagnosticKind::Conflict);
    assert!(e.to_string().contains("\"else\""), "{e}");
    assert_same_language(&g, &h, 8);
}

#[test]
fn nested_prefixes_factor_repeatedly() {
    let g = grammar(&[(
        "s",
        &["'a' 'b' 'c'", "'a' 'b' 'd'", "'a' 'e'", "'a'", "'f'"],
    )]);
    let (h, report) = make_ll1(&g).unwrap();
    analysis::analyze(&h).unwrap();
    assert_eq!(
        kinds(&report.rewrites),
        [RewriteKind::LeftFactoring, RewriteKind::LeftFactoring]
    );
    assert_same_language(&g, &h, 4);
    assert!(h
        .nonterminals
        .iter()
        .all(|n| n.name == "s" || n.kind == RuleKind::Generated));
}

#[test]
fn left_recursion_then_factoring() {
    let g = grammar(&[("e", &["e '+' 'n'", "e '+' '(' e ')'", "'n'"])]);
    let (h, report) = make_ll1(&g).unwrap();
    analysis::analyze(&h).unwrap();
    assert_eq!(
        kinds(&report.rewrites),
        [RewriteKind::LeftRecursion, RewriteKind::LeftFactoring]
    );
    assert_same_language(&g, &h, 9);
}

#[test]
fn duplicate_alternatives_are_merged() {
    let g = grammar(&[("s", &["'a' 'b'", "'a' 'b'", "'c'"])]);
    let (h, report) = make_ll1(&g).unwrap();
    analysis::analyze(&h).unwrap();
    assert_eq!(kinds(&report.rewrites), [RewriteKind::DuplicateAlternative]);
    assert_eq!(rule_text(&h, "s"), ["s: \"a\" \"b\"", "s: \"c\""]);
}

#[test]
fn expansion_resolves_conflicts_between_rules() {
    let g = grammar(&[
        ("stmt", &["assign", "call", "'return'"]),
        ("assign", &["NAME '=' NAME"]),
        ("call", &["NAME '(' ')'"]),
    ]);
    let (h, report) = make_ll1(&g).unwrap();
    analysis::analyze(&h).expect("LL(1) after expansion");
    let k = kinds(&report.rewrites);
    assert_eq!(k[0], RewriteKind::Expansion);
    assert!(k.contains(&RewriteKind::LeftFactoring));
    let removed: Vec<&str> = report
        .rewrites
        .iter()
        .filter(|r| r.kind == RewriteKind::RemovedRule)
        .map(|r| r.rule.as_str())
        .collect();
    assert_eq!(removed, ["assign", "call"]);
    assert!(
        report.rewrites[0].message.contains("`assign`, `call`"),
        "{}",
        report.rewrites[0].message
    );
    assert_same_language(&g, &h, 4);
}

#[test]
fn expansion_that_does_not_help_is_not_done() {
    // `a` and `b` both begin with 'x' and differ only later inside
    // recursive rules: one level of expansion leaves a conflict.
    let g = grammar(&[
        ("s", &["a", "b"]),
        ("a", &["'x' a", "'y'"]),
        ("b", &["'x' b", "'z'"]),
    ]);
    let (h, report) = make_ll1(&g).unwrap();
    assert!(report.is_empty(), "{report}");
    assert_eq!(h, g);
}

#[test]
fn ll1_grammar_is_unchanged() {
    let g = grammar(&[
        ("value", &["object", "array", "'s'", "NUM", "'true'"]),
        ("object", &["'{' members '}'"]),
        ("members", &["member more", ""]),
        ("more", &["',' member more", ""]),
        ("member", &["'s' ':' value"]),
        ("array", &["'[' elems ']'"]),
        ("elems", &["value elems_more", ""]),
        ("elems_more", &["',' value elems_more", ""]),
    ]);
    analysis::analyze(&g).unwrap();
    let (h, report) = make_ll1(&g).unwrap();
    assert_eq!(h, g);
    assert!(report.is_empty());
    assert_eq!(remove_left_recursion(&g).unwrap(), (g.clone(), vec![]));
    assert_eq!(left_factor(&g), (g.clone(), vec![]));
    // The arithmetic result is LL(1) too, so a second run changes nothing.
    let (h, _) = make_ll1(&arithmetic()).unwrap();
    let (h2, report) = make_ll1(&h).unwrap();
    assert_eq!((h2, report.is_empty()), (h, true));
}

#[test]
fn generated_names_are_unique() {
    let g = grammar(&[
        ("expr", &["expr '+' 'n'", "'n'", "expr__lr1 expr__lf2"]),
        ("expr__lr1", &["'a'"]),
        ("expr__lf2", &["'b'"]),
    ]);
    let (h, _) = make_ll1(&g).unwrap();
    let mut names: Vec<&str> = h.nonterminals.iter().map(|n| n.name.as_str()).collect();
    let before = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), before);
    assert_same_language(&g, &h, 6);
}

#[test]
fn growth_is_limited() {
    let g = grammar(&[
        ("a", &["b 'x'", "'p'", "'q'", "'r'"]),
        ("b", &["a 'y'", "a 'z'", "a 'w'", "'s'"]),
    ]);
    let tight = Limits {
        max_productions: g.productions.len() + 2,
        max_symbols: 1000,
    };
    let e = make_ll1_with_limits(&g, tight).unwrap_err();
    assert_eq!(e.kind(), DiagnosticKind::TooLarge);
    assert!(make_ll1(&g).is_ok());
    let l = Limits::for_grammar(&g);
    assert_eq!((l.max_productions, l.max_symbols), (256, 4096));
}

#[test]
fn unreachable_input_rules_are_kept() {
    let g = grammar(&[("s", &["s 'a'", "'b'"]), ("lost", &["'c'"])]);
    let (h, report) = make_ll1(&g).unwrap();
    assert!(h.nonterminals.iter().any(|n| n.name == "lost"));
    assert!(report
        .rewrites
        .iter()
        .all(|r| r.kind != RewriteKind::RemovedRule));
    assert_eq!(
        analysis::analyze(&h).unwrap_err().kind(),
        DiagnosticKind::Unreachable
    );
}
