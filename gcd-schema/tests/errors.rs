//! Schemas gcd refuses, by error kind: malformed keywords (with the
//! keyword and JSON pointer) and generated grammars past gcd-core's limits
//! (naming the limit). Unsupported and unsatisfiable schemas are checked
//! beside their keywords in `keywords.rs`.

mod common;

use common::error;
use gcd_schema::{compile, Options, SchemaErrorKind};
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
