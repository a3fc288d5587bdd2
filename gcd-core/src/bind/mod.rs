//! Binding a compiled grammar to a vocabulary: the token tables that make
//! masks fast.
//!
//! For every lexer state `q` the tables split the vocabulary three ways (the
//! token spanner idea of Park et al., adapted to a contextual lexer):
//!
//! * `within[q]`: tokens whose bytes all extend the pending lexeme (or, from
//!   a start state, read ignored lexemes and then start the next one: see
//!   `transparent_starts`). They are allowed whatever the parser stack
//!   is, so this part of a mask is a copy.
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

mod budget;
mod cache;
mod capped;
mod chains;
mod cost;
mod grammar_caps;
mod heads;
mod lexeme_costs;
mod literal_costs;
mod pieces;
mod plain;
mod previous;
mod shallow;
mod tables;

use crate::counters::{timed, Stage};
use std::sync::{Arc, Mutex, OnceLock};

use bitvec::prelude::*;
use rustc_hash::FxHashMap;

pub use budget::{BudgetTables, BudgetUnavailable, CostTier, PendingCap, MAX_BUDGET_TABLE_BYTES};
/// The budget's "no completion" cost (for tests that compare with it).
#[doc(hidden)]
pub use cost::INF;
pub use heads::HeadMask;
pub(crate) use heads::{HeadMasks, DEEPEST_HEAD};
pub(crate) use tables::set_bit;
pub use tables::{Boundary, EndFilter, StateTables, TokenSet};

use crate::compiled::CompiledGrammar;
use crate::lexer::DEAD;
use crate::parser::Expansion;
use crate::vocab::trie::TokenTrie;
use crate::vocab::{VocabError, Vocabulary};
use cache::{lock_state_cache, Behaviour};
use pieces::Collected;
pub(crate) use pieces::PIECE_MIN_NODES;
pub(crate) use plain::PlainTokens;
pub(crate) use shallow::SHALLOW_DEPTH;

/// Conflicting cells whose derivations leave fewer distinct leftovers fork
/// as they always did: in Go (at most 14 per cell) taking them from the
/// expansion made the replay's cold masks slower (p99 about 810 against
/// 860 µs), in Java (30 to 74) it took a third off.
const MIN_EXPANSION_LEFTOVERS: usize = 8;

/// Lexer states up to which [`BoundGrammar::build_all_on_worker`] builds a
/// grammar's tables ahead of its masks: a derived tool-call type has a few
/// hundred (`ToolCall` in `examples/tool_call.rs`: 538, about 26 ms on
/// o200k); past this the worker's minutes of CPU would compete with the
/// model for tables most outputs never read.
pub const MAX_WORKER_STATES: usize = 4096;

/// Per (conflicting nonterminal, terminal), its expansion if it is kept.
type Expansions = FxHashMap<(u32, u32), Option<Arc<Expansion>>>;

/// See [`BoundGrammar::forest`].
pub(crate) type Forests = FxHashMap<(u32, u32, u32), Option<Arc<StateTables>>>;

/// Per lexer state, `(terminal, tokens)` costs built on first use.
pub(crate) type LazyCostRows = Vec<OnceLock<Box<[(u32, u32)]>>>;

