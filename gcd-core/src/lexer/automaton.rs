//! The contextual lexer: the product of the candidate terminals' DFAs, one
//! start state per candidate set.

use super::{ByteClasses, TerminalDfa, DEAD};
use crate::grammar::TermSet;
use crate::limits::{Deadline, Limits};

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
    /// The byte classes of all terminal DFAs; `trans` has one column per class.
    pub classes: ByteClasses,
    /// `state * classes.len() + class` → next state or [`DEAD`].
    pub trans: Vec<u32>,
    /// The terminal a lexeme ending in this state is, or [`NO_TERMINAL`].
    pub winner: Vec<u32>,
    /// Start state of each candidate set, by candidate-set index.
    pub starts: Vec<u32>,
    /// Which terminals each state still has alive (for analysis and tests).
    pub alive: Vec<Vec<u32>>,
    /// Per state with one terminal alive, that terminal's DFA state
    /// (`u32::MAX` for the others): binding reads a length-bounded
    /// string's count from it (`bind/chains.rs`).
    pub single: Vec<u32>,
}

/// Why the lexer automaton was not built.
#[derive(Clone, Debug)]
pub enum BuildError {
    /// It grew past [`Limits::max_lexer_states`]; this many were built.
    TooManyStates(usize),
    /// Its states' members grew past [`Limits::max_lexer_members`]; this
    /// many were built.
    TooManyMembers(usize),
    /// [`Limits::max_compile_time`] passed (the message says so).
    OutOfTime(String),
}

impl LexerAutomaton {
    /// Builds the product automaton for the given candidate sets.
    /// `rank[t]` orders terminals for ties (lower wins).
    pub fn build(
        dfas: &[TerminalDfa],
        rank: &[u32],
        candidate_sets: &[TermSet],
        max_states: usize,
    ) -> Result<LexerAutomaton, BuildError> {
        let limits = Limits {
            max_lexer_states: max_states,
            ..Limits::default()
        };
        Self::build_with(
            dfas,
            rank,
            candidate_sets,
            &limits,
            &Deadline::none(),
            false,
        )
        .map(|(a, _)| a)
    }

    /// [`build`](Self::build); with `matching`, also returns per state
    /// every terminal that matches there (the winner and those it beats)
    /// with its own DFA state,
    /// which the compiler's member-set check needs once and the automaton
    /// does not keep.
    pub fn build_with(
        dfas: &[TerminalDfa],
        rank: &[u32],
        candidate_sets: &[TermSet],
        limits: &Limits,
        deadline: &Deadline,
        matching: bool,
    ) -> Result<(LexerAutomaton, Vec<Vec<(u32, u32)>>), BuildError> {
        let classes = ByteClasses::new(dfas);
        let nc = classes.len();
        // Each terminal state's live transitions by class: a product state
        // costs the transitions its members have, not members × classes
        // (a literal has one; an object of 3,000 optional properties has
        // product states with thousands of members).
        let mut row_of_dfa = Vec::with_capacity(dfas.len() + 1);
        let mut row_start: Vec<u32> = vec![0];
        let mut edges: Vec<(u8, u32)> = Vec::new();
        for d in dfas {
            row_of_dfa.push(row_start.len() - 1);
            for row in d.trans.chunks_exact(256) {
                for (c, &b) in classes.representatives.iter().enumerate() {
                    let n = row[b as usize];
                    if n != DEAD {
                        edges.push((c as u8, n));
                    }
                }
                row_start.push(edges.len() as u32);
            }
        }
        let mut states = StateStore::new(row_start.len() - 1);
        let mut starts = Vec::with_capacity(candidate_sets.len());
        let mut buf: Vec<(u32, u32)> = Vec::new();
        for set in candidate_sets {
            buf.clear();
            buf.extend(
                set.iter()
                    .filter(|&t| t < dfas.len())
                    .map(|t| (t as u32, 0)),
            );
            starts.push(states.intern(&buf, &row_of_dfa));
        }
        let mut trans = Vec::new();
        // Members are kept in terminal order, so equal sets compare equal.
        let mut by_class: Vec<Vec<(u32, u32)>> = vec![Vec::new(); nc];
        let mut i = 0;
        while i < states.len() {
            if states.len() > limits.max_lexer_states {
                return Err(BuildError::TooManyStates(states.len()));
            }
            if states.flat.len() > limits.max_lexer_members {
                return Err(BuildError::TooManyMembers(states.flat.len()));
            }
            if i % 256 == 0 {
                deadline
                    .check("building the contextual lexer")
                    .map_err(BuildError::OutOfTime)?;
            }
            // One terminal alive (inside a string, a key, a number): the
            // state steps as that terminal's DFA does, one state per edge.
            if let &[(t, q)] = states.members(i) {
                let row = row_of_dfa[t as usize] + q as usize;
                let from = trans.len();
                trans.resize(from + nc, DEAD);
                for &(c, n) in &edges[row_start[row] as usize..row_start[row + 1] as usize] {
                    trans[from + c as usize] = states.intern(&[(t, n)], &row_of_dfa);
                }
                i += 1;
                continue;
            }
            by_class.iter_mut().for_each(Vec::clear);
            for &(t, q) in states.members(i) {
                let row = row_of_dfa[t as usize] + q as usize;
                let live = &edges[row_start[row] as usize..row_start[row + 1] as usize];
                for &(c, n) in live {
                    by_class[c as usize].push((t, n));
                }
            }
            for next in &by_class {
                trans.push(if next.is_empty() {
                    DEAD
                } else {
                    states.intern(next, &row_of_dfa)
                });
            }
            i += 1;
        }
        let members = states;
        debug_assert_eq!(trans.len(), members.len() * nc);
        // The terminals matching in a state of `members`.
        let accepting = |m: &[(u32, u32)]| {
            (m.iter())
                .filter(|&&(t, s)| dfas[t as usize].is_accepting(s))
                .map(|&(t, _)| t)
                .collect::<smallvec::SmallVec<[u32; 2]>>()
        };
        let winner = (0..members.len())
            .map(|i| members.members(i))
            .map(|m| {
                (accepting(m).into_iter())
                    .min_by_key(|&t| rank[t as usize])
                    .unwrap_or(NO_TERMINAL)
            })
            .collect();
        let matching = match matching {
            true => (0..members.len())
                .map(|i| members.members(i))
                .map(|m| {
                    (m.iter().copied())
                        .filter(|&(t, s)| dfas[t as usize].is_accepting(s))
                        .collect()
                })
                .collect(),
            false => Vec::new(),
        };
        let alive = (0..members.len())
            .map(|i| members.members(i).iter().map(|&(t, _)| t).collect())
            .collect();
        let single = (0..members.len())
            .map(|i| match members.members(i) {
                [(_, x)] => *x,
                _ => u32::MAX,
            })
            .collect();
        let automaton = LexerAutomaton {
            classes,
            trans,
            winner,
            starts,
            alive,
            single,
        };
        Ok((automaton, matching))
    }

