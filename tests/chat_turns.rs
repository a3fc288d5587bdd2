//! Chat-format turns: reasoning, free text and typed calls in the Hermes,
//! Llama 3.1 and Mistral formats, sampled under budgets (always complete,
//! always read back into the calls) and replayed from known text.

mod sampling;
use sampling::sample;

use std::sync::Arc;

use gcd::core::vocab::Vocabulary;
use gcd::{Chat, ChatDecoder, Constrained, ConstraintError};
use rand::rngs::StdRng;
use rand::SeedableRng;
use serde::Deserialize;

#[derive(Constrained, Deserialize, Debug, PartialEq)]
#[serde(tag = "name", content = "arguments", rename_all = "snake_case")]
enum Tool {
    GetWeather {
        #[constrained(max_len = 12)]
        city: String,
    },
    Search {
        query: String,
        #[constrained(range = 1..=5)]
        limit: u8,
    },
}

#[derive(Constrained, Deserialize, Debug, PartialEq)]
#[serde(tag = "name", content = "parameters", rename_all = "snake_case")]
enum LlamaTool {
    Lookup {
        #[constrained(max_len = 8)]
        id: String,
    },
}

#[test]
fn hermes_turns_with_reasoning_and_two_calls_under_budgets() {
    let vocab = Arc::new(Vocabulary::o200k_base().unwrap());
    // o200k has no <|im_end|>; its <|endofprompt|> stands in.
    let chat = Chat::hermes()
        .reasoning(true)
        .end_token("<|endofprompt|>")
        .calls(2, Some(2));
    let least = chat
        .decoder::<Tool>(vocab.clone())
        .unwrap()
        .matcher()
        .min_tokens_to_complete();
    for (i, budget) in [least, least + 10, least + 40].into_iter().enumerate() {
        for seed in 0..3 {
            let mut d = chat
                .decoder::<Tool>(vocab.clone())
                .unwrap()
                .with_budget(budget)
                .unwrap();
            sample(&mut d, &mut StdRng::seed_from_u64(seed * 10 + i as u64));
            let used = d.matcher().tokens().len() - usize::from(d.matcher().is_finished());
            assert!(used <= budget, "{used} > {budget}");
            let text = d.matcher().text();
            assert!(
                text.starts_with("<think>") && text.ends_with("</tool_call><|endofprompt|>"),
                "{text}"
            );
            let turn = d.finish().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(turn.calls.len(), 2, "{text}");
            assert!(turn.reasoning.is_some(), "{text}");
        }
    }
    assert!(chat
        .decoder::<Tool>(vocab)
        .unwrap()
        .with_budget(least - 1)
        .is_err());
}

/// Tokens of `d`'s output that hold a byte of the reasoning or of its
/// `</think>`.
fn reasoning_tokens<T: serde::de::DeserializeOwned>(d: &ChatDecoder<T>) -> usize {
    let m = d.matcher();
    let v = m.bound().vocab();
    let out = m.output();
    let start = "<think>".len();
    let close = (out.windows(8)).position(|w| w == b"</think>").unwrap();
    let end = close + "</think>".len();
    let mut at = 0;
    let mut held = 0;
    for &t in m.tokens() {
        let len = v.token_bytes(t).unwrap().len();
        held += usize::from(at < end && start < at + len);
        at += len;
    }
    held
}

