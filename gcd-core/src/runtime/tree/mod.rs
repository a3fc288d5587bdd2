//! Parse trees: what a DSL grammar's output *means*, not just that it is valid.
//!
//! [`parse`] lexes and parses a whole input with exactly the engine's
//! semantics (ARCHITECTURE.md: contextual maximal munch, the winner by the
//! [`LexerAutomaton`](crate::lexer::LexerAutomaton), ignored terminals
//! dropped, then the LL(1) table) and builds the tree top down, with a stack of
//! open rule frames beside the parser stack.
//!
//! # Tree shape (Lark's conventions)
//!
//! * A [`RuleKind::Normal`](crate::grammar::RuleKind::Normal) rule gives a [`Node::Rule`] named after the rule,
//!   or after the alias (`-> name`) of the alternative that was taken.
//! * A `?rule` ([`RuleKind::InlineSingle`](crate::grammar::RuleKind::InlineSingle)) is replaced by its child when it
//!   has exactly one (after filtering) and the alternative has no alias; as
//!   in Lark, an aliased alternative always gives its node.
//! * A `_rule` ([`RuleKind::Hidden`](crate::grammar::RuleKind::Hidden)) and every [`RuleKind::Generated`](crate::grammar::RuleKind::Generated) rule
//!   (EBNF desugaring, left factoring, left-recursion tails) are replaced by
//!   their children.
//! * Tokens of hidden terminals (`_NAME`, [`Terminal::hidden`](crate::grammar::Terminal::hidden)) and of
//!   anonymous *literal* terminals (`"+"` written in a rule: names starting
//!   `__ANON` with a literal pattern) are left out, as Lark filters
//!   "tokens that are anonymous strings". Anonymous *regex* terminals stay.
//!   Ignored lexemes (whitespace) are never in the tree. [`parse_full`] lists
//!   every lexeme, filtered ones included.
//! * Aliases after left factoring: the alias sits on the production of the
//!   Generated `__lf` rule that decided the alternative; it renames the
//!   nearest enclosing node (see [`crate::analysis::transform`], "Parse-tree shape").
//! * Left recursion: for each `(rule, tail)` of
//!   [`TransformReport::tails`](crate::analysis::transform::TransformReport::tails), a
//!   parse `A(β, A'(α1, A'(α2, A'())))` is re-associated into the
//!   left-associative `A(A(A(β), α1), α2)` that the grammar as written
//!   describes; each level takes the alias of its own `A: A α` alternative,
//!   and `?`/`_` apply per level. (A tail that shows up outside its rule,
//!   which substitution for indirect left recursion can cause, is spliced.)
//!
//! Spans are byte ranges into the input. A rule's span runs from the start
//! of its first lexeme to the end of its last one (filtered tokens count,
//! ignored lexemes around it do not); a rule that matched nothing has an
//! empty span at the end of the previous lexeme, or at the start of its
//! parent when it comes first there (so children always lie inside their
//! parent, in order).
//!
//! Errors are values ([`ParseError`]), never panics: a byte that starts no
//! acceptable lexeme, a lexeme that ends without matching, the end of the
//! input too early. Each names the byte offset, `line:column` and the
//! terminals that were acceptable there.

mod captures;
mod parser;

use std::fmt;
use std::ops::Range;

use crate::compiled::CompiledGrammar;
use crate::grammar::TermId;
pub use captures::{captures, Capture};
use parser::TreeParser;

mod choices;

/// A parse tree node. Spans are byte ranges into the parsed input.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// A rule that stays in the tree (see the module docs for which do).
    Rule {
        /// The rule's name, or the alias of the alternative taken.
        name: String,
        /// The subtrees and tokens below it, in input order.
        children: Vec<Node>,
        /// From the start of its first lexeme to the end of its last; empty
        /// when the rule matched nothing.
        span: Range<usize>,
    },
    /// A lexeme of a terminal that stays in the tree.
    Token {
        /// The terminal's name in the grammar (`__ANON_…` for one written
        /// inline in a rule).
        terminal: String,
        /// The lexeme's text (lossy UTF-8 for [`parse_bytes`] input).
        text: String,
        /// The lexeme's bytes in the input.
        span: Range<usize>,
    },
}

