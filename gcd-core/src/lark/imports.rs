//! `%import` from other grammar files: `%import .csv.start -> csv__start`
//! takes rule `start` of `csv.lark` (beside this grammar) with everything it
//! uses. As in Lark, what is imported is renamed into this grammar: each
//! listed name gets its alias (its own name without one), and each of its
//! dependencies gets the module's prefix (`value` becomes `json__value`,
//! `_sep` becomes `_json__sep`), unless it is listed itself, so two
//! imports from one module share what they list (`%import .csv._NL ->
//! _NL`). One difference: a terminal's prefix is written in capitals
//! (`CSV__WORD`), because in gcd's Lark a name's case says what it is.
//! The module's `%ignore` lines are not imported, as in Lark.
//!
//! [`Embeds::module`] supplies the text; errors inside an imported file
//! are reported at the import, naming the file and the line.

use std::collections::{HashMap, HashSet, VecDeque};

use super::ast::{ModuleImport, Node, Parsed, TermBody};
use super::parser::{is_terminal_name, parse_text};
use super::source::Source;
use super::Embeds;
use crate::error::{Diagnostic, DiagnosticKind, Span};

/// Imports inside imports, at most: deeper is a cycle or a hostile input.
const MAX_IMPORT_DEPTH: usize = 16;

/// Adds to `out` what its module imports bring, reporting problems in
/// `diags`.
pub(super) fn resolve(out: &mut Parsed, diags: &mut Vec<Diagnostic>, embeds: &dyn Embeds) {
    resolve_at(out, diags, embeds, 0)
}

