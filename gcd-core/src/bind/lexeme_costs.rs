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

use super::budget::{add, INF};
use super::BoundGrammar;
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
    let g = &b.grammar;
    let mut open = crate::grammar::TermSet::new(g.grammar.terminals.len());
    let mut left = 0usize;
    for y in wanted {
        left += usize::from(open.insert(y as usize));
    }
    let mut out = Vec::new();
    // Literals by their own bytes; the search is for the other terminals.
    let literals = b.literal_costs();
    let mut spelled: FxHashMap<u32, u32> = FxHashMap::default();
    for &s in sources {
        for &y in &g.lexer.alive[s as usize] {
            if let Some(c) = literals.get(s, y).filter(|_| open.contains(y as usize)) {
                let slot = spelled.entry(y).or_insert(INF);
                *slot = (*slot).min(add(base, c));
            }
        }
    }
    for (y, c) in spelled {
        open.remove(y as usize);
        left -= 1;
        if c < INF {
            out.push((y, c));
        }
    }
    let mut seen: FxHashSet<u32> = sources.iter().copied().collect();
    let mut level: Vec<u32> = seen.iter().copied().collect();
    let mut d = base;
    let mut reach = |s: u32, d: u32, open: &mut crate::grammar::TermSet, left: &mut usize| {
        for y in g.lexeme_ends(s) {
            if open.contains(y as usize) {
                open.remove(y as usize);
                *left -= 1;
                out.push((y, d));
            }
        }
    };
    for &s in &level {
        reach(s, d, &mut open, &mut left);
    }
    while !level.is_empty() && left > 0 {
        // A state's successors are checked as they are found, so the level
        // stops expanding once every terminal is found; the states whose
        // single-byte plans end soonest go first, and most levels stop
        // after a few of the thousands of states a string's tokens reach.
        let soonest = |s: u32| {
            (lexeme_upper_bounds(b, s, ORDER_BYTES).iter())
                .filter(|(y, _)| open.contains(*y as usize))
                .map(|&(_, c)| c)
                .min()
                .unwrap_or(INF)
        };
        let mut order: Vec<(u32, u32)> = (level.iter())
            .filter(|&&s| (g.lexer.alive[s as usize].iter()).any(|&y| open.contains(y as usize)))
            .map(|&s| (soonest(s), s))
            .collect();
        order.sort_unstable();
        let mut next = Vec::new();
        for (_, s) in order {
            if left == 0 {
                break;
            }
            if !(g.lexer.alive[s as usize].iter()).any(|&y| open.contains(y as usize)) {
                continue;
            }
            for &(e, _) in &b.state(s).within_by_end {
                if seen.insert(e) {
                    next.push(e);
                    reach(e, d + 1, &mut open, &mut left);
                }
            }
        }
        level = next;
        d += 1;
    }
    out.sort_unstable();
    out
}

/// How far the upper bounds masks read search: a terminal further away
/// has no bound (the exact search decides for it), so that a state in a
/// long chain (a string of at least 1,000 characters) costs a few hundred
/// steps.
pub(crate) const MAX_UPPER_BOUND_BYTES: u32 = 48;

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
    let g = &b.grammar;
    let lx = &g.lexer;
    let mut open = crate::grammar::TermSet::new(g.grammar.terminals.len());
    let mut left = 0usize;
    let mut out = Vec::new();
    let literals = b.literal_costs();
    for &y in &lx.alive[q as usize] {
        match literals.get(q, y) {
            Some(c) if c < INF => out.push((y, c)),
            Some(_) => {}
            None => left += usize::from(open.insert(y as usize)),
        }
    }
    let steps = b.single_byte_classes();
    let n_classes = lx.classes.len();
    let mut seen: FxHashSet<u32> = FxHashSet::default();
    seen.insert(q);
    let mut level = vec![q];
    let mut d = 0;
    while !level.is_empty() && left > 0 && d <= max_bytes {
        for &s in &level {
            for y in g.lexeme_ends(s) {
                if open.contains(y as usize) {
                    open.remove(y as usize);
                    left -= 1;
                    out.push((y, d));
                }
            }
        }
        let mut next = Vec::new();
        for &s in &level {
            let alive = &lx.alive[s as usize];
            if !alive.iter().any(|&y| open.contains(y as usize)) {
                continue;
            }
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
    out.sort_unstable();
    out
}
