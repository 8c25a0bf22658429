//! A sentence-transformers model run in-process: a BERT-family model folder
//! (`config.json`, `tokenizer.json`, `model.safetensors`, optionally
//! `sentence_bert_config.json`), run with candle, mean-pooled over the attention mask and
//! normalised to unit length, as sentence-transformers does for models like
//! all-MiniLM-L6-v2.

use std::path::{Path, PathBuf};
use std::time::Instant;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use super::bert::{Config, Encoder};
use super::embedder::{Embedder, normalize};
use super::error::EmbedError;

/// Texts run through the model at once (the deadline is checked between them).
const FORWARD_BATCH: usize = 32;

/// A local sentence-transformers model.
///
/// ```no_run
/// use toolforge::embed::{Embedder, LocalModel};
/// let model = LocalModel::load("models/all-MiniLM-L6-v2")?;
/// let vectors = model.embed(&["A cat sits on the mat."], None)?;
/// assert_eq!(vectors[0].len(), 384);
/// # Ok::<(), toolforge::embed::EmbedError>(())
/// ```
pub struct LocalModel {
    model: Encoder,
    tokenizer: Tokenizer,
    device: Device,
    model_id: String,
    /// The identity without a token limit of the caller's.
    base_id: String,
    /// The model's own token limit.
    max_tokens: usize,
    dimension: usize,
    batch_size: usize,
}

impl std::fmt::Debug for LocalModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalModel")
            .field("model_id", &self.model_id)
            .field("dimension", &self.dimension)
            .finish_non_exhaustive()
    }
}

impl LocalModel {
    /// Loads the model in `folder`.
    pub fn load(folder: impl AsRef<Path>) -> Result<Self, EmbedError> {
        let folder = folder.as_ref();
        let file = |name: &str| -> Result<PathBuf, EmbedError> {
            let path = folder.join(name);
            if path.is_file() {
                Ok(path)
            } else {
                Err(EmbedError::Model {
                    message: format!(
                        "folder {} has no `{name}`; it must hold a sentence-transformers model (config.json, tokenizer.json, model.safetensors), for example all-MiniLM-L6-v2",
                        folder.display()
                    ),
                })
            }
        };
        let config_text = read(&file("config.json")?)?;
        let config: Config = serde_json::from_slice(&config_text)
            .map_err(|error| model_error(folder, "config.json", error))?;
        let max_length = max_sequence_length(folder, &config_text);
        let mut tokenizer = Tokenizer::from_file(file("tokenizer.json")?)
            .map_err(|error| model_error(folder, "tokenizer.json", error))?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length,
                ..TruncationParams::default()
            }))
            .map_err(|error| model_error(folder, "tokenizer.json", error))?;
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            ..PaddingParams::default()
        }));
        let device = Device::Cpu;
        let weights = read(&file("model.safetensors")?)?;
        let weights_len = weights.len();
        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &device)
            .map_err(|error| model_error(folder, "model.safetensors", error))?;
        let model = Encoder::load(vb, &config)
            .map_err(|error| model_error(folder, "model.safetensors", error))?;
        let dimension = config.hidden_size;
        // The model's identity: its declared name, size and the exact weights' length, so
        // moving the folder does not re-embed everything, and another model does.
        let name = config_string(&config_text, "_name_or_path")
            .or_else(|| {
                folder
                    .file_name()
                    .map(|name| name.to_string_lossy().into_owned())
            })
            .unwrap_or_else(|| "model".to_owned());
        Ok(LocalModel {
            model,
            tokenizer,
            device,
            model_id: format!("local:{name}:{dimension}:{weights_len}"),
            base_id: format!("local:{name}:{dimension}:{weights_len}"),
            max_tokens: max_length,
            dimension,
            batch_size: 64,
        })
    }

    /// Reads at most `tokens` tokens of each text (default: the model's `max_seq_length`, 256
    /// for all-MiniLM-L6-v2); the rest is cut, as sentence-transformers cuts at its limit.
    /// Fewer tokens embed long texts faster at the cost of their ends. Part of the model's
    /// identity, so changing it re-embeds stored texts.
    pub fn with_max_tokens(mut self, tokens: usize) -> Result<Self, EmbedError> {
        let tokens = tokens.clamp(8, self.max_tokens);
        self.tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: tokens,
                ..TruncationParams::default()
            }))
            .map_err(|error| EmbedError::Model {
                message: format!("cannot cut texts at {tokens} tokens: {error}"),
            })?;
        if tokens != self.max_tokens {
            self.model_id = format!("{}:max{tokens}", self.base_id);
        } else {
            self.model_id = self.base_id.clone();
        }
        Ok(self)
    }

    /// Texts per [`embed`](Embedder::embed) call when embedding many (default 64).
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size.max(1);
        self
    }

    fn forward(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, candle_core::Error> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(candle_core::Error::msg)?;
        let rows = encodings.len();
        let width = encodings.first().map_or(0, |e| e.get_ids().len());
        let mut ids = Vec::with_capacity(rows * width);
        let mut types = Vec::with_capacity(rows * width);
        let mut mask = Vec::with_capacity(rows * width);
        for encoding in &encodings {
            ids.extend_from_slice(encoding.get_ids());
            types.extend_from_slice(encoding.get_type_ids());
            mask.extend_from_slice(encoding.get_attention_mask());
        }
        let ids = Tensor::from_vec(ids, (rows, width), &self.device)?;
        let types = Tensor::from_vec(types, (rows, width), &self.device)?;
        let mask = Tensor::from_vec(mask, (rows, width), &self.device)?;
        let hidden = self.model.forward(&ids, &types, &mask)?;
        // Mean over the tokens the mask keeps.
        let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
        let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
        let counts = mask.sum(1)?.clamp(1e-9, f64::MAX)?;
        let pooled = summed.broadcast_div(&counts)?;
        let mut vectors: Vec<Vec<f32>> = pooled.to_vec2()?;
        for vector in &mut vectors {
            normalize(vector);
        }
        Ok(vectors)
    }
}

