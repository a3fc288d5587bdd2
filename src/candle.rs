//! candle: masked logits tensors and a typed generation loop over any model
//! (feature `candle`).
//!
//! A candle model hands back the next token's logits as a tensor, usually
//! wider than the tokenizer's vocabulary (embedding tables are padded to a
//! multiple of 64 or 128): [`mask_logits`] forbids the padding ids too, so a
//! sampler such as candle's [`LogitsProcessor`] can only pick a token the
//! grammar allows. [`generate`] is the whole loop for a type deriving
//! [`Constrained`]; [`generate_with`] runs it for any [`Decoder`] (a JSON
//! Schema's, for instance). Each step's mask is computed on a worker thread
//! while the model runs its forward pass ([`mask_during`]).
//!
//! Any model fits through [`NextTokenLogits`]: the example
//! `examples/candle_tool_call` implements it for candle's Llama (safetensors)
//! and quantized Llama (GGUF).
//!
//! ```
//! use std::sync::Arc;
//! use candle_core::{DType, Device, Tensor};
//! use candle_transformers::generation::LogitsProcessor;
//! use gcd::candle::{generate, NextTokenLogits};
//!
//! #[derive(gcd::Constrained, serde::Deserialize)]
//! struct Forecast { city: String, #[constrained(range = 1..=7)] days: u8 }
//!
//! /// Stands in for a model: every id equally likely, the row padded past
//! /// the vocabulary as real embedding tables are.
//! struct Uniform(usize);
//! impl NextTokenLogits for Uniform {
//!     fn next_token_logits(&mut self, _new: &[u32], _position: usize) -> candle_core::Result<Tensor> {
//!         Tensor::zeros((1, self.0), DType::F32, &Device::Cpu)
//!     }
//! }
//!
//! let vocab = Arc::new(gcd::core::Vocabulary::o200k_base()?);
//! let mut model = Uniform(vocab.len() + 64);
//! let mut sampler = LogitsProcessor::new(7, Some(1.0), None);
//! // Within 24 tokens, EOS included: the output is always a whole Forecast.
//! let out = generate::<Forecast, _>(&mut model, &vocab, "Forecast for Oslo?", 24, &mut sampler)?;
//! assert!(out.tokens.len() <= 25 && (1..=7).contains(&out.value.days));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::Arc;

use bitvec::prelude::*;
use candle_core::{DType, Tensor};
use candle_transformers::generation::LogitsProcessor;
use gcd_core::runtime::overlap::mask_during;
use gcd_core::vocab::{VocabError, Vocabulary};
use gcd_core::Matcher;
use serde::de::DeserializeOwned;

use crate::{Constrained, ConstraintError, Decoder};

/// A language model as the generation loop sees it.
pub trait NextTokenLogits {
    /// Feeds `new_tokens`, which follow the `position` tokens fed before,
    /// and returns the logits of the token after them: one row of at least
    /// vocabulary width, shaped `[V]`, `[1, V]` or `[1, 1, V]`, any float
    /// dtype. A model with a key-value cache feeds only `new_tokens`; one
    /// without keeps the earlier tokens itself.
    fn next_token_logits(
        &mut self,
        new_tokens: &[u32],
        position: usize,
    ) -> candle_core::Result<Tensor>;
}

/// Why generation stopped without a value.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GenerateError {
    /// The model or a tensor operation failed.
    #[error("candle: {0}")]
    Candle(#[from] candle_core::Error),
    /// The decoder refused: its grammar could not be built, it refused a
    /// token or a budget, or the output did not deserialize.
    #[error(transparent)]
    Constraint(#[from] ConstraintError),
    /// The prompt could not be encoded with the vocabulary.
    #[error(transparent)]
    Vocabulary(#[from] VocabError),
    /// The logits row is narrower than the vocabulary.
    #[error(
        "the model's logits have {width} entries, fewer than the vocabulary's {vocab} tokens: \
         the model and the tokenizer do not belong together"
    )]
    NarrowLogits {
        /// Entries in the logits row.
        width: usize,
        /// Token ids in the vocabulary.
        vocab: usize,
    },
    /// The logits hold more than one row (their shape is given): mask each
    /// sequence of a batch with its own matcher.
    #[error("the model's logits have shape {0:?}; expected one row: [V], [1, V] or [1, 1, V]")]
    NotOneRow(Vec<usize>),
    /// An unbudgeted run reached its token limit (given) before EOS.
    #[error(
        "the output did not end within {0} tokens; give the decoder a budget \
         (`with_budget`) so that it always ends complete"
    )]
    Unfinished(usize),
}

