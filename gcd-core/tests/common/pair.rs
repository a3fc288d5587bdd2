//! Two bindings of one grammar that must give the same masks (a table or
//! cache on, and off), compared step by step.

use std::sync::Arc;

use bitvec::vec::BitVec;
use gcd_core::bind::BoundGrammar;
use gcd_core::runtime::matcher::Matcher;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Follows `tokens` (then random allowed tokens, up to `steps` in all) with
/// both bindings, optionally under a `budget`, and compares their masks at
/// every step, naming tokens that only one allows; returns how many masks.
pub fn compare_masks(
    pair: &[Arc<BoundGrammar>; 2],
    budget: Option<usize>,
    tokens: &[u32],
    steps: usize,
    seed: u64,
) -> usize {
    let vocab = pair[0].vocab();
    let width = vocab.len();
    let mut ms = pair.clone().map(Matcher::new);
    if let Some(n) = budget {
        ms = ms.map(|m| m.with_budget(n).unwrap());
    }
    let mut rng = StdRng::seed_from_u64(seed);
    for step in 0..steps {
        let [a, b] = [&ms[0], &ms[1]].map(|m| m.compute_mask(width));
        if a != b {
            let only = |x: &BitVec<u64>, y: &BitVec<u64>| -> Vec<String> {
                (x.iter_ones().filter(|&t| !y[t]).take(5))
                    .map(|t| {
                        String::from_utf8_lossy(vocab.token_bytes(t as u32).unwrap()).into_owned()
                    })
                    .collect()
            };
            panic!(
                "after {:?}: only the first binding allows {:?}, only the second {:?}",
                String::from_utf8_lossy(ms[0].output()),
                only(&a, &b),
                only(&b, &a)
            );
        }
        let allowed: Vec<usize> = a.iter_ones().filter(|&t| !vocab.is_eos(t as u32)).collect();
        let t = match tokens.get(step) {
            Some(&t) if a[t as usize] => t,
            Some(_) => return step + 1,
            None if allowed.is_empty() => return step + 1,
            None => allowed[rng.random_range(0..allowed.len())] as u32,
        };
        for m in &mut ms {
            m.advance(t).unwrap();
        }
    }
    steps
}
