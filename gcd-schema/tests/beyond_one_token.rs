//! What compiles beyond one token of lookahead and beyond one terminal's
//! automaton: unions of object shapes the parser forks between, exactly
//! one of several required sets, dependencies as branches, strings longer
//! than an automaton should unroll, and complements spelled as lookaheads.
//! Each accepted and refused text is checked against the brute-force
//! reference too (see `common::Acceptor`).

mod common;

use common::{check, error};
use gcd_schema::{compile, Escapes, Options, PropertyOrder, Whitespace};
use serde_json::{json, Value};

#[test]
fn large_enums_stay_flat() {
    // One alternation, not one nested group per value (regex-syntax caps
    // nesting at 250).
    let words: Vec<String> = (0..600).map(|i| format!("w{i}")).collect();
    let schema = json!({"anyOf": [{"enum": words[..300]}, {"enum": words[300..]}]});
    check(
        schema,
        &["\"w0\"", "\"w599\"", "\"w300\""],
        &["\"w600\"", "\"w\"", "0"],
    );
    // Values beside a long length bound are counted, not determinized.
    let long = "a".repeat(1500);
    check(
        json!({"enum": [long, "b"], "minLength": 1001}),
        &[&format!("\"{long}\"")],
        &["\"b\"", "\"a\""],
    );
}

#[test]
fn long_strings_are_chunked_without_whitespace_inside() {
    // Bounds above 1000 characters: a chain of 64-character lexemes. Each
    // length around the chunk edges and the bounds, with escapes and
    // multi-byte characters counting as one.
    let s = |n: usize, c: &str| format!("\"{}\"", c.repeat(n));
    let schema = json!({"type": "object", "properties": {"s": {"type": "string", "minLength": 130, "maxLength": 1100}}});
    // Any JSON whitespace: whitespace around the string is an ignored lexeme.
    let c = compile(&schema, &Options::default().whitespace(Whitespace::Json)).unwrap();
    let a = common::Acceptor::new(c);
    let doc = |body: String| format!("{{ \"s\" : {body} }}");
    for n in [130, 131, 191, 192, 193, 1023, 1024, 1088, 1099, 1100] {
        assert!(a.accepts(&doc(s(n, "a"))), "{n}");
    }
    for n in [0, 63, 64, 129, 1101, 1152] {
        assert!(!a.accepts(&doc(s(n, "a"))), "{n}");
    }
    assert!(a.accepts(&doc(s(140, "é"))));
    assert!(a.accepts(&doc(format!("\"{}\\n\\u00e9😀\"", "x".repeat(1097)))));
    assert!(!a.accepts(&doc(format!("\"{}\\n\\u00e9😀\"", "x".repeat(1098)))));
    // Whitespace is content inside the string, never an ignored lexeme.
    let spaced = format!("\"{} {}\"", "a".repeat(64), "b".repeat(100));
    assert!(a.accepts(&doc(spaced)));
    let broken = format!("\"{}\n{}\"", "a".repeat(64), "b".repeat(100));
    assert!(!a.accepts(&doc(broken)));
    // No upper bound, and bounds past what the rules may grow to.
    check(
        json!({"type": "string", "minLength": 1001}),
        &[&s(1001, "z"), &s(1500, "z")],
        &[&s(1000, "z")],
    );
    let e = error(json!({"type": "string", "maxLength": 100_000_000}));
    assert_eq!(e.keyword(), Some("maxLength"));
    let e = error(json!({"type": "string", "maxLength": 5000, "pattern": "^a+$"}));
    assert_eq!(e.keyword(), Some("maxLength"));
}

#[test]
fn chunked_bounds_accept_exactly_their_lengths() {
    // Bounds above 256 are chunked too (one DFA could hold them, but
    // 12,500 states for 500 characters cost a first mask milliseconds):
    // every length from 0 to past the bound, on both sides of each chunk
    // edge, with a two-byte character to count characters, not bytes. A
    // bound of 256 stays one DFA, the same language.
    for (lo, hi) in [
        (0, 257),
        (0, 500),
        (200, 330),
        (256, 512),
        (129, 300),
        (300, 300),
        (0, 256),
    ] {
        let schema = json!({"type": "string", "minLength": lo, "maxLength": hi});
        let a = common::Acceptor::new(compile(&schema, &Options::default()).unwrap());
        for n in 0..=hi + 70 {
            let c = if n % 3 == 0 { "é" } else { "a" };
            let text = format!("\"{}\"", c.repeat(n));
            assert_eq!(a.accepts(&text), (lo..=hi).contains(&n), "{lo}..={hi}: {n}");
        }
    }
}

