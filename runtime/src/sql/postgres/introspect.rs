//! The catalog of a PostgreSQL database, read from `pg_catalog` inside one `READ ONLY`
//! transaction (`REPEATABLE READ`, so every query sees the same snapshot), on a connection of
//! the read pool (`default_transaction_read_only = on`). A role needs no more than `USAGE` on
//! the schemas and `SELECT` on the tables: the catalog itself is readable by every role, and a
//! table the role may not read is reported so (`has_table_privilege`), not skipped silently.

use std::collections::{BTreeMap, HashMap};

use crate::sql::backend::{BlockingReader, ExecError};
use crate::sql::introspect::catalog::{
    Backend, Catalog, Column, ColumnKind, ForeignKey, Table, TableKind,
};
use crate::sql::introspect::check_in::{Quoting, check_in_condition};
use crate::sql::introspect::error::IntrospectError;
use crate::sql::postgres::PgDatabase;
use crate::sql::postgres::pool::{label, take_url_options};
use crate::sql::postgres::session::Session;
use crate::sql::value::SqlValue;

/// The schemas asked for, as one JSON array bound to `?1`.
const SCHEMAS: &str = "SELECT json_array_elements_text(CAST(CAST(?1 AS text) AS json))";

/// Reads the catalog of the schemas `schemas` of the database at `url`; answers it with the
/// database's name for messages (`postgres://user@host:port/name`, no password).
pub(crate) fn read(url: &str, schemas: &[String]) -> Result<(Catalog, String), IntrospectError> {
    let (plain, _) = take_url_options(url).map_err(|error| IntrospectError::BadUrl {
        message: error.to_string(),
    })?;
    let config: tokio_postgres::Config =
        plain.parse().map_err(|error| IntrospectError::BadUrl {
            message: format!(
                "the URL is not a PostgreSQL connection string ({error}); write it as \
                 postgres://user@host:port/database"
            ),
        })?;
    let label = label(&config);
    let target = format!("postgres://{label}");
    // The pool's message names the database too: said once is enough.
    let connect = |message: String| {
        let message = message.strip_prefix("PostgreSQL: ").unwrap_or(&message);
        let message = message
            .strip_prefix(&format!("cannot connect to {label}: "))
            .or_else(|| message.strip_prefix(&format!("{label}: ")))
            .unwrap_or(message);
        IntrospectError::Connect {
            target: target.clone(),
            message: one_line(message),
        }
    };
    let db = PgDatabase::open(url, true).map_err(|error| connect(error.to_string()))?;
    let session = db
        .session(&db.readers)
        .map_err(|error| connect(error.to_string()))?;
    let failed = |error: ExecError| IntrospectError::Postgres {
        target: target.clone(),
        message: one_line(&error.describe()),
    };
    session
        .batch("BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        .map_err(failed)?;
    let read = read_in_transaction(&session, schemas, &target);
    let _ = session.batch("ROLLBACK");
    let catalog = read.map_err(|error| match error {
        Failure::Exec(error) => failed(error),
        Failure::Introspect(error) => error,
    })?;
    Ok((catalog, target))
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

enum Failure {
    Exec(ExecError),
    Introspect(IntrospectError),
}

impl From<ExecError> for Failure {
    fn from(error: ExecError) -> Self {
        Failure::Exec(error)
    }
}

fn text(value: &SqlValue) -> String {
    match value {
        SqlValue::Text(text) => text.clone(),
        SqlValue::Integer(n) => n.to_string(),
        SqlValue::Real(n) => n.to_string(),
        SqlValue::Blob(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        SqlValue::Null => String::new(),
    }
}

fn optional_text(value: &SqlValue) -> Option<String> {
    match value {
        SqlValue::Null => None,
        other => Some(text(other)),
    }
}

fn int(value: &SqlValue) -> i64 {
    match value {
        SqlValue::Integer(n) => *n,
        SqlValue::Real(n) => *n as i64,
        SqlValue::Text(text) => text.parse().unwrap_or(0),
        _ => 0,
    }
}

fn flag(value: &SqlValue) -> bool {
    int(value) != 0
}

/// A JSON array of names (`array_to_json(...)::text`).
fn names(value: &SqlValue) -> Vec<String> {
    serde_json::from_str(&text(value)).unwrap_or_default()
}

/// A type of `pg_type`, as far as the mapping needs it.
struct PgType {
    name: String,
    /// `typtype`: `b` base, `d` domain, `e` enum, `c` composite, `r` range, `p` pseudo, ...
    kind: String,
    /// A domain's base type.
    base: i64,
    /// An array's element type.
    element: i64,
    /// `typcategory`: `A` for arrays.
    category: String,
}

fn read_in_transaction(
    session: &Session<'_>,
    schemas: &[String],
    target: &str,
) -> Result<Catalog, Failure> {
    let schema_list = SqlValue::Text(serde_json::to_string(schemas).unwrap_or_default());
    let params = std::slice::from_ref(&schema_list);
    let database = session
        .rows("SELECT current_database()::text", &[])?
        .first()
        .and_then(|row| row.first())
        .map(text)
        .unwrap_or_default();

    // Every schema asked for exists; those without USAGE make their tables unreadable.
    let mut no_usage: Vec<String> = Vec::new();
    for row in session.rows(
        "SELECT s.name, n.oid IS NOT NULL, coalesce(has_schema_privilege(n.oid, 'USAGE'), false) \
         FROM json_array_elements_text(CAST(CAST(?1 AS text) AS json)) WITH ORDINALITY AS s(name, i) \
         LEFT JOIN pg_namespace n ON n.nspname = s.name ORDER BY s.i",
        params,
    )? {
        let name = text(&row[0]);
        if !flag(&row[1]) {
            return Err(Failure::Introspect(IntrospectError::NoSuchSchema {
                target: target.to_owned(),
                schema: name,
            }));
        }
        if !flag(&row[2]) {
            no_usage.push(name);
        }
    }

    let in_schemas = format!(
        "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE n.nspname IN ({SCHEMAS}) AND c.relkind IN ('r', 'p', 'v', 'm', 'f') \
         AND NOT c.relispartition"
    );

    // The tables, views and materialized views.
    let mut tables: BTreeMap<i64, Table> = BTreeMap::new();
    for row in session.rows(
        &format!(
            "SELECT c.oid::int8, n.nspname::text, c.relname::text, c.relkind::text, \
             obj_description(c.oid, 'pg_class'), has_table_privilege(c.oid, 'SELECT') {in_schemas}"
        ),
        params,
    )? {
        let schema = text(&row[1]);
        let unreadable = if no_usage.contains(&schema) {
            Some(format!(
                "the role has no USAGE privilege on the schema \"{schema}\""
            ))
        } else if !flag(&row[5]) {
            Some("the role has no SELECT privilege on it".to_owned())
        } else {
            None
        };
        tables.insert(
            int(&row[0]),
            Table {
                schema: Some(schema),
                name: text(&row[2]),
                kind: match text(&row[3]).as_str() {
                    "v" => TableKind::View,
                    "m" => TableKind::MaterializedView,
                    _ => TableKind::Table,
                },
                comment: optional_text(&row[4]),
                columns: Vec::new(),
                primary_key: Vec::new(),
                unique: Vec::new(),
                foreign_keys: Vec::new(),
                unreadable,
            },
        );
    }

    // The types the columns use, with the base types of domains and the elements of arrays.
    let mut types: HashMap<i64, PgType> = HashMap::new();
    for row in session.rows(
        &format!(
            "WITH RECURSIVE used(oid) AS ( \
               SELECT DISTINCT a.atttypid FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid \
               JOIN pg_namespace n ON n.oid = c.relnamespace \
               WHERE n.nspname IN ({SCHEMAS}) AND c.relkind IN ('r', 'p', 'v', 'm', 'f') \
               AND a.attnum > 0 AND NOT a.attisdropped \
               UNION \
               SELECT CASE WHEN t.typbasetype <> 0 THEN t.typbasetype ELSE t.typelem END \
               FROM pg_type t JOIN used u ON t.oid = u.oid \
               WHERE t.typbasetype <> 0 OR (t.typelem <> 0 AND t.typcategory = 'A') \
             ) \
             SELECT t.oid::int8, t.typname::text, t.typtype::text, t.typbasetype::int8, \
             t.typelem::int8, t.typcategory::text FROM pg_type t WHERE t.oid IN (SELECT oid FROM used)"
        ),
        params,
    )? {
        types.insert(
            int(&row[0]),
            PgType {
                name: text(&row[1]),
                kind: text(&row[2]),
                base: int(&row[3]),
                element: int(&row[4]),
                category: text(&row[5]),
            },
        );
    }
    let mut enums: HashMap<i64, Vec<String>> = HashMap::new();
    let enum_types: Vec<String> = types
        .iter()
        .filter(|(_, t)| t.kind == "e")
        .map(|(oid, _)| oid.to_string())
        .collect();
    if !enum_types.is_empty() {
        for row in session.rows(
            &format!(
                "SELECT enumtypid::int8, enumlabel::text FROM pg_enum \
                 WHERE enumtypid::int8 IN ({}) ORDER BY enumtypid, enumsortorder",
                enum_types.join(", ")
            ),
            &[],
        )? {
            enums.entry(int(&row[0])).or_default().push(text(&row[1]));
        }
    }
    // The `CHECK (VALUE IN (...))` of domains.
    let mut domain_checks: HashMap<i64, Vec<String>> = HashMap::new();
    let domains: Vec<String> = types
        .iter()
        .filter(|(_, t)| t.kind == "d")
        .map(|(oid, _)| oid.to_string())
        .collect();
    if !domains.is_empty() {
        for row in session.rows(
            &format!(
                "SELECT contypid::int8, pg_get_constraintdef(oid) FROM pg_constraint \
                 WHERE contype = 'c' AND contypid::int8 IN ({}) ORDER BY contypid, conname",
                domains.join(", ")
            ),
            &[],
        )? {
            if let Some((column, values)) = check_in_condition(&text(&row[1]), Quoting::Postgres)
                && column.eq_ignore_ascii_case("VALUE")
            {
                domain_checks.entry(int(&row[0])).or_insert(values);
            }
        }
    }

    // The columns.
    for row in session.rows(
        &format!(
            "SELECT a.attrelid::int8, a.attname::text, a.attnotnull, \
             format_type(a.atttypid, a.atttypmod), a.atttypid::int8, \
             col_description(a.attrelid, a.attnum) \
             FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid \
             JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname IN ({SCHEMAS}) AND c.relkind IN ('r', 'p', 'v', 'm', 'f') \
             AND NOT c.relispartition AND a.attnum > 0 AND NOT a.attisdropped \
             ORDER BY a.attrelid, a.attnum"
        ),
        params,
    )? {
        let Some(table) = tables.get_mut(&int(&row[0])) else {
            continue;
        };
        let mapped = map_type(int(&row[4]), &types, &enums, &domain_checks, 0);
        table.columns.push(Column {
            name: text(&row[1]),
            declared_type: text(&row[3]),
            kind: mapped.kind,
            not_null: flag(&row[2]),
            comment: optional_text(&row[5]),
            enum_values: mapped.enum_values,
            check_in_values: mapped.check_in_values,
        });
    }

    // Primary keys, unique constraints, foreign keys and column checks.
    let key_names = |keys: &str, rel: &str| {
        format!(
            "array_to_json(ARRAY(SELECT a.attname::text FROM unnest({keys}) WITH ORDINALITY \
             AS k(n, i) JOIN pg_attribute a ON a.attrelid = {rel} AND a.attnum = k.n \
             ORDER BY k.i))::text"
        )
    };
    for row in session.rows(
        &format!(
            "SELECT con.conrelid::int8, con.contype::text, {}, fn.nspname::text, fc.relname::text, \
             {}, pg_get_constraintdef(con.oid) \
             FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid \
             JOIN pg_namespace n ON n.oid = c.relnamespace \
             LEFT JOIN pg_class fc ON fc.oid = con.confrelid \
             LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace \
             WHERE n.nspname IN ({SCHEMAS}) AND con.contype IN ('p', 'u', 'f', 'c') \
             ORDER BY con.conrelid, con.conname",
            key_names("con.conkey", "con.conrelid"),
            key_names("con.confkey", "con.confrelid"),
        ),
        params,
    )? {
        let Some(table) = tables.get_mut(&int(&row[0])) else {
            continue;
        };
        let columns = names(&row[2]);
        match text(&row[1]).as_str() {
            "p" => table.primary_key = columns,
            "u" => {
                if !table.unique.contains(&columns) {
                    table.unique.push(columns);
                }
            }
            "f" => table.foreign_keys.push(ForeignKey {
                columns,
                referenced_schema: optional_text(&row[3]),
                referenced_table: text(&row[4]),
                referenced_columns: names(&row[5]),
            }),
            _ => {
                if let [only] = columns.as_slice()
                    && let Some((column, values)) =
                        check_in_condition(&text(&row[6]), Quoting::Postgres)
                    && column == *only
                    && let Some(found) = table.columns.iter_mut().find(|c| c.name == *only)
                    && found.check_in_values.is_none()
                {
                    found.check_in_values = Some(values);
                }
            }
        }
    }
    // Unique indexes that are no constraint (full ones, over columns only).
    for row in session.rows(
        &format!(
            "SELECT x.indrelid::int8, array_to_json(ARRAY(SELECT a.attname::text \
             FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(n, o) \
             JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.n \
             WHERE k.o <= x.indnkeyatts ORDER BY k.o))::text \
             FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid \
             JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname IN ({SCHEMAS}) AND x.indisunique AND x.indisvalid \
             AND x.indpred IS NULL AND x.indexprs IS NULL \
             ORDER BY x.indrelid, x.indexrelid"
        ),
        params,
    )? {
        let Some(table) = tables.get_mut(&int(&row[0])) else {
            continue;
        };
        let columns = names(&row[1]);
        if !columns.is_empty() && columns != table.primary_key && !table.unique.contains(&columns) {
            table.unique.push(columns);
        }
    }

    let mut tables: Vec<Table> = tables.into_values().collect();
    for table in &mut tables {
        let position = |name: &str| {
            table
                .columns
                .iter()
                .position(|c| c.name == name)
                .unwrap_or(usize::MAX)
        };
        let order = |set: &[String]| set.iter().map(|c| position(c)).collect::<Vec<_>>();
        table.unique.sort_by_key(|set| order(set));
        table.foreign_keys.sort_by(|a, b| {
            order(&a.columns)
                .cmp(&order(&b.columns))
                .then_with(|| a.referenced().cmp(&b.referenced()))
        });
    }
    tables.sort_by(|a, b| {
        (
            a.schema.as_deref().unwrap_or("").as_bytes(),
            a.name.as_bytes(),
        )
            .cmp(&(
                b.schema.as_deref().unwrap_or("").as_bytes(),
                b.name.as_bytes(),
            ))
    });
    Ok(Catalog {
        backend: Backend::Postgres,
        database,
        schemas: schemas.to_vec(),
        tables,
        filtered_out: Vec::new(),
    })
}

/// What a column's type maps to.
struct Mapped {
    kind: ColumnKind,
    enum_values: Option<Vec<String>>,
    check_in_values: Option<Vec<String>>,
}

/// Maps the type `oid`: domains as their base type (with their `CHECK (VALUE IN ...)`),
/// enums with their values, arrays by their elements, base types by name.
fn map_type(
    oid: i64,
    types: &HashMap<i64, PgType>,
    enums: &HashMap<i64, Vec<String>>,
    domain_checks: &HashMap<i64, Vec<String>>,
    depth: usize,
) -> Mapped {
    let unsupported = Mapped {
        kind: ColumnKind::Unsupported,
        enum_values: None,
        check_in_values: None,
    };
    let Some(ty) = types.get(&oid) else {
        return unsupported;
    };
    if depth > 16 {
        return unsupported;
    }
    match ty.kind.as_str() {
        "d" => {
            let mut mapped = map_type(ty.base, types, enums, domain_checks, depth + 1);
            if let Some(values) = domain_checks.get(&oid) {
                mapped.check_in_values = Some(values.clone());
            }
            mapped
        }
        "e" => Mapped {
            kind: ColumnKind::Enum,
            enum_values: Some(enums.get(&oid).cloned().unwrap_or_default()),
            check_in_values: None,
        },
        _ if ty.category == "A" && ty.element != 0 => {
            let element = map_type(ty.element, types, enums, domain_checks, depth + 1);
            match element.kind {
                ColumnKind::Array(_) | ColumnKind::Unsupported => unsupported,
                kind => Mapped {
                    kind: ColumnKind::Array(Box::new(kind)),
                    enum_values: element.enum_values,
                    check_in_values: None,
                },
            }
        }
        "b" => Mapped {
            kind: base_kind(&ty.name),
            enum_values: None,
            check_in_values: None,
        },
        _ => unsupported,
    }
}

/// What a base type (by `typname`) holds.
fn base_kind(name: &str) -> ColumnKind {
    match name {
        "int2" | "int4" | "int8" => ColumnKind::Integer,
        "numeric" | "float4" | "float8" => ColumnKind::Number,
        "text" | "varchar" | "bpchar" | "name" | "citext" | "uuid" | "char" => ColumnKind::Text,
        "bool" => ColumnKind::Boolean,
        "date" | "timestamp" | "timestamptz" => ColumnKind::DateTime,
        "json" | "jsonb" => ColumnKind::Json,
        "bytea" => ColumnKind::Binary,
        _ => ColumnKind::Unsupported,
    }
}
