//! Schema → [`Node`]s: resolving `$ref`, merging `allOf`, combining
//! `anyOf`/`oneOf` per JSON type, and turning each keyword into its exact
//! language (or an error naming it).
//!
//! Nodes are computed lazily per schema location: a node only describes its
//! own level and names its children by [`Id`], so recursive schemas work as
//! long as every cycle passes through an array or object.

use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use serde_json::{Map, Number, Value};

use crate::error::SchemaError;
use crate::language::Language;
use crate::node::*;
use crate::spell::{quoted, JSON_CHAR};
use crate::{decimal, format, numeric, pattern, Draft, Escapes, Integers};

/// Constraint keywords we know and cannot enforce (exactly) at all.
const UNSUPPORTED: &[&str] = &[
    "if",
    "then",
    "else",
    "contains",
    "minContains",
    "maxContains",
    "unevaluatedItems",
    "unevaluatedProperties",
    "$dynamicRef",
    "$recursiveRef",
    "propertyNames",
];

/// Every keyword this module interprets; anything not here or above is an
/// unknown keyword, which JSON Schema validators ignore, and so do we.
const HANDLED: &[&str] = &[
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "items",
    "prefixItems",
    "additionalItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "not",
];

fn is_constraint(k: &str) -> bool {
    HANDLED.contains(&k) || UNSUPPORTED.contains(&k)
}

/// A schema value: borrowed from the caller's document or built by a merge.
#[derive(Clone)]
enum V<'a> {
    B(&'a Value),
    O(Rc<Value>),
}

impl<'a> V<'a> {
    fn get(&self) -> &Value {
        match self {
            V::B(v) => v,
            V::O(v) => v,
        }
    }
    fn sub(&self, f: impl Fn(&Value) -> Option<&Value>) -> Option<V<'a>> {
        match self {
            V::B(v) => f(v).map(V::B),
            V::O(v) => f(v).map(|x| V::O(Rc::new(x.clone()))),
        }
    }
}

enum Src<'a> {
    Schema(V<'a>, String),
    Const(Value, String),
    Any,
}

/// Arena of schema locations and their nodes.
pub struct Compiler<'a> {
    root: &'a Value,
    srcs: Vec<Src<'a>>,
    index: HashMap<String, Id>,
    nodes: Vec<Option<Node>>,
    busy: Vec<bool>,
    /// Id of the `true` schema.
    pub any: Id,
    pub esc: Escapes,
    integers: Integers,
    /// Drafts before 2019-09: `$ref` makes its siblings ignored.
    ref_overrides: bool,
    /// The schema may be draft 4 or 6, whose `hostname` is RFC 1034's.
    legacy_formats: bool,
}

type R<T> = Result<T, SchemaError>;

fn ptr_join(p: &str, k: &str) -> String {
    format!("{p}/{}", k.replace('~', "~0").replace('/', "~1"))
}

impl<'a> Compiler<'a> {
    pub fn new(root: &'a Value, esc: Escapes, draft: Draft, integers: Integers) -> Self {
        let meta = root.get("$schema").and_then(Value::as_str).unwrap_or("");
        // The dialect: from `$schema`, else from the option (`Draft7`
        // may be draft 6, whose `hostname` is RFC 1034's too).
        let dialect = ["draft-04", "draft-06", "draft-07", "2019-09", "2020-12"]
            .into_iter()
            .position(|d| meta.contains(d))
            .unwrap_or(match draft {
                Draft::Draft4 => 0,
                Draft::Draft7 => 1,
                Draft::Draft2020 => 4,
            });
        let legacy_formats = dialect <= 1;
        let ref_overrides = dialect <= 2;
        // Draft 4 counts as integers only numbers written without a
        // fraction or exponent (`1.0` is not one); later drafts count the
        // value.
        let integers = if dialect == 0 {
            Integers::Plain
        } else {
            integers
        };
        let mut c = Compiler {
            root,
            srcs: Vec::new(),
            index: HashMap::new(),
            nodes: Vec::new(),
            busy: Vec::new(),
            any: 0,
            esc,
            integers,
            ref_overrides,
            legacy_formats,
        };
        c.any = c.push(Src::Any);
        c
    }

    fn push(&mut self, s: Src<'a>) -> Id {
        self.srcs.push(s);
        self.nodes.push(None);
        self.busy.push(false);
        self.srcs.len() - 1
    }

    /// The id of a schema location (deduplicated for the caller's document).
    fn intern(&mut self, v: V<'a>, ptr: String) -> Id {
        if let Value::Bool(true) = v.get() {
            return self.any;
        }
        // Borrowed schemas are keyed by location; merged (owned) ones by
        // content: every `$ref` is absolute, so equal text means equal
        // language, and merges repeated across a schema share their rules.
        let key = match &v {
            V::B(_) => ptr.clone(),
            V::O(x) => format!("#merged:{x}"),
        };
        if let Some(&id) = self.index.get(&key) {
            return id;
        }
        let id = self.push(Src::Schema(v, ptr));
        self.index.insert(key, id);
        id
    }

    pub fn root_id(&mut self) -> Id {
        self.intern(V::B(self.root), String::new())
    }

    pub fn pointer(&self, id: Id) -> String {
        match &self.srcs[id] {
            Src::Schema(_, p) | Src::Const(_, p) => p.clone(),
            Src::Any => "(true)".into(),
        }
    }

