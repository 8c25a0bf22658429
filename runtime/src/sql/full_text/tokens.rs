//! Text cut into terms exactly as the SQLite index cuts it: by SQLite's own FTS5 tokenizer
//! (`porter unicode61` or `unicode61`), run on a private in-memory database. Backends without
//! FTS5 (PostgreSQL) index and search with these terms, so that they find and rank what SQLite
//! finds and ranks.

use rusqlite::Connection;

use crate::spec::Analyzer;

use super::sqlite_ddl::tokenizer;

/// A tokenizer: an in-memory FTS5 table and its `instance` vocabulary.
pub(crate) struct Tokenizer {
    conn: Connection,
}

impl Tokenizer {
    /// A tokenizer for `analyzer`.
    pub(crate) fn new(analyzer: Analyzer) -> rusqlite::Result<Tokenizer> {
        let conn = Connection::open_in_memory()?;
        conn.execute_batch(&format!(
            "CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{}'); \
             CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, 't', 'instance');",
            tokenizer(analyzer)
        ))?;
        Ok(Tokenizer { conn })
    }

    /// The terms of `text`, in order (a term's index in the list is its position).
    pub(crate) fn terms(&self, text: &str) -> rusqlite::Result<Vec<String>> {
        self.conn.execute("DELETE FROM t", [])?;
        self.conn
            .execute("INSERT INTO t(rowid, x) VALUES (1, ?1)", [text])?;
        let mut statement = self
            .conn
            .prepare_cached("SELECT term, \"offset\" FROM temp.v ORDER BY \"offset\"")?;
        let rows = statement.query_map([], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?))
        })?;
        let mut terms: Vec<(String, i64)> = rows.collect::<Result<_, _>>()?;
        terms.sort_by_key(|t| t.1);
        Ok(terms.into_iter().map(|t| t.0).collect())
    }

    /// The connection, for snippets cut by FTS5 itself over a few rows.
    pub(crate) fn connection(&self) -> &Connection {
        &self.conn
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_stemmed_and_folded_as_fts5_does() {
        let tokenizer = Tokenizer::new(Analyzer::Porter).unwrap();
        assert_eq!(
            tokenizer.terms("Running in the Café, foo-bar!").unwrap(),
            ["run", "in", "the", "cafe", "foo", "bar"]
        );
        let plain = Tokenizer::new(Analyzer::Unicode61).unwrap();
        assert_eq!(plain.terms("Running runs").unwrap(), ["running", "runs"]);
        assert!(plain.terms("*** --").unwrap().is_empty());
    }
}
