//! The contextual lexer: the product of the candidate terminals' DFAs, one
//! start state per candidate set.

use super::{ByteClasses, TerminalDfa, DEAD};
use crate::grammar::TermSet;

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
    /// every terminal that matches there (the winner and those it beats)
    /// with its own DFA state,
    /// which the compiler's member-set check needs once and the automaton
    /// does not keep.
    pub fn build_with(
        dfas: &[TerminalDfa],
        rank: &[u32],
        candidate_sets: &[TermSet],
        max_states: usize,
        matching: bool,
    ) -> Result<(LexerAutomaton, Vec<Vec<(u32, u32)>>), TooManyStates> {
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
            true => (members.iter())
                .map(|m| {
                    (m.iter().copied())
                        .filter(|&(t, s)| dfas[t as usize].is_accepting(s))
                        .collect()
                })
                .collect(),
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

    /// Per terminal X (of `n`): the bytes that extend some lexeme that X
    /// wins. A lexeme of X is sure to end before a byte outside this set.
    pub fn extending_bytes_of_winners(&self, n: usize) -> Vec<[bool; 256]> {
        let mut ext = vec![[false; 256]; n];
        for s in 0..self.num_states() as u32 {
            if let Some(w) = self.winner(s) {
                let e = self.extending_bytes(s);
                for b in 0..256 {
                    ext[w as usize][b] |= e[b];
                }
            }
        }
        ext
    }
}