#[test]
fn unions_of_objects_in_any_order() {
    // Shapes that share keys or allow extra ones: each is a member set and
    // the parser forks between them until they part.
    let schema = json!({"anyOf": [
        {"type": "object", "properties": {"type": {"type": "string"}, "id": {"type": "integer"}}, "required": ["id"], "additionalProperties": false},
        {"type": "object", "properties": {"type": {"const": "b"}, "city": {"type": "string"}}, "required": ["type"]}
    ]});
    let c = compile(&schema, &Options::default().properties(PropertyOrder::Any)).unwrap();
    assert!(!c.is_ll1());
    let a = common::Acceptor::new(c);
    for t in [
        r#"{"type": "a", "id": 1}"#,
        r#"{"id": 1, "type": "a"}"#,
        r#"{"type": "b"}"#,
        r#"{"city": "x", "type": "b", "other": [1]}"#,
        r#"{"type": "b", "id": 2}"#,
    ] {
        assert!(a.accepts(t), "{t}");
    }
    for t in [
        r#"{"type": "a"}"#,
        r#"{"type": "a", "city": "x"}"#,
        "{}",
        r#"{"id": 1, "id": 2}"#,
    ] {
        assert!(!a.accepts(t), "{t}");
    }
}

#[test]
fn one_of_by_required_names() {
    // Exactly one of the required sets present, the rest of the shape shared.
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"type": "integer"}},
        "oneOf": [{"required": ["a"]}, {"required": ["b", "c"]}]
    });
    for order in [PropertyOrder::Schema, PropertyOrder::Any] {
        let c = compile(&schema, &Options::default().properties(order)).unwrap();
        let a = common::Acceptor::new(c);
        for t in [
            r#"{"a": 1}"#,
            r#"{"a": 1, "b": 2}"#,
            r#"{"b": 2, "c": 3}"#,
            r#"{"a": 1, "c": 3}"#,
            r#"{"b": 1, "c": 2, "x": true}"#,
        ] {
            assert!(a.accepts(t), "{order:?} {t}");
        }
        for t in [
            "{}",
            r#"{"a": 1, "b": 2, "c": 3}"#,
            r#"{"b": 2}"#,
            r#"{"c": 3, "x": 0}"#,
            "1",
        ] {
            assert!(!a.accepts(t), "{order:?} {t}");
        }
    }
}

