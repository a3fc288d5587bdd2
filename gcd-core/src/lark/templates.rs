//! Rule templates: a definition `_separated{x, sep}: x (sep x)*` and uses
//! such as `_separated{NAME, ","}`. As in Lark, a template is a macro: each
//! distinct (template, arguments) pair becomes one plain rule, named after
//! the use (`_separated{NAME,","}`) and with the template's modifiers, so
//! `_` templates give hidden rules and `?` templates inline. Instances are
//! memoized by that name, which is what lets a template use itself with the
//! same arguments (`list{x}: x | x "," list{x}` is one rule that refers to
//! itself). Runs between the parser and the lowering: it needs every
//! definition, and what it hands on is plain rules only.
//!
//! Errors are reported where they are written, once, before anything is
//! instantiated: a template name without braces, braces on a rule, terminal
//! or parameter, an undefined template, the wrong number of arguments. An
//! expansion that never ends (arguments that grow at each use) stops at the
//! first limit it hits, reported at the use that hit it.

use std::collections::{HashMap, HashSet, VecDeque};

use super::ast::{Node, Parsed, RuleDef, TemplateDef};
use super::parser::is_terminal_name;
use crate::error::{Diagnostic, DiagnosticKind, Span};
use crate::limits::Limits;

/// A chain of instantiations (an instance whose body instantiates another...)
/// deeper than this is refused: templates whose arguments grow each time
/// they are used (`f{x}: f{(x x)}`) never stop.
const MAX_TEMPLATE_DEPTH: usize = 64;
/// An instance name (the template and its arguments as Lark text) longer
/// than this is refused: arguments that double at each level stay within
/// the depth limit but not within memory.
const MAX_INSTANCE_NAME: usize = 1_000;

/// Replaces every template use in the rules by a reference to its instance
/// and adds the instances as rules; templates themselves are dropped.
/// Problems are pushed to `diags`; a faulty use becomes the empty sequence,
/// so later stages still report what else is wrong.
pub(super) fn expand(mut parsed: Parsed, diags: &mut Vec<Diagnostic>, limits: &Limits) -> Parsed {
    let templates = std::mem::take(&mut parsed.templates);
    if templates.is_empty() && !uses_templates(&parsed.rules) {
        return parsed;
    }
    let mut ex = Expander::new(&templates, &parsed.rules, diags);
    ex.max_instances = limits.max_template_instances;
    for r in &parsed.rules {
        for a in &r.alts {
            ex.check(&a.node, &[]);
        }
    }
    for (i, t) in templates.iter().enumerate() {
        if ex.index.get(&t.rule.name) == Some(&i) {
            for a in &t.rule.alts {
                ex.check(&a.node, &t.params);
            }
        }
    }
    for r in &mut parsed.rules {
        for a in &mut r.alts {
            ex.instantiate_uses(&mut a.node, 0);
        }
    }
    while let Some(p) = ex.queue.pop_front() {
        let t = &templates[p.template];
        let mut rule = RuleDef {
            name: p.name,
            ..t.rule.clone()
        };
        for a in &mut rule.alts {
            substitute(&mut a.node, &t.params, &p.args);
            ex.instantiate_uses(&mut a.node, p.depth);
        }
        parsed.rules.push(rule);
    }
    parsed
}

fn uses_templates(rules: &[RuleDef]) -> bool {
    fn has(n: &Node) -> bool {
        matches!(n, Node::Template(..)) || n.parts().iter().any(has)
    }
    rules.iter().flat_map(|r| &r.alts).any(|a| has(&a.node))
}

/// An instance made but whose rule is not written yet.
struct Pending {
    template: usize,
    name: String,
    args: Vec<Node>,
    /// How many instantiations lead to it from a plain rule.
    depth: usize,
}

struct Expander<'t, 'd> {
    templates: &'t [TemplateDef],
    /// Template name to its first definition.
    index: HashMap<String, usize>,
    rules: HashSet<String>,
    /// Names of the instances made so far.
    made: HashSet<String>,
    queue: VecDeque<Pending>,
    /// A limit was hit (and reported): no more instances are made.
    stopped: bool,
    /// [`Limits::max_template_instances`].
    max_instances: usize,
    diags: &'d mut Vec<Diagnostic>,
}

