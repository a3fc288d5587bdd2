//! `for_type::<T>()` on types deriving `schemars::JsonSchema`: what serde
//! writes for a value is accepted, and constrained random outputs
//! deserialize into the type.

mod common;

use std::sync::Arc;

use common::Acceptor;
use gcd_core::bind::BoundGrammar;
use gcd_core::runtime::matcher::Matcher;
use gcd_core::vocab::Vocabulary;
use gcd_schema::{for_type, Options};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// A search request.
#[derive(JsonSchema, Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Search {
    /// What to look for.
    query_text: String,
    max_results: u8,
    offset: Option<u32>,
    tags: Vec<String>,
}

#[derive(JsonSchema, Serialize, Deserialize, Debug, PartialEq)]
enum Unit {
    Celsius,
    Fahrenheit,
}

#[derive(JsonSchema, Serialize, Deserialize, Debug, PartialEq)]
struct Weather {
    city: String,
    unit: Option<Unit>,
    days: i16,
}

#[derive(JsonSchema, Serialize, Deserialize, Debug, PartialEq)]
#[serde(tag = "tool", rename_all = "snake_case")]
enum ToolCall {
    Search(Search),
    Weather(Weather),
    Stop,
}

#[derive(JsonSchema, Serialize, Deserialize, Debug, PartialEq)]
enum Shape {
    Circle { r: f64 },
    Square(u16),
    Empty,
}

#[derive(JsonSchema, Serialize, Deserialize, Debug, PartialEq)]
struct Batch {
    calls: Vec<ToolCall>,
    shape: Shape,
    ok: bool,
}

