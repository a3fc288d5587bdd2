//! A grammar compiled to everything that does not depend on a vocabulary.
//!
//! [`CompiledGrammar::new`] runs the pipeline of ARCHITECTURE.md up to the static
//! tables: unused rules dropped (with a warning), transforms to LL(1),
//! analysis and the prediction table (conflicts kept for generalized
//! parsing unless [`Config::ll1_only`]), terminal DFAs,
//! the candidate sets the parser can ask the lexer for, the contextual lexer
//! automaton, and the lexical soundness check.
//!
//! The lexical check exists because maximal munch can swallow the start of
//! the next terminal (`start: A A` with `A: /a+/` has no sentence at all).
//! The matcher decides "valid prefix" by "the lexer is alive and every
//! terminal so far was accepted by the parser"; that shortcut is exact iff
//! every lexeme can always be closed before the terminal the parser wants
//! next. `analysis::lexical` proves that per adjacent terminal pair, or
//! reports the pair. Under [`Lexing::Dynamic`] a lexeme may end wherever a
//! terminal matches, and there is nothing to prove. This module is the
//! driver: the stages live in their own modules, and snapshots of the
//! result in `snapshot`.

use crate::counters::{timed, Stage};
use rustc_hash::FxHashMap;

pub mod completion;
mod diagnostics;

use crate::analysis::transform::{self, TransformReport};
use crate::analysis::{self, contexts, lexical, tight, Ll1Table, Sets};
use crate::error::{Diagnostic, DiagnosticKind, Diagnostics, GrammarError};
use crate::grammar::TermSet;
use crate::grammar::{special_bytes, Grammar, TerminalPattern, MAX_SPECIAL_TOKENS};
use crate::lexer::automaton::BuildError;
use crate::lexer::{DfaError, LexerAutomaton, TerminalDfa, DEAD};
use crate::limits::{Deadline, Limits};
use crate::parser::{ParseTables, NT_BIT};
use completion::ShortestCompletion;
use diagnostics::{generalization_problems, lookahead_warnings, unused_rule_warnings};

/// How a grammar is compiled. Start from `Config::default()` and set
/// fields or chain the setters.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Config {
    /// What compilation may cost (see [`Limits`]); its
    /// `max_configurations` also bounds the matchers of this grammar.
    pub limits: Limits,
    /// Run left-recursion removal and left factoring first.
    pub transforms: bool,
    /// Refuse a grammar that is not LL(1) after the transforms, reporting
    /// its conflicts, instead of parsing it with forks (ARCHITECTURE.md,
    /// "Beyond LL(1)"). Unused rules are then errors too.
    pub ll1_only: bool,
    /// Where a lexeme may end: maximal munch (the default) or anywhere a
    /// terminal matches (see [`Lexing`]).
    pub lexing: Lexing,
}

/// How the text is cut into lexemes (ARCHITECTURE.md, "Semantics").
///
/// The two define different languages. Under [`MaximalMunch`](Self::MaximalMunch)
/// a lexeme grows while the next byte extends a candidate, and the
/// best-ranked matching candidate wins; a grammar where that rule would
/// swallow the terminal the parser needs next is refused at compile time.
/// Under [`Dynamic`](Self::Dynamic) a lexeme may end at any byte where
/// some candidate matches, as any matching candidate: the text is in the
/// language iff *some* cut into candidate lexemes (ignored ones between)
/// spells a sentence. That is the language of Lark's Earley parser with
/// `lexer='dynamic_complete'`; every maximal-munch sentence is one. It
/// accepts grammars maximal munch refuses (C's `WS` before `"\n"`, CSV's
/// unquoted fields) at the cost of a slower mask: the matcher forks at
/// every possible lexeme end, so no precomputed token table applies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub enum Lexing {
    /// Contextual maximal munch: a lexeme ends when no candidate can take
    /// the next byte. The default.
    #[default]
    MaximalMunch,
    /// A lexeme may end wherever one of its candidates matches (Lark's
    /// `lexer='dynamic_complete'`).
    Dynamic,
}

