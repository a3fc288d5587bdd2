//! Schemas gcd refuses, by error kind: malformed keywords (with the
//! keyword and JSON pointer) and generated grammars past gcd-core's limits
//! (naming the limit). Unsupported and unsatisfiable schemas are checked
//! beside their keywords in `keywords.rs`.

mod common;

use common::error;
use gcd_schema::{compile, Limits, Options, SchemaErrorKind};
use serde_json::json;

/// Malformed schemas and grammars past gcd-core's limits, by kind, with the
/// keyword and JSON pointer where there is one.
#[test]
fn invalid_schemas_and_grammar_limits_by_kind() {
    for (s, keyword, pointer) in [
        (json!({"required": "a"}), "required", ""),
        (
            json!({"properties": {"a": {"required": [1]}}}),
            "required",
            "/properties/a",
        ),
        (json!({"properties": [1]}), "properties", ""),
        (json!({"patternProperties": 3}), "patternProperties", ""),
    ] {
        let e = error(s.clone());
        assert_eq!(e.kind(), SchemaErrorKind::Invalid, "{s}: {e}");
        assert_eq!(e.keyword(), Some(keyword), "{s}: {e}");
        assert_eq!(e.pointer(), pointer, "{s}: {e}");
    }
    let object = json!({"type": "object", "properties": {
        "name": {"type": "string", "pattern": "^[a-z]{2,12}$"},
        "when": {"type": "string", "format": "date-time"},
    }});
    assert!(compile(&object, &Options::default()).is_ok());
    let e = compile(&object, &Options::default().max_lexer_states(8)).unwrap_err();
    assert_eq!(e.kind(), SchemaErrorKind::Grammar, "{e}");
    assert!(
        e.to_string().contains("more than 8 states"),
        "names the limit: {e}"
    );
}

/// `items` nested `depth` times around a string schema, built without
/// `json!` (which copies its arguments: quadratic at this depth).
fn nested(depth: usize) -> serde_json::Value {
    let mut v = json!({"type": "string"});
    for _ in 0..depth {
        let mut m = serde_json::Map::new();
        m.insert("type".into(), "array".into());
        m.insert("items".into(), v);
        v = serde_json::Value::Object(m);
    }
    v
}

/// Takes a deep value apart level by level (its own drop recurses once per
/// level and would overflow the stack).
fn drop_nested(mut v: serde_json::Value) {
    loop {
        let inner = match &mut v {
            serde_json::Value::Object(m) => m.remove("items"),
            _ => None,
        };
        match inner {
            Some(inner) => v = inner,
            None => break,
        }
    }
}

/// A schema built as a value can nest far deeper than serde_json parses:
/// a million levels are refused at once with the limit's name and where,
/// never a stack overflow; a raised limit lets a deep one compile.
#[test]
fn nesting_deeper_than_the_limit_is_refused_first() {
    let deep = nested(1_000_000);
    let e = compile(&deep, &Options::default()).unwrap_err();
    assert_eq!(e.kind(), SchemaErrorKind::TooLarge, "{e}");
    assert!(e.to_string().contains("Limits::max_schema_depth"), "{e}");
    assert!(e.pointer().starts_with("/items/items/"), "{}", e.pointer());
    assert_eq!(
        e.pointer().matches("/items").count(),
        256,
        "{}",
        e.pointer()
    );
    drop_nested(deep);
    // Within the default limit, and past it with a raised one.
    assert!(compile(&nested(200), &Options::default()).is_ok());
    let deeper = nested(300);
    assert_eq!(
        compile(&deeper, &Options::default()).unwrap_err().kind(),
        SchemaErrorKind::TooLarge
    );
    assert!(compile(&deeper, &Options::default().max_depth(400)).is_ok());
    // Where a sibling is deeper, the pointer names its path.
    let e = compile(
        &json!({"anyOf": [{"type": "null"}, nested(300)]}),
        &Options::default(),
    )
    .unwrap_err();
    assert!(
        e.pointer().starts_with("/anyOf/1/items/"),
        "{}",
        e.pointer()
    );
}

