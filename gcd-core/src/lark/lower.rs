//! Parsed definitions to a [`GrammarBuilder`]: the terminals the grammar
//! uses, the `%ignore`s, and rule alternatives as [`Expr`]s. Separate from
//! the parser because it needs the whole file (which terminals rules use,
//! which definition of a name came first); as the last stage of the front
//! end it also returns every diagnostic, sorted by position.

use std::collections::{HashMap, HashSet};

use super::ast::{Frag, Node, Parsed, RuleDef};
use super::parser::alts_node;
use super::regex::range_regex;
use super::terminals::{check_terminal, non_empty_part, TState, TermCompiler};
use super::Embeds;
use crate::error::{Diagnostic, DiagnosticKind, GrammarError, Span};
use crate::grammar::{
    Alternative, CapturePart, Expr, Grammar, GrammarBuilder, SpecialToken, TerminalPattern,
};
use crate::limits::Limits;

/// What lowering a rule's expression needs besides the expression.
struct RuleCx<'a> {
    /// The terminals that also match the empty string, whose uses become
    /// optional (see [`non_empty_part`]).
    optional: &'a HashSet<String>,
    diags: &'a mut Vec<Diagnostic>,
    builder: &'a mut GrammarBuilder,
    embeds: &'a dyn Embeds,
    /// Each embedded grammar (`json:` and the schema's text, `type:` and
    /// the type's name) → its start rule here, so one written twice is
    /// embedded once.
    embedded: HashMap<String, String>,
}

impl RuleCx<'_> {
    /// The rule standing for an embedded grammar (`key` names it, `what`
    /// says it in messages), embedding it on first use.
    fn embedded(
        &mut self,
        key: String,
        what: &str,
        span: Span,
        make: impl FnOnce(&dyn Embeds) -> Result<Grammar, String>,
    ) -> Expr {
        if let Some(start) = self.embedded.get(&key) {
            return Expr::Name(start.clone(), Some(span));
        }
        match make(self.embeds) {
            Ok(g) => {
                let prefix = format!("__embed{}", self.embedded.len());
                let start = self.builder.embed(&prefix, &g, Some(span));
                self.embedded.insert(key, start.clone());
                Expr::Name(start, Some(span))
            }
            Err(msg) => {
                self.diags.push(Diagnostic::new(
                    DiagnosticKind::Unsupported,
                    Some(span),
                    format!("{what}: {msg}"),
                ));
                Expr::Seq(Vec::new())
            }
        }
    }

    /// A rule's expression.
    fn rule_expr(&mut self, node: &Node) -> Expr {
        let is_empty = |e: &Expr| matches!(e, Expr::Seq(items) if items.is_empty());
        match node {
            Node::Name(n, span) if self.optional.contains(n) => {
                Expr::opt(Expr::Name(n.clone(), Some(*span)))
            }
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
                    let pattern = TerminalPattern::Regex(re.clone());
                    if r.matches_empty {
                        if let Some(part) = non_empty_part(&pattern) {
                            return Expr::opt(Expr::Pattern(part, Some(r.span)));
                        }
                        self.diags.push(Diagnostic::new(
                            DiagnosticKind::EmptyMatch,
                            Some(r.span),
                            format!(
                                "pattern `{}` matches the empty string; every lexeme must consume at least one byte",
                                r.text
                            ),
                        ));
                    }
                    Expr::Pattern(pattern, Some(r.span))
                }
                None => Expr::Seq(Vec::new()),
            },
            Node::Range { lo, hi, span } => {
                Expr::Pattern(TerminalPattern::Regex(range_regex(*lo, *hi)), Some(*span))
            }
            Node::Special(t, span) => {
                Expr::Pattern(TerminalPattern::Special(t.clone()), Some(*span))
            }
            // One special token per id: each matches exactly that token.
            Node::TokenSet(ranges, span) => Expr::Alt(
                (ranges.iter().flat_map(|&(lo, hi)| lo..=hi))
                    .map(|id| {
                        let token = TerminalPattern::Special(SpecialToken::Id(id));
                        Expr::Pattern(token, Some(*span))
                    })
                    .collect(),
            ),
            Node::Json(schema, span) => self.embedded(
                format!("json:{schema}"),
                "the JSON Schema after `%json`",
                *span,
                |e| e.json_schema(schema),
            ),
            Node::TypeRef(name, span) => {
                self.embedded(format!("type:{name}"), &format!("`@{name}`"), *span, |e| {
                    e.rust_type(name)
                })
            }
            Node::Seq(items) => Expr::Seq(items.iter().map(|i| self.rule_expr(i)).collect()),
            Node::Alt(items) => Expr::Alt(items.iter().map(|i| self.rule_expr(i)).collect()),
            Node::Opt(e) | Node::Star(e) | Node::Plus(e) | Node::Repeat(e, ..) => {
                let inner = self.rule_expr(e);
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
            Node::And(_, span) | Node::Not(_, span) => {
                let (op, hint) = match node {
                    Node::And(..) => ("&", ""),
                    _ => ("~", " (a repetition is written `item ~ N`)"),
                };
                self.diags.push(Diagnostic::new(
                    DiagnosticKind::Syntax,
                    Some(*span),
                    format!(
                        "`{op}` combines terminals only (a rule's language need not be regular): \
                         define a terminal `NAME: ...` with it and use `NAME` here{hint}"
                    ),
                ));
                Expr::Seq(Vec::new())
            }
            // `templates::expand` has replaced every use by its instance's name.
            Node::Template(name, _, span) => {
                self.diags.push(Diagnostic::new(
                    DiagnosticKind::Syntax,
                    Some(*span),
                    format!("template use `{name}{{...}}` was not expanded"),
                ));
                Expr::Seq(Vec::new())
            }
        }
    }
}

