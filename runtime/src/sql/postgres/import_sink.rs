//! The PostgreSQL import pipeline: upserts gathered in batches of one table and column set,
//! long runs copied while the import reads on (`COPY` through a staging table when keys may
//! be taken), short ones written as one multi-row statement; a refused batch is replayed row by
//! row so the error names its line. Full-text postings are rewritten at the end for every
//! record written.

use std::collections::HashMap;

use crate::spec::EntitySpec;
use crate::sql::backend::import_sink::{
    ChangeCapture, ImportError, ImportSink, Target, at, exec_error,
};
use crate::sql::backend::upsert::{on_conflict, upsert_rows_sql, upsert_sql};
use crate::sql::backend::{BlockingReader, ExecError, Writer};
use crate::sql::postgres::driver::Pending;
use crate::sql::postgres::session::Session;
use crate::sql::postgres::{BulkBatch, Refused, Rows, SAVEPOINT, Sent};
use crate::sql::value::{Bound, SqlValue};

/// An import writing into a PostgreSQL write session's transaction.
pub(crate) struct PgSink<'t> {
    session: &'t Session<'t>,
    batch: Box<PgBatch>,
    /// The records written whose full-text postings must be rewritten: (entity index, unique
    /// id).
    reindex: Vec<(usize, String)>,
}

impl<'t> PgSink<'t> {
    /// A sink writing into `session`'s transaction.
    pub(crate) fn new(session: &'t Session<'t>) -> Self {
        PgSink {
            session,
            batch: Box::default(),
            reindex: Vec::new(),
        }
    }
}

impl ImportSink for PgSink<'_> {
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
        // Rows of one shape go in one batch, whichever statement cache SQLite would use.
        let _ = (target, key);
        let PgSink { session, batch, .. } = self;
        let values: Vec<SqlValue> = params.iter().map(Bound::to_value).collect();
        let key_hash = {
            use std::hash::{Hash, Hasher};
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            for i in key_columns
                .iter()
                .filter_map(|column| names.iter().position(|name| name == column))
            {
                match &values[i] {
                    SqlValue::Text(text) => text.hash(&mut hasher),
                    other => format!("{other:?}").hash(&mut hasher),
                }
            }
            hasher.finish()
        };
        let same_shape = batch.shape.as_ref().is_some_and(|(t, n, k)| {
            t == table
                && n.iter().map(String::as_str).eq(names.iter().copied())
                && k.iter().map(String::as_str).eq(key_columns.iter().copied())
        });
        if !same_shape || batch.keys.contains(&key_hash) || batch.is_full() {
            batch.send(session, changes)?;
        }
        if !same_shape {
            batch.shape = Some((
                table.to_owned(),
                names.iter().map(|n| (*n).to_owned()).collect(),
                key_columns.iter().map(|k| (*k).to_owned()).collect(),
            ));
        }
        batch.keys.insert(key_hash);
        if let Some((entity, id)) = tracked {
            changes.defer(entity, id);
        }
        batch.push(session, line, values, tracked.is_some())
    }

    fn flush(&mut self, changes: &mut dyn ChangeCapture) -> Result<(), ImportError> {
        self.batch.flush(self.session, changes)
    }

    fn writer(&self) -> &dyn Writer {
        self.session
    }

    fn existing(
        &mut self,
        sql: &str,
        ids: &[&str],
        line: usize,
    ) -> Result<Vec<String>, ImportError> {
        let params: Vec<SqlValue> = ids
            .iter()
            .map(|id| SqlValue::Text((*id).to_owned()))
            .collect();
        let rows = self
            .session
            .rows(sql, &params)
            .map_err(|e| exec_error(Some(line), e))?;
        Ok(rows
            .into_iter()
            .filter_map(|row| match row.into_iter().next() {
                Some(SqlValue::Text(id)) => Some(id),
                _ => None,
            })
            .collect())
    }

    fn full_text_written(&mut self, entity: usize, id: &Bound<'_>) {
        let id = match id {
            Bound::Text(text) => (*text).to_owned(),
            Bound::Value(SqlValue::Text(text)) => text.clone(),
            Bound::Value(other) => format!("{other:?}"),
        };
        self.reindex.push((entity, id));
    }

    fn finish_full_text(&mut self, entities: &[&EntitySpec]) -> Result<(), ImportError> {
        // The postings of every record written, from what is now stored.
        let mut ids: Vec<Vec<String>> = vec![Vec::new(); entities.len()];
        for (entity, id) in std::mem::take(&mut self.reindex) {
            if let Some(ids) = ids.get_mut(entity) {
                ids.push(id);
            }
        }
        for (entity, mut ids) in entities.iter().zip(ids) {
            if ids.is_empty() {
                continue;
            }
            ids.sort_unstable();
            ids.dedup();
            super::postings::reindex(self.session, entity, Some(&ids))
                .map_err(|e| exec_error(None, e))?;
        }
        Ok(())
    }

    fn first_error(&mut self, _changes: &mut dyn ChangeCapture, error: ImportError) -> ImportError {
        self.batch.end_stream();
        self.batch.settle(self.session).err().unwrap_or(error)
    }
}

