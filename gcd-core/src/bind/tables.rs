//! The per-lexer-state token tables that binding builds and masks read:
//! token sets, boundary groups and end filters. Binding, the budget and the
//! matcher all use these types, so they live apart from the code that
//! builds them.

use bitvec::prelude::*;

/// A set of token ids: a list when small, a bitset when large.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TokenSet {
    Sparse(Vec<u32>),
    Dense(BitVec<u64, Lsb0>),
}

impl TokenSet {
    pub(crate) fn from_list(mut ids: Vec<u32>, width: usize) -> TokenSet {
        if ids.len() * 32 < width {
            ids.sort_unstable();
            TokenSet::Sparse(ids)
        } else {
            let mut bits = bitvec![u64, Lsb0; 0; width];
            for id in ids {
                bits.set(id as usize, true);
            }
            TokenSet::Dense(bits)
        }
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

    pub fn len(&self) -> usize {
        match self {
            TokenSet::Sparse(ids) => ids.len(),
            TokenSet::Dense(bits) => bits.count_ones(),
        }
    }

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

#[inline]
pub(crate) fn set_bit(words: &mut [u64], id: u32) {
    words[id as usize / 64] |= 1u64 << (id % 64);
}

/// Tokens of one lexer state that end its lexeme after `k >= 1` bytes with
/// the same winning terminal.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Boundary {
    pub winner: u32,
    /// Trie nodes where the next lexeme starts, sorted by the byte class of
    /// the node's byte: class `c` owns `nodes[class_off[c]..class_off[c + 1]]`.
    pub nodes: Vec<u32>,
    pub class_off: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StateTables {
    pub within: TokenSet,
    /// `within`, split by the lexer state each token leaves (for budgets).
    pub within_by_end: Vec<(u32, TokenSet)>,
    /// (first byte, end state) of every `within` token, deduplicated.
    pub first_ends: Vec<(u8, u32)>,
    pub boundaries: Vec<Boundary>,
    /// Index into `end_filters` when this state has a winner and some first
    /// byte ends the lexeme; else `u32::MAX`.
    pub end_filter: u32,
}

impl StateTables {
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
    pub tokens: BitVec<u64, Lsb0>,
    #[serde(with = "crate::codec::array256")]
    pub first_bytes: [bool; 256],
}
