//! Applying a mask to a logits vector: the one step of a mask that is as
//! wide as the vocabulary whatever the grammar, and a hot loop of its own
//! (200k floats per step on o200k).
//!
//! The loop is compiled three times (AVX-512, AVX2, the baseline) and the
//! widest the CPU has is picked at run time: the default target has only
//! 16-byte vectors, and a mask inside a string (most words mixed) took
//! about as long as the rest of the mask.

use bitvec::prelude::*;
use multiversion::multiversion;

const NEG_INFINITY_BITS: u32 = f32::NEG_INFINITY.to_bits();

/// Sets the logits that `mask` forbids to negative infinity (`mask` as
/// wide as `logits`, from [`Matcher::compute_mask`]).
pub fn apply_mask(mask: &BitVec<u64, Lsb0>, logits: &mut [f32]) {
    apply_words(mask.as_raw_slice(), logits);
}

/// [`apply_mask`] over the mask's words: bit `i` of word `k` allows
/// `logits[64 * k + i]`.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512vl", "x86_64+avx2"))]
fn apply_words(words: &[u64], logits: &mut [f32]) {
    // A word at a time: most words are all-forbidden or all-allowed, and a
    // bit iterator over 200k ids costs more than the mask.
    for (chunk, &word) in logits.chunks_mut(64).zip(words) {
        match word {
            0 => chunk.fill(f32::NEG_INFINITY),
            w if w == u64::MAX => {}
            // A branch per id mispredicts on mixed words (a string's mask):
            // every lane is selected without branching, which the wide
            // targets do 8 or 16 lanes at a time.
            w => {
                for (i, l) in chunk.iter_mut().enumerate() {
                    let keep = ((w >> i) as u32 & 1).wrapping_neg();
                    *l = f32::from_bits(l.to_bits() & keep | NEG_INFINITY_BITS & !keep);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    use super::*;

    /// Every word shape (none, all, one, all but one, random bits) and a
    /// ragged last word, against setting each forbidden logit by itself.
    #[test]
    fn apply_mask_forbids_exactly_the_unset_bits() {
        let mut rng = StdRng::seed_from_u64(0x2545_f491_4f6c_dd1d);
        for width in [1usize, 63, 64, 65, 1000, 4099] {
            let mut mask = bitvec![u64, Lsb0; 0; width];
            for (k, word) in mask.as_raw_mut_slice().iter_mut().enumerate() {
                *word = match k % 5 {
                    0 => 0,
                    1 => u64::MAX,
                    2 => 1 << rng.random_range(0..64),
                    3 => !(1 << rng.random_range(0..64)),
                    _ => rng.random(),
                };
            }
            let logits: Vec<f32> = (0..width).map(|i| i as f32 * 0.25 - 3.0).collect();
            let mut got = logits.clone();
            apply_mask(&mask, &mut got);
            for (i, (&g, &l)) in got.iter().zip(&logits).enumerate() {
                let want = if mask[i] { l } else { f32::NEG_INFINITY };
                assert_eq!(g.to_bits(), want.to_bits(), "width {width}, id {i}");
            }
        }
    }
}
