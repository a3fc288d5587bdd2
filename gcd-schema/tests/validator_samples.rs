//! An independent check of the schema compiler: random constrained samples
//! from MaskBench schemas must validate with the `jsonschema` crate.
//!
//! Schemas are taken from each category in turn until enough compile; each
//! gets a few random walks over the o200k vocabulary under a token budget,
//! so every walk ends complete.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use bitvec::prelude::*;
use gcd_cli::maskbench::category;
use gcd_core::bind::BoundGrammar;
use gcd_core::runtime::matcher::Matcher;
use gcd_core::vocab::trie::TokenTrie;
use gcd_core::vocab::Vocabulary;
use gcd_schema::{compile, Options, PropertyOrder, Whitespace};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

/// Extra tokens over the fewest that complete the output, one per sample in
/// turn: 0 gives near-minimal outputs (still random where choices tie),
/// larger ones let strings, arrays and optional properties grow.
const SLACKS: [usize; 4] = [0, 6, 16, 40];

/// A budget needs every lexer state bound to the vocabulary (about 0.6 ms
/// a state for o200k), so the default run skips schemas with more states;
/// the ignored run takes them all.
#[test]
fn samples_from_200_schemas_validate() {
    run(200, 4, Some(1000), PropertyOrder::Schema);
}

/// Members in any order (where samples come out in random orders).
#[test]
fn samples_with_members_in_any_order_validate() {
    run(100, 4, Some(1000), PropertyOrder::Any);
}

/// All schemas whatever their size, ten times the samples (minutes).
#[test]
#[ignore]
fn samples_from_200_schemas_validate_many() {
    run(200, 40, None, PropertyOrder::Schema);
}

