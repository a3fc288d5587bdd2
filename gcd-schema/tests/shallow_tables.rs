//! Strings with a short length bound (`maxLength` under Llama-3's 128-byte
//! longest token) count characters in every state, so no two counts behave
//! alike over a whole token. Their tables are shared by the behaviour over
//! 16 bytes, and each state walks the tokens longer than that itself
//! (`bind/shallow.rs`). Such tables, on the real vocabulary, within one
//! schema and across two, must equal tables walked from the state itself.
//! Its own test binary, so the process-wide counters count only this
//! test's tables.

mod common;

use std::sync::Arc;

use gcd_core::bind::BoundGrammar;
use gcd_core::runtime::matcher::Matcher;
use gcd_schema::{compile, Options};

#[test]
fn tables_shared_over_sixteen_bytes_equal_walked_tables() {
    let Some((vocab, trie)) = common::llama3() else {
        return;
    };
    let mut compared = 0;
    for max in [60, 45] {
        let schema = serde_json::json!({"type": "string", "maxLength": max});
        let compiled = compile(&schema, &Options::default()).unwrap();
        let bound = Arc::new(BoundGrammar::with_trie(
            Arc::new(compiled),
            vocab.clone(),
            trie.clone(),
        ));
        // The lexer states along a string of ASCII and two-byte
        // characters: each count once, some mid-character.
        let mut m = Matcher::new(bound.clone());
        m.advance_bytes(b"\"").unwrap();
        let mut states = Vec::new();
        for (i, piece) in ["ab", "é", "c", "dé"].iter().cycle().take(28).enumerate() {
            for (j, &byte) in piece.as_bytes().iter().enumerate() {
                m.advance_bytes(&[byte]).unwrap();
                if (i + j) % 3 == 0 {
                    let (configs, _, _) = m.state_key();
                    states.extend(configs.iter().map(|(_, q)| *q));
                }
            }
        }
        states.sort_unstable();
        states.dedup();
        for q in states {
            assert_eq!(
                *bound.state(q),
                bound.state_uncached(q),
                "maxLength {max}, state {q}"
            );
            compared += 1;
        }
    }
    let shallow = gcd_core::counters::state_tables_shallow();
    eprintln!("{compared} states compared, {shallow} tables from shallow keys");
    assert!(compared > 30, "{compared} states compared");
    // The counts with at least 16 to go share over 16 bytes, in the first
    // schema and more so in the second.
    assert!(
        shallow >= compared / 3,
        "{shallow} of {compared} from shallow keys"
    );
}
