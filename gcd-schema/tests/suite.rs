//! JSON-Schema-Test-Suite (draft 2020-12): for every schema we compile,
//! every instance — serialized compactly and with Python's separators —
//! gets the suite's verdict. Schemas we refuse are counted by keyword.

mod common;

use std::collections::BTreeMap;

use common::{shared_data, Acceptor};
use gcd_cli::pyjson::to_python_json;
use gcd_schema::{compile, Draft, Escapes, Integers, Options, PropertyOrder, Whitespace};
use serde_json::{Map, Value};

/// The suite files we run: the core vocabulary, plus the optional format
/// files for the formats we enforce (format is only an annotation by
/// default in 2020-12; we assert it, so we check it against those files).
fn files(root: &std::path::Path, draft: &str) -> Vec<std::path::PathBuf> {
    let dir = root.join("json-schema-test-suite/tests").join(draft);
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        // format.json checks format is *not* asserted by default.
        .filter(|p| !p.ends_with("format.json"))
        .collect();
    for f in gcd_schema::format::SUPPORTED {
        out.push(dir.join(format!("optional/format/{f}.json")));
    }
    for f in [
        "ecmascript-regex",
        "non-bmp-regex",
        "bignum",
        "unknownKeyword",
    ] {
        out.push(dir.join(format!("optional/{f}.json")));
    }
    out.retain(|p| p.exists());
    out.sort();
    out
}

/// Reorders object keys into schema order (declared properties first),
/// following `$ref`, `properties`, `additionalProperties`, `items` and
/// `prefixItems`: used to tell "rejected only because of member order"
/// apart from real disagreements.
fn reorder(root: &Value, schema: &Value, v: &Value, depth: usize) -> Value {
    let Some(s) = schema.as_object() else {
        return v.clone();
    };
    if depth > 20 {
        return v.clone();
    }
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        if let Some(t) = r.strip_prefix('#').and_then(|p| root.pointer(p)) {
            return reorder(root, t, v, depth + 1);
        }
    }
    match v {
        Value::Object(o) => {
            // Declared properties in the order our grammar lists them:
            // this schema's, then each allOf part's; a const object's keys.
            let mut props: Vec<(String, Value)> = Vec::new();
            // In keyword order: `allOf` written first gives its members first.
            let mut parts = Vec::new();
            for (k, x) in s {
                match k.as_str() {
                    "properties" => parts.push(schema),
                    "allOf" => parts.extend(x.as_array().into_iter().flatten()),
                    _ => {}
                }
            }
            for p in parts {
                for (k, ps) in p
                    .get("properties")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                {
                    props.push((k.clone(), ps.clone()));
                }
            }
            for (k, c) in s
                .get("const")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                props.push((k.clone(), serde_json::json!({"const": c})));
            }
            // A present property's dependencies become required names
            // after it (dependencies are branches that require them).
            for kw in ["dependentRequired", "dependencies"] {
                for (a, names) in s.get(kw).and_then(Value::as_object).into_iter().flatten() {
                    let (Some(names), true) = (names.as_array(), o.contains_key(a)) else {
                        continue;
                    };
                    props.push((a.clone(), Value::Bool(true)));
                    for n in names.iter().filter_map(Value::as_str) {
                        props.push((n.to_string(), Value::Bool(true)));
                    }
                }
            }
            let mut out = Map::new();
            for (k, ps) in &props {
                if let Some(x) = o.get(k) {
                    if !out.contains_key(k) {
                        out.insert(k.clone(), reorder(root, ps, x, depth + 1));
                    }
                }
            }
            for (k, x) in o {
                if !out.contains_key(k) {
                    let sub = s.get("additionalProperties").unwrap_or(&Value::Bool(true));
                    out.insert(k.clone(), reorder(root, sub, x, depth + 1));
                }
            }
            Value::Object(out)
        }
        Value::Array(a) => {
            let prefix = s.get("prefixItems").and_then(Value::as_array);
            Value::Array(
                a.iter()
                    .enumerate()
                    .map(|(i, x)| {
                        let sub = prefix
                            .and_then(|p| p.get(i))
                            .or(s.get("items"))
                            .unwrap_or(&Value::Bool(true));
                        reorder(root, sub, x, depth + 1)
                    })
                    .collect(),
            )
        }
        _ => v.clone(),
    }
}

