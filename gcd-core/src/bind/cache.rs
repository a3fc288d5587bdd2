//! The process-wide cache of state tables, keyed by how the lexer behaves
//! from a state up to renaming: string bodies, numbers and formats recur in
//! every schema, so most states of a new grammar were walked before.

use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;

use super::tables::StateTables;
use crate::lexer::DEAD;

/// How the lexer behaves from one state, up to renaming: the states
/// reachable from it in breadth-first order, each with its winner (numbered
/// by first appearance) and its transitions over all 256 bytes as runs.
/// Two states with equal keys get equal tables up to that renaming. Byte
/// runs, not the grammar's byte classes, so that grammars with different
/// classes still share.
pub(super) struct Behaviour {
    pub(super) key: Vec<u32>,
    /// Local state `i` is the grammar's state `states[i]`.
    pub(super) states: Vec<u32>,
    /// Local winner `i` is the grammar's terminal `winners[i]`.
    pub(super) winners: Vec<u32>,
}

/// Larger sub-automata are walked directly: their key would cost more
/// than it saves, and they rarely recur. Each key costs 256 transitions
/// per state, for every state of the grammar: at 1,024, a Snowplow schema
/// with a `maxLength: 2048` string (18,953 lexer states, each reaching up
/// to the end of the chain) spent 40% of its budget tables' 15 s here.
const MAX_BEHAVIOUR_STATES: usize = 128;
pub(super) const MAX_CACHED_STATES: usize = 512;

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

    pub(super) fn of(lx: &crate::lexer::LexerAutomaton, q: u32) -> Option<Behaviour> {
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
            // The byte before's target: bytes of one class go to one
            // state, so most bytes extend the run without a lookup.
            let mut last = None;
            for b in 0..=255u8 {
                let raw = lx.next(s, b);
                if last == Some(raw) {
                    if let Some((_, len)) = &mut run {
                        *len += 1;
                    }
                    continue;
                }
                last = Some(raw);
                let t = raw;
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
pub(super) fn lock_state_cache() -> std::sync::MutexGuard<'static, StateCache> {
    static CACHE: OnceLock<std::sync::Mutex<StateCache>> = OnceLock::new();
    CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}
