//! Binding a compiled grammar to a vocabulary: the token tables that make
//! masks fast.
//!
//! For every lexer state `q` the tables split the vocabulary three ways (the
//! token spanner idea of Park et al., adapted to a contextual lexer):
//!
//! * `within[q]`: tokens whose bytes all extend the pending lexeme. They are
//!   allowed whatever the parser stack is, so this part of a mask is a copy.
//! * boundaries: tokens that end the lexeme after at least one byte. They are
//!   grouped by the terminal that wins at the boundary, so the parser is
//!   consulted once per winner, and the trie nodes where the rest of the token
//!   starts are grouped by byte class, so only classes the next lexeme can
//!   start with are walked.
//! * tokens whose first byte already ends the lexeme: these behave like the
//!   same tokens from the next lexeme's start state, filtered by first byte
//!   (`end_filter`).
//!
//! All of this depends on the lexer only, never on the parser stack, so it is
//! built once per (grammar, vocabulary) and shared by all matchers.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use bitvec::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::budget::BudgetTables;
use crate::compiled::CompiledGrammar;
use crate::lexer::DEAD;
use crate::snapshot::{self, SnapshotError};
use crate::trie::TokenTrie;
use crate::vocab::Vocabulary;

/// A set of token ids: a list when small, a bitset when large.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TokenSet {
    Sparse(Vec<u32>),
    Dense(BitVec<u64, Lsb0>),
}

