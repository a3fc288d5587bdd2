//! Token-cost tables for the hard token budget (TruncProof's idea, for a
//! contextual lexer).
//!
//! A budgeted mask allows a token only if, after it, the output can still be
//! completed within the tokens left. "Can be completed within k tokens" is
//! decided by an estimate that is an upper bound *realized by a plan*: spell
//! the rest of the pending lexeme with whole tokens that stay inside it, then
//! each terminal the parser still needs with whole tokens of its own. The
//! estimate is the cheapest such plan, so the plan's first token always
//! keeps the estimate within budget: the mask is never empty before the
//! output is complete, and generation ends complete within the budget.
//!
//! The tables:
//!
//! * `lexeme[q][T]`: fewest tokens, each staying inside the lexeme, from
//!   lexer state `q` to a state where terminal `T` wins (a shortest path over
//!   lexer states whose edges are whole vocabulary tokens). Computed per
//!   state on first use ([`BoundGrammar::lexeme_costs`]) by a breadth-first
//!   search that stops once every terminal still alive in `q` is found, so
//!   it builds the token tables of the few states near `q` only: building
//!   every state's tables up front made a budget's first mask take seconds
//!   on schemas with long strings (tens of thousands of lexer states).
//! * `pair[p][y]`: fewest tokens for a lexeme of `y` right after a lexeme
//!   that `p` won, whose first byte cannot extend `p`'s lexeme, in the worst
//!   parser context `y` occurs in; or through an ignored separator. The same
//!   search, from each context's start state, unless one short token
//!   spells each of the context's lexemes (`""`, `0`): one token is the
//!   least a lexeme costs, and a walk of the trie's first levels shows it
//!   without the start state's token tables (most contexts' starts are the
//!   schema's own, so building their tables was most of the first mask).
//! * `nt[A][p][last]`: fewest tokens for a terminal string derived from `A`
//!   after a lexeme of `p`, ending with a lexeme of `last`; a fixed point,
//!   solved one strongly connected group of rules at a time.
//! * `lexeme_most[y]`: the most tokens a plan spends on one whole lexeme of
//!   `y` (the largest finite `pair` cost before its separators are
//!   counted), so that a cap on `y`'s lexemes at or above it leaves every
//!   plan realizable.
//!
//! A previous lexeme matters to a plan only through the bytes that would
//! extend it and the terminals that must follow it with no separator, so
//! `pair` and `nt` index previous lexemes by class of terminals alike in
//! both: a schema's hundreds of key literals are one class, and the rule
//! table (rules × classes²) shrinks from gigabytes to kilobytes.
//!
//! Terminals are indexed `0..T`; index `T` stands for "no lexeme yet".
//!
//! A member set (members in any order) is planned as its missing required
//! members in declaration order, or, when one more member is needed and
//! none is required, the cheapest one; the plan after its first token is
//! the rest of the same plan, so the estimate stays realizable.

mod estimate;

use super::cost::{add, INF};
use super::lexeme_costs::{
    lexeme_distances, one_token_each, single_byte_distances, MAX_UPPER_TABLE_BYTES,
};
use super::previous::PreviousClasses;
use super::BoundGrammar;
use crate::compiled::CompiledGrammar;
use crate::grammar::Symbol;
use crate::parser::{SetPlan, SetRole, SetState, NT_BIT};
use rustc_hash::FxHashMap;

/// The most bytes one binding's budget tables may take. The rule table is
/// rules × classes² (see the module docs); past this, budgets and lexeme
/// caps are refused with an error rather than exhausting memory.
pub const MAX_BUDGET_TABLE_BYTES: usize = 512 << 20;

/// Why a binding offers no token budgets or lexeme caps: its budget tables
/// would take more than [`MAX_BUDGET_TABLE_BYTES`]. Kept as numbers, so a
/// caller can tell how far over the grammar is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BudgetUnavailable {
    table_bytes: usize,
    terminals: usize,
    rules: usize,
}

impl BudgetUnavailable {
    pub(crate) fn new(table_bytes: usize, terminals: usize, rules: usize) -> BudgetUnavailable {
        BudgetUnavailable {
            table_bytes,
            terminals,
            rules,
        }
    }

    /// The bytes the budget tables would take.
    pub fn table_bytes(&self) -> usize {
        self.table_bytes
    }

