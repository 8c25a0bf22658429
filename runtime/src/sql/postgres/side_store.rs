//! The PostgreSQL side store (see `sql/side_store.rs`): a schema of its own holding the
//! postings of mapped entities' full-text indexes, created, filled and refreshed from the
//! user's tables in one write transaction.

use crate::spec::SchemaSpec;
use crate::sql::backend::{BlockingReader, ExecError, SqlDialect};
use crate::sql::full_text::pg_tables::{docs_table, postings_objects, qualified, terms_table};
use crate::sql::side_store::{
    RefreshReport, SidePlaces, changes, pg_base_schema, signature, texts, vectors_columns,
    vectors_create, vectors_gap, vectors_table,
};
use crate::sql::text::ident::quote;
use crate::sql::value::SqlValue;

use super::Session;
use super::postings::{Postings, delete};

/// The quoted schema where `spec` finds tables named without one on `session`.
pub(crate) fn base_schema(
    session: &dyn BlockingReader,
    spec: &SchemaSpec,
) -> Result<String, ExecError> {
    let rows = session.rows(&format!("SELECT {}", pg_base_schema(spec)), &[])?;
    Ok(
        match rows
            .into_iter()
            .next()
            .and_then(|row| row.into_iter().next())
        {
            Some(SqlValue::Text(schema)) => quote(&schema),
            _ => "\"public\"".to_owned(),
        },
    )
}

/// Whether the table `name` of the schema `schema` exists.
fn exists(session: &dyn BlockingReader, schema: &str, name: &str) -> Result<bool, ExecError> {
    Ok(session.count(
        "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = ?1 AND tablename = ?2",
        &[
            SqlValue::Text(schema.to_owned()),
            SqlValue::Text(name.to_owned()),
        ],
    )? > 0)
}

/// Creates what is missing of the side store of `spec` and brings every index up to date
/// with the user's rows (inside the caller's write transaction).
pub(crate) fn refresh(
    session: &Session<'_>,
    spec: &SchemaSpec,
) -> Result<RefreshReport, ExecError> {
    let schema = &spec.tools.side_store.schema;
    let mut report = RefreshReport {
        place: format!("schema {schema}"),
        ..RefreshReport::default()
    };
    let base = base_schema(session, spec)?;
    report.vectors_created = ensure_vectors(session, spec)?;
    for entity in spec.side_entities() {
        let Some(index) = &entity.full_text else {
            continue;
        };
        let docs_name = docs_table(entity);
        let created = !exists(session, schema, &docs_name)?;
        if created {
            for object in postings_objects(entity, Some(schema)) {
                session.batch(&object.sql)?;
            }
        }
        let terms = qualified(Some(schema), &terms_table(entity));
        let docs = qualified(Some(schema), &docs_name);
        let held: Vec<(SqlValue, SqlValue, String)> = session
            .rows(&format!("SELECT \"id\", \"hash\" FROM {docs}"), &[])?
            .into_iter()
            .map(|row| {
                let mut row = row.into_iter();
                let key = row.next().unwrap_or(SqlValue::Null);
                let hash = match row.next() {
                    Some(SqlValue::Text(hash)) => hash,
                    _ => String::new(),
                };
                (key.clone(), key, hash)
            })
            .collect();
        let found = changes(session, entity, index, &base, held)?;
        let stale: Vec<SqlValue> = found
            .removed
            .iter()
            .cloned()
            .chain(found.updated.iter().map(|(key, _)| key.clone()))
            .collect();
        delete(session, &terms, &docs, &stale)?;
        let keys = found.to_index();
        let mut postings = Postings::new(session, index, terms, docs, true)?;
        for (key, values, hash) in texts(session, entity, index, &base, &keys)? {
            postings.add(key, &values, Some(hash))?;
        }
        postings.finish()?;
        // Fresh postings get the planner's statistics now, not at autovacuum's next pass.
        if created || !keys.is_empty() || !stale.is_empty() {
            session.batch(&format!(
                "ANALYZE {terms_table}, {docs_table}",
                terms_table = qualified(Some(schema), &terms_table(entity)),
                docs_table = qualified(Some(schema), &docs_name),
            ))?;
        }
        // What the postings were made for, which `gaps` compares with the config's.
        session.batch(&format!(
            "COMMENT ON TABLE {docs_table} IS '{}'",
            signature(index).replace('\'', "''"),
            docs_table = qualified(Some(schema), &docs_name),
        ))?;
        report.entities.push(found.report(entity, created));
    }
    let side = quote(schema);
    let places = SidePlaces {
        base: &base,
        side: &side,
    };
    report.changes = crate::sql::side_changes::refresh(session, spec, places)?;
    Ok(report)
}

