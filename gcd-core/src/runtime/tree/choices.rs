//! Which alternative the tree takes at each conflict of a generalized
//! grammar.
//!
//! The tree parser is a deterministic LL(1) machine. On a grammar with
//! conflicts it needs, at each cell that predicts several productions, to be
//! told which one; this module finds out by running every derivation over
//! the input first (each lexing in its own context, as the matcher does),
//! recording the decisions. Where two derivations meet in the same state, or
//! several accept the whole input, the input is ambiguous and the choice is
//! deterministic and documented: the derivation whose earliest differing
//! decision takes the alternative written first.

use std::collections::BTreeMap;

use crate::compiled::CompiledGrammar;
use crate::lexer::DEAD;
use crate::parser::NT_BIT;

/// The decisions to replay, in order, and whether another derivation of
/// the same input was set aside.
pub(super) struct Choices {
    pub decisions: Vec<u32>,
    pub ambiguous: bool,
    /// Whether some derivation accepts the whole input (if not, the
    /// decisions are those of a derivation that got furthest).
    pub accepted: bool,
}

/// One derivation: parser stack and its decisions so far.
type Run = (Vec<u32>, Vec<u32>);

/// The decisions of the preferred derivation of `input`; `None` if the
/// derivations grow past the grammar's configuration limit.
pub(super) fn choose(g: &CompiledGrammar, input: &[u8]) -> Option<Choices> {
    let max = g.max_configurations();
    let mut ambiguous = false;
    // Derivations by the offset of their next lexeme.
    let mut at: BTreeMap<usize, Vec<Run>> = BTreeMap::new();
    at.insert(0, vec![(g.parse.initial_stack(), Vec::new())]);
    let mut furthest = (0, Vec::new());
    let mut accepted: Option<Vec<u32>> = None;
    while let Some((i, mut runs)) = at.pop_first() {
        runs.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
        let before = runs.len();
        runs.dedup_by(|later, first| later.0 == first.0);
        ambiguous |= runs.len() < before;
        if runs.len() > max {
            return None;
        }
        if i >= furthest.0 {
            let best = runs.iter().map(|r| &r.1).min().expect("never empty");
            if i > furthest.0 || *best < furthest.1 {
                furthest = (i, best.clone());
            }
        }
        for (stack, decisions) in runs {
            if i == input.len() {
                for d in end_decisions(g, &stack) {
                    let mut all = decisions.clone();
                    all.extend(d);
                    ambiguous |= accepted.is_some();
                    if accepted.as_ref().is_none_or(|a| all < *a) {
                        accepted = Some(all);
                    }
                }
                continue;
            }
            let Some((w, j)) = lex(g, &stack, input, i) else {
                continue;
            };
            if g.is_ignored(w) {
                at.entry(j).or_default().push((stack, decisions));
                continue;
            }
            for (next, d) in shift_recording(g, stack, w) {
                let mut all = decisions.clone();
                all.extend(d);
                at.entry(j).or_default().push((next, all));
            }
        }
    }
    Some(match accepted {
        Some(decisions) => Choices {
            decisions,
            ambiguous,
            accepted: true,
        },
        None => Choices {
            decisions: furthest.1,
            ambiguous,
            accepted: false,
        },
    })
}

/// The lexeme at `i` in the context of `stack`: its winner and end.
fn lex(g: &CompiledGrammar, stack: &[u32], input: &[u8], i: usize) -> Option<(u32, usize)> {
    let mut s = g.start_state(stack);
    if s == DEAD {
        return None;
    }
    let mut j = i;
    while j < input.len() {
        let next = g.lexer.next(s, input[j]);
        if next == DEAD {
            break;
        }
        s = next;
        j += 1;
    }
    Some((g.lexer.winner(s)?, j))
}

/// Like [`ParseTables::shift_each`](crate::parser::ParseTables::shift_each),
/// with the index of the alternative taken at each conflicting cell.
fn shift_recording(g: &CompiledGrammar, stack: Vec<u32>, t: u32) -> Vec<(Vec<u32>, Vec<u32>)> {
    let mut out = Vec::new();
    let mut work = vec![(stack, Vec::new())];
    while let Some((mut stack, decisions)) = work.pop() {
        match stack.pop() {
            Some(top) if top == t => out.push((stack, decisions)),
            Some(top) if top & NT_BIT != 0 => {
                let alts = g
                    .table
                    .get_all(crate::grammar::NtId(top & !NT_BIT), t as usize);
                push_alternatives(g, &mut work, &stack, &decisions, alts);
            }
            _ => {}
        }
    }
    // Depth-first order put later alternatives first.
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out
}

/// The decisions with which `stack` derives the empty string, one list per way.
fn end_decisions(g: &CompiledGrammar, stack: &[u32]) -> Vec<Vec<u32>> {
    let end = g.parse.n_terms;
    let mut out = Vec::new();
    let mut work = vec![(stack.to_vec(), Vec::new())];
    while let Some((mut stack, decisions)) = work.pop() {
        match stack.pop() {
            None => out.push(decisions),
            Some(top) if top & NT_BIT == 0 => {}
            Some(top) => {
                let alts = g.table.get_all(crate::grammar::NtId(top & !NT_BIT), end);
                push_alternatives(g, &mut work, &stack, &decisions, alts);
            }
        }
    }
    out.sort();
    out
}

/// Expands the popped rule by each of `alts`, recording the choice where
/// there are several.
fn push_alternatives(
    g: &CompiledGrammar,
    work: &mut Vec<(Vec<u32>, Vec<u32>)>,
    stack: &[u32],
    decisions: &[u32],
    alts: &[u32],
) {
    for (k, &p) in alts.iter().enumerate() {
        let mut next = stack.to_vec();
        let rhs = &g.grammar.production(crate::grammar::ProdId(p)).rhs;
        next.extend(rhs.iter().rev().map(|&s| crate::parser::encode(s)));
        let mut d = decisions.to_vec();
        if alts.len() > 1 {
            d.push(k as u32);
        }
        work.push((next, d));
    }
}

/// Where `input` stops being a valid prefix when no derivation accepts it:
/// the offset of the first byte no derivation can take (`input.len()` if
/// it is a prefix that ends too early), and the terminals the derivations
/// alive there could take next.
pub(super) fn dead_end(g: &CompiledGrammar, input: &[u8]) -> (usize, crate::grammar::TermSet) {
    let mut configs = vec![(
        g.parse.initial_stack(),
        g.start_state(&g.parse.initial_stack()),
    )];
    for (i, &byte) in input.iter().enumerate() {
        let mut next = Vec::new();
        for (stack, q) in &configs {
            g.step(stack.clone(), *q, byte, i == 0, |s, ns| next.push((s, ns)));
        }
        next.sort();
        next.dedup();
        if next.is_empty() || next.len() > g.max_configurations() {
            return (i, expected(g, &configs));
        }
        configs = next;
    }
    (input.len(), expected(g, &configs))
}

fn expected(g: &CompiledGrammar, configs: &[(Vec<u32>, u32)]) -> crate::grammar::TermSet {
    let mut set = crate::grammar::TermSet::new(g.parse.n_terms + 1);
    for (stack, _) in configs {
        set.union_with(&g.parse.acceptable(stack));
    }
    set
}
