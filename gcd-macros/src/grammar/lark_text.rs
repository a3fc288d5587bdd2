//! Rust tokens → grammar text, remembering where each piece came from.
//!
//! The inline form of `grammar!` is written as Rust tokens, but the grammar
//! language is the Lark subset that gcd-core parses from text. Rather than a
//! second parser, the tokens are printed as Lark text and every printed piece
//! keeps the span of the tokens it came from, so a diagnostic at a byte range
//! of the text becomes a compile error at the culprit in the user's code.
//!
//! What differs from Lark text, because Rust tokens cannot say it otherwise:
//! a regex is a string literal between slashes (`/"[0-9]+"/`, raw strings
//! welcome; flags go inline as `(?i)`), and a definition ends at `;` or
//! where the next one starts (`name:`, `?name:`, `NAME.2:`, `%ignore`):
//! Rust tokens carry no line breaks.

use std::ops::Range;

use proc_macro2::{Delimiter, Spacing, Span, TokenStream, TokenTree};
use quote::ToTokens;

/// Grammar text printed from tokens, with the source of every piece.
pub struct LarkText {
    pub text: String,
    pieces: Vec<Piece>,
}

struct Piece {
    range: Range<usize>,
    tokens: TokenStream,
}

impl LarkText {
    /// An error covering the tokens that printed `range` of the text (the
    /// last piece when the range is at the very end).
    pub fn error_at(&self, range: Range<usize>, message: &str) -> syn::Error {
        let overlapping: Vec<&Piece> = self
            .pieces
            .iter()
            .filter(|p| p.range.start < range.end.max(range.start + 1) && range.start < p.range.end)
            .collect();
        let chosen = if overlapping.is_empty() {
            // Between pieces or past the end: the nearest piece before.
            self.pieces
                .iter()
                .rev()
                .find(|p| p.range.start <= range.start)
                .into_iter()
                .collect()
        } else {
            overlapping
        };
        let mut tokens = TokenStream::new();
        match (chosen.first(), chosen.last()) {
            (Some(first), Some(last)) => {
                tokens.extend(first.tokens.clone());
                if chosen.len() > 1 {
                    tokens.extend(last.tokens.clone());
                }
                syn::Error::new_spanned(tokens, message)
            }
            _ => syn::Error::new(Span::call_site(), message),
        }
    }
}

impl LarkText {
    /// The tokens that printed the first piece spelled `text`.
    pub fn tokens_of(&self, text: &str) -> Option<TokenStream> {
        self.pieces
            .iter()
            .find(|p| &self.text[p.range.clone()] == text)
            .map(|p| p.tokens.clone())
    }
}

/// Prints `tokens` as Lark text.
pub fn from_tokens(tokens: TokenStream) -> Result<LarkText, syn::Error> {
    let mut w = Writer {
        text: String::new(),
        pieces: Vec::new(),
        glue: true,
    };
    w.stream(tokens, 0)?;
    Ok(LarkText {
        text: w.text,
        pieces: w.pieces,
    })
}

struct Writer {
    text: String,
    pieces: Vec<Piece>,
    /// The next piece attaches to the previous one without a space.
    glue: bool,
}

impl Writer {
    fn emit(&mut self, s: &str, source: TokenStream) {
        if !self.glue && !self.text.is_empty() && !self.text.ends_with('\n') {
            self.text.push(' ');
        }
        let start = self.text.len();
        self.text.push_str(s);
        self.pieces.push(Piece {
            range: start..self.text.len(),
            tokens: source,
        });
        self.glue = false;
    }

