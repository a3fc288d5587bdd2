//! One terminal's regex as a plain byte-level DFA table.
//!
//! Owning the table (instead of keeping regex-automata's DFA) lets us
//! compute liveness exactly, cache DFAs per process, serialize them, and
//! combine them into the contextual lexer.

use rustc_hash::FxHashMap;
use std::sync::{Arc, Mutex, OnceLock};

use regex_automata::dfa::dense;
use regex_syntax::hir::{Hir, HirKind};

pub use super::determinize::DfaError;
use super::determinize::{minimal_table, raw_table};
use super::table::{byte_classes, distances_by_class, live_states, treat_alike};
use super::{counted, lookaround, DEAD};
use crate::codec;

/// One terminal's DFA as a plain table over bytes. State 0 is the start;
/// only states that can still reach a match are kept.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct TerminalDfa {
    /// `state * 256 + byte` → next state or [`DEAD`]. The vector it was
    /// built in, shared: making an `Arc<[u32]>` of it copied every table,
    /// 13 MB for a string of `maxLength` 500.
    pub trans: Arc<Vec<u32>>,
    /// Whether the bytes read so far form a whole match.
    pub accepting: Arc<[bool]>,
    /// What every compile using this table derives from it alone, worked
    /// out once per table: the process-wide cache hands out clones, which
    /// share it, so a string or number terminal that recurs in every
    /// schema is read through once, not once per schema.
    #[serde(skip)]
    derived: Arc<Derived>,
    /// Where the counts are, for a table built as a chain with an upper
    /// bound (see [`counted::ChainLayout`]); kept in snapshots, so that a
    /// derive's or `grammar!`'s strings get it too.
    #[serde(default)]
    chain: Option<super::counted::ChainLayout>,
}

/// See [`TerminalDfa`]'s `derived`.
#[derive(Debug, Default)]
struct Derived {
    /// Per byte, its class among bytes this table treats alike.
    classes: OnceLock<[u8; 256]>,
    /// Per state, the fewest bytes to a match.
    distances: OnceLock<Arc<[u32]>>,
    /// Whether a lookahead can look past a match's end, known when the
    /// table was built from lookarounds (see [`lookaround::sees_past_end`]).
    looks_past_end: OnceLock<bool>,
}

impl PartialEq for TerminalDfa {
    fn eq(&self, other: &Self) -> bool {
        self.trans == other.trans && self.accepting == other.accepting
    }
}

impl Eq for TerminalDfa {}

/// The live states (those that reach a match) of a byte table, renumbered
/// in order; an error when the start state is not one of them.
fn keep_live(raw_trans: Vec<u32>, accepting: Vec<bool>) -> Result<(Vec<u32>, Vec<bool>), DfaError> {
    let n = accepting.len();
    let live = live_states(&raw_trans, &accepting);
    if !live[0] {
        return Err(DfaError::NeverMatches);
    }
    if live.iter().all(|&l| l) {
        return Ok((raw_trans, accepting));
    }
    let mut new_id = vec![DEAD; n];
    let mut count = 0u32;
    for s in 0..n {
        if live[s] {
            new_id[s] = count;
            count += 1;
        }
    }
    let mut trans = Vec::with_capacity(count as usize * 256);
    let mut acc = Vec::with_capacity(count as usize);
    for s in 0..n {
        if !live[s] {
            continue;
        }
        for &t in &raw_trans[s * 256..(s + 1) * 256] {
            trans.push(if t == DEAD { DEAD } else { new_id[t as usize] });
        }
        acc.push(accepting[s]);
    }
    Ok((trans, acc))
}

const DFA_MAGIC: &[u8; 8] = b"gcd-tdfa";
const DFA_VERSION: u32 = 1;

/// Terminal DFAs by regex in two generations: when the young one fills,
/// it becomes the old one and the old one is dropped; a hit in the old one
/// moves back to the young one. So an entry survives at least a full
/// generation of insertions after it was last used: a table a front end
/// seeds (see [`TerminalDfa::new_with`]) is still there when the grammar
/// that uses it is compiled, whatever came before.
#[derive(Default)]
struct DfaCache {
    young: FxHashMap<String, Result<TerminalDfa, DfaError>>,
    old: FxHashMap<String, Result<TerminalDfa, DfaError>>,
}

