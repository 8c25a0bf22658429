//! What a full-text search ranks ([`Ranking`]), what it answers ([`Hit`]), and how snippets are
//! marked: shared by the SQLite (FTS5) and PostgreSQL (postings) rankings.

use serde_json::Value;

use crate::spec::{EntitySpec, FullTextSpec};

use super::FullTextQuery;

/// The marks around matched terms in snippets.
pub(crate) const MARK: (&str, &str) = ("**", "**");

/// The mark of text left out of a snippet.
pub(crate) const ELLIPSIS: &str = "…";

/// The most words of a snippet.
pub(crate) const SNIPPET_WORDS: u32 = 24;

/// What to rank: an entity with a full-text index, the parsed query, the fields searched
/// (all indexed fields when empty) and whether words match as prefixes.
pub(crate) struct Ranking<'a> {
    /// The entity searched.
    pub entity: &'a EntitySpec,
    /// Its full-text index.
    pub index: &'a FullTextSpec,
    /// The query.
    pub query: &'a FullTextQuery,
    /// The indexed fields to search (checked by the caller); empty for all of them.
    pub fields: &'a [String],
    /// Whether words match any term they start.
    pub prefix: bool,
}

/// One ranked record.
#[derive(Debug, Clone)]
pub(crate) struct Hit {
    /// The record's unique id.
    pub id: String,
    /// Its display name (`display_name_field`), if the entity has one.
    pub name: Option<Value>,
    /// Its BM25 score (higher is better).
    pub score: f64,
    /// Its snippet, when asked for.
    pub snippet: Option<String>,
}

impl Ranking<'_> {
    /// The FTS5 query text bound to `MATCH`.
    pub(crate) fn match_text(&self) -> String {
        let columns: Vec<&str> = self.fields.iter().map(String::as_str).collect();
        let columns = (!columns.is_empty()).then_some(columns.as_slice());
        self.query.fts5(columns, self.prefix)
    }

    /// The BM25 weight of the index's field `field`: the config's, or 1 where it is not a
    /// positive number (both backends rank with it).
    pub(crate) fn weight(&self, field: usize) -> f64 {
        self.index
            .fields
            .get(field)
            .map(|f| f.weight)
            .filter(|weight| weight.is_finite() && *weight > 0.0)
            .unwrap_or(1.0)
    }

    /// `bm25("<fts>", w1, w2, ...)` in the index's column order.
    pub(crate) fn bm25(&self, fts: &str) -> String {
        let weights: Vec<String> = (0..self.index.fields.len())
            .map(|i| format!("{:?}", self.weight(i)))
            .collect();
        format!("bm25({fts}, {})", weights.join(", "))
    }
}
