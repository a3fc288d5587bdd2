//! A grammar compiled to everything that does not depend on a vocabulary.
//!
//! [`CompiledGrammar::new`] runs the pipeline of DESIGN.md up to the static
//! tables: transforms to LL(1), analysis and the LL(1) table, terminal DFAs,
//! the candidate sets the parser can ask the lexer for, the contextual lexer
//! automaton, and the lexical soundness check.
//!
//! The lexical check exists because maximal munch can swallow the start of
//! the next terminal (`start: A A` with `A: /a+/` has no sentence at all).
//! The matcher decides "valid prefix" by "the lexer is alive and every
//! terminal so far was accepted by the parser"; that shortcut is exact iff
//! every lexeme can always be closed before the terminal the parser wants
//! next. [`lexical_hazards`] proves that per adjacent terminal pair, or
//! reports the pair.

use std::collections::HashSet;

use rustc_hash::FxHashMap;

use crate::analysis::{self, Ll1Table, Sets, TermSet};
use crate::completion::ShortestCompletion;
use crate::error::{Diagnostic, DiagnosticKind, Diagnostics, GrammarError};
use crate::grammar::{Grammar, Symbol, TermId};
use crate::lexer::{DfaError, LexerAutomaton, TerminalDfa, DEAD};
use crate::parser::{ParseTables, NT_BIT};
use crate::snapshot;
use crate::transform::{self, TransformReport};

const SNAPSHOT_MAGIC: &[u8; 8] = b"gcd-gram";
/// Bumped whenever a serialized table changes shape.
const SNAPSHOT_VERSION: u32 = 3;

pub use crate::snapshot::SnapshotError;

/// Limits that keep pathological grammars from exhausting memory.
#[derive(Clone, Debug)]
pub struct Config {
    pub max_candidate_sets: usize,
    pub max_lexer_states: usize,
    /// Run left-recursion removal and left factoring first.
    pub transforms: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_candidate_sets: 50_000,
            max_lexer_states: 200_000,
            transforms: true,
        }
    }
}

/// The grammar with its static tables.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CompiledGrammar {
    /// The grammar after transforms.
    pub grammar: Grammar,
    pub report: TransformReport,
    pub sets: Sets,
    pub table: Ll1Table,
    pub parse: ParseTables,
    pub dfas: Vec<TerminalDfa>,
    /// Tie order of terminals (lower wins).
    pub rank: Vec<u32>,
    pub ignored: TermSet,
    /// The candidate sets (acceptable terminals plus ignored ones, no end
    /// marker), indexed like `lexer.starts`.
    pub candidate_sets: Vec<TermSet>,
    pub candidate_index: FxHashMap<TermSet, u32>,
    pub lexer: LexerAutomaton,
    /// Shortest completions in bytes (vocabulary-independent).
    pub completion: ShortestCompletion,
    /// Lexer start state when the stack top alone decides the candidates
    /// (a terminal or a non-nullable rule), by encoded symbol; else `DEAD`.
    start_by_top_t: Vec<u32>,
    start_by_top_n: Vec<u32>,
}

impl CompiledGrammar {
    pub fn new(g: &Grammar) -> Result<CompiledGrammar, GrammarError> {
        Self::with_config(g, &Config::default())
    }