#[test]
fn verdicts_agree_and_the_readme_table_is_current() {
    let Some(_) = shared_data() else { return };
    let new = run("draft2020-12", Draft::Draft2020, 160);
    let old = run("draft7", Draft::Draft7, 160);
    let table = keyword_table(&new, &old);
    let readme = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let text = std::fs::read_to_string(&readme).unwrap();
    let (begin, end) = (
        "<!-- suite-keywords:begin -->\n",
        "<!-- suite-keywords:end -->",
    );
    let (Some(b), Some(e)) = (text.find(begin), text.find(end)) else {
        panic!("README.md lacks the {begin:?} … {end:?} markers");
    };
    let current = &text[b + begin.len()..e];
    if std::env::var_os("GCD_BLESS").is_some() {
        let updated = format!("{}{table}{}", &text[..b + begin.len()], &text[e..]);
        std::fs::write(&readme, updated).unwrap();
    } else {
        assert_eq!(
            current, table,
            "README.md's keyword table is stale: rerun with GCD_BLESS=1"
        );
    }
}

/// JSON Schema keywords, for the README table.
const KEYWORDS: &[&str] = &[
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "items",
    "prefixItems",
    "additionalItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "unevaluatedItems",
    "unevaluatedProperties",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "$ref",
    "$defs",
    "definitions",
    "$dynamicRef",
    "$recursiveRef",
    "$anchor",
];

/// Per keyword: groups whose schema uses it, how many of those compiled,
/// and how many refusals named it.
#[derive(Default)]
struct Stats {
    used: BTreeMap<&'static str, (usize, usize)>,
    refused_naming: BTreeMap<String, usize>,
    groups: usize,
    compiled: usize,
}

/// The keywords used at schema positions of `v` (not property names).
fn keywords_in(v: &Value, out: &mut std::collections::BTreeSet<&'static str>) {
    let Some(m) = v.as_object() else { return };
    for (k, x) in m {
        if let Some(kw) = KEYWORDS.iter().find(|kw| **kw == k) {
            out.insert(kw);
        }
        match k.as_str() {
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                for s in x.as_object().into_iter().flat_map(|o| o.values()) {
                    keywords_in(s, out);
                }
            }
            "items" | "prefixItems" | "allOf" | "anyOf" | "oneOf" => match x {
                Value::Array(a) => a.iter().for_each(|s| keywords_in(s, out)),
                s => keywords_in(s, out),
            },
            "not"
            | "if"
            | "then"
            | "else"
            | "additionalProperties"
            | "additionalItems"
            | "contains"
            | "propertyNames"
            | "unevaluatedItems"
            | "unevaluatedProperties" => keywords_in(x, out),
            _ => {}
        }
    }
}

fn keyword_table(new: &Stats, old: &Stats) -> String {
    let mut t = format!(
        "| keyword | 2020-12: compiled / groups using it | refusals naming it | draft 7: compiled / groups | refusals |\n\
         |---|---|---|---|---|\n\
         | (all) | {} / {} | | {} / {} | |\n",
        new.compiled, new.groups, old.compiled, old.groups
    );
    for kw in KEYWORDS {
        let cell = |s: &Stats| {
            let (used, ok) = s.used.get(kw).copied().unwrap_or_default();
            let refused = s.refused_naming.get(*kw).copied().unwrap_or_default();
            if used == 0 {
                ("–".to_string(), String::new())
            } else {
                (format!("{ok} / {used}"), refused.to_string())
            }
        };
        let ((a, b), (c, d)) = (cell(new), cell(old));
        if a == "–" && c == "–" {
            continue;
        }
        t.push_str(&format!("| `{kw}` | {a} | {b} | {c} | {d} |\n"));
    }
    t
}