/// Entries per generation.
const CACHE_GENERATION: usize = 4096;

impl DfaCache {
    fn get(&mut self, regex: &str) -> Option<Result<TerminalDfa, DfaError>> {
        if let Some(hit) = self.young.get(regex) {
            return Some(hit.clone());
        }
        let hit = self.old.remove(regex)?;
        self.insert(regex, hit.clone());
        Some(hit)
    }

    fn contains_key(&self, regex: &str) -> bool {
        self.young.contains_key(regex) || self.old.contains_key(regex)
    }

    fn insert(&mut self, regex: &str, dfa: Result<TerminalDfa, DfaError>) {
        if self.young.len() >= CACHE_GENERATION {
            self.old = std::mem::take(&mut self.young);
        }
        self.young.insert(regex.to_string(), dfa);
    }
}

/// Terminal DFAs by regex, for the whole process (see [`TerminalDfa::new`]).
fn lock_cache() -> std::sync::MutexGuard<'static, DfaCache> {
    static CACHE: OnceLock<Mutex<DfaCache>> = OnceLock::new();
    CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

fn insert_cached(regex: &str, dfa: Result<TerminalDfa, DfaError>) {
    lock_cache().insert(regex, dfa);
}

/// Drops every transition out of an accepting state (and the states that
/// no longer lead to a match).
fn stop_at_first_match(trans: &mut [u32], accepting: &[bool]) {
    for (s, &acc) in accepting.iter().enumerate() {
        if acc {
            trans[s * 256..(s + 1) * 256].fill(DEAD);
        }
    }
    // States may now be dead; liveness is what the lexer relies on.
    let live = live_states(trans, accepting);
    for t in trans.iter_mut() {
        if *t != DEAD && !live[*t as usize] {
            *t = DEAD;
        }
    }
}

/// Whether the regex has a lazy quantifier anywhere.
fn has_lazy_quantifier(h: &Hir) -> bool {
    match h.kind() {
        HirKind::Repetition(r) => !r.greedy || has_lazy_quantifier(&r.sub),
        HirKind::Capture(c) => has_lazy_quantifier(&c.sub),
        HirKind::Concat(hs) | HirKind::Alternation(hs) => hs.iter().any(has_lazy_quantifier),
        _ => false,
    }
}

/// The table of a DFA that matches exactly `bytes` (object keys, keywords):
/// no determinization needed.
fn literal_table(bytes: &[u8]) -> (Vec<u32>, Vec<bool>) {
    let n = bytes.len() + 1;
    let mut trans = vec![DEAD; n * 256];
    for (i, &b) in bytes.iter().enumerate() {
        trans[i * 256 + b as usize] = i as u32 + 1;
    }
    let mut accepting = vec![false; n];
    accepting[n - 1] = true;
    (trans, accepting)
}

/// The bytes a regex matches when it is one literal string (its only
/// escapes those of metacharacters), found without parsing it: a schema's
/// keys are such regexes, and parsing them cost more than their DFA.
fn plain_literal(regex: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(regex.len());
    let mut chars = regex.chars();
    while let Some(c) = chars.next() {
        let c = match c {
            '\\' => chars
                .next()
                .filter(|&e| regex_syntax::is_meta_character(e))?,
            c if regex_syntax::is_meta_character(c) => return None,
            c => c,
        };
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    }
    (!out.is_empty()).then_some(out)
}