#[test]
fn hermes_reasoning_keeps_its_cap() {
    let vocab = Arc::new(Vocabulary::o200k_base().unwrap());
    let chat = Chat::hermes()
        .reasoning(true)
        .end_token("<|endofprompt|>")
        .calls(1, Some(2));
    let mut at_cap = 0;
    for cap in [4, 12] {
        let capped = chat.clone().max_reasoning_tokens(cap);
        let least = capped
            .decoder::<Tool>(vocab.clone())
            .unwrap()
            .matcher()
            .min_tokens_to_complete();
        // Random tokens from 200k seldom write `</think>`: the cap closes it.
        for (i, budget) in [least + 5, least + 60].into_iter().enumerate() {
            for seed in 0..2 {
                let mut d = capped
                    .decoder::<Tool>(vocab.clone())
                    .unwrap()
                    .with_budget(budget)
                    .unwrap();
                sample(&mut d, &mut StdRng::seed_from_u64(seed * 10 + i as u64));
                let text = d.matcher().text();
                let held = reasoning_tokens(&d);
                assert!(held <= cap, "{held} reasoning tokens, cap {cap}: {text}");
                at_cap += usize::from(held == cap);
                let turn = d.finish().unwrap_or_else(|e| panic!("{text}: {e}"));
                assert!(!turn.calls.is_empty(), "{text}");
            }
        }
    }
    eprintln!("{at_cap} of 8 turns reasoned up to the cap");
    assert!(
        at_cap >= 4,
        "only {at_cap} of 8 turns reasoned up to the cap"
    );
    // Too small for `</think>`, or without reasoning: refused with the reason.
    let err = chat
        .clone()
        .max_reasoning_tokens(0)
        .decoder::<Tool>(vocab.clone());
    assert!(err.is_err_and(|e| e.to_string().contains("too small")));
    let err = Chat::hermes()
        .end_token("<|endofprompt|>")
        .max_reasoning_tokens(8)
        .decoder::<Tool>(vocab);
    assert!(err.is_err_and(|e| e.to_string().contains("needs reasoning")));
}

#[test]
fn hermes_text_replays_into_the_turn() {
    let vocab = Arc::new(Vocabulary::o200k_base().unwrap());
    let mut d = Chat::hermes()
        .reasoning(true)
        .end_token("<|endofprompt|>")
        .decoder::<Tool>(vocab)
        .unwrap();
    // A marker inside a JSON string is text: serde_json reads the call.
    let text = "<think>need weather</think>Checking.<tool_call>\n\
                {\"name\":\"get_weather\",\"arguments\":{\"city\":\"</tool_call>\"}}\n</tool_call>\n<tool_call>\n\
                {\"name\":\"search\",\"arguments\":{\"query\":\"rain\",\"limit\":2}}\n</tool_call><|endofprompt|>";
    let v = d.matcher().bound().vocab().clone();
    for t in v.encode(text).unwrap() {
        d.advance(t)
            .unwrap_or_else(|e| panic!("{:?}: {e}", d.matcher().text()));
    }
    let turn = d.finish().unwrap();
    assert_eq!(turn.reasoning.as_deref(), Some("need weather"));
    assert_eq!(turn.text, "Checking.");
    assert_eq!(
        turn.calls,
        vec![
            Tool::GetWeather {
                city: "</tool_call>".into()
            },
            Tool::Search {
                query: "rain".into(),
                limit: 2
            }
        ]
    );
    // The end token spelled as text is not the end token.
    let mut d = Chat::hermes()
        .end_token("<|endofprompt|>")
        .decoder::<Tool>(v.clone())
        .unwrap();
    let spelled = "<tool_call>\n{\"name\":\"search\",\"arguments\":{\"query\":\"x\",\"limit\":1}}\n</tool_call><|endofprompt|>";
    let ids = Vocabulary::o200k_base().unwrap().encode(spelled).unwrap();
    let refused = ids.iter().any(|&t| d.advance(t).is_err());
    assert!(refused, "the end token's text was accepted as the token");
}

#[test]
fn a_missing_end_token_is_named() {
    let vocab = Arc::new(Vocabulary::o200k_base().unwrap());
    match Chat::hermes().decoder::<Tool>(vocab) {
        Err(ConstraintError::Vocab(e)) => assert!(e.to_string().contains("<|im_end|>"), "{e}"),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("o200k has no <|im_end|>"),
    }
    let e = Chat::llama31()
        .reasoning(true)
        .grammar::<LlamaTool>()
        .unwrap_err();
    assert!(e.to_string().contains("Hermes"), "{e}");
}

