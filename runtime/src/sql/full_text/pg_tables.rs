//! PostgreSQL's full-text tables (see `full_text/postgres.rs` for how they are used): their
//! names, their DDL, and reading their rows.
//!
//! - `<table>__fts_terms (id, field, term, positions)`: one row per term of a field of a
//!   record, with its positions; its primary key `(term, id, field)` is the inverted index.
//! - `<table>__fts_docs (id, length)`: the number of terms of each record.

use crate::spec::{EntitySpec, FullTextSpec};

use super::full_text_table_name;
use crate::sql::backend::{ExecError, Reader};
use crate::sql::ddl::{ColumnDef, ObjectKind, SchemaObject};
use crate::sql::ident::quote;
use crate::sql::value::SqlValue;

/// Rows of one multi-row insert.
pub(crate) const CHUNK: usize = 500;

/// The postings table of an entity's full-text index.
pub(crate) fn terms_table(entity: &EntitySpec) -> String {
    format!("{}_terms", full_text_table_name(&entity.table))
}

/// The document-lengths table of an entity's full-text index.
pub(crate) fn docs_table(entity: &EntitySpec) -> String {
    format!("{}_docs", full_text_table_name(&entity.table))
}

/// The tables (and the index on `id`) of an entity's full-text index on PostgreSQL.
pub fn pg_full_text_objects(entity: &EntitySpec) -> Vec<SchemaObject> {
    if entity.full_text.is_none() {
        return Vec::new();
    }
    let reference = format!(
        "REFERENCES {}({}) ON DELETE CASCADE ON UPDATE CASCADE",
        quote(&entity.table),
        quote(&entity.unique_field)
    );
    let column = |name: &str, ty: &str| ColumnDef {
        name: name.to_owned(),
        decl_type: ty.to_owned(),
        generated: false,
    };
    let terms = terms_table(entity);
    let docs = docs_table(entity);
    let index = format!("{terms}__id__idx");
    vec![
        SchemaObject {
            kind: ObjectKind::Table,
            sql: format!(
                "CREATE TABLE {} (\n  \"id\" TEXT COLLATE \"C\" NOT NULL {reference},\n  \
                 \"field\" INTEGER NOT NULL,\n  \"term\" TEXT COLLATE \"C\" NOT NULL,\n  \
                 \"positions\" TEXT NOT NULL,\n  PRIMARY KEY (\"term\", \"id\", \"field\")\n)",
                quote(&terms)
            ),
            name: terms.clone(),
            table: terms.clone(),
            columns: vec![
                column("id", "text"),
                column("field", "integer"),
                column("term", "text"),
                column("positions", "text"),
            ],
        },
        SchemaObject {
            kind: ObjectKind::Index,
            sql: format!(
                "CREATE INDEX {} ON {} (\"id\")",
                quote(&index),
                quote(&terms)
            ),
            name: index,
            table: terms,
            columns: Vec::new(),
        },
        SchemaObject {
            kind: ObjectKind::Table,
            sql: format!(
                "CREATE TABLE {} (\n  \"id\" TEXT COLLATE \"C\" PRIMARY KEY {reference},\n  \
                 \"length\" INTEGER NOT NULL\n)",
                quote(&docs)
            ),
            name: docs.clone(),
            table: docs,
            columns: vec![column("id", "text"), column("length", "integer")],
        },
    ]
}

/// `?from, ?from+1, ...`: `count` numbered placeholders.
pub(crate) fn placeholders(from: usize, count: usize) -> String {
    (from..from + count)
        .map(|i| format!("?{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A text column's value (numbers written out).
pub(crate) fn text(value: Option<&SqlValue>) -> Option<String> {
    match value {
        Some(SqlValue::Text(text)) => Some(text.clone()),
        Some(SqlValue::Integer(n)) => Some(n.to_string()),
        Some(SqlValue::Real(n)) => Some(n.to_string()),
        _ => None,
    }
}

/// An integer column's value (0 when absent).
pub(crate) fn integer(value: Option<&SqlValue>) -> i64 {
    match value {
        Some(SqlValue::Integer(n)) => *n,
        Some(SqlValue::Real(n)) => *n as i64,
        Some(SqlValue::Text(t)) => t.parse().unwrap_or(0),
        _ => 0,
    }
}

/// A record's unique id and the text of each indexed field.
pub(crate) type FieldTexts = (String, Vec<Option<String>>);

/// The indexed fields' text of the records `ids` (every record when `None`): unique id, then
/// one text per indexed field.
pub(crate) fn field_texts(
    conn: &dyn Reader,
    entity: &EntitySpec,
    index: &FullTextSpec,
    ids: Option<&[String]>,
) -> Result<Vec<FieldTexts>, ExecError> {
    let columns: Vec<String> = index
        .fields
        .iter()
        .map(|f| format!("CAST({} AS TEXT)", quote(&f.name)))
        .collect();
    let select = format!(
        "SELECT {}, {} FROM {}",
        quote(&entity.unique_field),
        columns.join(", "),
        quote(&entity.table)
    );
    let mut rows = Vec::new();
    let mut read = |sql: &str, params: &[SqlValue]| -> Result<(), ExecError> {
        for row in conn.rows(sql, params)? {
            let id = text(row.first()).unwrap_or_default();
            let texts = (1..=index.fields.len()).map(|i| text(row.get(i))).collect();
            rows.push((id, texts));
        }
        Ok(())
    };
    match ids {
        None => read(&select, &[])?,
        Some(ids) => {
            for chunk in ids.chunks(CHUNK) {
                let sql = format!(
                    "{select} WHERE {} IN ({})",
                    quote(&entity.unique_field),
                    placeholders(1, chunk.len())
                );
                let params: Vec<SqlValue> =
                    chunk.iter().map(|id| SqlValue::Text(id.clone())).collect();
                read(&sql, &params)?;
            }
        }
    }
    Ok(rows)
}
