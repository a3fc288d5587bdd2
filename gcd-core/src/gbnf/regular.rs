//! GBNF nodes that spell a regular language, as regex-syntax [`Hir`]: the
//! text of a merged terminal.
//!
//! A node is regular here when every rule it uses is
//! [inlinable](super::resolve::Resolved::inlinable); those rules are
//! written into the regex. gcd's terminals never match the empty string,
//! so a nullable run becomes an optional terminal of its non-empty part,
//! [`Regular::nonempty`].

use regex_syntax::hir::{Class, Hir, Repetition};

use super::ast::{Node, NodeKind};
use super::resolve::{node_nullable, Resolved};

pub(crate) struct Regular<'r> {
    pub resolved: &'r Resolved,
}

fn repeat(sub: Hir, min: u32, max: Option<u32>) -> Hir {
    Hir::repetition(Repetition {
        min,
        max,
        greedy: true,
        sub: Box::new(sub),
    })
}

impl Regular<'_> {
    fn inlined(&self, name: &str) -> Option<&Node> {
        let r = self.resolved.rule(name)?;
        self.resolved.inlinable[r].then(|| &self.resolved.rules[r].body)
    }

    /// Whether every rule `node` uses can be written into a regex.
    pub fn is_regular(&self, node: &Node) -> bool {
        let mut regular = true;
        super::resolve::refs(node, &mut |name, _| {
            regular &= self.inlined(name).is_some();
        });
        regular
    }

    pub fn nullable(&self, node: &Node) -> bool {
        let known =
            |name: &str| (self.resolved.rule(name)).is_some_and(|r| self.resolved.nullable[r]);
        node_nullable(node, &known)
    }

    /// Whether `node` derives some non-empty string.
    pub fn can_be_nonempty(&self, node: &Node) -> bool {
        let known =
            |name: &str| (self.resolved.rule(name)).is_some_and(|r| self.resolved.nonempty[r]);
        super::resolve::node_nonempty(node, &known)
    }

    /// The language of `node`, which must be [regular](Self::is_regular).
    pub fn hir(&self, node: &Node) -> Hir {
        match &node.kind {
            NodeKind::Char(class) => Hir::class(Class::Unicode(class.clone())),
            NodeKind::Ref(name) => match self.inlined(name) {
                Some(body) => self.hir(body),
                None => Hir::fail(),
            },
            NodeKind::Seq(items) => self.seq(items),
            NodeKind::Alt(items) => Hir::alternation(items.iter().map(|i| self.hir(i)).collect()),
            NodeKind::Repeat { item, min, max } => repeat(self.hir(item), *min, *max),
        }
    }

    /// The items one after another.
    pub fn seq(&self, items: &[Node]) -> Hir {
        Hir::concat(items.iter().map(|i| self.hir(i)).collect())
    }

    /// The language of `node` without the empty string, `None` when
    /// nothing is left.
    pub fn nonempty(&self, node: &Node) -> Option<Hir> {
        match &node.kind {
            NodeKind::Char(_) => Some(self.hir(node)),
            NodeKind::Ref(name) => self.inlined(name).and_then(|body| self.nonempty(body)),
            NodeKind::Seq(items) => self.nonempty_seq(items),
            NodeKind::Alt(items) => {
                let parts: Vec<Hir> = items.iter().filter_map(|i| self.nonempty(i)).collect();
                (!parts.is_empty()).then(|| Hir::alternation(parts))
            }
            NodeKind::Repeat { item, min, max } => {
                if *max == Some(0) {
                    return None;
                }
                if !self.nullable(item) && *min > 0 {
                    return Some(self.hir(node));
                }
                if !self.nullable(item) {
                    return Some(repeat(self.hir(item), 1, *max));
                }
                // A nullable item's empty copies can be dropped: a
                // non-empty string is a non-empty copy and up to max-1
                // more.
                let first = self.nonempty(item)?;
                let rest = repeat(self.hir(item), 0, max.map(|m| m - 1));
                Some(Hir::concat(vec![first, rest]))
            }
        }
    }

    /// `a b...` without the empty string: when `a` is nullable, a string
    /// either has a non-empty `a` part or is a non-empty `b...`.
    pub fn nonempty_seq(&self, items: &[Node]) -> Option<Hir> {
        let (head, tail) = items.split_first()?;
        if !self.nullable(head) {
            return Some(self.seq(items));
        }
        let mut parts = Vec::new();
        if let Some(h) = self.nonempty(head) {
            parts.push(Hir::concat(vec![h, self.seq(tail)]));
        }
        parts.extend(self.nonempty_seq(tail));
        (!parts.is_empty()).then(|| Hir::alternation(parts))
    }
}
