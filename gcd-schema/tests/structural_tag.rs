//! Structural tags, kind by kind: the strings each accepts and refuses
//! (verdicts XGrammar 0.2.9 gives too; `structural_tag_oracle.rs` asks it
//! directly), checked by the matcher and gcd-core's reference recognizer,
//! and the errors for what gcd refuses, each naming the format.

mod common;

use common::Acceptor;
use gcd_schema::{Options, SchemaErrorKind};
use serde_json::{json, Value};

fn tag(format: Value) -> Value {
    json!({"type": "structural_tag", "format": format})
}

fn const_(s: &str) -> Value {
    json!({"type": "const_string", "value": s})
}

fn check(format: Value, ok: &[&str], bad: &[&str]) {
    let t = tag(format);
    let a = Acceptor::new(gcd_schema::structural_tag(&t, &Options::default()).expect("compiles"));
    for s in ok {
        assert!(a.accepts(s), "{t} should accept {s:?}");
    }
    for s in bad {
        assert!(!a.accepts(s), "{t} should refuse {s:?}");
    }
}

fn error(t: Value) -> gcd_schema::SchemaError {
    match gcd_schema::structural_tag(&t, &Options::default()) {
        Ok(_) => panic!("{t} should be refused"),
        Err(e) => e,
    }
}

fn object() -> Value {
    json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
           "required": ["a"]})
}

#[test]
fn const_string_is_exactly_its_value() {
    check(const_("hello"), &["hello"], &["hell", "hello!", ""]);
    check(const_(""), &[""], &["a"]);
}

