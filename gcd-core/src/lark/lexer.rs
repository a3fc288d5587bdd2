//! Grammar text to tokens. Separate from the parser so that literal escapes,
//! regex delimiters and line continuations are settled before any grammar
//! structure is looked at; the parser then only sees [`Tok`]s.

use super::source::Source;
use crate::error::{Diagnostic, DiagnosticKind};
use crate::grammar::SpecialToken;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Name(String),
    Str {
        text: String,
        ci: bool,
    },
    Regex {
        body: String,
        flags: String,
    },
    Number(i64),
    /// `<|im_end|>`, `<[128009]>`.
    Special(SpecialToken),
    /// `<[128000-128010,128020]>`: any one token whose id is in these
    /// inclusive ranges (sorted, disjoint, not adjacent).
    TokenSet(Vec<(u32, u32)>),
    /// `%json { ... }`: the JSON text of an inline schema (also the
    /// object after `%llguidance`).
    Json(String),
    /// `%regex { ... }`: the JSON text of a structured regex.
    RegexExt(String),
    /// `@Name`, `@path::Name`: a Rust type (in `grammar!`).
    TypeRef(String),
    Directive(String),
    Colon,
    Pipe,
    LParen,
    RParen,
    LBrack,
    RBrack,
    LBrace,
    RBrace,
    Comma,
    Question,
    Star,
    Plus,
    Tilde,
    /// `&`: intersection of terminals (llguidance).
    Amp,
    /// `=` in rule attributes, `max_tokens=10`.
    Eq,
    Dot,
    DotDot,
    Arrow,
    Bang,
    Newline,
    Eof,
    /// A malformed token, already reported.
    Invalid,
}

#[derive(Clone, Debug)]
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) start: usize,
    pub(super) end: usize,
}

pub(super) fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Name(n) => format!("`{n}`"),
        Tok::Str { text, ci } => format!("{text:?}{}", if *ci { "i" } else { "" }),
        Tok::Regex { body, flags } => format!("`/{body}/{flags}`"),
        Tok::Number(n) => format!("`{n}`"),
        Tok::Special(t) => format!("special token `{t}`"),
        Tok::TokenSet(ranges) => format!("token set `{}`", token_set_text(ranges)),
        Tok::Json(_) => "`%json { ... }`".into(),
        Tok::RegexExt(_) => "`%regex { ... }`".into(),
        Tok::TypeRef(name) => format!("`@{name}`"),
        Tok::Directive(d) => format!("`%{d}`"),
        Tok::Colon => "`:`".into(),
        Tok::Pipe => "`|`".into(),
        Tok::LParen => "`(`".into(),
        Tok::RParen => "`)`".into(),
        Tok::LBrack => "`[`".into(),
        Tok::RBrack => "`]`".into(),
        Tok::LBrace => "`{`".into(),
        Tok::RBrace => "`}`".into(),
        Tok::Comma => "`,`".into(),
        Tok::Question => "`?`".into(),
        Tok::Star => "`*`".into(),
        Tok::Plus => "`+`".into(),
        Tok::Tilde => "`~`".into(),
        Tok::Amp => "`&`".into(),
        Tok::Eq => "`=`".into(),
        Tok::Dot => "`.`".into(),
        Tok::DotDot => "`..`".into(),
        Tok::Arrow => "`->`".into(),
        Tok::Bang => "`!`".into(),
        Tok::Newline => "end of line".into(),
        Tok::Eof => "end of file".into(),
        Tok::Invalid => "an invalid token".into(),
    }
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

struct Lexer<'s, 'a> {
    src: &'s Source<'a>,
    text: &'a str,
    i: usize,
    toks: Vec<Token>,
    diags: &'s mut Vec<Diagnostic>,
}

pub(super) fn lex(src: &Source<'_>, diags: &mut Vec<Diagnostic>) -> Vec<Token> {
    let mut lx = Lexer {
        src,
        text: src.text,
        i: 0,
        toks: Vec::new(),
        diags,
    };
    lx.run();
    lx.toks
}

impl Lexer<'_, '_> {
    fn peek_at(&self, i: usize) -> Option<char> {
        self.text.get(i..).and_then(|s| s.chars().next())
    }

