//! One test per keyword: what the schema allows is accepted, what it
//! forbids is refused, and what we cannot enforce is an error naming the
//! keyword and the pointer.

mod common;

use common::{accepts, check, error};
use gcd_schema::{compile, Escapes, Options, SchemaErrorKind, Whitespace};
use serde_json::{json, Value};

#[test]
fn type_and_type_arrays() {
    check(
        json!({"type": "integer"}),
        &["0", "-7", "12", "3.0", "1e5"],
        &["1.5", "\"1\"", "null", "01"],
    );
    check(
        json!({"type": ["string", "null"]}),
        &["\"x\"", "null"],
        &["1", "true", "[]"],
    );
    check(
        json!({"type": "boolean"}),
        &["true", "false"],
        &["null", "0"],
    );
    check(
        json!({"type": "number"}),
        &["1.5e-3", "-0", "2"],
        &["+1", ".5", "1."],
    );
}

#[test]
fn properties_required_and_order() {
    let s = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
        "required": ["name"],
        "additionalProperties": false
    });
    check(
        s.clone(),
        &[
            r#"{"name":"a"}"#,
            r#"{"name": "a", "age": 3}"#,
            "{ \"name\" : \"a\" ,\n \"age\":3 }",
        ],
        &[
            "{}",                            // required missing
            r#"{"age": 3}"#,                 // required missing
            r#"{"name": 1}"#,                // wrong type
            r#"{"name": "a", "age": "3"}"#,  // wrong type
            r#"{"name": "a", "extra": 1}"#,  // additionalProperties false
            r#"{"name": "a", "name": "b"}"#, // duplicate key
            r#"{"name": "a",}"#,             // trailing comma
        ],
    );
    // Schema order: a documented restriction (valid, but refused).
    assert!(!accepts(&s, Whitespace::Json, r#"{"age": 3, "name": "a"}"#));
}

#[test]
fn additional_properties_schema_and_escaped_keys() {
    let s = json!({"properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "string"}});
    check(
        s.clone(),
        &[
            r#"{"a": 1, "b": "x", "c": "y"}"#,
            r#"{"b": "x"}"#,
            "{}",
            r#"{"ab": "x"}"#,
        ],
        &[r#"{"a": 1, "b": 2}"#, r#"{"a": "x"}"#],
    );
    // An escaped spelling of "a" is still "a": it must satisfy the schema of
    // "a", so it cannot sneak through as an additional property.
    assert!(!accepts(&s, Whitespace::Json, r#"{"\u0061": "x"}"#));
    // With every escape accepted, it is the property "a".
    assert!(accepts(&s, Whitespace::Json, r#"{"\u0061": 1}"#));
    // Canonical escapes (the default) only refuse more, never accept more.
    let canon = compile(&s, &Options::default()).unwrap();
    let acc = common::Acceptor::new(canon);
    assert!(!acc.accepts(r#"{"\u0061": "x"}"#));
    assert!(!acc.accepts(r#"{"\u0061": 1}"#));
    assert!(acc.accepts(r#"{"a": 1}"#));
}

/// MaskBench Github_hard---o61085: items are `allOf` a `$ref` with
/// `additionalProperties: false` beside properties it does not declare.
/// Uniting the properties would accept keys the referenced part forbids.
#[test]
fn all_of_respects_additional_properties() {
    let closed = json!({"properties": {"w": {"type": "number"}}, "additionalProperties": false});
    // Each key meets what each part says of it: `id` is an extra key the
    // closed part forbids, so a document needing it is impossible.
    let e = error(json!({
        "type": "object",
        "allOf": [closed],
        "properties": {"id": {"type": "string"}},
        "required": ["id"],
        "additionalProperties": false
    }));
    assert_eq!(e.kind(), SchemaErrorKind::Unsatisfiable, "{e}");
    check(
        json!({"allOf": [closed], "properties": {"w": {"minimum": 1}, "id": {"type": "string"}}, "type": "object"}),
        &[r#"{"w": 2}"#, "{}"],
        &[
            r#"{"id": "x"}"#,
            r#"{"w": 0}"#,
            r#"{"x": 1}"#,
            r#"{"w": "a"}"#,
        ],
    );
    // Both closed over the same keys: the merge is exact.
    check(
        json!({
            "allOf": [closed],
            "properties": {"w": {"minimum": 1}},
            "additionalProperties": false,
            "type": "object"
        }),
        &[r#"{"w": 2}"#, "{}"],
        &[r#"{"w": 0}"#, r#"{"x": 1}"#],
    );
}

#[test]
fn required_without_properties() {
    check(
        json!({"required": ["id"]}),
        &[r#"{"id": null}"#, r#"{"id": 1, "x": 2}"#],
        &["{}", r#"{"x": 2}"#],
    );
    // Without a type, only the object part is impossible.
    check(
        json!({"required": ["id"], "additionalProperties": false}),
        &["1", "\"s\""],
        &["{}", r#"{"id": 1}"#],
    );
    assert_eq!(
        error(json!({"type": "object", "required": ["id"], "additionalProperties": false})).kind(),
        SchemaErrorKind::Unsatisfiable
    );
}

#[test]
fn enum_and_const() {
    check(
        json!({"enum": ["red", "green", 3, null]}),
        &["\"red\"", "\"green\"", "3", "3.0", "null"],
        &["\"blue\"", "4", "\"Red\""],
    );
    check(
        json!({"const": {"a": [1, "x"]}}),
        &[r#"{"a": [1, "x"]}"#],
        &[r#"{"a": [1]}"#, r#"{"a": [1, "x"], "b": 1}"#],
    );
    check(
        json!({"type": "string", "enum": ["a", 1]}),
        &["\"a\""],
        &["1"],
    );
    // Beside other keywords: the values that also meet them.
    check(
        json!({"enum": ["a", "abcd", 5, 50, null, true, false], "maxLength": 3, "maximum": 10}),
        &["\"a\"", "5", "null", "true", "false"],
        &["\"abcd\"", "50"],
    );
    check(
        json!({"const": "x-1", "pattern": "^x-[0-9]$", "type": "string"}),
        &["\"x-1\""],
        &["\"x-2\""],
    );
    check(
        json!({"enum": [[1], {"a": 1}, "s"], "type": ["array", "object", "string"], "minLength": 2}),
        &["[1]", "{\"a\": 1}"],
        &["\"s\""],
    );
    assert_eq!(
        error(json!({"const": "ab", "maxLength": 1})).kind(),
        SchemaErrorKind::Unsatisfiable
    );
    // A container value beside keywords that constrain containers.
    assert_eq!(
        error(json!({"enum": [[1, 2]], "maxItems": 1})).keyword(),
        Some("enum")
    );
}

#[test]
fn arrays() {
    check(
        json!({"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3}),
        &["[1]", "[1, 2, 3]"],
        &["[]", "[1,2,3,4]", "[1.5]"],
    );
    check(
        json!({"prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false}),
        &["[]", "[\"a\"]", "[\"a\", 1]"],
        &["[1]", "[\"a\", 1, 2]"],
    );
    // draft-04 array form of items, with additionalItems.
    check(
        json!({"items": [{"type": "string"}], "additionalItems": {"type": "boolean"}}),
        &["[\"a\", true, false]"],
        &["[\"a\", 1]"],
    );
    assert_eq!(
        error(json!({"uniqueItems": true})).to_string(),
        "unsupported keyword \"uniqueItems\" at /"
    );
}

#[test]
fn string_lengths_count_characters() {
    check(
        json!({"type": "string", "minLength": 2, "maxLength": 3}),
        &["\"ab\"", "\"abc\"", "\"é😀\"", r#""\n\u0041""#],
        &["\"a\"", "\"abcd\"", "\"😀\""],
    );
}

#[test]
fn patterns() {
    check(
        json!({"pattern": "^[a-z]+-[0-9]{2}$"}),
        &["\"ab-12\"", "5"],
        &["\"ab-1\"", "\"AB-12\"", "\"xab-123\""],
    );
    check(json!({"pattern": "b+"}), &["\"abbbc\""], &["\"ac\""]);
    let e = error(json!({"properties": {"p": {"pattern": "(?=x)"}}}));
    assert_eq!(e.keyword(), Some("pattern"));
    assert_eq!(e.pointer(), "/properties/p");
}

#[test]
fn formats() {
    check(
        json!({"format": "date"}),
        &["\"2024-02-29\""],
        &["\"2023-02-29\"", "\"2024-2-01\""],
    );
    check(
        json!({"format": "uuid"}),
        &["\"123e4567-e89b-12d3-a456-426614174000\""],
        &["\"123e4567\""],
    );
    check(
        json!({"format": "ipv4"}),
        &["\"10.0.0.255\""],
        &["\"10.0.0.256\""],
    );
    check(
        json!({"format": "date-time"}),
        &["\"2024-01-01T10:00:00Z\""],
        &["\"2024-01-01\""],
    );
    check(
        json!({"format": "email"}),
        &["\"a.b@example.com\""],
        &["\"a..b@example.com\"", "\"a@b@c\""],
    );
    assert_eq!(
        error(json!({"format": "idn-email"})).keyword(),
        Some("format")
    );
}

#[test]
fn pattern_format_and_length_meet() {
    // The string must satisfy every constraint at once.
    check(
        json!({"type": "string", "pattern": "^[a-z]+$", "maxLength": 3}),
        &[r#""abc""#, r#""a""#, r#""\u0061b""#],
        &[r#""abcd""#, r#""ab1""#, r#""""#],
    );
    check(
        json!({"type": "string", "format": "date", "minLength": 10, "maxLength": 10}),
        &[r#""2024-02-29""#],
        &[r#""2023-02-29""#, r#""x""#],
    );
    // Constraints that no string meets leave the other types.
    check(
        json!({"anyOf": [{"type": "string", "pattern": "^x", "format": "uuid"}, {"type": "integer"}]}),
        &["5"],
        &[r#""123e4567-e89b-12d3-a456-426614174000""#, r#""x""#],
    );
    check(
        json!({"anyOf": [{"type": "string", "minLength": 5, "maxLength": 2}, {"type": "integer"}]}),
        &["5"],
        &[r#""abc""#],
    );
    // Values of an enum beside them, and a union with another string.
    check(
        json!({"enum": ["ab", "abcd", "a1"], "pattern": "^[a-z]+$", "maxLength": 3}),
        &[r#""ab""#],
        &[r#""abcd""#, r#""a1""#],
    );
    check(
        json!({"anyOf": [
            {"type": "string", "pattern": "^[a-z]+$", "maxLength": 2},
            {"type": "string", "pattern": "^[0-9]+$", "minLength": 4},
            {"const": "ZZZ"}
        ]}),
        &[r#""ab""#, r#""1234""#, r#""ZZZ""#],
        &[r#""abc""#, r#""123""#, r#""ZZ""#],
    );
}

#[test]
fn formats_no_draft_defines_only_annotate() {
    // Unknown to every validator, so not assertions: any string passes,
    // and the caller is told which formats were not enforced, and where.
    let schema = json!({
        "type": "object",
        "properties": {
            "p": {"type": "string", "format": "path"},
            "u": {"type": "string", "format": "url", "maxLength": 3},
            "d": {"type": "string", "format": "date"}
        },
        "required": ["p", "u", "d"]
    });
    check(
        schema.clone(),
        &[r#"{"p": "not a path?", "u": "abc", "d": "2024-02-29"}"#],
        &[
            r#"{"p": "x", "u": "abcd", "d": "2024-02-29"}"#,
            r#"{"p": "x", "u": "a", "d": "2023-02-29"}"#,
        ],
    );
    let compiled = compile(&schema, &Options::default()).unwrap();
    let notes: Vec<String> = compiled.warnings().iter().map(|d| d.to_string()).collect();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[0].contains("\"path\" at /properties/p"), "{notes:?}");
    assert!(notes[1].contains("\"url\" at /properties/u"), "{notes:?}");
    assert!(compiled
        .warnings()
        .iter()
        .all(|d| d.warning && d.kind == gcd_core::error::DiagnosticKind::Annotation));
    // Standard formats gcd does not enforce stay errors.
    for f in ["idn-hostname", "regex"] {
        assert_eq!(error(json!({"format": f})).keyword(), Some("format"), "{f}");
    }
}

#[test]
fn integer_bounds() {
    check(
        json!({"type": "integer", "minimum": 0, "maximum": 255}),
        &["0", "255", "17", "-0"],
        &["256", "300", "-1", "1000"],
    );
    check(
        json!({"type": "integer", "exclusiveMinimum": -3, "exclusiveMaximum": 3}),
        &["-2", "2"],
        &["-3", "3"],
    );
    check(
        json!({"type": "integer", "minimum": 1.5}),
        &["2", "100"],
        &["1", "0"],
    );
    // draft-04 boolean exclusiveMaximum.
    check(
        json!({"type": "integer", "maximum": 10, "exclusiveMaximum": true}),
        &["9"],
        &["10"],
    );
}

#[test]
fn number_bounds() {
    check(
        json!({"type": "number", "minimum": -1.5, "exclusiveMaximum": 2}),
        &["-1.5", "0", "1.999", "-0.0", "1", "-1.25"],
        &["-1.51", "2", "2.0", "7", "-2"],
    );
    // Exponent spellings: by value, after a mantissa in [0.1, 1000) (a
    // documented subset); where a bound at zero leaves a sign free, any.
    check(
        json!({"type": "number", "minimum": 1}),
        &["1e2", "1.5E+1", "0.1e1", "100e-2", "1e999"],
        &["9.99e-1", "0.5e0", "1000e-3", "0.01e2", "-1e2"],
    );
    check(
        json!({"type": "number", "minimum": 0}),
        &["1e2", "1e-06", "0.5E+3", "-0e5", "0.0e1", "12"],
        &["-1e3", "-3.5", "-0.1e1"],
    );
    check(
        json!({"type": "number", "exclusiveMinimum": 0}),
        &["0.001", "3", "1e-06", "0.01e2"],
        &["0", "-0.0", "-1", "0e5", "0.0e-1", "-2e1"],
    );
    check(
        json!({"type": "number", "maximum": 0}),
        &["-1e3", "-0e5", "0.0e1", "-3.5"],
        &["1e-06", "0.5E+3", "12"],
    );
    // Both bounds inside one integer interval.
    check(
        json!({"type": "number", "minimum": 0.25, "maximum": 0.75}),
        &["0.25", "0.5", "0.750", "2.5e-1", "7.5E-1", "0.3e0", "50e-2"],
        &["0.2499", "0.76", "0", "1", "2.4e-1", "7.6e-1", "-0.5"],
    );
}

#[test]
fn any_of_and_one_of() {
    check(
        json!({"anyOf": [{"type": "string", "maxLength": 1}, {"type": "integer"}, {"type": "object", "properties": {"k": {"type": "null"}}, "additionalProperties": false}]}),
        &["\"a\"", "5", r#"{"k": null}"#, "{}"],
        &["\"ab\"", "1.5", r#"{"j": 1}"#],
    );
    // Overlapping finite sets: oneOf keeps values in exactly one branch.
    check(
        json!({"oneOf": [{"enum": [1, 2]}, {"enum": [2, 3]}]}),
        &["1", "3"],
        &["2"],
    );
    // Two full types: every string is in both, so none is valid.
    check(
        json!({"oneOf": [{"type": "string"}, {"type": "string"}, {"type": "null"}]}),
        &["null"],
        &["\"x\""],
    );
    // The one branch with objects keeps all its shapes, an anyOf's too
    // (found by the hypothesis-jsonschema oracle on Github_trivial---o65442).
    check(
        json!({"oneOf": [{"type": "null"}, {"type": "object", "anyOf": [{"required": ["s"]}, {"required": ["p"]}]}]}),
        &["null", r#"{"s": 1}"#, r#"{"p": 1}"#, r#"{"p": 1, "s": 2}"#],
        &["{}", r#"{"q": 1}"#, "1"],
    );
    assert_eq!(error(json!({"oneOf": [{"type": "object", "required": ["a"]}, {"type": "object", "required": ["b"]}]})).keyword(), Some("oneOf"));
}

#[test]
fn unions_of_objects() {
    // anyOf: the union of the branches' object languages.
    let shapes = json!({"anyOf": [
        {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}}, "required": ["kind", "r"], "additionalProperties": false},
        {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "integer"}}, "required": ["kind"], "additionalProperties": false}
    ]});
    let ok = [
        r#"{"kind": "circle", "r": 1.5}"#,
        r#"{"kind": "square", "side": 2}"#,
        r#"{"kind": "square"}"#,
    ];
    let bad = [
        r#"{"kind": "circle"}"#,
        r#"{"kind": "circle", "side": 2}"#,
        r#"{"kind": "square", "r": 1}"#,
        r#"{"kind": "oval"}"#,
        "{}",
    ];
    check(shapes.clone(), &ok, &bad);
    // oneOf with a tag property whose values differ: exact, same language.
    let mut one = shapes.clone();
    one["oneOf"] = one["anyOf"].take();
    one.as_object_mut().unwrap().remove("anyOf");
    check(one, &ok, &bad);
    // Different first keys.
    check(
        json!({"anyOf": [
            {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"], "additionalProperties": false},
            {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"], "additionalProperties": false}
        ]}),
        &[r#"{"a": 1}"#, r#"{"b": "x"}"#],
        &[r#"{"a": "x"}"#, r#"{"b": 1}"#, r#"{"a": 1, "b": "x"}"#],
    );
}

#[test]
fn all_of_merges_or_refuses() {
    check(
        json!({"allOf": [{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}, {"properties": {"b": {"type": "string"}}}]}),
        &[r#"{"a": 1}"#, r#"{"a": 1, "b": "x"}"#],
        &[r#"{"b": "x"}"#, r#"{"a": "1"}"#],
    );
    // `b` is an extra key to the closed part: only `a` remains.
    check(
        json!({"allOf": [{"properties": {"a": true}, "additionalProperties": false}, {"properties": {"b": true}}]}),
        &["{}", r#"{"a": [1]}"#],
        &[r#"{"b": 1}"#, r#"{"a": 1, "c": 2}"#],
    );
    // Two enums: the values both list; two anyOfs: every pair of branches.
    check(
        json!({"allOf": [{"enum": [1, "a", "b", null]}, {"enum": [1.0, "b", true]}]}),
        &["1", "\"b\""],
        &["\"a\"", "null", "true"],
    );
    // An integral float is that integer past 2^53 too (found by the
    // hypothesis-jsonschema oracle on a Synthesized MaskBench schema).
    check(
        json!({"allOf": [{"enum": [9007199254740992.0]}, {"enum": [9007199254740992u64]}]}),
        &["9007199254740992"],
        &["9007199254740993", "9007199254740991"],
    );
    check(
        json!({"const": 1e20}),
        &["100000000000000000000"],
        &["100000000000000000001"],
    );
    check(
        json!({"allOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}, {"anyOf": [{"minimum": 5}, {"maxLength": 1}]}]}),
        // Each keyword constrains its own type only.
        &["7", "\"x\"", "2", "\"xy\""],
        &["null", "5.5", "true"],
    );
    // Pattern keys beside a closed part: not merged.
    let e = error(json!({"allOf": [
        {"properties": {"a": true}, "additionalProperties": false},
        {"patternProperties": {"^x": {"type": "integer"}}}
    ]}));
    assert_eq!(e.keyword(), Some("allOf"));
}

#[test]
fn refs_defs_and_recursion() {
    let tree = json!({
        "$defs": {"node": {"type": "object", "properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "required": ["v"], "additionalProperties": false}},
        "$ref": "#/$defs/node"
    });
    check(
        tree,
        &[r#"{"v": 1, "kids": [{"v": 2}, {"v": 3, "kids": []}]}"#],
        &[r#"{"v": 1, "kids": [{}]}"#],
    );
    check(
        json!({"definitions": {"s": {"type": "string"}}, "properties": {"x": {"$ref": "#/definitions/s"}}}),
        &[r#"{"x": "a"}"#],
        &[r#"{"x": 1}"#],
    );
    let e = error(json!({"$ref": "other.json#/a"}));
    assert_eq!(
        (e.kind(), e.keyword()),
        (SchemaErrorKind::Unsupported, Some("$ref"))
    );
    assert_eq!(
        error(json!({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"})).keyword(),
        Some("$ref")
    );
}

#[test]
fn boolean_schemas_and_annotations() {
    check(json!(true), &["1", "\"x\"", "[{}]", "null"], &["", "[1,]"]);
    check(
        json!({"properties": {"gone": false}}),
        &[r#"{"x": 1}"#],
        &[r#"{"gone": 1}"#],
    );
    check(
        json!({"title": "t", "description": "d", "examples": [1], "default": 2, "x-unknown": 5, "type": "integer"}),
        &["1"],
        &["\"a\""],
    );
    assert_eq!(error(json!(false)).kind(), SchemaErrorKind::Unsatisfiable);
    for kw in ["if", "contains", "unevaluatedProperties", "propertyNames"] {
        let mut m = serde_json::Map::new();
        m.insert(kw.into(), json!({"a": ["b"]}));
        let e = error(Value::Object(m));
        assert_eq!(e.keyword(), Some(kw), "{e}");
    }
}

#[test]
fn impossible_children() {
    // An optional property that allows nothing must be absent.
    check(
        json!({"type": "object", "properties": {"x": {"type": "object", "enum": ["a"]}, "y": {"type": "integer"}}}),
        &[r#"{"y": 1}"#, "{}", r#"{"z": 1}"#],
        &[r#"{"x": "a"}"#, r#"{"x": {}}"#],
    );
    // Required: the object is impossible (here only the null part remains).
    check(
        json!({"type": ["object", "null"], "properties": {"x": {"type": []}}, "required": ["x"]}),
        &["null"],
        &["{}", r#"{"x": 1}"#],
    );
    // Items that allow nothing end the array.
    check(
        json!({"type": "array", "items": {"enum": []}}),
        &["[]"],
        &["[1]"],
    );
}

#[test]
fn whitespace_policies() {
    let s = json!({"type": "object", "properties": {"a": {"type": "array"}}});
    let c = |ws| {
        common::Acceptor::new(
            compile(
                &s,
                &Options::default()
                    .whitespace(ws)
                    .escapes(Escapes::Canonical),
            )
            .unwrap(),
        )
    };
    let (json, compact, python) = (
        c(Whitespace::Json),
        c(Whitespace::Compact),
        c(Whitespace::SingleSpace),
    );
    for t in [
        r#"{"a":[1,2]}"#,
        r#"{"a": [1, 2]}"#,
        " {\n\t\"a\" : [ 1 ] } ",
    ] {
        assert!(json.accepts(t), "{t}");
    }
    assert!(compact.accepts(r#"{"a":[1,2]}"#));
    assert!(!compact.accepts(r#"{"a": [1, 2]}"#));
    assert!(python.accepts(r#"{"a": [1, 2]}"#));
    assert!(!python.accepts(r#"{"a":[1,2]}"#));
    assert!(!python.accepts(r#"{"a": [1,  2]}"#));
}

/// Like `check`, under canonical escapes (the default options).
fn check_canonical(schema: Value, ok: &[&str], bad: &[&str]) {
    let a = common::Acceptor::new(compile(&schema, &Options::default()).unwrap());
    for t in ok {
        assert!(a.accepts(t), "{schema} should accept {t}");
    }
    for t in bad {
        assert!(!a.accepts(t), "{schema} should refuse {t}");
    }
}

#[test]
fn pattern_properties() {
    // Closed object: only keys matching a pattern, with its schema.
    let s = json!({
        "type": "object",
        "properties": {"id": {"type": "string"}},
        "patternProperties": {"^x-": {"type": "integer"}, "^[0-9]+$": {"type": "boolean"}},
        "additionalProperties": false
    });
    let ok = [r#"{"id": "a", "x-b": 1, "12": true}"#, r#"{"x-": 2}"#, "{}"];
    let bad = [
        r#"{"x-b": "1"}"#,
        r#"{"12": 1}"#,
        r#"{"y": 1}"#,
        r#"{"\u0078-b": "1"}"#,
    ];
    check(s.clone(), &ok, &bad);
    check_canonical(s, &ok, &bad);
    // Open object: other keys take additionalProperties (here anything);
    // every spelling of a pattern key still meets the pattern's schema.
    let s = json!({"patternProperties": {"^x-": {"type": "integer"}}});
    let ok = [
        r#"{"x-a": 1, "y": "s"}"#,
        r#"{"\u0078-a": 1}"#,
        r#"{"x": "s"}"#,
    ];
    let bad = [
        r#"{"x-a": "s"}"#,
        r#"{"\u0078-a": "s"}"#,
        r#"{"y": 1, "x-\u0061": []}"#,
    ];
    check(s.clone(), &ok, &bad);
    check_canonical(s, &ok, &bad);
    // Constraining additionalProperties beside a pattern.
    check(
        json!({"patternProperties": {"^a": true}, "additionalProperties": {"type": "string"}}),
        &[r#"{"ab": 1, "b": "s"}"#],
        &[r#"{"b": 1}"#],
    );
    // A pattern matching every key acts on declared properties too.
    check(
        json!({"properties": {"n": {"minimum": 3}}, "patternProperties": {".*": {"type": "integer"}}}),
        &[r#"{"n": 4, "k": 1}"#],
        &[r#"{"n": 4.5}"#, r#"{"n": 2}"#, r#"{"k": "s"}"#],
    );
    // Exactness refusals name the keyword and the pointer.
    for s in [
        // Overlapping patterns with different schemas.
        json!({"properties": {"o": {"patternProperties": {"a": {"type": "string"}, "b": {"type": "integer"}}}}}),
    ] {
        let e = error(s);
        assert_eq!(
            (e.keyword(), e.pointer()),
            (Some("patternProperties"), "/properties/o"),
            "{e}"
        );
    }
}

#[test]
fn not_where_its_complement_is_exact() {
    // `not` of everything / nothing.
    assert_eq!(
        error(json!({"type": "integer", "not": {}})).kind(),
        SchemaErrorKind::Unsatisfiable
    );
    check(
        json!({"properties": {"a": {"not": true}}}),
        &["{}", "{\"b\": 1}"],
        &["{\"a\": 1}", "{\"a\": null}"],
    );
    check(json!({"type": "integer", "not": false}), &["1"], &["null"]);
    // A complement of types, intersected with the siblings.
    check(
        json!({"not": {"type": ["string", "object"]}}),
        &["1", "1.5", "null", "true", "[]"],
        &["\"x\"", "{}"],
    );
    check(
        json!({"type": ["integer", "string", "null"], "not": {"type": "null"}}),
        &["1", "\"x\""],
        &["null", "1.5"],
    );
    // Double negation.
    check(
        json!({"not": {"not": {"type": "string", "maxLength": 2}}}),
        &["\"ab\""],
        &["\"abc\"", "1"],
    );
    // A required name negated: objects without that member.
    check(
        json!({"properties": {"a": {"type": "integer"}}, "not": {"required": ["b"]}}),
        &["{}", "{\"a\": 1}", "{\"c\": 1}"],
        &["{\"b\": 1}", "{\"a\": 1, \"b\": 2}", "1", "null"],
    );
    // not (anyOf) = allOf of the negations; two `not`s in an allOf too.
    check(
        json!({"not": {"anyOf": [{"required": ["x"]}, {"type": "null"}]}}),
        &["{}", "{\"y\": 1}"],
        &["{\"x\": 1}", "null", "1"],
    );
    check(
        json!({"allOf": [{"not": {"type": "null"}}, {"not": {"type": "object"}}]}),
        &["1", "[]"],
        &["null", "{}"],
    );
    // What we cannot complement exactly is an error naming `not`.
    for s in [
        json!({"not": {"type": "integer"}}),
        json!({"not": {"required": ["a", "b"]}, "anyOf": [{"type": "object"}, {"type": "null"}]}),
        json!({"not": {"pattern": "^a"}}),
        json!({"not": {"enum": [1, 2]}}),
        json!({"not": {"enum": ["a", 2]}}),
    ] {
        let e = error(s.clone());
        assert_eq!(e.keyword(), Some("not"), "{s}: {e}");
        assert_eq!(e.kind(), SchemaErrorKind::Unsupported, "{s}: {e}");
    }
}

#[test]
fn merged_members_follow_the_order_of_the_keywords() {
    // `allOf` written before `properties`: its members come first.
    let s = json!({
        "allOf": [{"properties": {"a": {"type": "integer"}}, "required": ["a"]}],
        "properties": {"b": {"type": "integer"}},
        "required": ["b"]
    });
    check(s, &["{\"a\": 1, \"b\": 2}"], &["{\"b\": 2, \"a\": 1}"]);
    // ... and after it: the schema's own members first.
    let s = json!({
        "properties": {"b": {"type": "integer"}},
        "required": ["b"],
        "allOf": [{"properties": {"a": {"type": "integer"}}, "required": ["a"]}]
    });
    check(s, &["{\"b\": 2, \"a\": 1}"], &["{\"a\": 1, \"b\": 2}"]);
    // The same for `$ref` beside `properties` (2020-12 intersects them).
    let s = json!({
        "$defs": {"A": {"properties": {"a": {"type": "integer"}}, "required": ["a"]}},
        "$ref": "#/$defs/A",
        "properties": {"b": {"type": "integer"}},
        "required": ["b"]
    });
    check(s, &["{\"a\": 1, \"b\": 2}"], &["{\"b\": 2, \"a\": 1}"]);
    // `additionalProperties: false` still applies to the schema's own
    // members only, wherever `allOf` sits between them.
    let s = json!({
        "properties": {"b": {"type": "integer"}},
        "allOf": [{"required": ["b"]}],
        "additionalProperties": false
    });
    check(s, &["{\"b\": 2}"], &["{}", "{\"b\": 2, \"c\": 1}"]);
}

#[test]
fn min_properties_one_means_not_empty() {
    check(
        json!({"type": "object", "minProperties": 1}),
        &["{\"a\": 1}", "{\"a\": 1, \"b\": 2}"],
        &["{}", "{ }"],
    );
    check(
        json!({"properties": {"a": {"type": "integer"}}, "additionalProperties": false, "minProperties": 1}),
        &["{\"a\": 1}", "1", "\"x\""],
        &["{}", "{\"b\": 1}"],
    );
    // Nothing may be added: no object is left.
    check(
        json!({"type": ["object", "null"], "additionalProperties": false, "minProperties": 1}),
        &["null"],
        &["{}"],
    );
    // Already implied by `required`; more than that is an error.
    check(
        json!({"required": ["a"], "minProperties": 1}),
        &["{\"a\": 1}"],
        &["{}"],
    );
    let e = error(json!({"minProperties": 2}));
    assert_eq!(e.keyword(), Some("minProperties"), "{e}");
}

#[test]
fn all_of_exclusive_bounds_take_the_tighter() {
    // As `minimum` with `minimum` does; refused as unsupported before.
    check(
        json!({"allOf": [{"exclusiveMinimum": 1}, {"exclusiveMinimum": 3}], "type": "integer"}),
        &["4", "10"],
        &["3", "2", "1"],
    );
    check(
        json!({"allOf": [{"exclusiveMaximum": 10}, {"exclusiveMaximum": 7.5}], "type": "number"}),
        &["7", "7.4", "-3"],
        &["7.5", "8", "10"],
    );
    check(
        json!({"allOf": [{"exclusiveMinimum": 0}, {"minimum": 0}, {"exclusiveMinimum": 2}], "type": "integer"}),
        &["3"],
        &["2", "0"],
    );
}

#[test]
fn integers_are_plain_digits_by_default() {
    // What a model should write for `type: integer` (as llguidance,
    // XGrammar and outlines do); JSON Schema's other spellings only when
    // asked for (Integers::Json, for replaying documents).
    let meeting = json!({"type": "object", "properties": {
        "duration_minutes": {"type": "integer", "minimum": 15, "maximum": 480}
    }, "required": ["duration_minutes"]});
    let a = common::Acceptor::new(compile(&meeting, &Options::default()).unwrap());
    assert!(a.accepts(r#"{"duration_minutes": 237}"#));
    for bad in ["237.0", "2.37e2", "237.00"] {
        assert!(
            !a.accepts(&format!(r#"{{"duration_minutes": {bad}}}"#)),
            "{bad}"
        );
    }
    let json_ints = Options::default().integers(gcd_schema::Integers::Json);
    let a = common::Acceptor::new(compile(&meeting, &json_ints).unwrap());
    assert!(a.accepts(r#"{"duration_minutes": 237.0}"#));
}
