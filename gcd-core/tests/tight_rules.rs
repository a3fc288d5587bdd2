//! Tight rules: no ignored lexeme before a lexeme that starts while a tight
//! rule is the parser's next symbol. The language is checked on chosen
//! strings, the matcher against the reference along random walks, and
//! budgeted generation that must end complete within its budget.

mod common;

use std::sync::Arc;

use common::budget::{generate, Strategy};
use common::walk::check_walk;
use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::grammar::{Expr, GrammarBuilder, TerminalPattern};
use gcd_core::runtime::matcher::Matcher;
use gcd_core::runtime::recognizer::Recognizer;
use gcd_core::vocab::Vocabulary;
use gcd_core::DiagnosticKind;

/// Quoted words spelled as chunks, the way gcd-schema spells long strings:
/// `"` and two letters, then two letters at a time, then at most one
/// letter and the closing quote; words separated by ignored spaces.
fn chunked(tight: bool) -> GrammarBuilder {
    let mut b = GrammarBuilder::new();
    b.rule(
        "start",
        vec![Expr::seq(vec![Expr::name("word"), Expr::name("more")])],
    );
    b.rule(
        "more",
        vec![
            Expr::seq(vec![Expr::name("word"), Expr::name("more")]),
            Expr::seq(vec![]),
        ],
    );
    b.rule(
        "word",
        vec![Expr::seq(vec![
            Expr::regex("\"[a-c]{2}"),
            Expr::name("rest"),
        ])],
    );
    b.rule(
        "rest",
        vec![
            Expr::seq(vec![Expr::regex("[a-c]{2}"), Expr::name("rest")]),
            Expr::regex("[a-c]?\""),
        ],
    );
    if tight {
        b.tight("rest");
    }
    b.terminal("WS", TerminalPattern::Regex(" +".into()));
    b.ignore("WS", None);
    b
}

fn accepts(c: &Arc<CompiledGrammar>, text: &str) -> bool {
    let vocab = Vocabulary::from_tokens_with_eos((0..=255u8).map(|b| vec![b]).collect(), "</s>");
    let bound = Arc::new(BoundGrammar::new(c.clone(), Arc::new(vocab)));
    let mut m = Matcher::new(bound);
    let by_matcher = text.bytes().all(|b| m.advance(b as u32).is_ok()) && m.is_complete();
    assert_eq!(
        by_matcher,
        Recognizer::new(c).is_complete(text.as_bytes()),
        "{text}"
    );
    by_matcher
}

#[test]
fn no_ignored_lexeme_inside_a_tight_rule() {
    let tight = Arc::new(CompiledGrammar::new(&chunked(true).build().unwrap()).unwrap());
    let loose = Arc::new(CompiledGrammar::new(&chunked(false).build().unwrap()).unwrap());
    for t in [
        r#""ab""#,
        r#""abc""#,
        r#""abcab""#,
        r#""ab" "cab""#,
        r#" "ab"  "ca" "#,
    ] {
        assert!(accepts(&tight, t), "{t}");
        assert!(accepts(&loose, t), "{t}");
    }
    // Spaces between the chunks are ignored only where the rule is loose.
    for t in [r#""ab cd""#, r#""ab ab""#, r#""abab c""#, r#""ab "#] {
        assert!(!accepts(&tight, t), "{t}");
    }
    assert!(accepts(&loose, r#""ab ab""#));
    assert!(accepts(&loose, r#""abab c""#));
}

#[test]
fn masks_equal_reference_on_tight_rules() {
    let c = Arc::new(CompiledGrammar::new(&chunked(true).build().unwrap()).unwrap());
    let mut masks = 0;
    for seed in 0..40u64 {
        let tokens = common::random_vocab(seed, 24 + seed as usize);
        masks += check_walk(c.clone(), tokens, seed, 20);
    }
    // Walks end early where the output completes.
    assert!(masks > 400, "{masks} masks");
}

#[test]
fn tight_rules_must_follow_a_terminal_and_not_be_empty() {
    let mut b = GrammarBuilder::new();
    b.rule(
        "start",
        vec![Expr::seq(vec![Expr::name("x"), Expr::literal("!")])],
    );
    b.rule("x", vec![Expr::literal("a"), Expr::seq(vec![])]);
    b.tight("x");
    let e = CompiledGrammar::new(&b.build().unwrap()).unwrap_err();
    assert!(e.has_kind(DiagnosticKind::Unsupported), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("tight rule `x` derives the empty string"),
        "{text}"
    );
    assert!(
        text.contains("tight rule `x` must follow a terminal"),
        "{text}"
    );
}

#[test]
fn budgeted_generation_completes_inside_tight_rules() {
    let c = Arc::new(CompiledGrammar::new(&chunked(true).build().unwrap()).unwrap());
    let reference = Recognizer::new(&c);
    let mut runs = 0;
    for seed in 0..20u64 {
        let tokens = common::random_vocab(seed, 32);
        let vocab = Arc::new(Vocabulary::from_tokens_with_eos(tokens, "</s>"));
        let bound = Arc::new(BoundGrammar::new(c.clone(), vocab));
        let min = Matcher::new(bound.clone()).min_tokens_to_complete();
        for (k, strategy) in [Strategy::Uniform, Strategy::Longest, Strategy::Shortest]
            .into_iter()
            .enumerate()
        {
            for budget in min..min + 4 {
                let used = generate(
                    &bound,
                    budget,
                    strategy,
                    seed * 100 + (k * 10 + budget) as u64,
                    &reference,
                );
                assert!(used <= budget);
                runs += 1;
            }
        }
    }
    assert_eq!(runs, 20 * 3 * 4);
}

/// With a tight rule (no space before its lexemes) and without, the
/// budget's merged classes of previous lexemes give the estimates and
/// budgeted masks of one class per terminal. (Merging by extending bytes
/// alone, ignoring tight pairs, passes this too: these grammars never make
/// a separator cheaper than a tight pair's direct cost.)
#[test]
fn budget_classes_plan_like_one_class_per_terminal_with_tight_rules() {
    let mut points = 0;
    for tight in [true, false] {
        let c = Arc::new(CompiledGrammar::new(&chunked(tight).build().unwrap()).unwrap());
        for seed in 0..40u64 {
            let mut tokens = common::random_vocab(seed, 16);
            tokens.extend([
                b" ".to_vec(),
                b"\"".to_vec(),
                b"ab".to_vec(),
                b"c\"".to_vec(),
            ]);
            let vocab = Arc::new(Vocabulary::from_tokens_with_eos(tokens, "</s>"));
            points += common::budget::plans_like_one_class_per_terminal(&c, &vocab, seed).unwrap();
        }
    }
    assert!(points > 300, "{points}");
}
