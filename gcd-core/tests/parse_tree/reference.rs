//! The reference for parse trees: a chart parser over the grammar as
//! written, building Lark's tree shape directly (no tails, no factoring to
//! undo), so the trees gcd builds from its transformed grammar can be
//! compared with trees that never saw the transforms.

use std::ops::Range;

use gcd_core::compiled::CompiledGrammar;
use gcd_core::grammar::{Grammar, NtId, RuleKind, Symbol, TermId, TerminalPattern};
use gcd_core::runtime::tree::{LexemeRole, Node, ParseOutput};

enum RItem {
    Node(Node),
    Filtered(Range<usize>),
}

struct Reference<'a> {
    g: &'a Grammar,
    /// The parsed (non-ignored) lexemes: terminal of `g`, span, text.
    toks: Vec<(TermId, Range<usize>, String)>,
    /// `chart[a][i][j]`: rule `a` derives `toks[i..j]`.
    chart: Vec<Vec<Vec<bool>>>,
}

/// The tree the grammar as written gives to the lexemes of `out`, or `None`
/// if it derives no tree for them.
pub fn reference_tree(
    original: &Grammar,
    g: &CompiledGrammar,
    input: &[u8],
    out: &ParseOutput,
) -> Option<Node> {
    let toks: Vec<(TermId, Range<usize>, String)> = out
        .lexemes
        .iter()
        .filter(|l| l.role != LexemeRole::Ignored)
        .map(|l| {
            let name = &g.grammar().terminal(l.terminal).name;
            let t = original
                .terminals
                .iter()
                .position(|t| &t.name == name)
                .expect("same terminals");
            (
                TermId(t as u32),
                l.span.clone(),
                String::from_utf8_lossy(&input[l.span.clone()]).into_owned(),
            )
        })
        .collect();
    let n = toks.len();
    let mut r = Reference {
        g: original,
        toks,
        chart: vec![vec![vec![false; n + 1]; n + 1]; original.nonterminals.len()],
    };
    let mut changed = true;
    while changed {
        changed = false;
        for p in &original.productions {
            for i in 0..=n {
                for j in r.seq_ends(&p.rhs, i) {
                    if !r.chart[p.lhs.index()][i][j] {
                        r.chart[p.lhs.index()][i][j] = true;
                        changed = true;
                    }
                }
            }
        }
    }
    if !r.chart[original.start.index()][0][n] {
        return None;
    }
    let items = r.build(original.start, 0, n, 0)?;
    let nodes = items.iter().filter(|i| matches!(i, RItem::Node(_))).count();
    Some(if nodes == 1 {
        items
            .into_iter()
            .find_map(|i| match i {
                RItem::Node(n) => Some(n),
                RItem::Filtered(_) => None,
            })
            .unwrap()
    } else {
        rule(original.nonterminal(original.start).name.clone(), items, 0)
    })
}

/// A node with the documented span convention: first to last lexeme, else
/// empty at `begin`; leading empty children sit at the node's start.
fn rule(name: String, items: Vec<RItem>, begin: usize) -> Node {
    let span = span_of(&items).unwrap_or(begin..begin);
    fn place(n: &mut Node, at: usize) {
        match n {
            Node::Rule { children, span, .. } => {
                *span = at..at;
                children.iter_mut().for_each(|c| place(c, at));
            }
            Node::Token { span, .. } => *span = at..at,
        }
    }
    let children = items
        .into_iter()
        .filter_map(|x| match x {
            RItem::Node(mut n) => {
                if n.span().is_empty() && n.span().start < span.start {
                    place(&mut n, span.start);
                }
                Some(n)
            }
            RItem::Filtered(_) => None,
        })
        .collect();
    Node::Rule {
        name,
        children,
        span,
    }
}

fn span_of(items: &[RItem]) -> Option<Range<usize>> {
    let spans = items.iter().map(|i| match i {
        RItem::Node(n) => n.span(),
        RItem::Filtered(s) => s.clone(),
    });
    spans
        .filter(|s| !s.is_empty())
        .reduce(|a, b| a.start.min(b.start)..a.end.max(b.end))
}

impl Reference<'_> {
    fn seq_ends(&self, rhs: &[Symbol], i: usize) -> Vec<usize> {
        let n = self.toks.len();
        let mut at = vec![false; n + 1];
        at[i] = true;
        for s in rhs {
            let mut next = vec![false; n + 1];
            for p in (0..=n).filter(|&p| at[p]) {
                match *s {
                    Symbol::T(t) => {
                        if p < n && self.toks[p].0 == t {
                            next[p + 1] = true;
                        }
                    }
                    Symbol::N(b) => {
                        for (q, slot) in next.iter_mut().enumerate().skip(p) {
                            *slot |= self.chart[b.index()][p][q];
                        }
                    }
                }
            }
            at = next;
        }
        (0..=n).filter(|&p| at[p]).collect()
    }

    fn kept(&self, t: TermId) -> bool {
        let term = self.g.terminal(t);
        !(term.hidden
            || term.name.starts_with("__ANON")
                && matches!(term.pattern, TerminalPattern::Literal { .. }))
    }

    /// Lark's output for rule `a` over `toks[i..j]`: a node, or the items it splices.
    fn build(&self, a: NtId, i: usize, j: usize, depth: usize) -> Option<Vec<RItem>> {
        if depth > 500 {
            return None;
        }
        for (_, p) in self.g.productions_of(a) {
            if !self.seq_ends(&p.rhs, i).contains(&j) {
                continue;
            }
            let Some(items) = self.split(&p.rhs, i, j, depth) else {
                continue;
            };
            let kind = self.g.nonterminal(a).kind;
            let nodes = items.iter().filter(|x| matches!(x, RItem::Node(_))).count();
            if matches!(kind, RuleKind::Hidden | RuleKind::Generated)
                || kind == RuleKind::InlineSingle && p.alias.is_none() && nodes == 1
            {
                return Some(items);
            }
            let begin = if i == 0 { 0 } else { self.toks[i - 1].1.end };
            let name = p
                .alias
                .clone()
                .unwrap_or_else(|| self.g.nonterminal(a).name.clone());
            return Some(vec![RItem::Node(rule(name, items, begin))]);
        }
        None
    }

    fn split(&self, rhs: &[Symbol], i: usize, j: usize, depth: usize) -> Option<Vec<RItem>> {
        let Some((first, rest)) = rhs.split_first() else {
            return (i == j).then(Vec::new);
        };
        match *first {
            Symbol::T(t) => {
                if i >= j || self.toks[i].0 != t || !self.seq_ends(rest, i + 1).contains(&j) {
                    return None;
                }
                let (_, span, text) = &self.toks[i];
                let item = if self.kept(t) {
                    RItem::Node(Node::Token {
                        terminal: self.g.terminal(t).name.clone(),
                        text: text.clone(),
                        span: span.clone(),
                    })
                } else {
                    RItem::Filtered(span.clone())
                };
                let mut out = vec![item];
                out.extend(self.split(rest, i + 1, j, depth)?);
                Some(out)
            }
            Symbol::N(b) => {
                for e in i..=j {
                    if !self.chart[b.index()][i][e] || !self.seq_ends(rest, e).contains(&j) {
                        continue;
                    }
                    let Some(mut out) = self.build(b, i, e, depth + 1) else {
                        continue;
                    };
                    let Some(more) = self.split(rest, e, j, depth + 1) else {
                        continue;
                    };
                    out.extend(more);
                    return Some(out);
                }
                None
            }
        }
    }
}
