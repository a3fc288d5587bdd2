//! Trie walks, and the *pieces* that let a whole-vocabulary walk reuse
//! other grammars' work subtree by subtree.
//!
//! A lexer state's tables come from walking the whole token trie. The
//! process-wide state cache shares them between grammars whose states
//! behave alike, but many states are unique to their schema while doing
//! almost nothing unique: inside an object key, the lexer runs the
//! schema's own property names next to "any other key", and after a first
//! byte that starts none of the names only "any other key" is alive, in a
//! state that behaves like every other schema's. Walking the vocabulary's
//! 270,000 trie nodes from such a state took about 5 ms per key state on
//! MaskBench, inside a mask.
//!
//! So a whole walk takes each large subtree of the root from a [`Piece`]:
//! that subtree walked from the state its first byte leads to, kept in the
//! numbering of that state's [`Behaviour`] and shared across grammars like
//! the state tables are. Only subtrees entered in a state with no
//! shareable behaviour (the first letters of the schema's own names) are
//! walked.

use std::sync::{Arc, Mutex, OnceLock};

use rustc_hash::{FxHashMap, FxHashSet};

use super::cache::{Behaviour, MAX_PIECE_BEHAVIOUR};
use super::capped::Capped;
use super::tables::set_bit;
use super::{BoundGrammar, StateTables, TokenSet};
use crate::lexer::DEAD;

/// Root subtrees with fewer nodes are walked: below this a piece's lookup
/// and merge cost about what the walk does.
pub(crate) const PIECE_MIN_NODES: usize = 256;

/// Bytes of pieces the process keeps (two generations, see `capped.rs`).
const MAX_PIECE_BYTES: usize = 64 << 20;

/// Entries of [`Collected`]'s memos of recent lookups.
const RECENT: usize = 64;

/// The tokens a walk found ending in one lexer state: a list while
/// [`TokenSet::from_list`] would keep it as one, then a bitset. A string
/// body's state holds most of the vocabulary, largely copied from pieces,
/// and listing its ids before setting them as bits was half of building
/// its tables.
enum EndTokens {
    List(Vec<u32>),
    /// The bits and how many are set (ids come once per walk).
    Bits(Vec<u64>, usize),
}