    pub fn with_config(g: &Grammar, config: &Config) -> Result<CompiledGrammar, GrammarError> {
        // Terminal problems are independent of rule problems: report both.
        let dfas = build_dfas(g);
        let (grammar, report) = if config.transforms {
            match transform::make_ll1(g) {
                Ok(x) => x,
                Err(e) => return Err(merge(dfas.err(), e)),
            }
        } else {
            (g.clone(), TransformReport::default())
        };
        let (sets, table) = match analysis::analyze(&grammar) {
            Ok(x) => x,
            Err(e) => return Err(merge(dfas.err(), e)),
        };
        let dfas = dfas?;
        let parse = ParseTables::new(&grammar, &sets, &table);
        let rank = grammar.terminal_rank();
        let n = grammar.terminals.len();
        let mut ignored = TermSet::new(n);
        for (i, t) in grammar.terminals.iter().enumerate() {
            if t.ignored {
                ignored.insert(i);
            }
        }
        let acceptable = acceptable_sets(&grammar, &sets, config.max_candidate_sets)?;
        let mut candidate_sets = Vec::new();
        let mut candidate_index = FxHashMap::default();
        for mut a in acceptable {
            a.remove(n);
            a.union_with(&ignored);
            if !candidate_index.contains_key(&a) {
                candidate_index.insert(a.clone(), candidate_sets.len() as u32);
                candidate_sets.push(a);
            }
        }
        let (lexer, matching) = LexerAutomaton::build_with(
            &dfas,
            &rank,
            &candidate_sets,
            config.max_lexer_states,
            !grammar.member_sets.is_empty(),
        )
        .map_err(|e| {
            GrammarError::single(
                DiagnosticKind::TooLarge,
                None,
                format!(
                    "the contextual lexer needs more than {} states; simplify the terminals",
                    e.0
                ),
            )
        })?;
        let set_problems = member_set_problems(&grammar, &sets, &lexer, &matching);
        if !set_problems.is_empty() {
            return Err(GrammarError::new(set_problems));
        }
        let start_of = |mut set: TermSet| {
            set.union_with(&ignored);
            candidate_index
                .get(&set)
                .map_or(DEAD, |&i| lexer.starts[i as usize])
        };
        let start_by_top_t = (0..n)
            .map(|t| {
                let mut s = TermSet::new(n);
                s.insert(t);
                start_of(s)
            })
            .collect();
        let start_by_top_n = (0..grammar.nonterminals.len())
            .map(|a| {
                if sets.nullable[a] {
                    DEAD
                } else {
                    start_of(sets.first[a].clone())
                }
            })
            .collect();
        let completion = ShortestCompletion::new(&grammar, &dfas);
        let compiled = CompiledGrammar {
            completion,
            start_by_top_t,
            start_by_top_n,
            grammar,
            report,
            sets,
            table,
            parse,
            dfas,
            rank,
            ignored,
            candidate_sets,
            candidate_index,
            lexer,
        };
        let hazards = lexical_hazards(&compiled);
        if !hazards.is_empty() {
            return Err(GrammarError::new(hazards));
        }
        Ok(compiled)
    }

    /// Serializes every table, so that a grammar known at build time (the
    /// `grammar!` macro) is loaded with [`from_bytes`](Self::from_bytes)
    /// instead of compiling regexes and analysing the grammar at run time.
    pub fn to_bytes(&self) -> Vec<u8> {
        snapshot::encode(SNAPSHOT_MAGIC, SNAPSHOT_VERSION, self)
    }

    /// Loads tables written by [`to_bytes`](Self::to_bytes) by the same
    /// version of gcd-core. Data from elsewhere is checked for the indices
    /// the matcher relies on, so a corrupt snapshot is an error, not a panic
    /// later.
    pub fn from_bytes(bytes: &[u8]) -> Result<CompiledGrammar, SnapshotError> {
        let g: CompiledGrammar = snapshot::decode(SNAPSHOT_MAGIC, SNAPSHOT_VERSION, bytes)?;
        g.check_indices().map_err(SnapshotError::Corrupt)?;
        Ok(g)
    }

