//! Plain text inside a string: the tokens a string body takes whole,
//! added as known groups instead of walked one trie node at a time.
//!
//! Most of a vocabulary is plain text: complete UTF-8 characters other
//! than `"`, `\` and the controls below U+0020. Inside a JSON string every
//! such character steps the lexer the same way: back to the same state in
//! a string without bounds, one count on in a string with a `maxLength`
//! or in a long string's 64-character chunk. From such a state a plain
//! token of `L` characters is a token that stays within the lexeme and
//! ends `L` steps on, whatever its bytes, so its table entry is known
//! without reading it. A first visit of a string state walked all of the
//! trie (400,000 nodes on o200k, 3 ms) to learn that; now it walks the
//! subtrees that hold some token that is not plain (quotes, escapes,
//! newlines, cut characters), and adds the plain ones by group. This is
//! llguidance's "vocabulary slices", for the states where it is exact.
//!
//! Exactness rests on two checks. [`PlainTokens`] classifies tokens by
//! their bytes alone. [`plain_steps`] proves, on the lexer's own
//! transitions, that every plain character (every byte sequence of one,
//! the multi-byte ones by UTF-8's ranges) leads from each state of the
//! chain to the next, and so, by induction, that every plain token of `L`
//! characters up to the chain's length ends in its `L`-th state, alive at
//! every byte. Tests compare the tables with an unskipped walk
//! ([`BoundGrammar::state_uncached`]).

use std::sync::{Arc, Mutex, OnceLock};

use super::capped::Capped;
use super::pieces::Collected;
use super::BoundGrammar;
use crate::lexer::{LexerAutomaton, DEAD};
use crate::vocab::trie::TokenTrie;

/// `skip` value of a node whose subtree holds a token that is not plain
/// (or one of more characters than are counted).
const NOT_PLAIN: u8 = u8::MAX;

/// Bytes of plain-token tables the process keeps (about 1 MB per
/// vocabulary of 200,000 tokens; see `capped.rs`).
const MAX_PLAIN_BYTES: usize = 16 << 20;

/// Fewest steps a chain must take to be worth it: below, the subtrees it
/// skips are few and small.
const MIN_STEPS: usize = 4;

/// A trie's plain tokens, grouped for adding without a walk.
#[derive(Debug)]
pub(crate) struct PlainTokens {
    /// Per trie node: the most characters a token of its subtree has, if
    /// every token there is plain, else [`NOT_PLAIN`]. A walk from a state
    /// whose chain is at least this long skips the subtree.
    skip: Vec<u8>,
    /// The tokens skipped in subtrees of each `skip`, by their characters,
    /// sorted by `skip`.
    groups: Vec<Group>,
}

/// Plain tokens of one length in subtrees of one `skip`.
#[derive(Debug)]
struct Group {
    /// The subtrees' `skip`.
    most: u8,
    /// The tokens' characters.
    chars: u8,
    /// Their first bytes, as a 256-bit set.
    firsts: [u64; 4],
    ids: Vec<u32>,
}

/// Where a node's bytes stand in reading plain characters.
#[derive(Clone, Copy)]
enum Reading {
    /// Not plain text.
    Bad,
    /// This many characters read whole.
    Whole(u8),
    /// Inside a character: continuation bytes still due, the range the
    /// next one must be in, characters read whole before it.
    Inside(u8, (u8, u8), u8),
}

impl Reading {
    fn then(self, b: u8) -> Reading {
        match self {
            Reading::Bad => Reading::Bad,
            Reading::Whole(n) if n == NOT_PLAIN - 1 => Reading::Bad,
            Reading::Whole(n) => match b {
                0x20..=0x7f if b != b'"' && b != b'\\' => Reading::Whole(n + 1),
                0xc2..=0xf4 => {
                    let (due, first) = utf8_lead(b);
                    Reading::Inside(due, first, n)
                }
                _ => Reading::Bad,
            },
            Reading::Inside(due, (lo, hi), n) if (lo..=hi).contains(&b) => match due {
                1 => Reading::Whole(n + 1),
                _ => Reading::Inside(due - 1, (0x80, 0xbf), n),
            },
            Reading::Inside(..) => Reading::Bad,
        }
    }
}

