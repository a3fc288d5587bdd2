//! What a grammar says beside its language: llguidance's rule attributes
//! `max_tokens` (a lexeme cap), `temperature` (a sampling hint) and
//! `capture` (a name under which a rule's text is read back). None of them
//! changes which strings the grammar accepts, so they ride beside the
//! productions rather than in them, and every stage that only cares about
//! the language can ignore them.

use super::{Nonterminal, Production, RuleKind, TermId, Terminal};
use crate::error::{DiagnosticKind, Diagnostics, Span};

/// The attributes of a grammar's terminals and rules that are not part of
/// its language (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Hints {
    /// Per capped terminal, the most tokens one of its lexemes may hold: a
    /// matcher made from the grammar starts with these caps (see
    /// `Matcher::set_lexeme_cap`). Sorted by terminal, one entry each.
    pub lexeme_caps: Vec<(TermId, u32)>,
    /// Per terminal with a sampling temperature, that temperature. Sorted
    /// by terminal, one entry each.
    pub temperatures: Vec<(TermId, Temperature)>,
    /// `(rule, capture name, part)`: each derivation of the rule is
    /// captured under the name, whole or in part. By rule name, not id:
    /// transforms renumber rules, and parse trees name their nodes after
    /// the rules as written.
    pub captures: Vec<(String, String, CapturePart)>,
}

/// Which bytes of a captured rule's match a capture holds: llguidance's
/// `suffix="..."` leaves the suffix out of the rule's own capture and
/// gives it to `stop_capture`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum CapturePart {
    /// All of it.
    Whole,
    /// All but its last this many bytes.
    Head(usize),
    /// Its last this many bytes.
    Tail(usize),
}

impl CapturePart {
    /// The part of `span` this names (clamped to `span`).
    pub fn of(self, span: std::ops::Range<usize>) -> std::ops::Range<usize> {
        match self {
            CapturePart::Whole => span,
            CapturePart::Head(n) => span.start..span.end.saturating_sub(n).max(span.start),
            CapturePart::Tail(n) => span.end.saturating_sub(n).max(span.start)..span.end,
        }
    }
}

impl Hints {
    /// Whether the grammar has no hints at all.
    pub fn is_empty(&self) -> bool {
        self.lexeme_caps.is_empty() && self.temperatures.is_empty() && self.captures.is_empty()
    }
}

/// A sampling temperature: a finite, non-negative `f32`, kept as its bits
/// so that grammars stay comparable (`Eq`) and hashable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Temperature(u32);

impl Temperature {
    /// `t` as a temperature, or `None` if it is negative, infinite or NaN.
    pub fn new(t: f32) -> Option<Temperature> {
        (t.is_finite() && t >= 0.0).then(|| Temperature((t + 0.0).to_bits()))
    }

    /// The temperature as a number.
    pub fn get(self) -> f32 {
        f32::from_bits(self.0)
    }
}

/// Hints as a [`GrammarBuilder`](super::GrammarBuilder) collects them: by
/// terminal and rule name, resolved by `build`.
#[derive(Clone, Debug, Default)]
pub(super) struct HintDefs {
    /// (terminal, max tokens, where it is written)
    pub(super) caps: Vec<(String, u32, Option<Span>)>,
    /// (terminal, temperature, where it is written)
    pub(super) temperatures: Vec<(String, Temperature, Option<Span>)>,
    /// (rule, capture name, which part, where it is written)
    pub(super) captures: Vec<(String, String, CapturePart, Option<Span>)>,
}

impl HintDefs {
    /// Whether `terminal` carries a hint: such a terminal is its rule's own,
    /// so an anonymous pattern elsewhere never shares it (it would share the
    /// cap or the temperature too).
    pub(super) fn has_terminal(&self, terminal: &str) -> bool {
        self.caps.iter().any(|c| c.0 == terminal)
            || self.temperatures.iter().any(|c| c.0 == terminal)
    }

    /// The hints by id. An unknown name, a terminal given two values, and
    /// a capture whose rule does not show in parse trees as itself are
    /// errors.
    pub(super) fn resolve(
        &self,
        terminals: &[Terminal],
        nonterminals: &[Nonterminal],
        productions: &[Production],
        diags: &mut Diagnostics,
    ) -> Hints {
        let term = |name: &str, what: &str, span: Option<Span>, diags: &mut Diagnostics| {
            let t = terminals.iter().position(|t| t.name == name);
            if t.is_none() {
                diags.error(
                    DiagnosticKind::Undefined,
                    span,
                    format!("{what} on terminal `{name}`, which is not defined"),
                );
            }
            t.map(|t| TermId(t as u32))
        };
        let mut caps: Vec<(TermId, u32)> = Vec::new();
        for (name, n, span) in &self.caps {
            if let Some(t) = term(name, "a lexeme cap", *span, diags) {
                caps.push((t, *n));
            }
        }
        let mut temperatures = Vec::new();
        for (name, x, span) in &self.temperatures {
            if let Some(t) = term(name, "a temperature", *span, diags) {
                temperatures.push((t, *x));
            }
        }
        for (what, ids) in [
            ("lexeme cap", caps.iter().map(|c| c.0).collect::<Vec<_>>()),
            ("temperature", temperatures.iter().map(|c| c.0).collect()),
        ] {
            let mut seen = std::collections::HashSet::new();
            for t in ids.into_iter().filter(|t| !seen.insert(*t)) {
                diags.error(
                    DiagnosticKind::Duplicate,
                    terminals[t.index()].span,
                    format!(
                        "terminal `{}` is given a {what} twice",
                        terminals[t.index()].name
                    ),
                );
            }
        }
        caps.sort_unstable();
        temperatures.sort_unstable_by_key(|c| c.0);
        let mut captures = Vec::new();
        for (rule, name, part, span) in &self.captures {
            match captured_rule(rule, nonterminals, productions) {
                Ok(()) => captures.push((rule.clone(), name.clone(), *part)),
                Err(why) => diags.error(
                    DiagnosticKind::Unsupported,
                    *span,
                    format!("cannot capture rule `{rule}` as `{name}`: {why}"),
                ),
            }
        }
        Hints {
            lexeme_caps: caps,
            temperatures,
            captures,
        }
    }
}

/// Whether every parse-tree node named `rule` is a derivation of that rule
/// and every derivation gives one: captures are read from parse trees.
fn captured_rule(
    rule: &str,
    nonterminals: &[Nonterminal],
    productions: &[Production],
) -> Result<(), String> {
    let Some(n) = nonterminals.iter().position(|n| n.name == rule) else {
        return Err("no such rule".into());
    };
    match nonterminals[n].kind {
        RuleKind::Normal => {}
        RuleKind::InlineSingle => {
            return Err("a `?rule` is replaced by its child in parse trees".into())
        }
        RuleKind::Hidden | RuleKind::Generated => {
            return Err("a `_rule` is replaced by its children in parse trees".into())
        }
    }
    if let Some(a) = (productions.iter())
        .filter(|p| p.lhs.index() == n)
        .find_map(|p| p.alias.as_ref())
    {
        return Err(format!(
            "its alternative aliased `-> {a}` gives a node of that name"
        ));
    }
    if let Some(p) = productions
        .iter()
        .find(|p| p.alias.as_deref() == Some(rule))
    {
        let other = &nonterminals[p.lhs.index()].name;
        return Err(format!("rule `{other}` has an alternative aliased `-> {rule}`, whose nodes would be taken for it"));
    }
    Ok(())
}
