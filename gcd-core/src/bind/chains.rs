//! Token tables of a length-bounded string's counts, derived from one
//! count's instead of walked.
//!
//! Inside a string with `maxLength: n` the lexer is in state (count `k`,
//! item state `s`), and the first mask at each count walked the whole trie
//! (3–5 ms on o200k), once per count near the bound, where the counts
//! behave each their own way within a token (see `shallow.rs`). But a
//! token read from (`k`, `s`) does what it does from (`min`, `s`), shifted
//! by `k - min` items, as long as it needs no more items than are left: the
//! chain's rows differ only in their count ([`ChainLayout`]). So the tables
//! of (`k`, `s`) are those of (`min`, `s`), each end state shifted and the
//! tokens that would read past the bound dropped. Below `min` the same
//! holds for the tokens that stay inside, and those that close the string
//! must have read up to `min` first (a `minLength: 50` key counts its way
//! up to 50 as it does down to `maxLength`). For the tokens that
//! leave the string (its closing quote) the count where they left is
//! worked out once per reference state, from their bytes. Only chains
//! closed by a literal (`"`) qualify: without one a lexeme can also end
//! at the bound itself, which no lower count shows.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::{BoundGrammar, StateTables, TokenSet};
use crate::compiled::CompiledGrammar;
use crate::lexer::{ChainLayout, DEAD};

/// The lexer states that hold a bounded chain's terminal alone, by the
/// chain state they are in (the lexer keeps a single terminal's DFA
/// state, so this is one pass over the states, no search).
#[derive(Debug, Default)]
pub(crate) struct ChainStates {
    /// (terminal, terminal DFA state) → lexer state.
    at: FxHashMap<(u32, u32), u32>,
}

impl ChainStates {
    pub(crate) fn new(g: &CompiledGrammar) -> ChainStates {
        let lx = &g.lexer;
        let mut at = FxHashMap::default();
        for (q, (&x, alive)) in lx.single.iter().zip(&lx.alive).enumerate() {
            if let [t] = alive[..] {
                if g.dfas[t as usize].chain_layout().is_some() {
                    at.insert((t, x), q as u32);
                }
            }
        }
        ChainStates { at }
    }
}

/// What a reference state's tables do not say about the tokens that leave
/// the repetition: how many items each had read when it left.
#[derive(Debug)]
pub(crate) struct ChainExits {
    /// Per end state past the repetition: (items read, token), by items.
    tokens: Vec<(u32, Vec<(u32, u32)>)>,
    /// Per boundary winner: (items read, trie node), by items.
    nodes: Vec<(u32, Vec<(u32, u32)>)>,
}

impl BoundGrammar {
    fn chain_states(&self) -> &ChainStates {
        self.chains.get_or_init(|| ChainStates::new(&self.grammar))
    }

    /// The terminal and its DFA state of lexer state `q`, if it has one
    /// terminal alive and that terminal is a bounded chain.
    fn chain_state_of(&self, q: u32) -> Option<(u32, u32, ChainLayout)> {
        let lx = &self.grammar.lexer;
        let (&[t], &x) = (&lx.alive.get(q as usize)?[..], lx.single.get(q as usize)?) else {
            return None;
        };
        let layout = self.grammar.dfas[t as usize].chain_layout()?;
        Some((t, x, layout))
    }

