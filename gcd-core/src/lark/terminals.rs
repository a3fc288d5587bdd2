//! Terminal definitions to one regex each: substitutes referenced terminals,
//! reports cycles, rule references and size limits, and checks the result.
//! Separate from the lowering of rules because terminals must be regular and
//! compile to a single pattern, while rules become grammar productions.

use std::collections::{HashMap, HashSet};

use super::ast::{Frag, Node, Prec, TermBody, TermDef};
use super::lexer::token_set_text;
use super::parser::is_terminal_name;
use super::regex::{range_regex, regex_error};
use super::{MAX_COMPILE_DEPTH, MAX_TERMINAL_DEPTH};
use crate::error::{Diagnostic, DiagnosticKind, Span};
use crate::grammar::{RegexCombination, TerminalPattern};
use crate::lexer::{lookaround, TerminalDfa};

#[derive(Clone, Debug)]
pub(super) enum TState {
    Todo,
    Active,
    Done(Option<Frag>),
}

pub(super) struct TermCompiler<'c> {
    pub(super) terms: &'c [TermDef],
    pub(super) index: &'c HashMap<String, usize>,
    pub(super) rules: &'c HashSet<String>,
    pub(super) state: Vec<TState>,
    pub(super) stack: Vec<usize>,
    /// How deep `node` recursion is (terminal references and groups).
    pub(super) nest: usize,
    /// [`Limits::max_regex_len`](crate::limits::Limits::max_regex_len).
    pub(super) max_regex_len: usize,
    pub(super) diags: &'c mut Vec<Diagnostic>,
}

