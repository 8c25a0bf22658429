//! [`EmbedError`]: why texts could not be embedded, whatever the provider.

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