impl Lexing {
    /// The names [`FromStr`](std::str::FromStr) reads and
    /// [`Display`](std::fmt::Display) writes, in the order error messages
    /// and `gcd --help` list them.
    pub const NAMES: [&'static str; 2] = ["maximal-munch", "dynamic"];

    fn name(self) -> &'static str {
        match self {
            Lexing::MaximalMunch => "maximal-munch",
            Lexing::Dynamic => "dynamic",
        }
    }
}

impl std::str::FromStr for Lexing {
    type Err = crate::UnknownOptionName;

    /// `maximal-munch` or `dynamic`, as `gcd --lexing` and Python's
    /// `lexing=` spell them.
    fn from_str(name: &str) -> Result<Lexing, Self::Err> {
        match name {
            "maximal-munch" => Ok(Lexing::MaximalMunch),
            "dynamic" => Ok(Lexing::Dynamic),
            _ => Err(crate::UnknownOptionName::new(
                "lexing",
                name,
                &Lexing::NAMES,
            )),
        }
    }
}

impl std::fmt::Display for Lexing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            limits: Limits::default(),
            transforms: true,
            ll1_only: false,
            lexing: Lexing::MaximalMunch,
        }
    }
}

impl Config {
    /// Sets [`ll1_only`](Self::ll1_only).
    pub fn ll1_only(mut self, yes: bool) -> Self {
        self.ll1_only = yes;
        self
    }

    /// Sets [`Limits::max_configurations`]: the most parser
    /// configurations a matcher may follow at once on a generalized
    /// grammar; a token that would need more is refused with
    /// [`MatchErrorKind::TooManyConfigurations`](crate::runtime::matcher::MatchErrorKind).
    pub fn max_configurations(mut self, n: usize) -> Self {
        self.limits.max_configurations = n.max(1);
        self
    }

    /// Sets [`limits`](Self::limits).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets [`lexing`](Self::lexing).
    pub fn lexing(mut self, lexing: Lexing) -> Self {
        self.lexing = lexing;
        self
    }
}

/// The grammar with its static tables.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CompiledGrammar {
    /// The grammar after transforms.
    pub(crate) grammar: Grammar,
    pub(crate) report: TransformReport,
    pub(crate) sets: Sets,
    pub(crate) table: Ll1Table,
    pub(crate) parse: ParseTables,
    pub(crate) dfas: Vec<TerminalDfa>,
    /// Tie order of terminals (lower wins).
    pub(crate) rank: Vec<u32>,
    pub(crate) ignored: TermSet,
    /// The candidate sets (acceptable terminals plus ignored ones, no end
    /// marker), indexed like `lexer.starts`.
    pub(crate) candidate_sets: Vec<TermSet>,
    pub(crate) candidate_index: FxHashMap<TermSet, u32>,
    /// Adjacent terminals with no ignored lexeme between (see
    /// [`analysis::tight`]).
    pub(crate) tight_pairs: Vec<(usize, usize)>,
    pub(crate) lexer: LexerAutomaton,
    /// Shortest completions in bytes (vocabulary-independent).
    pub(crate) completion: ShortestCompletion,
    /// Lexer start state when the stack top alone decides the candidates
    /// (a terminal or a non-nullable rule), by encoded symbol; else `DEAD`.
    pub(crate) start_by_top_t: Vec<u32>,
    pub(crate) start_by_top_n: Vec<u32>,
    /// See [`Limits::max_configurations`].
    pub(crate) max_configurations: u32,
    pub(crate) lexing: Lexing,
    /// Under [`Lexing::Dynamic`], per lexer state, every terminal that
    /// matches there (each may end the lexeme) with the bytes that may not
    /// follow the end: an index into `extenders` for an ignored terminal,
    /// whose lexeme only ends at its longest match, as Lark's ignores do;
    /// `u32::MAX` for the others. Empty under maximal munch.
    pub(crate) matching: Vec<Vec<(u32, u32)>>,
    /// Byte sets (256 bits) that extend an ignored lexeme, deduplicated.
    pub(crate) extenders: Vec<[u64; 4]>,
    /// The LL(1) conflicts that generalized parsing resolves (not kept in
    /// snapshots).
    #[serde(skip)]
    pub(crate) conflicts: Notes,
    /// Unused rules, dropped (not kept in snapshots).
    #[serde(skip)]
    pub(crate) warnings: Notes,
}

