//! An oracle for the structural tag reader that shares nothing with gcd
//! but the tag: XGrammar 0.2.9 itself (`pip install --no-deps xgrammar
//! apache-tvm-ffi numpy pydantic ...`, as `.ci/run` does), run in a Python
//! process (`tests/oracle/structural_tag_oracle.py`).
//!
//! For tags that XGrammar's `get_model_structural_tag` writes (a seeded
//! sample of its families × tool lists × tool choices × reasoning ×
//! parallel calls; the whole product is `structural_tag_sweep`, run with
//! `--ignored`) and for hand-written tags of every kind gcd reads, the
//! strings gcd samples from its masks under a budget, their one-edit
//! mutations (a piece of the tag's text or a lone byte inserted, removed or
//! replaced) and hand-written strings get the same verdict from both
//! engines. A tag gcd refuses is counted with its reason, never compared.
//!
//! One difference is gcd's by design: XGrammar's free text takes byte
//! strings that are not UTF-8 (a lone continuation byte, a truncated
//! character, `ED A0..BF ..` which encodes a UTF-16 surrogate); gcd's
//! languages are text, so it refuses them. Such strings, when XGrammar
//! alone accepts them, are counted apart.
//!
//! Without XGrammar the tests skip with a message, except under CI (`CI`
//! set). `GCD_XGRAMMAR_PYTHON` names the Python to run (default `python3`).

#[path = "../../gcd-core/tests/common/byte_fed.rs"]
mod byte_fed;

#[path = "oracle/client.rs"]
mod client;

use std::collections::BTreeMap;

use byte_fed::ByteFed;
use client::XGrammar;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

/// Every string in the tag's own text (begins, ends, triggers, constant
/// strings, excluded strings, property names), as mutation pieces.
fn tag_pieces(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) if !s.is_empty() && s.len() <= 80 => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| tag_pieces(x, out)),
        Value::Object(m) => {
            for (k, x) in m {
                if k != "type" && k != "style" {
                    tag_pieces(x, out);
                }
                if k == "properties" {
                    if let Value::Object(p) = x {
                        out.extend(p.keys().map(|n| format!("<parameter={n}>")));
                        out.extend(p.keys().map(|n| format!("\"{n}\"")));
                    }
                }
            }
        }
        _ => {}
    }
}

/// Samples, their one-edit mutations and the given strings.
fn candidates(
    gcd: &ByteFed,
    pieces: &[&str],
    extra: &[String],
    rng: &mut StdRng,
    samples: usize,
) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = extra.iter().map(|s| s.as_bytes().to_vec()).collect();
    // Budgets a little and well above the fewest tokens: short outputs
    // and ones with text and several calls.
    let most_slack = if samples > 6 { 30 } else { 6 };
    for _ in 0..samples {
        let slack = rng.random_range(0..most_slack);
        out.extend(gcd.sample(rng, slack));
    }
    let n = out.len();
    for i in 0..n {
        for _ in 0..3 {
            let mut s = out[i].clone();
            let piece: Vec<u8> = match rng.random_range(0..5) {
                0 => vec![rng.random_range(0x80..=0xFFu8)],
                1 => vec![rng.random_range(0x20..0x7Fu8)],
                _ => pieces[rng.random_range(0..pieces.len())]
                    .as_bytes()
                    .to_vec(),
            };
            let at = rng.random_range(0..=s.len());
            match rng.random_range(0..3) {
                0 if !s.is_empty() => {
                    s.remove(at.min(s.len() - 1));
                }
                1 => {
                    s.splice(at..at, piece);
                }
                _ => {
                    let end = (at + 1).min(s.len());
                    s.splice(at..end, piece);
                }
            }
            out.push(s);
        }
    }
    out.sort();
    out.dedup();
    out
}