/// The DFA of exactly `bytes` (not empty), with what compiles derive from
/// it written down instead of read out of the table: a schema's keys are
/// literals new to the process, and reading their tables (liveness, byte
/// classes, distances) cost more than the rest of their terminals.
fn literal_dfa(bytes: &[u8]) -> TerminalDfa {
    debug_assert!(!bytes.is_empty());
    let (trans, accepting) = literal_table(bytes);
    // A byte's column is the positions it is read at: bytes the literal
    // lacks share the all-dead column, the others are compared among
    // themselves (a literal has few distinct bytes).
    let mut present: Vec<u8> = bytes.to_vec();
    present.sort_unstable();
    present.dedup();
    let positions = |b: u8| {
        bytes
            .iter()
            .enumerate()
            .filter(move |&(_, &x)| x == b)
            .map(|(i, _)| i)
    };
    let mut classes = [u8::MAX; 256];
    let mut next = 0u8;
    for b in 0..=255u8 {
        if classes[b as usize] != u8::MAX {
            continue;
        }
        classes[b as usize] = next;
        if present.binary_search(&b).is_ok() {
            for &c in present.iter().filter(|&&c| c > b) {
                if classes[c as usize] == u8::MAX && positions(c).eq(positions(b)) {
                    classes[c as usize] = next;
                }
            }
        } else {
            for c in b..=255u8 {
                if present.binary_search(&c).is_err() {
                    classes[c as usize] = next;
                }
            }
        }
        next = next.wrapping_add(1);
    }
    let n = bytes.len() as u32;
    let distances: Arc<[u32]> = (0..=n).map(|i| n - i).collect();
    TerminalDfa {
        trans: Arc::new(trans),
        accepting: accepting.into(),
        derived: Arc::new(Derived {
            classes: OnceLock::from(classes),
            distances: OnceLock::from(distances),
            looks_past_end: OnceLock::from(false),
        }),
        chain: None,
    }
}

/// The words of a regex that is an alternation of plain literals,
/// `(?:"UP"|"DOWN")` (a schema's `enum` of strings), read without a parse:
/// determinizing such a regex cost more than the rest of its schema's
/// terminals, and its DFA is the words' trie.
fn literal_alternation(regex: &str) -> Option<Vec<Vec<u8>>> {
    let inner = regex.strip_prefix("(?:")?.strip_suffix(')')?;
    let (mut words, mut start, mut escaped) = (Vec::new(), 0, false);
    for (i, c) in inner.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '|' => {
                words.push(plain_literal(&inner[start..i])?);
                start = i + 1;
            }
            _ => {}
        }
    }
    words.push(plain_literal(&inner[start..])?);
    (words.len() > 1).then_some(words)
}

/// The DFA of exactly `words` (none empty): their trie, with the words
/// that nothing continues ending in one shared state, as determinizing
/// their alternation would leave them.
fn alternation_dfa(words: &[Vec<u8>]) -> TerminalDfa {
    // Trie nodes as (children by byte, whether a word ends here).
    let mut nodes: Vec<(Vec<(u8, u32)>, bool)> = vec![(Vec::new(), false)];
    for w in words {
        let mut at = 0usize;
        for &b in w {
            at = match nodes[at].0.iter().find(|&&(x, _)| x == b) {
                Some(&(_, to)) => to as usize,
                None => {
                    let to = nodes.len() as u32;
                    nodes[at].0.push((b, to));
                    nodes.push((Vec::new(), false));
                    to as usize
                }
            };
        }
        nodes[at].1 = true;
    }
    // Inner nodes keep their order (the root first); leaves become one.
    let mut id = vec![0u32; nodes.len()];
    let mut inner = 0u32;
    for (i, (children, _)) in nodes.iter().enumerate() {
        if !children.is_empty() {
            id[i] = inner;
            inner += 1;
        }
    }
    for (i, (children, _)) in nodes.iter().enumerate() {
        if children.is_empty() {
            id[i] = inner;
        }
    }
    let n = inner as usize + 1;
    let mut trans = vec![DEAD; n * 256];
    let mut accepting = vec![false; n];
    accepting[n - 1] = true;
    for (i, (children, ends)) in nodes.iter().enumerate() {
        let from = id[i] as usize;
        accepting[from] |= *ends;
        for &(b, to) in children {
            trans[from * 256 + b as usize] = id[to as usize];
        }
    }
    TerminalDfa {
        trans: Arc::new(trans),
        accepting: accepting.into(),
        derived: Arc::new(Derived {
            looks_past_end: OnceLock::from(false),
            ..Derived::default()
        }),
        chain: None,
    }
}

impl TerminalDfa {
    /// The DFA of exactly `bytes`, which need not be UTF-8 (the bytes of a
    /// special token, see [`special_bytes`](crate::grammar::special_bytes)).
    pub fn literal_bytes(bytes: &[u8]) -> Result<TerminalDfa, DfaError> {
        if bytes.is_empty() {
            return Err(DfaError::MatchesEmpty);
        }
        Ok(literal_dfa(bytes))
    }

