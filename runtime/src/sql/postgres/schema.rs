//! The tables a spec needs on PostgreSQL, and how a database differs from them.
//!
//! The same tables, columns and indexes as on SQLite ([`ddl`](super::super::ddl)), in
//! PostgreSQL's types: text fields are `TEXT COLLATE "C"` (so order and comparison are by code
//! point, as SQLite's `BINARY`), numbers `DOUBLE PRECISION`, booleans `BOOLEAN`, arrays and
//! points `JSONB` (a point's coordinate indexes on `->>` rather than `json_extract`),
//! embeddings `BYTEA`, or pgvector's `vector(N)` with an HNSW index when the database has the
//! extension (the [`super::pgvector`] module); materialized computed fields are `STORED`
//! generated columns of the PostgreSQL form of their expression. Names longer than
//! PostgreSQL's 63 bytes are compared as PostgreSQL shortens them.

use crate::spec::{EntitySpec, FieldSpec, FieldType, SchemaSpec, ValueType};

use super::super::backend::{BlockingReader, ExecError};
use super::super::ddl::{ColumnDef, ObjectKind, SchemaObject, SpecError, literal, schema_objects};
use super::super::schema_diff::{SchemaConversion, SchemaDifference, SchemaPlan};
use super::super::value::SqlValue;
use super::PgDatabase;
use super::pgvector::{self, VectorStorage};
use crate::sql::database::{DbError, InitReport};
use crate::sql::full_text::pg_tables::{TOTALS_TRIGGERS, placeholders};
use crate::sql::text::ident::{quote, strip_row_alias};

/// PostgreSQL's longest identifier, in bytes.
const MAX_IDENTIFIER_BYTES: usize = 63;

/// `name` as PostgreSQL stores it: cut to 63 bytes at a character boundary.
pub fn stored_name(name: &str) -> &str {
    if name.len() <= MAX_IDENTIFIER_BYTES {
        return name;
    }
    let mut end = MAX_IDENTIFIER_BYTES;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    &name[..end]
}

fn text_type() -> (&'static str, &'static str) {
    ("TEXT COLLATE \"C\"", "text")
}

/// The column definition and the `information_schema` type of a field.
fn field_column(field: &FieldSpec, unique: bool) -> (String, String) {
    let column = quote(&field.name);
    let (text, text_name) = text_type();
    if unique {
        return (format!("{column} {text} NOT NULL UNIQUE"), text_name.into());
    }
    match field.ty {
        FieldType::String | FieldType::Datetime => (format!("{column} {text}"), text_name.into()),
        FieldType::Number => (
            format!("{column} DOUBLE PRECISION"),
            "double precision".into(),
        ),
        FieldType::Integer => (format!("{column} BIGINT"), "bigint".into()),
        FieldType::Boolean => (format!("{column} BOOLEAN"), "boolean".into()),
        FieldType::Enum => {
            let values: Vec<String> = field.values.iter().map(|v| literal(v)).collect();
            if values.is_empty() {
                (format!("{column} {text}"), text_name.into())
            } else {
                (
                    format!(
                        "{column} {text} CHECK ({column} IN ({}))",
                        values.join(", ")
                    ),
                    text_name.into(),
                )
            }
        }
        FieldType::StringArray | FieldType::NumberArray | FieldType::Point => {
            (format!("{column} JSONB"), "jsonb".into())
        }
    }
}

fn value_column(ty: ValueType) -> (&'static str, &'static str) {
    match ty {
        ValueType::String | ValueType::Datetime => text_type(),
        ValueType::Number => ("DOUBLE PRECISION", "double precision"),
        ValueType::Boolean => ("BOOLEAN", "boolean"),
    }
}

