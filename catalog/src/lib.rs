//! # toolforge-catalog
//!
//! A searchable catalog of LLM tools, for agents that must find the right tool among
//! thousands: an SQLite FTS5 index (`porter unicode61`) of every tool's name, description,
//! capability tags, keywords and parameters (stop words left out), ranked by BM25 with
//! weighted columns (name 2, everything else 1 by default: [`Weights`]).
//!
//! - [`Catalog`]: open a file or memory, [`Catalog::index`] a [`Source`]'s complete listing
//!   (its stale tools are pruned in the same transaction), [`Catalog::sources`],
//!   [`Catalog::search`].
//! - Search modes ([`SearchMode`]): `fast` is BM25 only; `balanced` re-ranks BM25 candidates
//!   by the cosine of query and tool embeddings ([`Catalog::with_embedder`], any
//!   [`toolforge::embed::Embedder`], such as the local MiniLM model); `accurate` expands the
//!   query first ([`QueryExpander`], [`SynonymExpander`] by default) and runs a plugged-in
//!   [`Reranker`] last. With feature `llm-openai`, `ChatQueryExpander` and `ChatReranker`
//!   ask a model behind an OpenAI-compatible chat-completions API; a plugged-in expander or
//!   re-ranker that fails never fails the search: the built-in expander (or no re-ranking)
//!   is used instead and [`SearchMetadata`] says why.
//! - Listings: [`listing`] reads a registry's tools, an MCP `tools/list` result, a JSON array
//!   of definitions or a custom YAML file; `mcp` (feature `mcp-stdio`) lists an MCP server's
//!   tools with rmcp's client.
//! - [`ToolSearch`]: the `tool_search` tool, registrable in any `ToolRegistry`.
//!
//! Capability tags are extracted with Loom's vocabulary ([`extract::CAPABILITIES`]) besides
//! those a tool declares (`#[tool(capabilities = [...])]`).

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod catalog;
#[cfg(feature = "llm-openai")]
mod chat;
mod error;
mod expand;
pub mod extract;
pub mod listing;
#[cfg(any(feature = "mcp-stdio", feature = "mcp-http"))]
pub mod mcp;
mod model;
mod postings;
mod rerank;
mod schema;
mod search;
mod tool_search;
mod weights;
mod words;

pub use catalog::Catalog;
#[cfg(feature = "llm-openai")]
pub use chat::{
    ChatQueryExpander, ChatReranker, ChatSettings, DEFAULT_CHAT_TIMEOUT, DEFAULT_MAX_ANSWER_BYTES,
};
pub use error::CatalogError;
pub use expand::{QueryExpander, SynonymExpander};
pub use model::{CatalogEntry, IndexReport, Source, SourceInfo, SourceKind};
pub use rerank::{RerankCandidate, Reranker};
pub use search::{
    MAX_QUERY_CHARS, MAX_RESULTS, Parameter, SearchMetadata, SearchMode, SearchRequest,
    SearchResponse, SearchResult, Signal, SignalKind,
};
pub use tool_search::{TOOL_SEARCH, ToolSearch, ToolSearchArgs, ToolSearchHit, ToolSearchOutput};
pub use weights::Weights;
