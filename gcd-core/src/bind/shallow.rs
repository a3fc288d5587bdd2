//! State tables shared at a bounded depth: the tokens up to
//! [`SHALLOW_DEPTH`] bytes from a cache keyed by what the lexer does within
//! that many bytes, the few longer ones walked for each state.
//!
//! A state's tables are shared between states whose lexers behave alike
//! within the longest token (128 bytes on Llama-3). Inside a string with a
//! length bound the lexer counts characters, so every count closer than
//! that to the bound behaves differently, and each one walked the whole
//! trie on its first mask: 2–10 ms, a hundred times per `maxLength: 100`
//! string. Yet fewer than 1,400 of Llama-3's 128,256 tokens are longer
//! than 16 bytes, and up to 16 bytes the counts with at least 16 to go
//! behave alike. So such a state takes its short tokens from the tables of
//! any state that behaves like it over 16 bytes, and walks the subtrees
//! below depth 16 (a few thousand nodes) itself.

use std::sync::{Arc, Mutex, OnceLock};

use bitvec::prelude::*;
use rustc_hash::FxHashMap;

use super::cache::Behaviour;
use super::{BoundGrammar, StateTables};
use crate::lexer::DEAD;
use crate::vocab::trie::TokenTrie;

/// Bytes of a token whose tables a state shares by its behaviour over
/// that many bytes (see the module doc).
pub(crate) const SHALLOW_DEPTH: usize = 16;

/// Ends a key made over a bounded depth, before the depth.
const SHALLOW_KEY: u32 = u32::MAX - 3;

/// The trie below a depth: what splits tables at it.
#[derive(Debug)]
pub(crate) struct DeepTrie {
    depth: usize,
    /// The tokens longer than `depth` bytes, a bit per token id.
    long: BitVec<u64, Lsb0>,
    /// The nodes one byte below `depth`, in trie order.
    roots: Vec<u32>,
    /// The `depth` bytes above each root, root by root.
    paths: Vec<u8>,
}

impl DeepTrie {
    pub(crate) fn new(trie: &TokenTrie, depth: usize) -> DeepTrie {
        let mut long = bitvec![u64, Lsb0; 0; trie.vocab_len];
        let mut path = vec![0u8; trie.max_depth + 1];
        let (mut roots, mut paths) = (Vec::new(), Vec::new());
        for i in 1..trie.num_nodes() {
            let d = trie.depth[i] as usize;
            path[d - 1] = trie.byte[i];
            if d > depth {
                for &t in trie.tokens_at(i) {
                    long.set(t as usize, true);
                }
            }
            if d == depth + 1 {
                roots.push(i as u32);
                paths.extend_from_slice(&path[..depth]);
            }
        }
        DeepTrie {
            depth,
            long,
            roots,
            paths,
        }
    }
}

impl BoundGrammar {
    /// The trie split at the shallow depth: one per (vocabulary, depth) in
    /// the process, since every schema bound to it splits it alike.
    fn deep_trie(&self) -> &DeepTrie {
        self.deep.get_or_init(|| {
            type Splits = FxHashMap<(u64, usize, usize), Arc<DeepTrie>>;
            static SPLITS: OnceLock<Mutex<Splits>> = OnceLock::new();
            let key = (
                self.vocab.fingerprint(),
                self.trie.num_nodes(),
                self.shallow_depth,
            );
            let lock =
                || (SPLITS.get_or_init(Mutex::default).lock()).unwrap_or_else(|e| e.into_inner());
            if let Some(deep) = lock().get(&key) {
                return deep.clone();
            }
            let deep = Arc::new(DeepTrie::new(&self.trie, self.shallow_depth));
            lock().insert(key, deep.clone());
            deep
        })
    }

    /// The depth over which state `q`'s behaviour keys its tables: the
    /// shallow depth where that is shorter than the longest token (a
    /// transparent start reads through ignored lexemes, which the deep
    /// walk does not, so it keys over the whole depth).
    pub(super) fn key_depth(&self, q: u32) -> usize {
        match self.transparent[q as usize] {
            false => self.shallow_depth.min(self.trie.max_depth),
            true => self.trie.max_depth,
        }
    }

