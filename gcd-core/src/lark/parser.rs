//! Tokens to definitions: the token cursor, error recovery, rule and terminal
//! definitions and their expressions. `%` directives are in
//! [`super::directives`], `/regex/` literals are checked in [`super::regex`],
//! repetition counts are read in [`super::counts`], `%regex { ... }` in
//! [`super::substring`] and rule attributes in [`super::attributes`]; all
//! extend this [`Parser`].

use super::ast::{
    Node, Parsed, ParsedAlt, RuleAttributes, RuleDef, TemplateDef, TermBody, TermDef,
};
use super::lexer::{describe, lex, Tok, Token};
use super::source::Source;
use super::MAX_NESTING;
use crate::error::{Diagnostic, DiagnosticKind, Span};
use crate::grammar::RuleKind;

pub(super) type PResult<T> = Result<T, ()>;

pub(super) struct Parser<'s, 'a> {
    pub(super) src: &'s Source<'a>,
    pub(super) toks: Vec<Token>,
    pub(super) pos: usize,
    /// How many `(`/`[` are open.
    pub(super) depth: usize,
    pub(super) diags: Vec<Diagnostic>,
    pub(super) out: Parsed,
}

pub(super) fn is_terminal_name(name: &str) -> bool {
    name.trim_start_matches('_')
        .starts_with(|c: char| c.is_ascii_uppercase())
}

/// Lexes and parses a whole grammar text: its definitions, and every
/// diagnostic found on the way.
pub(super) fn parse_text(src: &Source<'_>) -> (Parsed, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let toks = lex(src, &mut diags);
    let mut parser = Parser {
        src,
        toks,
        pos: 0,
        depth: 0,
        diags,
        out: Parsed::default(),
    };
    parser.file();
    (parser.out, parser.diags)
}

impl Parser<'_, '_> {
    pub(super) fn tok_at(&self, i: usize) -> &Token {
        &self.toks[i.min(self.toks.len() - 1)]
    }

    pub(super) fn peek(&self) -> &Tok {
        &self.tok_at(self.pos).tok
    }

    pub(super) fn cur(&self) -> Token {
        self.tok_at(self.pos).clone()
    }

    pub(super) fn advance(&mut self) -> Token {
        let t = self.cur();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    pub(super) fn span_of(&self, t: &Token) -> Span {
        self.src.span(t.start, t.end)
    }

    pub(super) fn prev_end(&self) -> usize {
        if self.pos == 0 {
            0
        } else {
            self.tok_at(self.pos - 1).end
        }
    }

    pub(super) fn error(&mut self, kind: DiagnosticKind, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::new(kind, Some(span), msg));
    }