#[test]
fn mistral_calls_follow_the_tool_calls_token() {
    // Every byte a token, plus [TOOL_CALLS] and </s> (EOS).
    let mut tokens: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
    tokens.push(b"[TOOL_CALLS]".to_vec());
    tokens.push(b"</s>".to_vec());
    let vocab = Arc::new(Vocabulary::from_tokens_with_special(
        tokens,
        &[256, 257],
        &[257],
    ));
    let chat = Chat::mistral();
    let least = chat
        .decoder::<Tool>(vocab.clone())
        .unwrap()
        .matcher()
        .min_tokens_to_complete();
    for seed in 0..4 {
        let mut d = chat
            .decoder::<Tool>(vocab.clone())
            .unwrap()
            .with_budget(least + 30)
            .unwrap();
        sample(&mut d, &mut StdRng::seed_from_u64(seed));
        let text = d.matcher().text();
        assert!(
            text.starts_with("[TOOL_CALLS][{") && text.ends_with("}]"),
            "{text}"
        );
        assert!(!d.finish().unwrap().calls.is_empty());
    }
}

#[test]
fn llama31_on_the_real_tokenizer() {
    let Some(path) = gcd::core::shared_data::path("tokenizers/llama3/tokenizer.json") else {
        return;
    };
    if !path.exists() {
        eprintln!("skipped: {} not found", path.display());
        return;
    }
    let vocab = Arc::new(Vocabulary::from_tokenizer_json(&path).unwrap());
    let chat = Chat::llama31().calls(1, Some(3));
    let least = chat
        .decoder::<LlamaTool>(vocab.clone())
        .unwrap()
        .matcher()
        .min_tokens_to_complete();
    for seed in 0..3 {
        let mut d = chat
            .decoder::<LlamaTool>(vocab.clone())
            .unwrap()
            .with_budget(least + 12)
            .unwrap();
        sample(&mut d, &mut StdRng::seed_from_u64(seed));
        let text = d.matcher().text();
        assert!(text.ends_with("}<|eot_id|>"), "{text}");
        let turn = d.finish().unwrap();
        assert!((1..=3).contains(&turn.calls.len()), "{text}");
    }
}

#[test]
fn a_turn_whose_end_token_is_the_only_eos_finishes_on_it() {
    // Every byte a token, plus <|im_end|>, the vocabulary's only EOS: named
    // by the format it is grammar text, and the turn ends with it.
    let mut tokens: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
    tokens.push(b"<|im_end|>".to_vec());
    let vocab = Arc::new(Vocabulary::from_tokens_with_special(tokens, &[256], &[256]));
    let mut d = Chat::hermes().decoder::<Tool>(vocab).unwrap();
    let v = d.matcher().bound().vocab().clone();
    assert!(v.eos_ids().is_empty());
    let text = "<tool_call>\n{\"name\":\"search\",\"arguments\":{\"query\":\"q\",\"limit\":3}}\n</tool_call>";
    for b in text.bytes() {
        assert!(!d.is_finished());
        d.advance(u32::from(b)).unwrap();
    }
    assert!(!d.is_finished(), "the end token is still to come");
    d.advance(256).unwrap();
    assert!(d.is_finished());
    assert_eq!(
        d.finish().unwrap().calls,
        vec![Tool::Search {
            query: "q".into(),
            limit: 3
        }]
    );
}

/// A Qwen3-style tokenizer: GPT-2's byte-level BPE with Qwen's added tokens
/// (`<|im_end|>` special; `<think>`, `</think>`, `<tool_call>`,
/// `</tool_call>` ordinary text), written as a `tokenizer.json`.
fn qwen3_style() -> Option<Vocabulary> {
    let path = gcd::core::shared_data::path("tokenizers/gpt2/tokenizer.json")?;
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!("skipped: {} not found", path.display());
        return None;
    };
    let mut json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let added = json["added_tokens"].as_array_mut().unwrap();
    let added_texts = [
        ("<|im_start|>", true),
        ("<|im_end|>", true),
        ("<tool_call>", false),
        ("</tool_call>", false),
        ("<think>", false),
        ("</think>", false),
    ];
    for (k, (text, special)) in added_texts.into_iter().enumerate() {
        added.push(serde_json::json!({
            "id": 50257 + k, "content": text, "single_word": false, "lstrip": false,
            "rstrip": false, "normalized": false, "special": special,
        }));
    }
    let bytes = serde_json::to_vec(&json).unwrap();
    Some(Vocabulary::from_tokenizer_json_bytes(&bytes, "qwen3-style").unwrap())
}

