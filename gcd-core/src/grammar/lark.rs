//! Lark-subset grammar text format.
//!
//! [`parse`] reads grammar text written in (a subset of) the syntax of
//! [Lark](https://lark-parser.readthedocs.io/en/latest/grammar.html) into a
//! [`GrammarBuilder`]; [`parse_grammar`] also builds it. The `grammar!` macro
//! accepts the same language, so everything here is a plain function of the
//! text.
//!
//! # Supported
//!
//! - Rules `name: alt1 | alt2`. A definition ends at the end of its line,
//!   unless the next non-blank line starts with `|` (as in Lark). Inside
//!   `( )` and `[ ]` line breaks are also allowed (a superset of Lark) as long
//!   as the next line does not start a new definition. `\` at the end of a
//!   line joins it with the next.
//! - Rule modifiers: `?name` ([`RuleKind::InlineSingle`]), `_name`
//!   ([`RuleKind::Hidden`]), `!name` (Lark's keep-all-tokens: the rule's
//!   parse-tree nodes keep anonymous literals and `_HIDDEN` tokens).
//! - Rule priorities `name.2:` are accepted and ignored: they only steer
//!   Lark's LALR/Earley conflict resolution, and gcd's LL(1) tables have no
//!   such choice to make.
//! - Terminals `NAME: ...` and `_NAME: ...` (hidden from parse trees), with a
//!   priority `NAME.2:` (may be negative). A terminal's definition is an
//!   expression over literals, regexes, ranges and other terminals and is
//!   compiled to one regex (regex-automata syntax); referenced terminals are
//!   substituted, and a cycle is an error. A definition that is one plain
//!   literal, or a sequence of plain literals, stays a
//!   [`TerminalPattern::Literal`] (literals win ties against regexes).
//! - In expressions: names, `"literal"`, `"literal"i` (case-insensitive),
//!   `/regex/flags` (flags `i m s x`; `u` and `l` are accepted and dropped),
//!   ranges `"a".."z"`, groups `( )`, optional `[ ]`, the operators `?` `*`
//!   `+`, repetition `item ~ n` and `item ~ n..m`, and an alias `-> name` at
//!   the end of a top-level alternative of a rule.
//! - Anonymous literals and regexes in rules become [`Expr::Pattern`]s (the
//!   builder shares one terminal per pattern and reuses a named terminal with
//!   the same pattern, as Lark does). An empty literal `""` in a rule means
//!   "nothing" (the empty sequence).
//! - `%ignore NAME`, `%ignore "literal"`, `%ignore /regex/` (and any other
//!   terminal expression, compiled to one anonymous ignored terminal).
//! - `%import common.NAME`, `%import common.NAME -> ALIAS`,
//!   `%import common (A, B, C)`: terminals from gcd's own
//!   [`common.lark`](COMMON_LARK), which matches the same languages as Lark's.
//! - Comments `// ...` and `# ...` to the end of the line.
//!
//! As in Lark, terminals that no rule and no `%ignore` uses are left out of
//! the grammar (they may still be used inside other terminals): so helper
//! terminals like Lark's `_STRING_INNER: /.*?/` are fine even though they
//! match the empty string.
//!
//! # Regexes
//!
//! Lark regexes are Python regexes; gcd compiles them with regex-automata.
//! The differences that matter are bridged: `\<` `\>` are plain characters
//! (word boundaries in regex-syntax), `\Z` is `\z`, `[` `&&` `--` `~~` inside
//! a character class are literal, a `{` that does not start a repetition is
//! literal. Lazy quantifiers (`*?` `+?` `??` `{n,m}?`) are kept: a terminal
//! whose regex has one ends its lexeme at its first match, as Lark's
//! `re.match` does for `/\/\*(.|\n)*?\*\//` (see [`crate::lexer`]).
//!
//! Each regex is checked when the grammar is read: syntax errors are
//! [`DiagnosticKind::InvalidRegex`] with the position inside the regex;
//! lookaround and backreferences, and anchors or word boundaries
//! (`^ $ \b \B \A \z`), are
//! [`DiagnosticKind::Unsupported`]. A terminal that a rule or `%ignore` uses
//! and that matches the empty string is a [`DiagnosticKind::EmptyMatch`].
//!
//! # Not supported
//!
//! Templates (`name{x}: ...`, `name{a}`), `%declare`, `%override`, `%extend`,
//! `%import` of anything but `common`: each is a
//! [`DiagnosticKind::Unsupported`] diagnostic that names the construct and its
//! position. Every error carries `line:column` and says what was expected;
//! after an error the parser skips to the next definition and goes on, so one
//! run reports as many problems as it can.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use regex_syntax::ast::{self, Ast};

use super::{Alternative, Expr, Grammar, GrammarBuilder, RuleKind, TerminalPattern};
use crate::error::{Diagnostic, DiagnosticKind, GrammarError, Pos, Span};

/// gcd's definitions of Lark's `common` terminals, used by `%import common`.
pub const COMMON_LARK: &str = include_str!("common.lark");

/// Groups nested deeper than this are an error (keeps recursion bounded).
const MAX_NESTING: usize = 64;
/// Chains of terminals defined in terms of terminals deeper than this are an error.
const MAX_TERMINAL_DEPTH: usize = 100;
/// Terminal compilation recursing deeper than this (groups inside terminals
/// inside terminals...) is an error: keeps the stack bounded.
const MAX_COMPILE_DEPTH: usize = 400;
/// A compiled terminal regex longer than this (in bytes) is an error.
const MAX_REGEX_LEN: usize = 1 << 20;
/// `~` repetitions in a rule alternative may expand to at most this many symbols.
const MAX_RULE_EXPANSION: u64 = 100_000;

const LOOKAROUND_MSG: &str =
    "lookaround/backreferences are not supported: gcd compiles every terminal to a DFA";

/// Parses grammar text into a builder (so callers can add more before building).
///
/// Returns every syntax error, unsupported construct and invalid terminal
/// found; problems that need the whole grammar (undefined rules, duplicate
/// rules) are reported by [`GrammarBuilder::build`].
pub fn parse(src: &str) -> Result<GrammarBuilder, GrammarError> {
    let source = Source::new(src);
    let mut diags = Vec::new();
    let toks = lex(&source, &mut diags);
    let mut parser = Parser {
        src: &source,
        toks,
        pos: 0,
        depth: 0,
        diags,
        out: Parsed::default(),
    };
    parser.file();
    let Parser { out, diags, .. } = parser;
    compile(out, diags)
}

/// [`parse`], then [`GrammarBuilder::build`].
pub fn parse_grammar(src: &str) -> Result<Grammar, GrammarError> {
    parse(src)?.build()
}

// ---------------------------------------------------------------------------
// Source positions

struct Source<'a> {
    text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> Source<'a> {
    fn new(text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Source { text, line_starts }
    }

    fn pos(&self, offset: usize) -> Pos {
        let mut off = offset.min(self.text.len());
        while !self.text.is_char_boundary(off) {
            off -= 1;
        }
        let line = match self.line_starts.binary_search(&off) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let col = self.text[self.line_starts[line]..off].chars().count() + 1;
        Pos {
            line: line as u32 + 1,
            col: col as u32,
        }
    }

    fn span(&self, start: usize, end: usize) -> Span {
        let end = end.max(start);
        Span {
            start: self.pos(start),
            end: self.pos(end),
            byte_start: start,
            byte_end: end,
        }
    }
}

// ---------------------------------------------------------------------------
// Lexer

#[derive(Clone, Debug, PartialEq)]
enum Tok {
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
struct Token {
    tok: Tok,
    start: usize,
    end: usize,
}

fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Name(n) => format!("`{n}`"),
        Tok::Str { text, ci } => format!("{text:?}{}", if *ci { "i" } else { "" }),
        Tok::Regex { body, flags } => format!("`/{body}/{flags}`"),
        Tok::Number(n) => format!("`{n}`"),
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

fn lex(src: &Source<'_>, diags: &mut Vec<Diagnostic>) -> Vec<Token> {
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

// ---------------------------------------------------------------------------
// Parsed definitions

/// Binding strength of a regex fragment: what it may be combined with
/// without parentheses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    /// May contain a top-level `|`.
    Alt,
    /// A concatenation or a quantified item: fine inside an alternation or a
    /// concatenation, must be wrapped to be quantified.
    Seq,
    /// One character, class or group: can take a quantifier.
    Atom,
}

/// A compiled terminal expression.
#[derive(Clone, Debug, PartialEq)]
enum Frag {
    Lit { text: String, ci: bool },
    Re { re: String, prec: Prec },
}

impl Frag {
    fn regex(&self) -> String {
        match self {
            Frag::Lit { text, ci } => TerminalPattern::Literal {
                text: text.clone(),
                case_insensitive: *ci,
            }
            .to_regex(),
            Frag::Re { re, .. } => re.clone(),
        }
    }

    fn prec(&self) -> Prec {
        match self {
            Frag::Lit { ci: true, .. } => Prec::Atom,
            Frag::Lit { text, .. } if text.chars().count() == 1 => Prec::Atom,
            Frag::Lit { .. } => Prec::Seq,
            Frag::Re { prec, .. } => *prec,
        }
    }

    /// The regex, wrapped in `(?:...)` when it binds looser than `min`.
    fn at(&self, min: Prec) -> String {
        let re = self.regex();
        if self.prec() < min {
            format!("(?:{re})")
        } else {
            re
        }
    }

    fn into_pattern(self) -> TerminalPattern {
        match self {
            Frag::Lit { text, ci } => TerminalPattern::Literal {
                text,
                case_insensitive: ci,
            },
            Frag::Re { re, .. } => TerminalPattern::Regex(re),
        }
    }
}

#[derive(Clone, Debug)]
struct ReLit {
    /// The regex in regex-automata syntax, flags applied; `None` when invalid
    /// (already reported).
    re: Option<String>,
    prec: Prec,
    matches_empty: bool,
    /// As written, for messages.
    text: String,
    span: Span,
}

#[derive(Clone, Debug)]
enum Node {
    Name(String, Span),
    Lit { text: String, ci: bool, span: Span },
    Re(Box<ReLit>),
    Range { lo: char, hi: char, span: Span },
    Seq(Vec<Node>),
    Alt(Vec<Node>),
    Opt(Box<Node>),
    Star(Box<Node>),
    Plus(Box<Node>),
    Repeat(Box<Node>, u32, u32),
}

impl Node {
    fn names<'n>(&'n self, out: &mut Vec<&'n str>) {
        match self {
            Node::Name(n, _) => out.push(n),
            Node::Lit { .. } | Node::Re(_) | Node::Range { .. } => {}
            Node::Seq(items) | Node::Alt(items) => items.iter().for_each(|i| i.names(out)),
            Node::Opt(e) | Node::Star(e) | Node::Plus(e) | Node::Repeat(e, ..) => e.names(out),
        }
    }

