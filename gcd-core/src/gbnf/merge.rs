//! Which merges keep the language: checked on the compiled grammar, and
//! undone where they might not.
//!
//! Replacing a regular run by one terminal `T` with the same strings can
//! only lose strings, never add any (a lexeme of `T` is a string the run
//! derives). It loses none if, wherever gcd's lexer can be reading a
//! lexeme of `T`, maximal munch ends that lexeme exactly where the run
//! ends in the derivation being followed. Two conditions give that, both
//! checked on the compiled grammar, because its transforms (left
//! factoring) can put two places of the source grammar into one parser
//! context:
//!
//! 1. **No rival at the start.** In every parser context whose candidates
//!    include `T`, no other candidate can start with a byte `T` can start
//!    with. So a lexeme that begins as `T` is `T`'s alone (it cannot be
//!    swallowed into, or swallow, a rival's), and a lexeme of another
//!    terminal never has `T` alive beside it.
//! 2. **Nothing after it extends it.** No first byte of a terminal that
//!    can follow `T` (its FOLLOW set in the compiled grammar) continues a
//!    whole match of `T`. So after a lexeme of `T` that the run derives,
//!    the next byte of the derivation ends it.
//!
//! The other terminals are single-character atoms: disjoint, and a whole
//! character is never a prefix of another, so their lexemes end after one
//! character whatever follows. With both conditions every derivation's
//! terminal sequence is lexed exactly as it is cut, so the language is the
//! GBNF one. A merge that fails either is demoted one [`Level`] and the
//! grammar compiled again; a few rounds without a fixed point give up on
//! merging altogether, which is always exact. The random-grammar property
//! test (`tests/gbnf_props.rs`) checks the result against a
//! character-level recognizer.
//!
//! Under [`Lexing::Dynamic`](crate::Lexing::Dynamic) any merge keeps the
//! language (a lexeme may end wherever the derivation cuts it); the check
//! is made for the default, maximal munch.

use std::collections::{HashMap, HashSet};

use super::atoms::Alphabet;
use super::lower::{lower, Level, Lowered, Plan};
use super::resolve::Resolved;
use crate::compiled::{CompiledGrammar, Config};
use crate::error::{GrammarError, Span};
use crate::grammar::{Grammar, GrammarBuilder, TerminalPattern};
use crate::lexer::{TerminalDfa, DEAD};
use crate::limits::Limits;

/// Rounds of demotion before merging is given up.
const MAX_ROUNDS: usize = 8;

/// How the lowering ended, for tests and `gcd check`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergeReport {
    /// Terminals that stand for more than one character.
    pub merged_terminals: usize,
    /// Compiles it took to find them.
    pub rounds: usize,
    /// Whether merging was given up (every character its own terminal).
    pub gave_up: bool,
}

/// The lowering whose merges pass both checks.
pub(crate) fn lower_exact(
    resolved: &Resolved,
    alphabet: &Alphabet,
    limits: &Limits,
    merging: bool,
) -> Result<(GrammarBuilder, MergeReport), GrammarError> {
    let mut plan = Plan {
        no_merging: !merging,
        ..Plan::default()
    };
    let config = Config::default().limits(limits.clone());
    let mut report = MergeReport::default();
    while !plan.no_merging && report.rounds < MAX_ROUNDS {
        report.rounds += 1;
        let Lowered { builder, merged } = lower(resolved, alphabet, &plan);
        if merged.is_empty() {
            return Ok((builder, report));
        }
        // A merged regex too large to determinize is the merge's fault.
        let mut failing: HashSet<&TerminalPattern> = (merged.keys())
            .filter(|p| matches!(p, TerminalPattern::Regex(r) if TerminalDfa::new(r).is_err()))
            .collect();
        if failing.is_empty() {
            let grammar = builder.build()?;
            match CompiledGrammar::with_config(&grammar, &config) {
                Ok(compiled) => failing = unsound_merges(&compiled, &merged),
                // gcd's own lexical analysis refuses some unsound merges
                // before the checks here run: undo the terminals it names
                // (by their spans), or else every merge. A grammar refused
                // for reasons of its own ends at the character level,
                // which says why.
                Err(e) => {
                    failing = named_merges(&e, &grammar, &merged);
                    if failing.is_empty() {
                        failing = merged.keys().collect();
                    }
                }
            }
            if failing.is_empty() {
                report.merged_terminals = merged.len();
                return Ok((builder, report));
            }
        }
        for p in failing {
            for &run in &merged[p] {
                let level = plan.levels.entry(run).or_insert(Level::Whole);
                *level = level.finer();
            }
        }
    }
    report.gave_up = merging;
    plan.no_merging = true;
    Ok((lower(resolved, alphabet, &plan).builder, report))
}