    /// The size invariants between tables that indexing relies on.
    fn check_indices(&self) -> Result<(), String> {
        let n = self.grammar.terminals.len();
        let nts = self.grammar.nonterminals.len();
        let lx = &self.lexer;
        let states = lx.winner.len();
        let classes = lx.classes.len();
        let checks = [
            (self.dfas.len() == n, "one DFA per terminal"),
            (
                self.completion.rule.len() == nts
                    && self
                        .completion
                        .terminal_state
                        .iter()
                        .map(Vec::len)
                        .eq(self.dfas.iter().map(|d| d.len())),
                "completion tables",
            ),
            (self.rank.len() == n, "one rank per terminal"),
            (self.parse.n_terms == n, "parse table terminal count"),
            (self.parse.table.len() == nts * (n + 1), "parse table size"),
            (
                self.parse.lhs.len() + 1 == self.parse.rhs_off.len(),
                "production offsets",
            ),
            (
                self.parse.first.len() == nts && self.parse.nullable.len() == nts,
                "per-rule sets",
            ),
            (
                self.parse
                    .table
                    .iter()
                    .all(|&p| p == u32::MAX || (p as usize) < self.parse.lhs.len()),
                "parse table productions in range",
            ),
            (
                self.parse
                    .rhs_off
                    .last()
                    .is_some_and(|&e| e as usize == self.parse.rhs.len())
                    && self.parse.rhs_off.windows(2).all(|w| w[0] <= w[1])
                    && (self.parse.start as usize) < nts,
                "production offsets in order",
            ),
            (
                self.parse.rhs.iter().all(|&s| {
                    let i = (s & !NT_BIT) as usize;
                    if s & NT_BIT != 0 {
                        i < nts
                    } else {
                        i < n
                    }
                }),
                "right-hand-side symbols in range",
            ),
            (
                self.parse.set_role.len() == nts
                    && self.parse.member_index.len() == nts
                    && self
                        .parse
                        .set_role
                        .iter()
                        .flatten()
                        .all(|&(i, _)| (i as usize) < self.parse.sets.len())
                    && self.parse.sets.iter().all(|s| {
                        let nt = |x: u32| x & NT_BIT != 0 && ((x & !NT_BIT) as usize) < nts;
                        [s.list, s.more, s.next].iter().all(|&x| (x as usize) < nts)
                            && s.members.iter().chain(&s.repeatable).all(|&m| nt(m))
                            && s.required.len() == s.words()
                            && (s.separator as usize) < n
                    }),
                "member-set tables",
            ),
            (
                lx.trans.len() == states * classes,
                "lexer transition table size",
            ),
            (
                lx.starts.len() == self.candidate_sets.len(),
                "one lexer start per candidate set",
            ),
            (
                self.start_by_top_t.len() == n && self.start_by_top_n.len() == nts,
                "start-state tables",
            ),
            (
                lx.trans
                    .iter()
                    .chain(&lx.starts)
                    .all(|&s| s == DEAD || (s as usize) < states),
                "lexer states in range",
            ),
            (
                lx.classes.class_of.iter().all(|&c| (c as usize) < classes),
                "byte classes in range",
            ),
            (
                self.dfas.iter().all(TerminalDfa::is_consistent),
                "terminal DFA tables",
            ),
        ];
        match checks.iter().find(|(ok, _)| !ok) {
            Some((_, what)) => Err(format!("inconsistent tables: {what}")),
            None => Ok(()),
        }
    }

    /// Lexer start state for the lexeme that begins with parser `stack`.
    pub fn start_state(&self, stack: &[u32]) -> u32 {
        self.start_state_top_down(stack.last().copied(), || stack.iter().rev().copied())
    }

    /// Like [`start_state`](Self::start_state) for a stack given from the top down.
    pub fn start_state_top_down<I: Iterator<Item = u32>>(
        &self,
        top: Option<u32>,
        top_down: impl FnOnce() -> I,
    ) -> u32 {
        if let Some(top) = top {
            let fast = if top & NT_BIT == 0 {
                self.start_by_top_t[top as usize]
            } else {
                self.start_by_top_n[(top & !NT_BIT) as usize]
            };
            if fast != DEAD {
                return fast;
            }
        }
        let mut a = self.parse.candidates_top_down(top_down());
        a.remove(self.parse.n_terms);
        a.union_with(&self.ignored);
        // Every acceptable set the parser can reach was enumerated at compile time.
        match self.candidate_index.get(&a) {
            Some(&i) => self.lexer.starts[i as usize],
            None => DEAD,
        }
    }

