//! `anyOf`, `oneOf` and `not`: nodes combined per JSON type, and the few
//! schemas whose complement is spelled exactly. Separate because unions
//! work on finished nodes, not on one schema's keywords.

use std::collections::{BTreeSet, HashMap};

use serde_json::{Map, Number, Value};

use super::number::number_scalar;
use super::refs::merge;
use super::{is_constraint, ptr_join, types_of, Compiler, R};
use crate::error::SchemaError;
use crate::language::Language;
use crate::node::*;
use crate::options::Escapes;
use crate::spell::quoted;

impl Compiler<'_> {
    /// `not: x` as keywords to intersect with its siblings, for the `x`
    /// whose complement we can spell exactly; `None` when `x` allows every
    /// value (nothing is left).
    pub(super) fn negate(&self, x: &Value, ptr: &str, depth: usize) -> R<Option<Negation>> {
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
            // Every value but these strings.
            ["enum"] => match m["enum"].as_array() {
                Some(vs) if !vs.is_empty() && vs.iter().all(Value::is_string) => {
                    let mut with = Map::new();
                    with.insert(super::string::NOT_STRINGS.into(), Value::Array(vs.clone()));
                    Ok(Some(Negation {
                        with,
                        absent: vec![],
                    }))
                }
                _ => Err(unsupported("an enum of values other than strings")),
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

    /// Whether no object matches both: one requires a key the other cannot
    /// have (serde's externally tagged enums, as schemars writes them), or
    /// a property required by both has disjoint finite value sets in them
    /// (a `type`/`kind` tag).
    pub(super) fn discriminated(&mut self, a: &ObjectShape, b: &ObjectShape) -> R<bool> {
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
}

/// The complement of a `not` schema: keywords to intersect with, and
/// object members that must be absent.
#[derive(Default)]
pub(super) struct Negation {
    pub(super) with: Map<String, Value>,
    pub(super) absent: Vec<String>,
}

/// anyOf: union per JSON type.
pub(super) fn any_of(nodes: Vec<Node>, ptr: &str) -> R<Node> {
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
pub(super) fn one_of(
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
        0 => {}
        // The one branch with objects: all of its shapes (an `anyOf`
        // inside it spells several).
        1 => {
            let n = nodes.iter().find(|n| n.object.is_some());
            out.object = objects.into_iter().next();
            out.more_objects = n.map(|n| n.more_objects.clone()).unwrap_or_default();
        }
        _ if objects.iter().filter(|a| a.full).count() >= 2 => out.object = None,
        _ => {
            let mut apart = true;
            for i in 0..objects.len() {
                for j in i + 1..objects.len() {
                    apart &= exclusive(&objects[i], &objects[j])?;
                }
            }
            let objects = match apart {
                true => objects,
                false => one_by_required(&objects).ok_or_else(refuse)?,
            };
            let mut it = objects.into_iter();
            out.object = it.next();
            out.more_objects = it.collect();
        }
    }
    Ok(out)
}

/// Most object shapes [`one_by_required`] spells one `oneOf` with.
const MAX_REQUIRED_SPLITS: usize = 64;

/// oneOf over object shapes that differ only in which properties they
/// require (`oneOf: [{required: [a]}, {required: [b]}]` beside shared
/// `properties`): an object is in exactly one when it has all of one
/// shape's required names `R_i` and, for every other shape `j`, lacks one
/// name of `R_j` outside `R_i`. Spelled as shapes with those names absent,
/// one per choice of missing names (they may overlap: the union is exact;
/// none when no object is in exactly one). `None` when the shapes differ
/// otherwise or the choices are too many.
fn one_by_required(objects: &[ObjectShape]) -> Option<Vec<ObjectShape>> {
    let loose = |o: &ObjectShape| {
        let mut o = o.clone();
        o.props.iter_mut().for_each(|p| p.required = false);
        o
    };
    let base = loose(&objects[0]);
    // A pattern key could still spell a name made absent.
    if !base.patterns.is_empty() || objects.iter().any(|o| loose(o) != base) {
        return None;
    }
    let required: Vec<Vec<&str>> = (objects.iter())
        .map(|o| {
            o.props
                .iter()
                .filter(|p| p.required)
                .map(|p| p.name.as_str())
                .collect()
        })
        .collect();
    let mut out = Vec::new();
    for (i, shape) in objects.iter().enumerate() {
        // Per other shape, the names whose absence keeps an object out of it.
        let mut choices: Vec<Vec<&str>> = Vec::new();
        for (_, rj) in required.iter().enumerate().filter(|&(j, _)| j != i) {
            choices.push(
                rj.iter()
                    .copied()
                    .filter(|k| !required[i].contains(k))
                    .collect(),
            );
        }
        let mut combos: Vec<Vec<&str>> = vec![vec![]];
        for c in &choices {
            combos = combos
                .iter()
                .flat_map(|combo| c.iter().map(move |k| [combo.clone(), vec![*k]].concat()))
                .collect();
            if combos.len() + out.len() > MAX_REQUIRED_SPLITS {
                return None;
            }
        }
        for absent in combos {
            let mut o = shape.clone();
            o.props.retain(|p| !absent.contains(&p.name.as_str()));
            for k in absent {
                if !o.reserved.iter().any(|r| r == k) {
                    o.reserved.push(k.to_string());
                }
            }
            if !out.contains(&o) {
                out.push(o);
            }
        }
    }
    Some(out)
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
            for v in p.values.iter().flatten() {
                *count.entry(v.clone()).or_default() += 1;
            }
        }
        // In value order: the hash map's order would vary between runs.
        let mut once: Vec<String> = (count.into_iter())
            .filter_map(|(v, c)| (c == 1).then_some(v))
            .collect();
        once.sort();
        let mut keep = Vec::with_capacity(once.len());
        for v in once {
            let s = if number {
                let n: Number = serde_json::from_str(&v)
                    .map_err(|_| SchemaError::unsupported("oneOf", ptr, "number value"))?;
                number_scalar(&n)
            } else {
                let s: String = serde_json::from_str(&v)
                    .map_err(|_| SchemaError::unsupported("oneOf", ptr, "string value"))?;
                Scalar::of(quoted(&s, esc), Some(BTreeSet::from([v.clone()])))
            };
            keep.push(s);
        }
        return Ok(Scalar::union_all(keep));
    }
    // Strings whose spellings no two branches share: exactly one branch
    // holds for each (every branch spells a value the same ways, so
    // disjoint spellings are disjoint values; not so for numbers, where
    // `1` and `1.0` are one value).
    if !number && pairwise_disjoint(&parts) {
        return Ok(Scalar::union_all(parts));
    }
    Err(SchemaError::unsupported(
        "oneOf",
        ptr,
        format!("several branches allow {what}"),
    ))
}

/// Whether no string is in two of `parts` (decided on their automata).
fn pairwise_disjoint(parts: &[Scalar]) -> bool {
    let langs: Option<Vec<Vec<Language>>> = (parts.iter())
        .map(|p| p.alts.iter().map(|a| Language::of_all(a)).collect())
        .collect();
    let Some(langs) = langs else { return false };
    (0..langs.len()).all(|i| {
        (i + 1..langs.len())
            .all(|j| (langs[i].iter()).all(|a| langs[j].iter().all(|b| a.is_disjoint(b))))
    })
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
