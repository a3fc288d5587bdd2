//! Terminal DFAs and the contextual lexer automaton.
//!
//! Every terminal's regex is compiled by regex-automata and then read out
//! into a plain table ([`TerminalDfa`]): per state, the next state for each
//! byte, whether the lexeme so far matches, and whether it can still grow
//! into a match. Owning the table lets us compute liveness (regex-automata's
//! dead state only covers part of it) and combine DFAs.
//!
//! The lexer of DESIGN.md is contextual maximal munch: at a lexeme start only
//! the candidate terminals (those the parser accepts next, plus the ignored
//! ones) are tried, and the lexeme ends when the next byte extends no
//! candidate. [`LexerAutomaton`] is the product of the candidates' DFAs, one
//! start state per candidate set, built once per grammar. A state of it knows
//! which candidates are still alive and which one wins if the lexeme ends now.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use regex_automata::dfa::{dense, Automaton, StartKind};
use regex_automata::nfa::thompson::{self, WhichCaptures};
use regex_automata::util::start;
use regex_automata::{Anchored, MatchKind};
use regex_syntax::hir::{Hir, HirKind};

use crate::analysis::TermSet;
use crate::snapshot;

/// Marks "no state": the lexeme cannot take this byte.
pub const DEAD: u32 = u32::MAX;

/// One terminal's DFA as a plain table over bytes. State 0 is the start;
/// only states that can still reach a match are kept.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TerminalDfa {
    /// `state * 256 + byte` → next state or [`DEAD`].
    pub trans: Arc<[u32]>,
    /// Whether the bytes read so far form a whole match.
    pub accepting: Arc<[bool]>,
}

/// Why a terminal's regex could not become a DFA.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DfaError {
    Invalid(String),
    MatchesEmpty,
    NeverMatches,
}

