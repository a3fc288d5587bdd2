//! `%json { ... }` in a Lark grammar: a JSON Schema's language as a rule,
//! beside text and special tokens (a chat format's tool call). Samples
//! drawn from the mask validate with the `jsonschema` crate; masks agree
//! with the reference recognizer; errors name the problem.

use std::sync::Arc;

use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::runtime::matcher::Matcher;
use gcd_core::runtime::recognizer::Recognizer;
use gcd_core::vocab::Vocabulary;
use gcd_schema::{parse_lark, Options, Whitespace};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

fn weather() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"const": "get_weather"},
            "arguments": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "maxLength": 12},
                    "days": {"type": "integer", "minimum": 1, "maximum": 7}
                },
                "required": ["city"],
                "additionalProperties": false
            }
        },
        "required": ["name", "arguments"],
        "additionalProperties": false
    })
}

/// A Hermes-style turn: optional reasoning, then one or more calls, then
/// the end-of-turn token.
fn turn_grammar(schema: &Value) -> String {
    format!(
        "start: (\"<think>\" /[a-z ]{{1,20}}/ \"</think>\")? call+ <|endofprompt|>\n\
         call: \"<tool_call>\" %json {schema} \"</tool_call>\"\n"
    )
}

fn compile(src: &str) -> Arc<CompiledGrammar> {
    let g = parse_lark(src, &Options::default()).unwrap_or_else(|e| panic!("{src}\n{e}"));
    Arc::new(CompiledGrammar::new(&g).unwrap_or_else(|e| panic!("{src}\n{e}")))
}

/// The JSON documents between `<tool_call>` and `</tool_call>`.
fn calls(text: &str) -> Vec<Value> {
    text.split("<tool_call>")
        .skip(1)
        .map(|c| {
            let body = c.split("</tool_call>").next().unwrap();
            serde_json::from_str(body).unwrap_or_else(|e| panic!("{body}: {e}"))
        })
        .collect()
}

#[test]
fn samples_under_budgets_hold_valid_calls() {
    let schema = weather();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let c = compile(&turn_grammar(&schema));
    let vocab = Arc::new(Vocabulary::o200k_base().unwrap());
    let bound = Arc::new(BoundGrammar::try_new(c, vocab).unwrap());
    let width = bound.vocab().len();
    let least = Matcher::new(bound.clone()).min_tokens_to_complete();
    let mut rng = StdRng::seed_from_u64(7);
    let mut seen = 0;
    for budget in [least, least + 5, least + 20, least + 60] {
        for _ in 0..6 {
            let mut m = Matcher::new(bound.clone()).with_budget(budget).unwrap();
            let v = bound.vocab();
            while !m.is_complete() || rng.random_bool(0.5) {
                let mask = m.compute_mask(width);
                let allowed: Vec<usize> =
                    mask.iter_ones().filter(|&t| !v.is_eos(t as u32)).collect();
                if allowed.is_empty() {
                    break;
                }
                m.advance(allowed[rng.random_range(0..allowed.len())] as u32)
                    .unwrap();
            }
            let text = m.text();
            assert!(m.is_complete(), "{text}");
            assert!(m.tokens().len() <= budget, "{text}");
            assert!(text.ends_with("</tool_call><|endofprompt|>"), "{text}");
            for call in calls(&text) {
                assert!(validator.is_valid(&call), "{call} from {text}");
                seen += 1;
            }
        }
    }
    assert!(seen >= 24, "{seen} calls");
}