impl EndTokens {
    #[inline(always)]
    fn add(&mut self, toks: &[u32], width: usize) {
        match self {
            EndTokens::List(list) => {
                match toks {
                    [t] => list.push(*t),
                    _ => list.extend_from_slice(toks),
                }
                if !TokenSet::is_sparse(list.len(), width) {
                    self.make_bits(width);
                }
            }
            EndTokens::Bits(words, count) => {
                for &t in toks {
                    set_bit(words, t);
                }
                *count += toks.len();
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn make_bits(&mut self, width: usize) {
        if let EndTokens::List(list) = self {
            let mut words = vec![0u64; width.div_ceil(64)];
            for &t in list.iter() {
                set_bit(&mut words, t);
            }
            *self = EndTokens::Bits(words, list.len());
        }
    }

    fn len(&self) -> usize {
        match self {
            EndTokens::List(list) => list.len(),
            EndTokens::Bits(_, count) => *count,
        }
    }

    fn into_set(self, width: usize) -> TokenSet {
        match self {
            EndTokens::List(list) => TokenSet::from_list(list, width),
            EndTokens::Bits(words, _) => TokenSet::from_words(words, width),
        }
    }

    /// The ids, in no particular order.
    fn into_ids(self, width: usize) -> Vec<u32> {
        match self {
            EndTokens::List(list) => list,
            bits => bits.into_set(width).ids(),
        }
    }
}

/// What a trie walk collects, before it becomes [`StateTables`].
pub(super) struct Collected {
    /// The vocabulary's width.
    width: usize,
    /// Tokens that stay within the lexeme, by the state they end in.
    by_end: Vec<(u32, EndTokens)>,
    end_slot: FxHashMap<u32, usize>,
    /// A direct-mapped memo in front of `end_slot`: the tokens of a
    /// subtree end in few states, but not in one (inside a string with a
    /// length bound, the state counts each token's characters), and a map
    /// lookup per token was a third of a walk.
    recent_slot: [(u32, u32); RECENT],
    /// Per slot of `by_end`, the first byte of its last token, plus one
    /// (0: none yet). A walk meets each first byte in one run of the trie,
    /// so `first_ends` is only touched when the run changes.
    last_first: Vec<u16>,
    first_ends: FxHashSet<(u8, u32)>,
    by_winner: FxHashMap<u32, Vec<u32>>,
}

impl Collected {
    pub(super) fn new(width: usize) -> Collected {
        Collected {
            width,
            by_end: Vec::new(),
            end_slot: FxHashMap::default(),
            recent_slot: [(DEAD, 0); RECENT],
            last_first: Vec::new(),
            first_ends: FxHashSet::default(),
            by_winner: FxHashMap::default(),
        }
    }

    /// `toks`, whose first byte is `first`, stay within the lexeme and
    /// leave the lexer in state `end`. Called once per token of a walk, so
    /// the memo misses are kept out of line and this inlines.
    #[inline(always)]
    pub(super) fn tokens(&mut self, toks: &[u32], first: u8, end: u32) {
        let slot = match self.recent_slot[end as usize % RECENT] {
            (e, slot) if e == end => slot as usize,
            _ => self.slot_of(end),
        };
        self.by_end[slot].1.add(toks, self.width);
        if self.last_first[slot] != u16::from(first) + 1 {
            self.note_first_end(slot, first, end);
        }
    }

    /// `toks` stay within the lexeme and end in `end`; their first bytes
    /// are the set bits of `firsts` (a 256-bit set).
    pub(super) fn tokens_with_firsts(&mut self, toks: &[u32], firsts: &[u64; 4], end: u32) {
        let slot = self.slot_of(end);
        self.by_end[slot].1.add(toks, self.width);
        for (w, &bits) in firsts.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                let b = (w * 64) as u32 + bits.trailing_zeros();
                self.first_ends.insert((b as u8, end));
                bits &= bits - 1;
            }
        }
    }

    /// The list of tokens ending in `end`, made on first use.
    #[cold]
    #[inline(never)]
    fn slot_of(&mut self, end: u32) -> usize {
        let by_end = &mut self.by_end;
        let slot = *self.end_slot.entry(end).or_insert_with(|| {
            by_end.push((end, EndTokens::List(Vec::new())));
            by_end.len() - 1
        });
        self.last_first.resize(self.by_end.len(), 0);
        self.recent_slot[end as usize % RECENT] = (end, slot as u32);
        slot
    }

    #[cold]
    #[inline(never)]
    fn note_first_end(&mut self, slot: usize, first: u8, end: u32) {
        self.last_first[slot] = u16::from(first) + 1;
        self.first_ends.insert((first, end));
    }

    /// Adds what this walk found to `tables` (walked from the same state
    /// over other trie nodes): the tables one walk over all of them gives.
    pub(super) fn merge_into(self, b: &BoundGrammar, tables: &mut StateTables) {
        let width = b.trie.vocab_len;
        for (e, ids) in self.by_end {
            let ids = ids.into_ids(width);
            tables.within.add(&ids, width);
            match (tables.within_by_end).binary_search_by_key(&e, |(x, _)| *x) {
                Ok(k) => tables.within_by_end[k].1.add(&ids, width),
                Err(k) => (tables.within_by_end).insert(k, (e, TokenSet::from_list(ids, width))),
            }
        }
        if !self.first_ends.is_empty() {
            tables.first_ends.extend(self.first_ends);
            tables.first_ends.sort_unstable();
            tables.first_ends.dedup();
        }
        for (w, nodes) in self.by_winner {
            match tables.boundaries.binary_search_by_key(&w, |x| x.winner) {
                Ok(k) => {
                    let mut all = std::mem::take(&mut tables.boundaries[k].nodes);
                    all.extend(nodes);
                    tables.boundaries[k] = b.boundary(w, all);
                }
                Err(k) => tables.boundaries.insert(k, b.boundary(w, nodes)),
            }
        }
    }

    pub(super) fn finish(self, b: &BoundGrammar, end_filter: u32) -> StateTables {
        let width = b.trie.vocab_len;
        let mut first_ends: Vec<(u8, u32)> = self.first_ends.into_iter().collect();
        first_ends.sort_unstable();
        let count: usize = self.by_end.iter().map(|(_, l)| l.len()).sum();
        // (Only lists when the union is small.)
        let lists = self.by_end.iter().filter_map(|(_, l)| match l {
            EndTokens::List(list) => Some(&list[..]),
            EndTokens::Bits(..) => None,
        });
        let sparse = TokenSet::is_sparse(count, width).then(|| TokenSet::from_lists(lists, width));
        let mut within_by_end: Vec<(u32, TokenSet)> = (self.by_end.into_iter())
            .map(|(e, ids)| (e, ids.into_set(width)))
            .collect();
        within_by_end.sort_by_key(|(e, _)| *e);
        // A large union from the sets just made: a dense one adds a word
        // at a time where its list would add an id (a string's body state
        // holds most of the vocabulary, and its ids were set twice).
        let within = sparse.unwrap_or_else(|| {
            TokenSet::dense_union(within_by_end.iter().map(|(_, set)| set), width)
        });
        let mut boundaries: Vec<_> = (self.by_winner.into_iter())
            .map(|(winner, nodes)| b.boundary(winner, nodes))
            .collect();
        boundaries.sort_by_key(|b| b.winner);
        StateTables {
            within,
            within_by_end,
            first_ends,
            boundaries,
            end_filter,
        }
    }
}

/// A root subtree walked from the lexer state its first byte leads to, in
/// the local numbering of that state's [`Behaviour`].
#[derive(Debug)]
pub(super) struct Piece {
    /// Tokens by the (local) state they end in.
    by_end: Vec<(u32, Vec<u32>)>,
    /// Trie nodes where a lexeme ends, by (local) winner.
    by_winner: Vec<(u32, Vec<u32>)>,
}

impl Piece {
    fn heap_bytes(&self) -> usize {
        let lists = self.by_end.iter().chain(&self.by_winner);
        lists.map(|(_, v)| v.len() * 4 + 32).sum::<usize>() + 64
    }
}

type PieceKey = (u64, usize, Arc<[u32]>, u32);

/// A state's behaviour, with its key ready to share.
type Keyed = (Behaviour, Arc<[u32]>);

fn lock_pieces() -> std::sync::MutexGuard<'static, Capped<PieceKey, Piece>> {
    static CACHE: OnceLock<Mutex<Capped<PieceKey, Piece>>> = OnceLock::new();
    CACHE
        .get_or_init(|| Mutex::new(Capped::new(MAX_PIECE_BYTES)))
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

impl BoundGrammar {
    /// Walks trie nodes `from..to` (whole subtrees), reading lexemes from
    /// `depth_state` (the state before each depth's byte; the caller sets
    /// it for `from`'s depth). Lexemes that end at a depth past `top` are
    /// boundaries (a lexeme must have read a byte of the token). With
    /// `restart` (a transparent start), an ignored lexeme that ends starts
    /// the next one in that state again.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn walk_nodes(
        &self,
        from: usize,
        to: usize,
        top: usize,
        first: u8,
        restart: Option<u32>,
        depth_state: &mut [u32],
        out: &mut Collected,
    ) {
        let nodes = (from, to, top, first);
        self.walk_loop::<false>(nodes, restart, (&[], 0), depth_state, out);
    }

