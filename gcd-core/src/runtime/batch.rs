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
    pub len: usize,
    pub rows: usize,
}

/// The row length of a buffer of `len` values for `rows` rows.
fn row_len(len: usize, rows: usize) -> Result<usize, ShapeError> {
    match len.checked_div(rows) {
        Some(n) if n * rows == len => Ok(n),
        _ => Err(ShapeError { len, rows }),
    }
}

/// Fills `bitmask`, row-major with `bitmask.len() / matchers.len()` words
/// per row, one row per matcher, in parallel.
pub fn fill_bitmasks(matchers: &[&Matcher], bitmask: &mut [i32]) -> Result<(), ShapeError> {
    if matchers.is_empty() && bitmask.is_empty() {
        return Ok(());
    }
    let words = row_len(bitmask.len(), matchers.len())?;
    if words > 0 {
        (bitmask.par_chunks_mut(words))
            .zip(matchers.par_iter())
            .for_each(|(row, m)| m.fill_bitmask(row));
    }
    Ok(())
}

/// Sets every forbidden logit to negative infinity, for a batch:
/// `logits` is row-major with `logits.len() / matchers.len()` columns (the
/// model's vocabulary width), one row per matcher, in parallel.
pub fn mask_logits_batch(matchers: &[&Matcher], logits: &mut [f32]) -> Result<(), ShapeError> {
    if matchers.is_empty() && logits.is_empty() {
        return Ok(());
    }
    let width = row_len(logits.len(), matchers.len())?;
    if width > 0 {
        (logits.par_chunks_mut(width))
            .zip(matchers.par_iter())
            .for_each(|(row, m)| m.mask_logits(row));
    }
    Ok(())
}
