//! Grammars that are not LL(1): forking at conflicts, the configuration
//! cap, budgets over configuration sets, parse trees and the strict mode.

use std::sync::Arc;

use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::{CompiledGrammar, Config};
use gcd_core::lark::parse_grammar;
use gcd_core::runtime::matcher::{MatchErrorKind, Matcher};
use gcd_core::runtime::recognizer::Recognizer;
use gcd_core::runtime::tree::{self, ParseErrorKind};
use gcd_core::vocab::Vocabulary;
use gcd_core::DiagnosticKind;

/// `a^n c b^n` or `a^n e d^n`: which one is decided only after all the
/// `a`s, so no fixed lookahead does.
const NESTED: &str = r#"
start: x | y
x: "a" x "b" | "c"
y: "a" y "d" | "e"
"#;

fn compile(src: &str, config: &Config) -> Arc<CompiledGrammar> {
    Arc::new(CompiledGrammar::with_config(&parse_grammar(src).unwrap(), config).unwrap())
}

fn bind(g: Arc<CompiledGrammar>, tokens: &[&str]) -> Arc<BoundGrammar> {
    let tokens = tokens.iter().map(|t| t.as_bytes().to_vec()).collect();
    Arc::new(BoundGrammar::new(
        g,
        Arc::new(Vocabulary::from_tokens_with_eos(tokens, "</s>")),
    ))
}

fn feed(m: &mut Matcher, text: &str, tokens: &[&str]) {
    for ch in text.chars() {
        let id = tokens.iter().position(|t| *t == ch.to_string()).unwrap();
        m.advance(id as u32)
            .unwrap_or_else(|e| panic!("{text:?} at {ch:?}: {e}"));
    }
}

#[test]
fn forks_follow_both_derivations_until_one_dies() {
    let g = compile(NESTED, &Config::default());
    assert!(!g.is_ll1());
    assert!(g
        .conflicts()
        .iter()
        .any(|d| d.kind == DiagnosticKind::Conflict
            && d.warning
            && d.message.contains("rule `start`")));
    let tokens = ["a", "b", "c", "d", "e"];
    let bound = bind(g.clone(), &tokens);
    let mut m = Matcher::new(bound.clone());
    feed(&mut m, "aaa", &tokens);
    assert_eq!(m.configurations(), 2, "x and y are both alive");
    // Both continuations are allowed; closing tokens are not yet.
    let mask = m.compute_mask(6);
    let allowed: Vec<usize> = mask.iter_ones().collect();
    assert_eq!(allowed, vec![0, 2, 4]);
    let mut x = m.clone();
    feed(&mut x, "c", &tokens);
    assert_eq!(x.configurations(), 1);
    assert_eq!(x.compute_mask(6).iter_ones().collect::<Vec<_>>(), vec![1]);
    feed(&mut x, "bbb", &tokens);
    assert!(x.is_complete());
    // The other branch is untouched by the fork.
    feed(&mut m, "e", &tokens);
    assert_eq!(m.compute_mask(6).iter_ones().collect::<Vec<_>>(), vec![3]);
    assert!(m.advance(1).is_err(), "`b` after `aaae`");
    // Rolling back restores both derivations.
    m.rollback(1).unwrap();
    assert_eq!(m.configurations(), 2);
    // The reference agrees on a few strings.
    let r = Recognizer::new(&g);
    assert!(r.is_complete(b"aacbb") && r.is_complete(b"aaedd"));
    assert!(!r.is_complete(b"aacdd") && !r.is_complete(b"aaebb"));
}

