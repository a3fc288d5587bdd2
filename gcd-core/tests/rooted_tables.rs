//! Rooted tables (the precomputed tokens of a large trie subtree entered in
//! a lexer state) and tables that read through ignored lexemes give the
//! same masks as walking every subtree, on real vocabularies, where
//! subtrees are large enough for them to apply. The walk itself is checked
//! against the brute-force reference in `matcher_vs_reference.rs`.

mod common;

use std::sync::Arc;

use common::data::{json_documents, shared_data};
use common::pair::compare_masks;
use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::vocab::Vocabulary;

/// Two bindings of one grammar: rooted tables on (the default) and off.
fn both(grammar: &Arc<CompiledGrammar>, vocab: &Arc<Vocabulary>) -> [Arc<BoundGrammar>; 2] {
    let rooted = BoundGrammar::new(grammar.clone(), vocab.clone());
    let mut walked = BoundGrammar::new(grammar.clone(), vocab.clone());
    walked.set_rooted_tables(false);
    [Arc::new(rooted), Arc::new(walked)]
}

#[test]
fn json_masks_equal_with_and_without_rooted_tables() {
    let vocab = Arc::new(Vocabulary::o200k_base().unwrap());
    let pair = both(&gcd_core::lark::builtin::json_compiled(), &vocab);
    // The documents come from the shared data (none without it); the
    // random walks run everywhere, and each side must reach its own count
    // (253 document and 284 walk masks when last run with the data).
    let docs = json_documents(97);
    let mut doc_masks = 0;
    for (i, doc) in docs.iter().take(12).enumerate() {
        // Pretty-printed: indentation after newlines, then keys.
        let text = serde_json::to_string_pretty(&doc.value).unwrap();
        let tokens = vocab.encode(&text).unwrap();
        doc_masks += compare_masks(&pair, None, &tokens, tokens.len().min(120), i as u64);
    }
    let mut walk_masks = 0;
    for seed in 0..4 {
        walk_masks += compare_masks(&pair, None, &[], 40, seed);
        walk_masks += compare_masks(&pair, Some(30), &[], 40, seed);
    }
    assert!(
        walk_masks > 200,
        "random walks compared only {walk_masks} masks"
    );
    if !docs.is_empty() {
        assert!(doc_masks > 200, "documents compared only {doc_masks} masks");
    }
}

/// Go and Java (generalized, with indentation after newlines: the case
/// rooted tables were made for), random walks with and without a budget.
#[test]
fn code_grammar_masks_equal_with_and_without_rooted_tables() {
    let Some(root) = shared_data() else { return };
    let vocab = Arc::new(
        Vocabulary::from_tokenizer_json(&root.join("tokenizers/llama3/tokenizer.json")).unwrap(),
    );
    let mut masks = 0;
    for name in ["go_grammar.lark", "java_grammar.lark"] {
        let text = std::fs::read_to_string(root.join("grammars/lark-syncode").join(name)).unwrap();
        let g = gcd_core::lark::parse_grammar(&text).unwrap();
        let compiled = Arc::new(CompiledGrammar::new(&g).unwrap());
        let pair = both(&compiled, &vocab);
        for seed in 0..3 {
            masks += compare_masks(&pair, None, &[], 30, seed);
            masks += compare_masks(&pair, Some(60), &[], 30, seed);
        }
        // Real code: the first statements of a program, token by token.
        let program = match name {
            "go_grammar.lark" => "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tx := 1\n\tif x > 0 {\n\t\tfmt.Println(x)\n\t}\n}\n",
            _ => "class A {\n    int f(int x) {\n        return x + 1;\n    }\n}\n",
        };
        let tokens = vocab.encode(program).unwrap();
        masks += compare_masks(&pair, None, &tokens, tokens.len(), 0);
    }
    assert!(masks > 300, "{masks}");
}

/// A string cut into fixed-size chunks (as gcd-schema spells a long
/// `maxLength`): near a chunk's end most tokens cross into the next chunk,
/// so its boundary holds thousands of trie nodes, and from its second
/// crossing a mask reads them from one forest table. The same masks as
/// walking every node, through many chunks, with and without a budget.
#[test]
fn chunked_string_masks_equal_with_and_without_forest_tables() {
    let vocab = Arc::new(Vocabulary::o200k_base().unwrap());
    let text = "start: \"\\\"\" body\nbody: CHUNK body | LAST\nCHUNK: /[a-zA-Z0-9+\\/=]{16}/\nLAST: /[a-zA-Z0-9+\\/=]{0,15}\"/\n";
    let g = gcd_core::lark::parse_grammar(text).unwrap();
    let compiled = Arc::new(CompiledGrammar::new(&g).unwrap());
    let pair = both(&compiled, &vocab);
    let body: String = (0..12)
        .map(|i| format!("MIIC{i}pDCCAYwCCQDU+pQ3ZUD30jANBgkqhkiG9w0BAQsFADAU"))
        .collect();
    let tokens = vocab.encode(&format!("\"{body}\"")).unwrap();
    let mut masks = compare_masks(&pair, None, &tokens, tokens.len(), 0);
    masks += compare_masks(&pair, Some(tokens.len() + 8), &tokens, tokens.len(), 0);
    for seed in 0..2 {
        masks += compare_masks(&pair, None, &[], 120, seed);
    }
    assert!(masks > 400, "{masks}");
}