    fn push(&mut self, tok: Tok, start: usize, end: usize) {
        self.toks.push(Token { tok, start, end });
    }

    fn error(&mut self, kind: DiagnosticKind, start: usize, end: usize, msg: impl Into<String>) {
        let span = self.src.span(start, end);
        self.diags.push(Diagnostic::new(kind, Some(span), msg));
    }

    fn skip_to_eol(&mut self) {
        while let Some(c) = self.peek_at(self.i) {
            if c == '\n' {
                break;
            }
            self.i += c.len_utf8();
        }
    }

    fn run(&mut self) {
        while let Some(c) = self.peek_at(self.i) {
            let start = self.i;
            let next = self.peek_at(start + c.len_utf8());
            let single = |tok| Some((tok, 1usize));
            let punct = match c {
                ':' => single(Tok::Colon),
                '|' => single(Tok::Pipe),
                '(' => single(Tok::LParen),
                ')' => single(Tok::RParen),
                '[' => single(Tok::LBrack),
                ']' => single(Tok::RBrack),
                '{' => single(Tok::LBrace),
                '}' => single(Tok::RBrace),
                ',' => single(Tok::Comma),
                '?' => single(Tok::Question),
                '*' => single(Tok::Star),
                '+' => single(Tok::Plus),
                '~' => single(Tok::Tilde),
                '&' => single(Tok::Amp),
                '=' => single(Tok::Eq),
                '!' => single(Tok::Bang),
                '.' if next == Some('.') => Some((Tok::DotDot, 2)),
                '.' => single(Tok::Dot),
                '-' if next == Some('>') => Some((Tok::Arrow, 2)),
                '\n' => single(Tok::Newline),
                _ => None,
            };
            if let Some((tok, len)) = punct {
                self.i += len;
                self.push(tok, start, self.i);
                continue;
            }
            match c {
                ' ' | '\t' | '\r' | '\x0c' | '\u{feff}' => self.i += c.len_utf8(),
                '#' => self.skip_to_eol(),
                '/' if next == Some('/') => self.skip_to_eol(),
                '/' => self.regex(),
                '<' => self.special_token(),
                '@' => {
                    let mut j = start + 1;
                    while self.peek_at(j).is_some_and(|c| is_name_char(c) || c == ':') {
                        j += 1;
                    }
                    self.i = j;
                    let name = &self.text[start + 1..j];
                    if name.is_empty() || name.starts_with(':') || name.ends_with(':') {
                        self.error(
                            DiagnosticKind::Syntax,
                            start,
                            j,
                            "expected a Rust type after `@` (`@ToolCall`, `@tools::Call`)",
                        );
                        self.push(Tok::Invalid, start, j);
                    } else {
                        self.push(Tok::TypeRef(name.to_string()), start, j);
                    }
                }
                '"' => self.string(),
                '\\' => {
                    // A line continuation: `\`, optional blanks, end of line.
                    let mut j = start + 1;
                    while matches!(self.peek_at(j), Some(' ' | '\t' | '\r')) {
                        j += 1;
                    }
                    if matches!(self.peek_at(j), Some('\n') | None) {
                        self.i = j + 1;
                    } else {
                        self.i += 1;
                        self.error(
                            DiagnosticKind::Syntax,
                            start,
                            self.i,
                            "unexpected `\\`: a backslash outside a literal may only end a line (line continuation)",
                        );
                        self.push(Tok::Invalid, start, self.i);
                    }
                }
                '%' => {
                    let mut j = start + 1;
                    while self.peek_at(j).is_some_and(is_name_char) {
                        j += 1;
                    }
                    self.i = j;
                    if j == start + 1 {
                        self.error(
                            DiagnosticKind::Syntax,
                            start,
                            j,
                            "expected a directive name after `%` (`%ignore` or `%import`)",
                        );
                        self.push(Tok::Invalid, start, j);
                    } else if &self.text[start + 1..j] == "json" {
                        self.inline_json(start, "json");
                    } else if &self.text[start + 1..j] == "regex" {
                        self.inline_json(start, "regex");
                    } else if &self.text[start + 1..j] == "llguidance" {
                        self.push(Tok::Directive("llguidance".into()), start, j);
                        self.inline_json(j, "llguidance");
                    } else {
                        self.push(
                            Tok::Directive(self.text[start + 1..j].to_string()),
                            start,
                            j,
                        );
                    }
                }
                '-' | '0'..='9' => {
                    let mut j = start + 1;
                    while self.peek_at(j).is_some_and(|c| c.is_ascii_digit()) {
                        j += 1;
                    }
                    self.i = j;
                    if c == '-' && j == start + 1 {
                        self.error(
                            DiagnosticKind::Syntax,
                            start,
                            j,
                            "unexpected `-`: expected `->` (an alias) or a negative number",
                        );
                        self.push(Tok::Invalid, start, j);
                    } else {
                        match self.text[start..j].parse::<i64>() {
                            Ok(n) => self.push(Tok::Number(n), start, j),
                            Err(_) => {
                                self.error(DiagnosticKind::Syntax, start, j, "number too large");
                                self.push(Tok::Invalid, start, j);
                            }
                        }
                    }
                }
                c if is_name_start(c) => {
                    let mut j = start + 1;
                    while self.peek_at(j).is_some_and(is_name_char) {
                        j += 1;
                    }
                    self.i = j;
                    self.push(Tok::Name(self.text[start..j].to_string()), start, j);
                }
                _ => {
                    self.i += c.len_utf8();
                    self.error(
                        DiagnosticKind::Syntax,
                        start,
                        self.i,
                        format!("unexpected character {c:?}"),
                    );
                    self.push(Tok::Invalid, start, self.i);
                }
            }
        }
        let end = self.text.len();
        self.push(Tok::Eof, end, end);
    }

