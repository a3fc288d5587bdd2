//! Resolved GBNF → [`GrammarBuilder`], by a [`Plan`] that says which runs
//! of regular items are merged into one terminal.
//!
//! A *run* is a maximal stretch of consecutive regular items of one
//! sequence (see [`Regular::is_regular`]), named by its first item's id.
//! At [`Level::Whole`] the run is one terminal; at [`Level::Items`] each of
//! its items that is more than one character is one; at [`Level::Chars`]
//! every item is lowered by its structure, down to one terminal per atom
//! for each character (and the groups inside have runs of their own). The
//! character level never changes the language (see `atoms`); whether a
//! merge does is decided afterwards, on the compiled grammar (`merge`).

use std::collections::HashMap;

use regex_syntax::hir::{Class, Hir, HirKind};

use super::ast::{Node, NodeId, NodeKind};
use super::atoms::Alphabet;
use super::regular::Regular;
use super::resolve::Resolved;
use crate::error::Span;
use crate::grammar::{Alternative, Expr, GrammarBuilder, RuleKind, TerminalPattern};

/// How far a run is merged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    /// The whole run is one terminal.
    Whole,
    /// Each item of the run longer than a character is one terminal.
    Items,
    /// Every item lowered by its structure.
    Chars,
}

impl Level {
    pub fn finer(self) -> Level {
        match self {
            Level::Whole => Level::Items,
            Level::Items | Level::Chars => Level::Chars,
        }
    }
}

/// Per run (by its first item's id), how far it is merged; runs not
/// listed are merged whole, unless merging is off altogether.
#[derive(Clone, Debug, Default)]
pub(crate) struct Plan {
    pub levels: HashMap<NodeId, Level>,
    pub no_merging: bool,
}

impl Plan {
    fn level(&self, run: NodeId) -> Level {
        if self.no_merging {
            return Level::Chars;
        }
        self.levels.get(&run).copied().unwrap_or(Level::Whole)
    }
}

/// A lowered grammar and, per merged terminal's pattern, the runs that
/// made it (a pattern two runs spell is one terminal).
pub(crate) struct Lowered {
    pub builder: GrammarBuilder,
    pub merged: HashMap<TerminalPattern, Vec<NodeId>>,
}

pub(crate) fn lower(resolved: &Resolved, alphabet: &Alphabet, plan: &Plan) -> Lowered {
    let mut l = Lowerer {
        regular: Regular { resolved },
        alphabet,
        plan,
        merged: HashMap::new(),
        nonempty_rules: Vec::new(),
    };
    let mut defs: Vec<(String, RuleKind, Vec<Alternative>, Span)> = Vec::new();
    for rule in &resolved.rules {
        let alternatives: Vec<Alternative> = alternatives(&rule.body)
            .iter()
            .map(|alt| Alternative {
                expr: l.seq(alt.items()),
                alias: None,
                span: Some(alt.span),
            })
            .collect();
        defs.push((rule.name.clone(), RuleKind::Normal, alternatives, rule.span));
    }
    // Rules without their empty string, as repetitions asked for them;
    // each may ask for more.
    let mut done = 0;
    while let Some(name) = l.nonempty_rules.get(done).cloned() {
        done += 1;
        let Some(r) = resolved.rule(&name) else {
            continue;
        };
        let rule = &resolved.rules[r];
        let alternatives: Vec<Alternative> = alternatives(&rule.body)
            .iter()
            .filter_map(|alt| {
                Some(Alternative {
                    expr: l.nonempty_seq(alt.items())?,
                    alias: None,
                    span: Some(alt.span),
                })
            })
            .collect();
        defs.push((
            nonempty_rule(&name),
            RuleKind::Generated,
            alternatives,
            rule.span,
        ));
    }
    // Rules written into terminals are used by no rule any more; left in,
    // each would be a warning about a rule the user does use.
    let index: HashMap<&str, usize> = (defs.iter().enumerate())
        .map(|(i, d)| (d.0.as_str(), i))
        .collect();
    let mut reachable = vec![false; defs.len()];
    let mut todo: Vec<usize> = index.get("root").copied().into_iter().collect();
    while let Some(i) = todo.pop() {
        if std::mem::replace(&mut reachable[i], true) {
            continue;
        }
        for alt in &defs[i].2 {
            names(&alt.expr, &mut |n| todo.extend(index.get(n).copied()));
        }
    }
    let mut builder = GrammarBuilder::new();
    for (d, _) in defs.into_iter().zip(&reachable).filter(|(_, &r)| r) {
        builder.rule_full(&d.0, d.1, d.2, Some(d.3));
    }
    builder.start("root");
    Lowered {
        builder,
        merged: l.merged,
    }
}