    /// Per terminal X: the bytes that extend some lexeme that X wins. A
    /// lexeme of X is sure to end before a byte outside this set.
    pub fn extending_bytes_of_winners(&self) -> Vec<[bool; 256]> {
        let lx = &self.lexer;
        let mut ext = vec![[false; 256]; self.grammar.terminals.len()];
        for s in 0..lx.num_states() as u32 {
            if let Some(w) = lx.winner(s) {
                let e = lx.extending_bytes(s);
                for b in 0..256 {
                    ext[w as usize][b] |= e[b];
                }
            }
        }
        ext
    }

    pub fn is_ignored(&self, t: u32) -> bool {
        self.ignored.contains(t as usize)
    }
}

fn merge(a: Option<GrammarError>, b: GrammarError) -> GrammarError {
    let mut all = a.map(|e| e.diagnostics().to_vec()).unwrap_or_default();
    all.extend(b.diagnostics().iter().cloned());
    GrammarError::new(all)
}

fn build_dfas(g: &Grammar) -> Result<Vec<TerminalDfa>, GrammarError> {
    let mut diags = Diagnostics::default();
    let mut dfas = Vec::new();
    for t in &g.terminals {
        match TerminalDfa::new(&t.pattern.to_regex()) {
            Ok(d) => dfas.push(d),
            Err(DfaError::Invalid(msg)) => diags.error(
                DiagnosticKind::InvalidRegex,
                t.span,
                format!("terminal `{}`: invalid regular expression {}: {msg}", t.name, t.pattern),
            ),
            Err(DfaError::MatchesEmpty) => diags.error(
                DiagnosticKind::EmptyMatch,
                t.span,
                format!(
                    "terminal `{}` ({}) matches the empty string; every lexeme must consume at least one byte",
                    t.name, t.pattern
                ),
            ),
            Err(DfaError::NeverMatches) => diags.error(
                DiagnosticKind::InvalidRegex,
                t.span,
                format!("terminal `{}` ({}) matches nothing", t.name, t.pattern),
            ),
        }
    }
    diags.into_result()?;
    Ok(dfas)
}

/// What makes a [`MemberSet`](crate::grammar::MemberSet) unsound to run.
///
/// The lexer's candidates come from the sets' approximating rules, so they
/// can include terminals the parser then refuses: a used member's first
/// terminal, the separator, what follows the list. The parser's refusal
/// makes such a lexeme a dead end, exactly as if the lexer had not run the
/// terminal, provided that running it never changes where another lexeme
/// ends or which terminal wins: no state where it is alive has another
/// terminal matching. Members must also start with a terminal (a nullable
/// member could not be told to have begun), and the `more` and `next`
/// rules, which carry data on the stack, may be used by the set only.
fn member_set_problems(
    g: &Grammar,
    sets: &Sets,
    lexer: &LexerAutomaton,
    matching: &[Vec<u32>],
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let n = g.terminals.len();
    let mut refusable = TermSet::new(n + 1);
    for (i, set) in g.member_sets.iter().enumerate() {
        let name = &g.nonterminal(set.list).name;
        let all = set
            .members
            .iter()
            .map(|m| m.0)
            .chain(set.repeatable.iter().copied());
        for m in all {
            if sets.nullable[m.index()] {
                out.push(Diagnostic::new(
                    DiagnosticKind::Unsupported,
                    None,
                    format!(
                        "member list `{name}`: member `{}` can be empty",
                        g.nonterminal(m).name
                    ),
                ));
            }
        }
        for (m, _) in &set.members {
            refusable.union_with(&sets.first[m.index()]);
        }
        refusable.insert(set.separator.index());
        refusable.union_with(&sets.follow[set.list.index()]);
        refusable.union_with(&sets.follow[set.more.index()]);
        let foreign = g.productions.iter().find(|p| {
            !set.is_own_rule(p.lhs)
                && p.rhs
                    .iter()
                    .any(|&s| s == Symbol::N(set.more) || s == Symbol::N(set.next))
        });
        if let Some(p) = foreign {
            out.push(Diagnostic::new(
                DiagnosticKind::Unsupported,
                p.span,
                format!(
                    "member list `{name}` (set {i}): its inner rules are used by `{}`",
                    g.nonterminal(p.lhs).name
                ),
            ));
        }
    }
    for (q, alive) in lexer.alive.iter().enumerate() {
        for &x in alive.iter().filter(|&&x| refusable.contains(x as usize)) {
            if let Some(&y) = matching[q].iter().find(|&&y| y != x) {
                out.push(Diagnostic::new(
                    DiagnosticKind::LexicalHazard,
                    None,
                    format!(
                        "a member list may refuse `{}`, but a lexeme where it is still possible also matches `{}`; \
                         refusing it would change how that lexeme ends",
                        g.display_symbol(Symbol::T(TermId(x))),
                        g.display_symbol(Symbol::T(TermId(y)))
                    ),
                ));
                return out;
            }
        }
    }
    out
}

