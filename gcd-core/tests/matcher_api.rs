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

/// A fresh matcher advanced by `tokens`, for comparing with one that got
/// there through forks, rollbacks or a late budget.
fn replay(b: &Arc<BoundGrammar>, budget: Option<usize>, tokens: &[u32]) -> Matcher {
    let mut m = Matcher::new(b.clone());
    m.set_budget(budget).unwrap();
    for &t in tokens {
        m.advance(t).unwrap();
    }
    m
}

const LIST: &str = r#"
start: "[" [ITEM ("," ITEM)*] "]"
ITEM: /[a-z]+/
"#;
const LIST_TOKENS: &[&str] = &["[", "]", "a", "bc", ",", "a,", "]]", "[a"];

#[test]
fn forks_diverge_independently() {
    let (b, toks) = setup(LIST, LIST_TOKENS);
    let w = toks.len() + 1;
    let t = |s| id(&toks, s);
    let mut m = Matcher::new(b.clone());
    m.advance(t("[")).unwrap();
    let at_fork = m.compute_mask(w);
    let (mut left, mut right) = (m.clone(), m.clone());
    left.advance(t("a")).unwrap();
    left.advance(t(",")).unwrap();
    right.advance(t("]")).unwrap();
    // Each branch is what a fresh replay of its own tokens is.
    for branch in [&left, &right, &m] {
        let fresh = replay(&b, None, branch.tokens());
        assert_eq!(
            branch.compute_mask(w),
            fresh.compute_mask(w),
            "{:?}",
            branch.tokens()
        );
        assert_eq!(branch.output(), fresh.output());
        assert_eq!(branch.is_complete(), fresh.is_complete());
    }
    assert!(right.is_complete() && !left.is_complete());
    assert_ne!(left.compute_mask(w), right.compute_mask(w));
    assert_eq!(m.compute_mask(w), at_fork, "the parent is untouched");
    // Rolling one branch back leaves the other where it was.
    left.rollback(2).unwrap();
    assert_eq!(left.compute_mask(w), at_fork);
    assert_eq!(right.output(), b"[]");
    right.rollback(1).unwrap();
    right.advance(t("bc")).unwrap();
    assert_eq!(left.output(), b"[");
    assert_eq!(right.output(), b"[bc");
    assert_eq!(
        right.compute_mask(w),
        replay(&b, None, right.tokens()).compute_mask(w)
    );
}

#[test]
fn rollback_edge_cases() {
    let (b, toks) = setup(LIST, LIST_TOKENS);
    let w = toks.len() + 1;
    let eos = toks.len() as u32;
    let t = |s| id(&toks, s);
    let mut m = Matcher::new(b.clone());
    // rollback(0) on a new matcher and later changes nothing.
    m.rollback(0).unwrap();
    m.advance(t("[a")).unwrap();
    let before = m.compute_mask(w);
    m.rollback(0).unwrap();
    assert_eq!(
        (m.output(), m.compute_mask(w)),
        (&b"[a"[..], before.clone())
    );
    m.advance(t("]")).unwrap();
    let complete = m.compute_mask(w);
    assert!(complete[eos as usize]);
    // Past EOS: rolling back the EOS token reopens the output as it was.
    m.advance(eos).unwrap();
    assert!(m.is_finished());
    assert_eq!(m.compute_mask(w).count_ones(), 0, "nothing after EOS");
    m.rollback(1).unwrap();
    assert!(!m.is_finished() && m.is_complete());
    assert_eq!(m.compute_mask(w), complete);
    assert_eq!(m.tokens(), [t("[a"), t("]")]);
    // Rolling back EOS and the token before it in one call.
    m.advance(eos).unwrap();
    m.rollback(2).unwrap();
    assert_eq!(m.compute_mask(w), before);
    assert_eq!(
        m.rollback(2).unwrap_err().kind(),
        MatchErrorKind::RollbackTooFar
    );
    m.rollback(1).unwrap();
    assert_eq!(m.compute_mask(w), Matcher::new(b).compute_mask(w));
}

#[test]
fn rollback_under_a_budget() {
    let (b, toks) = setup(LIST, LIST_TOKENS);
    let w = toks.len() + 1;
    let eos = toks.len() as u32;
    let t = |s| id(&toks, s);
    let allowed = |m: &Matcher| -> Vec<&str> {
        m.compute_mask(w)
            .iter_ones()
            .map(|i| LIST_TOKENS.get(i).copied().unwrap_or("<eos>"))
            .collect()
    };
    // Five tokens: "[", "a", ",", then an item and "]".
    let mut m = Matcher::new(b.clone()).with_budget(5).unwrap();
    let path = [t("["), t("a"), t(",")];
    let mut masks = vec![m.compute_mask(w)];
    for &tok in &path {
        m.advance(tok).unwrap();
        masks.push(m.compute_mask(w));
    }
    // "a," would leave an item and "]" for one token.
    assert_eq!(allowed(&m), ["a", "bc"]);
    // Several tokens back at once: the mask is the budgeted one of that prefix.
    m.rollback(2).unwrap();
    assert_eq!(m.compute_mask(w), masks[1]);
    assert_eq!(
        m.compute_mask(w),
        replay(&b, Some(5), &path[..1]).compute_mask(w)
    );
    m.advance(t("a")).unwrap();
    assert_eq!(m.compute_mask(w), masks[2]);
    // Spend the whole budget, then roll back into it.
    let mut spent = Matcher::new(b.clone()).with_budget(3).unwrap();
    spent.advance(t("[")).unwrap();
    spent.advance(t("a")).unwrap();
    assert_eq!(allowed(&spent), ["]"], "one token left: close");
    spent.advance(t("]")).unwrap();
    assert_eq!(
        spent.compute_mask(w).iter_ones().collect::<Vec<_>>(),
        [eos as usize]
    );
    spent.rollback(1).unwrap();
    assert_eq!(allowed(&spent), ["]"]);
    spent.rollback(1).unwrap();
    assert_eq!(allowed(&spent), ["]", "a", "bc"]);
    assert_eq!(
        spent.compute_mask(w),
        replay(&b, Some(3), &[t("[")]).compute_mask(w)
    );
}