fn entity_table(
    entity: &EntitySpec,
    storage: VectorStorage,
    half_precision: bool,
) -> (String, Vec<ColumnDef>) {
    let mut definitions = Vec::new();
    let mut columns = Vec::new();
    let mut add = |name: &str, def: String, decl: String, generated: bool| {
        definitions.push(def);
        columns.push(ColumnDef {
            name: name.to_owned(),
            decl_type: decl,
            generated,
        });
    };
    if entity.field(&entity.unique_field).is_none() {
        let field = FieldSpec {
            name: entity.unique_field.clone(),
            column: None,
            ty: FieldType::String,

            description: None,
            indexed: false,
            unique: true,
            values: Vec::new(),
        };
        let (def, decl) = field_column(&field, true);
        add(&field.name, def, decl, false);
    }
    for field in &entity.fields {
        let (def, decl) = field_column(field, field.name == entity.unique_field);
        add(&field.name, def, decl, false);
    }
    for vector in &entity.vector_indexes {
        let ty = match storage {
            VectorStorage::Bytes => "bytea".to_owned(),
            VectorStorage::Pgvector => pgvector::column_type(vector, half_precision),
        };
        add(
            &vector.column,
            format!("{} {}", quote(&vector.column), ty.to_ascii_uppercase()),
            ty,
            false,
        );
        let hash = vector.hash_column();
        add(
            &hash,
            format!("{} TEXT", quote(&hash)),
            "text".into(),
            false,
        );
    }
    for computed in &entity.computed_fields {
        if let Some(column) = &computed.materialized_column {
            let expression = strip_row_alias(&computed.postgres_expression());
            let (decl, name) = value_column(computed.ty);
            add(
                column,
                format!(
                    "{} {decl} GENERATED ALWAYS AS ({expression}) STORED",
                    quote(column)
                ),
                name.into(),
                true,
            );
        }
    }
    (
        format!(
            "CREATE TABLE {} (\n  {}\n)",
            quote(&entity.table),
            definitions.join(",\n  ")
        ),
        columns,
    )
}

/// Every table and index the spec needs on PostgreSQL, in creation order: the same objects,
/// names and columns as [`schema_objects`] gives for SQLite, with PostgreSQL's types, and with
/// `storage` [`VectorStorage::Pgvector`] an HNSW index per vector index.
pub fn pg_schema_objects(
    spec: &SchemaSpec,
    storage: VectorStorage,
) -> Result<Vec<SchemaObject>, SpecError> {
    let half_precision = spec.tools.vector_search.half_precision;
    let mut objects = schema_objects(spec)?;
    // Full-text indexes: FTS5 tables and triggers on SQLite, postings tables here.
    objects
        .retain(|object| !matches!(object.kind, ObjectKind::FullTextTable | ObjectKind::Trigger));
    // A mapped entity's index is in the side store (`postgres/side_store.rs`).
    for entity in spec.entities.iter().filter(|e| !e.is_mapped()) {
        objects.extend(crate::sql::full_text::pg_full_text_objects(entity));
        // The coordinates of points are read from `jsonb` here, from JSON text on SQLite.
        for index in super::super::ddl::point_indexes(entity, true) {
            if let Some(object) = objects.iter_mut().find(|o| o.name == index.name) {
                *object = index;
            }
        }
    }
    for object in &mut objects {
        if object.kind != ObjectKind::Table {
            continue;
        }
        if object.name == super::super::ddl::VERSIONS_TABLE {
            *object = super::super::ddl::versions_table("text", "bigint");
        } else if object.name == crate::spec::CHANGES_TABLE {
            let types = super::super::ddl::ChangeLogTypes::POSTGRES;
            if let Some(table) = super::super::ddl::changes_objects(types).into_iter().next() {
                *object = table;
            }
        } else if let Some(entity) = spec.entities.iter().find(|e| e.table == object.name) {
            let (sql, columns) = entity_table(entity, storage, half_precision);
            object.sql = sql;
            object.columns = columns;
        } else if let Some(relationship) =
            spec.relationships.iter().find(|r| r.table == object.name)
        {
            let (text, text_name) = text_type();
            let mut definitions = vec![
                format!("\"source_id\" {text} NOT NULL"),
                format!("\"target_id\" {text} NOT NULL"),
            ];
            let mut columns: Vec<ColumnDef> = EDGE_ENDS
                .iter()
                .map(|name| ColumnDef {
                    name: (*name).to_owned(),
                    decl_type: text_name.to_owned(),
                    generated: false,
                })
                .collect();
            for property in &relationship.properties {
                let (def, decl) = field_column(property, false);
                definitions.push(def);
                columns.push(ColumnDef {
                    name: property.name.clone(),
                    decl_type: decl,
                    generated: false,
                });
            }
            definitions.push("PRIMARY KEY (\"source_id\", \"target_id\")".into());
            object.sql = format!(
                "CREATE TABLE {} (\n  {}\n)",
                quote(&relationship.table),
                definitions.join(",\n  ")
            );
            object.columns = columns;
        }
    }
    if storage == VectorStorage::Pgvector {
        for entity in &spec.entities {
            objects.extend(
                entity
                    .vector_indexes
                    .iter()
                    .filter_map(|index| pgvector::hnsw_index(entity, index, half_precision)),
            );
        }
    }
    Ok(objects)
}

