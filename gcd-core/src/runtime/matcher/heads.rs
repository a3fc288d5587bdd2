//! Head masks: most of a mask is decided by the top of the parser stack.
//!
//! A mask walk shifts the terminals that each token's bytes complete, and
//! in a language like Go the vocabulary's runs of operators (`-*-*-`,
//! `/*****`) make thousands of distinct shifts after an identifier, each a
//! new stack: milliseconds for a mask after `if n`. Nearly all of them only ever
//! touch the top few symbols of the stack (a unary expression nests inside
//! the one it started in), and the same top recurs all through an output.
//! In JSON the walk is short, but it is most of a mask inside a string:
//! the string's own tokens are one precomputed set, and the rest is a walk
//! of the tokens that close the string and go on (`",`, `"}]`).
//!
//! So the walk is done once on the stack's *head*, its top symbols down to
//! the [`HEAD_SOLID`]th that cannot derive the empty string, with nothing
//! below. A token that no shift along its bytes reads past the head is
//! decided by the head alone: allowed or not whatever lies below. The
//! others are marked by the trie node where a shift read past the head;
//! their subtrees are walked again with a head twice as deep, limited to
//! them, and so on up to [`BoundGrammar::set_deepest_head`]'s depth
//! (`"}]}` closes three levels of JSON in one token); what is still
//! undecided then is walked with the whole stacks. The mask is the union,
//! which is exactly the whole walk's: a token allowed with the whole stack
//! is allowed either along a path that never leaves a head (that head's
//! walk finds it) or along one that leaves every head (the whole-stack
//! walk goes there). A mask that heads decide is then a copy of one
//! precomputed set or a few.
//!
//! Head masks are kept by the binding ([`crate::bind::HeadMask`]), keyed
//! by lexer state and the heads of the configurations in it (walked
//! together, as the whole-stack walk does). Budgets and member sets depend
//! on the whole stack, so masks with them walk it as before.
//!
//! [`BoundGrammar::set_deepest_head`]: crate::bind::BoundGrammar::set_deepest_head

use std::cell::Cell;
use std::sync::Arc;

use bitvec::vec::BitVec;
use smallvec::SmallVec;

use super::mask::MaskWalk;
use super::Matcher;
use crate::bind::{HeadMask, TokenSet};
use crate::parser::{Below, HeadStack, SharedStack, NT_BIT};

/// How many symbols that cannot derive the empty string a head holds: one
/// is too few (after `if n` the expression may end, and what the lexer
/// expects then is the block's `{` below it).
pub(super) const HEAD_SOLID: usize = 2;

/// The longest key (in symbols and markers) of the heads of one lexer
/// state's configurations: past it the whole stacks are walked. A graph of
/// merged derivations has ways down that multiply with the depth, and
/// keying every way 16 symbols deep is unbounded; 4,096 still keys every
/// head of the Java and Go replays.
const MAX_HEAD_KEY: usize = 4096;

/// Markers of a head's encoding.
const CUT: u32 = u32::MAX;
const END: u32 = u32::MAX - 1;
const ALTS: u32 = 1 << 30;
/// Starts the key of what follows a closed lexeme (a level's key starts
/// with its depth).
const AFTER_CLOSE: u32 = u32::MAX - 2;

/// The head of one configuration's stack, as its head mask is keyed.
struct Head<'s> {
    /// Its encoding (see [`encode_head`]).
    key: SmallVec<[u32; 16]>,
    /// The whole stack; the head itself is copied out only when its mask
    /// must be built.
    stack: &'s SharedStack,
    /// No way down was cut: it is the whole stack.
    whole: bool,
}

impl Matcher {
    /// The mask from head masks, completed by walks over the whole stacks
    /// limited to what the heads left undecided. Configurations in one
    /// lexer state share a head mask (keyed by all their heads), so their
    /// derivations are walked together, as a whole-stack walk does.
    pub(super) fn fill_by_heads(&self, out: &mut [u64]) {
        let b = &*self.bound;
        let mut order: SmallVec<[usize; 1]> = (0..self.configs.len()).collect();
        order.sort_by_key(|&i| self.configs[i].lexer);
        let mut written = false;
        for same in order.chunk_by(|&i, &j| self.configs[i].lexer == self.configs[j].lexer) {
            let q = self.configs[same[0]].lexer;
            let stacks: SmallVec<[&SharedStack; 1]> =
                same.iter().map(|&i| &self.configs[i].stack).collect();
            // Deeper heads decide what shallower ones left undecided.
            let mut solid = HEAD_SOLID;
            let mut above: Option<Arc<HeadMask>> = None;
            while let Some(m) = self.level_mask(q, &stacks, solid, above.as_deref()) {
                if written {
                    m.allowed.or_into(out, None);
                } else {
                    m.allowed.write_into(out);
                    written = true;
                }
                let last = m.undecided.is_empty() || solid >= b.deepest_head;
                above = Some(m);
                if last {
                    break;
                }
                solid *= 2;
            }
            if above.as_ref().is_some_and(|m| m.undecided.is_empty()) {
                continue;
            }
            if !written {
                out.fill(0);
                written = true;
            }
            // The whole stacks, where the heads left something undecided
            // (or everywhere, when not even the first head was kept).
            let mut walk = MaskWalk::new(b, None);
            walk.only = above.as_ref().map(|m| &m.undecided[..]);
            let views = stacks.iter().map(|&s| s.clone()).collect();
            walk.run(out, q, views, self.fresh, 0);
        }
        if !written {
            out.fill(0);
        }
    }