/// Upserts waiting to be sent to PostgreSQL: rows of one table and one column set, in import
/// order, no two with the same key (a later upsert of a key waits for the batch holding the
/// earlier one, so the last one wins as it does row by row). Long runs are copied while the
/// import reads on ([`BulkBatch`]); short ones are one multi-row statement.
#[derive(Default)]
struct PgBatch {
    /// The table, the columns written and the key columns.
    shape: Option<(String, Vec<String>, Vec<String>)>,
    /// Each row's line.
    lines: Vec<usize>,
    /// Each row's values.
    rows: Vec<Vec<SqlValue>>,
    /// About how many bytes the rows' values take.
    bytes: usize,
    /// How many batches this import has copied.
    copied: u32,
    /// A hash of each row's key values (two keys with the same hash only end a batch early).
    keys: std::collections::HashSet<u64>,
    /// The batch being copied while rows are read, if any.
    stream: Option<Stream>,
    /// The batch sent and not answered yet.
    in_flight: Option<InFlight>,
    /// Tables where a copied row's key was taken: their later batches are upserted from a
    /// staging table rather than copied straight in.
    staged: std::collections::HashSet<String>,
    /// The staging tables' names, by table and columns.
    stages: HashMap<(String, Vec<String>), String>,
}

/// A batch being copied while the import reads on.
struct Stream {
    /// Takes the batch's further rows.
    rows: Rows,
    answer: Pending<Result<Sent, Refused>>,
}

/// A batch on its way to the server.
struct InFlight {
    /// The table, the columns written and the key columns.
    shape: (String, Vec<String>, Vec<String>),
    /// Each row's line.
    lines: Vec<usize>,
    answer: Pending<Result<Sent, Refused>>,
}

/// Batches of at least this many rows are copied while the import reads on; smaller ones are
/// one multi-row statement (fewer round trips).
const COPY_FROM_ROWS: usize = 64;

/// The rows of an import's first copied batch; each later one doubles, up to
/// [`MAX_COPY_ROWS`]. Small first batches let the server start early; large later ones cost
/// fewer statements.
const FIRST_COPY_ROWS: usize = 1_024;

/// The most rows of one copied batch.
const MAX_COPY_ROWS: usize = 16_384;

/// The most bytes of values one batch holds in memory.
const MAX_BATCH_BYTES: usize = 16 << 20;

impl PgBatch {
    /// The most rows of the next batch: a statement takes at most 65,535 parameters, so a table
    /// too wide to copy 64 rows at once is written in statements of fewer rows.
    fn row_limit(&self) -> usize {
        let width = self.shape.as_ref().map_or(1, |shape| shape.1.len().max(1));
        let by_statement = 65_535 / width;
        if by_statement < COPY_FROM_ROWS {
            by_statement
        } else {
            (FIRST_COPY_ROWS << self.copied.min(4)).min(MAX_COPY_ROWS)
        }
    }

