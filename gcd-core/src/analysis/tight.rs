//! Tight rules: where no ignored terminal may come before a lexeme.
//!
//! Ignored terminals (whitespace) may sit between any two lexemes. A string
//! too long for one terminal's DFA is a chain of fixed-size chunks, one
//! lexeme each, and whitespace between two chunks would be whitespace
//! inside the string. A tight rule drops the ignored terminals from the
//! lexer's candidates at every lexeme that starts while it is the parser's
//! next symbol.
//!
//! The rule is kept simple enough to check: a tight rule derives no empty
//! string and follows a terminal directly wherever it is used. Then the
//! pairs of adjacent terminals that no ignored lexeme may separate are
//! exactly (terminal before a tight rule, terminal in the rule's FIRST
//! set), which the lexical analysis and the budget tables need.

use crate::error::{Diagnostic, DiagnosticKind};
use crate::grammar::{Grammar, Symbol};

use super::Sets;

/// Terminal pairs `(x, y)` that are adjacent with no ignored lexeme
/// between, and the rules that break the shape above.
pub(crate) fn tight_pairs(g: &Grammar, sets: &Sets) -> (Vec<(usize, usize)>, Vec<Diagnostic>) {
    let mut pairs = Vec::new();
    let mut diags = Vec::new();
    for (n, nt) in g.nonterminals.iter().enumerate().filter(|(_, nt)| nt.tight) {
        if sets.nullable[n] {
            diags.push(Diagnostic::new(
                DiagnosticKind::Unsupported,
                nt.span,
                format!("tight rule `{}` derives the empty string", nt.name),
            ));
        }
    }
    for p in &g.productions {
        for (i, s) in p.rhs.iter().enumerate() {
            let Symbol::N(n) = s else { continue };
            if !g.nonterminal(*n).tight {
                continue;
            }
            match i.checked_sub(1).map(|j| p.rhs[j]) {
                Some(Symbol::T(x)) => {
                    pairs.extend(sets.first[n.index()].iter().map(|y| (x.index(), y)));
                }
                _ => diags.push(Diagnostic::new(
                    DiagnosticKind::Unsupported,
                    p.span,
                    format!(
                        "tight rule `{}` must follow a terminal in `{}`",
                        g.nonterminal(*n).name,
                        g.nonterminal(p.lhs).name
                    ),
                )),
            }
        }
    }
    pairs.retain(|&(_, y)| y < sets.n_terms);
    pairs.sort_unstable();
    pairs.dedup();
    (pairs, diags)
}

/// Tight rules of `written` that the LL(1) transforms rewrote away in
/// `transformed`, as errors: the chunks' shape is no longer there to
/// check. Found by name, since a long string has a tight rule per chunk.
pub(crate) fn rewritten_tight_rules(written: &Grammar, transformed: &Grammar) -> Vec<Diagnostic> {
    let kept: std::collections::HashSet<&str> = (transformed.nonterminals.iter())
        .filter(|m| m.tight)
        .map(|m| m.name.as_str())
        .collect();
    (written.nonterminals.iter())
        .filter(|nt| nt.tight && !kept.contains(nt.name.as_str()))
        .map(|nt| {
            Diagnostic::new(
                DiagnosticKind::Unsupported,
                nt.span,
                format!(
                    "tight rule `{}` was rewritten by the LL(1) transforms",
                    nt.name
                ),
            )
        })
        .collect()
}