    /// `%json { ... }`: an inline JSON Schema, taken whole (strings and
    /// nesting followed, so a `}` inside a string does not close it) and
    /// parsed by the parser. The cursor is after `%json`. The same for the
    /// JSON objects after `%regex` and `%llguidance` (`directive`).
    fn inline_json(&mut self, start: usize, directive: &str) {
        let what = match directive {
            "json" => "a JSON Schema object",
            "regex" => "a JSON object",
            _ => "a JSON object of options",
        };
        let mut j = self.i;
        while matches!(self.peek_at(j), Some(' ' | '\t' | '\r' | '\n')) {
            j += 1;
        }
        if self.peek_at(j) != Some('{') {
            self.error(
                DiagnosticKind::Syntax,
                start,
                self.i,
                format!("`%{directive}` must be followed by {what} `{{ ... }}`"),
            );
            self.push(Tok::Invalid, start, self.i);
            return;
        }
        let open = j;
        let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
        for (k, c) in self.text[open..].char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' if in_string => escaped = true,
                '"' => in_string = !in_string,
                '{' | '[' if !in_string => depth += 1,
                '}' | ']' if !in_string => {
                    depth -= 1;
                    if depth == 0 {
                        let end = open + k + 1;
                        self.i = end;
                        let text = self.text[open..end].to_string();
                        let tok = match directive {
                            "regex" => Tok::RegexExt(text),
                            _ => Tok::Json(text),
                        };
                        self.push(tok, start, end);
                        return;
                    }
                }
                _ => {}
            }
        }
        self.i = self.text.len();
        self.error(
            DiagnosticKind::Syntax,
            start,
            open + 1,
            format!("{what} after `%{directive}` is not closed: a `}}` is missing"),
        );
        self.push(Tok::Invalid, start, self.i);
    }

    /// `<name>` or `<[id]>`, llguidance's spelling of a special token: the
    /// name is the token's whole text (`<|eot_id|>`), up to the first `>`,
    /// without blanks.
    fn special_token(&mut self) {
        let start = self.i;
        let rest = &self.text[start..];
        let end = rest
            .char_indices()
            .skip(1)
            .find(|&(_, c)| c == '>' || c.is_whitespace())
            .filter(|&(_, c)| c == '>')
            .map(|(j, _)| start + j + 1);
        let Some(end) = end else {
            let stop = rest
                .find(char::is_whitespace)
                .map_or(self.text.len(), |j| start + j);
            self.i = stop;
            self.error(
                DiagnosticKind::Syntax,
                start,
                stop,
                "a special token is written `<name>` or `<[id]>`, with no blank before its `>`",
            );
            self.push(Tok::Invalid, start, stop);
            return;
        };
        self.i = end;
        let text = &self.text[start..end];
        let token = match text.strip_prefix("<[").and_then(|t| t.strip_suffix("]>")) {
            Some(set) if set.contains(['-', ',', '*', '^']) => {
                match token_set(set) {
                    Ok(ranges) => self.push(Tok::TokenSet(ranges), start, end),
                    Err((kind, why)) => {
                        self.error(kind, start, end, format!("`{text}`: {why}"));
                        self.push(Tok::Invalid, start, end);
                    }
                }
                return;
            }
            Some(id) => match id.parse::<u32>() {
                Ok(id) => SpecialToken::Id(id),
                Err(_) => {
                    let why = if !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) {
                        "is past any vocabulary (ids are below 2^32)"
                    } else {
                        "needs a number, or a set of them: `<[1-5,9]>`"
                    };
                    self.error(
                        DiagnosticKind::Syntax,
                        start,
                        end,
                        format!("`{text}`: a token id `<[N]>` {why}"),
                    );
                    self.push(Tok::Invalid, start, end);
                    return;
                }
            },
            // `<||>`: the delimiters of a name with no name in them.
            None if text.len() > 2 && text != "<||>" => SpecialToken::Named(text.to_string()),
            None => {
                self.error(
                    DiagnosticKind::Syntax,
                    start,
                    end,
                    format!("`{text}` names no special token"),
                );
                self.push(Tok::Invalid, start, end);
                return;
            }
        };
        self.push(Tok::Special(token), start, end);
    }

    /// A `"..."` literal, with Lark's escapes: `\\` `\"` `\n` `\t` `\r` `\f`
    /// `\xHH` `\uHHHH` `\UHHHHHHHH`; any other `\c` stays a backslash and `c`.
    fn string(&mut self) {
        let start = self.i;
        let mut j = start + 1;
        let mut text = String::new();
        let mut ok = true;
        let closed = loop {
            let Some(c) = self.peek_at(j) else {
                break false;
            };
            match c {
                '"' => {
                    j += 1;
                    break true;
                }
                '\n' => break false,
                '\\' => {
                    let Some(n) = self.peek_at(j + 1) else {
                        j += 1;
                        break false;
                    };
                    if n == '\n' {
                        j += 1;
                        break false;
                    }
                    let esc_start = j;
                    j += 1 + n.len_utf8();
                    let hex_len = match n {
                        'x' => 2,
                        'u' => 4,
                        'U' => 8,
                        _ => 0,
                    };
                    if hex_len > 0 {
                        let digits = self
                            .text
                            .get(j..j + hex_len)
                            .filter(|d| d.chars().all(|c| c.is_ascii_hexdigit()));
                        match digits
                            .and_then(|d| u32::from_str_radix(d, 16).ok())
                            .map(char::from_u32)
                        {
                            Some(Some(ch)) => {
                                text.push(ch);
                                j += hex_len;
                            }
                            _ => {
                                ok = false;
                                self.error(
                                    DiagnosticKind::Syntax,
                                    esc_start,
                                    j,
                                    format!(
                                        "invalid escape `\\{n}` in a string: expected {hex_len} hex digits of a Unicode scalar value"
                                    ),
                                );
                            }
                        }
                        continue;
                    }
                    match n {
                        '\\' => text.push('\\'),
                        '"' => text.push('"'),
                        'n' => text.push('\n'),
                        't' => text.push('\t'),
                        'r' => text.push('\r'),
                        'f' => text.push('\x0c'),
                        other => {
                            text.push('\\');
                            text.push(other);
                        }
                    }
                }
                c => {
                    text.push(c);
                    j += c.len_utf8();
                }
            }
        };
        if !closed {
            self.i = j;
            self.error(
                DiagnosticKind::Syntax,
                start,
                j,
                "unterminated string literal: expected a closing `\"` before the end of the line",
            );
            self.push(Tok::Invalid, start, j);
            return;
        }
        let ci = self.peek_at(j) == Some('i');
        if ci {
            j += 1;
        }
        self.i = j;
        let tok = if ok {
            Tok::Str { text, ci }
        } else {
            Tok::Invalid
        };
        self.push(tok, start, j);
    }

    /// A `/.../flags` literal. The body is kept as written.
    fn regex(&mut self) {
        let start = self.i;
        let mut j = start + 1;
        let closed = loop {
            match self.peek_at(j) {
                None => break false,
                Some('/') => break true,
                Some('\\') => {
                    j += 1;
                    if let Some(n) = self.peek_at(j) {
                        j += n.len_utf8();
                    }
                }
                Some(c) => j += c.len_utf8(),
            }
        };
        let body_end = j;
        if closed {
            j += 1;
        }
        let flags_start = j;
        while self.peek_at(j).is_some_and(|c| "imslux".contains(c)) {
            j += 1;
        }
        let body = &self.text[start + 1..body_end];
        let flags = &self.text[flags_start..j];
        let newline = body.find('\n');
        if !closed || (newline.is_some() && !flags.contains('x')) {
            // Resume at the end of the line so one stray `/` does not swallow the file.
            let eol = newline.map_or(body_end, |n| start + 1 + n);
            self.i = eol;
            self.error(
                DiagnosticKind::Syntax,
                start,
                eol,
                "unterminated regex literal: expected a closing `/` before the end of the line \
                 (a regex may only span lines with the `x` flag)",
            );
            self.push(Tok::Invalid, start, eol);
            return;
        }
        self.i = j;
        self.push(
            Tok::Regex {
                body: body.to_string(),
                flags: flags.to_string(),
            },
            start,
            j,
        );
    }
}