#[derive(Default, Debug)]
struct Tally {
    tags: usize,
    /// Tags gcd refuses, by the first words of the reason.
    refused_by_gcd: BTreeMap<String, usize>,
    refused_by_xgrammar: usize,
    strings: usize,
    accepted: usize,
    /// Byte strings that are not UTF-8, which only XGrammar accepts.
    not_utf8: usize,
    disagreements: Vec<String>,
}

fn compare(
    xg: &mut XGrammar,
    label: &str,
    tag: &Value,
    extra: &[String],
    rng: &mut StdRng,
    samples: usize,
    t: &mut Tally,
) {
    let compiled = match gcd_schema::structural_tag(tag, &gcd_schema::Options::default()) {
        Ok(c) => c,
        Err(e) => {
            let reason = e.to_string();
            let key = reason.split(" at /").next().unwrap_or("").to_string();
            *t.refused_by_gcd.entry(key).or_default() += 1;
            return;
        }
    };
    let mut own = Vec::new();
    tag_pieces(tag, &mut own);
    own.extend(["{", "}", "\"", ",", ":", " ", "\n", "1", "a", "é", "<", ">"].map(String::from));
    own.sort();
    own.dedup();
    let pieces: Vec<&str> = own.iter().map(String::as_str).collect();
    let gcd = ByteFed::new(compiled, &pieces, rng);
    let strings = candidates(&gcd, &pieces, extra, rng, samples);
    let xg_says = match xg.verdicts(tag, &strings) {
        Ok(v) => v,
        Err(e) => {
            t.refused_by_xgrammar += 1;
            t.disagreements
                .push(format!("{label}: XGrammar refuses what gcd compiles: {e}"));
            return;
        }
    };
    t.tags += 1;
    for (s, xg_ok) in strings.iter().zip(xg_says) {
        let Some(gcd_ok) = gcd.accepts(s) else {
            continue;
        };
        t.strings += 1;
        t.accepted += usize::from(gcd_ok && xg_ok);
        if !gcd_ok && xg_ok && std::str::from_utf8(s).is_err() {
            t.not_utf8 += 1;
        } else if gcd_ok != xg_ok {
            t.disagreements.push(format!(
                "{label}: {:?}: gcd {gcd_ok}, XGrammar {xg_ok}\n  tag {tag}",
                String::from_utf8_lossy(s)
            ));
        }
    }
}

fn report(what: &str, t: &Tally) {
    eprintln!(
        "{what}: {} tags compared, {} refused by gcd, {} refused by XGrammar only; {} strings, \
         {} accepted by both, {} non-UTF-8 strings only XGrammar accepts, {} disagreements",
        t.tags,
        t.refused_by_gcd.values().sum::<usize>(),
        t.refused_by_xgrammar,
        t.strings,
        t.accepted,
        t.not_utf8,
        t.disagreements.len()
    );
    for (reason, n) in &t.refused_by_gcd {
        eprintln!("  gcd refuses {n}: {reason}");
    }
    for d in t.disagreements.iter().take(12) {
        eprintln!("--- {d}");
    }
}

fn tools() -> Value {
    let weather = json!({"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object",
        "properties": {"location": {"type": "string"}, "days": {"type": "integer"},
                       "unit": {"type": "string", "enum": ["c", "f"]}},
        "required": ["location"]}}});
    let search = json!({"type": "function", "function": {"name": "search", "parameters": {
        "type": "object", "properties": {"q": {"type": "string"}, "top": {"type": "boolean"}},
        "required": ["q"]}}});
    json!([[weather], [weather, search]])
}

fn family_spec() -> Value {
    json!({
        "tools": tools(),
        "tool_choices": ["none", "auto", "required",
                         {"type": "function", "function": {"name": "get_weather"}}],
        "reasoning": ["enabled", "disabled"],
        "parallel": [true, false],
    })
}

