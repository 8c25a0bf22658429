//! Row rules (`toolforge.access`) where every read meets a table: the connection itself.
//!
//! Every statement the engine and the compiled computed fields write names an entity's table
//! (and its edge tables and the change log) without a schema. On a read connection used by a
//! spec with rules, each of those names is shadowed by a temporary view of the same name that
//! keeps only the visible rows:
//!
//! - an entity with a rule: its rows meeting the rule;
//! - an edge table touching such an entity: its edges whose both ends are visible;
//! - the change log: the changes of visible records (and of entities without a rule).
//!
//! Temporary objects come first in name resolution on both backends (SQLite's `temp` schema,
//! PostgreSQL's `pg_temp`), so query, lookup, relationships, search, ranges, patterns,
//! aggregates, graph walks, change history, declared tools and computed fields that read other
//! tables all see the same filtered rows, without one line of theirs knowing about rules.
//!
//! The rule reads the call's context values (never written into SQL): on SQLite through the
//! connection's `toolforge_context(name)` function, which answers the values of the call
//! holding the connection; on PostgreSQL through session settings `toolforge.ctx_<name>` set
//! with bound parameters at the start of each call (all of them, so no value survives from an
//! earlier call). A missing (or empty) value makes every rule reading it false: the call sees
//! no record of the entity. The views are created once per connection (and again when the
//! rules change), named with a marker view `toolforge_access_<hash>`.

use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use crate::spec::{CHANGES_TABLE, SchemaSpec};

use super::backend::{ExecError, Reader, SqlDialect};
use super::ddl::VERSIONS_TABLE;
use super::side_store;
use super::value::SqlValue;
use crate::sql::text::ident::quote;

/// The statements creating the views of `spec`'s rules over the base tables in `base` (a
/// quoted schema name), the marker view included (created last).
pub(crate) fn view_statements(spec: &SchemaSpec, dialect: SqlDialect, base: &str) -> Vec<String> {
    let mut statements = rule_views(spec, dialect, base);
    let create = match dialect {
        SqlDialect::Sqlite => "CREATE TEMP VIEW",
        SqlDialect::Postgres => "CREATE TEMPORARY VIEW",
    };
    statements.push(format!(
        "{create} {} AS SELECT 1 AS \"x\"",
        quote(&marker_of(spec, dialect))
    ));
    statements
}

