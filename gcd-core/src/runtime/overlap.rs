//! The next mask computed while the model computes the next logits.
//!
//! The mask for step `t` depends only on the tokens before `t`, which are
//! known before the forward pass that produces step `t`'s logits starts.
//! Computing both at once hides the mask's cost behind the model's (a
//! forward pass takes milliseconds; a mask that builds new tables can take
//! as long). A scoped thread keeps it simple: the matcher is only read.

use bitvec::prelude::*;

pub use super::matcher::apply_mask;
use super::Matcher;

/// Runs `forward` on the calling thread while a worker computes
/// `matcher`'s mask of `width` bits; returns both. The mask equals
/// [`Matcher::compute_mask`]`(width)`.
///
/// ```
/// # use std::sync::Arc;
/// # use gcd_core::{BoundGrammar, CompiledGrammar, Matcher, Vocabulary};
/// # let g = gcd_core::lark::parse_grammar(r#"start: "yes" | "no""#).unwrap();
/// # let vocab = Arc::new(Vocabulary::from_tokens(vec![b"yes".to_vec(), b"no".to_vec(), b"maybe".to_vec()], vec![]));
/// # let bound = Arc::new(BoundGrammar::new(Arc::new(CompiledGrammar::new(&g).unwrap()), vocab));
/// let matcher = Matcher::new(bound);
/// let (logits, mask) = gcd_core::runtime::overlap::mask_during(&matcher, 3, || {
///     vec![0.5f32, 0.1, 0.9] // the model's forward pass
/// });
/// assert_eq!(mask, matcher.compute_mask(3));
/// # assert_eq!(logits.len(), 3);
/// ```
pub fn mask_during<R>(
    matcher: &Matcher,
    width: usize,
    forward: impl FnOnce() -> R,
) -> (R, BitVec<u64, Lsb0>) {
    std::thread::scope(|scope| {
        let worker = scope.spawn(|| matcher.compute_mask(width));
        let out = forward();
        let mask = match worker.join() {
            Ok(mask) => mask,
            // A panic in the mask is a bug; surface it on the caller's thread.
            Err(payload) => std::panic::resume_unwind(payload),
        };
        (out, mask)
    })
}
