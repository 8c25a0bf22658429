//! The [`Embedder`] trait and what works the same over every embedder: embedding many texts in
//! checked batches, and scaling vectors to unit length.

use std::fmt;
use std::time::Instant;

use super::error::EmbedError;

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
