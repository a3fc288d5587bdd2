//! `$ref` resolution and `allOf` merging: references and conjunctions
//! become one keyword map. Separate because this works on schema JSON
//! before any node exists, and which keyword pairs merge exactly is its
//! own set of rules.

use serde_json::{Map, Value};

use super::{is_constraint, ptr_join, types_of, Compiler, Src, R, V};
use crate::error::SchemaError;
use crate::node::*;

impl<'a> Compiler<'a> {
    /// Resolves a local `$ref` to the schema value it names.
    pub(super) fn resolve(&self, r: &str, ptr: &str) -> R<(&'a Value, String)> {
        let mut frag = r;
        if let Some(id) = self.root.get("$id").and_then(Value::as_str) {
            if let Some(rest) = r.strip_prefix(id.trim_end_matches('#')) {
                frag = rest;
            }
        }
        let Some(path) = frag.strip_prefix('#') else {
            return Err(SchemaError::unsupported(
                "$ref",
                ptr,
                format!("non-local reference {r:?}"),
            ));
        };
        if !path.is_empty() && !path.starts_with('/') {
            return Err(SchemaError::unsupported(
                "$ref",
                ptr,
                format!("anchor reference {r:?}"),
            ));
        }
        let decoded = percent_decode(path);
        match self.root.pointer(&decoded) {
            Some(v) => Ok((v, decoded)),
            None => Err(SchemaError::invalid(
                Some("$ref"),
                ptr,
                format!("unresolvable reference {r:?}"),
            )),
        }
    }

    /// A schema with every top-level `$ref` replaced by its target (merged
    /// with the siblings), for `allOf` merging.
    pub(super) fn inline(&self, v: &Value, ptr: &str, depth: usize) -> R<Map<String, Value>> {
        if depth > 32 {
            return Err(SchemaError::unsupported(
                "$ref",
                ptr,
                "reference chain too deep to merge",
            ));
        }
        let m = match v {
            Value::Bool(true) => return Ok(Map::new()),
            Value::Bool(false) => {
                return Err(SchemaError::unsupported(
                    "allOf",
                    ptr,
                    "a `false` schema inside a merge",
                ))
            }
            Value::Object(m) => m,
            _ => {
                return Err(SchemaError::invalid(
                    None,
                    ptr,
                    "a schema must be an object or a boolean",
                ))
            }
        };
        let Some(r) = m.get("$ref") else {
            return Ok(m.clone());
        };
        let r = r
            .as_str()
            .ok_or_else(|| SchemaError::invalid(Some("$ref"), ptr, "$ref must be a string"))?;
        let (target, tptr) = self.resolve(r, ptr)?;
        let t = self.inline(target, &tptr, depth + 1)?;
        if self.ref_overrides {
            return Ok(t); // drafts 4–7 ignore `$ref`'s siblings
        }
        splice(m, "$ref", ptr, |acc| merge(acc, &t, ptr))
    }

    /// A schema for values that must satisfy both `a` and `b`.
    pub(super) fn both(&mut self, a: Id, b: Id) -> R<Id> {
        if a == self.any || a == b {
            return Ok(b);
        }
        if b == self.any {
            return Ok(a);
        }
        let (Src::Schema(va, pa), Src::Schema(vb, _)) = (&self.srcs[a], &self.srcs[b]) else {
            return Err(SchemaError::unsupported(
                "patternProperties",
                &self.pointer(a),
                "beside a constant",
            ));
        };
        let all = serde_json::json!({"allOf": [va.get().clone(), vb.get().clone()]});
        let pa = pa.clone();
        Ok(self.intern(V::merged(all), pa))
    }
}

