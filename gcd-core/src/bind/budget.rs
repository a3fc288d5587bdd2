//! Token-cost tables for the hard token budget (TruncProof's idea, for a
//! contextual lexer).
//!
//! A budgeted mask allows a token only if, after it, the output can still be
//! completed within the tokens left. "Can be completed within k tokens" is
//! decided by an estimate that is an upper bound *realized by a plan*: spell
//! the rest of the pending lexeme with whole tokens that stay inside it, then
//! each terminal the parser still needs with whole tokens of its own. The
//! estimate is the cheapest such plan, so the plan's first token always
//! keeps the estimate within budget: the mask is never empty before the
//! output is complete, and generation ends complete within the budget.
//!
//! The tables, all computed at bind time:
//!
//! * `lexeme[q][T]`: fewest tokens, each staying inside the lexeme, from
//!   lexer state `q` to a state where terminal `T` wins (a shortest path over
//!   lexer states whose edges are whole vocabulary tokens).
//! * `pair[p][y]`: fewest tokens for a lexeme of `y` right after a lexeme
//!   that `p` won, whose first byte cannot extend `p`'s lexeme, in the worst
//!   parser context `y` occurs in; or through an ignored separator.
//! * `nt[A][p][last]`: fewest tokens for a terminal string derived from `A`
//!   after a lexeme of `p`, ending with a lexeme of `last`.
//! * `lexeme_most[y]`: the most tokens a plan spends on one whole lexeme of
//!   `y` (the largest finite `pair` cost before its separators are
//!   counted), so that a cap on `y`'s lexemes at or above it leaves every
//!   plan realizable.
//!
//! Terminals are indexed `0..T`; index `T` stands for "no lexeme yet".
//!
//! A member set (members in any order) is planned as its missing required
//! members in declaration order, or, when one more member is needed and
//! none is required, the cheapest one; the plan after its first token is
//! the rest of the same plan, so the estimate stays realizable.

use super::tables::StateTables;
use crate::compiled::CompiledGrammar;
use crate::grammar::Symbol;
use crate::parser::{
    is_data, Below, ParseTables, Pos, SetPlan, SetRole, SetState, SharedStack, StackView, NT_BIT,
};

/// An unreachable cost; sums of a few stay far from overflow.
pub const INF: u32 = u32::MAX / 8;

/// The most bytes one binding's budget tables may take. The rule table is
/// rules × terminals² (a schema with thousands of literal keys and rules
/// would need hundreds of gigabytes); past this, budgets and lexeme caps
/// are refused with an error rather than exhausting memory.
pub const MAX_BUDGET_TABLE_BYTES: usize = 512 << 20;

/// The bytes [`BudgetTables::new`] would allocate for `g`.
pub fn table_bytes(g: &CompiledGrammar) -> usize {
    let t = g.grammar.terminals.len();
    let cols = t + 1;
    let n_states = g.lexer.num_states();
    let n_nts = g.grammar.nonterminals.len();
    let entries = (n_states.saturating_mul(t))
        .saturating_add(cols.saturating_mul(t))
        .saturating_add(n_nts.saturating_mul(cols).saturating_mul(cols))
        .saturating_add(t);
    entries.saturating_mul(4)
}

/// The token-cost tables of one binding: the fewest tokens that spell the
/// rest of a lexeme, a lexeme after another one, and what a rule derives,
/// from which [`estimate`](Self::estimate) bounds the tokens an output
/// still needs (by a plan that can be followed, so a budgeted mask is never
/// empty before the output is complete).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BudgetTables {
    n_terms: usize,
    /// `n_terms + 1`: previous-lexeme index range.
    cols: usize,
    lexeme: Vec<u32>,
    pair: Vec<u32>,
    nt: Vec<u32>,
    lexeme_most: Vec<u32>,
}

/// Lexeme caps for an estimate. Plans that would break the pending
/// lexeme's cap do not count.
#[derive(Clone, Copy, Debug)]
pub struct PendingCap<'a> {
    /// Per terminal, the most tokens one of its lexemes may hold (`INF`:
    /// no cap).
    pub limits: &'a [u32],
    /// The tokens the pending lexeme holds already.
    pub held: u32,
}