    /// The head mask of `stacks` (the configurations in lexer state `q`)
    /// with heads of `solid` symbols that cannot derive the empty string:
    /// all of it, or with `above` (the mask of shallower heads) what
    /// `above` left undecided. `None` when the heads are too large to key.
    fn level_mask(
        &self,
        q: u32,
        stacks: &[&SharedStack],
        solid: usize,
        above: Option<&HeadMask>,
    ) -> Option<Arc<HeadMask>> {
        // The heads in a canonical order, each once.
        let mut heads: SmallVec<[Head; 1]> = (stacks.iter())
            .map(|s| self.head(s, solid))
            .collect::<Option<_>>()?;
        heads.sort_by(|x, y| x.key.cmp(&y.key));
        heads.dedup_by(|x, y| x.key == y.key);
        let whole = heads.iter().all(|h| h.whole);
        // The depth is in the key: a deeper level's mask holds only what
        // the level above it left undecided.
        let mut key: SmallVec<[u32; 16]> = smallvec::smallvec![solid as u32];
        for h in &heads {
            key.push(h.key.len() as u32);
            key.extend_from_slice(&h.key);
        }
        if key.len() > MAX_HEAD_KEY {
            return None;
        }
        Some(self.bound.head_mask(q, self.fresh, whole, &key, || {
            let heads = heads.iter().map(|h| self.head_stack(h.stack, solid));
            self.head_mask(q, heads.collect(), whole, above.map(|m| &m.undecided[..]))
        }))
    }

    /// The head of `stack`: on every way down, its top symbols through the
    /// `solid`th that cannot derive the empty string; `None` past
    /// [`MAX_HEAD_KEY`] symbols.
    fn head<'s>(&self, stack: &'s SharedStack, solid: usize) -> Option<Head<'s>> {
        let mut key = SmallVec::new();
        let nullable = &self.bound.grammar.parse.nullable;
        let cut = encode_head(nullable, stack, solid, MAX_HEAD_KEY, &mut key)?;
        Some(Head {
            key,
            stack,
            whole: !cut,
        })
    }

    /// A copy of the head that [`encode_head`] encodes, as a stack of its
    /// own.
    fn head_stack(&self, stack: &SharedStack, solid: usize) -> SharedStack {
        let (taken, left) = take(&self.bound.grammar.parse.nullable, &stack.top, solid);
        let top = stack.top[stack.top.len() - taken..].to_vec();
        let below = match (&stack.below, left) {
            (Some(below), 1..) => below,
            _ => return SharedStack::new(top),
        };
        let alts = (below.alts.iter())
            .map(|a| self.head_stack(a, left))
            .collect();
        let below = Below {
            alts,
            costs: Default::default(),
        };
        SharedStack {
            top,
            below: Some(Arc::new(below)),
        }
    }

    /// Walks `heads` alone from lexer state `q` (unless they are `whole`
    /// stacks, nothing they read below is decided), limited to the trie
    /// subtrees `only` when given.
    fn head_mask(
        &self,
        q: u32,
        heads: SmallVec<[SharedStack; 1]>,
        whole: bool,
        only: Option<&[(u32, u32)]>,
    ) -> HeadMask {
        let b = &*self.bound;
        let bottom = Cell::new(false);
        let mut allowed = vec![0u64; b.trie.vocab_len.div_ceil(64)];
        let mut walk = MaskWalk::new(b, None);
        walk.bottom = (!whole).then_some(&bottom);
        walk.only = only;
        let roots = (heads.into_iter())
            .map(|stack| HeadStack {
                stack,
                bottom: &bottom,
            })
            .collect();
        walk.run(&mut allowed, q, roots, self.fresh, 0);
        walk.finish(allowed)
    }
}

