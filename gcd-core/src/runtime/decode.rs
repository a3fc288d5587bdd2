//! Decoding strategies over any next-token-logits source.
//!
//! With a budgeted matcher every beam stays completable within the budget,
//! so a search may trade tokens for likelihood without ever returning a
//! truncated output (TruncProof's point).

use crate::runtime::matcher::{MatchError, Matcher};

/// Anything that scores the next token given the tokens so far: a model, or
/// a stand-in in tests.
pub trait LogitsSource {
    /// Fills `logits` (one entry per token id) for the next token after `tokens`.
    fn next_logits(&mut self, tokens: &[u32], logits: &mut [f32]);
}

/// Greedy decoding: the model's best allowed token at each step, until the
/// output ends (EOS chosen or nothing else allowed) or `max_steps` tokens.
/// Returns whether it ended. With a budget on `m` it always ends, complete.
pub fn greedy(
    m: &mut Matcher,
    model: &mut dyn LogitsSource,
    max_steps: usize,
) -> Result<bool, MatchError> {
    let mut logits = vec![0f32; m.bound().vocab.len()];
    for _ in 0..max_steps {
        if m.is_finished() {
            break;
        }
        model.next_logits(m.tokens(), &mut logits);
        m.mask_logits(&mut logits);
        let best = (0..logits.len())
            .filter(|&t| logits[t] > f32::NEG_INFINITY)
            .max_by(|&a, &b| logits[a].total_cmp(&logits[b]));
        match best {
            Some(t) => m.advance(t as u32)?,
            None => break,
        }
    }
    Ok(m.is_finished())
}

/// One finished output of a search.
#[derive(Clone, Debug)]
pub struct Hypothesis {
    pub matcher: Matcher,
    /// Sum of the log-probabilities of its tokens (EOS included).
    pub log_prob: f32,
}

/// Beam search with `width` beams. Each beam is a fork of `start`; every
/// candidate token is drawn from the beam's mask, so all outputs are
/// grammatical, and with a budget on `start` all are complete. Stops when
/// `width` outputs have ended or after `max_steps` steps. Best first.
pub fn beam_search(
    start: &Matcher,
    model: &mut dyn LogitsSource,
    width: usize,
    max_steps: usize,
) -> Vec<Hypothesis> {
    let vocab_width = start.bound().vocab.len();
    let mut beams = vec![Hypothesis {
        matcher: start.clone(),
        log_prob: 0.0,
    }];
    let mut finished: Vec<Hypothesis> = Vec::new();
    let mut logits = vec![0f32; vocab_width];
    for _ in 0..max_steps {
        if beams.is_empty() || finished.len() >= width {
            break;
        }
        let mut candidates: Vec<(usize, u32, f32)> = Vec::new();
        for (bi, beam) in beams.iter().enumerate() {
            model.next_logits(beam.matcher.tokens(), &mut logits);
            beam.matcher.mask_logits(&mut logits);
            let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            if max == f32::NEG_INFINITY {
                continue;
            }
            let log_z = max + logits.iter().map(|l| (l - max).exp()).sum::<f32>().ln();
            let mut best: Vec<(u32, f32)> = logits
                .iter()
                .enumerate()
                .filter(|(_, l)| l.is_finite())
                .map(|(t, l)| (t as u32, l - log_z))
                .collect();
            best.sort_by(|a, b| b.1.total_cmp(&a.1));
            best.truncate(width);
            candidates.extend(best.into_iter().map(|(t, lp)| (bi, t, beam.log_prob + lp)));
        }
        candidates.sort_by(|a, b| b.2.total_cmp(&a.2));
        let mut next = Vec::with_capacity(width);
        for (bi, t, log_prob) in candidates {
            if next.len() + finished.len() >= width {
                break;
            }
            let mut matcher = beams[bi].matcher.clone();
            if matcher.advance(t).is_err() {
                continue;
            }
            let h = Hypothesis { matcher, log_prob };
            if h.matcher.is_finished() {
                finished.push(h);
            } else {
                next.push(h);
            }
        }
        beams = next;
    }
    finished.sort_by(|a, b| b.log_prob.total_cmp(&a.log_prob));
    finished
}
