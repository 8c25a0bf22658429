//! Full-text search over an entity's `full_text_index`: BM25 ranking with per-field weights,
//! phrase and prefix queries, snippets with the matched terms marked.
//!
//! | file | job |
//! |---|---|
//! | `sqlite_ddl.rs` | the FTS5 table (external content, `porter unicode61`) and the triggers that keep it in sync with the entity's table on every insert, update and delete |
//! | `query.rs` | the model's text read as words and `"quoted phrases"`, always quoted into FTS5's query syntax (no operator, column filter or `NEAR` of the input ever reaches the engine) |
//! | `unicode61.rs`, `porter.rs`, `fts5_tables.rs` | FTS5's tokenizer and stemmer ported from SQLite's source, over its own Unicode tables, for backends without FTS5 (`analyzer.rs`: the terms of a text) |
//! | `snippet.rs` | FTS5's `snippet()` ported: the same window, marks and ellipses |
//! | `tokens.rs` (tests) | SQLite's own FTS5 tokenizer on an in-memory database: the oracle the ports are checked against |
//! | `postgres.rs` | PostgreSQL: postings tables written with those terms, BM25 computed as FTS5 computes it, the ported snippets |
//! | `rank.rs` | the ranked matches of an entity (unique id, display name, score, snippet) and their count |
//!
//! On SQLite the index is an FTS5 table whose content is the entity's own table
//! (`content='<table>'`, `content_rowid='rowid'`): it stores only the postings. Triggers on the
//! entity's table write the postings in the same statement as the row, so every write path
//! (imports, the records API, deletes, a user's own SQL) keeps it in sync; rows are updated
//! with `INSERT ... ON CONFLICT DO UPDATE`, never `INSERT OR REPLACE` (whose implicit delete
//! fires no trigger and would leave the old row's postings behind).

#[cfg(feature = "engine")]
pub(crate) mod analyzer;
#[cfg(feature = "engine")]
mod fts5_tables;
#[cfg(feature = "engine")]
pub(crate) mod pg_tables;
#[cfg(feature = "engine")]
pub(crate) mod porter;
#[cfg(feature = "engine")]
pub(crate) mod postgres;
mod query;
#[cfg(feature = "engine")]
mod rank;
#[cfg(feature = "engine")]
pub(crate) mod ranking;
#[cfg(feature = "engine")]
pub(crate) mod snippet;
pub(crate) mod sqlite_ddl;
#[cfg(all(test, feature = "sqlite"))]
mod tokens;
#[cfg(feature = "engine")]
pub(crate) mod unicode61;

#[cfg(feature = "engine")]
pub use pg_tables::pg_full_text_objects;
pub use query::{FullTextQuery, QueryError, QueryItem};
#[cfg(feature = "engine")]
pub(crate) use rank::search;
#[cfg(feature = "engine")]
pub(crate) use ranking::Ranking;
pub use sqlite_ddl::{RESERVED_COLUMNS, full_text_objects, full_text_table_name};