    /// Compiles a terminal's regex. A regex with a lazy quantifier (`*?`)
    /// matches shortest-first: its lexeme ends at the first match, so
    /// `/\*(.|\n)*?\*/` is a C comment that stops at the first `*/`. Without
    /// one, a terminal is the set of strings its regex matches.
    ///
    /// Results are kept in a process-wide cache keyed by the regex, because
    /// grammars made per request (JSON Schemas) reuse the same few terminals
    /// (numbers, strings, formats) and determinizing them dominated their
    /// compile time. The tables are shared, so a clone is cheap.
    pub fn new(regex: &str) -> Result<TerminalDfa, DfaError> {
        Self::new_with(regex, || Self::build_uncached(regex))
    }

    /// The DFA of `regex` like [`new`](Self::new), with the fewest states
    /// on a cache miss: for a long alternation whose branches end alike (a
    /// JSON Schema's numeric bounds with exponents), which determinization
    /// alone leaves two to four times larger. Regexes that `new` builds
    /// without determinizing (literals, counted repetitions, lookarounds)
    /// are built as `new` builds them.
    pub fn new_minimal(regex: &str) -> Result<TerminalDfa, DfaError> {
        Self::new_with(regex, || Self::build_with(regex, false, true))
    }

    /// The DFA of `regex` like [`new`](Self::new), but on a cache miss
    /// built by `build` instead of determinizing the regex: for a front end
    /// that knows the language's structure (a JSON Schema's "any key but
    /// the declared ones") and builds its table directly, much faster.
    /// `build` must give exactly the language of `regex`; the regex stays
    /// the terminal's definition (messages, snapshots, other processes).
    pub fn new_with(
        regex: &str,
        build: impl FnOnce() -> Result<TerminalDfa, DfaError>,
    ) -> Result<TerminalDfa, DfaError> {
        if let Some(hit) = lock_cache().get(regex) {
            return hit;
        }
        let built = crate::counters::timed(crate::counters::Stage::TerminalDfas, build);
        insert_cached(regex, built.clone());
        built
    }

    /// A table its builder knows to be live in every state, with byte
    /// classes it knows every row to honour (a product's, see `product`).
    /// Debug builds check both.
    pub(super) fn from_live_table(
        trans: Vec<u32>,
        accepting: Vec<bool>,
        classes: [u8; 256],
    ) -> TerminalDfa {
        debug_assert!(
            treat_alike(&trans, &classes),
            "bytes of a class differ in a row"
        );
        debug_assert!(
            live_states(&trans, &accepting).iter().all(|&l| l),
            "a dead state"
        );
        TerminalDfa {
            trans: Arc::new(trans),
            accepting: accepting.into(),
            derived: Arc::new(Derived {
                classes: OnceLock::from(classes),
                ..Derived::default()
            }),
            chain: None,
        }
    }

    /// A DFA from a table built by hand: `trans[state * 256 + byte]` is the
    /// next state or [`DEAD`], state 0 the start. States that cannot reach
    /// a match are dropped (the lexer relies on liveness); unreachable ones
    /// are kept.
    pub fn from_tables(trans: Vec<u32>, accepting: Vec<bool>) -> Result<TerminalDfa, DfaError> {
        let n = accepting.len();
        // `DEAD + 1` wraps to 0, so one comparison finds a target past the
        // states; folded without stopping early, the loop vectorizes.
        let states = u32::try_from(n).unwrap_or(u32::MAX);
        let bad = (trans.iter()).fold(false, |bad, &t| bad | (t.wrapping_add(1) > states));
        if n == 0 || trans.len() != n * 256 || bad {
            return Err(DfaError::Invalid("inconsistent DFA table".into()));
        }
        if accepting[0] {
            return Err(DfaError::MatchesEmpty);
        }
        let (trans, accepting) = keep_live(trans, accepting)?;
        Ok(TerminalDfa {
            trans: Arc::new(trans),
            accepting: accepting.into(),
            derived: Arc::default(),
            chain: None,
        })
    }

    /// [`from_tables`](Self::from_tables) for a table whose byte classes
    /// the caller knows from how it built it: `classes` puts two bytes in
    /// one class only if every row treats them alike (it may split more
    /// than the table needs; nothing relies on the fewest). Reading them
    /// off the table scans every row, which for a schema's table of other
    /// keys cost as much as building it. Debug builds check them.
    pub fn from_tables_with_classes(
        trans: Vec<u32>,
        accepting: Vec<bool>,
        classes: [u8; 256],
    ) -> Result<TerminalDfa, DfaError> {
        debug_assert!(
            treat_alike(&trans, &classes),
            "bytes of a class differ in a row"
        );
        let mut dfa = Self::from_tables(trans, accepting)?;
        dfa.derived = Arc::new(Derived {
            classes: OnceLock::from(classes),
            ..Derived::default()
        });
        Ok(dfa)
    }

