//! Repetition counts: Lark's `item ~ n` and `item ~ m..n`, and
//! llguidance's `item{m,n}` (with `{m,}` and `{,n}`), read into
//! [`Node::Repeat`]. `~` followed by anything but a number is llguidance's
//! negation, which [`Parser::expr`](super::parser) reads itself.

use super::ast::Node;
use super::lexer::Tok;
use super::parser::{PResult, Parser};
use crate::error::{DiagnosticKind, Span};

impl Parser<'_, '_> {
    pub(super) fn number(&mut self, after: &str) -> PResult<(u32, Span)> {
        let t = self.cur();
        match t.tok {
            Tok::Number(n) => {
                self.advance();
                match u32::try_from(n) {
                    Ok(n) => Ok((n, self.span_of(&t))),
                    Err(_) => {
                        self.error(
                            DiagnosticKind::Syntax,
                            self.span_of(&t),
                            format!(
                                "expected a count from 0 to {} after {after}, found `{n}`",
                                u32::MAX
                            ),
                        );
                        Err(())
                    }
                }
            }
            _ => self.expected(&format!("a number after {after}")),
        }
    }

    /// A repetition's maximum, read after `after`: at least `min`, else an
    /// error quoting the range as `spelled(max)` writes it.
    pub(super) fn repetition_max(
        &mut self,
        min: u32,
        after: &str,
        spelled: impl Fn(u32) -> String,
    ) -> PResult<u32> {
        let (max, span) = self.number(after)?;
        if max < min {
            self.error(
                DiagnosticKind::Syntax,
                span,
                format!(
                    "empty repetition range `{}`: the maximum must be at least the minimum",
                    spelled(max)
                ),
            );
            return Err(());
        }
        Ok(max)
    }

    /// Whether the `{` at the cursor opens a repetition count rather than a
    /// template's arguments: a template argument is never a number.
    pub(super) fn count_brace_ahead(&self) -> bool {
        *self.peek() == Tok::LBrace
            && matches!(self.tok_at(self.pos + 1).tok, Tok::Number(_) | Tok::Comma)
    }

    /// `atom{n}`, `atom{m,n}`, `atom{m,}`, `atom{,n}`: llguidance's (and
    /// regex) spelling of Lark's `atom ~ m..n`, so grammars written for it
    /// load unchanged. An open maximum repeats without bound.
    pub(super) fn count_repetition(&mut self, atom: Node) -> PResult<Node> {
        self.advance();
        let min = match self.peek() {
            Tok::Comma => 0,
            _ => self.number("`{`")?.0,
        };
        let max = if *self.peek() == Tok::Comma {
            self.advance();
            match self.peek() {
                Tok::RBrace => None,
                _ => Some(self.repetition_max(min, "`,`", |m| format!("{{{min},{m}}}"))?),
            }
        } else {
            Some(min)
        };
        if *self.peek() != Tok::RBrace {
            return self.expected("`}` to close the repetition count");
        }
        self.advance();
        Ok(match max {
            Some(max) => Node::Repeat(Box::new(atom), min, max),
            None => Node::Seq(vec![
                Node::Repeat(Box::new(atom.clone()), min, min),
                Node::Star(Box::new(atom)),
            ]),
        })
    }
}
