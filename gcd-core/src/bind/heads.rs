//! The store of head masks: per (lexer state, top of a parser stack), the
//! tokens that those alone decide. The matcher computes them (see its
//! `heads` module); binding keeps them, shared by every matcher of the
//! grammar, because the same heads recur all through an output (every
//! `if x` of a Go program starts the same expression under the same
//! statement).

use std::sync::Arc;

use super::capped::Capped;
use super::{BoundGrammar, TokenSet};

/// The deepest heads tried by default (doubling from 2 symbols that
/// cannot derive the empty string) before a walk of the whole stacks
/// decides what is left: JSON nested a few levels deep is then decided by
/// heads alone.
pub(crate) const DEEPEST_HEAD: usize = 16;

/// Bytes of head masks a binding keeps (two generations, see `capped.rs`).
const MAX_HEAD_MASK_BYTES: usize = 64 << 20;

/// What a head decides, with the pending lexeme in some lexer state `q`.
#[derive(Debug)]
pub struct HeadMask {
    /// The allowed tokens, the state's own `within` tokens included (one
    /// set to add at each step instead of two).
    pub allowed: TokenSet,
    /// Sorted, disjoint trie node ranges `[start, end)` (whole subtrees)
    /// whose tokens the head could not decide.
    pub undecided: Box<[(u32, u32)]>,
}

impl HeadMask {
    fn heap_bytes(&self) -> usize {
        self.allowed.heap_bytes() + self.undecided.len() * 8 + 64
    }
}

/// A head: lexer state, whether nothing was read yet, whether it is the
/// whole stack, and its symbols (bottom first).
type HeadKey = (u32, bool, bool, Box<[u32]>);

#[derive(Debug)]
pub(crate) struct HeadMasks(Capped<HeadKey, HeadMask>);

impl Default for HeadMasks {
    fn default() -> Self {
        HeadMasks(Capped::new(MAX_HEAD_MASK_BYTES))
    }
}

impl BoundGrammar {
    /// Whether generalized masks use head masks (the default).
    pub(crate) fn head_masks_on(&self) -> bool {
        self.head_masks_on
    }

    /// Walks every configuration's whole stack instead of using head
    /// masks when `false`: the reference the tests compare them with.
    #[doc(hidden)]
    pub fn set_head_masks(&mut self, on: bool) {
        self.head_masks_on = on;
    }

    /// Stops deepening heads at `solid` symbols that cannot derive the
    /// empty string (at least 2; 16 by default): the tests use shallow
    /// heads to make the whole-stack walk that completes them run often.
    #[doc(hidden)]
    pub fn set_deepest_head(&mut self, solid: usize) {
        self.deepest_head = solid.max(2);
    }

    /// The head mask of `head` in lexer state `q`, from the store or from
    /// `build`.
    pub(crate) fn head_mask(
        &self,
        q: u32,
        fresh: bool,
        whole: bool,
        head: &[u32],
        build: impl FnOnce() -> HeadMask,
    ) -> Arc<HeadMask> {
        let lock = || self.heads.lock().unwrap_or_else(|e| e.into_inner());
        let key: HeadKey = (q, fresh, whole, head.into());
        if let Some(m) = lock().0.get(&key) {
            return m;
        }
        let mask = Arc::new(build());
        let bytes = mask.heap_bytes();
        lock().0.insert(key, mask.clone(), bytes);
        mask
    }
}