/// Predecessors of every state of a byte-indexed table with `n` states, as
/// one flat list: those of state `s` are `preds[start[s]..start[s + 1]]`,
/// each listed once however many bytes lead to `s`.
pub(crate) fn predecessors(trans: &[u32], n: usize) -> (Vec<u32>, Vec<u32>) {
    // Rows repeat targets (most bytes go to a few states): `stamp` keeps
    // each (row, target) pair once. Counting sort by target.
    let mut stamp = vec![u32::MAX; n];
    let mut start = vec![0u32; n + 1];
    for (q, row) in trans.chunks_exact(256).enumerate() {
        for &t in row {
            if t != DEAD && stamp[t as usize] != q as u32 {
                stamp[t as usize] = q as u32;
                start[t as usize + 1] += 1;
            }
        }
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    stamp.fill(u32::MAX);
    let mut fill = start.clone();
    let mut preds = vec![0u32; start[n] as usize];
    for (q, row) in trans.chunks_exact(256).enumerate() {
        for &t in row {
            if t != DEAD && stamp[t as usize] != q as u32 {
                stamp[t as usize] = q as u32;
                preds[fill[t as usize] as usize] = q as u32;
                fill[t as usize] += 1;
            }
        }
    }
    (start, preds)
}

/// States of a byte-indexed table that can reach an accepting state.
fn live_states(trans: &[u32], accepting: &[bool]) -> Vec<bool> {
    let n = accepting.len();
    let mut live = accepting.to_vec();
    // Sweeps from the last state down: DFAs numbered breadth-first mostly
    // step to higher numbers, so a few sweeps settle them, and a row stops
    // at its first live target. A sweep that changes nothing proves the
    // fixpoint.
    for _ in 0..8 {
        let mut changed = false;
        for s in (0..n).rev() {
            if !live[s]
                && trans[s * 256..(s + 1) * 256]
                    .iter()
                    .any(|&t| t != DEAD && live[t as usize])
            {
                live[s] = true;
                changed = true;
            }
        }
        if !changed {
            return live;
        }
    }
    // Long chains back to lower numbers: one backward search.
    let (start, preds) = predecessors(trans, n);
    let mut stack: Vec<u32> = (0..n as u32).filter(|&s| live[s as usize]).collect();
    while let Some(s) = stack.pop() {
        for &p in &preds[start[s as usize] as usize..start[s as usize + 1] as usize] {
            if !live[p as usize] {
                live[p as usize] = true;
                stack.push(p);
            }
        }
    }
    live
}

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

type DfaCache = HashMap<String, Result<TerminalDfa, DfaError>>;

/// Terminal DFAs by regex, for the whole process (see [`TerminalDfa::new`]).
fn lock_cache() -> std::sync::MutexGuard<'static, DfaCache> {
    static CACHE: OnceLock<Mutex<DfaCache>> = OnceLock::new();
    CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

fn insert_cached(regex: &str, dfa: Result<TerminalDfa, DfaError>) {
    const MAX_CACHED: usize = 4096;
    let mut cache = lock_cache();
    if cache.len() >= MAX_CACHED {
        cache.clear();
    }
    cache.insert(regex.to_string(), dfa);
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

impl TerminalDfa {
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
            return hit.clone();
        }
        let built = build();
        insert_cached(regex, built.clone());
        built
    }

    /// A DFA from a table built by hand: `trans[state * 256 + byte]` is the
    /// next state or [`DEAD`], state 0 the start. States that cannot reach
    /// a match are dropped (the lexer relies on liveness); unreachable ones
    /// are kept.
    pub fn from_tables(trans: Vec<u32>, accepting: Vec<bool>) -> Result<TerminalDfa, DfaError> {
        let n = accepting.len();
        if n == 0 || trans.len() != n * 256 || trans.iter().any(|&t| t != DEAD && t as usize >= n) {
            return Err(DfaError::Invalid("inconsistent DFA table".into()));
        }
        if accepting[0] {
            return Err(DfaError::MatchesEmpty);
        }
        let (trans, accepting) = keep_live(trans, accepting)?;
        Ok(TerminalDfa {
            trans: trans.into(),
            accepting: accepting.into(),
        })
    }

    /// Puts a DFA built ahead of time (by `#[derive(Constrained)]`, from a
    /// field's pattern or range) into the cache, so linking the grammar
    /// does not determinize it again. Bytes that do not decode to a
    /// consistent table are ignored: the regex is then built as usual.
    pub fn preload(regex: &str, bytes: &[u8]) {
        if lock_cache().contains_key(regex) {
            return;
        }
        if let Ok(dfa) = snapshot::decode::<TerminalDfa>(DFA_MAGIC, DFA_VERSION, bytes) {
            if dfa.is_consistent() {
                insert_cached(regex, Ok(dfa));
            }
        }
    }

    /// The table as bytes for [`preload`](Self::preload).
    pub fn to_bytes(&self) -> Vec<u8> {
        snapshot::encode(DFA_MAGIC, DFA_VERSION, self)
    }

    /// Every transition lands on a state; state 0 exists.
    pub(crate) fn is_consistent(&self) -> bool {
        let n = self.accepting.len();
        n > 0
            && self.trans.len() == n * 256
            && self.trans.iter().all(|&t| t == DEAD || (t as usize) < n)
    }

    fn build_uncached(regex: &str) -> Result<TerminalDfa, DfaError> {
        // Parse once; on a syntax error let regex-automata report it, so the
        // message is the one users know from its docs.
        let Ok(hir) = regex_syntax::Parser::new().parse(regex) else {
            return Err(Self::build(regex, None).expect_err("the regex does not parse"));
        };
        let (mut trans, accepting) = match hir.kind() {
            HirKind::Literal(lit) if !lit.0.is_empty() => literal_table(&lit.0),
            _ => Self::build(regex, Some(&hir))?,
        };
        if has_lazy_quantifier(&hir) {
            stop_at_first_match(&mut trans, &accepting);
        }
        Ok(TerminalDfa {
            trans: trans.into(),
            accepting: accepting.into(),
        })
    }

    /// Determinizes `regex` (already parsed when `hir` is given) and reads
    /// out the reachable, live states as a byte table.
    fn build(regex: &str, hir: Option<&Hir>) -> Result<(Vec<u32>, Vec<bool>), DfaError> {
        crate::counters::count_regex_compilation();
        let mut builder = dense::Builder::new();
        builder.configure(
            dense::DFA::config()
                .match_kind(MatchKind::All)
                .start_kind(StartKind::Anchored)
                .dfa_size_limit(Some(64 << 20))
                .determinize_size_limit(Some(64 << 20)),
        );
        let invalid = |e: &dyn std::fmt::Display| DfaError::Invalid(e.to_string());
        let dfa = match hir {
            Some(hir) => {
                let nfa = thompson::Compiler::new()
                    .configure(thompson::Config::new().which_captures(WhichCaptures::None))
                    .build_from_hir(hir)
                    .map_err(|e| invalid(&e))?;
                builder.build_from_nfa(&nfa).map_err(|e| invalid(&e))?
            }
            None => builder.build(regex).map_err(|e| invalid(&e))?,
        };
        let start = dfa
            .start_state(&start::Config::new().anchored(Anchored::Yes))
            .map_err(|e| DfaError::Invalid(e.to_string()))?;
        // Read out the reachable states.
        // One transition per byte class, spread over its bytes.
        let classes = dfa.byte_classes();
        let mut ids = rustc_hash::FxHashMap::default();
        let mut order = vec![start];
        ids.insert(start, 0u32);
        let mut raw_trans = Vec::new();
        let mut by_class = vec![DEAD; classes.alphabet_len()];
        let mut i = 0;
        while i < order.len() {
            let s = order[i];
            for rep in classes.representatives(..) {
                let Some(b) = rep.as_u8() else { continue };
                let n = dfa.next_state(s, b);
                by_class[classes.get(b) as usize] = if dfa.is_dead_state(n) || dfa.is_quit_state(n)
                {
                    DEAD
                } else {
                    let next = ids.len() as u32;
                    *ids.entry(n).or_insert_with(|| {
                        order.push(n);
                        next
                    })
                };
            }
            raw_trans.extend((0..=255u8).map(|b| by_class[classes.get(b) as usize]));
            i += 1;
        }
        let accepting: Vec<bool> = order
            .iter()
            .map(|&s| dfa.is_match_state(dfa.next_eoi_state(s)))
            .collect();
        if accepting[0] {
            return Err(DfaError::MatchesEmpty);
        }
        keep_live(raw_trans, accepting)
    }

    pub fn next(&self, state: u32, byte: u8) -> u32 {
        self.trans[state as usize * 256 + byte as usize]
    }

    pub fn is_accepting(&self, state: u32) -> bool {
        self.accepting[state as usize]
    }

    pub fn len(&self) -> usize {
        self.accepting.len()
    }

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

/// Bytes that every terminal DFA treats alike share a class; tables are
/// indexed by class to stay small.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ByteClasses {
    #[serde(with = "crate::serde_array256")]
    pub class_of: [u8; 256],
    /// One byte of each class.
    pub representatives: Vec<u8>,
}