    /// Whether the batch holds as many rows or bytes as one may.
    fn is_full(&self) -> bool {
        self.lines.len() >= self.row_limit() || self.bytes >= MAX_BATCH_BYTES
    }

    /// Adds one row of the current shape: handed to the copy under way, or kept, starting a
    /// copy when a run of untracked rows grows long enough.
    fn push(
        &mut self,
        session: &Session<'_>,
        line: usize,
        values: Vec<SqlValue>,
        tracked: bool,
    ) -> Result<(), ImportError> {
        self.bytes += values.iter().map(value_size).sum::<usize>();
        self.lines.push(line);
        if let Some(stream) = &mut self.stream {
            if stream.rows.push(values) {
                return Ok(());
            }
            // The copy stopped: its answer says why.
            self.end_stream();
            return Err(self
                .settle(session)
                .err()
                .unwrap_or_else(|| at(line, None, "the database stopped taking rows")));
        }
        self.rows.push(values);
        let Some(shape) = self.shape.clone() else {
            return Ok(());
        };
        if tracked || self.rows.len() < COPY_FROM_ROWS || self.staged.contains(&shape.0) {
            return Ok(());
        }
        // A long run of untracked rows copied straight in: the copy starts now and takes the
        // run's further rows as they are read.
        self.settle(session)?;
        let rows = std::mem::take(&mut self.rows);
        let (answer, rows) = self.start_copy(session, shape, rows, true);
        if let Some(rows) = rows {
            self.stream = Some(Stream { rows, answer });
        }
        Ok(())
    }

    /// Starts copying `rows` of `shape` (straight into the table unless its keys were found
    /// taken earlier in this import); `streamed`, the copy also takes the rows read next.
    fn start_copy(
        &mut self,
        session: &Session<'_>,
        (table, columns, key): (String, Vec<String>, Vec<String>),
        rows: Vec<Vec<SqlValue>>,
        streamed: bool,
    ) -> (Pending<Result<Sent, Refused>>, Option<Rows>) {
        let names: Vec<&str> = columns.iter().map(String::as_str).collect();
        let key: Vec<&str> = key.iter().map(String::as_str).collect();
        let batch = BulkBatch {
            on_conflict: on_conflict(&names, &key),
            stage: self.stage(),
            direct: !self.staged.contains(&table),
            table,
            columns,
            rows,
        };
        self.copied += 1;
        session.start_bulk(batch, streamed)
    }

    /// The staging table of the current shape.
    fn stage(&mut self) -> String {
        let Some((table, names, _)) = &self.shape else {
            return String::new();
        };
        let count = self.stages.len();
        self.stages
            .entry((table.clone(), names.clone()))
            .or_insert_with(|| format!("toolforge_import_stage_{count}"))
            .clone()
    }

    /// Ends the copy under way, if any: its batch is then on its way.
    fn end_stream(&mut self) {
        let Some(stream) = self.stream.take() else {
            return;
        };
        // A copy that stopped taking rows has failed: its answer says why.
        let _ = stream.rows.finish();
        if let Some(shape) = self.shape.clone() {
            self.in_flight = Some(InFlight {
                shape,
                lines: std::mem::take(&mut self.lines),
                answer: stream.answer,
            });
        }
        self.keys.clear();
        self.bytes = 0;
    }

    /// Sends every row waiting and waits until the server has taken them.
    fn flush(
        &mut self,
        session: &Session<'_>,
        changes: &mut dyn ChangeCapture,
    ) -> Result<(), ImportError> {
        self.send(session, changes)?;
        self.settle(session)
    }

