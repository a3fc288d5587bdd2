//! Model-family turns (`Chat::qwen3_coder()`, `Chat::harmony()`, …)
//! checked against XGrammar 0.2.9 itself: gcd samples turns under token
//! budgets (random allowed tokens of the embedded o200k vocabulary, so
//! text, several calls and budgets that close them), with reasoning on
//! and off, every `tool_choice` and parallel calls on and off; then
//!
//! - XGrammar's own tag for the family, from `get_model_structural_tag`
//!   with the same tools and options, accepts every turn;
//! - the oracle script reads each turn back with its own reader (the
//!   markers split by hand, arguments by Python's `json` and
//!   `xml.etree`), and its calls are gcd's;
//! - every turn fits its budget.
//!
//! Tools come both ways: the typed `Tool` enum (the tools array XGrammar
//! gets is written by hand to match it) and an OpenAI `tools` array
//! (`Chat::tools_decoder`). CI runs a seeded sample of each family's
//! combinations; the whole product is `family_sweep` (`--ignored`). Each
//! family also replays a turn written as its model card shows one.

#[path = "../gcd-schema/tests/oracle/client.rs"]
mod client;
mod sampling;
use sampling::sample;

use std::sync::Arc;

use gcd::chat::{Reasoning, ToolChoice};
use gcd::core::json::Whitespace;
use gcd::core::vocab::Vocabulary;
use gcd::{Chat, ChatDecoder, Constrained};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Constrained, Deserialize, Debug, PartialEq, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Unit {
    C,
    F,
}

#[derive(Constrained, Deserialize, Debug, PartialEq)]
#[serde(tag = "name", content = "arguments", rename_all = "snake_case")]
enum Tool {
    GetWeather {
        #[constrained(max_len = 12)]
        location: String,
        days: Option<u8>,
        unit: Option<Unit>,
    },
    Search {
        q: String,
        top: bool,
    },
}

/// The OpenAI tools `Tool` stands for, in a style's terms: JSON writes
/// `None` as `null` (so XGrammar's schema takes it), the XML styles leave
/// the parameter out.
fn typed_tools(xml: bool) -> Value {
    let nullable = |t: Value| if xml { t } else { json!([t, "null"]) };
    let mut unit = json!({"enum": ["c", "f"]});
    if xml {
        unit["type"] = json!("string");
    } else {
        unit = json!({"anyOf": [{"type": "string", "enum": ["c", "f"]}, {"type": "null"}]});
    }
    json!([
        {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
            "properties": {"location": {"type": "string", "maxLength": 12},
                "days": {"type": nullable(json!("integer")), "minimum": 0, "maximum": 255},
                "unit": unit},
            "required": ["location"]}}},
        {"type": "function", "function": {"name": "search", "parameters": {"type": "object",
            "properties": {"q": {"type": "string"}, "top": {"type": "boolean"}},
            "required": ["q", "top"]}}},
    ])
}

/// Tools as a server gets them.
fn openai_tools() -> Value {
    json!([
        {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
            "properties": {"location": {"type": "string"}, "days": {"type": "integer"},
                           "unit": {"type": "string", "enum": ["c", "f"]}},
            "required": ["location"]}}},
        {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object",
            "properties": {"id": {"type": "integer", "minimum": 0, "maximum": 99}},
            "required": ["id"]}}},
    ])
}

const FAMILIES: [&str; 11] = [
    "llama",
    "qwen_3",
    "qwen_3_5",
    "qwen_3_coder",
    "mimo",
    "glm_4_7",
    "kimi",
    "deepseek_r1",
    "deepseek_v3_1",
    "minimax",
    "harmony",
];

fn xml(family: &str) -> bool {
    matches!(
        family,
        "qwen_3_5" | "qwen_3_coder" | "mimo" | "glm_4_7" | "minimax"
    )
}

/// One combination of options.
#[derive(Clone, Debug)]
struct Case {
    family: &'static str,
    typed: bool,
    choice: u8,
    reasoning: bool,
    parallel: bool,
}

impl Case {
    fn choice(&self) -> (ToolChoice, Value) {
        match self.choice {
            0 => (ToolChoice::None, json!("none")),
            1 => (ToolChoice::Auto, json!("auto")),
            2 => (ToolChoice::Required, json!("required")),
            _ => (
                ToolChoice::Named("get_weather".into()),
                json!({"type": "function", "function": {"name": "get_weather"}}),
            ),
        }
    }