impl ByteClasses {
    /// Bytes whose columns agree in every table share a class; classes are
    /// numbered in order of their first byte, which represents them.
    pub fn new(dfas: &[TerminalDfa]) -> ByteClasses {
        // Hash the columns row by row (cache-friendly, no allocation), then
        // confirm each byte against the first byte with its hash. A hash
        // collision would only send us to the exact column comparison.
        let rows = || dfas.iter().flat_map(|d| d.trans.chunks_exact(256));
        let mut hash = [0u64; 256];
        for row in rows() {
            for (h, &t) in hash.iter_mut().zip(row) {
                *h = (*h ^ t as u64)
                    .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                    .rotate_left(23);
            }
        }
        let mut first: rustc_hash::FxHashMap<u64, u8> = Default::default();
        let rep: Vec<u8> = (0..=255u8)
            .map(|b| *first.entry(hash[b as usize]).or_insert(b))
            .collect();
        let agree = rows().all(|row| (0..256).all(|b| row[b] == row[rep[b] as usize]));
        if !agree {
            return Self::by_columns(dfas);
        }
        let mut class_of = [0u8; 256];
        let mut representatives = Vec::new();
        for b in 0..256 {
            if rep[b] as usize == b {
                class_of[b] = representatives.len() as u8;
                representatives.push(b as u8);
            } else {
                class_of[b] = class_of[rep[b] as usize];
            }
        }
        ByteClasses {
            class_of,
            representatives,
        }
    }

