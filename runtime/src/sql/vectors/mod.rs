//! Vector search in the SQL engine, in one place: the vectors of each index held in memory and
//! reloaded when their table changes ([`cache`]), the records nearest a query vector wherever
//! an index's vectors live, in memory or in a pgvector column ([`nearest`]), and the pass that
//! embeds records' text into their index ([`embed_pass`]). The scoring itself is the crate's
//! backend-free [`crate::search`]; pgvector's own SQL is the PostgreSQL backend's
//! (`postgres/pgvector.rs`).

pub(crate) mod cache;
pub(crate) mod embed_pass;
pub(crate) mod nearest;
