//! What the examples share: a stand-in for a real model.

use gcd::{LogitsSource, Vocabulary};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Seeded random logits in place of an LLM. Like a model, it rarely picks
/// whitespace-only, non-ASCII or long tokens and rarely stops early; the mask
/// and the budget, not the model, make every output valid and complete.
pub struct StandInModel {
    rng: StdRng,
    bias: Vec<f32>,
}

impl StandInModel {
    pub fn new(vocab: &Vocabulary, seed: u64) -> StandInModel {
        let bias = (0..vocab.len() as u32)
            .map(|id| match vocab.token_bytes(id) {
                _ if vocab.is_eos(id) => -2.0,
                // Long runs (`-----`, `________`) read badly in a demo.
                Ok(b) => {
                    let kind = if b.iter().all(u8::is_ascii_whitespace) {
                        -3.0
                    } else if !b.is_ascii() {
                        -4.0
                    } else {
                        0.0
                    };
                    kind - 0.4 * (b.len() as f32 - 1.0).max(0.0)
                }
                Err(_) => -8.0,
            })
            .collect();
        StandInModel {
            rng: StdRng::seed_from_u64(seed),
            bias,
        }
    }
}

impl LogitsSource for StandInModel {
    fn next_logits(&mut self, _tokens: &[u32], logits: &mut [f32]) {
        for (l, b) in logits.iter_mut().zip(&self.bias) {
            *l = self.rng.random::<f32>() * 4.0 + b;
        }
    }
}