/// Schemas for what compiles through forking, chunked strings, dependency
/// branches and lookahead keys, each sampled in both member orders and
/// validated by the `jsonschema` crate.
#[test]
fn samples_from_newly_supported_keywords_validate() {
    let schemas = [
        // A union of object shapes sharing keys, one open to extra keys.
        json!({"anyOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}, "n": {"type": "integer"}}, "required": ["kind"], "additionalProperties": false},
            {"type": "object", "properties": {"kind": {"enum": ["b", "c"]}, "s": {"type": "string", "maxLength": 3}}, "required": ["kind", "s"]}
        ]}),
        // Exactly one of the required sets.
        json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"type": "boolean"}},
               "oneOf": [{"required": ["a"]}, {"required": ["b", "c"]}]}),
        // Long strings, chunked.
        json!({"type": "object", "properties": {"text": {"type": "string", "minLength": 70, "maxLength": 1500}}, "required": ["text"]}),
        // Dependencies.
        json!({"type": "object", "properties": {"card": {"type": "string"}, "cvv": {"type": "integer"}, "zip": {"type": "string"}},
               "dependencies": {"card": ["zip"], "cvv": {"required": ["card"]}}}),
        // Strings but these, and several required names negated.
        json!({"type": "object", "properties": {"name": {"type": "string", "not": {"enum": ["root", "admin"]}}},
               "required": ["name"], "not": {"required": ["x", "y"]}}),
        // allOf merges: closed parts, two enums, two anyOfs.
        json!({"allOf": [
            {"type": "object", "properties": {"w": {"type": "integer"}, "v": {"enum": [1, 2, 3]}}, "additionalProperties": false},
            {"properties": {"w": {"minimum": 3}, "v": {"enum": [2, 3, 4]}, "z": {}}}
        ]}),
        // A pattern matching a declared name.
        json!({"type": "object", "properties": {"ab": {"type": "integer"}},
               "patternProperties": {"^a": {"minimum": 5}}, "additionalProperties": false}),
        // oneOf strings with disjoint spellings; bounds at zero with exponents.
        json!({"type": "object", "properties": {
            "d": {"oneOf": [{"type": "string", "format": "date"}, {"type": "string", "pattern": "^[a-z]{2}$"}]},
            "x": {"type": "number", "exclusiveMinimum": 0}
        }}),
    ];
    let vocab = Arc::new(Vocabulary::o200k_base().unwrap());
    let trie = Arc::new(TokenTrie::new(&vocab));
    let ws = whitespace_tokens(&vocab);
    let mut checked = 0;
    for (i, schema) in schemas.iter().enumerate() {
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
            .unwrap();
        for order in [PropertyOrder::Schema, PropertyOrder::Any] {
            let compiled = compile(schema, &Options::default().properties(order)).unwrap();
            let bound = Arc::new(BoundGrammar::with_trie(
                Arc::new(compiled),
                vocab.clone(),
                trie.clone(),
            ));
            for k in 0..12 {
                let mut rng = StdRng::seed_from_u64((i * 100 + k) as u64);
                let text = sample(&bound, &ws, SLACKS[k % SLACKS.len()], &mut rng).unwrap();
                let value: Value = serde_json::from_str(&plus_zero(&text)).unwrap();
                let errors: Vec<String> = validator
                    .iter_errors(&value)
                    .map(|e| e.to_string())
                    .collect();
                assert!(
                    errors.is_empty(),
                    "schema {i} ({order:?}): {text:?}: {errors:?}"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 8 * 2 * 12);
}

#[derive(Default)]
struct Counts {
    tried: usize,
    compiled: usize,
    too_many_states: usize,
    samples: usize,
    validated: usize,
    /// Samples with a number past f64's range, which serde_json refuses.
    out_of_range: Vec<String>,
    failures: Vec<String>,
    /// Seconds spent compiling, binding every lexer state, sampling.
    secs: [f64; 3],
}

fn run(want: usize, per_schema: usize, max_states: Option<usize>, properties: PropertyOrder) {
    let Some(root) = common::shared_data() else {
        return;
    };
    let t0 = Instant::now();
    let order = visiting_order(&root.join("maskbench"));
    let vocab = Arc::new(Vocabulary::o200k_base().unwrap());
    // One trie for all schemas: building it per binding would dominate.
    let trie = Arc::new(TokenTrie::new(&vocab));
    let ws = whitespace_tokens(&vocab);
    // The cap stops the lexer's construction early, saving compile time too.
    let mut options = Options::default().properties(properties);
    if let Some(n) = max_states {
        options.limits.max_lexer_states = n;
    }
    let mut c = Counts::default();
    // Per category: (tried, compiled).
    let mut categories = BTreeMap::<String, (usize, usize)>::new();
    // How many compiled schemas use each keyword worth checking.
    let mut keywords = BTreeMap::<&str, usize>::new();
    for f in &order {
        if c.compiled == want {
            break;
        }
        c.tried += 1;
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let cat = categories.entry(category(&name)).or_default();
        cat.0 += 1;
        let doc: Value = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
        let schema = &doc["schema"];
        let t = Instant::now();
        let compiled = compile(schema, &options);
        c.secs[0] += t.elapsed().as_secs_f64();
        let compiled = match compiled {
            Ok(g) => g,
            Err(e) if e.to_string().contains("contextual lexer needs more than") => {
                c.too_many_states += 1;
                continue;
            }
            Err(_) => continue,
        };
        c.compiled += 1;
        cat.1 += 1;
        let mut used = std::collections::BTreeSet::new();
        keys(schema, &mut used);
        for k in KEYWORDS.iter().filter(|k| used.contains(**k)) {
            *keywords.entry(k).or_default() += 1;
        }
        let bound = Arc::new(BoundGrammar::with_trie(
            Arc::new(compiled),
            vocab.clone(),
            trie.clone(),
        ));
        // Formats asserted, as gcd does; the draft comes from `$schema`
        // (2020-12 when absent, gcd's default too).
        let validator = match jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
        {
            Ok(v) => v,
            Err(e) => {
                c.failures
                    .push(format!("{name}: validator refused the schema: {e}"));
                continue;
            }
        };
        let t = Instant::now();
        bound.build_all();
        c.secs[1] += t.elapsed().as_secs_f64();
        let t = Instant::now();
        for k in 0..per_schema {
            let mut rng = StdRng::seed_from_u64((c.tried * 1000 + k) as u64);
            let slack = SLACKS[k % SLACKS.len()];
            let text = match sample(&bound, &ws, slack, &mut rng) {
                Ok(t) => t,
                Err(e) => {
                    c.failures.push(format!("{name}: sampling failed: {e}"));
                    continue;
                }
            };
            c.samples += 1;
            let value: Value = match serde_json::from_str(&plus_zero(&text)) {
                Ok(v) => v,
                // Valid JSON (`1e999` is a number) but not a serde_json
                // `Value` without `arbitrary_precision`, a feature that
                // would change serde_json for the whole workspace.
                Err(e) if e.to_string().starts_with("number out of range") => {
                    c.out_of_range.push(format!("{name}: {e}: {text:?}"));
                    continue;
                }
                Err(e) => {
                    c.failures
                        .push(format!("{name}: serde_json refused ({e}): {text:?}"));
                    continue;
                }
            };
            let errors: Vec<String> = validator
                .iter_errors(&value)
                .map(|e| format!("{e} at {:?}", e.instance_path().as_str()))
                .collect();
            if errors.is_empty() {
                c.validated += 1;
            } else {
                c.failures
                    .push(format!("{name}: {text:?}\n    {}", errors.join("\n    ")));
            }
        }
        c.secs[2] += t.elapsed().as_secs_f64();
    }
    println!(
        "schemas tried={} over_{}_lexer_states={} compiled={}; \
         samples={} validated={} out_of_range={}",
        c.tried,
        max_states.unwrap_or(0),
        c.too_many_states,
        c.compiled,
        c.samples,
        c.validated,
        c.out_of_range.len(),
    );
    println!(
        "seconds: total {:.1}, compile {:.1}, bind {:.1}, sample+validate {:.1}",
        t0.elapsed().as_secs_f64(),
        c.secs[0],
        c.secs[1],
        c.secs[2]
    );
    println!("categories (tried, compiled): {categories:?}");
    println!("compiled schemas using: {keywords:?}");
    for s in &c.out_of_range {
        println!("NOT CHECKED {s}");
    }
    for f in &c.failures {
        println!("FAIL {f}");
    }
    assert_eq!(c.compiled, want, "too few schemas compile");
    assert!(c.failures.is_empty(), "{} failures", c.failures.len());
    assert_eq!(c.validated + c.out_of_range.len(), want * per_schema);
    // Rare: only long random digit runs after an exponent overflow.
    assert!(c.out_of_range.len() * 50 <= c.samples);
}

/// Keywords whose handling the samples put to the test.
const KEYWORDS: [&str; 14] = [
    "pattern",
    "format",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "minItems",
    "anyOf",
    "oneOf",
];

/// Every object key in `v` (property names too: an approximation).
fn keys<'a>(v: &'a Value, out: &mut std::collections::BTreeSet<&'a str>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                out.insert(k);
                keys(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| keys(x, out)),
        _ => {}
    }
}

