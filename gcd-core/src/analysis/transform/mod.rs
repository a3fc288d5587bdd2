//! Grammar transforms that make natural grammars LL(1): left-recursion
//! removal and left factoring. Every change is reported as a [`Rewrite`] that
//! says what was done to which rule, so a user can see why the grammar the
//! engine runs differs from the one they wrote.
//!
//! [`make_ll1`] makes repetitions of nullable parts repeat their non-empty
//! part (see `repetition`), runs [`remove_left_recursion`] and then
//! [`left_factor`], and
//! finally drops the rules that the rewrites left unused. A grammar that is
//! already LL(1) comes back unchanged, with no rewrites. The transforms do not
//! promise an LL(1) result: a language that is not LL(1) (the dangling
//! `else`) keeps its conflict, and [`analysis::analyze`] reports it.
//!
//! # Left recursion
//!
//! The left-corner graph has an edge `A → B` when some alternative of `A` is
//! `X1 … Xk B …` with `X1 … Xk` nullable. Its strongly connected components
//! with a cycle are the left-recursive ones; only their rules are rewritten,
//! callee components first. Within one component the rules used from outside
//! it (and the start rule) come last, so that they absorb the others, which
//! then usually fall out of use; otherwise declaration order. Each rule `Ai`
//! in turn:
//!
//! * gets the alternatives of already-processed members (and of the tails
//!   made for them) substituted in where such a member starts an alternative
//!   and can still lead back to `Ai` (Paull's algorithm, restricted to what
//!   is actually recursive: indirect left recursion);
//! * gets a nullable leading symbol (outside the component, or already
//!   processed) expanded where the rest of the alternative leads back to
//!   `Ai` (hidden left recursion, `a: b a "x"` with `b` nullable);
//! * then has its direct left recursion removed:
//!   `A: A α1 | … | β1 | …` becomes `A: β1 A' | …` and
//!   `A': α1 A' | … | <empty>`, where `A'` is a [`RuleKind::Generated`] rule
//!   named `{A}__lr{n}`.
//!
//! The graph is recomputed and the procedure repeated (bounded) until no
//! cycle is left, so left recursion that the first pass uncovers among the
//! new rules is removed too. Grammars where a rule derives itself with
//! nothing around it (`a: b | "x"; b: a`, `a: a b` with `b` nullable) are
//! cyclic, hence ambiguous, and are rejected with a
//! [`DiagnosticKind::LeftRecursion`] error that names the cycle; so is any
//! left recursion still present when the bounds run out. Left-recursive
//! rules that never end (`a: a "x"`) are [`DiagnosticKind::Unproductive`].
//!
//! # Left factoring
//!
//! Alternatives of one rule that start with the same symbol and whose
//! lookaheads overlap share their longest common prefix through a new
//! Generated rule `{A}__lf{n}`; repeated until nothing is left to factor.
//! When alternatives conflict but start with different rules
//! (`stmt: assign | call` with both starting with `NAME`), the leading rules
//! of the conflicting alternatives are expanded one level and the result is
//! factored, but only if that makes the rule (and the rules made for it)
//! LL(1); otherwise the rule is left as written.
//!
//! # Parse-tree shape
//!
//! Generated rules are replaced by their children in parse trees, so a
//! factored rule gives the same tree as before. Aliases (`-> name`) stay on
//! the production that finally decides the alternative: after factoring,
//! that is the production of the `__lf` rule, and a tree builder should let
//! an alias on a Generated child's production rename the enclosing node.
//! A left-recursion tail `A'` (see [`Rewrite::tail`]) keeps the alias and span
//! of the original `A: A α` alternative on its `α A'` production, and `A`
//! keeps those of `A: β` on `β A'`; a parse `A(β, A'(α1, A'(α2, A'())))`
//! stands for the left-associative `A(A(A(β), α1), α2)`. Substitution
//! (indirect and hidden left recursion, expansion before factoring) inlines a
//! rule's node into its user; those rewrites say so.
//!
//! # Limits
//!
//! Substitution can grow a grammar fast. The rewrites stop with a
//! [`DiagnosticKind::TooLarge`] error when the grammar would exceed
//! [`Limits`] (by default ten times its productions, at least 256 and at most
//! 20,000, and likewise for symbols).
//!
//! The code is split by concern: `work` holds the grammar being rewritten,
//! `left_corner` its left-corner graph and cycles, `left_recursion` and
//! `left_factoring` the two rewrites, `output` the way back to a
//! [`Grammar`] without the rules the rewrites left unused.
//!
//! [`analysis::analyze`]: crate::analysis::analyze
//! [`RuleKind::Generated`]: crate::grammar::RuleKind::Generated
//! [`DiagnosticKind::LeftRecursion`]: crate::error::DiagnosticKind::LeftRecursion
//! [`DiagnosticKind::Unproductive`]: crate::error::DiagnosticKind::Unproductive
//! [`DiagnosticKind::TooLarge`]: crate::error::DiagnosticKind::TooLarge

mod left_corner;
mod left_factoring;
mod left_recursion;
mod output;
mod repetition;
mod work;

use std::fmt;

use crate::error::{GrammarError, Span};
use crate::grammar::{Grammar, NtId};

use work::Work;

/// What a [`Rewrite`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub enum RewriteKind {
    /// `A: A α | β` became `A: β A'; A': α A' | <empty>`.
    LeftRecursion,
    /// Left recursion through other rules (`a: b "x"; b: a "y"`), removed by
    /// substituting the other rules' alternatives, then as above.
    IndirectLeftRecursion,
    /// Left recursion hidden behind a nullable prefix (`a: b a "x"` with `b`
    /// nullable), removed by expanding the prefix, then as above.
    HiddenLeftRecursion,
    /// Alternatives sharing a prefix now share it through a new rule.
    LeftFactoring,
    /// Leading rules of conflicting alternatives were expanded in place so
    /// that the alternatives could be factored.
    Expansion,
    /// An alternative that appeared more than once (same symbols, same alias)
    /// was kept once.
    DuplicateAlternative,
    /// A rule of the input that the rewrites left unused was removed.
    RemovedRule,
    /// A repetition of something that can be empty repeats its non-empty
    /// part (`(a?)*` as `a*`, through rules): same language, no cycle.
    NonEmptyRepetition,
}

