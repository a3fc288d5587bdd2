//! Schema → [`Node`]s: resolving `$ref`, merging `allOf`, combining
//! `anyOf`/`oneOf` per JSON type, and turning each keyword into its exact
//! language (or an error naming it).
//!
//! Nodes are computed lazily per schema location: a node only describes its
//! own level and names its children by [`Id`], so recursive schemas work as
//! long as every cycle passes through an array or object.
//!
//! This module holds the [`Compiler`] arena and the dispatch over one schema
//! node; each kind of keyword has its own submodule.

mod array;
mod constant;
mod number;
mod object;
mod refs;
mod string;
mod union;

use std::collections::BTreeSet;
use std::rc::Rc;

use gcd_core::Limits;
use serde_json::{Map, Value};

pub(crate) use self::number::FINITE;

use self::constant::value_in;
use self::refs::{merge, splice};
use self::union::{any_of, one_of, Negation};
use crate::error::SchemaError;
use crate::node::*;
use crate::options::{Draft, Escapes, Integers};
use crate::spell::JSON_CHAR;

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
    number::FINITE,
    string::NOT_STRINGS,
];

fn is_constraint(k: &str) -> bool {
    HANDLED.contains(&k) || UNSUPPORTED.contains(&k)
}

/// A schema value: borrowed from the caller's document, or a part of one
/// built by a merge (the merged value and the path to the part: taking a
/// part of a merged schema used to copy it, and interning the copy hashed
/// it again, at every level).
#[derive(Clone)]
enum V<'a> {
    B(&'a Value),
    O(Rc<Value>, Rc<[Step]>),
}

/// One step down a schema value.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Step {
    Key(String),
    Index(usize),
}

/// The key `k` as a [`Step`].
fn key(k: &str) -> Step {
    Step::Key(k.to_string())
}

fn step<'v>(v: &'v Value, s: &Step) -> Option<&'v Value> {
    match s {
        Step::Key(k) => v.get(k),
        Step::Index(i) => v.get(i),
    }
}

/// The part of a merged value at `path` (which `V::sub` checked exists).
fn part<'v>(root: &'v Value, path: &[Step]) -> &'v Value {
    (path.iter())
        .try_fold(root, step)
        .expect("a merged value's path leads to a part of it")
}

impl<'a> V<'a> {
    /// A merged value, whole.
    fn merged(v: Value) -> V<'a> {
        V::O(Rc::new(v), Rc::from([]))
    }
    fn get(&self) -> &Value {
        match self {
            V::B(v) => v,
            V::O(root, path) => part(root, path),
        }
    }
    /// The part of this value at `path`, if there is one.
    fn sub(&self, path: &[Step]) -> Option<V<'a>> {
        match self {
            V::B(v) => path.iter().try_fold(*v, step).map(V::B),
            V::O(root, at) => {
                path.iter().try_fold(self.get(), step)?;
                let full: Vec<Step> = at.iter().chain(path).cloned().collect();
                Some(V::O(root.clone(), full.into()))
            }
        }
    }
}

/// What [`Compiler::intern`] deduplicates by: a borrowed schema by its
/// location, a merged one by its content, keys in order (the order of
/// `properties` is the order of the output's members).
#[derive(PartialEq, Eq, Hash)]
enum SrcKey {
    At(String),
    Merged(InOrder),
}

/// A part of a merged value (as in [`V::O`]), compared and hashed by
/// content with object keys in order (serde_json's own `Eq` ignores their
/// order). Branches merged with the same siblings must share their
/// properties' ids: unions compare them.
struct InOrder(Rc<Value>, Rc<[Step]>);

impl InOrder {
    fn value(&self) -> &Value {
        part(&self.0, &self.1)
    }
}

