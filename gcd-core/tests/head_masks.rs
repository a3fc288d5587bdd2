//! Head masks (the part of a generalized grammar's mask that the top of the
//! stack decides, kept per binding) give the same masks as walking every
//! configuration's whole stack: on real Go and Java programs token by
//! token, a second time over the same programs (every head then comes from
//! the store), and on random walks. The whole-stack walk itself is checked
//! against the brute-force reference in `matcher_vs_reference.rs`, which
//! runs with head masks on, as every binding does by default.

mod common;

use std::sync::Arc;

use common::data::shared_data;
use common::pair::compare_masks;
use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::vocab::Vocabulary;

/// Removes `//` and `/* */` comments outside literals (SynCode's grammars
/// have no comment terminal), then leading blank lines.
fn strip_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let (mut i, mut quote) = (0, None);
    while i < b.len() {
        let c = b[i];
        if let Some(q) = quote {
            out.push(c);
            if c == b'\\' && i + 1 < b.len() {
                out.push(b[i + 1]);
                i += 2;
                continue;
            }
            if c == q {
                quote = None;
            }
            i += 1;
        } else if matches!(c, b'"' | b'\'' | b'`') {
            quote = Some(c);
            out.push(c);
            i += 1;
        } else if b[i..].starts_with(b"//") {
            i += b[i..]
                .iter()
                .position(|&x| x == b'\n')
                .unwrap_or(b.len() - i);
        } else if b[i..].starts_with(b"/*") {
            i = (b[i + 2..].windows(2).position(|w| w == b"*/")).map_or(b.len(), |k| i + 4 + k);
        } else {
            out.push(c);
            i += 1;
        }
    }
    let s = String::from_utf8(out).unwrap();
    s.trim_start_matches(['\r', '\n', ' ', '\t']).to_string()
}

#[test]
fn code_masks_equal_with_and_without_head_masks() {
    let Some(root) = shared_data() else { return };
    let vocab = Arc::new(
        Vocabulary::from_tokenizer_json(&root.join("tokenizers/llama3/tokenizer.json")).unwrap(),
    );
    let mut masks = 0;
    for (lang, stride) in [("go", 4), ("java", 6)] {
        let path = root.join(format!("grammars/lark-syncode/{lang}_grammar.lark"));
        let g = gcd_core::lark::parse_grammar(&std::fs::read_to_string(path).unwrap()).unwrap();
        let compiled = Arc::new(CompiledGrammar::new(&g).unwrap());
        let heads = Arc::new(BoundGrammar::new(compiled.clone(), vocab.clone()));
        let mut whole = BoundGrammar::new(compiled, vocab.clone());
        whole.set_head_masks(false);
        let pair = [heads, Arc::new(whole)];
        let mut files: Vec<_> = std::fs::read_dir(root.join("code-corpus").join(lang))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == lang))
            .collect();
        files.sort();
        let programs: Vec<Vec<u32>> = (files.iter().step_by(stride))
            .map(|p| {
                vocab
                    .encode(&strip_comments(&std::fs::read_to_string(p).unwrap()))
                    .unwrap()
            })
            .collect();
        // The second round finds every head in the store.
        for round in 0..2 {
            for tokens in &programs {
                masks += compare_masks(&pair, None, tokens, tokens.len().min(400), round);
            }
        }
        for seed in 0..3 {
            masks += compare_masks(&pair, None, &[], 40, seed);
        }
    }
    assert!(masks > 2000, "{masks}");
}

/// An LL(1) grammar's masks also come from head masks (deeper heads where
/// shallower ones leave tokens undecided: `"}]},` closes several levels in
/// one token): JSON documents and schemas, compact and indented, and a
/// document nested deeper than the deepest head, token by token.
#[test]
fn json_masks_equal_with_and_without_head_masks() {
    json_masks_equal_over(21, 10_000);
}

/// Three times the documents (about 3 minutes): `cargo test -p gcd-core
/// --test head_masks -- --ignored`.
#[test]
#[ignore]
fn json_masks_equal_with_and_without_head_masks_more_documents() {
    json_masks_equal_over(7, 30_000);
}

/// Compares on every `doc_step`-th shared JSON document, compact and
/// indented, and asserts more than `min_masks` masks were compared.
fn json_masks_equal_over(doc_step: usize, min_masks: usize) {
    let Some(root) = shared_data() else { return };
    let vocab = Arc::new(
        Vocabulary::from_tokenizer_json(&root.join("tokenizers/llama3/tokenizer.json")).unwrap(),
    );
    let compiled = gcd_core::lark::builtin::json_compiled();
    let mut whole = BoundGrammar::new(compiled.clone(), vocab.clone());
    whole.set_head_masks(false);
    let whole = Arc::new(whole);
    // Shallow heads alone: whole-stack walks complete most masks.
    let mut shallow = BoundGrammar::new(compiled.clone(), vocab.clone());
    shallow.set_deepest_head(2);
    let pairs = [
        [
            Arc::new(BoundGrammar::new(compiled, vocab.clone())),
            whole.clone(),
        ],
        [Arc::new(shallow), whole],
    ];
    let mut nested = serde_json::json!({"leaf": [1, "x", {"y": null}]});
    for depth in 0..24 {
        nested = if depth % 2 == 0 {
            serde_json::json!([nested, {"k": "v"}])
        } else {
            serde_json::json!({"a": nested, "b": [true]})
        };
    }
    let mut texts = vec![
        nested.to_string(),
        serde_json::to_string_pretty(&nested).unwrap(),
    ];
    for doc in common::data::json_documents(40).iter().step_by(doc_step) {
        texts.push(doc.value.to_string());
        texts.push(serde_json::to_string_pretty(&doc.value).unwrap());
    }
    let mut masks = 0;
    for pair in &pairs {
        for text in &texts {
            let tokens = vocab.encode(text).unwrap();
            masks += compare_masks(pair, None, &tokens, tokens.len().min(300), 0);
        }
        for seed in 0..5 {
            masks += compare_masks(pair, None, &[], 60, seed);
        }
    }
    assert!(masks > min_masks, "{masks}");
}
