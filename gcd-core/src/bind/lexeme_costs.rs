//! The budget's in-lexeme costs: from a lexer state, the fewest tokens,
//! each staying inside the pending lexeme, that end it as each terminal.
//!
//! Computing them for every state at once needed every state's token
//! tables (seconds on schemas with long strings), so they are searched per
//! state on first use, breadth first from that state and only until the
//! terminals alive there are found; literals come from their own bytes
//! ([`super::literal_costs`]). Masks mostly need only to know that a plan
//! fits the budget, which an upper bound by single-byte tokens, searched
//! over the lexer's byte transitions without token tables, usually shows.

use super::cost::{add, INF};
use super::BoundGrammar;
use crate::grammar::TermSet;
use rustc_hash::{FxHashMap, FxHashSet};

/// The fewest tokens, each staying inside the lexeme, from the lexer
/// states `sources` (reached after `base` tokens) to a state where each of
/// `wanted` ends the lexeme, as `(terminal, cost)` sorted by terminal;
/// terminals no path ends as are left out.
///
/// Literals are spelled from their own bytes (see [`super::literal_costs`]);
/// the rest breadth first over tokens, expanding a state only while a
/// terminal not yet found is alive in it (terminals only die along a
/// lexeme), so the search reads the token tables of the states near the
/// sources only.
pub(crate) fn lexeme_distances(
    b: &BoundGrammar,
    sources: &[u32],
    base: u32,
    wanted: impl Iterator<Item = u32>,
) -> Vec<(u32, u32)> {
    let mut found = Found::new(b, wanted);
    found.spell_literals(b, sources, base);
    let mut seen: FxHashSet<u32> = sources.iter().copied().collect();
    let mut level: Vec<u32> = seen.iter().copied().collect();
    let mut d = base;
    for &s in &level {
        found.reach(b, s, d);
    }
    found.reach_by_one_byte(b, &level, d);
    while !level.is_empty() && !found.done() {
        // A state's successors are checked as they are found, so the level
        // stops expanding once every terminal is found; the states whose
        // single-byte plans end soonest go first, and most levels stop
        // after a few of the thousands of states a string's tokens reach.
        let soonest = |s: u32| {
            (lexeme_upper_bounds(b, s, ORDER_BYTES).iter())
                .filter(|(y, _)| found.open.contains(*y as usize))
                .map(|&(_, c)| c)
                .min()
                .unwrap_or(INF)
        };
        let mut order: Vec<(u32, u32)> = (level.iter())
            .filter(|&&s| found.wants(b, s))
            .map(|&s| (soonest(s), s))
            .collect();
        order.sort_unstable();
        let mut next = Vec::new();
        for (_, s) in order {
            if found.done() {
                break;
            }
            if !found.wants(b, s) {
                continue;
            }
            for &(e, _) in &b.state(s).within_by_end {
                if seen.insert(e) {
                    next.push(e);
                    found.reach(b, e, d + 1);
                }
            }
        }
        // Only once the whole level is reached: a terminal that ends in a
        // state of it costs `d + 1`, not `d + 2`.
        found.reach_by_one_byte(b, &next, d + 1);
        level = next;
        d += 1;
    }
    found.finish()
}

/// How far the upper bounds masks read search: a terminal further away
/// has no bound (the exact search decides for it), so that a state in a
/// long chain (a string of at least 1,000 characters) costs a few hundred
/// steps.
pub(crate) const MAX_UPPER_BOUND_BYTES: u32 = 48;

/// How far the upper-bound budget tables search a context's first lexeme
/// ([`crate::bind::BudgetTables::upper`]): once per context, and a
/// lexeme not found within it has no bound (the exact tables decide).
pub(crate) const MAX_UPPER_TABLE_BYTES: u32 = 1024;

/// How far the bounds that order the exact search's expansions look: they
/// only pick which states go first, for each of hundreds of states.
const ORDER_BYTES: u32 = 8;

/// Upper bounds on [`lexeme_distances`] from state `q` for terminals alive
/// there: literals exactly (from their bytes), the others by the fewest
/// single-byte tokens up to `max_bytes` of them, found breadth first
/// over the lexer's byte transitions without reading any state's token
/// tables. Each bound is a real token path, so at least the fewest tokens;
/// a terminal left out has no bound.
pub(crate) fn lexeme_upper_bounds(b: &BoundGrammar, q: u32, max_bytes: u32) -> Vec<(u32, u32)> {
    let alive = b.grammar.lexer.alive[q as usize].iter().copied();
    single_byte_distances(b, &[q], 0, alive, max_bytes)
}

