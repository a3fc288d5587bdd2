//! Reading the budget tables: the fewest tokens a parse stack still
//! needs, and whether a configuration fits the tokens left. The tables are
//! built in the parent module; this is the side the matcher calls per
//! mask.

use super::super::cost::{add, INF};
use super::{cheapest, BudgetTables, PendingCap};
use crate::bind::BoundGrammar;
use crate::parser::{
    is_data, Below, ParseTables, Pos, SetPlan, SetState, SharedStack, StackView, NT_BIT,
};

impl BudgetTables {
    /// `u[p]` = cost to finish the symbols below given a lexeme `p` before
    /// them; returns the same for `sym` on top of them.
    fn apply_backward(&self, sym: u32, u: &[u32]) -> Vec<u32> {
        let (t, cols) = (self.n_terms, self.cols);
        if sym & NT_BIT == 0 {
            let y = sym as usize;
            let after = u[self.class_of[y] as usize];
            (0..cols)
                .map(|p| add(self.pair[p * t + y], after))
                .collect()
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
            Some(b) => (b.costs[self.tier as usize])
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
        self.apply_backward_all(parse, top, u)[self.class_of[prev] as usize]
    }

    /// Fewest tokens (by the plans above) to complete from a pending lexeme
    /// in lexer state `q` with parser `view` (whose positions carry the
    /// [`stack_costs`](Self::stack_costs) of the stacks they are in, where
    /// the matcher keeps them).
    pub fn estimate(&self, b: &BoundGrammar, view: &StackView, q: u32) -> u32 {
        self.estimate_capped(b, view, q, None)
    }

    /// [`estimate`](Self::estimate) by the plans that keep the pending
    /// lexeme within `cap`.
    pub fn estimate_capped(
        &self,
        b: &BoundGrammar,
        view: &StackView,
        q: u32,
        cap: Option<PendingCap>,
    ) -> u32 {
        Self::cheapest_with(b.lexeme_costs(q).iter().copied(), cap, 0, |w| {
            self.cost_after(b, view, w)
        })
    }

    /// Whether [`estimate_capped`](Self::estimate_capped) is at most
    /// `limit`.
    pub fn fits(
        &self,
        b: &BoundGrammar,
        view: &StackView,
        q: u32,
        cap: Option<PendingCap>,
        limit: u32,
    ) -> bool {
        Self::fits_with(b, q, cap, limit, |w| self.cost_after(b, view, w))
    }

    /// [`fits`](Self::fits) with the parser's part of a plan given by
    /// `after(w)` (a mask memoizes it). Tries the cheap bounds first: the
    /// upper bounds of [`BoundGrammar::lexeme_upper_costs`] decide far
    /// from the limit, and [lower bounds](BoundGrammar::lexeme_lower_costs) at it,
    /// both without the exact costs, whose search builds the token tables
    /// of the states near `q`. Near the end of a budget every lexer state
    /// a string's tokens reach is checked, and the exact search there
    /// walked the vocabulary once per state.
    pub(crate) fn fits_with(
        b: &BoundGrammar,
        q: u32,
        cap: Option<PendingCap>,
        limit: u32,
        mut after: impl FnMut(u32) -> u32,
    ) -> bool {
        let upper = b.lexeme_upper_costs(q).iter().copied();
        if Self::cheapest_with(upper, cap, limit, &mut after) <= limit {
            return true;
        }
        Self::cheapest_with(b.lexeme_lower_costs(q), cap, limit, &mut after) <= limit
            && Self::cheapest_with(b.lexeme_costs(q).iter().copied(), cap, limit, &mut after)
                <= limit
    }

    /// Whether a plan whose pending lexeme ends by its
    /// [upper bounds](BoundGrammar::lexeme_upper_costs), with the parser's
    /// part given by `after(w)`, fits `limit`. No token table is read: with
    /// [upper tables](CostTier::Upper) `true` proves the exact estimate
    /// fits, and `false` proves nothing.
    pub(crate) fn fits_by_bounds(
        &self,
        b: &BoundGrammar,
        q: u32,
        cap: Option<PendingCap>,
        limit: u32,
        after: impl FnMut(u32) -> u32,
    ) -> bool {
        let upper = b.lexeme_upper_costs(q).iter().copied();
        Self::cheapest_with(upper, cap, limit, after) <= limit
    }

    /// The cheapest plan that ends the pending lexeme as `(terminal,
    /// tokens)` of `row` and then costs `after(w)`, the
    /// [`cost_after`](Self::cost_after) a lexeme of `w` (which a mask
    /// computes once per terminal and parser stack for every lexer state
    /// its tokens reach); stops looking once one costs at most `enough`.
    fn cheapest_with(
        row: impl IntoIterator<Item = (u32, u32)>,
        cap: Option<PendingCap>,
        enough: u32,
        mut after: impl FnMut(u32) -> u32,
    ) -> u32 {
        let mut best = INF;
        for (w, d) in row {
            if best <= enough {
                break;
            }
            if d >= best || cap.is_some_and(|c| add(c.held, d) > c.limits[w as usize]) {
                continue;
            }
            best = best.min(add(d, after(w)));
        }
        best
    }

    /// The fewest tokens that finish the parser's `view` once the pending
    /// lexeme ends as terminal `w` (each derivation that takes `w` is a
    /// plan; the cheapest counts).
    pub fn cost_after(&self, b: &BoundGrammar, view: &StackView, w: u32) -> u32 {
        let g = &b.grammar;
        if g.is_ignored(w) {
            return self.rest(&g.parse, view, w as usize);
        }
        let mut best = INF;
        g.parse.shift_each(view.clone(), w, |v| {
            best = best.min(self.rest(&g.parse, &v, w as usize));
        });
        best
    }
}
