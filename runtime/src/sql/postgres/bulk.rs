//! Long runs of an import's rows, written while the import reads on.
//!
//! A batch of rows of one table goes out with binary `COPY` on the import's connection. While
//! the import reads, the rows it parses are handed to the copy one by one ([`Rows`]), so the
//! server stores them as they come; the import waits for the batch only before its next
//! statement. A batch is first copied straight into its table, the fastest way into
//! PostgreSQL; when a row already exists (a unique key is taken) that copy is undone and the
//! batch is copied into a staging table instead and upserted from it in one statement (as are
//! the table's later batches of the same import, which the import then hands over whole).
//! Every batch runs inside a savepoint: one the server refuses is rolled back by the caller,
//! which replays its rows one by one to name the line at fault.

use deadpool_postgres::Object;
use tokio::sync::mpsc;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::{ToSql, Type};

use super::super::value::SqlValue;
use super::types::PgParam;
use crate::sql::backend::ExecError;
use crate::sql::postgres::driver::Pending;
use crate::sql::postgres::session::Session;
use crate::sql::text::ident::quote;

/// Rows of one table to write, and how.
pub(crate) struct BulkBatch {
    /// The table written.
    pub table: String,
    /// The columns given, in the order of each row's values.
    pub columns: Vec<String>,
    /// The `ON CONFLICT` clause that turns an insert of these columns into an upsert.
    pub on_conflict: String,
    /// The staging table of this table and column set (created when first needed).
    pub stage: String,
    /// Whether to try copying straight into the table first.
    pub direct: bool,
    /// The rows known when the batch starts: values of `columns`, in order.
    pub rows: Vec<Vec<SqlValue>>,
}

/// How a batch the server took was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sent {
    /// Copied straight into its table.
    Direct,
    /// Some of its keys existed: upserted from the staging table.
    Staged,
}

/// A batch the server did not take: why, and its rows.
pub(crate) struct Refused {
    pub error: ExecError,
    pub rows: Vec<Vec<SqlValue>>,
}

/// The rows still coming to a batch being copied, handed over in chunks; [`Rows::finish`]
/// ends the batch.
pub(crate) struct Rows {
    sender: mpsc::Sender<Vec<Vec<SqlValue>>>,
    /// The driver's runtime, to wait on when the copy is behind.
    runtime: tokio::runtime::Handle,
    /// Rows not handed over yet.
    chunk: Vec<Vec<SqlValue>>,
}

impl Rows {
    /// Hands one more row to the copy, waiting while the copy is behind. False when the copy
    /// has stopped (the connection failed): the batch's answer says why.
    pub(crate) fn push(&mut self, row: Vec<SqlValue>) -> bool {
        self.chunk.push(row);
        self.chunk.len() < CHUNK_ROWS || self.hand_over()
    }

    /// Hands over the rows left: the batch has no more.
    pub(crate) fn finish(mut self) -> bool {
        self.chunk.is_empty() || self.hand_over()
    }

    fn hand_over(&mut self) -> bool {
        let chunk = std::mem::replace(&mut self.chunk, Vec::with_capacity(CHUNK_ROWS));
        match self.sender.try_send(chunk) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Closed(_)) => false,
            Err(mpsc::error::TrySendError::Full(chunk)) => {
                // Waits on the driver (this thread may be inside another runtime, where
                // tokio's own blocking send refuses to run).
                let (done, wait) = std::sync::mpsc::sync_channel(1);
                let sender = self.sender.clone();
                self.runtime.spawn(async move {
                    let _ = done.send(sender.send(chunk).await.is_ok());
                });
                wait.recv().unwrap_or(false)
            }
        }
    }
}

/// How many rows go to the copy at once.
const CHUNK_ROWS: usize = 64;

/// How many chunks wait between the import and the copy.
const CHUNKS_IN_TRANSIT: usize = 4;

/// The savepoint each batch runs in.
pub(crate) const SAVEPOINT: &str = "toolforge_import";

impl Session<'_> {
    /// Sends `batch` and returns at once, with the [`Rows`] that take the batch's further rows
    /// when `streamed` (copied straight in only). The session must not run anything else
    /// before the answer has been waited for. A refused batch's rows come back with the error
    /// (the rows of one taken are freed on the driver, not by the caller).
    pub(crate) fn start_bulk(
        &self,
        mut batch: BulkBatch,
        streamed: bool,
    ) -> (Pending<Result<Sent, Refused>>, Option<Rows>) {
        let (rows, mut more) = match self.driver.handle() {
            Some(runtime) if streamed && batch.direct => {
                let (sender, receiver) = mpsc::channel(CHUNKS_IN_TRANSIT);
                let rows = Rows {
                    sender,
                    runtime,
                    chunk: Vec::with_capacity(CHUNK_ROWS),
                };
                (Some(rows), Some(receiver))
            }
            _ => (None, None),
        };
        let connection = self.connection();
        let cancel = self.cancel.clone();
        let answer = self.driver.start(async move {
            let sent = match connection {
                Ok(connection) => match connection.get(&cancel).await {
                    Ok(client) => send(&client, &mut batch, more.as_mut())
                        .await
                        .map_err(ExecError::from),
                    Err(error) => Err(error),
                },
                Err(error) => Err(error),
            };
            if let Some(more) = more.as_mut() {
                // Whatever happened, the batch's rows are all kept (for the replay).
                drain(more, &mut batch.rows).await;
            }
            sent.map_err(|error| Refused {
                error,
                rows: batch.rows,
            })
        });
        (answer, rows)
    }
}