    fn chat(&self) -> Chat {
        let mode = if self.reasoning {
            Reasoning::Enabled
        } else {
            Reasoning::Disabled
        };
        let mut chat = Chat::family(self.family)
            .unwrap()
            .reasoning_mode(mode)
            .tool_choice(self.choice().0)
            .parallel_tool_calls(self.parallel);
        if self.choice % 2 == 1 {
            // Any whitespace inside a call's JSON, as XGrammar takes it.
            chat = chat.whitespace(Whitespace::Within);
        }
        chat
    }

    fn tools(&self) -> Value {
        if self.typed {
            typed_tools(xml(self.family))
        } else {
            openai_tools()
        }
    }

    fn spec(&self) -> Value {
        json!({"family": self.family, "tools": self.tools(), "tool_choice": self.choice().1,
            "reasoning": if self.reasoning { "enabled" } else { "disabled" },
            "parallel": self.parallel})
    }
}

#[derive(Default)]
struct Tally {
    turns: usize,
    calls: usize,
    disagreements: Vec<String>,
}

/// One turn of `d` under a budget a little or well above the fewest
/// tokens, sampled from random allowed tokens: its text, tokens, budget
/// and calls as `read` writes them.
fn budgeted_turn<T: serde::de::DeserializeOwned>(
    d: ChatDecoder<T>,
    rng: &mut StdRng,
    case: &Case,
    read: impl Fn(&T) -> Value,
) -> (String, usize, usize, Vec<Value>) {
    let budget = d.matcher().min_tokens_to_complete() + rng.random_range(0..40);
    let mut d = d.with_budget(budget).unwrap();
    sample(&mut d, rng);
    let turn = d
        .finish()
        .unwrap_or_else(|e| panic!("{case:?} {:?}: {e}", d.matcher().text()));
    let read = turn.calls.iter().map(read).collect();
    (d.matcher().text(), d.matcher().tokens().len(), budget, read)
}

/// Samples `n` turns of `case` and checks them with XGrammar.
fn check(
    xg: &mut client::XGrammar,
    vocab: &Arc<Vocabulary>,
    case: &Case,
    n: usize,
    rng: &mut StdRng,
    t: &mut Tally,
) {
    let chat = case.chat();
    let mut texts = Vec::new();
    let mut calls = Vec::new();
    for _ in 0..n {
        // A fresh decoder each time; a budget a little or well above the
        // fewest tokens.
        let (text, used, budget, read) = if case.typed {
            let d = chat.decoder::<Tool>(vocab.clone()).unwrap();
            budgeted_turn(d, rng, case, |c| json!(format!("{c:?}")))
        } else {
            let d = chat.tools_decoder(&case.tools(), vocab.clone()).unwrap();
            budgeted_turn(d, rng, case, |c| json!([c["name"], c["arguments"]]))
        };
        assert!(
            used <= budget + 1,
            "{case:?}: {used} tokens, budget {budget}: {text:?}"
        );
        texts.push(text);
        calls.push(read);
    }
    let hex: Vec<String> = (texts.iter())
        .map(|s| s.bytes().map(|b| format!("{b:02x}")).collect())
        .collect();
    let answer = xg.ask(&json!({"model_tag": case.spec(), "strings": hex}));
    assert!(answer.get("error").is_none(), "{case:?}: {answer}");
    for (i, text) in texts.iter().enumerate() {
        t.turns += 1;
        t.calls += calls[i].len();
        if answer["verdicts"][i] != json!(true) {
            t.disagreements
                .push(format!("{case:?}: XGrammar refuses {text:?}"));
            continue;
        }
        let theirs = &answer["parsed"][i];
        let theirs: Vec<Value> = if case.typed {
            // Their reading as `Tool` values, compared through Debug.
            (theirs.as_array().cloned().unwrap_or_default().iter())
                .map(|c| {
                    let call = json!({"name": c[0], "arguments": c[1]});
                    match serde_json::from_value::<Tool>(call) {
                        Ok(tool) => json!(format!("{tool:?}")),
                        Err(e) => json!(format!("not a Tool: {e}: {c}")),
                    }
                })
                .collect()
        } else {
            theirs.as_array().cloned().unwrap_or_default()
        };
        if theirs != calls[i] {
            t.disagreements.push(format!(
                "{case:?}: {text:?}: gcd read {:?}, the oracle {:?}",
                calls[i], answer["parsed"][i]
            ));
        }
    }
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for family in FAMILIES {
        for typed in [true, false] {
            for choice in 0..4 {
                for reasoning in [false, true] {
                    for parallel in [true, false] {
                        out.push(Case {
                            family,
                            typed,
                            choice,
                            reasoning,
                            parallel,
                        });
                    }
                }
            }
        }
    }
    out
}