/// Calls `f` on every name `e` uses.
fn names(e: &Expr, f: &mut impl FnMut(&str)) {
    match e {
        Expr::Name(n, _) => f(n),
        Expr::Pattern(..) => {}
        Expr::Seq(items) | Expr::Alt(items) => items.iter().for_each(|i| names(i, f)),
        Expr::Opt(x) | Expr::Star(x) | Expr::Plus(x) | Expr::Repeat(x, ..) => names(x, f),
    }
}

/// The rule for `name`'s non-empty strings: `.` is no GBNF name character,
/// so it cannot clash with a rule of the grammar.
fn nonempty_rule(name: &str) -> String {
    format!("{name}.nonempty")
}

fn alternatives(body: &Node) -> &[Node] {
    match &body.kind {
        NodeKind::Alt(alts) => alts,
        _ => std::slice::from_ref(body),
    }
}

/// The pattern of a merged terminal: a literal when the regex is one.
fn pattern(hir: &Hir) -> TerminalPattern {
    if let HirKind::Literal(lit) = hir.kind() {
        if let Ok(text) = std::str::from_utf8(&lit.0) {
            return TerminalPattern::Literal {
                text: text.to_string(),
                case_insensitive: false,
            };
        }
    }
    TerminalPattern::Regex(hir.to_string())
}

struct Lowerer<'a> {
    regular: Regular<'a>,
    alphabet: &'a Alphabet,
    plan: &'a Plan,
    merged: HashMap<TerminalPattern, Vec<NodeId>>,
    /// Rules whose non-empty part a repetition uses, in the order asked.
    nonempty_rules: Vec<String>,
}

/// `inner{min,max}` as builder EBNF.
fn repeat(inner: Expr, min: u32, max: Option<u32>) -> Expr {
    match (min, max) {
        (0, None) => Expr::star(inner),
        (1, None) => Expr::plus(inner),
        (m, None) => Expr::seq(vec![
            Expr::Repeat(Box::new(inner.clone()), m, m),
            Expr::star(inner),
        ]),
        (0, Some(1)) => Expr::opt(inner),
        (m, Some(n)) => Expr::Repeat(Box::new(inner), m, n),
    }
}