impl<'a> MaskWalk<'a, HeadStack<'a>> {
    /// What this head walk found, `allowed` being the tokens it set.
    fn finish(self, allowed: Vec<u64>) -> HeadMask {
        let mut undecided = self.undecided;
        undecided.sort_unstable();
        undecided.dedup();
        let subtree_end = &self.b.trie.subtree_end;
        let ranges = (undecided.into_iter())
            .map(|n| (n, subtree_end[n as usize]))
            .collect();
        HeadMask {
            allowed: fastest_to_add(allowed),
            undecided: disjoint(ranges).into(),
        }
    }

    /// Adds the tokens whose first byte closed the pending lexeme, with
    /// group `gi` after its winner and the next lexeme in lexer state `q`
    /// (`filter`: the pending state's end filter), from the store when
    /// these stacks were met there before. Heads that differ where the
    /// pending lexeme's shift has read them leave the same stacks (an
    /// identifier after `if`, `for` or `switch` is an operand, whatever
    /// the pending lexer state was), and this part is most of a head mask.
    pub(super) fn add_head_after_close(&mut self, out: &mut [u64], q: u32, gi: u32, filter: u32) {
        let b = self.b;
        let walk = |w: &mut Self, out: &mut [u64]| {
            w.add_state(out, gi, q, Some(b.end_filter(filter)), true)
        };
        if self.only.is_some() {
            return walk(self, out);
        }
        let nullable = &b.grammar.parse.nullable;
        let mut key: SmallVec<[u32; 16]> = smallvec::smallvec![AFTER_CLOSE, filter];
        for v in self.views(gi) {
            if encode_head(nullable, &v.stack, usize::MAX, MAX_HEAD_KEY, &mut key).is_none() {
                return walk(self, out);
            }
        }
        let whole = self.bottom.is_none();
        let mask = b.head_mask(q, false, whole, &key, || {
            let bottom = Cell::new(false);
            let views = (self.views(gi).iter())
                .map(|v| HeadStack {
                    stack: v.stack.clone(),
                    bottom: &bottom,
                })
                .collect();
            let mut walk = MaskWalk::new(b, None);
            walk.bottom = (!whole).then_some(&bottom);
            let gi = walk.new_group(views, 1);
            let mut allowed = vec![0u64; b.trie.vocab_len.div_ceil(64)];
            walk.add_state(&mut allowed, gi, q, Some(b.end_filter(filter)), true);
            walk.finish(allowed)
        });
        mask.allowed.or_into(out, None);
        self.undecided
            .extend(mask.undecided.iter().map(|&(n, _)| n));
    }
}

/// How many of `top`'s symbols (from the top) a head with `solid` symbols
/// that cannot derive the empty string still to take holds, and how many
/// it still needs below.
fn take(nullable: &[bool], top: &[u32], solid: usize) -> (usize, usize) {
    let mut left = solid;
    let mut taken = 0;
    for &s in top.iter().rev() {
        taken += 1;
        if s & NT_BIT == 0 || !nullable[(s & !NT_BIT) as usize] {
            left -= 1;
            if left == 0 {
                break;
            }
        }
    }
    (taken, left)
}

/// Appends the encoding of `stack`'s head (with `solid` such symbols still
/// to take; `usize::MAX`: all of it) to `key`: per part its length, its
/// symbols, then [`CUT`], [`END`] or [`ALTS`] with the number of lower
/// parts, which follow. Returns whether it cut a way down, or `None` once
/// the key is longer than `max` (ways down through merged derivations
/// multiply with the depth).
fn encode_head(
    nullable: &[bool],
    stack: &SharedStack,
    solid: usize,
    max: usize,
    key: &mut SmallVec<[u32; 16]>,
) -> Option<bool> {
    if key.len() > max {
        return None;
    }
    let (taken, left) = take(nullable, &stack.top, solid);
    key.push(taken as u32);
    key.extend_from_slice(&stack.top[stack.top.len() - taken..]);
    match (&stack.below, left) {
        (_, 0) => {
            key.push(CUT);
            Some(true)
        }
        (None, _) => {
            key.push(END);
            Some(false)
        }
        (Some(below), _) => {
            key.push(ALTS | below.alts.len() as u32);
            let mut cut = false;
            for a in &below.alts {
                cut |= encode_head(nullable, a, left, max, key)?;
            }
            Some(cut)
        }
    }
}

/// `allowed` (raw bitset words) in the form that is quickest to add to a
/// mask: a head mask is added at every step its head recurs, so a list
/// pays only while it is much shorter than the bitset's words (setting a
/// listed bit costs a few times what or-ing a word does).
fn fastest_to_add(allowed: Vec<u64>) -> TokenSet {
    let count: usize = allowed.iter().map(|w| w.count_ones() as usize).sum();
    if count * 3 >= allowed.len() {
        return TokenSet::Dense(BitVec::from_vec(allowed));
    }
    let mut ids = Vec::with_capacity(count);
    for (k, &word) in allowed.iter().enumerate() {
        let mut w = word;
        while w != 0 {
            ids.push((k * 64) as u32 + w.trailing_zeros());
            w &= w - 1;
        }
    }
    TokenSet::Sparse(ids)
}

/// Sorted subtree ranges with the ones inside another dropped (subtrees
/// nest or are disjoint, so what is left is disjoint).
fn disjoint(sorted: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(sorted.len());
    for (start, end) in sorted {
        match out.last() {
            Some(&(_, e)) if start < e => {}
            _ => out.push((start, end)),
        }
    }
    out
}
