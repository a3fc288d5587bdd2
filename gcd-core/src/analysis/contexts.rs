//! Parser contexts: every set of terminals the parser can accept at a lexeme
//! start. The contextual lexer gets one start state per such set, so they
//! are enumerated once, at compile time.

use std::collections::HashSet;

use super::Sets;
use crate::error::{DiagnosticKind, GrammarError};
use crate::grammar::TermSet;
use crate::grammar::{Grammar, Symbol};

/// Every set of terminals (with the end marker) that the parser can accept
/// at a lexeme start: after each terminal of each production, in each
/// context the production's rule can be expanded in.
pub(crate) fn acceptable_sets(
    g: &Grammar,
    sets: &Sets,
    limit: usize,
) -> Result<Vec<TermSet>, GrammarError> {
    let n = g.terminals.len();
    let too_large = || {
        GrammarError::single(
            DiagnosticKind::TooLarge,
            None,
            format!(
                "the grammar has more than {limit} distinct parser contexts \
                 (the limit `Limits::max_candidate_sets`); simplify it"
            ),
        )
    };
    // ctx[A]: acceptable sets of what lies below A on the stack.
    let mut ctx: Vec<HashSet<TermSet>> = vec![HashSet::new(); g.nonterminals.len()];
    let mut end = TermSet::new(n);
    end.insert(n);
    let mut work = vec![(g.start, end)];
    ctx[g.start.index()].insert(work[0].1.clone());
    let mut total = 1usize;
    let mut out: HashSet<TermSet> = HashSet::new();
    let (mut init, nullable) = sets.first_of_seq(&[Symbol::N(g.start)]);
    if nullable {
        init.insert(n);
    }
    out.insert(init);
    let by_rule = g.productions_by_rule();
    while let Some((a, below)) = work.pop() {
        for p in by_rule[a.index()].iter().map(|&p| g.production(p)) {
            for (i, s) in p.rhs.iter().enumerate() {
                let (mut after, nullable) = sets.first_of_seq(&p.rhs[i + 1..]);
                if nullable {
                    after.union_with(&below);
                }
                match s {
                    Symbol::T(_) => {
                        out.insert(after);
                    }
                    Symbol::N(b) => {
                        if ctx[b.index()].insert(after.clone()) {
                            total += 1;
                            if total > limit {
                                return Err(too_large());
                            }
                            work.push((*b, after));
                        }
                    }
                }
            }
        }
    }
    let mut out: Vec<TermSet> = out.into_iter().collect();
    out.sort();
    Ok(out)
}
