//! Lexical soundness: the checks that make the matcher's "valid prefix"
//! shortcut exact.
//!
//! Maximal munch can swallow the start of the next terminal (`start: A A`
//! with `A: /a+/` has no sentence at all). The matcher decides "valid
//! prefix" by "the lexer is alive and every terminal so far was accepted by
//! the parser"; that shortcut is exact iff every lexeme can always be closed
//! before the terminal the parser wants next. [`lexical_hazards`] proves
//! that per adjacent terminal pair, or reports the pair;
//! [`member_set_problems`] proves that the lexer may run terminals a member
//! set then refuses.

use super::Sets;
use crate::error::{Diagnostic, DiagnosticKind};
use crate::grammar::TermSet;
use crate::grammar::{Grammar, Symbol, TermId};
use crate::lexer::{LexerAutomaton, DEAD};

/// What makes a [`MemberSet`](crate::grammar::MemberSet) unsound to run.
///
/// The lexer's candidates come from the sets' approximating rules, so they
/// can include terminals the parser then refuses: a used member's first
/// terminal, the separator, what follows the list. The parser's refusal
/// makes such a lexeme a dead end, exactly as if the lexer had not run the
/// terminal, provided that running it never changes where another lexeme
/// ends or which terminal wins: no state where it is alive has another
/// terminal matching. Members must also start with a terminal (a nullable
/// member could not be told to have begun), and the `more` and `next`
/// rules, which carry data on the stack, may be used by the set only.
pub(crate) fn member_set_problems(
    g: &Grammar,
    sets: &Sets,
    lexer: &LexerAutomaton,
    matching: &[Vec<u32>],
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let n = g.terminals.len();
    let mut refusable = TermSet::new(n + 1);
    for (i, set) in g.member_sets.iter().enumerate() {
        let name = &g.nonterminal(set.list).name;
        let all = set
            .members
            .iter()
            .map(|m| m.0)
            .chain(set.repeatable.iter().copied());
        for m in all {
            if sets.nullable[m.index()] {
                out.push(Diagnostic::new(
                    DiagnosticKind::Unsupported,
                    None,
                    format!(
                        "member list `{name}`: member `{}` can be empty",
                        g.nonterminal(m).name
                    ),
                ));
            }
        }
        for (m, _) in &set.members {
            refusable.union_with(&sets.first[m.index()]);
        }
        refusable.insert(set.separator.index());
        refusable.union_with(&sets.follow[set.list.index()]);
        refusable.union_with(&sets.follow[set.more.index()]);
        let foreign = g.productions.iter().find(|p| {
            !set.is_own_rule(p.lhs)
                && p.rhs
                    .iter()
                    .any(|&s| s == Symbol::N(set.more) || s == Symbol::N(set.next))
        });
        if let Some(p) = foreign {
            out.push(Diagnostic::new(
                DiagnosticKind::Unsupported,
                p.span,
                format!(
                    "member list `{name}` (set {i}): its inner rules are used by `{}`",
                    g.nonterminal(p.lhs).name
                ),
            ));
        }
    }
    for (q, alive) in lexer.alive.iter().enumerate() {
        for &x in alive.iter().filter(|&&x| refusable.contains(x as usize)) {
            if let Some(&y) = matching[q].iter().find(|&&y| y != x) {
                out.push(Diagnostic::new(
                    DiagnosticKind::LexicalHazard,
                    None,
                    format!(
                        "a member list may refuse `{}`, but a lexeme where it is still possible also matches `{}`; \
                         refusing it would change how that lexeme ends",
                        g.display_symbol(Symbol::T(TermId(x))),
                        g.display_symbol(Symbol::T(TermId(y)))
                    ),
                ));
                return out;
            }
        }
    }
    out
}

