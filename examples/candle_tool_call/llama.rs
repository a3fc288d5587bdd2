//! Loading a Llama-family model with candle, as `NextTokenLogits`: from a
//! Hugging Face folder (`config.json` + safetensors) or a quantized GGUF
//! file. tests/candle_generate.rs loads a tiny random model it writes
//! through this same code.

use std::fs::File;
use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::llama::{Cache, Llama, LlamaConfig};
use candle_transformers::models::quantized_llama::ModelWeights;
use gcd::candle::NextTokenLogits;

/// `tokens` as a `[1, n]` input tensor.
fn batch_of_one(tokens: &[u32], device: &Device) -> candle_core::Result<Tensor> {
    Tensor::new(tokens, device)?.unsqueeze(0)
}

/// A Llama from safetensors, with its key-value cache.
pub struct SafetensorsLlama {
    model: Llama,
    cache: Cache,
    device: Device,
}

/// The safetensors files of a Hugging Face model folder: the shards that
/// `model.safetensors.index.json` lists, or `model.safetensors`.
fn safetensors_files(dir: &Path) -> candle_core::Result<Vec<PathBuf>> {
    let index = dir.join("model.safetensors.index.json");
    if index.exists() {
        let text = std::fs::read_to_string(&index)?;
        let json: serde_json::Value =
            serde_json::from_str(&text).map_err(candle_core::Error::wrap)?;
        let map = (json.get("weight_map").and_then(|m| m.as_object())).ok_or_else(|| {
            candle_core::Error::Msg(format!("{}: no weight_map", index.display()))
        })?;
        let mut files: Vec<PathBuf> = map
            .values()
            .filter_map(|f| f.as_str())
            .map(|f| dir.join(f))
            .collect();
        files.sort();
        files.dedup();
        return Ok(files);
    }
    let single = dir.join("model.safetensors");
    if !single.exists() {
        return Err(candle_core::Error::Msg(format!(
            "{}: neither model.safetensors nor model.safetensors.index.json",
            dir.display()
        )));
    }
    Ok(vec![single])
}

impl SafetensorsLlama {
    /// Loads `dir/config.json` and the weights beside it, in `dtype`.
    pub fn load(dir: &Path, dtype: DType, device: &Device) -> candle_core::Result<Self> {
        let config_path = dir.join("config.json");
        let text = std::fs::read_to_string(&config_path)?;
        let config: LlamaConfig = serde_json::from_str(&text)
            .map_err(|e| candle_core::Error::Msg(format!("{}: {e}", config_path.display())))?;
        let config = config.into_config(false);
        let files = safetensors_files(dir)?;
        // Safety: the files are memory-mapped read-only; like every mmap,
        // they must not be changed while the model is alive.
        let vb = unsafe { VarBuilder::from_mmaped_safetensors(&files, dtype, device)? };
        let model = Llama::load(vb, &config)?;
        let cache = Cache::new(true, dtype, &config, device)?;
        Ok(SafetensorsLlama {
            model,
            cache,
            device: device.clone(),
        })
    }
}

impl NextTokenLogits for SafetensorsLlama {
    fn next_token_logits(
        &mut self,
        new_tokens: &[u32],
        position: usize,
    ) -> candle_core::Result<Tensor> {
        let input = batch_of_one(new_tokens, &self.device)?;
        self.model.forward(&input, position, &mut self.cache)
    }
}

/// A quantized Llama from a GGUF file (llama.cpp's format).
pub struct GgufLlama {
    model: ModelWeights,
    device: Device,
}

impl GgufLlama {
    pub fn load(path: &Path, device: &Device) -> candle_core::Result<Self> {
        let mut file = File::open(path)?;
        let content = candle_core::quantized::gguf_file::Content::read(&mut file)
            .map_err(|e| e.with_path(path))?;
        let model = ModelWeights::from_gguf(content, &mut file, device)?;
        Ok(GgufLlama {
            model,
            device: device.clone(),
        })
    }
}

impl NextTokenLogits for GgufLlama {
    fn next_token_logits(
        &mut self,
        new_tokens: &[u32],
        position: usize,
    ) -> candle_core::Result<Tensor> {
        let input = batch_of_one(new_tokens, &self.device)?;
        self.model.forward(&input, position)
    }
}
