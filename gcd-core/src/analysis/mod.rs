//! Grammar analysis: nullable, FIRST, FOLLOW and the LL(1) table.
//!
//! Besides the table, this is where a grammar is judged usable: symbols that
//! are undefined, unreachable or unproductive, and LL(1) conflicts, become
//! diagnostics that name the rule, both alternatives and the lookahead.

pub(crate) mod contexts;
pub(crate) mod lexical;
pub mod transform;

use crate::error::{Diagnostic, DiagnosticKind, Diagnostics, GrammarError};
use crate::grammar::{Grammar, NtId, ProdId, RuleKind, Symbol, TermId, TermSet};

/// Which nonterminals derive the empty string.
pub fn nullable(g: &Grammar) -> Vec<bool> {
    let mut nullable = vec![false; g.nonterminals.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for p in &g.productions {
            if !nullable[p.lhs.index()]
                && p.rhs
                    .iter()
                    .all(|s| matches!(s, Symbol::N(n) if nullable[n.index()]))
            {
                nullable[p.lhs.index()] = true;
                changed = true;
            }
        }
    }
    nullable
}

/// Which nonterminals derive at least one finite terminal string.
pub fn productive(g: &Grammar) -> Vec<bool> {
    let mut productive = vec![false; g.nonterminals.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for p in &g.productions {
            if !productive[p.lhs.index()]
                && p.rhs.iter().all(|s| match s {
                    Symbol::T(_) => true,
                    Symbol::N(n) => productive[n.index()],
                })
            {
                productive[p.lhs.index()] = true;
                changed = true;
            }
        }
    }
    productive
}

/// Which nonterminals the start symbol reaches.
pub fn reachable(g: &Grammar) -> Vec<bool> {
    let mut seen = vec![false; g.nonterminals.len()];
    let mut stack = vec![g.start];
    seen[g.start.index()] = true;
    while let Some(n) = stack.pop() {
        for (_, p) in g.productions_of(n) {
            for s in &p.rhs {
                if let Symbol::N(m) = s {
                    if !seen[m.index()] {
                        seen[m.index()] = true;
                        stack.push(*m);
                    }
                }
            }
        }
    }
    seen
}

/// Nullable, FIRST and FOLLOW sets of a grammar.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Sets {
    pub nullable: Vec<bool>,
    pub first: Vec<TermSet>,
    /// FOLLOW of each nonterminal; index `terminals.len()` is end of input.
    pub follow: Vec<TermSet>,
    pub n_terms: usize,
}

impl Sets {
    pub fn new(g: &Grammar) -> Sets {
        let nt = g.terminals.len();
        let nullable = nullable(g);
        let mut first = vec![TermSet::new(nt); g.nonterminals.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for p in &g.productions {
                let mut acc = TermSet::new(nt);
                for s in &p.rhs {
                    match s {
                        Symbol::T(t) => {
                            acc.insert(t.index());
                            break;
                        }
                        Symbol::N(n) => {
                            acc.union_with(&first[n.index()]);
                            if !nullable[n.index()] {
                                break;
                            }
                        }
                    }
                }
                changed |= first[p.lhs.index()].union_with(&acc);
            }
        }
        let mut sets = Sets {
            nullable,
            first,
            follow: vec![TermSet::new(nt); g.nonterminals.len()],
            n_terms: nt,
        };
        sets.follow[g.start.index()].insert(nt);
        let mut changed = true;
        while changed {
            changed = false;
            for p in &g.productions {
                for (i, s) in p.rhs.iter().enumerate() {
                    let Symbol::N(n) = s else { continue };
                    let (mut f, nullable_rest) = sets.first_of_seq(&p.rhs[i + 1..]);
                    if nullable_rest {
                        f.union_with(&sets.follow[p.lhs.index()].clone());
                    }
                    changed |= sets.follow[n.index()].union_with(&f);
                }
            }
        }
        sets
    }

    /// FIRST of a symbol sequence and whether it is nullable.
    pub fn first_of_seq(&self, seq: &[Symbol]) -> (TermSet, bool) {
        let mut acc = TermSet::new(self.n_terms);
        for s in seq {
            match s {
                Symbol::T(t) => {
                    acc.insert(t.index());
                    return (acc, false);
                }
                Symbol::N(n) => {
                    acc.union_with(&self.first[n.index()]);
                    if !self.nullable[n.index()] {
                        return (acc, false);
                    }
                }
            }
        }
        (acc, true)
    }

    /// The terminals that can immediately follow terminal `t` in some
    /// sentential form (end of input at index `n_terms`).
    pub fn follow_of_terminals(&self, g: &Grammar) -> Vec<TermSet> {
        let mut out = vec![TermSet::new(self.n_terms); self.n_terms];
        for p in &g.productions {
            for (i, s) in p.rhs.iter().enumerate() {
                let Symbol::T(t) = s else { continue };
                let (mut f, nullable_rest) = self.first_of_seq(&p.rhs[i + 1..]);
                if nullable_rest {
                    f.union_with(&self.follow[p.lhs.index()]);
                }
                out[t.index()].union_with(&f);
            }
        }
        out
    }
}

