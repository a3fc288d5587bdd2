//! From the grammar being rewritten back to a [`Grammar`]: which rules are
//! still live, the report of the input rules that were dropped, and the
//! renumbering. Shared by the final result and by left factoring, which
//! needs FIRST/FOLLOW of the grammar as it stands.

use super::work::Work;
use super::{Rewrite, RewriteKind};
use crate::analysis;
use crate::grammar::{Grammar, MemberSet, NtId, Production, Symbol};

impl<'g> Work<'g> {
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
    pub(super) fn live(&self) -> Vec<bool> {
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

    pub(super) fn to_grammar(&self, keep: Option<&[bool]>) -> Grammar {
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
            hints: self.g.hints.clone(),
        }
    }

    /// The result: the input itself when nothing changed, else the rewritten
    /// grammar without the rules the rewrites left unused.
    pub(super) fn finish(self, mut rewrites: Vec<Rewrite>) -> (Grammar, Vec<Rewrite>) {
        if rewrites.is_empty() {
            return (self.g.clone(), rewrites);
        }
        let keep = self.prune(&mut rewrites);
        (self.to_grammar(Some(&keep)), rewrites)
    }
}