    fn newline(&mut self) {
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            self.text.push('\n');
        }
        self.glue = true;
    }

    fn stream(&mut self, tokens: TokenStream, depth: usize) -> Result<(), syn::Error> {
        let toks: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        // Tokens of a definition's head (`?`, `!`) not to be read as a new start.
        let mut head_end = 0;
        while i < toks.len() {
            let in_head = i < head_end;
            if depth == 0 && !in_head {
                if let Some(len) = definition_head(&toks[i..]) {
                    self.newline();
                    head_end = i + len + 1;
                }
            }
            match &toks[i] {
                TokenTree::Punct(p) if p.as_char() == ';' && depth == 0 => self.newline(),
                TokenTree::Punct(p) if p.as_char() == '/' => {
                    let (Some(TokenTree::Literal(lit)), Some(TokenTree::Punct(close))) =
                        (toks.get(i + 1), toks.get(i + 2))
                    else {
                        return Err(syn::Error::new(p.span(), "a regex is written as a string literal between slashes: `/\"[0-9]+\"/`"));
                    };
                    if close.as_char() != '/' {
                        return Err(syn::Error::new(
                            close.span(),
                            "expected the closing `/` of the regex",
                        ));
                    }
                    let value = match syn::Lit::new(lit.clone()) {
                        syn::Lit::Str(s) if s.suffix().is_empty() => s.value(),
                        _ => {
                            return Err(syn::Error::new(
                                lit.span(),
                                "a regex is a plain string literal between slashes (flags go inline, as `(?i)`)",
                            ))
                        }
                    };
                    let source: TokenStream = toks[i..i + 3].iter().cloned().collect();
                    self.emit(&regex_text(&value), source);
                    i += 2;
                }
                TokenTree::Punct(p) if p.as_char() == '<' => {
                    // A special token, `<|im_end|>` or `<[128009]>`: its
                    // tokens printed without spaces, as one piece.
                    let close = (toks[i + 1..].iter().take(8))
                        .position(|t| matches!(t, TokenTree::Punct(q) if q.as_char() == '>'))
                        .ok_or_else(|| {
                            syn::Error::new(
                                p.span(),
                                "a special token is written `<|name|>`, `<NAME>` or `<[id]>`",
                            )
                        })?;
                    let inner = &toks[i + 1..i + 1 + close];
                    let mut name = String::from("<");
                    for t in inner {
                        match t {
                            TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket => {
                                name.push_str(&format!("[{}]", g.stream()));
                            }
                            TokenTree::Group(g) => {
                                return Err(syn::Error::new(
                                    g.span(),
                                    "a special token is written `<|name|>`, `<NAME>` or `<[id]>`",
                                ))
                            }
                            t => name.push_str(&t.to_string()),
                        }
                    }
                    name.push('>');
                    let source: TokenStream = toks[i..i + 2 + close].iter().cloned().collect();
                    self.emit(&name, source);
                    i += 1 + close;
                }
                TokenTree::Punct(p) if p.as_char() == '@' => {
                    // A Rust type, `@ToolCall` or `@tools::Call`: one piece.
                    let mut name = String::from("@");
                    let mut j = i + 1;
                    loop {
                        match toks.get(j) {
                            Some(TokenTree::Ident(id)) => name.push_str(&id.to_string()),
                            _ => {
                                return Err(syn::Error::new(
                                    p.span(),
                                    "expected a Rust type after `@` (`@ToolCall`, `@tools::Call`)",
                                ))
                            }
                        }
                        let colons = matches!((toks.get(j + 1), toks.get(j + 2)),
                            (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) if a.as_char() == ':' && b.as_char() == ':' && a.spacing() == Spacing::Joint);
                        if !colons {
                            break;
                        }
                        name.push_str("::");
                        j += 3;
                    }
                    let source: TokenStream = toks[i..=j].iter().cloned().collect();
                    self.emit(&name, source);
                    i = j;
                }
                TokenTree::Punct(p) if p.as_char() == '%' => {
                    self.emit("%", p.to_token_stream());
                    self.glue = true;
                }
                TokenTree::Punct(p) if p.as_char() == '.' => {
                    self.glue = true;
                    self.emit(".", p.to_token_stream());
                    self.glue = true;
                }
                TokenTree::Punct(p) => {
                    let c = p.as_char();
                    let prefix = i < head_end && (c == '?' || c == '!');
                    // Postfix operators and `:` attach to what precedes them.
                    if !prefix && matches!(c, ':' | '*' | '+' | '?') {
                        self.glue = true;
                    }
                    self.emit(&c.to_string(), p.to_token_stream());
                    let next_is_punct = matches!(toks.get(i + 1), Some(TokenTree::Punct(_)));
                    self.glue = prefix || (p.spacing() == Spacing::Joint && next_is_punct);
                }
                TokenTree::Ident(id) => {
                    let name = id.to_string();
                    let name = name.strip_prefix("r#").unwrap_or(&name).to_string();
                    self.emit(&name, id.to_token_stream());
                }
                TokenTree::Literal(lit) => {
                    let text = literal_text(lit)?;
                    self.emit(&text, lit.to_token_stream());
                }
                TokenTree::Group(g) => {
                    let (open, close) = match g.delimiter() {
                        Delimiter::Parenthesis => ("(", ")"),
                        Delimiter::Bracket => ("[", "]"),
                        Delimiter::None => ("", ""),
                        Delimiter::Brace => {
                            return Err(syn::Error::new(
                                g.span(),
                                "braces have no meaning in a grammar (Lark templates are not supported); \
                                 use `( )` to group and `[ ]` for an optional part",
                            ))
                        }
                    };
                    if !open.is_empty() {
                        self.emit(open, span_tokens(g.span_open()));
                        self.glue = true;
                    }
                    self.stream(g.stream(), depth + 1)?;
                    if !close.is_empty() {
                        self.glue = true;
                        self.emit(close, span_tokens(g.span_close()));
                    }
                }
            }
            i += 1;
        }
        Ok(())
    }
}