    /// Puts a DFA built ahead of time (by `#[derive(Constrained)]`, from a
    /// field's pattern or range) into the cache, so linking the grammar
    /// does not determinize it again. Bytes that do not decode to a
    /// consistent table are ignored: the regex is then built as usual.
    pub fn preload(regex: &str, bytes: &[u8]) {
        if lock_cache().contains_key(regex) {
            return;
        }
        if let Ok(dfa) = codec::decode::<TerminalDfa>(DFA_MAGIC, DFA_VERSION, bytes) {
            if dfa.is_consistent() {
                insert_cached(regex, Ok(dfa));
            }
        }
    }

    /// The table as bytes for [`preload`](Self::preload).
    pub fn to_bytes(&self) -> Vec<u8> {
        codec::encode(DFA_MAGIC, DFA_VERSION, self)
    }

    /// Every transition lands on a state; state 0 exists.
    pub(crate) fn is_consistent(&self) -> bool {
        let n = self.accepting.len();
        // A layout's states all exist (its counts are read as states).
        let chain_fits = self.chain.is_none_or(|c| {
            let states = (c.max as u64) * c.item_states as u64 + 1 + c.post_len as u64;
            c.item_states > 0
                && c.min <= c.max
                && c.post_start as u64 == c.body as u64 + c.max as u64 * c.item_states as u64 + 1
                && c.body as u64 + states <= n as u64
        });
        n > 0
            && self.trans.len() == n * 256
            && self.trans.iter().all(|&t| t == DEAD || (t as usize) < n)
            && chain_fits
    }

    fn build_uncached(regex: &str) -> Result<TerminalDfa, DfaError> {
        Self::build(regex, false)
    }

    /// Determinizes `regex`; with `allow_empty`, a DFA whose start accepts
    /// (only ever a component of a product, which checks its own start).
    pub(super) fn build(regex: &str, allow_empty: bool) -> Result<TerminalDfa, DfaError> {
        Self::build_with(regex, allow_empty, false)
    }

    /// [`build`](Self::build), minimizing where it determinizes.
    pub(super) fn build_with(
        regex: &str,
        allow_empty: bool,
        minimize: bool,
    ) -> Result<TerminalDfa, DfaError> {
        if let Some(bytes) = plain_literal(regex) {
            return Ok(literal_dfa(&bytes));
        }
        if let Some(words) = literal_alternation(regex) {
            return Ok(alternation_dfa(&words));
        }
        let split = lookaround::split(regex).map_err(DfaError::Invalid)?;
        // Parse once; on a syntax error let regex-automata report it, so the
        // message is the one users know from its docs.
        let plain = split.as_ref().map_or(regex, |s| &s.plain);
        let hir = match regex_syntax::Parser::new().parse(plain) {
            Ok(hir) => hir,
            Err(_) => {
                let e = dense::Builder::new()
                    .build(plain)
                    .expect_err("the regex does not parse");
                return Err(DfaError::Invalid(e.to_string()));
            }
        };
        if let (None, HirKind::Literal(lit)) = (&split, hir.kind()) {
            if !lit.0.is_empty() {
                return Ok(literal_dfa(&lit.0));
            }
        }
        let mut looks_past_end = false;
        let mut layout = None;
        let mut classes = OnceLock::new();
        // A chain's states are all live by construction (`counted`).
        let mut all_live = false;
        let (trans, accepting) = match (&split, hir.kind()) {
            (Some(split), _) => {
                let (trans, accepting, past_end) = lookaround::table(split)?;
                looks_past_end = past_end;
                (trans, accepting)
            }
            (None, _) => match counted::table(&hir)? {
                Some((chain, chain_layout, chain_classes)) => {
                    debug_assert!(treat_alike(&chain.0, &chain_classes), "a chain's classes");
                    layout = chain_layout;
                    classes = OnceLock::from(chain_classes);
                    all_live = true;
                    chain
                }
                None if minimize => minimal_table(&super::factor::factor(&hir))?,
                None => raw_table(&super::factor::factor(&hir))?,
            },
        };
        if accepting[0] && !allow_empty {
            return Err(DfaError::MatchesEmpty);
        }
        let states = accepting.len();
        let (mut trans, accepting) = if all_live {
            debug_assert!(
                live_states(&trans, &accepting).iter().all(|&l| l),
                "a chain's states are live"
            );
            (trans, accepting)
        } else {
            keep_live(trans, accepting)?
        };
        let lazy = has_lazy_quantifier(&hir);
        if lazy {
            stop_at_first_match(&mut trans, &accepting);
        }
        // The layout names states as the chain built them: only while
        // nothing renumbered or cut them.
        let chain = layout.filter(|_| accepting.len() == states && !lazy);
        Ok(TerminalDfa {
            trans: Arc::new(trans),
            accepting: accepting.into(),
            derived: Arc::new(Derived {
                classes,
                looks_past_end: OnceLock::from(looks_past_end),
                ..Derived::default()
            }),
            chain,
        })
    }