    /// The union keyword (`oneOf`, else `anyOf`) a location's schema uses,
    /// for errors about its branches.
    pub fn union_keyword(&self, id: Id) -> &'static str {
        match &self.srcs[id] {
            Src::Schema(v, _) if v.get().get("oneOf").is_some() => "oneOf",
            _ => "anyOf",
        }
    }

    /// The node of `id`, computed once.
    pub fn node(&mut self, id: Id) -> R<Node> {
        if let Some(n) = &self.nodes[id] {
            return Ok(n.clone());
        }
        if self.busy[id] {
            return Err(SchemaError::unsupported(
                "$ref",
                &self.pointer(id),
                "a reference cycle that does not pass through an array or object",
            ));
        }
        self.busy[id] = true;
        let n = match &self.srcs[id] {
            Src::Any => Ok(self.any_node()),
            Src::Const(v, p) => {
                let (v, p) = (v.clone(), p.clone());
                self.const_node(&[v], &p, "const")
            }
            Src::Schema(v, p) => {
                let (v, p) = (v.clone(), p.clone());
                self.schema_node(v, &p)
            }
        };
        self.busy[id] = false;
        let n = n?;
        self.nodes[id] = Some(n.clone());
        Ok(n)
    }

    fn any_node(&self) -> Node {
        Node {
            null: true,
            t: true,
            f: true,
            number: Some(Scalar::full(ANY_NUMBER)),
            string: Some(Scalar::full(&format!("\"{JSON_CHAR}*\""))),
            array: Some(ArrayShape {
                prefix: vec![],
                items: Some(self.any),
                min: 0,
                max: None,
                full: true,
            }),
            object: Some(ObjectShape {
                props: vec![],
                reserved: vec![],
                patterns: vec![],
                additional: Some(self.any),
                nonempty: false,
                full: true,
            }),
            more_objects: vec![],
        }
    }

    /// Resolves a local `$ref` to the schema value it names.
    fn resolve(&self, r: &str, ptr: &str) -> R<(&'a Value, String)> {
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
    fn inline(&self, v: &Value, ptr: &str, depth: usize) -> R<Map<String, Value>> {
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

    fn schema_node(&mut self, v: V<'a>, ptr: &str) -> R<Node> {
        let m = match v.get() {
            Value::Bool(true) => return Ok(self.any_node()),
            Value::Bool(false) => return Ok(Node::default()),
            Value::Object(m) => m,
            _ => {
                return Err(SchemaError::invalid(
                    None,
                    ptr,
                    "a schema must be an object or a boolean",
                ))
            }
        };
        if let Some(meta) = m.get("$schema") {
            // A custom meta-schema may switch vocabularies off (or on).
            let known = meta.as_str().is_some_and(|u| {
                let u = u
                    .trim_end_matches('#')
                    .trim_start_matches("https://")
                    .trim_start_matches("http://");
                [
                    "json-schema.org/draft-04/schema",
                    "json-schema.org/draft-06/schema",
                    "json-schema.org/draft-07/schema",
                    "json-schema.org/draft/2019-09/schema",
                    "json-schema.org/draft/2020-12/schema",
                    "json-schema.org/schema",
                ]
                .contains(&u)
            });
            if !known {
                return Err(SchemaError::unsupported(
                    "$schema",
                    ptr,
                    format!("unknown meta-schema {meta}"),
                ));
            }
        }
        for k in m.keys() {
            if UNSUPPORTED.contains(&k.as_str()) {
                // `then`/`else` without `if` do nothing (2020-12 §10.2.2).
                let trivial = (k == "propertyNames" && m[k] == Value::Bool(true))
                    || ((k == "then" || k == "else") && !m.contains_key("if"));
                if !trivial {
                    return Err(SchemaError::unsupported(k, ptr, ""));
                }
            }
        }
        let constraints: Vec<&str> = m
            .keys()
            .map(String::as_str)
            .filter(|k| is_constraint(k))
            .collect();
        if let Some(r) = m.get("$ref") {
            let r = r
                .as_str()
                .ok_or_else(|| SchemaError::invalid(Some("$ref"), ptr, "$ref must be a string"))?;
            if constraints.len() == 1 || self.ref_overrides {
                let (target, tptr) = self.resolve(r, ptr)?;
                let id = self.intern(V::B(target), tptr);
                return self.node(id);
            }
            // `$ref` beside other keywords is an intersection (2020-12).
            let merged = self.inline(v.get(), ptr, 0)?;
            return self.schema_node(V::O(Rc::new(Value::Object(merged))), &format!("{ptr}/$ref"));
        }
        if let Some(x) = m.get("not") {
            let p = ptr_join(ptr, "not");
            let Negation { with, absent } = match self.negate(x, &p, 0)? {
                Some(n) => n,
                None => return Ok(Node::default()),
            };
            let merged = splice(m, "not", ptr, |acc| {
                let mut acc = merge(acc, &with, &p)?;
                if !absent.is_empty() {
                    let props = acc
                        .entry("properties")
                        .or_insert_with(|| Value::Object(Map::new()));
                    let props = props.as_object_mut().ok_or_else(|| {
                        SchemaError::invalid(Some("properties"), ptr, "must be an object")
                    })?;
                    for k in absent {
                        props.insert(k, Value::Bool(false));
                    }
                }
                Ok(acc)
            })?;
            return self.schema_node(V::O(Rc::new(Value::Object(merged))), &p);
        }
        if let Some(all) = m.get("allOf") {
            let all = all.as_array().ok_or_else(|| {
                SchemaError::invalid(Some("allOf"), ptr, "allOf must be an array")
            })?;
            if all.contains(&Value::Bool(false)) {
                return Ok(Node::default());
            }
            let acc = splice(m, "allOf", ptr, |mut acc| {
                for (i, s) in all.iter().enumerate() {
                    let p = ptr_join(&ptr_join(ptr, "allOf"), &i.to_string());
                    let s = self.inline(s, &p, 0)?;
                    acc = merge(acc, &s, &p)?;
                }
                Ok(acc)
            })?;
            return self.schema_node(V::O(Rc::new(Value::Object(acc))), &format!("{ptr}/allOf"));
        }
        for kw in ["anyOf", "oneOf"] {
            let Some(branches) = m.get(kw) else { continue };
            let branches = branches
                .as_array()
                .ok_or_else(|| SchemaError::invalid(Some(kw), ptr, "must be an array"))?;
            if branches.is_empty() {
                return Err(SchemaError::invalid(Some(kw), ptr, "must not be empty"));
            }
            let mut rest = m.clone();
            rest.remove(kw);
            let siblings = rest.keys().any(|k| is_constraint(k));
            let mut nodes = Vec::new();
            for (i, b) in branches.iter().enumerate() {
                let p = ptr_join(&ptr_join(ptr, kw), &i.to_string());
                let id = if siblings {
                    // (S ∧ anyOf[A, B]) = anyOf[S ∧ A, S ∧ B]; the same for oneOf.
                    if b == &Value::Bool(false) {
                        continue;
                    }
                    let bi = self.inline(b, &p, 0)?;
                    let merged = splice(m, kw, &p, |acc| merge(acc, &bi, &p))?;
                    self.intern(V::O(Rc::new(Value::Object(merged))), p.clone())
                } else {
                    let bv = v.sub(|x| x.get(kw).and_then(|a| a.get(i))).unwrap();
                    self.intern(bv, p.clone())
                };
                nodes.push(self.node(id)?);
            }
            if kw == "anyOf" {
                return any_of(nodes, ptr);
            }
            let esc = self.esc;
            return one_of(nodes, ptr, esc, &mut |a, b| self.discriminated(a, b));
        }
        self.base_node(&v, m, ptr)
    }

    /// `not: x` as keywords to intersect with its siblings, for the `x`
    /// whose complement we can spell exactly; `None` when `x` allows every
    /// value (nothing is left).
    fn negate(&self, x: &Value, ptr: &str, depth: usize) -> R<Option<Negation>> {
        let unsupported = |why: &str| SchemaError::unsupported("not", ptr, why.to_string());
        if depth > 16 {
            return Err(unsupported("negations nested too deeply"));
        }
        if x == &Value::Bool(false) {
            return Ok(Some(Negation::default()));
        }
        let m = self.inline(x, ptr, 0)?;
        let keys: Vec<&str> = m
            .keys()
            .map(String::as_str)
            .filter(|k| is_constraint(k))
            .collect();
        match keys[..] {
            [] => Ok(None),
            ["not"] => {
                let inner = match &m["not"] {
                    Value::Bool(false) => return Ok(None),
                    v => self.inline(v, ptr, 0)?,
                };
                Ok(Some(Negation {
                    with: inner,
                    absent: vec![],
                }))
            }
            ["type"] => {
                let t = types_of(&m, ptr)?;
                if t.contains("integer") && !t.contains("number") {
                    return Err(unsupported("the numbers that are not integers"));
                }
                let rest: Vec<Value> = ["null", "boolean", "object", "array", "number", "string"]
                    .into_iter()
                    .filter(|k| !t.contains(*k))
                    .map(|k| Value::String(k.into()))
                    .collect();
                if rest.is_empty() {
                    return Ok(None);
                }
                let mut with = Map::new();
                with.insert("type".into(), Value::Array(rest));
                Ok(Some(Negation {
                    with,
                    absent: vec![],
                }))
            }
            // Every non-object has all required members: the complement
            // is the objects without that member.
            ["required"] => match m["required"].as_array().map(Vec::as_slice) {
                Some([Value::String(k)]) => {
                    let mut with = Map::new();
                    with.insert("type".into(), Value::Array(vec!["object".into()]));
                    Ok(Some(Negation {
                        with,
                        absent: vec![k.clone()],
                    }))
                }
                Some([]) => Ok(None),
                _ => Err(unsupported("several required names (any one may be missing)")),
            },
            // not (a or b) = (not a) and (not b).
            ["anyOf"] => {
                let branches = m["anyOf"]
                    .as_array()
                    .ok_or_else(|| SchemaError::invalid(Some("anyOf"), ptr, "must be an array"))?;
                let mut acc = Negation::default();
                for (i, b) in branches.iter().enumerate() {
                    let p = ptr_join(&ptr_join(ptr, "anyOf"), &i.to_string());
                    let Some(n) = self.negate(b, &p, depth + 1)? else {
                        return Ok(None);
                    };
                    acc.with = merge(acc.with, &n.with, &p)?;
                    acc.absent.extend(n.absent);
                }
                Ok(Some(acc))
            }
            _ => Err(unsupported(
                "only true, false, a type, one required name, not and anyOf of these can be complemented exactly",
            )),
        }
    }

    /// A schema without `$ref`, `allOf`, `anyOf`, `oneOf`, `not`.
    fn base_node(&mut self, v: &V<'a>, m: &Map<String, Value>, ptr: &str) -> R<Node> {
        let types = types_of(m, ptr)?;
        let has = |t: &str| types.contains(t);
        if m.contains_key("enum") || m.contains_key("const") {
            let (kw, values): (&str, Vec<Value>) = match (m.get("const"), m.get("enum")) {
                (Some(_), Some(_)) => {
                    return Err(SchemaError::unsupported("const", ptr, "together with enum"))
                }
                (Some(c), None) => ("const", vec![c.clone()]),
                (None, Some(Value::Array(e))) => ("enum", e.clone()),
                _ => {
                    return Err(SchemaError::invalid(
                        Some("enum"),
                        ptr,
                        "enum must be an array",
                    ))
                }
            };
            let mut values: Vec<Value> = values
                .into_iter()
                .filter(|x| value_has_type(x, &types))
                .collect();
            let constrained = m
                .keys()
                .any(|k| is_constraint(k) && !["enum", "const", "type"].contains(&k.as_str()));
            if constrained {
                // The values that also meet the other keywords.
                let mut rest = m.clone();
                rest.remove("enum");
                rest.remove("const");
                let others = self.base_node(v, &rest, ptr)?;
                let mut kept = Vec::new();
                for x in values {
                    if value_in(&x, &others, ptr, kw)? {
                        kept.push(x);
                    }
                }
                values = kept;
            }
            return self.const_node(&values, &ptr_join(ptr, kw), kw);
        }
        let mut n = Node {
            null: has("null"),
            t: has("boolean"),
            f: has("boolean"),
            ..Node::default()
        };
        if has("number") || has("integer") {
            n.number = self.number_part(m, ptr, !has("number"))?;
        }
        if has("string") {
            n.string = Some(self.string_part(m, ptr)?);
        }
        if has("array") {
            n.array = self.array_part(v, m, ptr)?;
        }
        if has("object") {
            n.object = self.object_part(v, m, ptr)?;
        }
        Ok(n)
    }

    fn number_part(
        &self,
        m: &Map<String, Value>,
        ptr: &str,
        mut int_only: bool,
    ) -> R<Option<Scalar>> {
        if let Some(k) = m.get("multipleOf") {
            let x = k
                .as_f64()
                .ok_or_else(|| SchemaError::invalid(Some("multipleOf"), ptr, "must be a number"))?;
            if x == 1.0 || (int_only && x.fract() == 0.0 && x > 0.0 && x < 2.0) {
                int_only = true;
            } else {
                return Err(SchemaError::unsupported(
                    "multipleOf",
                    ptr,
                    format!("multipleOf {x}"),
                ));
            }
        }
        // (keyword, value, is_min, exclusive) for each bound present.
        let mut bounds = Vec::new();
        let excl_bool = |k: &str| m.get(k).and_then(Value::as_bool).unwrap_or(false);
        for (k, is_min) in [
            ("minimum", true),
            ("maximum", false),
            ("exclusiveMinimum", true),
            ("exclusiveMaximum", false),
        ] {
            let Some(b) = m.get(k) else { continue };
            if b.is_boolean() {
                continue; // draft-04 modifier, read with minimum/maximum
            }
            let x = b
                .as_number()
                .ok_or_else(|| SchemaError::invalid(Some(k), ptr, "must be a number"))?;
            let exclusive = k.starts_with("exclusive")
                || excl_bool(if is_min {
                    "exclusiveMinimum"
                } else {
                    "exclusiveMaximum"
                });
            bounds.push((k, x, is_min, exclusive));
        }
        let plain = self.integers == Integers::Plain;
        if bounds.is_empty() {
            return Ok(Some(if int_only && plain {
                Scalar::some(numeric::PLAIN_INTEGER.to_string())
            } else if int_only {
                let digits = numeric::integer_range(None, None).unwrap();
                Scalar::some(format!("(?:{digits}|{})", numeric::EXPONENT_INTEGER))
            } else {
                Scalar::full(ANY_NUMBER)
            }));
        }
        if int_only {
            let (mut lo, mut hi): (Option<i128>, Option<i128>) = (None, None);
            for &(k, x, is_min, exclusive) in &bounds {
                let Some(bound) = int_bound(x, is_min, exclusive) else {
                    return Err(SchemaError::unsupported(k, ptr, "bound too large"));
                };
                if is_min {
                    lo = Some(lo.map_or(bound, |l| l.max(bound)));
                } else {
                    hi = Some(hi.map_or(bound, |h| h.min(bound)));
                }
            }
            let spelled = if plain {
                numeric::plain_integer_range(lo, hi)
            } else {
                numeric::integer_range(lo, hi)
            };
            return Ok(spelled.map(Scalar::some));
        }
        // Non-integer numbers: the tightest bound on each side.
        let (mut lo, mut hi): (Option<decimal::Bound>, Option<decimal::Bound>) = (None, None);
        for &(k, x, is_min, exclusive) in &bounds {
            let Some((neg, mag)) = decimal::parse(x) else {
                return Err(SchemaError::unsupported(
                    k,
                    ptr,
                    "bound too large or too precise",
                ));
            };
            let b = decimal::Bound {
                neg,
                mag,
                incl: !exclusive,
            };
            let slot = if is_min { &mut lo } else { &mut hi };
            let tighter = match slot.as_ref() {
                None => true,
                Some(old) => {
                    let c = decimal::signed_cmp(&b, old);
                    if is_min {
                        c.is_gt() || (c.is_eq() && !b.incl)
                    } else {
                        c.is_lt() || (c.is_eq() && !b.incl)
                    }
                }
            };
            if tighter {
                *slot = Some(b);
            }
        }
        match decimal::range(lo.as_ref(), hi.as_ref()) {
            Ok(r) => Ok(r.map(Scalar::some)),
            Err(decimal::Unbuildable) => Err(SchemaError::unsupported(
                bounds[0].0,
                ptr,
                "both bounds fractional within one integer interval",
            )),
        }
    }

    fn string_part(&self, m: &Map<String, Value>, ptr: &str) -> R<Scalar> {
        let mut used: Vec<&str> = Vec::new();
        let (mut lo, mut hi) = (0u64, None);
        for k in ["minLength", "maxLength"] {
            if let Some(x) = m.get(k) {
                let x = as_count(x, k, ptr)?;
                if k == "minLength" {
                    lo = x
                } else {
                    hi = Some(x)
                }
                if !used.contains(&"length") {
                    used.push("length");
                }
            }
        }
        let mut body = None;
        if lo > 0 || hi.is_some() {
            if lo > 1000 || hi.is_some_and(|h| h > 1000) {
                return Err(SchemaError::unsupported(
                    if lo > 1000 { "minLength" } else { "maxLength" },
                    ptr,
                    "length bounds above 1000",
                ));
            }
            if hi.is_some_and(|h| h < lo) {
                return Ok(Scalar::some("[^\\x00-\\x{10FFFF}]".into()));
            }
            body = Some(match hi {
                Some(h) => format!("{JSON_CHAR}{{{lo},{h}}}"),
                None => format!("{JSON_CHAR}{{{lo},}}"),
            });
        }
        if let Some(p) = m.get("pattern") {
            let p = p
                .as_str()
                .ok_or_else(|| SchemaError::invalid(Some("pattern"), ptr, "must be a string"))?;
            if body.is_some() {
                return Err(SchemaError::unsupported(
                    "pattern",
                    ptr,
                    "combined with minLength/maxLength",
                ));
            }
            body = Some(
                pattern::translate(p, self.esc)
                    .map_err(|e| SchemaError::unsupported("pattern", ptr, e.0))?,
            );
        }
        if let Some(f) = m.get("format") {
            let f = f
                .as_str()
                .ok_or_else(|| SchemaError::invalid(Some("format"), ptr, "must be a string"))?;
            if body.is_some() {
                return Err(SchemaError::unsupported(
                    "format",
                    ptr,
                    "combined with pattern or length",
                ));
            }
            let Some(p) = format::pattern(f, self.legacy_formats) else {
                return Err(SchemaError::unsupported(
                    "format",
                    ptr,
                    format!("format {f:?}"),
                ));
            };
            body = Some(
                pattern::translate(&p, self.esc)
                    .map_err(|e| SchemaError::unsupported("format", ptr, e.0))?,
            );
        }
        Ok(match body {
            Some(b) => Scalar::some(format!("\"{b}\"")),
            None => Scalar::full(&format!("\"{JSON_CHAR}*\"")),
        })
    }

    fn array_part(
        &mut self,
        v: &V<'a>,
        m: &Map<String, Value>,
        ptr: &str,
    ) -> R<Option<ArrayShape>> {
        if let Some(u) = m.get("uniqueItems") {
            if u != &Value::Bool(false) {
                return Err(SchemaError::unsupported("uniqueItems", ptr, ""));
            }
        }
        let min = m
            .get("minItems")
            .map(|x| as_count(x, "minItems", ptr))
            .transpose()?
            .unwrap_or(0);
        let mut max = m
            .get("maxItems")
            .map(|x| as_count(x, "maxItems", ptr))
            .transpose()?;
        let (prefix_kw, rest_kw) = match m.get("items") {
            Some(Value::Array(_)) => ("items", "additionalItems"),
            _ => ("prefixItems", "items"),
        };
        let mut prefix = Vec::new();
        if let Some(Value::Array(ps)) = m.get(prefix_kw) {
            for (i, p) in ps.iter().enumerate() {
                if p == &Value::Bool(false) {
                    max = Some(max.map_or(i as u64, |x| x.min(i as u64)));
                    break;
                }
                let sv = v.sub(|x| x.get(prefix_kw).and_then(|a| a.get(i))).unwrap();
                prefix.push(self.intern(sv, ptr_join(&ptr_join(ptr, prefix_kw), &i.to_string())));
            }
        }
        let items = match m.get(rest_kw) {
            None => Some(self.any),
            Some(Value::Bool(false)) => None,
            Some(_) => {
                let sv = v.sub(|x| x.get(rest_kw)).unwrap();
                Some(self.intern(sv, ptr_join(ptr, rest_kw)))
            }
        };
        if items.is_none() {
            max = Some(max.map_or(prefix.len() as u64, |x| x.min(prefix.len() as u64)));
        }
        if max.is_some_and(|x| x < min) {
            return Ok(None);
        }
        let full = prefix.is_empty() && items == Some(self.any) && min == 0 && max.is_none();
        Ok(Some(ArrayShape {
            prefix,
            items,
            min,
            max,
            full,
        }))
    }

    fn object_part(
        &mut self,
        v: &V<'a>,
        m: &Map<String, Value>,
        ptr: &str,
    ) -> R<Option<ObjectShape>> {
        for k in ["dependentRequired", "dependentSchemas", "dependencies"] {
            if let Some(x) = m.get(k) {
                if x.as_object().is_none_or(|o| !o.is_empty()) {
                    return Err(SchemaError::unsupported(k, ptr, ""));
                }
            }
        }
        let mut additional = match m.get("additionalProperties") {
            None => Some(self.any),
            Some(Value::Bool(false)) => None,
            Some(x) if is_trivial(x) => Some(self.any),
            Some(_) => {
                let sv = v.sub(|x| x.get("additionalProperties")).unwrap();
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
                    .sub(|x| x.get("properties").and_then(|p| p.get(name)))
                    .unwrap();
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
        for r in &required {
            if !reserved.contains(r) {
                if let Some(p) = pats.iter().find(|p| p.matches(r)) {
                    return Err(pattern_matches_name(p, r, ptr));
                }
                let Some(a) = additional else { return Ok(None) };
                reserved.push(r.clone());
                props.push(Property {
                    name: r.clone(),
                    schema: a,
                    required: true,
                });
            }
        }
        for name in &reserved {
            if let Some(p) = pats.iter().find(|p| p.matches(name)) {
                return Err(pattern_matches_name(p, name, ptr));
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
                pattern::translate(&p.source, self.esc)
                    .map_err(|e| SchemaError::unsupported("patternProperties", ptr, e.0))?
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
                .sub(|x| x.get("patternProperties").and_then(|p| p.get(source)))
                .unwrap();
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
            });
        }
        // Constraining patterns first: they win ties (see PatternKeys).
        out.sort_by_key(|p| p.trivial);
        Ok(out)
    }

    /// A schema for values that must satisfy both `a` and `b`.
    fn both(&mut self, a: Id, b: Id) -> R<Id> {
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
        Ok(self.intern(V::O(Rc::new(all)), pa))
    }

    /// Whether no object matches both: one requires a key the other cannot
    /// have (serde's externally tagged enums, as schemars writes them), or
    /// a property required by both has disjoint finite value sets in them
    /// (a `type`/`kind` tag).
    fn discriminated(&mut self, a: &ObjectShape, b: &ObjectShape) -> R<bool> {
        let excludes = |x: &ObjectShape, y: &ObjectShape| {
            y.additional.is_none()
                && y.patterns.is_empty()
                && x.props
                    .iter()
                    .any(|p| p.required && !y.props.iter().any(|q| q.name == p.name))
        };
        if excludes(a, b) || excludes(b, a) {
            return Ok(true);
        }
        for pa in a.props.iter().filter(|p| p.required) {
            let Some(pb) = b.props.iter().find(|p| p.required && p.name == pa.name) else {
                continue;
            };
            let (na, nb) = (self.node(pa.schema)?, self.node(pb.schema)?);
            if let (Some(va), Some(vb)) = (finite_values(&na), finite_values(&nb)) {
                if va.is_disjoint(&vb) {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// The node of a finite set of values (`enum`, `const`).
    fn const_node(&mut self, values: &[Value], ptr: &str, kw: &str) -> R<Node> {
        let mut n = Node::default();
        for (i, v) in values.iter().enumerate() {
            let p = ptr_join(ptr, &i.to_string());
            match v {
                Value::Null => n.null = true,
                Value::Bool(true) => n.t = true,
                Value::Bool(false) => n.f = true,
                Value::Number(x) => {
                    let s = number_scalar(x);
                    n.number = Some(match n.number {
                        Some(a) => a.union(&s),
                        None => s,
                    });
                }
                Value::String(x) => {
                    let s = Scalar {
                        regex: quoted(x, self.esc),
                        values: Some(BTreeSet::from([v.to_string()])),
                        full: false,
                    };
                    n.string = Some(match n.string {
                        Some(a) => a.union(&s),
                        None => s,
                    });
                }
                Value::Array(xs) => {
                    if n.array.is_some() {
                        return Err(SchemaError::unsupported(
                            kw,
                            ptr,
                            "more than one array value",
                        ));
                    }
                    let prefix = xs
                        .iter()
                        .enumerate()
                        .map(|(j, x)| {
                            self.push(Src::Const(x.clone(), ptr_join(&p, &j.to_string())))
                        })
                        .collect();
                    let len = xs.len() as u64;
                    n.array = Some(ArrayShape {
                        prefix,
                        items: None,
                        min: len,
                        max: Some(len),
                        full: false,
                    });
                }
                Value::Object(o) => {
                    if n.object.is_some() {
                        return Err(SchemaError::unsupported(
                            kw,
                            ptr,
                            "more than one object value",
                        ));
                    }
                    let props = o
                        .iter()
                        .map(|(k, x)| Property {
                            name: k.clone(),
                            schema: self.push(Src::Const(x.clone(), ptr_join(&p, k))),
                            required: true,
                        })
                        .collect();
                    n.object = Some(ObjectShape {
                        props,
                        reserved: o.keys().cloned().collect(),
                        patterns: vec![],
                        additional: None,
                        nonempty: false,
                        full: false,
                    });
                }
            }
        }
        Ok(n)
    }
}

/// One `patternProperties` entry, with the facts exactness needs.
/// Whether the value `x` (of an `enum`/`const`) is in the language of
/// `n`, the node of the keywords beside it. Scalars are checked on their
/// serde_json spelling: where `n` is a documented subset that refuses that
/// spelling, the value is dropped, which only refuses more.
fn value_in(x: &Value, n: &Node, ptr: &str, kw: &str) -> R<bool> {
    let spelled = |s: &Scalar, text: String| -> R<bool> {
        if s.full {
            return Ok(true);
        }
        match gcd_core::lexer::TerminalDfa::new(&s.regex) {
            Ok(dfa) => Ok(dfa.matches(text.as_bytes())),
            Err(gcd_core::lexer::DfaError::NeverMatches) => Ok(false),
            Err(e) => Err(SchemaError::unsupported(kw, ptr, format!("{e:?}"))),
        }
    };
    let nested = || {
        SchemaError::unsupported(
            kw,
            ptr,
            "an object or array value beside keywords that constrain it",
        )
    };
    match x {
        Value::Null => Ok(n.null),
        Value::Bool(b) => Ok(if *b { n.t } else { n.f }),
        Value::Number(_) => n
            .number
            .as_ref()
            .map_or(Ok(false), |s| spelled(s, x.to_string())),
        Value::String(_) => n
            .string
            .as_ref()
            .map_or(Ok(false), |s| spelled(s, x.to_string())),
        Value::Array(_) => match &n.array {
            None => Ok(false),
            Some(a) if a.full => Ok(true),
            Some(_) => Err(nested()),
        },
        Value::Object(_) => match (&n.object, n.more_objects.is_empty()) {
            (None, true) => Ok(false),
            (Some(o), true) if o.full => Ok(true),
            _ => Err(nested()),
        },
    }
}

/// The complement of a `not` schema: keywords to intersect with, and
/// object members that must be absent.
#[derive(Default)]
struct Negation {
    with: Map<String, Value>,
    absent: Vec<String>,
}

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
}

impl KeyPattern {
    fn matches(&self, name: &str) -> bool {
        // Canonical JSON text of the name: one member of its spellings.
        self.lang
            .contains(serde_json::to_string(name).unwrap().as_bytes())
    }
}

fn pattern_matches_name(p: &KeyPattern, name: &str, ptr: &str) -> SchemaError {
    SchemaError::unsupported(
        "patternProperties",
        ptr,
        format!(
            "pattern {:?} matches the declared or required name {name:?}",
            p.source
        ),
    )
}

/// Whether a schema allows every value (`true`, or only annotations).
fn is_trivial(s: &Value) -> bool {
    match s {
        Value::Bool(b) => *b,
        Value::Object(m) => !m.keys().any(|k| is_constraint(k) || k == "$schema"),
        _ => false,
    }
}

/// The values of a node made only of finite parts (tagged by JSON type).
fn finite_values(n: &Node) -> Option<BTreeSet<String>> {
    if n.array.is_some() || n.object.is_some() {
        return None;
    }
    let mut out = BTreeSet::new();
    for (on, v) in [(n.null, "null"), (n.t, "true"), (n.f, "false")] {
        if on {
            out.insert(v.to_string());
        }
    }
    for (tag, part) in [("n:", &n.number), ("s:", &n.string)] {
        if let Some(p) = part {
            out.extend(p.values.as_ref()?.iter().map(|v| format!("{tag}{v}")));
        }
    }
    Some(out)
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

fn as_count(x: &Value, k: &str, ptr: &str) -> R<u64> {
    if let Some(n) = x.as_u64() {
        return Ok(n);
    }
    match x.as_f64() {
        Some(f) if f >= 0.0 && f.fract() == 0.0 && f < 1e15 => Ok(f as u64),
        _ => Err(SchemaError::invalid(
            Some(k),
            ptr,
            "must be a non-negative integer",
        )),
    }
}

/// The integer bound implied by a numeric bound: the least (for a minimum)
/// or greatest (for a maximum) integer satisfying it.
fn int_bound(x: &Number, is_min: bool, exclusive: bool) -> Option<i128> {
    let v: i128 = if let Some(i) = x.as_i64() {
        i as i128
    } else if let Some(u) = x.as_u64() {
        u as i128
    } else {
        let f = x.as_f64()?;
        if !f.is_finite() || f.abs() > 1e30 {
            return None;
        }
        if f.fract() != 0.0 {
            // Non-integral: the strict and loose bounds coincide.
            return Some(if is_min {
                f.ceil() as i128
            } else {
                f.floor() as i128
            });
        }
        f as i128
    };
    Some(match (is_min, exclusive) {
        (true, true) => v + 1,
        (false, true) => v - 1,
        _ => v,
    })
}

/// Spellings of one number value: integers with optional `.0…`; other
/// values as written, with optional trailing zeros after the fraction.
fn number_scalar(x: &Number) -> Scalar {
    let int = x
        .as_i64()
        .map(|i| i as i128)
        .or(x.as_u64().map(|u| u as i128))
        .or_else(|| {
            let f = x.as_f64()?;
            (f.fract() == 0.0 && f.abs() < 9.0e15).then_some(f as i128)
        });
    let (regex, key) = match int {
        Some(i) => (
            numeric::integer_range(Some(i), Some(i)).unwrap(),
            i.to_string(),
        ),
        None => {
            let s = x.to_string();
            let re = if s.contains('.') && !s.contains(['e', 'E']) {
                format!("{}0*", regex_syntax::escape(&s))
            } else {
                regex_syntax::escape(&s)
            };
            (re, x.as_f64().map_or(s, |f| f.to_string()))
        }
    };
    Scalar {
        regex,
        values: Some(BTreeSet::from([key])),
        full: false,
    }
}

fn types_of(m: &Map<String, Value>, ptr: &str) -> R<BTreeSet<String>> {
    const ALL: [&str; 7] = [
        "null", "boolean", "object", "array", "number", "string", "integer",
    ];
    let Some(t) = m.get("type") else {
        return Ok(ALL.iter().map(|s| s.to_string()).collect());
    };
    let list: Vec<&Value> = match t {
        Value::Array(a) => a.iter().collect(),
        x => vec![x],
    };
    let mut out = BTreeSet::new();
    for x in list {
        match x.as_str() {
            Some(s) if ALL.contains(&s) => {
                out.insert(s.to_string());
            }
            _ => {
                return Err(SchemaError::invalid(
                    Some("type"),
                    ptr,
                    format!("unknown type {x}"),
                ))
            }
        }
    }
    Ok(out)
}

fn value_has_type(v: &Value, types: &BTreeSet<String>) -> bool {
    let has = |t: &str| types.contains(t);
    match v {
        Value::Null => has("null"),
        Value::Bool(_) => has("boolean"),
        Value::Number(n) => {
            has("number")
                || (has("integer")
                    && (n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)))
        }
        Value::String(_) => has("string"),
        Value::Array(_) => has("array"),
        Value::Object(_) => has("object"),
    }
}

/// `allOf` of two schemas as one schema, when the merge is exact.
fn merge(mut a: Map<String, Value>, b: &Map<String, Value>, ptr: &str) -> R<Map<String, Value>> {
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
            "minLength" | "minItems" | "minimum" | "minProperties" => {
                num_pick(va, vb, true).ok_or_else(conflict)?
            }
            "maxLength" | "maxItems" | "maximum" | "maxProperties" => {
                num_pick(va, vb, false).ok_or_else(conflict)?
            }
            // not a and not b = not (a or b).
            "not" => serde_json::json!({ "anyOf": [va, vb] }),
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

/// Merges what the keyword `kw` of `m` stands for (`with`) with the rest
/// of `m`, in the order they are written: when `kw` comes before
/// `properties`, its properties come first. Member order in the grammar
/// follows the merged `properties`, so a schema read top to bottom gives
/// the order, as other engines (and the documents they produced) have it.
/// The rest of `m` stays one part: its `properties` and
/// `additionalProperties` only make sense together.
fn splice(
    m: &Map<String, Value>,
    kw: &str,
    ptr: &str,
    with: impl FnOnce(Map<String, Value>) -> R<Map<String, Value>>,
) -> R<Map<String, Value>> {
    let mut own = m.clone();
    own.remove(kw);
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

/// anyOf: union per JSON type.
fn any_of(nodes: Vec<Node>, ptr: &str) -> R<Node> {
    let mut out = Node::default();
    for n in nodes {
        out.null |= n.null;
        out.t |= n.t;
        out.f |= n.f;
        out.number = union_scalar(out.number, n.number);
        out.string = union_scalar(out.string, n.string);
        out.array = union_container(out.array, n.array, |a| a.full, ptr, "arrays")?;
        let mut objects: Vec<ObjectShape> = out
            .object
            .take()
            .into_iter()
            .chain(out.more_objects.drain(..))
            .collect();
        for o in n.object.into_iter().chain(n.more_objects) {
            if !objects.contains(&o) {
                objects.push(o);
            }
        }
        if let Some(full) = objects.iter().find(|o| o.full) {
            objects = vec![full.clone()];
        }
        let mut it = objects.into_iter();
        out.object = it.next();
        out.more_objects = it.collect();
    }
    Ok(out)
}

fn union_scalar(a: Option<Scalar>, b: Option<Scalar>) -> Option<Scalar> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.union(&b)),
        (a, b) => a.or(b),
    }
}

fn union_container<T: PartialEq>(
    a: Option<T>,
    b: Option<T>,
    full: impl Fn(&T) -> bool,
    ptr: &str,
    what: &str,
) -> R<Option<T>> {
    Ok(match (a, b) {
        (Some(a), Some(b)) => {
            if full(&a) || a == b {
                Some(a)
            } else if full(&b) {
                Some(b)
            } else {
                return Err(SchemaError::unsupported(
                    "anyOf",
                    ptr,
                    format!("several branches allow {what}"),
                ));
            }
        }
        (a, b) => a.or(b),
    })
}

/// oneOf: a value is allowed iff exactly one branch allows it. Exact per
/// type when at most one branch has the type, when two branches allow the
/// whole type (then none of it is allowed), or for finite value sets.
/// Objects of several branches need a discriminator: `exclusive(a, b)`
/// proves no object matches both.
fn one_of(
    nodes: Vec<Node>,
    ptr: &str,
    esc: Escapes,
    exclusive: &mut dyn FnMut(&ObjectShape, &ObjectShape) -> R<bool>,
) -> R<Node> {
    let once = |f: &dyn Fn(&Node) -> bool| nodes.iter().filter(|n| f(n)).count() == 1;
    let mut out = Node {
        null: once(&|n| n.null),
        t: once(&|n| n.t),
        f: once(&|n| n.f),
        ..Node::default()
    };
    out.number = one_scalar(
        nodes.iter().filter_map(|n| n.number.clone()).collect(),
        ptr,
        "numbers",
        true,
        esc,
    )?;
    out.string = one_scalar(
        nodes.iter().filter_map(|n| n.string.clone()).collect(),
        ptr,
        "strings",
        false,
        esc,
    )?;
    let arrays: Vec<ArrayShape> = nodes.iter().filter_map(|n| n.array.clone()).collect();
    out.array = match arrays.len() {
        0 => None,
        1 => arrays.into_iter().next(),
        _ if arrays.iter().filter(|a| a.full).count() >= 2 => None,
        _ => {
            return Err(SchemaError::unsupported(
                "oneOf",
                ptr,
                "several branches allow arrays",
            ))
        }
    };
    let objects: Vec<ObjectShape> = nodes.iter().filter_map(|n| n.object.clone()).collect();
    let refuse = || {
        SchemaError::unsupported(
            "oneOf",
            ptr,
            "several branches allow objects and no property tells them apart",
        )
    };
    if nodes.iter().any(|n| !n.more_objects.is_empty()) && objects.len() > 1 {
        return Err(refuse());
    }
    match objects.len() {
        0 | 1 => out.object = objects.into_iter().next(),
        _ if objects.iter().filter(|a| a.full).count() >= 2 => out.object = None,
        _ => {
            for i in 0..objects.len() {
                for j in i + 1..objects.len() {
                    if !exclusive(&objects[i], &objects[j])? {
                        return Err(refuse());
                    }
                }
            }
            let mut it = objects.into_iter();
            out.object = it.next();
            out.more_objects = it.collect();
        }
    }
    Ok(out)
}

fn one_scalar(
    parts: Vec<Scalar>,
    ptr: &str,
    what: &str,
    number: bool,
    esc: Escapes,
) -> R<Option<Scalar>> {
    if parts.len() <= 1 {
        return Ok(parts.into_iter().next());
    }
    if parts.iter().filter(|p| p.full).count() >= 2 {
        return Ok(None);
    }
    if parts.iter().all(|p| p.values.is_some()) {
        let mut count: HashMap<String, usize> = HashMap::new();
        for p in &parts {
            for v in p.values.as_ref().unwrap() {
                *count.entry(v.clone()).or_default() += 1;
            }
        }
        let mut keep: Option<Scalar> = None;
        for (v, c) in count {
            if c != 1 {
                continue;
            }
            let s = if number {
                let n: Number = serde_json::from_str(&v)
                    .map_err(|_| SchemaError::unsupported("oneOf", ptr, "number value"))?;
                number_scalar(&n)
            } else {
                let s: String = serde_json::from_str(&v).unwrap();
                Scalar {
                    regex: quoted(&s, esc),
                    values: Some(BTreeSet::from([v.clone()])),
                    full: false,
                }
            };
            keep = union_scalar(keep, Some(s));
        }
        return Ok(keep);
    }
    Err(SchemaError::unsupported(
        "oneOf",
        ptr,
        format!("several branches allow {what}"),
    ))
}