fn resolve_at(out: &mut Parsed, diags: &mut Vec<Diagnostic>, embeds: &dyn Embeds, depth: usize) {
    // One module's imports are resolved together: they share aliases.
    let mut modules: Vec<(String, bool, Vec<ModuleImport>)> = Vec::new();
    for import in std::mem::take(&mut out.imports) {
        let key = (import.module.clone(), import.relative);
        match modules
            .iter_mut()
            .find(|(m, r, _)| (m, r) == (&key.0, &key.1))
        {
            Some((_, _, list)) => list.push(import),
            None => modules.push((key.0, key.1, vec![import])),
        }
    }
    for (module, relative, imports) in modules {
        let at = imports[0].span;
        let error = |diags: &mut Vec<Diagnostic>, kind, message: String| {
            diags.push(Diagnostic::new(kind, Some(at), message))
        };
        if depth >= MAX_IMPORT_DEPTH {
            let message = format!(
                "imports nest deeper than {MAX_IMPORT_DEPTH} files at `{module}` (do two grammars import each other?)"
            );
            error(diags, DiagnosticKind::Unsupported, message);
            continue;
        }
        let text = match embeds.module(&module, relative) {
            Ok(text) => text,
            Err(message) => {
                error(diags, DiagnosticKind::Unsupported, message);
                continue;
            }
        };
        let source = Source::new(&text);
        let (mut sub, mut sub_diags) = parse_text(&source);
        resolve_at(&mut sub, &mut sub_diags, embeds, depth + 1);
        if let Some(d) = sub_diags.iter().find(|d| !d.warning) {
            let line = d
                .span
                .map(|s| format!(", line {}", s.start.line))
                .unwrap_or_default();
            let message = format!("in the imported grammar `{module}`{line}: {}", d.message);
            error(diags, d.kind, message);
            continue;
        }
        let listed: Vec<&(String, Span, String)> = imports.iter().flat_map(|i| &i.items).collect();
        let aliases: HashMap<&str, &str> = (listed.iter())
            .map(|(name, _, local)| (name.as_str(), local.as_str()))
            .collect();
        let prefix = module.replace('.', "__");
        let mangle = |name: &str| -> String {
            if let Some(alias) = aliases.get(name) {
                return (*alias).to_string();
            }
            let prefix = match is_terminal_name(name) {
                true => prefix.to_uppercase(),
                false => prefix.clone(),
            };
            match name.strip_prefix('_') {
                Some(rest) => format!("_{prefix}__{rest}"),
                None => format!("{prefix}__{name}"),
            }
        };
        let mut missing = false;
        for (name, span, _) in &listed {
            let defined = sub.rules.iter().any(|r| &r.name == name)
                || sub.terms.iter().any(|t| &t.name == name)
                || sub.templates.iter().any(|t| &t.rule.name == name);
            if !defined {
                diags.push(Diagnostic::new(
                    DiagnosticKind::Undefined,
                    Some(*span),
                    format!("the grammar `{module}` defines no rule or terminal `{name}`"),
                ));
                missing = true;
            }
        }
        if missing {
            continue;
        }
        // Everything the listed names use, in the module's own names.
        let mut used: HashSet<String> = HashSet::new();
        let mut queue: VecDeque<String> = listed.iter().map(|(n, _, _)| n.clone()).collect();
        while let Some(name) = queue.pop_front() {
            if !used.insert(name.clone()) {
                continue;
            }
            let mut refs: Vec<&str> = Vec::new();
            for r in sub.rules.iter().filter(|r| r.name == name) {
                r.alts.iter().for_each(|a| referenced(&a.node, &mut refs));
            }
            for t in sub.templates.iter().filter(|t| t.rule.name == name) {
                let params: Vec<&str> = t.params.iter().map(|(p, _)| p.as_str()).collect();
                let mut inner = Vec::new();
                t.rule
                    .alts
                    .iter()
                    .for_each(|a| referenced(&a.node, &mut inner));
                refs.extend(inner.into_iter().filter(|n| !params.contains(n)));
            }
            for t in sub.terms.iter().filter(|t| t.name == name) {
                if let TermBody::Expr(node) = &t.body {
                    referenced(node, &mut refs);
                }
            }
            queue.extend(refs.into_iter().map(str::to_string));
        }
        let rename = |node: &mut Node| relocate(node, &|n| used.contains(n).then(|| mangle(n)), at);
        for mut r in sub.rules.into_iter().filter(|r| used.contains(&r.name)) {
            r.name = mangle(&r.name);
            r.span = at;
            for a in &mut r.alts {
                rename(&mut a.node);
                a.span = at;
                if let Some((_, s)) = &mut a.alias {
                    *s = at;
                }
            }
            out.rules.push(r);
        }
        for mut t in sub
            .templates
            .into_iter()
            .filter(|t| used.contains(&t.rule.name))
        {
            let params: Vec<String> = t.params.iter().map(|(p, _)| p.clone()).collect();
            t.rule.name = mangle(&t.rule.name);
            t.rule.span = at;
            for a in &mut t.rule.alts {
                let keep = |n: &str| {
                    (used.contains(n) && !params.iter().any(|p| p == n)).then(|| mangle(n))
                };
                relocate(&mut a.node, &keep, at);
                a.span = at;
            }
            for (_, s) in &mut t.params {
                *s = at;
            }
            out.templates.push(t);
        }
        for mut t in sub.terms.into_iter().filter(|t| used.contains(&t.name)) {
            t.name = mangle(&t.name);
            t.span = at;
            if let TermBody::Expr(node) = &mut t.body {
                rename(node);
            }
            out.terms.push(t);
        }
    }
}

/// The rule, terminal and template names `node` refers to.
fn referenced<'n>(node: &'n Node, out: &mut Vec<&'n str>) {
    match node {
        Node::Name(n, _) | Node::Template(n, _, _) => out.push(n),
        _ => {}
    }
    node.parts().iter().for_each(|p| referenced(p, out));
}

/// Renames the names `rename` maps and points every span at `at` (the
/// import: the module's own positions mean nothing in this grammar).
fn relocate(node: &mut Node, rename: &dyn Fn(&str) -> Option<String>, at: Span) {
    match node {
        Node::Name(n, s) | Node::Template(n, _, s) => {
            if let Some(m) = rename(n) {
                *n = m;
            }
            *s = at;
        }
        Node::Lit { span, .. } | Node::Range { span, .. } => *span = at,
        Node::Re(re) => re.span = at,
        Node::Special(_, s)
        | Node::TokenSet(_, s)
        | Node::Json(_, s)
        | Node::TypeRef(_, s)
        | Node::And(_, s)
        | Node::Not(_, s) => *s = at,
        Node::Seq(_)
        | Node::Alt(_)
        | Node::Opt(_)
        | Node::Star(_)
        | Node::Plus(_)
        | Node::Repeat(..) => {}
    }
    for p in node.parts_mut() {
        relocate(p, rename, at);
    }
}