impl<'t, 'd> Expander<'t, 'd> {
    /// Indexes the templates, reporting a name defined twice (as two
    /// templates, or as a template and a rule: Lark gives them one namespace).
    fn new(
        templates: &'t [TemplateDef],
        rules: &[RuleDef],
        diags: &'d mut Vec<Diagnostic>,
    ) -> Self {
        let mut index: HashMap<String, usize> = HashMap::new();
        for (i, t) in templates.iter().enumerate() {
            let name = &t.rule.name;
            let first = index
                .get(name)
                .map(|&j| templates[j].rule.span)
                .or_else(|| rules.iter().find(|r| r.name == *name).map(|r| r.span));
            match first {
                Some(first) => diags.push(
                    Diagnostic::new(
                        DiagnosticKind::Duplicate,
                        Some(t.rule.span),
                        format!(
                            "`{name}` is defined twice (templates and rules share one namespace)"
                        ),
                    )
                    .with_note(Some(first), "first defined here"),
                ),
                None => {
                    index.insert(name.clone(), i);
                }
            }
        }
        Expander {
            templates,
            index,
            rules: rules.iter().map(|r| r.name.clone()).collect(),
            made: HashSet::new(),
            queue: VecDeque::new(),
            stopped: false,
            max_instances: Limits::default().max_template_instances,
            diags,
        }
    }

    fn error(&mut self, kind: DiagnosticKind, span: Span, msg: String) {
        self.diags.push(Diagnostic::new(kind, Some(span), msg));
    }

    /// Reports, where they are written, names of templates used without
    /// arguments and uses that name no template or pass the wrong number of
    /// arguments. `params` are the enclosing template's parameters.
    fn check(&mut self, node: &Node, params: &[(String, Span)]) {
        let is_param = |n: &str| params.iter().any(|(p, _)| p == n);
        match node {
            Node::Name(n, span) if !is_param(n) => {
                if let Some(&i) = self.index.get(n) {
                    let list = param_list(&self.templates[i]);
                    self.error(
                        DiagnosticKind::Syntax,
                        *span,
                        format!("`{n}` is a template: use it with arguments, `{n}{{{list}}}`"),
                    );
                }
            }
            Node::Template(name, args, span) => {
                let problem = match self.index.get(name) {
                    Some(&i) => {
                        let t = &self.templates[i];
                        (t.params.len() != args.len()).then(|| {
                            (
                                DiagnosticKind::Syntax,
                                format!(
                                    "template `{name}` takes {} ({}), found {}",
                                    count(t.params.len(), "argument"),
                                    param_list(t),
                                    args.len()
                                ),
                            )
                        })
                    }
                    None if is_param(name) => Some((
                        DiagnosticKind::Syntax,
                        format!(
                            "`{name}` is a parameter and cannot take arguments: only templates do"
                        ),
                    )),
                    None if self.rules.contains(name) => Some((
                        DiagnosticKind::Syntax,
                        format!("`{name}` is a rule, not a template: use it without braces"),
                    )),
                    None if is_terminal_name(name) => Some((
                        DiagnosticKind::Syntax,
                        format!(
                            "terminal `{name}` cannot take arguments: only rules can be templates"
                        ),
                    )),
                    None => Some((
                        DiagnosticKind::Undefined,
                        format!("template `{name}` is used but never defined"),
                    )),
                };
                if let Some((kind, msg)) = problem {
                    self.error(kind, *span, msg);
                }
            }
            _ => {}
        }
        node.parts().iter().for_each(|p| self.check(p, params));
    }

    /// Replaces each template use in `node` by the name of its instance,
    /// innermost first; instances not made yet are queued at `depth + 1`.
    fn instantiate_uses(&mut self, node: &mut Node, depth: usize) {
        for p in node.parts_mut() {
            self.instantiate_uses(p, depth);
        }
        if let Node::Template(name, args, span) = node {
            let args = std::mem::take(args);
            *node =
                (self.instance(name, args, *span, depth)).unwrap_or_else(|| Node::Seq(Vec::new()));
        }
    }

