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
    /// The most probable tokenization of the output that the search found.
    pub matcher: Matcher,
    /// The output's log-probability: over each tokenization found, the sum
    /// of its tokens' log-probabilities (EOS included), and these added up
    /// as probabilities.
    pub log_prob: f32,
    /// How many tokenizations of this output the search found.
    pub tokenizations: usize,
}

/// Adds a finished hypothesis, merged with an earlier one of the same text:
/// tokenizations of one output are one answer, and its probability is
/// theirs together.
fn add_finished(finished: &mut Vec<Hypothesis>, h: Hypothesis) {
    let Some(same) = (finished.iter_mut()).find(|f| f.matcher.output() == h.matcher.output())
    else {
        finished.push(h);
        return;
    };
    let (hi, lo) = if h.log_prob > same.log_prob {
        (h.log_prob, same.log_prob)
    } else {
        (same.log_prob, h.log_prob)
    };
    let merged = hi + (lo - hi).exp().ln_1p();
    if h.log_prob > same.log_prob {
        same.matcher = h.matcher;
    }
    same.log_prob = merged;
    same.tokenizations += h.tokenizations;
}

/// Beam search with `width` beams. Each beam is a fork of `start`; every
/// candidate token is drawn from the beam's mask, so all outputs are
/// grammatical, and with a budget on `start` all are complete. Stops when
/// `width` distinct outputs have ended or after `max_steps` steps. Best
/// first. Outputs are distinct texts: a text reached through several
/// tokenizations is one [`Hypothesis`] with their probabilities summed.
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
        tokenizations: 1,
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
            let h = Hypothesis {
                matcher,
                log_prob,
                tokenizations: 1,
            };
            if h.matcher.is_finished() {
                add_finished(&mut finished, h);
            } else {
                next.push(h);
            }
        }
        beams = next;
    }
    finished.sort_by(|a, b| b.log_prob.total_cmp(&a.log_prob));
    finished
}
