//! Entities and relationships over an existing database's own tables (a config's `table:`,
//! `column:`, `foreign_key:` and `join_table:`), as SQL text.
//!
//! Every statement the engine writes reads an entity's table and a relationship's edge
//! table by the names of the spec, with the spec's field names as columns, and edge tables
//! with `source_id` / `target_id`. A mapped entity or relationship is presented in exactly
//! those terms by a temporary view on each read connection (created with the row rules'
//! views, `access.rs`), so every tool, computed field and declared tool runs over the user's
//! tables unchanged, and nothing is created in the user's database:
//!
//! - an entity: `SELECT <column> AS <field>, ... FROM <schema>.<table>`, each column as the
//!   engine reads its field's type (a datetime as UTC ISO-8601 text; on PostgreSQL text and
//!   enum columns as `text`, arrays as `jsonb`);
//! - a foreign key: `SELECT <source key> AS source_id, <column> AS target_id FROM <source
//!   table> WHERE <column> IS NOT NULL`;
//! - a join table: `SELECT <source column> AS source_id, <target column> AS target_id,
//!   <properties> FROM <join table>`.
//!
//! Both planners inline such views, so a lookup by key or a condition on a plain column still
//! uses the table's own indexes.

use crate::spec::{EdgeMapping, EntitySpec, FieldType, RelationshipSpec, TableRef};

use super::backend::SqlDialect;
use crate::sql::text::ident::quote;

/// `table` as the SQL of `dialect` names it: in its schema, or in `base` (SQLite's `main`,
/// PostgreSQL's current schema, already quoted).
fn table_sql(table: &TableRef, base: &str) -> String {
    match &table.schema {
        Some(schema) => format!("{}.{}", quote(schema), quote(&table.name)),
        None => format!("{base}.{}", quote(&table.name)),
    }
}

/// The column `column` of the row alias `alias`, as the engine reads a value of type `ty`.
fn read_as(dialect: SqlDialect, alias: &str, column: &str, ty: FieldType) -> String {
    let column = format!("{}.{}", quote(alias), quote(column));
    match (dialect, ty) {
        (SqlDialect::Sqlite, FieldType::Datetime) => {
            format!("strftime('%Y-%m-%dT%H:%M:%SZ', {column})")
        }
        (SqlDialect::Postgres, FieldType::Datetime) => {
            format!("to_char({column}, 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')")
        }
        (SqlDialect::Postgres, FieldType::String | FieldType::Enum) => {
            format!("CAST({column} AS TEXT)")
        }
        (SqlDialect::Postgres, FieldType::StringArray | FieldType::NumberArray) => {
            format!("to_jsonb({column})")
        }
        _ => column,
    }
}

/// The key column of `entity` under `alias`, as every view reads it (so an entity's key and
/// the edges' ends compare as the same type).
fn key_as(dialect: SqlDialect, entity: &EntitySpec, alias: &str, column: &str) -> String {
    read_as(dialect, alias, column, entity.key_type())
}

/// The side store's table of a mapped entity's vectors (see `side_store.rs`), which its view
/// joins.
pub(crate) fn vectors_table(entity: &EntitySpec) -> String {
    format!("{}__vectors", entity.table)
}

/// The query presenting the mapped `entity` in the spec's terms, or `None` for an entity whose
/// table toolforge created. `base` is the quoted schema of tables named without one; `side`,
/// the quoted schema of the side store, whose vectors of the entity the query joins in (as
/// the columns toolforge's own table would have), or `None` for the user's columns alone.
pub(crate) fn entity_query(
    entity: &EntitySpec,
    dialect: SqlDialect,
    base: &str,
    side: Option<&str>,
) -> Option<String> {
    let table = entity.source.as_ref()?;
    let key = key_as(dialect, entity, "n", entity.key_column());
    let mut columns: Vec<String> = entity
        .fields
        .iter()
        .map(|field| {
            let value = if field.name == entity.unique_field {
                key.clone()
            } else {
                read_as(dialect, "n", field.column_name(), field.ty)
            };
            format!("{value} AS {}", quote(&field.name))
        })
        .collect();
    let mut from = format!("{} AS \"n\"", table_sql(table, base));
    if let Some(side) = side {
        // Vectors of the user's own column are read as they are (with no text hash); the
        // others are the side store's.
        for index in &entity.vector_indexes {
            let hash = quote(&index.hash_column());
            match &index.existing_column {
                Some(existing) => {
                    columns.push(format!(
                        "\"n\".{} AS {}",
                        quote(existing),
                        quote(&index.column)
                    ));
                    columns.push(format!("CAST(NULL AS TEXT) AS {hash}"));
                }
                None => {
                    columns.push(format!("\"v\".{0} AS {0}", quote(&index.column)));
                    columns.push(format!("\"v\".{hash} AS {hash}"));
                }
            }
        }
        if entity.has_side_vectors() {
            from.push_str(&format!(
                " LEFT JOIN {side}.{} AS \"v\" ON \"v\".{} = {key}",
                quote(&vectors_table(entity)),
                quote(&entity.unique_field)
            ));
        }
    }
    Some(format!("SELECT {} FROM {from}", columns.join(", ")))
}

