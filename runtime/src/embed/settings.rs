//! From a config's embedding settings ([`EmbeddingSpec`]) to a working [`Embedder`].

use std::path::Path;
use std::sync::Arc;

use super::embedder::Embedder;
use super::error::EmbedError;
use crate::spec::{EmbeddingProvider, EmbeddingSpec};

/// The embedder `spec` describes, with a relative `model_path` read from the working folder.
/// See [`from_spec_in`].
pub fn from_spec(spec: &EmbeddingSpec) -> Result<Arc<dyn Embedder>, EmbedError> {
    from_spec_in(spec, Path::new("."))
}

/// The embedder `spec` describes; a relative `model_path` is read from `base` (the config's
/// folder). API keys are read from the environment variable `api_key_env` names (defaults:
/// `OPENAI_API_KEY`, `GEMINI_API_KEY`).
///
/// ```
/// use toolforge::spec::{EmbeddingProvider, EmbeddingSpec};
/// // A local model needs its folder.
/// let error = toolforge::embed::from_spec(&EmbeddingSpec::new(EmbeddingProvider::Local));
/// assert!(error.is_err());
/// ```
pub fn from_spec_in(spec: &EmbeddingSpec, base: &Path) -> Result<Arc<dyn Embedder>, EmbedError> {
    match spec.provider {
        EmbeddingProvider::Local => local(spec, base),
        EmbeddingProvider::OpenAi
        | EmbeddingProvider::Ollama
        | EmbeddingProvider::OpenAiCompatible
        | EmbeddingProvider::Gemini => http(spec),
    }
}

#[cfg(feature = "embed-local")]
fn local(spec: &EmbeddingSpec, base: &Path) -> Result<Arc<dyn Embedder>, EmbedError> {
    let Some(path) = &spec.model_path else {
        return Err(EmbedError::Settings(
            "embedding provider `local` needs `toolforge.embeddings.model_path`: the folder of a sentence-transformers model (config.json, tokenizer.json, model.safetensors)".to_owned(),
        ));
    };
    let mut model = super::LocalModel::load(base.join(path))?;
    if let Some(batch_size) = spec.batch_size {
        model = model.with_batch_size(batch_size as usize);
    }
    Ok(Arc::new(model))
}

#[cfg(not(feature = "embed-local"))]
fn local(_: &EmbeddingSpec, _: &Path) -> Result<Arc<dyn Embedder>, EmbedError> {
    Err(EmbedError::Settings(
        "embedding provider `local` needs toolforge built with the `embed-local` feature (the `toolforge` command line has it)".to_owned(),
    ))
}

#[cfg(feature = "embed-http")]
fn http(spec: &EmbeddingSpec) -> Result<Arc<dyn Embedder>, EmbedError> {
    let provider = spec.provider;
    let key = |default_env: Option<&str>, required: bool| -> Result<Option<String>, EmbedError> {
        let Some(env) = spec.api_key_env.as_deref().or(default_env) else {
            return Ok(None);
        };
        match std::env::var(env) {
            Ok(key) if !key.trim().is_empty() => Ok(Some(key.trim().to_owned())),
            _ if required => Err(EmbedError::Settings(format!(
                "embedding provider `{}` needs an API key in the environment variable `{env}`; set it, or name another variable with `toolforge.embeddings.api_key_env`",
                provider.name()
            ))),
            _ => Ok(None),
        }
    };
    let batch = spec.batch_size.map(|n| n as usize);
    let embedder: Arc<dyn Embedder> = match provider {
        EmbeddingProvider::Gemini => {
            let url = spec.url.as_deref().unwrap_or(super::Gemini::DEFAULT_URL);
            let model = spec.model.as_deref().unwrap_or("text-embedding-004");
            let key = key(Some("GEMINI_API_KEY"), true)?.unwrap_or_default();
            let mut gemini = super::Gemini::new(url, model, key);
            if let Some(batch) = batch {
                gemini = gemini.with_batch_size(batch);
            }
            Arc::new(gemini)
        }
        _ => {
            let (default_url, default_model, default_env, required) = match provider {
                EmbeddingProvider::OpenAi => (
                    Some("https://api.openai.com/v1"),
                    Some("text-embedding-3-small"),
                    Some("OPENAI_API_KEY"),
                    true,
                ),
                EmbeddingProvider::Ollama => (
                    Some("http://127.0.0.1:11434/v1"),
                    Some("nomic-embed-text"),
                    None,
                    false,
                ),
                _ => (None, None, None, false),
            };
            let Some(url) = spec.url.as_deref().or(default_url) else {
                return Err(EmbedError::Settings(format!(
                    "embedding provider `{}` needs `toolforge.embeddings.url`, the server's base URL (for example http://127.0.0.1:8080/v1)",
                    provider.name()
                )));
            };
            let Some(model) = spec.model.as_deref().or(default_model) else {
                return Err(EmbedError::Settings(format!(
                    "embedding provider `{}` needs a model name: set `embedding.model` or the vector index's `model`",
                    provider.name()
                )));
            };
            let mut client = super::OpenAiCompatible::new(url, model, key(default_env, required)?);
            if let Some(batch) = batch {
                client = client.with_batch_size(batch);
            }
            Arc::new(client)
        }
    };
    Ok(embedder)
}

#[cfg(not(feature = "embed-http"))]
fn http(spec: &EmbeddingSpec) -> Result<Arc<dyn Embedder>, EmbedError> {
    Err(EmbedError::Settings(format!(
        "embedding provider `{}` needs toolforge built with the `embed-http` feature (the `toolforge` command line has it)",
        spec.provider.name()
    )))
}