impl TokenSet {
    fn from_list(mut ids: Vec<u32>, width: usize) -> TokenSet {
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

    fn heap_bytes(&self) -> usize {
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
    fn renumber(
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

/// How the lexer behaves from one state, up to renaming: the states
/// reachable from it in breadth-first order, each with its winner (numbered
/// by first appearance) and its transitions over all 256 bytes as runs.
/// Two states with equal keys get equal tables up to that renaming. Byte
/// runs, not the grammar's byte classes, so that grammars with different
/// classes still share.
struct Behaviour {
    key: Vec<u32>,
    /// Local state `i` is the grammar's state `states[i]`.
    states: Vec<u32>,
    /// Local winner `i` is the grammar's terminal `winners[i]`.
    winners: Vec<u32>,
}

/// Larger sub-automata are walked directly: their key would cost more
/// than it saves, and they rarely recur.
const MAX_BEHAVIOUR_STATES: usize = 1024;
const MAX_CACHED_STATES: usize = 512;

impl Behaviour {
    fn of(lx: &crate::lexer::LexerAutomaton, q: u32) -> Option<Behaviour> {
        let mut local: FxHashMap<u32, u32> = FxHashMap::default();
        let mut states = vec![q];
        local.insert(q, 0);
        let mut winners: Vec<u32> = Vec::new();
        let mut key = Vec::new();
        let mut i = 0;
        while i < states.len() {
            if states.len() > MAX_BEHAVIOUR_STATES {
                return None;
            }
            let s = states[i];
            key.push(match lx.winner(s) {
                None => u32::MAX,
                Some(w) => match winners.iter().position(|&x| x == w) {
                    Some(p) => p as u32,
                    None => {
                        winners.push(w);
                        winners.len() as u32 - 1
                    }
                },
            });
            let mut run: Option<(u32, u32)> = None;
            for b in 0..=255u8 {
                let t = lx.next(s, b);
                let t = if t == DEAD {
                    u32::MAX
                } else {
                    let next = states.len() as u32;
                    *local.entry(t).or_insert_with(|| {
                        states.push(t);
                        next
                    })
                };
                run = match run {
                    Some((target, len)) if target == t => Some((target, len + 1)),
                    Some((target, len)) => {
                        key.extend([target, len]);
                        Some((t, 1))
                    }
                    None => Some((t, 1)),
                };
            }
            let (target, len) = run.expect("256 bytes");
            key.extend([target, len]);
            i += 1;
        }
        Some(Behaviour {
            key,
            states,
            winners,
        })
    }
}

type StateCache = FxHashMap<(u64, usize, Vec<u32>), Arc<StateTables>>;

/// State tables by (vocabulary, trie size, behaviour), for the whole process.
fn lock_state_cache() -> std::sync::MutexGuard<'static, StateCache> {
    static CACHE: OnceLock<std::sync::Mutex<StateCache>> = OnceLock::new();
    CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

const BOUND_MAGIC: &[u8; 8] = b"gcd-bind";
/// Bumped whenever a serialized table changes shape.
const BOUND_VERSION: u32 = 1;

/// What [`BoundGrammar::to_bytes`] writes.
#[derive(serde::Serialize)]
struct TablesRef<'a> {
    vocab_fingerprint: u64,
    grammar_fingerprint: u64,
    trie: &'a TokenTrie,
    states: Vec<&'a StateTables>,
    end_filters: Vec<&'a EndFilter>,
    budget: &'a BudgetTables,
}

/// What [`BoundGrammar::from_bytes`] reads.
#[derive(serde::Deserialize)]
struct Tables {
    vocab_fingerprint: u64,
    grammar_fingerprint: u64,
    trie: TokenTrie,
    states: Vec<StateTables>,
    end_filters: Vec<EndFilter>,
    budget: BudgetTables,
}

/// Identifies a compiled grammar by its tables.
fn grammar_fingerprint(g: &CompiledGrammar) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(&g.to_bytes());
    h.finish()
}

/// A grammar bound to a vocabulary. `Send + Sync`: share it with `Arc`.
///
/// Tables are built lazily, per lexer state on the first mask that needs
/// it: a schema compiled per request has hundreds of lexer states, most of
/// them never visited by one output, and walking the trie for all of them
/// up front made binding cost 100× the first mask. [`build_all`](Self::build_all)
/// builds everything now, for servers that prefer steady mask times.
#[derive(Debug)]
pub struct BoundGrammar {
    pub grammar: Arc<CompiledGrammar>,
    pub vocab: Arc<Vocabulary>,
    pub trie: Arc<TokenTrie>,
    states: Vec<OnceLock<StateTables>>,
    /// Per lexer state: index into `end_filters`, or `u32::MAX`.
    end_filter_of: Vec<u32>,
    /// "First byte ends the lexeme" filters, shared by states with equal
    /// extension bytes; the token sets are filled on first use.
    end_filters: Vec<(Box<[bool; 256]>, OnceLock<EndFilter>)>,
    /// Token-cost tables for budgeted masks; they need every state's tables.
    budget: OnceLock<BudgetTables>,
}

/// The tokens whose first byte ends a lexeme: as a token set (for the
/// precomputed parts of a mask) and as bytes (for trie walks).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EndFilter {
    pub tokens: BitVec<u64, Lsb0>,
    #[serde(with = "crate::serde_array256")]
    pub first_bytes: [bool; 256],
}

impl BoundGrammar {
    /// Binds with a fresh trie. Use [`with_trie`](Self::with_trie) to share a
    /// trie between grammars bound to the same vocabulary.
    pub fn new(grammar: Arc<CompiledGrammar>, vocab: Arc<Vocabulary>) -> BoundGrammar {
        let trie = Arc::new(TokenTrie::new(&vocab));
        Self::with_trie(grammar, vocab, trie)
    }

    /// Binds lazily: nothing is walked until a mask needs it.
    pub fn with_trie(
        grammar: Arc<CompiledGrammar>,
        vocab: Arc<Vocabulary>,
        trie: Arc<TokenTrie>,
    ) -> BoundGrammar {
        let lx = &grammar.lexer;
        let n_states = lx.num_states();
        let mut index: HashMap<[bool; 256], u32> = HashMap::new();
        let mut end_filters = Vec::new();
        let end_filter_of = (0..n_states as u32)
            .map(|q| {
                if lx.winner(q).is_none() {
                    return u32::MAX;
                }
                let ext = lx.extending_bytes(q);
                if ext.iter().all(|&e| e) {
                    return u32::MAX;
                }
                *index.entry(ext).or_insert_with(|| {
                    end_filters.push((Box::new(ext.map(|e| !e)), OnceLock::new()));
                    end_filters.len() as u32 - 1
                })
            })
            .collect();
        BoundGrammar {
            states: (0..n_states).map(|_| OnceLock::new()).collect(),
            end_filter_of,
            end_filters,
            budget: OnceLock::new(),
            grammar,
            vocab,
            trie,
        }
    }