    /// Whether tables keyed by `behaviour`, state `q`'s over
    /// [`key_depth`](Self::key_depth), hold only the tokens up to the
    /// shallow depth: it was cut there, so it says nothing of longer ones.
    pub(super) fn keys_shallow(&self, q: u32, behaviour: &Behaviour) -> bool {
        self.key_depth(q) < self.trie.max_depth && behaviour.cut
    }

    /// Marks `key` as made over the shallow depth.
    pub(super) fn mark_shallow(&self, key: &mut Vec<u32>) {
        key.extend([SHALLOW_KEY, self.shallow_depth as u32]);
    }

    /// The part of `tables` that a shallow key determines: tokens of at
    /// most the shallow depth, and boundaries no deeper.
    pub(super) fn shallow_part(&self, tables: &StateTables) -> StateTables {
        let deep = self.deep_trie();
        let trie = &*self.trie;
        let width = trie.vocab_len;
        let mut within_by_end = Vec::with_capacity(tables.within_by_end.len());
        let mut first_ends = Vec::new();
        // The first bytes by end state, as `within_by_end` is sorted.
        let mut by_end: Vec<(u32, u8)> = tables.first_ends.iter().map(|&(b, e)| (e, b)).collect();
        by_end.sort_unstable();
        for (e, set) in &tables.within_by_end {
            let short = set.without(&deep.long, width);
            if short.is_empty() {
                continue;
            }
            // A group without long tokens keeps its first bytes; the others
            // are read off the tokens left.
            if set.meets(&deep.long) {
                let mut firsts = [false; 256];
                for t in short.ids() {
                    if let Some(b) = trie.first_byte[t as usize] {
                        firsts[b as usize] = true;
                    }
                }
                first_ends.extend((0..=255u8).filter(|&b| firsts[b as usize]).map(|b| (b, *e)));
            } else {
                let from = by_end.partition_point(|&(x, _)| x < *e);
                let to = by_end.partition_point(|&(x, _)| x <= *e);
                first_ends.extend(by_end[from..to].iter().map(|&(x, b)| (b, x)));
            }
            within_by_end.push((*e, short));
        }
        first_ends.sort_unstable();
        let boundaries = (tables.boundaries.iter())
            .map(|b| {
                let nodes = (b.nodes.iter().copied())
                    .filter(|&n| trie.depth[n as usize] as usize <= deep.depth)
                    .collect();
                self.boundary(b.winner, nodes)
            })
            .filter(|b| !b.nodes.is_empty())
            .collect();
        StateTables {
            within: tables.within.without(&deep.long, width),
            within_by_end,
            first_ends,
            boundaries,
            end_filter: tables.end_filter,
        }
    }

    /// Adds to `tables`, the shallow part of lexer state `q`'s tables, the
    /// tokens longer than the shallow depth: each subtree below it whose
    /// path keeps `q`'s lexeme going is walked from where the path leads.
    /// (A path whose lexeme ends above it is a boundary the shallow part
    /// holds, and masks walk below a boundary themselves.)
    pub(super) fn add_deep(&self, q: u32, tables: &mut StateTables) {
        let deep = self.deep_trie();
        let (trie, lx) = (&*self.trie, &self.grammar.lexer);
        let d = deep.depth;
        let mut depth_state = vec![DEAD; 1 + trie.max_depth];
        let mut out = super::pieces::Collected::new(trie.vocab_len);
        for (k, &root) in deep.roots.iter().enumerate() {
            let path = &deep.paths[k * d..(k + 1) * d];
            let mut s = q;
            for &b in path {
                s = lx.next(s, b);
                if s == DEAD {
                    break;
                }
            }
            if s == DEAD {
                continue;
            }
            depth_state[d] = s;
            let end = trie.subtree_end[root as usize] as usize;
            self.walk_nodes(
                root as usize,
                end,
                1,
                path[0],
                None,
                &mut depth_state,
                &mut out,
            );
        }
        out.merge_into(self, tables);
    }
}