/// One change made by a transform.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rewrite {
    pub kind: RewriteKind,
    /// The rule that was rewritten (or removed).
    pub rule: String,
    /// What was done, with the rules as they are now, e.g.
    /// ``removed direct left recursion in `expr`: expr -> term expr__lr3; expr__lr3 -> "+" term expr__lr3 | <empty>``.
    pub message: String,
    /// Where the rule (or the alternative concerned) was written.
    pub span: Option<Span>,
    /// Rules this rewrite created.
    pub new_rules: Vec<String>,
    /// For the left-recursion kinds: the Generated rule that carries the
    /// left-recursive continuations of `rule` (see the module docs on
    /// parse-tree shape).
    pub tail: Option<String>,
}

impl fmt::Display for Rewrite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Everything the transforms changed, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TransformReport {
    pub rewrites: Vec<Rewrite>,
}

impl TransformReport {
    pub fn is_empty(&self) -> bool {
        self.rewrites.is_empty()
    }

    /// `(rule, tail)` pairs: `tail` continues `rule` to the left.
    pub fn tails(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        self.rewrites
            .iter()
            .filter_map(|r| r.tail.as_deref().map(|t| (r.rule.as_str(), t)))
    }
}

impl fmt::Display for TransformReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.rewrites.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{r}")?;
        }
        Ok(())
    }
}

/// How far the transforms may grow a grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_productions: usize,
    /// Symbols summed over all right-hand sides.
    pub max_symbols: usize,
}

impl Limits {
    /// Ten times the grammar's size, at least 256 productions / 4,096 symbols
    /// and at most 20,000 / 400,000 (never below the current size).
    pub fn for_grammar(g: &Grammar) -> Limits {
        let prods = g.productions.len();
        let syms: usize = g.productions.iter().map(|p| p.rhs.len()).sum();
        Limits {
            max_productions: prods.saturating_mul(10).clamp(256, 20_000).max(prods),
            max_symbols: syms.saturating_mul(10).clamp(4_096, 400_000).max(syms),
        }
    }
}

/// Removes left recursion, then left-factors (to a fixpoint, bounded), then
/// drops rules the rewrites left unused. Returns the new grammar and what
/// changed; an LL(1) grammar comes back unchanged with an empty report.
pub fn make_ll1(g: &Grammar) -> Result<(Grammar, TransformReport), GrammarError> {
    make_ll1_with_limits(g, Limits::for_grammar(g))
}

/// [`make_ll1`] with explicit growth limits.
pub fn make_ll1_with_limits(
    g: &Grammar,
    limits: Limits,
) -> Result<(Grammar, TransformReport), GrammarError> {
    let mut w = Work::new(g, limits);
    let mut rewrites = Vec::new();
    w.non_empty_repetitions(&mut rewrites);
    w.remove_left_recursion(&mut rewrites)?;
    w.left_factor(&mut rewrites);
    let (g, rewrites) = w.finish(rewrites);
    Ok((g, TransformReport { rewrites }))
}

/// Removes direct, indirect and hidden left recursion (see the module docs).
pub fn remove_left_recursion(g: &Grammar) -> Result<(Grammar, Vec<Rewrite>), GrammarError> {
    let mut w = Work::new(g, Limits::for_grammar(g));
    let mut rewrites = Vec::new();
    w.non_empty_repetitions(&mut rewrites);
    w.remove_left_recursion(&mut rewrites)?;
    Ok(w.finish(rewrites))
}

/// Left-factors every rule whose alternatives share a prefix and conflict,
/// repeatedly; expands leading rules one level where that makes a rule
/// LL(1). Never fails: what cannot be factored is left as it is.
pub fn left_factor(g: &Grammar) -> (Grammar, Vec<Rewrite>) {
    let mut w = Work::new(g, Limits::for_grammar(g));
    let mut rewrites = Vec::new();
    w.left_factor(&mut rewrites);
    w.finish(rewrites)
}

/// `g` without the rules its start rule cannot reach, and those rules (ids
/// of `g`). `g` itself, unchanged, when every rule is reachable.
pub fn drop_unreachable(g: &Grammar) -> (Grammar, Vec<NtId>) {
    let reach = crate::analysis::reachable(g);
    let dropped: Vec<NtId> = (0..g.nonterminals.len())
        .filter(|&i| !reach[i])
        .map(|i| NtId(i as u32))
        .collect();
    if dropped.is_empty() {
        return (g.clone(), dropped);
    }
    let w = Work::new(g, Limits::for_grammar(g));
    (w.to_grammar(Some(&reach)), dropped)
}

/// A left-recursive cycle of `g`, if there is one: `[a, b]` for
/// `a ⇒ b … ⇒ a …` (each step through a nullable prefix at most).
pub fn find_left_recursion(g: &Grammar) -> Option<Vec<NtId>> {
    let w = Work::new(g, Limits::for_grammar(g));
    let scc = w.left_recursive_sccs().into_iter().next()?;
    let scope = w.scope_of(&scc);
    let cycle = w.find_cycle(scc[0], |n| w.lc_edges(n), |n| scope[n.index()])?;
    Some(cycle.into_iter().map(|(n, _)| n).collect())
}

#[cfg(test)]
mod tests;