/// The statements creating the views of `spec`'s rules over the base tables in `base`.
fn rule_views(spec: &SchemaSpec, dialect: SqlDialect, base: &str) -> Vec<String> {
    let temp = match dialect {
        SqlDialect::Sqlite => "temp",
        SqlDialect::Postgres => "pg_temp",
    };
    let create = match dialect {
        SqlDialect::Sqlite => "CREATE TEMP VIEW",
        SqlDialect::Postgres => "CREATE TEMPORARY VIEW",
    };
    // SQLite's full-text ranking joins the table on its rowid, which a view lacks.
    let rowid = match dialect {
        SqlDialect::Sqlite => "\"n\".rowid AS rowid, ",
        SqlDialect::Postgres => "",
    };
    // What a view reads: the base table, or for a mapped entity the query presenting the
    // user's table in the spec's terms (which has no rowid: its full-text index in the side
    // store is joined on its key).
    let side = super::side_store::side_schema(spec, dialect);
    let entity_source = |entity: &crate::spec::EntitySpec| match super::mapping::entity_query(
        entity,
        dialect,
        base,
        Some(&side),
    ) {
        Some(query) => (format!("({query})"), ""),
        None => (format!("{base}.{}", quote(&entity.table)), rowid),
    };
    let mut statements = Vec::new();
    for rule in &spec.access {
        let Some(entity) = spec.entity(&rule.entity) else {
            continue;
        };
        let (source, rowid) = entity_source(entity);
        statements.push(format!(
            "{create} {} AS SELECT {rowid}\"n\".* FROM {source} AS \"n\" WHERE {}",
            quote(&entity.table),
            rule.sql
        ));
    }
    for entity in &spec.entities {
        if spec.access_rule(&entity.name).is_some() {
            continue;
        }
        if let Some(query) = super::mapping::entity_query(entity, dialect, base, Some(&side)) {
            statements.push(format!("{create} {} AS {query}", quote(&entity.table)));
        }
    }
    // A mapped entity's vectors, and the versions searches reload them by, under the names
    // they have beside toolforge's own tables: every call's searches share them, whatever
    // its rules.
    let vectors: Vec<&crate::spec::EntitySpec> = spec
        .entities
        .iter()
        .filter(|e| e.has_side_vectors())
        .collect();
    for table in vectors
        .iter()
        .map(|entity| super::mapping::vectors_table(entity))
        .chain((!vectors.is_empty()).then(|| VERSIONS_TABLE.to_owned()))
    {
        statements.push(format!(
            "{create} {} AS SELECT * FROM {side}.{}",
            quote(&table),
            quote(&table)
        ));
    }
    // PostgreSQL's full-text postings: the documents and terms of visible records only, so
    // hidden records neither match nor weigh in BM25's statistics. Those of a mapped entity
    // are in the side store's schema, seen here under their usual names.
    if dialect == SqlDialect::Postgres {
        use super::full_text::pg_tables::{docs_table, terms_table, totals_table};
        let side = quote(&spec.tools.side_store.schema);
        for entity in spec.entities.iter().filter(|e| e.full_text.is_some()) {
            let ruled = spec.access_rule(&entity.name).is_some();
            let home = if entity.is_mapped() { &side } else { base };
            if !ruled {
                if entity.is_mapped() {
                    for table in [
                        terms_table(entity),
                        docs_table(entity),
                        totals_table(entity),
                    ] {
                        statements.push(format!(
                            "{create} {} AS SELECT * FROM {home}.{}",
                            quote(&table),
                            quote(&table)
                        ));
                    }
                }
                continue;
            }
            for table in [terms_table(entity), docs_table(entity)] {
                statements.push(format!(
                    "{create} {} AS SELECT \"e\".* FROM {home}.{} AS \"e\" WHERE \"e\".\"id\" IN \
                     (SELECT {} FROM {temp}.{})",
                    quote(&table),
                    quote(&table),
                    quote(&entity.unique_field),
                    quote(&entity.table)
                ));
            }
            // BM25's totals, of the visible records (a sum over them on each search).
            statements.push(format!(
                "{create} {} AS SELECT count(*) AS \"documents\", \
                 coalesce(sum(\"length\"), 0) AS \"tokens\" FROM {temp}.{}",
                quote(&totals_table(entity)),
                quote(&docs_table(entity))
            ));
        }
    }
    // The condition that `column` names a record of `entity_name` its rule lets through;
    // `as_text`: the column holds keys as text (the change log), so an integer key is
    // compared as its text.
    let visible = |entity_name: &str, column: &str, as_text: bool| -> Option<String> {
        spec.access_rule(entity_name)?;
        let entity = spec.entity(entity_name)?;
        let key = quote(&entity.unique_field);
        let key = match entity.key_type() {
            crate::spec::FieldType::Integer if as_text => format!("CAST({key} AS TEXT)"),
            _ => key,
        };
        Some(format!(
            "\"e\".{} IN (SELECT {key} FROM {temp}.{})",
            quote(column),
            quote(&entity.table)
        ))
    };
    for edge in &spec.relationships {
        let conditions: Vec<String> = [
            visible(&edge.source, "source_id", false),
            visible(&edge.target, "target_id", false),
        ]
        .into_iter()
        .flatten()
        .collect();
        let mapped = match (spec.entity(&edge.source), spec.entity(&edge.target)) {
            (Some(source), Some(target)) => {
                super::mapping::edge_query(edge, source, target, dialect, base)
            }
            _ => None,
        };
        let source = match (&mapped, conditions.is_empty()) {
            (None, true) => continue,
            (Some(query), true) => {
                statements.push(format!("{create} {} AS {query}", quote(&edge.table)));
                continue;
            }
            (Some(query), false) => format!("({query})"),
            (None, false) => format!("{base}.{}", quote(&edge.table)),
        };
        statements.push(format!(
            "{create} {} AS SELECT \"e\".* FROM {source} AS \"e\" WHERE {}",
            quote(&edge.table),
            conditions.join(" AND ")
        ));
    }
    if spec.change_log.is_some() {
        // A mapped spec's change log is in the side store.
        let home = if spec.is_mapped() {
            side.as_str()
        } else {
            base
        };
        let ruled: Vec<&str> = spec
            .access
            .iter()
            .filter(|rule| spec.entity(&rule.entity).is_some())
            .map(|rule| rule.entity.as_str())
            .collect();
        if !ruled.is_empty() {
            let mut allowed = vec![format!(
                "\"e\".\"entity\" NOT IN ({})",
                ruled
                    .iter()
                    .map(|name| literal(name))
                    .collect::<Vec<_>>()
                    .join(", ")
            )];
            for name in &ruled {
                if let Some(condition) = visible(name, "record_id", true) {
                    allowed.push(format!(
                        "(\"e\".\"entity\" = {} AND {condition})",
                        literal(name)
                    ));
                }
            }
            statements.push(format!(
                "{create} {} AS SELECT \"e\".* FROM {home}.{} AS \"e\" WHERE {}",
                quote(CHANGES_TABLE),
                quote(CHANGES_TABLE),
                allowed.join(" OR ")
            ));
        } else if spec.is_mapped() {
            statements.push(format!(
                "{create} {} AS SELECT * FROM {home}.{}",
                quote(CHANGES_TABLE),
                quote(CHANGES_TABLE)
            ));
        }
    }
    statements
}