    /// Sends the rows waiting, after the batch before them has been taken: a long run is copied
    /// in the background, a short one is written before this returns.
    fn send(
        &mut self,
        session: &Session<'_>,
        changes: &mut dyn ChangeCapture,
    ) -> Result<(), ImportError> {
        if self.stream.is_some() {
            self.end_stream();
            return Ok(());
        }
        self.settle(session)?;
        let Some(shape) = self.shape.clone() else {
            return Ok(());
        };
        if self.rows.is_empty() {
            return Ok(());
        }
        let first_line = self.lines.first().copied();
        // The values before this batch, read before it is written.
        changes
            .capture_waiting(session)
            .map_err(|e| exec_error(first_line, e))?;
        let rows = std::mem::take(&mut self.rows);
        let lines = std::mem::take(&mut self.lines);
        self.keys.clear();
        self.bytes = 0;
        if rows.len() >= COPY_FROM_ROWS {
            let (answer, _) = self.start_copy(session, shape.clone(), rows, false);
            self.in_flight = Some(InFlight {
                shape,
                lines,
                answer,
            });
            return Ok(());
        }
        let (table, names, key) = &shape;
        let names_ref: Vec<&str> = names.iter().map(String::as_str).collect();
        let key_ref: Vec<&str> = key.iter().map(String::as_str).collect();
        let sql = upsert_rows_sql(table, &names_ref, &key_ref, rows.len());
        let values: Vec<SqlValue> = rows.iter().flat_map(|row| row.iter().cloned()).collect();
        session
            .batch(&format!("SAVEPOINT {}", SAVEPOINT))
            .map_err(|e| exec_error(first_line, e))?;
        // Only full batches recur with the same statement: cache only those.
        let full = rows.len() == self.row_limit();
        match session.execute(&sql, values, full) {
            Ok(_) => session
                .batch(&format!("RELEASE SAVEPOINT {}", SAVEPOINT))
                .map_err(|e| exec_error(first_line, e)),
            Err(error) => Err(replay(session, &shape, lines, rows, error)),
        }
    }

    /// Waits for the batch on its way, if any.
    fn settle(&mut self, session: &Session<'_>) -> Result<(), ImportError> {
        let Some(flight) = self.in_flight.take() else {
            return Ok(());
        };
        let first_line = flight.lines.first().copied();
        match flight.answer.wait() {
            Ok(Ok(Sent::Direct)) => Ok(()),
            Ok(Ok(Sent::Staged)) => {
                self.staged.insert(flight.shape.0);
                Ok(())
            }
            Ok(Err(refused)) => Err(replay(
                session,
                &flight.shape,
                flight.lines,
                refused.rows,
                refused.error,
            )),
            Err(error) => Err(exec_error(first_line, error)),
        }
    }
}

impl Drop for PgBatch {
    fn drop(&mut self) {
        // The connection is busy until the batch on its way is answered.
        self.end_stream();
        if let Some(flight) = self.in_flight.take() {
            let _ = flight.answer.wait();
        }
    }
}

/// About how many bytes `value` takes.
fn value_size(value: &SqlValue) -> usize {
    match value {
        SqlValue::Text(text) => text.len(),
        SqlValue::Blob(bytes) => bytes.len(),
        _ => 8,
    }
}

/// The error of a batch the server refused, which is rolled back to its savepoint and its rows
/// sent one by one, so the error names the line that caused it.
fn replay(
    session: &Session<'_>,
    (table, names, key): &(String, Vec<String>, Vec<String>),
    lines: Vec<usize>,
    rows: Vec<Vec<SqlValue>>,
    error: ExecError,
) -> ImportError {
    let first_line = lines.first().copied();
    if let Err(error) = session.batch(&format!("ROLLBACK TO SAVEPOINT {}", SAVEPOINT)) {
        return exec_error(first_line, error);
    }
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let key: Vec<&str> = key.iter().map(String::as_str).collect();
    let one = upsert_sql(table, &names, &key);
    for (line, values) in lines.into_iter().zip(rows) {
        if let Err(error) = session.execute(&one, values, true) {
            return exec_error(Some(line), error);
        }
    }
    exec_error(first_line, error)
}
