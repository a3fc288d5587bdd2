//! The per-lexer-state token tables that binding builds and masks read:
//! token sets, boundary groups and end filters. Binding, the budget and the
//! matcher all use these types, so they live apart from the code that
//! builds them.

use bitvec::prelude::*;

/// Sorts ids below `width` and drops repeats: a long list through a
/// bitset (a walk lists thousands of tokens in trie order, and sorting
/// them was a tenth of building a state's tables).
fn sort_ids(ids: &mut Vec<u32>, width: usize) {
    if ids.len() < 256 {
        ids.sort_unstable();
        ids.dedup();
        return;
    }
    let mut words = vec![0u64; width.div_ceil(64)];
    for &id in ids.iter() {
        set_bit(&mut words, id);
    }
    *ids = ones(&words);
}

/// A set of token ids: a list when small, a bitset when large.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TokenSet {
    /// The ids in increasing order, each once: the form of small sets.
    Sparse(Vec<u32>),
    /// Bit `i` set iff token `i` is in the set; as many bits as the
    /// vocabulary has ids.
    Dense(BitVec<u64, Lsb0>),
}

impl TokenSet {
    pub(crate) fn from_list(mut ids: Vec<u32>, width: usize) -> TokenSet {
        if Self::is_sparse(ids.len(), width) {
            sort_ids(&mut ids, width);
            TokenSet::Sparse(ids)
        } else {
            TokenSet::dense(std::iter::once(&ids[..]), width)
        }
    }

