//! llguidance's rule attributes, `name[lazy, max_tokens=10]: ...`. gcd
//! honours:
//! - `lazy`: the rule is one lexeme that ends at its first match (what a
//!   lazy quantifier does to a gcd terminal);
//! - `max_tokens=N`: the rule is one lexeme, capped at N tokens by gcd's
//!   lexeme cap (`Matcher::set_lexeme_cap`), which every matcher made from
//!   the grammar starts with. llguidance cuts the lexeme off after N tokens
//!   wherever it stands; gcd's masks close it validly within N tokens
//!   instead, so the output stays in the grammar's language;
//! - `temperature=T`: the rule is one lexeme whose temperature callers
//!   read back (`Grammar::temperature`, `Matcher::temperature`); it
//!   changes no mask;
//! - `capture` / `capture="name"`: the rule's text, read back from a
//!   finished output (`Matcher::captures`);
//! - `suffix="text"` (a literal): the rule is one lazy lexeme of its body
//!   then the text, which stays in the output; the rule's own capture
//!   leaves the text out and `stop_capture="name"` captures the text (a
//!   regex or terminal suffix would give the capture no one end, and is
//!   refused).
//!
//! `stop` ends a lazy lexeme with text that is then hidden from the output
//! (llguidance backtracks its tokens), which gcd's masks cannot express; it,
//! and unknown attributes, are errors naming them rather than attributes
//! silently dropped.

use super::ast::RuleAttributes;
use super::lexer::{describe, Tok};
use super::parser::{PResult, Parser};
use crate::error::{DiagnosticKind, Span};
use crate::grammar::Temperature;

/// Why gcd does not take an attribute llguidance knows.
fn refusal(name: &str) -> Option<&'static str> {
    Some(match name {
        "stop" => {
            "the lexeme's end is generated and then hidden from the output (llguidance \
             backtracks its tokens), which gcd's masks cannot express; `suffix=\"...\"` keeps \
             the end in the output"
        }
        _ => return None,
    })
}

/// An attribute's value as written: its first token and its whole text
/// (`0.7` is three tokens).
struct Value {
    tok: Tok,
    text: String,
}

impl Parser<'_, '_> {
    /// The attributes of rule `name`; the current token is `[`.
    pub(super) fn rule_attributes(&mut self, name: &str) -> PResult<RuleAttributes> {
        self.advance();
        let mut attrs = RuleAttributes::default();
        loop {
            let t = self.cur();
            let Tok::Name(attr) = t.tok.clone() else {
                return self.expected(&format!("an attribute name in `{name}[...]`"));
            };
            self.advance();
            let mut value = None;
            let mut end = t.end;
            if *self.peek() == Tok::Eq {
                self.advance();
                let v = self.cur();
                match v.tok {
                    Tok::Str { .. } | Tok::Regex { .. } | Tok::Name(_) | Tok::Number(_) => {
                        self.advance();
                        // `0.7`: a number, a dot and its decimals.
                        if *self.peek() == Tok::Dot {
                            self.advance();
                            if matches!(self.peek(), Tok::Number(_)) {
                                self.advance();
                            }
                        }
                        end = self.prev_end();
                        let text = self.src.text.get(v.start..end).unwrap_or_default();
                        value = Some(Value {
                            tok: v.tok.clone(),
                            text: text.to_string(),
                        });
                    }
                    _ => {
                        return self.expected(&format!("a value after `{attr}=`"));
                    }
                }
            }
            let span = self.src.span(t.start, end);
            self.rule_attribute(name, &attr, value, span, &mut attrs)?;
            match self.peek() {
                Tok::Comma => {
                    self.advance();
                }
                Tok::RBrack => {
                    self.advance();
                    return Ok(attrs);
                }
                other => {
                    let found = describe(other);
                    return self.expected(&format!(
                        "`,` or `]` in the attributes of `{name}` (found {found})"
                    ));
                }
            }
        }
    }

