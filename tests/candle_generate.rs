//! gcd::candle on a real candle model: a tiny Llama with random weights,
//! written to safetensors and loaded back through the example's loading
//! code, generates typed values; masked logits tensors forbid exactly what
//! the matcher forbids, padding ids included.

// The GGUF loader is the example's; only the safetensors one is run here.
#[allow(dead_code)]
#[path = "../examples/candle_tool_call/llama.rs"]
mod llama;

use std::sync::Arc;

use candle_core::{DType, Device, Tensor};
use candle_nn::{VarBuilder, VarMap};
use candle_transformers::generation::{LogitsProcessor, Sampling};
use candle_transformers::models::llama::{Llama, LlamaConfig};
use gcd::candle::{generate, generate_with, mask_logits, GenerateError};
use gcd::core::vocab::Vocabulary;
use gcd::{Constrained, Decoder};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Deserialize;

#[derive(Constrained, Deserialize, Debug)]
#[serde(tag = "tool", content = "args", rename_all = "snake_case")]
enum Call {
    Search {
        #[constrained(max_len = 10)]
        query: String,
        #[constrained(range = 1..=5)]
        limit: u8,
    },
    Stop,
}

fn vocab() -> Arc<Vocabulary> {
    Arc::new(Vocabulary::o200k_base().expect("embedded o200k"))
}

/// Embedding rows padded to a multiple of 128, as real checkpoints are.
fn padded(vocab: &Vocabulary) -> usize {
    vocab.len().div_ceil(128) * 128
}

/// Writes a 2-layer Llama with random weights as a Hugging Face folder.
fn write_tiny_llama(dir: &std::path::Path, vocab_size: usize) {
    let config = serde_json::json!({
        "hidden_size": 32, "intermediate_size": 64, "vocab_size": vocab_size,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "max_position_embeddings": 512,
        "tie_word_embeddings": false
    });
    std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
    let parsed: LlamaConfig = serde_json::from_value(config).unwrap();
    let varmap = VarMap::new();
    let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
    // Creating the model creates its variables, randomly initialized.
    Llama::load(vb, &parsed.into_config(false)).unwrap();
    varmap.save(dir.join("model.safetensors")).unwrap();
}

