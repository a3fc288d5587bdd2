//! How long applying a mask to one row of logits takes, by mask shape, on
//! a vocabulary as wide as o200k's: the part of every mask that no table
//! makes cheaper.
//!
//! `cargo run --release -p gcd-core --example apply_mask [WIDTH]`

use std::time::Instant;

use bitvec::prelude::*;
use gcd_core::runtime::matcher::apply_mask;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn main() {
    let width: usize = std::env::args()
        .nth(1)
        .map_or(200_019, |w| w.parse().expect("WIDTH is a number"));
    let mut rng = StdRng::seed_from_u64(0x9e37_79b9_7f4a_7c15);
    // Inside a string most ids are allowed; after a key only a few; a
    // random mask has every word mixed.
    type Allowed = fn(usize, u64) -> bool;
    let shapes: [(&str, Allowed); 4] = [
        ("all forbidden", |_, _| false),
        ("all allowed", |_, _| true),
        ("0.1% allowed", |i, _| i % 997 == 0),
        ("random half", |_, r| r & 1 == 1),
    ];
    let mut logits = vec![0f32; width];
    for (name, allowed) in &shapes {
        let mut mask = bitvec![u64, Lsb0; 0; width];
        for i in 0..width {
            mask.set(i, allowed(i, rng.random()));
        }
        let rounds = 2_000;
        let mut total = 0f64;
        for _ in 0..rounds {
            // A model writes fresh logits before every mask.
            logits.iter_mut().for_each(|l| *l = 0.5);
            let t = Instant::now();
            apply_mask(&mask, &mut logits);
            total += t.elapsed().as_secs_f64();
        }
        let kept = logits.iter().filter(|l| l.is_finite()).count();
        assert_eq!(kept, mask.count_ones(), "{name}");
        println!(
            "{name:>14}: {:7.2} us per mask ({width} logits)",
            total / rounds as f64 * 1e6
        );
    }
}