/// A grammar bound to a vocabulary. `Send + Sync`: share it with `Arc`.
///
/// Tables are built lazily, per lexer state on the first mask that needs
/// it: a schema compiled per request has hundreds of lexer states, most of
/// them never visited by one output, and walking the trie for all of them
/// up front made binding cost 100× the first mask. [`build_all`](Self::build_all)
/// builds everything now, for servers that prefer steady mask times, and
/// [`build_all_on_worker`](Self::build_all_on_worker) does it beside the
/// caller (what a derived type's binding does).
#[derive(Debug)]
pub struct BoundGrammar {
    pub(crate) grammar: Arc<CompiledGrammar>,
    pub(crate) vocab: Arc<Vocabulary>,
    pub(crate) trie: Arc<TokenTrie>,
    pub(crate) states: Vec<OnceLock<StateTables>>,
    /// Tokens longer than this share tables at a bounded depth (see
    /// [`shallow`]).
    pub(crate) shallow_depth: usize,
    /// The trie split at `shallow_depth`, built on first use.
    pub(crate) deep: OnceLock<Arc<shallow::DeepTrie>>,
    /// Per lexer state: index into `end_filters`, or `u32::MAX`.
    pub(crate) end_filter_of: Vec<u32>,
    /// "First byte ends the lexeme" filters, shared by states with equal
    /// extension bytes; the token sets are filled on first use.
    pub(crate) end_filters: Vec<(Box<[bool; 256]>, OnceLock<EndFilter>)>,
    /// Token-cost tables for budgeted masks, built on first use.
    pub(crate) budget: OnceLock<BudgetTables>,
    /// Upper bounds on `budget`, which read no token tables (see
    /// [`CostTier`]), built on first use.
    pub(crate) budget_upper: OnceLock<BudgetTables>,
    /// The classes of previous lexemes both budget tables plan by, and
    /// that size them (see `budget_available`).
    pub(crate) previous_classes: OnceLock<previous::PreviousClasses>,
    /// Per lexer state, the budget's cost to end the pending lexeme as each
    /// terminal (see [`lexeme_costs`](Self::lexeme_costs)).
    pub(crate) lexeme_costs: LazyCostRows,
    /// Per lexer state, upper bounds on `lexeme_costs` (see
    /// [`lexeme_upper_costs`](Self::lexeme_upper_costs)).
    pub(crate) lexeme_upper: LazyCostRows,
    /// The byte classes of the lexer that hold a single-byte token.
    pub(crate) single_byte_classes: OnceLock<Vec<u8>>,
    /// Whether budget tables merge previous lexemes that plan alike
    /// (`false`: one class per terminal, the reference for tests).
    pub(crate) merge_previous: bool,
    /// The same for literal terminals, from their bytes.
    pub(crate) literal_costs: OnceLock<literal_costs::LiteralCosts>,
    /// Per lexer state: whether an ignored lexeme read from it leads back
    /// to it (see `transparent_starts`).
    pub(crate) transparent: Vec<bool>,
    /// Tables of large trie subtrees entered in a lexer state (see
    /// [`rooted`](Self::rooted)), built on first use.
    pub(crate) rooted: Mutex<FxHashMap<(u32, u32), Arc<StateTables>>>,
    /// Per (lexer state, boundary winner, next lexeme's start state): the
    /// [`forest`](Self::forest) tables, `None` once asked for.
    pub(crate) forests: Mutex<Forests>,
    /// Subtrees with at least this many nodes use rooted tables.
    pub(crate) rooted_min_nodes: usize,
    /// Whole-trie walks take root subtrees with at least this many nodes
    /// from other grammars' pieces (see [`pieces`]).
    pub(crate) piece_min_nodes: usize,
    /// The lexer states of length-bounded strings' counts (see
    /// [`chains`]), found on first use.
    pub(crate) chains: OnceLock<chains::ChainStates>,
    /// The trie's plain tokens (see [`plain`]), shared by every binding
    /// to the trie.
    pub(crate) plain: Arc<plain::PlainTokens>,
    /// Per reference count state, where its tokens leave the string.
    pub(crate) chain_exits: Mutex<FxHashMap<u32, Arc<chains::ChainExits>>>,
    /// Head masks, built on first use.
    pub(crate) heads: Mutex<HeadMasks>,
    /// Per (conflicting nonterminal, terminal), the derivations mask walks
    /// take there (see [`expansion`](Self::expansion)).
    pub(crate) expansions: Mutex<Expansions>,
    pub(crate) head_masks_on: bool,
    /// The most symbols that cannot derive the empty string a head mask's
    /// head holds (see `runtime/matcher/heads.rs`).
    pub(crate) deepest_head: usize,
}

/// A subtree walked by masks gets its own tables once it has this many
/// nodes: below it, walking is cheaper than a lookup (measured on Go and
/// Java replays: 256 left a third of the walk, 64 a sixth).
pub(crate) const ROOTED_MIN_NODES: usize = 64;
/// Most rooted tables kept per binding (the cache starts over past it).
const MAX_ROOTED: usize = 4096;

/// `vocab` as `grammar` reads it: unchanged unless the grammar names
/// special tokens, which are resolved and spelled as its symbols.
pub(crate) fn vocab_for(
    grammar: &CompiledGrammar,
    vocab: Arc<Vocabulary>,
) -> Result<Arc<Vocabulary>, VocabError> {
    // Bound for another grammar's special tokens: start from the tokenizer's.
    let vocab = vocab.base();
    let ids = grammar
        .grammar
        .special_tokens()
        .map(|t| vocab.special_token_id(t))
        .collect::<Result<Vec<u32>, VocabError>>()?;
    if ids.is_empty() {
        return Ok(vocab);
    }
    Ok(Arc::new(vocab.with_special_symbols(&ids)?))
}

