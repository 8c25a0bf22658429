//! Comparing the tables a spec needs with the tables a database has.
//!
//! Initialisation is idempotent: objects that exist with exactly the expected definition are
//! left alone, missing ones are planned for creation, and any object that exists with a
//! different definition is reported as a [`SchemaDifference`] (and then nothing is changed).

use std::fmt;

use rusqlite::{Connection, OptionalExtension};

use super::ddl::{ObjectKind, SchemaObject};

/// One way the database differs from the spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaDifference {
    /// `table "scope"` or `index "scope__name__idx"`.
    pub object: String,
    /// What differs, precisely.
    pub message: String,
}

impl fmt::Display for SchemaDifference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.object, self.message)
    }
}

/// The result of comparing a database with a spec.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchemaPlan {
    /// Objects that do not exist yet, in creation order.
    pub missing: Vec<SchemaObject>,
    /// Names of objects that already exist as expected.
    pub unchanged: Vec<String>,
    /// Objects that exist with another definition.
    pub differences: Vec<SchemaDifference>,
    /// Columns that [`Database::init`](crate::sql::Database::init) converts in place, in
    /// order (vectors stored as bytes, moved into pgvector columns).
    pub conversions: Vec<SchemaConversion>,
}

/// A column that initialisation converts in place, keeping its values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaConversion {
    /// The table's label (`table "scope"`).
    pub object: String,
    /// What changes, for a person.
    pub message: String,
    /// The statements that convert it, run in the initialisation's transaction.
    pub sql: String,
}

impl fmt::Display for SchemaConversion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.object, self.message)
    }
}

struct LiveColumn {
    name: String,
    decl_type: String,
    generated: bool,
}

fn live_columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<LiveColumn>> {
    let mut statement = conn.prepare("SELECT name, type, hidden FROM pragma_table_xinfo(?1)")?;
    let rows = statement.query_map([table], |row| {
        Ok(LiveColumn {
            name: row.get(0)?,
            decl_type: row.get(1)?,
            generated: row.get::<_, i64>(2)? >= 2,
        })
    })?;
    rows.collect()
}

fn object_label(kind: &str, name: &str) -> String {
    format!("{kind} \"{name}\"")
}

fn compare_table(
    conn: &Connection,
    expected: &SchemaObject,
    found_sql: &str,
) -> rusqlite::Result<Vec<String>> {
    let live = live_columns(conn, &expected.name)?;
    let mut problems = Vec::new();
    for column in &expected.columns {
        match live.iter().find(|c| c.name == column.name) {
            None => problems.push(format!(
                "column \"{}\" ({}) is missing",
                column.name, column.decl_type
            )),
            Some(found) => {
                if !found.decl_type.eq_ignore_ascii_case(&column.decl_type) {
                    problems.push(format!(
                        "column \"{}\" has type {}, expected {}",
                        column.name,
                        if found.decl_type.is_empty() {
                            "(none)"
                        } else {
                            &found.decl_type
                        },
                        column.decl_type
                    ));
                }
                if found.generated != column.generated {
                    problems.push(format!(
                        "column \"{}\" is {}, expected {}",
                        column.name,
                        if found.generated {
                            "a generated column"
                        } else {
                            "a stored column"
                        },
                        if column.generated {
                            "a generated column"
                        } else {
                            "a stored column"
                        }
                    ));
                }
            }
        }
    }
    for found in &live {
        if !expected.columns.iter().any(|c| c.name == found.name) {
            problems.push(format!(
                "column \"{}\" ({}) is not in the config",
                found.name, found.decl_type
            ));
        }
    }
    let expected_order: Vec<&str> = expected.columns.iter().map(|c| c.name.as_str()).collect();
    let live_order: Vec<&str> = live.iter().map(|c| c.name.as_str()).collect();
    if problems.is_empty() && expected_order != live_order {
        problems.push(format!(
            "columns are in another order: found {}, expected {}",
            live_order.join(", "),
            expected_order.join(", ")
        ));
    }
    if problems.is_empty() {
        problems.push(format!(
            "constraints differ (CHECK, UNIQUE, key or generated expression):\n  found:    {}\n  expected: {}",
            found_sql.replace('\n', " "),
            expected.sql.replace('\n', " ")
        ));
    }
    Ok(problems)
}

/// Compares the database with the objects a spec needs. Reads only.
pub fn plan(conn: &Connection, expected: &[SchemaObject]) -> rusqlite::Result<SchemaPlan> {
    let mut plan = SchemaPlan::default();
    let mut lookup =
        conn.prepare("SELECT type, sql FROM sqlite_schema WHERE lower(name) = lower(?1)")?;
    for object in expected {
        let found: Option<(String, Option<String>)> = lookup
            .query_row([&object.name], |row| Ok((row.get(0)?, row.get(1)?)))
            .optional()?;
        let label = object_label(object.kind.as_str(), &object.name);
        match found {
            None => plan.missing.push(object.clone()),
            Some((kind, sql)) if kind != object.kind.as_str() => {
                let _ = sql;
                plan.differences.push(SchemaDifference {
                    object: label,
                    message: format!(
                        "a {kind} has this name, expected a {}",
                        object.kind.as_str()
                    ),
                })
            }
            Some((_, Some(sql)))
                if sql == object.sql || super::ddl::is_earlier_form(object, &sql) =>
            {
                plan.unchanged.push(object.name.clone())
            }
            Some((_, sql)) => {
                let sql = sql.unwrap_or_default();
                match object.kind {
                    ObjectKind::Table => {
                        for message in compare_table(conn, object, &sql)? {
                            plan.differences.push(SchemaDifference {
                                object: label.clone(),
                                message,
                            });
                        }
                    }
                    ObjectKind::Index
                    | ObjectKind::VectorIndex
                    | ObjectKind::FullTextTable
                    | ObjectKind::Trigger => plan.differences.push(SchemaDifference {
                        object: label,
                        message: format!(
                            "{} definition differs:\n  found:    {}\n  expected: {}",
                            match object.kind {
                                ObjectKind::Index | ObjectKind::VectorIndex => "index",
                                ObjectKind::Trigger => "trigger",
                                _ => "full-text table",
                            },
                            sql,
                            object.sql
                        ),
                    }),
                }
            }
        }
    }
    Ok(plan)
}
