//! Applying a mask to a logits vector: the one step of a mask that is as
//! wide as the vocabulary whatever the grammar, and a hot loop of its own
//! (200k floats per step on o200k).

use bitvec::prelude::*;

/// Sets the logits that `mask` forbids to negative infinity (`mask` as
/// wide as `logits`, from [`Matcher::compute_mask`]).
pub fn apply_mask(mask: &BitVec<u64, Lsb0>, logits: &mut [f32]) {
    const NEG_INFINITY_BITS: u32 = f32::NEG_INFINITY.to_bits();
    // Per byte of a mask word, its eight bits as all-ones or all-zeros lanes.
    static KEEP_LANES: [[u32; 8]; 256] = {
        let mut lanes = [[0u32; 8]; 256];
        let mut b = 0;
        while b < 256 {
            let mut i = 0;
            while i < 8 {
                lanes[b][i] = ((b as u32 >> i) & 1).wrapping_neg();
                i += 1;
            }
            b += 1;
        }
        lanes
    };
    // A word at a time: most words are all-forbidden or all-allowed, and a
    // bit iterator over 200k ids costs more than the mask.
    for (chunk, &word) in logits.chunks_mut(64).zip(mask.as_raw_slice()) {
        match word {
            0 => chunk.fill(f32::NEG_INFINITY),
            w if w == u64::MAX => {}
            // A branch per id mispredicts on mixed words (a string's mask),
            // and that was most of a mask's time on o200k: a word with few
            // forbidden ids visits just those, any other selects without
            // branching.
            w if (!w).count_ones() <= 8 => {
                let mut forbidden = !w;
                while forbidden != 0 {
                    if let Some(l) = chunk.get_mut(forbidden.trailing_zeros() as usize) {
                        *l = f32::NEG_INFINITY;
                    }
                    forbidden &= forbidden - 1;
                }
            }
            w => {
                for (k, lanes) in chunk.chunks_mut(8).enumerate() {
                    let keep = &KEEP_LANES[(w >> (8 * k)) as u8 as usize];
                    for (l, &keep) in lanes.iter_mut().zip(keep) {
                        *l = f32::from_bits(l.to_bits() & keep | NEG_INFINITY_BITS & !keep);
                    }
                }
            }
        }
    }
}
