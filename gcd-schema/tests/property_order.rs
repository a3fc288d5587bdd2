//! `PropertyOrder::Any`: members in any order, each at most once, required
//! ones present; unions of objects told apart by their first key, or by
//! forking where it cannot.

mod common;

use common::Acceptor;
use gcd_schema::{compile, Options, PropertyOrder, Whitespace};
use serde_json::{json, Value};

fn any_order(schema: &Value) -> Result<Acceptor, gcd_schema::SchemaError> {
    let options = Options::default()
        .whitespace(Whitespace::SingleSpace)
        .properties(PropertyOrder::Any);
    compile(schema, &options).map(Acceptor::new)
}

fn check(schema: Value, ok: &[&str], bad: &[&str]) {
    let a = any_order(&schema).unwrap();
    for t in ok {
        assert!(a.accepts(t), "should accept {t} for {schema}");
    }
    for t in bad {
        assert!(!a.accepts(t), "should refuse {t} for {schema}");
    }
}

#[test]
fn members_in_any_order_each_once() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "string"}, "c": {"type": "boolean"}},
        "required": ["a", "c"],
        "additionalProperties": false
    });
    check(
        schema,
        &[
            r#"{"a": 1, "c": true}"#,
            r#"{"c": true, "a": 1}"#,
            r#"{"c": false, "b": "x", "a": 2}"#,
            r#"{"b": "x", "a": 2, "c": true}"#,
        ],
        &[
            r#"{"c": true}"#,
            r#"{"a": 1, "c": true, "a": 2}"#,
            r#"{"a": 1, "b": "x", "c": true, "b": "y"}"#,
            r#"{"a": 1, "c": true, "d": 0}"#,
            r#"{}"#,
        ],
    );
}

#[test]
fn objects_without_members() {
    check(
        json!({"type": "object", "additionalProperties": false}),
        &["{}"],
        &[r#"{"a": 1}"#],
    );
    check(
        json!({"type": "object", "properties": {"a": false}, "additionalProperties": false}),
        &["{}"],
        &[r#"{"a": 1}"#],
    );
}

#[test]
fn extra_keys_repeat_but_declared_ones_do_not() {
    let schema = json!({
        "type": "object",
        "properties": {"id": {"type": "integer"}},
        "patternProperties": {"^x-": {"type": "string"}},
        "additionalProperties": {"type": "integer"},
        "minProperties": 1
    });
    check(
        schema,
        &[
            r#"{"x-a": "s", "id": 1, "n": 2, "x-b": "t"}"#,
            r#"{"n": 2}"#,
            r#"{"id": 1}"#,
        ],
        &[
            r#"{}"#,
            r#"{"n": 2, "id": 1, "id": 3}"#,
            r#"{"x-a": 1}"#,
            r#"{"id": "1"}"#,
        ],
    );
}

#[test]
fn tool_call_unions_split_on_the_first_key() {
    // BFCL-style: one object per function, keyed by the function's name.
    let call = |name: &str, args: Value| json!({"type": "object", "properties": {name: args}, "required": [name], "additionalProperties": false});
    let args = json!({
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"],
        "additionalProperties": false
    });
    let schema = json!({"anyOf": [call("weather", args.clone()), call("news", args)]});
    check(
        schema,
        &[
            r#"{"weather": {"days": 3, "city": "Oslo"}}"#,
            r#"{"news": {"city": "Oslo"}}"#,
        ],
        &[
            r#"{"weather": {"days": 3}}"#,
            r#"{"weather": {"city": "Oslo"}, "news": {"city": "Oslo"}}"#,
            r#"{}"#,
        ],
    );
    // Shapes with several properties: after the first key, the rest of
    // that shape in any order.
    let schema = json!({"oneOf": [
        {"type": "object", "properties": {"a": {"const": 1}, "b": {"const": 2}, "c": {"const": 3}}, "required": ["a", "b"], "additionalProperties": false},
        {"type": "object", "properties": {"x": {"const": 4}, "y": {"const": 5}}, "additionalProperties": false}
    ]});
    check(
        schema,
        &[
            r#"{"b": 2, "c": 3, "a": 1}"#,
            r#"{"a": 1, "b": 2}"#,
            r#"{"y": 5}"#,
            r#"{"y": 5, "x": 4}"#,
            r#"{}"#,
        ],
        &[
            r#"{"b": 2}"#,
            r#"{"b": 2, "a": 1, "b": 2}"#,
            r#"{"y": 5, "a": 1}"#,
            r#"{"x": 4, "x": 4}"#,
        ],
    );
}

#[test]
fn unions_the_first_key_cannot_split_fork() {
    // Shapes sharing their keys, or one open to extra keys: each shape is
    // its own member set and the parser forks until they part.
    let shared = json!({"anyOf": [
        {"type": "object", "properties": {"kind": {"const": "a"}, "a": {"type": "integer"}}, "additionalProperties": false},
        {"type": "object", "properties": {"kind": {"const": "b"}, "b": {"type": "integer"}}, "additionalProperties": false}
    ]});
    check(
        shared.clone(),
        &[
            r#"{"kind": "a", "a": 1}"#,
            r#"{"a": 1, "kind": "a"}"#,
            r#"{"b": 2}"#,
            "{}",
        ],
        &[
            r#"{"kind": "a", "b": 1}"#,
            r#"{"a": 1, "b": 2}"#,
            r#"{"kind": "c"}"#,
        ],
    );
    let open = json!({"anyOf": [
        {"type": "object", "properties": {"a": {"type": "integer"}}},
        {"type": "object", "properties": {"b": {"type": "integer"}}, "additionalProperties": false}
    ]});
    check(
        open,
        &[
            r#"{"b": 1, "a": 2}"#,
            r#"{"b": "x"}"#,
            r#"{"b": 1}"#,
            r#"{"z": null}"#,
        ],
        &[r#"{"a": "x"}"#, r#"{"a": 1, "a": 2}"#],
    );
    assert!(!any_order(&shared)
        .unwrap()
        .accepts(r#"{"kind": "a", "kind": "a"}"#));
    // The same schema with members in schema order compiles too (split on
    // the tag's value).
    assert!(compile(&shared, &Options::default()).is_ok());
}
