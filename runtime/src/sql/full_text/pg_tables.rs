//! PostgreSQL's full-text tables (see `full_text/postgres.rs` for how they are used): their
//! names, their DDL, and reading their rows.
//!
//! - `<table>__fts_terms (id, field, term, positions)`: one row per term of a field of a
//!   record, with its positions; its primary key `(term, id, field)` is the inverted index.
//! - `<table>__fts_docs (id, length)`: the number of terms of each record.
//! - `<table>__fts_totals (documents, tokens)`: one row, the number of records in
//!   `__fts_docs` and the sum of their lengths (BM25's `N` and average length), kept exact by
//!   statement-level triggers on `__fts_docs` for every write to it, cascaded deletes and
//!   `TRUNCATE` included.

use crate::spec::{EntitySpec, FullTextSpec};

use super::full_text_table_name;
use crate::sql::backend::{ExecError, Reader};
use crate::sql::ddl::{ColumnDef, ObjectKind, SchemaObject};
use crate::sql::text::ident::quote;
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

/// The totals table of an entity's full-text index.
pub(crate) fn totals_table(entity: &EntitySpec) -> String {
    format!("{}_totals", full_text_table_name(&entity.table))
}

/// The trigger function keeping the totals table in step with the document-lengths table.
fn totals_function(entity: &EntitySpec) -> String {
    format!("{}__keep", totals_table(entity))
}

/// The triggers on `__fts_docs` calling the totals function: one per kind of write (a trigger
/// with transition tables answers for one event only). Their names are the table's own.
pub(crate) const TOTALS_TRIGGERS: [(&str, &str); 4] = [
    ("fts_totals_insert", "INSERT"),
    ("fts_totals_update", "UPDATE"),
    ("fts_totals_delete", "DELETE"),
    ("fts_totals_truncate", "TRUNCATE"),
];

/// The tables (and the index on `id`) of an entity's full-text index on PostgreSQL, its
/// totals row, and the triggers keeping it.
pub fn pg_full_text_objects(entity: &EntitySpec) -> Vec<SchemaObject> {
    postings_objects(entity, None)
}

/// The full-text objects of `entity`: in the current schema beside the entity's table (`side`
/// `None`), or in the side store's schema `side` for an entity that reads an existing table.
/// There the ids have the key's own type and no foreign key (the user's table gets none), and
/// `__fts_docs` keeps a hash of each record's text, so a refresh rewrites only what changed.
pub(crate) fn postings_objects(entity: &EntitySpec, side: Option<&str>) -> Vec<SchemaObject> {
    if entity.full_text.is_none() {
        return Vec::new();
    }
    let name = |table: &str| qualified(side, table);
    let (id, reference) = match side {
        None => (
            "TEXT COLLATE \"C\"",
            format!(
                " REFERENCES {}({}) ON DELETE CASCADE ON UPDATE CASCADE",
                quote(&entity.table),
                quote(&entity.unique_field)
            ),
        ),
        Some(_) if entity.key_type() == crate::spec::FieldType::Integer => {
            ("BIGINT", String::new())
        }
        Some(_) => ("TEXT", String::new()),
    };
    let column = |name: &str, ty: &str| ColumnDef {
        name: name.to_owned(),
        decl_type: ty.to_owned(),
        generated: false,
    };
    let terms = terms_table(entity);
    let docs = docs_table(entity);
    let index = format!("{terms}__id__idx");
    let hash = if side.is_some() {
        ",\n  \"hash\" TEXT NOT NULL"
    } else {
        ""
    };
    vec![
        SchemaObject {
            kind: ObjectKind::Table,
            sql: format!(
                "CREATE TABLE {} (\n  \"id\" {id} NOT NULL{reference},\n  \
                 \"field\" INTEGER NOT NULL,\n  \"term\" TEXT COLLATE \"C\" NOT NULL,\n  \
                 \"positions\" TEXT NOT NULL,\n  PRIMARY KEY (\"term\", \"id\", \"field\")\n)",
                name(&terms)
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
                name(&terms)
            ),
            name: index,
            table: terms,
            columns: Vec::new(),
        },
        SchemaObject {
            kind: ObjectKind::Table,
            sql: format!(
                "CREATE TABLE {} (\n  \"id\" {id} PRIMARY KEY{reference},\n  \
                 \"length\" INTEGER NOT NULL{hash}\n)",
                name(&docs),
            ),
            name: docs.clone(),
            table: docs.clone(),
            columns: vec![column("id", "text"), column("length", "integer")],
        },
        totals_object(entity, side),
        totals_triggers(entity, side),
    ]
}

/// `table` in the schema `side` (quoted), or alone.
pub(crate) fn qualified(side: Option<&str>, table: &str) -> String {
    match side {
        Some(schema) => format!("{}.{}", quote(schema), quote(table)),
        None => quote(table),
    }
}