    /// Roughly how many symbols the builder makes of this (repeats multiply).
    fn cost(&self) -> u64 {
        match self {
            Node::Name(..) | Node::Lit { .. } | Node::Re(_) | Node::Range { .. } => 1,
            Node::Seq(items) | Node::Alt(items) => {
                items.iter().fold(0u64, |a, i| a.saturating_add(i.cost()))
            }
            Node::Opt(e) | Node::Star(e) | Node::Plus(e) => e.cost().saturating_add(1),
            Node::Repeat(e, _, max) => e
                .cost()
                .saturating_mul(u64::from(*max).max(1))
                .saturating_add(u64::from(*max)),
        }
    }
}

#[derive(Clone, Debug)]
struct ParsedAlt {
    node: Node,
    alias: Option<(String, Span)>,
    span: Span,
}

#[derive(Clone, Debug)]
enum TermBody {
    Expr(Node),
    Imported(Frag),
}

#[derive(Clone, Debug)]
struct TermDef {
    name: String,
    body: TermBody,
    span: Span,
    priority: i32,
}

#[derive(Clone, Debug)]
struct RuleDef {
    name: String,
    kind: RuleKind,
    keep_all_tokens: bool,
    alts: Vec<ParsedAlt>,
    span: Span,
}

#[derive(Clone, Debug)]
struct IgnoreDef {
    node: Node,
    span: Span,
}

#[derive(Default)]
struct Parsed {
    terms: Vec<TermDef>,
    rules: Vec<RuleDef>,
    ignores: Vec<IgnoreDef>,
}

// ---------------------------------------------------------------------------
// Parser

type PResult<T> = Result<T, ()>;

struct Parser<'s, 'a> {
    src: &'s Source<'a>,
    toks: Vec<Token>,
    pos: usize,
    /// How many `(`/`[` are open.
    depth: usize,
    diags: Vec<Diagnostic>,
    out: Parsed,
}

fn is_terminal_name(name: &str) -> bool {
    name.trim_start_matches('_')
        .starts_with(|c: char| c.is_ascii_uppercase())
}

impl Parser<'_, '_> {
    fn tok_at(&self, i: usize) -> &Token {
        &self.toks[i.min(self.toks.len() - 1)]
    }

    fn peek(&self) -> &Tok {
        &self.tok_at(self.pos).tok
    }

    fn cur(&self) -> Token {
        self.tok_at(self.pos).clone()
    }

    fn advance(&mut self) -> Token {
        let t = self.cur();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn span_of(&self, t: &Token) -> Span {
        self.src.span(t.start, t.end)
    }

    fn prev_end(&self) -> usize {
        if self.pos == 0 {
            0
        } else {
            self.tok_at(self.pos - 1).end
        }
    }

    fn error(&mut self, kind: DiagnosticKind, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::new(kind, Some(span), msg));
    }

    /// Reports "expected X, found <current token>" (unless the current token
    /// is an already reported invalid one) and fails.
    fn expected<T>(&mut self, what: &str) -> PResult<T> {
        let t = self.cur();
        if t.tok != Tok::Invalid {
            let mut msg = format!("expected {what}, found {}", describe(&t.tok));
            if t.tok == Tok::Colon {
                msg.push_str(" (each definition must start on a new line)");
            }
            self.error(DiagnosticKind::Syntax, self.span_of(&t), msg);
        }
        Err(())
    }

    fn skip_newlines(&mut self) {
        while *self.peek() == Tok::Newline {
            self.advance();
        }
    }

    fn next_non_newline(&self, mut j: usize) -> usize {
        while self.tok_at(j).tok == Tok::Newline {
            j += 1;
        }
        j
    }

    /// Does a definition or statement start at token `j`?
    fn is_def_start(&self, mut j: usize) -> bool {
        match &self.tok_at(j).tok {
            Tok::Directive(_) => return true,
            Tok::Question | Tok::Bang => return true,
            _ => {}
        }
        while matches!(self.tok_at(j).tok, Tok::Question | Tok::Bang) {
            j += 1;
        }
        matches!(self.tok_at(j).tok, Tok::Name(_))
            && matches!(self.tok_at(j + 1).tok, Tok::Colon | Tok::Dot | Tok::LBrace)
    }

    /// Skips line breaks that do not end the current definition: before a
    /// `|`, and inside brackets unless a new definition starts.
    fn skip_continuation(&mut self) {
        if *self.peek() != Tok::Newline {
            return;
        }
        let j = self.next_non_newline(self.pos);
        let t = &self.tok_at(j).tok;
        if *t == Tok::Pipe || (self.depth > 0 && *t != Tok::Eof && !self.is_def_start(j)) {
            self.pos = j;
        }
    }

    /// After an error: skip to the end of the current definition.
    fn recover(&mut self) {
        self.depth = 0;
        loop {
            match self.peek() {
                Tok::Eof => return,
                Tok::Newline => {
                    let j = self.next_non_newline(self.pos);
                    if self.tok_at(j).tok == Tok::Pipe {
                        self.pos = j + 1;
                    } else {
                        self.pos = j;
                        return;
                    }
                }
                _ => {
                    self.advance();
                }
            }
        }
    }

    fn file(&mut self) {
        loop {
            self.skip_newlines();
            let r = match self.peek() {
                Tok::Eof => break,
                Tok::Directive(_) => self.statement(),
                Tok::Name(_) | Tok::Question | Tok::Bang => self.definition(),
                _ => self.expected("a rule or terminal definition or a `%` directive"),
            };
            if r.is_err() {
                self.recover();
            }
        }
    }

    fn end_of_definition(&mut self) -> PResult<()> {
        match self.peek() {
            Tok::Newline | Tok::Eof => Ok(()),
            Tok::RParen if self.depth == 0 => {
                let t = self.cur();
                self.error(
                    DiagnosticKind::Syntax,
                    self.span_of(&t),
                    "found `)` without a matching `(`",
                );
                Err(())
            }
            Tok::RBrack if self.depth == 0 => {
                let t = self.cur();
                self.error(
                    DiagnosticKind::Syntax,
                    self.span_of(&t),
                    "found `]` without a matching `[`",
                );
                Err(())
            }
            _ => self.expected("`|`, an alias `-> name` or the end of the line"),
        }
    }

    /// Reports a template (`name{...}`) as unsupported; the current token is
    /// `{`. Skips to the matching `}` on the same line and says whether it
    /// was found.
    fn template(&mut self, name_tok: &Token, what: &str) -> bool {
        let mut end = self.cur().end;
        let mut j = self.pos;
        let mut open = 0usize;
        let closed = loop {
            match &self.tok_at(j).tok {
                Tok::LBrace => open += 1,
                Tok::RBrace => {
                    open = open.saturating_sub(1);
                    if open == 0 {
                        end = self.tok_at(j).end;
                        break true;
                    }
                }
                Tok::Newline | Tok::Eof => break false,
                _ => {}
            }
            j += 1;
        };
        if closed {
            self.pos = j + 1;
        }
        let name = match &name_tok.tok {
            Tok::Name(n) => n.clone(),
            _ => String::new(),
        };
        let span = self.src.span(name_tok.start, end);
        self.error(
            DiagnosticKind::Unsupported,
            span,
            format!(
                "templates are not supported ({what} `{name}{{...}}`): write out each instantiation as its own rule"
            ),
        );
        closed
    }

    fn definition(&mut self) -> PResult<()> {
        let first = self.cur();
        let mut inline = false;
        let mut keep_all_tokens = false;
        while matches!(self.peek(), Tok::Question | Tok::Bang) {
            if *self.peek() == Tok::Question {
                inline = true;
            } else {
                keep_all_tokens = true;
            }
            self.advance();
        }
        let name_tok = self.cur();
        let Tok::Name(name) = name_tok.tok.clone() else {
            return self.expected("a rule name after the modifier");
        };
        self.advance();
        let name_span = self.span_of(&name_tok);
        let terminal = is_terminal_name(&name);
        if terminal && first.start != name_tok.start {
            self.error(
                DiagnosticKind::Syntax,
                self.src.span(first.start, name_tok.start),
                format!("the modifiers `?` and `!` apply only to rules, not to terminal `{name}`"),
            );
            return Err(());
        }
        if *self.peek() == Tok::LBrace {
            self.template(&name_tok, "template definition");
            return Err(());
        }
        let mut priority = 0i32;
        if *self.peek() == Tok::Dot {
            self.advance();
            let t = self.cur();
            let Tok::Number(n) = t.tok else {
                return self.expected(&format!("a priority number after `{name}.`"));
            };
            self.advance();
            match i32::try_from(n) {
                Ok(p) => priority = p,
                Err(_) => {
                    self.error(
                        DiagnosticKind::Syntax,
                        self.span_of(&t),
                        "priority out of range",
                    );
                    return Err(());
                }
            }
        }
        if *self.peek() != Tok::Colon {
            return self.expected(&format!("`:` after `{name}`"));
        }
        self.advance();
        let alts = self.expansions(true)?;
        self.end_of_definition()?;
        if terminal {
            for a in &alts {
                if let Some((alias, span)) = &a.alias {
                    self.error(
                        DiagnosticKind::Syntax,
                        *span,
                        format!("terminal `{name}` cannot have an alias (`-> {alias}`): aliases name rule alternatives"),
                    );
                    return Err(());
                }
            }
            let node = alts_node(alts.into_iter().map(|a| a.node).collect());
            self.out.terms.push(TermDef {
                name,
                body: TermBody::Expr(node),
                span: name_span,
                priority,
            });
        } else {
            // Rule priorities only steer Lark's LALR/Earley; ignored here.
            let kind = if name.starts_with('_') {
                RuleKind::Hidden
            } else if inline {
                RuleKind::InlineSingle
            } else {
                RuleKind::Normal
            };
            self.out.rules.push(RuleDef {
                name,
                kind,
                keep_all_tokens,
                alts,
                span: name_span,
            });
        }
        Ok(())
    }