/// [`lexeme_distances`] by single-byte tokens only, up to `max_bytes` of
/// them after `sources`: the fewest such tokens to each of `wanted`
/// (literals exactly), found breadth first over the lexer's byte
/// transitions, reading no token tables. Every path it follows is one
/// the exact search weighs, so each cost is at least the exact one; a
/// terminal left out has no bound.
pub(crate) fn single_byte_distances(
    b: &BoundGrammar,
    sources: &[u32],
    base: u32,
    wanted: impl Iterator<Item = u32>,
    max_bytes: u32,
) -> Vec<(u32, u32)> {
    let lx = &b.grammar.lexer;
    let mut found = Found::new(b, wanted);
    found.spell_literals(b, sources, base);
    let steps = b.single_byte_classes();
    let n_classes = lx.classes.len();
    let mut seen: FxHashSet<u32> = sources.iter().copied().collect();
    let mut level: Vec<u32> = sources.to_vec();
    level.sort_unstable();
    level.dedup();
    let mut d = base;
    while !level.is_empty() && !found.done() && d - base <= max_bytes {
        for &s in &level {
            found.reach(b, s, d);
        }
        let mut next = Vec::new();
        for &s in level.iter().filter(|&&s| found.wants(b, s)) {
            for &c in steps {
                let e = lx.trans[s as usize * n_classes + c as usize];
                if e != crate::lexer::DEAD && seen.insert(e) {
                    next.push(e);
                }
            }
        }
        level = next;
        d += 1;
    }
    found.finish()
}

/// The terminals a search still looks for, and the costs it found.
struct Found {
    open: TermSet,
    left: usize,
    out: Vec<(u32, u32)>,
}

impl Found {
    fn new(b: &BoundGrammar, wanted: impl Iterator<Item = u32>) -> Found {
        let mut open = TermSet::new(b.grammar.grammar.terminals.len());
        let left = wanted.filter(|&y| open.insert(y as usize)).count();
        Found {
            open,
            left,
            out: Vec::new(),
        }
    }

    /// Literals alive in `sources` (reached after `base` tokens), by their
    /// own bytes: the cheapest source counts, and a literal that cannot win
    /// there is found to have no cost. The search is for the rest.
    fn spell_literals(&mut self, b: &BoundGrammar, sources: &[u32], base: u32) {
        let literals = b.literal_costs();
        let mut spelled: FxHashMap<u32, u32> = FxHashMap::default();
        for &s in sources {
            for &y in &b.grammar.lexer.alive[s as usize] {
                if let Some(c) = literals
                    .get(s, y)
                    .filter(|_| self.open.contains(y as usize))
                {
                    let slot = spelled.entry(y).or_insert(INF);
                    *slot = (*slot).min(add(base, c));
                }
            }
        }
        for (y, c) in spelled {
            self.open.remove(y as usize);
            self.left -= 1;
            if c < INF {
                self.out.push((y, c));
            }
        }
    }

    /// State `s`, `d` tokens in: the terminals still looked for that a
    /// lexeme may end as there cost `d`.
    fn reach(&mut self, b: &BoundGrammar, s: u32, d: u32) {
        for y in b.grammar.lexeme_ends(s) {
            if self.open.contains(y as usize) {
                self.open.remove(y as usize);
                self.left -= 1;
                self.out.push((y, d));
            }
        }
    }

    /// After every state of a level `d` tokens in is [reached](Self::reach):
    /// the terminals still looked for that one single-byte token ends from
    /// one of them cost `d + 1`, the least the next level could give. Inside
    /// a string that is the closing quote, so a search from an escape
    /// stops at the states after it instead of walking their tables.
    fn reach_by_one_byte(&mut self, b: &BoundGrammar, level: &[u32], d: u32) {
        if self.done() {
            return;
        }
        let lx = &b.grammar.lexer;
        let n_classes = lx.classes.len();
        let steps = b.single_byte_classes();
        let mut ends = Vec::new();
        for &s in level.iter().filter(|&&s| self.wants(b, s)) {
            for &c in steps {
                let e = lx.trans[s as usize * n_classes + c as usize];
                if e != crate::lexer::DEAD {
                    let open = |y: &u32| self.open.contains(*y as usize);
                    ends.extend(b.grammar.lexeme_ends(e).filter(open));
                }
            }
        }
        for y in ends {
            if self.open.contains(y as usize) {
                self.open.remove(y as usize);
                self.left -= 1;
                self.out.push((y, d + 1));
            }
        }
    }