/// Documented subsets of what a schema allows (see format.rs and the
/// README): valid instances we refuse on purpose.
enum Gap {
    /// Leap seconds are only accepted when written in UTC.
    LeapSecond,
    /// Hostnames whose last label starts with a digit, and labels with
    /// "--" in 3rd/4th position (A-labels included).
    Hostname,
    /// Under numeric bounds, numbers spelled with an exponent.
    Exponent,
}

fn known_gap(file: &str, test: &Value) -> Option<Gap> {
    if !test["valid"].as_bool().unwrap() {
        return None;
    }
    let data = &test["data"];
    let desc = test["description"].as_str().unwrap_or("");
    if desc.contains("leap second") {
        return Some(Gap::LeapSecond);
    }
    let odd_label = |h: &str| {
        h.split('.').any(|l| l.get(2..4) == Some("--"))
            || h.rsplit('.')
                .next()
                .unwrap()
                .starts_with(|c: char| c.is_ascii_digit())
    };
    if file == "hostname.json" && data.as_str().is_some_and(odd_label) {
        return Some(Gap::Hostname);
    }
    if spells_a_number_with_exponent(data) {
        return Some(Gap::Exponent);
    }
    None
}

/// Whether either spelling the run uses (serde_json's, Python's) writes one
/// of the instance's numbers with an exponent. It looks at numbers only:
/// strings such as UUIDs and URIs hold "e-" too.
fn spells_a_number_with_exponent(v: &Value) -> bool {
    match v {
        Value::Number(_) => [serde_json::to_string(v).unwrap(), to_python_json(v)]
            .iter()
            .any(|s| s.contains(['e', 'E'])),
        Value::Array(items) => items.iter().any(spells_a_number_with_exponent),
        Value::Object(members) => members.values().any(spells_a_number_with_exponent),
        _ => false,
    }
}

