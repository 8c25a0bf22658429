//! SQLite's side of [`SchemaPlan`]: the objects a spec needs compared with `sqlite_schema`
//! and each table's columns (`pragma_table_xinfo`).

use rusqlite::{Connection, OptionalExtension};

use crate::sql::ddl::{self, ObjectKind, SchemaObject};
use crate::sql::schema_diff::{SchemaDifference, SchemaPlan};

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
            Some((_, Some(sql))) if sql == object.sql || is_earlier_form(object, &sql) => {
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

/// The same check as databases created by earlier versions have it.
const LEGACY_CHANGE_TYPE_CHECK: &str = "\"change_type\" IN ('created', 'updated', 'deleted')";

/// Whether `found`, the SQL of an object in a database, is an earlier version's form of
/// `expected` that means the same: the change log with its check written as `IN (...)`.
fn is_earlier_form(expected: &SchemaObject, found: &str) -> bool {
    expected.kind == ObjectKind::Table
        && expected.name == crate::spec::CHANGES_TABLE
        && found
            == expected
                .sql
                .replace(ddl::tables::CHANGE_TYPE_CHECK, LEGACY_CHANGE_TYPE_CHECK)
}

/// How a difference names its object: `table "scope"`.
fn object_label(kind: &str, name: &str) -> String {
    format!("{kind} \"{name}\"")
}
