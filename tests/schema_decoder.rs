//! `Decoder<T>` over a JSON Schema: the typed loop a schema user would
//! otherwise write by hand (bind, mask, advance, deserialize).

use std::sync::Arc;

use gcd::core::runtime::decode::LogitsSource;
use gcd::core::vocab::Vocabulary;
use gcd::schema::{Integers, Options, Whitespace};
use gcd::{ConstraintError, Decoder};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Deserialize;
use serde_json::{json, Value};

fn vocab() -> Arc<Vocabulary> {
    Arc::new(Vocabulary::o200k_base().expect("embedded o200k"))
}

fn weather_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "maxLength": 12},
            "days": {"type": "integer", "minimum": 1, "maximum": 7},
            "unit": {"enum": ["C", "F"]}
        },
        "required": ["city", "days"],
        "additionalProperties": false
    })
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Weather {
    city: String,
    days: u8,
    unit: Option<String>,
}

/// Random logits: any allowed token may win.
struct Noise(StdRng);

impl LogitsSource for Noise {
    fn next_logits(&mut self, _tokens: &[u32], logits: &mut [f32]) {
        for l in logits.iter_mut() {
            *l = self.0.random_range(-4.0..4.0);
        }
    }
}

#[test]
fn budgeted_random_outputs_deserialize_into_the_type_and_meet_the_schema() {
    let vocab = vocab();
    // `1.0` is an integer to JSON Schema but not to serde's `u8`.
    let options = Options::default()
        .whitespace(Whitespace::Compact)
        .integers(Integers::Plain);
    let schema = weather_schema();
    let compiled = Arc::new(gcd::schema::compile(&schema, &options).unwrap());
    let bound = Arc::new(gcd::core::BoundGrammar::new(compiled, vocab.clone()));
    for seed in 0..40 {
        let mut d = Decoder::<Weather>::from_bound(bound.clone())
            .with_budget(24)
            .unwrap();
        let w = d
            .greedy(&mut Noise(StdRng::seed_from_u64(seed)), 1000)
            .unwrap();
        assert!(d.matcher().tokens().len() <= 24 + 1, "budget overrun");
        assert!(w.city.chars().count() <= 12, "{w:?}");
        assert!((1..=7).contains(&w.days), "{w:?}");
        assert!(matches!(w.unit.as_deref(), None | Some("C" | "F")), "{w:?}");
    }
}

#[test]
fn untyped_values_come_out_as_json_values() {
    let vocab = vocab();
    let schema =
        json!({"type": "array", "items": {"type": "boolean"}, "minItems": 2, "maxItems": 2});
    let mut d = Decoder::<Value>::from_schema(&schema, &Options::default(), vocab.clone())
        .unwrap()
        .with_budget(12)
        .unwrap();
    let v = d
        .greedy(&mut Noise(StdRng::seed_from_u64(7)), 1000)
        .unwrap();
    let items = v.as_array().expect("an array");
    assert_eq!(items.len(), 2);
    assert!(items.iter().all(Value::is_boolean), "{v}");
}

#[test]
fn an_unfinished_output_is_an_error_not_a_value() {
    let vocab = vocab();
    let mut d =
        Decoder::<Value>::from_schema(&weather_schema(), &Options::default(), vocab.clone())
            .unwrap();
    for t in vocab.encode(r#"{"city":"Oslo""#).unwrap() {
        d.advance(t).unwrap();
    }
    assert!(matches!(d.finish(), Err(ConstraintError::Incomplete(14))));
}

#[test]
fn a_type_that_does_not_match_the_schema_fails_to_deserialize() {
    let vocab = vocab();
    let mut d =
        Decoder::<Vec<u8>>::from_schema(&weather_schema(), &Options::default(), vocab.clone())
            .unwrap();
    for t in vocab.encode(r#"{"city":"Oslo","days":2}"#).unwrap() {
        d.advance(t).unwrap();
    }
    assert!(matches!(d.finish(), Err(ConstraintError::Deserialize(_))));
}

#[test]
fn a_bad_schema_is_a_schema_error() {
    let e =
        Decoder::<Value>::from_schema(&json!({"type": "nothing"}), &Options::default(), vocab())
            .err()
            .expect("refused");
    assert!(matches!(e, ConstraintError::Schema(_)), "{e}");
    assert!(e.to_string().contains("nothing"), "{e}");
}