    /// Binds and builds every table now, calling `progress(done, total)`
    /// per lexer state.
    pub fn with_progress(
        grammar: Arc<CompiledGrammar>,
        vocab: Arc<Vocabulary>,
        trie: Arc<TokenTrie>,
        progress: &mut dyn FnMut(usize, usize),
    ) -> BoundGrammar {
        let bound = Self::with_trie(grammar, vocab, trie);
        let n = bound.states.len();
        for q in 0..n {
            bound.state(q as u32);
            progress(q + 1, n);
        }
        bound.budget();
        bound
    }

    /// Builds every table not built yet (all lexer states, end filters and
    /// the budget tables).
    pub fn build_all(&self) {
        self.states();
        for i in 0..self.end_filters.len() {
            self.end_filter(i as u32);
        }
        self.budget();
    }

    /// Number of lexer states, i.e. of [`state`](Self::state) tables.
    pub fn num_states(&self) -> usize {
        self.states.len()
    }

    /// The tables of lexer state `q`, built on first use.
    pub fn state(&self, q: u32) -> &StateTables {
        self.states[q as usize].get_or_init(|| self.build_state(q))
    }

    /// Every state's tables, building the missing ones.
    pub fn states(&self) -> Vec<&StateTables> {
        (0..self.states.len() as u32)
            .map(|q| self.state(q))
            .collect()
    }

    /// End filter `i` (as named by [`StateTables::end_filter`]).
    pub fn end_filter(&self, i: u32) -> &EndFilter {
        let (first_bytes, cell) = &self.end_filters[i as usize];
        cell.get_or_init(|| {
            let width = self.trie.vocab_len;
            let mut tokens = bitvec![u64, Lsb0; 0; width];
            for (id, fb) in self.trie.first_byte.iter().enumerate() {
                if fb.is_some_and(|b| first_bytes[b as usize]) {
                    tokens.set(id, true);
                }
            }
            EndFilter {
                tokens,
                first_bytes: **first_bytes,
            }
        })
    }

    /// Every end filter, building the missing ones.
    pub fn end_filters(&self) -> Vec<&EndFilter> {
        (0..self.end_filters.len() as u32)
            .map(|i| self.end_filter(i))
            .collect()
    }

    /// The budget tables, built (with every state's tables) on first use.
    pub fn budget(&self) -> &BudgetTables {
        self.budget
            .get_or_init(|| BudgetTables::new(&self.grammar, &self.states()))
    }

    /// The tables of lexer state `q`: from the process-wide cache when
    /// another grammar bound to this vocabulary had a state that behaves
    /// the same (JSON string bodies, numbers, formats recur in every
    /// schema), else by walking the trie.
    fn build_state(&self, q: u32) -> StateTables {
        let end_filter = self.end_filter_of[q as usize];
        let Some(behaviour) = Behaviour::of(&self.grammar.lexer, q) else {
            crate::counters::count_state_table(false);
            return self.walk_state(q, end_filter);
        };
        let key = (
            self.vocab.fingerprint(),
            self.trie.num_nodes(),
            behaviour.key,
        );
        let hit = lock_state_cache().get(&key).cloned();
        if let Some(local) = hit {
            crate::counters::count_state_table(true);
            let mut tables = local.renumber(
                |s| behaviour.states[s as usize],
                |w| behaviour.winners[w as usize],
                end_filter,
            );
            for b in &mut tables.boundaries {
                *b = self.boundary(b.winner, std::mem::take(&mut b.nodes));
            }
            return tables;
        }
        crate::counters::count_state_table(false);
        let tables = self.walk_state(q, end_filter);
        let state_local: FxHashMap<u32, u32> = behaviour
            .states
            .iter()
            .enumerate()
            .map(|(i, &s)| (s, i as u32))
            .collect();
        let winner_local: FxHashMap<u32, u32> = behaviour
            .winners
            .iter()
            .enumerate()
            .map(|(i, &w)| (w, i as u32))
            .collect();
        let local = tables.renumber(|s| state_local[&s], |w| winner_local[&w], u32::MAX);
        let mut cache = lock_state_cache();
        if cache.len() >= MAX_CACHED_STATES {
            cache.clear();
        }
        cache.insert(key, Arc::new(local));
        tables
    }