impl Node {
    /// The rule (or alias) name, or the terminal name of a token.
    pub fn name(&self) -> &str {
        match self {
            Node::Rule { name, .. } => name,
            Node::Token { terminal, .. } => terminal,
        }
    }

    /// The node's byte range in the input (see the module docs for a
    /// rule's).
    pub fn span(&self) -> Range<usize> {
        match self {
            Node::Rule { span, .. } | Node::Token { span, .. } => span.clone(),
        }
    }

    /// A rule's children; empty for a token.
    pub fn children(&self) -> &[Node] {
        match self {
            Node::Rule { children, .. } => children,
            Node::Token { .. } => &[],
        }
    }

    /// A token's text (lossy UTF-8 for [`parse_bytes`] input), or `None`.
    pub fn text(&self) -> Option<&str> {
        match self {
            Node::Token { text, .. } => Some(text),
            Node::Rule { .. } => None,
        }
    }

    /// Whether this is a [`Node::Token`] (a leaf).
    pub fn is_token(&self) -> bool {
        matches!(self, Node::Token { .. })
    }

    /// Every node, in pre-order (a node before its children, children left
    /// to right).
    pub fn iter(&self) -> Iter<'_> {
        Iter { stack: vec![self] }
    }

    /// The tree one node per line, children indented under their rule,
    /// tokens as `TERMINAL text`; for reading larger trees.
    pub fn pretty(&self) -> String {
        let mut out = String::new();
        let mut stack = vec![(self, 0usize)];
        while let Some((n, depth)) = stack.pop() {
            out.push_str(&"  ".repeat(depth));
            match n {
                Node::Rule { name, children, .. } => {
                    out.push_str(name);
                    stack.extend(children.iter().rev().map(|c| (c, depth + 1)));
                }
                Node::Token { terminal, .. } => {
                    out.push_str(&format!("{terminal} {n}"));
                }
            }
            out.push('\n');
        }
        out
    }

    /// The tokens of the tree (its leaves that are tokens), left to right.
    pub fn tokens(&self) -> impl Iterator<Item = &Node> + '_ {
        self.iter().filter(|n| n.is_token())
    }
}

/// Pre-order iterator over a tree; see [`Node::iter`].
#[derive(Clone, Debug)]
pub struct Iter<'a> {
    stack: Vec<&'a Node>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a Node;
    fn next(&mut self) -> Option<&'a Node> {
        let n = self.stack.pop()?;
        self.stack.extend(n.children().iter().rev());
        Some(n)
    }
}

/// An S-expression: `(add (mul 2 3) 4)`. Tokens print as their text, quoted
/// (Rust string syntax) when empty or when it has spaces, parentheses,
/// quotes or backslashes. The alternate form (`{:#}`) prefixes every token
/// with its terminal: `NUMBER:2`.
impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Node::Rule { name, children, .. } => {
                write!(f, "({name}")?;
                for c in children {
                    f.write_str(" ")?;
                    fmt::Display::fmt(c, f)?;
                }
                f.write_str(")")
            }
            Node::Token { terminal, text, .. } => {
                if f.alternate() {
                    write!(f, "{terminal}:")?;
                }
                let plain = !text.is_empty()
                    && !text.chars().any(|c| {
                        c.is_whitespace() || c.is_control() || matches!(c, '(' | ')' | '"' | '\\')
                    });
                if plain {
                    f.write_str(text)
                } else {
                    write!(f, "{text:?}")
                }
            }
        }
    }
}

/// What became of a lexeme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LexemeRole {
    /// A token of the tree.
    Tree,
    /// Parsed, but left out of the tree (anonymous literal or hidden terminal).
    Filtered,
    /// An ignored terminal (whitespace, comments): never parsed.
    Ignored,
}

/// One lexeme of the input, in input order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Lexeme {
    /// The terminal that won the lexeme.
    pub terminal: TermId,
    /// The lexeme's bytes in the input.
    pub span: Range<usize>,
    /// Whether it is in the tree, filtered out of it, or ignored.
    pub role: LexemeRole,
}