/// The limits a schema can reach, each lowered below a small schema that
/// compiles by default: the error names the limit.
#[test]
fn lowered_limits_name_themselves() {
    let named = |schema: serde_json::Value, limits: Limits, limit: &str| {
        assert!(compile(&schema, &Options::default()).is_ok(), "{schema}");
        let e = compile(&schema, &Options::default().limits(limits)).unwrap_err();
        assert!(e.to_string().contains(limit), "names `{limit}`: {e}");
    };
    let mut l = Limits::default();
    l.max_string_length = 100;
    named(
        json!({"type": "string", "maxLength": 200}),
        l,
        "Limits::max_string_length",
    );
    let mut l = Limits::default();
    l.max_array_positions = 5;
    named(
        json!({"type": "array", "minItems": 6, "items": {"type": "integer"}}),
        l,
        "Limits::max_array_positions",
    );
    let mut l = Limits::default();
    l.max_schema_depth = 2;
    named(
        json!({"type": "array", "items": {"type": "array", "items": {"type": "null"}}}),
        l,
        "Limits::max_schema_depth",
    );
    // Optional properties in schema order: every later key may follow
    // each member, so the lexer's states share long lists of keys.
    let props: serde_json::Map<_, _> = (0..100)
        .map(|i| (format!("key{i}"), json!({"type": "integer"})))
        .collect();
    let mut l = Limits::default();
    l.max_lexer_members = 1_000;
    named(
        json!({"type": "object", "properties": props}),
        l,
        "Limits::max_lexer_members",
    );
    let mut l = Limits::default();
    l.max_compile_time = Some(std::time::Duration::ZERO);
    named(json!({"type": "integer"}), l, "Limits::max_compile_time");
}

/// An unsatisfiable schema names the keywords that clash, by pointer,
/// down into properties and allOf parts.
#[test]
fn unsatisfiable_schemas_name_the_clashing_keywords() {
    let cases = [
        (
            json!({"title": "t", "type": "integer", "minimum": 5, "maximum": 3}),
            &["`/minimum`", "`/maximum`"][..],
        ),
        (
            json!({"allOf": [{"type": "string"}, {"type": "integer"}]}),
            &["`/allOf/0/type`", "`/allOf/1/type`"],
        ),
        (
            json!({"type": "object", "properties": {"a": {"enum": [1, 2], "type": "string"}}, "required": ["a"]}),
            &[
                "`/properties/a/enum`",
                "`/properties/a/type`",
                "`/required`",
            ],
        ),
    ];
    for (schema, parts) in cases {
        let e = error(schema.clone());
        assert_eq!(e.kind(), SchemaErrorKind::Unsatisfiable, "{e}");
        let msg = e.to_string();
        for p in parts {
            assert!(msg.contains(p), "{schema}: {msg} lacks {p}");
        }
        // Not named: what does not take part (an annotation, say).
        assert!(!msg.contains("title"), "{msg}");
    }
}

/// llguidance's `x-guidance` options: the whitespace ones that map onto a
/// gcd policy are honoured, every other one not at its default is refused
/// by name (they change the output, so ignoring them is not an option).
#[test]
fn x_guidance_options_are_honoured_or_refused() {
    use common::Acceptor;
    let with = |x: serde_json::Value| json!({"x-guidance": x, "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}});
    let accepts = |x: serde_json::Value, text: &str| {
        Acceptor::new(compile(&with(x), &Options::default()).unwrap()).accepts(text)
    };
    // Compact.
    assert!(accepts(
        json!({"whitespace_flexible": false}),
        r#"{"a":1,"b":2}"#
    ));
    assert!(!accepts(
        json!({"whitespace_flexible": false}),
        r#"{"a": 1}"#
    ));
    // Any JSON whitespace, also where gcd's default cap puts none.
    for x in [
        json!({}),
        json!({"whitespace_flexible": true}),
        json!({"whitespace_pattern": "[\\x20\\x0A\\x0D\\x09]+"}),
    ] {
        assert!(accepts(x.clone(), "{ \"a\" :1 ,\n\"b\": 2 }"), "{x}");
    }
    // Python's separators, exactly.
    let py = json!({"whitespace_flexible": false, "item_separator": ", ", "key_separator": ": "});
    assert!(accepts(py.clone(), r#"{"a": 1, "b": 2}"#) && !accepts(py, r#"{"a":1, "b": 2}"#));
    // Defaults are no-ops; anything else is named.
    assert!(compile(
        &with(json!({"coerce_one_of": false, "lenient": false})),
        &Options::default()
    )
    .is_ok());
    for (x, named) in [
        (json!({"coerce_one_of": true}), "coerce_one_of"),
        (json!({"lenient": true}), "lenient"),
        (
            json!({"whitespace_pattern": "[ ]{0,4}"}),
            "whitespace_pattern",
        ),
        (json!({"item_separator": "\\s*,\\s*"}), "item_separator"),
        (
            json!({"json_allowed_escapes": "nrbtf\\\""}),
            "json_allowed_escapes",
        ),
        (json!({"something_new": 1}), "something_new"),
    ] {
        let e = compile(&with(x.clone()), &Options::default())
            .err()
            .unwrap_or_else(|| panic!("{x} compiled"));
        assert_eq!(e.kind(), SchemaErrorKind::Unsupported, "{e}");
        assert!(e.to_string().contains(named), "{x}: {e}");
    }
}
