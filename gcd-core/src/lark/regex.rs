//! Lark regexes are Python regexes; gcd compiles them with regex-automata.
//! This module holds what knows regex syntax: the translation between the
//! two dialects (see [`super`]), the check of each `/regex/` literal, and the
//! regex of a `"a".."z"` range. Separate so that the parser and the terminal
//! compiler deal only in finished regex-automata strings.

use regex_syntax::ast::{self, Ast};

use super::ast::{Prec, ReLit};
use super::lexer::Token;
use super::parser::Parser;
use crate::error::DiagnosticKind;
use crate::lexer::lookaround;

pub(super) const BACKREFERENCE_MSG: &str =
    "backreferences are not supported: gcd compiles every terminal to a DFA";

impl Parser<'_, '_> {
    /// Checks a `/regex/flags` literal and turns it into regex-automata syntax.
    pub(super) fn regex_literal(&mut self, body: &str, flags: &str, t: &Token) -> ReLit {
        let span = self.span_of(t);
        let text = format!("/{body}/{flags}");
        let mut lit = ReLit {
            re: None,
            prec: Prec::Alt,
            matches_empty: false,
            text,
            span,
        };
        // Python's `l` (locale) is refused for text patterns, so Lark
        // refuses it too; `u` is Python 3's default and changes nothing.
        if flags.contains('l') {
            self.error(
                DiagnosticKind::Unsupported,
                span,
                format!(
                    "regex flag `l` (locale) in `{}`: Python and Lark refuse it for text patterns",
                    lit.text
                ),
            );
            return lit;
        }
        let verbose = flags.contains('x');
        let (tr, map) = translate_python_regex(body, verbose);
        let body_start = t.start + 1;
        let at = |off: usize, end: usize| {
            let a = map[off.min(map.len() - 1)];
            let b = map[end.min(map.len() - 1)].max(a);
            (body_start + a, body_start + b)
        };
        // Lookarounds are compiled apart (see `lexer::lookaround`); the
        // checks below see the regex without them.
        let split = match lookaround::split(&tr) {
            Ok(split) => split,
            Err(msg) => {
                self.error(
                    DiagnosticKind::Unsupported,
                    span,
                    format!("{msg} (in `{}`)", lit.text),
                );
                return lit;
            }
        };
        let plain = split.as_ref().map_or(tr.as_str(), |s| &s.plain);
        let ast = match ast::parse::ParserBuilder::new()
            .ignore_whitespace(verbose)
            .build()
            .parse(plain)
        {
            Ok(ast) => ast,
            Err(e) => {
                let (a, b) = at(e.span().start.offset, e.span().end.offset);
                let span = self.src.span(a, b);
                match e.kind() {
                    ast::ErrorKind::UnsupportedBackreference => self.error(
                        DiagnosticKind::Unsupported,
                        span,
                        format!("{BACKREFERENCE_MSG} (in `{}`)", lit.text),
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
        // A verbose regex may end in a `#` comment: close it with a newline.
        let nl = if verbose { "\n" } else { "" };
        let wrap = |r: &str| {
            if fl.is_empty() {
                r.to_string()
            } else {
                format!("(?{fl}:{r}{nl})")
            }
        };
        let prefix = if fl.is_empty() { 0 } else { fl.len() + 3 };
        lit.prec = if fl.is_empty() {
            ast_prec(&ast)
        } else {
            Prec::Atom
        };
        // The regex without its lookarounds, then each lookaround's body.
        let mut checked = vec![wrap(plain)];
        if split.is_some() {
            if let Ok(Some(s)) = lookaround::split(&wrap(&tr)) {
                checked.extend(s.assertions.into_iter().map(|a| a.body));
            }
        }
        for (i, text) in checked.iter().enumerate() {
            match regex_syntax::Parser::new().parse(text) {
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
                    if i == 0 {
                        lit.matches_empty = props.minimum_len() == Some(0);
                    }
                }
                Err(e) => {
                    let (msg, sp) = regex_error(&e);
                    // Positions map back only for the regex as written.
                    let sp = match sp {
                        Some((a, b)) if a >= prefix && split.is_none() => {
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
                    return lit;
                }
            }
        }
        lit.re = Some(wrap(&tr));
        lit
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

/// The message and, when known, the byte range inside the pattern of a
/// regex-syntax error.
pub(super) fn regex_error(e: &regex_syntax::Error) -> (String, Option<(usize, usize)>) {
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

/// The members of Python's `\w` class, in regex-syntax.
const PY_WORD: &str = "\\p{L}\\p{N}_";
/// The members of Python's `\s` class (`str.isspace()`): Unicode's white
/// space and the four separators `\x1c`..`\x1f`.
const PY_SPACE: &str = "\\s\\x1C-\\x1F";

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
                // Python's `\w` is `str.isalnum()` or `_`: letters and
                // numbers, not the marks and joiners of Unicode's `\w`
                // (Lark itself would refuse a combining mark in a name).
                // In a class, a nested class keeps a neighbouring `-`
                // literal.
                Some('w') if in_class => push(&mut out, PY_WORD, off),
                Some('w') => push(&mut out, &format!("[{PY_WORD}]"), off),
                Some('W') => push(&mut out, &format!("[^{PY_WORD}]"), off),
                // Python's `\s` also holds `\x1c`..`\x1f`.
                Some('s') => push(&mut out, &format!("[{PY_SPACE}]"), off),
                Some('S') => push(&mut out, &format!("[^{PY_SPACE}]"), off),
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

pub(super) fn range_regex(lo: char, hi: char) -> String {
    if lo == hi {
        format!("[{}]", class_char(lo))
    } else {
        format!("[{}-{}]", class_char(lo), class_char(hi))
    }
}