/// A tree with every lexeme of the input (the lexemes cover the input
/// exactly, back to back).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseOutput {
    /// The tree, as [`parse_bytes`] returns it.
    pub tree: Node,
    /// Every lexeme, ignored and filtered ones included, in input order.
    pub lexemes: Vec<Lexeme>,
    /// The grammar is generalized and the input has more than one
    /// derivation: the tree is the one whose earliest differing decision
    /// takes the alternative written first (after the transforms).
    pub ambiguous: bool,
}

/// Why an input is not a sentence of the grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// A byte that starts no lexeme acceptable here.
    UnexpectedByte,
    /// A lexeme ended (the next byte extends no candidate terminal) without
    /// matching any of them: `1.` before `]` in JSON.
    InvalidLexeme,
    /// A lexeme matched a terminal the parser cannot take here. The
    /// contextual lexer only offers acceptable terminals, so this is kept
    /// for robustness only.
    UnexpectedToken,
    /// The input ended too early: inside a lexeme, or before the grammar
    /// could accept.
    UnexpectedEnd,
    /// The grammar has member lists in any order
    /// ([`MemberSet`](crate::grammar::MemberSet)) or is lexed dynamically
    /// ([`Lexing::Dynamic`](crate::compiled::Lexing)), which parse trees do
    /// not support yet; check such outputs with the matcher instead.
    UnsupportedGrammar,
    /// A generalized grammar whose derivations of this input grow past
    /// [`Limits::max_configurations`](crate::limits::Limits).
    TooAmbiguous,
}

/// A parse error with its position and what was expected there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    kind: ParseErrorKind,
    offset: usize,
    line: usize,
    column: usize,
    /// What was found at `offset` (a byte, shown for humans), if anything.
    found: Option<String>,
    /// The pending lexeme (text, start offset) for `InvalidLexeme` and an
    /// end inside a lexeme.
    lexeme: Option<(String, usize)>,
    expected: Vec<String>,
}

impl ParseError {
    /// What went wrong; the [`Display`](fmt::Display) message adds the
    /// details.
    pub fn kind(&self) -> ParseErrorKind {
        self.kind
    }

    /// Byte offset into the input where parsing stopped.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// 1-based line of [`offset`](Self::offset).
    pub fn line(&self) -> usize {
        self.line
    }

    /// 1-based column of [`offset`](Self::offset), counted in characters
    /// (UTF-8 sequences; a stray byte counts as one).
    pub fn column(&self) -> usize {
        self.column
    }

    /// The terminals acceptable at the error, by display name (anonymous
    /// literals as their quoted text); `end of input` when the input may end.
    pub fn expected(&self) -> &[String] {
        &self.expected
    }

    /// Start offset of the lexeme that was pending, when the error is about one.
    pub fn lexeme_start(&self) -> Option<usize> {
        self.lexeme.as_ref().map(|l| l.1)
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let found = self.found.as_deref().unwrap_or("end of input");
        if self.kind == ParseErrorKind::UnsupportedGrammar {
            return write!(f, "parse trees are not supported for grammars {found}");
        }
        if self.kind == ParseErrorKind::TooAmbiguous {
            return f.write_str(
                "the input has more live derivations than the grammar's configuration limit allows",
            );
        }
        match (self.kind, &self.lexeme) {
            (ParseErrorKind::UnexpectedEnd, Some((text, _))) => {
                write!(f, "unexpected end of input inside the lexeme {text:?}")?
            }
            (ParseErrorKind::UnexpectedEnd, None) => f.write_str("unexpected end of input")?,
            (ParseErrorKind::InvalidLexeme, Some((text, _))) => {
                write!(f, "unexpected {found} after the incomplete lexeme {text:?}")?
            }
            (ParseErrorKind::UnexpectedToken, Some((text, _))) => write!(f, "unexpected {text:?}")?,
            _ => write!(f, "unexpected {found}")?,
        }
        write!(
            f,
            " at line {}, column {} (byte {})",
            self.line, self.column, self.offset
        )?;
        match self.expected.len() {
            0 => Ok(()),
            1 => write!(f, "; expected {}", self.expected[0]),
            _ => write!(f, "; expected one of {}", self.expected.join(", ")),
        }
    }
}