/// The corpus files in the order the test tries them: categories in turn
/// (so each appears, however many files it takes), and inside a category by
/// a step near len/φ coprime with len (so each one's files are spread).
fn visiting_order(dir: &Path) -> Vec<PathBuf> {
    let mut by_cat = BTreeMap::<String, Vec<PathBuf>>::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "json") {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            by_cat.entry(category(&name)).or_default().push(p);
        }
    }
    let mut lists: Vec<Vec<PathBuf>> = by_cat
        .into_values()
        .map(|mut files| {
            files.sort();
            let n = files.len();
            let mut step = ((n as f64 * 0.618_034) as usize).max(1);
            while euclid(step, n) != 1 {
                step += 1;
            }
            (0..n).map(|k| files[k * step % n].clone()).collect()
        })
        .collect();
    let mut order = Vec::new();
    for k in 0.. {
        let before = order.len();
        order.extend(lists.iter_mut().filter_map(|l| l.get(k).cloned()));
        if order.len() == before {
            break;
        }
    }
    order
}

fn euclid(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        euclid(b, a % b)
    }
}

/// Tokens made only of JSON whitespace. o200k has hundreds, so a uniform
/// pick between lexemes is mostly whitespace; the walk avoids them usually.
fn whitespace_tokens(vocab: &Vocabulary) -> BitVec<u64, Lsb0> {
    let mut ws = bitvec![u64, Lsb0; 0; vocab.len()];
    for (id, bytes) in vocab.normal_tokens() {
        if !bytes.is_empty() && bytes.iter().all(|b| b" \t\r\n".contains(b)) {
            ws.set(id as usize, true);
        }
    }
    ws
}

