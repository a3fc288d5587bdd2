//! Lexer-state tables built from pieces (root subtrees walked once per
//! lexer behaviour and shared by every schema bound to the vocabulary)
//! equal tables walked node by node, on real schemas and the Llama-3
//! vocabulary: key states, where a schema's own property names run next to
//! "any other key", are what pieces are for. Random grammars and
//! vocabularies check the same in gcd-core's `matcher_vs_reference.rs`.

mod common;

use std::sync::Arc;

use gcd_core::bind::BoundGrammar;
use gcd_schema::{compile, Options, PropertyOrder};

#[test]
fn tables_from_pieces_equal_walked_tables_on_maskbench() {
    let Some((vocab, trie)) = common::llama3() else {
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(common::shared_data().unwrap().join("maskbench"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let options = Options::default().properties(PropertyOrder::Any);
    let (mut schemas, mut states) = (0, 0);
    for f in files.iter().step_by(401) {
        let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
        let Ok(compiled) = compile(&doc["schema"], &options) else {
            continue;
        };
        let bound = BoundGrammar::with_trie(Arc::new(compiled), vocab.clone(), trie.clone());
        // States in key position come first in most schemas; a dozen each
        // keeps the walks (a few ms each unoptimized) short.
        for q in 0..bound.num_states().min(12) as u32 {
            assert_eq!(
                *bound.state(q),
                bound.state_uncached(q),
                "{} state {q}",
                f.display()
            );
            states += 1;
        }
        schemas += 1;
    }
    println!("{schemas} schemas, {states} states compared");
    assert!(
        schemas >= 12 && states >= 100,
        "{schemas} schemas, {states} states"
    );
}