    /// The tables of lexer state `q` derived from its chain's reference
    /// count (`min`), when `q` is a count of a bounded chain closer to one
    /// of its bounds than the shallow depth. `None`: walk as usual.
    pub(super) fn chain_tables(&self, q: u32) -> Option<StateTables> {
        let (t, x, layout) = self.chain_state_of(q)?;
        let (k, s) = layout.count_of(x)?;
        let (min, max) = (layout.min, layout.max);
        // The items a token may read before it leaves the string: enough
        // to reach `min`, no more than are left.
        let (fewest, left) = (min.saturating_sub(k), max - k);
        let shallow = self.shallow_depth as u64;
        // Near the upper bound, the counts above the reference; near the
        // lower one, those below it, if the reference has room for every
        // token the count could take (`max - min` items at least the
        // longest token's bytes). Further from both, tables are shared by
        // behaviour (`shallow.rs`).
        let near_max = k > min && u64::from(left) < shallow;
        let near_min =
            k < min && u64::from(min - k) < shallow && (max - min) as usize >= self.trie.max_depth;
        // Without `post` a lexeme may end at the bound itself, where the
        // next item's byte is a boundary that no lower count has.
        if !(near_max || near_min) || layout.post_len == 0 {
            return None;
        }
        let chains = self.chain_states();
        let x_ref = layout.state(min, s)?;
        let q_ref = *chains.at.get(&(t, x_ref))?;
        // A transparent start's tables read on through ignored lexemes
        // (a run of blanks with a bound is such a chain): not a count's.
        if self.transparent[q_ref as usize] {
            return None;
        }
        let exits = self.chain_exits(q_ref, t, x_ref, &layout)?;
        let reference = self.state(q_ref);
        let width = self.trie.vocab_len;
        let mut within_by_end: Vec<(u32, TokenSet)> = Vec::new();
        let mut first_ends: Vec<(u8, u32)> = Vec::new();
        let mut firsts_by_end: Vec<(u32, u8)> =
            reference.first_ends.iter().map(|&(b, e)| (e, b)).collect();
        firsts_by_end.sort_unstable();
        for (e, set) in &reference.within_by_end {
            let (_, xe, _) = self.chain_state_of(*e)?;
            let Some((ke, se)) = layout.count_of(xe) else {
                continue; // past the repetition: from `exits` below
            };
            let Some(x2) = layout.state(k + (ke - min), se) else {
                continue;
            };
            let e2 = *chains.at.get(&(t, x2))?;
            within_by_end.push((e2, set.clone()));
            let from = firsts_by_end.partition_point(|&(f, _)| f < *e);
            let to = firsts_by_end.partition_point(|&(f, _)| f <= *e);
            first_ends.extend(firsts_by_end[from..to].iter().map(|&(_, b)| (b, e2)));
        }
        for (e, by_items) in &exits.tokens {
            let ids: Vec<u32> = (by_items.iter())
                .skip_while(|(items, _)| *items < fewest)
                .take_while(|(items, _)| *items <= left)
                .map(|&(_, id)| id)
                .collect();
            let firsts = ids
                .iter()
                .filter_map(|&id| self.trie.first_byte[id as usize]);
            first_ends.extend(firsts.map(|b| (b, *e)));
            if !ids.is_empty() {
                within_by_end.push((*e, TokenSet::from_list(ids, width)));
            }
        }
        within_by_end.sort_by_key(|(e, _)| *e);
        first_ends.sort_unstable();
        first_ends.dedup();
        let count: usize = within_by_end.iter().map(|(_, set)| set.len()).sum();
        let within = match TokenSet::is_sparse(count, width) {
            true => {
                let lists: Vec<Vec<u32>> = within_by_end.iter().map(|(_, set)| set.ids()).collect();
                TokenSet::from_lists(lists.iter().map(Vec::as_slice), width)
            }
            false => TokenSet::dense_union(within_by_end.iter().map(|(_, set)| set), width),
        };
        let boundaries = (exits.nodes.iter())
            .filter_map(|(w, by_items)| {
                let nodes: Vec<u32> = (by_items.iter())
                    .skip_while(|(items, _)| *items < fewest)
                    .take_while(|(items, _)| *items <= left)
                    .map(|&(_, n)| n)
                    .collect();
                (!nodes.is_empty()).then(|| self.boundary(*w, nodes))
            })
            .collect();
        crate::counters::count_derived_table();
        Some(StateTables {
            within,
            within_by_end,
            first_ends,
            boundaries,
            end_filter: self.end_filter_of[q as usize],
        })
    }

    /// How many items each token of `q_ref`'s tables that leaves the
    /// repetition had read when it left, counted from its bytes once per
    /// reference state.
    fn chain_exits(
        &self,
        q_ref: u32,
        t: u32,
        x_ref: u32,
        layout: &ChainLayout,
    ) -> Option<Arc<ChainExits>> {
        let lock = || self.chain_exits.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = lock().get(&q_ref) {
            return Some(e.clone());
        }
        let dfa = &self.grammar.dfas[t as usize];
        // Items read when `bytes` (read from the reference) left the
        // repetition, counted from the reference's.
        let items_at_exit = |bytes: &[u8]| -> Option<u32> {
            let (mut x, mut items) = (x_ref, layout.min);
            for &b in bytes {
                x = dfa.next(x, b);
                if x == DEAD {
                    return None;
                }
                if let Some((k, _)) = layout.count_of(x) {
                    items = k;
                }
            }
            Some(items - layout.min)
        };
        let reference = self.state(q_ref);
        let mut tokens = Vec::new();
        for (e, set) in &reference.within_by_end {
            let (_, xe, _) = self.chain_state_of(*e)?;
            if layout.count_of(xe).is_some() {
                continue;
            }
            let mut by_items = Vec::new();
            for id in set.ids() {
                let bytes = self.vocab.token_bytes(id).ok()?;
                by_items.push((items_at_exit(bytes)?, id));
            }
            by_items.sort_unstable();
            tokens.push((*e, by_items));
        }
        let trie = &*self.trie;
        let mut nodes = Vec::new();
        for b in &reference.boundaries {
            let mut by_items = Vec::new();
            for &n in &b.nodes {
                // The node's path is the start of any token below it; the
                // lexeme ended before the node's own byte.
                let bytes = self
                    .vocab
                    .token_bytes(trie.first_token_below(n as usize))
                    .ok()?;
                let depth = trie.depth[n as usize] as usize;
                by_items.push((items_at_exit(bytes.get(..depth - 1)?)?, n));
            }
            by_items.sort_unstable();
            nodes.push((b.winner, by_items));
        }
        let exits = Arc::new(ChainExits { tokens, nodes });
        lock().insert(q_ref, exits.clone());
        Some(exits)
    }
}