    fn expansions(&mut self, top: bool) -> PResult<Vec<ParsedAlt>> {
        let mut alts = Vec::new();
        loop {
            self.skip_continuation();
            let start = self.cur().start;
            let node = self.expansion()?;
            let end = self.prev_end().max(start);
            let mut alias = None;
            if *self.peek() == Tok::Arrow {
                let arrow = self.advance();
                let t = self.cur();
                let Tok::Name(a) = t.tok.clone() else {
                    return self.expected("a rule name after `->`");
                };
                if is_terminal_name(&a) {
                    self.error(
                        DiagnosticKind::Syntax,
                        self.span_of(&t),
                        format!("expected a rule name (lowercase) after `->`, found terminal name `{a}`"),
                    );
                    return Err(());
                }
                self.advance();
                if !top {
                    self.error(
                        DiagnosticKind::Syntax,
                        self.src.span(arrow.start, t.end),
                        "an alias `-> name` may only end a top-level alternative, not one inside `( )` or `[ ]`",
                    );
                    return Err(());
                }
                alias = Some((a, self.span_of(&t)));
            }
            alts.push(ParsedAlt {
                node,
                alias,
                span: self.src.span(start, end),
            });
            self.skip_continuation();
            if *self.peek() == Tok::Pipe {
                self.advance();
            } else {
                return Ok(alts);
            }
        }
    }

    fn expansion(&mut self) -> PResult<Node> {
        let mut items = Vec::new();
        loop {
            self.skip_continuation();
            match self.peek() {
                Tok::Name(_) | Tok::Str { .. } | Tok::Regex { .. } | Tok::LParen | Tok::LBrack => {
                    items.push(self.expr()?);
                }
                Tok::Pipe | Tok::RParen | Tok::RBrack | Tok::Arrow | Tok::Newline | Tok::Eof => {
                    break
                }
                Tok::Question | Tok::Star | Tok::Plus | Tok::Tilde if !items.is_empty() => {
                    let t = self.cur();
                    self.error(
                        DiagnosticKind::Syntax,
                        self.span_of(&t),
                        format!(
                            "only one operator may follow an item, found a second one ({}); use parentheses, e.g. `(x+)?`",
                            describe(&t.tok)
                        ),
                    );
                    return Err(());
                }
                _ => {
                    let end = if self.depth > 0 {
                        "a closing bracket"
                    } else {
                        "the end of the line"
                    };
                    return self.expected(&format!(
                        "a name, a \"literal\", a /regex/, `(`, `[`, `|` or {end}"
                    ));
                }
            }
        }
        Ok(if items.len() == 1 {
            items.pop().unwrap_or(Node::Seq(Vec::new()))
        } else {
            Node::Seq(items)
        })
    }

