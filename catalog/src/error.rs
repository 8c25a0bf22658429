//! [`CatalogError`]: why a catalog operation failed, and the helper that wraps SQLite's errors.

use toolforge::embed::EmbedError;

/// Why a catalog operation failed.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// SQLite refused an operation; `context` says which.
    #[error("catalog {context}: {source}")]
    Sqlite {
        /// What the catalog was doing.
        context: String,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// A search request cannot be answered as given.
    #[error("{0}")]
    InvalidRequest(String),
    /// A tool listing could not be read or fetched.
    #[error("{0}")]
    Listing(String),
    /// The embedding model failed.
    #[error(transparent)]
    Embed(#[from] EmbedError),
    /// A plugged-in language model (query expander, re-ranker) could not be asked, or
    /// answered out of form; `message` says how.
    #[error("{provider}: {message}")]
    Llm {
        /// Which model, where (`chat model `M` at URL`).
        provider: String,
        /// What went wrong.
        message: String,
    },
    /// A registry refused the `tool_search` tool (it has a tool of that name already).
    #[error("cannot add tool_search: {0}")]
    Registry(#[from] toolforge::RegistryError),
}

pub(crate) fn sqlite(context: &str) -> impl FnOnce(rusqlite::Error) -> CatalogError + '_ {
    move |source| CatalogError::Sqlite {
        context: context.to_owned(),
        source,
    }
}
