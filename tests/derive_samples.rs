//! The other direction of the derive tests: random constrained samples
//! (uniform over the allowed tokens, under a budget) always deserialize into
//! the type with serde_json and satisfy its `#[constrained]` rules.

mod derive_types;

use std::sync::Arc;

use derive_types::*;
use gcd::core::vocab::Vocabulary;
use gcd::{Constrained, Decoder};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::de::DeserializeOwned;

const BUDGET: usize = 48;

/// `samples` uniform samples of `T`; returns the values.
fn sample<T: Constrained + DeserializeOwned + 'static>(
    vocab: &Arc<Vocabulary>,
    samples: u64,
) -> Vec<T> {
    let start = Decoder::<T>::new(vocab.clone())
        .unwrap()
        .with_budget(BUDGET)
        .unwrap();
    let mut values = Vec::new();
    for seed in 0..samples {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut m = start.matcher().clone();
        while !m.is_finished() {
            let mask = m.compute_mask(vocab.len());
            let allowed: Vec<usize> = mask.iter_ones().collect();
            assert!(
                !allowed.is_empty(),
                "{}: stuck after {:?}",
                std::any::type_name::<T>(),
                String::from_utf8_lossy(m.output())
            );
            m.advance(allowed[rng.random_range(0..allowed.len())] as u32)
                .unwrap();
        }
        assert!(m.tokens().len() - 1 <= BUDGET);
        let text = String::from_utf8(m.output().to_vec()).unwrap();
        let v: T = serde_json::from_str(&text).unwrap_or_else(|e| {
            panic!(
                "{}: {text:?} does not deserialize: {e}",
                std::any::type_name::<T>()
            )
        });
        values.push(v);
    }
    values
}

#[test]
fn samples_of_every_test_type_deserialize() {
    check_every_type(100);
}

/// The full count; about 3 minutes in release mode.
#[test]
#[ignore]
fn samples_of_every_test_type_deserialize_1000_each() {
    check_every_type(1000);
}

fn check_every_type(n: u64) {
    let vocab = Arc::new(Vocabulary::o200k_base().unwrap());
    sample::<Point>(&vocab, n);
    sample::<Person>(&vocab, n);
    for call in sample::<ToolCall>(&vocab, n) {
        if let ToolCall::Search { limit, .. } = call {
            assert!((1..=10).contains(&limit), "limit {limit}");
        }
    }
    sample::<Unit>(&vocab, n);
    sample::<Shape2>(&vocab, n);
    sample::<External>(&vocab, n);
    sample::<Untagged>(&vocab, n);
    sample::<Tree>(&vocab, n);
    sample::<Wrapper<Point>>(&vocab, n);
    sample::<Newtype>(&vocab, n);
    sample::<Tuple3>(&vocab, n);
    sample::<Meters>(&vocab, n);
    let code = regex_lite_full("[a-z]{2,5}");
    for m in sample::<Maps>(&vocab, n) {
        assert!(code(&m.code), "code {:?}", m.code);
        assert!(
            (1..=4).contains(&m.short.chars().count()),
            "short {:?}",
            m.short
        );
        assert!((1..=2).contains(&m.few.len()));
    }
}

/// A whole-string matcher for the pattern, independent of gcd's lexer.
fn regex_lite_full(pattern: &str) -> impl Fn(&str) -> bool {
    let re = regex_automata::meta::Regex::new(&format!("^(?:{pattern})$")).unwrap();
    move |s| re.is_match(s)
}