const EDGE_ENDS: [&str; 2] = ["source_id", "target_id"];

/// Compares the database with the objects a spec needs (from [`pg_schema_objects`]). Reads
/// only. Tables are compared by their columns (names, order, types, generated or not);
/// constraints are not compared. A vector column expected in pgvector's type but stored as
/// `BYTEA` is a conversion, not a difference: the database serves as it is (searching in
/// memory) and [`Database::init`](crate::sql::Database::init) converts it.
pub(crate) fn pg_plan(
    conn: &dyn BlockingReader,
    spec: &SchemaSpec,
    expected: &[SchemaObject],
) -> Result<SchemaPlan, ExecError> {
    let mut plan = SchemaPlan::default();
    for object in expected {
        let name = stored_name(&object.name).to_owned();
        if object.kind == ObjectKind::Trigger {
            if triggers_present(conn, object)? {
                plan.unchanged.push(object.name.clone());
            } else {
                plan.missing.push(object.clone());
            }
            continue;
        }
        let found = conn.rows(
            "SELECT CASE c.relkind WHEN 'i' THEN 'index' WHEN 'I' THEN 'index' ELSE 'table' END \
             FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace \
             WHERE s.nspname = current_schema() AND c.relname = ?1",
            &[SqlValue::Text(name.clone())],
        )?;
        let Some(kind) = found.first().and_then(|row| row.first()) else {
            plan.missing.push(object.clone());
            continue;
        };
        let label = format!("{} \"{}\"", object.kind.as_str(), object.name);
        let kind = match kind {
            SqlValue::Text(kind) => kind.clone(),
            _ => String::new(),
        };
        if kind != object.kind.as_str() {
            plan.differences.push(SchemaDifference {
                object: label,
                message: format!("a {kind} has this name"),
            });
            continue;
        }
        if matches!(object.kind, ObjectKind::Index | ObjectKind::VectorIndex) {
            plan.unchanged.push(object.name.clone());
            continue;
        }
        let live = conn.rows(
            "SELECT a.attname::text, format_type(a.atttypid, a.atttypmod), \
             CASE WHEN a.attgenerated = '' THEN 'NEVER' ELSE 'ALWAYS' END \
             FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid \
             JOIN pg_namespace s ON s.oid = c.relnamespace \
             WHERE s.nspname = current_schema() AND c.relname = ?1 \
             AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
            &[SqlValue::Text(name)],
        )?;
        let live: Vec<(String, String, bool)> = live
            .into_iter()
            .map(|row| {
                let text = |i: usize| match row.get(i) {
                    Some(SqlValue::Text(text)) => text.clone(),
                    _ => String::new(),
                };
                (text(0), text(1), text(2) == "ALWAYS")
            })
            .collect();
        let mut problems = Vec::new();
        for column in &object.columns {
            match live.iter().find(|c| c.0 == stored_name(&column.name)) {
                None => problems.push(format!(
                    "column \"{}\" ({}) is missing",
                    column.name, column.decl_type
                )),
                Some((_, ty, generated)) => {
                    if ty == "bytea" && pgvector::is_vector_type(&column.decl_type) {
                        let index = spec
                            .entities
                            .iter()
                            .find(|entity| entity.table == object.name)
                            .and_then(|entity| {
                                entity
                                    .vector_indexes
                                    .iter()
                                    .find(|i| i.column == column.name)
                            });
                        if let Some(index) = index {
                            plan.conversions.push(SchemaConversion {
                                object: label.clone(),
                                message: format!(
                                    "column \"{}\" holds vectors as bytea; initialising converts \
                                     it to {} (pgvector), keeping every vector",
                                    column.name, column.decl_type
                                ),
                                sql: pgvector::conversion_sql(
                                    &object.name,
                                    index,
                                    &column.decl_type,
                                ),
                            });
                        }
                    } else if ty != &column.decl_type {
                        problems.push(format!(
                            "column \"{}\" has type {ty}, expected {}",
                            column.name, column.decl_type
                        ));
                    }
                    if *generated != column.generated {
                        problems.push(format!(
                            "column \"{}\" is {}, expected {}",
                            column.name,
                            generated_word(*generated),
                            generated_word(column.generated)
                        ));
                    }
                }
            }
        }
        for (name, ty, _) in &live {
            if !object
                .columns
                .iter()
                .any(|c| stored_name(&c.name) == name.as_str())
            {
                problems.push(format!("column \"{name}\" ({ty}) is not in the config"));
            }
        }
        if problems.is_empty() {
            let expected_order: Vec<&str> = object
                .columns
                .iter()
                .map(|c| stored_name(&c.name))
                .collect();
            let live_order: Vec<&str> = live.iter().map(|c| c.0.as_str()).collect();
            if expected_order != live_order {
                problems.push(format!(
                    "columns are in another order: found {}, expected {}",
                    live_order.join(", "),
                    expected_order.join(", ")
                ));
            }
        }
        if problems.is_empty() {
            plan.unchanged.push(object.name.clone());
        } else {
            for message in problems {
                plan.differences.push(SchemaDifference {
                    object: label.clone(),
                    message,
                });
            }
        }
    }
    Ok(plan)
}

