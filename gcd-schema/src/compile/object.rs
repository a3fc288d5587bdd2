//! Object keywords → an [`ObjectShape`]: `properties`, `required`,
//! `patternProperties`, `additionalProperties` and member counts. Separate
//! because it is the largest keyword family, with exactness checks of its
//! own (overlapping patterns, patterns matching declared names).

use serde_json::{Map, Value};

use super::{as_count, is_constraint, key, ptr_join, Compiler, R, V};
use crate::error::SchemaError;
use crate::language::Language;
use crate::node::*;
use crate::options::Escapes;
use crate::pattern;
use crate::spell::{string_spelling, JSON_CHAR};

impl<'a> Compiler<'a> {
    pub(super) fn object_part(
        &mut self,
        v: &V<'a>,
        m: &Map<String, Value>,
        ptr: &str,
    ) -> R<Option<ObjectShape>> {
        let mut additional = match m.get("additionalProperties") {
            None => Some(self.any),
            Some(Value::Bool(false)) => None,
            Some(x) if is_trivial(x) => Some(self.any),
            Some(_) => {
                let sv = (v.sub(&[key("additionalProperties")])).expect("matched as present");
                Some(self.intern(sv, ptr_join(ptr, "additionalProperties")))
            }
        };
        let mut pats = self.key_patterns(v, m, ptr)?;
        let mut required: Vec<String> = Vec::new();
        if let Some(r) = m.get("required") {
            let r = r
                .as_array()
                .ok_or_else(|| SchemaError::invalid(Some("required"), ptr, "must be an array"))?;
            for x in r {
                let s = x.as_str().ok_or_else(|| {
                    SchemaError::invalid(Some("required"), ptr, "must hold strings")
                })?;
                if !required.iter().any(|y| y == s) {
                    required.push(s.to_string());
                }
            }
        }
        let mut props = Vec::new();
        let mut reserved = Vec::new();
        if let Some(ps) = m.get("properties") {
            let ps = ps.as_object().ok_or_else(|| {
                SchemaError::invalid(Some("properties"), ptr, "must be an object")
            })?;
            for (name, s) in ps {
                reserved.push(name.clone());
                let req = required.contains(name);
                if s == &Value::Bool(false) {
                    if req {
                        return Ok(None);
                    }
                    continue;
                }
                let sv = v
                    .sub(&[key("properties"), key(name)])
                    .expect("a property of the map being read");
                let id = self.intern(sv, ptr_join(&ptr_join(ptr, "properties"), name));
                props.push(Property {
                    name: name.clone(),
                    schema: id,
                    required: req,
                });
            }
        }
        // A pattern matching every key leaves `additionalProperties`
        // nothing: its schema takes that place, also for declared names.
        if let Some(u) = pats.iter().position(|p| p.universal) {
            let u = pats.remove(u);
            if let Some(p) = pats.iter().find(|p| !p.trivial) {
                return Err(SchemaError::unsupported(
                    "patternProperties",
                    ptr,
                    format!(
                        "pattern {:?} overlaps the pattern {:?}, which matches every key",
                        p.source, u.source
                    ),
                ));
            }
            pats.clear();
            additional = Some(u.schema); // `any` when trivial
            if !u.trivial {
                for p in &mut props {
                    p.schema = self.both(p.schema, u.schema)?;
                }
            }
        }
        // Trivial patterns only matter beside a constraining
        // additionalProperties.
        if additional == Some(self.any) {
            pats.retain(|p| !p.trivial);
        }
        // A declared name that patterns match meets their schemas too; a
        // required one not declared takes theirs (else additionalProperties').
        for prop in &mut props {
            for p in pats.iter().filter(|p| !p.trivial && p.matches(&prop.name)) {
                prop.schema = self.both(prop.schema, p.schema)?;
            }
        }
        for r in &required {
            if !reserved.contains(r) {
                let mut matching = pats.iter().filter(|p| p.matches(r)).map(|p| p.schema);
                let schema = match matching.next() {
                    Some(first) => matching.try_fold(first, |s, x| self.both(s, x))?,
                    None => match additional {
                        Some(a) => a,
                        None => return Ok(None),
                    },
                };
                reserved.push(r.clone());
                props.push(Property {
                    name: r.clone(),
                    schema,
                    required: true,
                });
            }
        }
        // Each pattern's key terminal leaves the names it matches to their
        // own members (a lookahead over the key).
        for p in &mut pats {
            let names: Vec<&str> = reserved
                .iter()
                .map(String::as_str)
                .filter(|n| p.matches(n))
                .collect();
            if !names.is_empty() {
                p.keys = without_names(&p.keys, &names, Escapes::Any);
                p.lang = Language::new(&format!("\"{}\"", p.keys))
                    .ok_or_else(|| pattern_too_large(p, ptr))?;
                p.excluded = names.iter().map(|n| n.to_string()).collect();
            }
        }
        // Overlapping patterns are exact only when the later one (lower
        // priority) allows every value.
        for (i, p) in pats.iter().enumerate() {
            for q in &pats[i + 1..] {
                if !p.trivial && !q.trivial && !p.lang.is_disjoint(&q.lang) {
                    return Err(SchemaError::unsupported(
                        "patternProperties",
                        ptr,
                        format!(
                            "patterns {:?} and {:?} may match the same key",
                            p.source, q.source
                        ),
                    ));
                }
            }
        }
        let mut patterns = Vec::new();
        for p in pats {
            if p.forbidden {
                if additional.is_none() {
                    continue; // such keys are extra keys, forbidden anyway
                }
                return Err(SchemaError::unsupported(
                    "patternProperties",
                    ptr,
                    format!(
                        "pattern {:?} with schema false beside additional keys",
                        p.source
                    ),
                ));
            }
            // Beside `additional` keys, every spelling of a matching key must
            // lex as this pattern's key, so no escape dodges its schema.
            let keys = if additional.is_some() || self.esc == Escapes::Any {
                p.keys
            } else {
                let keys = pattern::translate(&p.source, self.esc)
                    .map_err(|e| SchemaError::unsupported("patternProperties", ptr, e.0))?;
                let names: Vec<&str> = p.excluded.iter().map(String::as_str).collect();
                match names.is_empty() {
                    true => keys,
                    false => without_names(&keys, &names, self.esc),
                }
            };
            patterns.push(PatternKeys {
                keys,
                schema: p.schema,
                priority: if p.trivial { 1 } else { 2 },
            });
        }
        let nreq = props.iter().filter(|p| p.required).count() as u64;
        let mut nonempty = false;
        if let Some(x) = m.get("minProperties") {
            let x = as_count(x, "minProperties", ptr)?;
            if x == 1 && nreq == 0 {
                nonempty = true; // only `{}` is out
            } else if x > nreq {
                return Err(SchemaError::unsupported(
                    "minProperties",
                    ptr,
                    "more than the required properties (beyond one)",
                ));
            }
        }
        if let Some(x) = m.get("maxProperties") {
            let x = as_count(x, "maxProperties", ptr)?;
            if x < nreq {
                return Ok(None);
            }
            if additional.is_some() || !patterns.is_empty() || (props.len() as u64) > x {
                return Err(SchemaError::unsupported(
                    "maxProperties",
                    ptr,
                    "fewer than the possible properties",
                ));
            }
        }
        let full = props.is_empty()
            && reserved.is_empty()
            && patterns.is_empty()
            && additional == Some(self.any)
            && !nonempty;
        if nonempty && props.is_empty() && patterns.is_empty() && additional.is_none() {
            return Ok(None);
        }
        Ok(Some(ObjectShape {
            props,
            reserved,
            patterns,
            additional,
            nonempty,
            full,
        }))
    }

