//! The grammar while it is being rewritten: alternatives grouped by rule,
//! with nullability, ownership of generated rules and the size counters the
//! [`Limits`] are checked against. Kept apart from the rewrites so that
//! both of them (and the output) share one representation and one way to
//! name, show and grow rules.

use std::collections::HashSet;

use super::Limits;
use crate::analysis;
use crate::error::Span;
use crate::grammar::{Grammar, Nonterminal, NtId, RuleKind, Symbol};

/// One alternative of a rule being rewritten.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Alt {
    pub(super) rhs: Vec<Symbol>,
    pub(super) alias: Option<String>,
    pub(super) span: Option<Span>,
}

/// A grammar being rewritten: alternatives grouped by rule.
#[derive(Clone)]
pub(super) struct Work<'g> {
    pub(super) g: &'g Grammar,
    pub(super) limits: Limits,
    pub(super) nts: Vec<Nonterminal>,
    pub(super) alts: Vec<Vec<Alt>>,
    /// Rewrites keep every rule's language, so this stays exact.
    pub(super) nullable: Vec<bool>,
    /// The input rule a generated rule was made for (itself for input rules).
    pub(super) owner: Vec<NtId>,
    /// Per input rule: whether it is a member set's own rule.
    frozen: Vec<bool>,
    /// The order rules' productions are emitted in: as in the input, then
    /// new rules in creation order.
    pub(super) emit_order: Vec<NtId>,
    names: HashSet<String>,
    pub(super) n_prods: usize,
    n_syms: usize,
}

impl<'g> Work<'g> {
    pub(super) fn new(g: &'g Grammar, limits: Limits) -> Self {
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
    pub(super) fn frozen(&self, a: NtId) -> bool {
        self.frozen.get(a.index()).copied().unwrap_or(false)
    }

    pub(super) fn len(&self) -> usize {
        self.nts.len()
    }

    pub(super) fn name(&self, n: NtId) -> &str {
        &self.nts[n.index()].name
    }

    fn show_sym(&self, s: Symbol) -> String {
        match s {
            Symbol::T(_) => self.g.display_symbol(s),
            Symbol::N(n) => self.name(n).to_string(),
        }
    }

    pub(super) fn show_rhs(&self, rhs: &[Symbol]) -> String {
        if rhs.is_empty() {
            return "<empty>".to_string();
        }
        rhs.iter()
            .map(|s| self.show_sym(*s))
            .collect::<Vec<_>>()
            .join(" ")
    }

    pub(super) fn show_rule(&self, a: NtId) -> String {
        let alts: Vec<String> = self.alts[a.index()]
            .iter()
            .map(|x| self.show_rhs(&x.rhs))
            .collect();
        format!("{} -> {}", self.name(a), alts.join(" | "))
    }

    pub(super) fn quoted(&self, list: &[NtId]) -> String {
        list.iter()
            .map(|n| format!("`{}`", self.name(*n)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    pub(super) fn seq_nullable(&self, seq: &[Symbol]) -> bool {
        seq.iter()
            .all(|s| matches!(s, Symbol::N(n) if self.nullable[n.index()]))
    }

    pub(super) fn set_alts(&mut self, a: NtId, new: Vec<Alt>) {
        let old = std::mem::replace(&mut self.alts[a.index()], new);
        let new = &self.alts[a.index()];
        self.n_prods = self.n_prods + new.len() - old.len();
        self.n_syms = self.n_syms + new.iter().map(|x| x.rhs.len()).sum::<usize>()
            - old.iter().map(|x| x.rhs.len()).sum::<usize>();
    }

    pub(super) fn over_limits(&self) -> bool {
        self.n_prods > self.limits.max_productions || self.n_syms > self.limits.max_symbols
    }

    /// A new Generated rule named after the input rule `from` was made for.
    pub(super) fn fresh(&mut self, from: NtId, suffix: &str) -> NtId {
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
            tight: false,
            span,
        });
        self.alts.push(Vec::new());
        self.nullable.push(false);
        self.owner.push(owner);
        let n = NtId(id as u32);
        self.emit_order.push(n);
        n
    }

    /// Replaces alternative `k` of `a`, which starts with `n`, by one
    /// alternative per alternative of `n`. Keeps the replaced alternative's
    /// alias and span; skips results that `a` already has.
    pub(super) fn expand_alt(&mut self, a: NtId, k: usize, n: NtId) {
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
}
