//! The built-in JSON grammar accepts every document of the shared corpora
//! and agrees with serde_json on which byte strings are JSON.

mod common;

use std::sync::Arc;

use common::data::json_documents;
use gcd_core::bind::BoundGrammar;
use gcd_core::runtime::matcher::Matcher;
use gcd_core::runtime::recognizer::{Recognizer, Status};
use gcd_core::vocab::Vocabulary;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A matcher over single-byte tokens: a fast byte-level recognizer.
fn byte_matcher() -> Matcher {
    let vocab = Vocabulary::from_tokens_with_eos((0..=255u8).map(|b| vec![b]).collect(), "<eos>");
    Matcher::new(Arc::new(BoundGrammar::new(
        gcd_core::lark::builtin::json_compiled(),
        Arc::new(vocab),
    )))
}

fn matcher_complete(m: &Matcher, bytes: &[u8]) -> bool {
    let mut m = m.clone();
    bytes.iter().all(|&b| m.advance(b as u32).is_ok()) && m.is_complete()
}

/// serde_json's verdict, counting as JSON the texts it refuses only for
/// limits RFC 8259 leaves to implementations (number range, nesting depth).
fn serde_says_json(bytes: &[u8]) -> bool {
    match serde_json::from_slice::<serde_json::Value>(bytes) {
        Ok(_) => true,
        Err(e) => {
            let msg = e.to_string();
            msg.starts_with("number out of range") || msg.starts_with("recursion limit exceeded")
        }
    }
}

#[test]
fn corpus_documents_are_accepted() {
    let docs = json_documents(4);
    if docs.is_empty() {
        return;
    }
    let c = gcd_core::lark::builtin::json_compiled();
    let reference = Recognizer::new(&c);
    let m = byte_matcher();
    let mut checked = 0;
    for d in &docs {
        for text in [
            serde_json::to_string(&d.value).unwrap(),
            serde_json::to_string_pretty(&d.value).unwrap(),
        ] {
            assert!(
                matcher_complete(&m, text.as_bytes()),
                "{}: rejected {text}",
                d.origin
            );
            if text.len() < 600 {
                assert_eq!(
                    reference.status(text.as_bytes()),
                    Status::Complete,
                    "{}: {text}",
                    d.origin
                );
            }
            checked += 1;
        }
    }
    eprintln!(
        "{checked} serializations of {} corpus documents accepted",
        docs.len()
    );
    assert!(checked > 10_000);
}

/// Mutated documents: the grammar and serde_json agree on every one.
#[test]
fn agrees_with_serde_json_on_mutations() {
    let docs = json_documents(16);
    if docs.is_empty() {
        return;
    }
    let m = byte_matcher();
    let c = gcd_core::lark::builtin::json_compiled();
    let reference = Recognizer::new(&c);
    let mut rng = StdRng::seed_from_u64(7);
    let pieces: &[&[u8]] = &[
        b"{",
        b"}",
        b"[",
        b"]",
        b",",
        b":",
        b"\"",
        b"\\",
        b" ",
        b"\n",
        b"0",
        b"-",
        b"e",
        b".",
        b"1",
        b"t",
        b"n",
        b"\\u",
        b"\\ud800",
        b"\xff",
        b"\x01",
        "é".as_bytes(),
        b"true",
        b"null",
    ];
    let (mut valid, mut invalid) = (0, 0);
    for d in docs.iter() {
        let text = serde_json::to_vec(&d.value).unwrap();
        for _ in 0..6 {
            let mut t = text.clone();
            let pos = rng.random_range(0..=t.len());
            match rng.random_range(0..4) {
                0 if !t.is_empty() => {
                    t.remove(pos.min(t.len() - 1));
                }
                1 => {
                    let p = pieces[rng.random_range(0..pieces.len())];
                    t.splice(pos..pos, p.iter().copied());
                }
                2 if !t.is_empty() => {
                    let p = pieces[rng.random_range(0..pieces.len())];
                    let end = (pos + 1).min(t.len());
                    t.splice(pos.min(t.len() - 1)..end, p.iter().copied());
                }
                _ => t.truncate(pos),
            }
            let expected = serde_says_json(&t);
            assert_eq!(
                matcher_complete(&m, &t),
                expected,
                "{}: {:?}",
                d.origin,
                String::from_utf8_lossy(&t)
            );
            if t.len() < 300 {
                assert_eq!(
                    reference.is_complete(&t),
                    expected,
                    "reference, {}: {:?}",
                    d.origin,
                    String::from_utf8_lossy(&t)
                );
            }
            if expected {
                valid += 1;
            } else {
                invalid += 1;
            }
        }
    }
    eprintln!("mutations: {valid} still JSON, {invalid} not");
    assert!(invalid > 1000 && valid > 100);
}

#[test]
fn edge_cases() {
    let m = byte_matcher();
    for (text, json) in [
        ("\"\\ud83d\\ude00\"", true),
        ("\"\\ud83d\"", false),
        ("\"\\udc00\"", false),
        ("-0", true),
        ("1E+2", true),
        ("01", false),
        ("1.", false),
        (".5", false),
        ("\"\t\"", false),
        (" \r\n\t[ ] ", true),
        ("\u{a0}[]", false),
        ("[1 2]", false),
        ("{\"a\":1,}", false),
        ("", false),
    ] {
        assert_eq!(matcher_complete(&m, text.as_bytes()), json, "{text:?}");
        assert_eq!(serde_says_json(text.as_bytes()), json, "serde on {text:?}");
    }
}
