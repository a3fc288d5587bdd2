//! A parsed regex as a plain byte table, by regex-automata's
//! determinization: the one step every terminal DFA starts from (plain,
//! literal-free regexes in `dfa.rs`, marked regexes and assertion bodies in
//! `lookaround.rs`), with the errors and limits both share.

use regex_automata::dfa::{dense, Automaton, StartKind};
use regex_automata::nfa::thompson::{self, WhichCaptures};
use regex_automata::util::start;
use regex_automata::{Anchored, MatchKind};
use regex_syntax::hir::Hir;

use super::DEAD;

/// Why a terminal's regex could not become a DFA.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DfaError {
    /// The regex does not parse or regex-automata refused it (its size
    /// limits included), its lookarounds are nested, unclosed or too many,
    /// or a table built by hand is inconsistent; the message says which.
    Invalid(String),
    /// The regex matches the empty string, and every lexeme must consume
    /// at least one byte.
    MatchesEmpty,
    /// The regex matches no string at all.
    NeverMatches,
    /// The automaton would need more states than this.
    TooLarge(usize),
}

/// Most states of a product automaton (an intersection's, a lookaround's
/// subset construction); each state is a 1 KiB row.
pub const MAX_PRODUCT_STATES: usize = 20_000;

/// Determinizes a parsed regex and reads out its reachable states as a
/// byte table (state 0 the start; dead-end states kept).
pub(super) fn raw_table(hir: &Hir) -> Result<(Vec<u32>, Vec<bool>), DfaError> {
    table(hir, false)
}

/// [`raw_table`] with the fewest states (regex-automata's minimization):
/// determinization leaves the branches of a long alternation apart where
/// their tails behave alike, and each state is a lexer state to build.
pub(super) fn minimal_table(hir: &Hir) -> Result<(Vec<u32>, Vec<bool>), DfaError> {
    table(hir, true)
}

fn table(hir: &Hir, minimize: bool) -> Result<(Vec<u32>, Vec<bool>), DfaError> {
    crate::counters::count_regex_compilation();
    let mut builder = dense::Builder::new();
    // The determinization limit is what makes a blow-up fail fast: a
    // pattern like `T[0-9a-z_-]{1,255}$` (unanchored: every position may
    // start the run) needs exponentially many states, and at 64 MiB it
    // failed after 17.5 s, at 4 MiB after 1.1 s. 4 MiB refuses no MaskBench
    // schema that compiled before (7,245 of 8,044 either way).
    builder.configure(
        dense::DFA::config()
            .match_kind(MatchKind::All)
            .start_kind(StartKind::Anchored)
            .minimize(minimize)
            .dfa_size_limit(Some(64 << 20))
            .determinize_size_limit(Some(4 << 20)),
    );
    let invalid = |e: &dyn std::fmt::Display| DfaError::Invalid(e.to_string());
    let nfa = thompson::Compiler::new()
        .configure(thompson::Config::new().which_captures(WhichCaptures::None))
        .build_from_hir(hir)
        .map_err(|e| invalid(&e))?;
    let dfa = builder.build_from_nfa(&nfa).map_err(|e| invalid(&e))?;
    let start = dfa
        .start_state(&start::Config::new().anchored(Anchored::Yes))
        .map_err(|e| DfaError::Invalid(e.to_string()))?;
    // Read out the reachable states.
    // One transition per byte class, spread over its bytes.
    let classes = dfa.byte_classes();
    let mut ids = rustc_hash::FxHashMap::default();
    let mut order = vec![start];
    ids.insert(start, 0u32);
    let mut raw_trans = Vec::new();
    let mut by_class = vec![DEAD; classes.alphabet_len()];
    let mut i = 0;
    while i < order.len() {
        let s = order[i];
        for rep in classes.representatives(..) {
            let Some(b) = rep.as_u8() else { continue };
            let n = dfa.next_state(s, b);
            by_class[classes.get(b) as usize] = if dfa.is_dead_state(n) || dfa.is_quit_state(n) {
                DEAD
            } else {
                let next = ids.len() as u32;
                *ids.entry(n).or_insert_with(|| {
                    order.push(n);
                    next
                })
            };
        }
        raw_trans.extend((0..=255u8).map(|b| by_class[classes.get(b) as usize]));
        i += 1;
    }
    let accepting: Vec<bool> = order
        .iter()
        .map(|&s| dfa.is_match_state(dfa.next_eoi_state(s)))
        .collect();
    Ok((raw_trans, accepting))
}