impl std::error::Error for ParseError {}

/// Parses `input` as a whole sentence of `grammar` and returns its tree.
pub fn parse(grammar: &CompiledGrammar, input: &str) -> Result<Node, ParseError> {
    parse_bytes(grammar, input.as_bytes())
}

/// [`parse`] for bytes; token texts are converted lossily to UTF-8.
pub fn parse_bytes(grammar: &CompiledGrammar, input: &[u8]) -> Result<Node, ParseError> {
    TreeParser::new(grammar, input, false).run().map(|o| o.tree)
}

/// [`parse_bytes`] that also returns every lexeme, filtered and ignored ones
/// included.
pub fn parse_full(grammar: &CompiledGrammar, input: &[u8]) -> Result<ParseOutput, ParseError> {
    TreeParser::new(grammar, input, true).run()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `src` from its first rule (Lark would need `start=` for these).
    fn compile(src: &str) -> CompiledGrammar {
        let mut b = crate::lark::parse(src).unwrap();
        let first = src
            .split(':')
            .next()
            .unwrap()
            .trim()
            .trim_start_matches('?');
        let g = b.start(first).build().unwrap();
        CompiledGrammar::new(&g).unwrap_or_else(|e| panic!("{src}\n{e}"))
    }

    fn tree(g: &CompiledGrammar, input: &str) -> String {
        match parse(g, input) {
            Ok(t) => t.to_string(),
            Err(e) => panic!("{input:?}: {e}"),
        }
    }

    const ARITH: &str = r#"
        ?expr: expr "+" term -> add | expr "-" term -> sub | term
        ?term: term "*" atom -> mul | atom
        ?atom: NUMBER | "(" expr ")" | "-" atom -> neg
        NUMBER: /[0-9]+/
        %ignore /[ \n]+/
    "#;

    #[test]
    fn tree_left_recursion_is_left_associative() {
        let g = compile(ARITH);
        assert_eq!(tree(&g, "1+2*3-4"), "(sub (add 1 (mul 2 3)) 4)");
        assert_eq!(tree(&g, "1-2-3"), "(sub (sub 1 2) 3)");
        assert_eq!(tree(&g, "2*3*4"), "(mul (mul 2 3) 4)");
        assert_eq!(tree(&g, "7"), "7");
        assert_eq!(tree(&g, "-(1 + 2)"), "(neg (add 1 2))");
    }

    #[test]
    fn tree_spans_and_errors() {
        let g = compile(ARITH);
        let t = parse(&g, " 1 + 22 ").unwrap();
        assert_eq!(t.span(), 1..7);
        let leaves: Vec<_> = t.tokens().map(|n| n.span()).collect();
        assert_eq!(leaves, vec![1..2, 5..7]);
        let e = parse(&g, "1 +\n 2 )").unwrap_err();
        assert_eq!(e.kind(), ParseErrorKind::UnexpectedByte);
        assert_eq!((e.offset(), e.line(), e.column()), (7, 2, 4));
        assert!(e.to_string().contains("line 2, column 4"), "{e}");
        let e = parse(&g, "1 +").unwrap_err();
        assert_eq!(e.kind(), ParseErrorKind::UnexpectedEnd);
        assert!(e.expected().contains(&"NUMBER".to_string()), "{e}");
        assert!(e.expected().contains(&"\"(\"".to_string()), "{e}");
    }

    #[test]
    fn tree_factored_aliases_rename_the_node() {
        let g = compile(
            r#"
            start: call
            call: NAME "(" ")" -> call0 | NAME "(" args ")" -> calln
            args: NAME ("," NAME)*
            NAME: /[a-z]+/
        "#,
        );
        assert!(!g.report.is_empty());
        assert_eq!(tree(&g, "f()"), "(start (call0 f))");
        assert_eq!(tree(&g, "f(a,b)"), "(start (calln f (args a b)))");
    }
}