/// The merged terminals an error's diagnostics point at.
fn named_merges<'p>(
    e: &GrammarError,
    g: &Grammar,
    merged: &'p HashMap<TerminalPattern, Vec<u32>>,
) -> HashSet<&'p TerminalPattern> {
    let spans: HashSet<Span> = (e.diagnostics().iter())
        .flat_map(|d| d.span.into_iter().chain(d.notes.iter().filter_map(|n| n.0)))
        .collect();
    (g.terminals.iter())
        .filter(|t| t.span.is_some_and(|s| spans.contains(&s)))
        .filter_map(|t| merged.get_key_value(&t.pattern).map(|(k, _)| k))
        .collect()
}

/// The merged terminals that fail condition 1 or 2 of the module docs.
fn unsound_merges<'p>(
    compiled: &CompiledGrammar,
    merged: &'p HashMap<TerminalPattern, Vec<u32>>,
) -> HashSet<&'p TerminalPattern> {
    let g = compiled.grammar();
    let n = g.terminals.len();
    let dfas = compiled.dfas();
    let first: Vec<[u64; 4]> = dfas.iter().map(first_bytes).collect();
    let is_merged: Vec<Option<&'p TerminalPattern>> = (g.terminals.iter())
        .map(|t| merged.get_key_value(&t.pattern).map(|(k, _)| k))
        .collect();
    let mut failing = HashSet::new();
    for set in compiled.candidate_sets() {
        let members: Vec<usize> = set.iter().filter(|&t| t < n).collect();
        for &t in &members {
            let Some(p) = is_merged[t] else { continue };
            if (members.iter()).any(|&y| y != t && overlap(&first[t], &first[y])) {
                failing.insert(p);
            }
        }
    }
    let follow = compiled.sets.follow_of_terminals(g);
    for t in 0..n {
        let Some(p) = is_merged[t] else { continue };
        let mut next = [0u64; 4];
        for y in follow[t].iter().filter(|&y| y < n) {
            for w in 0..4 {
                next[w] |= first[y][w];
            }
        }
        if overlap(&next, &extending_bytes(&dfas[t])) {
            failing.insert(p);
        }
    }
    failing
}

fn overlap(a: &[u64; 4], b: &[u64; 4]) -> bool {
    (0..4).any(|w| a[w] & b[w] != 0)
}

/// Bytes a lexeme of the terminal can start with.
fn first_bytes(dfa: &TerminalDfa) -> [u64; 4] {
    let mut out = [0u64; 4];
    for b in 0..=255u8 {
        if dfa.next(0, b) != DEAD {
            out[b as usize / 64] |= 1 << (b % 64);
        }
    }
    out
}

/// Bytes that continue some whole match of the terminal.
fn extending_bytes(dfa: &TerminalDfa) -> [u64; 4] {
    let mut out = [0u64; 4];
    for q in (0..dfa.len() as u32).filter(|&q| dfa.is_accepting(q)) {
        for b in 0..=255u8 {
            if dfa.next(q, b) != DEAD {
                out[b as usize / 64] |= 1 << (b % 64);
            }
        }
    }
    out
}
