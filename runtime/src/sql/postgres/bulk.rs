//! Long runs of an import's rows, written while the next run is read.
//!
//! A batch of rows of one table goes out with binary `COPY` on the import's connection and the
//! import reads on meanwhile; it waits for the batch only before its next statement. A batch is
//! first copied straight into its table, the fastest way into PostgreSQL; when a row already
//! exists (a unique key is taken) that copy is undone and the batch is copied into a staging
//! table instead and upserted from it in one statement, as are the table's later batches of
//! the same import. Every batch runs inside a savepoint: one the server refuses is rolled back
//! by the caller, which replays its rows one by one to name the line at fault.

use std::sync::Arc;

use deadpool_postgres::Object;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::{ToSql, Type};

use super::super::ident::quote;
use super::super::value::SqlValue;
use super::types::PgParam;
use super::{ExecError, Pending, Session};

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
    /// The rows: values of `columns`, in order.
    pub rows: Arc<Vec<Vec<SqlValue>>>,
}

/// How a batch the server took was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sent {
    /// Copied straight into its table.
    Direct,
    /// Some of its keys existed: upserted from the staging table.
    Staged,
}

/// The savepoint each batch runs in.
pub(crate) const SAVEPOINT: &str = "toolforge_import";

impl Session<'_> {
    /// Sends `batch` and returns at once; the session must not run anything else before the
    /// answer has been waited for.
    pub(crate) fn start_bulk(
        &self,
        batch: BulkBatch,
    ) -> Result<Pending<Result<Sent, ExecError>>, ExecError> {
        let connection = self.connection()?;
        let cancel = self.cancel.clone();
        Ok(self.driver.start(async move {
            let client = connection.get(&cancel).await?;
            send(&client, &batch).await.map_err(ExecError::from)
        }))
    }
}

async fn send(client: &Object, batch: &BulkBatch) -> Result<Sent, tokio_postgres::Error> {
    let columns: Vec<String> = batch.columns.iter().map(|c| quote(c)).collect();
    let columns = columns.join(", ");
    if batch.direct {
        client
            .batch_execute(&format!("SAVEPOINT {SAVEPOINT}"))
            .await?;
        match copy(client, &batch.table, &columns, &batch.rows).await {
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
    copy(client, &batch.stage, &columns, &batch.rows).await?;
    client
        .batch_execute(&format!(
            "INSERT INTO {table} ({columns}) SELECT {columns} FROM {stage} {}; TRUNCATE {stage}; \
             RELEASE SAVEPOINT {SAVEPOINT}",
            batch.on_conflict
        ))
        .await?;
    Ok(Sent::Staged)
}

/// Writes `rows` (values of `columns`, quoted and joined) into `table` with one binary `COPY`.
async fn copy(
    client: &Object,
    table: &str,
    columns: &str,
    rows: &[Vec<SqlValue>],
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
    for row in rows {
        let params: Vec<PgParam<&SqlValue>> = row.iter().map(PgParam).collect();
        let refs: Vec<&(dyn ToSql + Sync)> =
            params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
        writer.as_mut().write(&refs).await?;
    }
    writer.finish().await.map(drop)
}