fn run(per_family: Option<usize>, samples: usize) -> Option<Tally> {
    let mut xg = client::XGrammar::start()?;
    let vocab = Arc::new(Vocabulary::o200k_base().unwrap());
    let mut rng = StdRng::seed_from_u64(42);
    let mut all = cases();
    if let Some(k) = per_family {
        // A seeded sample: `k` combinations per family.
        let mut picked = Vec::new();
        for family in FAMILIES {
            let mut list: Vec<Case> = all.iter().filter(|c| c.family == family).cloned().collect();
            for _ in 0..k {
                picked.push(list.swap_remove(rng.random_range(0..list.len())));
            }
        }
        all = picked;
    }
    let mut t = Tally::default();
    for case in &all {
        check(&mut xg, &vocab, case, samples, &mut rng, &mut t);
    }
    eprintln!(
        "{} combinations, {} turns, {} calls, {} disagreements",
        all.len(),
        t.turns,
        t.calls,
        t.disagreements.len()
    );
    for d in t.disagreements.iter().take(12) {
        eprintln!("--- {d}");
    }
    Some(t)
}

#[test]
fn family_turns_agree_with_xgrammar() {
    let Some(t) = run(Some(4), 2) else { return };
    assert!(t.disagreements.is_empty(), "see the disagreements above");
    assert!(
        t.turns >= 60 && t.calls >= 20,
        "{} turns, {} calls",
        t.turns,
        t.calls
    );
}

/// Every family × tools typed and untyped × tool choice × reasoning ×
/// parallel calls: `cargo test --release -p gcd --test chat_families -- --ignored`.
#[test]
#[ignore]
fn family_sweep() {
    let Some(t) = run(None, 3) else { return };
    assert!(t.disagreements.is_empty(), "see the disagreements above");
}

