//! Checks that need the whole grammar (names defined once, every
//! reference defined, `root` present, sizes within [`Limits`]) and the
//! facts about rules the lowering asks for: which derive the empty string,
//! and which are regular enough to be written into a terminal's regex.

use std::collections::HashMap;

use super::ast::{Node, NodeKind, Rule};
use crate::error::{Diagnostic, DiagnosticKind, Diagnostics, GrammarError};
use crate::limits::Limits;

/// Nodes a rule may have once the rules it uses are written into it, for
/// it to still be inlined into a terminal: inlining can grow a grammar
/// exponentially (`a ::= b b`, `b ::= c c`, ...), and a terminal's regex
/// that large would be determinized for nothing.
const MAX_INLINED_NODES: u64 = 4_096;

/// A grammar whose names all resolve.
pub(crate) struct Resolved {
    pub rules: Vec<Rule>,
    pub index: HashMap<String, usize>,
    /// Per rule: whether it derives the empty string.
    pub nullable: Vec<bool>,
    /// Per rule: whether it derives some non-empty string.
    pub nonempty: Vec<bool>,
    /// Per rule: whether it uses no rule that is recursive (itself
    /// included) and is small once inlined, so its language is regular and
    /// a regex can spell it.
    pub inlinable: Vec<bool>,
}

impl Resolved {
    pub fn rule(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }
}

/// Every name-level problem at once, or the resolved grammar.
pub(crate) fn resolve(rules: Vec<Rule>, limits: &Limits) -> Result<Resolved, GrammarError> {
    let mut diags = Diagnostics::default();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut kept: Vec<Rule> = Vec::new();
    for rule in rules {
        if let Some(&first) = index.get(&rule.name) {
            diags.push(
                Diagnostic::new(
                    DiagnosticKind::Duplicate,
                    Some(rule.span),
                    format!("rule `{}` is defined twice", rule.name),
                )
                .with_note(Some(kept[first].span), "first defined here"),
            );
            continue;
        }
        index.insert(rule.name.clone(), kept.len());
        kept.push(rule);
    }
    if kept.is_empty() {
        diags.error(
            DiagnosticKind::Syntax,
            None,
            "the grammar has no rules; expected at least `root ::= ...`",
        );
        return Err(GrammarError::new(diags.0));
    }
    if !index.contains_key("root") {
        let names: Vec<String> = kept
            .iter()
            .take(8)
            .map(|r| format!("`{}`", r.name))
            .collect();
        diags.error(
            DiagnosticKind::Undefined,
            None,
            format!(
                "no rule named `root`: a GBNF grammar starts from `root`; rules: {}",
                names.join(", ")
            ),
        );
    }
    for rule in &kept {
        let mut undefined = Vec::new();
        refs(&rule.body, &mut |name, node| {
            if !index.contains_key(name) {
                undefined.push((name, node.span));
            }
        });
        for (name, span) in undefined {
            diags.error(
                DiagnosticKind::Undefined,
                Some(span),
                format!("rule `{name}` is used in `{}` but never defined", rule.name),
            );
        }
        let size = expanded_size(&rule.body);
        if size > limits.max_rule_expansion {
            diags.error(
                DiagnosticKind::TooLarge,
                Some(rule.span),
                format!(
                    "rule `{}` expands to {size} symbols once its repetitions are written out, \
                     more than the limit of {} (`Limits::max_rule_expansion`)",
                    rule.name, limits.max_rule_expansion
                ),
            );
        }
    }
    diags.into_result()?;
    let nullable = nullable_rules(&kept, &index);
    let inlinable = inlinable_rules(&kept, &index);
    let nonempty = nonempty_rules(&kept, &index);
    Ok(Resolved {
        rules: kept,
        index,
        nullable,
        nonempty,
        inlinable,
    })
}

/// Calls `f` on every rule reference under `node`.
pub(crate) fn refs<'n>(node: &'n Node, f: &mut impl FnMut(&'n str, &'n Node)) {
    match &node.kind {
        NodeKind::Ref(name) => f(name, node),
        NodeKind::Seq(items) | NodeKind::Alt(items) => {
            for item in items {
                refs(item, f);
            }
        }
        NodeKind::Repeat { item, .. } => refs(item, f),
        NodeKind::Char(_) => {}
    }
}

/// Symbols of a rule once repetitions are written out (as the builder
/// desugars them), saturating: what `Limits::max_rule_expansion` bounds.
fn expanded_size(node: &Node) -> u64 {
    match &node.kind {
        NodeKind::Char(_) | NodeKind::Ref(_) => 1,
        NodeKind::Seq(items) | NodeKind::Alt(items) => (items.iter())
            .map(expanded_size)
            .fold(0u64, u64::saturating_add)
            .max(1),
        NodeKind::Repeat { item, min, max } => {
            let copies = u64::from(max.unwrap_or(*min).max(*min)).max(1);
            expanded_size(item).saturating_mul(copies)
        }
    }
}

