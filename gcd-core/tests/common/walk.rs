//! The matcher checked against the brute-force reference along a walk.

use std::sync::Arc;

use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::runtime::matcher::{MatchErrorKind, Matcher};
use gcd_core::runtime::recognizer::{Recognizer, Status};
use gcd_core::vocab::{TokenKind, Vocabulary};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Most derivations the reference follows at once before a walk stops.
const REFERENCE_DERIVATIONS: usize = 5_000;

/// Compares masks along one random walk; returns how many masks were checked.
pub fn check_walk(
    compiled: Arc<CompiledGrammar>,
    tokens: Vec<Vec<u8>>,
    seed: u64,
    steps: usize,
) -> usize {
    let vocab = Arc::new(Vocabulary::from_tokens_with_eos(tokens, "</s>"));
    check_walk_in(compiled, vocab, seed, steps)
}

/// [`check_walk`] over any vocabulary. The reference reads each token as
/// the binding spells it (a special token the grammar names as its symbol
/// bytes); EOS ids must be allowed exactly when the output is complete, and
/// other special tokens never.
pub fn check_walk_in(
    compiled: Arc<CompiledGrammar>,
    vocab: Arc<Vocabulary>,
    seed: u64,
    steps: usize,
) -> usize {
    check_walk_with(compiled, vocab, seed, steps, |_| {})
}

/// [`check_walk_in`] with the binding set up by `setup` first.
pub fn check_walk_with(
    compiled: Arc<CompiledGrammar>,
    vocab: Arc<Vocabulary>,
    seed: u64,
    steps: usize,
    setup: impl FnOnce(&mut BoundGrammar),
) -> usize {
    let mut bound = BoundGrammar::try_new(compiled.clone(), vocab).unwrap();
    setup(&mut bound);
    let bound = Arc::new(bound);
    let vocab = bound.vocab().clone();
    let tokens: Vec<Option<Vec<u8>>> = (0..vocab.len() as u32)
        .map(|id| {
            let text = vocab.kind(id).unwrap() == TokenKind::Normal && !vocab.is_eos(id);
            text.then(|| vocab.token_bytes(id).unwrap().to_vec())
        })
        .collect();
    let reference = Recognizer::new(&compiled);
    let mut patient = Recognizer::new(&compiled);
    patient.search_limit = 5_000_000;
    let mut m = Matcher::new(bound);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut checked = 0;
    for _ in 0..steps {
        let mask = m.compute_mask(tokens.len());
        let prefix = m.output().to_vec();
        let complete = reference.is_complete(&prefix);
        let mut allowed = Vec::new();
        let mut over_cap = 0;
        for (id, t) in tokens.iter().enumerate() {
            let Some(t) = t else {
                let want = complete && vocab.is_eos(id as u32);
                assert_eq!(
                    mask[id],
                    want,
                    "special token {id} after {:?}",
                    String::from_utf8_lossy(&prefix)
                );
                continue;
            };
            let mut s = prefix.clone();
            s.extend_from_slice(t);
            // The matcher shares stacks; the reference keeps each one, and
            // past this many it cannot judge in test time.
            if !reference.follows_within(&s, REFERENCE_DERIVATIONS) {
                eprintln!("seed {seed}: the reference stops after {checked} masks (more than {REFERENCE_DERIVATIONS} derivations)");
                return checked;
            }
            let st = reference.status(&s);
            // Rare grammars need long completions; search harder before giving up.
            let st = if st == Status::Unknown {
                patient.status(&s)
            } else {
                st
            };
            assert_ne!(
                st,
                Status::Unknown,
                "reference gave up on {:?}",
                String::from_utf8_lossy(&s)
            );
            assert_eq!(
                mask[id],
                st.is_viable(),
                "token {:?} after {:?}: matcher {} reference {:?}",
                String::from_utf8_lossy(t),
                String::from_utf8_lossy(&prefix),
                mask[id],
                st
            );
            // advance() must agree with the mask, except that a generalized
            // grammar may refuse to follow more derivations than its cap
            // (with that error, never another).
            let mut probe = m.clone();
            let advanced = probe.advance(id as u32);
            if advanced
                .as_ref()
                .is_err_and(|e| e.kind() == MatchErrorKind::TooManyConfigurations)
            {
                assert!(mask[id], "over the cap on a token the mask forbids");
                over_cap += 1;
                continue;
            }
            if mask[id] {
                allowed.push(id as u32);
            }
            assert_eq!(
                advanced.is_ok(),
                mask[id],
                "advance by {:?} after {:?}: {advanced:?}",
                String::from_utf8_lossy(t),
                String::from_utf8_lossy(&prefix)
            );
        }
        assert_eq!(
            m.is_complete(),
            complete,
            "completeness after {:?}",
            String::from_utf8_lossy(&prefix)
        );
        checked += 1;
        if allowed.is_empty() && over_cap > 0 {
            break;
        }
        if allowed.is_empty() {
            // Only a complete output may have nowhere to go.
            assert!(
                complete,
                "dead end after {:?}",
                String::from_utf8_lossy(&prefix)
            );
            break;
        }
        let t = allowed[rng.random_range(0..allowed.len())];
        m.advance(t).unwrap();
    }
    checked
}