#[test]
fn budget_is_the_cheapest_live_derivation() {
    // After `aa`, `x` still needs `c b b` and `y` only `e`.
    let src = r#"
        start: x | y
        x: "a" x "b" | "c"
        y: "a" y | "e"
    "#;
    let g = compile(src, &Config::default());
    assert!(!g.is_ll1());
    let tokens = ["a", "b", "c", "e"];
    let bound = bind(g, &tokens);
    let mut m = Matcher::new(bound.clone());
    feed(&mut m, "aa", &tokens);
    assert_eq!(m.configurations(), 2);
    assert_eq!(m.min_tokens_to_complete(), 1);
    let allowed = |m: &Matcher| m.compute_mask(5).iter_ones().collect::<Vec<_>>();
    assert_eq!(allowed(&m), vec![0, 2, 3], "a, c and e without a budget");
    // With 4 tokens in all, `c` (which needs `b b` after it) no longer fits.
    let mut tight = Matcher::new(bound.clone()).with_budget(4).unwrap();
    feed(&mut tight, "aa", &tokens);
    assert_eq!(allowed(&tight), vec![0, 3]);
    assert_eq!(
        tight.clone().advance(2).unwrap_err().kind(),
        MatchErrorKind::TokenNotAllowed
    );
    // With 5 it fits exactly, and then only the `x` derivation is left.
    let mut five = Matcher::new(bound.clone()).with_budget(5).unwrap();
    feed(&mut five, "aac", &tokens);
    assert_eq!(five.configurations(), 1);
    assert_eq!(allowed(&five), vec![1]);
    feed(&mut five, "bb", &tokens);
    assert!(five.is_complete());
    assert_eq!(
        Matcher::new(bound).with_budget(0).unwrap_err().kind(),
        MatchErrorKind::BudgetTooSmall
    );
}

#[test]
fn ambiguity_past_the_cap_is_a_clear_error() {
    // `x (x)*` split into any number of `e` in any way: the derivations
    // after n `x`s grow with n.
    let src = r#"
        start: e
        e: e e | "x"
    "#;
    let g = compile(src, &Config::default().max_configurations(8));
    assert!(!g.is_ll1());
    let bound = bind(g.clone(), &["x"]);
    let mut m = Matcher::new(bound);
    let mut err = None;
    for _ in 0..64 {
        if let Err(e) = m.advance(0) {
            err = Some(e);
            break;
        }
        assert!(m.configurations() <= 8);
    }
    let e = err.expect("the cap is reached");
    assert_eq!(e.kind(), MatchErrorKind::TooManyConfigurations);
    assert!(e.to_string().contains("limit of 8"), "{e}");
    // The matcher is unchanged by the refused token.
    assert!(m.is_complete());
    // Parse trees hit the same cap on long inputs, and pick a documented
    // tree on short ambiguous ones.
    let long = "x".repeat(40);
    assert_eq!(
        tree::parse(&g, &long).unwrap_err().kind(),
        ParseErrorKind::TooAmbiguous
    );
    let out = tree::parse_full(&g, b"xxx").unwrap();
    assert!(out.ambiguous);
}

#[test]
fn trees_of_generalized_grammars() {
    let src = r#"
        start: x | y
        x: "a" x "b" -> ax | "c"
        y: "a" y "d" -> ay | "e"
    "#;
    let g = compile(src, &Config::default());
    assert!(!g.is_ll1());
    let out = tree::parse_full(&g, b"aaedd").unwrap();
    assert!(!out.ambiguous);
    let shown = out.tree.to_string();
    assert_eq!(shown.matches("(ay").count(), 2, "{shown}");
    assert!(!shown.contains("ax"), "{shown}");
    let shown = tree::parse(&g, "acb").unwrap().to_string();
    assert_eq!(shown.matches("(ax").count(), 1, "{shown}");
    // Errors are where the last derivation dies, byte-exact.
    let e = tree::parse(&g, "aaedb").unwrap_err();
    assert_eq!(
        (e.kind(), e.offset()),
        (ParseErrorKind::UnexpectedByte, 4),
        "{e}"
    );
    let e = tree::parse(&g, "aac").unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::UnexpectedEnd, "{e}");
}

#[test]
fn strict_mode_refuses_conflicts_and_unused_rules() {
    let strict = Config::default().ll1_only(true);
    let e = CompiledGrammar::with_config(&parse_grammar(NESTED).unwrap(), &strict).unwrap_err();
    assert_eq!(e.kind(), DiagnosticKind::Conflict);
    assert!(e.diagnostics().iter().all(|d| !d.warning));

    let unused = "start: \"a\"\norphan: \"b\" helper\nhelper: \"c\"\n";
    let g = CompiledGrammar::new(&parse_grammar(unused).unwrap()).unwrap();
    let names: Vec<&str> = g.warnings().iter().map(|d| d.message.as_str()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names[0].contains("`orphan` cannot be reached") && g.warnings()[0].warning);
    assert!(g.grammar().nonterminals.iter().all(|n| n.name == "start"));
    let e = CompiledGrammar::with_config(&parse_grammar(unused).unwrap(), &strict).unwrap_err();
    assert_eq!(e.kind(), DiagnosticKind::Unreachable);
}
