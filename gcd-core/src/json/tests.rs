//! Shapes lowered to grammars: what they accept, and that the Lark text
//! printed for them reads back as the very grammar that lowering builds.

use super::*;
use crate::compiled::CompiledGrammar;
use crate::grammar::print_tests::assert_reads_back;
use crate::runtime::recognizer::Recognizer;

fn compile(shape: &Shape, set: &ShapeSet, ws: Whitespace) -> CompiledGrammar {
    let g = to_grammar(shape, set, ws).unwrap_or_else(|e| panic!("{e}"));
    assert_reads_back(&g);
    CompiledGrammar::new(&g).unwrap_or_else(|e| panic!("{e}\n{g}"))
}

fn field(name: &str, shape: Shape, required: bool) -> Field {
    Field {
        name: name.into(),
        aliases: Vec::new(),
        shape,
        required,
    }
}

#[test]
fn objects_with_optional_fields() {
    let shape = Shape::Object(vec![
        field("a", Shape::Integer { min: 0, max: 255 }, false),
        field("b", Shape::Bool, true),
        field("c", Shape::String(StringRules::default()), false),
        field("d", Shape::Null, false),
    ]);
    let g = compile(&shape, &ShapeSet::new(), Whitespace::Compact);
    let r = Recognizer::new(&g);
    for ok in [
        r#"{"b":true}"#,
        r#"{"a":255,"b":false}"#,
        r#"{"b":true,"d":null}"#,
        r#"{"a":0,"b":true,"c":"x","d":null}"#,
    ] {
        assert!(r.is_complete(ok.as_bytes()), "{ok}");
    }
    for bad in [
        r#"{}"#,
        r#"{"a":256,"b":true}"#,
        r#"{"b":true,"a":1}"#,
        r#"{"b":true,}"#,
        r#"{"a":1}"#,
        r#"{ "b":true}"#,
    ] {
        assert!(!r.is_complete(bad.as_bytes()), "{bad}");
    }
    let g = compile(&shape, &ShapeSet::new(), Whitespace::Spaced);
    assert!(Recognizer::new(&g).is_complete(br#"{"a": 1, "b": true}"#));
    let g = compile(&shape, &ShapeSet::new(), Whitespace::SingleSpace);
    let r = Recognizer::new(&g);
    assert!(r.is_complete(br#"{"a": 1, "b": true}"#));
    assert!(!r.is_complete(br#"{"a":1,"b":true}"#) && !r.is_complete(br#"{"a":  1, "b": true}"#));
    let g = compile(&shape, &ShapeSet::new(), Whitespace::Json);
    assert!(Recognizer::new(&g).is_complete(b"{ \"a\" :1 ,\n \"b\": true }"));
    // The same inside the value, spelled in brackets and separators.
    let g = compile(&shape, &ShapeSet::new(), Whitespace::Within);
    assert!(g.ignored.is_empty());
    let r = Recognizer::new(&g);
    assert!(r.is_complete(b"{ \"a\" :1 ,\n \"b\": true }"));
    assert!(r.is_complete(br#"{"a":1,"b":true}"#));
    assert!(!r.is_complete(b" {\"a\":1,\"b\":true}") && !r.is_complete(b"{\"a\":1,\"b\":true}\n"));
}

#[test]
fn capped_whitespace_takes_pretty_printers_output_and_no_more() {
    let shape = Shape::Object(vec![
        field("a", Shape::Integer { min: 0, max: 255 }, true),
        field(
            "b",
            Shape::Array {
                items: Box::new(Shape::Map {
                    values: Box::new(Shape::Tuple(vec![Shape::Bool, Shape::Null])),
                }),
                min_items: 0,
                max_items: None,
            },
            true,
        ),
    ]);
    let g = compile(&shape, &ShapeSet::new(), Whitespace::Capped(10));
    let r = Recognizer::new(&g);
    let value = r#"{"a":1,"b":[{"k":[true,null]},{}]}"#;
    let v: serde_json::Value = serde_json::from_str(value).unwrap();
    let pretty = serde_json::to_string_pretty(&v).unwrap();
    for ok in [
        value,
        pretty.as_str(),
        r#"{"a": 1, "b": [{"k": [true, null]}, {}]}"#,
        "{\n\t\"a\":\r\n1,\"b\":[ ]}",
        "{          \"a\":1,\"b\":[]          }",
    ] {
        assert!(r.is_complete(ok.as_bytes()), "{ok}");
    }
    for bad in [
        // Eleven bytes in one place (the deepest line of the pretty form has nine).
        "{           \"a\":1,\"b\":[]}",
        "{\"a\":1,\"b\":[]           }",
        "{\"a\":1,           \"b\":[]}",
        // Where pretty-printers put none.
        r#"{"a" :1,"b":[]}"#,
        r#"{"a":1 ,"b":[]}"#,
        r#" {"a":1,"b":[]}"#,
        r#"{"a":1,"b":[]} "#,
        "{\"a\":1,\"b\":[\u{b}]}",
    ] {
        assert!(!r.is_complete(bad.as_bytes()), "{bad:?}");
    }
}

#[test]
fn tagged_recursive_and_collections() {
    let mut set = ShapeSet::new();
    set.define(
        "Tree",
        Shape::Tagged {
            tag: "kind".into(),
            variants: vec![
                (
                    "leaf".into(),
                    vec![field("value", Shape::Integer { min: -5, max: 5 }, true)],
                ),
                (
                    "node".into(),
                    vec![field(
                        "children",
                        Shape::Array {
                            items: Box::new(Shape::Named("Tree".into())),
                            min_items: 1,
                            max_items: Some(3),
                        },
                        true,
                    )],
                ),
                ("empty".into(), vec![]),
            ],
        },
    );
    let g = compile(&Shape::Named("Tree".into()), &set, Whitespace::Compact);
    let r = Recognizer::new(&g);
    assert!(r.is_complete(
        br#"{"kind":"node","children":[{"kind":"leaf","value":-5},{"kind":"empty"}]}"#
    ));
    assert!(!r.is_complete(br#"{"kind":"node","children":[]}"#));
    assert!(!r.is_complete(br#"{"kind":"leaf","value":6}"#));
    let map = Shape::Map {
        values: Box::new(Shape::Tuple(vec![Shape::Char, Shape::Number])),
    };
    let g = compile(&map, &ShapeSet::new(), Whitespace::Compact);
    let r = Recognizer::new(&g);
    assert!(r.is_complete(br#"{"x":["a",1.5e3],"y":["\u00e9",-0]}"#));
    assert!(!r.is_complete(br#"{"x":["ab",1]}"#));
}

#[test]
fn every_construct_prints_and_reads_back() {
    let int = || Shape::Integer { min: -3, max: 300 };
    let array = |min_items, max_items| Shape::Array {
        items: Box::new(Shape::Tuple(vec![int(), Shape::Number32])),
        min_items,
        max_items,
    };
    let mut aliased = field("a", Shape::Char, true);
    aliased.aliases = vec!["b/c".into(), "\u{85}".into()];
    let shapes = [
        array(0, Some(0)),
        array(0, None),
        array(0, Some(1)),
        array(0, Some(3)),
        array(2, None),
        array(2, Some(2)),
        array(2, Some(4)),
        Shape::Tuple(vec![]),
        Shape::OneOf(vec![]),
        Shape::OneOf(vec![
            Shape::Null,
            Shape::Bool,
            Shape::Literal("\"x\"".into()),
        ]),
        Shape::Object(vec![]),
        Shape::Object(vec![aliased, field("d", Shape::Number, false)]),
        Shape::Tagged {
            tag: "t".into(),
            variants: vec![("only".into(), vec![field("x", int(), false)])],
        },
        Shape::Tagged {
            tag: "t".into(),
            variants: vec![
                ("a".into(), vec![]),
                ("b".into(), vec![field("x", int(), true)]),
            ],
        },
        Shape::String(StringRules {
            pattern: Some("[a-z/]+".into()),
            ..StringRules::default()
        }),
        Shape::String(StringRules {
            pattern: None,
            min_len: Some(2),
            max_len: None,
        }),
    ];
    for shape in &shapes {
        for ws in [
            Whitespace::Compact,
            Whitespace::Spaced,
            Whitespace::SingleSpace,
            Whitespace::Json,
            Whitespace::Capped(6),
        ] {
            let g = to_grammar(shape, &ShapeSet::new(), ws).unwrap_or_else(|e| panic!("{e}"));
            assert_reads_back(&g);
        }
    }
    let long = Shape::Array {
        items: Box::new(Shape::Null),
        min_items: 40_000,
        max_items: Some(40_000),
    };
    let e = to_grammar(&long, &ShapeSet::new(), Whitespace::Compact).unwrap_err();
    assert!(e.0.contains("symbols"), "{e}");
}
