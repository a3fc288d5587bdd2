//! The EBNF that front ends describe rules in, before
//! [`GrammarBuilder`](super::GrammarBuilder) desugars it.

use super::TerminalPattern;
use crate::error::Span;

/// EBNF right-hand sides, as front ends describe them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    /// A named rule or terminal.
    Name(String, Option<Span>),
    /// An anonymous terminal written in place; same patterns share one terminal.
    Pattern(TerminalPattern, Option<Span>),
    /// The items one after another (`a b c`); empty for the empty string.
    Seq(Vec<Expr>),
    /// Alternatives inside a group.
    Alt(Vec<Expr>),
    /// Zero or one of it (`e?`).
    Opt(Box<Expr>),
    /// Zero or more of it (`e*`).
    Star(Box<Expr>),
    /// One or more of it (`e+`).
    Plus(Box<Expr>),
    /// `e ~ min..max`: between `min` and `max` copies.
    Repeat(Box<Expr>, u32, u32),
}

impl Expr {
    /// [`Expr::Name`] without a span: the rule or terminal called `name`.
    pub fn name(name: &str) -> Expr {
        Expr::Name(name.to_string(), None)
    }
    /// An anonymous terminal that matches exactly `text`, case-sensitively.
    pub fn literal(text: &str) -> Expr {
        Expr::Pattern(
            TerminalPattern::Literal {
                text: text.to_string(),
                case_insensitive: false,
            },
            None,
        )
    }
    /// An anonymous terminal that matches regex `re` (regex-automata syntax).
    pub fn regex(re: &str) -> Expr {
        Expr::Pattern(TerminalPattern::Regex(re.to_string()), None)
    }
    /// [`Expr::Seq`].
    pub fn seq(items: Vec<Expr>) -> Expr {
        Expr::Seq(items)
    }
    /// [`Expr::Alt`].
    pub fn alt(items: Vec<Expr>) -> Expr {
        Expr::Alt(items)
    }
    /// [`Expr::Opt`], boxing `e`.
    pub fn opt(e: Expr) -> Expr {
        Expr::Opt(Box::new(e))
    }
    /// [`Expr::Star`], boxing `e`.
    pub fn star(e: Expr) -> Expr {
        Expr::Star(Box::new(e))
    }
    /// [`Expr::Plus`], boxing `e`.
    pub fn plus(e: Expr) -> Expr {
        Expr::Plus(Box::new(e))
    }
}

/// One alternative of a rule definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alternative {
    /// What the alternative derives.
    pub expr: Expr,
    /// Lark `-> name`: the parse-tree node of this alternative takes this
    /// name (see [`Production::alias`]).
    pub alias: Option<String>,
    /// Where the alternative is written; given to its production and to
    /// the rules its EBNF desugars into.
    pub span: Option<Span>,
}
