//! Desugaring [`Expr`]s into plain productions: `?`, `*`, `+` and groups
//! become fresh right-recursive rules, shared when the same sugar recurs.

use rustc_hash::FxHashMap;

use super::expr::Expr;
use super::{Nonterminal, NtId, Production, RuleKind, Symbol, TermId, Terminal, TerminalPattern};
use crate::error::{DiagnosticKind, Diagnostics, Span};

/// The repeated part of `e*` without its empty string: `[x]*`, `(x?)*`,
/// `(x*)*` and `(a | b?)*` are `x*` and `(a | b)*`, and repeating a part
/// that can be empty would make the grammar cyclic. The flag says whether
/// anything was stripped.
fn non_empty_part(e: &Expr) -> (Expr, bool) {
    match e {
        Expr::Opt(x) | Expr::Star(x) => (non_empty_part(x).0, true),
        Expr::Plus(x) => {
            let (inner, stripped) = non_empty_part(x);
            (
                if stripped {
                    inner
                } else {
                    Expr::Plus(Box::new(inner))
                },
                stripped,
            )
        }
        Expr::Alt(items) => {
            let parts: Vec<(Expr, bool)> = items.iter().map(non_empty_part).collect();
            let stripped = parts.iter().any(|p| p.1);
            (
                Expr::Alt(parts.into_iter().map(|p| p.0).collect()),
                stripped,
            )
        }
        Expr::Seq(items) if items.len() == 1 => non_empty_part(&items[0]),
        _ => (e.clone(), false),
    }
}

pub(super) struct Desugar<'a> {
    pub(super) terminals: &'a mut Vec<Terminal>,
    pub(super) term_index: &'a mut FxHashMap<String, TermId>,
    pub(super) nt_index: &'a FxHashMap<String, NtId>,
    pub(super) nonterminals: &'a mut Vec<Nonterminal>,
    pub(super) productions: Vec<Production>,
    pub(super) diags: &'a mut Diagnostics,
    /// Identical sugar (`x*` used twice) shares one generated rule.
    pub(super) memo: FxHashMap<Expr, NtId>,
    /// Undefined names, with the index of the error reported at the first
    /// use: a later use is a note of it, not another error.
    pub(super) undefined: FxHashMap<String, usize>,
    /// The first terminal that is not ignored, by pattern: a literal used
    /// again is that terminal (a lookup, not a scan: grammars may have
    /// tens of thousands of literals).
    pub(super) by_pattern: FxHashMap<TerminalPattern, TermId>,
    /// The alternative being desugared: generated rules point at it.
    pub(super) span: Option<Span>,
}