    /// Whether a lookahead in the regex can look past the end of a match,
    /// when this table was built from the regex here (`None` for a table
    /// built ahead of time).
    pub fn looks_past_end(&self) -> Option<bool> {
        self.derived.looks_past_end.get().copied()
    }

    /// Where a counted repetition with an upper bound keeps its counts,
    /// for a table built as one (`None` otherwise).
    pub fn chain_layout(&self) -> Option<super::counted::ChainLayout> {
        self.chain
    }

    /// The state after `byte` from `state`, or [`DEAD`] when no match can
    /// follow. `state` must not be [`DEAD`].
    pub fn next(&self, state: u32, byte: u8) -> u32 {
        self.trans[state as usize * 256 + byte as usize]
    }

    /// Whether the bytes that led to `state` are a whole match.
    pub fn is_accepting(&self, state: u32) -> bool {
        self.accepting[state as usize]
    }

    /// Whether some string matches both: a search of the product that
    /// stops at the first pair of accepting states, building and caching
    /// no table (unlike [`intersection`](Self::intersection)).
    pub fn overlaps(&self, other: &TerminalDfa) -> bool {
        let mut seen = std::collections::HashSet::from([(0u32, 0u32)]);
        let mut todo = vec![(0u32, 0u32)];
        while let Some((a, b)) = todo.pop() {
            if self.is_accepting(a) && other.is_accepting(b) {
                return true;
            }
            for byte in 0..=255u8 {
                let next = (self.next(a, byte), other.next(b, byte));
                if next.0 != DEAD && next.1 != DEAD && seen.insert(next) {
                    todo.push(next);
                }
            }
        }
        false
    }

    /// Per byte, its class: bytes with the same class lead every state to
    /// the same state (classes numbered by their first byte; a table made
    /// by [`from_tables_with_classes`](Self::from_tables_with_classes) has
    /// the classes it was given).
    pub fn byte_classes(&self) -> &[u8; 256] {
        (self.derived.classes).get_or_init(|| byte_classes(&self.trans))
    }

    /// Per state, the fewest bytes that take it to a match
    /// ([`UNREACHABLE`](super::UNREACHABLE) if none).
    pub(crate) fn distances_to_match(&self) -> &[u32] {
        (self.derived.distances).get_or_init(|| {
            distances_by_class(&self.trans, &self.accepting, self.byte_classes()).into()
        })
    }

    /// How many states the table has.
    pub fn len(&self) -> usize {
        self.accepting.len()
    }

    /// Whether the table has no state; never true for a DFA built here,
    /// which always has its start state 0.
    pub fn is_empty(&self) -> bool {
        self.accepting.is_empty()
    }

    /// Whether `bytes` is exactly a match.
    pub fn matches(&self, bytes: &[u8]) -> bool {
        self.run(bytes).is_some_and(|s| self.is_accepting(s))
    }

    /// The state after `bytes` from the start, or `None` once no match can follow.
    pub fn run(&self, bytes: &[u8]) -> Option<u32> {
        let mut s = 0;
        for &b in bytes {
            s = self.next(s, b);
            if s == DEAD {
                return None;
            }
        }
        Some(s)
    }
}