#[test]
fn budget_set_mid_generation() {
    let (b, toks) = setup(LIST, LIST_TOKENS);
    let w = toks.len() + 1;
    let t = |s| id(&toks, s);
    let prefix = [t("["), t("a"), t(",")];
    let mut m = replay(&b, None, &prefix);
    // Three tokens used and two more needed at least ("a", "]"): 4 is too few.
    let err = m.set_budget(Some(4)).unwrap_err();
    assert_eq!(err.kind(), MatchErrorKind::BudgetTooSmall);
    assert_eq!(m.budget(), None, "a refused budget changes nothing");
    assert_eq!(m.compute_mask(w), replay(&b, None, &prefix).compute_mask(w));
    m.set_budget(Some(5)).unwrap();
    let budgeted = replay(&b, Some(5), &prefix).compute_mask(w);
    assert_eq!(m.compute_mask(w), budgeted);
    assert!(
        !budgeted[t("a,") as usize],
        "\"a,\" leaves no room to close"
    );
    assert!(budgeted[t("a") as usize]);
    // Lifting the budget gives back the plain mask.
    m.set_budget(None).unwrap();
    assert_eq!(m.budget(), None);
    let plain = m.compute_mask(w);
    assert_eq!(plain, replay(&b, None, &prefix).compute_mask(w));
    assert!(plain[t("a,") as usize]);
}

/// Llama-3 ends a turn with either of two ids; each is EOS in every respect.
#[test]
fn several_eos_ids() {
    let g = CompiledGrammar::new(&lark::parse_grammar(LIST).unwrap()).unwrap();
    let mut toks: Vec<Vec<u8>> = LIST_TOKENS.iter().map(|t| t.as_bytes().to_vec()).collect();
    let (eos_a, eos_b) = (toks.len() as u32, toks.len() as u32 + 2);
    toks.extend([b"<|end|>".to_vec(), b"x".to_vec(), b"<|eot|>".to_vec()]);
    let vocab = Vocabulary::from_tokens(toks.clone(), vec![eos_a, eos_b]);
    assert_eq!(vocab.eos_ids(), [eos_a, eos_b]);
    let b = Arc::new(BoundGrammar::new(Arc::new(g), Arc::new(vocab)));
    let w = toks.len();
    let t = |s| id(&toks, s);
    let mut m = Matcher::new(b);
    m.advance(t("[")).unwrap();
    let open = m.compute_mask(w);
    assert!(!open[eos_a as usize] && !open[eos_b as usize]);
    for eos in [eos_a, eos_b] {
        assert_eq!(
            m.clone().advance(eos).unwrap_err().kind(),
            MatchErrorKind::TokenNotAllowed
        );
    }
    m.advance(t("]")).unwrap();
    let done = m.compute_mask(w);
    assert_eq!(
        done.iter_ones().collect::<Vec<_>>(),
        [eos_a as usize, eos_b as usize]
    );
    assert_eq!(m.min_tokens_to_complete(), 0);
    for eos in [eos_a, eos_b] {
        let mut end = m.clone();
        end.advance(eos).unwrap();
        assert!(end.is_finished());
        assert_eq!(end.tokens().last(), Some(&eos));
        assert_eq!(end.output(), b"[]", "EOS adds no text");
    }
}

/// Table sizes are what was built: nothing before the first mask, more
/// after it, all of it after `build_all`, and nothing more after that.
#[test]
fn table_sizes_follow_what_was_built() {
    let (b, toks) = setup(LIST, LIST_TOKENS);
    assert_eq!(b.table_bytes(), 0, "binding is lazy");
    // A trie node per distinct token prefix: at least one per token.
    let trie = b.trie();
    assert!(trie.num_nodes() >= toks.len() && trie.heap_bytes() > 0);
    let m = Matcher::new(b.clone());
    m.compute_mask(toks.len() + 1);
    let first = b.table_bytes();
    assert!(first > 0);
    b.build_all();
    let all = b.table_bytes();
    assert!(all > first, "{all} {first}");
    b.build_all();
    assert_eq!(b.table_bytes(), all);
}