impl Desugar<'_> {
    pub(super) fn seq(&mut self, e: &Expr, owner: &str) -> Vec<Symbol> {
        let mut out = Vec::new();
        self.push_seq(e, owner, &mut out);
        out
    }

    fn push_seq(&mut self, e: &Expr, owner: &str, out: &mut Vec<Symbol>) {
        match e {
            Expr::Seq(items) => {
                for item in items {
                    self.push_seq(item, owner, out);
                }
            }
            Expr::Alt(alts) if alts.len() == 1 => self.push_seq(&alts[0], owner, out),
            Expr::Repeat(inner, min, max) if *min == *max => {
                for _ in 0..*min {
                    self.push_seq(inner, owner, out);
                }
            }
            _ => out.push(self.symbol(e, owner)),
        }
    }

    fn symbol(&mut self, e: &Expr, owner: &str) -> Symbol {
        match e {
            Expr::Name(name, span) => {
                if let Some(&n) = self.nt_index.get(name) {
                    Symbol::N(n)
                } else if let Some(&t) = self.term_index.get(name) {
                    Symbol::T(t)
                } else {
                    let what = if name
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_ascii_uppercase() || c == '_')
                        && name.chars().all(|c| !c.is_ascii_lowercase())
                    {
                        "terminal"
                    } else {
                        "rule"
                    };
                    // In `grammar!`, definitions may share a line, and one
                    // that lacks its `:` reads as more of the rule before
                    // it: its name is then a use, often the second.
                    if let Some(&i) = self.undefined.get(name) {
                        self.diags.0[i].notes.push((
                            *span,
                            format!(
                                "`{name}` is used again here; if this is where it is defined, \
                                 it needs a `:` after it"
                            ),
                        ));
                    } else {
                        self.undefined.insert(name.clone(), self.diags.0.len());
                        self.diags.error(
                            DiagnosticKind::Undefined,
                            *span,
                            format!("{what} `{name}` is used in `{owner}` but never defined"),
                        );
                    }
                    // A placeholder keeps desugaring going so later errors are found too.
                    Symbol::T(TermId(u32::MAX))
                }
            }
            Expr::Pattern(p, span) => Symbol::T(self.anonymous_terminal(p, *span)),
            Expr::Seq(_)
            | Expr::Alt(_)
            | Expr::Opt(_)
            | Expr::Star(_)
            | Expr::Plus(_)
            | Expr::Repeat(..) => {
                if let Some(&n) = self.memo.get(e) {
                    return Symbol::N(n);
                }
                let key = e.clone();
                let (suffix, alts): (&str, Vec<Vec<Symbol>>) = match e {
                    Expr::Seq(_) => ("group", vec![self.seq(e, owner)]),
                    Expr::Alt(items) => ("alt", items.iter().map(|i| self.seq(i, owner)).collect()),
                    Expr::Opt(inner) => ("opt", vec![self.seq(inner, owner), vec![]]),
                    Expr::Star(inner) if non_empty_part(inner).1 => {
                        return self.symbol(&Expr::Star(Box::new(non_empty_part(inner).0)), owner);
                    }
                    Expr::Plus(inner) if non_empty_part(inner).1 => {
                        return self.symbol(&Expr::Star(Box::new(non_empty_part(inner).0)), owner);
                    }
                    Expr::Star(inner) => {
                        // x* => S: x S | <empty>, built below once S exists.
                        let n = self.fresh(owner, "star");
                        self.memo.insert(key, n);
                        let mut rhs = self.seq(inner, owner);
                        rhs.push(Symbol::N(n));
                        self.add(n, rhs);
                        self.add(n, vec![]);
                        return Symbol::N(n);
                    }
                    Expr::Plus(inner) => {
                        // x+ => x x*
                        let star = self.symbol(&Expr::Star(inner.clone()), owner);
                        let mut rhs = self.seq(inner, owner);
                        rhs.push(star);
                        ("plus", vec![rhs])
                    }
                    Expr::Repeat(inner, min, max) => {
                        // x~a..b => x{a} (x (x (...)?)?)? : b-a nested optionals.
                        let mut rhs = Vec::new();
                        for _ in 0..*min {
                            rhs.extend(self.seq(inner, owner));
                        }
                        let mut tail: Option<Symbol> = None;
                        for _ in *min..*max {
                            let n = self.fresh(owner, "rep");
                            let mut body = self.seq(inner, owner);
                            body.extend(tail);
                            self.add(n, body);
                            self.add(n, vec![]);
                            tail = Some(Symbol::N(n));
                        }
                        rhs.extend(tail);
                        ("repeat", vec![rhs])
                    }
                    _ => unreachable!(),
                };
                let n = self.fresh(owner, suffix);
                for rhs in alts {
                    self.add(n, rhs);
                }
                self.memo.insert(key, n);
                Symbol::N(n)
            }
        }
    }

    fn anonymous_terminal(&mut self, p: &TerminalPattern, span: Option<Span>) -> TermId {
        if let Some(&id) = self.by_pattern.get(p) {
            return id;
        }
        let id = TermId(self.terminals.len() as u32);
        self.by_pattern.insert(p.clone(), id);
        let name = match p {
            TerminalPattern::Literal { text, .. }
                if !text.is_empty()
                    && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                format!("__ANON_{}", text.to_ascii_uppercase())
            }
            _ => format!("__ANON_{}", id.0),
        };
        let name = if self.term_index.contains_key(&name) {
            format!("__ANON_{}", id.0)
        } else {
            name
        };
        self.terminals.push(Terminal {
            name: name.clone(),
            pattern: p.clone(),
            priority: 0,
            ignored: false,
            hidden: false,
            span,
        });
        self.term_index.insert(name, id);
        id
    }

    fn fresh(&mut self, owner: &str, suffix: &str) -> NtId {
        let n = NtId(self.nonterminals.len() as u32);
        self.nonterminals.push(Nonterminal {
            name: format!("{owner}__{suffix}{}", n.0),
            kind: RuleKind::Generated,
            keep_all_tokens: false,
            tight: false,
            span: self.span,
        });
        n
    }

    fn add(&mut self, lhs: NtId, rhs: Vec<Symbol>) {
        self.productions.push(Production {
            lhs,
            rhs,
            alias: None,
            span: self.span,
        });
    }
}