fn sweep(sample: Option<usize>, samples: usize) -> Tally {
    let mut t = Tally::default();
    let Some(mut xg) = XGrammar::start() else {
        return t;
    };
    let mut tags = xg.family_tags(family_spec());
    assert!(
        tags.len() >= 100,
        "XGrammar wrote {} family tags",
        tags.len()
    );
    let mut rng = StdRng::seed_from_u64(42);
    if let Some(n) = sample {
        // A seeded sample, every family kept in it.
        let mut by_family: BTreeMap<String, Vec<(String, Value)>> = BTreeMap::new();
        for (label, tag) in tags {
            let family = label.split(' ').next().unwrap_or("").to_string();
            by_family.entry(family).or_default().push((label, tag));
        }
        tags = Vec::new();
        for (_, mut list) in by_family {
            for _ in 0..n.min(list.len()) {
                let i = rng.random_range(0..list.len());
                tags.push(list.swap_remove(i));
            }
        }
    }
    for (label, tag) in &tags {
        compare(&mut xg, label, tag, &[], &mut rng, samples, &mut t);
    }
    t
}

#[test]
fn model_family_tags_agree_with_xgrammar() {
    let t = sweep(Some(3), 6);
    if t.tags == 0 && t.refused_by_gcd.is_empty() {
        return;
    }
    report("family tags (seeded sample)", &t);
    assert!(t.disagreements.is_empty(), "see the disagreements above");
    assert!(
        t.tags >= 10 && t.strings >= 500 && t.accepted >= 50,
        "{t:?}"
    );
}

/// The whole product of families and options: `cargo test -p gcd-schema
/// --test structural_tag_oracle -- --ignored`.
#[test]
#[ignore]
fn structural_tag_sweep() {
    let t = sweep(None, 10);
    report("family tags (full sweep)", &t);
    assert!(t.disagreements.is_empty(), "see the disagreements above");
}

fn tag(format: Value) -> Value {
    json!({"type": "structural_tag", "format": format})
}

fn const_(s: &str) -> Value {
    json!({"type": "const_string", "value": s})
}