    fn instance(&mut self, name: &str, args: Vec<Node>, span: Span, depth: usize) -> Option<Node> {
        let &template = self.index.get(name)?;
        if self.templates[template].params.len() != args.len() || self.stopped {
            return None;
        }
        let rendered: Vec<String> = args.iter().map(lark_text).collect();
        let instance = format!("{name}{{{}}}", rendered.join(","));
        if self.made.contains(&instance) {
            return Some(Node::Name(instance, span));
        }
        let limit = if depth >= MAX_TEMPLATE_DEPTH {
            Some(format!(
                "templates instantiate each other more than {MAX_TEMPLATE_DEPTH} levels deep"
            ))
        } else if self.made.len() >= self.max_instances {
            Some(format!(
                "templates make more than {} distinct instances (the limit \
                 `Limits::max_template_instances`)",
                self.max_instances
            ))
        } else if instance.len() > MAX_INSTANCE_NAME {
            Some(format!(
                "the arguments of `{name}` grow beyond {MAX_INSTANCE_NAME} characters"
            ))
        } else {
            None
        };
        if let Some(why) = limit {
            self.stopped = true;
            let shown: String = instance.chars().take(80).collect();
            let more = if shown.len() < instance.len() {
                "..."
            } else {
                ""
            };
            let d = Diagnostic::new(
                DiagnosticKind::TooLarge,
                Some(span),
                format!("template expansion does not terminate: {why} (at `{shown}{more}`)"),
            )
            .with_note(
                Some(self.templates[template].rule.span),
                "a template that uses itself must pass the same arguments, or the expansion never ends",
            );
            self.diags.push(d);
            return None;
        }
        self.made.insert(instance.clone());
        self.queue.push_back(Pending {
            template,
            name: instance.clone(),
            args,
            depth: depth + 1,
        });
        Some(Node::Name(instance, span))
    }
}

fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

fn param_list(t: &TemplateDef) -> String {
    let names: Vec<&str> = t.params.iter().map(|(p, _)| p.as_str()).collect();
    names.join(", ")
}

/// Replaces each parameter name in `node` by its argument (which keeps
/// the span where the argument is written).
fn substitute(node: &mut Node, params: &[(String, Span)], args: &[Node]) {
    if let Node::Name(n, _) = node {
        if let Some(arg) = params
            .iter()
            .position(|(p, _)| p == n)
            .and_then(|i| args.get(i))
        {
            *node = arg.clone();
        }
        return;
    }
    for p in node.parts_mut() {
        substitute(p, params, args);
    }
}

/// An argument as Lark text, for instance names: distinct arguments read
/// differently, so the name is the memo key.
fn lark_text(node: &Node) -> String {
    let mut out = String::new();
    write_lark(node, &mut out);
    out
}

fn write_lark(node: &Node, out: &mut String) {
    let join = |items: &[Node], sep: &str, out: &mut String| {
        out.push('(');
        for (k, i) in items.iter().enumerate() {
            if k > 0 {
                out.push_str(sep);
            }
            write_lark(i, out);
        }
        out.push(')');
    };
    // An operand of a postfix operator: one that ends in an operator
    // itself needs parentheses.
    let operand = |e: &Node, out: &mut String| {
        let wrap = matches!(e, Node::Star(_) | Node::Plus(_) | Node::Repeat(..));
        if wrap {
            out.push('(');
        }
        write_lark(e, out);
        if wrap {
            out.push(')');
        }
    };
    match node {
        Node::Name(n, _) => out.push_str(n),
        Node::Lit { text, ci, .. } => {
            out.push_str(&format!("{text:?}"));
            if *ci {
                out.push('i');
            }
        }
        Node::Re(r) => out.push_str(&r.text),
        Node::Special(t, _) => out.push_str(&t.to_string()),
        Node::TokenSet(ranges, _) => out.push_str(&super::lexer::token_set_text(ranges)),
        Node::Json(v, _) => out.push_str(&format!("%json {v}")),
        Node::TypeRef(name, _) => out.push_str(&format!("@{name}")),
        Node::Range { lo, hi, .. } => {
            out.push_str(&format!("{:?}..{:?}", lo.to_string(), hi.to_string()))
        }
        Node::Seq(items) => join(items, " ", out),
        Node::Alt(items) => join(items, " | ", out),
        Node::And(items, _) => join(items, " & ", out),
        Node::Not(e, _) => {
            out.push('~');
            operand(e, out);
        }
        Node::Opt(e) => {
            out.push('[');
            write_lark(e, out);
            out.push(']');
        }
        Node::Star(e) | Node::Plus(e) => {
            operand(e, out);
            out.push(if matches!(node, Node::Star(_)) {
                '*'
            } else {
                '+'
            });
        }
        Node::Repeat(e, a, b) => {
            operand(e, out);
            out.push_str(&format!(" ~ {a}"));
            if a != b {
                out.push_str(&format!("..{b}"));
            }
        }
        Node::Template(name, args, _) => {
            out.push_str(name);
            out.push('{');
            for (k, a) in args.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                write_lark(a, out);
            }
            out.push('}');
        }
    }
}
