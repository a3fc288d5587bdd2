//! GBNF text → [`Rule`]s, following llama.cpp's grammar parser in what it
//! accepts: a rule ends at a newline unless inside `( )` or right after
//! `|` (or `::=`); `#` comments run to the end of the line; a repetition
//! applies to the item just before it (a whole literal, class, name or
//! group).
//!
//! llama.cpp stops at the first syntax error, and so does this parser: the
//! text after a malformed item cannot be read reliably (an unterminated
//! literal swallows the rest of the file).

use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange};

use super::ast::{Node, NodeId, NodeKind, Rule};
use crate::error::{DiagnosticKind, GrammarError, Span};
use crate::lark::source::Source;

/// Groups nested deeper than this are an error: parsing recurses once per
/// level, and no real grammar comes close.
const MAX_NESTING: usize = 64;

/// Reads every rule of `src`, or the first syntax error.
pub(crate) fn parse_rules(source: &Source<'_>) -> Result<Vec<Rule>, GrammarError> {
    let mut p = Parser {
        source,
        text: source.text,
        pos: 0,
        next_id: 0,
        depth: 0,
    };
    let mut rules = Vec::new();
    p.skip_space(true);
    while !p.at_end() {
        rules.push(p.rule()?);
    }
    Ok(rules)
}

struct Parser<'s> {
    source: &'s Source<'s>,
    text: &'s str,
    /// Byte offset of the next character.
    pos: usize,
    next_id: NodeId,
    depth: usize,
}

/// Characters of a rule name: llama.cpp's (letters, digits, `-`), and `_`,
/// which XGrammar's GBNF also takes.
fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