/// Hand-written tags of every kind gcd reads, with strings at their edges.
fn hand_written() -> Vec<(&'static str, Value, Vec<&'static str>)> {
    let xml_schema = json!({"type": "object", "properties": {"a": {"type": "string"},
        "b": {"type": "integer"}, "c": {"type": "string", "enum": ["x", "y<"]}}, "required": ["a"]});
    let obj = json!({"type": "object", "properties": {"a": {"type": "string"},
        "b": {"type": "integer"}}, "required": ["a"]});
    let t1 = json!({"type": "tag", "begin": "<t1>", "content": const_("x"), "end": "</t>"});
    let t2 = json!({"type": "tag", "begin": "<t2>", "content": {"type": "json_schema", "json_schema": obj}, "end": "</t>"});
    let triggered = |extra: Value| {
        let mut f = json!({"type": "triggered_tags", "triggers": ["<t"], "tags": [t1, t2]});
        f.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        f
    };
    vec![
        (
            "const",
            tag(const_("hello")),
            vec!["hello", "hell", "hello!", ""],
        ),
        (
            "json",
            tag(json!({"type": "json_schema", "json_schema": obj})),
            vec![
                r#"{"a":"x"}"#,
                r#"{ "a" : "x" , "b" : -12 }"#,
                r#"{"a":"x","c":1}"#,
                r#" {"a":"x"}"#,
                r#"{"b":1}"#,
                r#"{"a":"\u0061"}"#,
                r#"{"\u0061":"x"}"#,
                r#"{"a":"x\n"}"#,
                r#"{"a":"x","b":1.0}"#,
            ],
        ),
        (
            "json bounded string",
            // XGrammar writes a length-bounded string without escapes.
            tag(json!({"type": "json_schema", "json_schema": {"type": "string", "maxLength": 3}})),
            vec!["\"x\"", "\"\\\"\"", "\"\\n\"", "\"\\u0041\"", "\"é€x\"", "\"abcd\"", "\"\""],
        ),
        (
            "json any",
            tag(json!({"type": "json_schema", "json_schema": true})),
            vec!["1", "[1, {\"a\": null}]", "{\"x\":\"y\"}", "nul"],
        ),
        (
            "qwen_xml",
            tag(
                json!({"type": "json_schema", "style": "qwen_xml", "json_schema": {"type": "object",
                "properties": {"a": {"type": "string"}, "b": {"type": "integer"},
                    "c": {"type": "string", "enum": ["x", "y<"]}, "d": {"type": "object", "properties": {"k": {"type": "number"}}},
                    "e": {"type": "string", "maxLength": 2}},
                "required": ["a"]}}),
            ),
            vec![
                "<parameter=a>\nhi there\n</parameter>",
                "<parameter=a>x</parameter>\n<parameter=b>\n12\n</parameter>",
                "<parameter=a>x</parameter><parameter=c> y< </parameter>",
                "<parameter=a>x</parameter><parameter=d>{\"k\": 1.5}</parameter>",
                "<parameter=a>x</parameter><parameter=e>abc</parameter>",
                "<parameter=b>1</parameter>",
                "<parameter=a></parameter>",
            ],
        ),
        (
            "minimax_xml",
            tag(json!({"type": "json_schema", "style": "minimax_xml", "json_schema": xml_schema.clone()})),
            vec!["<parameter name=\"a\">hi</parameter>", "<parameter name=\"a\">x</parameter>\n<parameter name=\"b\"> 1 </parameter>", "<parameter name=\"b\">1</parameter>"],
        ),
        (
            "glm_xml",
            tag(json!({"type": "json_schema", "style": "glm_xml", "json_schema": xml_schema.clone()})),
            vec!["<arg_key>a</arg_key><arg_value>hi</arg_value>", "<arg_key>a</arg_key>\n<arg_value>x</arg_value><arg_key>b</arg_key><arg_value>2</arg_value>"],
        ),
        (
            "deepseek_xml",
            tag(json!({"type": "json_schema", "style": "deepseek_xml", "json_schema": {"type": "object",
                "properties": {"a": {"type": "string"}, "b": {"type": "integer"}, "d": {"type": "object", "properties": {"k": {"type": "number"}}},
                    "e": {"type": "string", "enum": ["p", "q"]}, "m": {"type": "string", "maxLength": 2}},
                "required": ["a"]}})),
            vec!["<\u{ff5c}DSML\u{ff5c}parameter name=\"a\" string=\"true\">hi</\u{ff5c}DSML\u{ff5c}parameter>",
                 "<\u{ff5c}DSML\u{ff5c}parameter name=\"a\" string=\"true\">x</\u{ff5c}DSML\u{ff5c}parameter><\u{ff5c}DSML\u{ff5c}parameter name=\"b\" string=\"false\">3</\u{ff5c}DSML\u{ff5c}parameter>",
                 "<\u{ff5c}DSML\u{ff5c}parameter name=\"a\" string=\"false\">\"x\"</\u{ff5c}DSML\u{ff5c}parameter>",
                 "<\u{ff5c}DSML\u{ff5c}parameter name=\"a\" string=\"true\"></\u{ff5c}DSML\u{ff5c}parameter><\u{ff5c}DSML\u{ff5c}parameter name=\"e\" string=\"true\"> p </\u{ff5c}DSML\u{ff5c}parameter>",
                 "<\u{ff5c}DSML\u{ff5c}parameter name=\"a\" string=\"true\"></\u{ff5c}DSML\u{ff5c}parameter><\u{ff5c}DSML\u{ff5c}parameter name=\"e\" string=\"true\">p</\u{ff5c}DSML\u{ff5c}parameter>"],
        ),
        (
            "deepseek_xml generic",
            tag(json!({"type": "json_schema", "style": "deepseek_xml", "json_schema": {"type": "object"}})),
            vec!["", "<\u{ff5c}DSML\u{ff5c}parameter name=\"z\" string=\"false\">[1]</\u{ff5c}DSML\u{ff5c}parameter>",
                 "<\u{ff5c}DSML\u{ff5c}parameter name=\"z\" string=\"false\">\"s\"</\u{ff5c}DSML\u{ff5c}parameter>"],
        ),
        (
            "minimax_xml generic",
            tag(json!({"type": "json_schema", "style": "minimax_xml", "json_schema": {"type": "object"}})),
            vec!["", "<parameter name=\"z\">[1]</parameter>"],
        ),
        (
            "cohere_xml",
            tag(json!({"type": "json_schema", "style": "cohere_xml", "json_schema": {"type": "object",
                "properties": {"a": {"type": "string"}, "e": {"type": "string", "enum": ["x", "y"]},
                    "m": {"type": "string", "maxLength": 2}, "b": {"type": "boolean"}, "n": {"type": "number"}},
                "required": ["a"]}})),
            vec!["<cofl:value name=\"a\" type=\"raw\">hi</cofl:value>",
                 "<cofl:value name=\"a\" type=\"raw\">hi</cofl:value> <cofl:value name=\"e\" type=\"raw\"> x </cofl:value><cofl:value name=\"b\" type=\"json\">true</cofl:value>",
                 "<cofl:value name=\"a\" type=\"json\">\"hi\"</cofl:value>"],
        ),
        (
            "minimax_m3_xml",
            tag(json!({"type": "json_schema", "style": "minimax_m3_xml", "json_schema": xml_schema.clone()})),
            vec!["]<]minimax[>[<a>hi]<]minimax[>[</a>",
                 "]<]minimax[>[<a>x y]<]minimax[>[</a>\n]<]minimax[>[<b>2]<]minimax[>[</b>]<]minimax[>[<c>y<]<]minimax[>[</c>",
                 "]<]minimax[>[<a>x]<]minimax[>[</a>]<]minimax[>[<b> 2 ]<]minimax[>[</b>",
                 "]<]minimax[>[<a>x</a>]<]minimax[>[</a>"],
        ),
        (
            "qwen_xml generic",
            tag(
                json!({"type": "json_schema", "style": "qwen_xml", "json_schema": {"type": "object"}}),
            ),
            vec![
                "",
                "<parameter=zz>hi</parameter> <parameter=b>[1]</parameter>",
                "<parameter=1a>x</parameter>",
            ],
        ),
        (
            "regex",
            tag(json!({"type": "regex", "pattern": "a+b?[0-9]{2}"})),
            vec!["a12", "aab99", "b12", "a1"],
        ),
        (
            "regex classes",
            tag(json!({"type": "regex", "pattern": "[\\d_]\\d\\w."})),
            vec!["1_a\n", "_5a.", "\u{665}5a.", "11\u{e9}.", "12a\u{e9}"],
        ),
        (
            "json enum",
            // Numbers left out: gcd's enum numbers also take trailing
            // fraction zeros (`1.0` for 1), XGrammar's only the spelling
            // written (see the module docs of structural_tag).
            tag(json!({"type": "json_schema", "json_schema": {"enum": ["a", "b\"", null, true]}})),
            vec!["\"a\"", "\"\\u0061\"", "\"b\\\"\"", "null", "true", "false"],
        ),
        (
            "regex empty",
            tag(json!({"type": "regex", "pattern": "x*"})),
            vec!["", "xx", "y"],
        ),
        (
            "grammar",
            tag(json!({"type": "grammar", "grammar": "root ::= \"a\" | \"b\" x\nx ::= [0-9]+"})),
            vec!["a", "b1", "b", "b12"],
        ),
        (
            "sequence or",
            tag(
                json!({"type": "sequence", "elements": [const_("<"), {"type": "or", "elements": [const_("a"), const_("bb")]}, const_(">")]}),
            ),
            vec!["<a>", "<bb>", "<b>", "<>"],
        ),
        (
            "any_text",
            tag(json!({"type": "any_text", "excludes": ["ab", "</x>"]})),
            vec!["", "xa", "xab", "</x", "a</x>", "é€"],
        ),
        (
            "any_text then const",
            tag(json!({"type": "sequence", "elements": [{"type": "any_text"}, const_("END")]})),
            vec!["END", "ENDxEND", "xEN", "qEND"],
        ),
        (
            "tag any_text",
            tag(
                json!({"type": "tag", "begin": "<a>", "content": {"type": "any_text", "excludes": ["X"]}, "end": ["</a>", "</b>"]}),
            ),
            vec![
                "<a>abc</a>",
                "<a></</a>",
                "<a>X</a>",
                "<a>a</a>b</a>",
                "<a>a</a</b>",
                "<a></a",
            ],
        ),
        (
            "tag max_chars",
            tag(
                json!({"type": "tag", "begin": "<a>", "content": {"type": "any_text", "max_chars": 3}, "end": "</a>"}),
            ),
            vec!["<a>abc</a>", "<a>abcd</a>", "<a>é€x</a>", "<a></a>"],
        ),
        (
            "tag sequence tail",
            tag(
                json!({"type": "tag", "begin": "<a>", "content": {"type": "sequence", "elements": [const_("x"), {"type": "any_text"}]}, "end": "</a>"}),
            ),
            vec!["<a>x</a>", "<a>xy</a>z</a>", "<a>x</a</a>"],
        ),
        (
            "tag optional tail",
            tag(json!({"type": "tag", "begin": "<a>", "content": {"type": "optional", "content": {"type": "any_text"}}, "end": "</a>"})),
            vec!["<a></a>", "<a>x</a>", "<a>x</a>y</a>"],
        ),
        (
            "tag star tail",
            tag(json!({"type": "tag", "begin": "<a>", "content": {"type": "star", "content": {"type": "sequence", "elements": [const_("-"), {"type": "any_text"}]}}, "end": "</a>"})),
            vec!["<a></a>", "<a>-x-y</a>", "<a>-x</a>-y</a>"],
        ),
        (
            "tag text not at the end",
            tag(json!({"type": "tag", "begin": "<a>", "content": {"type": "sequence", "elements": [{"type": "any_text"}, const_("END")]}, "end": "</a>"})),
            vec!["<a>END</a>", "<a>x</a>yEND</a>", "<a>END</a>"],
        ),
        (
            "nested tags",
            tag(json!({"type": "tag", "begin": "<a>", "content": {"type": "tag", "begin": "<b>", "content": {"type": "any_text"}, "end": "</b>"}, "end": "</a>"})),
            vec!["<a><b>x</a></b></a>", "<a><b>x</b></a>", "<a><b></b></b></a>"],
        ),
        (
            "triggered",
            tag(triggered(json!({"excludes": ["Q"]}))),
            vec![
                "ab<t1>x</t>cd",
                "ab<t3",
                "abQ",
                "<t",
                "a<",
                "<<t1>x</t>",
                "",
                "<t1>x</t><t2>{\"a\":\"q\"}</t>",
                "<t1>x</t>Q",
                "a<t1>x</t",
            ],
        ),
        (
            "triggered at_least_one",
            tag(triggered(json!({"at_least_one": true}))),
            vec!["<t1>x</t>", "a<t1>x</t>", "<t1>x</t>b<t1>x</t>c", ""],
        ),
        (
            "triggered stop_after_first",
            tag(triggered(json!({"stop_after_first": true}))),
            vec!["<t1>x</t>", "a<t1>x</t>", "a<t1>x</t>b", "", "abc"],
        ),
        (
            "triggered one",
            tag(triggered(
                json!({"stop_after_first": true, "at_least_one": true}),
            )),
            vec!["<t1>x</t>", "a<t1>x</t>", ""],
        ),
        (
            "triggered excludes across",
            tag(triggered(json!({"excludes": ["a<", "t"]}))),
            vec!["a<t1>x</t>", "a<", "b<t1>x</t>", "bt"],
        ),
        (
            "triggered in tag",
            tag(
                json!({"type": "tag", "begin": "<a>", "content": triggered(json!({})), "end": "</a>"}),
            ),
            vec!["<a>x<t1>x</t>y</a>", "<a></a>", "<a>x</a>y</a>"],
        ),
        (
            "triggered then const",
            tag(json!({"type": "sequence", "elements": [triggered(json!({})), const_("END")]})),
            vec!["helloEND", "ENDxEND", "<t1>x</t>END", "<tEND", "a<END"],
        ),
        (
            "tags_with_separator",
            tag(json!({"type": "tags_with_separator", "separator": ",", "tags": [t1, t2]})),
            vec![
                "",
                "<t1>x</t>",
                "<t1>x</t>,<t1>x</t>",
                "<t1>x</t>,",
                ",<t1>x</t>",
            ],
        ),
        (
            "tags_with_separator at_least_one",
            tag(
                json!({"type": "tags_with_separator", "separator": "\n", "tags": [t1], "at_least_one": true}),
            ),
            vec!["", "<t1>x</t>", "<t1>x</t>\n<t1>x</t>"],
        ),
        (
            "dispatch",
            tag(
                json!({"type": "dispatch", "rules": [["<c>", const_("1</c>")]], "excludes": ["!"]}),
            ),
            vec!["a<c>1</c>b", "<c>2", "a!", "<c>1</c><c>1</c>"],
        ),
        (
            "repeats",
            tag(
                json!({"type": "sequence", "elements": [{"type": "optional", "content": const_("a")},
                {"type": "plus", "content": const_("b")}, {"type": "star", "content": const_("c")},
                {"type": "repeat", "min": 1, "max": 2, "content": const_("d")}]}),
            ),
            vec!["bd", "abbcccdd", "ad", "bddd"],
        ),
    ]
}

