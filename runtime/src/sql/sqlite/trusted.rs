//! The trusted `sql:` statements of declared tools, run read-only.
//!
//! On SQLite every read connection carries an authorizer that lets everything through until a
//! trusted statement is prepared on its thread: then only reads are allowed (`SELECT`, reading
//! columns, calling functions, recursive CTEs), and reading a table around the temporary view
//! of a row rule (`main.loan`) is refused. A statement that writes, attaches, changes a
//! `PRAGMA`, opens a transaction, or holds more than one statement is refused with what it
//! tried; the connection is also `query_only` and opened read-only. On PostgreSQL the
//! statement runs inside `BEGIN TRANSACTION READ ONLY` ... `ROLLBACK` (see the PostgreSQL
//! session), wrapped as a subquery that pages it.

use std::cell::RefCell;
use std::collections::HashSet;

use rusqlite::Connection;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};

use crate::spec::SchemaSpec;
use crate::sql::backend::{ExecError, NamedRows, Refusal};
use crate::sql::text::ident::quote;
use crate::sql::value::SqlValue;

/// What the authorizer enforces while a trusted statement is prepared on this thread.
struct Policy {
    /// Tables of `main` shadowed by a temporary view of the same name (row rules), lowercase.
    shadowed: HashSet<String>,
    /// The first action refused.
    denied: Option<String>,
}

thread_local! {
    static POLICY: RefCell<Option<Policy>> = const { RefCell::new(None) };
}

/// Installs the authorizer every read connection carries (inactive outside trusted prepares).
pub(crate) fn install_authorizer(conn: &mut Connection) -> rusqlite::Result<()> {
    conn.authorizer(Some(authorize))
}

fn authorize(context: AuthContext<'_>) -> Authorization {
    POLICY.with(|cell| {
        let mut borrowed = cell.borrow_mut();
        let Some(policy) = borrowed.as_mut() else {
            return Authorization::Allow;
        };
        let refused = match context.action {
            AuthAction::Select | AuthAction::Function { .. } | AuthAction::Recursive => None,
            AuthAction::Read { table_name, .. } => {
                let around_rule = context.accessor.is_none()
                    && context.database_name == Some("main")
                    && policy.shadowed.contains(&table_name.to_ascii_lowercase());
                around_rule.then(|| {
                    format!("reading `main.{table_name}` around the row rule of `{table_name}`")
                })
            }
            AuthAction::Pragma { pragma_name, .. } => Some(format!("PRAGMA {pragma_name}")),
            AuthAction::Attach { .. } => Some("ATTACH".to_owned()),
            AuthAction::Detach { .. } => Some("DETACH".to_owned()),
            AuthAction::Insert { table_name } => Some(format!("INSERT into `{table_name}`")),
            AuthAction::Update { table_name, .. } => Some(format!("UPDATE of `{table_name}`")),
            AuthAction::Delete { table_name } => Some(format!("DELETE from `{table_name}`")),
            AuthAction::Transaction { .. } | AuthAction::Savepoint { .. } => {
                Some("a transaction statement".to_owned())
            }
            other => Some(format!("{other:?}").split([' ', '{']).next().map_or_else(
                || "a statement that changes the database".to_owned(),
                |kind| format!("{kind} (it changes the database)"),
            )),
        };
        match refused {
            None => Authorization::Allow,
            Some(what) => {
                policy.denied.get_or_insert(what);
                Authorization::Deny
            }
        }
    })
}

/// Clears the thread's policy when the prepare is over, whatever happens.
struct PolicyGuard;

impl Drop for PolicyGuard {
    fn drop(&mut self) {
        POLICY.with(|cell| cell.borrow_mut().take());
    }
}

/// Prepares `sql` as a trusted read on `conn`: refused (with what it tried) when it is more
/// than one statement or anything but a read; SQLite's own error when it does not prepare.
pub(crate) fn prepare_read<'c>(
    conn: &'c Connection,
    sql: &str,
) -> Result<Result<rusqlite::Statement<'c>, Refusal>, ExecError> {
    let shadowed = shadowed_tables(conn)?;
    POLICY.with(|cell| {
        *cell.borrow_mut() = Some(Policy {
            shadowed,
            denied: None,
        })
    });
    let guard = PolicyGuard;
    let prepared = conn.prepare(sql);
    let denied = POLICY.with(|cell| cell.borrow_mut().as_mut().and_then(|p| p.denied.take()));
    drop(guard);
    if let Err(rusqlite::Error::MultipleStatement) = prepared {
        return Ok(Err(Refusal(
            "the statement holds more than one statement; a `sql:` tool runs one".into(),
        )));
    }
    if let Some(what) = denied {
        return Ok(Err(Refusal(format!(
            "the statement is not a read: {what} is not allowed in a `sql:` tool"
        ))));
    }
    let statement = prepared?;
    if !statement.readonly() {
        return Ok(Err(Refusal(
            "the statement writes to the database, which a `sql:` tool may not".into(),
        )));
    }
    if statement.column_count() == 0 {
        return Ok(Err(Refusal(
            "the statement answers no columns; a `sql:` tool answers rows".into(),
        )));
    }
    Ok(Ok(statement))
}

/// The tables of `main` a temporary view of the same name shadows (row rules).
fn shadowed_tables(conn: &Connection) -> Result<HashSet<String>, ExecError> {
    let mut statement =
        conn.prepare_cached("SELECT lower(name) FROM temp.sqlite_master WHERE type = 'view'")?;
    let names = statement
        .query_map([], |row| row.get::<_, String>(0))?
        .collect::<Result<HashSet<_>, _>>()?;
    Ok(names)
}

