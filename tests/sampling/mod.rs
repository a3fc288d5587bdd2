//! A chat turn sampled from random allowed tokens, for the chat tests.

use gcd::ChatDecoder;
use rand::rngs::StdRng;
use rand::Rng;

/// Random allowed tokens (EOS last resort) until the turn ends.
pub fn sample<T: serde::de::DeserializeOwned>(d: &mut ChatDecoder<T>, rng: &mut StdRng) {
    let v = d.matcher().bound().vocab().clone();
    while !d.is_finished() {
        let mask = d.matcher().compute_mask(v.len());
        let text: Vec<u32> = (mask.iter_ones().map(|t| t as u32))
            .filter(|&t| !v.is_eos(t))
            .collect();
        let t = if text.is_empty() {
            v.eos_ids()[0]
        } else {
            text[rng.random_range(0..text.len())]
        };
        d.advance(t).unwrap();
    }
}
