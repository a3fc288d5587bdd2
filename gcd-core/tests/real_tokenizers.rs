//! The JSON grammar bound to real vocabularies: corpus documents are
//! accepted token by token, broken ones are rejected, masks agree with a
//! per-token brute force, and sampling only ever yields JSON.

mod common;

use std::sync::Arc;

use common::data::{json_documents, shared_data};
use gcd_core::bind::BoundGrammar;
use gcd_core::runtime::matcher::Matcher;
use gcd_core::runtime::recognizer::Recognizer;
use gcd_core::vocab::Vocabulary;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn vocabularies() -> Vec<Arc<Vocabulary>> {
    let mut out = vec![
        Arc::new(Vocabulary::o200k_base().unwrap()),
        Arc::new(Vocabulary::cl100k_base().unwrap()),
    ];
    if let Some(root) = shared_data() {
        for name in ["llama3", "mistral-7b-v0.1-32k", "gpt2"] {
            let p = root.join("tokenizers").join(name).join("tokenizer.json");
            out.push(Arc::new(Vocabulary::from_tokenizer_json(&p).unwrap()));
        }
    }
    out
}

fn bind_json(vocab: &Arc<Vocabulary>) -> Arc<BoundGrammar> {
    Arc::new(BoundGrammar::new(
        gcd_core::lark::builtin::json_compiled(),
        vocab.clone(),
    ))
}

/// Replays `text`'s canonical tokens, checking each against the mask.
/// `Ok` if every token was allowed and EOS is allowed at the end.
fn replay(bound: &Arc<BoundGrammar>, text: &str) -> Result<(), String> {
    let vocab = &bound.vocab();
    let tokens = vocab.encode(text).unwrap();
    let mut m = Matcher::new(bound.clone());
    let mut mask = m.compute_mask(vocab.len());
    for (i, &t) in tokens.iter().enumerate() {
        m.fill_mask(&mut mask);
        if !mask[t as usize] {
            assert!(
                m.clone().advance(t).is_err(),
                "advance accepts a masked token"
            );
            return Err(format!("token {i}"));
        }
        m.advance(t)
            .map_err(|e| format!("advance refused an allowed token: {e}"))?;
    }
    m.fill_mask(&mut mask);
    let eos = vocab.eos_ids()[0];
    if mask[eos as usize] != m.is_complete() {
        return Err("EOS bit disagrees with is_complete".into());
    }
    if !m.is_complete() {
        return Err("EOS".into());
    }
    Ok(())
}

/// Every document of the corpora (every 8th MaskBench file; `gcd bench
/// --stride 1` replays them all), on Llama-3, the tokenizer MaskBench uses.
#[test]
fn whole_corpus_on_llama3() {
    let Some(root) = shared_data() else { return };
    let docs = json_documents(8);
    let vocab = Arc::new(
        Vocabulary::from_tokenizer_json(root.join("tokenizers/llama3/tokenizer.json")).unwrap(),
    );
    let bound = bind_json(&vocab);
    for d in &docs {
        let text = gcd_cli::pyjson::to_python_json(&d.value);
        if let Err(at) = replay(&bound, &text) {
            panic!("llama3: {} rejected {text:?} at {at}", d.origin);
        }
    }
    eprintln!("llama3: all {} corpus documents accepted", docs.len());
    assert!(docs.len() > 7_000);
}

#[test]
fn corpus_accepted_and_mutations_rejected() {
    let docs = json_documents(40);
    if docs.is_empty() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(11);
    for vocab in vocabularies() {
        let bound = bind_json(&vocab);
        let (mut accepted, mut rejected) = (0, 0);
        for d in docs.iter().step_by(3) {
            for text in [
                serde_json::to_string(&d.value).unwrap(),
                gcd_cli::pyjson::to_python_json(&d.value),
            ] {
                if let Err(at) = replay(&bound, &text) {
                    panic!("{}: {} rejected {text:?} at {at}", vocab.name(), d.origin);
                }
                accepted += 1;
                // A broken copy: serde_json refuses it, so must the matcher.
                let mut broken = text.clone().into_bytes();
                let pos = rng.random_range(0..broken.len());
                broken.insert(pos, b"}],:\"x"[rng.random_range(0..6)]);
                if let Ok(b) = String::from_utf8(broken) {
                    if serde_json::from_str::<serde_json::Value>(&b).is_err() {
                        assert!(
                            replay(&bound, &b).is_err(),
                            "{}: accepted invalid {b:?}",
                            vocab.name()
                        );
                        rejected += 1;
                    }
                }
            }
        }
        eprintln!(
            "{}: {accepted} documents accepted, {rejected} broken ones rejected",
            vocab.name()
        );
        assert!(accepted > 500 && rejected > 300);
    }
}

