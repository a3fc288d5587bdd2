//! Parsed definitions to a [`GrammarBuilder`]: the terminals the grammar
//! uses, the `%ignore`s, and rule alternatives as [`Expr`]s. Separate from
//! the parser because it needs the whole file (which terminals rules use,
//! which definition of a name came first); as the last stage of the front
//! end it also returns every diagnostic, sorted by position.

use std::collections::{HashMap, HashSet};

use super::ast::{Frag, Node, Parsed};
use super::regex::range_regex;
use super::terminals::{check_terminal, non_empty_part, TState, TermCompiler};
use crate::error::{Diagnostic, DiagnosticKind, GrammarError};
use crate::grammar::{Alternative, Expr, GrammarBuilder, TerminalPattern};
use crate::limits::Limits;

/// A rule's expression; `optional` holds the terminals that also match the
/// empty string, whose uses become optional (see [`non_empty_part`]).
fn rule_expr(node: &Node, optional: &HashSet<String>, diags: &mut Vec<Diagnostic>) -> Expr {
    let is_empty = |e: &Expr| matches!(e, Expr::Seq(items) if items.is_empty());
    let rule_expr = |n: &Node, diags: &mut Vec<Diagnostic>| rule_expr(n, optional, diags);
    match node {
        Node::Name(n, span) if optional.contains(n) => {
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
                    diags.push(Diagnostic::new(
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
        Node::Special(t, span) => Expr::Pattern(TerminalPattern::Special(t.clone()), Some(*span)),
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
        // `templates::expand` has replaced every use by its instance's name.
        Node::Template(name, _, span) => {
            diags.push(Diagnostic::new(
                DiagnosticKind::Syntax,
                Some(*span),
                format!("template use `{name}{{...}}` was not expanded"),
            ));
            Expr::Seq(Vec::new())
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
) -> Result<GrammarBuilder, GrammarError> {
    let Parsed {
        terms,
        rules,
        ignores,
        // Already instantiated into `rules` by `templates::expand`.
        templates: _,
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
        max_regex_len: limits.max_regex_len,
        diags: &mut diags,
    };
    let compiled: Vec<Option<Frag>> = unique
        .iter()
        .enumerate()
        .map(|(i, &u)| if u { tc.term(i) } else { None })
        .collect();
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
    for r in &rules {
        let mut alternatives = Vec::with_capacity(r.alts.len());
        for a in &r.alts {
            if a.node.cost() > limits.max_rule_expansion {
                diags.push(Diagnostic::new(
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
            let expr = rule_expr(&a.node, &optional, &mut diags);
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
