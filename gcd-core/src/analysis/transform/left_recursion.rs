//! Left-recursion removal: direct, indirect (Paull's substitution within
//! a component) and hidden behind nullable prefixes, with the errors for
//! the cases no rewrite can fix. See the module docs of
//! [`transform`](super) for the procedure.

use super::left_corner::cyclic_sccs;
use super::work::{Alt, Work};
use super::{Rewrite, RewriteKind};
use crate::analysis;
use crate::error::{DiagnosticKind, GrammarError};
use crate::grammar::{NtId, Symbol};

/// Rounds of whole-graph left-recursion removal before giving up.
const MAX_ROUNDS: usize = 8;
/// Substitutions into one rule in one round before giving up.
const MAX_STEPS_PER_RULE: usize = 4_096;

impl<'g> Work<'g> {
    pub(super) fn remove_left_recursion(
        &mut self,
        out: &mut Vec<Rewrite>,
    ) -> Result<(), GrammarError> {
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
        // Of the rules as they are now: rewrites before this one made rules.
        let productive = analysis::productive(&self.to_grammar(None));
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
}
