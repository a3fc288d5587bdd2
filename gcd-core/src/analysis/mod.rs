//! Grammar analysis: nullable, FIRST, FOLLOW and the prediction table (one
//! production per cell for an LL(1) grammar, several where it conflicts).
//!
//! Besides the table, this is where a grammar is judged usable: symbols that
//! are undefined, unreachable or unproductive, and LL(1) conflicts (errors,
//! or warnings when parsing is generalized), become
//! diagnostics that name the rule, both alternatives and the lookahead.

pub(crate) mod contexts;
pub(crate) mod lexical;
pub(crate) mod tight;
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
        // A worklist, not rounds over every production: a rule's
        // productions are looked at again only when the FIRST set of a rule
        // they start with grew. (Rounds took one per link of a chain of
        // rules declared in the wrong order: 1,001 rounds over 6,028
        // productions for an object of 1,000 properties.)
        let mut users: Vec<Vec<u32>> = vec![Vec::new(); g.nonterminals.len()];
        for (i, p) in g.productions.iter().enumerate() {
            for s in &p.rhs {
                let Symbol::N(n) = s else { break };
                users[n.index()].push(i as u32);
                if !nullable[n.index()] {
                    break;
                }
            }
        }
        let mut queue: std::collections::VecDeque<u32> = (0..g.productions.len() as u32).collect();
        let mut queued = vec![true; g.productions.len()];
        // One buffer for every production: a fresh set per visit dominated
        // compile time on large grammars.
        let mut acc = TermSet::new(nt);
        while let Some(i) = queue.pop_front() {
            queued[i as usize] = false;
            let p = &g.productions[i as usize];
            acc.clear();
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
            if first[p.lhs.index()].union_with(&acc) {
                for &u in &users[p.lhs.index()] {
                    if !std::mem::replace(&mut queued[u as usize], true) {
                        queue.push_back(u);
                    }
                }
            }
        }
        let mut sets = Sets {
            nullable,
            first,
            follow: vec![TermSet::new(nt); g.nonterminals.len()],
            n_terms: nt,
        };
        sets.follow[g.start.index()].insert(nt);
        let mut f = TermSet::new(nt);
        let mut changed = true;
        while changed {
            changed = false;
            for p in &g.productions {
                for (i, s) in p.rhs.iter().enumerate() {
                    let Symbol::N(n) = s else { continue };
                    if sets.first_of_seq_into(&p.rhs[i + 1..], &mut f) {
                        f.union_with(&sets.follow[p.lhs.index()]);
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
        let nullable = self.first_of_seq_into(seq, &mut acc);
        (acc, nullable)
    }

    /// [`first_of_seq`](Self::first_of_seq) into `acc` (cleared first).
    fn first_of_seq_into(&self, seq: &[Symbol], acc: &mut TermSet) -> bool {
        acc.clear();
        for s in seq {
            match s {
                Symbol::T(t) => {
                    acc.insert(t.index());
                    return false;
                }
                Symbol::N(n) => {
                    acc.union_with(&self.first[n.index()]);
                    if !self.nullable[n.index()] {
                        return false;
                    }
                }
            }
        }
        true
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
/// Marks a cell with several productions: the low bits index the table's
/// alternative lists.
pub const SEVERAL: u32 = 1 << 31;

/// The prediction table: for a nonterminal and a lookahead terminal (or end
/// of input), the productions to expand. For an LL(1) grammar every cell
/// holds at most one; a cell with several is a conflict, which the
/// generalized parser resolves by trying each (see ARCHITECTURE.md, "Beyond
/// LL(1)").
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Ll1Table {
    /// Row-major, `(n_terms + 1)` columns, the last is end of input. A
    /// production, [`NO_PRODUCTION`], or [`SEVERAL`] plus an index into
    /// `several_off`.
    cells: Vec<u32>,
    columns: usize,
    /// The conflicting cells' productions, in grammar order, as
    /// `several[several_off[k]..several_off[k + 1]]`.
    several: Vec<u32>,
    several_off: Vec<u32>,
}

impl Ll1Table {
    /// The productions predicted for `n` on `lookahead`, in grammar order.
    pub fn get_all(&self, n: NtId, lookahead: usize) -> &[u32] {
        let i = n.index() * self.columns + lookahead;
        match self.cells[i] {
            NO_PRODUCTION => &[],
            c if c & SEVERAL != 0 => {
                let k = (c & !SEVERAL) as usize;
                &self.several[self.several_off[k] as usize..self.several_off[k + 1] as usize]
            }
            _ => std::slice::from_ref(&self.cells[i]),
        }
    }
    /// The one production predicted, if exactly one is.
    pub fn get(&self, n: NtId, lookahead: usize) -> Option<ProdId> {
        match self.get_all(n, lookahead) {
            [p] => Some(ProdId(*p)),
            _ => None,
        }
    }
    pub fn columns(&self) -> usize {
        self.columns
    }
    pub fn cells(&self) -> &[u32] {
        &self.cells
    }
    /// The alternatives of the conflicting cells, and their offsets.
    pub fn several(&self) -> (&[u32], &[u32]) {
        (&self.several, &self.several_off)
    }
}

/// The error for rule `n`, which the start rule cannot reach.
pub(crate) fn unreachable(g: &Grammar, n: &crate::grammar::Nonterminal) -> Diagnostic {
    Diagnostic::new(
        DiagnosticKind::Unreachable,
        n.span,
        format!(
            "rule `{}` cannot be reached from the start rule `{}`",
            n.name,
            g.nonterminal(g.start).name
        ),
    )
}

/// Checks that every symbol is reachable and productive; collects problems.
pub(crate) fn check_symbols(g: &Grammar, diags: &mut Diagnostics) {
    let reach = reachable(g);
    let prod = productive(g);
    for (i, n) in g.nonterminals.iter().enumerate() {
        if !reach[i] {
            diags.push(unreachable(g, n));
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

/// Builds the prediction table with every production each cell predicts,
/// and one diagnostic per conflicting pair of alternatives.
pub fn predict_table(g: &Grammar, sets: &Sets) -> (Ll1Table, Vec<Diagnostic>) {
    let columns = g.terminals.len() + 1;
    let mut cells = vec![NO_PRODUCTION; g.nonterminals.len() * columns];
    // Conflicting cells only (few), by cell index: every production predicted.
    let mut several: std::collections::BTreeMap<usize, Vec<u32>> = Default::default();
    let mut diags = Vec::new();
    let mut reported = std::collections::HashSet::new();
    for (pi, p) in g.productions.iter().enumerate() {
        let (mut predict, nullable) = sets.first_of_seq(&p.rhs);
        if nullable {
            predict.union_with(&sets.follow[p.lhs.index()]);
        }
        for la in predict.iter() {
            let i = p.lhs.index() * columns + la;
            if cells[i] == NO_PRODUCTION {
                cells[i] = pi as u32;
                continue;
            }
            let first = several.entry(i).or_insert_with(|| vec![cells[i]]);
            first.push(pi as u32);
            let other = ProdId(first[0]);
            if reported.insert((p.lhs, other, pi)) {
                diags.push(conflict(g, sets, p.lhs, other, ProdId(pi as u32), la));
            }
        }
    }
    let mut table = Ll1Table {
        cells,
        columns,
        several: Vec::new(),
        several_off: vec![0],
    };
    for (k, (i, prods)) in several.into_iter().enumerate() {
        table.cells[i] = SEVERAL | k as u32;
        table.several.extend_from_slice(&prods);
        table.several_off.push(table.several.len() as u32);
    }
    (table, diags)
}

/// The diagnostic for alternatives `a` and `b` of `lhs` both predicted on `la`.
fn conflict(g: &Grammar, sets: &Sets, lhs: NtId, a: ProdId, b: ProdId, la: usize) -> Diagnostic {
    let la_name = if la == g.terminals.len() {
        "end of input".to_string()
    } else {
        format!("`{}`", g.display_symbol(Symbol::T(TermId(la as u32))))
    };
    let rhs_b = &g.production(b).rhs;
    let first_hit = sets.first_of_seq(&g.production(a).rhs).0.contains(la);
    let why = if first_hit && !predict_by_first(sets, rhs_b, la) {
        " (the second can derive the empty string and the lookahead may follow the rule)"
    } else {
        ""
    };
    let nt = g.nonterminal(lhs);
    let rule = match (nt.kind, nt.name.split_once("__")) {
        (RuleKind::Generated, Some((owner, _))) => format!(
            "`{}` (made for an optional, repeated or grouped part of rule `{owner}`)",
            nt.name
        ),
        _ => format!("rule `{}`", nt.name),
    };
    let (span_a, span_b) = (g.production(a).span, g.production(b).span);
    Diagnostic::new(
        DiagnosticKind::Conflict,
        span_b,
        format!(
            "LL(1) conflict in {rule}: on lookahead {la_name} both `{}` and `{}` apply{why}",
            g.display_production(a),
            g.display_production(b),
        ),
    )
    .with_note(span_a, format!("alternative `{}`", g.display_production(a)))
    .with_note(span_b, format!("alternative `{}`", g.display_production(b)))
    .with_note(
        None,
        "one token of lookahead must decide: make the alternatives start with different \
         terminals, or make what follows an optional or repeated part start differently from it",
    )
}

fn predict_by_first(sets: &Sets, rhs: &[Symbol], la: usize) -> bool {
    sets.first_of_seq(rhs).0.contains(la)
}

/// Runs the checks and builds the table for an LL(1) grammar.
pub fn analyze(g: &Grammar) -> Result<(Sets, Ll1Table), GrammarError> {
    let (sets, table, conflicts) = analyze_general(g)?;
    if !conflicts.is_empty() {
        return Err(GrammarError::new(conflicts));
    }
    Ok((sets, table))
}

/// Runs the checks and builds the prediction table, conflicts included
/// (returned as diagnostics, for generalized parsing or a strict verdict).
pub fn analyze_general(g: &Grammar) -> Result<(Sets, Ll1Table, Vec<Diagnostic>), GrammarError> {
    crate::counters::count_ll1_analysis();
    let mut diags = Diagnostics::default();
    check_symbols(g, &mut diags);
    diags.into_result()?;
    let sets = Sets::new(g);
    let (table, conflicts) = predict_table(g, &sets);
    Ok((sets, table, conflicts))
}
