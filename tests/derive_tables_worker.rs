//! A derived type's binding builds its tables on a worker thread
//! (`BoundGrammar::build_all_on_worker`). Masks computed while the worker
//! runs, racing it for the same lexer states, must be the masks of a
//! binding that builds everything on demand; once the worker is done,
//! nothing is left for a mask to build.

use std::sync::Arc;

use gcd::constrained::{bound, compiled};
use gcd::core::bind::BoundGrammar;
use gcd::core::runtime::matcher::Matcher;
use gcd::core::vocab::Vocabulary;
use gcd::Constrained;
use serde::{Deserialize, Serialize};

#[allow(dead_code)]
#[derive(Constrained, Serialize, Deserialize)]
#[serde(tag = "tool", content = "args", rename_all = "snake_case")]
enum Call {
    Search {
        query: String,
        #[constrained(range = 1..=10)]
        limit: u8,
    },
    Open {
        #[constrained(max_len = 12)]
        path: String,
        #[constrained(pattern = "[A-Z][a-z]+")]
        owner: String,
    },
}

/// The masks along `text`'s tokens, bound as `b`.
fn masks(b: &Arc<BoundGrammar>, vocab: &Vocabulary, text: &str) -> Vec<Vec<u64>> {
    let mut m = Matcher::new(b.clone());
    let mut out = Vec::new();
    for t in vocab.encode(text).unwrap() {
        out.push(m.compute_mask(vocab.len()).into_vec());
        m.advance(t).unwrap();
    }
    out.push(m.compute_mask(vocab.len()).into_vec());
    out
}

#[test]
fn masks_racing_the_worker_equal_masks_built_on_demand() {
    let vocab = Arc::new(Vocabulary::o200k_base().unwrap());
    let texts = [
        r#"{"tool":"open","args":{"path":"src/a\"b.rs","owner":"Ada"}}"#,
        r#"{"tool":"search","args":{"query":"caf\u00e9 \\ ok","limit":10}}"#,
        r#"{"tool":"open","args":{"path":"","owner":"Bo"}}"#,
    ];
    let ws = Call::WHITESPACE;
    // The reference: no worker, every table built by the mask that needs it.
    let on_demand = Arc::new(BoundGrammar::new(
        compiled::<Call>(ws).unwrap(),
        vocab.clone(),
    ));
    // The type's own binding, whose worker starts now and races these masks.
    let raced = bound::<Call>(ws, vocab.clone()).unwrap();
    for text in texts {
        assert!(
            masks(&raced, &vocab, text) == masks(&on_demand, &vocab, text),
            "masks differ along {text}"
        );
    }
    // A second binding of the same grammar, built only by its worker.
    let worked = Arc::new(BoundGrammar::new(
        compiled::<Call>(ws).unwrap(),
        vocab.clone(),
    ));
    let worker = worked
        .build_all_on_worker()
        .expect("a few hundred states get a worker");
    worker.join().unwrap();
    let after_worker = worked.table_bytes();
    on_demand.build_all();
    assert_eq!(after_worker, on_demand.table_bytes());
    for text in texts {
        assert!(masks(&worked, &vocab, text) == masks(&on_demand, &vocab, text));
    }
    assert_eq!(
        worked.table_bytes(),
        after_worker,
        "masks built nothing more"
    );
}