    /// The grammar's terminals and rules, the factors of that size.
    pub fn grammar_size(&self) -> (usize, usize) {
        (self.terminals, self.rules)
    }
}

impl std::fmt::Display for BudgetUnavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "token budgets and lexeme caps are not available for this grammar: its budget \
             tables would take {} MB ({} terminals, {} rules), more than the {} MB a binding \
             may spend on them",
            self.table_bytes >> 20,
            self.terminals,
            self.rules,
            MAX_BUDGET_TABLE_BYTES >> 20
        )
    }
}

impl std::error::Error for BudgetUnavailable {}

/// The longest tokens [`BudgetTables::new`] tries before a context's
/// tables: a lexeme one token spells is mostly a short one (`""`, `0`,
/// `true`), and the walk below this depth reads a few thousand trie nodes.
const ONE_TOKEN_BYTES: usize = 6;

/// The bytes [`BudgetTables::new`] would allocate for `g`, whose previous
/// lexemes fall into `classes`.
pub(crate) fn table_bytes(g: &CompiledGrammar, classes: &PreviousClasses) -> usize {
    let t = g.grammar.terminals.len();
    let k = classes.len();
    let n_nts = g.grammar.nonterminals.len();
    let entries = (k.saturating_mul(t))
        .saturating_add(n_nts.saturating_mul(k).saturating_mul(k))
        .saturating_add(2 * t);
    entries.saturating_mul(4)
}

/// The token-cost tables of one binding: the fewest tokens that spell a
/// lexeme after another one and what a rule derives, from which
/// [`estimate`](Self::estimate) bounds the tokens an output still needs
/// (by a plan that can be followed, so a budgeted mask is never empty
/// before the output is complete). The rest of a pending lexeme comes from
/// [`BoundGrammar::lexeme_costs`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BudgetTables {
    /// Which plans the costs count (snapshots hold exact tables only).
    #[serde(skip)]
    tier: CostTier,
    n_terms: usize,
    /// Per terminal, and at index `T` for "no lexeme yet": its class of
    /// previous lexemes, which index every cost vector.
    class_of: Vec<u32>,
    /// The number of classes: the length of every cost vector.
    cols: usize,
    pair: Vec<u32>,
    nt: Vec<u32>,
    lexeme_most: Vec<u32>,
}

/// What a table's costs are. The exact tables search token paths through
/// the token tables of the states near each context's start, which on a
/// fresh binding was most of a budget's first mask (tens of milliseconds
/// for a schema with an unanchored `pattern`). Upper bounds spell those
/// lexemes with single-byte tokens instead, over the lexer's own
/// transitions: every such plan is one the exact search also weighs, so
/// each cost is at least the exact one, and a plan that fits under the
/// bounds fits exactly. Masks far from the limit decide with them and
/// leave the exact tables unbuilt ([`crate::runtime::matcher`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CostTier {
    /// The fewest tokens of every plan the estimate weighs.
    #[default]
    Exact = 0,
    /// At least [`Exact`](Self::Exact)'s, by plans that read no token
    /// tables where the exact search would.
    Upper = 1,
}

/// Lexeme caps for an estimate. Plans that would break the pending
/// lexeme's cap do not count.
#[derive(Clone, Copy, Debug)]
pub struct PendingCap<'a> {
    /// Per terminal, the most tokens one of its lexemes may hold (`INF`:
    /// no cap).
    pub limits: &'a [u32],
    /// The tokens the pending lexeme holds already.
    pub held: u32,
}

impl BudgetTables {
    /// Table sizes as [`new`](Self::new) makes them, for loaded snapshots.
    pub(crate) fn check_sizes(&self, n_terms: usize, n_nts: usize) -> bool {
        let k = self.cols;
        self.n_terms == n_terms
            && self.class_of.len() == n_terms + 1
            && self.class_of.iter().all(|&c| (c as usize) < k)
            && self.pair.len() == k * n_terms
            && self.nt.len() == n_nts * k * k
            && self.lexeme_most.len() == n_terms
    }
}

/// Elementwise minimum of cost vectors of length `cols` (all `INF` if none).
fn cheapest(vs: impl Iterator<Item = Vec<u32>>, cols: usize) -> Vec<u32> {
    vs.reduce(|a, b| a.iter().zip(&b).map(|(x, y)| *x.min(y)).collect())
        .unwrap_or_else(|| vec![INF; cols])
}