impl BudgetTables {
    /// Table sizes as [`new`](Self::new) makes them, for loaded snapshots.
    pub(crate) fn check_sizes(&self, n_terms: usize, n_states: usize, n_nts: usize) -> bool {
        let cols = n_terms + 1;
        self.n_terms == n_terms
            && self.cols == cols
            && self.lexeme.len() == n_states * n_terms
            && self.pair.len() == cols * n_terms
            && self.nt.len() == n_nts * cols * cols
            && self.lexeme_most.len() == n_terms
    }
}

fn add(a: u32, b: u32) -> u32 {
    a.saturating_add(b).min(INF)
}

/// Elementwise minimum of cost vectors of length `cols` (all `INF` if none).
fn cheapest(vs: impl Iterator<Item = Vec<u32>>, cols: usize) -> Vec<u32> {
    vs.reduce(|a, b| a.iter().zip(&b).map(|(x, y)| *x.min(y)).collect())
        .unwrap_or_else(|| vec![INF; cols])
}

/// `costs[q * t + y]`: the fewest edges from state `q` to a state among
/// whose `ends` is `y` (`INF` if none), where `edges[q]` are the states one
/// token leads to.
///
/// Every edge costs one, so a breadth-first search per terminal back from
/// where it ends finds them all in linear time; relaxing every edge until
/// nothing changed took a round per edge of the longest path (thousands,
/// for a `maxLength: 2048` string's chain of lexer states).
fn in_lexeme_costs(t: usize, ends: &[Vec<u32>], edges: &[Vec<u32>]) -> Vec<u32> {
    let n = edges.len();
    let mut costs = vec![INF; n * t];
    for (q, ys) in ends.iter().enumerate() {
        for &y in ys {
            costs[q * t + y as usize] = 0;
        }
    }
    // The edges reversed, as offsets into one list.
    let mut into_off = vec![0u32; n + 1];
    for &e in edges.iter().flatten() {
        into_off[e as usize + 1] += 1;
    }
    for q in 0..n {
        into_off[q + 1] += into_off[q];
    }
    let mut from = vec![0u32; into_off[n] as usize];
    let mut fill = into_off.clone();
    for (q, es) in edges.iter().enumerate() {
        for &e in es {
            from[fill[e as usize] as usize] = q as u32;
            fill[e as usize] += 1;
        }
    }
    let mut queue = std::collections::VecDeque::new();
    for y in 0..t {
        queue.extend((0..n).filter(|&q| costs[q * t + y] == 0));
        while let Some(e) = queue.pop_front() {
            let c = add(1, costs[e * t + y]);
            for &q in &from[into_off[e] as usize..into_off[e + 1] as usize] {
                let slot = &mut costs[q as usize * t + y];
                if c < *slot {
                    *slot = c;
                    queue.push_back(q as usize);
                }
            }
        }
    }
    costs
}

/// A parse-table symbol as a grammar symbol.
fn decode(s: u32) -> Symbol {
    match s & NT_BIT {
        0 => Symbol::T(crate::grammar::TermId(s)),
        _ => Symbol::N(crate::grammar::NtId(s & !NT_BIT)),
    }
}