impl PartialEq for InOrder {
    fn eq(&self, other: &Self) -> bool {
        if Rc::ptr_eq(&self.0, &other.0) && self.1 == other.1 {
            return true;
        }
        fn eq(a: &Value, b: &Value) -> bool {
            match (a, b) {
                (Value::Object(x), Value::Object(y)) => {
                    x.len() == y.len()
                        && x.iter()
                            .zip(y)
                            .all(|((ka, va), (kb, vb))| ka == kb && eq(va, vb))
                }
                (Value::Array(x), Value::Array(y)) => {
                    x.len() == y.len() && x.iter().zip(y).all(|(a, b)| eq(a, b))
                }
                _ => a == b,
            }
        }
        eq(self.value(), other.value())
    }
}

impl Eq for InOrder {}

impl std::hash::Hash for InOrder {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        fn hash<H: std::hash::Hasher>(v: &Value, state: &mut H) {
            match v {
                Value::Object(m) => {
                    state.write_u8(b'o');
                    state.write_usize(m.len());
                    for (k, x) in m {
                        k.hash(state);
                        hash(x, state);
                    }
                }
                Value::Array(a) => {
                    state.write_u8(b'a');
                    state.write_usize(a.len());
                    a.iter().for_each(|x| hash(x, state));
                }
                scalar => scalar.hash(state),
            }
        }
        hash(self.value(), state)
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
    index: rustc_hash::FxHashMap<SrcKey, Id>,
    nodes: Vec<Option<Node>>,
    busy: Vec<bool>,
    /// Id of the `true` schema.
    pub any: Id,
    pub esc: Escapes,
    integers: Integers,
    /// What the schema may make compilation cost.
    pub limits: Limits,
    /// Drafts before 2019-09: `$ref` makes its siblings ignored.
    ref_overrides: bool,
    /// The schema may be draft 4 or 6, whose `hostname` is RFC 1034's.
    legacy_formats: bool,
    /// (JSON pointer, format) of every `format` no draft defines: an
    /// annotation, recorded for the caller and not enforced.
    pub ignored_formats: std::cell::RefCell<std::collections::BTreeSet<(String, String)>>,
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
            index: Default::default(),
            nodes: Vec::new(),
            busy: Vec::new(),
            any: 0,
            esc,
            integers,
            limits: Limits::default(),
            ref_overrides,
            legacy_formats,
            ignored_formats: Default::default(),
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
            V::B(_) => SrcKey::At(ptr.clone()),
            V::O(root, path) => SrcKey::Merged(InOrder(root.clone(), path.clone())),
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
            return self.schema_node(V::merged(Value::Object(merged)), &format!("{ptr}/$ref"));
        }
        if let Some(branches) = dependency_branches(m, ptr)? {
            let mut own = m.clone();
            for k in DEPENDENCY_KEYWORDS {
                own.remove(k);
            }
            if own.contains_key("anyOf") {
                let k = DEPENDENCY_KEYWORDS
                    .into_iter()
                    .find(|k| m.contains_key(*k))
                    .expect("the dependency keyword found above");
                return Err(SchemaError::unsupported(k, ptr, "beside anyOf"));
            }
            own.insert("anyOf".into(), Value::Array(branches));
            return self.schema_node(V::merged(Value::Object(own)), ptr);
        }
        // not {required: [a, b]}: objects missing a, or missing b.
        if let Some(names) = several_required(m.get("not")) {
            if !m.contains_key("anyOf") {
                let mut own = m.clone();
                own.remove("not");
                let branches = names
                    .iter()
                    .map(|k| serde_json::json!({"not": {"required": [k]}}));
                own.insert("anyOf".into(), Value::Array(branches.collect()));
                return self.schema_node(V::merged(Value::Object(own)), ptr);
            }
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
            return self.schema_node(V::merged(Value::Object(merged)), &p);
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
            return self.schema_node(V::merged(Value::Object(acc)), &format!("{ptr}/allOf"));
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
                    self.intern(V::merged(Value::Object(merged)), p.clone())
                } else {
                    let bv = (v.sub(&[key(kw), Step::Index(i)]))
                        .expect("branch i of the array being read");
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

/// The keywords that make one property's presence demand more.
const DEPENDENCY_KEYWORDS: [&str; 3] = ["dependencies", "dependentRequired", "dependentSchemas"];

/// Most dependencies spelled as branches (two per dependency, multiplied).
const MAX_DEPENDENCIES: usize = 6;

/// Dependencies as the branches of an `anyOf`: for each one, either its
/// property is absent (`not: {required: [a]}`) or it is present with what
/// it demands (more required names, or a schema). One branch per choice
/// of side for every dependency, and one for every value that is not an
/// object; `None` when there are none.
fn dependency_branches(m: &Map<String, Value>, ptr: &str) -> R<Option<Vec<Value>>> {
    let mut deps: Vec<(&str, &str, &Value)> = Vec::new();
    for k in DEPENDENCY_KEYWORDS {
        let Some(x) = m.get(k) else { continue };
        let x = x
            .as_object()
            .ok_or_else(|| SchemaError::invalid(Some(k), ptr, "must be an object"))?;
        deps.extend(
            x.iter()
                .filter(|(_, d)| **d != Value::Bool(true))
                .map(|(a, d)| (k, a.as_str(), d)),
        );
    }
    if deps.is_empty() {
        return Ok(None);
    }
    if deps.len() > MAX_DEPENDENCIES {
        return Err(SchemaError::unsupported(
            deps[0].0,
            ptr,
            format!("more than {MAX_DEPENDENCIES} dependencies"),
        ));
    }
    let mut branches = Vec::new();
    for choice in 0..1u32 << deps.len() {
        let (mut required, mut absent, mut schemas) = (Vec::new(), Vec::new(), Vec::new());
        for (i, &(k, a, d)) in deps.iter().enumerate() {
            if choice >> i & 1 == 0 {
                absent.push(serde_json::json!({ "required": [a] }));
                continue;
            }
            required.push(Value::String(a.into()));
            match d {
                Value::Array(names) if k != "dependentSchemas" => {
                    required.extend(names.iter().cloned())
                }
                Value::Object(_) | Value::Bool(false) if k != "dependentRequired" => {
                    schemas.push(d.clone())
                }
                _ => {
                    return Err(SchemaError::invalid(
                        Some(k),
                        ptr,
                        format!("the dependency of {a:?} has the wrong form"),
                    ))
                }
            }
        }
        let mut branch = Map::new();
        if !required.is_empty() {
            branch.insert("required".into(), Value::Array(required));
        }
        if !absent.is_empty() {
            branch.insert("not".into(), serde_json::json!({ "anyOf": absent }));
        }
        // A property present with a schema to meet: the branch is both.
        let branch = match schemas.is_empty() {
            true => Value::Object(branch),
            false => {
                schemas.insert(0, Value::Object(branch));
                serde_json::json!({ "allOf": schemas })
            }
        };
        branches.push(branch);
    }
    // Dependencies constrain objects only: every other value meets them
    // (the branches above, spelled with `required`, hold objects alone).
    branches.push(serde_json::json!({ "type": ["null", "boolean", "number", "string", "array"] }));
    Ok(Some(branches))
}

/// The names of a `not` that is only a `required` list of two or more.
/// (`{allOf: [{required: [a]}, {required: [b]}]}` counts as one list).
fn several_required(not: Option<&Value>) -> Option<Vec<Value>> {
    let m = not?.as_object()?;
    let mut keys = m.keys().filter(|k| is_constraint(k));
    let names: Vec<Value> = match (keys.next().map(String::as_str), keys.next()) {
        (Some("required"), None) => m["required"].as_array()?.clone(),
        (Some("allOf"), None) => {
            let parts = m["allOf"]
                .as_array()?
                .iter()
                .map(|p| several_required_part(p));
            parts.collect::<Option<Vec<Vec<Value>>>>()?.concat()
        }
        _ => return None,
    };
    (names.len() >= 2).then_some(names)
}

fn several_required_part(v: &Value) -> Option<Vec<Value>> {
    let m = v.as_object()?;
    let mut keys = m.keys().filter(|k| is_constraint(k));
    match (keys.next().map(String::as_str), keys.next()) {
        (Some("required"), None) => m["required"].as_array().cloned(),
        _ => None,
    }
}
