//! PostgreSQL's full-text postings kept in step with the rows: the terms of each indexed field,
//! cut by SQLite's own FTS5 tokenizer, rewritten for the records an import or `init` wrote.

use std::collections::BTreeMap;

use crate::spec::EntitySpec;
use crate::sql::backend::ExecError;
use crate::sql::full_text::pg_tables::{CHUNK, docs_table, field_texts, placeholders, terms_table};
use crate::sql::full_text::tokens::Tokenizer;
use crate::sql::ident::quote;
use crate::sql::postgres::Session;
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
            for chunk in ids.chunks(CHUNK) {
                let params: Vec<SqlValue> =
                    chunk.iter().map(|id| SqlValue::Text(id.clone())).collect();
                let list = placeholders(1, chunk.len());
                for table in [&terms, &docs] {
                    session.execute(
                        &format!("DELETE FROM {table} WHERE \"id\" IN ({list})"),
                        params.clone(),
                        false,
                    )?;
                }
            }
        }
    }
    let tokenizer = Tokenizer::new(index.analyzer)?;
    let mut postings: Vec<SqlValue> = Vec::new();
    let mut lengths: Vec<SqlValue> = Vec::new();
    let flush_postings = |values: &mut Vec<SqlValue>| -> Result<(), ExecError> {
        if values.is_empty() {
            return Ok(());
        }
        let rows: Vec<String> = (0..values.len() / 4)
            .map(|r| format!("({})", placeholders(r * 4 + 1, 4)))
            .collect();
        session.execute(
            &format!(
                "INSERT INTO {terms} (\"id\", \"field\", \"term\", \"positions\") VALUES {}",
                rows.join(", ")
            ),
            std::mem::take(values),
            false,
        )?;
        Ok(())
    };
    let flush_lengths = |values: &mut Vec<SqlValue>| -> Result<(), ExecError> {
        if values.is_empty() {
            return Ok(());
        }
        let rows: Vec<String> = (0..values.len() / 2)
            .map(|r| format!("({})", placeholders(r * 2 + 1, 2)))
            .collect();
        session.execute(
            &format!(
                "INSERT INTO {docs} (\"id\", \"length\") VALUES {}",
                rows.join(", ")
            ),
            std::mem::take(values),
            false,
        )?;
        Ok(())
    };
    for (id, texts) in field_texts(session, entity, index, ids)? {
        let mut length = 0i64;
        for (field, text) in texts.iter().enumerate() {
            let Some(text) = text else { continue };
            let mut positions: BTreeMap<String, Vec<String>> = BTreeMap::new();
            for (position, term) in tokenizer.terms(text)?.into_iter().enumerate() {
                length += 1;
                positions
                    .entry(term)
                    .or_default()
                    .push(position.to_string());
            }
            for (term, at) in positions {
                postings.extend([
                    SqlValue::Text(id.clone()),
                    SqlValue::Integer(field as i64),
                    SqlValue::Text(term),
                    SqlValue::Text(at.join(" ")),
                ]);
                if postings.len() >= CHUNK * 4 {
                    flush_postings(&mut postings)?;
                }
            }
        }
        lengths.extend([SqlValue::Text(id), SqlValue::Integer(length)]);
        if lengths.len() >= CHUNK * 2 {
            flush_lengths(&mut lengths)?;
        }
    }
    flush_postings(&mut postings)?;
    flush_lengths(&mut lengths)?;
    Ok(())
}