/// Every value's `to_string` and `to_string_pretty` are accepted.
fn accepts_all<T: JsonSchema + Serialize>(values: &[T]) {
    let name = std::any::type_name::<T>();
    let c = for_type::<T>(&Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let a = Acceptor::new(c);
    for v in values {
        for text in [
            serde_json::to_string(v).unwrap(),
            serde_json::to_string_pretty(v).unwrap(),
        ] {
            assert!(a.accepts(&text), "{name} refused {text}");
        }
    }
}

/// Uniform random outputs within a token budget deserialize into `T`.
fn samples_deserialize<T: JsonSchema + DeserializeOwned>(n: usize) {
    let name = std::any::type_name::<T>();
    let vocab = Arc::new(Vocabulary::from_tokens_with_eos(
        (0..=255u8).map(|b| vec![b]).collect(),
        "<eos>",
    ));
    let c = for_type::<T>(&Options::default()).unwrap();
    let bound = Arc::new(BoundGrammar::new(Arc::new(c), vocab.clone()));
    let mut rng = StdRng::seed_from_u64(11);
    for i in 0..n {
        let start = Matcher::new(bound.clone());
        let budget = start.min_tokens_to_complete() + 40;
        let mut m = start.with_budget(budget).unwrap();
        loop {
            let mask = m.compute_mask(vocab.len());
            let allowed: Vec<u32> = mask.iter_ones().map(|i| i as u32).collect();
            assert!(!allowed.is_empty(), "{name}: empty mask");
            let t = allowed[rng.random_range(0..allowed.len())];
            if vocab.is_eos(t) {
                break;
            }
            m.advance(t).unwrap();
        }
        let text = String::from_utf8(m.output().to_vec()).unwrap();
        if let Err(e) = serde_json::from_str::<T>(&text) {
            panic!("{name} sample {i} does not deserialize: {e}\n{text}");
        }
    }
}

#[test]
fn serialized_values_are_accepted() {
    let search = || Search {
        query_text: "rust \"gcd\" é".into(),
        max_results: 255,
        offset: Some(u32::MAX),
        tags: vec!["a".into(), "".into()],
    };
    accepts_all(&[
        search(),
        Search {
            offset: None,
            tags: vec![],
            max_results: 0,
            ..search()
        },
    ]);
    accepts_all(&[
        Weather {
            city: "Oslo".into(),
            unit: Some(Unit::Celsius),
            days: -32768,
        },
        Weather {
            city: "".into(),
            unit: None,
            days: 32767,
        },
    ]);
    accepts_all(&[
        Batch {
            calls: vec![
                ToolCall::Search(search()),
                ToolCall::Stop,
                ToolCall::Weather(Weather {
                    city: "x".into(),
                    unit: Some(Unit::Fahrenheit),
                    days: 3,
                }),
            ],
            shape: Shape::Circle { r: -1.5e-3 },
            ok: true,
        },
        Batch {
            calls: vec![],
            shape: Shape::Square(65535),
            ok: false,
        },
        Batch {
            calls: vec![],
            shape: Shape::Empty,
            ok: false,
        },
    ]);
}

#[test]
fn out_of_range_integers_are_refused() {
    let a = Acceptor::new(for_type::<Weather>(&Options::default()).unwrap());
    assert!(a.accepts(r#"{"city":"a","unit":null,"days":7}"#));
    assert!(!a.accepts(r#"{"city":"a","unit":null,"days":32768}"#));
    let a = Acceptor::new(for_type::<Search>(&Options::default()).unwrap());
    assert!(!a.accepts(r#"{"queryText":"","maxResults":256,"offset":null,"tags":[]}"#));
    assert!(!a.accepts(r#"{"queryText":"","maxResults":1,"offset":-1,"tags":[]}"#));
}

#[test]
fn random_outputs_deserialize() {
    samples_deserialize::<Search>(30);
    samples_deserialize::<Weather>(30);
    samples_deserialize::<Batch>(30);
}

#[derive(JsonSchema, Serialize, Deserialize, Debug, PartialEq)]
struct P32 {
    x: f32,
}

#[derive(JsonSchema, Serialize, Deserialize, Debug, PartialEq)]
struct P64 {
    x: f64,
}

#[derive(JsonSchema, Serialize, Deserialize, Debug, PartialEq)]
enum Reading {
    Temp { c: f32 },
    Pair(f64, f64),
    Nothing,
}

#[derive(JsonSchema, Serialize, Deserialize, Debug, PartialEq)]
struct Floats {
    a: Option<f32>,
    v: Vec<f64>,
    r: Reading,
}

#[derive(JsonSchema, Serialize, Deserialize, Debug, PartialEq)]
struct Ranged {
    #[schemars(range(min = 0))]
    x: f32,
    #[schemars(range(max = -1.5))]
    y: f64,
}

/// What serde_json makes of `text` as `T`'s field: `Err` unless it reads
/// every float finitely.
fn reads_finite<T: DeserializeOwned + Serialize>(text: &str) -> Result<T, String> {
    let v: T = serde_json::from_str(text).map_err(|e| e.to_string())?;
    // serde_json writes a non-finite float as `null`.
    let back = serde_json::to_string(&v).unwrap();
    if back.contains("null") && !text.contains("null") {
        return Err(format!("infinite: {back}"));
    }
    Ok(v)
}

#[test]
fn too_large_floats_are_refused() {
    let a = Acceptor::new(for_type::<P32>(&Options::default()).unwrap());
    for bad in ["1e39", "3.5e38", "3.4028236e38", "-1e39", "1E+39", "1e309"] {
        let text = format!(r#"{{"x":{bad}}}"#);
        assert!(reads_finite::<P32>(&text).is_err(), "{text}");
        assert!(!a.accepts(&text), "f32 accepted {text}");
    }
    for ok in ["3.4e38", "1.5", "-0.0", "0", "-3.4028235e38", "1e-60", "7"] {
        let text = format!(r#"{{"x":{ok}}}"#);
        assert!(a.accepts(&text), "f32 refused {text}");
        assert!(reads_finite::<P32>(&text).is_ok(), "{text}");
    }

    let a = Acceptor::new(for_type::<P64>(&Options::default()).unwrap());
    for bad in ["1e309", "1.8e308", "-2e308", "1.7976931348623159e308"] {
        let text = format!(r#"{{"x":{bad}}}"#);
        assert!(reads_finite::<P64>(&text).is_err(), "{text}");
        assert!(!a.accepts(&text), "f64 accepted {text}");
    }
    for ok in ["1.7976931348623157e308", "1e39", "3.5e38", "-0.0", "5e-324"] {
        let text = format!(r#"{{"x":{ok}}}"#);
        assert!(a.accepts(&text), "f64 refused {text}");
        assert!(reads_finite::<P64>(&text).is_ok(), "{text}");
    }
}

#[test]
fn too_large_floats_are_refused_inside_enums_options_and_vecs() {
    let a = Acceptor::new(for_type::<Floats>(&Options::default()).unwrap());
    let doc = |a_: &str, v: &str, r: &str| format!(r#"{{"a":{a_},"v":[{v}],"r":{r}}}"#);
    let good = [
        doc("null", "", r#""Nothing""#),
        doc("3.4e38", "1e308,-0.0", r#"{"Temp":{"c":-3.4e38}}"#),
        doc(
            "1.5",
            "1.7976931348623157e308",
            r#"{"Pair":[1e300,-1e-300]}"#,
        ),
    ];
    for text in &good {
        assert!(a.accepts(text), "refused {text}");
        assert!(reads_finite::<Floats>(text).is_ok(), "{text}");
    }
    let bad = [
        doc("1e39", "", r#""Nothing""#),
        doc("null", "1,1e309", r#""Nothing""#),
        doc("null", "", r#"{"Temp":{"c":3.5e38}}"#),
        doc("null", "", r#"{"Pair":[1,-1e309]}"#),
    ];
    for text in &bad {
        assert!(reads_finite::<Floats>(text).is_err(), "{text}");
        assert!(!a.accepts(text), "accepted {text}");
    }
    accepts_all(&[
        Floats {
            a: Some(f32::MAX),
            v: vec![f64::MAX, f64::MIN, f64::MIN_POSITIVE],
            r: Reading::Temp { c: f32::MIN },
        },
        Floats {
            a: None,
            v: vec![],
            r: Reading::Pair(-0.0, 1e-320),
        },
    ]);
    samples_deserialize::<Floats>(30);
}

#[test]
fn float_bounds_meet_the_schemas_bounds() {
    // minimum 0 for x (f32), maximum -1.5 for y (f64): plain decimals of
    // at most 38 / 308 integer digits, with an exponent below 10^31 in
    // magnitude (bounded numbers' spellings).
    let a = Acceptor::new(for_type::<Ranged>(&Options::default()).unwrap());
    let doc = |x: &str, y: &str| format!(r#"{{"x":{x},"y":{y}}}"#);
    let nines = |n: usize| "9".repeat(n);
    for (x, y) in [
        ("0", "-1.5"),
        ("0.25", "-2"),
        (&*nines(38), &*format!("-{}", nines(308))),
        (&*format!("{}.5", nines(35)), &*format!("-{}.5", nines(40))),
        ("1e3", "-1.5E+30"),
        ("2.5e-45", "-15e-1"),
    ] {
        let text = doc(x, y);
        assert!(a.accepts(&text), "refused {text}");
        assert!(reads_finite::<Ranged>(&text).is_ok(), "{text}");
    }
    for (x, y) in [
        ("-1", "-2"),
        ("1", "-1.25"),
        (&*format!("1{}", "0".repeat(38)), "-2"),
        ("1", &*format!("-1{}", "0".repeat(308))),
        ("1e31", "-2"),
        ("0", "-1e31"),
        ("1e3", "-1.4e0"),
    ] {
        assert!(!a.accepts(&doc(x, y)), "accepted {}", doc(x, y));
    }
    samples_deserialize::<Ranged>(30);
}

/// The keyword as `compile` reads it, beside other numeric keywords; and
/// `format: "float"` stays an annotation there, as in JSON Schema.
#[test]
fn finite_marker_in_plain_schemas() {
    // Every integer spelling JSON Schema allows (`-99.00`), as replays see.
    let accepts = |schema: serde_json::Value, text: &str| {
        let options = Options::default().integers(gcd_schema::Integers::Json);
        let c = gcd_schema::compile(&schema, &options).unwrap();
        Acceptor::new(c).accepts(text)
    };
    let float = json!({"type": "number", "format": "float"});
    assert!(accepts(float.clone(), "1e39") && accepts(float, "1e400"));
    let double = json!({"type": "number", "format": "double"});
    assert!(accepts(double, "1e400"));
    // Without a type it annotates strings too (no draft defines "float"),
    // and says so.
    let any = gcd_schema::compile(&json!({"format": "float"}), &Options::default()).unwrap();
    assert_eq!(any.warnings().len(), 1);
    let any = Acceptor::new(any);
    assert!(any.accepts("\"x\"") && any.accepts("1e400"));

    let m = |extra: serde_json::Value| {
        let mut s = json!({"type": "number", "x-gcd-finite": "f32"});
        s.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        s
    };
    assert!(accepts(m(json!({})), "3.4e38") && !accepts(m(json!({})), "3.5e38"));
    // Integers: plain or `.0` spellings with at most 38 digits.
    let int = m(json!({"multipleOf": 1}));
    assert!(accepts(int.clone(), &nines_digits(38)));
    assert!(accepts(int.clone(), &format!("-{}.00", nines_digits(38))));
    assert!(!accepts(int.clone(), &format!("1{}", "0".repeat(38))));
    assert!(!accepts(int.clone(), "1.5") && !accepts(int, "1e5"));
    let int = json!({"type": "integer", "x-gcd-finite": "f64", "minimum": -3});
    assert!(accepts(int.clone(), &nines_digits(308)) && accepts(int.clone(), "-3"));
    assert!(!accepts(int.clone(), &format!("1{}", "0".repeat(308))));
    assert!(!accepts(int, "-4"));
    let both = m(json!({"exclusiveMinimum": -1e29, "maximum": 2.5}));
    assert!(accepts(both.clone(), "2.5"));
    assert!(accepts(both.clone(), &format!("-{}.9", nines_digits(29))));
    assert!(!accepts(both.clone(), &format!("-1{}", "0".repeat(29))));
    assert!(!accepts(both, "2.51"));
    // allOf of f32 and f64: finite as f32.
    let all =
        json!({"allOf": [{"x-gcd-finite": "f64"}, {"type": "number", "x-gcd-finite": "f32"}]});
    assert!(accepts(all.clone(), "3e38") && !accepts(all, "1e39"));
    // Values beside the marker: only the finite ones.
    let e = m(json!({"enum": [1, 1e39, "a"]}));
    assert!(accepts(e.clone(), "1") && !accepts(e, "1e39"));
    for bad in [json!("f16"), json!(32)] {
        let err =
            gcd_schema::compile(&m(json!({"x-gcd-finite": bad})), &Options::default()).unwrap_err();
        assert_eq!(err.keyword(), Some("x-gcd-finite"));
    }
    let not = json!({"not": {"type": "number", "x-gcd-finite": "f32"}});
    assert!(gcd_schema::compile(&not, &Options::default()).is_err());
}

fn nines_digits(n: usize) -> String {
    "9".repeat(n)
}

/// xorshift, to walk float bit patterns without a dependency.
fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// Random finite floats as serde_json writes them are accepted; edge
/// spellings are accepted only when serde_json reads them finitely.
#[test]
fn random_and_edge_floats() {
    let a32 = Acceptor::new(for_type::<P32>(&Options::default()).unwrap());
    let a64 = Acceptor::new(for_type::<P64>(&Options::default()).unwrap());
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..1500 {
        let bits = xorshift(&mut x);
        let f = f32::from_bits(bits as u32);
        if f.is_finite() {
            let text = serde_json::to_string(&P32 { x: f }).unwrap();
            assert!(a32.accepts(&text), "f32 refused {text}");
        }
        let f = f64::from_bits(bits);
        if f.is_finite() {
            let text = serde_json::to_string(&P64 { x: f }).unwrap();
            assert!(a64.accepts(&text), "f64 refused {text}");
        }
    }
    // Edge spellings: mantissas around each type's largest value, at
    // exponents around its limit, with and without sign, `+` and leading
    // zeros in the exponent; and long plain integers.
    let mantissas = [
        "1",
        "3",
        "3.4",
        "3.4028235",
        "3.4028236",
        "3.40282347",
        "34",
        "0.34",
        "9.99",
        "1.7976931348623157",
        "1.7976931348623158",
        "17",
        "0.0",
        "00",
        "123456789",
        "12345678901234567",
        "1.5",
    ];
    let mut spellings = Vec::new();
    for m in mantissas {
        for e in (20..=45).chain(290..=312) {
            for exp in [format!("e{e}"), format!("E+0{e}"), format!("e-{e}")] {
                spellings.push(format!("{m}{exp}"));
                spellings.push(format!("-{m}{exp}"));
            }
        }
    }
    for n in [30, 37, 38, 39, 40, 307, 308, 309, 310] {
        spellings.push(nines_digits(n));
        spellings.push(format!("1{}", "0".repeat(n - 1)));
        spellings.push(format!("-{}.5", nines_digits(n)));
    }
    spellings.extend([
        "340282356779733661637539395458142568448".to_string(),
        "-0".into(),
    ]);
    let (mut yes, mut no) = ([0; 2], [0; 2]);
    for s in &spellings {
        let p = format!(r#"{{"x":{s}}}"#);
        for (i, ok) in [a32.accepts(&p), a64.accepts(&p)].into_iter().enumerate() {
            if ok {
                yes[i] += 1;
                let r = if i == 0 {
                    reads_finite::<P32>(&p).map(|_| ())
                } else {
                    reads_finite::<P64>(&p).map(|_| ())
                };
                assert!(r.is_ok(), "accepted {p} as f{}, serde_json: {r:?}", 32 << i);
            } else {
                no[i] += 1;
            }
        }
    }
    println!(
        "{} edge spellings: accepted as f32 {}, as f64 {}; refused {}, {}",
        spellings.len(),
        yes[0],
        yes[1],
        no[0],
        no[1]
    );
    // Both sides of each limit are exercised.
    assert!(yes.iter().chain(&no).all(|&n| n > 100), "{yes:?} {no:?}");
}