    /// Reports "expected X, found <current token>" (unless the current token
    /// is an already reported invalid one) and fails.
    pub(super) fn expected<T>(&mut self, what: &str) -> PResult<T> {
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
        if !matches!(self.tok_at(j).tok, Tok::Name(_)) {
            return false;
        }
        j += 1;
        // `name{a, b}:` defines a template; `name{a, b}` alone uses one.
        if self.tok_at(j).tok == Tok::LBrace {
            while !matches!(self.tok_at(j).tok, Tok::RBrace | Tok::Newline | Tok::Eof) {
                j += 1;
            }
            j += 1;
        }
        // `name[lazy]:`: llguidance's rule attributes.
        if self.tok_at(j).tok == Tok::LBrack {
            while !matches!(self.tok_at(j).tok, Tok::RBrack | Tok::Newline | Tok::Eof) {
                j += 1;
            }
            j += 1;
        }
        matches!(self.tok_at(j).tok, Tok::Colon | Tok::Dot)
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

    pub(super) fn file(&mut self) {
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

    pub(super) fn end_of_definition(&mut self) -> PResult<()> {
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

    /// The parameters of a template definition `name{a, b}`; the current
    /// token is `{`.
    fn template_params(&mut self, name: &str) -> PResult<Vec<(String, Span)>> {
        self.advance();
        let mut params: Vec<(String, Span)> = Vec::new();
        loop {
            let t = self.cur();
            let Tok::Name(p) = t.tok.clone() else {
                return self.expected(&format!("a parameter name in `{name}{{...}}`"));
            };
            self.advance();
            let span = self.span_of(&t);
            if params.iter().any(|(q, _)| *q == p) {
                self.error(
                    DiagnosticKind::Duplicate,
                    span,
                    format!("template `{name}` has two parameters named `{p}`"),
                );
                return Err(());
            }
            params.push((p, span));
            match self.peek() {
                Tok::Comma => {
                    self.advance();
                }
                Tok::RBrace => {
                    self.advance();
                    return Ok(params);
                }
                _ => return self.expected(&format!("`,` or `}}` in the parameters of `{name}`")),
            }
        }
    }

    /// Opens a group or a template's argument list at `t`, refusing to nest
    /// deeper than [`MAX_NESTING`].
    fn open_nesting(&mut self, t: &Token) -> PResult<()> {
        if self.depth >= MAX_NESTING {
            self.error(
                DiagnosticKind::TooLarge,
                self.span_of(t),
                format!("groups nested too deeply (the limit is {MAX_NESTING})"),
            );
            return Err(());
        }
        self.depth += 1;
        Ok(())
    }

    /// A template use `name{arg, ...}`; `name_tok` is consumed and the current
    /// token is `{`. Each argument is one item (with its operator), as in Lark
    /// plus groups: `list{(a | b)}`.
    fn template_use(&mut self, name: String, name_tok: &Token) -> PResult<Node> {
        let open = self.cur();
        self.open_nesting(&open)?;
        self.advance();
        let mut args = Vec::new();
        loop {
            self.skip_continuation();
            args.push(self.expr()?);
            self.skip_continuation();
            match self.peek() {
                Tok::Comma => {
                    self.advance();
                }
                Tok::RBrace => {
                    self.advance();
                    break;
                }
                _ => {
                    let p = self.src.pos(open.start);
                    return self.expected(&format!(
                        "`,` or `}}` to close the `{{` of `{name}{{...}}` at {}:{}",
                        p.line, p.col
                    ));
                }
            }
        }
        self.depth -= 1;
        let span = self.src.span(name_tok.start, self.prev_end());
        Ok(Node::Template(name, args, span))
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
        let mut params = None;
        if *self.peek() == Tok::LBrace {
            if terminal {
                let t = self.cur();
                self.error(
                    DiagnosticKind::Syntax,
                    self.src.span(name_tok.start, t.end),
                    format!("terminal `{name}` cannot be a template: only rules take parameters"),
                );
                return Err(());
            }
            params = Some(self.template_params(&name)?);
        }
        let mut attrs = RuleAttributes::default();
        if *self.peek() == Tok::LBrack {
            if terminal {
                let t = self.cur();
                self.error(
                    DiagnosticKind::Syntax,
                    self.span_of(&t),
                    format!(
                        "terminal `{name}` cannot take attributes `[...]`: they apply to rules"
                    ),
                );
                return Err(());
            }
            attrs = self.rule_attributes(&name)?;
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
            let rule = RuleDef {
                name,
                kind,
                keep_all_tokens,
                attrs,
                alts,
                span: name_span,
            };
            match params {
                Some(params) => self.out.templates.push(TemplateDef { rule, params }),
                None => self.out.rules.push(rule),
            }
        }
        Ok(())
    }

    pub(super) fn expansions(&mut self, top: bool) -> PResult<Vec<ParsedAlt>> {
        let mut alts = Vec::new();
        loop {
            self.skip_continuation();
            let start = self.cur().start;
            let node = self.conjunction()?;
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

    /// `a & b & ...` (llguidance): binds tighter than `|` and looser than
    /// a sequence, so `A B & C | D` is `((A B) & C) | D`. Only terminals
    /// may use it; the terminal compiler and the rule lowering check that.
    fn conjunction(&mut self) -> PResult<Node> {
        let start = self.cur().start;
        let first = self.expansion()?;
        if *self.peek() != Tok::Amp {
            return Ok(first);
        }
        let mut items = vec![first];
        while *self.peek() == Tok::Amp {
            let amp = self.advance();
            self.skip_continuation();
            items.push(self.expansion()?);
            if items
                .iter()
                .any(|n| matches!(n, Node::Seq(s) if s.is_empty()))
            {
                self.error(
                    DiagnosticKind::Syntax,
                    self.span_of(&amp),
                    "`&` needs a terminal expression on each side",
                );
                return Err(());
            }
        }
        let span = self.src.span(start, self.prev_end().max(start));
        Ok(Node::And(items, span))
    }

    fn expansion(&mut self) -> PResult<Node> {
        let mut items = Vec::new();
        loop {
            self.skip_continuation();
            match self.peek() {
                Tok::Name(_)
                | Tok::Str { .. }
                | Tok::Regex { .. }
                | Tok::Special(_)
                | Tok::TokenSet(_)
                | Tok::RegexExt(_)
                | Tok::Json(_)
                | Tok::TypeRef(_)
                | Tok::LParen
                | Tok::LBrack => {
                    items.push(self.expr()?);
                }
                Tok::Pipe
                | Tok::Amp
                | Tok::RParen
                | Tok::RBrack
                | Tok::Arrow
                | Tok::Newline
                | Tok::Eof => break,
                Tok::Question | Tok::Star | Tok::Plus | Tok::Tilde | Tok::LBrace
                    if !items.is_empty()
                        && match self.peek() {
                            Tok::LBrace => self.count_brace_ahead(),
                            // A `~` before an item negates it; before a count
                            // it is a second repetition.
                            Tok::Tilde => {
                                matches!(self.tok_at(self.pos + 1).tok, Tok::Number(_))
                            }
                            _ => true,
                        } =>
                {
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
                Tok::Tilde => {
                    items.push(self.expr()?);
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

    /// An item: `~`s (llguidance's negation, binding tighter than any
    /// postfix operator: `~A+` is `(~A)+`), an atom, and one operator.
    fn expr(&mut self) -> PResult<Node> {
        let mut nots = Vec::new();
        while *self.peek() == Tok::Tilde {
            nots.push(self.advance());
        }
        let mut atom = self.atom()?;
        for t in nots.iter().rev() {
            let span = self.src.span(t.start, self.prev_end());
            atom = Node::Not(Box::new(atom), span);
        }
        let node = match self.peek() {
            Tok::Question => Node::Opt(Box::new(atom)),
            Tok::Star => Node::Star(Box::new(atom)),
            Tok::Plus => Node::Plus(Box::new(atom)),
            Tok::Tilde if matches!(self.tok_at(self.pos + 1).tok, Tok::Number(_)) => {
                self.advance();
                let (min, _) = self.number("`~`")?;
                let mut max = min;
                if *self.peek() == Tok::DotDot {
                    self.advance();
                    max = self.repetition_max(min, "`..`", |m| format!("~ {min}..{m}"))?;
                }
                return Ok(Node::Repeat(Box::new(atom), min, max));
            }
            Tok::LBrace if self.count_brace_ahead() => return self.count_repetition(atom),
            _ => return Ok(atom),
        };
        self.advance();
        Ok(node)
    }

    fn atom(&mut self) -> PResult<Node> {
        let t = self.cur();
        match t.tok.clone() {
            Tok::LParen | Tok::LBrack => {
                self.open_nesting(&t)?;
                let close = if t.tok == Tok::LParen {
                    Tok::RParen
                } else {
                    Tok::RBrack
                };
                self.advance();
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
            Tok::Special(token) => {
                self.advance();
                Ok(Node::Special(token, self.span_of(&t)))
            }
            Tok::RegexExt(text) => {
                self.advance();
                self.structured_regex(&text, &t)
            }
            Tok::TokenSet(ranges) => {
                self.advance();
                Ok(Node::TokenSet(ranges, self.span_of(&t)))
            }
            Tok::TypeRef(name) => {
                self.advance();
                Ok(Node::TypeRef(name, self.span_of(&t)))
            }
            Tok::Json(text) => {
                self.advance();
                match serde_json::from_str::<serde_json::Value>(&text) {
                    Ok(schema) => Ok(Node::Json(Box::new(schema), self.span_of(&t))),
                    Err(e) => {
                        self.error(
                            DiagnosticKind::Syntax,
                            self.span_of(&t),
                            format!("the JSON Schema after `%json` is not JSON: {e}"),
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
                if *self.peek() == Tok::LBrace && !self.count_brace_ahead() {
                    return self.template_use(name, &t);
                }
                Ok(Node::Name(name, self.span_of(&t)))
            }
            _ => self.expected("a name, a \"literal\", a /regex/, a <special token>, `(` or `[`"),
        }
    }
}

pub(super) fn alts_node(mut nodes: Vec<Node>) -> Node {
    if nodes.len() == 1 {
        nodes.pop().unwrap_or(Node::Seq(Vec::new()))
    } else {
        Node::Alt(nodes)
    }
}
