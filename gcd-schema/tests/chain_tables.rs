//! The counts of a JSON string with a length bound near its bound take
//! their token tables from the lowest count's (`bind/chains.rs`) instead
//! of walking the trie. On Llama-3's vocabulary (escapes, multi-byte
//! characters, tokens that close the string and open the next key), the
//! derived tables must equal walked ones. Its own test binary, so the
//! process-wide counter counts only this test's derivations.

mod common;

use std::sync::Arc;

use gcd_core::bind::BoundGrammar;
use gcd_schema::{compile, Options};

#[test]
fn derived_count_tables_equal_walked_tables_on_llama3() {
    let Some((vocab, trie)) = common::llama3() else {
        return;
    };
    let mut compared = 0;
    // (50, 400): the counts below 50 too (`max - min` holds a whole token).
    for (min, max) in [(0, 16), (3, 9), (1, 40), (50, 400)] {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": min, "maxLength": max},
                "n": {"type": "integer"}
            },
            "required": ["path", "n"],
            "additionalProperties": false
        });
        let compiled = compile(&schema, &Options::default()).unwrap();
        let bound = BoundGrammar::with_trie(Arc::new(compiled), vocab.clone(), trie.clone());
        // Every third derived state: each comparison walks the whole trie.
        let mut derived = 0;
        for q in 0..bound.num_states() as u32 {
            let before = gcd_core::counters::state_tables_derived();
            let tables = bound.state(q);
            if gcd_core::counters::state_tables_derived() == before {
                continue;
            }
            derived += 1;
            if derived % 3 == 0 {
                assert_eq!(*tables, bound.state_uncached(q), "{min}..={max}, state {q}");
                compared += 1;
            }
        }
        assert!(derived > 10, "{min}..={max}: {derived} derived");
    }
    assert!(compared > 20, "{compared}");
}
