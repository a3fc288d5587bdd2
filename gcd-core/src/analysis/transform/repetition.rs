//! Repetitions of something that can be empty: `(text | tag)*` with `text`
//! nullable desugars to `r: (text | tag) r | <empty>`, where `r` derives
//! itself with nothing around it, a cycle no parser can follow. The
//! language is the same when each iteration must be non-empty
//! (`L(α)* = (L(α) − {ε})*`), so `r: α r` becomes `r: α⁺ r`, with `α⁺`
//! spelled through Generated rules `X__ne` that derive `L(X) − {ε}`.
//! llguidance's grammars (rfc.lark) are written this way.

use std::collections::HashMap;

use super::work::{Alt, Work};
use super::{Rewrite, RewriteKind};
use crate::grammar::{NtId, Symbol};

impl Work<'_> {
    /// Rewrites every `a: α a` with `α` nullable to the non-empty forms of
    /// `α` (see the module docs).
    pub(super) fn non_empty_repetitions(&mut self, out: &mut Vec<Rewrite>) {
        let mut made: HashMap<NtId, NtId> = HashMap::new();
        let some_non_empty = self.derives_non_empty();
        for i in 0..self.len() {
            let a = NtId(i as u32);
            if self.frozen(a) {
                continue;
            }
            let loops: Vec<bool> = (self.alts[i].iter())
                .map(|x| {
                    x.rhs.len() > 1
                        && x.rhs.last() == Some(&Symbol::N(a))
                        && self.seq_nullable(&x.rhs)
                })
                .collect();
            if !loops.contains(&true) {
                continue;
            }
            let before = self.len();
            let mut new: Vec<Alt> = Vec::new();
            for (x, looping) in self.alts[i].clone().into_iter().zip(loops) {
                if !looping {
                    push_new(&mut new, x);
                    continue;
                }
                let body = &x.rhs[..x.rhs.len() - 1];
                for mut rhs in self.non_empty_seq(body, &mut made, &some_non_empty) {
                    rhs.push(Symbol::N(a));
                    push_new(&mut new, Alt { rhs, ..x.clone() });
                }
            }
            self.set_alts(a, new);
            let new_rules: Vec<String> = (made.values().copied())
                .filter(|n| n.index() >= before)
                .map(|n| self.name(n).to_string())
                .collect();
            out.push(Rewrite {
                kind: RewriteKind::NonEmptyRepetition,
                rule: self.name(a).to_string(),
                message: format!(
                    "a repetition in rule `{}` of something that can be empty now repeats its non-empty part: {}",
                    // Rules made for EBNF sugar are named after the user's rule.
                    self.name(self.owner[i]).split("__").next().unwrap_or_default(),
                    self.show_rule(a)
                ),
                span: self.nts[i].span,
                new_rules,
                tail: None,
            });
        }
    }

    /// The non-empty strings of `seq` (which is nullable): for each place
    /// `i`, the symbols before it empty, symbol `i` non-empty, the rest as
    /// written.
    /// A symbol that derives only the empty string has no place `i`.
    fn non_empty_seq(
        &mut self,
        seq: &[Symbol],
        made: &mut HashMap<NtId, NtId>,
        some_non_empty: &[bool],
    ) -> Vec<Vec<Symbol>> {
        let mut out = Vec::new();
        for (i, &s) in seq.iter().enumerate() {
            let only_empty = match s {
                Symbol::N(x) => !some_non_empty.get(x.index()).copied().unwrap_or(true),
                Symbol::T(_) => false,
            };
            if !only_empty {
                let mut rhs = vec![self.non_empty_symbol(s, made, some_non_empty)];
                rhs.extend_from_slice(&seq[i + 1..]);
                out.push(rhs);
            }
            if !self.seq_nullable(&seq[i..=i]) {
                break;
            }
        }
        out
    }

    /// Per rule: whether it derives some non-empty string (a rule that
    /// derives only the empty one has no non-empty form: a rule for it
    /// would have no alternatives).
    fn derives_non_empty(&self) -> Vec<bool> {
        let mut yes = vec![false; self.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for i in 0..self.len() {
                if yes[i] {
                    continue;
                }
                let some = self.alts[i].iter().any(|alt| {
                    alt.rhs.iter().any(|s| match s {
                        Symbol::T(_) => true,
                        Symbol::N(y) => yes[y.index()],
                    })
                });
                if some {
                    yes[i] = true;
                    changed = true;
                }
            }
        }
        yes
    }

    /// `s` itself unless it is a nullable rule; then a rule for its
    /// non-empty strings, made once.
    fn non_empty_symbol(
        &mut self,
        s: Symbol,
        made: &mut HashMap<NtId, NtId>,
        some_non_empty: &[bool],
    ) -> Symbol {
        let Symbol::N(x) = s else { return s };
        if !self.nullable[x.index()] {
            return s;
        }
        if let Some(&ne) = made.get(&x) {
            return Symbol::N(ne);
        }
        let ne = self.fresh(x, "ne");
        made.insert(x, ne);
        let mut alts: Vec<Alt> = Vec::new();
        for alt in self.alts[x.index()].clone() {
            if alt.rhs.is_empty() {
                continue;
            }
            for rhs in self.non_empty_seq(&alt.rhs, made, some_non_empty) {
                push_new(&mut alts, Alt { rhs, ..alt.clone() });
            }
        }
        self.set_alts(ne, alts);
        Symbol::N(ne)
    }
}

fn push_new(alts: &mut Vec<Alt>, x: Alt) {
    if !alts.iter().any(|y| y.rhs == x.rhs && y.alias == x.alias) {
        alts.push(x);
    }
}