    /// A boundary group with its trie nodes sorted by this grammar's byte
    /// classes (which differ between grammars that share a state's tables).
    fn boundary(&self, winner: u32, mut nodes: Vec<u32>) -> Boundary {
        let classes = &self.grammar.lexer.classes;
        let nc = classes.len();
        let class = |n: u32| classes.class_of[self.trie.byte[n as usize] as usize] as usize;
        nodes.sort_by_key(|&n| (class(n), n));
        let mut class_off = vec![0u32; nc + 1];
        for &n in &nodes {
            class_off[class(n) + 1] += 1;
        }
        for c in 0..nc {
            class_off[c + 1] += class_off[c];
        }
        Boundary {
            winner,
            nodes,
            class_off,
        }
    }

    /// The tables of lexer state `q` by walking the trie, bypassing every
    /// cache: what [`state`](Self::state) must equal (for tests).
    pub fn state_uncached(&self, q: u32) -> StateTables {
        self.walk_state(q, self.end_filter_of[q as usize])
    }

    /// Walks the trie from lexer state `q` once.
    fn walk_state(&self, q: u32, end_filter: u32) -> StateTables {
        let lx = &self.grammar.lexer;
        let trie = &*self.trie;
        let width = trie.vocab_len;
        let mut depth_state = vec![DEAD; 1 + trie.max_depth];
        let mut within = Vec::new();
        // Tokens by the state they end in; consecutive tokens mostly share
        // it, so the last slot is checked before the map.
        let mut by_end: Vec<(u32, Vec<u32>)> = Vec::new();
        let mut end_slot: FxHashMap<u32, usize> = FxHashMap::default();
        let mut last_slot = usize::MAX;
        let mut first_ends: FxHashSet<(u8, u32)> = FxHashSet::default();
        let mut last_first_end = None;
        let mut by_winner: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        depth_state[0] = q;
        let mut first = 0u8;
        let mut i = 1;
        while i < trie.num_nodes() {
            let d = trie.depth[i] as usize;
            if d == 1 {
                first = trie.byte[i];
            }
            let s = depth_state[d - 1];
            let ns = lx.next(s, trie.byte[i]);
            if ns == DEAD {
                if d > 1 {
                    if let Some(w) = lx.winner(s) {
                        by_winner.entry(w).or_default().push(i as u32);
                    }
                }
                i = trie.subtree_end[i] as usize;
                continue;
            }
            depth_state[d] = ns;
            let toks = trie.tokens_at(i);
            if !toks.is_empty() {
                within.extend_from_slice(toks);
                if by_end.get(last_slot).is_none_or(|(e, _)| *e != ns) {
                    last_slot = *end_slot.entry(ns).or_insert_with(|| {
                        by_end.push((ns, Vec::new()));
                        by_end.len() - 1
                    });
                }
                by_end[last_slot].1.extend_from_slice(toks);
                if last_first_end != Some((first, ns)) {
                    last_first_end = Some((first, ns));
                    first_ends.insert((first, ns));
                }
            }
            i += 1;
        }
        let mut first_ends: Vec<(u8, u32)> = first_ends.into_iter().collect();
        first_ends.sort_unstable();
        let mut within_by_end: Vec<(u32, TokenSet)> = by_end
            .into_iter()
            .map(|(e, ids)| (e, TokenSet::from_list(ids, width)))
            .collect();
        within_by_end.sort_by_key(|(e, _)| *e);
        let mut boundaries: Vec<Boundary> = by_winner
            .into_iter()
            .map(|(winner, nodes)| self.boundary(winner, nodes))
            .collect();
        boundaries.sort_by_key(|b| b.winner);
        StateTables {
            within: TokenSet::from_list(within, width),
            within_by_end,
            first_ends,
            boundaries,
            end_filter,
        }
    }

    /// Serializes the vocabulary-dependent tables (trie, per-state token
    /// tables, budget costs), so that a deployment with a fixed tokenizer
    /// loads them (see [`from_bytes`](Self::from_bytes)) instead of binding.
    /// The grammar and the vocabulary are not included, only their
    /// fingerprints. Builds whatever was not built yet.
    pub fn to_bytes(&self) -> Vec<u8> {
        let tables = TablesRef {
            vocab_fingerprint: self.vocab.fingerprint(),
            grammar_fingerprint: grammar_fingerprint(&self.grammar),
            trie: &self.trie,
            states: self.states(),
            end_filters: self.end_filters(),
            budget: self.budget(),
        };
        snapshot::encode(BOUND_MAGIC, BOUND_VERSION, &tables)
    }

