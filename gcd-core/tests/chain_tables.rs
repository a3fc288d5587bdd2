//! Inside a string with a length bound, the token tables of a count near
//! the bound are derived from the lowest count's (`bind/chains.rs`), not
//! walked. Derived tables must equal the tables a walk from the state
//! itself gives, on vocabularies whose tokens cross the string's quotes,
//! escapes and multi-byte characters at every count. Its own test binary,
//! so the process-wide counter counts only this test's derivations.

use std::sync::Arc;

use gcd_core::{BoundGrammar, CompiledGrammar, Vocabulary};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Pieces that start, continue and end the strings below.
const PIECES: [&str; 12] = [
    "a", "b", "c", "\"", "\\\"", "\\", "é", "\u{e9}a", "[", ",", "]", "x",
];

fn vocabulary(rng: &mut StdRng) -> Vocabulary {
    let mut tokens: Vec<Vec<u8>> = PIECES.iter().map(|p| p.as_bytes().to_vec()).collect();
    for _ in 0..400 {
        let parts = rng.random_range(2..=7);
        let mut t = Vec::new();
        for _ in 0..parts {
            t.extend_from_slice(PIECES[rng.random_range(0..PIECES.len())].as_bytes());
        }
        // A token may also end inside the two bytes of `é`.
        if rng.random_bool(0.1) {
            t.push(0xc3);
        }
        tokens.push(t);
    }
    tokens.sort();
    tokens.dedup();
    Vocabulary::from_tokens_with_eos(tokens, "<eos>")
}

#[test]
fn derived_count_tables_equal_walked_tables() {
    let mut rng = StdRng::seed_from_u64(0x5eed_c0de);
    let mut compared = 0;
    // Below a lower bound, counts are derived only when `max - min` holds
    // the longest token (14 bytes here): (12, 40) and (20, 60).
    for (min, max) in [(0, 9), (2, 12), (5, 8), (0, 20), (12, 40), (20, 60)] {
        let source = format!(
            r#"start: "[" S ("," S)* "]"
            S: /"([a-c]|é|\\"){{{min},{max}}}"/"#
        );
        let grammar = gcd_core::lark::parse_grammar(&source).expect("the grammar parses");
        let compiled = Arc::new(CompiledGrammar::new(&grammar).expect("the grammar compiles"));
        for _ in 0..3 {
            let vocab = Arc::new(vocabulary(&mut rng));
            let bound = BoundGrammar::new(compiled.clone(), vocab);
            for q in 0..bound.num_states() as u32 {
                let before = gcd_core::counters::state_tables_derived();
                let tables = bound.state(q);
                if gcd_core::counters::state_tables_derived() > before {
                    compared += 1;
                }
                assert_eq!(
                    *tables,
                    bound.state_uncached(q),
                    "S{{{min},{max}}}, state {q}"
                );
            }
        }
    }
    // Counts near either bound, over six bounds and three vocabularies.
    assert!(compared >= 200, "{compared} derived");
}