/// `%XX` decoding of a JSON pointer taken from a URI fragment.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Ok(x) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(x);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `allOf` of two schemas as one schema, when the merge is exact.
pub(super) fn merge(
    mut a: Map<String, Value>,
    b: &Map<String, Value>,
    ptr: &str,
) -> R<Map<String, Value>> {
    if let Some((props, additional)) = merge_closed_objects(&a, b) {
        a.insert("properties".into(), Value::Object(props));
        match additional {
            Value::Bool(true) => a.remove("additionalProperties"),
            x => a.insert("additionalProperties".into(), x),
        };
        let mut rest = b.clone();
        rest.remove("properties");
        rest.remove("additionalProperties");
        return merge(a, &rest, ptr);
    }
    let obj_kw = ["properties", "additionalProperties", "patternProperties"];
    let arr_kw = ["items", "prefixItems", "additionalItems"];
    for group in [&obj_kw[..], &arr_kw[..]] {
        let in_a: Vec<&str> = group
            .iter()
            .copied()
            .filter(|k| a.contains_key(*k))
            .collect();
        let in_b: Vec<&str> = group
            .iter()
            .copied()
            .filter(|k| b.contains_key(*k))
            .collect();
        let only_props = in_a.iter().chain(&in_b).all(|k| *k == "properties");
        if !in_a.is_empty() && !in_b.is_empty() && !only_props && in_a != in_b {
            return Err(SchemaError::unsupported(
                "allOf",
                ptr,
                format!("cannot merge {in_a:?} with {in_b:?}"),
            ));
        }
    }
    // A key one part declares and the other does not is governed, in the
    // other, by its `additionalProperties`: a union of `properties` is
    // exact only when that part allows any extra key.
    let declared = |m: &Map<String, Value>| -> Vec<String> {
        m.get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default()
    };
    let restricts_extra = |m: &Map<String, Value>| {
        m.get("additionalProperties")
            .is_some_and(|v| v != &Value::Bool(true))
    };
    for (x, y) in [(&a, b), (b, &a)] {
        let (dx, dy) = (declared(x), declared(y));
        if restricts_extra(x) {
            if let Some(k) = dy.iter().find(|k| !dx.contains(k)) {
                return Err(SchemaError::unsupported(
                    "allOf",
                    ptr,
                    format!(
                        "one part declares \"{k}\", which the other's additionalProperties restricts"
                    ),
                ));
            }
        }
    }
    for (k, vb) in b {
        if !is_constraint(k) && !a.contains_key(k) {
            a.insert(k.clone(), vb.clone());
            continue;
        }
        if !is_constraint(k) {
            continue;
        }
        let Some(va) = a.get(k) else {
            a.insert(k.clone(), vb.clone());
            continue;
        };
        if va == vb {
            continue;
        }
        let conflict = || {
            SchemaError::unsupported(
                "allOf",
                ptr,
                format!("both parts constrain \"{k}\" differently"),
            )
        };
        let merged = match k.as_str() {
            "required" => {
                let mut r = va.as_array().cloned().unwrap_or_default();
                for x in vb.as_array().into_iter().flatten() {
                    if !r.contains(x) {
                        r.push(x.clone());
                    }
                }
                Value::Array(r)
            }
            "type" => {
                let ta = types_of(&a, ptr)?;
                let tb = types_of(b, ptr)?;
                let mut t: Vec<Value> = Vec::new();
                for x in &ta {
                    if tb.contains(x) || (x == "integer" && tb.contains("number")) {
                        t.push(Value::String(x.clone()));
                    } else if x == "number" && tb.contains("integer") {
                        t.push(Value::String("integer".into()));
                    }
                }
                Value::Array(t)
            }
            "properties" => {
                let (pa, pb) = (
                    va.as_object().ok_or_else(conflict)?,
                    vb.as_object().ok_or_else(conflict)?,
                );
                let mut out = pa.clone();
                for (name, s) in pb {
                    let merged = match out.get(name) {
                        None => s.clone(),
                        Some(x) if x == s => s.clone(),
                        Some(x) => {
                            let p = ptr_join(&ptr_join(ptr, "properties"), name);
                            let (x, s) = (obj_or_true(x, &p)?, obj_or_true(s, &p)?);
                            Value::Object(merge(x, &s, &p)?)
                        }
                    };
                    out.insert(name.clone(), merged);
                }
                Value::Object(out)
            }
            // (Draft 4's boolean exclusive bounds are no numbers: a clash.)
            "minLength" | "minItems" | "minimum" | "exclusiveMinimum" | "minProperties" => {
                num_pick(va, vb, true).ok_or_else(conflict)?
            }
            "maxLength" | "maxItems" | "maximum" | "exclusiveMaximum" | "maxProperties" => {
                num_pick(va, vb, false).ok_or_else(conflict)?
            }
            // Finite as both: as the smaller type.
            k if k == super::FINITE => match (va.as_str(), vb.as_str()) {
                (Some("f32" | "f64"), Some("f32" | "f64")) => Value::String("f32".into()),
                _ => return Err(conflict()),
            },
            // not a and not b = not (a or b).
            "not" => serde_json::json!({ "anyOf": [va, vb] }),
            // The values both list.
            "enum" => {
                let (xa, xb) = (
                    va.as_array().ok_or_else(conflict)?,
                    vb.as_array().ok_or_else(conflict)?,
                );
                Value::Array(
                    xa.iter()
                        .filter(|x| xb.iter().any(|y| same_value(x, y)))
                        .cloned()
                        .collect(),
                )
            }
            // (a or b) and (c or d): a branch per pair.
            "anyOf" => {
                let (xa, xb) = (
                    va.as_array().ok_or_else(conflict)?,
                    vb.as_array().ok_or_else(conflict)?,
                );
                if xa.len() * xb.len() > MAX_ANY_OF_PRODUCT {
                    return Err(conflict());
                }
                let pairs = xa.iter().flat_map(|x| {
                    xb.iter()
                        .map(move |y| serde_json::json!({ "allOf": [x, y] }))
                });
                Value::Array(pairs.collect())
            }
            k if k == super::string::NOT_STRINGS => {
                let mut x = va.as_array().cloned().unwrap_or_default();
                x.extend(vb.as_array().cloned().unwrap_or_default());
                Value::Array(x)
            }
            "allOf" => {
                let mut x = va.as_array().cloned().unwrap_or_default();
                x.extend(vb.as_array().cloned().unwrap_or_default());
                Value::Array(x)
            }
            _ => return Err(conflict()),
        };
        a.insert(k.clone(), merged);
    }
    Ok(a)
}