/// The name of the marker view of `spec`'s views: a hash of their statements over a
/// placeholder schema, the same on every connection and schema, so a connection that has
/// the views finds the marker and creates nothing.
fn marker_of(spec: &SchemaSpec, dialect: SqlDialect) -> String {
    let mut hasher = std::hash::DefaultHasher::new();
    rule_views(spec, dialect, "\"base\"").hash(&mut hasher);
    format!("toolforge_access_{:016x}", hasher.finish())
}

/// The specs whose markers were computed, with them: the marker hashes every view's
/// statements, which a call need not render again, so each spec's marker is rendered once. Held weakly: a spec dropped (a reload) keeps only its allocation until the
/// next miss prunes it, and that allocation cannot be reused by another spec meanwhile, so a
/// pointer match is always the same spec.
static MARKERS: Mutex<Vec<Marker>> = Mutex::new(Vec::new());

/// A spec (held weakly), a dialect, and the marker of the spec's views in that dialect.
type Marker = (Weak<SchemaSpec>, SqlDialect, Arc<str>);

/// [`marker_of`], rendered once per spec and dialect.
fn cached_marker(spec: &Arc<SchemaSpec>, dialect: SqlDialect) -> Arc<str> {
    let mut markers = MARKERS.lock().unwrap_or_else(PoisonError::into_inner);
    let target = Arc::as_ptr(spec);
    if let Some((_, _, marker)) = markers
        .iter()
        .find(|(seen, seen_dialect, _)| seen.as_ptr() == target && *seen_dialect == dialect)
    {
        return marker.clone();
    }
    markers.retain(|(seen, _, _)| seen.strong_count() > 0);
    let marker: Arc<str> = marker_of(spec, dialect).into();
    markers.push((Arc::downgrade(spec), dialect, marker.clone()));
    marker
}

fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// Every context value name `spec`'s rules read, sorted, without repeats.
pub(crate) fn context_names(spec: &SchemaSpec) -> Vec<&str> {
    let mut names: Vec<&str> = spec
        .access
        .iter()
        .flat_map(|rule| rule.context.iter().map(String::as_str))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// Prepares a read connection for a call of `spec` with the context `values`: the views that
/// apply its row rules (created once per connection, again when the rules change), and on
/// PostgreSQL the values themselves (on SQLite they are the connection's, set by the read that
/// holds it).
pub(crate) async fn enter(
    conn: &dyn Reader,
    spec: &Arc<SchemaSpec>,
    values: &crate::ContextValues,
) -> Result<(), ExecError> {
    if spec.access.is_empty() && !spec.is_mapped() {
        return Ok(());
    }

    match conn.dialect() {
        SqlDialect::Sqlite => {
            let marker = cached_marker(spec, SqlDialect::Sqlite);
            let present = conn
                .count(
                    "SELECT count(*) FROM temp.sqlite_master WHERE name = ?1",
                    &[SqlValue::Text(marker.to_string())],
                )
                .await?;
            if present > 0 {
                return Ok(());
            }
            let old = conn
                .rows(
                    "SELECT name FROM temp.sqlite_master WHERE type = 'view'",
                    &[],
                )
                .await?;
            let mut statements: Vec<String> = old
                .into_iter()
                .filter_map(|row| match row.into_iter().next() {
                    Some(SqlValue::Text(name)) => Some(format!("DROP VIEW temp.{}", quote(&name))),
                    _ => None,
                })
                .collect();
            if spec.side_entities().next().is_some() {
                let databases = conn.rows(side_store::SQLITE_DATABASES, &[]).await?;
                statements.extend(side_store::sqlite_attach(databases, spec)?);
            }
            statements.extend(view_statements(spec, SqlDialect::Sqlite, "main"));
            conn.temporary_objects(&statements).await
        }
        SqlDialect::Postgres => {
            let (sql, params) = postgres_enter(spec, values);
            let rows = conn.rows(&sql, &params).await?;
            let row = rows.into_iter().next().unwrap_or_default();
            if matches!(row.last(), Some(SqlValue::Integer(1))) {
                return Ok(());
            }
            let schema = match row.get(row.len().saturating_sub(2)) {
                Some(SqlValue::Text(schema)) => schema.clone(),
                _ => "public".to_owned(),
            };
            conn.temporary_objects(&postgres_script(spec, &schema))
                .await
        }
    }
}

/// The statement that sets a PostgreSQL session's context values for one call, and checks
/// whether its views are there: its SQL and parameters (the marker last). The answer's
/// columns: one per value, then the current schema, then whether the marker view exists.
fn postgres_enter(
    spec: &Arc<SchemaSpec>,
    values: &crate::ContextValues,
) -> (String, Vec<SqlValue>) {
    let names = context_names(spec);
    let mut columns = Vec::new();
    let mut params = Vec::new();
    for name in &names {
        params.push(SqlValue::Text(
            values.get(name).unwrap_or_default().to_owned(),
        ));
        columns.push(format!(
            "set_config({}, CAST(?{} AS TEXT), false)",
            literal(&format!("toolforge.ctx_{}", name.to_ascii_lowercase())),
            params.len()
        ));
    }
    params.push(SqlValue::Text(
        cached_marker(spec, SqlDialect::Postgres).to_string(),
    ));
    columns.push(super::side_store::pg_base_schema(spec));
    columns.push(format!(
        "EXISTS (SELECT 1 FROM pg_catalog.pg_class WHERE relname = CAST(?{} AS TEXT) \
         AND relnamespace = pg_my_temp_schema())",
        params.len()
    ));
    (format!("SELECT {}", columns.join(", ")), params)
}

/// The statements that (re)create `spec`'s views on a PostgreSQL session whose tables are in
/// `schema`: in their own read-write transaction (the session's default is read-only), after
/// dropping the temporary objects of earlier rules.
fn postgres_script(spec: &SchemaSpec, schema: &str) -> Vec<String> {
    let mut script = vec!["BEGIN READ WRITE".to_owned(), "DISCARD TEMP".to_owned()];
    script.extend(view_statements(spec, SqlDialect::Postgres, &quote(schema)));
    script.push("COMMIT".to_owned());
    script
}

#[cfg(all(test, feature = "sqlite"))]
mod tests {
    use super::*;

    fn spec() -> SchemaSpec {
        serde_json::from_value(serde_json::json!({
            "name": "t",
            "entities": [{
                "name": "Member", "table": "member", "unique_field": "id",
                "fields": [
                    {"name": "id", "type": "string", "unique": true},
                    {"name": "branch", "type": "string"}
                ]
            }],
            "relationships": [],
            "tools": {"default_limit": 20, "max_limit": 500, "families": []},
            "access": [{
                "entity": "Member", "source": "branch = 'b1'", "sql": "\"n\".\"branch\" = 'b1'",
                "postgres_sql": "\"n\".\"branch\" = 'b1'", "context": []
            }]
        }))
        .unwrap()
    }

    #[test]
    fn the_views_are_created_once_per_connection() {
        let conn = std::sync::Mutex::new(rusqlite::Connection::open_in_memory().unwrap());
        conn.lock()
            .unwrap()
            .execute_batch(
                "CREATE TABLE member (id TEXT PRIMARY KEY, branch TEXT);
             INSERT INTO member VALUES ('m1', 'b1'), ('m2', 'b2');",
            )
            .unwrap();
        let temp_version = || -> i64 {
            conn.lock()
                .unwrap()
                .query_row("PRAGMA temp.schema_version", [], |row| row.get(0))
                .unwrap()
        };
        let spec = Arc::new(spec());
        pollster::block_on(enter(&conn, &spec, &crate::ContextValues::new())).unwrap();
        let created = temp_version();
        assert!(created > 0);
        let visible: Vec<String> = conn
            .lock()
            .unwrap()
            .prepare("SELECT id FROM member")
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(visible, ["m1"]);
        for _ in 0..3 {
            pollster::block_on(enter(&conn, &spec, &crate::ContextValues::new())).unwrap();
        }
        // No view dropped and created again: prepared statements stay valid.
        assert_eq!(temp_version(), created);
        // Other rules replace the views.
        let mut other = SchemaSpec::clone(&spec);
        other.access[0].sql = "\"n\".\"branch\" = 'b2'".into();
        let other = Arc::new(other);
        pollster::block_on(enter(&conn, &other, &crate::ContextValues::new())).unwrap();
        assert!(temp_version() > created);
        let visible: String = conn
            .lock()
            .unwrap()
            .query_row("SELECT id FROM member", [], |row| row.get(0))
            .unwrap();
        assert_eq!(visible, "m2");
    }
}
