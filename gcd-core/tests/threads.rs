//! One bound grammar shared by 8 threads, each driving many matchers:
//! every mask equals the one a single thread computes. The threaded run
//! starts from a fresh binding, so the lazily built tables (per lexer
//! state, end filters, rooted subtrees, budget) are built while other
//! threads read them.

mod common;

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::runtime::matcher::Matcher;
use gcd_core::vocab::Vocabulary;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const THREADS: usize = 8;
const MATCHERS_PER_THREAD: usize = 40;
const STEPS: usize = 12;

/// The masks of one matcher's seeded random walk, hashed step by step
/// (budgeted on odd seeds).
fn walk(bound: &Arc<BoundGrammar>, seed: u64) -> Vec<u64> {
    let width = bound.vocab().len();
    let mut m = Matcher::new(bound.clone());
    if seed % 2 == 1 {
        let min = m.min_tokens_to_complete();
        m = m.with_budget(min + 10).unwrap();
    }
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..STEPS {
        let mask = m.compute_mask(width);
        let mut h = DefaultHasher::new();
        mask.as_raw_slice().hash(&mut h);
        out.push(h.finish());
        let allowed: Vec<usize> = mask
            .iter_ones()
            .filter(|&t| !bound.vocab().is_eos(t as u32))
            .collect();
        if allowed.is_empty() {
            break;
        }
        m.advance(allowed[rng.random_range(0..allowed.len())] as u32)
            .unwrap();
    }
    out
}

fn check(grammar: Arc<CompiledGrammar>, vocab: Arc<Vocabulary>) -> usize {
    let seeds = (THREADS * MATCHERS_PER_THREAD) as u64;
    let single = Arc::new(BoundGrammar::new(grammar.clone(), vocab.clone()));
    let expected: Vec<Vec<u64>> = (0..seeds).map(|s| walk(&single, s)).collect();
    let shared = Arc::new(BoundGrammar::new(grammar, vocab));
    let got: Vec<Vec<Vec<u64>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let shared = shared.clone();
                // Thread t takes seeds t, t + 8, ...: neighbours run at once.
                scope.spawn(move || {
                    (0..MATCHERS_PER_THREAD)
                        .map(|k| walk(&shared, (k * THREADS + t) as u64))
                        .collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut masks = 0;
    for (t, per_thread) in got.iter().enumerate() {
        for (k, hashes) in per_thread.iter().enumerate() {
            let seed = k * THREADS + t;
            assert_eq!(
                hashes, &expected[seed],
                "seed {seed}: masks differ between threads and one"
            );
            masks += hashes.len();
        }
    }
    masks
}

#[test]
fn json_masks_are_the_same_on_8_threads() {
    let vocab = Arc::new(Vocabulary::o200k_base().unwrap());
    let masks = check(gcd_core::lark::builtin::json_compiled(), vocab);
    assert!(masks > 3000, "{masks}");
}

/// A generalized grammar (Java: forks, shared stacks, rooted tables).
#[test]
fn java_masks_are_the_same_on_8_threads() {
    let Some(root) = common::data::shared_data() else {
        return;
    };
    let text =
        std::fs::read_to_string(root.join("grammars/lark-syncode/java_grammar.lark")).unwrap();
    let g = gcd_core::lark::parse_grammar(&text).unwrap();
    let compiled = Arc::new(CompiledGrammar::new(&g).unwrap());
    let vocab = Arc::new(Vocabulary::o200k_base().unwrap());
    let masks = check(compiled, vocab);
    assert!(masks > 3000, "{masks}");
}