#[test]
fn dependencies_are_branches() {
    // A present property demands others (draft-07 array form and
    // dependentRequired), or a schema (dependentSchemas).
    let schema = json!({
        "type": "object",
        "properties": {"card": {"type": "string"}, "address": {"type": "string"}, "cvv": {"type": "integer"}},
        "additionalProperties": false,
        "dependencies": {"card": ["address"]},
        "dependentSchemas": {"cvv": {"required": ["card"]}}
    });
    for order in [PropertyOrder::Schema, PropertyOrder::Any] {
        let c = compile(&schema, &Options::default().properties(order)).unwrap();
        let a = common::Acceptor::new(c);
        for t in [
            "{}",
            r#"{"address": "x"}"#,
            r#"{"card": "1", "address": "x"}"#,
            r#"{"card": "1", "address": "x", "cvv": 1}"#,
        ] {
            assert!(a.accepts(t), "{order:?} {t}");
        }
        for t in [
            r#"{"card": "1"}"#,
            r#"{"cvv": 1}"#,
            r#"{"address": "x", "cvv": 1}"#,
            r#"{"x": 1}"#,
        ] {
            assert!(!a.accepts(t), "{order:?} {t}");
        }
    }
    // Non-objects meet every dependency.
    check(
        json!({"dependentRequired": {"a": ["b"]}}),
        &["1", "\"s\"", r#"{"a": 1, "b": 2}"#],
        &[r#"{"a": 1}"#],
    );
    // Also where the schema a property demands holds no non-object, or
    // nothing at all (found by the hypothesis-jsonschema oracle on the
    // suite's draft7/dependencies.json).
    check(
        json!({"dependentSchemas": {"bar": false}}),
        &["null", "1", "[]", "\"x\"", r#"{"foo": 1}"#],
        &[r#"{"bar": 1}"#],
    );
    check(
        json!({"dependencies": {"x": {"type": "object", "required": ["y"]}}}),
        &["null", "true", "[1]", r#"{"x": 1, "y": 2}"#, "{}"],
        &[r#"{"x": 1}"#],
    );
    check(
        json!({"type": "object", "dependencies": {"x": {"not": {}}}}),
        &["{}", r#"{"y": 1}"#],
        &["null", r#"{"x": 1}"#],
    );
    let many: serde_json::Map<String, Value> =
        (0..7).map(|i| (format!("k{i}"), json!(["z"]))).collect();
    assert_eq!(
        error(json!({ "dependencies": many })).keyword(),
        Some("dependencies")
    );
}

#[test]
fn one_of_strings_with_disjoint_spellings() {
    check(
        json!({"oneOf": [{"type": "string", "format": "date"}, {"type": "string", "pattern": "^[a-z]+$"}, {"const": 7}]}),
        &["\"2024-01-31\"", "\"abc\"", "7"],
        &["\"ABC\"", "\"2024-01-31x\"", "8"],
    );
    // Overlapping spellings: which branches hold depends on the value.
    assert_eq!(error(json!({"oneOf": [{"type": "string", "pattern": "^a"}, {"type": "string", "pattern": "b$"}]})).keyword(), Some("oneOf"));
}

#[test]
fn patterns_that_match_declared_names() {
    // A declared name the pattern matches meets both schemas; a required
    // undeclared one takes the pattern's; other matching keys the pattern's.
    let schema = json!({
        "type": "object",
        "properties": {"basic": {"type": "integer"}},
        "patternProperties": {"^[a-z]+$": {"minimum": 10}},
        "required": ["need"],
        "additionalProperties": false
    });
    for order in [PropertyOrder::Schema, PropertyOrder::Any] {
        let a = common::Acceptor::new(
            compile(
                &schema,
                &Options::default().properties(order).escapes(Escapes::Any),
            )
            .unwrap(),
        );
        for t in [
            r#"{"need": 10}"#,
            r#"{"basic": 12, "need": 11}"#,
            r#"{"need": 10, "x": 99}"#,
            r#"{"b\u0061sic": 10, "need": 10}"#,
        ] {
            assert!(a.accepts(t), "{order:?} {t}");
        }
        for t in [
            r#"{"basic": 5, "need": 10}"#,
            r#"{"need": 9}"#,
            r#"{"basic": 10.5, "need": 10}"#,
            r#"{"need": 10, "X": 1}"#,
            "{}",
            r#"{"basic": 12, "basic": 12, "need": 10}"#,
        ] {
            assert!(!a.accepts(t), "{order:?} {t}");
        }
    }
}

#[test]
fn not_an_enum_of_strings() {
    // Every value but these strings, in any spelling.
    check(
        json!({"not": {"enum": ["a", "b\"c"]}}),
        &["\"ab\"", "\"\"", "\"b\"", "1", "null", "{}", "[\"a\"]"],
        &["\"a\"", "\"\\u0061\"", r#""b\"c""#],
    );
    check(
        json!({"type": "string", "not": {"enum": ["x"]}, "allOf": [{"not": {"enum": ["y"]}}]}),
        &["\"xy\"", "\"z\""],
        &["\"x\"", "\"y\"", "1"],
    );
}

#[test]
fn not_several_required_names() {
    // Objects missing at least one of the names; no other value.
    check(
        json!({"type": "object", "not": {"required": ["a", "b"]}}),
        &["{}", r#"{"a": 1}"#, r#"{"b": 1, "c": 2}"#],
        &[r#"{"a": 1, "b": 2}"#, r#"{"b": 1, "c": 2, "a": 0}"#],
    );
    // Another member before the one present (found on held-out MaskBench
    // files: the other branch's name was refused after any member).
    check(
        json!({"type": "object", "not": {"required": ["body", "bodyValue"]}}),
        &[
            r#"{"id": "x", "body": "b"}"#,
            r#"{"a": 1, "body": 2}"#,
            r#"{"a": 1, "bodyValue": 2, "c": 3}"#,
            r#"{"bodyValue": 1}"#,
            r#"{"z": {"body": 1, "bodyValue": 2}, "body": 3}"#,
        ],
        &[
            r#"{"id": "x", "body": "b", "bodyValue": 1}"#,
            r#"{"bodyValue": 1, "a": 1, "body": "b"}"#,
        ],
    );
    check(
        json!({"not": {"required": ["a", "b"]}}),
        &["{}"],
        &["1", "\"s\"", "null"],
    );
}