    fn number(&mut self, after: &str) -> PResult<(u32, Span)> {
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

    fn expr(&mut self) -> PResult<Node> {
        let atom = self.atom()?;
        let node = match self.peek() {
            Tok::Question => Node::Opt(Box::new(atom)),
            Tok::Star => Node::Star(Box::new(atom)),
            Tok::Plus => Node::Plus(Box::new(atom)),
            Tok::Tilde => {
                self.advance();
                let (min, _) = self.number("`~`")?;
                let mut max = min;
                if *self.peek() == Tok::DotDot {
                    self.advance();
                    let (m, mspan) = self.number("`..`")?;
                    if m < min {
                        self.error(
                            DiagnosticKind::Syntax,
                            mspan,
                            format!("empty repetition range `~ {min}..{m}`: the maximum must be at least the minimum"),
                        );
                        return Err(());
                    }
                    max = m;
                }
                return Ok(Node::Repeat(Box::new(atom), min, max));
            }
            _ => return Ok(atom),
        };
        self.advance();
        Ok(node)
    }

    fn atom(&mut self) -> PResult<Node> {
        let t = self.cur();
        match t.tok.clone() {
            Tok::LParen | Tok::LBrack => {
                if self.depth >= MAX_NESTING {
                    self.error(
                        DiagnosticKind::TooLarge,
                        self.span_of(&t),
                        format!("groups nested too deeply (the limit is {MAX_NESTING})"),
                    );
                    return Err(());
                }
                let close = if t.tok == Tok::LParen {
                    Tok::RParen
                } else {
                    Tok::RBrack
                };
                self.advance();
                self.depth += 1;
                let alts = self.expansions(false)?;
                self.skip_continuation();
                if *self.peek() != close {
                    let open = if close == Tok::RParen { "(" } else { "[" };
                    let p = self.src.pos(t.start);
                    return self.expected(&format!(
                        "{} to close the `{open}` at {}:{}",
                        describe(&close),
                        p.line,
                        p.col
                    ));
                }
                self.advance();
                self.depth -= 1;
                let node = alts_node(alts.into_iter().map(|a| a.node).collect());
                Ok(if close == Tok::RBrack {
                    Node::Opt(Box::new(node))
                } else {
                    node
                })
            }
            Tok::Str { text, ci } => {
                self.advance();
                if *self.peek() != Tok::DotDot {
                    return Ok(Node::Lit {
                        text,
                        ci,
                        span: self.span_of(&t),
                    });
                }
                self.advance();
                let hi_tok = self.cur();
                let Tok::Str { text: hi, .. } = hi_tok.tok.clone() else {
                    return self
                        .expected("a \"literal\" after `..` (a range is written `\"a\"..\"z\"`)");
                };
                self.advance();
                let span = self.src.span(t.start, hi_tok.end);
                let mut lo_chars = text.chars();
                let mut hi_chars = hi.chars();
                match (
                    lo_chars.next(),
                    lo_chars.next(),
                    hi_chars.next(),
                    hi_chars.next(),
                ) {
                    (Some(lo), None, Some(hi), None) if lo <= hi => {
                        Ok(Node::Range { lo, hi, span })
                    }
                    (Some(lo), None, Some(hi), None) => {
                        self.error(
                            DiagnosticKind::Syntax,
                            span,
                            format!("empty range {lo:?}..{hi:?}: the first character must not come after the second"),
                        );
                        Err(())
                    }
                    _ => {
                        self.error(
                            DiagnosticKind::Syntax,
                            span,
                            "a range `\"a\"..\"z\"` needs a single character on each side",
                        );
                        Err(())
                    }
                }
            }
            Tok::Regex { body, flags } => {
                self.advance();
                Ok(Node::Re(Box::new(self.regex_literal(&body, &flags, &t))))
            }
            Tok::Name(name) => {
                self.advance();
                if *self.peek() == Tok::LBrace {
                    // Reported; parsing goes on so that later problems are found too.
                    return if self.template(&t, "template use") {
                        Ok(Node::Name(name, self.span_of(&t)))
                    } else {
                        Err(())
                    };
                }
                Ok(Node::Name(name, self.span_of(&t)))
            }
            _ => self.expected("a name, a \"literal\", a /regex/, `(` or `[`"),
        }
    }

    /// Checks a `/regex/flags` literal and turns it into regex-automata syntax.
    fn regex_literal(&mut self, body: &str, flags: &str, t: &Token) -> ReLit {
        let span = self.span_of(t);
        let text = format!("/{body}/{flags}");
        let mut lit = ReLit {
            re: None,
            prec: Prec::Alt,
            matches_empty: false,
            text,
            span,
        };
        let verbose = flags.contains('x');
        let (tr, map) = translate_python_regex(body, verbose);
        let body_start = t.start + 1;
        let at = |off: usize, end: usize| {
            let a = map[off.min(map.len() - 1)];
            let b = map[end.min(map.len() - 1)].max(a);
            (body_start + a, body_start + b)
        };
        let ast = match ast::parse::ParserBuilder::new()
            .ignore_whitespace(verbose)
            .build()
            .parse(&tr)
        {
            Ok(ast) => ast,
            Err(e) => {
                let (a, b) = at(e.span().start.offset, e.span().end.offset);
                let span = self.src.span(a, b);
                match e.kind() {
                    ast::ErrorKind::UnsupportedLookAround
                    | ast::ErrorKind::UnsupportedBackreference => self.error(
                        DiagnosticKind::Unsupported,
                        span,
                        format!("{LOOKAROUND_MSG} (in `{}`)", lit.text),
                    ),
                    kind => self.error(
                        DiagnosticKind::InvalidRegex,
                        span,
                        format!("invalid regex `{}`: {kind}", lit.text),
                    ),
                }
                return lit;
            }
        };
        let mut fl = String::new();
        for c in flags.chars() {
            if "imsx".contains(c) && !fl.contains(c) {
                fl.push(c);
            }
        }
        let (re, prefix) = if fl.is_empty() {
            lit.prec = ast_prec(&ast);
            (tr, 0)
        } else {
            lit.prec = Prec::Atom;
            // A verbose regex may end in a `#` comment: close it with a newline.
            let nl = if verbose { "\n" } else { "" };
            (format!("(?{fl}:{tr}{nl})"), fl.len() + 3)
        };
        match regex_syntax::Parser::new().parse(&re) {
            Ok(hir) => {
                let props = hir.properties();
                if !props.look_set().is_empty() {
                    self.error(
                        DiagnosticKind::Unsupported,
                        span,
                        format!(
                            "anchors and word boundaries (`^`, `$`, `\\b`, `\\B`, `\\A`, `\\z`) are not supported (in `{}`): \
                             gcd matches every terminal against a whole lexeme with a DFA",
                            lit.text
                        ),
                    );
                    return lit;
                }
                lit.matches_empty = props.minimum_len() == Some(0);
                lit.re = Some(re);
            }
            Err(e) => {
                let (msg, sp) = regex_error(&e);
                let sp = match sp {
                    Some((a, b)) if a >= prefix => {
                        let (a, b) = at(a - prefix, b.saturating_sub(prefix));
                        self.src.span(a, b)
                    }
                    _ => span,
                };
                self.error(
                    DiagnosticKind::InvalidRegex,
                    sp,
                    format!("invalid regex `{}`: {msg}", lit.text),
                );
            }
        }
        lit
    }

    fn statement(&mut self) -> PResult<()> {
        let t = self.advance();
        let Tok::Directive(d) = &t.tok else {
            return Err(());
        };
        let span = self.span_of(&t);
        match d.as_str() {
            "ignore" => {
                let start = self.cur().start;
                let alts = self.expansions(false)?;
                self.end_of_definition()?;
                let node = alts_node(alts.into_iter().map(|a| a.node).collect());
                if matches!(&node, Node::Seq(items) if items.is_empty()) {
                    self.error(
                        DiagnosticKind::Syntax,
                        span,
                        "expected a terminal name, a \"literal\" or a /regex/ after `%ignore`",
                    );
                    return Err(());
                }
                let span = self.src.span(start, self.prev_end());
                self.out.ignores.push(IgnoreDef { node, span });
                Ok(())
            }
            "import" => self.import(&t),
            "declare" => {
                self.error(
                    DiagnosticKind::Unsupported,
                    span,
                    "`%declare` is not supported: every terminal needs a pattern \
                     (declared terminals come from a custom lexer or postlexer, e.g. Python's _INDENT/_DEDENT)",
                );
                Err(())
            }
            "override" | "extend" => {
                self.error(
                    DiagnosticKind::Unsupported,
                    span,
                    format!("`%{d}` is not supported: it only modifies definitions imported from other grammar files"),
                );
                Err(())
            }
            _ => {
                self.error(
                    DiagnosticKind::Syntax,
                    span,
                    format!("unknown directive `%{d}`: expected `%ignore` or `%import`"),
                );
                Err(())
            }
        }
    }

    fn import(&mut self, dir: &Token) -> PResult<()> {
        if matches!(self.peek(), Tok::Dot | Tok::DotDot) {
            let t = self.cur();
            self.error(
                DiagnosticKind::Unsupported,
                self.src.span(dir.start, t.end),
                "relative imports (`%import .module.NAME`) are not supported: \
                 only Lark's `common` library is built in",
            );
            return Err(());
        }
        let mut path: Vec<(String, Token)> = Vec::new();
        loop {
            let t = self.cur();
            let Tok::Name(n) = t.tok.clone() else {
                return self.expected(if path.is_empty() {
                    "a module name after `%import` (e.g. `%import common.WS`)"
                } else {
                    "a name after `.` in the import path"
                });
            };
            self.advance();
            path.push((n, t));
            if *self.peek() == Tok::Dot {
                self.advance();
            } else {
                break;
            }
        }
        // (name, its token, the name it gets here)
        let mut items: Vec<(String, Token, String)> = Vec::new();
        let module: Vec<String>;
        if *self.peek() == Tok::LParen {
            self.advance();
            module = path.iter().map(|(n, _)| n.clone()).collect();
            loop {
                let t = self.cur();
                let Tok::Name(n) = t.tok.clone() else {
                    return self.expected("a name in the import list");
                };
                self.advance();
                items.push((n.clone(), t, n));
                match self.peek() {
                    Tok::Comma => {
                        self.advance();
                    }
                    Tok::RParen => {
                        self.advance();
                        break;
                    }
                    _ => return self.expected("`,` or `)` in the import list"),
                }
            }
        } else {
            if path.len() < 2 {
                let (n, t) = &path[0];
                let span = self.span_of(t);
                self.error(
                    DiagnosticKind::Syntax,
                    span,
                    format!("expected `{n}.NAME` or `{n} (NAME, ...)`: an import names what it takes from the module"),
                );
                return Err(());
            }
            let Some((name, name_tok)) = path.pop() else {
                return Err(());
            };
            module = path.iter().map(|(n, _)| n.clone()).collect();
            let mut local = name.clone();
            if *self.peek() == Tok::Arrow {
                self.advance();
                let t = self.cur();
                let Tok::Name(a) = t.tok.clone() else {
                    return self.expected("a name after `->`");
                };
                self.advance();
                local = a;
            }
            items.push((name, name_tok, local));
        }
        self.end_of_definition()?;
        let module_name = module.join(".");
        if module_name != "common" {
            let t = &path
                .first()
                .map(|(_, t)| t.clone())
                .unwrap_or_else(|| dir.clone());
            let span = self.src.span(dir.start, t.end.max(self.prev_end()));
            self.error(
                DiagnosticKind::Unsupported,
                span,
                format!(
                    "`%import {module_name}` is not supported: only Lark's `common` library is built in \
                     (imports from other grammars are not available)"
                ),
            );
            return Ok(());
        }
        let common = common_terminals();
        for (name, tok, local) in items {
            let span = self.span_of(&tok);
            match common.get(&name) {
                Some(frag) => {
                    if !is_terminal_name(&local) {
                        self.error(
                            DiagnosticKind::Syntax,
                            span,
                            format!("cannot import terminal `{name}` as `{local}`: terminal names are uppercase"),
                        );
                        continue;
                    }
                    self.out.terms.push(TermDef {
                        name: local,
                        body: TermBody::Imported(frag.clone()),
                        span,
                        priority: 0,
                    });
                }
                None => {
                    let mut names: Vec<&str> = common
                        .keys()
                        .map(String::as_str)
                        .filter(|n| !n.starts_with('_'))
                        .collect();
                    names.sort_unstable();
                    self.error(
                        DiagnosticKind::Undefined,
                        span,
                        format!(
                            "`common` has no terminal `{name}`; it defines {}",
                            names.join(", ")
                        ),
                    );
                }
            }
        }
        Ok(())
    }
}

/// How tightly a parsed regex binds (see [`Prec`]).
fn ast_prec(ast: &Ast) -> Prec {
    match ast {
        Ast::Literal(_)
        | Ast::Dot(_)
        | Ast::ClassUnicode(_)
        | Ast::ClassPerl(_)
        | Ast::ClassBracketed(_) => Prec::Atom,
        Ast::Group(_) => Prec::Atom,
        Ast::Repetition(_) => Prec::Seq,
        // `(?i)` inside a concatenation would leak into what follows it.
        Ast::Concat(c) if !c.asts.iter().any(|a| matches!(a, Ast::Flags(_))) => Prec::Seq,
        _ => Prec::Alt,
    }
}

fn alts_node(mut nodes: Vec<Node>) -> Node {
    if nodes.len() == 1 {
        nodes.pop().unwrap_or(Node::Seq(Vec::new()))
    } else {
        Node::Alt(nodes)
    }
}

/// The message and, when known, the byte range inside the pattern of a
/// regex-syntax error.
fn regex_error(e: &regex_syntax::Error) -> (String, Option<(usize, usize)>) {
    match e {
        regex_syntax::Error::Parse(e) => (
            e.kind().to_string(),
            Some((e.span().start.offset, e.span().end.offset)),
        ),
        regex_syntax::Error::Translate(e) => (
            e.kind().to_string(),
            Some((e.span().start.offset, e.span().end.offset)),
        ),
        other => (other.to_string(), None),
    }
}

/// Rewrites a Python (Lark) regex into regex-syntax syntax where the two
/// differ, returning the new text and, for each of its bytes (plus one past
/// the end), the offset in `body` it came from.
fn translate_python_regex(body: &str, verbose: bool) -> (String, Vec<usize>) {
    let chars: Vec<(usize, char)> = body.char_indices().collect();
    let mut out = String::with_capacity(body.len());
    let mut map = Vec::with_capacity(body.len() + 1);
    let mut push = |out: &mut String, s: &str, off: usize| {
        out.push_str(s);
        map.extend(std::iter::repeat_n(off, s.len()));
    };
    let char_at = |k: usize| chars.get(k).map(|&(_, c)| c);
    let mut k = 0;
    let mut in_class = false;
    // Index of the first character inside the current class (a `]` there is literal).
    let mut class_first = 0;
    // The last thing copied was a quantifier (`*`, `+`, `?`, `{n,m}`).
    let mut after_quantifier = false;
    let mut buf = [0u8; 4];
    while k < chars.len() {
        let (off, c) = chars[k];
        if c == '\\' {
            after_quantifier = false;
            match char_at(k + 1) {
                Some(n @ ('<' | '>')) => push(&mut out, n.encode_utf8(&mut buf), off),
                Some('Z') if !in_class => push(&mut out, "\\z", off),
                Some(n) if in_class && verbose && n.is_whitespace() => {
                    push(&mut out, &format!("\\x{{{:x}}}", n as u32), off)
                }
                Some(n) => {
                    push(&mut out, "\\", off);
                    push(&mut out, n.encode_utf8(&mut buf), off);
                }
                None => push(&mut out, "\\", off),
            }
            k += 2;
            continue;
        }
        if in_class {
            after_quantifier = false;
            match c {
                ']' if k > class_first => {
                    in_class = false;
                    push(&mut out, "]", off);
                }
                '[' => push(&mut out, "\\[", off),
                '&' | '~' | '-' if char_at(k + 1) == Some(c) => {
                    push(&mut out, c.encode_utf8(&mut buf), off);
                    push(&mut out, "\\", chars[k + 1].0);
                    push(&mut out, c.encode_utf8(&mut buf), chars[k + 1].0);
                    k += 2;
                    continue;
                }
                c if verbose && c.is_whitespace() => {
                    push(&mut out, &format!("\\x{{{:x}}}", c as u32), off)
                }
                c => push(&mut out, c.encode_utf8(&mut buf), off),
            }
            k += 1;
            continue;
        }
        // Is this `?` a lazy-quantifier suffix? Kept: see the module docs.
        let lazy = c == '?' && after_quantifier;
        after_quantifier = false;
        match c {
            '?' if lazy => push(&mut out, "?", off),
            '*' | '+' => {
                push(&mut out, c.encode_utf8(&mut buf), off);
                after_quantifier = true;
            }
            '?' => {
                push(&mut out, "?", off);
                after_quantifier = k > 0 && chars[k - 1].1 != '(';
            }
            '{' if is_repetition(&chars[k..]) => {
                while k < chars.len() && chars[k].1 != '}' {
                    push(&mut out, chars[k].1.encode_utf8(&mut buf), chars[k].0);
                    k += 1;
                }
                if let Some(&(o, _)) = chars.get(k) {
                    push(&mut out, "}", o);
                }
                after_quantifier = true;
            }
            '[' => {
                in_class = true;
                push(&mut out, "[", off);
                k += 1;
                if char_at(k) == Some('^') {
                    push(&mut out, "^", chars[k].0);
                    k += 1;
                }
                class_first = k;
                continue;
            }
            '#' if verbose => {
                // A comment: copy it as is, so a `[` in it opens no class.
                while k < chars.len() && chars[k].1 != '\n' {
                    push(&mut out, chars[k].1.encode_utf8(&mut buf), chars[k].0);
                    k += 1;
                }
                continue;
            }
            '{' => push(&mut out, "\\{", off),
            c => push(&mut out, c.encode_utf8(&mut buf), off),
        }
        k += 1;
    }
    map.push(body.len());
    (out, map)
}

/// Does `{n}`, `{n,}` or `{n,m}` start here? (Elsewhere Python reads `{` literally.)
fn is_repetition(chars: &[(usize, char)]) -> bool {
    let mut k = 1;
    let digits = |k: &mut usize| {
        let s = *k;
        while chars.get(*k).is_some_and(|&(_, c)| c.is_ascii_digit()) {
            *k += 1;
        }
        *k > s
    };
    if !digits(&mut k) {
        return false;
    }
    if chars.get(k).map(|&(_, c)| c) == Some(',') {
        k += 1;
        digits(&mut k);
    }
    chars.get(k).map(|&(_, c)| c) == Some('}')
}

/// A character for a regex class: itself when alphanumeric, else `\x{..}`.
fn class_char(c: char) -> String {
    if c.is_ascii_alphanumeric() {
        c.to_string()
    } else {
        format!("\\x{{{:x}}}", c as u32)
    }
}

fn range_regex(lo: char, hi: char) -> String {
    if lo == hi {
        format!("[{}]", class_char(lo))
    } else {
        format!("[{}-{}]", class_char(lo), class_char(hi))
    }
}

// ---------------------------------------------------------------------------
// The built-in `common` library

fn common_terminals() -> &'static HashMap<String, Frag> {
    static COMMON: OnceLock<HashMap<String, Frag>> = OnceLock::new();
    COMMON.get_or_init(|| {
        let source = Source::new(COMMON_LARK);
        let mut diags = Vec::new();
        let toks = lex(&source, &mut diags);
        let mut parser = Parser {
            src: &source,
            toks,
            pos: 0,
            depth: 0,
            diags,
            out: Parsed::default(),
        };
        parser.file();
        let Parser { out, mut diags, .. } = parser;
        let index: HashMap<String, usize> = out
            .terms
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.clone(), i))
            .collect();
        let rules = HashSet::new();
        let mut tc = TermCompiler {
            terms: &out.terms,
            index: &index,
            rules: &rules,
            state: vec![TState::Todo; out.terms.len()],
            stack: Vec::new(),
            nest: 0,
            diags: &mut diags,
        };
        let frags: HashMap<String, Frag> = (0..out.terms.len())
            .filter_map(|i| tc.term(i).map(|f| (out.terms[i].name.clone(), f)))
            .collect();
        debug_assert!(diags.is_empty(), "common.lark has errors: {diags:?}");
        frags
    })
}

