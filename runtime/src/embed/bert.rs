//! The BERT encoder of sentence-transformers models, on candle's tensors and layers.
//!
//! Only the encoder is needed to embed sentences (no pooler, no heads), so it is written here
//! against `candle-nn` rather than taken from `candle-transformers`, whose hundred models cost
//! a build two minutes of CPU for this one file's worth of code. It follows Hugging Face's
//! `modeling_bert.py` (absolute positions, post-layer-norm), and its output is checked against
//! an independent numpy BERT (`scripts/embedding-reference.py`, the `embed_local` tests).

use candle_core::{D, DType, Module, Result, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, VarBuilder, embedding, layer_norm, linear};
use serde::Deserialize;

/// The fields of a model's `config.json` the encoder reads.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Config {
    vocab_size: usize,
    /// The width of every token's vector, and of the sentence embedding.
    pub(crate) hidden_size: usize,
    num_hidden_layers: usize,
    num_attention_heads: usize,
    intermediate_size: usize,
    #[serde(default)]
    hidden_act: Activation,
    max_position_embeddings: usize,
    #[serde(default = "two")]
    type_vocab_size: usize,
    #[serde(default = "default_eps")]
    layer_norm_eps: f64,
}

fn two() -> usize {
    2
}

fn default_eps() -> f64 {
    1e-12
}

/// The feed-forward activation (`hidden_act`).
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Activation {
    /// The exact GELU, with the error function.
    #[default]
    Gelu,
    /// The tanh approximation of GELU.
    #[serde(alias = "gelu_new", alias = "gelu_pytorch_tanh")]
    GeluApproximate,
    Relu,
}

impl Activation {
    fn apply(self, xs: &Tensor) -> Result<Tensor> {
        match self {
            Activation::Gelu => xs.gelu_erf(),
            Activation::GeluApproximate => xs.gelu(),
            Activation::Relu => xs.relu(),
        }
    }
}

/// Token, position and segment embeddings, summed and normalised.
struct Embeddings {
    words: Embedding,
    positions: Embedding,
    segments: Embedding,
    norm: LayerNorm,
}

impl Embeddings {
    fn load(vb: VarBuilder, config: &Config) -> Result<Self> {
        Ok(Embeddings {
            words: embedding(
                config.vocab_size,
                config.hidden_size,
                vb.pp("word_embeddings"),
            )?,
            positions: embedding(
                config.max_position_embeddings,
                config.hidden_size,
                vb.pp("position_embeddings"),
            )?,
            segments: embedding(
                config.type_vocab_size,
                config.hidden_size,
                vb.pp("token_type_embeddings"),
            )?,
            norm: layer_norm(
                config.hidden_size,
                config.layer_norm_eps,
                vb.pp("LayerNorm"),
            )?,
        })
    }

    fn forward(&self, ids: &Tensor, segments: &Tensor) -> Result<Tensor> {
        let (_, width) = ids.dims2()?;
        let positions = Tensor::arange(0u32, width as u32, ids.device())?;
        let summed = (self.words.forward(ids)? + self.segments.forward(segments)?)?
            .broadcast_add(&self.positions.forward(&positions)?)?;
        self.norm.forward(&summed)
    }
}

/// One encoder layer: self-attention, then the feed-forward block, each with a residual
/// connection and a layer norm after it.
struct Layer {
    /// Query, key and value projections as one matrix product.
    qkv: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
    heads: usize,
    head_size: usize,
    activation: Activation,
}