    /// The state after `byte` from `state`, or [`DEAD`] when the byte
    /// extends no candidate (the lexeme ends before it). `state` must not
    /// be [`DEAD`].
    #[inline]
    pub fn next(&self, state: u32, byte: u8) -> u32 {
        self.trans
            [state as usize * self.classes.len() + self.classes.class_of[byte as usize] as usize]
    }

    /// The terminal that wins if the lexeme ends in `state` (the
    /// best-ranked candidate matching there), or `None` when none matches.
    #[inline]
    pub fn winner(&self, state: u32) -> Option<u32> {
        let w = self.winner[state as usize];
        (w != NO_TERMINAL).then_some(w)
    }

    /// How many states the automaton has (ids `0..num_states()`).
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

    /// Per terminal X (of `n`): the bytes that extend some lexeme that X
    /// wins. A lexeme of X is sure to end before a byte outside this set.
    /// Each set is a union of [`classes`](Self::classes), which budget
    /// planning relies on to try one byte per class.
    pub fn extending_bytes_of_winners(&self, n: usize) -> Vec<[bool; 256]> {
        // Per class first (a row is one entry per class), then per byte.
        let k = self.classes.len();
        let mut by_class = vec![false; n * k];
        for s in 0..self.num_states() {
            if let Some(w) = self.winner(s as u32) {
                let row = &self.trans[s * k..(s + 1) * k];
                let out = &mut by_class[w as usize * k..(w as usize + 1) * k];
                for (o, &t) in out.iter_mut().zip(row) {
                    *o |= t != DEAD;
                }
            }
        }
        (0..n)
            .map(|w| {
                let classes = &by_class[w * k..(w + 1) * k];
                std::array::from_fn(|b| classes[self.classes.class_of[b] as usize])
            })
            .collect()
    }
}

/// The product states built so far: their members stored once, end to
/// end, and found again by hash, or for a single member by its terminal
/// state (most product states have one, and hashing them was most of
/// building the lexer).
struct StateStore {
    flat: Vec<(u32, u32)>,
    /// State `i`'s members are `flat[bounds[i]..bounds[i + 1]]`.
    bounds: Vec<usize>,
    /// Hash of the members → the last state with that hash; earlier ones
    /// are chained through `same_hash`.
    by_hash: rustc_hash::FxHashMap<u64, u32>,
    same_hash: Vec<u32>,
    /// Per terminal DFA state (numbered as the builder's rows), the product
    /// state with it as its only member, or `u32::MAX`.
    single: Vec<u32>,
}

impl StateStore {
    /// A store for terminal DFAs with `terminal_states` states in all.
    fn new(terminal_states: usize) -> StateStore {
        StateStore {
            flat: Vec::new(),
            bounds: Vec::new(),
            by_hash: Default::default(),
            same_hash: Vec::new(),
            single: vec![u32::MAX; terminal_states],
        }
    }

    fn len(&self) -> usize {
        self.same_hash.len()
    }

    fn members(&self, i: usize) -> &[(u32, u32)] {
        let from = if i == 0 { 0 } else { self.bounds[i - 1] };
        &self.flat[from..self.bounds[i]]
    }

    /// The state with exactly these members, added if new; `row_of_dfa`
    /// numbers terminal DFA states as `single` does.
    fn intern(&mut self, m: &[(u32, u32)], row_of_dfa: &[usize]) -> u32 {
        if let &[(t, q)] = m {
            let row = row_of_dfa[t as usize] + q as usize;
            if self.single[row] == u32::MAX {
                self.single[row] = self.push(m, u32::MAX);
            }
            return self.single[row];
        }
        use std::hash::{BuildHasher, BuildHasherDefault};
        let h = BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one(m);
        let mut at = self.by_hash.get(&h).copied().unwrap_or(u32::MAX);
        while at != u32::MAX {
            if self.members(at as usize) == m {
                return at;
            }
            at = self.same_hash[at as usize];
        }
        let earlier = self.by_hash.insert(h, self.len() as u32);
        self.push(m, earlier.unwrap_or(u32::MAX))
    }

    /// Adds a state with members `m`, chained to `same_hash`.
    fn push(&mut self, m: &[(u32, u32)], same_hash: u32) -> u32 {
        let id = self.len() as u32;
        self.flat.extend_from_slice(m);
        self.bounds.push(self.flat.len());
        self.same_hash.push(same_hash);
        id
    }
}
