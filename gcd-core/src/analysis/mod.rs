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
    derive_all(g, false)
}

/// Which nonterminals derive at least one finite terminal string.
pub fn productive(g: &Grammar) -> Vec<bool> {
    derive_all(g, true)
}

/// The rules with a production whose every symbol is a marked rule or,
/// when `terminals` holds, a terminal: the least fixpoint, by counting
/// each production's unmarked rules down (linear; rounds over every
/// production took one per link of a chain of rules).
fn derive_all(g: &Grammar, terminals: bool) -> Vec<bool> {
    let mut marked = vec![false; g.nonterminals.len()];
    let mut missing = vec![0u32; g.productions.len()];
    let mut uses: Vec<Vec<u32>> = vec![Vec::new(); g.nonterminals.len()];
    let mut ready = Vec::new();
    for (i, p) in g.productions.iter().enumerate() {
        let mut possible = true;
        for s in &p.rhs {
            match *s {
                Symbol::T(_) => possible &= terminals,
                Symbol::N(n) => {
                    missing[i] += 1;
                    uses[n.index()].push(i as u32);
                }
            }
        }
        if !possible {
            missing[i] = u32::MAX;
        } else if missing[i] == 0 {
            ready.push(p.lhs);
        }
    }
    while let Some(n) = ready.pop() {
        if std::mem::replace(&mut marked[n.index()], true) {
            continue;
        }
        for &i in &uses[n.index()] {
            let m = &mut missing[i as usize];
            if *m != u32::MAX {
                *m -= 1;
                if *m == 0 {
                    ready.push(g.productions[i as usize].lhs);
                }
            }
        }
    }
    marked
}