    /// Records attribute `attr` (with its value, if written) of rule
    /// `name` in `attrs`; a misuse is an error at `span`.
    fn rule_attribute(
        &mut self,
        name: &str,
        attr: &str,
        value: Option<Value>,
        span: Span,
        attrs: &mut RuleAttributes,
    ) -> PResult<()> {
        let seen = match attr {
            "lazy" => attrs.lazy,
            "max_tokens" => attrs.max_tokens.is_some(),
            "temperature" => attrs.temperature.is_some(),
            "capture" => attrs.capture.is_some(),
            "suffix" => attrs.suffix.is_some(),
            "stop_capture" => attrs.stop_capture.is_some(),
            _ => false,
        };
        let mut fail = |kind, msg: String| {
            self.error(kind, span, msg);
            Err(())
        };
        if seen {
            return fail(
                DiagnosticKind::Duplicate,
                format!("rule attribute `{attr}` is given twice (on `{name}`)"),
            );
        }
        match (attr, value) {
            ("lazy", None) => attrs.lazy = true,
            ("lazy", Some(_)) => {
                return fail(DiagnosticKind::Syntax, "`lazy` takes no value".into())
            }
            (
                "max_tokens",
                Some(Value {
                    tok: Tok::Number(_),
                    text,
                }),
            ) => match text.parse::<u32>() {
                Ok(n) if n > 0 => attrs.max_tokens = Some((n, span)),
                _ => {
                    return fail(
                        DiagnosticKind::Syntax,
                        format!(
                            "`max_tokens` (on `{name}`) takes a whole number of tokens, at \
                                 least 1 (found `{text}`)"
                        ),
                    )
                }
            },
            (
                "temperature",
                Some(Value {
                    tok: Tok::Number(_),
                    text,
                }),
            ) => {
                let t = text.parse::<f32>().ok().and_then(Temperature::new);
                match t {
                    Some(t) => attrs.temperature = Some((t, span)),
                    None => {
                        return fail(
                            DiagnosticKind::Syntax,
                            format!(
                                "`temperature` (on `{name}`) takes a number of at least 0 \
                                 (found `{text}`)"
                            ),
                        )
                    }
                }
            }
            ("max_tokens" | "temperature", _) => {
                return fail(
                    DiagnosticKind::Syntax,
                    format!("`{attr}` (on `{name}`) takes a number: `{attr}=...`"),
                )
            }
            ("capture", None) => attrs.capture = Some((name.to_string(), span)),
            (
                "capture",
                Some(Value {
                    tok: Tok::Str { text, .. },
                    ..
                }),
            ) if !text.is_empty() => {
                attrs.capture = Some((text, span));
            }
            (
                "suffix",
                Some(Value {
                    tok: Tok::Str { text, ci: false },
                    ..
                }),
            ) if !text.is_empty() => {
                attrs.suffix = Some((text, span));
            }
            ("suffix", _) => {
                return fail(
                    DiagnosticKind::Unsupported,
                    format!(
                        "`suffix` (on `{name}`) is supported as a non-empty \"literal\" only: \
                         after a regex or a terminal the rule's capture would have no one end"
                    ),
                )
            }
            (
                "stop_capture",
                Some(Value {
                    tok: Tok::Str { text, .. },
                    ..
                }),
            ) if !text.is_empty() => {
                attrs.stop_capture = Some((text, span));
            }
            ("stop_capture", _) => {
                return fail(
                    DiagnosticKind::Syntax,
                    format!("`stop_capture` (on `{name}`) takes a non-empty \"name\""),
                )
            }
            ("capture", Some(_)) => {
                return fail(
                    DiagnosticKind::Syntax,
                    format!(
                        "`capture` (on `{name}`) takes no value or a non-empty \"name\" to \
                         capture under"
                    ),
                )
            }
            _ => {
                let msg = match refusal(attr) {
                    Some(why) => {
                        format!("rule attribute `{attr}` (on `{name}`) is not supported: {why}")
                    }
                    None => format!(
                        "unknown rule attribute `{attr}` (on `{name}`): llguidance's are \
                         `lazy`, `max_tokens`, `stop`, `suffix`, `stop_capture`, `capture` \
                         and `temperature`, and gcd supports all but `stop`"
                    ),
                };
                return fail(DiagnosticKind::Unsupported, msg);
            }
        }
        Ok(())
    }
}