/// Two parts' `properties` and `additionalProperties` as one, when both
/// have some and one restricts extra keys (no `patternProperties`): each
/// key must meet what each part says of it (its declared schema there, or
/// that part's `additionalProperties`), and a key neither declares both
/// parts' `additionalProperties`.
fn merge_closed_objects(
    a: &Map<String, Value>,
    b: &Map<String, Value>,
) -> Option<(Map<String, Value>, Value)> {
    let has = |m: &Map<String, Value>, k: &str| m.contains_key(k);
    let objecty = |m: &Map<String, Value>| has(m, "properties") || has(m, "additionalProperties");
    let restricts = |m: &Map<String, Value>| {
        m.get("additionalProperties")
            .is_some_and(|v| v != &Value::Bool(true))
    };
    if !(objecty(a) && objecty(b) && (restricts(a) || restricts(b)))
        || has(a, "patternProperties")
        || has(b, "patternProperties")
    {
        return None;
    }
    let empty = Map::new();
    let pa = a
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let pb = b
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let extra = |m: &Map<String, Value>| {
        m.get("additionalProperties")
            .cloned()
            .unwrap_or(Value::Bool(true))
    };
    let (xa, xb) = (extra(a), extra(b));
    let mut out = Map::new();
    for k in pa.keys().chain(pb.keys()) {
        if !out.contains_key(k) {
            let sa = pa.get(k).unwrap_or(&xa);
            let sb = pb.get(k).unwrap_or(&xb);
            out.insert(k.clone(), both(sa, sb));
        }
    }
    Some((out, both(&xa, &xb)))
}

/// Most branches two `anyOf`s merged by `allOf` may give.
const MAX_ANY_OF_PRODUCT: usize = 64;

/// Whether two JSON values are one value for JSON Schema (`1` is `1.0`).
fn same_value(x: &Value, y: &Value) -> bool {
    match (x, y) {
        (Value::Number(a), Value::Number(b)) => {
            a == b || a.as_f64().is_some_and(|f| Some(f) == b.as_f64())
        }
        _ => x == y,
    }
}

/// The schema of values both `x` and `y` allow.
fn both(x: &Value, y: &Value) -> Value {
    let any = |v: &Value| v == &Value::Bool(true) || v.as_object().is_some_and(Map::is_empty);
    match (x, y) {
        _ if any(x) => y.clone(),
        _ if any(y) || x == y => x.clone(),
        (Value::Bool(false), _) | (_, Value::Bool(false)) => Value::Bool(false),
        _ => serde_json::json!({ "allOf": [x, y] }),
    }
}

/// Merges what the keyword `kw` of `m` stands for (`with`) with the rest
/// of `m`, in the order they are written: when `kw` comes before
/// `properties`, its properties come first. Member order in the grammar
/// follows the merged `properties`, so a schema read top to bottom gives
/// the order, as other engines (and the documents they produced) have it.
/// The rest of `m` stays one part: its `properties` and
/// `additionalProperties` only make sense together.
pub(super) fn splice(
    m: &Map<String, Value>,
    kw: &str,
    ptr: &str,
    with: impl FnOnce(Map<String, Value>) -> R<Map<String, Value>>,
) -> R<Map<String, Value>> {
    // Not `m.clone()`: `kw`'s value is often most of `m` (an `anyOf`'s
    // branches), and this runs once per branch.
    let own: Map<String, Value> = (m.iter())
        .filter(|(k, _)| *k != kw)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let at = |k: &str| m.keys().position(|x| x == k);
    match (at(kw), at("properties")) {
        (Some(k), Some(p)) if k < p => merge(with(Map::new())?, &own, ptr),
        _ => with(own),
    }
}

fn obj_or_true(v: &Value, ptr: &str) -> R<Map<String, Value>> {
    match v {
        Value::Bool(true) => Ok(Map::new()),
        Value::Object(m) if !m.contains_key("$ref") => Ok(m.clone()),
        _ => Err(SchemaError::unsupported(
            "allOf",
            ptr,
            "cannot merge these property schemas",
        )),
    }
}

fn num_pick(a: &Value, b: &Value, larger: bool) -> Option<Value> {
    let (x, y) = (a.as_f64()?, b.as_f64()?);
    Some(if (x >= y) == larger {
        a.clone()
    } else {
        b.clone()
    })
}