    /// The same classes by comparing whole columns.
    fn by_columns(dfas: &[TerminalDfa]) -> ByteClasses {
        let mut sig_to_class: rustc_hash::FxHashMap<Vec<u32>, u8> = Default::default();
        let mut class_of = [0u8; 256];
        let mut representatives = Vec::new();
        for b in 0..=255u8 {
            let sig: Vec<u32> = dfas
                .iter()
                .flat_map(|d| (0..d.len()).map(move |s| d.next(s as u32, b)))
                .collect();
            let next = sig_to_class.len() as u8;
            let c = *sig_to_class.entry(sig).or_insert_with(|| {
                representatives.push(b);
                next
            });
            class_of[b as usize] = c;
        }
        ByteClasses {
            class_of,
            representatives,
        }
    }

    pub fn len(&self) -> usize {
        self.representatives.len()
    }

    pub fn is_empty(&self) -> bool {
        self.representatives.is_empty()
    }
}

/// Marks "no winner": the lexeme so far matches no candidate.
pub const NO_TERMINAL: u32 = u32::MAX;

/// The contextual lexer as one automaton over byte classes.
///
/// A state is the set of candidate terminals still alive with their DFA
/// states. `next(state, byte)` is [`DEAD`] when the byte extends no candidate,
/// which is exactly when the current lexeme ends (or, at a lexeme start,
/// when the byte cannot start any candidate).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LexerAutomaton {
    pub classes: ByteClasses,
    /// `state * classes.len() + class` → next state or [`DEAD`].
    pub trans: Vec<u32>,
    /// The terminal a lexeme ending in this state is, or [`NO_TERMINAL`].
    pub winner: Vec<u32>,
    /// Start state of each candidate set, by candidate-set index.
    pub starts: Vec<u32>,
    /// Which terminals each state still has alive (for analysis and tests).
    pub alive: Vec<Vec<u32>>,
}

/// The lexer automaton grew past this many states.
#[derive(Clone, Debug)]
pub struct TooManyStates(pub usize);

impl LexerAutomaton {
    /// Builds the product automaton for the given candidate sets.
    /// `rank[t]` orders terminals for ties (lower wins).
    pub fn build(
        dfas: &[TerminalDfa],
        rank: &[u32],
        candidate_sets: &[TermSet],
        max_states: usize,
    ) -> Result<LexerAutomaton, TooManyStates> {
        Self::build_with(dfas, rank, candidate_sets, max_states, false).map(|(a, _)| a)
    }

