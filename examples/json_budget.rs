//! Constrained JSON generation under a hard token budget, with a stand-in
//! model in place of a real LLM: seeded random logits that, like a model,
//! rarely choose whitespace or non-ASCII bytes. Whatever the logits say,
//! each output is complete JSON within its budget.
//!
//! `cargo run --release --example json_budget`

use std::sync::Arc;

use gcd::core::bind::BoundGrammar;
use gcd::core::builtin;
use gcd::core::matcher::Matcher;
use gcd::core::vocab::Vocabulary;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let vocab = Arc::new(Vocabulary::o200k_base()?);
    let bound = Arc::new(BoundGrammar::new(builtin::json_compiled(), vocab.clone()));
    let mut rng = StdRng::seed_from_u64(1);
    let bias: Vec<f32> = (0..vocab.len() as u32)
        .map(|id| {
            let b = vocab.token_bytes(id).unwrap_or_default();
            if b.iter().any(|c| c.is_ascii_whitespace() || !c.is_ascii()) {
                -4.0
            } else {
                0.0
            }
        })
        .collect();
    for budget in [4, 16, 48] {
        let mut m = Matcher::new(bound.clone()).with_budget(budget)?;
        let mut logits = vec![0f32; vocab.len()];
        while !m.is_finished() {
            // A real model fills `logits` here.
            for (l, b) in logits.iter_mut().zip(&bias) {
                *l = rng.random::<f32>() * 4.0 + b;
            }
            m.mask_logits(&mut logits);
            let best = (0..logits.len())
                .max_by(|&a, &b| logits[a].total_cmp(&logits[b]))
                .expect("non-empty vocabulary");
            m.advance(best as u32)?;
        }
        let text = String::from_utf8_lossy(m.output());
        println!(
            "budget {budget:>2}: {} tokens: {text}",
            m.tokens().len() - 1
        );
    }
    Ok(())
}