impl Layer {
    fn load(vb: VarBuilder, config: &Config) -> Result<Self> {
        let hidden = config.hidden_size;
        let attention = vb.pp("attention");
        let projections = ["query", "key", "value"]
            .map(|name| linear(hidden, hidden, attention.pp("self").pp(name)));
        let [query, key, value] = projections;
        let (query, key, value) = (query?, key?, value?);
        let weight = Tensor::cat(&[query.weight(), key.weight(), value.weight()], 0)?;
        let bias = match (query.bias(), key.bias(), value.bias()) {
            (Some(q), Some(k), Some(v)) => Some(Tensor::cat(&[q, k, v], 0)?),
            _ => None,
        };
        Ok(Layer {
            qkv: Linear::new(weight, bias),
            attention_out: linear(hidden, hidden, attention.pp("output").pp("dense"))?,
            attention_norm: layer_norm(
                hidden,
                config.layer_norm_eps,
                attention.pp("output").pp("LayerNorm"),
            )?,
            intermediate: linear(
                hidden,
                config.intermediate_size,
                vb.pp("intermediate").pp("dense"),
            )?,
            output: linear(
                config.intermediate_size,
                hidden,
                vb.pp("output").pp("dense"),
            )?,
            output_norm: layer_norm(
                hidden,
                config.layer_norm_eps,
                vb.pp("output").pp("LayerNorm"),
            )?,
            heads: config.num_attention_heads,
            head_size: hidden / config.num_attention_heads,
            activation: config.hidden_act,
        })
    }

    /// `xs`: (batch, tokens, hidden); `mask`: (batch, 1, 1, tokens), 0 where a token is real and
    /// a large negative number where it is padding.
    fn forward(&self, xs: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let (batch, tokens, hidden) = xs.dims3()?;
        let heads = |t: Tensor| {
            t.reshape((batch, tokens, self.heads, self.head_size))?
                .transpose(1, 2)?
                .contiguous()
        };
        let qkv = self.qkv.forward(xs)?;
        let query = heads(qkv.narrow(D::Minus1, 0, hidden)?)?;
        let key = heads(qkv.narrow(D::Minus1, hidden, hidden)?)?;
        let value = heads(qkv.narrow(D::Minus1, 2 * hidden, hidden)?)?;
        let scores = (query.matmul(&key.t()?)? / (self.head_size as f64).sqrt())?;
        let weights = candle_nn::ops::softmax_last_dim(&scores.broadcast_add(mask)?)?;
        let context = weights
            .matmul(&value)?
            .transpose(1, 2)?
            .contiguous()?
            .reshape((batch, tokens, hidden))?;
        let attended = self
            .attention_norm
            .forward(&(self.attention_out.forward(&context)? + xs)?)?;
        let inner = self
            .activation
            .apply(&self.intermediate.forward(&attended)?)?;
        self.output_norm
            .forward(&(self.output.forward(&inner)? + attended)?)
    }
}

/// The BERT encoder: embeddings, then every layer.
pub(crate) struct Encoder {
    embeddings: Embeddings,
    layers: Vec<Layer>,
}

impl Encoder {
    /// Loads the weights under `vb`, or under `vb`'s `bert.` prefix when the checkpoint has one.
    pub(crate) fn load(vb: VarBuilder, config: &Config) -> Result<Self> {
        let vb = if vb.contains_tensor("bert.embeddings.word_embeddings.weight") {
            vb.pp("bert")
        } else {
            vb
        };
        let layers = (0..config.num_hidden_layers)
            .map(|index| Layer::load(vb.pp("encoder.layer").pp(index), config))
            .collect::<Result<Vec<_>>>()?;
        Ok(Encoder {
            embeddings: Embeddings::load(vb.pp("embeddings"), config)?,
            layers,
        })
    }

    /// Every token's vector, (batch, tokens, hidden), for `ids`, `segments` and the attention
    /// `mask` (1 for a real token, 0 for padding), all (batch, tokens).
    pub(crate) fn forward(&self, ids: &Tensor, segments: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let mut xs = self.embeddings.forward(ids, segments)?;
        // (1 - mask) * min, so padding gets no attention.
        let mask = mask.to_dtype(DType::F32)?.unsqueeze(1)?.unsqueeze(1)?;
        let mask = ((mask.ones_like()? - &mask)? * f64::from(f32::MIN))?;
        for layer in &self.layers {
            xs = layer.forward(&xs, &mask)?;
        }
        Ok(xs)
    }
}
