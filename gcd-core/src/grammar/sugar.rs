//! The walk back from plain productions to EBNF, for printing.
//!
//! [`GrammarBuilder`](super::GrammarBuilder) desugars `x*`, `[x]`, `x+`,
//! `x ~ 0..n` and groups into fresh [`RuleKind::Generated`] rules. To show
//! a grammar as people write it, [`Folded`] puts each such rule back in
//! the places that use it, as the sugar it came from: `S: x S | <empty>`
//! reads `x*`, `O: x | <empty>` reads `[x]`, a chain of those reads
//! `x ~ 0..n`. A generated rule stays a rule of its own when it cannot
//! fold: it lies on a cycle (a transform's rules, a member set's), it is
//! the start rule, or folding it would copy a large expression into many
//! places.
//!
//! This is the one walk over a grammar's rules that turns them into
//! expressions; [`print`](super::print) only writes what it yields.

use super::{Grammar, NtId, RuleKind, Symbol};

/// A right-hand side with the generated rules it uses folded back in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sugar {
    /// A terminal, or a rule that is printed as a rule of its own.
    Symbol(Symbol),
    /// The items one after another; empty for the empty string. Never
    /// holds a `Seq` (folded groups are spliced in) nor one item alone.
    Seq(Vec<Sugar>),
    /// Two or more alternatives, none empty.
    Alt(Vec<Sugar>),
    /// `[e]`.
    Opt(Box<Sugar>),
    /// `e*`.
    Star(Box<Sugar>),
    /// `e+`.
    Plus(Box<Sugar>),
    /// `e ~ 0..n` with `n` at least 2 (`e ~ 0..1` is `[e]`).
    UpTo(Box<Sugar>, u32),
}

/// A folded expression larger than this is written once, as a rule of its
/// own, when more than one place uses it.
const SHARED_INLINE_MAX: usize = 16;

/// Which generated rules of a grammar fold into their users, and as what.
pub struct Folded {
    by_rule: Vec<Vec<Vec<Symbol>>>,
    /// Per rule: the expression it folds into, or `None` when it is printed
    /// as a rule.
    folded: Vec<Option<Sugar>>,
}

impl Folded {
    /// Decides, for every generated rule of `g`, whether it folds.
    pub fn new(g: &Grammar) -> Folded {
        let n = g.nonterminals.len();
        let mut by_rule: Vec<Vec<Vec<Symbol>>> = vec![Vec::new(); n];
        for p in &g.productions {
            by_rule[p.lhs.index()].push(p.rhs.clone());
        }
        let own = g.member_set_rules();
        let candidate: Vec<bool> = (0..n)
            .map(|i| {
                g.nonterminals[i].kind == RuleKind::Generated
                    && i != g.start.index()
                    && !own[i]
                    && !by_rule[i].is_empty()
            })
            .collect();
        let mut uses = vec![0usize; n];
        for rhs in by_rule.iter().flatten() {
            for s in rhs {
                if let Symbol::N(m) = s {
                    uses[m.index()] += 1;
                }
            }
        }
        let mut this = Folded {
            by_rule,
            folded: vec![None; n],
        };
        for m in this.fold_order(&candidate) {
            let e = this.fold(m);
            let star_self = usize::from(is_star(&this.by_rule[m.index()], m));
            if uses[m.index()].saturating_sub(star_self) <= 1 || size(&e) <= SHARED_INLINE_MAX {
                this.folded[m.index()] = Some(e);
            }
        }
        this
    }

    /// Whether rule `n` folds into its users (and is not printed itself).
    pub fn is_folded(&self, n: NtId) -> bool {
        self.folded[n.index()].is_some()
    }

    /// The alternatives of rule `n`, with folded rules put back in, in
    /// declaration order (one per production; aliases are the grammar's).
    pub fn alternatives(&self, n: NtId) -> Vec<Sugar> {
        self.by_rule[n.index()]
            .iter()
            .map(|rhs| self.seq(rhs))
            .collect()
    }