impl Parser<'_> {
    fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn peek_at(&self, skip_bytes: usize) -> Option<char> {
        self.text.get(self.pos + skip_bytes..)?.chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn span_from(&self, start: usize) -> Span {
        self.source.span(start, self.pos)
    }

    fn error(&self, start: usize, message: impl Into<String>) -> GrammarError {
        let end = self
            .pos
            .max(start + self.text[start..].chars().next().map_or(0, char::len_utf8));
        GrammarError::single(
            DiagnosticKind::Syntax,
            Some(self.source.span(start, end)),
            message,
        )
    }

    /// What is at the current position, for messages.
    fn found(&self) -> String {
        match self.peek() {
            None => "the end of the grammar".into(),
            Some('\n') | Some('\r') => "a line break".into(),
            Some(c) => format!("`{c}`"),
        }
    }

    fn node(&mut self, start: usize, kind: NodeKind) -> Node {
        let id = self.next_id;
        self.next_id += 1;
        Node {
            id,
            span: self.span_from(start),
            kind,
        }
    }

    /// Spaces, tabs and comments; line breaks too where a rule goes on
    /// across lines.
    fn skip_space(&mut self, newlines: bool) {
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' => self.pos += 1,
                '\r' | '\n' if newlines => self.pos += 1,
                '#' => {
                    while self.peek().is_some_and(|c| c != '\n' && c != '\r') {
                        self.bump();
                    }
                }
                _ => break,
            }
        }
    }

    fn name(&mut self) -> Result<String, GrammarError> {
        let start = self.pos;
        while self.peek().is_some_and(is_name_char) {
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.error(
                start,
                format!("expected a rule name, found {}", self.found()),
            ));
        }
        Ok(self.text[start..self.pos].to_string())
    }

    fn rule(&mut self) -> Result<Rule, GrammarError> {
        let start = self.pos;
        let name = self.name()?;
        let span = self.span_from(start);
        self.skip_space(false);
        if !self.text[self.pos..].starts_with("::=") {
            return Err(self.error(
                self.pos,
                format!(
                    "expected `::=` after rule name `{name}`, found {}",
                    self.found()
                ),
            ));
        }
        self.pos += 3;
        self.skip_space(true);
        let body = self.alternates(false)?;
        match self.peek() {
            None => {}
            Some('\n') => self.pos += 1,
            Some('\r') => {
                self.pos += 1;
                if self.peek() == Some('\n') {
                    self.pos += 1;
                }
            }
            Some(')') => return Err(self.error(self.pos, "`)` without a matching `(`")),
            Some('<') => {
                return Err(self.error(
                    self.pos,
                    "token references (`<...>`) are not supported in GBNF grammars; \
                     write the token's text instead",
                ))
            }
            Some(_) => {
                return Err(self.error(
                    self.pos,
                    format!(
                        "expected an item, `|`, or the end of the line in rule `{name}`, found {}",
                        self.found()
                    ),
                ))
            }
        }
        self.skip_space(true);
        Ok(Rule { name, span, body })
    }

    /// `seq | seq | ...`; `nested` inside `( )`, where line breaks are spaces.
    fn alternates(&mut self, nested: bool) -> Result<Node, GrammarError> {
        let start = self.pos;
        let mut alts = vec![self.sequence(nested)?];
        while self.peek() == Some('|') {
            self.pos += 1;
            self.skip_space(true);
            alts.push(self.sequence(nested)?);
        }
        Ok(if alts.len() == 1 {
            alts.pop().expect("one alternative")
        } else {
            self.node(start, NodeKind::Alt(alts))
        })
    }

    fn sequence(&mut self, nested: bool) -> Result<Node, GrammarError> {
        let start = self.pos;
        let mut items: Vec<Node> = Vec::new();
        while let Some(c) = self.peek() {
            let item_start = self.pos;
            match c {
                '"' => {
                    let lit = self.literal()?;
                    items.push(lit);
                }
                '[' => {
                    let class = self.class()?;
                    items.push(self.node(item_start, NodeKind::Char(class)));
                }
                '.' => {
                    self.pos += 1;
                    let any = ClassUnicode::new([ClassUnicodeRange::new('\0', char::MAX)]);
                    items.push(self.node(item_start, NodeKind::Char(any)));
                }
                '(' => {
                    if self.depth >= MAX_NESTING {
                        return Err(self.error(
                            item_start,
                            format!("groups nested more than {MAX_NESTING} deep"),
                        ));
                    }
                    self.pos += 1;
                    self.skip_space(true);
                    self.depth += 1;
                    let inner = self.alternates(true)?;
                    self.depth -= 1;
                    if self.peek() != Some(')') {
                        return Err(self.error(
                            item_start,
                            format!("`(` is never closed: expected `)`, found {}", self.found()),
                        ));
                    }
                    self.pos += 1;
                    items.push(inner);
                }
                '*' | '+' | '?' | '{' => {
                    let Some(item) = items.pop() else {
                        return Err(self
                            .error(item_start, format!("`{c}` has no item before it to repeat")));
                    };
                    let (min, max) = self.repetition()?;
                    let kind = NodeKind::Repeat {
                        item: Box::new(item.clone()),
                        min,
                        max,
                    };
                    let mut node = self.node(item.span.byte_start, kind);
                    node.span = self.source.span(item.span.byte_start, self.pos);
                    items.push(node);
                }
                c if is_name_char(c) => {
                    let name = self.name()?;
                    items.push(self.node(item_start, NodeKind::Ref(name)));
                }
                _ => break,
            }
            self.skip_space(nested);
        }
        Ok(if items.len() == 1 {
            items.pop().expect("one item")
        } else {
            self.node(start, NodeKind::Seq(items))
        })
    }

    /// `"..."`: a sequence of its characters (one node when it has one).
    fn literal(&mut self) -> Result<Node, GrammarError> {
        let start = self.pos;
        self.pos += 1;
        let mut chars = Vec::new();
        loop {
            let char_start = self.pos;
            match self.peek() {
                None => {
                    return Err(self.error(start, "unterminated literal: expected a closing `\"`"))
                }
                Some('"') => {
                    self.pos += 1;
                    break;
                }
                Some(_) => {
                    let c = self.char()?;
                    let class = ClassUnicode::new([ClassUnicodeRange::new(c, c)]);
                    chars.push(self.node(char_start, NodeKind::Char(class)));
                }
            }
        }
        Ok(if chars.len() == 1 {
            let mut only = chars.pop().expect("one character");
            only.span = self.span_from(start);
            only
        } else {
            self.node(start, NodeKind::Seq(chars))
        })
    }

    /// `[...]` or `[^...]`, with ranges `a-z`; a `-` first or last is itself.
    fn class(&mut self) -> Result<ClassUnicode, GrammarError> {
        let start = self.pos;
        self.pos += 1;
        let negated = self.peek() == Some('^');
        if negated {
            self.pos += 1;
        }
        let mut class = ClassUnicode::empty();
        loop {
            let char_start = self.pos;
            match self.peek() {
                None => {
                    return Err(self.error(
                        start,
                        "unterminated character class: expected a closing `]`",
                    ))
                }
                Some(']') => {
                    self.pos += 1;
                    break;
                }
                Some(_) => {
                    let lo = self.char()?;
                    let mut hi = lo;
                    if self.peek() == Some('-') && !matches!(self.peek_at(1), Some(']') | None) {
                        self.pos += 1;
                        hi = self.char()?;
                        if hi < lo {
                            return Err(self.error(
                                char_start,
                                format!(
                                    "character range `{}-{}` is empty: its end comes before its start",
                                    lo.escape_debug(),
                                    hi.escape_debug()
                                ),
                            ));
                        }
                    }
                    class.push(ClassUnicodeRange::new(lo, hi));
                }
            }
        }
        if class.ranges().is_empty() {
            return Err(self.error(start, "empty character class: it matches no character"));
        }
        if negated {
            class.negate();
            if class.ranges().is_empty() {
                return Err(self.error(
                    start,
                    "negated character class excludes every character: it matches none",
                ));
            }
        }
        Ok(class)
    }

    /// One character of a literal or class, escapes decoded.
    fn char(&mut self) -> Result<char, GrammarError> {
        let start = self.pos;
        let Some(c) = self.bump() else {
            return Err(self.error(start, "unexpected end of the grammar"));
        };
        if c != '\\' {
            return Ok(c);
        }
        let Some(e) = self.bump() else {
            return Err(self.error(start, "unexpected end of the grammar after `\\`"));
        };
        let digits = match e {
            'x' => 2,
            'u' => 4,
            'U' => 8,
            't' => return Ok('\t'),
            'r' => return Ok('\r'),
            'n' => return Ok('\n'),
            '\\' | '"' | '[' | ']' | '-' => return Ok(e),
            _ => {
                return Err(self.error(
                    start,
                    format!(
                        "unknown escape `\\{}`: GBNF knows \\x.. \\u.... \\U........ \\t \\n \\r \\\\ \\\" \\[ \\] \\-",
                        e.escape_debug()
                    ),
                ))
            }
        };
        let hex = self.text.get(self.pos..self.pos + digits).unwrap_or("");
        if hex.len() != digits || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(self.error(
                start,
                format!("`\\{e}` needs exactly {digits} hexadecimal digits"),
            ));
        }
        self.pos += digits;
        let value = u32::from_str_radix(hex, 16).expect("checked hexadecimal digits");
        char::from_u32(value).ok_or_else(|| {
            self.error(
                start,
                format!(
                    "`\\{e}{hex}` is not a Unicode scalar value (a surrogate or above U+10FFFF)"
                ),
            )
        })
    }

    /// After an item: `*`, `+`, `?`, `{m}`, `{m,}`, `{m,n}` or `{,n}`.
    fn repetition(&mut self) -> Result<(u32, Option<u32>), GrammarError> {
        let start = self.pos;
        match self.bump() {
            Some('*') => return Ok((0, None)),
            Some('+') => return Ok((1, None)),
            Some('?') => return Ok((0, Some(1))),
            _ => {}
        }
        // `{`: bounds, with spaces allowed as llama.cpp allows them.
        self.skip_space(false);
        let min = if self.peek() == Some(',') {
            None
        } else {
            Some(self.integer(start)?)
        };
        self.skip_space(false);
        let bounds = match self.bump() {
            // `min` is `None` only before a `,`.
            Some('}') => (min.unwrap_or(0), min),
            Some(',') => {
                self.skip_space(false);
                let max = if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    Some(self.integer(start)?)
                } else {
                    None
                };
                self.skip_space(false);
                if self.bump() != Some('}') {
                    return Err(self.error(start, "repetition not closed: expected `}`"));
                }
                if min.is_none() && max.is_none() {
                    return Err(self.error(start, "`{,}` gives no bound: write `*`"));
                }
                (min.unwrap_or(0), max)
            }
            _ => {
                return Err(self.error(
                    start,
                    "malformed repetition: expected `{m}`, `{m,}`, `{m,n}` or `{,n}`",
                ))
            }
        };
        if let (m, Some(n)) = bounds {
            if n < m {
                return Err(self.error(
                    start,
                    format!("repetition `{{{m},{n}}}` has its maximum below its minimum"),
                ));
            }
        }
        Ok(bounds)
    }

    fn integer(&mut self, rep_start: usize) -> Result<u32, GrammarError> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(self.error(
                rep_start,
                format!(
                    "expected a number in the repetition, found {}",
                    self.found()
                ),
            ));
        }
        self.text[start..self.pos].parse().map_err(|_| {
            self.error(
                start,
                format!(
                    "repetition bound `{}` is too large",
                    &self.text[start..self.pos]
                ),
            )
        })
    }
}