#[test]
fn hand_written_tags_agree_with_xgrammar() {
    let Some(mut xg) = XGrammar::start() else {
        return;
    };
    let mut t = Tally::default();
    for (i, (name, tag, strings)) in hand_written().into_iter().enumerate() {
        let mut rng = StdRng::seed_from_u64(i as u64);
        let before = t.tags;
        let extra: Vec<String> = strings.iter().map(|s| s.to_string()).collect();
        compare(&mut xg, name, &tag, &extra, &mut rng, 12, &mut t);
        if t.tags != before + 1 {
            report(name, &t);
            panic!("{name} was refused");
        }
    }
    report("hand-written tags", &t);
    assert!(t.disagreements.is_empty(), "see the disagreements above");
    assert!(t.strings >= 500 && t.accepted >= 100, "{t:?}");
}

/// The older form of vLLM's examples reads as XGrammar converts it.
#[test]
fn legacy_structures_agree_with_xgrammar() {
    let Some(mut xg) = XGrammar::start() else {
        return;
    };
    let legacy = json!({"type": "structural_tag", "triggers": ["<function="],
        "structures": [{"begin": "<function=get_weather>", "end": "</function>",
            "schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]});
    let converted = tag(
        json!({"type": "triggered_tags", "triggers": ["<function="], "tags": [
        {"type": "tag", "begin": "<function=get_weather>", "end": "</function>",
         "content": {"type": "json_schema", "json_schema": {"type": "object",
            "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]}),
    );
    let strings = [
        "hi <function=get_weather>{\"city\": \"Paris\"}</function> bye",
        "<function=get_weather>{}</function>",
        "",
        "<function=other>",
    ];
    let compiled = gcd_schema::structural_tag(&legacy, &gcd_schema::Options::default()).unwrap();
    let mut rng = StdRng::seed_from_u64(7);
    let gcd = ByteFed::new(compiled, &["<function=get_weather>", "{", "}"], &mut rng);
    let bytes: Vec<Vec<u8>> = strings.iter().map(|s| s.as_bytes().to_vec()).collect();
    let xg_says = xg.verdicts(&converted, &bytes).unwrap();
    for (s, x) in bytes.iter().zip(xg_says) {
        assert_eq!(gcd.accepts(s), Some(x), "{:?}", String::from_utf8_lossy(s));
    }
}