/// Most token ids one token set may hold: each becomes one of the grammar's
/// special tokens, of which there are at most this many.
const MAX_TOKEN_SET: u64 = crate::grammar::MAX_SPECIAL_TOKENS as u64;

/// The ranges of a token set's text (between `<[` and `]>`): ids and
/// inclusive ranges `a-b`, separated by commas; merged, sorted.
/// `*` and `^...` are refused: they take ordinary text tokens by id.
fn token_set(set: &str) -> Result<Vec<(u32, u32)>, (DiagnosticKind, String)> {
    let syntax = |why: String| (DiagnosticKind::Syntax, why);
    if set.trim() == "*" || set.trim_start().starts_with('^') {
        let what = if set.trim() == "*" {
            "any token"
        } else {
            "any token but these"
        };
        return Err((
            DiagnosticKind::Unsupported,
            format!(
                "{what} includes ordinary text tokens, which gcd matches by their text, never \
                 by id (a token's bytes are text or one grammar symbol, not both); name the \
                 special tokens instead, e.g. `<[128000-128255]>`"
            ),
        ));
    }
    let id = |t: &str| {
        let t = t.trim();
        t.parse::<u32>().map_err(|_| {
            syntax(format!(
                "`{t}` is not a token id (a set is written `<[1-5,9]>`: ids and inclusive ranges)"
            ))
        })
    };
    let mut ranges = Vec::new();
    for item in set.split(',') {
        let (lo, hi) = match item.split_once('-') {
            Some((lo, hi)) => (id(lo)?, id(hi)?),
            None => {
                let n = id(item)?;
                (n, n)
            }
        };
        if lo > hi {
            return Err(syntax(format!("the range `{}` is empty", item.trim())));
        }
        ranges.push((lo, hi));
    }
    ranges.sort_unstable();
    let mut merged: Vec<(u32, u32)> = Vec::new();
    for (lo, hi) in ranges {
        match merged.last_mut() {
            Some(last) if u64::from(lo) <= u64::from(last.1) + 1 => last.1 = last.1.max(hi),
            _ => merged.push((lo, hi)),
        }
    }
    let size: u64 = merged.iter().map(|&(lo, hi)| u64::from(hi - lo) + 1).sum();
    if size > MAX_TOKEN_SET {
        return Err((
            DiagnosticKind::TooLarge,
            format!("the set holds {size} ids; a grammar may name at most {MAX_TOKEN_SET} tokens"),
        ));
    }
    Ok(merged)
}

/// A token set as written back: `<[1-5,9]>`.
pub(super) fn token_set_text(ranges: &[(u32, u32)]) -> String {
    let items: Vec<String> = ranges
        .iter()
        .map(|&(lo, hi)| match lo == hi {
            true => lo.to_string(),
            false => format!("{lo}-{hi}"),
        })
        .collect();
    format!("<[{}]>", items.join(","))
}