#[test]
fn json_schema_is_strict_with_whitespace_inside_only() {
    check(
        json!({"type": "json_schema", "json_schema": object()}),
        &[
            r#"{"a":"x"}"#,
            r#"{ "a" : "x" , "b" : -12 }"#,
            r#"{"a":"\u0061"}"#,
        ],
        // Strict mode: no other keys; no whitespace around the value; keys
        // spelled as written; integers as plain digits.
        &[
            r#"{"a":"x","c":1}"#,
            r#" {"a":"x"}"#,
            r#"{"a":"x"} "#,
            r#"{"b":1}"#,
            r#"{"\u0061":"x"}"#,
            r#"{"a":"x","b":1.0}"#,
        ],
    );
    check(
        json!({"type": "json_schema", "json_schema": {"type": "object"}}),
        &["{}", r#"{"x": [1, {"y": null}]}"#],
        &["[]"],
    );
    check(
        json!({"type": "json_schema", "json_schema": {"type": "array", "prefixItems": [{"type": "integer"}]}}),
        &["[]", "[1]"],
        &["[1,2]"],
    );
}

#[test]
fn qwen_xml_writes_strings_raw_and_the_rest_as_json() {
    let schema = json!({"type": "object", "properties": {
        "a": {"type": "string"}, "b": {"type": "integer"},
        "c": {"type": "string", "enum": ["x", "y<"]},
        "d": {"type": "object", "properties": {"k": {"type": "number"}}},
        "e": {"type": "string", "maxLength": 2}},
        "required": ["a"]});
    check(
        json!({"type": "json_schema", "style": "qwen_xml", "json_schema": schema}),
        &[
            "<parameter=a>\nhi \"there\"\n</parameter>",
            "\n<parameter=a>x</parameter>\n<parameter=b>\n12\n</parameter>\n",
            "<parameter=a>x</parameter><parameter=c> y< </parameter>",
            "<parameter=a>x</parameter><parameter=d>{\"k\": 1.5}</parameter>",
            "<parameter=a></parameter><parameter=e>ab</parameter>",
        ],
        &[
            "<parameter=b>1</parameter>",
            "<parameter=a>x</parameter><parameter=b>\"1\"</parameter>",
            "<parameter=a>x</parameter></parameter>",
            "<parameter=a>x</parameter><parameter=e>abc</parameter>",
            "<parameter=a>x</parameter><parameter=b>1</parameter><parameter=b>1</parameter>",
        ],
    );
    check(
        json!({"type": "qwen_xml_parameter", "json_schema": {"type": "object"}}),
        &[
            "",
            "<parameter=zz>hi</parameter> <parameter=b>[1]</parameter>",
        ],
        &["<parameter=1a>x</parameter>"],
    );
}

#[test]
fn the_other_xml_styles_wrap_arguments_their_way() {
    let schema = json!({"type": "object", "properties": {"a": {"type": "string"},
        "b": {"type": "integer"}}, "required": ["a"]});
    let with = |style: &str| json!({"type": "json_schema", "style": style, "json_schema": schema});
    check(
        with("minimax_xml"),
        &["<parameter name=\"a\">x y</parameter>\n<parameter name=\"b\"> 2 </parameter>"],
        &["<parameter=a>x</parameter>"],
    );
    check(
        with("glm_xml"),
        &["<arg_key>a</arg_key>\n<arg_value>x</arg_value><arg_key>b</arg_key><arg_value>2</arg_value>"],
        &["<arg_key>b</arg_key><arg_value>2</arg_value>"],
    );
    check(
        with("deepseek_xml"),
        &["<\u{ff5c}DSML\u{ff5c}parameter name=\"a\" string=\"true\">x</\u{ff5c}DSML\u{ff5c}parameter><\u{ff5c}DSML\u{ff5c}parameter name=\"b\" string=\"false\">2</\u{ff5c}DSML\u{ff5c}parameter>"],
        &["<\u{ff5c}DSML\u{ff5c}parameter name=\"a\" string=\"false\">\"x\"</\u{ff5c}DSML\u{ff5c}parameter>"],
    );
    check(
        with("deepseek_v4_1_xml"),
        &["<\u{ff5c}DSML\u{ff5c} parameter name=\"a\" string=\"true\">x</\u{ff5c}DSML\u{ff5c} parameter>"],
        &["<\u{ff5c}DSML\u{ff5c}parameter name=\"a\" string=\"true\">x</\u{ff5c}DSML\u{ff5c}parameter>"],
    );
    check(
        with("cohere_xml"),
        &["<cofl:value name=\"a\" type=\"raw\">x</cofl:value> <cofl:value name=\"b\" type=\"json\">2</cofl:value>"],
        &["<cofl:value name=\"a\" type=\"json\">\"x\"</cofl:value>"],
    );
    check(
        with("minimax_m3_xml"),
        &["]<]minimax[>[<a>x</a>]<]minimax[>[</a>\n]<]minimax[>[<b>2]<]minimax[>[</b>"],
        &["]<]minimax[>[<a>x]<]minimax[>[</a>]<]minimax[>[<b> 2 ]<]minimax[>[</b>"],
    );
    let e = error(tag(
        json!({"type": "json_schema", "style": "cohere_xml", "json_schema": {"type": "object",
        "properties": {"l": {"type": "array"}}}}),
    ));
    assert!(
        e.to_string()
            .contains("cohere_xml: object and array parameters"),
        "{e}"
    );
}

#[test]
fn regex_is_xgrammars_dialect() {
    check(
        json!({"type": "regex", "pattern": "a+b?[\\d_]\\w."}),
        &["a1x\n", "aab_9é"],
        &["b12x", "a\u{665}x.", "a1é."],
    );
    check(
        json!({"type": "regex", "pattern": "x*"}),
        &["", "xx"],
        &["y"],
    );
}

#[test]
fn grammar_is_ebnf() {
    check(
        json!({"type": "grammar", "grammar": "root ::= \"a\" | \"b\" x\nx ::= [0-9]+"}),
        &["a", "b12"],
        &["b", "ab"],
    );
}

#[test]
fn sequence_or_and_repetitions() {
    check(
        json!({"type": "sequence", "elements": [const_("<"),
            {"type": "or", "elements": [const_("a"), const_("bb")]}, const_(">")]}),
        &["<a>", "<bb>"],
        &["<b>", "<>", "<abb>"],
    );
    check(
        json!({"type": "sequence", "elements": [{"type": "optional", "content": const_("a")},
            {"type": "plus", "content": const_("b")}, {"type": "star", "content": const_("c")},
            {"type": "repeat", "min": 1, "max": 2, "content": const_("d")}]}),
        &["bd", "abbcccdd"],
        &["ad", "bddd", "abc"],
    );
}

#[test]
fn any_text_excludes_and_ends_anywhere() {
    check(
        json!({"type": "any_text", "excludes": ["ab", "</x>"]}),
        &["", "xa", "</x", "é€"],
        &["xab", "a</x>"],
    );
    // Free text not closing a tag may contain what follows it.
    check(
        json!({"type": "sequence", "elements": [{"type": "any_text"}, const_("END")]}),
        &["END", "ENDxEND"],
        &["xEN"],
    );
}

#[test]
fn a_tag_closes_at_its_first_end() {
    check(
        json!({"type": "tag", "begin": "<a>", "content": {"type": "any_text", "excludes": ["X"]},
               "end": ["</a>", "</b>"]}),
        &["<a>abc</a>", "<a></</a>", "<a>a</a</b>"],
        &["<a>X</a>", "<a>a</a>b</a>", "<a></a"],
    );
    check(
        json!({"type": "tag", "begin": "<a>", "content": {"type": "any_text", "max_chars": 3}, "end": "</a>"}),
        &["<a>abc</a>", "<a>é€x</a>", "<a></a>"],
        &["<a>abcd</a>"],
    );
    // The end reaches the free text anywhere in a sequence.
    check(
        json!({"type": "tag", "begin": "<a>", "content": {"type": "sequence",
               "elements": [{"type": "any_text"}, const_("END")]}, "end": "</a>"}),
        &["<a>END</a>", "<a>xEND</a>"],
        &["<a>x</a>yEND</a>"],
    );
    check(
        json!({"type": "tag", "begin": "<a>", "content": {"type": "sequence",
               "elements": [const_("x"), {"type": "any_text"}]}, "end": "</a>"}),
        &["<a>x</a>", "<a>xy</a</a>"],
        &["<a>xy</a>z</a>"],
    );
}

fn triggered(extra: Value) -> Value {
    let t1 = json!({"type": "tag", "begin": "<t1>", "content": const_("x"), "end": "</t>"});
    let t2 = json!({"type": "tag", "begin": "<t2>", "content": {"type": "json_schema", "json_schema": object()}, "end": "</t>"});
    let mut f = json!({"type": "triggered_tags", "triggers": ["<t"], "tags": [t1, t2]});
    f.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    f
}

#[test]
fn triggered_tags_dispatch_on_the_first_trigger() {
    check(
        triggered(json!({"excludes": ["Q"]})),
        &[
            "",
            "a<",
            "ab<t1>x</t>cd",
            "<<t1>x</t>",
            "<t1>x</t><t2>{\"a\":\"q\"}</t>",
        ],
        &["ab<t3", "abQ", "<t", "<t1>x</t>Q", "a<t1>x</t"],
    );
    check(
        triggered(json!({"at_least_one": true})),
        &["<t1>x</t>", "<t1>x</t>b<t1>x</t>c"],
        &["", "a<t1>x</t>"],
    );
    check(
        triggered(json!({"stop_after_first": true})),
        &["", "abc", "<t1>x</t>", "a<t1>x</t>"],
        &["a<t1>x</t>b"],
    );
    check(
        triggered(json!({"stop_after_first": true, "at_least_one": true})),
        &["<t1>x</t>"],
        &["", "a<t1>x</t>"],
    );
    // An exclusion that ends with the trigger, or before it ends, wins.
    check(
        triggered(json!({"excludes": ["a<", "t"]})),
        &["a", "b<"],
        &["a<t1>x</t>", "b<t1>x</t>", "bt"],
    );
    check(
        json!({"type": "tag", "begin": "<a>", "content": triggered(json!({})), "end": "</a>"}),
        &["<a>x<t1>x</t>y</a>", "<a></a>"],
        &["<a>x</a>y</a>"],
    );
}

#[test]
fn tags_with_separator_and_dispatch() {
    let t1 = json!({"type": "tag", "begin": "<t1>", "content": const_("x"), "end": "</t>"});
    check(
        json!({"type": "tags_with_separator", "separator": ",", "tags": [t1]}),
        &["", "<t1>x</t>", "<t1>x</t>,<t1>x</t>"],
        &["<t1>x</t>,", ",<t1>x</t>", "a"],
    );
    check(
        json!({"type": "tags_with_separator", "separator": ",", "tags": [t1], "at_least_one": true, "stop_after_first": true}),
        &["<t1>x</t>"],
        &["", "<t1>x</t>,<t1>x</t>"],
    );
    check(
        json!({"type": "dispatch", "rules": [["<c>", const_("1</c>")]], "excludes": ["!"]}),
        &["a<c>1</c>b", "<c>1</c><c>1</c>"],
        &["<c>2", "a!"],
    );
}

#[test]
fn the_older_structures_form_is_triggered_tags() {
    let t = json!({"type": "structural_tag", "triggers": ["<function="],
        "structures": [{"begin": "<function=get_weather>", "end": "</function>",
            "schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]});
    let a = Acceptor::new(gcd_schema::structural_tag(&t, &Options::default()).unwrap());
    assert!(a.accepts("hi <function=get_weather>{\"city\": \"Paris\"}</function> bye"));
    assert!(a.accepts(""));
    assert!(!a.accepts("<function=get_weather>{}</function>"));
    assert!(!a.accepts("<function=other>"));
}

#[test]
fn what_gcd_cannot_honour_is_refused_by_name() {
    let cases = [
        (json!({"type": "token", "token": 1}), "\"token\""),
        (json!({"type": "any_tokens"}), "\"any_tokens\""),
        (json!({"type": "any_text", "max_tokens": 4}), "max_tokens"),
        (
            json!({"type": "json_schema", "json_schema": {}, "style": "gemma"}),
            "gemma",
        ),
        (
            json!({"type": "json_schema", "json_schema": {}, "any_order": true}),
            "any_order",
        ),
        (
            json!({"type": "json_schema", "json_schema": {}, "max_whitespace_cnt": 2}),
            "max_whitespace_cnt",
        ),
        (
            json!({"type": "grammar", "grammar": "start: \"a\"", "syntax": "lark"}),
            "lark",
        ),
        (
            json!({"type": "tag", "begin": {"type": "token", "token": 1}, "content": const_("a"), "end": "b"}),
            "token format",
        ),
        (
            json!({"type": "json_schema", "style": "qwen_xml", "json_schema": {"type": "object",
            "properties": {"p": {"type": "string", "pattern": "a+"}}}}),
            "\"pattern\"",
        ),
    ];
    for (format, name) in cases {
        let e = error(tag(format.clone()));
        assert_eq!(e.kind(), SchemaErrorKind::Unsupported, "{format}: {e}");
        assert!(e.to_string().contains(name), "{format}: {e}");
    }
}

#[test]
fn malformed_tags_are_errors_that_say_where() {
    let cases = [
        (json!({"type": "structural_tag"}), "needs a \"format\""),
        (
            json!({"type": "other", "format": const_("a")}),
            "\"structural_tag\"",
        ),
        (tag(json!({"type": "nope"})), "unknown format type \"nope\""),
        (
            tag(json!({"type": "const_string", "value": 1})),
            "expected a string",
        ),
        (
            tag(json!({"type": "const_string", "value": "a", "extra": 1})),
            "unknown field \"extra\"",
        ),
        (
            tag(json!({"type": "sequence", "elements": []})),
            "at least one element",
        ),
        (
            tag(json!({"type": "tag", "begin": "<a>", "content": {"type": "any_text"}, "end": ""})),
            "non-empty end",
        ),
        (
            tag(triggered(json!({"triggers": ["<x"]}))),
            "starts with no trigger",
        ),
        (tag(json!({"type": "regex", "pattern": "a("})), "regex"),
        (
            tag(json!({"type": "grammar", "grammar": "root ::= missing"})),
            "EBNF",
        ),
    ];
    for (t, what) in cases {
        let e = error(t.clone());
        assert!(e.to_string().contains(what), "{t}: {e}");
    }
    let e = error(tag(json!({"type": "sequence", "elements": [const_("a"),
        {"type": "json_schema", "json_schema": {"type": "object", "minProperties": 2}}]})));
    assert!(
        e.pointer().starts_with("/format/elements/1/json_schema"),
        "{e}"
    );
}