impl TermCompiler<'_> {
    pub(super) fn term(&mut self, i: usize) -> Option<Frag> {
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
        if re.len() > self.max_regex_len {
            self.diags.push(Diagnostic::new(
                DiagnosticKind::TooLarge,
                Some(owner.1),
                format!(
                    "{} compiles to a regex longer than {} bytes (the limit `Limits::max_regex_len`)",
                    owner.0, self.max_regex_len
                ),
            ));
            return None;
        }
        Some(Frag::Re { re, prec })
    }

    pub(super) fn node(&mut self, node: &Node, owner: &(String, Span)) -> Option<Frag> {
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

    /// `what` cannot be part of a terminal (`why`); it belongs in a rule.
    fn not_in_terminal(
        &mut self,
        owner: &(String, Span),
        span: Span,
        what: &str,
        why: &str,
    ) -> Option<Frag> {
        self.diags.push(Diagnostic::new(
            DiagnosticKind::Syntax,
            Some(span),
            format!("{} cannot use {what}: {why}; use it in a rule", owner.0),
        ));
        None
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
            Node::Template(name, _, span) => {
                self.diags.push(Diagnostic::new(
                    DiagnosticKind::Syntax,
                    Some(*span),
                    format!(
                        "{} cannot use template `{name}{{...}}`: templates make rules, and terminals are built from literals, regexes and other terminals",
                        owner.0
                    ),
                ));
                None
            }
            Node::Special(t, span) => self.not_in_terminal(
                owner,
                *span,
                &format!("special token {t}"),
                "a special token is one token id, not text",
            ),
            Node::TokenSet(ranges, span) => self.not_in_terminal(
                owner,
                *span,
                &format!("token set {}", token_set_text(ranges)),
                "a token set is token ids, not text",
            ),
            Node::TypeRef(name, span) => self.not_in_terminal(
                owner,
                *span,
                &format!("`@{name}`"),
                "a Rust type's JSON is a language of many lexemes",
            ),
            Node::Json(_, span) => self.not_in_terminal(
                owner,
                *span,
                "`%json`",
                "a JSON Schema is a language of many lexemes",
            ),
            Node::Lit { text, ci, .. } => Some(Frag::Lit {
                text: text.clone(),
                ci: *ci,
            }),
            Node::Re(r) => r.re.clone().map(|re| Frag::Re { re, prec: r.prec }),
            Node::Range { lo, hi, .. } => Some(Frag::Re {
                re: range_regex(*lo, *hi),
                prec: Prec::Atom,
            }),
            Node::And(items, _) => {
                let frags = self.all(items, owner)?;
                let parts = frags.iter().map(Frag::combination).collect();
                Some(Frag::Comb(RegexCombination::And(parts)))
            }
            Node::Not(item, _) => {
                let frag = self.node(item, owner)?;
                Some(Frag::Comb(RegexCombination::Not(Box::new(
                    frag.combination(),
                ))))
            }
            Node::Seq(items) => {
                let frags = self.all(items, owner)?;
                if frags.len() > 1 {
                    self.no_regex_of_combination(&frags, items, owner, "concatenates")?;
                }
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
                                Frag::Re { .. } | Frag::Comb(_) => "",
                            })
                            .collect();
                        if text.len() > self.max_regex_len {
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
                if frags.iter().any(|f| matches!(f, Frag::Comb(_))) {
                    let parts = frags.iter().map(Frag::combination).collect();
                    return Some(Frag::Comb(RegexCombination::Or(parts)));
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
                self.no_regex_of_combination(
                    std::slice::from_ref(&f),
                    std::slice::from_ref(&**e),
                    owner,
                    "repeats",
                )?;
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

    /// Refuses to splice the result of `&` or `~` into a regex (`how`:
    /// what the expression would do with it, e.g. "repeats"): the lexer
    /// builds those as a product of automata, which `|`, `&` and `~`
    /// combine further but a sequence or repetition does not.
    fn no_regex_of_combination(
        &mut self,
        frags: &[Frag],
        items: &[Node],
        owner: &(String, Span),
        how: &str,
    ) -> Option<()> {
        let Some(i) = frags.iter().position(|f| matches!(f, Frag::Comb(_))) else {
            return Some(());
        };
        let span = node_span(&items[i]).unwrap_or(owner.1);
        self.diags.push(Diagnostic::new(
            DiagnosticKind::Unsupported,
            Some(span),
            format!(
                "{} {how} the result of `&` or `~` ({}): gcd combines such results \
                 only with `|`, `&` and `~`; write the sequence or repetition inside the \
                 operands (e.g. `/[a-z]+/ & ~/(?s:.*)__(?s:.*)/` instead of `(~KEYWORD)+`)",
                owner.0,
                frags[i].combination()
            ),
        ));
        None
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

/// Any non-empty text: intersected with a regex that also matches the empty
/// string, it leaves the regex's other lexemes.
const NON_EMPTY: &str = "(?s:.)+";

/// A pattern that also matches the empty string, read as llguidance reads
/// it: the pattern's non-empty lexemes, and the caller makes each use
/// optional (`T` where `T` matches "" means `T'?`, the same language).
/// `None` for patterns that cannot match "" or that this cannot take apart
/// (an empty literal, lookaround assertions, an invalid regex): those go
/// through [`check_terminal`] as before.
pub(super) fn non_empty_part(pattern: &TerminalPattern) -> Option<TerminalPattern> {
    if let TerminalPattern::Combination(c) = pattern {
        // `~X` matches "" unless X does: `~KEYWORD` alone is common.
        let empty = TerminalDfa::combination_matches_empty(c).ok()?;
        return empty.then(|| {
            let non_empty = RegexCombination::Regex(NON_EMPTY.to_string());
            TerminalPattern::Combination(RegexCombination::And(vec![c.clone(), non_empty]))
        });
    }
    let TerminalPattern::Regex(re) = pattern else {
        return None;
    };
    if !matches!(lookaround::split(re), Ok(None)) {
        return None;
    }
    let hir = regex_syntax::Parser::new().parse(re).ok()?;
    (hir.properties().minimum_len() == Some(0))
        .then(|| TerminalPattern::Intersection(vec![re.clone(), NON_EMPTY.to_string()]))
}

/// Checks a compiled terminal pattern: that it is a valid regex and, when
/// the grammar uses it, that it cannot match the empty string.
pub(super) fn check_terminal(
    what: &str,
    pattern: &TerminalPattern,
    span: Span,
    used: bool,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let empty = match pattern {
        TerminalPattern::Literal { text, .. } => text.is_empty(),
        // Not written in Lark; the DFA build checks it.
        TerminalPattern::Intersection(_) => false,
        // Its non-empty part was taken (`non_empty_part`); each leaf must
        // be a valid regex.
        TerminalPattern::Combination(c) => {
            for leaf in c.leaves() {
                let plain = lookaround::without_assertions(leaf);
                if let Err(e) = regex_syntax::Parser::new().parse(&plain) {
                    let (msg, _) = regex_error(&e);
                    diags.push(Diagnostic::new(
                        DiagnosticKind::InvalidRegex,
                        Some(span),
                        format!("{what} combines an invalid regex: {msg}"),
                    ));
                    return false;
                }
            }
            false
        }
        TerminalPattern::Special(_) => false,
        TerminalPattern::Regex(re) => {
            match regex_syntax::Parser::new().parse(&lookaround::without_assertions(re)) {
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
            }
        }
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

/// Where a node is written, when it says so itself.
fn node_span(node: &Node) -> Option<Span> {
    match node {
        Node::Name(_, s)
        | Node::Lit { span: s, .. }
        | Node::Range { span: s, .. }
        | Node::Special(_, s)
        | Node::TokenSet(_, s)
        | Node::Json(_, s)
        | Node::TypeRef(_, s)
        | Node::Template(_, _, s)
        | Node::And(_, s)
        | Node::Not(_, s) => Some(*s),
        Node::Re(r) => Some(r.span),
        Node::Seq(items) | Node::Alt(items) => items.iter().find_map(node_span),
        Node::Opt(e) | Node::Star(e) | Node::Plus(e) | Node::Repeat(e, ..) => node_span(e),
    }
}
