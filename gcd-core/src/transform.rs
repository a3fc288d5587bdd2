//! Grammar transforms that make natural grammars LL(1): left-recursion
//! removal and left factoring. Every change is reported as a [`Rewrite`] that
//! says what was done to which rule, so a user can see why the grammar the
//! engine runs differs from the one they wrote.
//!
//! [`make_ll1`] runs [`remove_left_recursion`] and then [`left_factor`], and
//! finally drops the rules that the rewrites left unused. A grammar that is
//! already LL(1) comes back unchanged, with no rewrites. The transforms do not
//! promise an LL(1) result: a language that is not LL(1) (the dangling
//! `else`) keeps its conflict, and [`analysis::analyze`] reports it.
//!
//! # Left recursion
//!
//! The left-corner graph has an edge `A → B` when some alternative of `A` is
//! `X1 … Xk B …` with `X1 … Xk` nullable. Its strongly connected components
//! with a cycle are the left-recursive ones; only their rules are rewritten,
//! callee components first. Within one component the rules used from outside
//! it (and the start rule) come last, so that they absorb the others, which
//! then usually fall out of use; otherwise declaration order. Each rule `Ai`
//! in turn:
//!
//! * gets the alternatives of already-processed members (and of the tails
//!   made for them) substituted in where such a member starts an alternative
//!   and can still lead back to `Ai` (Paull's algorithm, restricted to what
//!   is actually recursive: indirect left recursion);
//! * gets a nullable leading symbol (outside the component, or already
//!   processed) expanded where the rest of the alternative leads back to
//!   `Ai` (hidden left recursion, `a: b a "x"` with `b` nullable);
//! * then has its direct left recursion removed:
//!   `A: A α1 | … | β1 | …` becomes `A: β1 A' | …` and
//!   `A': α1 A' | … | <empty>`, where `A'` is a [`RuleKind::Generated`] rule
//!   named `{A}__lr{n}`.
//!
//! The graph is recomputed and the procedure repeated (bounded) until no
//! cycle is left, so left recursion that the first pass uncovers among the
//! new rules is removed too. Grammars where a rule derives itself with
//! nothing around it (`a: b | "x"; b: a`, `a: a b` with `b` nullable) are
//! cyclic, hence ambiguous, and are rejected with a
//! [`DiagnosticKind::LeftRecursion`] error that names the cycle; so is any
//! left recursion still present when the bounds run out. Left-recursive
//! rules that never end (`a: a "x"`) are [`DiagnosticKind::Unproductive`].
//!
//! # Left factoring
//!
//! Alternatives of one rule that start with the same symbol and whose
//! lookaheads overlap share their longest common prefix through a new
//! Generated rule `{A}__lf{n}`; repeated until nothing is left to factor.
//! When alternatives conflict but start with different rules
//! (`stmt: assign | call` with both starting with `NAME`), the leading rules
//! of the conflicting alternatives are expanded one level and the result is
//! factored, but only if that makes the rule (and the rules made for it)
//! LL(1); otherwise the rule is left as written.
//!
//! # Parse-tree shape
//!
//! Generated rules are replaced by their children in parse trees, so a
//! factored rule gives the same tree as before. Aliases (`-> name`) stay on
//! the production that finally decides the alternative: after factoring,
//! that is the production of the `__lf` rule, and a tree builder should let
//! an alias on a Generated child's production rename the enclosing node.
//! A left-recursion tail `A'` (see [`Rewrite::tail`]) keeps the alias and span
//! of the original `A: A α` alternative on its `α A'` production, and `A`
//! keeps those of `A: β` on `β A'`; a parse `A(β, A'(α1, A'(α2, A'())))`
//! stands for the left-associative `A(A(A(β), α1), α2)`. Substitution
//! (indirect and hidden left recursion, expansion before factoring) inlines a
//! rule's node into its user; those rewrites say so.
//!
//! # Limits
//!
//! Substitution can grow a grammar fast. The rewrites stop with a
//! [`DiagnosticKind::TooLarge`] error when the grammar would exceed
//! [`Limits`] (by default ten times its productions, at least 256 and at most
//! 20,000, and likewise for symbols).

use std::collections::{HashSet, VecDeque};
use std::fmt;

use crate::analysis::{self, Sets, TermSet};
use crate::error::{Diagnostic, DiagnosticKind, GrammarError, Span};
use crate::grammar::{Grammar, MemberSet, Nonterminal, NtId, Production, RuleKind, Symbol};

/// What a [`Rewrite`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub enum RewriteKind {
    /// `A: A α | β` became `A: β A'; A': α A' | <empty>`.
    LeftRecursion,
    /// Left recursion through other rules (`a: b "x"; b: a "y"`), removed by
    /// substituting the other rules' alternatives, then as above.
    IndirectLeftRecursion,
    /// Left recursion hidden behind a nullable prefix (`a: b a "x"` with `b`
    /// nullable), removed by expanding the prefix, then as above.
    HiddenLeftRecursion,
    /// Alternatives sharing a prefix now share it through a new rule.
    LeftFactoring,
    /// Leading rules of conflicting alternatives were expanded in place so
    /// that the alternatives could be factored.
    Expansion,
    /// An alternative that appeared more than once (same symbols, same alias)
    /// was kept once.
    DuplicateAlternative,
    /// A rule of the input that the rewrites left unused was removed.
    RemovedRule,
}

/// One change made by a transform.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rewrite {
    pub kind: RewriteKind,
    /// The rule that was rewritten (or removed).
    pub rule: String,
    /// What was done, with the rules as they are now, e.g.
    /// ``removed direct left recursion in `expr`: expr -> term expr__lr3; expr__lr3 -> "+" term expr__lr3 | <empty>``.
    pub message: String,
    /// Where the rule (or the alternative concerned) was written.
    pub span: Option<Span>,
    /// Rules this rewrite created.
    pub new_rules: Vec<String>,
    /// For the left-recursion kinds: the Generated rule that carries the
    /// left-recursive continuations of `rule` (see the module docs on
    /// parse-tree shape).
    pub tail: Option<String>,
}

impl fmt::Display for Rewrite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Everything the transforms changed, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TransformReport {
    pub rewrites: Vec<Rewrite>,
}

impl TransformReport {
    pub fn is_empty(&self) -> bool {
        self.rewrites.is_empty()
    }

    /// `(rule, tail)` pairs: `tail` continues `rule` to the left.
    pub fn tails(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        self.rewrites
            .iter()
            .filter_map(|r| r.tail.as_deref().map(|t| (r.rule.as_str(), t)))
    }
}

impl fmt::Display for TransformReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.rewrites.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{r}")?;
        }
        Ok(())
    }
}

/// How far the transforms may grow a grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_productions: usize,
    /// Symbols summed over all right-hand sides.
    pub max_symbols: usize,
}

impl Limits {
    /// Ten times the grammar's size, at least 256 productions / 4,096 symbols
    /// and at most 20,000 / 400,000 (never below the current size).
    pub fn for_grammar(g: &Grammar) -> Limits {
        let prods = g.productions.len();
        let syms: usize = g.productions.iter().map(|p| p.rhs.len()).sum();
        Limits {
            max_productions: prods.saturating_mul(10).clamp(256, 20_000).max(prods),
            max_symbols: syms.saturating_mul(10).clamp(4_096, 400_000).max(syms),
        }
    }
}

/// Removes left recursion, then left-factors (to a fixpoint, bounded), then
/// drops rules the rewrites left unused. Returns the new grammar and what
/// changed; an LL(1) grammar comes back unchanged with an empty report.
pub fn make_ll1(g: &Grammar) -> Result<(Grammar, TransformReport), GrammarError> {
    make_ll1_with_limits(g, Limits::for_grammar(g))
}

/// [`make_ll1`] with explicit growth limits.
pub fn make_ll1_with_limits(
    g: &Grammar,
    limits: Limits,
) -> Result<(Grammar, TransformReport), GrammarError> {
    let mut w = Work::new(g, limits);
    let mut rewrites = Vec::new();
    w.remove_left_recursion(&mut rewrites)?;
    w.left_factor(&mut rewrites);
    let (g, rewrites) = w.finish(rewrites);
    Ok((g, TransformReport { rewrites }))
}