// ---------------------------------------------------------------------------
// Terminal compilation and the builder

#[derive(Clone, Debug)]
enum TState {
    Todo,
    Active,
    Done(Option<Frag>),
}

struct TermCompiler<'c> {
    terms: &'c [TermDef],
    index: &'c HashMap<String, usize>,
    rules: &'c HashSet<String>,
    state: Vec<TState>,
    stack: Vec<usize>,
    /// How deep `node` recursion is (terminal references and groups).
    nest: usize,
    diags: &'c mut Vec<Diagnostic>,
}

impl TermCompiler<'_> {
    fn term(&mut self, i: usize) -> Option<Frag> {
        match &self.state[i] {
            TState::Done(f) => return f.clone(),
            TState::Active => return None,
            TState::Todo => {}
        }
        let def = &self.terms[i];
        if self.stack.len() >= MAX_TERMINAL_DEPTH {
            self.diags.push(Diagnostic::new(
                DiagnosticKind::TooLarge,
                Some(def.span),
                format!(
                    "terminal `{}` is nested too deeply in other terminals (the limit is {MAX_TERMINAL_DEPTH})",
                    def.name
                ),
            ));
            self.state[i] = TState::Done(None);
            return None;
        }
        self.state[i] = TState::Active;
        self.stack.push(i);
        let owner = (format!("terminal `{}`", def.name), def.span);
        let frag = match &def.body {
            TermBody::Imported(f) => Some(f.clone()),
            TermBody::Expr(node) => self.node(node, &owner),
        };
        self.stack.pop();
        self.state[i] = TState::Done(frag.clone());
        frag
    }

    fn sized(&mut self, re: String, prec: Prec, owner: &(String, Span)) -> Option<Frag> {
        if re.len() > MAX_REGEX_LEN {
            self.diags.push(Diagnostic::new(
                DiagnosticKind::TooLarge,
                Some(owner.1),
                format!(
                    "{} compiles to a regex longer than {MAX_REGEX_LEN} bytes",
                    owner.0
                ),
            ));
            return None;
        }
        Some(Frag::Re { re, prec })
    }

    fn node(&mut self, node: &Node, owner: &(String, Span)) -> Option<Frag> {
        if self.nest >= MAX_COMPILE_DEPTH {
            self.diags.push(Diagnostic::new(
                DiagnosticKind::TooLarge,
                Some(owner.1),
                format!(
                    "{} nests groups and terminals too deeply (the limit is {MAX_COMPILE_DEPTH})",
                    owner.0
                ),
            ));
            return None;
        }
        self.nest += 1;
        let frag = self.node_inner(node, owner);
        self.nest -= 1;
        frag
    }

    fn node_inner(&mut self, node: &Node, owner: &(String, Span)) -> Option<Frag> {
        match node {
            Node::Name(name, span) => match self.index.get(name) {
                Some(&j) => {
                    if let TState::Active = self.state[j] {
                        let from = self.stack.iter().position(|&k| k == j).unwrap_or(0);
                        let mut cycle: Vec<&str> = self.stack[from..]
                            .iter()
                            .map(|&k| self.terms[k].name.as_str())
                            .collect();
                        cycle.push(name);
                        self.diags.push(Diagnostic::new(
                            DiagnosticKind::Syntax,
                            Some(*span),
                            format!(
                                "terminal `{name}` is defined in terms of itself ({}): terminals must be regular; \
                                 use a rule for recursion",
                                cycle.join(" -> ")
                            ),
                        ));
                        return None;
                    }
                    self.term(j)
                }
                None if self.rules.contains(name) || !is_terminal_name(name) => {
                    self.diags.push(Diagnostic::new(
                        DiagnosticKind::Syntax,
                        Some(*span),
                        format!(
                            "{} cannot use rule `{name}`: terminals are built from literals, regexes and other terminals",
                            owner.0
                        ),
                    ));
                    None
                }
                None => {
                    self.diags.push(Diagnostic::new(
                        DiagnosticKind::Undefined,
                        Some(*span),
                        format!("terminal `{name}` is used in {} but never defined", owner.0),
                    ));
                    None
                }
            },
            Node::Lit { text, ci, .. } => Some(Frag::Lit {
                text: text.clone(),
                ci: *ci,
            }),
            Node::Re(r) => r.re.clone().map(|re| Frag::Re { re, prec: r.prec }),
            Node::Range { lo, hi, .. } => Some(Frag::Re {
                re: range_regex(*lo, *hi),
                prec: Prec::Atom,
            }),
            Node::Seq(items) => {
                let frags = self.all(items, owner)?;
                if let Some(Frag::Lit { ci, .. }) = frags.first() {
                    let ci = *ci;
                    if frags
                        .iter()
                        .all(|f| matches!(f, Frag::Lit { ci: c, .. } if *c == ci))
                    {
                        let text: String = frags
                            .iter()
                            .map(|f| match f {
                                Frag::Lit { text, .. } => text.as_str(),
                                Frag::Re { .. } => "",
                            })
                            .collect();
                        if text.len() > MAX_REGEX_LEN {
                            return self.sized(text, Prec::Seq, owner);
                        }
                        return Some(Frag::Lit { text, ci });
                    }
                }
                if frags.is_empty() {
                    return Some(Frag::Lit {
                        text: String::new(),
                        ci: false,
                    });
                }
                if frags.len() == 1 {
                    return frags.into_iter().next();
                }
                let re: String = frags.iter().map(|f| f.at(Prec::Seq)).collect();
                self.sized(re, Prec::Seq, owner)
            }
            Node::Alt(items) => {
                let frags = self.all(items, owner)?;
                if frags.len() == 1 {
                    return frags.into_iter().next();
                }
                let re = frags
                    .iter()
                    .map(|f| f.at(Prec::Alt))
                    .collect::<Vec<_>>()
                    .join("|");
                self.sized(re, Prec::Alt, owner)
            }
            Node::Opt(e) | Node::Star(e) | Node::Plus(e) | Node::Repeat(e, ..) => {
                let f = self.node(e, owner)?;
                let op = match node {
                    Node::Opt(_) => "?".to_string(),
                    Node::Star(_) => "*".to_string(),
                    Node::Plus(_) => "+".to_string(),
                    Node::Repeat(_, a, b) if a == b => format!("{{{a}}}"),
                    Node::Repeat(_, a, b) => format!("{{{a},{b}}}"),
                    _ => String::new(),
                };
                let re = format!("{}{op}", f.at(Prec::Atom));
                self.sized(re, Prec::Seq, owner)
            }
        }
    }

    /// Compiles every item (so that every error is reported); `None` if any failed.
    fn all(&mut self, items: &[Node], owner: &(String, Span)) -> Option<Vec<Frag>> {
        let mut out = Vec::with_capacity(items.len());
        let mut ok = true;
        for i in items {
            match self.node(i, owner) {
                Some(f) => out.push(f),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }
}

/// Checks a compiled terminal pattern: that it is a valid regex and, when
/// the grammar uses it, that it cannot match the empty string.
fn check_terminal(
    what: &str,
    pattern: &TerminalPattern,
    span: Span,
    used: bool,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let empty = match pattern {
        TerminalPattern::Literal { text, .. } => text.is_empty(),
        TerminalPattern::Regex(re) => match regex_syntax::Parser::new().parse(re) {
            Ok(hir) => hir.properties().minimum_len() == Some(0),
            Err(e) => {
                let (msg, _) = regex_error(&e);
                diags.push(Diagnostic::new(
                    DiagnosticKind::InvalidRegex,
                    Some(span),
                    format!("{what} compiles to an invalid regex: {msg}"),
                ));
                return false;
            }
        },
    };
    if empty && used {
        diags.push(
            Diagnostic::new(
                DiagnosticKind::EmptyMatch,
                Some(span),
                format!("{what} matches the empty string; every lexeme must consume at least one byte"),
            )
            .with_note(None, "make it match at least one character (e.g. `+` instead of `*`) and write `X?` where it is used"),
        );
        return false;
    }
    true
}

fn rule_expr(node: &Node, diags: &mut Vec<Diagnostic>) -> Expr {
    let is_empty = |e: &Expr| matches!(e, Expr::Seq(items) if items.is_empty());
    match node {
        Node::Name(n, span) => Expr::Name(n.clone(), Some(*span)),
        Node::Lit { text, .. } if text.is_empty() => Expr::Seq(Vec::new()),
        Node::Lit { text, ci, span } => Expr::Pattern(
            TerminalPattern::Literal {
                text: text.clone(),
                case_insensitive: *ci,
            },
            Some(*span),
        ),
        Node::Re(r) => match &r.re {
            Some(re) => {
                if r.matches_empty {
                    diags.push(Diagnostic::new(
                        DiagnosticKind::EmptyMatch,
                        Some(r.span),
                        format!(
                            "pattern `{}` matches the empty string; every lexeme must consume at least one byte",
                            r.text
                        ),
                    ));
                }
                Expr::Pattern(TerminalPattern::Regex(re.clone()), Some(r.span))
            }
            None => Expr::Seq(Vec::new()),
        },
        Node::Range { lo, hi, span } => {
            Expr::Pattern(TerminalPattern::Regex(range_regex(*lo, *hi)), Some(*span))
        }
        Node::Seq(items) => Expr::Seq(items.iter().map(|i| rule_expr(i, diags)).collect()),
        Node::Alt(items) => Expr::Alt(items.iter().map(|i| rule_expr(i, diags)).collect()),
        Node::Opt(e) | Node::Star(e) | Node::Plus(e) | Node::Repeat(e, ..) => {
            let inner = rule_expr(e, diags);
            if is_empty(&inner) {
                return inner;
            }
            match node {
                Node::Opt(_) => Expr::opt(inner),
                Node::Star(_) => Expr::star(inner),
                Node::Plus(_) => Expr::plus(inner),
                Node::Repeat(_, a, b) => Expr::Repeat(Box::new(inner), *a, *b),
                _ => inner,
            }
        }
    }
}

fn sort_diags(diags: &mut [Diagnostic]) {
    diags.sort_by_key(|d| d.span.map_or(usize::MAX, |s| s.byte_start));
}

fn compile(parsed: Parsed, mut diags: Vec<Diagnostic>) -> Result<GrammarBuilder, GrammarError> {
    let Parsed {
        terms,
        rules,
        ignores,
    } = parsed;

    // Terminal names, first definition wins.
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut unique = vec![true; terms.len()];
    for (i, t) in terms.iter().enumerate() {
        if let Some(&prev) = index.get(&t.name) {
            unique[i] = false;
            diags.push(
                Diagnostic::new(
                    DiagnosticKind::Duplicate,
                    Some(t.span),
                    format!("terminal `{}` is defined twice", t.name),
                )
                .with_note(Some(terms[prev].span), "first defined here"),
            );
        } else {
            index.insert(t.name.clone(), i);
        }
    }
    let rule_names: HashSet<String> = rules.iter().map(|r| r.name.clone()).collect();

    // What rules and `%ignore NAME` use.
    let mut used: HashSet<&str> = HashSet::new();
    let mut names = Vec::new();
    for r in &rules {
        for a in &r.alts {
            a.node.names(&mut names);
        }
    }
    for ig in &ignores {
        if let Node::Name(n, _) = &ig.node {
            names.push(n);
        }
    }
    used.extend(names);

    let mut builder = GrammarBuilder::new();
    let mut tc = TermCompiler {
        terms: &terms,
        index: &index,
        rules: &rule_names,
        state: vec![TState::Todo; terms.len()],
        stack: Vec::new(),
        nest: 0,
        diags: &mut diags,
    };
    let compiled: Vec<Option<Frag>> = unique
        .iter()
        .enumerate()
        .map(|(i, &u)| if u { tc.term(i) } else { None })
        .collect();
    for (t, frag) in terms.iter().zip(compiled) {
        let Some(frag) = frag else { continue };
        let pattern = frag.into_pattern();
        let is_used = used.contains(t.name.as_str());
        let what = format!("terminal `{}`", t.name);
        if check_terminal(&what, &pattern, t.span, is_used, tc.diags) && is_used {
            builder.terminal_full(&t.name, pattern, t.priority, Some(t.span));
        }
    }
    for ig in &ignores {
        match &ig.node {
            Node::Name(n, span) => {
                builder.ignore(n, Some(*span));
            }
            node => {
                let owner = ("`%ignore`".to_string(), ig.span);
                if let Some(frag) = tc.node(node, &owner) {
                    let pattern = frag.into_pattern();
                    if check_terminal("the `%ignore` pattern", &pattern, ig.span, true, tc.diags) {
                        builder.ignore_pattern(pattern, Some(ig.span));
                    }
                }
            }
        }
    }
    for r in &rules {
        let mut alternatives = Vec::with_capacity(r.alts.len());
        for a in &r.alts {
            if a.node.cost() > MAX_RULE_EXPANSION {
                diags.push(Diagnostic::new(
                    DiagnosticKind::TooLarge,
                    Some(a.span),
                    format!(
                        "this alternative of `{}` expands to more than {MAX_RULE_EXPANSION} symbols (`~` repetitions)",
                        r.name
                    ),
                ));
                continue;
            }
            let expr = rule_expr(&a.node, &mut diags);
            alternatives.push(Alternative {
                expr,
                alias: a.alias.as_ref().map(|(n, _)| n.clone()),
                span: Some(a.span),
            });
        }
        builder.rule_full(&r.name, r.kind, alternatives, Some(r.span));
        if r.keep_all_tokens {
            builder.keep_all_tokens(&r.name);
        }
    }
    if diags.is_empty() {
        Ok(builder)
    } else {
        sort_diags(&mut diags);
        Err(GrammarError::new(diags))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grammar::{Symbol, Terminal};

    fn ok(src: &str) -> Grammar {
        match parse_grammar(src) {
            Ok(g) => g,
            Err(e) => panic!("grammar failed to load:\n{e}\n--- source:\n{src}"),
        }
    }

    fn err(src: &str) -> GrammarError {
        match parse_grammar(src) {
            Ok(g) => panic!("grammar loaded but should not have: {g:#?}"),
            Err(e) => e,
        }
    }

    /// The first diagnostic, checked for kind, `line:col` and message parts.
    #[track_caller]
    fn assert_diag(e: &GrammarError, kind: DiagnosticKind, line: u32, col: u32, parts: &[&str]) {
        let d = e
            .diagnostics()
            .iter()
            .find(|d| d.kind == kind && d.span.is_some_and(|s| s.start == Pos { line, col }))
            .unwrap_or_else(|| panic!("no {kind:?} diagnostic at {line}:{col} in:\n{e}"));
        for p in parts {
            assert!(d.message.contains(p), "message {:?} lacks {p:?}", d.message);
        }
    }

    fn term<'g>(g: &'g Grammar, name: &str) -> &'g Terminal {
        g.terminals
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("no terminal {name}: {g:#?}"))
    }

    fn regex(g: &Grammar, name: &str) -> String {
        term(g, name).pattern.to_regex()
    }

    /// Whole-string match with a regex-automata DFA, as the lexer will.
    fn full_match(re: &str, s: &str) -> bool {
        let r = regex_automata::dfa::regex::Regex::new(&format!(r"\A(?:{re})\z")).unwrap();
        r.is_match(s)
    }

    fn rhs_names(g: &Grammar, rule: &str) -> Vec<Vec<String>> {
        let n = g.nonterminals.iter().position(|n| n.name == rule).unwrap();
        g.productions_of(NtIdx(n).into())
            .map(|(_, p)| p.rhs.iter().map(|s| g.display_symbol(*s)).collect())
            .collect()
    }

    struct NtIdx(usize);
    impl From<NtIdx> for crate::grammar::NtId {
        fn from(n: NtIdx) -> Self {
            crate::grammar::NtId(n.0 as u32)
        }
    }

    // --- rules -----------------------------------------------------------

    #[test]
    fn rules_alternatives_and_continuation_lines() {
        let g = ok("start: a \"x\"\n     | b\n\n  // a comment\n     | \"y\"\na: \"a\"\nb: \"b\" # hash comment\n");
        assert_eq!(g.nonterminal(g.start).name, "start");
        assert_eq!(
            rhs_names(&g, "start"),
            vec![vec!["a", "\"x\""], vec!["b"], vec!["\"y\""]]
        );
    }

    #[test]
    fn rule_kinds_and_priorities() {
        let g = ok("start: a _b c d _e\n?a: \"a\"\n_b: \"b\"\n!c: \"c\"\nd.2: \"d\"\n?_e: \"e\"\n");
        let kind = |n: &str| g.nonterminals.iter().find(|x| x.name == n).unwrap().kind;
        assert_eq!(kind("a"), RuleKind::InlineSingle);
        assert_eq!(kind("_b"), RuleKind::Hidden);
        assert_eq!(kind("c"), RuleKind::Normal);
        assert_eq!(kind("d"), RuleKind::Normal);
        assert_eq!(kind("_e"), RuleKind::Hidden);
    }

    #[test]
    fn aliases() {
        let g = ok("start: \"a\" b -> first\n  | b -> second\n  | b\nb: \"b\"\n");
        let aliases: Vec<_> = g
            .productions
            .iter()
            .filter(|p| p.lhs == g.start)
            .map(|p| p.alias.clone())
            .collect();
        assert_eq!(
            aliases,
            vec![Some("first".into()), Some("second".into()), None]
        );
    }

    #[test]
    fn ebnf_in_rules() {
        let b = parse("start: a? b* c+ [d] (a | b) e ~ 2 f ~ 1..3 \"\"\n").unwrap();
        let dbg = format!("{b:?}");
        assert!(dbg.contains("Opt(Name(\"a\""), "{dbg}");
        assert!(dbg.contains("Star(Name(\"b\""), "{dbg}");
        assert!(dbg.contains("Plus(Name(\"c\""), "{dbg}");
        assert!(dbg.contains("Opt(Name(\"d\""), "{dbg}");
        assert!(dbg.contains("Alt([Name(\"a\""), "{dbg}");
        assert!(
            dbg.contains("Repeat(Name(\"e\", Some(Span { start: Pos { line: 1, col: 29 }"),
            "{dbg}"
        );
        assert!(dbg.contains(", 2, 2)"), "{dbg}");
        assert!(dbg.contains(", 1, 3)"), "{dbg}");
    }

    #[test]
    fn group_may_span_lines() {
        let g = ok("start: (\"a\"\n   \"b\"\n | \"c\")\nnext: \"d\"\n");
        assert_eq!(
            g.nonterminals
                .iter()
                .filter(|n| n.kind != RuleKind::Generated)
                .count(),
            2
        );
    }

    #[test]
    fn anonymous_patterns_reuse_named_terminals() {
        let g = ok("start: \"true\" TRUE /[0-9]+/ NUM \"t\"i\nTRUE: \"true\"\nNUM: /[0-9]+/\n");
        let names: Vec<_> = g.productions[0]
            .rhs
            .iter()
            .map(|s| g.symbol_name(*s).to_string())
            .collect();
        assert_eq!(names[..4], ["TRUE", "TRUE", "NUM", "NUM"]);
        let t = g.terminal(match g.productions[0].rhs[4] {
            Symbol::T(t) => t,
            _ => unreachable!(),
        });
        assert_eq!(
            t.pattern,
            TerminalPattern::Literal {
                text: "t".into(),
                case_insensitive: true
            }
        );
    }

    #[test]
    fn ranges_in_rules() {
        let g = ok("start: \"a\"..\"f\" \"-\"..\"/\"\n");
        let pats: Vec<_> = g.terminals.iter().map(|t| t.pattern.to_regex()).collect();
        assert_eq!(
            pats,
            vec!["[a-f]".to_string(), "[\\x{2d}-\\x{2f}]".to_string()]
        );
        assert!(full_match(&pats[1], "."));
    }

    // --- terminals -------------------------------------------------------

    #[test]
    fn literal_terminals_stay_literals() {
        let g = ok("start: A B C D E\nA: \"a\\\"b\"\nB: \"select\"i\nC: \"x\" \"y\"\nD: A\nE: \"\\n\\t\\\\\\q\"\n");
        assert_eq!(
            term(&g, "A").pattern,
            TerminalPattern::Literal {
                text: "a\"b".into(),
                case_insensitive: false
            }
        );
        assert_eq!(
            term(&g, "B").pattern,
            TerminalPattern::Literal {
                text: "select".into(),
                case_insensitive: true
            }
        );
        assert_eq!(
            term(&g, "C").pattern,
            TerminalPattern::Literal {
                text: "xy".into(),
                case_insensitive: false
            }
        );
        assert_eq!(
            term(&g, "D").pattern,
            TerminalPattern::Literal {
                text: "a\"b".into(),
                case_insensitive: false
            }
        );
        assert_eq!(
            term(&g, "E").pattern,
            TerminalPattern::Literal {
                text: "\n\t\\\\q".into(),
                case_insensitive: false
            }
        );
    }

    #[test]
    fn terminal_expressions_compile_to_one_regex() {
        let g = ok("start: NUM ID KW\n\
                    DIGIT: \"0\"..\"9\"\n\
                    NUM.2: \"-\"? DIGIT+ (\".\" DIGIT+)?\n\
                    ID.-1: /[a-z]/ (/[a-z]/ | DIGIT | \"_\")*\n\
                    KW: \"if\"i \"!\" ~ 2..3 | /x+/i\n");
        assert_eq!(regex(&g, "NUM"), r"\-?[0-9]+(?:\.[0-9]+)?");
        assert_eq!(term(&g, "NUM").priority, 2);
        assert_eq!(regex(&g, "ID"), r"[a-z](?:[a-z]|[0-9]|_)*");
        assert_eq!(term(&g, "ID").priority, -1);
        assert_eq!(regex(&g, "KW"), r"(?i:if)!{2,3}|(?i:x+)");
        assert!(full_match(&regex(&g, "NUM"), "-12.5"));
        assert!(!full_match(&regex(&g, "NUM"), "12."));
        assert!(full_match(&regex(&g, "KW"), "IF!!!"));
        assert!(full_match(&regex(&g, "KW"), "xXx"));
        // DIGIT is used by no rule: left out, as in Lark.
        assert!(!g.terminals.iter().any(|t| t.name == "DIGIT"));
    }

    #[test]
    fn hidden_terminals_and_regex_flags() {
        let g = ok("start: _SEP A B\n_SEP: /,\\s*/\nA: /a.b/s\nB: /b c # comment [\n/x\n");
        assert!(term(&g, "_SEP").hidden);
        assert_eq!(regex(&g, "A"), "(?s:a.b)");
        assert!(full_match(&regex(&g, "A"), "a\nb"));
        assert!(full_match(&regex(&g, "B"), "bc"));
    }

    #[test]
    fn python_regex_dialect() {
        let g = ok(r#"start: A B C D E F
A: /\<[[]\>/
B: /{x}/
C: /[a&&b]/
D: /".*?"/
E: /a{2,3}?b??/
F: /[+--]/
"#);
        assert!(full_match(&regex(&g, "A"), "<[>"));
        assert!(full_match(&regex(&g, "B"), "{x}"));
        assert!(full_match(&regex(&g, "C"), "&"));
        assert_eq!(regex(&g, "D"), "\".*?\"");
        assert_eq!(regex(&g, "E"), "a{2,3}?b??");
        assert!(full_match(&regex(&g, "F"), ","));
    }

    #[test]
    fn ignore_forms() {
        let g = ok("start: \"a\"\nWS: /[ \\t]+/\n%ignore WS\n%ignore \"#\"\n%ignore /\\/\\/[^\\n]*/\n%ignore (\"x\" | \"y\")\n");
        let ignored: Vec<_> = g
            .terminals
            .iter()
            .filter(|t| t.ignored)
            .map(|t| t.pattern.to_regex())
            .collect();
        assert_eq!(ignored, vec![r"[ \t]+", r"\#", r"\/\/[^\n]*", "x|y"]);
    }

    #[test]
    fn imports_from_common() {
        let g = ok("start: NUMBER NAME ESCAPED_STRING INT\n\
                    %import common.NUMBER\n\
                    %import common.CNAME -> NAME\n\
                    %import common (ESCAPED_STRING, INT, WS)\n\
                    %ignore WS\n");
        assert!(full_match(&regex(&g, "NUMBER"), "1.5e-3"));
        assert!(full_match(&regex(&g, "NAME"), "_foo1"));
        assert!(!full_match(&regex(&g, "NAME"), "1foo"));
        assert!(term(&g, "WS").ignored);
        assert!(!g
            .terminals
            .iter()
            .any(|t| t.name == "DIGIT" || t.name == "CNAME"));
    }

    #[test]
    fn imported_dependencies_live_in_their_own_namespace() {
        // The user's DIGIT does not change common's INT.
        let g = ok("start: INT DIGIT\nDIGIT: \"x\"\n%import common.INT\n");
        assert!(full_match(&regex(&g, "INT"), "123"));
    }

    #[test]
    fn common_library_languages() {
        let c = common_terminals();
        let re = |n: &str| c[n].regex();
        let cases: &[(&str, &[&str], &[&str])] = &[
            ("DIGIT", &["0", "9"], &["a", "10"]),
            ("HEXDIGIT", &["a", "F", "7"], &["g", ""]),
            ("INT", &["0", "0123"], &["", "-1", "1.0"]),
            ("SIGNED_INT", &["+1", "-01", "7"], &["+", "1-"]),
            ("DECIMAL", &["1.", "1.5", ".5"], &[".", "1"]),
            ("FLOAT", &["1e5", "1.5E-3", ".5", "1."], &["1", "e5", "1e"]),
            ("SIGNED_FLOAT", &["-1.5", "+.5e+2"], &["-1"]),
            ("NUMBER", &["1", "1.5", "1e3"], &["-1", ""]),
            ("SIGNED_NUMBER", &["-1", "+2.5", "3"], &["--1"]),
            (
                "ESCAPED_STRING",
                &[
                    r#""""#,
                    r#""a\"b""#,
                    r#""\\""#,
                    r#""a\nb""#,
                    "\"tab\there\"",
                ],
                &[r#""a"b""#, r#""\""#, "\"a\nb\"", "\"a\\\nb\"", r#""abc"#],
            ),
            ("LETTER", &["a", "Z"], &["1", "ab"]),
            ("WORD", &["abcXYZ"], &["ab1", ""]),
            ("CNAME", &["_", "a1_b", "Foo"], &["1a", ""]),
            ("WS_INLINE", &[" \t "], &["\n", ""]),
            ("WS", &[" \t\n\r\x0c"], &["", "x"]),
            ("CR", &["\r"], &["\n"]),
            ("LF", &["\n"], &["\r"]),
            ("NEWLINE", &["\n", "\r\n\n"], &["\r", ""]),
            ("SH_COMMENT", &["#", "# x"], &["# x\n"]),
            ("CPP_COMMENT", &["//", "// x"], &["/ x", "// x\n"]),
            (
                "C_COMMENT",
                &["/**/", "/* a * b */", "/***/", "/* x\n y **/"],
                &["/*/", "/* */ */", "/* a"],
            ),
            ("SQL_COMMENT", &["--", "-- x"], &["- x"]),
        ];
        for (name, yes, no) in cases {
            for s in *yes {
                assert!(
                    full_match(&re(name), s),
                    "{name} should match {s:?} (regex {})",
                    re(name)
                );
            }
            for s in *no {
                assert!(
                    !full_match(&re(name), s),
                    "{name} should not match {s:?} (regex {})",
                    re(name)
                );
            }
        }
        for (name, f) in c {
            let re = f.regex();
            regex_automata::dfa::dense::DFA::new(&re).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }

    #[test]
    fn builder_can_be_extended() {
        let mut b = parse("item: \"x\"\n").unwrap();
        b.rule("start", vec![Expr::plus(Expr::name("item"))]);
        let g = b.build().unwrap();
        assert_eq!(g.nonterminal(g.start).name, "start");
    }

    // --- errors ----------------------------------------------------------

    #[test]
    fn syntax_errors_have_positions_and_expectations() {
        let e = err("start: a\n\na: \"x\" | ( \"y\" : \n");
        assert_diag(
            &e,
            DiagnosticKind::Syntax,
            3,
            16,
            &["expected", "found `:`"],
        );

        let e = err("start: a -> \n");
        assert_diag(
            &e,
            DiagnosticKind::Syntax,
            1,
            13,
            &["expected a rule name after `->`", "end of line"],
        );

        let e = err("start: (\"a\" \"b\"\nb: \"c\"\n");
        assert_diag(
            &e,
            DiagnosticKind::Syntax,
            1,
            16,
            &["expected `)` to close the `(` at 1:8", "end of line"],
        );

        let e = err("start: \"a\" )\n");
        assert_diag(
            &e,
            DiagnosticKind::Syntax,
            1,
            12,
            &["`)` without a matching `(`"],
        );

        let e = err("start \"a\"\n");
        assert_diag(
            &e,
            DiagnosticKind::Syntax,
            1,
            7,
            &["expected `:` after `start`", "found \"a\""],
        );

        let e = err("start: \"a\" ~ x\n");
        assert_diag(
            &e,
            DiagnosticKind::Syntax,
            1,
            14,
            &["expected a number after `~`", "found `x`"],
        );

        let e = err("start: \"a\"+*\n");
        assert_diag(&e, DiagnosticKind::Syntax, 1, 12, &["only one operator"]);

        let e = err("start: \"a\" ~ 3..2\n");
        assert_diag(
            &e,
            DiagnosticKind::Syntax,
            1,
            17,
            &["maximum must be at least the minimum"],
        );

        let e = err("start: \"ab\"..\"z\"\n");
        assert_diag(&e, DiagnosticKind::Syntax, 1, 8, &["single character"]);

        let e = err("start: (\"a\" -> x)\n");
        assert_diag(
            &e,
            DiagnosticKind::Syntax,
            1,
            13,
            &["top-level alternative"],
        );

        let e = err("start: A\nA: \"a\" -> x\n");
        assert_diag(&e, DiagnosticKind::Syntax, 2, 11, &["cannot have an alias"]);

        let e = err("start: \"a\"\n%foo x\n");
        assert_diag(
            &e,
            DiagnosticKind::Syntax,
            2,
            1,
            &["unknown directive `%foo`"],
        );
    }

    #[test]
    fn lexical_errors() {
        let e = err("start: \"abc\nnext: \"x\"\n");
        assert_diag(&e, DiagnosticKind::Syntax, 1, 8, &["unterminated string"]);
        let e = err("start: /abc\nnext: \"x\"\n");
        assert_diag(&e, DiagnosticKind::Syntax, 1, 8, &["unterminated regex"]);
        let e = err("start: \"\\xZZ\"\n");
        assert_diag(&e, DiagnosticKind::Syntax, 1, 9, &["invalid escape"]);
        let e = err("start: \"a\" @\n");
        assert_diag(
            &e,
            DiagnosticKind::Syntax,
            1,
            12,
            &["unexpected character '@'"],
        );
    }

    #[test]
    fn errors_are_collected_across_definitions() {
        let e = err("start: a (\n  | b\na: \"x\" ]\nb: B\nB: /[/\n%declare C\n");
        let kinds: Vec<_> = e
            .diagnostics()
            .iter()
            .map(|d| (d.kind, d.span.map(|s| s.start.line)))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (DiagnosticKind::Syntax, Some(2)),
                (DiagnosticKind::Syntax, Some(3)),
                (DiagnosticKind::InvalidRegex, Some(5)),
                (DiagnosticKind::Unsupported, Some(6)),
            ],
            "{e}"
        );
    }

    #[test]
    fn unsupported_constructs_are_named() {
        let e = err("start: list{\"a\"}\nlist{x}: x (\",\" x)*\n");
        assert_diag(
            &e,
            DiagnosticKind::Unsupported,
            1,
            8,
            &["templates", "list{...}"],
        );
        assert_diag(
            &e,
            DiagnosticKind::Unsupported,
            2,
            1,
            &["templates", "template definition"],
        );

        let e = err("start: A\n%declare A\n");
        assert_diag(
            &e,
            DiagnosticKind::Unsupported,
            2,
            1,
            &["`%declare` is not supported"],
        );
        let e = err("start: A\n%override a: \"x\"\n");
        assert_diag(
            &e,
            DiagnosticKind::Unsupported,
            2,
            1,
            &["`%override` is not supported"],
        );
        let e = err("start: A\n%extend a: \"x\"\n");
        assert_diag(
            &e,
            DiagnosticKind::Unsupported,
            2,
            1,
            &["`%extend` is not supported"],
        );
        let e = err("start: NAME\n%import python (NAME, STRING)\n");
        assert_diag(
            &e,
            DiagnosticKind::Unsupported,
            2,
            1,
            &["`%import python` is not supported"],
        );
        let e = err("start: x\n%import .other.x\n");
        assert_diag(&e, DiagnosticKind::Unsupported, 2, 1, &["relative imports"]);

        let e = err("start: A\nA: /a(?!b)/\n");
        assert_diag(&e, DiagnosticKind::Unsupported, 2, 6, &[LOOKAROUND_MSG]);
        let e = err("start: A\nA: /x(?<=a)/\n");
        assert_diag(&e, DiagnosticKind::Unsupported, 2, 6, &[LOOKAROUND_MSG]);
        let e = err("start: /(a)\\1/\n");
        assert_diag(&e, DiagnosticKind::Unsupported, 1, 12, &[LOOKAROUND_MSG]);
        let e = err("start: /^a$/\n");
        assert_diag(
            &e,
            DiagnosticKind::Unsupported,
            1,
            8,
            &["anchors and word boundaries"],
        );
    }

    #[test]
    fn invalid_regexes_point_into_the_regex() {
        let e = err("start: A\nA: /ab(c/\n");
        assert_diag(
            &e,
            DiagnosticKind::InvalidRegex,
            2,
            7,
            &["invalid regex `/ab(c/`", "unclosed group"],
        );
        let e = err("start: /a{3,2}/\n");
        assert!(e.has_kind(DiagnosticKind::InvalidRegex), "{e}");
    }

    #[test]
    fn empty_matches() {
        let e = err("start: A\nA: /a*/\n");
        assert_diag(
            &e,
            DiagnosticKind::EmptyMatch,
            2,
            1,
            &["terminal `A` matches the empty string; every lexeme must consume at least one byte"],
        );
        let e = err("start: /x?/\n");
        assert_diag(
            &e,
            DiagnosticKind::EmptyMatch,
            1,
            8,
            &["pattern `/x?/` matches the empty string"],
        );
        let e = err("start: \"a\"\n%ignore /\\s*/\n");
        assert_diag(
            &e,
            DiagnosticKind::EmptyMatch,
            2,
            9,
            &["`%ignore` pattern matches the empty string"],
        );
        // A helper that only other terminals use may match the empty string.
        ok("start: S\n_INNER: /[a-z]*/\nS: \"'\" _INNER \"'\"\n");
    }

    #[test]
    fn terminal_definition_errors() {
        let e = err("start: A\nA: \"a\" B\nB: \"b\" A\n");
        assert_diag(
            &e,
            DiagnosticKind::Syntax,
            3,
            8,
            &["defined in terms of itself", "A -> B -> A"],
        );
        let e = err("start: A\nA: \"a\" b\nb: \"b\"\n");
        assert_diag(
            &e,
            DiagnosticKind::Syntax,
            2,
            8,
            &["terminal `A` cannot use rule `b`"],
        );
        let e = err("start: A\nA: \"a\" C\n");
        assert_diag(
            &e,
            DiagnosticKind::Undefined,
            2,
            8,
            &["terminal `C` is used in terminal `A` but never defined"],
        );
        let e = err("start: A\nA: \"a\"\nA: \"b\"\n");
        assert_diag(
            &e,
            DiagnosticKind::Duplicate,
            3,
            1,
            &["terminal `A` is defined twice"],
        );
        let e = err("start: WS\n%import common.NOPE\n");
        assert_diag(
            &e,
            DiagnosticKind::Undefined,
            2,
            16,
            &["`common` has no terminal `NOPE`", "ESCAPED_STRING"],
        );
    }

    #[test]
    fn limits() {
        let deep = format!("start: {}\"a\"{}\n", "(".repeat(200), ")".repeat(200));
        assert!(err(&deep).has_kind(DiagnosticKind::TooLarge));
        let e = err("start: (\"a\" ~ 1000) ~ 1000\n");
        assert!(e.has_kind(DiagnosticKind::TooLarge), "{e}");
        let mut src = String::from("start: T40\nT0: \"ab\" | \"c\"\n");
        for i in 1..=40 {
            src.push_str(&format!("T{i}: T{} T{}\n", i - 1, i - 1));
        }
        assert!(err(&src).has_kind(DiagnosticKind::TooLarge));

        // Deep groups in a long chain of terminals, defined top-down so that
        // compiling the first one recurses through all: an error, not a stack
        // overflow.
        let mut src = String::from("start: T150\n");
        for i in (1..=150).rev() {
            let nested = format!("{}T{}{}", "(\"b\" ".repeat(60), i - 1, ")".repeat(60));
            src.push_str(&format!("T{i}: {nested}\n"));
        }
        src.push_str("T0: \"a\"\n");
        assert!(err(&src).has_kind(DiagnosticKind::TooLarge));
        let mut src = String::from("start: T1000\n");
        for i in (1..=1000).rev() {
            src.push_str(&format!("T{i}: T{} \"a\"\n", i - 1));
        }
        src.push_str("T0: \"a\"\n");
        assert!(err(&src).has_kind(DiagnosticKind::TooLarge));
    }

    // --- robustness --------------------------------------------------------

    const SAMPLE: &str = r#"?start: value
?value: object | array | STRING | NUMBER -> number | "true"i -> t
object: "{" [pair ("," pair)*] "}"
pair: STRING ":" value
array: "[" value ~ 0..3 "]"
STRING: "\"" /[^"\\]*/ "\""
NUMBER.2: /-?\d+/ ("." DIGIT+)?
DIGIT: "0".."9"
%import common.WS
%ignore WS
"#;

    #[test]
    fn sample_loads() {
        ok(SAMPLE);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        #[test]
        fn never_panics_on_arbitrary_text(s in "\\PC{0,80}") {
            let _ = parse_grammar(&s);
        }

        #[test]
        fn never_panics_on_grammar_like_text(s in "[a-zA-Z_?!:|()\\[\\]\"/\\\\.~*+%{}, \n0-9#-]{0,120}") {
            let _ = parse_grammar(&s);
        }

        #[test]
        fn never_panics_on_mutated_grammars(edits in proptest::collection::vec((0usize..400, 0usize..4, proptest::char::any()), 1..6)) {
            let mut s: Vec<char> = SAMPLE.chars().collect();
            for (at, op, c) in edits {
                let at = at % (s.len() + 1);
                match op {
                    0 => s.insert(at, c),
                    1 if at < s.len() => { s.remove(at); }
                    2 if at < s.len() => s[at] = c,
                    _ => { let tail: Vec<char> = s[at..].to_vec(); s.truncate(at); s.extend(tail.iter().rev()); }
                }
            }
            let text: String = s.into_iter().collect();
            let _ = parse_grammar(&text);
        }
    }
}