/// At points along real outputs, every token's mask bit equals running its
/// bytes through the lexer and parser one at a time (no tables), and for a
/// sample of tokens, the reference recognizer's verdict.
#[test]
fn masks_equal_brute_force_on_real_vocabularies() {
    let c = gcd_core::lark::builtin::json_compiled();
    let reference = Recognizer::new(&c);
    let texts = [
        r#"{"name": "Ada", "tags": ["x", "y\n\u00e9"], "n": -1.5e-3, "ok": true, "nil": null}"#,
        "[ {\"a\" : [ ]} , 0 , \"\\ud83d\\ude00 é 漢\" ]",
    ];
    let mut rng = StdRng::seed_from_u64(5);
    for vocab in vocabularies() {
        let bound = bind_json(&vocab);
        let ids: Vec<(u32, Vec<u8>)> = vocab
            .normal_tokens()
            .map(|(i, b)| (i, b.to_vec()))
            .collect();
        let mut steps = 0;
        for text in texts {
            let tokens = vocab.encode(text).unwrap();
            let mut m = Matcher::new(bound.clone());
            for (k, &t) in tokens.iter().enumerate() {
                if k % 3 == 0 {
                    let mask = m.compute_mask(vocab.len());
                    for (id, bytes) in &ids {
                        assert_eq!(
                            mask[*id as usize],
                            m.accepts_bytes(bytes),
                            "{}: token {id} {:?} after {:?}",
                            vocab.name(),
                            String::from_utf8_lossy(bytes),
                            String::from_utf8_lossy(m.output())
                        );
                    }
                    for _ in 0..150 {
                        let (id, bytes) = &ids[rng.random_range(0..ids.len())];
                        let mut s = m.output().to_vec();
                        s.extend_from_slice(bytes);
                        assert_eq!(
                            mask[*id as usize],
                            reference.status(&s).is_viable(),
                            "{}: reference on {:?}",
                            vocab.name(),
                            String::from_utf8_lossy(&s)
                        );
                    }
                    // Specials never match text; ids past the vocabulary stay forbidden.
                    for id in 0..vocab.len() as u32 {
                        if !matches!(vocab.kind(id).unwrap(), gcd_core::vocab::TokenKind::Normal)
                            && !vocab.is_eos(id)
                        {
                            assert!(!mask[id as usize]);
                        }
                    }
                    let wide = m.compute_mask(vocab.len() + 77);
                    assert!(wide[vocab.len()..].not_any());
                    steps += 1;
                }
                m.advance(t).unwrap();
            }
        }
        assert!(steps >= 10);
    }
}

#[test]
fn uniform_sampling_yields_json() {
    for vocab in vocabularies() {
        let bound = bind_json(&vocab);
        let c = gcd_core::lark::builtin::json_compiled();
        let reference = Recognizer::new(&c);
        let mut complete = 0;
        for seed in 0..40u64 {
            let mut rng = StdRng::seed_from_u64(seed);
            let mut m = Matcher::new(bound.clone());
            let eos = vocab.eos_ids()[0];
            for _ in 0..48 {
                let mask = m.compute_mask(vocab.len());
                let allowed: Vec<usize> = mask.iter_ones().collect();
                assert!(
                    !allowed.is_empty(),
                    "dead end after {:?}",
                    String::from_utf8_lossy(m.output())
                );
                // Prefer ending once possible, so some outputs finish.
                let t = if mask[eos as usize] && rng.random_bool(0.5) {
                    eos
                } else {
                    allowed[rng.random_range(0..allowed.len())] as u32
                };
                m.advance(t).unwrap();
                if m.is_finished() {
                    break;
                }
            }
            let out = m.output().to_vec();
            if m.is_finished() {
                // serde_json parses it; the one refusal RFC 8259 allows it is a
                // number beyond f64 (see lark/json.lark), and then the same
                // text with that number replaced must parse.
                if let Err(e) = serde_json::from_slice::<serde_json::Value>(&out) {
                    assert!(
                        e.to_string().starts_with("number out of range"),
                        "{}: sampled {:?} is not JSON: {e}",
                        vocab.name(),
                        String::from_utf8_lossy(&out)
                    );
                    let tamed = regex_automata::meta::Regex::new(r"[eE]\+?[0-9]{3,}").unwrap();
                    let text = String::from_utf8(out.clone()).unwrap();
                    let mut fixed = String::new();
                    let mut last = 0;
                    for m in tamed.find_iter(&text) {
                        fixed.push_str(&text[last..m.start()]);
                        fixed.push_str("e0");
                        last = m.end();
                    }
                    fixed.push_str(&text[last..]);
                    serde_json::from_str::<serde_json::Value>(&fixed)
                        .unwrap_or_else(|e| panic!("{}: {fixed:?}: {e}", vocab.name()));
                }
                complete += 1;
            } else if out.len() < 400 {
                assert!(
                    reference.status(&out).is_viable(),
                    "{}: sampled a dead prefix {:?}",
                    vocab.name(),
                    String::from_utf8_lossy(&out)
                );
            }
        }
        eprintln!("{}: {complete} of 40 samples finished", vocab.name());
        assert!(complete > 0);
    }
}