/// A turn of each family written as its model card shows one (tool
/// choice `auto`), replayed token by token into a typed turn.
#[test]
fn documented_turns_replay_into_typed_turns() {
    let vocab = Arc::new(Vocabulary::o200k_base().unwrap());
    let examples: [(&str, bool, &str); 11] = [
        ("llama", false, r#"{"name": "get_weather", "parameters": {"location": "Paris", "days": 3}}"#),
        ("qwen_3", true, "Let me check.</think>\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Paris\", \"days\": 3}}\n</tool_call>"),
        ("qwen_3_5", false, "<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"),
        ("qwen_3_coder", false, "I'll look it up.\n<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"),
        ("mimo", false, "<tool_call><function=get_weather><parameter=location>Paris</parameter><parameter=days>3</parameter></function></tool_call>"),
        ("glm_4_7", false, "<tool_call>get_weather\n<arg_key>location</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>"),
        ("kimi", false, "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"location\": \"Paris\", \"days\": 3}<|tool_call_end|><|tool_calls_section_end|>"),
        ("deepseek_r1", false, "<\u{ff5c}tool\u{2581}calls\u{2581}begin\u{ff5c}><\u{ff5c}tool\u{2581}call\u{2581}begin\u{ff5c}>function<\u{ff5c}tool\u{2581}sep\u{ff5c}>get_weather\n```json\n{\"location\": \"Paris\", \"days\": 3}\n```<\u{ff5c}tool\u{2581}call\u{2581}end\u{ff5c}><\u{ff5c}tool\u{2581}calls\u{2581}end\u{ff5c}>"),
        ("deepseek_v3_1", false, "<\u{ff5c}tool\u{2581}calls\u{2581}begin\u{ff5c}><\u{ff5c}tool\u{2581}call\u{2581}begin\u{ff5c}>get_weather<\u{ff5c}tool\u{2581}sep\u{ff5c}>{\"location\": \"Paris\", \"days\": 3}<\u{ff5c}tool\u{2581}call\u{2581}end\u{ff5c}><\u{ff5c}tool\u{2581}calls\u{2581}end\u{ff5c}>"),
        ("minimax", true, "Checking the weather.</think>\n\n<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"location\">Paris</parameter>\n<parameter name=\"days\">3</parameter>\n</invoke>\n</minimax:tool_call>"),
        ("harmony", true, "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather<|constrain|>json<|message|>{\"location\": \"Paris\", \"days\": 3}<|call|>"),
    ];
    for (family, reasoning, text) in examples {
        let mut d = Chat::family(family)
            .unwrap()
            .reasoning(reasoning)
            .whitespace(Whitespace::Within)
            .decoder::<Tool>(vocab.clone())
            .unwrap();
        for t in vocab.encode(text).unwrap() {
            d.advance(t)
                .unwrap_or_else(|e| panic!("{family}: {:?}: {e}", d.matcher().text()));
        }
        let turn = d.finish().unwrap_or_else(|e| panic!("{family}: {e}"));
        let paris = Tool::GetWeather {
            location: "Paris".into(),
            days: Some(3),
            unit: None,
        };
        assert_eq!(turn.calls, vec![paris], "{family}");
        assert_eq!(turn.reasoning.is_some(), reasoning, "{family}");
        // The same turn read as JSON values, with plain string arguments.
        let mut d = Chat::family(family)
            .unwrap()
            .reasoning(reasoning)
            .tools_decoder(&openai_tools(), vocab.clone())
            .unwrap();
        for t in vocab.encode(text).unwrap() {
            d.advance(t)
                .unwrap_or_else(|e| panic!("{family}: {:?}: {e}", d.matcher().text()));
        }
        let turn = d.finish().unwrap_or_else(|e| panic!("{family}: {e}"));
        let call = json!({"name": "get_weather", "arguments": {"location": "Paris", "days": 3}});
        assert_eq!(turn.calls, vec![call], "{family}");
    }
}

/// The reasoning cap holds in a family whose grammar lexes statically
/// (JSON arguments); where the grammar needs dynamic lexing (XML
/// arguments) the cap is refused by name, and so are options a format
/// does not have.
#[test]
fn family_reasoning_caps_and_refusals() {
    let vocab = Arc::new(Vocabulary::o200k_base().unwrap());
    let mut rng = StdRng::seed_from_u64(3);
    for family in ["qwen_3", "deepseek_v3_1", "harmony"] {
        let chat = Chat::family(family)
            .unwrap()
            .reasoning(true)
            .tool_choice(ToolChoice::Required)
            .max_reasoning_tokens(6);
        for _ in 0..2 {
            let d = chat.decoder::<Tool>(vocab.clone()).unwrap();
            let budget = d.matcher().min_tokens_to_complete() + 60;
            let mut d = d.with_budget(budget).unwrap();
            sample(&mut d, &mut rng);
            let text = d.matcher().text();
            let turn = d
                .finish()
                .unwrap_or_else(|e| panic!("{family} {text:?}: {e}"));
            if family != "harmony" {
                // The tokens holding a byte of the reasoning or of `</think>`
                // (the turn opens inside the reasoning).
                let end = text.find("</think>").unwrap() + "</think>".len();
                let mut at = 0;
                let mut held = 0;
                for &t in d.matcher().tokens() {
                    held += usize::from(at < end);
                    at += vocab.token_bytes(t).unwrap().len();
                }
                assert!(held <= 6, "{family}: {held} reasoning tokens in {text:?}");
            }
            // XGrammar's Harmony tag takes a turn of messages only, even
            // under `required`; the others need a call.
            assert!(
                family == "harmony" || !turn.calls.is_empty(),
                "{family}: {text:?}"
            );
        }
    }
    let e = Chat::qwen3_coder()
        .reasoning(true)
        .max_reasoning_tokens(6)
        .decoder::<Tool>(vocab.clone())
        .err()
        .unwrap();
    assert!(e.to_string().contains("dynamic lexing"), "{e}");
    let e = Chat::llama()
        .max_reasoning_tokens(6)
        .reasoning(true)
        .decoder::<Tool>(vocab.clone());
    assert!(e.is_err());
    assert!(Chat::family("gemma_4").is_err_and(|e| e.to_string().contains("gemma_4")));
    let e = Chat::hermes()
        .tool_choice(ToolChoice::None)
        .decoder::<Tool>(vocab.clone());
    assert!(e.is_err_and(|e| e.to_string().contains("tool_choice")));
    let e = Chat::qwen3().calls(2, None).decoder::<Tool>(vocab.clone());
    assert!(e.is_err_and(|e| e.to_string().contains("calls(min, max)")));
    let e = Chat::qwen3()
        .tool_choice(ToolChoice::Named("nope".into()))
        .decoder::<Tool>(vocab.clone());
    assert!(e.is_err_and(|e| e.to_string().contains("nope")));
    // A vocabulary whose special tokens the markers hold is refused.
    let mut tokens: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
    tokens.push(b"<|channel|>".to_vec());
    tokens.push(b"<|eos|>".to_vec());
    let special = Arc::new(Vocabulary::from_tokens_with_special(
        tokens,
        &[256, 257],
        &[257],
    ));
    let e = Chat::harmony().decoder::<Tool>(special);
    assert!(e.is_err_and(|e| e.to_string().contains("<|channel|>")));
}