    /// [`walk_nodes`](Self::walk_nodes) from the root, jumping over every
    /// subtree whose `skip` entry is at most `limit` (see `plain.rs`: the
    /// caller adds those tokens itself).
    pub(super) fn walk_nodes_skipping(
        &self,
        skip: (&[u8], u8),
        depth_state: &mut [u32],
        out: &mut Collected,
    ) {
        let nodes = (1, self.trie.subtree_end[0] as usize, 1, 0);
        self.walk_loop::<true>(nodes, None, skip, depth_state, out);
    }

    /// The walk itself; `SKIP` compiles the subtree test in or out, so
    /// that walks without it pay nothing for it.
    #[inline(always)]
    fn walk_loop<const SKIP: bool>(
        &self,
        (from, to, top, mut first): (usize, usize, usize, u8),
        restart: Option<u32>,
        (skip, limit): (&[u8], u8),
        depth_state: &mut [u32],
        out: &mut Collected,
    ) {
        let lx = &self.grammar.lexer;
        let trie = &*self.trie;
        // Every node of the walk once: the arrays cut to `to` and the
        // transition table read directly, so that the loop checks no
        // bounds it already knows (they were a fifth of its instructions).
        let (bytes, depths, ends) = (&trie.byte[..to], &trie.depth[..to], &trie.subtree_end[..to]);
        let token_off = &trie.token_off[..=to];
        let (trans, class_of, k) = (&lx.trans[..], &lx.classes.class_of, lx.classes.len());
        let mut i = from;
        while i < to {
            if SKIP && skip[i] <= limit {
                i = ends[i] as usize;
                continue;
            }
            let (d, byte) = (depths[i] as usize, bytes[i]);
            if d == 1 {
                first = byte;
            }
            let s = depth_state[d - 1];
            let mut ns = trans[s as usize * k + class_of[byte as usize] as usize];
            if ns == DEAD && d > top {
                match lx.winner(s) {
                    // An ignored lexeme from a transparent start: the next
                    // one starts here again.
                    Some(w) if restart.is_some() && self.grammar.is_ignored(w) => {
                        ns = restart.map_or(DEAD, |q| lx.next(q, byte));
                    }
                    Some(w) => out.by_winner.entry(w).or_default().push(i as u32),
                    None => {}
                }
            }
            if ns == DEAD {
                i = ends[i] as usize;
                continue;
            }
            depth_state[d] = ns;
            let (lo, hi) = (token_off[i] as usize, token_off[i + 1] as usize);
            if lo != hi {
                out.tokens(&trie.tokens[lo..hi], first, ns);
            }
            i += 1;
        }
    }