/// Whether the function of a trigger object (its name) and all its triggers on its table exist.
/// Creating it again replaces them, so a partial set counts as missing.
fn triggers_present(conn: &dyn BlockingReader, object: &SchemaObject) -> Result<bool, ExecError> {
    let function = conn.rows(
        "SELECT 1 FROM pg_proc p JOIN pg_namespace s ON s.oid = p.pronamespace \
         WHERE s.nspname = current_schema() AND p.proname = ?1",
        &[SqlValue::Text(stored_name(&object.name).to_owned())],
    )?;
    if function.is_empty() {
        return Ok(false);
    }
    let names: Vec<SqlValue> = TOTALS_TRIGGERS
        .iter()
        .map(|(name, _)| SqlValue::Text((*name).to_owned()))
        .collect();
    let found = conn.count(
        &format!(
            "SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid \
         JOIN pg_namespace s ON s.oid = c.relnamespace \
         WHERE s.nspname = current_schema() AND c.relname = ?1 \
         AND t.tgname IN ({})",
            placeholders(2, names.len())
        ),
        &[
            vec![SqlValue::Text(stored_name(&object.table).to_owned())],
            names,
        ]
        .concat(),
    )?;
    Ok(found == TOTALS_TRIGGERS.len() as u64)
}

fn generated_word(generated: bool) -> &'static str {
    if generated {
        "a generated column"
    } else {
        "a stored column"
    }
}

impl PgDatabase {
    /// What [`Database::init`](crate::sql::Database::init) would do on this database.
    pub(crate) fn schema_plan(&self, spec: &SchemaSpec) -> Result<SchemaPlan, DbError> {
        self.read_statements(|conn| {
            let storage = pgvector::storage(conn)?;
            let objects = pg_schema_objects(spec, storage).map_err(DbError::from)?;
            pg_plan(conn, spec, &objects).map_err(|error| self.error(error))
        })?
    }

    /// Creates what `spec` needs in one transaction (pgvector first when an index needs it),
    /// converts the vector columns that must move into pgvector's type, and indexes the rows
    /// already stored in a new full-text index; changes nothing when an existing object
    /// differs.
    pub(crate) fn init(&self, spec: &SchemaSpec) -> Result<InitReport, DbError> {
        self.write(|session| {
            let storage = if spec.entities.iter().any(|e| !e.vector_indexes.is_empty()) {
                pgvector::ensure(session)
            } else {
                pgvector::storage(session)
            }
            .map_err(|error| self.error(error))?;
            let objects = pg_schema_objects(spec, storage)?;
            let plan = pg_plan(session, spec, &objects).map_err(|error| self.error(error))?;
            let mut report = InitReport::begin(plan.differences, plan.unchanged)?;
            for conversion in &plan.conversions {
                session.batch(&conversion.sql).map_err(|error| {
                    DbError::Postgres(format!(
                        "{}: cannot convert {conversion} ({}); when `toolforge serve` \
                         processes use this database, stop them and run `toolforge db \
                         init` again (their row-rule views use the column)",
                        self.label,
                        error.describe(),
                    ))
                })?;
                report.converted.push(conversion.to_string());
            }
            for object in &plan.missing {
                session
                    .batch(&object.sql)
                    .map_err(|error| self.error(error))?;
                report.created.push(object.name.clone());
            }
            // A full-text index created over rows already stored indexes them now.
            for entity in &spec.entities {
                let terms = crate::sql::full_text::pg_tables::terms_table(entity);
                if report.created.contains(&terms) {
                    super::postings::reindex(session, entity, None)
                        .map_err(|error| self.error(error))?;
                }
            }
            Ok(report)
        })
    }
}