    /// The union of `lists` (disjoint lists of ids below `width`).
    pub(crate) fn from_lists<'a>(
        lists: impl Iterator<Item = &'a [u32]> + Clone,
        width: usize,
    ) -> TokenSet {
        let count: usize = lists.clone().map(<[u32]>::len).sum();
        if Self::is_sparse(count, width) {
            let mut ids = Vec::with_capacity(count);
            lists.for_each(|l| ids.extend_from_slice(l));
            sort_ids(&mut ids, width);
            TokenSet::Sparse(ids)
        } else {
            TokenSet::dense(lists, width)
        }
    }

    /// Whether [`from_list`](Self::from_list) keeps `count` ids below
    /// `width` as a list.
    pub(crate) fn is_sparse(count: usize, width: usize) -> bool {
        count * 32 < width
    }

    /// The union of `sets` (ids below `width`) as a bitset.
    pub(crate) fn dense_union<'a>(
        sets: impl Iterator<Item = &'a TokenSet>,
        width: usize,
    ) -> TokenSet {
        let mut words = vec![0u64; width.div_ceil(64)];
        for set in sets {
            set.or_into(&mut words, None);
        }
        TokenSet::from_words(words, width)
    }

    /// The set whose bits are `words` (raw `Lsb0` words), `width` of them.
    pub(crate) fn from_words(words: Vec<u64>, width: usize) -> TokenSet {
        let mut bits = BitVec::from_vec(words);
        bits.truncate(width);
        TokenSet::Dense(bits)
    }

    fn dense<'a>(lists: impl Iterator<Item = &'a [u32]>, width: usize) -> TokenSet {
        let mut words = vec![0u64; width.div_ceil(64)];
        for &id in lists.flatten() {
            set_bit(&mut words, id);
        }
        TokenSet::from_words(words, width)
    }

    /// `out |= self`, or `out |= self & filter`, on the raw words of an
    /// `Lsb0` bitset (bit `i` is bit `i % 64` of word `i / 64`).
    pub fn or_into(&self, out: &mut [u64], filter: Option<&BitVec<u64, Lsb0>>) {
        match (self, filter) {
            (TokenSet::Sparse(ids), None) => {
                for &id in ids {
                    set_bit(out, id);
                }
            }
            (TokenSet::Sparse(ids), Some(f)) => {
                for &id in ids {
                    if f[id as usize] {
                        set_bit(out, id);
                    }
                }
            }
            (TokenSet::Dense(bits), None) => {
                for (o, b) in out.iter_mut().zip(bits.as_raw_slice()) {
                    *o |= *b;
                }
            }
            (TokenSet::Dense(bits), Some(f)) => {
                for ((o, b), m) in out
                    .iter_mut()
                    .zip(bits.as_raw_slice())
                    .zip(f.as_raw_slice())
                {
                    *o |= *b & *m;
                }
            }
        }
    }

    /// `out = self` on the raw words of an `Lsb0` bitset (a copy, where
    /// clearing and or-ing would pass over the words twice).
    pub fn write_into(&self, out: &mut [u64]) {
        match self {
            TokenSet::Dense(bits) => {
                let words = bits.as_raw_slice();
                let n = words.len().min(out.len());
                out[..n].copy_from_slice(&words[..n]);
                out[n..].fill(0);
            }
            TokenSet::Sparse(_) => {
                out.fill(0);
                self.or_into(out, None);
            }
        }
    }

    /// The ids, in increasing order.
    pub(crate) fn ids(&self) -> Vec<u32> {
        match self {
            TokenSet::Sparse(ids) => ids.clone(),
            TokenSet::Dense(bits) => ones(bits.as_raw_slice()),
        }
    }

    /// Adds `ids` (below `width`, none in the set yet), in the form
    /// [`from_list`](Self::from_list) gives the whole set.
    pub(crate) fn add(&mut self, ids: &[u32], width: usize) {
        match self {
            TokenSet::Dense(bits) => {
                for &id in ids {
                    bits.set(id as usize, true);
                }
            }
            TokenSet::Sparse(old) => {
                let mut all = std::mem::take(old);
                all.extend_from_slice(ids);
                *self = TokenSet::from_list(all, width);
            }
        }
    }

    /// The set without the ids in `mask` (as wide as the vocabulary), in
    /// the form [`from_list`](Self::from_list) gives it.
    pub(crate) fn without(&self, mask: &BitVec<u64, Lsb0>, width: usize) -> TokenSet {
        match self {
            TokenSet::Sparse(ids) => {
                TokenSet::Sparse(ids.iter().copied().filter(|&i| !mask[i as usize]).collect())
            }
            TokenSet::Dense(bits) => {
                let words: Vec<u64> = (bits.as_raw_slice().iter().zip(mask.as_raw_slice()))
                    .map(|(b, m)| b & !m)
                    .collect();
                let count: usize = words.iter().map(|w| w.count_ones() as usize).sum();
                if Self::is_sparse(count, width) {
                    return TokenSet::Sparse(ones(&words));
                }
                let mut bits = BitVec::<u64, Lsb0>::from_vec(words);
                bits.truncate(width);
                TokenSet::Dense(bits)
            }
        }
    }

    /// Whether the set holds an id in `mask`.
    pub(crate) fn meets(&self, mask: &BitVec<u64, Lsb0>) -> bool {
        match self {
            TokenSet::Sparse(ids) => ids.iter().any(|&i| mask[i as usize]),
            TokenSet::Dense(bits) => {
                (bits.as_raw_slice().iter().zip(mask.as_raw_slice())).any(|(b, m)| b & m != 0)
            }
        }
    }

    /// How many token ids the set holds.
    pub fn len(&self) -> usize {
        match self {
            TokenSet::Sparse(ids) => ids.len(),
            TokenSet::Dense(bits) => bits.count_ones(),
        }
    }

    /// Whether the set holds no token.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        match self {
            TokenSet::Sparse(ids) => ids.len() * 4,
            TokenSet::Dense(bits) => bits.as_raw_slice().len() * 8,
        }
    }
}

/// The positions of the set bits of `words`, in increasing order (a word
/// at a time: bitvec's `iter_ones` was most of splitting a table).
fn ones(words: &[u64]) -> Vec<u32> {
    let mut out = Vec::new();
    for (i, &word) in words.iter().enumerate() {
        let mut w = word;
        while w != 0 {
            out.push((i * 64) as u32 + w.trailing_zeros());
            w &= w - 1;
        }
    }
    out
}

#[inline]
pub(crate) fn set_bit(words: &mut [u64], id: u32) {
    words[id as usize / 64] |= 1u64 << (id % 64);
}

/// Tokens of one lexer state that end its lexeme after `k >= 1` bytes with
/// the same winning terminal.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Boundary {
    /// The terminal that wins where these tokens end the lexeme; the parser
    /// is asked to take it once for the whole group.
    pub winner: u32,
    /// Trie nodes where the next lexeme starts, sorted by the byte class of
    /// the node's byte: class `c` owns `nodes[class_off[c]..class_off[c + 1]]`.
    pub nodes: Vec<u32>,
    /// Offsets into `nodes` per byte class of the grammar's lexer: one
    /// entry per class plus a final `nodes.len()`, never decreasing.
    pub class_off: Vec<u32>,
}

