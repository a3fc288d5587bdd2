//! Process-wide counts of the expensive build steps.
//!
//! A grammar precompiled by `grammar!` is supposed to skip regex compilation
//! and LL(1) analysis at run time; these counters let a test prove it rather
//! than trust it.

use std::sync::atomic::{AtomicUsize, Ordering};

static REGEX_COMPILATIONS: AtomicUsize = AtomicUsize::new(0);
static LL1_ANALYSES: AtomicUsize = AtomicUsize::new(0);

/// How many terminal regexes have been compiled to DFAs in this process.
pub fn regex_compilations() -> usize {
    REGEX_COMPILATIONS.load(Ordering::Relaxed)
}

/// How many times LL(1) analysis (FIRST/FOLLOW and the table) has run.
pub fn ll1_analyses() -> usize {
    LL1_ANALYSES.load(Ordering::Relaxed)
}

pub(crate) fn count_regex_compilation() {
    REGEX_COMPILATIONS.fetch_add(1, Ordering::Relaxed);
}

pub(crate) fn count_ll1_analysis() {
    LL1_ANALYSES.fetch_add(1, Ordering::Relaxed);
}

static STATE_TABLES_WALKED: AtomicUsize = AtomicUsize::new(0);
static STATE_TABLES_SHARED: AtomicUsize = AtomicUsize::new(0);

/// How many lexer states' token tables were built by walking the trie.
pub fn state_tables_walked() -> usize {
    STATE_TABLES_WALKED.load(Ordering::Relaxed)
}

/// How many lexer states' token tables came from another grammar's, through
/// the process-wide cache.
pub fn state_tables_shared() -> usize {
    STATE_TABLES_SHARED.load(Ordering::Relaxed)
}

static STATE_TABLES_SHALLOW: AtomicUsize = AtomicUsize::new(0);

/// How many of the [shared](state_tables_shared) tables held only the
/// tokens up to a bounded depth, the longer ones walked for the state.
pub fn state_tables_shallow() -> usize {
    STATE_TABLES_SHALLOW.load(Ordering::Relaxed)
}

static STATE_TABLES_DERIVED: AtomicUsize = AtomicUsize::new(0);

/// How many lexer states' token tables were derived from another count of
/// the same length-bounded string, without a walk.
pub fn state_tables_derived() -> usize {
    STATE_TABLES_DERIVED.load(Ordering::Relaxed)
}

static PLAIN_WALKS: AtomicUsize = AtomicUsize::new(0);

/// How many walks of the trie took a string's plain tokens by group
/// instead of node by node (see `bind/plain.rs`).
pub fn plain_walks() -> usize {
    PLAIN_WALKS.load(Ordering::Relaxed)
}

#[cfg(feature = "vocab")]
pub(crate) fn count_plain_walk() {
    PLAIN_WALKS.fetch_add(1, Ordering::Relaxed);
}

#[cfg(feature = "vocab")]
pub(crate) fn count_derived_table() {
    STATE_TABLES_DERIVED.fetch_add(1, Ordering::Relaxed);
}

#[cfg(feature = "vocab")]
pub(crate) fn count_shallow_table() {
    STATE_TABLES_SHALLOW.fetch_add(1, Ordering::Relaxed);
}

#[cfg(feature = "vocab")]
pub(crate) fn count_state_table(shared: bool) {
    let c = if shared {
        &STATE_TABLES_SHARED
    } else {
        &STATE_TABLES_WALKED
    };
    c.fetch_add(1, Ordering::Relaxed);
}