/// Runs one draft's files; asserts no disagreement and at least
/// `min_compiled` schemas compiled (a regression guard).
fn run(draft_dir: &str, draft: Draft, min_compiled: usize) -> Stats {
    let root = shared_data().unwrap();
    let mut stats = Stats::default();
    let mut groups = 0;
    let mut compiled = 0;
    let mut errors: BTreeMap<String, usize> = BTreeMap::new();
    let (mut checks, mut agree, mut order_only, mut known_gaps, mut exponent_gaps) =
        (0, 0, 0, 0, 0);
    let mut format_gaps = 0;
    let (mut any_compiled, mut any_checks) = (0, 0);
    let mut disagreements = Vec::new();
    for f in files(&root, draft_dir) {
        let doc: Value = serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        for group in doc.as_array().unwrap() {
            groups += 1;
            let schema = &group["schema"];
            let mut used = std::collections::BTreeSet::new();
            keywords_in(schema, &mut used);
            // JSON whitespace with every escape; the other two policies with
            // canonical escapes (the default).
            let per_ws = [
                (Whitespace::Json, Escapes::Any),
                (Whitespace::Compact, Escapes::Canonical),
                (Whitespace::SingleSpace, Escapes::Canonical),
            ]
            .map(|(whitespace, escapes)| {
                compile(
                    schema,
                    &Options::default()
                        .whitespace(whitespace)
                        .escapes(escapes)
                        .draft(draft)
                        .integers(Integers::Json),
                )
            });
            let acceptors = match per_ws {
                [Ok(a), Ok(b), Ok(c)] => [Acceptor::new(a), Acceptor::new(b), Acceptor::new(c)],
                [Err(e), ..] | [_, Err(e), _] | [.., Err(e)] => {
                    let key = e
                        .keyword()
                        .map_or(format!("{:?}", e.kind()), str::to_string);
                    *errors.entry(key).or_default() += 1;
                    for kw in &used {
                        stats.used.entry(kw).or_default().0 += 1;
                    }
                    continue;
                }
            };
            compiled += 1;
            // Members in any order: exactly the schema's verdicts, no
            // reordering excuse (Python spelling, every escape).
            let any_order = Options::default()
                .escapes(Escapes::Any)
                .draft(draft)
                .integers(Integers::Json)
                .properties(PropertyOrder::Any);
            if let Ok(g) = compile(schema, &any_order) {
                let acceptor = Acceptor::new(g);
                any_compiled += 1;
                for t in group["tests"].as_array().unwrap() {
                    let valid = t["valid"].as_bool().unwrap();
                    let text = to_python_json(&t["data"]);
                    any_checks += 1;
                    let got = acceptor.accepts(&text);
                    if got != valid && known_gap(&name, t).is_none() {
                        disagreements.push(format!(
                            "{name}: {} / {}: suite says {valid}, any-order grammar says {got} for {text} (schema {schema})",
                            group["description"], t["description"]
                        ));
                    }
                }
            }
            for kw in &used {
                let e = stats.used.entry(kw).or_default();
                e.0 += 1;
                e.1 += 1;
            }
            for t in group["tests"].as_array().unwrap() {
                let valid = t["valid"].as_bool().unwrap();
                let data = &t["data"];
                let compact = serde_json::to_string(data).unwrap();
                let python = to_python_json(data);
                // (acceptor, text): JSON whitespace takes both spellings.
                let cases = [(0, &compact), (0, &python), (1, &compact), (2, &python)];
                for (a, text) in cases {
                    checks += 1;
                    let got = acceptors[a].accepts(text);
                    if got == valid {
                        agree += 1;
                        continue;
                    }
                    if valid {
                        let re = reorder(schema, schema, data, 0);
                        let re_text = if a == 1 {
                            serde_json::to_string(&re).unwrap()
                        } else {
                            to_python_json(&re)
                        };
                        if acceptors[a].accepts(&re_text) {
                            order_only += 1;
                            continue;
                        }
                    }
                    match known_gap(&name, t) {
                        Some(Gap::LeapSecond) => known_gaps += 1,
                        Some(Gap::Hostname) => format_gaps += 1,
                        Some(Gap::Exponent) => exponent_gaps += 1,
                        None => disagreements.push(format!(
                            "{name}: {} / {}: suite says {valid}, we say {got} for {text} (schema {schema})",
                            group["description"], t["description"]
                        )),
                    }
                }
            }
        }
    }
    let refused: usize = errors.values().sum();
    let invalid_accepted = disagreements
        .iter()
        .filter(|d| d.contains("suite says false"))
        .count();
    println!("suite {draft_dir}: groups={groups} compiled={compiled} refused={refused} invalid_accepted={invalid_accepted}");
    println!(
        "checks={checks} agree={agree} valid_rejected_for_member_order={order_only} valid_rejected_leap_second={known_gaps} valid_rejected_exponent={exponent_gaps} valid_rejected_hostname_subset={format_gaps} disagreements={}",
        disagreements.len()
    );
    println!("members in any order: compiled={any_compiled} checks={any_checks}");
    assert!(
        any_compiled * 10 >= compiled * 9,
        "{any_compiled} of {compiled} compile with members in any order"
    );
    let mut by_count: Vec<_> = errors.into_iter().collect();
    by_count.sort_by_key(|e| std::cmp::Reverse(e.1));
    println!("refused by keyword: {by_count:?}");
    for d in &disagreements {
        println!("DISAGREE {d}");
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreements",
        disagreements.len()
    );
    assert!(
        compiled >= min_compiled,
        "too few schemas compiled: {compiled}"
    );
    stats.groups = groups;
    stats.compiled = compiled;
    stats.refused_naming = by_count.into_iter().collect();
    stats
}
