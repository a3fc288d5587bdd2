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
