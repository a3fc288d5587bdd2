//! Masks for many requests at once, in the layouts inference engines take.
//!
//! A serving engine decodes a batch of sequences per forward pass and
//! applies every sequence's mask in one kernel call. vLLM, SGLang and
//! XGrammar share one layout for it: an `int32` array of shape
//! `(batch, ceil(V / 32))` where bit `i % 32` of word `i / 32` is set iff
//! token `i` is allowed. The rows are independent, so they are filled in
//! parallel (rayon); a row's matcher is only read.

use rayon::prelude::*;

use super::Matcher;

/// The `int32` words one row of a bitmask needs for `width` token ids.
pub fn bitmask_words(width: usize) -> usize {
    width.div_ceil(32)
}

impl Matcher {
    /// Fills one row of an `int32` token bitmask (see the [module
    /// docs](self)): token `i` is allowed iff bit `i % 32` of `row[i / 32]`
    /// is set. Ids past the vocabulary, up to `32 * row.len()`, are
    /// forbidden; EOS is allowed when the output is complete.
    pub fn fill_bitmask(&self, row: &mut [i32]) {
        let mask = self.compute_mask(row.len() * 32);
        let words = mask.as_raw_slice();
        // Little-endian halves: the low 32 bits of a u64 word are the
        // earlier 32 token ids.
        for (pair, &w) in row.chunks_mut(2).zip(words) {
            pair[0] = w as u32 as i32;
            if let Some(high) = pair.get_mut(1) {
                *high = (w >> 32) as u32 as i32;
            }
        }
    }
}

/// A batch buffer whose length is not a whole number of rows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a batch buffer of {len} values does not split into {rows} equal rows")]
pub struct ShapeError {
    /// Values in the buffer.
    pub len: usize,
    /// Matchers given, each wanting one row.
    pub rows: usize,
}

/// Splits `buf` into one equal row per matcher and fills each row with
/// `fill`, in parallel.
fn fill_rows<T: Send>(
    matchers: &[&Matcher],
    buf: &mut [T],
    fill: impl Fn(&Matcher, &mut [T]) + Sync,
) -> Result<(), ShapeError> {
    let (len, rows) = (buf.len(), matchers.len());
    if len == 0 && rows == 0 {
        return Ok(());
    }
    let row = match len.checked_div(rows) {
        Some(n) if n * rows == len => n,
        _ => return Err(ShapeError { len, rows }),
    };
    if row > 0 {
        (buf.par_chunks_mut(row))
            .zip(matchers.par_iter())
            .for_each(|(r, m)| fill(m, r));
    }
    Ok(())
}

/// Fills `bitmask`, row-major with `bitmask.len() / matchers.len()` words
/// per row, one row per matcher, in parallel.
pub fn fill_bitmasks(matchers: &[&Matcher], bitmask: &mut [i32]) -> Result<(), ShapeError> {
    fill_rows(matchers, bitmask, Matcher::fill_bitmask)
}

/// Sets every forbidden logit to negative infinity, for a batch:
/// `logits` is row-major with `logits.len() / matchers.len()` columns (the
/// model's vocabulary width), one row per matcher, in parallel.
pub fn mask_logits_batch(matchers: &[&Matcher], logits: &mut [f32]) -> Result<(), ShapeError> {
    fill_rows(matchers, logits, Matcher::mask_logits)
}
