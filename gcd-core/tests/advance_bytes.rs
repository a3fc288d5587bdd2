//! `Matcher::advance_bytes`: bytes fed directly lead where the same bytes
//! taken as tokens lead (masks and completeness agree, whatever the cuts),
//! a refused run changes nothing, and rollback undoes a run as one step.

mod common;

use std::sync::Arc;

use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::runtime::matcher::{MatchErrorKind, Matcher};
use gcd_core::vocab::Vocabulary;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[test]
fn bytes_in_any_cuts_agree_with_tokens_on_random_grammars() {
    let (mut walks, mut compared) = (0, 0);
    for seed in 0..300u64 {
        let Some(c) = common::random_grammar(seed).compile() else {
            continue;
        };
        let tokens = common::random_vocab(seed, 24);
        let vocab = Arc::new(Vocabulary::from_tokens_with_eos(tokens.clone(), "</s>"));
        let bound = Arc::new(BoundGrammar::new(Arc::new(c), vocab.clone()));
        let width = vocab.len();
        let mut rng = StdRng::seed_from_u64(seed);
        let mut by_tokens = Matcher::new(bound.clone());
        let mut by_bytes = Matcher::new(bound.clone());
        for _ in 0..10 {
            let mask = by_tokens.compute_mask(width);
            let allowed: Vec<u32> = (0..tokens.len() as u32)
                .filter(|&t| mask[t as usize])
                .collect();
            if allowed.is_empty() {
                break;
            }
            let t = allowed[rng.random_range(0..allowed.len())];
            by_tokens.advance(t).unwrap();
            // The new bytes, cut at random points.
            let new = by_tokens.output()[by_bytes.output().len()..].to_vec();
            let mut at = 0;
            while at < new.len() {
                let end = rng.random_range(at + 1..=new.len());
                by_bytes.advance_bytes(&new[at..end]).unwrap();
                at = end;
            }
            assert_eq!(by_bytes.output(), by_tokens.output());
            assert_eq!(
                by_bytes.is_complete(),
                by_tokens.is_complete(),
                "seed {seed}"
            );
            let (a, b) = (by_tokens.compute_mask(width), by_bytes.compute_mask(width));
            assert_eq!(
                a,
                b,
                "seed {seed} after {:?}",
                String::from_utf8_lossy(by_tokens.output())
            );
            // A token's bytes fed directly: allowed exactly where the mask says.
            for (id, bytes) in tokens.iter().enumerate() {
                let mut probe = by_bytes.clone();
                assert_eq!(probe.advance_bytes(bytes).is_ok(), a[id], "seed {seed}");
                assert_eq!(by_bytes.accepts_bytes(bytes), a[id], "seed {seed}");
            }
            compared += 1;
        }
        walks += 1;
    }
    assert!(
        walks > 150 && compared > 800,
        "{walks} walks, {compared} steps"
    );
}

#[test]
fn refused_runs_change_nothing_and_rollback_undoes_runs() {
    let g = gcd_core::lark::parse_grammar("start: \"call(\" NAME \")\"\nNAME: /[a-z]+/\n").unwrap();
    let toks: Vec<Vec<u8>> = ["call(", "x", ")"]
        .iter()
        .map(|t| t.as_bytes().to_vec())
        .collect();
    let vocab = Arc::new(Vocabulary::from_tokens_with_eos(toks, "<eos>"));
    let b = Arc::new(BoundGrammar::new(
        Arc::new(CompiledGrammar::new(&g).unwrap()),
        vocab,
    ));
    let mut m = Matcher::new(b.clone());
    m.advance_bytes(b"cal").unwrap();
    let before = m.compute_mask(4);
    let err = m.advance_bytes(b"l(1").unwrap_err();
    assert_eq!(err.kind(), MatchErrorKind::TokenNotAllowed);
    assert!(err.to_string().contains("l(1"), "{err}");
    assert_eq!(
        (m.output(), m.compute_mask(4)),
        (&b"cal"[..], before.clone())
    );
    m.advance_bytes(b"l(").unwrap();
    m.advance(1).unwrap(); // "x"
    m.advance_bytes(b"yz)").unwrap();
    assert!(m.is_complete());
    assert_eq!(m.tokens(), &[1]);
    m.rollback(1).unwrap(); // the run "yz)"
    assert_eq!((m.output(), m.tokens()), (&b"call(x"[..], &[1u32][..]));
    m.rollback(1).unwrap(); // the token "x"
    assert_eq!((m.output(), m.tokens().len()), (&b"call("[..], 0));
    m.rollback(2).unwrap();
    assert_eq!(
        (m.output(), m.compute_mask(4)),
        (&b""[..], Matcher::new(b.clone()).compute_mask(4))
    );
    // After EOS nothing is fed; under lexeme caps bytes are refused.
    let mut done = Matcher::new(b.clone());
    done.advance_bytes(b"call(a)").unwrap();
    done.advance(3).unwrap();
    assert_eq!(
        done.advance_bytes(b" ").unwrap_err().kind(),
        MatchErrorKind::Finished
    );
    let mut capped = Matcher::new(b);
    capped.set_lexeme_cap("NAME", Some(4)).unwrap();
    assert_eq!(
        capped.advance_bytes(b"call(").unwrap_err().kind(),
        MatchErrorKind::LexemeCap
    );
}

#[test]
fn bytes_under_a_budget_cost_no_token() {
    let g = gcd_core::lark::parse_grammar("start: \"[\" ITEM (\",\" ITEM)* \"]\"\nITEM: /[0-9]/\n")
        .unwrap();
    let toks: Vec<Vec<u8>> = ["[", "]", ",", "1", "2", "[1", ",2"]
        .iter()
        .map(|t| t.as_bytes().to_vec())
        .collect();
    let vocab = Arc::new(Vocabulary::from_tokens_with_eos(toks, "<eos>"));
    let b = Arc::new(BoundGrammar::new(
        Arc::new(CompiledGrammar::new(&g).unwrap()),
        vocab,
    ));
    let mut m = Matcher::new(b).with_budget(3).unwrap();
    m.advance_bytes(b"[1,2,1").unwrap();
    assert_eq!(m.tokens().len(), 0);
    // One token closes it ("]"), well within the budget.
    assert_eq!(m.min_tokens_to_complete(), 1);
    m.advance(1).unwrap();
    assert!(m.is_complete());
}