impl Lowerer<'_> {
    fn seq(&mut self, items: &[Node]) -> Expr {
        let mut out = Vec::new();
        let mut i = 0;
        while i < items.len() {
            if !self.regular.is_regular(&items[i]) {
                out.push(self.node(&items[i]));
                i += 1;
                continue;
            }
            let end = (i..items.len())
                .find(|&j| !self.regular.is_regular(&items[j]))
                .unwrap_or(items.len());
            self.run(&items[i..end], &mut out);
            i = end;
        }
        Expr::Seq(out)
    }

    fn run(&mut self, run: &[Node], out: &mut Vec<Expr>) {
        let id = run[0].id;
        // One character is already one terminal per atom.
        let one_char = |n: &Node| matches!(n.kind, NodeKind::Char(_));
        match self.plan.level(id) {
            Level::Whole if run.len() > 1 || !one_char(&run[0]) => {
                out.push(self.merged(run, id));
            }
            Level::Whole | Level::Items => {
                for item in run {
                    let e = match one_char(item) {
                        true => self.node(item),
                        false => self.merged(std::slice::from_ref(item), id),
                    };
                    out.push(e);
                }
            }
            Level::Chars => out.extend(run.iter().map(|item| self.node(item))),
        }
    }

    /// One terminal for the regular `items`, optional when they can be
    /// empty (gcd's terminals never match the empty string).
    fn merged(&mut self, items: &[Node], run: NodeId) -> Expr {
        let Some(nonempty) = self.regular.nonempty_seq(items) else {
            return Expr::Seq(Vec::new());
        };
        let p = pattern(&nonempty);
        self.merged.entry(p.clone()).or_default().push(run);
        let span = Span {
            end: items[items.len() - 1].span.end,
            byte_end: items[items.len() - 1].span.byte_end,
            ..items[0].span
        };
        let e = Expr::Pattern(p, Some(span));
        match items.iter().all(|i| self.regular.nullable(i)) {
            true => Expr::opt(e),
            false => e,
        }
    }

    /// `node` by its structure: a character as its atoms, the rest as
    /// builder EBNF.
    fn node(&mut self, node: &Node) -> Expr {
        match &node.kind {
            NodeKind::Char(class) => {
                let mut atoms: Vec<Expr> = (self.alphabet.pieces(class).iter())
                    .map(|&a| self.atom(a, node.span))
                    .collect();
                match atoms.len() {
                    1 => atoms.pop().expect("one atom"),
                    _ => Expr::alt(atoms),
                }
            }
            NodeKind::Ref(name) => Expr::Name(name.clone(), Some(node.span)),
            NodeKind::Seq(items) => self.seq(items),
            NodeKind::Alt(alts) => Expr::alt(alts.iter().map(|a| self.seq(a.items())).collect()),
            // A repetition of something that can be empty would make the
            // grammar cyclic; its empty copies can be dropped, so it is the
            // repetition of its non-empty part, any number from zero.
            NodeKind::Repeat { item, max, .. } if self.regular.nullable(item) => {
                match self.nonempty(item) {
                    Some(inner) => repeat(inner, 0, *max),
                    None => Expr::Seq(Vec::new()),
                }
            }
            NodeKind::Repeat { item, min, max } => repeat(self.seq(item.items()), *min, *max),
        }
    }

    /// `node`'s strings without the empty one, `None` if none is left.
    fn nonempty(&mut self, node: &Node) -> Option<Expr> {
        if !self.regular.can_be_nonempty(node) {
            return None;
        }
        if !self.regular.nullable(node) {
            return Some(self.node(node));
        }
        match &node.kind {
            NodeKind::Char(_) => Some(self.node(node)),
            NodeKind::Ref(name) => {
                if !self.nonempty_rules.contains(name) {
                    self.nonempty_rules.push(name.clone());
                }
                Some(Expr::Name(nonempty_rule(name), Some(node.span)))
            }
            NodeKind::Seq(items) => self.nonempty_seq(items),
            NodeKind::Alt(alts) => {
                let parts: Vec<Expr> = alts.iter().filter_map(|a| self.nonempty(a)).collect();
                (!parts.is_empty()).then(|| Expr::alt(parts))
            }
            // Nullable here: `X{m,n}` without the empty string is `X'{1,n}`
            // for `X'` the non-empty part of `X` (or `X{1,n}` when `X`
            // itself is not nullable and `m` is 0).
            NodeKind::Repeat { item, max, .. } => match self.regular.nullable(item) {
                true => Some(repeat(self.nonempty(item)?, 1, *max)),
                false => Some(repeat(self.seq(item.items()), 1, *max)),
            },
        }
    }

    /// `a b...` without the empty string: a non-empty `a` part and the
    /// rest, or (when `a` can be empty) a non-empty rest.
    fn nonempty_seq(&mut self, items: &[Node]) -> Option<Expr> {
        let (head, tail) = items.split_first()?;
        if !self.regular.nullable(head) {
            return Some(self.seq(items));
        }
        let mut parts = Vec::new();
        if let Some(h) = self.nonempty(head) {
            parts.push(Expr::seq(vec![h, self.seq(tail)]));
        }
        parts.extend(self.nonempty_seq(tail));
        (!parts.is_empty()).then(|| Expr::alt(parts))
    }

    fn atom(&self, a: usize, span: Span) -> Expr {
        let class = self.alphabet.atom(a);
        let p = match class.ranges() {
            [r] if r.start() == r.end() => TerminalPattern::Literal {
                text: r.start().to_string(),
                case_insensitive: false,
            },
            _ => TerminalPattern::Regex(Hir::class(Class::Unicode(class.clone())).to_string()),
        };
        Expr::Pattern(p, Some(span))
    }
}