#[test]
fn masks_equal_reference() {
    let c = compile(&turn_grammar(&json!({
        "type": "object",
        "properties": {"a": {"type": "integer", "maximum": 20}, "b": {"enum": ["x", "yz"]}},
        "required": ["a"],
        "additionalProperties": false
    })));
    // Bytes the grammar uses, a few multi-byte tokens across boundaries,
    // and the end-of-turn token.
    let mut tokens: Vec<Vec<u8>> = "{}\":,abxyz0123 <>/_tolcamhink"
        .bytes()
        .map(|b| vec![b])
        .collect();
    for t in [
        "<tool_call>",
        "</tool_call>",
        "{\"a\":",
        "}</",
        "\"x\"}",
        "1}",
        "<think>",
        "</think><",
    ] {
        tokens.push(t.into());
    }
    let end = tokens.len() as u32;
    tokens.push(b"<|endofprompt|>".to_vec());
    let vocab = Arc::new(Vocabulary::from_tokens_with_special(tokens, &[end], &[]));
    let bound = Arc::new(BoundGrammar::try_new(c.clone(), vocab).unwrap());
    let v = bound.vocab().clone();
    let reference = Recognizer::new(&c);
    let mut checked = 0;
    for seed in 0..8 {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut m = Matcher::new(bound.clone());
        for _ in 0..40 {
            let mask = m.compute_mask(v.len());
            let mut allowed = Vec::new();
            for id in 0..v.len() as u32 {
                let mut s = m.output().to_vec();
                s.extend_from_slice(v.token_bytes(id).unwrap());
                let want = reference.status(&s).is_viable();
                assert_eq!(mask[id as usize], want, "token {id} after {:?}", m.text());
                if want {
                    allowed.push(id);
                }
            }
            assert_eq!(m.is_complete(), reference.is_complete(m.output()));
            checked += 1;
            if allowed.is_empty() {
                break;
            }
            m.advance(allowed[rng.random_range(0..allowed.len())])
                .unwrap();
        }
    }
    assert!(checked > 100, "{checked} masks");
}

#[test]
fn one_schema_written_twice_is_embedded_once() {
    let s = weather();
    let src = format!("start: %json {s} | \"[\" %json {s} \"]\"");
    let g = parse_lark(&src, &Options::default()).unwrap();
    let once = parse_lark(&format!("start: %json {s}"), &Options::default()).unwrap();
    assert_eq!(g.nonterminals.len(), once.nonterminals.len());
}

#[test]
fn errors_name_the_problem() {
    let opts = Options::default();
    for (src, says) in [
        ("start: %json {\"type\": \"string\"", "`}` is missing"),
        (
            "start: %json [1]",
            "must be followed by a JSON Schema object",
        ),
        ("start: %json {\"type\": strin}", "is not JSON"),
        (
            "start: %json {\"type\": \"object\", \"if\": {}}",
            "unsupported keyword \"if\"",
        ),
        ("T: %json {}\nstart: T", "terminal `T` cannot use `%json`"),
    ] {
        let e = parse_lark(src, &opts).unwrap_err().to_string();
        assert!(e.contains(says), "{src}: {e}");
    }
    // gcd-core alone has no schema compiler, and says where to find one.
    let e = gcd_core::lark::parse_grammar("start: %json {}").unwrap_err();
    assert!(e.to_string().contains("gcd_schema::parse_lark"), "{e}");
}

/// `Whitespace::Json` reaches `%json`: the value takes any JSON whitespace
/// between its own tokens (llguidance's default for inline schemas), none
/// around it, and the rest of the grammar none at all.
#[test]
fn json_whitespace_reaches_inline_schemas() {
    let json_ws = Options::default().whitespace(Whitespace::Json);
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "array", "items": {"type": "integer"}}, "b": {"type": "object"}},
        "required": ["a", "b"]
    });
    let src = format!("start: \"<call>\" %json {schema} \"</call>\" \"!\"?\n");
    let g = parse_lark(&src, &json_ws).unwrap_or_else(|e| panic!("{e}"));
    let c = CompiledGrammar::new(&g).unwrap_or_else(|e| panic!("{e}"));
    let r = Recognizer::new(&c);
    for ok in [
        r#"<call>{"a":[1,2],"b":{}}</call>"#,
        "<call>{ \"a\" : [ 1 ,\n\t2 ] ,\r\n \"b\" :{ } }</call>!",
        "<call>{\"a\":[ ],\"b\":{\"x\" : [ {} ] }}</call>",
    ] {
        assert!(r.is_complete(ok.as_bytes()), "{ok}");
    }
    for bad in [
        // Around the value, and outside it, the grammar says where.
        r#"<call> {"a":[1],"b":{}}</call>"#,
        r#"<call>{"a":[1],"b":{}} </call>"#,
        r#"<call>{"a":[1],"b":{}}</call> !"#,
        // Not JSON whitespace.
        "<call>{\"a\":[1],\u{b}\"b\":{}}</call>",
        r#"<call>{"a":[1 2],"b":{}}</call>"#,
    ] {
        assert!(!r.is_complete(bad.as_bytes()), "{bad}");
    }
}
