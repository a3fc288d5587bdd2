//! Bound-table snapshots (`BoundGrammar::to_bytes` / `from_bytes`): tables
//! for a tokenizer fixed at build time load back equal, give the same masks,
//! refuse another grammar or vocabulary, and never panic on damage.

mod common;

use std::sync::Arc;
use std::time::Instant;

use gcd_core::bind::BoundGrammar;
use gcd_core::runtime::matcher::Matcher;
use gcd_core::vocab::trie::TokenTrie;
use gcd_core::vocab::Vocabulary;
use gcd_core::{CompiledGrammar, SnapshotError};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn assert_same_tables(a: &BoundGrammar, b: &BoundGrammar) {
    assert_eq!(a.trie(), b.trie());
    assert_eq!(a.states(), b.states());
    assert_eq!(a.end_filters(), b.end_filters());
    assert_eq!(a.budget(), b.budget());
}

/// Masks (budgeted too) along a random walk agree between the two.
fn assert_same_masks(a: Arc<BoundGrammar>, b: Arc<BoundGrammar>, seed: u64, steps: usize) {
    let width = a.vocab().len();
    let mut rng = StdRng::seed_from_u64(seed);
    let (mut ma, mut mb) = (Matcher::new(a), Matcher::new(b));
    for _ in 0..steps {
        let mask = ma.compute_mask(width);
        assert_eq!(
            mask,
            mb.compute_mask(width),
            "seed {seed} after {:?}",
            ma.output()
        );
        let allowed: Vec<usize> = mask.iter_ones().collect();
        let Some(&t) = allowed.get(rng.random_range(0..allowed.len().max(1))) else {
            break;
        };
        ma.advance(t as u32).unwrap();
        mb.advance(t as u32).unwrap();
        if ma.is_finished() {
            break;
        }
    }
    assert_eq!(ma.min_tokens_to_complete(), mb.min_tokens_to_complete());
}

#[test]
fn random_grammars_and_vocabularies_round_trip() {
    let mut checked = 0;
    for seed in 0..400 {
        let Some(g) = common::random_grammar(seed).compile() else {
            continue;
        };
        let g = Arc::new(g);
        let vocab = Arc::new(Vocabulary::from_tokens_with_eos(
            common::random_vocab(seed, 40),
            "</s>",
        ));
        let bound = Arc::new(BoundGrammar::new(g.clone(), vocab.clone()));
        let bytes = bound.to_bytes();
        let loaded = Arc::new(BoundGrammar::from_bytes(g, vocab, &bytes).unwrap());
        assert_same_tables(&bound, &loaded);
        assert_same_masks(bound, loaded, seed, 30);
        checked += 1;
    }
    assert!(checked > 40, "only {checked}");
}

#[test]
fn another_grammar_or_vocabulary_or_damage_is_an_error() {
    let g = |src: &str| {
        Arc::new(CompiledGrammar::new(&gcd_core::lark::parse_grammar(src).unwrap()).unwrap())
    };
    let (g1, g2) = (g("start: \"a\"+ \"b\""), g("start: \"a\" \"b\"+"));
    let toks = |v: &[&str]| {
        Arc::new(Vocabulary::from_tokens(
            v.iter().map(|s| s.as_bytes().to_vec()).collect(),
            vec![],
        ))
    };
    let (v1, v2) = (toks(&["a", "b", "ab", "aa"]), toks(&["a", "b", "ba", "aa"]));
    let bytes = BoundGrammar::new(g1.clone(), v1.clone()).to_bytes();
    assert!(matches!(
        BoundGrammar::from_bytes(g2, v1.clone(), &bytes),
        Err(SnapshotError::Mismatch(_))
    ));
    assert!(matches!(
        BoundGrammar::from_bytes(g1.clone(), v2, &bytes),
        Err(SnapshotError::Mismatch(_))
    ));
    assert!(matches!(
        BoundGrammar::from_bytes(g1.clone(), v1.clone(), b"nope"),
        Err(SnapshotError::NotASnapshot)
    ));
    for len in 0..bytes.len() {
        assert!(
            BoundGrammar::from_bytes(g1.clone(), v1.clone(), &bytes[..len]).is_err(),
            "truncated to {len}"
        );
    }
    for i in 12..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0xff;
        // Either refused or consistent enough to use without panicking.
        if let Ok(bound) = BoundGrammar::from_bytes(g1.clone(), v1.clone(), &b) {
            let m = Matcher::new(Arc::new(bound));
            let _ = m.compute_mask(4);
        }
    }
}

#[test]
fn json_on_llama3_round_trips_and_reports_start_up() {
    let Some(root) = common::data::shared_data() else {
        return;
    };
    let vocab = Arc::new(
        Vocabulary::from_tokenizer_json(root.join("tokenizers/llama3/tokenizer.json")).unwrap(),
    );
    let g = gcd_core::lark::builtin::json_compiled();
    let t0 = Instant::now();
    let trie = Arc::new(TokenTrie::new(&vocab));
    let t1 = Instant::now();
    let bound = Arc::new(BoundGrammar::with_trie(g.clone(), vocab.clone(), trie));
    let t2 = Instant::now();
    let bytes = bound.to_bytes();
    let t3 = Instant::now();
    let loaded = Arc::new(BoundGrammar::from_bytes(g, vocab, &bytes).unwrap());
    let t4 = Instant::now();
    eprintln!(
        "llama3 + JSON: trie {:.1} ms + bind {:.1} ms; snapshot {} KiB written in {:.1} ms, loaded in {:.1} ms",
        (t1 - t0).as_secs_f64() * 1e3,
        (t2 - t1).as_secs_f64() * 1e3,
        bytes.len() / 1024,
        (t3 - t2).as_secs_f64() * 1e3,
        (t4 - t3).as_secs_f64() * 1e3,
    );
    assert_same_tables(&bound, &loaded);
    for seed in 0..5 {
        assert_same_masks(bound.clone(), loaded.clone(), seed, 40);
    }
}