/// The continuation bytes a UTF-8 lead byte (0xC2..=0xF4) needs, and the
/// range of the first (which excludes overlong forms and surrogates).
fn utf8_lead(b: u8) -> (u8, (u8, u8)) {
    match b {
        0xc2..=0xdf => (1, (0x80, 0xbf)),
        0xe0 => (2, (0xa0, 0xbf)),
        0xed => (2, (0x80, 0x9f)),
        0xe1..=0xef => (2, (0x80, 0xbf)),
        0xf0 => (3, (0x90, 0xbf)),
        0xf4 => (3, (0x80, 0x8f)),
        _ => (3, (0x80, 0xbf)),
    }
}

impl PlainTokens {
    fn new(trie: &TokenTrie) -> PlainTokens {
        let n = trie.byte.len();
        // Depth-first preorder: a node's reading from its parent's, which
        // sits on the path at the depth above.
        let mut path = vec![(Reading::Whole(0), 0u32); trie.max_depth + 1];
        let mut own = vec![NOT_PLAIN; n];
        let mut parent = vec![0u32; n];
        for i in 1..n {
            let d = trie.depth[i] as usize;
            let (above, p) = path[d - 1];
            let r = above.then(trie.byte[i]);
            path[d] = (r, i as u32);
            parent[i] = p;
            let has_tokens = trie.token_off[i] != trie.token_off[i + 1];
            own[i] = match (r, has_tokens) {
                (Reading::Whole(c), _) => c,
                (Reading::Inside(..), false) => 0,
                _ => NOT_PLAIN,
            };
        }
        // A subtree's most characters, children before parents
        // (`NOT_PLAIN` is the greatest value, so it wins).
        let mut skip = own.clone();
        for i in (1..n).rev() {
            let p = parent[i] as usize;
            skip[p] = skip[p].max(skip[i]);
        }
        let mut slot = vec![u32::MAX; 1 << 16];
        let mut groups: Vec<Group> = Vec::new();
        let mut first = 0u8;
        for i in 1..n {
            if trie.depth[i] == 1 {
                first = trie.byte[i];
            }
            let (lo, hi) = (trie.token_off[i] as usize, trie.token_off[i + 1] as usize);
            if lo == hi || skip[i] == NOT_PLAIN {
                continue;
            }
            let key = usize::from(skip[i]) << 8 | usize::from(own[i]);
            if slot[key] == u32::MAX {
                slot[key] = groups.len() as u32;
                groups.push(Group {
                    most: skip[i],
                    chars: own[i],
                    firsts: [0; 4],
                    ids: Vec::new(),
                });
            }
            let g = &mut groups[slot[key] as usize];
            g.firsts[usize::from(first / 64)] |= 1 << (first % 64);
            g.ids.extend_from_slice(&trie.tokens[lo..hi]);
        }
        groups.sort_unstable_by_key(|g| (g.most, g.chars));
        PlainTokens { skip, groups }
    }

    /// The trie's plain tokens, computed once per process and trie (at
    /// binding, like the trie: a few milliseconds on o200k).
    pub(crate) fn of(fingerprint: u64, trie: &TokenTrie) -> Arc<PlainTokens> {
        static CACHE: OnceLock<Mutex<Capped<(u64, usize), PlainTokens>>> = OnceLock::new();
        let lock = || {
            (CACHE
                .get_or_init(|| Mutex::new(Capped::new(MAX_PLAIN_BYTES)))
                .lock())
            .unwrap_or_else(|e| e.into_inner())
        };
        let key = (fingerprint, trie.byte.len());
        if let Some(p) = lock().get(&key) {
            return p;
        }
        let p = Arc::new(PlainTokens::new(trie));
        lock().insert(key, p.clone(), p.heap_bytes());
        p
    }