/// Which nonterminals the start symbol reaches.
pub fn reachable(g: &Grammar) -> Vec<bool> {
    let mut seen = vec![false; g.nonterminals.len()];
    let mut stack = vec![g.start];
    seen[g.start.index()] = true;
    let by_rule = g.productions_by_rule();
    while let Some(n) = stack.pop() {
        for &p in &by_rule[n.index()] {
            for s in &g.production(p).rhs {
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

/// Grows each set to include the sets of every node with an edge to it,
/// transitively: `edges[a]` lists the nodes whose sets contain `a`'s.
/// Once through the strongly connected components in topological order,
/// so each edge is followed once (rounds, or a worklist in an unlucky
/// order, took one pass per link of a chain of rules: cubic on an object
/// of 3,000 optional properties).
pub(crate) fn propagate(sets: &mut [TermSet], edges: &[Vec<u32>]) {
    // Tarjan emits components sinks first: walk them in reverse, so every
    // edge into a component has been pushed before it is read.
    let components = strongly_connected(edges);
    let mut component_of = vec![0u32; sets.len()];
    for (c, members) in components.iter().enumerate() {
        for &m in members {
            component_of[m as usize] = c as u32;
        }
    }
    let Some(mut all) = sets.first().cloned() else {
        return;
    };
    for (c, members) in components.iter().enumerate().rev() {
        all.clear();
        for &m in members {
            all.union_with(&sets[m as usize]);
        }
        for &m in members {
            sets[m as usize].clone_from(&all);
            for &to in &edges[m as usize] {
                if component_of[to as usize] != c as u32 {
                    sets[to as usize].union_with(&all);
                }
            }
        }
    }
}

/// The strongly connected components of a graph given by adjacency
/// lists, sinks first (Tarjan's algorithm, iterative: the depth of a
/// chain of rules is the input's to choose).
pub(crate) fn strongly_connected(edges: &[Vec<u32>]) -> Vec<Vec<u32>> {
    const UNSEEN: u32 = u32::MAX;
    let n = edges.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut components = Vec::new();
    let mut next = 0u32;
    // (node, how many of its edges have been followed)
    let mut calls: Vec<(u32, usize)> = Vec::new();
    for root in 0..n as u32 {
        if index[root as usize] != UNSEEN {
            continue;
        }
        calls.push((root, 0));
        index[root as usize] = next;
        low[root as usize] = next;
        next += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        while let Some(&mut (v, ref mut i)) = calls.last_mut() {
            if let Some(&w) = edges[v as usize].get(*i) {
                *i += 1;
                if index[w as usize] == UNSEEN {
                    index[w as usize] = next;
                    low[w as usize] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    calls.push((w, 0));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent as usize] = low[parent as usize].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                components.push(component);
            }
        }
    }
    components
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
        // FIRST(lhs) holds the terminal that ends a production's nullable
        // prefix and FIRST of every rule in that prefix: the latter as
        // edges `n → lhs`, propagated once (see `propagate`).
        let mut first = vec![TermSet::new(nt); g.nonterminals.len()];
        let mut edges: Vec<Vec<u32>> = vec![Vec::new(); g.nonterminals.len()];
        for p in &g.productions {
            for s in &p.rhs {
                match *s {
                    Symbol::T(t) => {
                        first[p.lhs.index()].insert(t.index());
                        break;
                    }
                    Symbol::N(n) => {
                        if n != p.lhs {
                            edges[n.index()].push(p.lhs.0);
                        }
                        if !nullable[n.index()] {
                            break;
                        }
                    }
                }
            }
        }
        propagate(&mut first, &edges);
        let mut sets = Sets {
            nullable,
            first,
            follow: vec![TermSet::new(nt); g.nonterminals.len()],
            n_terms: nt,
        };
        sets.follow = sets.follow_sets(g);
        sets
    }

    /// FOLLOW: each rule's own part (FIRST of what comes after it) plus,
    /// along an edge `lhs → n` for each `n` whose rest of production is
    /// nullable, FOLLOW(lhs).
    fn follow_sets(&self, g: &Grammar) -> Vec<TermSet> {
        let nt = self.n_terms;
        let rules = g.nonterminals.len();
        let mut follow = vec![TermSet::new(nt); rules];
        follow[g.start.index()].insert(nt);
        let mut edges: Vec<Vec<u32>> = vec![Vec::new(); rules];
        // FIRST of each suffix, built from the end of the production.
        let mut rest = TermSet::new(nt);
        for p in &g.productions {
            rest.clear();
            let mut rest_nullable = true;
            for s in p.rhs.iter().rev() {
                match *s {
                    Symbol::T(t) => {
                        rest.clear();
                        rest.insert(t.index());
                        rest_nullable = false;
                    }
                    Symbol::N(n) => {
                        follow[n.index()].union_with(&rest);
                        if rest_nullable && n != p.lhs {
                            edges[p.lhs.index()].push(n.0);
                        }
                        if !self.nullable[n.index()] {
                            rest.clear();
                            rest_nullable = false;
                        }
                        rest.union_with(&self.first[n.index()]);
                    }
                }
            }
        }
        propagate(&mut follow, &edges);
        follow
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
    /// `several_off`. Shared with the parser's tables: rules × terminals
    /// is the largest table of a grammar with thousands of keys.
    cells: std::sync::Arc<[u32]>,
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
    pub fn cells(&self) -> &std::sync::Arc<[u32]> {
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
    // Built in place (a Vec turned into an Arc would be copied, twice the
    // largest table at once).
    let mut shared: std::sync::Arc<[u32]> =
        std::iter::repeat_n(NO_PRODUCTION, g.nonterminals.len() * columns).collect();
    let cells = std::sync::Arc::get_mut(&mut shared).expect("just built, not shared");
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
    let mut several_prods = Vec::new();
    let mut several_off = vec![0];
    for (k, (i, prods)) in several.into_iter().enumerate() {
        cells[i] = SEVERAL | k as u32;
        several_prods.extend_from_slice(&prods);
        several_off.push(several_prods.len() as u32);
    }
    let table = Ll1Table {
        cells: shared,
        columns,
        several: several_prods,
        several_off,
    };
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
