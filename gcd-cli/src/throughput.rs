//! Batch throughput: masks per second when a server fills the bitmask rows
//! of a whole batch at each step, rows in parallel on every core (what a
//! serving engine does between forward passes).
//!
//! The sequences are random walks over the allowed tokens, so every step
//! replays a real state; a batch keeps `batch` of them in flight and starts
//! the next walk as one ends, as continuous batching does.

use std::sync::Arc;
use std::time::{Duration, Instant};

use gcd_core::runtime::batch::{bitmask_words, fill_bitmasks};
use gcd_core::{BoundGrammar, Matcher};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// `count` random walks, each uniform over the allowed tokens at every
/// step, complete within `budget` tokens (EOS included in the walk).
pub fn random_walks(
    bound: &Arc<BoundGrammar>,
    count: usize,
    budget: usize,
    seed: u64,
) -> Vec<Vec<u32>> {
    let width = bound.vocab().len();
    (0..count)
        .map(|k| {
            let mut rng = StdRng::seed_from_u64(seed.wrapping_add(k as u64));
            let mut m = Matcher::new(bound.clone())
                .with_budget(budget)
                .expect("the budget covers the shortest output");
            while !m.is_finished() {
                let allowed: Vec<usize> = m.compute_mask(width).iter_ones().collect();
                let Some(&pick) = allowed.get(rng.random_range(0..allowed.len().max(1))) else {
                    break;
                };
                m.advance(pick as u32).expect("an allowed token");
            }
            m.tokens().to_vec()
        })
        .collect()
}

/// Masks filled and the time spent filling them.
#[derive(Clone, Copy, Debug, Default)]
pub struct Throughput {
    /// Mask rows filled.
    pub masks: usize,
    /// Wall time inside the batch fill calls.
    pub fill_time: Duration,
}

impl Throughput {
    /// Rows filled per second of fill time.
    pub fn masks_per_second(&self) -> f64 {
        self.masks as f64 / self.fill_time.as_secs_f64().max(1e-9)
    }
}

/// Replays `walks` with `batch` in flight: each step fills one `int32`
/// bitmask row per live sequence in one call ([`fill_bitmasks`]), then
/// advances each by its walk's next token. Only the fills are timed.
pub fn replay(bound: &Arc<BoundGrammar>, walks: &[Vec<u32>], batch: usize) -> Throughput {
    let words = bitmask_words(bound.vocab().len());
    let mut bitmask = vec![0i32; batch * words];
    let mut next_walk = 0;
    // (walk, position, matcher)
    let mut live: Vec<(usize, usize, Matcher)> = Vec::with_capacity(batch);
    let mut out = Throughput::default();
    loop {
        while live.len() < batch && next_walk < walks.len() {
            live.push((next_walk, 0, Matcher::new(bound.clone())));
            next_walk += 1;
        }
        if live.is_empty() {
            return out;
        }
        let rows: Vec<&Matcher> = live.iter().map(|(_, _, m)| m).collect();
        let t = Instant::now();
        fill_bitmasks(&rows, &mut bitmask[..rows.len() * words]).expect("whole rows");
        out.fill_time += t.elapsed();
        out.masks += rows.len();
        for (walk, pos, m) in &mut live {
            m.advance(walks[*walk][*pos]).expect("the walk's own token");
            *pos += 1;
        }
        live.retain(|(walk, pos, _)| *pos < walks[*walk].len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_batch_size_fills_one_mask_per_token_of_every_walk() {
        let vocab = Arc::new(gcd_core::Vocabulary::o200k_base().unwrap());
        let bound = Arc::new(BoundGrammar::new(
            gcd_core::lark::builtin::json_compiled(),
            vocab,
        ));
        let walks = random_walks(&bound, 9, 12, 1);
        let tokens: usize = walks.iter().map(Vec::len).sum();
        assert!(walks.iter().all(|w| w.len() <= 13 && !w.is_empty()));
        for batch in [1, 4, 9, 20] {
            assert_eq!(replay(&bound, &walks, batch).masks, tokens, "batch {batch}");
        }
    }
}
