//! An embedder for tests over known vectors: a query text names one of the stored vectors by
//! its row ("row 17") and gets that vector, so the expected answer is known without a model.

use std::time::Instant;

use toolforge::embed::{EmbedError, Embedder};

/// Embeds "row N" as the `N`th of its vectors (all of one length).
#[derive(Debug)]
pub struct RowEmbedder(pub Vec<Vec<f32>>);

impl Embedder for RowEmbedder {
    fn model_id(&self) -> &str {
        "rows"
    }

    fn dimension(&self) -> Option<usize> {
        self.0.first().map(Vec::len)
    }

    fn batch_size(&self) -> usize {
        16
    }

    fn embed(
        &self,
        texts: &[&str],
        _deadline: Option<Instant>,
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        texts
            .iter()
            .map(|text| {
                text.strip_prefix("row ")
                    .and_then(|row| row.parse::<usize>().ok())
                    .and_then(|row| self.0.get(row).cloned())
                    .ok_or_else(|| EmbedError::Model {
                        message: format!("not a row: {text}"),
                    })
            })
            .collect()
    }
}