/// Runs a trusted statement on SQLite: skips `offset` rows and answers at most `take`.
pub(crate) fn sqlite_rows(
    conn: &Connection,
    sql: &str,
    params: &[SqlValue],
    offset: u64,
    take: u64,
) -> Result<Result<NamedRows, Refusal>, ExecError> {
    let mut statement = match prepare_read(conn, sql)? {
        Ok(statement) => statement,
        Err(refusal) => return Ok(Err(refusal)),
    };
    let columns: Vec<String> = statement.column_names().map(str::to_owned).collect();
    let width = columns.len();
    let mut rows = statement.query(rusqlite::params_from_iter(params.iter()))?;
    let mut out = Vec::new();
    let mut seen = 0u64;
    while (out.len() as u64) < take {
        let Some(row) = rows.next()? else { break };
        seen += 1;
        if seen <= offset {
            continue;
        }
        let mut values = Vec::with_capacity(width);
        for i in 0..width {
            values.push(row.get::<_, SqlValue>(i)?);
        }
        out.push(values);
    }
    Ok(Ok(NamedRows { columns, rows: out }))
}

/// Prepares each statement against an empty in-memory SQLite database built from the spec's
/// schema (the tables, edge tables, change log and full-text tables `db init` creates, with
/// the functions tool connections have), as a trusted read: `None` when it prepares, else
/// SQLite's message or why it is refused. The statements use `?N` placeholders.
///
/// ```
/// # let spec: toolforge::spec::SchemaSpec = serde_json::from_value(serde_json::json!({
/// #   "name": "books", "entities": [{"name": "Book", "table": "book", "unique_field": "isbn",
/// #   "fields": [{"name": "isbn", "type": "string", "unique": true}]}],
/// #   "relationships": [], "tools": {"default_limit": 20, "max_limit": 100, "families": []}})).unwrap();
/// let problems = toolforge::sql::check_sqlite_reads(
///     &spec,
///     &["SELECT isbn FROM book WHERE isbn > ?1", "SELECT title FROM book", "DELETE FROM book"],
/// );
/// assert_eq!(problems[0], None);
/// assert!(problems[1].as_deref().unwrap().contains("no such column: title"));
/// assert!(problems[2].as_deref().unwrap().contains("not a read"));
/// ```
pub fn check_sqlite_reads(spec: &SchemaSpec, statements: &[&str]) -> Vec<Option<String>> {
    let conn = match scratch_connection(spec) {
        Ok(conn) => conn,
        Err(message) => return statements.iter().map(|_| Some(message.clone())).collect(),
    };
    statements
        .iter()
        .map(|sql| match prepare_read(&conn, sql) {
            Ok(Ok(_)) => None,
            Ok(Err(Refusal(message))) => Some(message),
            Err(ExecError::Backend(error)) => Some(backend_message(error.as_ref())),
            Err(other) => Some(other.to_string()),
        })
        .collect()
}

/// An in-memory database with the spec's schema (a mapped spec's: the user's tables as it maps
/// them) and the read connections' functions.
fn scratch_connection(spec: &SchemaSpec) -> Result<Connection, String> {
    let schema = if spec.is_mapped() {
        // The user's tables, with the columns the config maps (it creates none of its own).
        scratch_tables(spec)
            .into_iter()
            .map(|statement| statement + ";\n")
            .collect()
    } else {
        crate::sql::ddl::schema_sql(spec)
            .map_err(|error| format!("the schema is invalid: {error}"))?
    };
    let mut conn = Connection::open_in_memory().map_err(|error| sqlite_message(&error))?;
    crate::sql::sqlite::functions::configure_scratch(&conn)
        .map_err(|error| sqlite_message(&error))?;
    conn.execute_batch(&schema)
        .map_err(|error| format!("the schema does not build: {}", sqlite_message(&error)))?;
    install_authorizer(&mut conn).map_err(|error| sqlite_message(&error))?;
    Ok(conn)
}

/// SQLite's own message (`no such table: loan`), without rusqlite's wrapping.
fn sqlite_message(error: &rusqlite::Error) -> String {
    match error {
        rusqlite::Error::SqliteFailure(_, Some(message)) => message.clone(),
        rusqlite::Error::SqlInputError { msg, .. } => msg.clone(),
        other => other.to_string(),
    }
}

/// A backend error's message: SQLite's own when it is one.
fn backend_message(error: &(dyn crate::sql::backend::BackendError + 'static)) -> String {
    let error: &(dyn std::error::Error + 'static) = error;
    match error.downcast_ref::<rusqlite::Error>() {
        Some(error) => sqlite_message(error),
        None => error.to_string(),
    }
}

/// `CREATE TABLE` statements for the user's tables as far as a mapped spec knows them: each
/// table it reads with the columns it maps (untyped), for a scratch SQLite database on which
/// declared `sql:` statements are prepared when the real one is not at hand. A statement that
/// reads a column the config does not map fails there, as the config exposes only those.
fn scratch_tables(spec: &SchemaSpec) -> Vec<String> {
    let mut tables: Vec<(String, Vec<String>)> = Vec::new();
    for probe in crate::sql::mapping::probes(spec, "\"main\"") {
        let index = match tables
            .iter()
            .position(|(name, _)| *name == probe.table.name)
        {
            Some(index) => index,
            None => {
                tables.push((probe.table.name.clone(), Vec::new()));
                tables.len() - 1
            }
        };
        if let Some(column) = probe.column {
            let columns = &mut tables[index].1;
            if !columns.contains(&column) {
                columns.push(column);
            }
        }
    }
    tables
        .into_iter()
        .map(|(name, columns)| {
            let columns: Vec<String> = columns.iter().map(|c| quote(c)).collect();
            format!("CREATE TABLE {} ({})", quote(&name), columns.join(", "))
        })
        .collect()
}