/// Which lexer states are *transparent starts*: the start state of a
/// candidate set with an ignored terminal, which no transition enters.
/// Such a state is only ever the start of a lexeme in one parser context,
/// and an ignored lexeme leaves the parser as it was, so the lexeme after
/// it starts in the same state. Its tables then read through ignored
/// lexemes: a token `" foo"` after a closed lexeme is whitespace and the
/// start of `foo` in one precomputed set, instead of a boundary whose
/// subtree (every space-led word of the vocabulary) the mask would walk.
pub(crate) fn transparent_starts(g: &CompiledGrammar) -> Vec<bool> {
    let lx = &g.lexer;
    let mut entered = vec![false; lx.num_states()];
    for &t in &lx.trans {
        if t != DEAD {
            entered[t as usize] = true;
        }
    }
    let mut out = vec![false; lx.num_states()];
    for &q in &lx.starts {
        let q = q as usize;
        out[q] = !entered[q] && lx.alive[q].iter().any(|&t| g.is_ignored(t));
    }
    out
}

impl BoundGrammar {
    /// Binds with a fresh trie. Use [`with_trie`](Self::with_trie) to share a
    /// trie between grammars bound to the same vocabulary.
    ///
    /// # Panics
    /// If the grammar names a special token the vocabulary lacks, or caps
    /// a lexeme below what the vocabulary needs (`[max_tokens=N]`); use
    /// [`try_new`](Self::try_new) for grammars that do either.
    // The documented panic: callers that bind grammars naming special
    // tokens use `try_new` (the CLI, Python, `gcd::Chat`, `try_bind`).
    #[allow(clippy::panic)]
    pub fn new(grammar: Arc<CompiledGrammar>, vocab: Arc<Vocabulary>) -> BoundGrammar {
        Self::try_new(grammar, vocab).unwrap_or_else(|e| panic!("BoundGrammar::new: {e}"))
    }

    /// Binds with a fresh trie, resolving the special tokens the grammar
    /// names (`<|im_end|>`) in `vocab`: an error names a token the
    /// vocabulary lacks, or a lexeme cap of the grammar's that this
    /// vocabulary cannot keep ([`VocabErrorKind::LexemeCap`](crate::vocab::VocabErrorKind)).
    pub fn try_new(
        grammar: Arc<CompiledGrammar>,
        vocab: Arc<Vocabulary>,
    ) -> Result<BoundGrammar, VocabError> {
        let vocab = vocab_for(&grammar, vocab)?;
        let trie = Arc::new(TokenTrie::new(&vocab));
        Self::bind(grammar, vocab, trie).with_checked_caps()
    }

    /// Binds lazily: nothing is walked until a mask needs it.
    ///
    /// # Panics
    /// As [`new`](Self::new); use [`try_with_trie`](Self::try_with_trie)
    /// for grammars that name special tokens or cap lexemes.
    #[allow(clippy::panic)] // documented, as for `new`
    pub fn with_trie(
        grammar: Arc<CompiledGrammar>,
        vocab: Arc<Vocabulary>,
        trie: Arc<TokenTrie>,
    ) -> BoundGrammar {
        Self::try_with_trie(grammar, vocab, trie)
            .unwrap_or_else(|e| panic!("BoundGrammar::with_trie: {e}"))
    }

    /// [`with_trie`](Self::with_trie), resolving the special tokens the
    /// grammar names. A grammar that names some reads the vocabulary
    /// differently (see [`Vocabulary::special_token_id`]), so it gets a
    /// trie of its own and `trie` is not used; so does a vocabulary read
    /// that way for another grammar, which binds as its
    /// [`base`](Vocabulary::base).
    pub fn try_with_trie(
        grammar: Arc<CompiledGrammar>,
        vocab: Arc<Vocabulary>,
        trie: Arc<TokenTrie>,
    ) -> Result<BoundGrammar, VocabError> {
        let derived = vocab.special_symbols().next().is_some();
        if grammar.grammar.special_tokens().next().is_none() && !derived {
            return Self::bind(grammar, vocab, trie).with_checked_caps();
        }
        Self::try_new(grammar, vocab)
    }

