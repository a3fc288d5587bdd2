//! A string state's plain tokens (whole characters other than quotes,
//! backslashes and controls) are added by group, not walked
//! (`bind/plain.rs`). The tables must equal a walk of every node, for
//! strings without bounds, with a `maxLength` (each count steps on), in
//! chunks of a long string (a chunk ends at 64 characters, and longer
//! tokens cross into the next), with a pattern, and as object keys. Its
//! own test binary, so the counter counts this test's walks only.

mod common;

use std::sync::Arc;

use gcd_core::bind::BoundGrammar;
use gcd_core::vocab::trie::TokenTrie;
use gcd_core::vocab::Vocabulary;
use gcd_schema::{compile, Options};

fn compare_all_states(schema: serde_json::Value, vocab: &Arc<Vocabulary>, trie: &Arc<TokenTrie>) {
    let compiled = compile(&schema, &Options::default()).unwrap();
    let bound = BoundGrammar::with_trie(Arc::new(compiled), vocab.clone(), trie.clone());
    let n = bound.num_states() as u32;
    // Every state of small lexers; a stride through large ones.
    let step = (n as usize / 150).max(1);
    for q in (0..n).step_by(step) {
        assert_eq!(
            *bound.state(q),
            bound.state_uncached(q),
            "{schema}, state {q}"
        );
    }
}

#[test]
fn plain_tokens_added_by_group_equal_a_full_walk() {
    let vocab = Arc::new(Vocabulary::o200k_base().unwrap());
    let trie = Arc::new(TokenTrie::new(&vocab));
    let schemas = [
        serde_json::json!({"type": "string"}),
        serde_json::json!({"type": "string", "maxLength": 40}),
        serde_json::json!({"type": "string", "minLength": 5, "maxLength": 20}),
        serde_json::json!({"type": "string", "minLength": 50, "maxLength": 600}),
        serde_json::json!({"type": "string", "pattern": "^[a-z ]+$"}),
        serde_json::json!({"type": "string", "format": "date-time"}),
        serde_json::json!({
            "type": "object",
            "properties": {"name": {"type": "string"}, "n": {"type": "integer"}},
            "additionalProperties": {"type": "string", "maxLength": 12}
        }),
        serde_json::json!({"type": "array", "items": {"enum": ["red", "green", "blue"]}}),
    ];
    for schema in schemas {
        compare_all_states(schema, &vocab, &trie);
    }
    let plain = gcd_core::counters::plain_walks();
    assert!(plain >= 5, "only {plain} walks took plain tokens by group");
}