/// The query presenting the mapped relationship `edge` as an edge table (`source_id`,
/// `target_id`, its properties), or `None` for an edge table toolforge created.
pub(crate) fn edge_query(
    edge: &RelationshipSpec,
    source: &EntitySpec,
    target: &EntitySpec,
    dialect: SqlDialect,
    base: &str,
) -> Option<String> {
    match edge.mapping.as_ref()? {
        EdgeMapping::ForeignKey { column } => {
            let table = source.source.as_ref()?;
            Some(format!(
                "SELECT {} AS \"source_id\", {} AS \"target_id\" FROM {} AS \"e\" WHERE {} IS NOT NULL",
                key_as(dialect, source, "e", source.key_column()),
                key_as(dialect, target, "e", column),
                table_sql(table, base),
                format_args!("\"e\".{}", quote(column)),
            ))
        }
        EdgeMapping::JoinTable {
            table,
            source_column,
            target_column,
        } => {
            let mut columns = vec![
                format!(
                    "{} AS \"source_id\"",
                    key_as(dialect, source, "e", source_column)
                ),
                format!(
                    "{} AS \"target_id\"",
                    key_as(dialect, target, "e", target_column)
                ),
            ];
            for property in &edge.properties {
                columns.push(format!(
                    "{} AS {}",
                    read_as(dialect, "e", property.column_name(), property.ty),
                    quote(&property.name)
                ));
            }
            Some(format!(
                "SELECT {} FROM {} AS \"e\"",
                columns.join(", "),
                table_sql(table, base)
            ))
        }
    }
}

/// The tables and columns a mapped spec reads, each with what names it in messages: what
/// drift checks probe (`table "Track"`, `column "Track"."Name" (field Track.name)`).
pub(crate) fn probes(spec: &crate::spec::SchemaSpec, base: &str) -> Vec<Probe> {
    let mut probes = Vec::new();
    let mut add = |table: &TableRef, column: Option<&str>, what: String| {
        probes.push(Probe {
            table: table.clone(),
            // Qualified: SQLite reads an unknown double-quoted name alone as a string.
            sql: format!(
                "SELECT {} FROM {} AS \"p\" WHERE 1 = 0",
                column.map_or_else(|| "1".to_owned(), |c| format!("\"p\".{}", quote(c))),
                table_sql(table, base)
            ),
            column: column.map(str::to_owned),
            what,
        });
    };
    for entity in &spec.entities {
        let Some(table) = &entity.source else {
            continue;
        };
        add(table, None, format!("entity {}", entity.name));
        for field in &entity.fields {
            add(
                table,
                Some(field.column_name()),
                format!("field {}.{}", entity.name, field.name),
            );
        }
        for index in &entity.vector_indexes {
            if let Some(column) = &index.existing_column {
                add(
                    table,
                    Some(column),
                    format!("vector index {}.{}", entity.name, index.name),
                );
            }
        }
    }
    for edge in &spec.relationships {
        let what = format!(
            "relationship {} -[{}]-> {}",
            edge.source, edge.rel_type, edge.target
        );
        match &edge.mapping {
            Some(EdgeMapping::ForeignKey { column }) => {
                if let Some(table) = spec.entity(&edge.source).and_then(|e| e.source.as_ref()) {
                    add(table, Some(column), what);
                }
            }
            Some(EdgeMapping::JoinTable {
                table,
                source_column,
                target_column,
            }) => {
                add(table, None, what.clone());
                add(table, Some(source_column), what.clone());
                add(table, Some(target_column), what.clone());
                for property in &edge.properties {
                    add(
                        table,
                        Some(property.column_name()),
                        format!("{what}, property {}", property.name),
                    );
                }
            }
            None => {}
        }
    }
    probes
}

/// One statement that fails when a mapped table or column is gone.
pub(crate) struct Probe {
    /// The table probed.
    pub(crate) table: TableRef,
    /// The column probed, or `None` for the table itself.
    pub(crate) column: Option<String>,
    /// `SELECT "p".<column> FROM <table> AS "p" WHERE 1 = 0`.
    pub(crate) sql: String,
    /// What in the config reads it.
    pub(crate) what: String,
}
