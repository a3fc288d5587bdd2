//! The left-corner graph of the grammar being rewritten (`A → B` when an
//! alternative of `A` can begin with `B`), its cycles, and the diagnostics
//! that name them. Separate from the rewrite because detection
//! ([`find_left_recursion`](super::find_left_recursion)) and the errors for
//! what cannot be removed need it too.

use std::collections::VecDeque;

use super::work::Work;
use crate::analysis::strongly_connected;
use crate::error::{Diagnostic, DiagnosticKind, Span};
use crate::grammar::{NtId, RuleKind, Symbol};

/// Components of `adj` that contain a cycle, callees first, members sorted.
pub(super) fn cyclic_sccs(adj: &[Vec<usize>]) -> Vec<Vec<NtId>> {
    let edges: Vec<Vec<u32>> = (adj.iter())
        .map(|e| e.iter().map(|&w| w as u32).collect())
        .collect();
    strongly_connected(&edges)
        .into_iter()
        .filter(|c| c.len() > 1 || adj[c[0] as usize].contains(&(c[0] as usize)))
        .map(|mut c| {
            c.sort_unstable();
            c.into_iter().map(NtId).collect()
        })
        .collect()
}

impl<'g> Work<'g> {
    /// Left-corner edges of `a`: `(target, alternative index)`.
    pub(super) fn lc_edges(&self, a: NtId) -> Vec<(NtId, usize)> {
        let mut out = Vec::new();
        for (k, alt) in self.alts[a.index()].iter().enumerate() {
            for s in &alt.rhs {
                match *s {
                    Symbol::T(_) => break,
                    Symbol::N(n) => {
                        out.push((n, k));
                        if !self.nullable[n.index()] {
                            break;
                        }
                    }
                }
            }
        }
        out
    }

    /// Edges `a → b` where an alternative of `a` is `b` surrounded by
    /// nullable symbols only: a cycle of these is `a ⇒+ a`.
    pub(super) fn unit_edges(&self, a: NtId) -> Vec<(NtId, usize)> {
        let mut out = Vec::new();
        for (k, alt) in self.alts[a.index()].iter().enumerate() {
            if alt.rhs.iter().any(|s| matches!(s, Symbol::T(_))) {
                continue;
            }
            let solid: Vec<NtId> = alt
                .rhs
                .iter()
                .filter_map(|s| match *s {
                    Symbol::N(n) if !self.nullable[n.index()] => Some(n),
                    _ => None,
                })
                .collect();
            match solid.len() {
                0 => out.extend(alt.rhs.iter().filter_map(|s| match *s {
                    Symbol::N(n) => Some((n, k)),
                    Symbol::T(_) => None,
                })),
                1 => out.push((solid[0], k)),
                _ => {}
            }
        }
        out
    }

    pub(super) fn adjacency(&self, edges: impl Fn(NtId) -> Vec<(NtId, usize)>) -> Vec<Vec<usize>> {
        (0..self.len())
            .map(|a| {
                let mut v: Vec<usize> = edges(NtId(a as u32))
                    .into_iter()
                    .map(|(n, _)| n.index())
                    .collect();
                v.sort_unstable();
                v.dedup();
                v
            })
            .collect()
    }

    pub(super) fn left_recursive_sccs(&self) -> Vec<Vec<NtId>> {
        cyclic_sccs(&self.adjacency(|a| self.lc_edges(a)))
    }

    pub(super) fn scope_of(&self, members: &[NtId]) -> Vec<bool> {
        let mut scope = vec![false; self.len()];
        for m in members {
            scope[m.index()] = true;
        }
        scope
    }

    /// A shortest cycle from `start` back to it: the steps `(rule,
    /// alternative index)`, the first from `start`.
    pub(super) fn find_cycle(
        &self,
        start: NtId,
        edges: impl Fn(NtId) -> Vec<(NtId, usize)>,
        in_scope: impl Fn(NtId) -> bool,
    ) -> Option<Vec<(NtId, usize)>> {
        let mut parent: Vec<Option<(NtId, usize)>> = vec![None; self.len()];
        let mut queue = VecDeque::from([start]);
        while let Some(x) = queue.pop_front() {
            for (y, k) in edges(x) {
                if y == start {
                    let mut path = vec![(x, k)];
                    let mut cur = x;
                    while cur != start {
                        let (p, pk) = parent[cur.index()].expect("BFS parent");
                        path.push((p, pk));
                        cur = p;
                    }
                    path.reverse();
                    return Some(path);
                }
                if in_scope(y) && parent[y.index()].is_none() {
                    parent[y.index()] = Some((x, k));
                    queue.push_back(y);
                }
            }
        }
        None
    }