impl Embedder for LocalModel {
    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn dimension(&self) -> Option<usize> {
        Some(self.dimension)
    }

    fn batch_size(&self) -> usize {
        self.batch_size
    }

    fn embed(
        &self,
        texts: &[&str],
        deadline: Option<Instant>,
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        // Texts of similar length run together, so little of each batch is padding; the
        // vectors are put back in the caller's order.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let mut vectors: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(FORWARD_BATCH) {
            if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                return Err(EmbedError::Stopped);
            }
            let batch: Vec<&str> = chunk.iter().map(|&i| texts[i]).collect();
            let batch_vectors = self.forward(&batch).map_err(|error| EmbedError::Model {
                message: format!("failed: {error}"),
            })?;
            for (&i, vector) in chunk.iter().zip(batch_vectors) {
                vectors[i] = vector;
            }
        }
        Ok(vectors)
    }
}

fn read(path: &Path) -> Result<Vec<u8>, EmbedError> {
    std::fs::read(path).map_err(|error| EmbedError::Model {
        message: format!("file {} could not be read: {error}", path.display()),
    })
}

fn model_error(folder: &Path, file: &str, error: impl std::fmt::Display) -> EmbedError {
    EmbedError::Model {
        message: format!(
            "file {} could not be loaded: {error}",
            folder.join(file).display()
        ),
    }
}

fn config_string(config: &[u8], key: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(config).ok()?;
    value.get(key)?.as_str().map(str::to_owned)
}

/// `max_seq_length` of `sentence_bert_config.json`, else the model's position limit, else 512.
fn max_sequence_length(folder: &Path, config: &[u8]) -> usize {
    let from = |bytes: &[u8], key: &str| -> Option<usize> {
        let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
        value.get(key)?.as_u64().map(|n| n as usize)
    };
    std::fs::read(folder.join("sentence_bert_config.json"))
        .ok()
        .and_then(|bytes| from(&bytes, "max_seq_length"))
        .or_else(|| from(config, "max_position_embeddings"))
        .unwrap_or(512)
        .clamp(8, 8192)
}