    /// [`build`](Self::build); with `matching`, also returns per state
    /// every terminal that matches there (the winner and those it beats),
    /// which the compiler's member-set check needs once and the automaton
    /// does not keep.
    pub fn build_with(
        dfas: &[TerminalDfa],
        rank: &[u32],
        candidate_sets: &[TermSet],
        max_states: usize,
        matching: bool,
    ) -> Result<(LexerAutomaton, Vec<Vec<u32>>), TooManyStates> {
        let classes = ByteClasses::new(dfas);
        let nc = classes.len();
        let mut index: rustc_hash::FxHashMap<Vec<(u32, u32)>, u32> = Default::default();
        let mut members: Vec<Vec<(u32, u32)>> = Vec::new();
        let intern = |m: Vec<(u32, u32)>,
                      index: &mut rustc_hash::FxHashMap<Vec<(u32, u32)>, u32>,
                      members: &mut Vec<Vec<(u32, u32)>>|
         -> u32 {
            let next = members.len() as u32;
            *index.entry(m.clone()).or_insert_with(|| {
                members.push(m);
                next
            })
        };
        let mut starts = Vec::with_capacity(candidate_sets.len());
        for set in candidate_sets {
            let m: Vec<(u32, u32)> = set
                .iter()
                .filter(|&t| t < dfas.len())
                .map(|t| (t as u32, 0))
                .collect();
            starts.push(intern(m, &mut index, &mut members));
        }
        let mut trans = Vec::new();
        // One buffer for every step; a state's members are copied only
        // when the state is new (most steps land on a known one).
        let mut next: Vec<(u32, u32)> = Vec::new();
        let mut i = 0;
        while i < members.len() {
            if members.len() > max_states {
                return Err(TooManyStates(members.len()));
            }
            for &b in &classes.representatives {
                next.clear();
                next.extend(members[i].iter().filter_map(|&(t, s)| {
                    let n = dfas[t as usize].next(s, b);
                    (n != DEAD).then_some((t, n))
                }));
                let id = if next.is_empty() {
                    DEAD
                } else if let Some(&id) = index.get(next.as_slice()) {
                    id
                } else {
                    intern(next.clone(), &mut index, &mut members)
                };
                trans.push(id);
            }
            i += 1;
        }
        debug_assert_eq!(trans.len(), members.len() * nc);
        // The terminals matching in a state of `members`.
        let accepting = |m: &Vec<(u32, u32)>| {
            (m.iter())
                .filter(|&&(t, s)| dfas[t as usize].is_accepting(s))
                .map(|&(t, _)| t)
                .collect::<smallvec::SmallVec<[u32; 2]>>()
        };
        let winner = (members.iter())
            .map(|m| {
                (accepting(m).into_iter())
                    .min_by_key(|&t| rank[t as usize])
                    .unwrap_or(NO_TERMINAL)
            })
            .collect();
        let matching = match matching {
            true => members.iter().map(|m| accepting(m).to_vec()).collect(),
            false => Vec::new(),
        };
        let alive = members
            .iter()
            .map(|m| m.iter().map(|&(t, _)| t).collect())
            .collect();
        let automaton = LexerAutomaton {
            classes,
            trans,
            winner,
            starts,
            alive,
        };
        Ok((automaton, matching))
    }

    #[inline]
    pub fn next(&self, state: u32, byte: u8) -> u32 {
        self.trans
            [state as usize * self.classes.len() + self.classes.class_of[byte as usize] as usize]
    }

    #[inline]
    pub fn winner(&self, state: u32) -> Option<u32> {
        let w = self.winner[state as usize];
        (w != NO_TERMINAL).then_some(w)
    }

    pub fn num_states(&self) -> usize {
        self.winner.len()
    }