/// Proves, for every pair of terminals that can be adjacent, that a lexeme
/// of the first can be closed before the second starts (directly or with an
/// ignored terminal between), from every state the first's lexeme can be
/// in; reports the pairs where it cannot.
pub(crate) fn lexical_hazards(
    g: &Grammar,
    sets: &Sets,
    lx: &LexerAutomaton,
    candidate_sets: &[TermSet],
    ignored: &TermSet,
    tight_pairs: &[(usize, usize)],
) -> Vec<Diagnostic> {
    let n = g.terminals.len();
    let states = lx.num_states();
    let ext_acc = lx.extending_bytes_of_winners(n);
    // reach[s]: terminals that win in some state reachable from s (a
    // forward fixpoint in rounds needs as many as the longest lexeme and
    // dominated compile time on long strings).
    let nc = lx.classes.len();
    let preds = Predecessors::new(lx);
    let reach = Reach::new(lx, n, &preds);
    // clean_first[Y]: bytes that start a lexeme Y wins, in every candidate
    // set with Y. Per set, the first bytes are grouped by the state they
    // lead to, so each member costs a few word operations, not 256
    // lookups (an object of 3,000 optional properties has millions of
    // set members).
    let mut clean_bits: Vec<Option<[u64; 4]>> = vec![None; n];
    let mut groups: Vec<(u32, [u64; 4])> = Vec::new();
    // The bytes of each class, as bit sets: a start state's row has one
    // entry per class, so grouping its targets sorts classes, not bytes.
    let mut class_bytes = vec![[0u64; 4]; nc];
    for b in 0..256 {
        class_bytes[lx.classes.class_of[b] as usize][b / 64] |= 1 << (b % 64);
    }
    let mut by_target: Vec<(u32, u32)> = Vec::with_capacity(nc);
    for (ci, set) in candidate_sets.iter().enumerate() {
        let start = lx.starts[ci] as usize;
        let mut dead = [0u64; 4];
        groups.clear();
        // Classes sorted by the state they lead to, then cut into groups.
        by_target.clear();
        by_target.extend((0..nc).map(|k| (lx.trans[start * nc + k], k as u32)));
        by_target.sort_unstable();
        for &(t, k) in &by_target {
            let bits = &class_bytes[k as usize];
            let into = if t == DEAD {
                &mut dead
            } else {
                match groups.last_mut() {
                    Some(g) if g.0 == t => &mut g.1,
                    _ => {
                        groups.push((t, [0u64; 4]));
                        &mut groups.last_mut().expect("just pushed").1
                    }
                }
            };
            for w in 0..4 {
                into[w] |= bits[w];
            }
        }
        for y in set.iter() {
            let slot = clean_bits[y].get_or_insert([u64::MAX; 4]);
            for w in 0..4 {
                slot[w] &= !dead[w];
            }
            for (t, bytes) in &groups {
                if !reach.contains(*t as usize, y) {
                    for w in 0..4 {
                        slot[w] &= !bytes[w];
                    }
                }
            }
        }
    }
    let clean_first: Vec<Option<[bool; 256]>> = (clean_bits.iter())
        .map(|bits| bits.map(|w| std::array::from_fn(|b| w[b / 64] & (1 << (b % 64)) != 0)))
        .collect();
    let clean = |y: usize| clean_first[y].unwrap_or([false; 256]);
    // `closes` runs for every adjacent pair (thousands in a schema with
    // many keys): on bit sets, four words instead of 256 bytes.
    let ext_bits: Vec<[u64; 4]> = (ext_acc.iter())
        .map(|e| {
            let mut w = [0u64; 4];
            (0..256)
                .filter(|&b| e[b])
                .for_each(|b| w[b / 64] |= 1 << (b % 64));
            w
        })
        .collect();
    let closes = |x: usize, y: usize| -> Option<u8> {
        let cf = clean_bits[y].unwrap_or([0; 4]);
        (0..4).find_map(|w| {
            let open = cf[w] & !ext_bits[x][w];
            (open != 0).then(|| (w * 64) as u8 + open.trailing_zeros() as u8)
        })
    };
    // The exact form of `closes`, for pairs it cannot prove: from every
    // state where `x` can still win, some continuation reaches a state that
    // `x` wins and that a clean first byte of `y` cannot extend. (A comment
    // inside a lexeme may take any byte, yet a newline always ends it.)
    let closes_everywhere = |x: usize, y: usize| -> bool {
        let cf = clean(y);
        let mut good = vec![false; states];
        let mut stack = Vec::new();
        for q in 0..states {
            if lx.winner(q as u32) == Some(x as u32)
                && (0..=255u8).any(|b| cf[b as usize] && lx.next(q as u32, b) == DEAD)
            {
                good[q] = true;
                stack.push(q);
            }
        }
        while let Some(q) = stack.pop() {
            for &p in preds.of(q) {
                if !good[p as usize] {
                    good[p as usize] = true;
                    stack.push(p as usize);
                }
            }
        }
        (0..states).all(|s| good[s] || !reach.contains(s, x))
    };
    let ignored_ids: Vec<usize> = ignored.iter().collect();
    let separable = |x: usize, y: usize| {
        // Before a tight rule no ignored lexeme may come between.
        let ignored_ids: &[usize] = match tight_pairs.binary_search(&(x, y)) {
            Ok(_) => &[],
            Err(_) => &ignored_ids,
        };
        let cheap = closes(x, y).is_some()
            || ignored_ids
                .iter()
                .any(|&w| closes(x, w).is_some() && closes(w, y).is_some());
        cheap
            || closes_everywhere(x, y)
            || ignored_ids
                .iter()
                .any(|&w| closes_everywhere(x, w) && closes_everywhere(w, y))
    };

    let follow = sets.follow_of_terminals(g);
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for x in 0..n {
        if ignored.contains(x) {
            // An ignored lexeme may be followed by any terminal the parser can take.
            for y in 0..n {
                if !ignored.contains(y) && clean_first[y].is_some() {
                    pairs.push((x, y));
                }
            }
        } else {
            pairs.extend(follow[x].iter().filter(|&y| y < n).map(|y| (x, y)));
        }
    }
    let mut diags = Vec::new();
    for (x, y) in pairs {
        if separable(x, y) {
            continue;
        }
        let cf = clean(y);
        let example = (0..=255u8)
            .find(|&b| cf[b as usize])
            .map(|b| format!(" (for example {:?})", b as char));
        let tx = g.terminal(TermId(x as u32));
        let msg = if clean_first[y].is_none() || !cf.iter().any(|&b| b) {
            format!(
                "terminal `{}` can never be lexed where it is needed: a higher-priority terminal always wins its matches",
                g.display_symbol(Symbol::T(TermId(y as u32)))
            )
        } else {
            format!(
                "maximal munch merges `{}` with the `{}` that may follow it: every byte that can start `{}`{} also extends a `{}` lexeme, and no ignored terminal can separate them, so such outputs can never be completed",
                g.display_symbol(Symbol::T(TermId(x as u32))),
                g.display_symbol(Symbol::T(TermId(y as u32))),
                g.display_symbol(Symbol::T(TermId(y as u32))),
                example.unwrap_or_default(),
                g.display_symbol(Symbol::T(TermId(x as u32))),
            )
        };
        diags.push(
            Diagnostic::new(DiagnosticKind::LexicalHazard, tx.span, msg).with_note(
                g.terminal(TermId(y as u32)).span,
                "make the terminals distinguishable at their boundary, or %ignore a separator such as WS",
            ),
        );
    }
    diags
}