fn sort_diags(diags: &mut [Diagnostic]) {
    diags.sort_by_key(|d| d.span.map_or(usize::MAX, |s| s.byte_start));
}

pub(super) fn compile(
    parsed: Parsed,
    mut diags: Vec<Diagnostic>,
    limits: &Limits,
    embeds: &dyn Embeds,
) -> Result<GrammarBuilder, GrammarError> {
    let Parsed {
        terms,
        rules,
        ignores,
        // Already instantiated into `rules` by `templates::expand`.
        templates: _,
        // Already read into the definitions by `imports::resolve`.
        imports: _,
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
    builder.require_start();
    let mut tc = TermCompiler {
        terms: &terms,
        index: &index,
        rules: &rule_names,
        state: vec![TState::Todo; terms.len()],
        stack: Vec::new(),
        nest: 0,
        max_regex_len: limits.max_regex_len,
        diags: &mut diags,
    };
    let compiled: Vec<Option<Frag>> = unique
        .iter()
        .enumerate()
        .map(|(i, &u)| if u { tc.term(i) } else { None })
        .collect();
    let lexeme_bodies = lexeme_bodies(&rules, &mut tc);
    let mut optional = HashSet::new();
    for (t, frag) in terms.iter().zip(compiled) {
        let Some(frag) = frag else { continue };
        let mut pattern = frag.into_pattern();
        let is_used = used.contains(t.name.as_str());
        if let Some(part) = non_empty_part(&pattern).filter(|_| is_used) {
            pattern = part;
            optional.insert(t.name.clone());
        }
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
                    // Ignoring "" too changes nothing: ignore the rest.
                    let pattern = frag.into_pattern();
                    let pattern = non_empty_part(&pattern).unwrap_or(pattern);
                    if check_terminal("the `%ignore` pattern", &pattern, ig.span, true, tc.diags) {
                        builder.ignore_pattern(pattern, Some(ig.span));
                    }
                }
            }
        }
    }
    let mut cx = RuleCx {
        optional: &optional,
        diags: &mut diags,
        builder: &mut builder,
        embeds,
        embedded: HashMap::new(),
    };
    for r in &rules {
        rule_captures(r, cx.builder, cx.diags);
        if let Some(body) = lexeme_bodies.get(&r.name) {
            let expr = lexeme_expr(body, r, cx.builder, cx.diags);
            let alt = Alternative {
                expr,
                alias: None,
                span: Some(r.span),
            };
            cx.builder
                .rule_full(&r.name, r.kind, vec![alt], Some(r.span));
            continue;
        }
        let mut alternatives = Vec::with_capacity(r.alts.len());
        for a in &r.alts {
            if a.node.cost() > limits.max_rule_expansion {
                cx.diags.push(Diagnostic::new(
                    DiagnosticKind::TooLarge,
                    Some(a.span),
                    format!(
                        "this alternative of `{}` expands to more than {} symbols (`~` repetitions; \
                         the limit `Limits::max_rule_expansion`)",
                        r.name, limits.max_rule_expansion
                    ),
                ));
                continue;
            }
            let expr = cx.rule_expr(&a.node);
            alternatives.push(Alternative {
                expr,
                alias: a.alias.as_ref().map(|(n, _)| n.clone()),
                span: Some(a.span),
            });
        }
        cx.builder
            .rule_full(&r.name, r.kind, alternatives, Some(r.span));
        if r.keep_all_tokens {
            cx.builder.keep_all_tokens(&r.name);
        }
    }
    if diags.is_empty() {
        Ok(builder)
    } else {
        sort_diags(&mut diags);
        Err(GrammarError::new(diags))
    }
}

