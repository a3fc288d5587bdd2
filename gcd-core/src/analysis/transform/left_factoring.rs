//! Left factoring: alternatives that share a prefix and conflict share it
//! through a new rule, and leading rules are expanded one level where that
//! makes a rule LL(1). Runs after left-recursion removal and never fails.

use super::work::{Alt, Work};
use super::{Rewrite, RewriteKind};
use crate::analysis::Sets;
use crate::grammar::TermSet;
use crate::grammar::{NtId, Symbol};

/// Whole-grammar left-factoring passes.
const MAX_FACTOR_PASSES: usize = 256;
/// Factoring passes inside one expansion trial.
const MAX_LOCAL_PASSES: usize = 32;

fn predict(sets: &Sets, a: NtId, rhs: &[Symbol]) -> TermSet {
    let (mut f, nullable) = sets.first_of_seq(rhs);
    if nullable {
        f.union_with(&sets.follow[a.index()]);
    }
    f
}

impl<'g> Work<'g> {
    /// The grammar as it stands, every rule kept (for FIRST/FOLLOW).
    /// Rules that dead rules (see [`Work::live`]) do not contribute to.
    fn sets(&self) -> Sets {
        let live = self.live();
        let mut g = self.to_grammar(None);
        g.productions.retain(|p| live[p.lhs.index()]);
        Sets::new(&g)
    }

    /// `sets` (of the grammar before a factoring pass) brought up to date
    /// with the pass, given the rules it `made` as `(for, new)` pairs, in
    /// the order they were made. Factoring keeps every rule's language, and
    /// with it every FIRST; and each old rule's FOLLOW, since the symbols
    /// of `A: α β1 | α β2` see the same lookahead in `A: α T; T: β1 | β2`.
    /// `T` is used once, at the end of `A`'s alternative, so FOLLOW(T) is
    /// FOLLOW(A). Recomputing was a tenth of a first mask on large schemas.
    fn extend_sets(&self, sets: &mut Sets, made: &[(NtId, NtId)]) {
        for &(a, t) in made {
            debug_assert_eq!(t.index(), sets.first.len());
            let mut first = TermSet::new(sets.n_terms);
            let mut nullable = false;
            for x in &self.alts[t.index()] {
                let (f, n) = sets.first_of_seq(&x.rhs);
                first.union_with(&f);
                nullable |= n;
            }
            sets.first.push(first);
            sets.nullable.push(nullable);
            let follow = sets.follow[a.index()].clone();
            sets.follow.push(follow);
        }
        if cfg!(test) {
            assert_eq!(
                *sets,
                self.sets(),
                "extended sets differ from recomputed ones"
            );
        }
    }

    /// Whether two alternatives of `a` start with the same symbol, which
    /// factoring (and dropping a repeated alternative) needs: most rules
    /// have none, and are then left without copying them.
    fn shares_a_first_symbol(&self, a: NtId) -> bool {
        let firsts = self.alts[a.index()].iter().filter_map(|x| x.rhs.first());
        match self.alts[a.index()].len() {
            0 | 1 => false,
            2..=8 => {
                let firsts: smallvec::SmallVec<[Symbol; 8]> = firsts.copied().collect();
                (1..firsts.len()).any(|i| firsts[..i].contains(&firsts[i]))
            }
            _ => {
                let mut seen = rustc_hash::FxHashSet::default();
                !firsts.copied().all(|f| seen.insert(f))
            }
        }
    }

    /// Factors every group of alternatives of `a` that start with the same
    /// symbol and conflict. Returns whether `a` changed and the new rules.
    fn factor_rule(&mut self, a: NtId, sets: &Sets, out: &mut Vec<Rewrite>) -> (bool, Vec<NtId>) {
        let known = sets.first.len();
        if !self.shares_a_first_symbol(a) {
            return (false, Vec::new());
        }
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
        // Alternatives grouped by first symbol, groups in order of first
        // appearance (a rule may have 20,000 alternatives).
        let mut group_of: rustc_hash::FxHashMap<Symbol, usize> = Default::default();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (i, x) in alts.iter().enumerate() {
            let Some(&f) = x.rhs.first() else { continue };
            let j = *group_of.entry(f).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[j].push(i);
        }
        let mut removed = vec![false; alts.len()];
        let mut replaced: Vec<Option<Alt>> = vec![None; alts.len()];
        let mut new_nts = Vec::new();
        let mut changed = false;
        for group in groups {
            let conflicting = !TermSet::in_several(group.iter().map(|&i| &predicts[i])).is_empty();
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
        TermSet::in_several(&predicts).is_empty()
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
        let shared = TermSet::in_several(&predicts);
        let conflicting: Vec<bool> = predicts.iter().map(|p| p.intersects(&shared)).collect();
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
        // Expansion may change FOLLOW (of the rules expanded) and liveness,
        // so the sets are computed afresh once; factoring then extends them.
        let mut s = trial.sets();
        for _ in 0..MAX_LOCAL_PASSES {
            let mut changed = false;
            let mut made = Vec::new();
            for x in local.clone() {
                let (c, new) = trial.factor_rule(x, &s, &mut log);
                changed |= c;
                made.extend(new.iter().map(|&t| (x, t)));
                local.extend(new);
            }
            if changed {
                trial.extend_sets(&mut s, &made);
            }
            if !changed || trial.over_limits() {
                break;
            }
        }
        if trial.over_limits() {
            return false;
        }
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

    pub(super) fn left_factor(&mut self, out: &mut Vec<Rewrite>) {
        let mut tried: Vec<bool> = Vec::new();
        let mut sets = self.sets();
        // The rules a pass examines: all of them at first and after an
        // expansion; else those the last pass changed or made. Factoring
        // keeps every other rule's alternatives and sets (see
        // `extend_sets`), so examining it again would change nothing.
        let mut todo: Option<Vec<NtId>> = None;
        for _ in 0..MAX_FACTOR_PASSES {
            let n = self.len();
            let mut changed = false;
            let mut made = Vec::new();
            let mut touched = Vec::new();
            let live = self.live();
            let rules: Vec<NtId> = match todo.take() {
                Some(rules) => rules,
                None => (0..n)
                    .filter(|&a| live[a])
                    .map(|a| NtId(a as u32))
                    .collect(),
            };
            for a in rules {
                if self.over_limits() {
                    return;
                }
                let (c, new) = self.factor_rule(a, &sets, out);
                changed |= c;
                if c {
                    touched.push(a);
                }
                touched.extend(new.iter().copied());
                made.extend(new.into_iter().map(|t| (a, t)));
            }
            if changed {
                self.extend_sets(&mut sets, &made);
                touched.sort_unstable();
                todo = Some(touched);
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
            sets = self.sets();
            todo = None;
        }
    }
}