/// Every set of terminals (with the end marker) that the parser can accept
/// at a lexeme start: after each terminal of each production, in each
/// context the production's rule can be expanded in.
fn acceptable_sets(g: &Grammar, sets: &Sets, limit: usize) -> Result<Vec<TermSet>, GrammarError> {
    let n = g.terminals.len();
    let too_large = || {
        GrammarError::single(
            DiagnosticKind::TooLarge,
            None,
            format!("the grammar has more than {limit} distinct parser contexts; simplify it"),
        )
    };
    // ctx[A]: acceptable sets of what lies below A on the stack.
    let mut ctx: Vec<HashSet<TermSet>> = vec![HashSet::new(); g.nonterminals.len()];
    let mut end = TermSet::new(n);
    end.insert(n);
    let mut work = vec![(g.start, end)];
    ctx[g.start.index()].insert(work[0].1.clone());
    let mut total = 1usize;
    let mut out: HashSet<TermSet> = HashSet::new();
    let (mut init, nullable) = sets.first_of_seq(&[Symbol::N(g.start)]);
    if nullable {
        init.insert(n);
    }
    out.insert(init);
    while let Some((a, below)) = work.pop() {
        for (_, p) in g.productions_of(a) {
            for (i, s) in p.rhs.iter().enumerate() {
                let (mut after, nullable) = sets.first_of_seq(&p.rhs[i + 1..]);
                if nullable {
                    after.union_with(&below);
                }
                match s {
                    Symbol::T(_) => {
                        out.insert(after);
                    }
                    Symbol::N(b) => {
                        if ctx[b.index()].insert(after.clone()) {
                            total += 1;
                            if total > limit {
                                return Err(too_large());
                            }
                            work.push((*b, after));
                        }
                    }
                }
            }
        }
    }
    let mut out: Vec<TermSet> = out.into_iter().collect();
    out.sort();
    Ok(out)
}