/// Removes direct, indirect and hidden left recursion (see the module docs).
pub fn remove_left_recursion(g: &Grammar) -> Result<(Grammar, Vec<Rewrite>), GrammarError> {
    let mut w = Work::new(g, Limits::for_grammar(g));
    let mut rewrites = Vec::new();
    w.remove_left_recursion(&mut rewrites)?;
    Ok(w.finish(rewrites))
}

/// Left-factors every rule whose alternatives share a prefix and conflict,
/// repeatedly; expands leading rules one level where that makes a rule
/// LL(1). Never fails: what cannot be factored is left as it is.
pub fn left_factor(g: &Grammar) -> (Grammar, Vec<Rewrite>) {
    let mut w = Work::new(g, Limits::for_grammar(g));
    let mut rewrites = Vec::new();
    w.left_factor(&mut rewrites);
    w.finish(rewrites)
}

/// A left-recursive cycle of `g`, if there is one: `[a, b]` for
/// `a ⇒ b … ⇒ a …` (each step through a nullable prefix at most).
pub fn find_left_recursion(g: &Grammar) -> Option<Vec<NtId>> {
    let w = Work::new(g, Limits::for_grammar(g));
    let scc = w.left_recursive_sccs().into_iter().next()?;
    let scope = w.scope_of(&scc);
    let cycle = w.find_cycle(scc[0], |n| w.lc_edges(n), |n| scope[n.index()])?;
    Some(cycle.into_iter().map(|(n, _)| n).collect())
}

/// Rounds of whole-graph left-recursion removal before giving up.
const MAX_ROUNDS: usize = 8;
/// Substitutions into one rule in one round before giving up.
const MAX_STEPS_PER_RULE: usize = 4_096;
/// Whole-grammar left-factoring passes.
const MAX_FACTOR_PASSES: usize = 256;
/// Factoring passes inside one expansion trial.
const MAX_LOCAL_PASSES: usize = 32;

#[derive(Clone, Debug, PartialEq, Eq)]
struct Alt {
    rhs: Vec<Symbol>,
    alias: Option<String>,
    span: Option<Span>,
}

/// A grammar being rewritten: alternatives grouped by rule.
#[derive(Clone)]
struct Work<'g> {
    g: &'g Grammar,
    limits: Limits,
    nts: Vec<Nonterminal>,
    alts: Vec<Vec<Alt>>,
    /// Rewrites keep every rule's language, so this stays exact.
    nullable: Vec<bool>,
    /// The input rule a generated rule was made for (itself for input rules).
    owner: Vec<NtId>,
    /// Per input rule: whether it is a member set's own rule.
    frozen: Vec<bool>,
    /// The order rules' productions are emitted in: as in the input, then
    /// new rules in creation order.
    emit_order: Vec<NtId>,
    names: HashSet<String>,
    n_prods: usize,
    n_syms: usize,
}

fn predict(sets: &Sets, a: NtId, rhs: &[Symbol]) -> TermSet {
    let (mut f, nullable) = sets.first_of_seq(rhs);
    if nullable {
        f.union_with(&sets.follow[a.index()]);
    }
    f
}

/// Strongly connected components, callees before callers.
fn tarjan(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = adj.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut out = Vec::new();
    let mut counter = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut calls: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut ei)) = calls.last_mut() {
            if *ei < adj[v].len() {
                let w = adj[v][*ei];
                *ei += 1;
                if index[w] == usize::MAX {
                    index[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    calls.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                calls.pop();
                if let Some(&(u, _)) = calls.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = Vec::new();
                    loop {
                        let w = stack.pop().expect("tarjan stack");
                        on_stack[w] = false;
                        comp.push(w);
                        if w == v {
                            break;
                        }
                    }
                    comp.sort_unstable();
                    out.push(comp);
                }
            }
        }
    }
    out
}

/// Components of `adj` that contain a cycle, callees first, members sorted.
fn cyclic_sccs(adj: &[Vec<usize>]) -> Vec<Vec<NtId>> {
    tarjan(adj)
        .into_iter()
        .filter(|c| c.len() > 1 || adj[c[0]].contains(&c[0]))
        .map(|c| c.into_iter().map(|i| NtId(i as u32)).collect())
        .collect()
}

impl<'g> Work<'g> {
    fn new(g: &'g Grammar, limits: Limits) -> Self {
        let n = g.nonterminals.len();
        let mut alts = vec![Vec::new(); n];
        let mut emit_order = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        for p in &g.productions {
            if !seen[p.lhs.index()] {
                seen[p.lhs.index()] = true;
                emit_order.push(p.lhs);
            }
            alts[p.lhs.index()].push(Alt {
                rhs: p.rhs.clone(),
                alias: p.alias.clone(),
                span: p.span,
            });
        }
        emit_order.extend((0..n).filter(|&i| !seen[i]).map(|i| NtId(i as u32)));
        let names = g
            .nonterminals
            .iter()
            .map(|n| n.name.clone())
            .chain(g.terminals.iter().map(|t| t.name.clone()))
            .collect();
        Work {
            g,
            limits,
            nts: g.nonterminals.clone(),
            alts,
            nullable: analysis::nullable(g),
            owner: (0..n).map(|i| NtId(i as u32)).collect(),
            emit_order,
            names,
            n_prods: g.productions.len(),
            n_syms: g.productions.iter().map(|p| p.rhs.len()).sum(),
            frozen: g.member_set_rules(),
        }
    }

    /// A member set's own rule: its productions only approximate it, so
    /// it is never rewritten nor expanded into another rule.
    fn frozen(&self, a: NtId) -> bool {
        self.frozen.get(a.index()).copied().unwrap_or(false)
    }

    fn len(&self) -> usize {
        self.nts.len()
    }

    fn name(&self, n: NtId) -> &str {
        &self.nts[n.index()].name
    }

    fn show_sym(&self, s: Symbol) -> String {
        match s {
            Symbol::T(_) => self.g.display_symbol(s),
            Symbol::N(n) => self.name(n).to_string(),
        }
    }