/// Diagnostics about how a grammar was compiled. They describe the source,
/// not the tables, so two compiled grammars with equal tables are equal
/// whatever their notes (a snapshot drops them).
#[derive(Clone, Debug, Default)]
pub(crate) struct Notes(pub Vec<Diagnostic>);

impl PartialEq for Notes {
    fn eq(&self, _: &Notes) -> bool {
        true
    }
}

impl CompiledGrammar {
    /// Compiles `g` under [`Config::default()`]: transforms on, conflicts
    /// parsed with forks, maximal munch. See [`with_config`](Self::with_config)
    /// for the errors.
    pub fn new(g: &Grammar) -> Result<CompiledGrammar, GrammarError> {
        Self::with_config(g, &Config::default())
    }

    /// Compiles `g` under `config`. On failure the error holds the problems
    /// of the first stage that failed, with terminal problems (a regex that
    /// is invalid, matches nothing or matches the empty string) reported
    /// beside those of the rules: for example a limit or the deadline
    /// exceeded ([`TooLarge`](DiagnosticKind::TooLarge)), unused rules and
    /// conflicts under [`Config::ll1_only`], left recursion the transforms
    /// cannot remove, or lexical hazards under maximal munch.
    pub fn with_config(g: &Grammar, config: &Config) -> Result<CompiledGrammar, GrammarError> {
        let deadline = Deadline::start(&config.limits);
        let too_large = |m: String| GrammarError::single(DiagnosticKind::TooLarge, None, m);
        if g.terminals.len() > config.limits.max_terminals {
            return Err(too_large(format!(
                "the grammar has {} terminals, more than {} (the limit `Limits::max_terminals`)",
                g.terminals.len(),
                config.limits.max_terminals
            )));
        }
        // Terminal problems are independent of rule problems: report both.
        let dfas = timed(Stage::TerminalDfas, || build_dfas(g));
        deadline
            .check("compiling the terminals")
            .map_err(too_large)?;
        let (reachable, unused) = timed(Stage::Rules, || transform::drop_unreachable(g));
        let mut warnings = unused_rule_warnings(g, &unused, config.ll1_only);
        if config.ll1_only && !warnings.is_empty() {
            return Err(merge(dfas.err(), GrammarError::new(warnings)));
        }
        warnings.extend(lookahead_warnings(g, dfas.as_deref().ok()));
        let (grammar, report) = if config.transforms {
            match timed(Stage::Rules, || transform::make_ll1(&reachable)) {
                Ok(x) => x,
                Err(e) => return Err(merge(dfas.err(), e)),
            }
        } else {
            (reachable, TransformReport::default())
        };
        deadline.check("rewriting the rules").map_err(too_large)?;
        let (sets, table, conflicts) =
            match timed(Stage::Analysis, || analysis::analyze_general(&grammar)) {
                Ok(x) => x,
                Err(e) => return Err(merge(dfas.err(), e)),
            };
        if !conflicts.is_empty() {
            if config.ll1_only {
                let hint = "or let the parser fork where one token cannot decide: \
                            `#[gcd(generalized)]` on `grammar!`, or without `Config::ll1_only`";
                let conflicts = conflicts.into_iter().map(|d| d.with_note(None, hint));
                return Err(merge(dfas.err(), GrammarError::new(conflicts.collect())));
            }
            if let Some(e) = generalization_problems(&grammar, &table, &conflicts) {
                return Err(merge(dfas.err(), e));
            }
        }
        let dfas = dfas?;
        let parse = timed(Stage::Analysis, || {
            ParseTables::new(&grammar, &sets, &table)
        });
        let rank = grammar.terminal_rank();
        let n = grammar.terminals.len();
        let mut ignored = TermSet::new(n);
        for (i, t) in grammar.terminals.iter().enumerate() {
            if t.ignored {
                ignored.insert(i);
            }
        }
        let (tight_pairs, tight_problems) =
            timed(Stage::Analysis, || tight::tight_pairs(&grammar, &sets));
        let lost = tight::rewritten_tight_rules(g, &grammar);
        let tight_problems: Vec<Diagnostic> = tight_problems.into_iter().chain(lost).collect();
        if !tight_problems.is_empty() {
            return Err(GrammarError::new(tight_problems));
        }
        let acceptable = timed(Stage::Contexts, || {
            contexts::acceptable_sets(&grammar, &sets, config.limits.max_candidate_sets)
        })?;
        let mut candidate_sets = Vec::new();
        let mut candidate_index = FxHashMap::default();
        let tight_firsts = (grammar.nonterminals.iter().enumerate())
            .filter(|(_, nt)| nt.tight)
            .map(|(a, _)| sets.first[a].clone());
        let with_ignored = acceptable.into_iter().map(|mut a| {
            a.remove(n);
            a.union_with(&ignored);
            a
        });
        for a in with_ignored.chain(tight_firsts) {
            if !candidate_index.contains_key(&a) {
                candidate_index.insert(a.clone(), candidate_sets.len() as u32);
                candidate_sets.push(a);
            }
        }
        deadline
            .check("finding the parser contexts")
            .map_err(too_large)?;
        let (lexer, matching) = timed(Stage::Lexer, || {
            LexerAutomaton::build_with(
                &dfas,
                &rank,
                &candidate_sets,
                &config.limits,
                &deadline,
                !grammar.member_sets.is_empty() || config.lexing == Lexing::Dynamic,
            )
        })
        .map_err(|e| {
            too_large(match e {
                BuildError::TooManyStates(n) => format!(
                    "the contextual lexer needs more than {} states (the limit \
                     `Limits::max_lexer_states`; {n} were built when it stopped); simplify the terminals",
                    config.limits.max_lexer_states
                ),
                BuildError::TooManyMembers(n) => format!(
                    "the contextual lexer's states hold more than {} terminal states in all \
                     (the limit `Limits::max_lexer_members`; {n} when it stopped): many \
                     contexts share long lists of terminals, as an object with thousands of \
                     optional properties in schema order does",
                    config.limits.max_lexer_members
                ),
                BuildError::OutOfTime(m) => m,
            })
        })?;
        if config.lexing == Lexing::Dynamic && !grammar.member_sets.is_empty() {
            return Err(GrammarError::single(
                DiagnosticKind::Unsupported,
                None,
                "members in any order (JSON objects) need maximal-munch lexing: \
                 a member set checks its keys against the one cut of the text into lexemes"
                    .to_string(),
            ));
        }
        let matching_terminals: Vec<Vec<u32>> = (matching.iter())
            .map(|m| m.iter().map(|&(t, _)| t).collect())
            .collect();
        let set_problems = timed(Stage::Hazards, || {
            lexical::member_set_problems(&grammar, &sets, &lexer, &matching_terminals)
        });
        if !set_problems.is_empty() {
            return Err(GrammarError::new(set_problems));
        }
        let start_of = |mut set: TermSet, tight: bool| {
            if !tight {
                set.union_with(&ignored);
            }
            candidate_index
                .get(&set)
                .map_or(DEAD, |&i| lexer.starts[i as usize])
        };
        let start_by_top_t = (0..n)
            .map(|t| {
                let mut s = TermSet::new(n);
                s.insert(t);
                start_of(s, false)
            })
            .collect();
        let start_by_top_n = (0..grammar.nonterminals.len())
            .map(|a| {
                if sets.nullable[a] {
                    DEAD
                } else {
                    start_of(sets.first[a].clone(), grammar.nonterminals[a].tight)
                }
            })
            .collect();
        deadline.check("checking the lexer").map_err(too_large)?;
        let completion = timed(Stage::Completions, || {
            ShortestCompletion::new(&grammar, &dfas)
        });
        deadline
            .check("finding the shortest completions")
            .map_err(too_large)?;
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
            tight_pairs,
            lexer,
            max_configurations: config.limits.max_configurations.clamp(1, u32::MAX as usize) as u32,
            lexing: config.lexing,
            extenders: Vec::new(),
            matching: Vec::new(),
            conflicts: Notes(
                conflicts
                    .into_iter()
                    .map(Diagnostic::into_warning)
                    .collect(),
            ),
            warnings: Notes(warnings),
        };
        let mut compiled = compiled;
        if compiled.lexing == Lexing::Dynamic {
            (compiled.matching, compiled.extenders) = dynamic_ends(&compiled, &matching);
            // Any matching candidate may end a lexeme anywhere it matches,
            // so no lexeme can swallow the next: there is nothing to prove.
            return Ok(compiled);
        }
        let hazards = timed(Stage::Hazards, || {
            lexical::lexical_hazards(
                &compiled.grammar,
                &compiled.sets,
                &compiled.lexer,
                &compiled.candidate_sets,
                &compiled.ignored,
                &compiled.tight_pairs,
            )
        });
        if !hazards.is_empty() {
            let hint = "or let lexemes end wherever a terminal matches, as Lark's Earley parser \
                        does: `gcd check --lexing dynamic`, `Config::lexing(Lexing::Dynamic)`, \
                        `#[gcd(dynamic_lexing)]` on `grammar!`";
            let hazards = hazards.into_iter().map(|d| d.with_note(None, hint));
            return Err(GrammarError::new(hazards.collect()));
        }
        Ok(compiled)
    }

    /// Whether the grammar is LL(1) after the transforms: the matcher then
    /// follows one parser configuration and never forks.
    pub fn is_ll1(&self) -> bool {
        !self.parse.is_generalized()
    }

    /// Checks the parser's worked-out expansions of conflicting cells
    /// against forking (see `parser/expansion.rs`); for tests.
    #[doc(hidden)]
    pub fn check_expansions(&self) -> Result<usize, String> {
        self.parse.check_expansions()
    }

    /// The LL(1) conflicts generalized parsing resolves, as warnings that
    /// name the rule, the alternatives and the lookahead (empty for an
    /// LL(1) grammar, and for one loaded from a snapshot).
    pub fn conflicts(&self) -> &[Diagnostic] {
        &self.conflicts.0
    }

    /// Problems that did not stop compilation: unused rules, and what a
    /// front end reports through [`add_warning`](Self::add_warning).
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings.0
    }

    /// Records a warning for the caller (shown as such whatever `d` says).
    pub fn add_warning(&mut self, d: Diagnostic) {
        self.warnings.0.push(d.into_warning());
    }

    /// How lexemes are cut ([`Config::lexing`]).
    pub fn lexing(&self) -> Lexing {
        self.lexing
    }

    /// The terminals a lexeme may end as in lexer state `q` at the end of
    /// the text: every matching one under [`Lexing::Dynamic`], else the
    /// winner.
    #[cfg(feature = "vocab")]
    pub(crate) fn lexeme_ends(&self, q: u32) -> impl Iterator<Item = u32> + '_ {
        let (dynamic, winner) = match self.lexing {
            Lexing::Dynamic => (&self.matching[q as usize][..], None),
            Lexing::MaximalMunch => (&[][..], self.lexer.winner(q)),
        };
        dynamic.iter().map(|&(t, _)| t).chain(winner)
    }

    /// Under [`Lexing::Dynamic`]: the terminals a lexeme in lexer state `q`
    /// may end as when `byte` follows (an ignored one only if `byte` does
    /// not extend it).
    pub(crate) fn dynamic_ends_before(&self, q: u32, byte: u8) -> impl Iterator<Item = u32> + '_ {
        (self.matching[q as usize].iter())
            .filter(move |&&(_, x)| {
                x == u32::MAX
                    || self.extenders[x as usize][byte as usize / 64] >> (byte % 64) & 1 == 0
            })
            .map(|&(t, _)| t)
    }

    /// The most parser configurations a matcher follows at once.
    pub fn max_configurations(&self) -> usize {
        self.max_configurations as usize
    }

    /// The grammar after transforms (what the tables describe).
    pub fn grammar(&self) -> &Grammar {
        &self.grammar
    }

    /// `self` without the lexeme caps the grammar sets (`[max_tokens=N]`),
    /// which count tokens and do not change the language: for checking
    /// text fed as bytes (`gcd accepts`), or binding to a vocabulary that
    /// could not keep them.
    pub fn without_lexeme_caps(&self) -> CompiledGrammar {
        let mut out = self.clone();
        out.grammar.hints.lexeme_caps.clear();
        out
    }

    /// What the transforms rewrote, for diagnostics and parse trees.
    pub fn report(&self) -> &TransformReport {
        &self.report
    }

    /// One DFA per terminal, indexed by terminal id.
    pub fn dfas(&self) -> &[TerminalDfa] {
        &self.dfas
    }

    /// The contextual lexer automaton.
    pub fn lexer(&self) -> &LexerAutomaton {
        &self.lexer
    }

    /// Shortest completions in bytes (vocabulary-independent).
    pub fn completion(&self) -> &ShortestCompletion {
        &self.completion
    }

    /// Ignored terminals (whitespace, comments).
    pub fn ignored(&self) -> &TermSet {
        &self.ignored
    }

    /// The candidate sets, indexed like the lexer's start states.
    pub fn candidate_sets(&self) -> &[TermSet] {
        &self.candidate_sets
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
        if !top.is_some_and(|s| self.is_tight(s)) {
            a.union_with(&self.ignored);
        }
        // Every acceptable set the parser can reach was enumerated at compile time.
        match self.candidate_index.get(&a) {
            Some(&i) => self.lexer.starts[i as usize],
            None => DEAD,
        }
    }

    /// One byte for one configuration (parser `stack`, lexer state `q` of
    /// the pending lexeme): calls `each` with every configuration after it.
    /// The byte extends the lexeme, or closes it (unless `fresh`: nothing was
    /// read yet) and starts the next one on every derivation that takes
    /// the winner. Under [`Lexing::Dynamic`] it does both: it extends the
    /// lexeme where it can, and closes it as each terminal matching it.
    pub(crate) fn step<S: crate::parser::Stack + Clone>(
        &self,
        stack: S,
        q: u32,
        byte: u8,
        fresh: bool,
        mut each: impl FnMut(S, u32),
    ) {
        let ns = self.lexer.next(q, byte);
        if self.lexing == Lexing::Dynamic {
            if ns != DEAD {
                each(stack.clone(), ns);
            }
            if !fresh {
                for w in self.dynamic_ends_before(q, byte) {
                    self.start_next(stack.clone(), w, byte, &mut each);
                }
            }
            return;
        }
        if ns != DEAD {
            return each(stack, ns);
        }
        let Some(w) = self.lexer.winner(q).filter(|_| !fresh) else {
            return;
        };
        self.start_next(stack, w, byte, &mut each);
    }

    /// Closes the pending lexeme as terminal `w` and starts the next one
    /// with `byte`, on every derivation that takes `w`.
    fn start_next<S: crate::parser::Stack + Clone>(
        &self,
        stack: S,
        w: u32,
        byte: u8,
        each: &mut impl FnMut(S, u32),
    ) {
        let go_on = |stack: S| {
            let q2 = self.start_state_top_down(stack.top_symbol(), || stack.top_down());
            let ns = if q2 == DEAD {
                DEAD
            } else {
                self.lexer.next(q2, byte)
            };
            if ns != DEAD {
                each(stack, ns);
            }
        };
        self.each_shift(stack, w, go_on);
    }

    /// Calls `each` with the parser stack after a lexeme of terminal `w`:
    /// `stack` itself for an ignored terminal, else once per derivation
    /// that takes `w`.
    #[inline]
    pub(crate) fn each_shift<S: crate::parser::Stack + Clone>(
        &self,
        stack: S,
        w: u32,
        each: impl FnMut(S),
    ) {
        let fork = |_| None::<std::sync::Arc<crate::parser::Expansion>>;
        self.each_shift_expanded(stack, w, fork, each)
    }

    /// [`each_shift`](Self::each_shift), with conflicting nonterminals'
    /// derivations from `expansion` (see
    /// [`ParseTables::shift_each_expanded`](crate::parser::ParseTables::shift_each_expanded)).
    #[inline]
    pub(crate) fn each_shift_expanded<S: crate::parser::Stack + Clone, E>(
        &self,
        stack: S,
        w: u32,
        expansion: impl Fn(u32) -> Option<E>,
        mut each: impl FnMut(S),
    ) where
        E: AsRef<crate::parser::Expansion>,
    {
        if self.is_ignored(w) {
            each(stack);
        } else {
            self.parse.shift_each_expanded(stack, w, expansion, each);
        }
    }

    /// Per terminal X: the bytes that extend some lexeme that X wins.
    pub fn extending_bytes_of_winners(&self) -> Vec<[bool; 256]> {
        self.lexer
            .extending_bytes_of_winners(self.grammar.terminals.len())
    }

    /// Whether terminal `t` is ignored between lexemes (whitespace,
    /// comments).
    pub fn is_ignored(&self, t: u32) -> bool {
        self.ignored.contains(t as usize)
    }

    /// Whether stack symbol `s` is a tight rule (no ignored lexeme before
    /// the lexeme it starts).
    pub fn is_tight(&self, s: u32) -> bool {
        s & NT_BIT != 0
            && self
                .grammar
                .nonterminals
                .get((s & !NT_BIT) as usize)
                .is_some_and(|nt| nt.tight)
    }
}

