//! Inside a string with a length bound the lexer counts characters, and
//! every count with more than the longest token to go behaves alike within
//! a token: such states share one walk's tables (by their behaviour over
//! the trie's depth), within a schema and across schemas. Shared tables
//! must equal tables walked from the state itself. Its own test binary, so
//! the process-wide counters count only this test's walks.

mod common;

use std::sync::Arc;

use gcd_core::bind::BoundGrammar;
use gcd_schema::{compile, Options};

#[test]
fn tables_shared_along_a_length_bound_equal_walked_tables() {
    let Some((vocab, trie)) = common::llama3() else {
        return;
    };
    let mut compared = 0;
    for max in [400, 333] {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"text": {"type": "string", "maxLength": max}},
            "required": ["text"],
            "additionalProperties": false
        });
        let compiled = compile(&schema, &Options::default()).unwrap();
        let bound = BoundGrammar::with_trie(Arc::new(compiled), vocab.clone(), trie.clone());
        let n = bound.num_states() as u32;
        assert!(
            n > 1000,
            "{n} lexer states: the string's characters are not counted"
        );
        // A sample of states. Those with fewer characters to go than a
        // token's bytes behave each their own way (near the bound the
        // lexer's states merge differently), and are walked.
        for q in (0..n).step_by(97) {
            assert_eq!(
                *bound.state(q),
                bound.state_uncached(q),
                "maxLength {max}, state {q}"
            );
            compared += 1;
        }
    }
    let (walked, shared) = (
        gcd_core::counters::state_tables_walked(),
        gcd_core::counters::state_tables_shared(),
    );
    assert!(compared > 40, "{compared}");
    // Without sharing by bounded behaviour none of these is shared (each
    // reaches thousands of states); with it, 64 of 184.
    eprintln!("{compared} compared: {walked} walked, {shared} shared");
    assert!(shared >= compared / 4, "{walked} walked, {shared} shared");
}