/// A parse-table symbol as a grammar symbol.
fn decode(s: u32) -> Symbol {
    match s & NT_BIT {
        0 => Symbol::T(crate::grammar::TermId(s)),
        _ => Symbol::N(crate::grammar::NtId(s & !NT_BIT)),
    }
}

impl BudgetTables {
    /// Computes the tables of `b`'s grammar, building the token tables of
    /// each context's start state and of the states the searches for its
    /// first lexemes pass through.
    pub fn new(b: &BoundGrammar) -> BudgetTables {
        Self::build(b, true, CostTier::Exact)
    }

    /// Tables of upper bounds on [`new`](Self::new)'s, built without any
    /// token table (see [`CostTier`]). Without the one-token tries too:
    /// a walk of the trie per context was half their cost, for bounds a
    /// roomy budget does not need that tight.
    pub fn upper(b: &BoundGrammar) -> BudgetTables {
        Self::build(b, false, CostTier::Upper)
    }

    /// Which costs these tables hold.
    pub fn tier(&self) -> CostTier {
        self.tier
    }

    /// [`new`](Self::new), trying one short token per context before its
    /// tables if `one_token_first` (without, for tests: the same tables).
    fn build(b: &BoundGrammar, one_token_first: bool, tier: CostTier) -> BudgetTables {
        let g: &CompiledGrammar = &b.grammar;
        let t = g.grammar.terminals.len();
        let unmerged;
        let classes = match b.merge_previous {
            true => b.previous_classes(),
            false => {
                unmerged = PreviousClasses::of(g, false);
                &unmerged
            }
        };
        let cols = classes.len();
        let lx = &g.lexer;

        // Lexemes after a previous lexeme: worst context, best first token.
        let mut pair = vec![INF; cols * t];
        let mut seen = vec![false; t];
        let literals = b.literal_costs();
        // Per terminal, its place in the context's `wanted` (a context's
        // costs are kept for its own candidates only).
        let mut place = vec![0u32; t];
        for (ci, set) in g.candidate_sets.iter().enumerate() {
            let start = lx.starts[ci];
            let wanted: Vec<u32> = set.iter().filter(|&y| y < t).map(|y| y as u32).collect();
            for (j, &y) in wanted.iter().enumerate() {
                place[y as usize] = j as u32;
            }
            let n = wanted.len();
            let mut costs = vec![INF; cols * n];
            // A literal's first token spells its first byte: no search, and
            // a context of literals only (an object's keys) walks no tokens.
            let mut search = Vec::new();
            for &y in &wanted {
                match (literals.get(start, y), literals.first_byte(y)) {
                    (Some(cost), Some(first)) => {
                        for (c, ext) in classes.extending.iter().enumerate() {
                            if !ext[first as usize] {
                                costs[c * n + place[y as usize] as usize] = cost;
                            }
                        }
                    }
                    _ => search.push(y),
                }
            }
            // Mostly one short token spells each of them whole (`""`,
            // `0`): the least any lexeme costs, found without the start
            // state's tables.
            let literal = |y: &u32| literals.first_byte(*y).is_some();
            let spelled = match one_token_first && !search.is_empty() && !search.iter().any(literal)
            {
                true => one_token_each(b, start, &search, &classes.extending, ONE_TOKEN_BYTES),
                false => None,
            };
            if let Some(spelled) = spelled {
                for (c, ys) in spelled.iter().enumerate() {
                    for &y in ys {
                        costs[c * n + place[y as usize] as usize] = 1;
                    }
                }
                search.clear();
            }
            let first_ends = match (search.is_empty(), tier) {
                (true, _) => &[][..],
                (false, CostTier::Exact) => &b.state(start).first_ends[..],
                (false, CostTier::Upper) => &b.single_byte_firsts(start)[..],
            };
            // Classes whose filters leave the same first tokens search once.
            let mut searched: FxHashMap<Vec<u32>, Vec<(u32, u32)>> = FxHashMap::default();
            for (c, ext) in classes
                .extending
                .iter()
                .enumerate()
                .filter(|_| !search.is_empty())
            {
                let mut sources: Vec<u32> = (first_ends.iter())
                    .filter(|&&(byte, _)| !ext[byte as usize])
                    .map(|&(_, end)| end)
                    .collect();
                sources.sort_unstable();
                sources.dedup();
                let found = searched
                    .entry(sources)
                    .or_insert_with_key(|sources| match tier {
                        CostTier::Exact => lexeme_distances(b, sources, 1, search.iter().copied()),
                        CostTier::Upper => single_byte_distances(
                            b,
                            sources,
                            1,
                            search.iter().copied(),
                            MAX_UPPER_TABLE_BYTES,
                        ),
                    });
                for &(y, d) in found.iter() {
                    costs[c * n + place[y as usize] as usize] = d;
                }
            }
            for (j, &y) in wanted.iter().enumerate() {
                let y = y as usize;
                for c in 0..cols {
                    let slot = &mut pair[c * t + y];
                    let cost = costs[c * n + j];
                    *slot = if seen[y] { (*slot).max(cost) } else { cost };
                }
                seen[y] = true;
            }
        }
        let lexeme_most = (0..t)
            .map(|y| {
                (0..cols)
                    .map(|c| pair[c * t + y])
                    .filter(|&c| c < INF)
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        // Or with one ignored terminal between (never before a tight rule).
        let direct = pair.clone();
        for w in g.ignored.iter().filter(|&w| w < t) {
            let wc = classes.class_of[w] as usize;
            for c in 0..cols {
                let p = classes.member[c] as usize;
                for y in 0..t {
                    if g.tight_pairs.binary_search(&(p, y)).is_ok() {
                        continue;
                    }
                    let via = add(direct[c * t + w], direct[wc * t + y]);
                    if via < pair[c * t + y] {
                        pair[c * t + y] = via;
                    }
                }
            }
        }

        let mut tables = BudgetTables {
            tier,
            n_terms: t,
            class_of: classes.class_of.clone(),
            cols,
            pair,
            nt: vec![INF; g.grammar.nonterminals.len() * cols * cols],
            lexeme_most,
        };
        tables.solve_rules(g);
        tables
    }

    /// Fills `nt` with the fewest tokens each rule's strings take: the
    /// cheapest of its productions (a member set's list, its plan), from
    /// the costs of the rules they use. Solved one strongly connected group
    /// of rules at a time, the rules used before the rules using them, so
    /// only a recursive group iterates, and only over its own rules:
    /// iterating every production until none changed took dozens of rounds
    /// over thousands of productions (70 ms on a Kubernetes schema).
    fn solve_rules(&mut self, g: &CompiledGrammar) {
        enum Equation<'g> {
            Production(&'g [Symbol]),
            Set(SetPlan),
        }
        let n = g.grammar.nonterminals.len();
        let mut equations: Vec<Vec<Equation>> = (0..n).map(|_| Vec::new()).collect();
        for set in &g.parse.sets {
            // A whole list: nothing used yet.
            let list = SetState {
                set,
                role: SetRole::List,
                used: smallvec::smallvec![0; set.words()],
            };
            equations[set.list as usize].push(Equation::Set(list.plan()));
        }
        for prod in &g.grammar.productions {
            if g.parse.set_role(prod.lhs.0).is_none() {
                // Member sets' own rules are approximations, planned above.
                equations[prod.lhs.index()].push(Equation::Production(&prod.rhs));
            }
        }
        let uses: Vec<Vec<u32>> = (equations.iter())
            .map(|es| {
                let mut used: Vec<u32> = Vec::new();
                for e in es {
                    match e {
                        Equation::Production(rhs) => {
                            used.extend(rhs.iter().filter_map(|s| match s {
                                Symbol::N(b) => Some(b.0),
                                Symbol::T(_) => None,
                            }))
                        }
                        Equation::Set(SetPlan::Sequence(syms) | SetPlan::AnyOf(syms)) => used
                            .extend(
                                syms.iter()
                                    .filter(|&&s| s & NT_BIT != 0)
                                    .map(|&s| s & !NT_BIT),
                            ),
                    }
                }
                used.sort_unstable();
                used.dedup();
                used
            })
            .collect();
        let cols = self.cols;
        // Scratch rows: one equation is solved per previous lexeme, and a
        // row per symbol was most of the time spent here.
        let (mut v, mut next, mut any) = (vec![INF; cols], vec![INF; cols], vec![INF; cols]);
        for group in crate::analysis::strongly_connected(&uses) {
            let recursive = group.len() > 1 || uses[group[0] as usize].contains(&group[0]);
            loop {
                let mut changed = false;
                for &a in &group {
                    let a = a as usize;
                    for e in &equations[a] {
                        for p in 0..cols {
                            v.fill(INF);
                            v[p] = 0;
                            match e {
                                Equation::Production(rhs) => {
                                    for &s in rhs.iter() {
                                        self.apply_forward(s, &v, &mut next);
                                        std::mem::swap(&mut v, &mut next);
                                    }
                                }
                                Equation::Set(SetPlan::Sequence(syms)) => {
                                    for &s in syms.iter() {
                                        self.apply_forward(decode(s), &v, &mut next);
                                        std::mem::swap(&mut v, &mut next);
                                    }
                                }
                                Equation::Set(SetPlan::AnyOf(ms)) => {
                                    any.fill(INF);
                                    for &m in ms.iter() {
                                        self.apply_forward(decode(m), &v, &mut next);
                                        for (x, &y) in any.iter_mut().zip(&next) {
                                            *x = (*x).min(y);
                                        }
                                    }
                                    std::mem::swap(&mut v, &mut any);
                                }
                            }
                            let row = &mut self.nt[(a * cols + p) * cols..][..cols];
                            for (slot, &c) in row.iter_mut().zip(&v) {
                                if c < *slot {
                                    *slot = c;
                                    changed = true;
                                }
                            }
                        }
                    }
                }
                if !changed || !recursive {
                    break;
                }
            }
        }
    }

    /// `v[p]` = cost so far ending after a lexeme `p`; then symbol `s`,
    /// into `out`.
    fn apply_forward(&self, s: Symbol, v: &[u32], out: &mut [u32]) {
        let (t, cols) = (self.n_terms, self.cols);
        out.fill(INF);
        match s {
            Symbol::T(y) => {
                let y = y.index();
                let c = (0..cols)
                    .map(|l| add(v[l], self.pair[l * t + y]))
                    .min()
                    .unwrap_or(INF);
                let slot = &mut out[self.class_of[y] as usize];
                *slot = (*slot).min(c);
            }
            Symbol::N(b) => {
                let b = b.index();
                for (l, &vl) in v.iter().enumerate() {
                    if vl >= INF {
                        continue;
                    }
                    for last in 0..cols {
                        let c = add(vl, self.nt[(b * cols + l) * cols + last]);
                        if c < out[last] {
                            out[last] = c;
                        }
                    }
                }
            }
        }
    }

    /// The most tokens a plan spends on one lexeme of terminal `w`: a cap
    /// on its lexemes must be at least this (0 if no plan spells one).
    pub fn lexeme_most(&self, w: u32) -> u32 {
        self.lexeme_most[w as usize]
    }

    /// Bytes the cost tables hold on the heap.
    pub fn heap_bytes(&self) -> usize {
        (self.class_of.len() + self.pair.len() + self.nt.len() + self.lexeme_most.len()) * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::Vocabulary;
    use std::sync::Arc;

    /// The rule costs by the plain fixpoint: every equation, in grammar
    /// order, until a whole round changes nothing.
    fn rules_by_rounds(t: &BudgetTables, g: &CompiledGrammar) -> Vec<u32> {
        let cols = t.cols;
        let mut tables = t.clone();
        tables.nt.fill(INF);
        let mut changed = true;
        while changed {
            changed = false;
            let mut relax = |tables: &mut BudgetTables, a: usize, v: Vec<Vec<u32>>| {
                for (p, v) in v.into_iter().enumerate() {
                    for (last, c) in v.into_iter().enumerate() {
                        let slot = &mut tables.nt[(a * cols + p) * cols + last];
                        if c < *slot {
                            *slot = c;
                            changed = true;
                        }
                    }
                }
            };
            let start = |p: usize| {
                let mut v = vec![INF; cols];
                v[p] = 0;
                v
            };
            for set in &g.parse.sets {
                let list = SetState {
                    set,
                    role: SetRole::List,
                    used: smallvec::smallvec![0; set.words()],
                };
                let v = (0..cols)
                    .map(|p| match list.plan() {
                        SetPlan::Sequence(syms) => {
                            (syms.iter()).fold(start(p), |v, &s| forward(&tables, decode(s), &v))
                        }
                        SetPlan::AnyOf(ms) => cheapest(
                            ms.iter().map(|&m| forward(&tables, decode(m), &start(p))),
                            cols,
                        ),
                    })
                    .collect();
                relax(&mut tables, set.list as usize, v);
            }
            for prod in &g.grammar.productions {
                if g.parse.set_role(prod.lhs.0).is_none() {
                    let v = (0..cols)
                        .map(|p| (prod.rhs.iter()).fold(start(p), |v, &s| forward(&tables, s, &v)))
                        .collect();
                    relax(&mut tables, prod.lhs.index(), v);
                }
            }
        }
        tables.nt
    }

    /// [`BudgetTables::apply_forward`] into a fresh row.
    fn forward(tables: &BudgetTables, s: Symbol, v: &[u32]) -> Vec<u32> {
        let mut out = vec![INF; tables.cols];
        tables.apply_forward(s, v, &mut out);
        out
    }

    #[test]
    fn budget_tables_equal_their_plain_constructions() {
        let json_with_keys = r#"
            start: "{" members? "}"
            members: member ("," member)*
            member: KEY ":" value
            value: "{" members? "}" | "[" (value ("," value)*)? "]" | STRING | NUMBER | "true"
            KEY: "\"name\"" | "\"id\"" | "\"tags\""
            STRING: /"[a-z]*"/
            NUMBER: /-?[0-9]+/
        "#;
        let mutual = r#"
            start: a
            a: "x" b | "y"
            b: "(" a ")" c | c
            c: "z" | "w" a
        "#;
        let tokens: Vec<Vec<u8>> = (0u8..128)
            .map(|b| vec![b])
            .chain(["\"name\"", "\"id\"", "{\"", "\":", "true", "12", "xy", "(x"].map(|t| t.into()))
            .collect();
        let vocab = Arc::new(Vocabulary::from_tokens_with_eos(tokens, "</s>"));
        use crate::grammar::{Expr, GrammarBuilder};
        // Members in any order, nested through `val`.
        let mut sets = GrammarBuilder::new();
        let member = |k: &str| Expr::seq(vec![Expr::literal(k), Expr::name("val")]);
        let members = vec![
            (member("\"a\""), true),
            (member("\"b\""), false),
            (member("\"ab\""), false),
        ];
        sets.member_set("set", members, vec![], Expr::literal(","), false);
        let nested = Expr::seq(vec![
            Expr::literal("("),
            Expr::name("set"),
            Expr::literal(")"),
        ]);
        sets.rule("val", vec![Expr::literal("0"), nested.clone()]);
        sets.rule("start", vec![nested]);
        sets.start("start");
        let lark = [crate::lark::builtin::JSON_LARK, json_with_keys, mutual]
            .map(|src| crate::lark::parse_grammar(src).unwrap());
        let mut sets_seen = 0;
        for g in lark.into_iter().chain([sets.build().unwrap()]) {
            assert!(!g.productions.is_empty());
            let g = Arc::new(CompiledGrammar::new(&g).unwrap());
            let b = BoundGrammar::new(g.clone(), vocab.clone());
            let tables = BudgetTables::new(&b);
            assert!(tables.nt.iter().any(|&c| c < INF));
            sets_seen += g.parse.sets.len();
            assert_eq!(tables.nt, rules_by_rounds(&tables, &g));
            // The same tables as from every context's token tables.
            let b = BoundGrammar::new(g.clone(), vocab.clone());
            assert_eq!(tables, BudgetTables::build(&b, false, CostTier::Exact));
            // Upper bounds bound: never below the exact costs, and equal
            // where one token or a literal's bytes decide.
            let upper = BudgetTables::upper(&BoundGrammar::new(g.clone(), vocab.clone()));
            let at_least = |u: &[u32], e: &[u32]| u.iter().zip(e).all(|(u, e)| u >= e);
            assert!(at_least(&upper.pair, &tables.pair) && at_least(&upper.nt, &tables.nt));
            assert!(upper
                .pair
                .iter()
                .zip(&tables.pair)
                .any(|(u, e)| u == e && *e < INF));
        }
        assert_eq!(sets_seen, 1, "the member set grammar keeps its set");
    }
}