#[test]
fn hermes_on_a_qwen3_style_tokenizer() {
    let Some(vocab) = qwen3_style() else { return };
    let vocab = Arc::new(vocab);
    let chat = Chat::hermes()
        .reasoning(true)
        .calls(1, Some(2))
        .max_reasoning_tokens(10);
    // Qwen's own spelling: each marker one added token, <|im_end|> by id.
    let text = "<think>weather first</think>On it.<tool_call>\n\
                {\"name\":\"get_weather\",\"arguments\":{\"city\":\"Oslo\"}}\n</tool_call><|im_end|>";
    let mut d = chat.decoder::<Tool>(vocab.clone()).unwrap();
    let v = d.matcher().bound().vocab().clone();
    let ids = v.encode(text).unwrap();
    assert!(ids.contains(&50258) && ids.contains(&50259) && ids.contains(&50261));
    for t in ids {
        d.advance(t)
            .unwrap_or_else(|e| panic!("{:?}: {e}", d.matcher().text()));
    }
    let turn = d.finish().unwrap();
    assert_eq!(turn.reasoning.as_deref(), Some("weather first"));
    assert_eq!(
        turn.calls,
        vec![Tool::GetWeather {
            city: "Oslo".into()
        }]
    );
    // The text `<|im_end|>` spelled in ordinary tokens does not end the turn.
    let mut d = chat.decoder::<Tool>(vocab.clone()).unwrap();
    let spelled = v.encode(&text.replace("<|im_end|>", "")).unwrap();
    for t in spelled {
        d.advance(t).unwrap();
    }
    let plain = v.encode("<|").unwrap();
    assert!(plain.iter().all(|&t| t != 50258));
    assert!(d.advance(plain[0]).is_err());
    // Sampled turns under budgets: reasoning within its cap, calls typed.
    let least = chat
        .decoder::<Tool>(vocab.clone())
        .unwrap()
        .matcher()
        .min_tokens_to_complete();
    for (seed, budget) in [(0, least), (1, least + 20), (2, least + 80)] {
        let mut d = chat
            .decoder::<Tool>(vocab.clone())
            .unwrap()
            .with_budget(budget)
            .unwrap();
        sample(&mut d, &mut StdRng::seed_from_u64(seed));
        let text = d.matcher().text();
        assert!(text.ends_with("</tool_call><|im_end|>"), "{text}");
        assert!(reasoning_tokens(&d) <= 10, "{text}");
        let turn = d.finish().unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!((1..=2).contains(&turn.calls.len()), "{text}");
    }
}

/// Each fixed format's turn grammar prints as Lark text (special tokens as
/// `<|name|>`) that reads back through the Lark front end and prints the
/// same. `GCD_PRINT_TURNS=FILE` writes the texts out (to compare formats'
/// grammars across a change).
#[test]
fn turn_grammars_print_as_lark_that_reads_back() {
    let chats = [
        Chat::hermes(),
        Chat::hermes().reasoning(true).calls(2, Some(3)),
        Chat::hermes()
            .end_token("<|endofprompt|>")
            .calls(1, Some(1)),
        Chat::llama31(),
        Chat::llama31().calls(2, None),
        Chat::mistral(),
        Chat::mistral().calls(1, Some(2)),
    ];
    let mut all = String::new();
    for chat in chats {
        let text = chat.grammar::<Tool>().unwrap().grammar().to_string();
        let back = gcd::core::lark::parse_grammar(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(text, back.to_string(), "{chat:?}");
        all.push_str(&format!("# {chat:?}\n{text}\n"));
    }
    assert!(
        all.contains("<|im_end|>") && all.contains("<TOOL_CALLS>"),
        "{all}"
    );
    if let Ok(path) = std::env::var("GCD_PRINT_TURNS") {
        std::fs::write(path, all).unwrap();
    }
}