/// A token that carries only a span, to point errors at one delimiter.
fn span_tokens(span: Span) -> TokenStream {
    proc_macro2::Punct::new('#', Spacing::Alone)
        .into_token_stream()
        .into_iter()
        .map(|mut t| {
            t.set_span(span);
            t
        })
        .collect()
}

/// Whether a new definition starts here (`name:`, `?name:`, `!name:`,
/// `NAME.2:` or a `%` directive), and if so how many tokens precede its
/// name.
fn definition_head(toks: &[TokenTree]) -> Option<usize> {
    starts_definition(toks).then(|| {
        toks.iter()
            .take_while(
                |t| matches!(t, TokenTree::Punct(p) if p.as_char() == '?' || p.as_char() == '!'),
            )
            .count()
    })
}

fn starts_definition(toks: &[TokenTree]) -> bool {
    let is_punct =
        |t: Option<&TokenTree>, c: char| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c);
    let mut i = 0;
    while is_punct(toks.get(i), '?') || is_punct(toks.get(i), '!') {
        i += 1;
    }
    if i == 0 && is_punct(toks.first(), '%') {
        return true;
    }
    if !matches!(toks.get(i), Some(TokenTree::Ident(_))) {
        return false;
    }
    i += 1;
    if is_punct(toks.get(i), '.') && matches!(toks.get(i + 1), Some(TokenTree::Literal(_))) {
        i += 2;
    }
    is_punct(toks.get(i), ':') && !is_punct(toks.get(i + 1), ':')
}

/// A string literal (optionally with the `i` suffix) or an integer.
fn literal_text(lit: &proc_macro2::Literal) -> Result<String, syn::Error> {
    match syn::Lit::new(lit.clone()) {
        syn::Lit::Str(s) => {
            let flags = match s.suffix() {
                "" => "",
                "i" => "i",
                other => {
                    return Err(syn::Error::new(
                        lit.span(),
                        format!("unknown literal flag `{other}`; the only one is `i` (case-insensitive)"),
                    ))
                }
            };
            Ok(format!("\"{}\"{flags}", escape_literal(&s.value())))
        }
        syn::Lit::Int(i) if i.suffix().is_empty() => Ok(i.base10_digits().to_string()),
        _ => Err(syn::Error::new(
            lit.span(),
            "expected a string literal (`\"if\"`), a regex (`/\"[a-z]+\"/`) or a number (`~ 3`, `NAME.2`)",
        )),
    }
}

fn escape_literal(value: &str) -> String {
    let mut out = String::new();
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// `/body/` with slashes and line breaks escaped so the text stays one token.
fn regex_text(value: &str) -> String {
    let mut out = String::from("/");
    for c in value.chars() {
        match c {
            '/' => out.push_str("\\/"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('/');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn text(ts: TokenStream) -> String {
        from_tokens(ts).unwrap_or_else(|e| panic!("{e}")).text
    }

    #[test]
    fn definitions_split_into_lines() {
        let t = text(quote! {
            start: expr
            ?expr: expr "+" term | term -> single
            term: NUMBER; NUMBER.2: /"[0-9]+"/
            %import common.WS
            %ignore WS
        });
        assert_eq!(
            t,
            "start: expr\n?expr: expr \"+\" term | term -> single\nterm: NUMBER\nNUMBER.2: /[0-9]+/\n%import common.WS\n%ignore WS"
        );
    }

    #[test]
    fn groups_ranges_repeats_and_flags() {
        let t = text(quote! {
            start: ("a".."z")+ ["x"i] (a | b)* x ~ 2..3
        });
        assert_eq!(t, "start: (\"a\"..\"z\")+ [\"x\"i] (a | b)* x ~ 2..3");
    }

    #[test]
    fn regexes_and_literals_are_escaped() {
        let t = text(quote! { A: /r"a/b\d"/ "q\"\\\n" });
        assert_eq!(t, "A: /a\\/b\\d/ \"q\\\"\\\\\\u000a\"");
    }

    #[test]
    fn pieces_map_back_to_their_tokens() {
        let lt = from_tokens(quote! { start: a b }).unwrap();
        let b_at = lt.text.find('b').unwrap();
        let e = lt.error_at(b_at..b_at + 1, "here");
        assert_eq!(e.to_string(), "here");
        // The whole text maps to a combined span without panicking.
        lt.error_at(0..lt.text.len(), "all");
        lt.error_at(lt.text.len()..lt.text.len(), "end");
    }

    #[test]
    fn bad_pieces_are_errors() {
        for ts in [
            quote! { start: { a } },
            quote! { start: 'c' },
            quote! { A: /"x" },
            quote! { A: "x"q },
            quote! { A: /"x"i/ },
        ] {
            assert!(from_tokens(ts.clone()).is_err(), "{ts}");
        }
    }
}