/// The totals table, filled from the document lengths already stored.
fn totals_object(entity: &EntitySpec, side: Option<&str>) -> SchemaObject {
    let totals = totals_table(entity);
    let column = |name: &str| ColumnDef {
        name: name.to_owned(),
        decl_type: "bigint".to_owned(),
        generated: false,
    };
    SchemaObject {
        kind: ObjectKind::Table,
        sql: format!(
            "CREATE TABLE {table} (\n  \"documents\" BIGINT NOT NULL,\n  \"tokens\" BIGINT NOT NULL\n);\n\
             INSERT INTO {table} (\"documents\", \"tokens\") \
             SELECT count(*), coalesce(sum(\"length\"), 0) FROM {docs}",
            table = qualified(side, &totals),
            docs = qualified(side, &docs_table(entity))
        ),
        name: totals.clone(),
        table: totals,
        columns: vec![column("documents"), column("tokens")],
    }
}

/// The function and the statement-level triggers that add what a statement wrote to
/// `__fts_docs` to the totals row, and take away what it removed.
fn totals_triggers(entity: &EntitySpec, side: Option<&str>) -> SchemaObject {
    let totals = qualified(side, &totals_table(entity));
    let docs = docs_table(entity);
    let function = totals_function(entity);
    let sum = |rows: &str| format!("(SELECT coalesce(sum(\"length\"), 0) FROM {rows})");
    let count = |rows: &str| format!("(SELECT count(*) FROM {rows})");
    let mut sql = format!(
        "CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$\n\
         BEGIN\n\
         \x20 IF TG_OP = 'INSERT' THEN\n\
         \x20   UPDATE {totals} SET \"documents\" = \"documents\" + {new_count}, \"tokens\" = \"tokens\" + {new_sum};\n\
         \x20 ELSIF TG_OP = 'DELETE' THEN\n\
         \x20   UPDATE {totals} SET \"documents\" = \"documents\" - {old_count}, \"tokens\" = \"tokens\" - {old_sum};\n\
         \x20 ELSIF TG_OP = 'UPDATE' THEN\n\
         \x20   UPDATE {totals} SET \"documents\" = \"documents\" + {new_count} - {old_count}, \"tokens\" = \"tokens\" + {new_sum} - {old_sum};\n\
         \x20 ELSE\n\
         \x20   UPDATE {totals} SET \"documents\" = 0, \"tokens\" = 0;\n\
         \x20 END IF;\n\
         \x20 RETURN NULL;\n\
         END\n\
         $$",
        name = qualified(side, &function),
        new_count = count("\"new_rows\""),
        new_sum = sum("\"new_rows\""),
        old_count = count("\"old_rows\""),
        old_sum = sum("\"old_rows\""),
    );
    for (trigger, event) in TOTALS_TRIGGERS {
        let transitions = match event {
            "INSERT" => "REFERENCING NEW TABLE AS \"new_rows\" ",
            "UPDATE" => "REFERENCING OLD TABLE AS \"old_rows\" NEW TABLE AS \"new_rows\" ",
            "DELETE" => "REFERENCING OLD TABLE AS \"old_rows\" ",
            _ => "",
        };
        sql.push_str(&format!(
            ";\nDROP TRIGGER IF EXISTS {trigger} ON {docs};\n\
             CREATE TRIGGER {trigger} AFTER {event} ON {docs} {transitions}\
             FOR EACH STATEMENT EXECUTE FUNCTION {function}()",
            trigger = quote(trigger),
            docs = qualified(side, &docs),
            function = qualified(side, &function),
        ));
    }
    SchemaObject {
        kind: ObjectKind::Trigger,
        sql,
        name: function,
        table: docs,
        columns: Vec::new(),
    }
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
pub(crate) async fn field_texts(
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
    let mut read = async |sql: &str, params: &[SqlValue]| -> Result<(), ExecError> {
        for row in conn.rows(sql, params).await? {
            let id = text(row.first()).unwrap_or_default();
            let texts = (1..=index.fields.len()).map(|i| text(row.get(i))).collect();
            rows.push((id, texts));
        }
        Ok(())
    };
    match ids {
        None => read(&select, &[]).await?,
        Some(ids) => {
            for chunk in ids.chunks(CHUNK) {
                let sql = format!(
                    "{select} WHERE {} IN ({})",
                    quote(&entity.unique_field),
                    placeholders(1, chunk.len())
                );
                let params: Vec<SqlValue> = chunk
                    .iter()
                    .map(|id| crate::sql::key::param(entity, id))
                    .collect();
                read(&sql, &params).await?;
            }
        }
    }
    Ok(rows)
}
