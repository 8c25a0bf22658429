//! The SQLite objects of an entity's full-text index: an FTS5 table over the entity's table
//! (external content) and three triggers that keep its postings in sync.

use crate::spec::{Analyzer, EntitySpec};

use crate::sql::ddl::objects::{ObjectKind, SchemaObject, SpecError, literal};
use crate::sql::text::ident::quote;

/// Column names FTS5 keeps for itself: an indexed field may not be named so.
pub const RESERVED_COLUMNS: [&str; 2] = ["rank", "rowid"];

/// The name of an entity's FTS5 table: `<table>__fts`.
///
/// ```
/// assert_eq!(toolforge::sql::full_text::full_text_table_name("doc"), "doc__fts");
/// ```
pub fn full_text_table_name(table: &str) -> String {
    format!("{table}__fts")
}

/// FTS5's `tokenize` option for an analyzer.
pub(crate) fn tokenizer(analyzer: Analyzer) -> &'static str {
    match analyzer {
        Analyzer::Porter => "porter unicode61",
        Analyzer::Unicode61 => "unicode61",
    }
}

/// The FTS5 table and its triggers for `entity` (none without a full-text index): the table
/// (kind [`ObjectKind::FullTextTable`]) first, then the insert, delete and update triggers
/// (kind [`ObjectKind::Trigger`], whose `table` is the FTS5 table they feed).
///
/// ```
/// # use toolforge::spec::*;
/// let entity: EntitySpec = serde_json::from_value(serde_json::json!({
///     "name": "Doc", "table": "doc", "unique_field": "uuid",
///     "fields": [{"name": "uuid", "type": "string", "unique": true},
///                {"name": "title", "type": "string"}],
///     "full_text": {"fields": [{"name": "title", "weight": 2.0}]}})).unwrap();
/// let objects = toolforge::sql::full_text::full_text_objects(&entity).unwrap();
/// assert_eq!(objects[0].sql, "CREATE VIRTUAL TABLE \"doc__fts\" USING fts5(\"title\", \
///     content='doc', content_rowid='rowid', tokenize='porter unicode61')");
/// assert_eq!(objects.len(), 4);
/// ```
pub fn full_text_objects(entity: &EntitySpec) -> Result<Vec<SchemaObject>, SpecError> {
    let Some(index) = &entity.full_text else {
        return Ok(Vec::new());
    };
    let table = full_text_table_name(&entity.table);
    for field in &index.fields {
        let reserved = RESERVED_COLUMNS
            .iter()
            .any(|name| name.eq_ignore_ascii_case(&field.name));
        if reserved || field.name.eq_ignore_ascii_case(&table) {
            return Err(SpecError::ReservedFullTextColumn {
                entity: entity.name.clone(),
                field: field.name.clone(),
            });
        }
    }
    let columns: Vec<String> = index.fields.iter().map(|f| quote(&f.name)).collect();
    let columns = columns.join(", ");
    let values = |row: &str| -> String {
        index
            .fields
            .iter()
            .map(|f| format!("{row}.{}", quote(&f.name)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let fts = quote(&table);
    let content = quote(&entity.table);
    let insert = format!(
        "INSERT INTO {fts}(rowid, {columns}) VALUES (new.rowid, {})",
        values("new")
    );
    let delete = format!(
        "INSERT INTO {fts}({fts}, rowid, {columns}) VALUES ('delete', old.rowid, {})",
        values("old")
    );
    let trigger = |suffix: &str, event: &str, body: String| {
        let name = format!("{table}__{suffix}");
        SchemaObject {
            kind: ObjectKind::Trigger,
            sql: format!(
                "CREATE TRIGGER {} AFTER {event} ON {content} BEGIN {body}; END",
                quote(&name)
            ),
            name,
            table: table.clone(),
            columns: Vec::new(),
        }
    };
    Ok(vec![
        SchemaObject {
            kind: ObjectKind::FullTextTable,
            sql: format!(
                "CREATE VIRTUAL TABLE {fts} USING fts5({columns}, content={}, \
                 content_rowid='rowid', tokenize='{}')",
                literal(&entity.table),
                tokenizer(index.analyzer)
            ),
            name: table.clone(),
            table: table.clone(),
            columns: Vec::new(),
        },
        trigger("insert", "INSERT", insert.clone()),
        trigger("delete", "DELETE", delete.clone()),
        trigger(
            "update",
            &format!("UPDATE OF {columns}"),
            format!("{delete}; {insert}"),
        ),
    ])
}