/// Per lexer state, the terminals that may end a lexeme there under
/// dynamic lexing, each with the bytes that may not follow its end (see
/// `CompiledGrammar::matching`), and those byte sets.
fn dynamic_ends(
    g: &CompiledGrammar,
    matching: &[Vec<(u32, u32)>],
) -> (Vec<Vec<(u32, u32)>>, Vec<[u64; 4]>) {
    let mut extenders: Vec<[u64; 4]> = Vec::new();
    let mut index: FxHashMap<[u64; 4], u32> = FxHashMap::default();
    let per_state = (matching.iter())
        .map(|m| {
            (m.iter())
                .map(|&(t, s)| {
                    if !g.is_ignored(t) {
                        return (t, u32::MAX);
                    }
                    let mut bits = [0u64; 4];
                    for b in 0..=255u8 {
                        if g.dfas[t as usize].next(s, b) != DEAD {
                            bits[b as usize / 64] |= 1 << (b % 64);
                        }
                    }
                    let next = extenders.len() as u32;
                    let x = *index.entry(bits).or_insert_with(|| {
                        extenders.push(bits);
                        next
                    });
                    (t, x)
                })
                .collect()
        })
        .collect();
    (per_state, extenders)
}

fn merge(a: Option<GrammarError>, b: GrammarError) -> GrammarError {
    let mut all = a.map(|e| e.diagnostics().to_vec()).unwrap_or_default();
    all.extend(b.diagnostics().iter().cloned());
    GrammarError::new(all)
}

fn build_dfas(g: &Grammar) -> Result<Vec<TerminalDfa>, GrammarError> {
    let mut diags = Diagnostics::default();
    let mut dfas = Vec::new();
    let mut specials = 0usize;
    for t in &g.terminals {
        let dfa = match &t.pattern {
            TerminalPattern::Intersection(rs) => TerminalDfa::intersection(rs),
            TerminalPattern::Combination(c) => TerminalDfa::combination(c),
            TerminalPattern::Special(token) => {
                let Ok(k) = u16::try_from(specials) else {
                    diags.error(
                        DiagnosticKind::TooLarge,
                        t.span,
                        format!(
                            "special token {token}: a grammar may name at most {MAX_SPECIAL_TOKENS} special tokens"
                        ),
                    );
                    continue;
                };
                specials += 1;
                TerminalDfa::literal_bytes(&special_bytes(k))
            }
            p => TerminalDfa::new(&p.to_regex()),
        };
        match dfa {
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
            Err(DfaError::TooLarge(n)) => diags.error(
                DiagnosticKind::TooLarge,
                t.span,
                format!("terminal `{}` ({}) needs more than {n} DFA states", t.name, t.pattern),
            ),
        }
    }
    diags.into_result()?;
    Ok(dfas)
}