impl BudgetTables {
    /// Computes the tables of `g` from the token tables of every one of its
    /// lexer states, `states[q]` being state `q`'s.
    pub fn new(g: &CompiledGrammar, states: &[&StateTables]) -> BudgetTables {
        let t = g.grammar.terminals.len();
        let cols = t + 1;
        let lx = &g.lexer;
        let n_states = lx.num_states();

        // Shortest paths to a winning state, edges = tokens inside the lexeme.
        // Under dynamic lexing a lexeme may end as any terminal matching it.
        let ends: Vec<Vec<u32>> = (0..n_states as u32)
            .map(|q| g.lexeme_ends(q).collect())
            .collect();
        let edges: Vec<Vec<u32>> = (states[..n_states].iter())
            .map(|st| st.within_by_end.iter().map(|(end, _)| *end).collect())
            .collect();
        let lexeme = in_lexeme_costs(t, &ends, &edges);

        // Lexemes after a previous lexeme: worst context, best first token.
        // Under maximal munch the next lexeme's first byte must not extend
        // the previous one; a dynamic lexer may end a lexeme anywhere it
        // matches, except an ignored one, which ends at its longest match.
        let mut ext = g.extending_bytes_of_winners();
        if g.lexing() == crate::compiled::Lexing::Dynamic {
            for (x, e) in ext.iter_mut().enumerate() {
                if !g.is_ignored(x as u32) {
                    *e = [false; 256];
                }
            }
        }
        let mut pair = vec![INF; cols * t];
        let mut seen = vec![false; t];
        for (ci, set) in g.candidate_sets.iter().enumerate() {
            let start = lx.starts[ci] as usize;
            // best[b][y]: fewest tokens from this start to a `y` win, first byte b.
            let mut best = vec![INF; 256 * t];
            for &(b, end) in &states[start].first_ends {
                for y in 0..t {
                    let c = add(1, lexeme[end as usize * t + y]);
                    let slot = &mut best[b as usize * t + y];
                    *slot = (*slot).min(c);
                }
            }
            for y in set.iter().filter(|&y| y < t) {
                for p in 0..cols {
                    let cost = (0..256)
                        .filter(|&b| p == t || !ext[p][b])
                        .map(|b| best[b * t + y])
                        .min()
                        .unwrap_or(INF);
                    let slot = &mut pair[p * t + y];
                    *slot = if seen[y] { (*slot).max(cost) } else { cost };
                }
                seen[y] = true;
            }
        }
        let lexeme_most = (0..t)
            .map(|y| {
                (0..cols)
                    .map(|p| pair[p * t + y])
                    .filter(|&c| c < INF)
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        // Or with one ignored terminal between (never before a tight rule).
        let direct = pair.clone();
        for w in g.ignored.iter().filter(|&w| w < t) {
            for p in 0..cols {
                for y in 0..t {
                    if g.tight_pairs.binary_search(&(p, y)).is_ok() {
                        continue;
                    }
                    let via = add(direct[p * t + w], direct[w * t + y]);
                    if via < pair[p * t + y] {
                        pair[p * t + y] = via;
                    }
                }
            }
        }

        let mut tables = BudgetTables {
            n_terms: t,
            cols,
            lexeme,
            pair,
            nt: vec![INF; g.grammar.nonterminals.len() * cols * cols],
            lexeme_most,
        };
        let mut changed = true;
        while changed {
            changed = false;
            for set in &g.parse.sets {
                let a = set.list as usize;
                // A whole list: nothing used yet.
                let list = SetState {
                    set,
                    role: SetRole::List,
                    used: smallvec::smallvec![0; set.words()],
                };
                let plan = list.plan();
                for p in 0..cols {
                    let mut v = vec![INF; cols];
                    v[p] = 0;
                    let v = match &plan {
                        SetPlan::Sequence(syms) => syms
                            .iter()
                            .fold(v, |v, &s| tables.apply_forward(decode(s), &v)),
                        SetPlan::AnyOf(ms) => cheapest(
                            ms.iter().map(|&m| tables.apply_forward(decode(m), &v)),
                            cols,
                        ),
                    };
                    for last in 0..cols {
                        let slot = &mut tables.nt[(a * cols + p) * cols + last];
                        if v[last] < *slot {
                            *slot = v[last];
                            changed = true;
                        }
                    }
                }
            }
            for prod in &g.grammar.productions {
                if g.parse.set_role(prod.lhs.0).is_some() {
                    continue; // approximations; planned above
                }
                let a = prod.lhs.index();
                for p in 0..cols {
                    let mut v = vec![INF; cols];
                    v[p] = 0;
                    for sym in &prod.rhs {
                        v = tables.apply_forward(*sym, &v);
                    }
                    for last in 0..cols {
                        let slot = &mut tables.nt[(a * cols + p) * cols + last];
                        if v[last] < *slot {
                            *slot = v[last];
                            changed = true;
                        }
                    }
                }
            }
        }
        tables
    }

    /// `v[p]` = cost so far ending after a lexeme `p`; then symbol `s`.
    fn apply_forward(&self, s: Symbol, v: &[u32]) -> Vec<u32> {
        let (t, cols) = (self.n_terms, self.cols);
        let mut out = vec![INF; cols];
        match s {
            Symbol::T(y) => {
                let y = y.index();
                out[y] = (0..cols)
                    .map(|l| add(v[l], self.pair[l * t + y]))
                    .min()
                    .unwrap_or(INF);
            }
            Symbol::N(b) => {
                let b = b.index();
                for (l, &vl) in v.iter().enumerate() {
                    if vl >= INF {
                        continue;
                    }
                    for last in 0..cols {
                        let c = add(vl, self.nt[(b * cols + l) * cols + last]);
                        if c < out[last] {
                            out[last] = c;
                        }
                    }
                }
            }
        }
        out
    }

    /// `u[p]` = cost to finish the symbols below given a lexeme `p` before
    /// them; returns the same for `sym` on top of them.
    fn apply_backward(&self, sym: u32, u: &[u32]) -> Vec<u32> {
        let (t, cols) = (self.n_terms, self.cols);
        if sym & NT_BIT == 0 {
            let y = sym as usize;
            (0..cols).map(|p| add(self.pair[p * t + y], u[y])).collect()
        } else {
            let b = (sym & !NT_BIT) as usize;
            (0..cols)
                .map(|p| {
                    (0..cols)
                        .map(|last| add(self.nt[(b * cols + p) * cols + last], u[last]))
                        .min()
                        .unwrap_or(INF)
                })
                .collect()
        }
    }

    /// Like [`apply_backward`](Self::apply_backward) for `syms[i]`, where a
    /// member set's rule finds its data words below it in `syms`.
    fn apply_backward_at(
        &self,
        parse: &ParseTables,
        syms: &[u32],
        i: usize,
        u: &[u32],
    ) -> Vec<u32> {
        let s = syms[i];
        if is_data(s) {
            return u.to_vec();
        }
        let mut below = syms[..i].iter().rev().copied();
        match parse.read_set(s, || below.next()) {
            Some(st) => self.plan_backward(&st, u),
            None => self.apply_backward(s, u),
        }
    }

    /// The plan of a member set in state `st` (see the module docs), on
    /// top of what `u` finishes.
    fn plan_backward(&self, st: &SetState, u: &[u32]) -> Vec<u32> {
        match st.plan() {
            SetPlan::AnyOf(ms) => {
                cheapest(ms.iter().map(|&m| self.apply_backward(m, u)), self.cols)
            }
            SetPlan::Sequence(syms) => syms
                .iter()
                .rev()
                .fold(u.to_vec(), |v, &s| self.apply_backward(s, &v)),
        }
    }

    /// Per position of `stack`'s top segment (bottom first): the cost to
    /// finish the stack up to and including it, by previous lexeme.
    pub fn stack_costs(&self, parse: &ParseTables, stack: &SharedStack) -> Vec<Vec<u32>> {
        let mut out = Vec::with_capacity(stack.top.len());
        self.update_stack_costs(parse, &mut out, None, stack);
        out
    }

    /// Brings `costs` (for stack `old`) up to date for stack `new`,
    /// recomputing only above their common bottom part: a token changes the
    /// top of the stack, so this is proportional to what it pushed.
    pub fn update_stack_costs(
        &self,
        parse: &ParseTables,
        costs: &mut Vec<Vec<u32>>,
        old: Option<&SharedStack>,
        new: &SharedStack,
    ) {
        let common = match old {
            Some(old) if old.same_below(new) => (old.top.iter().zip(&new.top))
                .take_while(|(a, b)| a == b)
                .count(),
            _ => 0,
        };
        costs.truncate(common.min(costs.len()));
        let start = self.lower_costs(parse, new.below.as_deref());
        for i in costs.len()..new.top.len() {
            let next = self.apply_backward_at(parse, &new.top, i, costs.last().unwrap_or(&start));
            costs.push(next);
        }
    }

    /// The cost vector of a shared stack's lower part (the cheapest of its
    /// stacks), computed once per part.
    fn lower_costs(&self, parse: &ParseTables, below: Option<&Below>) -> Vec<u32> {
        match below {
            None => vec![0; self.cols],
            Some(b) => (b.costs)
                .get_or_init(|| {
                    let each = b.alts.iter().map(|a| {
                        let u = self.lower_costs(parse, a.below.as_deref());
                        self.apply_backward_all(parse, &a.top, u)
                    });
                    cheapest(each, self.cols)
                })
                .clone(),
        }
    }

    /// `u` with every symbol of `syms` (bottom first) on top.
    fn apply_backward_all(&self, parse: &ParseTables, syms: &[u32], mut u: Vec<u32>) -> Vec<u32> {
        for i in 0..syms.len() {
            u = self.apply_backward_at(parse, syms, i, &u);
        }
        u
    }

    /// The cost vector of the stacks below a view's own symbols at `p`.
    fn position_costs(&self, parse: &ParseTables, p: &Pos) -> Vec<u32> {
        match p.costs {
            Some(c) if p.keep > 0 => c[p.keep - 1].clone(),
            Some(_) => self.lower_costs(parse, p.below),
            None => {
                let u = self.lower_costs(parse, p.below);
                self.apply_backward_all(parse, &p.base[..p.keep], u)
            }
        }
    }

    /// Fewest tokens to derive the whole `view` after a lexeme `prev`.
    fn rest(&self, parse: &ParseTables, view: &StackView, prev: usize) -> u32 {
        let (top, at) = view.parts();
        let u = self.position_costs(parse, at);
        // A member set's rule and its data words are pushed together, so
        // both are in `top` or both below it.
        self.apply_backward_all(parse, top, u)[prev]
    }

    /// Fewest tokens (by the plans above) to complete from a pending lexeme
    /// in lexer state `q` with parser `view` (whose positions carry the
    /// [`stack_costs`](Self::stack_costs) of the stacks they are in, where
    /// the matcher keeps them).
    pub fn estimate(&self, g: &CompiledGrammar, view: &StackView, q: u32) -> u32 {
        self.estimate_capped(g, view, q, None)
    }

    /// [`estimate`](Self::estimate) by the plans that keep the pending
    /// lexeme within `cap`.
    pub fn estimate_capped(
        &self,
        g: &CompiledGrammar,
        view: &StackView,
        q: u32,
        cap: Option<PendingCap>,
    ) -> u32 {
        let t = self.n_terms;
        let mut best = INF;
        for w in 0..t {
            let d = self.lexeme[q as usize * t + w];
            if d >= best || cap.is_some_and(|c| add(c.held, d) > c.limits[w]) {
                continue;
            }
            if g.is_ignored(w as u32) {
                best = best.min(add(d, self.rest(&g.parse, view, w)));
                continue;
            }
            // Each derivation that takes `w` is a plan; the cheapest counts.
            g.parse.shift_each(view.clone(), w as u32, |v| {
                best = best.min(add(d, self.rest(&g.parse, &v, w)));
            });
        }
        best
    }

    /// The most tokens a plan spends on one lexeme of terminal `w`: a cap
    /// on its lexemes must be at least this (0 if no plan spells one).
    pub fn lexeme_most(&self, w: u32) -> u32 {
        self.lexeme_most[w as usize]
    }

    /// Bytes the cost tables hold on the heap.
    pub fn heap_bytes(&self) -> usize {
        (self.lexeme.len() + self.pair.len() + self.nt.len() + self.lexeme_most.len()) * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The breadth-first costs equal relaxing every edge to a fixpoint, on
    /// random graphs with chains, cycles and unreachable states.
    #[test]
    fn in_lexeme_costs_match_relaxation() {
        for seed in 0..300u64 {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let n = rng.random_range(1..40);
            let t = rng.random_range(1..5);
            let edges: Vec<Vec<u32>> = (0..n)
                .map(|q| {
                    let k = rng.random_range(0..4);
                    let mut es: Vec<u32> = (0..k).map(|_| rng.random_range(0..n) as u32).collect();
                    if q + 1 < n && rng.random_bool(0.5) {
                        es.push(q as u32 + 1); // chains: long shortest paths
                    }
                    es
                })
                .collect();
            let ends: Vec<Vec<u32>> = (0..n)
                .map(|_| (0..t as u32).filter(|_| rng.random_bool(0.1)).collect())
                .collect();
            let mut want = vec![INF; n * t];
            for (q, ys) in ends.iter().enumerate() {
                for &y in ys {
                    want[q * t + y as usize] = 0;
                }
            }
            let mut changed = true;
            while changed {
                changed = false;
                for q in 0..n {
                    for &e in &edges[q] {
                        for y in 0..t {
                            let c = add(1, want[e as usize * t + y]);
                            if c < want[q * t + y] {
                                want[q * t + y] = c;
                                changed = true;
                            }
                        }
                    }
                }
            }
            assert_eq!(in_lexeme_costs(t, &ends, &edges), want, "seed {seed}");
        }
    }
}