    /// Walks the whole trie from lexer state `q` (not a transparent
    /// start), taking large root subtrees from pieces.
    pub(super) fn walk_by_pieces(&self, q: u32, depth_state: &mut [u32], out: &mut Collected) {
        let lx = &self.grammar.lexer;
        let trie = &*self.trie;
        // Per entry state: its behaviour and key, if it has one.
        let mut behaviours: FxHashMap<u32, Option<Keyed>> = FxHashMap::default();
        depth_state[0] = q;
        for c in trie.root_children() {
            let end = trie.subtree_end[c] as usize;
            let s = lx.next(q, trie.byte[c]);
            if s == DEAD {
                continue;
            }
            let entry = if end - c >= self.piece_min_nodes {
                behaviours.entry(s).or_insert_with(|| {
                    // Below the root, one byte fewer is read.
                    Behaviour::of(lx, s, trie.max_depth.saturating_sub(1), MAX_PIECE_BEHAVIOUR).map(
                        |b| {
                            let key: Arc<[u32]> = b.key.as_slice().into();
                            (b, key)
                        },
                    )
                })
            } else {
                &None
            };
            match entry {
                Some((behaviour, key)) => {
                    let key = (
                        self.vocab.fingerprint(),
                        trie.num_nodes(),
                        key.clone(),
                        c as u32,
                    );
                    let piece = self.piece(key, s, behaviour, depth_state);
                    let byte = trie.byte[c];
                    for (e, toks) in &piece.by_end {
                        out.tokens(toks, byte, behaviour.states[*e as usize]);
                    }
                    for (w, nodes) in &piece.by_winner {
                        let w = behaviour.winners[*w as usize];
                        out.by_winner.entry(w).or_default().extend_from_slice(nodes);
                    }
                }
                _ => self.walk_nodes(c, end, 1, 0, None, depth_state, out),
            }
        }
    }

    /// The piece of root subtree `key.3` entered in state `s`, from the
    /// cache or walked.
    fn piece(
        &self,
        key: PieceKey,
        s: u32,
        behaviour: &Behaviour,
        depth_state: &mut [u32],
    ) -> Arc<Piece> {
        if let Some(p) = lock_pieces().get(&key) {
            return p;
        }
        let trie = &*self.trie;
        let c = key.3 as usize;
        let mut walked = Collected::new(trie.vocab_len);
        let toks = trie.tokens_at(c);
        if !toks.is_empty() {
            walked.tokens(toks, trie.byte[c], s);
        }
        depth_state[1] = s;
        let end = trie.subtree_end[c] as usize;
        self.walk_nodes(c + 1, end, 1, trie.byte[c], None, depth_state, &mut walked);
        let (state_local, winner_local) = behaviour.local_numbers();
        let mut by_winner: Vec<(u32, Vec<u32>)> = (walked.by_winner.into_iter())
            .map(|(w, nodes)| (winner_local[&w], nodes))
            .collect();
        by_winner.sort_unstable_by_key(|(w, _)| *w);
        let piece = Arc::new(Piece {
            by_end: (walked.by_end.into_iter())
                .map(|(e, toks)| (state_local[&e], toks.into_ids(trie.vocab_len)))
                .collect(),
            by_winner,
        });
        lock_pieces().insert(key, piece.clone(), piece.heap_bytes());
        piece
    }
}
