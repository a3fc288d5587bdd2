//! Unions of object shapes (`not: {required: [..]}`, dependencies, `anyOf`,
//! `oneOf`, `allOf` with `not`) where the shapes differ in which names they
//! forbid or declare: instances with extra members, in other orders and
//! nested must get the verdict the `jsonschema` crate gives, in schema
//! order and in any order. All shapes read their first key in one lexer
//! context, so shapes whose "any other key" terminals differ used to tie
//! there and refuse valid documents.

mod common;

use common::Acceptor;
use gcd_schema::{compile, Escapes, Options, PropertyOrder, Whitespace};
use serde_json::{json, Value};

fn acceptor(schema: &Value, order: PropertyOrder) -> Result<Acceptor, gcd_schema::SchemaError> {
    let opts = Options::default()
        .whitespace(Whitespace::Json)
        .escapes(Escapes::Any)
        .properties(order);
    compile(schema, &opts).map(Acceptor::new)
}

/// Every instance gets `jsonschema`'s verdict under any order. Under
/// schema order (which refuses some valid orders by design, and some
/// unions whose value terminals clash once factored, with an error), no
/// invalid instance may pass.
fn agree(schema: Value, instances: &[&str]) {
    let oracle = jsonschema::validator_for(&schema).unwrap();
    let any = acceptor(&schema, PropertyOrder::Any).unwrap_or_else(|e| panic!("{schema}: {e}"));
    let ordered = acceptor(&schema, PropertyOrder::Schema).ok();
    for text in instances {
        let value: Value = serde_json::from_str(text).unwrap();
        let valid = oracle.is_valid(&value);
        assert_eq!(any.accepts(text), valid, "{schema} (any order) on {text}");
        if let (false, Some(ordered)) = (valid, &ordered) {
            assert!(
                !ordered.accepts(text),
                "{schema} (schema order) accepts {text}"
            );
        }
    }
}

#[test]
fn not_several_required_with_other_members() {
    agree(
        json!({"type": "object", "not": {"required": ["body", "bodyValue"]}}),
        &[
            r#"{}"#,
            r#"{"id": "x", "body": "b"}"#,
            r#"{"a": 1, "body": 2}"#,
            r#"{"a": 1, "bodyValue": 2, "c": 3}"#,
            r#"{"bodyValue": 1, "a": 1}"#,
            r#"{"id": "x", "body": "b", "bodyValue": 1}"#,
            r#"{"bodyValue": 1, "a": 1, "body": "b"}"#,
            r#"{"b": 1, "bodyValue": 2, "body": 3}"#,
        ],
    );
    // With declared properties beside the negation.
    agree(
        json!({
            "type": "object",
            "properties": {"id": {"type": "string"}, "body": {"type": "integer"}},
            "not": {"required": ["body", "bodyValue"]}
        }),
        &[
            r#"{"id": "x", "body": 1}"#,
            r#"{"x": 0, "id": "x", "bodyValue": true}"#,
            r#"{"id": "x", "body": "b"}"#,
            r#"{"id": 1}"#,
            r#"{"body": 1, "bodyValue": 1}"#,
        ],
    );
}

#[test]
fn nested_negations_and_dependencies() {
    agree(
        json!({
            "type": "object",
            "properties": {
                "inner": {"type": "object", "not": {"required": ["a", "b", "c"]}}
            },
            "required": ["inner"]
        }),
        &[
            r#"{"inner": {"z": 1, "a": 1, "b": 2}}"#,
            r#"{"q": [], "inner": {"c": 1, "y": 0, "a": 2}}"#,
            r#"{"inner": {"c": 1, "b": 0, "a": 2}}"#,
            r#"{"inner": {"x": {"a": 1, "b": 1, "c": 1}}}"#,
        ],
    );
    agree(
        json!({"type": "object", "dependentRequired": {"card": ["billing"]}}),
        &[
            r#"{"name": "x", "card": 1, "billing": 2}"#,
            r#"{"name": "x", "billing": 2}"#,
            r#"{"name": "x", "other": 2}"#,
            r#"{"name": "x", "card": 1}"#,
        ],
    );
    agree(
        json!({
            "type": "object",
            "properties": {"card": {"type": "integer"}},
            "dependentSchemas": {"card": {"required": ["billing"], "properties": {"billing": {"type": "string"}}}}
        }),
        &[
            r#"{"n": 0, "card": 1, "billing": "b"}"#,
            r#"{"n": 0, "billing": 2}"#,
            r#"{"card": 1, "n": 0, "billing": 2}"#,
            r#"{"card": 1}"#,
        ],
    );
}

#[test]
fn unions_of_open_shapes() {
    agree(
        json!({"anyOf": [
            {"type": "object", "properties": {"a": false}},
            {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}
        ]}),
        &[
            r#"{"x": 1, "b": 1}"#,
            r#"{"x": 1, "a": 1, "b": 1}"#,
            r#"{"x": 1, "a": 1}"#,
            r#"{"x": 1, "b": "s"}"#,
            r#"{"b": "s"}"#,
            r#"{"a": 1, "b": "s"}"#,
        ],
    );
    agree(
        json!({"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"const": "b"}, "n": {"type": "integer"}}, "required": ["kind", "n"]}
        ]}),
        &[
            r#"{"extra": 1, "kind": "a"}"#,
            r#"{"extra": 1, "n": 2, "kind": "b"}"#,
            r#"{"n": "x", "kind": "b"}"#,
            r#"{"kind": "c"}"#,
        ],
    );
    agree(
        json!({"type": "object", "allOf": [
            {"not": {"required": ["a", "b"]}},
            {"required": ["x"], "properties": {"x": {"type": "integer"}}}
        ]}),
        &[
            r#"{"x": 0, "a": 1, "c": 1}"#,
            r#"{"c": 1, "x": 0, "b": 1}"#,
            r#"{"x": 0, "a": 1, "b": 1}"#,
            r#"{"b": 1, "a": 0, "x": 0}"#,
            r#"{"a": 1, "x": "s"}"#,
        ],
    );
}

#[test]
fn overlapping_pattern_keys_in_a_union_are_refused() {
    // A pattern key against another branch's "any other key" (`{"ab": "s"}`
    // is valid through the second branch), and a pattern branch's own
    // "any other key" against another's (`{"zz": "s", "q": 1}` through the
    // first): both compiled into the wrong language before.
    for schema in [
        json!({"anyOf": [
            {"type": "object", "patternProperties": {"^a": {"type": "integer"}}, "additionalProperties": false},
            {"type": "object", "additionalProperties": {"type": "string"}}
        ]}),
        json!({"anyOf": [
            {"type": "object", "patternProperties": {"^x": {"type": "integer"}}, "properties": {"p": {"type": "null"}}},
            {"type": "object", "properties": {"q": false}, "additionalProperties": {"type": "string"}}
        ]}),
    ] {
        for order in [PropertyOrder::Any, PropertyOrder::Schema] {
            let e = acceptor(&schema, order)
                .err()
                .unwrap_or_else(|| panic!("{schema} compiled"));
            assert!(e.to_string().contains("patternProperties"), "{e}");
        }
    }
    // Pattern keys apart from the other branch's keys still compile.
    agree(
        json!({"anyOf": [
            {"type": "object", "patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": false},
            {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"], "additionalProperties": false}
        ]}),
        &[
            r#"{"x-a": 1}"#,
            r#"{"name": "n"}"#,
            r#"{"x-a": "s"}"#,
            r#"{"name": 1}"#,
            "{}",
        ],
    );
}
