//! The process-wide cache of state tables, keyed by how the lexer behaves
//! from a state up to renaming: string bodies, numbers and formats recur in
//! every schema, so most states of a new grammar were walked before.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use super::capped::Capped;
use super::tables::StateTables;
use crate::lexer::DEAD;

/// How the lexer behaves from one state, up to renaming, as far as a trie
/// walk can tell: the states reachable from it in fewer bytes than the
/// longest token, in breadth-first order, each with its winner (numbered
/// by first appearance) and its transitions over all 256 bytes as runs;
/// the states one byte further are numbered but not followed. Two states
/// with equal keys get equal tables up to that renaming. Byte runs, not
/// the grammar's byte classes, so that grammars with different classes
/// still share. Bounded by depth because the tables are: inside a string
/// of at most 2,048 characters the lexer counts them, and every count with
/// more than a token's length to go behaves alike within a token.
pub(super) struct Behaviour {
    pub(super) key: Vec<u32>,
    /// Local state `i` is the grammar's state `states[i]`.
    pub(super) states: Vec<u32>,
    /// Local winner `i` is the grammar's terminal `winners[i]`.
    pub(super) winners: Vec<u32>,
    /// Whether some state was left at the depth bound unfollowed: the key
    /// then says nothing about longer tokens.
    pub(super) cut: bool,
}

/// A whole state's tables are shared up to this many states: a string
/// with a length bound reaches about 3,000 states within Llama-3's
/// longest token (23 string states per character count). Larger
/// sub-automata are walked directly: their key would cost more than it
/// saves.
pub(super) const MAX_STATE_BEHAVIOUR: usize = 4096;

/// A piece (one root subtree) is shared up to this many states: there are
/// a few hundred per walk, and each one's key is hashed and renumbered.
pub(super) const MAX_PIECE_BEHAVIOUR: usize = 128;

/// Bytes of state tables (and their keys) the process keeps, in two
/// generations (see `capped.rs`). A length-bounded string's tables hold thousands of
/// per-count token lists, so a count of entries bounds nothing.
const MAX_CACHED_STATE_BYTES: usize = 64 << 20;

/// Marks a state at the depth bound in a key: numbered, not followed
/// (`0` is no run's length).
const NOT_FOLLOWED: [u32; 2] = [u32::MAX - 2, 0];

impl Behaviour {
    /// The local number of each of the grammar's states and winners here:
    /// what tables walked in this grammar are stored under.
    pub(super) fn local_numbers(&self) -> (FxHashMap<u32, u32>, FxHashMap<u32, u32>) {
        let number = |ids: &[u32]| {
            (ids.iter().enumerate())
                .map(|(i, &x)| (x, i as u32))
                .collect()
        };
        (number(&self.states), number(&self.winners))
    }

    /// The behaviour of state `q` over `depth` bytes, or `None` when it
    /// reaches more than `max_states` states.
    pub(super) fn of(
        lx: &crate::lexer::LexerAutomaton,
        q: u32,
        depth: usize,
        max_states: usize,
    ) -> Option<Behaviour> {
        // Maximal byte runs of one class: bytes of a run go to one state
        // from every state, so one lookup per run.
        let mut class_runs: Vec<(u8, u32)> = Vec::new();
        for b in 0..=255u8 {
            let c = lx.classes.class_of[b as usize];
            match class_runs.last_mut() {
                Some((first, len)) if lx.classes.class_of[*first as usize] == c => *len += 1,
                _ => class_runs.push((b, 1)),
            }
        }
        SCRATCH.with_borrow_mut(|scratch| scratch.behaviour(lx, q, depth, max_states, &class_runs))
    }
}

/// The local numbers of one key's states, by the grammar's state: an
/// array, reset by a stamp, rather than a map (thousands of lookups per
/// key under a length bound).
#[derive(Default)]
struct Numbering {
    stamp: Vec<u32>,
    local: Vec<u32>,
    current: u32,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Numbering> = Default::default();
}

impl Numbering {
    fn behaviour(
        &mut self,
        lx: &crate::lexer::LexerAutomaton,
        q: u32,
        depth: usize,
        max_states: usize,
        class_runs: &[(u8, u32)],
    ) -> Option<Behaviour> {
        let n = lx.num_states();
        if self.stamp.len() < n {
            self.stamp.resize(n, 0);
            self.local.resize(n, 0);
        }
        self.current = self.current.wrapping_add(1);
        if self.current == 0 {
            self.stamp.fill(0);
            self.current = 1;
        }
        let stamp = self.current;
        let mut states = vec![q];
        let mut distance = vec![0usize];
        self.stamp[q as usize] = stamp;
        self.local[q as usize] = 0;
        let mut winners: Vec<u32> = Vec::new();
        let mut key = Vec::new();
        let mut cut = false;
        let mut i = 0;
        while i < states.len() {
            if states.len() > max_states {
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
            if distance[i] >= depth {
                cut = true;
                key.extend(NOT_FOLLOWED);
                i += 1;
                continue;
            }
            let mut run: Option<(u32, u32)> = None;
            for &(first, len) in class_runs {
                let raw = lx.next(s, first);
                let t = if raw == DEAD {
                    u32::MAX
                } else if self.stamp[raw as usize] == stamp {
                    self.local[raw as usize]
                } else {
                    let next = states.len() as u32;
                    self.stamp[raw as usize] = stamp;
                    self.local[raw as usize] = next;
                    states.push(raw);
                    distance.push(distance[i] + 1);
                    next
                };
                run = match run {
                    Some((target, n)) if target == t => Some((target, n + len)),
                    Some((target, n)) => {
                        key.extend([target, n]);
                        Some((t, len))
                    }
                    None => Some((t, len)),
                };
            }
            let (target, n) = run.expect("256 bytes");
            key.extend([target, n]);
            i += 1;
        }
        Some(Behaviour {
            key,
            states,
            winners,
            cut,
        })
    }
}

type StateCache = Capped<(u64, usize, Vec<u32>), StateTables>;

/// State tables by (vocabulary, trie size, behaviour), for the whole process.
pub(super) fn lock_state_cache() -> std::sync::MutexGuard<'static, StateCache> {
    static CACHE: OnceLock<std::sync::Mutex<StateCache>> = OnceLock::new();
    CACHE
        .get_or_init(|| std::sync::Mutex::new(Capped::new(MAX_CACHED_STATE_BYTES)))
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}