    fn bind(
        grammar: Arc<CompiledGrammar>,
        vocab: Arc<Vocabulary>,
        trie: Arc<TokenTrie>,
    ) -> BoundGrammar {
        timed(Stage::Bind, || Self::bind_now(grammar, vocab, trie))
    }

    fn bind_now(
        grammar: Arc<CompiledGrammar>,
        vocab: Arc<Vocabulary>,
        trie: Arc<TokenTrie>,
    ) -> BoundGrammar {
        let lx = &grammar.lexer;
        let n_states = lx.num_states();
        // States are told apart by their rows over byte classes (every class
        // holds a byte), not by 256 bytes each: this ran for every state of
        // every schema before its first mask.
        let k = lx.classes.len();
        let mut index: FxHashMap<Box<[u64]>, u32> = FxHashMap::default();
        let mut row_key = vec![0u64; k.div_ceil(64)];
        let mut end_filters = Vec::new();
        let end_filter_of = (0..n_states)
            .map(|q| {
                if lx.winner(q as u32).is_none() {
                    return u32::MAX;
                }
                row_key.fill(0);
                let mut every = true;
                for (c, &to) in lx.trans[q * k..(q + 1) * k].iter().enumerate() {
                    if to == DEAD {
                        every = false;
                    } else {
                        row_key[c / 64] |= 1 << (c % 64);
                    }
                }
                if every {
                    return u32::MAX;
                }
                if let Some(&i) = index.get(&row_key[..]) {
                    return i;
                }
                let ext = lx.extending_bytes(q as u32);
                end_filters.push((Box::new(ext.map(|e| !e)), OnceLock::new()));
                let i = end_filters.len() as u32 - 1;
                index.insert(row_key.clone().into_boxed_slice(), i);
                i
            })
            .collect();
        BoundGrammar {
            transparent: transparent_starts(&grammar),
            rooted: Mutex::default(),
            forests: Mutex::default(),
            rooted_min_nodes: ROOTED_MIN_NODES,
            piece_min_nodes: PIECE_MIN_NODES,
            chains: OnceLock::new(),
            plain: plain::PlainTokens::of(vocab.fingerprint(), &trie),
            chain_exits: Mutex::default(),
            heads: Mutex::default(),
            expansions: Mutex::default(),
            head_masks_on: true,
            deepest_head: DEEPEST_HEAD,
            states: (0..n_states).map(|_| OnceLock::new()).collect(),
            shallow_depth: shallow::SHALLOW_DEPTH,
            deep: OnceLock::new(),
            end_filter_of,
            end_filters,
            budget: OnceLock::new(),
            budget_upper: OnceLock::new(),
            previous_classes: OnceLock::new(),
            lexeme_costs: (0..n_states).map(|_| OnceLock::new()).collect(),
            lexeme_upper: (0..n_states).map(|_| OnceLock::new()).collect(),
            single_byte_classes: OnceLock::new(),
            merge_previous: true,
            literal_costs: OnceLock::new(),
            grammar,
            vocab,
            trie,
        }
    }

