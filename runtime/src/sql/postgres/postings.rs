//! PostgreSQL's full-text postings kept in step with the rows: the terms of each indexed field,
//! cut as SQLite's FTS5 tokenizer cuts them (`full_text::analyzer`), rewritten for the records an import or `init` wrote.

use std::collections::BTreeMap;

use crate::spec::Analyzer;
use crate::spec::{EntitySpec, FullTextSpec};
use crate::sql::backend::ExecError;
use crate::sql::full_text::analyzer::terms;
use crate::sql::full_text::pg_tables::{CHUNK, docs_table, field_texts, placeholders, terms_table};
use crate::sql::postgres::Session;
use crate::sql::text::ident::quote;
use crate::sql::value::SqlValue;

/// Rewrites the postings of the records `ids` of `entity` (of every record when `None`) from
/// their stored text: what an import or `init` does after writing rows.
pub(crate) fn reindex(
    session: &Session<'_>,
    entity: &EntitySpec,
    ids: Option<&[String]>,
) -> Result<(), ExecError> {
    let Some(index) = &entity.full_text else {
        return Ok(());
    };
    let terms = quote(&terms_table(entity));
    let docs = quote(&docs_table(entity));
    match ids {
        None => session.batch(&format!("DELETE FROM {terms}; DELETE FROM {docs}"))?,
        Some(ids) => {
            let ids: Vec<SqlValue> = ids.iter().map(|id| SqlValue::Text(id.clone())).collect();
            delete(session, &terms, &docs, &ids)?;
        }
    }
    let mut postings = Postings::new(session, index, terms, docs, false)?;
    // The session's connection is taken and driven by the driver: its answer needs no runtime.
    let texts = pollster::block_on(field_texts(session, entity, index, ids))?;
    for (id, texts) in texts {
        postings.add(SqlValue::Text(id), &texts, None)?;
    }
    postings.finish()
}

/// Deletes the postings and lengths of the records `ids` from the tables `terms` and `docs`
/// (quoted, qualified where they need to be).
pub(crate) fn delete(
    conn: &Session<'_>,
    terms: &str,
    docs: &str,
    ids: &[SqlValue],
) -> Result<(), ExecError> {
    for chunk in ids.chunks(CHUNK) {
        let list = placeholders(1, chunk.len());
        for table in [terms, docs] {
            conn.execute(
                &format!("DELETE FROM {table} WHERE \"id\" IN ({list})"),
                chunk.to_vec(),
                false,
            )?;
        }
    }
    Ok(())
}

/// Postings being written: records' terms and lengths, inserted in chunks of [`CHUNK`] rows
/// (statements of varying length, so none is kept prepared).
pub(crate) struct Postings<'a, 's> {
    conn: &'a Session<'s>,
    analyzer: Analyzer,
    terms: String,
    docs: String,
    /// Whether `docs` has a `hash` column (the side store's).
    hashed: bool,
    postings: Vec<SqlValue>,
    lengths: Vec<SqlValue>,
}

impl<'a, 's> Postings<'a, 's> {
    /// Postings of `index` into the tables `terms` and `docs` (quoted, qualified where they
    /// need to be); `hashed` when `docs` keeps each record's text hash.
    pub(crate) fn new(
        conn: &'a Session<'s>,
        index: &FullTextSpec,
        terms: String,
        docs: String,
        hashed: bool,
    ) -> Result<Self, ExecError> {
        Ok(Postings {
            conn,
            analyzer: index.analyzer,
            terms,
            docs,
            hashed,
            postings: Vec::new(),
            lengths: Vec::new(),
        })
    }

    /// Adds the record `id` with the text of each indexed field (and its hash, for a hashed
    /// `docs` table).
    pub(crate) fn add(
        &mut self,
        id: SqlValue,
        texts: &[Option<String>],
        hash: Option<String>,
    ) -> Result<(), ExecError> {
        let mut length = 0i64;
        for (field, text) in texts.iter().enumerate() {
            let Some(text) = text else { continue };
            let mut positions: BTreeMap<String, Vec<String>> = BTreeMap::new();
            for (position, term) in terms(self.analyzer, text).into_iter().enumerate() {
                length += 1;
                positions
                    .entry(term)
                    .or_default()
                    .push(position.to_string());
            }
            for (term, at) in positions {
                self.postings.extend([
                    id.clone(),
                    SqlValue::Integer(field as i64),
                    SqlValue::Text(term),
                    SqlValue::Text(at.join(" ")),
                ]);
                if self.postings.len() >= CHUNK * 4 {
                    self.flush_postings()?;
                }
            }
        }
        self.lengths.extend([id, SqlValue::Integer(length)]);
        if self.hashed {
            self.lengths
                .push(hash.map_or(SqlValue::Text(String::new()), SqlValue::Text));
        }
        if self.lengths.len() >= CHUNK * self.length_width() {
            self.flush_lengths()?;
        }
        Ok(())
    }

    /// Writes what is left.
    pub(crate) fn finish(mut self) -> Result<(), ExecError> {
        self.flush_postings()?;
        self.flush_lengths()
    }

    fn length_width(&self) -> usize {
        if self.hashed { 3 } else { 2 }
    }

    fn flush_postings(&mut self) -> Result<(), ExecError> {
        if self.postings.is_empty() {
            return Ok(());
        }
        let rows: Vec<String> = (0..self.postings.len() / 4)
            .map(|r| format!("({})", placeholders(r * 4 + 1, 4)))
            .collect();
        self.conn.execute(
            &format!(
                "INSERT INTO {} (\"id\", \"field\", \"term\", \"positions\") VALUES {}",
                self.terms,
                rows.join(", ")
            ),
            std::mem::take(&mut self.postings),
            false,
        )?;
        Ok(())
    }

    fn flush_lengths(&mut self) -> Result<(), ExecError> {
        if self.lengths.is_empty() {
            return Ok(());
        }
        let width = self.length_width();
        let rows: Vec<String> = (0..self.lengths.len() / width)
            .map(|r| format!("({})", placeholders(r * width + 1, width)))
            .collect();
        let columns = if self.hashed {
            "\"id\", \"length\", \"hash\""
        } else {
            "\"id\", \"length\""
        };
        self.conn.execute(
            &format!(
                "INSERT INTO {} ({columns}) VALUES {}",
                self.docs,
                rows.join(", ")
            ),
            std::mem::take(&mut self.lengths),
            false,
        )?;
        Ok(())
    }
}