    /// The `patternProperties` entries of an object schema, in schema
    /// order, with their key languages (every spelling).
    fn key_patterns(&mut self, v: &V<'a>, m: &Map<String, Value>, ptr: &str) -> R<Vec<KeyPattern>> {
        let Some(pp) = m.get("patternProperties") else {
            return Ok(vec![]);
        };
        let pp = pp.as_object().ok_or_else(|| {
            SchemaError::invalid(Some("patternProperties"), ptr, "must be an object")
        })?;
        let at = ptr_join(ptr, "patternProperties");
        let every_key = Language::new(&format!("\"{JSON_CHAR}*\"")).expect("JSON keys");
        let mut out = Vec::new();
        for (source, schema) in pp {
            let fail = |e: String| SchemaError::unsupported("patternProperties", &at, e);
            let keys = pattern::translate(source, Escapes::Any)
                .map_err(|e| fail(format!("pattern {source:?}: {}", e.0)))?;
            let lang = Language::new(&format!("\"{keys}\""))
                .ok_or_else(|| fail(format!("pattern {source:?} too large")))?;
            if lang.is_empty() {
                continue;
            }
            let sv = v
                .sub(&[key("patternProperties"), key(source)])
                .expect("a pattern of the map being read");
            let id = if is_trivial(schema) {
                self.any
            } else {
                self.intern(sv, ptr_join(&at, source))
            };
            out.push(KeyPattern {
                source: source.clone(),
                universal: every_key.is_subset_of(&lang),
                keys,
                lang,
                schema: id,
                trivial: is_trivial(schema),
                forbidden: schema == &Value::Bool(false),
                excluded: Vec::new(),
            });
        }
        // Constraining patterns first: they win ties (see PatternKeys).
        out.sort_by_key(|p| p.trivial);
        Ok(out)
    }
}

/// One `patternProperties` entry, with the facts exactness needs.
struct KeyPattern {
    source: String,
    /// Content spellings of matching keys (every escape).
    keys: String,
    /// The quoted keys as a language, for inclusion and overlap checks.
    lang: Language,
    schema: Id,
    /// The schema allows every value.
    trivial: bool,
    /// The schema is `false`.
    forbidden: bool,
    /// The pattern matches every key.
    universal: bool,
    /// Declared or required names its keys leave out.
    excluded: Vec<String>,
}

impl KeyPattern {
    fn matches(&self, name: &str) -> bool {
        // Canonical JSON text of the name: one member of its spellings.
        self.lang
            .contains(gcd_core::json::json_quote(name).as_bytes())
    }
}

fn pattern_too_large(p: &KeyPattern, ptr: &str) -> SchemaError {
    SchemaError::unsupported(
        "patternProperties",
        ptr,
        format!("pattern {:?} too large", p.source),
    )
}

/// Key content spellings `keys` but none of `names` (in any spelling under
/// `esc`): the lookahead sees the rest of the key lexeme, closing quote
/// included, so it excludes exactly those names.
fn without_names(keys: &str, names: &[&str], esc: Escapes) -> String {
    let spelled: Vec<String> = names.iter().map(|n| string_spelling(n, esc)).collect();
    format!("(?!(?:{})\")(?:{keys})", spelled.join("|"))
}

/// Whether a schema allows every value (`true`, or only annotations).
fn is_trivial(s: &Value) -> bool {
    match s {
        Value::Bool(b) => *b,
        Value::Object(m) => !m.keys().any(|k| is_constraint(k) || k == "$schema"),
        _ => false,
    }
}