    /// Binds with a fresh trie (see [`try_new`](Self::try_new)) and builds
    /// every table now, calling `progress(done, total)` per lexer state.
    pub fn with_progress(
        grammar: Arc<CompiledGrammar>,
        vocab: Arc<Vocabulary>,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<BoundGrammar, VocabError> {
        let bound = Self::try_new(grammar, vocab)?;
        let n = bound.states.len();
        for q in 0..n {
            bound.state(q as u32);
            progress(q + 1, n);
        }
        if bound.budget_available().is_ok() {
            bound.budget();
        }
        Ok(bound)
    }

    /// The derivations of conflicting nonterminal `x` (encoded) that take
    /// terminal `t`, worked out on first use (see
    /// [`ParseTables::expansion`](crate::parser::ParseTables::expansion)).
    pub(crate) fn expansion(&self, x: u32, t: u32) -> Option<Arc<Expansion>> {
        let lock = || self.expansions.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = lock().get(&(x, t)) {
            return e.clone();
        }
        let e = (self.grammar.parse.expansion(x, t))
            .filter(|e| e.leftovers.len() >= MIN_EXPANSION_LEFTOVERS)
            .map(Arc::new);
        lock().insert((x, t), e.clone());
        e
    }

    /// Builds every table not built yet: all lexer states, end filters,
    /// the budget tables and every state's lexeme costs (exact and upper
    /// bounds), so no later mask builds anything.
    pub fn build_all(&self) {
        self.states();
        for i in 0..self.end_filters.len() {
            self.end_filter(i as u32);
        }
        if self.budget_available().is_ok() {
            self.budget();
            for q in 0..self.states.len() as u32 {
                self.lexeme_costs(q);
                self.lexeme_upper_costs(q);
            }
        }
    }

    /// Starts [`build_all`](Self::build_all) on a worker thread, for a
    /// grammar known before its first request (a derived type): its tables
    /// are then ready by the time a model's prompt is read, and the first
    /// output's masks cost what later ones do. Masks meanwhile build what
    /// they need as before (a state the worker is building is waited for,
    /// not built twice), so the worker only ever saves time. `None` when a
    /// grammar has more than [`MAX_WORKER_STATES`] lexer states (its tables
    /// are left to the masks that need them, as a schema's are) or no
    /// thread could be started. Join the handle to wait for the tables.
    pub fn build_all_on_worker(self: &Arc<Self>) -> Option<std::thread::JoinHandle<()>> {
        if self.states.len() > MAX_WORKER_STATES {
            return None;
        }
        let bound = self.clone();
        (std::thread::Builder::new().name("gcd-tables".into()))
            .spawn(move || bound.build_all())
            .ok()
    }

    /// Walks every subtree instead of using rooted tables when `false`:
    /// the reference the tests compare rooted tables with.
    #[doc(hidden)]
    pub fn set_rooted_tables(&mut self, on: bool) {
        self.rooted_min_nodes = if on { ROOTED_MIN_NODES } else { usize::MAX };
    }

    /// Tables are shared by the lexer's behaviour over `depth` bytes, the
    /// longer tokens walked per state (see [`shallow`]; `usize::MAX`: by
    /// the behaviour over the longest token only). Call before any table
    /// is built.
    #[doc(hidden)]
    pub fn set_shallow_depth(&mut self, depth: usize) {
        self.shallow_depth = depth;
        self.deep = OnceLock::new();
    }

    /// Budget tables keep one class of previous lexemes per terminal when
    /// `false`: the reference the tests compare merged classes with. Call
    /// before the budget tables are built.
    #[doc(hidden)]
    pub fn set_merged_budget_classes(&mut self, on: bool) {
        self.merge_previous = on;
    }

    /// Whole-trie walks take root subtrees of at least `min_nodes` nodes
    /// from pieces (`usize::MAX`: never), for tests on small vocabularies.
    #[doc(hidden)]
    pub fn set_piece_min_nodes(&mut self, min_nodes: usize) {
        self.piece_min_nodes = min_nodes;
    }

    /// The compiled grammar this binding is for.
    pub fn grammar(&self) -> &Arc<CompiledGrammar> {
        &self.grammar
    }

    /// The vocabulary this binding is for.
    pub fn vocab(&self) -> &Arc<Vocabulary> {
        &self.vocab
    }

    /// The vocabulary's token trie (shareable between bindings).
    pub fn trie(&self) -> &Arc<TokenTrie> {
        &self.trie
    }

    /// Number of lexer states, i.e. of [`state`](Self::state) tables.
    pub fn num_states(&self) -> usize {
        self.states.len()
    }

    /// The tables of lexer state `q`, built on first use.
    pub fn state(&self, q: u32) -> &StateTables {
        self.states[q as usize].get_or_init(|| timed(Stage::StateTables, || self.build_state(q)))
    }

    /// Every state's tables, building the missing ones.
    pub fn states(&self) -> Vec<&StateTables> {
        (0..self.states.len() as u32)
            .map(|q| self.state(q))
            .collect()
    }

    /// The end filter of lexer state `q` (as [`StateTables::end_filter`]
    /// names it), without building its tables: `None` when no first byte
    /// ends its lexeme or it has no winner.
    pub(crate) fn end_filter_of(&self, q: u32) -> Option<u32> {
        Some(self.end_filter_of[q as usize]).filter(|&i| i != u32::MAX)
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

    /// The budget tables, built on first use (with the token tables of
    /// every context's start state and the few states near them).
    /// Callers check [`budget_available`](Self::budget_available) first: a
    /// grammar past [`MAX_BUDGET_TABLE_BYTES`] has none.
    pub fn budget(&self) -> &BudgetTables {
        self.budget
            .get_or_init(|| timed(Stage::BudgetTables, || BudgetTables::new(self)))
    }

    /// Upper bounds on [`budget`](Self::budget)'s costs, built on first
    /// use without any token table: what a fresh binding's budgeted masks
    /// decide with until a decision needs the exact costs (see
    /// [`CostTier`]).
    pub fn budget_upper(&self) -> &BudgetTables {
        self.budget_upper
            .get_or_init(|| timed(Stage::BudgetTables, || BudgetTables::upper(self)))
    }

    /// The exact budget tables if they are built: once they are, the
    /// bounds save nothing.
    pub fn budget_if_built(&self) -> Option<&BudgetTables> {
        self.budget.get()
    }

    /// (byte, state) for each byte class that a token spells a byte of
    /// alone and that starts a lexeme from lexer state `q`, the class
    /// represented by its first byte: the first tokens of the upper-bound
    /// budget tables' plans, in the form of [`StateTables::first_ends`].
    /// One entry per class, not per byte, is enough: the end state and
    /// the filters on a first byte (the bytes that extend a previous
    /// lexeme) are the same for every byte of a class.
    pub(crate) fn single_byte_firsts(&self, q: u32) -> Vec<(u8, u32)> {
        let lx = &self.grammar.lexer;
        let k = lx.classes.len();
        (self.single_byte_classes().iter())
            .filter_map(|&c| {
                let e = lx.trans[q as usize * k + c as usize];
                (e != DEAD).then_some((lx.classes.representatives[c as usize], e))
            })
            .collect()
    }

    /// Upper bounds on [`lexeme_costs`](Self::lexeme_costs), at least as
    /// large, by plans that read no token tables (single-byte tokens;
    /// literals exactly), built per state on first use: masks far from
    /// the budget's limit decide with these.
    pub fn lexeme_upper_costs(&self, q: u32) -> &[(u32, u32)] {
        self.lexeme_upper[q as usize].get_or_init(|| {
            lexeme_costs::lexeme_upper_bounds(self, q, lexeme_costs::MAX_UPPER_BOUND_BYTES).into()
        })
    }

    /// Lower bounds on [`lexeme_costs`](Self::lexeme_costs), one for
    /// every terminal its row can hold (those alive in `q`): literals
    /// exactly (both read them off their bytes), 0 where the lexeme may
    /// already end as the terminal, else 1. A plan at its lower bounds that
    /// does not fit the budget proves no exact plan does, without the
    /// search that builds token tables.
    #[doc(hidden)]
    pub fn lexeme_lower_costs(&self, q: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        let literals = self.literal_costs();
        let ends: smallvec::SmallVec<[u32; 4]> = self.grammar.lexeme_ends(q).collect();
        (self.grammar.lexer.alive[q as usize].iter()).filter_map(move |&y| {
            match literals.get(q, y) {
                Some(c) => (c < cost::INF).then_some((y, c)),
                None => Some((y, u32::from(!ends.contains(&y)))),
            }
        })
    }

    /// The lexer's byte classes that hold a byte some token spells alone.
    pub(crate) fn single_byte_classes(&self) -> &[u8] {
        self.single_byte_classes.get_or_init(|| {
            let classes = &self.grammar.lexer.classes;
            let mut has = vec![false; classes.len()];
            for node in self.trie.root_children() {
                if !self.trie.tokens_at(node).is_empty() {
                    has[classes.class_of[self.trie.byte[node] as usize] as usize] = true;
                }
            }
            (0..classes.len())
                .filter(|&c| has[c])
                .map(|c| c as u8)
                .collect()
        })
    }

    /// The in-lexeme costs of literal terminals, built on first use.
    /// The classes of previous lexemes the budget tables plan by.
    pub(crate) fn previous_classes(&self) -> &previous::PreviousClasses {
        (self.previous_classes).get_or_init(|| previous::PreviousClasses::of(&self.grammar, true))
    }

    pub(crate) fn literal_costs(&self) -> &literal_costs::LiteralCosts {
        (self.literal_costs).get_or_init(|| literal_costs::LiteralCosts::new(self))
    }

    /// The fewest tokens, each staying inside the lexeme, that take a
    /// pending lexeme in lexer state `q` to where it ends as each terminal
    /// that can end it, as `(terminal, tokens)` sorted by terminal. Built
    /// on first use by a search that reads the token tables of the states
    /// near `q` only.
    pub fn lexeme_costs(&self, q: u32) -> &[(u32, u32)] {
        self.lexeme_costs[q as usize].get_or_init(|| {
            let alive = self.grammar.lexer.alive[q as usize].iter().copied();
            timed(Stage::BudgetTables, || {
                lexeme_costs::lexeme_distances(self, &[q], 0, alive)
            })
            .into()
        })
    }

    /// Whether this grammar's budget tables fit in
    /// [`MAX_BUDGET_TABLE_BYTES`], or by how much they do not.
    pub fn budget_available(&self) -> Result<(), BudgetUnavailable> {
        if self.budget.get().is_some() {
            return Ok(());
        }
        // The classes read every lexer state's transitions: found once,
        // for this size and for the tables.
        let bytes = budget::table_bytes(&self.grammar, self.previous_classes());
        if bytes <= MAX_BUDGET_TABLE_BYTES {
            return Ok(());
        }
        let g = &self.grammar.grammar;
        Err(BudgetUnavailable::new(
            bytes,
            g.terminals.len(),
            g.nonterminals.len(),
        ))
    }

    /// The tables of lexer state `q`: derived from another count's when
    /// `q` counts a length-bounded string near its bound (see [`chains`]);
    /// from the process-wide cache when
    /// another grammar bound to this vocabulary had a state that behaves
    /// the same (JSON string bodies, numbers, formats recur in every
    /// schema), else by walking the trie. A behaviour keyed over fewer
    /// bytes than the longest token shares the short tokens only, and the
    /// rest are walked here (see [`shallow`]).
    fn build_state(&self, q: u32) -> StateTables {
        if let Some(tables) = self.chain_tables(q) {
            return tables;
        }
        let end_filter = self.end_filter_of[q as usize];
        let lx = &self.grammar.lexer;
        let behaviour = Behaviour::of(lx, q, self.key_depth(q), cache::MAX_STATE_BEHAVIOUR);
        let Some(behaviour) = behaviour else {
            crate::counters::count_state_table(false);
            return self.walk_state(q, end_filter);
        };
        let shallow = self.keys_shallow(q, &behaviour);
        let mut key = behaviour.key.clone();
        if self.transparent[q as usize] {
            // Reading through ignored lexemes depends on which winners are ignored.
            key.push(u32::MAX - 1);
            key.extend((behaviour.winners.iter()).map(|&w| u32::from(self.grammar.is_ignored(w))));
        }
        if shallow {
            self.mark_shallow(&mut key);
        }
        let key = (self.vocab.fingerprint(), self.trie.num_nodes(), key);
        let hit = lock_state_cache().get(&key);
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
            if shallow {
                crate::counters::count_shallow_table();
                self.add_deep(q, &mut tables);
            }
            return tables;
        }
        crate::counters::count_state_table(false);
        let tables = self.walk_state(q, end_filter);
        let (state_local, winner_local) = behaviour.local_numbers();
        let stored = match shallow {
            true => &self.shallow_part(&tables),
            false => &tables,
        };
        let local = stored.renumber(|s| state_local[&s], |w| winner_local[&w], u32::MAX);
        let bytes = local.heap_bytes() + key.2.len() * 4;
        lock_state_cache().insert(key, Arc::new(local), bytes);
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
        self.walk_from(q, 0, self.end_filter_of[q as usize], usize::MAX)
    }

    /// The tables of the tokens below trie node `root` (whose byte is read
    /// in lexer state `q`, at the start of a lexeme), as if `q` were
    /// entered at `root`'s depth: the lexeme's tokens that stay within it
    /// and its boundaries deeper down. A mask that crosses into a new
    /// lexeme inside a token (a newline's indentation, then a word) would
    /// otherwise walk that subtree every time; the subtree of `" t"` alone
    /// holds thousands of tokens.
    pub fn rooted(&self, q: u32, root: u32) -> Arc<StateTables> {
        let lock = || self.rooted.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = lock().get(&(q, root)) {
            return t.clone();
        }
        let tables = Arc::new(self.walk_from(q, root as usize, u32::MAX, usize::MAX));
        let mut cache = lock();
        if cache.len() >= MAX_ROOTED {
            cache.clear();
        }
        cache.insert((q, root), tables.clone());
        tables
    }

    /// The tables of the tokens that cross `boundary` of state `q`'s
    /// tables into a lexeme started in lexer state `next`: the union of
    /// the [`rooted`](Self::rooted) tables of its nodes, so that a mask
    /// reads one set where it walked every node. `None` the first time it
    /// is asked for: most boundaries are crossed once, and building costs
    /// about one walk. Near the end of a long string's chunk, thousands of
    /// nodes cross into the next chunk (every token longer than the
    /// characters left), and each mask there walked them all: 10-20 ms.
    pub(crate) fn forest(
        &self,
        q: u32,
        boundary: &Boundary,
        next: u32,
    ) -> Option<Arc<StateTables>> {
        let lock = || self.forests.lock().unwrap_or_else(|e| e.into_inner());
        let key = (q, boundary.winner, next);
        {
            let mut cache = lock();
            match cache.get(&key) {
                Some(Some(tables)) => return Some(tables.clone()),
                Some(None) => {}
                None => {
                    if cache.len() >= MAX_ROOTED {
                        cache.clear();
                    }
                    cache.insert(key, None);
                    return None;
                }
            }
        }
        let trie = &*self.trie;
        let mut depth_state = vec![DEAD; 1 + trie.max_depth];
        let mut out = Collected::new(trie.vocab_len);
        let restart = self.transparent[next as usize].then_some(next);
        for &node in &boundary.nodes {
            let (node, top) = (node as usize, trie.depth[node as usize] as usize);
            depth_state[top - 1] = next;
            let end = trie.subtree_end[node] as usize;
            let first = trie.first_byte_of_node(node);
            self.walk_nodes(node, end, top, first, restart, &mut depth_state, &mut out);
        }
        let tables = Arc::new(out.finish(self, u32::MAX));
        lock().insert(key, Some(tables.clone()));
        Some(tables)
    }

    /// Walks the trie from lexer state `q` once.
    fn walk_state(&self, q: u32, end_filter: u32) -> StateTables {
        self.walk_from(q, 0, end_filter, self.piece_min_nodes)
    }

    /// Walks the subtree of trie node `root` (the whole trie for the root,
    /// node 0) with lexer state `q` before its first byte; a whole walk
    /// takes root subtrees of at least `piece_min` nodes from pieces.
    fn walk_from(&self, q: u32, root: usize, end_filter: u32, piece_min: usize) -> StateTables {
        let trie = &*self.trie;
        let mut depth_state = vec![DEAD; 1 + trie.max_depth];
        let mut out = Collected::new(trie.vocab_len);
        let transparent = self.transparent[q as usize];
        if root == 0 && !transparent && piece_min != usize::MAX {
            if !self.walk_plain(q, &mut depth_state, &mut out) {
                self.walk_by_pieces(q, &mut depth_state, &mut out);
            }
            return out.finish(self, end_filter);
        }
        // The first byte of a token below `root`, and the depth its bytes
        // start being read at.
        let (top, first) = match root {
            0 => (1, 0u8),
            _ => (trie.depth[root] as usize, trie.first_byte_of_node(root)),
        };
        depth_state[top - 1] = q;
        let end = trie.subtree_end[root] as usize;
        let restart = transparent.then_some(q);
        self.walk_nodes(
            root.max(1),
            end,
            top,
            first,
            restart,
            &mut depth_state,
            &mut out,
        );
        out.finish(self, end_filter)
    }

    /// Bytes held by the tables built so far (the trie counted separately).
    pub fn table_bytes(&self) -> usize {
        let states: usize = self
            .states
            .iter()
            .filter_map(OnceLock::get)
            .map(StateTables::heap_bytes)
            .sum();
        states
            + self
                .end_filters
                .iter()
                .filter_map(|(_, f)| f.get())
                .map(|f| f.tokens.as_raw_slice().len() * 8 + 256)
                .sum::<usize>()
            + self.budget.get().map_or(0, BudgetTables::heap_bytes)
            + (self.lexeme_costs.iter().chain(&self.lexeme_upper))
                .filter_map(OnceLock::get)
                .map(|row| row.len() * 8 + 16)
                .sum::<usize>()
    }
}