    /// Bytes (as a 256-bit set) that keep `state`'s lexeme going.
    pub fn extending_bytes(&self, state: u32) -> [bool; 256] {
        let mut out = [false; 256];
        for b in 0..=255u8 {
            out[b as usize] = self.next(state, b) != DEAD;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dfa_matches_like_regex() {
        let d = TerminalDfa::new(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?").unwrap();
        for (s, m) in [
            ("0", true),
            ("-12.5", true),
            ("01", false),
            ("1.", false),
            ("-", false),
            ("", false),
        ] {
            assert_eq!(d.matches(s.as_bytes()), m, "{s}");
        }
        // "01" is dead after "0" + "1": liveness is exact, not just regex-automata's dead state.
        assert_eq!(d.run(b"01"), None);
        assert!(d.run(b"1.").is_some());
    }

    #[test]
    fn liveness_matches_a_plain_fixpoint() {
        // Random sparse tables, including long chains down to state 0 (the
        // sweeps give up on those) and dead cycles.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rand = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for round in 0..300 {
            let n = 1 + rand(40) as usize;
            let mut trans = vec![DEAD; n * 256];
            let accepting: Vec<bool> = (0..n)
                .map(|s| s == 0 && round % 2 == 0 || rand(8) == 0)
                .collect();
            for s in 0..n {
                if round % 3 == 0 && s > 0 {
                    trans[s * 256 + b'a' as usize] = s as u32 - 1;
                }
                for _ in 0..rand(3) {
                    trans[s * 256 + rand(256) as usize] = rand(n as u64) as u32;
                }
            }
            let mut want = accepting.clone();
            let mut changed = true;
            while changed {
                changed = false;
                for s in 0..n {
                    if !want[s]
                        && trans[s * 256..(s + 1) * 256]
                            .iter()
                            .any(|&t| t != DEAD && want[t as usize])
                    {
                        want[s] = true;
                        changed = true;
                    }
                }
            }
            assert_eq!(live_states(&trans, &accepting), want, "round {round}");
        }
    }

    #[test]
    fn byte_classes_by_hash_equal_by_columns() {
        let dfas: Vec<TerminalDfa> = [
            r"[a-z]+",
            r"-?(0|[1-9][0-9]*)",
            r#""[^"\\]*""#,
            "if",
            r"\s+",
            "é|ü",
        ]
        .iter()
        .map(|r| TerminalDfa::new(r).unwrap())
        .collect();
        for k in 0..=dfas.len() {
            let some = &dfas[..k];
            assert_eq!(ByteClasses::new(some), ByteClasses::by_columns(some), "{k}");
        }
    }

    #[test]
    fn lazy_regex_ends_at_first_match() {
        let d = TerminalDfa::new(r"/\*(.|\n)*?\*/").unwrap();
        assert!(d.matches(b"/* a */"));
        assert!(!d.matches(b"/* a */ b */"));
        assert_eq!(d.run(b"/* a */ "), None);
        let greedy = TerminalDfa::new(r"/\*(.|\n)*\*/").unwrap();
        assert!(greedy.matches(b"/* a */ b */"));
    }

    #[test]
    fn dfa_rejects_empty_and_bad() {
        assert_eq!(TerminalDfa::new("a*"), Err(DfaError::MatchesEmpty));
        assert!(matches!(TerminalDfa::new("a("), Err(DfaError::Invalid(_))));
    }

    #[test]
    fn unicode_classes_work_on_bytes() {
        let d = TerminalDfa::new(r#""[^"]*""#).unwrap();
        let s = "\"é\"".as_bytes();
        assert!(d.matches(s));
        // Half a character is still a live prefix.
        assert!(d.run(&s[..2]).is_some());
        assert!(!d.matches(&s[..3]));
        // Invalid UTF-8 is dead.
        assert_eq!(d.run(b"\"\xff"), None);
    }

    #[test]
    fn automaton_ties_and_ends() {
        let dfas = vec![
            TerminalDfa::new("if").unwrap(),
            TerminalDfa::new("[a-z]+").unwrap(),
        ];
        let rank = vec![0, 1];
        let mut set = TermSet::new(2);
        set.insert(0);
        set.insert(1);
        let a = LexerAutomaton::build(&dfas, &rank, &[set], 1000).unwrap();
        let s = a.starts[0];
        let s1 = a.next(s, b'i');
        let s2 = a.next(s1, b'f');
        assert_eq!(a.winner(s2), Some(0));
        let s3 = a.next(s2, b'x');
        assert_eq!(a.winner(s3), Some(1));
        assert_eq!(a.next(s3, b' '), DEAD);
    }
}
