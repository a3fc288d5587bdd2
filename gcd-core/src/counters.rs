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

#[cfg(feature = "vocab")]
pub(crate) fn count_state_table(shared: bool) {
    let c = if shared {
        &STATE_TABLES_SHARED
    } else {
        &STATE_TABLES_WALKED
    };
    c.fetch_add(1, Ordering::Relaxed);
}