async fn drain(more: &mut Chunks, rows: &mut Vec<Vec<SqlValue>>) {
    while let Some(chunk) = more.recv().await {
        rows.extend(chunk);
    }
}

/// The receiving end of [`Rows`].
type Chunks = mpsc::Receiver<Vec<Vec<SqlValue>>>;

async fn send(
    client: &Object,
    batch: &mut BulkBatch,
    mut more: Option<&mut Chunks>,
) -> Result<Sent, tokio_postgres::Error> {
    let columns: Vec<String> = batch.columns.iter().map(|c| quote(c)).collect();
    let columns = columns.join(", ");
    if batch.direct {
        client
            .batch_execute(&format!("SAVEPOINT {SAVEPOINT}"))
            .await?;
        let copied = copy(
            client,
            &batch.table,
            &columns,
            &mut batch.rows,
            more.as_deref_mut(),
        )
        .await;
        match copied {
            Ok(()) => {
                client
                    .batch_execute(&format!("RELEASE SAVEPOINT {SAVEPOINT}"))
                    .await?;
                return Ok(Sent::Direct);
            }
            Err(error) if error.code() == Some(&SqlState::UNIQUE_VIOLATION) => {
                client
                    .batch_execute(&format!(
                        "ROLLBACK TO SAVEPOINT {SAVEPOINT}; RELEASE SAVEPOINT {SAVEPOINT}"
                    ))
                    .await?;
            }
            Err(error) => return Err(error),
        }
    }
    if let Some(more) = more {
        drain(more, &mut batch.rows).await;
    }
    // The staging table lives until the import commits: it is created outside the savepoint,
    // so a refused batch does not take it away.
    let stage = quote(&batch.stage);
    let table = quote(&batch.table);
    client
        .batch_execute(&format!(
            "CREATE TEMPORARY TABLE IF NOT EXISTS {stage} ON COMMIT DROP AS \
             SELECT {columns} FROM {table} WITH NO DATA; SAVEPOINT {SAVEPOINT}"
        ))
        .await?;
    copy(client, &batch.stage, &columns, &mut batch.rows, None).await?;
    client
        .batch_execute(&format!(
            "INSERT INTO {table} ({columns}) SELECT {columns} FROM {stage} {}; TRUNCATE {stage}; \
             RELEASE SAVEPOINT {SAVEPOINT}",
            batch.on_conflict
        ))
        .await?;
    Ok(Sent::Staged)
}

/// Writes `rows` (values of `columns`, quoted and joined) into `table` with one binary `COPY`,
/// then every row still coming from `more` (kept in `rows`) until the batch ends.
async fn copy(
    client: &Object,
    table: &str,
    columns: &str,
    rows: &mut Vec<Vec<SqlValue>>,
    more: Option<&mut Chunks>,
) -> Result<(), tokio_postgres::Error> {
    let table = quote(table);
    // The columns' types, from a statement prepared once per connection.
    let probe = client
        .prepare_cached(&format!("SELECT {columns} FROM {table} LIMIT 0"))
        .await?;
    let types: Vec<Type> = probe.columns().iter().map(|c| c.type_().clone()).collect();
    let sink = client
        .copy_in(&format!(
            "COPY {table} ({columns}) FROM STDIN (FORMAT binary)"
        ))
        .await?;
    let mut writer = std::pin::pin!(tokio_postgres::binary_copy::BinaryCopyInWriter::new(
        sink, &types
    ));
    for row in rows.iter() {
        write(writer.as_mut(), row).await?;
    }
    if let Some(more) = more {
        while let Some(chunk) = more.recv().await {
            let mut chunk = chunk.into_iter();
            while let Some(row) = chunk.next() {
                let written = write(writer.as_mut(), &row).await;
                rows.push(row);
                if let Err(error) = written {
                    // Every row is kept, in order, for the replay that names the culprit.
                    rows.extend(chunk);
                    drain(more, rows).await;
                    return Err(error);
                }
            }
        }
    }
    writer.finish().await.map(drop)
}

async fn write(
    writer: std::pin::Pin<&mut tokio_postgres::binary_copy::BinaryCopyInWriter>,
    row: &[SqlValue],
) -> Result<(), tokio_postgres::Error> {
    let params: Vec<PgParam<&SqlValue>> = row.iter().map(PgParam).collect();
    let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
    writer.write(&refs).await
}
