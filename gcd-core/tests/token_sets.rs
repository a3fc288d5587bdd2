//! llguidance's token sets in rules (`<[3-5,7]>`): exactly one token whose
//! id is in the set, checked as masks on a hand-built vocabulary, against
//! the reference recognizer along random walks, and the forms gcd refuses.

mod common;

use std::sync::Arc;

use common::walk::check_walk_in;
use gcd_core::vocab::VocabErrorKind;
use gcd_core::{BoundGrammar, CompiledGrammar, DiagnosticKind, Matcher, Vocabulary};

fn compile(src: &str) -> Arc<CompiledGrammar> {
    let g = gcd_core::lark::parse_grammar(src).unwrap_or_else(|e| panic!("{src}\n{e}"));
    Arc::new(CompiledGrammar::new(&g).unwrap_or_else(|e| panic!("{src}\n{e}")))
}

/// Ordinary `a` (0), `b` (1), ` ` (2), `ab` (3); special `<|s4|>` ..
/// `<|s9|>` (4..=9); the text `<|s4|>` as an ordinary token (10); EOS
/// `</s>` (11, special).
fn vocab() -> Arc<Vocabulary> {
    let mut tokens: Vec<Vec<u8>> = ["a", "b", " ", "ab"].map(Vec::from).to_vec();
    let special: Vec<u32> = (4..=9).chain([11]).collect();
    for k in 4..=9 {
        tokens.push(format!("<|s{k}|>").into_bytes());
    }
    tokens.push(b"<|s4|>".to_vec());
    tokens.push(b"</s>".to_vec());
    Arc::new(Vocabulary::from_tokens_with_special(
        tokens,
        &special,
        &[11],
    ))
}

fn allowed(m: &Matcher) -> Vec<u32> {
    let mask = m.compute_mask(m.bound().vocab().len());
    mask.iter_ones().map(|i| i as u32).collect()
}

#[test]
fn a_set_allows_exactly_its_ids_once() {
    let v = vocab();
    let c = compile("start: \"a\" <[4-5,7]> \"b\"");
    let mut m = Matcher::new(Arc::new(BoundGrammar::new(c, v)));
    assert_eq!(allowed(&m), [0]);
    m.advance(0).unwrap();
    // Exactly the set: not 6, 8 or 9, not the text `<|s4|>`, not EOS.
    assert_eq!(allowed(&m), [4, 5, 7]);
    m.advance(5).unwrap();
    // One token, not two.
    assert_eq!(allowed(&m), [1]);
    m.advance(1).unwrap();
    assert_eq!(allowed(&m), [11]);
    assert!(m.is_complete());
    assert_eq!(m.text(), "a<|s5|>b");
}

#[test]
fn sets_next_to_named_tokens_and_repeated() {
    let v = vocab();
    let c = compile("start: (<[4,6-7]> \"a\")+ <|s9|>");
    let mut m = Matcher::new(Arc::new(BoundGrammar::new(c, v)));
    assert_eq!(allowed(&m), [4, 6, 7]);
    for t in [6, 0, 4, 0] {
        m.advance(t).unwrap();
    }
    assert_eq!(allowed(&m), [4, 6, 7, 9]);
    // A set written twice, in either order, is one set.
    let c = compile("start: <[5,4]> \"a\" | <[4-5]> \"b\"");
    let m = Matcher::new(Arc::new(BoundGrammar::new(c, vocab())));
    assert_eq!(allowed(&m), [4, 5]);
}

const GRAMMARS: &[&str] = &[
    "start: \"a\"+ <[4-6]>",
    "start: (\"a\" | \"b\")* <[4,6,8-9]> \"a\"*",
    "start: WORD (<[4-5]> WORD)* <[6-7]>\nWORD: /[ab]+/",
    "start: x+ <|s9|>\nx: \"a\" <[4-6]>? | \"b\"",
];

#[test]
fn masks_equal_reference() {
    let v = vocab();
    let mut masks = 0;
    for src in GRAMMARS {
        let c = compile(src);
        for seed in 0..12 {
            masks += check_walk_in(c.clone(), v.clone(), seed, 10);
        }
    }
    assert!(masks > 200, "only {masks} masks checked");
}

#[test]
fn refused_forms_are_errors_naming_them() {
    for (src, kind, says) in [
        (
            "start: <[*]>",
            DiagnosticKind::Unsupported,
            "any token includes ordinary text tokens",
        ),
        (
            "start: <[^4,5]>",
            DiagnosticKind::Unsupported,
            "any token but these includes ordinary text tokens",
        ),
        (
            "start: <[5-3]>",
            DiagnosticKind::Syntax,
            "the range `5-3` is empty",
        ),
        (
            "start: <[1-x]>",
            DiagnosticKind::Syntax,
            "`x` is not a token id",
        ),
        (
            "start: <[1,,2]>",
            DiagnosticKind::Syntax,
            "`` is not a token id",
        ),
        (
            "start: <[0-70000]>",
            DiagnosticKind::TooLarge,
            "the set holds 70001 ids",
        ),
        (
            "start: T\nT: \"a\" <[4-5]>",
            DiagnosticKind::Syntax,
            "cannot use token set <[4-5]>",
        ),
    ] {
        common::assert_refused(src, kind, says, None);
    }
    // Binding: every id must be a special token of the vocabulary, and
    // each id named once.
    for (src, says) in [
        ("start: <[2-4]>", "token 2 is ordinary text"),
        ("start: <[11-12]>", "id 12 is out of range"),
        ("start: <[4-5]> <|s4|>", "names token 4 twice"),
    ] {
        let e = BoundGrammar::try_new(compile(src), vocab()).unwrap_err();
        assert_eq!(e.kind(), VocabErrorKind::SpecialToken, "{src}: {e}");
        assert!(e.to_string().contains(says), "{src}: {e}");
    }
}