/// Creates the side store's schema when `spec` needs it, the vectors tables of its mapped
/// entities that are missing (again, empty, those made for other vector indexes: each table's
/// comment holds its columns), and the versions table: the entities whose table this created.
pub(crate) fn ensure_vectors(
    session: &Session<'_>,
    spec: &SchemaSpec,
) -> Result<Vec<String>, ExecError> {
    let schema = &spec.tools.side_store.schema;
    if spec.side_entities().next().is_some() {
        session.batch(&format!("CREATE SCHEMA IF NOT EXISTS {}", quote(schema)))?;
    }
    let mut created = Vec::new();
    for entity in spec.entities.iter().filter(|e| e.has_side_vectors()) {
        if vectors_current(session, schema, entity)? == Some(true) {
            continue;
        }
        let columns = vectors_columns(entity, SqlDialect::Postgres);
        let table = qualified(Some(schema), &vectors_table(entity));
        let [create, versions] = vectors_create(entity, SqlDialect::Postgres, &quote(schema));
        session.batch(&format!("DROP TABLE IF EXISTS {table}"))?;
        session.batch(&create)?;
        session.batch(&versions)?;
        session.batch(&format!(
            "COMMENT ON TABLE {table} IS '{}'",
            columns.replace('\'', "''")
        ))?;
        created.push(entity.name.clone());
    }
    Ok(created)
}

/// Whether the side store's schema `schema` holds `entity`'s vectors table as the config
/// defines it (`None`: not at all).
fn vectors_current(
    session: &dyn BlockingReader,
    schema: &str,
    entity: &crate::spec::EntitySpec,
) -> Result<Option<bool>, ExecError> {
    Ok(made_for(session, schema, &vectors_table(entity))?
        .map(|columns| columns == vectors_columns(entity, SqlDialect::Postgres)))
}

/// The comment of the side store's table `name` (what it was made for), `None` when the
/// table is not there.
fn made_for(
    session: &dyn BlockingReader,
    schema: &str,
    name: &str,
) -> Result<Option<String>, ExecError> {
    if !exists(session, schema, name)? {
        return Ok(None);
    }
    let rows = session.rows(
        "SELECT CAST(obj_description(to_regclass(?1), 'pg_class') AS TEXT)",
        &[SqlValue::Text(qualified(Some(schema), name))],
    )?;
    Ok(Some(
        match rows
            .into_iter()
            .next()
            .and_then(|row| row.into_iter().next())
        {
            Some(SqlValue::Text(text)) => text,
            _ => String::new(),
        },
    ))
}

/// What is missing of the side store of `spec`: an entity's index or vectors table.
pub(crate) fn gaps(
    session: &dyn BlockingReader,
    spec: &SchemaSpec,
) -> Result<Vec<String>, ExecError> {
    let schema = &spec.tools.side_store.schema;
    let mut missing = Vec::new();
    let place = format!("the schema \"{schema}\"");
    for entity in spec.entities.iter().filter(|e| e.has_side_vectors()) {
        missing.extend(vectors_gap(
            entity,
            &place,
            vectors_current(session, schema, entity)?,
        ));
    }
    missing.extend(crate::sql::side_changes::gaps(session, spec, &place)?);
    for entity in spec.side_entities() {
        let Some(index) = &entity.full_text else {
            continue;
        };
        let docs = docs_table(entity);
        if !exists(session, schema, &docs)? {
            missing.push(format!(
                "the full-text index of {} (table \"{docs}\" of the schema \"{schema}\")",
                entity.name
            ));
            continue;
        }
        if made_for(session, schema, &docs)?.unwrap_or_default() != signature(index) {
            missing.push(format!(
                "the full-text index of {} in the schema \"{schema}\" was made for other \
                 fields or another analyzer than the config's",
                entity.name
            ));
        }
    }
    Ok(missing)
}
