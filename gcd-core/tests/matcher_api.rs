//! The matcher's operations beyond masks: errors, rollback, forks, forced
//! continuations, logits.

use std::sync::Arc;

use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::lark;
use gcd_core::runtime::matcher::{MatchErrorKind, Matcher};
use gcd_core::vocab::Vocabulary;

fn setup(grammar: &str, tokens: &[&str]) -> (Arc<BoundGrammar>, Vec<Vec<u8>>) {
    let g = CompiledGrammar::new(&lark::parse_grammar(grammar).unwrap()).unwrap();
    let toks: Vec<Vec<u8>> = tokens.iter().map(|t| t.as_bytes().to_vec()).collect();
    let vocab = Vocabulary::from_tokens_with_eos(toks.clone(), "<eos>");
    (
        Arc::new(BoundGrammar::new(Arc::new(g), Arc::new(vocab))),
        toks,
    )
}

fn id(toks: &[Vec<u8>], t: &str) -> u32 {
    toks.iter().position(|x| x == t.as_bytes()).unwrap() as u32
}

const CALL: &str = r#"
start: "call(" NAME ")"
NAME: /[a-z]+/
"#;

#[test]
fn errors_leave_state_unchanged() {
    let (b, toks) = setup(CALL, &["call(", "x", ")", "call", "(", "y)"]);
    let eos = toks.len() as u32;
    let mut m = Matcher::new(b);
    let err = m.advance(999).unwrap_err();
    assert_eq!(err.kind(), MatchErrorKind::TokenOutOfRange);
    let err = m.advance(id(&toks, "x")).unwrap_err();
    assert_eq!(err.kind(), MatchErrorKind::TokenNotAllowed);
    assert!(err.to_string().contains("\"x\""), "{err}");
    let err = m.advance(eos).unwrap_err();
    assert_eq!(err.kind(), MatchErrorKind::TokenNotAllowed);
    assert!(m.output().is_empty() && m.tokens().is_empty());
    m.advance(id(&toks, "call")).unwrap();
    m.advance(id(&toks, "(")).unwrap();
    let before = m.compute_mask(toks.len() + 1);
    assert!(m.advance(id(&toks, "call(")).is_err());
    assert_eq!(m.compute_mask(toks.len() + 1), before);
    m.advance(id(&toks, "y)")).unwrap();
    assert!(m.is_complete());
    m.advance(eos).unwrap();
    assert!(m.is_finished());
    assert_eq!(
        m.advance(id(&toks, "x")).unwrap_err().kind(),
        MatchErrorKind::Finished
    );
    assert_eq!(m.output(), b"call(y)");
}

#[test]
fn rollback_and_fork() {
    let (b, toks) = setup(CALL, &["call(", "ab", "c", ")"]);
    let mut m = Matcher::new(b);
    m.advance(id(&toks, "call(")).unwrap();
    let fork = m.clone();
    m.advance(id(&toks, "ab")).unwrap();
    let mask_after_ab = m.compute_mask(5);
    m.advance(id(&toks, ")")).unwrap();
    assert!(m.is_complete());
    assert_eq!(
        m.rollback(4).unwrap_err().kind(),
        MatchErrorKind::RollbackTooFar
    );
    m.rollback(1).unwrap();
    assert_eq!(m.output(), b"call(ab");
    assert_eq!(m.compute_mask(5), mask_after_ab);
    m.rollback(1).unwrap();
    assert_eq!(m.output(), fork.output());
    assert_eq!(m.compute_mask(5), fork.compute_mask(5));
    // The fork is independent.
    let mut f2 = fork.clone();
    f2.advance(id(&toks, "c")).unwrap();
    assert_eq!(fork.output(), b"call(");
}

#[test]
fn forced_bytes_and_tokens() {
    let (b, toks) = setup(CALL, &["ca", "c", "all", "l", "(", "x", ")"]);
    let m = Matcher::new(b);
    assert_eq!(m.forced_bytes(), b"call(");
    let forced: Vec<u32> = m.forced_tokens();
    let spelled: Vec<u8> = forced
        .iter()
        .flat_map(|&t| toks[t as usize].clone())
        .collect();
    assert_eq!(spelled, b"call(");
    assert_eq!(forced[0], id(&toks, "ca"));
}

#[test]
fn logits_masked_to_width() {
    let (b, toks) = setup(CALL, &["call(", "x"]);
    let m = Matcher::new(b);
    let mut logits = vec![1.0f32; toks.len() + 1 + 10];
    m.mask_logits(&mut logits);
    assert_eq!(logits[0], 1.0);
    assert!(logits[1..].iter().all(|l| *l == f32::NEG_INFINITY));
    // A narrower width than the vocabulary is allowed too.
    assert_eq!(m.compute_mask(1).len(), 1);
}

#[test]
fn bound_grammar_is_shareable() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<BoundGrammar>();
    assert_send_sync::<Matcher>();
    let (b, toks) = setup(CALL, &["call(", "x", ")"]);
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let b = b.clone();
            std::thread::spawn(move || {
                let mut m = Matcher::new(b);
                m.advance(0).unwrap();
                m.advance(1).unwrap();
                m.advance(2).unwrap();
                m.is_complete()
            })
        })
        .collect();
    assert!(handles.into_iter().all(|h| h.join().unwrap()));
    let _ = toks;
}

/// A long history neither costs clones nor overflows the stack when dropped.
#[test]
fn long_history() {
    let (b, toks) = setup("start: A\nA: /a+/\n", &["a", "aa"]);
    let mut m = Matcher::new(b);
    for _ in 0..200_000 {
        m.advance(id(&toks, "a")).unwrap();
    }
    let fork = m.clone();
    m.rollback(100_000).unwrap();
    assert_eq!(m.output().len(), 100_000);
    assert_eq!(fork.output().len(), 200_000);
    drop(fork);
    drop(m);
}

/// `mask_logits` works a word at a time; it must agree with the mask bit
/// for bit, on a vocabulary wide enough to mix all-allowed, all-forbidden
/// and mixed words, at every step of a JSON document, at several widths.
#[test]
fn logits_agree_with_the_mask() {
    let mut toks: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
    for w in ["{\"", "\":", "true", "null", "12", "\"a", "bc", "\"}", ", "] {
        toks.push(w.as_bytes().to_vec());
    }
    let vocab = Arc::new(Vocabulary::from_tokens_with_eos(toks.clone(), "<eos>"));
    let b = Arc::new(BoundGrammar::new(
        gcd_core::lark::builtin::json_compiled(),
        vocab,
    ));
    let mut m = Matcher::new(b);
    for &byte in br#"{"abc": [true, null, 12]}"# {
        for width in [toks.len() + 1, 130, 64, 3] {
            let mask = m.compute_mask(width);
            let mut logits = vec![0.5f32; width];
            m.mask_logits(&mut logits);
            for (i, l) in logits.iter().enumerate() {
                assert_eq!(*l == 0.5, mask[i], "id {i} width {width}");
            }
        }
        m.advance(byte as u32).unwrap();
    }
}
