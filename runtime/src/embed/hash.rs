//! The content hash stored next to each embedding: unchanged text under the same model is
//! never embedded twice.

use sha2::{Digest, Sha256};

/// The hash of `text` as embedded by `model_id`: 32 hex digits of SHA-256 over the model's
/// identity and the text.
///
/// ```
/// use toolforge::embed::content_hash;
/// assert_eq!(content_hash("local:m", "hello"), content_hash("local:m", "hello"));
/// assert_ne!(content_hash("local:m", "hello"), content_hash("local:other", "hello"));
/// assert_eq!(content_hash("local:m", "hello").len(), 32);
/// ```
pub fn content_hash(model_id: &str, text: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update((model_id.len() as u64).to_le_bytes());
    hasher.update(model_id.as_bytes());
    hasher.update(text.as_bytes());
    let digest = hasher.finalize();
    digest[..16]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}