    /// The candidates that fold, children before the rules that use them:
    /// a depth-first walk over the candidates, where the rule a back edge
    /// reaches is left out (so what remains has no cycle). A star rule's
    /// use of itself is its sugar, not a back edge.
    fn fold_order(&self, candidate: &[bool]) -> Vec<NtId> {
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Open,
            Done,
        }
        let n = candidate.len();
        let mut mark = vec![Mark::New; n];
        let mut cyclic = vec![false; n];
        let mut order = Vec::new();
        for root in (0..n).filter(|&i| candidate[i]) {
            if mark[root] != Mark::New {
                continue;
            }
            // (rule, its candidate children, how many were visited)
            let mut stack = vec![(root, self.children(root, candidate), 0usize)];
            mark[root] = Mark::Open;
            while let Some((rule, children, next)) = stack.last_mut() {
                if let Some(&child) = children.get(*next) {
                    *next += 1;
                    match mark[child] {
                        Mark::New => {
                            mark[child] = Mark::Open;
                            let grand = self.children(child, candidate);
                            stack.push((child, grand, 0));
                        }
                        Mark::Open => cyclic[child] = true,
                        Mark::Done => {}
                    }
                } else {
                    let rule = *rule;
                    mark[rule] = Mark::Done;
                    if !cyclic[rule] {
                        order.push(NtId(rule as u32));
                    }
                    stack.pop();
                }
            }
        }
        order
    }

    /// The candidate rules that rule `i` uses, its star use of itself aside.
    fn children(&self, i: usize, candidate: &[bool]) -> Vec<usize> {
        let rules = &self.by_rule[i];
        let star = is_star(rules, NtId(i as u32));
        let mut out: Vec<usize> = rules
            .iter()
            .flat_map(|rhs| {
                let body = if star && !rhs.is_empty() {
                    &rhs[..rhs.len() - 1]
                } else {
                    &rhs[..]
                };
                body.iter()
            })
            .filter_map(|s| match s {
                Symbol::N(m) if candidate[m.index()] => Some(m.index()),
                _ => None,
            })
            .collect();
        out.dedup();
        out
    }

    /// Generated rule `n` as the sugar it stands for; every rule it uses
    /// has been decided already.
    fn fold(&self, n: NtId) -> Sugar {
        let rules = &self.by_rule[n.index()];
        if is_star(rules, n) {
            let rhs = rules.iter().find(|r| !r.is_empty()).map_or(&[][..], |r| r);
            return Sugar::Star(Box::new(self.seq(&rhs[..rhs.len().saturating_sub(1)])));
        }
        if let [rhs] = &rules[..] {
            // `x+` desugars to `x x*`.
            if let Some((Symbol::N(m), head)) = rhs.split_last() {
                if let Some(Sugar::Star(body)) = &self.folded[m.index()] {
                    let head = self.seq(head);
                    if head == **body {
                        return Sugar::Plus(Box::new(head));
                    }
                }
            }
            return self.seq(rhs);
        }
        let nonempty: Vec<Sugar> = rules
            .iter()
            .filter(|r| !r.is_empty())
            .map(|r| self.seq(r))
            .collect();
        if nonempty.len() == rules.len() {
            return alt(nonempty);
        }
        if nonempty.len() != 1 {
            return Sugar::Opt(Box::new(alt(nonempty)));
        }
        // `[x]`, or a link of `x ~ 0..n`'s chain `[x [x …]]`.
        let body = nonempty
            .into_iter()
            .next()
            .unwrap_or(Sugar::Seq(Vec::new()));
        if let Sugar::Seq(items) = &body {
            if let Some((last, rest)) = items.split_last() {
                let rest = seq(rest.to_vec());
                match last {
                    Sugar::Opt(inner) if **inner == rest => {
                        return Sugar::UpTo(Box::new(rest), 2);
                    }
                    Sugar::UpTo(inner, k) if **inner == rest => {
                        return Sugar::UpTo(Box::new(rest), k.saturating_add(1));
                    }
                    _ => {}
                }
            }
        }
        Sugar::Opt(Box::new(body))
    }

    /// A production's symbols, with folded rules in place.
    fn seq(&self, rhs: &[Symbol]) -> Sugar {
        let mut items = Vec::with_capacity(rhs.len());
        for &s in rhs {
            match (s, self.folded_of(s)) {
                (_, Some(Sugar::Seq(inner))) => items.extend(inner.iter().cloned()),
                (_, Some(e)) => items.push(e.clone()),
                (s, None) => items.push(Sugar::Symbol(s)),
            }
        }
        seq(items)
    }

    fn folded_of(&self, s: Symbol) -> Option<&Sugar> {
        match s {
            Symbol::N(m) => self.folded[m.index()].as_ref(),
            Symbol::T(_) => None,
        }
    }
}

/// Whether `rules` (the productions of `n`) are `n: x n | <empty>`, in
/// either order, with `n` nowhere in `x`.
fn is_star(rules: &[Vec<Symbol>], n: NtId) -> bool {
    match rules {
        [a, b] => {
            let (full, empty) = if a.is_empty() { (b, a) } else { (a, b) };
            empty.is_empty()
                && full.len() > 1
                && full.last() == Some(&Symbol::N(n))
                && !full[..full.len() - 1].contains(&Symbol::N(n))
        }
        _ => false,
    }
}

/// Items as one expression: the item itself when alone.
fn seq(mut items: Vec<Sugar>) -> Sugar {
    if items.len() == 1 {
        items.pop().unwrap_or(Sugar::Seq(Vec::new()))
    } else {
        Sugar::Seq(items)
    }
}

/// Alternatives as one expression: the alternative itself when alone.
fn alt(mut alts: Vec<Sugar>) -> Sugar {
    if alts.len() == 1 {
        alts.pop().unwrap_or(Sugar::Seq(Vec::new()))
    } else {
        Sugar::Alt(alts)
    }
}

/// How many nodes `e` has.
fn size(e: &Sugar) -> usize {
    match e {
        Sugar::Symbol(_) => 1,
        Sugar::Seq(items) | Sugar::Alt(items) => 1 + items.iter().map(size).sum::<usize>(),
        Sugar::Opt(e) | Sugar::Star(e) | Sugar::Plus(e) | Sugar::UpTo(e, _) => 1 + size(e),
    }
}
