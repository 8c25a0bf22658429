//! The embedder a config names, made when first needed: a config naming Gemini needs
//! `GEMINI_API_KEY` only when something is actually embedded, and a local model is loaded
//! only once. Imports show their progress on a terminal.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use toolforge::embed::{EmbedError, Embedder};
use toolforge::spec::{EmbeddingSpec, SchemaSpec};

/// The embedder of `spec` (`None` when the config names no provider or has no vector
/// index), with a relative model path read from the config's folder.
pub fn for_spec(spec: &SchemaSpec, config: &Path) -> Option<Arc<dyn Embedder>> {
    let settings = spec.embedding.clone()?;
    if spec.entities.iter().all(|e| e.vector_indexes.is_empty()) {
        return None;
    }
    let base = config
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    Some(Arc::new(Lazy {
        settings,
        base,
        made: OnceLock::new(),
        model_id: OnceLock::new(),
    }))
}

/// An embedder made from its settings on first use.
#[derive(Debug)]
struct Lazy {
    settings: EmbeddingSpec,
    base: PathBuf,
    made: OnceLock<Result<Arc<dyn Embedder>, String>>,
    model_id: OnceLock<String>,
}

impl Lazy {
    fn get(&self) -> Result<&Arc<dyn Embedder>, EmbedError> {
        self.made
            .get_or_init(|| {
                toolforge::embed::from_spec_in(&self.settings, &self.base)
                    .map_err(|error| error.to_string())
            })
            .as_ref()
            .map_err(|message| EmbedError::Settings(message.clone()))
    }
}

impl Embedder for Lazy {
    fn model_id(&self) -> &str {
        self.model_id.get_or_init(|| match self.get() {
            Ok(embedder) => embedder.model_id().to_owned(),
            Err(_) => format!("unavailable:{}", self.settings.provider.name()),
        })
    }

    fn dimension(&self) -> Option<usize> {
        self.get().ok()?.dimension()
    }

    fn batch_size(&self) -> usize {
        self.get().map_or(1, |embedder| embedder.batch_size())
    }

    fn embed(
        &self,
        texts: &[&str],
        deadline: Option<Instant>,
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.get()?.embed(texts, deadline)
    }
}

/// `embedder`, counting the texts it embeds on standard error when that is a terminal.
pub fn with_progress(embedder: Arc<dyn Embedder>) -> Arc<dyn Embedder> {
    if !std::io::stderr().is_terminal() {
        return embedder;
    }
    Arc::new(Progress {
        inner: embedder,
        done: AtomicUsize::new(0),
    })
}

/// An embedder that reports how many texts it has embedded.
#[derive(Debug)]
struct Progress {
    inner: Arc<dyn Embedder>,
    done: AtomicUsize,
}

impl Embedder for Progress {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }

    fn dimension(&self) -> Option<usize> {
        self.inner.dimension()
    }

    fn batch_size(&self) -> usize {
        self.inner.batch_size()
    }

    fn embed(
        &self,
        texts: &[&str],
        deadline: Option<Instant>,
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        let vectors = self.inner.embed(texts, deadline)?;
        let done = self.done.fetch_add(texts.len(), Ordering::Relaxed) + texts.len();
        let _ = write!(std::io::stderr(), "\rembedding: {done} texts");
        Ok(vectors)
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if self.done.load(Ordering::Relaxed) > 0 {
            let _ = writeln!(std::io::stderr());
        }
    }
}
