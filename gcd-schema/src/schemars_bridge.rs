//! Types that derive `schemars::JsonSchema`, constrained in one call.
//!
//! schemars describes Rust's numeric types with `format` values that JSON
//! Schema treats as annotations (`"uint8"`, `"int32"`, `"float"`,
//! `"double"`, ...), and gives an integer type's range only in part (`u32`
//! gets `minimum: 0` but no maximum). serde refuses a number outside the
//! Rust type, so for output that always deserializes the bridge makes each
//! format a constraint, intersected with whatever else the schema states:
//!
//! - an integer format becomes the type's bounds. Integers are spelled as
//!   plain digits ([`Integers::Plain`]): serde_json reads `1.0` or `-0` as
//!   a float, which a `u8` refuses;
//! - `"float"` / `"double"` become gcd's `x-gcd-finite: "f32"` / `"f64"`:
//!   numbers that serde_json reads as a finite `f32` / `f64` (it refuses
//!   `1e309` for an `f64`, "number out of range", and reads `1e39` as an
//!   infinite `f32`). These are gcd-core's finite-float regexes, the ones
//!   `#[derive(Constrained)]` uses (every number serde_json writes for a
//!   finite value; a few exotic spellings such as `17e307` are refused).
//!   Beside `minimum`/`maximum`, numbers with an exponent are accepted
//!   below `10^31` in magnitude, as bounded numbers are (see
//!   [`compile`]'s restrictions). [`compile`] knows the keyword (so
//!   `compile(&schema_for::<T>())` is exact too) but leaves a
//!   `format: "float"` alone, as JSON Schema does.
//!
//! Every other keyword goes to [`compile`] unchanged: what it cannot
//! enforce is still an error.

use gcd_core::compiled::CompiledGrammar;
use serde_json::{Map, Value};

use crate::compile::FINITE;
use crate::{compile, Integers, Options, SchemaError};

/// `T`'s JSON Schema as schemars writes it (draft 2020-12), with the
/// numeric formats made explicit as above.
pub fn schema_for<T: schemars::JsonSchema + ?Sized>() -> Value {
    let mut schema = schemars::SchemaGenerator::default()
        .into_root_schema_for::<T>()
        .to_value();
    bound_numeric_formats(&mut schema);
    schema
}

/// The grammar of `T`'s JSON: [`compile`] of [`schema_for::<T>`], with
/// integers as plain digits whatever `options.integers` says.
pub fn for_type<T: schemars::JsonSchema + ?Sized>(
    options: &Options,
) -> Result<CompiledGrammar, SchemaError> {
    let options = Options {
        integers: Integers::Plain,
        ..options.clone()
    };
    compile(&schema_for::<T>(), &options)
}

/// The range of the integer a schemars `format` names.
fn integer_range(format: &str) -> Option<(i128, i128)> {
    Some(match format {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => (i64::MIN.into(), i64::MAX.into()),
        "int128" => (i128::MIN, i128::MAX),
        "uint8" => (0, u8::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        "uint64" | "uint" => (0, u64::MAX.into()),
        _ => return None,
    })
}

/// Rewrites numeric `format`s in every subschema. Values (`const`, `enum`,
/// `default`, `examples`) are data, not schemas, and are left alone.
fn bound_numeric_formats(v: &mut Value) {
    match v {
        Value::Object(o) => {
            rewrite_format(o);
            ref_after_siblings(o);
            for (k, child) in o.iter_mut() {
                if !matches!(k.as_str(), "const" | "enum" | "default" | "examples") {
                    bound_numeric_formats(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(bound_numeric_formats),
        _ => {}
    }
}

/// `{"$ref": r, ...}` → `{..., "allOf": [..., {"$ref": r}]}`, so that the
/// sibling properties come first in member order.
fn ref_after_siblings(o: &mut Map<String, Value>) {
    let movable = o.contains_key("properties")
        && o.contains_key("$ref")
        && o.get("allOf").is_none_or(Value::is_array);
    if !movable {
        return;
    }
    let r = o.remove("$ref").expect("checked");
    if let Value::Array(items) = o.entry("allOf").or_insert_with(|| Value::Array(Vec::new())) {
        items.push(serde_json::json!({ "$ref": r }));
    }
}

fn rewrite_format(o: &mut Map<String, Value>) {
    let Some(format) = o.get("format").and_then(Value::as_str) else {
        return;
    };
    if let Some(float) = match format {
        "float" => Some("f32"),
        "double" => Some("f64"),
        _ => None,
    } {
        o.remove("format");
        // A marker already there (from the schema's author) and this one:
        // finite as both, i.e. as the smaller type.
        let float = if o.get(FINITE).and_then(Value::as_str) == Some("f32") {
            "f32"
        } else {
            float
        };
        o.insert(FINITE.to_string(), Value::from(float));
        return;
    }
    let Some((lo, hi)) = integer_range(format) else {
        return;
    };
    o.remove("format");
    // Bounds beyond i64/u64 are not JSON numbers serde_json writes as
    // integers; keep them only when they fit, else leave the schema's own.
    let tighter = |key: &str, bound: i128, keep_max: bool, o: &mut Map<String, Value>| {
        let current = o.get(key).and_then(Value::as_f64);
        let replace = match current {
            None => true,
            Some(c) if keep_max => (bound as f64) > c,
            Some(c) => (bound as f64) < c,
        };
        if replace {
            let n = if bound < 0 {
                i64::try_from(bound).ok().map(Value::from)
            } else {
                u64::try_from(bound).ok().map(Value::from)
            };
            if let Some(n) = n {
                o.insert(key.to_string(), n);
            }
        }
    };
    tighter("minimum", lo, true, o);
    tighter("maximum", hi, false, o);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integer_formats_become_bounds() {
        let mut s = json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255},
                "b": {"type": "integer", "format": "uint32", "minimum": 0},
                "c": {"type": "integer", "format": "int16", "minimum": 10},
                "d": {"type": "number", "format": "double"},
                "g": {"type": ["number", "null"], "format": "float", "minimum": 0},
                "e": {"type": "string", "format": "date"},
                "f": {"const": {"format": "int8"}}
            }
        });
        bound_numeric_formats(&mut s);
        let p = &s["properties"];
        assert_eq!(
            p["a"],
            json!({"type": "integer", "minimum": 0, "maximum": 255})
        );
        assert_eq!(
            p["b"],
            json!({"type": "integer", "minimum": 0, "maximum": 4294967295u64})
        );
        assert_eq!(
            p["c"],
            json!({"type": "integer", "minimum": 10, "maximum": 32767})
        );
        assert_eq!(p["d"], json!({"type": "number", "x-gcd-finite": "f64"}));
        assert_eq!(
            p["g"],
            json!({"type": ["number", "null"], "x-gcd-finite": "f32", "minimum": 0})
        );
        assert_eq!(p["e"], json!({"type": "string", "format": "date"}));
        assert_eq!(p["f"], json!({"const": {"format": "int8"}}));
    }
}