/// One random walk: at each step a random allowed token, mostly not pure
/// whitespace; EOS, once allowed, half of the time.
fn sample(
    bound: &Arc<BoundGrammar>,
    ws: &BitVec<u64, Lsb0>,
    slack: usize,
    rng: &mut StdRng,
) -> Result<String, String> {
    let start = Matcher::new(bound.clone());
    let budget = start.min_tokens_to_complete() + slack;
    let mut m = start.with_budget(budget).map_err(|e| e.to_string())?;
    let width = bound.vocab().len();
    while !m.is_finished() {
        if m.is_complete() && rng.random_bool(0.5) {
            break;
        }
        let mut mask = m.compute_mask(width);
        if mask.not_any() {
            return Err(format!(
                "empty mask after {:?}",
                String::from_utf8_lossy(m.output())
            ));
        }
        if rng.random_bool(0.9) {
            let solid = mask.clone() & !ws.clone();
            if solid.any() {
                mask = solid;
            }
        }
        let k = rng.random_range(0..mask.count_ones());
        let t = mask.iter_ones().nth(k).unwrap() as u32;
        m.advance(t).map_err(|e| e.to_string())?;
    }
    if m.tokens().len() > budget + 1 {
        return Err(format!(
            "{} tokens over a budget of {budget}",
            m.tokens().len()
        ));
    }
    String::from_utf8(m.output().to_vec()).map_err(|e| format!("not UTF-8: {e}"))
}

/// `text` with every number written `-0` (no fraction or exponent) as `0`.
/// serde_json reads `-0` as the float -0.0, which the validator's draft-04
/// `integer` check (written without fraction or exponent) then refuses; the
/// value is the same, so the rewrite changes no verdict.
fn plus_zero(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut in_str, mut esc) = (false, false);
    for (i, ch) in text.char_indices() {
        if in_str {
            match ch {
                _ if esc => esc = false,
                '\\' => esc = true,
                '"' => in_str = false,
                _ => {}
            }
        } else if ch == '"' {
            in_str = true;
        } else if ch == '-'
            && b.get(i + 1) == Some(&b'0')
            && !matches!(b.get(i + 2), Some(b'.' | b'e' | b'E'))
        {
            continue;
        }
        out.push(ch);
    }
    out
}

#[test]
fn plus_zero_rewrites_only_integer_minus_zero() {
    assert_eq!(
        plus_zero(r#"[-0, -0.0, -0e1, "-0", "\"-0", -5]"#),
        r#"[0, -0.0, -0e1, "-0", "\"-0", -5]"#
    );
}

/// Found by random samples (Github_hard---o48422, draft-04: `134.00` for an
/// integer): integer spellings gcd accepts must be integers to the
/// validator in every draft. Draft-04 counts only digits without fraction
/// or exponent. Spellings gcd refuses though valid (it is conservative
/// about exponents) are counted, not failed.
#[test]
fn integer_spellings_gcd_accepts_are_integers_to_the_validator() {
    let (mut unsound, mut conservative) = (Vec::new(), 0);
    for meta in [
        "http://json-schema.org/draft-04/schema#",
        "http://json-schema.org/draft-06/schema#",
        "http://json-schema.org/draft-07/schema#",
        "https://json-schema.org/draft/2019-09/schema",
        "https://json-schema.org/draft/2020-12/schema",
    ] {
        for bounds in [json!({}), json!({"minimum": 0, "maximum": 150})] {
            let mut schema = json!({"$schema": meta, "type": "integer"});
            schema
                .as_object_mut()
                .unwrap()
                .extend(bounds.as_object().unwrap().clone());
            let validator = jsonschema::validator_for(&schema).unwrap();
            for text in [
                "0", "7", "134", "1.0", "134.00", "1e2", "1E+2", "2.5e1", "1.5", "1e-1",
            ] {
                let by_gcd = common::accepts(&schema, Whitespace::Json, text);
                let by_validator = validator.is_valid(&serde_json::from_str(text).unwrap());
                if by_gcd && !by_validator {
                    unsound.push(format!("{schema} accepts {text}"));
                } else if by_validator && !by_gcd {
                    conservative += 1;
                }
            }
        }
    }
    println!("valid spellings gcd refuses (conservative): {conservative}");
    for u in &unsound {
        println!("UNSOUND {u}");
    }
    assert!(unsound.is_empty(), "{} unsound", unsound.len());
}
