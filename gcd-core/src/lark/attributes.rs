//! llguidance's rule attributes, `name[lazy, max_tokens=10]: ...`. gcd
//! honours `lazy` (the rule is one lexeme that ends at its first match,
//! what a lazy quantifier does to a gcd terminal); the others change what
//! llguidance samples or reports, or cut a lexeme where gcd would have to
//! close it validly, and each is an error naming it rather than an
//! attribute silently dropped.

use super::ast::RuleAttributes;
use super::lexer::{describe, Tok};
use super::parser::{PResult, Parser};
use crate::error::DiagnosticKind;

/// Why gcd does not take an attribute llguidance knows.
fn refusal(name: &str) -> Option<&'static str> {
    Some(match name {
        "max_tokens" => {
            "llguidance cuts the lexeme after N tokens wherever it stands; gcd's \
             counterpart, a lexeme cap (`Matcher::set_lexeme_cap`), closes the lexeme \
             validly instead and is set on the matcher, not in the grammar"
        }
        "stop" | "suffix" | "stop_capture" => {
            "it makes the lexeme lazy and hides or re-adds its end from the output, \
             which gcd's masks cannot express; write the end into the rule and use `[lazy]`"
        }
        "capture" => "gcd returns parse trees, not named captures; the rule's node holds its text",
        "temperature" => "it changes sampling, not which tokens are allowed",
        _ => return None,
    })
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
                    }
                    _ => {
                        return self.expected(&format!("a value after `{attr}=`"));
                    }
                }
            }
            let span = self.src.span(t.start, end);
            match (attr.as_str(), end == t.end) {
                ("lazy", true) => attrs.lazy = true,
                ("lazy", false) => {
                    self.error(DiagnosticKind::Syntax, span, "`lazy` takes no value");
                    return Err(());
                }
                _ => {
                    let msg = match refusal(&attr) {
                        Some(why) => {
                            format!("rule attribute `{attr}` (on `{name}`) is not supported: {why}")
                        }
                        None => format!(
                            "unknown rule attribute `{attr}` (on `{name}`): llguidance's are \
                             `lazy`, `max_tokens`, `stop`, `suffix`, `stop_capture`, `capture` \
                             and `temperature`, and gcd supports `lazy`"
                        ),
                    };
                    self.error(DiagnosticKind::Unsupported, span, msg);
                    return Err(());
                }
            }
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
}