    /// Bytes held on the heap (about).
    fn heap_bytes(&self) -> usize {
        self.skip.len()
            + self
                .groups
                .iter()
                .map(|g| g.ids.len() * 4 + 48)
                .sum::<usize>()
    }
}

/// The state every plain character leads to from `x`, if there is one
/// (the same for all of them, and no byte of one dead).
fn plain_step(lx: &LexerAutomaton, x: u32) -> Option<u32> {
    let mut target = DEAD;
    let mut agree = |n: u32| {
        if n == DEAD || (target != DEAD && n != target) {
            return false;
        }
        target = n;
        true
    };
    for b in (0x20..=0x7fu8).filter(|&b| b != b'"' && b != b'\\') {
        if !agree(lx.next(x, b)) {
            return None;
        }
    }
    // Multi-byte characters, level by level over the distinct states
    // their bytes reach (few: a string's lexer states do not tell
    // characters apart by more than their bytes' classes).
    let mut lead = 0xc2u8;
    while lead <= 0xf4 {
        let (due, (lo, hi)) = utf8_lead(lead);
        // Leads with the same continuation ranges, taken together.
        let mut last = lead;
        while last < 0xf4 && utf8_lead(last + 1) == (due, (lo, hi)) {
            last += 1;
        }
        let mut states: Vec<u32> = Vec::new();
        for b in lead..=last {
            let n = lx.next(x, b);
            if n == DEAD {
                return None;
            }
            states.push(n);
        }
        let mut range = (lo, hi);
        for level in (1..=due).rev() {
            states.sort_unstable();
            states.dedup();
            let mut next = Vec::new();
            for &s in &states {
                for b in range.0..=range.1 {
                    let n = lx.next(s, b);
                    if level == 1 {
                        if !agree(n) {
                            return None;
                        }
                    } else if n == DEAD {
                        return None;
                    } else {
                        next.push(n);
                    }
                }
            }
            states = next;
            range = (0x80, 0xbf);
        }
        lead = last + 1;
    }
    Some(target)
}

/// The states `q` steps through on plain characters: `steps[L]` is where
/// `L` of them lead, for every `L` up to `limit`, as far as every plain
/// character leads to one state. `None` below [`MIN_STEPS`] steps.
fn plain_steps(lx: &LexerAutomaton, q: u32, limit: usize) -> Option<(Vec<u32>, u8)> {
    let mut steps = vec![q];
    while steps.len() <= limit {
        let x = *steps.last().expect("q");
        let Some(next) = plain_step(lx, x) else {
            break;
        };
        if next == x {
            // A loop: every further count stays here.
            return Some((steps, NOT_PLAIN - 1));
        }
        steps.push(next);
    }
    let counted = steps.len() - 1;
    (counted >= MIN_STEPS).then_some((steps, counted as u8))
}

impl BoundGrammar {
    /// The tables' walk from lexer state `q` (a lexeme start, not a
    /// transparent one) with plain tokens added by group, if plain text
    /// steps `q`'s lexer uniformly; `false` (nothing collected) if not.
    pub(super) fn walk_plain(&self, q: u32, depth_state: &mut [u32], out: &mut Collected) -> bool {
        let lx = &self.grammar.lexer;
        let plain = &self.plain;
        let most = plain.groups.last().map_or(0, |g| g.most) as usize;
        let Some((steps, limit)) = plain_steps(lx, q, most.min(NOT_PLAIN as usize - 1)) else {
            return false;
        };
        crate::counters::count_plain_walk();
        depth_state[0] = q;
        self.walk_nodes_skipping((&plain.skip, limit), depth_state, out);
        let last = steps.len() - 1;
        for g in plain.groups.iter().take_while(|g| g.most <= limit) {
            let end = steps[usize::from(g.chars).min(last)];
            out.tokens_with_firsts(&g.ids, &g.firsts, end);
        }
        true
    }
}