    pub(super) fn cycle_names(&self, cycle: &[(NtId, usize)]) -> String {
        let mut names: Vec<&str> = cycle.iter().map(|(n, _)| self.name(*n)).collect();
        names.push(self.name(cycle[0].0));
        names.join(" -> ")
    }

    /// A diagnostic about `cycle`, spanned at its first alternative, with a
    /// note per step.
    pub(super) fn cycle_diag(
        &self,
        kind: DiagnosticKind,
        cycle: &[(NtId, usize)],
        message: impl FnOnce(&str) -> String,
    ) -> Diagnostic {
        let (a0, k0) = cycle[0];
        let span = self.alts[a0.index()][k0]
            .span
            .or(self.nts[a0.index()].span)
            .or_else(|| {
                cycle
                    .iter()
                    .find_map(|&(n, _)| self.user_site(n).and_then(|(_, s)| s))
            });
        let mut d = Diagnostic::new(kind, span, message(&self.cycle_names(cycle)));
        for (i, &(n, k)) in cycle.iter().enumerate() {
            let next = cycle.get(i + 1).map_or(a0, |s| s.0);
            let alt = &self.alts[n.index()][k];
            d = d.with_note(
                alt.span,
                format!(
                    "`{}: {}` can begin with `{}`",
                    self.name(n),
                    self.show_rhs(&alt.rhs),
                    self.name(next)
                ),
            );
        }
        d
    }

    /// For a Generated rule (made from EBNF sugar or by a transform): the
    /// nearest rule written by the user that uses it, and the span of that
    /// use. None for the user's own rules and for unused generated ones.
    pub(super) fn user_site(&self, n: NtId) -> Option<(NtId, Option<Span>)> {
        if self.nts[n.index()].kind != RuleKind::Generated {
            return None;
        }
        let mut seen = vec![false; self.len()];
        seen[n.index()] = true;
        let mut queue = VecDeque::from([n]);
        while let Some(x) = queue.pop_front() {
            for (y, alts) in self.alts.iter().enumerate() {
                for alt in alts {
                    if !alt.rhs.contains(&Symbol::N(x)) || seen[y] {
                        continue;
                    }
                    if self.nts[y].kind != RuleKind::Generated {
                        return Some((NtId(y as u32), alt.span.or(self.nts[y].span)));
                    }
                    seen[y] = true;
                    queue.push_back(NtId(y as u32));
                }
            }
        }
        None
    }

    /// The rules in `scope` from which `a` can be reached along left-corner
    /// edges inside `scope` (`a` itself only through a cycle).
    pub(super) fn reaching(&self, a: NtId, scope: &[bool]) -> Vec<bool> {
        let n = self.len();
        let mut rev: Vec<Vec<NtId>> = vec![Vec::new(); n];
        for m in (0..n).filter(|&m| scope[m]) {
            for (t, _) in self.lc_edges(NtId(m as u32)) {
                if scope[t.index()] {
                    rev[t.index()].push(NtId(m as u32));
                }
            }
        }
        let mut reach = vec![false; n];
        let mut stack = vec![a];
        while let Some(x) = stack.pop() {
            for &m in &rev[x.index()] {
                if !reach[m.index()] {
                    reach[m.index()] = true;
                    stack.push(m);
                }
            }
        }
        reach
    }

    /// True if `seq` can begin (after nullable symbols) with a rule `hit`
    /// accepts.
    pub(super) fn leads_to(&self, seq: &[Symbol], hit: impl Fn(NtId) -> bool) -> bool {
        for s in seq {
            match *s {
                Symbol::T(_) => return false,
                Symbol::N(m) => {
                    if hit(m) {
                        return true;
                    }
                    if !self.nullable[m.index()] {
                        return false;
                    }
                }
            }
        }
        false
    }
}