/// The tokens, text and value of one generation.
#[derive(Debug, Clone)]
pub struct Generation<T> {
    /// The text deserialized into the requested type.
    pub value: T,
    /// The generated tokens, the final EOS included.
    pub tokens: Vec<u32>,
    /// The generated text (EOS excluded).
    pub text: String,
}

/// Tokens a decoder without a budget may take before [`generate_with`]
/// gives up.
pub const UNBUDGETED_LIMIT: usize = 4096;

/// The width of a one-row logits tensor.
fn row_width(logits: &Tensor) -> Result<usize, GenerateError> {
    let dims = logits.dims();
    match dims.split_last() {
        Some((&width, lead)) if lead.iter().all(|&d| d == 1) && lead.len() <= 2 => Ok(width),
        _ => Err(GenerateError::NotOneRow(dims.to_vec())),
    }
}

/// `logits` with every token that `matcher` forbids, and every id past the
/// vocabulary, set to negative infinity; same shape, dtype and device.
pub fn mask_logits(matcher: &Matcher, logits: &Tensor) -> Result<Tensor, GenerateError> {
    let width = checked_width(matcher, logits)?;
    apply(&matcher.compute_mask(width), logits)
}

fn checked_width(matcher: &Matcher, logits: &Tensor) -> Result<usize, GenerateError> {
    let width = row_width(logits)?;
    let vocab = matcher.bound().vocab().len();
    if width < vocab {
        return Err(GenerateError::NarrowLogits { width, vocab });
    }
    Ok(width)
}

/// Adds 0 where `mask` allows and negative infinity where it forbids.
fn apply(mask: &BitVec<u64, Lsb0>, logits: &Tensor) -> Result<Tensor, GenerateError> {
    let bias: Vec<f32> = (mask.iter().by_vals())
        .map(|allowed| if allowed { 0.0 } else { f32::NEG_INFINITY })
        .collect();
    let bias = Tensor::from_vec(bias, logits.shape(), logits.device())?;
    let bias = if logits.dtype() == DType::F32 {
        bias
    } else {
        bias.to_dtype(logits.dtype())?
    };
    Ok(logits.broadcast_add(&bias)?)
}

/// Generates one value of `T` after `prompt`, in at most `budget` tokens
/// (plus EOS), sampling with `sampler`. The output always ends complete and
/// deserializes into `T`.
pub fn generate<T: Constrained + DeserializeOwned + 'static, M: NextTokenLogits + ?Sized>(
    model: &mut M,
    vocab: &Arc<Vocabulary>,
    prompt: &str,
    budget: usize,
    sampler: &mut LogitsProcessor,
) -> Result<Generation<T>, GenerateError> {
    let decoder = Decoder::<T>::new(vocab.clone())?.with_budget(budget)?;
    let prompt = vocab.encode(prompt)?;
    generate_with(model, decoder, &prompt, sampler)
}

/// Runs `decoder` to the end after the `prompt` tokens. Without a budget on
/// the decoder, gives up after [`UNBUDGETED_LIMIT`] tokens.
pub fn generate_with<T: DeserializeOwned, M: NextTokenLogits + ?Sized>(
    model: &mut M,
    mut decoder: Decoder<T>,
    prompt: &[u32],
    sampler: &mut LogitsProcessor,
) -> Result<Generation<T>, GenerateError> {
    let limit = decoder
        .matcher()
        .budget()
        .map_or(UNBUDGETED_LIMIT, |b| b + 1);
    let mut pending = prompt.to_vec();
    let mut position = 0;
    // Known after the first forward pass; from then on each step's mask is
    // computed while the model runs.
    let mut width = None;
    while !decoder.is_finished() {
        if decoder.matcher().tokens().len() >= limit {
            return Err(GenerateError::Unfinished(limit));
        }
        let (logits, mask) = match width {
            Some(w) => {
                let (logits, mask) = mask_during(decoder.matcher(), w, || {
                    model.next_token_logits(&pending, position)
                });
                (logits?, mask)
            }
            None => {
                let logits = model.next_token_logits(&pending, position)?;
                let w = checked_width(decoder.matcher(), &logits)?;
                width = Some(w);
                (logits, decoder.matcher().compute_mask(w))
            }
        };
        if row_width(&logits)? != mask.len() {
            return Err(GenerateError::NotOneRow(logits.dims().to_vec()));
        }
        let masked = apply(&mask, &logits)?.flatten_all()?;
        let token = sampler.sample(&masked)?;
        position += pending.len();
        pending = vec![token];
        decoder.advance(token)?;
    }
    let value = decoder.finish()?;
    let m = decoder.matcher();
    Ok(Generation {
        value,
        tokens: m.tokens().to_vec(),
        text: m.text(),
    })
}