/// Whether `node` derives the empty string, given the rules' answers so far.
pub(crate) fn node_nullable(node: &Node, rule_nullable: &dyn Fn(&str) -> bool) -> bool {
    match &node.kind {
        NodeKind::Char(_) => false,
        NodeKind::Ref(name) => rule_nullable(name),
        NodeKind::Seq(items) => items.iter().all(|i| node_nullable(i, rule_nullable)),
        NodeKind::Alt(items) => items.iter().any(|i| node_nullable(i, rule_nullable)),
        NodeKind::Repeat { item, min, .. } => *min == 0 || node_nullable(item, rule_nullable),
    }
}

fn nullable_rules(rules: &[Rule], index: &HashMap<String, usize>) -> Vec<bool> {
    let mut nullable = vec![false; rules.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for (i, rule) in rules.iter().enumerate() {
            if nullable[i] {
                continue;
            }
            let known = |name: &str| index.get(name).is_some_and(|&j| nullable[j]);
            if node_nullable(&rule.body, &known) {
                nullable[i] = true;
                changed = true;
            }
        }
    }
    nullable
}

/// Whether `node` derives some non-empty string, given the rules' answers
/// so far (a part that derives nothing at all makes the grammar refused
/// for that, so it is not looked at here).
pub(crate) fn node_nonempty(node: &Node, rule_nonempty: &dyn Fn(&str) -> bool) -> bool {
    match &node.kind {
        NodeKind::Char(_) => true,
        NodeKind::Ref(name) => rule_nonempty(name),
        NodeKind::Seq(items) | NodeKind::Alt(items) => {
            items.iter().any(|i| node_nonempty(i, rule_nonempty))
        }
        NodeKind::Repeat { item, max, .. } => *max != Some(0) && node_nonempty(item, rule_nonempty),
    }
}

fn nonempty_rules(rules: &[Rule], index: &HashMap<String, usize>) -> Vec<bool> {
    let mut nonempty = vec![false; rules.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for (i, rule) in rules.iter().enumerate() {
            let known = |name: &str| index.get(name).is_some_and(|&j| nonempty[j]);
            if !nonempty[i] && node_nonempty(&rule.body, &known) {
                nonempty[i] = true;
                changed = true;
            }
        }
    }
    nonempty
}

/// Nodes of a node with the inlinable rules it uses written in.
fn inlined_size(node: &Node, sizes: &dyn Fn(&str) -> u64) -> u64 {
    match &node.kind {
        NodeKind::Char(_) => 1,
        NodeKind::Ref(name) => sizes(name),
        NodeKind::Seq(items) | NodeKind::Alt(items) => (items.iter())
            .map(|i| inlined_size(i, sizes))
            .fold(1u64, u64::saturating_add),
        NodeKind::Repeat { item, .. } => inlined_size(item, sizes).saturating_add(1),
    }
}

/// Rules whose uses reach no cycle, found leaves first (Kahn's order on
/// the reference graph, so no recursion over long chains of rules); those
/// left over are recursive or use a recursive rule.
fn inlinable_rules(rules: &[Rule], index: &HashMap<String, usize>) -> Vec<bool> {
    let n = rules.len();
    let mut uses: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, rule) in rules.iter().enumerate() {
        refs(&rule.body, &mut |name, _| {
            if let Some(&j) = index.get(name) {
                uses[i].push(j);
            }
        });
        uses[i].sort_unstable();
        uses[i].dedup();
    }
    let mut used_by: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, us) in uses.iter().enumerate() {
        for &j in us {
            used_by[j].push(i);
        }
    }
    let mut pending: Vec<usize> = uses.iter().map(Vec::len).collect();
    let mut ready: Vec<usize> = (0..n).filter(|&i| pending[i] == 0).collect();
    let mut size = vec![u64::MAX; n];
    let mut inlinable = vec![false; n];
    while let Some(i) = ready.pop() {
        let sizes = |name: &str| index.get(name).map_or(u64::MAX, |&j| size[j]);
        let s = inlined_size(&rules[i].body, &sizes);
        if s <= MAX_INLINED_NODES {
            size[i] = s;
            inlinable[i] = true;
        }
        for &k in &used_by[i] {
            pending[k] -= 1;
            if pending[k] == 0 {
                ready.push(k);
            }
        }
    }
    inlinable
}
