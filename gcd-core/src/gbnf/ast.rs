//! GBNF as read: rules over single characters, before any lowering.
//!
//! A GBNF literal is a sequence of characters and a class is one character
//! from a set, so both are kept as [`Node::Char`] steps: the language is
//! defined character by character, and the lowering decides separately
//! which steps become terminals of their own.

use regex_syntax::hir::ClassUnicode;

use crate::error::Span;

/// Identifies a node across lowerings of one grammar (the merge plan is
/// keyed by it), assigned in reading order.
pub(crate) type NodeId = u32;

/// One rule, `name ::= body`.
#[derive(Clone, Debug)]
pub(crate) struct Rule {
    pub name: String,
    /// The name where the rule is defined.
    pub span: Span,
    pub body: Node,
}

/// A GBNF expression.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub id: NodeId,
    pub span: Span,
    pub kind: NodeKind,
}

#[derive(Clone, Debug)]
pub(crate) enum NodeKind {
    /// Exactly one character of the set: a class `[a-z]`, `[^"]`, `.`, or
    /// one character of a literal. Never empty.
    Char(ClassUnicode),
    /// Another rule.
    Ref(String),
    /// The items one after another; empty for `""` or an empty alternative.
    Seq(Vec<Node>),
    /// Alternatives, `a | b` (two or more).
    Alt(Vec<Node>),
    /// `item{min,max}`; `max` is `None` for no upper bound (`*`, `+`,
    /// `{m,}`).
    Repeat {
        item: Box<Node>,
        min: u32,
        max: Option<u32>,
    },
}

impl Node {
    /// The items of a sequence, or the node alone: every place that holds
    /// a node holds a sequence of one.
    pub fn items(&self) -> &[Node] {
        match &self.kind {
            NodeKind::Seq(items) => items,
            _ => std::slice::from_ref(self),
        }
    }
}