/// Per lexer state, the states with a transition into it (not itself),
/// in increasing order and each once: one array for all states, since a
/// list per state was an allocation per state of every schema's lexer.
struct Predecessors {
    /// `sources[off[s]..off[s + 1]]` are the predecessors of `s`.
    off: Vec<u32>,
    sources: Vec<u32>,
}

impl Predecessors {
    fn new(lx: &LexerAutomaton) -> Predecessors {
        let (states, nc) = (lx.num_states(), lx.classes.len());
        // Each source counted once per target (`last`), in two passes:
        // the counts, then the sources at their offsets.
        let each_edge = |f: &mut dyn FnMut(usize, u32)| {
            let mut last = vec![u32::MAX; states];
            for s in 0..states {
                for &t in &lx.trans[s * nc..(s + 1) * nc] {
                    if t != DEAD && t as usize != s && last[t as usize] != s as u32 {
                        last[t as usize] = s as u32;
                        f(t as usize, s as u32);
                    }
                }
            }
        };
        let mut off = vec![0u32; states + 1];
        each_edge(&mut |t, _| off[t + 1] += 1);
        for s in 0..states {
            off[s + 1] += off[s];
        }
        let mut fill = off.clone();
        let mut sources = vec![0u32; off[states] as usize];
        each_edge(&mut |t, s| {
            sources[fill[t] as usize] = s;
            fill[t] += 1;
        });
        Predecessors { off, sources }
    }

    fn of(&self, s: usize) -> &[u32] {
        &self.sources[self.off[s] as usize..self.off[s + 1] as usize]
    }
}

/// Per lexer state, the terminals that win in some state reachable from
/// it.
///
/// Most states of a schema's lexer have one terminal alive (inside a
/// string, a number, a key), and everything reachable from such a state
/// has that terminal alone, so its set is that terminal or nothing. Those
/// are found by one backward search; only the other states get a set of
/// their own, propagated over their own edges once per component. A set
/// per state, propagated over every edge, was most of this analysis on
/// string-heavy schemas.
struct Reach {
    /// Per state: `Single(t, reaches)` or the index of its set in `sets`.
    of: Vec<ReachOf>,
    sets: Vec<TermSet>,
}