/// The token tables of one lexer state: what a mask needs from the lexer
/// alone, whatever the parser stack is (see [`crate::bind`]).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StateTables {
    /// Tokens whose bytes all extend the pending lexeme without ending it
    /// (from a transparent start, possibly after ignored lexemes): allowed
    /// whatever the parser stack is.
    pub within: TokenSet,
    /// `within`, split by the lexer state each token leaves (for budgets).
    pub within_by_end: Vec<(u32, TokenSet)>,
    /// (first byte, end state) of every `within` token, deduplicated.
    pub first_ends: Vec<(u8, u32)>,
    /// Tokens that end the lexeme after at least one of their bytes, one
    /// group per winning terminal, sorted by winner.
    pub boundaries: Vec<Boundary>,
    /// Index into `end_filters` when this state has a winner and some first
    /// byte ends the lexeme; else `u32::MAX`.
    pub end_filter: u32,
}

impl StateTables {
    /// Bytes the tables hold on the heap (about).
    pub(crate) fn heap_bytes(&self) -> usize {
        let within_by_end: usize = (self.within_by_end.iter())
            .map(|(_, t)| t.heap_bytes() + 4)
            .sum();
        let boundaries: usize = (self.boundaries.iter())
            .map(|b| b.nodes.len() * 4 + b.class_off.len() * 4 + 16)
            .sum();
        self.within.heap_bytes() + within_by_end + self.first_ends.len() * 8 + boundaries + 48
    }

    /// The same tables with lexer states and winning terminals renamed
    /// (between a grammar's numbering and a cache entry's).
    pub(crate) fn renumber(
        &self,
        state: impl Fn(u32) -> u32,
        winner: impl Fn(u32) -> u32,
        end_filter: u32,
    ) -> StateTables {
        let mut within_by_end: Vec<(u32, TokenSet)> = self
            .within_by_end
            .iter()
            .map(|(e, set)| (state(*e), set.clone()))
            .collect();
        within_by_end.sort_by_key(|(e, _)| *e);
        let mut first_ends: Vec<(u8, u32)> = self
            .first_ends
            .iter()
            .map(|&(b, e)| (b, state(e)))
            .collect();
        first_ends.sort_unstable();
        let mut boundaries: Vec<Boundary> = self
            .boundaries
            .iter()
            .map(|b| Boundary {
                winner: winner(b.winner),
                nodes: b.nodes.clone(),
                class_off: b.class_off.clone(),
            })
            .collect();
        boundaries.sort_by_key(|b| b.winner);
        StateTables {
            within: self.within.clone(),
            within_by_end,
            first_ends,
            boundaries,
            end_filter,
        }
    }
}
/// The tokens whose first byte ends a lexeme: as a token set (for the
/// precomputed parts of a mask) and as bytes (for trie walks).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EndFilter {
    /// Bit per token id (the vocabulary's width), set when the token's
    /// first byte is one of `first_bytes`; tokens outside the trie are clear.
    pub tokens: BitVec<u64, Lsb0>,
    /// Per byte: whether it ends the lexeme, i.e. extends no candidate in
    /// the lexer states that share this filter.
    #[serde(with = "crate::codec::array256")]
    pub first_bytes: [bool; 256],
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    use super::TokenSet;

    /// Lists short and long (sorted directly or through a bitset), sparse
    /// and dense, split into several lists or one: the set holds exactly
    /// the ids given, in order, each once.
    #[test]
    fn token_sets_hold_exactly_their_lists() {
        let mut rng = StdRng::seed_from_u64(7);
        for width in [64usize, 1000, 128_256] {
            for n in [0usize, 1, 5, 255, 256, 300, 4000, 10_000] {
                let mut ids: Vec<u32> = (0..n).map(|_| rng.random_range(0..width as u32)).collect();
                let want: Vec<u32> = ids
                    .iter()
                    .copied()
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .collect();
                let set = TokenSet::from_list(ids.clone(), width);
                assert_eq!(set.ids(), want, "width {width}, {n} ids");
                ids.sort_unstable();
                ids.dedup();
                let cut = ids.len() / 3;
                let (a, b) = ids.split_at(cut);
                let set = TokenSet::from_lists([a, b].into_iter(), width);
                assert_eq!(set.ids(), want, "width {width}, {n} ids in two lists");
            }
        }
    }
}