/// Proves, for every pair of terminals that can be adjacent, that a lexeme
/// of the first can be closed before the second starts (directly or with an
/// ignored terminal between); reports the pairs where it cannot.
pub fn lexical_hazards(c: &CompiledGrammar) -> Vec<Diagnostic> {
    let g = &c.grammar;
    let n = g.terminals.len();
    let lx = &c.lexer;
    let states = lx.num_states();
    let ext_acc = c.extending_bytes_of_winners();
    // reach[s]: terminals that win in some state reachable from s, by one
    // backward search per terminal (a forward fixpoint needs as many rounds
    // as the longest lexeme and dominated compile time on long strings).
    let nc = lx.classes.len();
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); states];
    for s in 0..states {
        for k in 0..nc {
            let t = lx.trans[s * nc + k];
            if t != DEAD && t as usize != s {
                preds[t as usize].push(s as u32);
            }
        }
    }
    for p in &mut preds {
        p.sort_unstable();
        p.dedup();
    }
    let mut reach = vec![TermSet::new(n); states];
    let mut stack = Vec::new();
    for w in 0..n {
        for s in 0..states {
            if lx.winner(s as u32) == Some(w as u32) && !reach[s].contains(w) {
                reach[s].insert(w);
                stack.push(s);
            }
        }
        while let Some(s) = stack.pop() {
            for &p in &preds[s] {
                if !reach[p as usize].contains(w) {
                    reach[p as usize].insert(w);
                    stack.push(p as usize);
                }
            }
        }
    }
    // clean_first[Y]: bytes that start a lexeme Y wins, in every candidate set with Y.
    let mut clean_first: Vec<Option<[bool; 256]>> = vec![None; n];
    for (ci, set) in c.candidate_sets.iter().enumerate() {
        let start = lx.starts[ci];
        for y in set.iter() {
            let mut here = [false; 256];
            for b in 0..=255u8 {
                let t = lx.next(start, b);
                here[b as usize] = t != DEAD && reach[t as usize].contains(y);
            }
            let slot = clean_first[y].get_or_insert([true; 256]);
            for b in 0..256 {
                slot[b] &= here[b];
            }
        }
    }
    let clean = |y: usize| clean_first[y].unwrap_or([false; 256]);
    let closes = |x: usize, y: usize| -> Option<u8> {
        let cf = clean(y);
        (0..=255u8).find(|&b| cf[b as usize] && !ext_acc[x][b as usize])
    };
    let ignored: Vec<usize> = c.ignored.iter().collect();
    let separable = |x: usize, y: usize| {
        closes(x, y).is_some()
            || ignored
                .iter()
                .any(|&w| closes(x, w).is_some() && closes(w, y).is_some())
    };

    let follow = c.sets.follow_of_terminals(g);
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for x in 0..n {
        if c.ignored.contains(x) {
            // An ignored lexeme may be followed by any terminal the parser can take.
            for y in 0..n {
                if !c.ignored.contains(y) && clean_first[y].is_some() {
                    pairs.push((x, y));
                }
            }
        } else {
            pairs.extend(follow[x].iter().filter(|&y| y < n).map(|y| (x, y)));
        }
    }
    let mut diags = Vec::new();
    for (x, y) in pairs {
        if separable(x, y) {
            continue;
        }
        let cf = clean(y);
        let example = (0..=255u8)
            .find(|&b| cf[b as usize])
            .map(|b| format!(" (for example {:?})", b as char));
        let tx = g.terminal(TermId(x as u32));
        let msg = if clean_first[y].is_none() || !cf.iter().any(|&b| b) {
            format!(
                "terminal `{}` can never be lexed where it is needed: a higher-priority terminal always wins its matches",
                g.display_symbol(Symbol::T(TermId(y as u32)))
            )
        } else {
            format!(
                "maximal munch merges `{}` with the `{}` that may follow it: every byte that can start `{}`{} also extends a `{}` lexeme, and no ignored terminal can separate them, so such outputs can never be completed",
                g.display_symbol(Symbol::T(TermId(x as u32))),
                g.display_symbol(Symbol::T(TermId(y as u32))),
                g.display_symbol(Symbol::T(TermId(y as u32))),
                example.unwrap_or_default(),
                g.display_symbol(Symbol::T(TermId(x as u32))),
            )
        };
        diags.push(
            Diagnostic::new(DiagnosticKind::LexicalHazard, tx.span, msg).with_note(
                g.terminal(TermId(y as u32)).span,
                "make the terminals distinguishable at their boundary, or %ignore a separator such as WS",
            ),
        );
    }
    diags
}
