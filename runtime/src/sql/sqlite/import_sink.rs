//! The SQLite import sink: the import's transaction on the writer connection, with its prepared
//! statements (one per table and column set) and the upserts of tracked records waiting for
//! one read of their values before.

use std::collections::HashMap;

use rusqlite::Transaction;

use crate::sql::backend::Writer;
use crate::sql::backend::import_sink::{
    ChangeCapture, ImportError, ImportSink, Target, exec_error,
};
use crate::sql::backend::upsert::upsert_sql;
use crate::sql::value::{Bound, SqlValue};

/// An import writing into a SQLite transaction.
pub(crate) struct SqliteSink<'t> {
    tx: &'t Transaction<'t>,
    statements: HashMap<(usize, u128), rusqlite::Statement<'t>>,
    edge_statements: HashMap<(usize, u128), rusqlite::Statement<'t>>,
    /// Upserts of tracked records not written yet: their values before are read in one
    /// statement when the batch is written ([`write_waiting`]).
    waiting: Vec<WaitingUpsert>,
}

impl<'t> SqliteSink<'t> {
    /// A sink writing into `tx`.
    pub(crate) fn new(tx: &'t Transaction<'t>) -> Self {
        SqliteSink {
            tx,
            statements: HashMap::new(),
            edge_statements: HashMap::new(),
            waiting: Vec::new(),
        }
    }
}

/// An upsert of a tracked record waiting in a SQLite batch.
struct WaitingUpsert {
    line: usize,
    statement: WaitingStatement,
    values: Vec<SqlValue>,
}

/// The statement a waiting upsert runs.
enum WaitingStatement {
    /// Its entry in the entity statement cache, prepared already.
    Cached((usize, u128)),
    /// Its SQL, for upserts without a cache entry.
    Sql(String),
}

/// The most tracked upserts a SQLite batch holds (one read of their values before).
const SQLITE_TRACKED_BATCH: usize = 500;

impl ImportSink for SqliteSink<'_> {
    fn upsert(
        &mut self,
        changes: &mut dyn ChangeCapture,
        tracked: Option<(usize, &str)>,
        target: Target,
        key: Option<(usize, u128)>,
        table: &str,
        names: &[&str],
        key_columns: &[&str],
        params: &[Bound<'_>],
        line: usize,
    ) -> Result<(), ImportError> {
        let build_sql = || upsert_sql(table, names, key_columns);
        let SqliteSink {
            tx,
            statements,
            edge_statements,
            waiting,
        } = self;
        if let Some((entity, id)) = tracked {
            // Its values before are read with the rest of its batch, just before the
            // batch is written.
            let statement = match (target, key) {
                (Target::Entity, Some(key)) => {
                    if let std::collections::hash_map::Entry::Vacant(entry) = statements.entry(key)
                    {
                        let statement = tx
                            .prepare(&build_sql())
                            .map_err(|e| sqlite_error(Some(line), e))?;
                        entry.insert(statement);
                    }
                    WaitingStatement::Cached(key)
                }
                _ => WaitingStatement::Sql(build_sql()),
            };
            changes.defer(entity, id);
            waiting.push(WaitingUpsert {
                line,
                statement,
                values: params.iter().map(Bound::to_value).collect(),
            });
            if waiting.len() >= SQLITE_TRACKED_BATCH {
                write_waiting(tx, statements, waiting, changes)?;
            }
            return Ok(());
        }
        if !waiting.is_empty() {
            // Written in import order: the waiting upserts first.
            write_waiting(tx, statements, waiting, changes)?;
        }
        let cache = match target {
            Target::Entity => statements,
            Target::Edge => edge_statements,
        };
        execute_cached(
            tx,
            cache,
            key,
            build_sql,
            rusqlite::params_from_iter(params),
        )
        .map(drop)
        .map_err(|e| sqlite_error(Some(line), e))
    }

    fn flush(&mut self, changes: &mut dyn ChangeCapture) -> Result<(), ImportError> {
        write_waiting(self.tx, &mut self.statements, &mut self.waiting, changes)
    }

    fn writer(&self) -> &dyn Writer {
        &**self.tx
    }

    fn existing(
        &mut self,
        sql: &str,
        ids: &[&str],
        line: usize,
    ) -> Result<Vec<String>, ImportError> {
        let mut statement = self
            .tx
            .prepare_cached(sql)
            .map_err(|e| sqlite_error(Some(line), e))?;
        let rows = statement
            .query_map(rusqlite::params_from_iter(ids), |row| {
                Ok(match row.get_ref(0)? {
                    rusqlite::types::ValueRef::Text(text) => {
                        String::from_utf8_lossy(text).into_owned()
                    }
                    rusqlite::types::ValueRef::Integer(n) => n.to_string(),
                    other => format!("{other:?}"),
                })
            })
            .map_err(|e| sqlite_error(Some(line), e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| sqlite_error(Some(line), e))
    }

    fn first_error(&mut self, changes: &mut dyn ChangeCapture, error: ImportError) -> ImportError {
        self.flush(changes).err().unwrap_or(error)
    }
}

/// Writes the waiting upserts of tracked records (SQLite), after reading their values
/// before in one statement. The batch is emptied first: after an error nothing waits.
fn write_waiting<'t>(
    tx: &'t Transaction<'t>,
    statements: &mut HashMap<(usize, u128), rusqlite::Statement<'t>>,
    waiting: &mut Vec<WaitingUpsert>,
    changes: &mut dyn ChangeCapture,
) -> Result<(), ImportError> {
    let batch = std::mem::take(waiting);
    let Some(first) = batch.first() else {
        return Ok(());
    };
    changes
        .capture_waiting(&**tx)
        .map_err(|e| exec_error(Some(first.line), e))?;
    for upsert in batch {
        let params = rusqlite::params_from_iter(upsert.values.iter());
        let written = match &upsert.statement {
            WaitingStatement::Cached(key) => match statements.get_mut(key) {
                Some(statement) => statement.execute(params),
                // Entries are never removed while the import runs.
                None => Err(rusqlite::Error::InvalidQuery),
            },
            WaitingStatement::Sql(sql) => {
                tx.prepare_cached(sql).and_then(|mut s| s.execute(params))
            }
        };
        written.map_err(|e| sqlite_error(Some(upsert.line), e))?;
    }
    Ok(())
}

/// Runs an upsert through a statement prepared once per (table, column set).
fn execute_cached<'t>(
    tx: &'t Transaction<'t>,
    cache: &mut HashMap<(usize, u128), rusqlite::Statement<'t>>,
    key: Option<(usize, u128)>,
    build_sql: impl FnOnce() -> String,
    params: impl rusqlite::Params,
) -> rusqlite::Result<usize> {
    match key {
        Some(key) => {
            let statement = match cache.entry(key) {
                std::collections::hash_map::Entry::Occupied(entry) => entry.into_mut(),
                std::collections::hash_map::Entry::Vacant(entry) => {
                    entry.insert(tx.prepare(&build_sql())?)
                }
            };
            statement.execute(params)
        }
        None => tx.prepare_cached(&build_sql())?.execute(params),
    }
}

/// An import error for a statement SQLite refused.
pub(crate) fn sqlite_error(line: Option<usize>, error: rusqlite::Error) -> ImportError {
    let message = match &error {
        rusqlite::Error::SqliteFailure(code, Some(message)) => {
            format!(
                "the database refused the record ({:?}: {message})",
                code.code
            )
        }
        other => format!("the database refused the record ({other})"),
    };
    ImportError {
        line,
        field: None,
        message,
    }
}