/// Marks an empty table cell.
pub const NO_PRODUCTION: u32 = u32::MAX;

/// The LL(1) parse table: for a nonterminal and a lookahead terminal (or end
/// of input), the one production to expand.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Ll1Table {
    /// Row-major, `(n_terms + 1)` columns, the last is end of input.
    cells: Vec<u32>,
    columns: usize,
}

impl Ll1Table {
    pub fn get(&self, n: NtId, lookahead: usize) -> Option<ProdId> {
        let c = self.cells[n.index() * self.columns + lookahead];
        (c != NO_PRODUCTION).then_some(ProdId(c))
    }
    pub fn columns(&self) -> usize {
        self.columns
    }
    pub fn cells(&self) -> &[u32] {
        &self.cells
    }
}

/// Checks that every symbol is reachable and productive; collects problems.
pub(crate) fn check_symbols(g: &Grammar, diags: &mut Diagnostics) {
    let reach = reachable(g);
    let prod = productive(g);
    for (i, n) in g.nonterminals.iter().enumerate() {
        if !reach[i] {
            diags.error(
                DiagnosticKind::Unreachable,
                n.span,
                format!(
                    "rule `{}` cannot be reached from the start rule `{}`",
                    n.name,
                    g.nonterminal(g.start).name
                ),
            );
        } else if !prod[i] {
            diags.error(
                DiagnosticKind::Unproductive,
                n.span,
                format!(
                    "rule `{}` derives no finite string: every alternative refers back to a rule that never ends",
                    n.name
                ),
            );
        }
    }
}

/// Builds the LL(1) table, reporting every conflict.
pub fn ll1_table(g: &Grammar, sets: &Sets) -> Result<Ll1Table, GrammarError> {
    let columns = g.terminals.len() + 1;
    let mut cells = vec![NO_PRODUCTION; g.nonterminals.len() * columns];
    let mut diags = Diagnostics::default();
    let mut reported = std::collections::HashSet::new();
    for (pi, p) in g.productions.iter().enumerate() {
        let (mut predict, nullable) = sets.first_of_seq(&p.rhs);
        if nullable {
            predict.union_with(&sets.follow[p.lhs.index()]);
        }
        for la in predict.iter() {
            let cell = &mut cells[p.lhs.index() * columns + la];
            if *cell == NO_PRODUCTION {
                *cell = pi as u32;
                continue;
            }
            let other = ProdId(*cell);
            if !reported.insert((p.lhs, other, pi)) {
                continue;
            }
            let la_name = if la == g.terminals.len() {
                "end of input".to_string()
            } else {
                format!("`{}`", g.display_symbol(Symbol::T(TermId(la as u32))))
            };
            let first_hit = sets.first_of_seq(&g.production(other).rhs).0.contains(la);
            let why = if first_hit && !predict_by_first(sets, &p.rhs, la) {
                " (the second can derive the empty string and the lookahead may follow the rule)"
            } else {
                ""
            };
            let nt = g.nonterminal(p.lhs);
            let rule = match (nt.kind, nt.name.split_once("__")) {
                (RuleKind::Generated, Some((owner, _))) => format!(
                    "`{}` (made for an optional, repeated or grouped part of rule `{owner}`)",
                    nt.name
                ),
                _ => format!("rule `{}`", nt.name),
            };
            diags.push(
                Diagnostic::new(
                    DiagnosticKind::Conflict,
                    p.span,
                    format!(
                        "LL(1) conflict in {rule}: on lookahead {la_name} both `{}` and `{}` apply{why}",
                        g.display_production(other),
                        g.display_production(ProdId(pi as u32)),
                    ),
                )
                .with_note(g.production(other).span, format!("alternative `{}`", g.display_production(other)))
                .with_note(p.span, format!("alternative `{}`", g.display_production(ProdId(pi as u32))))
                .with_note(
                    None,
                    "one token of lookahead must decide: make the alternatives start with different \
                     terminals, or make what follows an optional or repeated part start differently from it",
                ),
            );
        }
    }
    diags.into_result()?;
    Ok(Ll1Table { cells, columns })
}

fn predict_by_first(sets: &Sets, rhs: &[Symbol], la: usize) -> bool {
    sets.first_of_seq(rhs).0.contains(la)
}

/// Runs the checks and builds the table for an LL(1) grammar.
pub fn analyze(g: &Grammar) -> Result<(Sets, Ll1Table), GrammarError> {
    crate::counters::count_ll1_analysis();
    let mut diags = Diagnostics::default();
    check_symbols(g, &mut diags);
    diags.into_result()?;
    let sets = Sets::new(g);
    let table = ll1_table(g, &sets)?;
    Ok((sets, table))
}