    fn show_rhs(&self, rhs: &[Symbol]) -> String {
        if rhs.is_empty() {
            return "<empty>".to_string();
        }
        rhs.iter()
            .map(|s| self.show_sym(*s))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn show_rule(&self, a: NtId) -> String {
        let alts: Vec<String> = self.alts[a.index()]
            .iter()
            .map(|x| self.show_rhs(&x.rhs))
            .collect();
        format!("{} -> {}", self.name(a), alts.join(" | "))
    }

    fn quoted(&self, list: &[NtId]) -> String {
        list.iter()
            .map(|n| format!("`{}`", self.name(*n)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn seq_nullable(&self, seq: &[Symbol]) -> bool {
        seq.iter()
            .all(|s| matches!(s, Symbol::N(n) if self.nullable[n.index()]))
    }

    fn set_alts(&mut self, a: NtId, new: Vec<Alt>) {
        let old = std::mem::replace(&mut self.alts[a.index()], new);
        let new = &self.alts[a.index()];
        self.n_prods = self.n_prods + new.len() - old.len();
        self.n_syms = self.n_syms + new.iter().map(|x| x.rhs.len()).sum::<usize>()
            - old.iter().map(|x| x.rhs.len()).sum::<usize>();
    }

    fn over_limits(&self) -> bool {
        self.n_prods > self.limits.max_productions || self.n_syms > self.limits.max_symbols
    }

    /// A new Generated rule named after the input rule `from` was made for.
    fn fresh(&mut self, from: NtId, suffix: &str) -> NtId {
        let owner = self.owner[from.index()];
        let id = self.nts.len();
        let base = self.nts[owner.index()].name.clone();
        let mut k = id;
        let mut name = format!("{base}__{suffix}{k}");
        while self.names.contains(&name) {
            k += 1;
            name = format!("{base}__{suffix}{k}");
        }
        self.names.insert(name.clone());
        let span = self.nts[from.index()].span;
        self.nts.push(Nonterminal {
            name,
            kind: RuleKind::Generated,
            keep_all_tokens: false,
            span,
        });
        self.alts.push(Vec::new());
        self.nullable.push(false);
        self.owner.push(owner);
        let n = NtId(id as u32);
        self.emit_order.push(n);
        n
    }

    /// Left-corner edges of `a`: `(target, alternative index)`.
    fn lc_edges(&self, a: NtId) -> Vec<(NtId, usize)> {
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
    fn unit_edges(&self, a: NtId) -> Vec<(NtId, usize)> {
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

    fn adjacency(&self, edges: impl Fn(NtId) -> Vec<(NtId, usize)>) -> Vec<Vec<usize>> {
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

    fn left_recursive_sccs(&self) -> Vec<Vec<NtId>> {
        cyclic_sccs(&self.adjacency(|a| self.lc_edges(a)))
    }

    fn scope_of(&self, members: &[NtId]) -> Vec<bool> {
        let mut scope = vec![false; self.len()];
        for m in members {
            scope[m.index()] = true;
        }
        scope
    }

    /// A shortest cycle from `start` back to it: the steps `(rule,
    /// alternative index)`, the first from `start`.
    fn find_cycle(
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

    fn cycle_names(&self, cycle: &[(NtId, usize)]) -> String {
        let mut names: Vec<&str> = cycle.iter().map(|(n, _)| self.name(*n)).collect();
        names.push(self.name(cycle[0].0));
        names.join(" -> ")
    }

    /// A diagnostic about `cycle`, spanned at its first alternative, with a
    /// note per step.
    fn cycle_diag(
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
    fn user_site(&self, n: NtId) -> Option<(NtId, Option<Span>)> {
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
    fn reaching(&self, a: NtId, scope: &[bool]) -> Vec<bool> {
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
    fn leads_to(&self, seq: &[Symbol], hit: impl Fn(NtId) -> bool) -> bool {
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

    /// Replaces alternative `k` of `a`, which starts with `n`, by one
    /// alternative per alternative of `n`. Keeps the replaced alternative's
    /// alias and span; skips results that `a` already has.
    fn expand_alt(&mut self, a: NtId, k: usize, n: NtId) {
        let mut all = self.alts[a.index()].clone();
        let alt = all[k].clone();
        debug_assert_eq!(alt.rhs.first(), Some(&Symbol::N(n)));
        let mut new: Vec<Alt> = Vec::new();
        for q in &self.alts[n.index()] {
            let mut rhs = q.rhs.clone();
            rhs.extend_from_slice(&alt.rhs[1..]);
            // `a: a` adds nothing to the language.
            if rhs == [Symbol::N(a)] {
                continue;
            }
            let dup = |x: &Alt| x.rhs == rhs && x.alias == alt.alias;
            if all.iter().enumerate().any(|(i, x)| i != k && dup(x)) || new.iter().any(dup) {
                continue;
            }
            new.push(Alt {
                rhs,
                alias: alt.alias.clone(),
                span: alt.span,
            });
        }
        all.splice(k..=k, new);
        self.set_alts(a, all);
    }

    // ----- left recursion -------------------------------------------------

    fn remove_left_recursion(&mut self, out: &mut Vec<Rewrite>) -> Result<(), GrammarError> {
        let orig = self.clone();
        for round in 0..=MAX_ROUNDS {
            let sccs = self.left_recursive_sccs();
            let Some(first) = sccs.first() else {
                return Ok(());
            };
            if round == 0 {
                orig.precheck(&sccs)?;
            }
            if round == MAX_ROUNDS {
                return Err(self.unremovable(
                    &orig,
                    first,
                    "it keeps reappearing through nullable symbols; rewrite the rules involved so that \
                     the recursive rule is not preceded by symbols that can be empty",
                ));
            }
            let entries = self.entries(&sccs);
            for scc in &sccs {
                // Entry rules last: they absorb the others, which then
                // usually fall out of use, instead of calling into rewritten
                // rules whose tails clash with what follows the call.
                let mut scc = scc.clone();
                scc.sort_by_key(|m| (entries[m.index()], *m));
                self.process_scc(&orig, &scc, out)?;
            }
        }
        unreachable!("the last round returns")
    }

    /// Rules used from outside their component (or the start rule).
    fn entries(&self, sccs: &[Vec<NtId>]) -> Vec<bool> {
        let mut comp = vec![usize::MAX; self.len()];
        for (i, scc) in sccs.iter().enumerate() {
            for m in scc {
                comp[m.index()] = i;
            }
        }
        let mut entry = vec![false; self.len()];
        entry[self.g.start.index()] = true;
        for (x, alts) in self.alts.iter().enumerate() {
            for alt in alts {
                for s in &alt.rhs {
                    if let Symbol::N(m) = *s {
                        if comp[m.index()] != comp[x] {
                            entry[m.index()] = true;
                        }
                    }
                }
            }
        }
        entry
    }

    /// Errors that no rewrite can fix, found on the input: left-recursive
    /// rules that never end, and cycles `a ⇒+ a`.
    fn precheck(&self, sccs: &[Vec<NtId>]) -> Result<(), GrammarError> {
        let productive = analysis::productive(self.g);
        let mut diags = Vec::new();
        for scc in sccs {
            let scope = self.scope_of(scc);
            for &a in scc {
                if productive[a.index()] {
                    continue;
                }
                if let Some(c) = self.find_cycle(a, |n| self.lc_edges(n), |n| scope[n.index()]) {
                    let name = self.name(a);
                    diags.push(self.cycle_diag(DiagnosticKind::Unproductive, &c, |cyc| {
                        format!(
                            "rule `{name}` is left-recursive ({cyc}) and no alternative ends the recursion, \
                             so it derives no finite string; add an alternative that does not start with the recursion"
                        )
                    }));
                }
            }
        }
        let unit = self.adjacency(|a| self.unit_edges(a));
        for scc in cyclic_sccs(&unit) {
            let scope = self.scope_of(&scc);
            if let Some(c) = self.find_cycle(scc[0], |n| self.unit_edges(n), |n| scope[n.index()]) {
                let name = self.name(scc[0]);
                let mut d = self.cycle_diag(DiagnosticKind::LeftRecursion, &c, |cyc| {
                    format!(
                        "left recursion `{cyc}` cannot be removed: rule `{name}` derives itself with nothing \
                         around it, so the grammar is cyclic (infinitely ambiguous); remove the alternative \
                         that closes the cycle"
                    )
                });
                if let Some((user, span)) = c.iter().find_map(|&(n, _)| self.user_site(n)) {
                    d = d.with_note(
                        span,
                        format!(
                            "the generated rules in this cycle come from EBNF sugar in rule `{}`: a repetition \
                             (`*`, `+`) of something that can be empty loops without consuming input; make the \
                             repeated part non-empty (`[a]*` or `(a?)*` is just `a*`)",
                            self.name(user)
                        ),
                    );
                }
                diags.push(d);
            }
        }
        if diags.is_empty() {
            Ok(())
        } else {
            Err(GrammarError::new(diags))
        }
    }

    /// The error for left recursion among `members` that could not be
    /// removed, named by a cycle of the input grammar.
    fn unremovable(&self, orig: &Work, members: &[NtId], reason: &str) -> GrammarError {
        let mut owners: Vec<NtId> = members.iter().map(|m| self.owner[m.index()]).collect();
        owners.dedup();
        for &o in &owners {
            if let Some(c) = orig.find_cycle(o, |n| orig.lc_edges(n), |_| true) {
                let d = orig.cycle_diag(DiagnosticKind::LeftRecursion, &c, |cyc| {
                    format!("left recursion `{cyc}` could not be removed: {reason}")
                });
                return GrammarError::new(vec![d]);
            }
        }
        let scope = self.scope_of(members);
        if let Some(c) = self.find_cycle(members[0], |n| self.lc_edges(n), |n| scope[n.index()]) {
            let d = self.cycle_diag(DiagnosticKind::LeftRecursion, &c, |cyc| {
                format!("left recursion `{cyc}` could not be removed: {reason}")
            });
            return GrammarError::new(vec![d]);
        }
        GrammarError::single(
            DiagnosticKind::LeftRecursion,
            self.nts[members[0].index()].span,
            format!(
                "left recursion among {} could not be removed: {reason}",
                self.quoted(members)
            ),
        )
    }

    fn too_large(&self, a: NtId) -> GrammarError {
        GrammarError::single(
            DiagnosticKind::TooLarge,
            self.nts[a.index()].span,
            format!(
                "removing left recursion in `{}` would grow the grammar past {} productions or {} symbols \
                 (it had {} productions); rewrite the left-recursive rules by hand",
                self.name(a),
                self.limits.max_productions,
                self.limits.max_symbols,
                self.g.productions.len()
            ),
        )
    }

    fn process_scc(
        &mut self,
        orig: &Work,
        members: &[NtId],
        out: &mut Vec<Rewrite>,
    ) -> Result<(), GrammarError> {
        let mut scope = self.scope_of(members);
        let cycles: Vec<String> = members
            .iter()
            .map(|&m| {
                self.find_cycle(m, |n| self.lc_edges(n), |n| scope[n.index()])
                    .map(|c| self.cycle_names(&c))
                    .unwrap_or_default()
            })
            .collect();
        // Members already processed, and the tails made for them.
        let mut done = vec![false; self.len()];
        for (i, &a) in members.iter().enumerate() {
            let mut substituted: Vec<NtId> = Vec::new();
            let mut hidden: Vec<NtId> = Vec::new();
            let mut steps = 0;
            loop {
                let reach = self.reaching(a, &scope);
                let pick = self.alts[a.index()]
                    .iter()
                    .enumerate()
                    .find_map(|(k, alt)| {
                        let Some(&Symbol::N(n)) = alt.rhs.first() else {
                            return None;
                        };
                        if n == a || self.frozen(n) {
                            return None;
                        }
                        if done[n.index()] && reach[n.index()] {
                            return Some((k, n, false));
                        }
                        // A member not processed yet may itself be
                        // left-recursive: expanding it would not converge.
                        // Its turn (or the next round) deals with it.
                        if self.nullable[n.index()]
                            && (!scope[n.index()] || done[n.index()])
                            && self.leads_to(&alt.rhs[1..], |m| m == a || reach[m.index()])
                        {
                            return Some((k, n, true));
                        }
                        None
                    });
                let Some((k, n, is_hidden)) = pick else { break };
                steps += 1;
                if steps > MAX_STEPS_PER_RULE {
                    return Err(self.unremovable(
                        orig,
                        members,
                        "substituting the rules involved does not converge; rewrite them by hand",
                    ));
                }
                self.expand_alt(a, k, n);
                if self.over_limits() {
                    return Err(self.too_large(a));
                }
                let list = if is_hidden {
                    &mut hidden
                } else {
                    &mut substituted
                };
                if !list.contains(&n) {
                    list.push(n);
                }
            }
            let tail = self.remove_direct(orig, members, a)?;
            scope.resize(self.len(), false);
            done.resize(self.len(), false);
            if let Some(t) = tail {
                scope[t.index()] = true;
                done[t.index()] = true;
            }
            done[a.index()] = true;
            if tail.is_some() || !substituted.is_empty() || !hidden.is_empty() {
                out.push(self.lr_rewrite(a, tail, &substituted, &hidden, &cycles[i]));
            }
        }
        Ok(())
    }

    /// `A: A α | β` → `A: β A'; A': α A' | <empty>`. None if `a` has no
    /// alternative starting with itself.
    fn remove_direct(
        &mut self,
        orig: &Work,
        members: &[NtId],
        a: NtId,
    ) -> Result<Option<NtId>, GrammarError> {
        let (rec, base): (Vec<Alt>, Vec<Alt>) = self.alts[a.index()]
            .iter()
            .cloned()
            .partition(|x| x.rhs.first() == Some(&Symbol::N(a)));
        if rec.is_empty() {
            return Ok(None);
        }
        if base.is_empty() {
            return Err(self.unremovable(
                orig,
                members,
                &format!(
                    "every alternative of `{}` starts with `{}` itself",
                    self.name(a),
                    self.name(a)
                ),
            ));
        }
        if rec.iter().any(|x| self.seq_nullable(&x.rhs[1..])) {
            return Err(self.unremovable(
                orig,
                members,
                &format!(
                    "`{}` can derive itself with nothing around it",
                    self.name(a)
                ),
            ));
        }
        let t = self.fresh(a, "lr");
        self.nullable[t.index()] = true;
        let new_a = base
            .into_iter()
            .map(|b| {
                let mut rhs = b.rhs;
                rhs.push(Symbol::N(t));
                Alt {
                    rhs,
                    alias: b.alias,
                    span: b.span,
                }
            })
            .collect();
        let eps_span = rec[0].span;
        let mut new_t: Vec<Alt> = rec
            .into_iter()
            .map(|r| {
                let mut rhs = r.rhs[1..].to_vec();
                rhs.push(Symbol::N(t));
                Alt {
                    rhs,
                    alias: r.alias,
                    span: r.span,
                }
            })
            .collect();
        new_t.push(Alt {
            rhs: Vec::new(),
            alias: None,
            span: eps_span,
        });
        self.set_alts(a, new_a);
        self.set_alts(t, new_t);
        if self.over_limits() {
            return Err(self.too_large(a));
        }
        Ok(Some(t))
    }

    fn lr_rewrite(
        &self,
        a: NtId,
        tail: Option<NtId>,
        substituted: &[NtId],
        hidden: &[NtId],
        cycle: &str,
    ) -> Rewrite {
        let mut now = self.show_rule(a);
        if let Some(t) = tail {
            now = format!("{now}; {}", self.show_rule(t));
        }
        let name = self.name(a);
        let (kind, message) = if !hidden.is_empty() {
            let mut how = format!(
                "expanded nullable {} at the start of its alternatives",
                self.quoted(hidden)
            );
            if !substituted.is_empty() {
                how = format!("{how} and substituted {}", self.quoted(substituted));
            }
            (
                RewriteKind::HiddenLeftRecursion,
                format!("removed hidden left recursion in `{name}` ({cycle}): {how}; now {now}"),
            )
        } else if !substituted.is_empty() {
            (
                RewriteKind::IndirectLeftRecursion,
                format!(
                    "removed indirect left recursion in `{name}` ({cycle}): substituted {} at the start of its alternatives; now {now}",
                    self.quoted(substituted)
                ),
            )
        } else {
            (
                RewriteKind::LeftRecursion,
                format!("removed direct left recursion in `{name}`: {now}"),
            )
        };
        Rewrite {
            kind,
            rule: name.to_string(),
            message,
            span: self.nts[a.index()]
                .span
                .or_else(|| self.alts[a.index()].first().and_then(|x| x.span)),
            new_rules: tail.map(|t| self.name(t).to_string()).into_iter().collect(),
            tail: tail.map(|t| self.name(t).to_string()),
        }
    }

    // ----- left factoring -------------------------------------------------

    /// The grammar as it stands, every rule kept (for FIRST/FOLLOW).
    /// Rules that dead rules (see [`Work::live`]) do not contribute to.
    fn sets(&self) -> Sets {
        let live = self.live();
        let mut g = self.to_grammar(None);
        g.productions.retain(|p| live[p.lhs.index()]);
        Sets::new(&g)
    }

    /// Factors every group of alternatives of `a` that start with the same
    /// symbol and conflict. Returns whether `a` changed and the new rules.
    fn factor_rule(&mut self, a: NtId, sets: &Sets, out: &mut Vec<Rewrite>) -> (bool, Vec<NtId>) {
        let known = sets.first.len();
        let alts = self.alts[a.index()].clone();
        if a.index() >= known
            || self.frozen(a)
            || alts.iter().any(|x| {
                x.rhs
                    .iter()
                    .any(|s| matches!(s, Symbol::N(n) if n.index() >= known))
            })
        {
            return (false, Vec::new());
        }
        let predicts: Vec<TermSet> = alts.iter().map(|x| predict(sets, a, &x.rhs)).collect();
        let mut firsts: Vec<Symbol> = Vec::new();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (i, x) in alts.iter().enumerate() {
            let Some(&f) = x.rhs.first() else { continue };
            match firsts.iter().position(|&s| s == f) {
                Some(j) => groups[j].push(i),
                None => {
                    firsts.push(f);
                    groups.push(vec![i]);
                }
            }
        }
        let mut removed = vec![false; alts.len()];
        let mut replaced: Vec<Option<Alt>> = vec![None; alts.len()];
        let mut new_nts = Vec::new();
        let mut changed = false;
        for group in groups {
            let conflicting = group.iter().enumerate().any(|(x, &i)| {
                group[x + 1..]
                    .iter()
                    .any(|&j| predicts[i].intersects(&predicts[j]))
            });
            if group.len() < 2 || !conflicting {
                continue;
            }
            let mut uniq: Vec<usize> = Vec::new();
            let mut dups = 0;
            for &i in &group {
                if uniq
                    .iter()
                    .any(|&j| alts[j].rhs == alts[i].rhs && alts[j].alias == alts[i].alias)
                {
                    removed[i] = true;
                    dups += 1;
                } else {
                    uniq.push(i);
                }
            }
            if dups > 0 {
                changed = true;
                let first = &alts[group[0]];
                out.push(Rewrite {
                    kind: RewriteKind::DuplicateAlternative,
                    rule: self.name(a).to_string(),
                    message: format!(
                        "removed {dups} repeated alternative(s) of `{}`: each of them is the same as another alternative `{}`",
                        self.name(a),
                        self.show_rhs(&first.rhs)
                    ),
                    span: first.span,
                    new_rules: Vec::new(),
                    tail: None,
                });
            }
            // Alternatives that differ only in their alias stay ambiguous.
            if uniq.len() < 2 || uniq.iter().all(|&i| alts[i].rhs == alts[uniq[0]].rhs) {
                continue;
            }
            let r0 = &alts[uniq[0]].rhs;
            let lcp = uniq[1..]
                .iter()
                .map(|&i| {
                    r0.iter()
                        .zip(&alts[i].rhs)
                        .take_while(|(x, y)| x == y)
                        .count()
                })
                .min()
                .expect("at least two alternatives");
            let prefix = r0[..lcp].to_vec();
            let t = self.fresh(a, "lf");
            let tail_alts: Vec<Alt> = uniq
                .iter()
                .map(|&i| Alt {
                    rhs: alts[i].rhs[lcp..].to_vec(),
                    alias: alts[i].alias.clone(),
                    span: alts[i].span,
                })
                .collect();
            self.nullable[t.index()] = tail_alts.iter().any(|x| self.seq_nullable(&x.rhs));
            self.set_alts(t, tail_alts);
            let mut rhs = prefix.clone();
            rhs.push(Symbol::N(t));
            let was: Vec<String> = uniq
                .iter()
                .map(|&i| format!("`{}`", self.show_rhs(&alts[i].rhs)))
                .collect();
            out.push(Rewrite {
                kind: RewriteKind::LeftFactoring,
                rule: self.name(a).to_string(),
                message: format!(
                    "left-factored `{}`: the alternatives {} share the prefix `{}`; now {} -> {}; {}",
                    self.name(a),
                    was.join(", "),
                    self.show_rhs(&prefix),
                    self.name(a),
                    self.show_rhs(&rhs),
                    self.show_rule(t)
                ),
                span: alts[uniq[0]].span,
                new_rules: vec![self.name(t).to_string()],
                tail: None,
            });
            replaced[uniq[0]] = Some(Alt {
                rhs,
                alias: None,
                span: alts[uniq[0]].span,
            });
            for &i in &uniq[1..] {
                removed[i] = true;
            }
            new_nts.push(t);
            changed = true;
        }
        if changed {
            let new = alts
                .into_iter()
                .enumerate()
                .filter(|(i, _)| !removed[*i])
                .map(|(i, x)| replaced[i].take().unwrap_or(x))
                .collect();
            self.set_alts(a, new);
        }
        (changed, new_nts)
    }

    fn rule_is_ll1(&self, a: NtId, sets: &Sets) -> bool {
        let predicts: Vec<TermSet> = self.alts[a.index()]
            .iter()
            .map(|x| predict(sets, a, &x.rhs))
            .collect();
        predicts
            .iter()
            .enumerate()
            .all(|(i, p)| predicts[i + 1..].iter().all(|q| !p.intersects(q)))
    }

    /// Expands the leading rules of `a`'s conflicting alternatives one level
    /// and factors; keeps the result only if `a` and the rules made for it
    /// are LL(1).
    fn try_expand(&mut self, a: NtId, sets: &Sets, out: &mut Vec<Rewrite>) -> bool {
        let known = sets.first.len();
        let alts = &self.alts[a.index()];
        if a.index() >= known
            || self.frozen(a)
            || alts.iter().any(|x| {
                x.rhs
                    .iter()
                    .any(|s| matches!(s, Symbol::N(n) if n.index() >= known))
            })
        {
            return false;
        }
        let predicts: Vec<TermSet> = alts.iter().map(|x| predict(sets, a, &x.rhs)).collect();
        let mut conflicting = vec![false; alts.len()];
        for i in 0..alts.len() {
            for j in i + 1..alts.len() {
                if predicts[i].intersects(&predicts[j]) {
                    conflicting[i] = true;
                    conflicting[j] = true;
                }
            }
        }
        let cands: Vec<(usize, NtId)> = (0..alts.len())
            .filter(|&i| conflicting[i])
            .filter_map(|i| match alts[i].rhs.first() {
                Some(&Symbol::N(m))
                    if m != a && !self.alts[m.index()].is_empty() && !self.frozen(m) =>
                {
                    Some((i, m))
                }
                _ => None,
            })
            .collect();
        if cands.is_empty() {
            return false;
        }
        let mut trial = self.clone();
        for &(i, m) in cands.iter().rev() {
            trial.expand_alt(a, i, m);
        }
        if trial.over_limits()
            || trial.alts[a.index()]
                .iter()
                .any(|x| x.rhs.first() == Some(&Symbol::N(a)))
        {
            return false;
        }
        let mut local = vec![a];
        let mut log = Vec::new();
        for _ in 0..MAX_LOCAL_PASSES {
            let s = trial.sets();
            let mut changed = false;
            for x in local.clone() {
                let (c, new) = trial.factor_rule(x, &s, &mut log);
                changed |= c;
                local.extend(new);
            }
            if !changed || trial.over_limits() {
                break;
            }
        }
        if trial.over_limits() {
            return false;
        }
        let s = trial.sets();
        if !local.iter().all(|&x| trial.rule_is_ll1(x, &s)) {
            return false;
        }
        let mut expanded: Vec<NtId> = cands.iter().map(|&(_, m)| m).collect();
        expanded.sort_unstable();
        expanded.dedup();
        let now: Vec<String> = local.iter().map(|&x| trial.show_rule(x)).collect();
        out.push(Rewrite {
            kind: RewriteKind::Expansion,
            rule: self.name(a).to_string(),
            message: format!(
                "expanded {} in place at the start of `{}`'s alternatives, whose lookaheads overlapped, so that their \
                 common prefixes could be factored out (the expanded rules no longer show as nodes there); now {}",
                self.quoted(&expanded),
                self.name(a),
                now.join("; ")
            ),
            span: self.nts[a.index()].span.or_else(|| self.alts[a.index()].first().and_then(|x| x.span)),
            new_rules: local[1..].iter().map(|&x| trial.name(x).to_string()).collect(),
            tail: None,
        });
        out.extend(log);
        *self = trial;
        true
    }

    fn left_factor(&mut self, out: &mut Vec<Rewrite>) {
        let mut tried: Vec<bool> = Vec::new();
        for _ in 0..MAX_FACTOR_PASSES {
            let sets = self.sets();
            let n = self.len();
            let mut changed = false;
            let live = self.live();
            for a in (0..n).filter(|&a| live[a]) {
                if self.over_limits() {
                    return;
                }
                changed |= self.factor_rule(NtId(a as u32), &sets, out).0;
            }
            if changed {
                continue;
            }
            tried.resize(self.len(), false);
            let mut live = self.live();
            for a in 0..n {
                if !tried[a] && live[a] {
                    tried[a] = true;
                    if self.try_expand(NtId(a as u32), &sets, out) {
                        changed = true;
                        live = self.live();
                    }
                }
            }
            if !changed {
                return;
            }
        }
    }

    // ----- output ---------------------------------------------------------

    /// [`Work::live`], reporting the input rules that are not.
    fn prune(&self, out: &mut Vec<Rewrite>) -> Vec<bool> {
        let keep = self.live();
        for i in (0..self.g.nonterminals.len()).filter(|&i| !keep[i]) {
            let name = &self.nts[i].name;
            out.push(Rewrite {
                kind: RewriteKind::RemovedRule,
                rule: name.clone(),
                message: format!(
                    "removed rule `{name}`: after the rewrites above substituted it where it was used, nothing refers to it"
                ),
                span: self.nts[i].span,
                new_rules: Vec::new(),
                tail: None,
            });
        }
        keep
    }

    /// The rules to keep: those reachable from the start, the input's
    /// unreachable rules (not ours to judge), and what they use.
    fn live(&self) -> Vec<bool> {
        let n = self.len();
        let n_orig = self.g.nonterminals.len();
        let orig_reach = analysis::reachable(self.g);
        let mut keep = vec![false; n];
        let mut stack = vec![self.g.start];
        keep[self.g.start.index()] = true;
        for i in 0..n_orig {
            if !orig_reach[i] && !keep[i] {
                keep[i] = true;
                stack.push(NtId(i as u32));
            }
        }
        while let Some(x) = stack.pop() {
            for alt in &self.alts[x.index()] {
                for s in &alt.rhs {
                    if let Symbol::N(m) = *s {
                        if !keep[m.index()] {
                            keep[m.index()] = true;
                            stack.push(m);
                        }
                    }
                }
            }
        }
        keep
    }

    fn to_grammar(&self, keep: Option<&[bool]>) -> Grammar {
        let n = self.len();
        let mut remap: Vec<Option<NtId>> = vec![None; n];
        let mut nonterminals = Vec::new();
        for i in 0..n {
            if keep.is_none_or(|k| k[i]) {
                remap[i] = Some(NtId(nonterminals.len() as u32));
                nonterminals.push(self.nts[i].clone());
            }
        }
        let mut productions = Vec::with_capacity(self.n_prods);
        for &a in &self.emit_order {
            let Some(lhs) = remap[a.index()] else {
                continue;
            };
            for alt in &self.alts[a.index()] {
                let rhs = alt
                    .rhs
                    .iter()
                    .map(|s| match *s {
                        Symbol::N(m) => Symbol::N(
                            remap[m.index()].expect("kept rules refer to kept rules only"),
                        ),
                        t => t,
                    })
                    .collect();
                productions.push(Production {
                    lhs,
                    rhs,
                    alias: alt.alias.clone(),
                    span: alt.span,
                });
            }
        }
        let kept = |n: NtId| remap[n.index()].expect("member-set rules use each other");
        let member_sets = (self.g.member_sets.iter())
            .filter(|m| remap[m.list.index()].is_some())
            .map(|m| MemberSet {
                list: kept(m.list),
                more: kept(m.more),
                next: kept(m.next),
                members: m.members.iter().map(|&(n, r)| (kept(n), r)).collect(),
                repeatable: m.repeatable.iter().map(|&n| kept(n)).collect(),
                ..m.clone()
            })
            .collect();
        Grammar {
            terminals: self.g.terminals.clone(),
            nonterminals,
            productions,
            start: remap[self.g.start.index()].expect("the start rule is kept"),
            member_sets,
        }
    }

    /// The result: the input itself when nothing changed, else the rewritten
    /// grammar without the rules the rewrites left unused.
    fn finish(self, mut rewrites: Vec<Rewrite>) -> (Grammar, Vec<Rewrite>) {
        if rewrites.is_empty() {
            return (self.g.clone(), rewrites);
        }
        let keep = self.prune(&mut rewrites);
        (self.to_grammar(Some(&keep)), rewrites)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::error::Pos;
    use crate::grammar::{Alternative, Expr, GrammarBuilder, TerminalPattern};

    /// `'x'` is a literal, an all-caps word a regex terminal, anything else
    /// a rule name.
    fn expr(tok: &str) -> Expr {
        if let Some(lit) = tok.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
            Expr::literal(lit)
        } else {
            Expr::name(tok)
        }
    }

    fn seq(alt: &str) -> Expr {
        Expr::seq(alt.split_whitespace().map(expr).collect())
    }

    /// Rules as `("name", &["alt one", "alt two", ""])`; the first is the start.
    fn grammar(rules: &[(&str, &[&str])]) -> Grammar {
        let mut b = GrammarBuilder::new();
        for (_, alts) in rules {
            for alt in alts.iter() {
                for tok in alt.split_whitespace() {
                    if tok.chars().all(|c| c.is_ascii_uppercase()) && !b.has_terminal(tok) {
                        b.terminal(tok, TerminalPattern::Regex("[0-9]+".into()));
                    }
                }
            }
        }
        for (name, alts) in rules {
            b.rule(name, alts.iter().map(|a| seq(a)).collect());
        }
        b.start(rules[0].0);
        b.build().expect("test grammar builds")
    }

    fn span(line: u32) -> Option<Span> {
        Some(Span {
            start: Pos { line, col: 1 },
            end: Pos { line, col: 10 },
            byte_start: line as usize * 100,
            byte_end: line as usize * 100 + 9,
        })
    }

    /// Every terminal string of length <= `max` the start rule derives
    /// (least fixpoint of the rules on length-bounded string sets).
    fn language(g: &Grammar, max: usize) -> BTreeSet<Vec<u32>> {
        let mut lang: Vec<BTreeSet<Vec<u32>>> = vec![BTreeSet::new(); g.nonterminals.len()];
        loop {
            let mut changed = false;
            for p in &g.productions {
                let mut acc: BTreeSet<Vec<u32>> = BTreeSet::from([Vec::new()]);
                for s in &p.rhs {
                    let items: Vec<Vec<u32>> = match s {
                        Symbol::T(t) => vec![vec![t.0]],
                        Symbol::N(n) => lang[n.index()].iter().cloned().collect(),
                    };
                    let mut next = BTreeSet::new();
                    for x in &acc {
                        for y in &items {
                            if x.len() + y.len() <= max {
                                let mut w = x.clone();
                                w.extend(y);
                                next.insert(w);
                            }
                        }
                    }
                    acc = next;
                }
                for w in acc {
                    changed |= lang[p.lhs.index()].insert(w);
                }
            }
            if !changed {
                return lang[g.start.index()].clone();
            }
        }
    }

    fn kinds(r: &[Rewrite]) -> Vec<RewriteKind> {
        r.iter().map(|r| r.kind).collect()
    }

    fn rule_text(g: &Grammar, name: &str) -> Vec<String> {
        let n = g
            .nonterminals
            .iter()
            .position(|n| n.name == name)
            .expect("rule exists");
        g.productions_of(NtId(n as u32))
            .map(|(p, _)| g.display_production(p))
            .collect()
    }

    fn assert_same_language(a: &Grammar, b: &Grammar, max: usize) {
        assert_eq!(
            language(a, max),
            language(b, max),
            "languages differ up to length {max}"
        );
    }

    fn arithmetic() -> Grammar {
        grammar(&[
            ("expr", &["expr '+' term", "term"]),
            ("term", &["term '*' factor", "factor"]),
            ("factor", &["'(' expr ')'", "NUM"]),
        ])
    }

    #[test]
    fn arithmetic_becomes_ll1() {
        let g = arithmetic();
        assert!(analysis::analyze(&g).is_err());
        let (h, report) = make_ll1(&g).unwrap();
        analysis::analyze(&h).expect("LL(1) after the transform");
        assert_eq!(
            kinds(&report.rewrites),
            [RewriteKind::LeftRecursion, RewriteKind::LeftRecursion]
        );
        let expr = report.rewrites.iter().find(|r| r.rule == "expr").unwrap();
        let tail = expr.tail.clone().unwrap();
        assert!(tail.starts_with("expr__lr"), "{tail}");
        assert_eq!(
            expr.message,
            format!("removed direct left recursion in `expr`: expr -> term {tail}; {tail} -> \"+\" term {tail} | <empty>")
        );
        assert_eq!(rule_text(&h, "expr"), [format!("expr: term {tail}")]);
        let t = h.nonterminals.iter().find(|n| n.name == tail).unwrap();
        assert_eq!(t.kind, RuleKind::Generated);
        assert_eq!(report.tails().count(), 2);
        assert!(report.tails().any(|(r, t)| r == "expr" && t == tail));
        assert!(find_left_recursion(&h).is_none());
        assert_same_language(&g, &h, 7);
    }

    #[test]
    fn several_recursive_and_base_alternatives_keep_order() {
        let g = grammar(&[("e", &["e '+' 'n'", "'n'", "e '-' 'n'", "'(' e ')'"])]);
        let (h, report) = make_ll1(&g).unwrap();
        analysis::analyze(&h).unwrap();
        let t = report.rewrites[0].tail.clone().unwrap();
        assert_eq!(
            rule_text(&h, "e"),
            [format!("e: \"n\" {t}"), format!("e: \"(\" e \")\" {t}")]
        );
        assert_eq!(
            rule_text(&h, &t),
            [
                format!("{t}: \"+\" \"n\" {t}"),
                format!("{t}: \"-\" \"n\" {t}"),
                format!("{t}: <empty>")
            ]
        );
        assert_same_language(&g, &h, 7);
    }

    #[test]
    fn spans_and_aliases_follow_the_alternatives() {
        let mut b = GrammarBuilder::new();
        let alt = |e: &str, alias: Option<&str>, line| Alternative {
            expr: seq(e),
            alias: alias.map(str::to_string),
            span: span(line),
        };
        b.rule_full(
            "sum",
            RuleKind::Normal,
            vec![
                alt("sum '+' 'n'", Some("add"), 2),
                alt("'n'", Some("num"), 3),
            ],
            span(1),
        );
        let g = b.build().unwrap();
        let (h, report) = make_ll1(&g).unwrap();
        analysis::analyze(&h).unwrap();
        let t = report.rewrites[0].tail.clone().unwrap();
        let sum = &h.productions[h
            .productions
            .iter()
            .position(|p| h.nonterminal(p.lhs).name == "sum")
            .unwrap()];
        assert_eq!((sum.alias.as_deref(), sum.span), (Some("num"), span(3)));
        let tail: Vec<&Production> = h
            .productions
            .iter()
            .filter(|p| h.nonterminal(p.lhs).name == t)
            .collect();
        assert_eq!(
            (tail[0].alias.as_deref(), tail[0].span),
            (Some("add"), span(2))
        );
        assert_eq!(tail[1].rhs, []);
        assert_eq!(report.rewrites[0].span, span(1));
        assert_eq!(
            h.nonterminals.iter().find(|n| n.name == t).unwrap().span,
            span(1)
        );
    }

    #[test]
    fn indirect_left_recursion() {
        let g = grammar(&[("a", &["b 'x'", "'z'"]), ("b", &["a 'y'", "'w'"])]);
        let (h, report) = make_ll1(&g).unwrap();
        analysis::analyze(&h).expect("LL(1)");
        assert_eq!(
            kinds(&report.rewrites),
            [RewriteKind::IndirectLeftRecursion, RewriteKind::RemovedRule]
        );
        let r = &report.rewrites[0];
        // The entry rule `a` absorbs `b`, which is then unused.
        assert_eq!(r.rule, "a");
        assert!(r.message.contains("(a -> b -> a)"), "{}", r.message);
        assert!(r.message.contains("substituted `b`"), "{}", r.message);
        let t = r.tail.clone().unwrap();
        assert_eq!(
            rule_text(&h, "a"),
            [format!("a: \"w\" \"x\" {t}"), format!("a: \"z\" {t}")]
        );
        assert_eq!(report.rewrites[1].rule, "b");
        assert!(h.nonterminals.iter().all(|n| n.name != "b"));
        assert_same_language(&g, &h, 8);

        // When `b` is used elsewhere too it stays.
        let g = grammar(&[
            ("s", &["a", "'u' b"]),
            ("a", &["b 'x'", "'z'"]),
            ("b", &["a 'y'", "'w'"]),
        ]);
        let (h, report) = make_ll1(&g).unwrap();
        assert_eq!(report.rewrites[0].kind, RewriteKind::IndirectLeftRecursion);
        assert!(report
            .rewrites
            .iter()
            .all(|r| r.kind != RewriteKind::RemovedRule));
        assert!(find_left_recursion(&h).is_none());
        assert_same_language(&g, &h, 8);
    }

    #[test]
    fn indirect_left_recursion_through_three_rules() {
        let g = grammar(&[
            ("s", &["a 'end'"]),
            ("a", &["b 'x'", "'p'"]),
            ("b", &["c 'y'", "'q'"]),
            ("c", &["a 'z'", "'r'"]),
        ]);
        let (h, report) = make_ll1(&g).unwrap();
        analysis::analyze(&h).expect("LL(1)");
        assert!(report
            .rewrites
            .iter()
            .any(|r| r.kind == RewriteKind::IndirectLeftRecursion));
        assert!(find_left_recursion(&h).is_none());
        assert_same_language(&g, &h, 9);
    }

    #[test]
    fn only_left_recursive_components_are_touched() {
        let g = grammar(&[
            ("s", &["list ';' other"]),
            ("list", &["list ',' 'i'", "'i'"]),
            ("other", &["'a' other", "'b'"]),
        ]);
        let (h, report) = make_ll1(&g).unwrap();
        analysis::analyze(&h).unwrap();
        assert_eq!(report.rewrites.len(), 1);
        assert_eq!(rule_text(&h, "s"), rule_text(&g, "s"));
        assert_eq!(rule_text(&h, "other"), rule_text(&g, "other"));
    }

    #[test]
    fn hidden_left_recursion_through_nullable_prefix() {
        let g = grammar(&[("a", &["b a 'x'", "'y'"]), ("b", &["'b'", ""])]);
        assert!(find_left_recursion(&g).is_some());
        let (h, report) = make_ll1(&g).unwrap();
        assert_eq!(report.rewrites[0].kind, RewriteKind::HiddenLeftRecursion);
        assert!(
            report.rewrites[0].message.contains("nullable `b`"),
            "{}",
            report.rewrites[0].message
        );
        assert!(find_left_recursion(&h).is_none());
        assert_same_language(&g, &h, 8);
        // The language (b^n y x^m, m >= n) is not LL(1); the conflict stays.
        let e = analysis::analyze(&h).unwrap_err();
        assert!(
            e.diagnostics()
                .iter()
                .all(|d| d.kind == DiagnosticKind::Conflict),
            "{e}"
        );
    }

    #[test]
    fn left_recursion_with_empty_base() {
        let g = grammar(&[("s", &["items 'end'"]), ("items", &["items 'i'", ""])]);
        let (h, _) = make_ll1(&g).unwrap();
        analysis::analyze(&h).unwrap();
        assert_same_language(&g, &h, 6);
    }

    #[test]
    fn left_recursion_uncovered_among_new_rules() {
        // a: a a 'x' | <empty>: the first tail is `a 'x' tail` and `a` is
        // nullable, so the tail is left-recursive through `a`.
        let g = grammar(&[("s", &["a 'end'"]), ("a", &["a a 'x'", ""])]);
        let (h, _) = make_ll1(&g).unwrap();
        assert!(find_left_recursion(&h).is_none());
        assert_same_language(&g, &h, 7);

        let g = grammar(&[
            ("s", &["a 'end'"]),
            ("a", &["a b", ""]),
            ("b", &["a 'c'", "'d'"]),
        ]);
        let (h, _) = make_ll1(&g).unwrap();
        assert!(find_left_recursion(&h).is_none());
        assert_same_language(&g, &h, 7);
    }

    #[test]
    fn cycles_are_errors_naming_the_cycle() {
        let mut b = GrammarBuilder::new();
        let alt = |e: &str, line| Alternative {
            expr: seq(e),
            alias: None,
            span: span(line),
        };
        b.rule_full(
            "a",
            RuleKind::Normal,
            vec![alt("b", 1), alt("'x'", 2)],
            None,
        );
        b.rule_full(
            "b",
            RuleKind::Normal,
            vec![alt("a", 3), alt("'y'", 4)],
            None,
        );
        let g = b.build().unwrap();
        let e = make_ll1(&g).unwrap_err();
        assert_eq!(e.kind(), DiagnosticKind::LeftRecursion);
        let d = &e.diagnostics()[0];
        assert!(d.message.contains("`a -> b -> a`"), "{}", d.message);
        assert_eq!(d.span, span(1));
        assert_eq!(d.notes.len(), 2);
        assert!(remove_left_recursion(&g).is_err());

        // a: a b with b nullable: a =>+ a.
        let g = grammar(&[("a", &["a b", "'x'"]), ("b", &["'y'", ""])]);
        let e = make_ll1(&g).unwrap_err();
        assert_eq!(e.kind(), DiagnosticKind::LeftRecursion);
        assert!(e.diagnostics()[0].message.contains("`a -> a`"), "{e}");
    }

    #[test]
    fn repetition_of_nullable_sugar_is_a_cycle_explained_at_the_user_rule() {
        // s: ("a"? "c"?)* "b" -- the star's body can be empty. (Desugaring
        // strips `(x?)*` to `x*` itself, but not a sequence of optionals.)
        let mut b = GrammarBuilder::new();
        let body = Expr::seq(vec![
            Expr::star(Expr::seq(vec![
                Expr::opt(Expr::literal("a")),
                Expr::opt(Expr::literal("c")),
            ])),
            Expr::literal("b"),
        ]);
        b.rule_full(
            "s",
            RuleKind::Normal,
            vec![Alternative {
                expr: body,
                alias: None,
                span: span(7),
            }],
            None,
        );
        let g = b.build().unwrap();
        let e = make_ll1(&g).unwrap_err();
        assert_eq!(e.kind(), DiagnosticKind::LeftRecursion);
        let d = &e.diagnostics()[0];
        assert_eq!(d.span, span(7));
        let hint = &d.notes.last().unwrap();
        assert_eq!(hint.0, span(7));
        assert!(hint.1.contains("EBNF sugar in rule `s`"), "{}", hint.1);
    }

    #[test]
    fn endless_left_recursion_is_unproductive() {
        let g = grammar(&[("s", &["a", "'z'"]), ("a", &["a 'x'"])]);
        let e = make_ll1(&g).unwrap_err();
        assert_eq!(e.kind(), DiagnosticKind::Unproductive);
        assert!(
            e.to_string()
                .contains("rule `a` is left-recursive (a -> a)"),
            "{e}"
        );
    }

    #[test]
    fn common_prefix_is_factored_and_dangling_else_stays_a_conflict() {
        let g = grammar(&[
            (
                "stmt",
                &[
                    "'if' e 'then' stmt",
                    "'if' e 'then' stmt 'else' stmt",
                    "'go'",
                ],
            ),
            ("e", &["'c'"]),
        ]);
        let (h, report) = make_ll1(&g).unwrap();
        assert_eq!(kinds(&report.rewrites), [RewriteKind::LeftFactoring]);
        let f = report.rewrites[0].new_rules[0].clone();
        assert_eq!(
            rule_text(&h, "stmt"),
            [
                format!("stmt: \"if\" e \"then\" stmt {f}"),
                "stmt: \"go\"".to_string()
            ]
        );
        assert_eq!(
            rule_text(&h, &f),
            [format!("{f}: <empty>"), format!("{f}: \"else\" stmt")]
        );
        let e = analysis::analyze(&h).unwrap_err();
        assert_eq!(e.kind(), DiagnosticKind::Conflict);
        assert!(e.to_string().contains("\"else\""), "{e}");
        assert_same_language(&g, &h, 8);
    }

    #[test]
    fn nested_prefixes_factor_repeatedly() {
        let g = grammar(&[(
            "s",
            &["'a' 'b' 'c'", "'a' 'b' 'd'", "'a' 'e'", "'a'", "'f'"],
        )]);
        let (h, report) = make_ll1(&g).unwrap();
        analysis::analyze(&h).unwrap();
        assert_eq!(
            kinds(&report.rewrites),
            [RewriteKind::LeftFactoring, RewriteKind::LeftFactoring]
        );
        assert_same_language(&g, &h, 4);
        assert!(h
            .nonterminals
            .iter()
            .all(|n| n.name == "s" || n.kind == RuleKind::Generated));
    }

    #[test]
    fn left_recursion_then_factoring() {
        let g = grammar(&[("e", &["e '+' 'n'", "e '+' '(' e ')'", "'n'"])]);
        let (h, report) = make_ll1(&g).unwrap();
        analysis::analyze(&h).unwrap();
        assert_eq!(
            kinds(&report.rewrites),
            [RewriteKind::LeftRecursion, RewriteKind::LeftFactoring]
        );
        assert_same_language(&g, &h, 9);
    }

    #[test]
    fn duplicate_alternatives_are_merged() {
        let g = grammar(&[("s", &["'a' 'b'", "'a' 'b'", "'c'"])]);
        let (h, report) = make_ll1(&g).unwrap();
        analysis::analyze(&h).unwrap();
        assert_eq!(kinds(&report.rewrites), [RewriteKind::DuplicateAlternative]);
        assert_eq!(rule_text(&h, "s"), ["s: \"a\" \"b\"", "s: \"c\""]);
    }

    #[test]
    fn expansion_resolves_conflicts_between_rules() {
        let g = grammar(&[
            ("stmt", &["assign", "call", "'return'"]),
            ("assign", &["NAME '=' NAME"]),
            ("call", &["NAME '(' ')'"]),
        ]);
        let (h, report) = make_ll1(&g).unwrap();
        analysis::analyze(&h).expect("LL(1) after expansion");
        let k = kinds(&report.rewrites);
        assert_eq!(k[0], RewriteKind::Expansion);
        assert!(k.contains(&RewriteKind::LeftFactoring));
        let removed: Vec<&str> = report
            .rewrites
            .iter()
            .filter(|r| r.kind == RewriteKind::RemovedRule)
            .map(|r| r.rule.as_str())
            .collect();
        assert_eq!(removed, ["assign", "call"]);
        assert!(
            report.rewrites[0].message.contains("`assign`, `call`"),
            "{}",
            report.rewrites[0].message
        );
        assert_same_language(&g, &h, 4);
    }

    #[test]
    fn expansion_that_does_not_help_is_not_done() {
        // `a` and `b` both begin with 'x' and differ only later inside
        // recursive rules: one level of expansion leaves a conflict.
        let g = grammar(&[
            ("s", &["a", "b"]),
            ("a", &["'x' a", "'y'"]),
            ("b", &["'x' b", "'z'"]),
        ]);
        let (h, report) = make_ll1(&g).unwrap();
        assert!(report.is_empty(), "{report}");
        assert_eq!(h, g);
    }

    #[test]
    fn ll1_grammar_is_unchanged() {
        let g = grammar(&[
            ("value", &["object", "array", "'s'", "NUM", "'true'"]),
            ("object", &["'{' members '}'"]),
            ("members", &["member more", ""]),
            ("more", &["',' member more", ""]),
            ("member", &["'s' ':' value"]),
            ("array", &["'[' elems ']'"]),
            ("elems", &["value elems_more", ""]),
            ("elems_more", &["',' value elems_more", ""]),
        ]);
        analysis::analyze(&g).unwrap();
        let (h, report) = make_ll1(&g).unwrap();
        assert_eq!(h, g);
        assert!(report.is_empty());
        assert_eq!(remove_left_recursion(&g).unwrap(), (g.clone(), vec![]));
        assert_eq!(left_factor(&g), (g.clone(), vec![]));
        // The arithmetic result is LL(1) too, so a second run changes nothing.
        let (h, _) = make_ll1(&arithmetic()).unwrap();
        let (h2, report) = make_ll1(&h).unwrap();
        assert_eq!((h2, report.is_empty()), (h, true));
    }

    #[test]
    fn generated_names_are_unique() {
        let g = grammar(&[
            ("expr", &["expr '+' 'n'", "'n'", "expr__lr1 expr__lf2"]),
            ("expr__lr1", &["'a'"]),
            ("expr__lf2", &["'b'"]),
        ]);
        let (h, _) = make_ll1(&g).unwrap();
        let mut names: Vec<&str> = h.nonterminals.iter().map(|n| n.name.as_str()).collect();
        let before = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), before);
        assert_same_language(&g, &h, 6);
    }

    #[test]
    fn growth_is_limited() {
        let g = grammar(&[
            ("a", &["b 'x'", "'p'", "'q'", "'r'"]),
            ("b", &["a 'y'", "a 'z'", "a 'w'", "'s'"]),
        ]);
        let tight = Limits {
            max_productions: g.productions.len() + 2,
            max_symbols: 1000,
        };
        let e = make_ll1_with_limits(&g, tight).unwrap_err();
        assert_eq!(e.kind(), DiagnosticKind::TooLarge);
        assert!(make_ll1(&g).is_ok());
        let l = Limits::for_grammar(&g);
        assert_eq!((l.max_productions, l.max_symbols), (256, 4096));
    }

    #[test]
    fn unreachable_input_rules_are_kept() {
        let g = grammar(&[("s", &["s 'a'", "'b'"]), ("lost", &["'c'"])]);
        let (h, report) = make_ll1(&g).unwrap();
        assert!(h.nonterminals.iter().any(|n| n.name == "lost"));
        assert!(report
            .rewrites
            .iter()
            .all(|r| r.kind != RewriteKind::RemovedRule));
        assert_eq!(
            analysis::analyze(&h).unwrap_err().kind(),
            DiagnosticKind::Unreachable
        );
    }
}
