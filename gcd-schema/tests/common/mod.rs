//! Shared helpers: locating ../shared/data and byte-level acceptance.
#![allow(dead_code)]

use std::sync::{Arc, OnceLock};

use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::runtime::matcher::Matcher;
use gcd_core::runtime::recognizer::Recognizer;
use gcd_core::vocab::Vocabulary;

/// `../shared/data` from the workspace root (or `$GCD_SHARED_DATA`), or
/// `None` (tests then skip).
pub use gcd_core::shared_data::root as shared_data;

/// Llama-3's vocabulary and token trie from the shared data, or `None`
/// (tests then skip).
pub fn llama3() -> Option<(Arc<Vocabulary>, Arc<gcd_core::vocab::trie::TokenTrie>)> {
    let path = shared_data()?.join("tokenizers/llama3/tokenizer.json");
    let vocab = Arc::new(Vocabulary::from_tokenizer_json(&path).unwrap());
    let trie = Arc::new(gcd_core::vocab::trie::TokenTrie::new(&vocab));
    Some((vocab, trie))
}

fn byte_vocab() -> Arc<Vocabulary> {
    static V: OnceLock<Arc<Vocabulary>> = OnceLock::new();
    V.get_or_init(|| {
        Arc::new(Vocabulary::from_tokens_with_eos(
            (0..=255u8).map(|b| vec![b]).collect(),
            "<eos>",
        ))
    })
    .clone()
}

/// A byte-level acceptor: the matcher over single-byte tokens, checked
/// against gcd-core's brute-force recognizer.
pub struct Acceptor {
    compiled: Arc<CompiledGrammar>,
    matcher: Matcher,
}

impl Acceptor {
    pub fn new(c: CompiledGrammar) -> Self {
        let compiled = Arc::new(c);
        let matcher = Matcher::new(Arc::new(BoundGrammar::new(compiled.clone(), byte_vocab())));
        Acceptor { compiled, matcher }
    }

    pub fn accepts(&self, text: &str) -> bool {
        let mut m = self.matcher.clone();
        let by_matcher = text.bytes().all(|b| m.advance(b as u32).is_ok()) && m.is_complete();
        let by_reference = Recognizer::new(&self.compiled).is_complete(text.as_bytes());
        assert_eq!(
            by_matcher, by_reference,
            "matcher and reference disagree on {text}"
        );
        by_matcher
    }
}

pub fn accepts(schema: &serde_json::Value, ws: gcd_schema::Whitespace, text: &str) -> bool {
    let c = gcd_schema::compile(
        schema,
        &gcd_schema::Options::default()
            .whitespace(ws)
            .escapes(gcd_schema::Escapes::Any)
            .integers(gcd_schema::Integers::Json),
    )
    .expect("schema compiles");
    Acceptor::new(c).accepts(text)
}

/// Checks every `ok` text is accepted and every `bad` text refused, under
/// JSON whitespace with every escape.
pub fn check(schema: serde_json::Value, ok: &[&str], bad: &[&str]) {
    for t in ok {
        assert!(
            accepts(&schema, gcd_schema::Whitespace::Json, t),
            "{schema} should accept {t}"
        );
    }
    for t in bad {
        assert!(
            !accepts(&schema, gcd_schema::Whitespace::Json, t),
            "{schema} should refuse {t}"
        );
    }
}

/// The error compiling `schema` with the default options gives.
pub fn error(schema: serde_json::Value) -> gcd_schema::SchemaError {
    match gcd_schema::compile(&schema, &gcd_schema::Options::default()) {
        Ok(_) => panic!("{schema} should not compile"),
        Err(e) => e,
    }
}