/// The stages between a grammar's source and its first mask, timed per
/// thread so that a benchmark can say where time to first mask goes
/// without a profiler (`gcd maskbench --timings`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Stage {
    /// A front end (gcd-schema) building the grammar IR, less the terminal
    /// DFAs it builds on the way (those count as `TerminalDfas`).
    SchemaToIr,
    /// Determinizing terminal regexes the DFA cache did not hold.
    TerminalDfas,
    /// Dropping unreachable rules and the LL(1) transforms.
    Rules,
    /// FIRST/FOLLOW, the prediction table, parse tables and tight pairs.
    Analysis,
    /// Enumerating the parser contexts a lexeme starts in.
    Contexts,
    /// The contextual lexer: the product of each context's DFAs.
    Lexer,
    /// The lexical hazard proofs and member-set checks.
    Hazards,
    /// Shortest completions in bytes.
    Completions,
    /// Binding a compiled grammar to a vocabulary (without its tables).
    Bind,
    /// Lexer states' token tables: walked, or taken from the shared cache.
    StateTables,
    /// The budget's tables and in-lexeme cost searches.
    BudgetTables,
}

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 11] = [
        Stage::SchemaToIr,
        Stage::TerminalDfas,
        Stage::Rules,
        Stage::Analysis,
        Stage::Contexts,
        Stage::Lexer,
        Stage::Hazards,
        Stage::Completions,
        Stage::Bind,
        Stage::StateTables,
        Stage::BudgetTables,
    ];

    /// A short name for tables of figures.
    pub fn name(self) -> &'static str {
        match self {
            Stage::SchemaToIr => "schema_to_ir",
            Stage::TerminalDfas => "terminal_dfas",
            Stage::Rules => "rules",
            Stage::Analysis => "analysis",
            Stage::Contexts => "contexts",
            Stage::Lexer => "lexer",
            Stage::Hazards => "hazards",
            Stage::Completions => "completions",
            Stage::Bind => "bind",
            Stage::StateTables => "state_tables",
            Stage::BudgetTables => "budget_tables",
        }
    }
}

/// Per stage, the time this thread spent in it so far (indexed like
/// [`Stage::ALL`]).
pub type StageTimes = [std::time::Duration; Stage::ALL.len()];

/// The running stage and the time each one took. A stage entered inside
/// another pauses it, so the times are exclusive and add up.
struct StageClock {
    totals: StageTimes,
    running: Option<(Stage, std::time::Instant)>,
}

thread_local! {
    static CLOCK: std::cell::RefCell<StageClock> = const {
        std::cell::RefCell::new(StageClock {
            totals: [std::time::Duration::ZERO; Stage::ALL.len()],
            running: None,
        })
    };
}

/// The times this thread has spent in each stage.
pub fn stage_times() -> StageTimes {
    CLOCK.with(|c| c.borrow().totals)
}

/// Runs `f`, counting its time (less that of stages entered inside it)
/// as `stage`'s.
pub fn timed<R>(stage: Stage, f: impl FnOnce() -> R) -> R {
    let switch = |to: Option<Stage>| {
        CLOCK.with(|c| {
            let mut c = c.borrow_mut();
            let now = std::time::Instant::now();
            let was = c.running.take();
            if let Some((s, t0)) = was {
                c.totals[s as usize] += now - t0;
            }
            c.running = to.map(|s| (s, now));
            was.map(|(s, _)| s)
        })
    };
    let parent = switch(Some(stage));
    let r = f();
    switch(parent);
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// A stage entered inside another pauses it: each gets at least its
    /// own time, and the two add up to no more than the whole.
    #[test]
    fn nested_stages_are_timed_apart() {
        let before = stage_times();
        let wall = Instant::now();
        timed(Stage::Rules, || {
            std::thread::sleep(Duration::from_millis(3));
            timed(Stage::Lexer, || {
                std::thread::sleep(Duration::from_millis(3))
            });
        });
        let wall = wall.elapsed();
        let after = stage_times();
        let spent = |s: Stage| after[s as usize] - before[s as usize];
        assert!(spent(Stage::Rules) >= Duration::from_millis(3));
        assert!(spent(Stage::Lexer) >= Duration::from_millis(3));
        assert!(spent(Stage::Rules) + spent(Stage::Lexer) <= wall);
        assert_eq!(spent(Stage::Hazards), Duration::ZERO);
    }
}
