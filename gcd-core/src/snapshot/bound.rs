//! Snapshots of a [`BoundGrammar`]'s vocabulary-dependent tables, for
//! deployments whose tokenizer is fixed at build time. Only fingerprints of
//! the grammar and the vocabulary are stored; loading checks them and every
//! index the matcher relies on.

use std::sync::{Arc, OnceLock};

use crate::bind::{BoundGrammar, BudgetTables, EndFilter, StateTables, TokenSet};
use crate::codec::{self, SnapshotError};
use crate::compiled::CompiledGrammar;
use crate::vocab::trie::TokenTrie;
use crate::vocab::Vocabulary;

const BOUND_MAGIC: &[u8; 8] = b"gcd-bind";
/// Bumped whenever a serialized table changes shape.
const BOUND_VERSION: u32 = 5;

/// What [`BoundGrammar::to_bytes`] writes.
#[derive(serde::Serialize)]
struct TablesRef<'a> {
    vocab_fingerprint: u64,
    grammar_fingerprint: u64,
    trie: &'a TokenTrie,
    states: Vec<&'a StateTables>,
    end_filters: Vec<&'a EndFilter>,
    /// `None` for a grammar too large for budget tables.
    budget: Option<&'a BudgetTables>,
}

/// What [`BoundGrammar::from_bytes`] reads.
#[derive(serde::Deserialize)]
struct Tables {
    vocab_fingerprint: u64,
    grammar_fingerprint: u64,
    trie: TokenTrie,
    states: Vec<StateTables>,
    end_filters: Vec<EndFilter>,
    budget: Option<BudgetTables>,
}

/// Identifies a compiled grammar by its tables.
fn grammar_fingerprint(g: &CompiledGrammar) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(&g.to_bytes());
    h.finish()
}

/// Checks the indices the matcher relies on in loaded tables.
fn check_indices(grammar: &CompiledGrammar, t: &Tables) -> Result<(), String> {
    let lx = &grammar.lexer;
    let n_states = lx.num_states();
    let n_terms = grammar.grammar.terminals.len();
    let width = t.trie.vocab_len;
    let nodes = t.trie.num_nodes();
    let nc = lx.classes.len();
    let set_ok = |s: &TokenSet| match s {
        TokenSet::Sparse(ids) => ids.iter().all(|&i| (i as usize) < width),
        TokenSet::Dense(bits) => bits.len() == width,
    };
    let state_ok = |s: u32| (s as usize) < n_states;
    let ok = t.states.len() == n_states
        && t.end_filters.iter().all(|f| f.tokens.len() == width)
        && t.states.iter().all(|st| {
            set_ok(&st.within)
                && st
                    .within_by_end
                    .iter()
                    .all(|(e, s)| state_ok(*e) && set_ok(s))
                && st.first_ends.iter().all(|&(_, e)| state_ok(e))
                && (st.end_filter == u32::MAX || (st.end_filter as usize) < t.end_filters.len())
                && st.boundaries.iter().all(|b| {
                    (b.winner as usize) < n_terms
                        && b.nodes.iter().all(|&n| n > 0 && (n as usize) < nodes)
                        && b.class_off.len() == nc + 1
                        && b.class_off.windows(2).all(|w| w[0] <= w[1])
                        && b.class_off[nc] as usize == b.nodes.len()
                })
        })
        && t.budget
            .as_ref()
            .is_none_or(|b| b.check_sizes(n_terms, grammar.grammar.nonterminals.len()));
    if ok {
        Ok(())
    } else {
        Err("inconsistent bound tables".into())
    }
}

impl BoundGrammar {
    /// Serializes the vocabulary-dependent tables (trie, per-state token
    /// tables, budget costs), so that a deployment with a fixed tokenizer
    /// loads them (see [`from_bytes`](Self::from_bytes)) instead of binding.
    /// The grammar and the vocabulary are not included, only their
    /// fingerprints. Builds whatever was not built yet.
    pub fn to_bytes(&self) -> Vec<u8> {
        let tables = TablesRef {
            vocab_fingerprint: self.vocab.fingerprint(),
            grammar_fingerprint: grammar_fingerprint(&self.grammar),
            trie: &self.trie,
            states: self.states(),
            end_filters: self.end_filters(),
            budget: self.budget_available().is_ok().then(|| self.budget()),
        };
        codec::encode(BOUND_MAGIC, BOUND_VERSION, &tables)
    }

    /// Loads tables written by [`to_bytes`](Self::to_bytes) for this same
    /// grammar and vocabulary (checked by fingerprint), and checks the
    /// indices the matcher relies on.
    pub fn from_bytes(
        grammar: Arc<CompiledGrammar>,
        vocab: Arc<Vocabulary>,
        bytes: &[u8],
    ) -> Result<BoundGrammar, SnapshotError> {
        let t: Tables = codec::decode(BOUND_MAGIC, BOUND_VERSION, bytes)?;
        let vocab = crate::bind::vocab_for(&grammar, vocab)
            .map_err(|e| SnapshotError::Mismatch(e.to_string()))?;
        if t.vocab_fingerprint != vocab.fingerprint() {
            return Err(SnapshotError::Mismatch(format!(
                "the tables were bound to another vocabulary than `{}`",
                vocab.name()
            )));
        }
        if t.grammar_fingerprint != grammar_fingerprint(&grammar) {
            return Err(SnapshotError::Mismatch(
                "the tables were bound to another grammar".into(),
            ));
        }
        t.trie.check(vocab.len()).map_err(SnapshotError::Corrupt)?;
        check_indices(&grammar, &t).map_err(SnapshotError::Corrupt)?;
        let n_states = grammar.lexer.num_states();
        let bound = BoundGrammar {
            transparent: crate::bind::transparent_starts(&grammar),
            rooted: Default::default(),
            forests: Default::default(),
            rooted_min_nodes: crate::bind::ROOTED_MIN_NODES,
            piece_min_nodes: crate::bind::PIECE_MIN_NODES,
            chains: OnceLock::new(),
            plain: crate::bind::PlainTokens::of(vocab.fingerprint(), &t.trie),
            chain_exits: Default::default(),
            heads: std::sync::Mutex::default(),
            expansions: std::sync::Mutex::default(),
            head_masks_on: true,
            deepest_head: crate::bind::DEEPEST_HEAD,
            grammar,
            vocab,
            trie: Arc::new(t.trie),
            end_filter_of: t.states.iter().map(|s| s.end_filter).collect(),
            states: t.states.into_iter().map(OnceLock::from).collect(),
            shallow_depth: crate::bind::SHALLOW_DEPTH,
            deep: OnceLock::new(),
            end_filters: t
                .end_filters
                .into_iter()
                .map(|f| (Box::new(f.first_bytes), OnceLock::from(f)))
                .collect(),
            budget: t.budget.map(OnceLock::from).unwrap_or_default(),
            budget_upper: OnceLock::new(),
            previous_classes: OnceLock::new(),
            lexeme_costs: (0..n_states).map(|_| OnceLock::new()).collect(),
            lexeme_upper: (0..n_states).map(|_| OnceLock::new()).collect(),
            single_byte_classes: OnceLock::new(),
            merge_previous: true,
            literal_costs: OnceLock::new(),
        };
        // As when bound: every matcher starts with the grammar's caps.
        (bound.with_checked_caps()).map_err(|e| SnapshotError::Mismatch(e.to_string()))
    }
}