#[test]
fn a_tiny_random_llama_generates_typed_values_within_the_budget() {
    let vocab = vocab();
    let dir = std::env::temp_dir().join(format!("gcd-candle-llama-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    write_tiny_llama(&dir, padded(&vocab));
    let budget = 24;
    for seed in 0..4 {
        let mut model = llama::SafetensorsLlama::load(&dir, DType::F32, &Device::Cpu).unwrap();
        let mut sampler = LogitsProcessor::from_sampling(seed, Sampling::All { temperature: 1.0 });
        let out = generate::<Call, _>(&mut model, &vocab, "Call a tool: ", budget, &mut sampler)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert!(
            out.tokens.len() <= budget + 1,
            "{} tokens",
            out.tokens.len()
        );
        assert!(vocab.is_eos(*out.tokens.last().unwrap()), "ends with EOS");
        let reread: Call = serde_json::from_str(&out.text).unwrap();
        if let Call::Search { query, limit } = &out.value {
            assert!(
                query.chars().count() <= 10 && (1..=5).contains(limit),
                "{out:?}"
            );
        }
        assert_eq!(format!("{reread:?}"), format!("{:?}", out.value));
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A model that returns random logits of a fixed shape.
struct RandomLogits {
    rng: StdRng,
    shape: Vec<usize>,
}

impl gcd::candle::NextTokenLogits for RandomLogits {
    fn next_token_logits(&mut self, _: &[u32], _: usize) -> candle_core::Result<Tensor> {
        let n = self.shape.iter().product();
        let v: Vec<f32> = (0..n).map(|_| self.rng.random_range(-3.0..3.0)).collect();
        Tensor::from_vec(v, self.shape.clone(), &Device::Cpu)
    }
}

#[test]
fn masked_tensors_forbid_exactly_what_the_matcher_forbids_and_the_padding() {
    let vocab = vocab();
    let width = padded(&vocab) + 64;
    let mut d = Decoder::<Call>::new(vocab.clone()).unwrap();
    let mut rng = StdRng::seed_from_u64(3);
    for dtype in [DType::F32, DType::BF16] {
        for step in 0..12 {
            if d.is_finished() {
                break;
            }
            let raw: Vec<f32> = (0..width).map(|_| rng.random_range(-3.0..3.0)).collect();
            let logits = Tensor::from_vec(raw, (1, width), &Device::Cpu)
                .unwrap()
                .to_dtype(dtype)
                .unwrap();
            let masked = mask_logits(d.matcher(), &logits).unwrap();
            assert_eq!(masked.dims(), &[1, width]);
            assert_eq!(masked.dtype(), dtype);
            let values = masked
                .flatten_all()
                .unwrap()
                .to_dtype(DType::F32)
                .unwrap()
                .to_vec1::<f32>()
                .unwrap();
            let mask = d.matcher().compute_mask(width);
            let allowed: Vec<u32> = mask.iter_ones().map(|i| i as u32).collect();
            for (i, v) in values.iter().enumerate() {
                assert_eq!(v.is_finite(), mask[i], "{dtype:?} step {step}: token {i}");
            }
            assert!(values[vocab.len()..]
                .iter()
                .all(|v| *v == f32::NEG_INFINITY));
            let pick = allowed[rng.random_range(0..allowed.len())];
            d.advance(pick).unwrap();
        }
    }
}

#[test]
fn logits_narrower_than_the_vocabulary_or_not_one_row_are_errors() {
    let vocab = vocab();
    let d = Decoder::<Call>::new(vocab.clone()).unwrap();
    let narrow = Tensor::zeros((1, vocab.len() - 1), DType::F32, &Device::Cpu).unwrap();
    let e = mask_logits(d.matcher(), &narrow).unwrap_err();
    assert!(matches!(e, GenerateError::NarrowLogits { .. }), "{e}");
    assert!(e.to_string().contains("do not belong together"), "{e}");
    let two_rows = Tensor::zeros((2, vocab.len()), DType::F32, &Device::Cpu).unwrap();
    let e = mask_logits(d.matcher(), &two_rows).unwrap_err();
    assert!(matches!(e, GenerateError::NotOneRow(_)), "{e}");
}

#[test]
fn schema_decoders_run_through_generate_with_and_unbudgeted_runs_stop() {
    let vocab = vocab();
    let schema = serde_json::json!({"type": "array", "items": {"enum": [1, 2, 3]}, "maxItems": 3});
    let mut model = RandomLogits {
        rng: StdRng::seed_from_u64(5),
        shape: vec![1, 1, padded(&vocab)],
    };
    let mut sampler = LogitsProcessor::from_sampling(5, Sampling::All { temperature: 1.0 });
    let options = gcd::schema::Options::default();
    let d = Decoder::<Vec<u8>>::from_schema(&schema, &options, vocab.clone())
        .unwrap()
        .with_budget(16)
        .unwrap();
    let out = generate_with(&mut model, d, &[1, 2, 3], &mut sampler).unwrap();
    assert!(
        out.value.len() <= 3 && out.value.iter().all(|v| (1..=3).contains(v)),
        "{out:?}"
    );
    // A model that always prefers `a` never closes a string: without a
    // budget, the limit stops the run.
    let a = vocab.encode("a").unwrap()[0] as usize;
    let mut prefers_a = vec![0f32; padded(&vocab)];
    prefers_a[a] = 10.0;
    let mut model = Fixed(Tensor::from_vec(prefers_a, padded(&vocab), &Device::Cpu).unwrap());
    let mut argmax = LogitsProcessor::from_sampling(0, Sampling::ArgMax);
    let d = Decoder::<String>::from_schema(
        &serde_json::json!({"type": "string"}),
        &options,
        vocab.clone(),
    )
    .unwrap();
    let e = generate_with(&mut model, d, &[1], &mut argmax).unwrap_err();
    assert!(
        matches!(e, GenerateError::Unfinished(n) if n == gcd::candle::UNBUDGETED_LIMIT),
        "{e}"
    );
    // With a budget, the same model's output closes in time.
    let d = Decoder::<String>::from_schema(
        &serde_json::json!({"type": "string"}),
        &options,
        vocab.clone(),
    )
    .unwrap()
    .with_budget(8)
    .unwrap();
    let out = generate_with(&mut model, d, &[1], &mut argmax).unwrap();
    assert!(
        out.value.starts_with('a') && out.tokens.len() <= 9,
        "{out:?}"
    );
}

/// A model whose logits never change.
struct Fixed(Tensor);

impl gcd::candle::NextTokenLogits for Fixed {
    fn next_token_logits(&mut self, _: &[u32], _: usize) -> candle_core::Result<Tensor> {
        Ok(self.0.clone())
    }
}