    /// Whether a terminal still looked for is alive in `s` (terminals only
    /// die along a lexeme: expanding a state without one finds nothing).
    fn wants(&self, b: &BoundGrammar, s: u32) -> bool {
        (b.grammar.lexer.alive[s as usize].iter()).any(|&y| self.open.contains(y as usize))
    }

    fn done(&self) -> bool {
        self.left == 0
    }

    fn finish(mut self) -> Vec<(u32, u32)> {
        self.out.sort_unstable();
        self.out
    }
}

/// Per first-byte filter of `excluded_first` (a filter drops the tokens
/// whose first byte it holds), the terminals of `wanted` that one token
/// spells as a whole lexeme from lexer state `q`; `None` unless each that
/// some token the filter allows can start is spelled so by one of at most
/// `max_len` bytes. Tokens count as the token tables' `first_ends`
/// count them: staying inside the lexeme, or from a transparent start
/// through ignored lexemes. One token is the least a lexeme costs, so
/// where this holds it is what [`lexeme_distances`] would find from the
/// tables' first tokens, without building them: the start states of a
/// schema's contexts are mostly its own (an object's keys), and building
/// their tables was most of a budget's first mask.
pub(crate) fn one_token_each(
    b: &BoundGrammar,
    q: u32,
    wanted: &[u32],
    excluded_first: &[[bool; 256]],
    max_len: usize,
) -> Option<Vec<Vec<u32>>> {
    let lx = &b.grammar.lexer;
    let trie = &*b.trie;
    let restart = b.transparent[q as usize];
    // Per filter, the terminals not yet spelled that a token it allows can
    // start (after an ignored lexeme, any may): a terminal no allowed
    // first byte keeps alive costs no token path, here or in the search.
    let mut open: Vec<Vec<u32>> = (excluded_first.iter())
        .map(|excluded| {
            let mut can_start = TermSet::new(b.grammar.grammar.terminals.len());
            for byte in (0..=255u8).filter(|&x| !excluded[x as usize]) {
                let s = lx.next(q, byte);
                if s == crate::lexer::DEAD {
                    continue;
                }
                let alive = &lx.alive[s as usize];
                if restart && alive.iter().any(|&w| b.grammar.is_ignored(w)) {
                    return wanted.to_vec();
                }
                for &y in alive {
                    can_start.insert(y as usize);
                }
            }
            (wanted.iter().copied())
                .filter(|&y| can_start.contains(y as usize))
                .collect()
        })
        .collect();
    let mut left: usize = open.iter().map(Vec::len).sum();
    let mut spelled: Vec<Vec<u32>> = vec![Vec::new(); open.len()];
    let mut depth_state = vec![crate::lexer::DEAD; max_len + 1];
    depth_state[0] = q;
    let mut first = 0u8;
    let mut i = 1;
    let end = trie.subtree_end[0] as usize;
    while i < end && left > 0 {
        let d = trie.depth[i] as usize;
        if d == 1 {
            first = trie.byte[i];
        }
        let s = depth_state[d - 1];
        let mut ns = lx.next(s, trie.byte[i]);
        if ns == crate::lexer::DEAD
            && d > 1
            && restart
            && lx.winner(s).is_some_and(|w| b.grammar.is_ignored(w))
        {
            ns = lx.next(q, trie.byte[i]);
        }
        if ns == crate::lexer::DEAD {
            i = trie.subtree_end[i] as usize;
            continue;
        }
        depth_state[d] = ns;
        if !trie.tokens_at(i).is_empty() {
            for y in b.grammar.lexeme_ends(ns) {
                for (f, excluded) in excluded_first.iter().enumerate() {
                    if let Some(k) = open[f].iter().position(|&x| x == y) {
                        if !excluded[first as usize] {
                            spelled[f].push(open[f].swap_remove(k));
                            left -= 1;
                        }
                    }
                }
            }
        }
        i = match d < max_len {
            true => i + 1,
            false => trie.subtree_end[i] as usize,
        };
    }
    (left == 0).then_some(spelled)
}