/// The body of each rule whose attributes make it one lexeme (`[lazy]`,
/// `[max_tokens=N]`, `[temperature=T]`, `[suffix="..."]`) as one pattern:
/// the rule's alternatives compiled as a terminal, then the suffix. A lazy
/// one's regex (a suffix makes it lazy, as in llguidance) gets a lazy
/// quantifier on nothing, so the lexer ends the lexeme at its first match
/// (gcd's meaning of a lazy quantifier, and llguidance's of `[lazy]`).
fn lexeme_bodies(rules: &[RuleDef], tc: &mut TermCompiler<'_>) -> HashMap<String, TerminalPattern> {
    let mut out = HashMap::new();
    for r in rules.iter().filter(|r| r.attrs.one_lexeme()) {
        let owner = (
            format!("rule `{}` with {}", r.name, r.attrs.lexeme_names()),
            r.span,
        );
        if let Some((alias, span)) = r.alts.iter().find_map(|a| a.alias.as_ref()) {
            tc.diags.push(Diagnostic::new(
                DiagnosticKind::Syntax,
                Some(*span),
                format!(
                    "{} is one lexeme, so its alternatives cannot have an alias (`-> {alias}`)",
                    owner.0
                ),
            ));
            continue;
        }
        let node = alts_node(r.alts.iter().map(|a| a.node.clone()).collect());
        let Some(frag) = tc.node(&node, &owner) else {
            continue;
        };
        if !r.attrs.lazy && r.attrs.suffix.is_none() {
            out.insert(r.name.clone(), frag.into_pattern());
            continue;
        }
        if let Frag::Comb(c) = &frag {
            tc.diags.push(Diagnostic::new(
                DiagnosticKind::Unsupported,
                Some(r.span),
                format!(
                    "{} is a combination with `&` or `~` ({c}), which gcd cannot make lazy \
                     (a suffix makes it lazy too)",
                    owner.0
                ),
            ));
            continue;
        }
        let suffix = (r.attrs.suffix.as_ref()).map(|(text, _)| {
            TerminalPattern::Literal {
                text: text.clone(),
                case_insensitive: false,
            }
            .to_regex()
        });
        let re = format!(
            "(?:{})(?:{})(?:)??",
            frag.regex(),
            suffix.unwrap_or_default()
        );
        out.insert(r.name.clone(), TerminalPattern::Regex(re));
    }
    out
}

/// The captures of rule `r`: `[capture]`, and with `[suffix="..."]` its
/// own capture without the suffix and `[stop_capture="name"]` the suffix
/// alone (llguidance's split). `stop_capture` without a suffix is an error.
fn rule_captures(r: &RuleDef, builder: &mut GrammarBuilder, diags: &mut Vec<Diagnostic>) {
    let suffix = r.attrs.suffix.as_ref().map(|(text, _)| text.len());
    if let Some((name, span)) = &r.attrs.capture {
        let part = suffix.map_or(CapturePart::Whole, CapturePart::Head);
        builder.capture_part(&r.name, name, part, Some(*span));
    }
    match (&r.attrs.stop_capture, suffix) {
        (Some((name, span)), Some(n)) => {
            builder.capture_part(&r.name, name, CapturePart::Tail(n), Some(*span));
        }
        (Some((_, span)), None) => diags.push(Diagnostic::new(
            DiagnosticKind::Syntax,
            Some(*span),
            format!(
                "`stop_capture` (on `{}`) names the capture of a `suffix=\"...\"`, and the rule has none",
                r.name
            ),
        )),
        (None, _) => {}
    }
}

/// A one-lexeme rule's body: its pattern, optional when the pattern also
/// matches the empty string (as for terminals, see [`non_empty_part`]).
/// With a cap or a temperature the pattern is a terminal of the rule's own
/// (`LEXEME__name`), which carries them: an anonymous pattern would be
/// shared with every other use of the same pattern, and so would its cap.
fn lexeme_expr(
    pattern: &TerminalPattern,
    r: &RuleDef,
    builder: &mut GrammarBuilder,
    diags: &mut Vec<Diagnostic>,
) -> Expr {
    let part = non_empty_part(pattern);
    let what = format!(
        "the body of rule `{}` with {}",
        r.name,
        r.attrs.lexeme_names()
    );
    let pattern = part.clone().unwrap_or_else(|| pattern.clone());
    if !check_terminal(&what, &pattern, r.span, true, diags) {
        return Expr::Seq(Vec::new());
    }
    let expr = match r.attrs.own_terminal() {
        false => Expr::Pattern(pattern, Some(r.span)),
        true => {
            let name = format!("LEXEME__{}", r.name);
            builder.terminal_full(&name, pattern, 0, Some(r.span));
            if let Some((n, span)) = r.attrs.max_tokens {
                builder.lexeme_cap(&name, n, Some(span));
            }
            if let Some((t, span)) = r.attrs.temperature {
                builder.temperature(&name, t, Some(span));
            }
            Expr::Name(name, Some(r.span))
        }
    };
    match part {
        Some(_) => Expr::opt(expr),
        None => expr,
    }
}
