//! What a compile reports beyond the analysis' own conflicts: rules the
//! start rule cannot reach, lookaheads that see past their lexeme, and
//! forks a member set cannot take.

use crate::analysis::{self, Ll1Table};
use crate::error::{Diagnostic, DiagnosticKind, GrammarError};
use crate::grammar::{Grammar, RuleKind, TerminalPattern};
use crate::lexer::{lookaround, TerminalDfa};

/// One diagnostic per rule of `g` written by the user that the start rule
/// cannot reach (rules the desugaring made for them go unmentioned): a
/// warning, or an error when `strict`.
pub(super) fn unused_rule_warnings(
    g: &Grammar,
    unused: &[crate::grammar::NtId],
    strict: bool,
) -> Vec<Diagnostic> {
    unused
        .iter()
        .map(|&n| g.nonterminal(n))
        .filter(|n| n.kind != RuleKind::Generated)
        .map(|n| {
            let d = analysis::unreachable(g, n);
            if strict {
                d
            } else {
                d.with_note(None, "it is left out of the compiled grammar")
                    .into_warning()
            }
        })
        .collect()
}

/// One warning per terminal with a lookahead that can look past the end of
/// its lexeme: gcd sees the end of the text there, where Python's `re` (and
/// so Lark) would see the text that follows.
pub(super) fn lookahead_warnings(g: &Grammar, dfas: Option<&[TerminalDfa]>) -> Vec<Diagnostic> {
    // The DFAs know it when they were built from the lookarounds; asking
    // again would build each such table twice.
    let built = |i: usize| {
        dfas.and_then(|d| d.get(i))
            .and_then(TerminalDfa::looks_past_end)
    };
    (g.terminals.iter().enumerate())
        .filter(|&(i, t)| match &t.pattern {
            TerminalPattern::Regex(re) => built(i).unwrap_or_else(|| lookaround::sees_past_end(re)),
            _ => false,
        })
        .map(|(_, t)| t)
        .map(|t| {
            Diagnostic::new(
                DiagnosticKind::Unsupported,
                t.span,
                format!("a lookahead in terminal `{}` can look past the end of its lexeme", t.name),
            )
            .with_note(None, "gcd evaluates lookarounds within the lexeme: past its end a lookahead sees the end of the text, not the text that follows")
            .into_warning()
        })
        .collect()
}

/// Why a grammar with conflicts cannot be parsed with forks, if it cannot:
/// a member set's own rules (which member comes next) must be decided by
/// one token, because the used members ride on the stack of the one
/// derivation that reads them. Forks around a set (a union of objects)
/// are fine.
pub(super) fn generalization_problems(
    g: &Grammar,
    table: &Ll1Table,
    conflicts: &[Diagnostic],
) -> Option<GrammarError> {
    let forks_in_set = g.member_sets.iter().any(|m| {
        [m.list, m.next]
            .iter()
            .any(|&n| (0..table.columns()).any(|t| table.get_all(n, t).len() > 1))
    });
    if !forks_in_set {
        return None;
    }
    let note = "members in any order (JSON objects) must be told apart by their first token: \
                generalized parsing forks around member lists, not inside them";
    Some(GrammarError::new(
        conflicts
            .iter()
            .map(|d| d.clone().with_note(None, note))
            .collect(),
    ))
}