#[derive(Clone, Copy)]
enum ReachOf {
    /// One terminal alive; whether a state where it wins is reachable.
    Single(u32, bool),
    Set(u32),
}

impl Reach {
    fn new(lx: &LexerAutomaton, n: usize, preds: &Predecessors) -> Reach {
        let states = lx.num_states();
        let single = |s: usize| match lx.alive[s][..] {
            [t] => Some(t),
            _ => None,
        };
        let mut next_set = 0u32;
        let mut of: Vec<ReachOf> = (0..states)
            .map(|s| match single(s) {
                Some(t) => ReachOf::Single(t, false),
                None => {
                    next_set += 1;
                    ReachOf::Set(next_set - 1)
                }
            })
            .collect();
        // A single state's predecessors that are single have the same
        // terminal (alive sets only shrink along a transition).
        let mut stack: Vec<u32> = (0..states as u32)
            .filter(|&s| matches!(single(s as usize), Some(t) if (t as usize) < n && lx.winner(s) == Some(t)))
            .collect();
        for &s in &stack {
            if let ReachOf::Single(_, r) = &mut of[s as usize] {
                *r = true;
            }
        }
        while let Some(s) = stack.pop() {
            for &p in preds.of(s as usize) {
                if let ReachOf::Single(_, r @ false) = &mut of[p as usize] {
                    *r = true;
                    stack.push(p);
                }
            }
        }
        let mut sets = vec![TermSet::new(n); next_set as usize];
        let mut edges: Vec<Vec<u32>> = vec![Vec::new(); next_set as usize];
        for s in 0..states {
            match of[s] {
                ReachOf::Set(i) => {
                    if let Some(w) = lx.winner(s as u32).filter(|&w| (w as usize) < n) {
                        sets[i as usize].insert(w as usize);
                    }
                    for &p in preds.of(s) {
                        if let ReachOf::Set(j) = of[p as usize] {
                            edges[i as usize].push(j);
                        }
                    }
                }
                ReachOf::Single(t, true) => {
                    for &p in preds.of(s) {
                        if let ReachOf::Set(j) = of[p as usize] {
                            sets[j as usize].insert(t as usize);
                        }
                    }
                }
                ReachOf::Single(_, false) => {}
            }
        }
        super::propagate(&mut sets, &edges);
        Reach { of, sets }
    }

    fn contains(&self, s: usize, y: usize) -> bool {
        match self.of[s] {
            ReachOf::Single(t, reaches) => reaches && t as usize == y,
            ReachOf::Set(i) => self.sets[i as usize].contains(y),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CompiledGrammar;

    /// `Reach` against a forward search from every state, on lexers with
    /// single-terminal chains (strings, bounded strings), shared prefixes
    /// (keywords against names) and ignored terminals.
    #[test]
    fn reach_is_what_a_search_from_each_state_finds() {
        let grammars = [
            crate::lark::builtin::json(),
            crate::lark::parse_grammar(
                r#"start: (KW | NAME | SHORT | NUM)+
                KW: "if" | "iffy" | "then"
                NAME: /[a-z]+/
                SHORT: /"[a-z]{0,12}"/
                NUM: /-?[0-9]+(\.[0-9]+)?/
                %ignore /[ \t]+/"#,
            )
            .expect("the grammar parses"),
        ];
        for g in &grammars {
            let c = CompiledGrammar::new(g).expect("the grammar compiles");
            let lx = &c.lexer;
            let n = c.grammar.terminals.len();
            let reach = Reach::new(lx, n, &Predecessors::new(lx));
            let nc = lx.classes.len();
            for s in 0..lx.num_states() {
                let mut seen = vec![false; lx.num_states()];
                let (mut stack, mut want) = (vec![s], vec![false; n]);
                seen[s] = true;
                while let Some(q) = stack.pop() {
                    if let Some(w) = lx.winner(q as u32).filter(|&w| (w as usize) < n) {
                        want[w as usize] = true;
                    }
                    for &t in &lx.trans[q * nc..(q + 1) * nc] {
                        if t != DEAD && !seen[t as usize] {
                            seen[t as usize] = true;
                            stack.push(t as usize);
                        }
                    }
                }
                for (y, &w) in want.iter().enumerate() {
                    assert_eq!(reach.contains(s, y), w, "state {s}, terminal {y}");
                }
            }
        }
    }
}