    /// Loads tables written by [`to_bytes`](Self::to_bytes) for this same
    /// grammar and vocabulary (checked by fingerprint), and checks the
    /// indices the matcher relies on.
    pub fn from_bytes(
        grammar: Arc<CompiledGrammar>,
        vocab: Arc<Vocabulary>,
        bytes: &[u8],
    ) -> Result<BoundGrammar, SnapshotError> {
        let t: Tables = snapshot::decode(BOUND_MAGIC, BOUND_VERSION, bytes)?;
        if t.vocab_fingerprint != vocab.fingerprint() {
            return Err(SnapshotError::Mismatch(format!(
                "the tables were bound to another vocabulary than `{}`",
                vocab.name()
            )));
        }
        if t.grammar_fingerprint != grammar_fingerprint(&grammar) {
            return Err(SnapshotError::Mismatch(
                "the tables were bound to another grammar".into(),
            ));
        }
        t.trie.check(vocab.len()).map_err(SnapshotError::Corrupt)?;
        check_indices(&grammar, &t).map_err(SnapshotError::Corrupt)?;
        Ok(BoundGrammar {
            grammar,
            vocab,
            trie: Arc::new(t.trie),
            end_filter_of: t.states.iter().map(|s| s.end_filter).collect(),
            states: t.states.into_iter().map(OnceLock::from).collect(),
            end_filters: t
                .end_filters
                .into_iter()
                .map(|f| (Box::new(f.first_bytes), OnceLock::from(f)))
                .collect(),
            budget: OnceLock::from(t.budget),
        })
    }

    /// Bytes held by the tables built so far (the trie counted separately).
    pub fn table_bytes(&self) -> usize {
        let states: usize = self
            .states
            .iter()
            .filter_map(OnceLock::get)
            .map(|s| {
                s.within.heap_bytes()
                    + s.within_by_end
                        .iter()
                        .map(|(_, t)| t.heap_bytes() + 4)
                        .sum::<usize>()
                    + s.first_ends.len() * 8
                    + s.boundaries
                        .iter()
                        .map(|b| b.nodes.len() * 4 + b.class_off.len() * 4 + 16)
                        .sum::<usize>()
                    + 48
            })
            .sum();
        states
            + self
                .end_filters
                .iter()
                .filter_map(|(_, f)| f.get())
                .map(|f| f.tokens.as_raw_slice().len() * 8 + 256)
                .sum::<usize>()
            + self.budget.get().map_or(0, BudgetTables::heap_bytes)
    }
}

/// Checks the indices the matcher relies on in loaded tables.
fn check_indices(grammar: &CompiledGrammar, t: &Tables) -> Result<(), String> {
    let lx = &grammar.lexer;
    let n_states = lx.num_states();
    let n_terms = grammar.grammar.terminals.len();
    let width = t.trie.vocab_len;
    let nodes = t.trie.num_nodes();
    let nc = lx.classes.len();
    let set_ok = |s: &TokenSet| match s {
        TokenSet::Sparse(ids) => ids.iter().all(|&i| (i as usize) < width),
        TokenSet::Dense(bits) => bits.len() == width,
    };
    let state_ok = |s: u32| (s as usize) < n_states;
    let ok = t.states.len() == n_states
        && t.end_filters.iter().all(|f| f.tokens.len() == width)
        && t.states.iter().all(|st| {
            set_ok(&st.within)
                && st
                    .within_by_end
                    .iter()
                    .all(|(e, s)| state_ok(*e) && set_ok(s))
                && st.first_ends.iter().all(|&(_, e)| state_ok(e))
                && (st.end_filter == u32::MAX || (st.end_filter as usize) < t.end_filters.len())
                && st.boundaries.iter().all(|b| {
                    (b.winner as usize) < n_terms
                        && b.nodes.iter().all(|&n| n > 0 && (n as usize) < nodes)
                        && b.class_off.len() == nc + 1
                        && b.class_off.windows(2).all(|w| w[0] <= w[1])
                        && b.class_off[nc] as usize == b.nodes.len()
                })
        })
        && t.budget
            .check_sizes(n_terms, n_states, grammar.grammar.nonterminals.len());
    if ok {
        Ok(())
    } else {
        Err("inconsistent bound tables".into())
    }
}
