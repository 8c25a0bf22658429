//! Where an import writes ([`ImportSink`]): a backend's write transaction, which upserts rows
//! (possibly in batches), answers whether a record exists and reports what it refused, with
//! the line it belongs to ([`ImportError`]). The import itself (`sql/import.rs`) drives a
//! sink; each backend implements one (`sql/sqlite/import_sink.rs`,
//! `sql/postgres/import_sink.rs`).

use crate::spec::EntitySpec;
use crate::sql::backend::{ExecError, Writer};
use crate::sql::value::Bound;

/// An import failure: where (line, field) and what. The message includes the underlying
/// SQLite or JSON error's text, so it has no separate `source()`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message} (nothing was imported)", location(*.line, .field.as_deref()))]
pub struct ImportError {
    /// The 1-based line (or record number for the Rust API), if the error belongs to one.
    pub line: Option<usize>,
    /// The field (`data.pages`, `from.id`, ...), if the error belongs to one.
    pub field: Option<String>,
    /// What is wrong and how to fix it.
    pub message: String,
}

/// `line 3, field `data.pages`: ` and the like: where an import error belongs.
fn location(line: Option<usize>, field: Option<&str>) -> String {
    match (line, field) {
        (Some(line), Some(field)) => format!("line {line}, field `{field}`: "),
        (Some(line), None) => format!("line {line}: "),
        (None, Some(field)) => format!("field `{field}`: "),
        (None, None) => String::new(),
    }
}

/// An import error belonging to `line` (and `field`).
pub(crate) fn at(line: usize, field: Option<String>, message: impl Into<String>) -> ImportError {
    ImportError {
        line: Some(line),
        field,
        message: message.into(),
    }
}

/// An import error for a statement the database refused.
pub(crate) fn exec_error(line: Option<usize>, error: ExecError) -> ImportError {
    let message = format!("the database refused the record ({})", error.describe());
    ImportError {
        line,
        field: None,
        message,
    }
}

/// Which statement cache an upsert uses.
#[derive(Clone, Copy)]
pub(crate) enum Target {
    /// An entity's table.
    Entity,
    /// A relationship's edge table.
    Edge,
}

/// What an import records of the tracked records it writes (the change log, `sql/changes.rs`):
/// which records a batch will change, and their values before, read just before the batch is
/// written.
pub(crate) trait ChangeCapture {
    /// The record `id` of the entity at `entity` will be written by the batch being built.
    fn defer(&mut self, entity: usize, id: &str);

    /// Reads the values before of the records deferred since the last call.
    fn capture_waiting(&mut self, conn: &dyn Writer) -> Result<(), ExecError>;
}

/// A backend's write transaction as an import writes through it.
pub(crate) trait ImportSink {
    /// Upserts one row of `table`: `params` are the values of the columns `names`, in order;
    /// `key_columns` identify the row; `key` names the statement's shape (its table and column
    /// set) for the statement cache. A row may wait in a batch until [`ImportSink::flush`].
    /// `tracked` names the record (entity index, id) when its entity's changes are tracked:
    /// `changes` reads its values before the row is written.
    #[allow(clippy::too_many_arguments)]
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
    ) -> Result<(), ImportError>;

    /// Writes every row still waiting in a batch.
    fn flush(&mut self, changes: &mut dyn ChangeCapture) -> Result<(), ImportError>;

    /// The connection inside the import's transaction.
    fn writer(&self) -> &dyn Writer;

    /// The ids `sql` (one `?N` parameter per id of `ids`, answering the ids found) finds.
    fn existing(
        &mut self,
        sql: &str,
        ids: &[&str],
        line: usize,
    ) -> Result<Vec<String>, ImportError>;

    /// The record `id` of the entity at `entity`, which has a full-text index, was written.
    /// A backend whose index is not kept by the database itself rewrites its postings in
    /// [`ImportSink::finish_full_text`]; the default does nothing.
    fn full_text_written(&mut self, entity: usize, id: &Bound<'_>) {
        let _ = (entity, id);
    }

    /// Brings the full-text indexes of `entities` (in the spec's order) up to date with the
    /// records written; the default does nothing (SQLite's triggers keep FTS5 in step).
    fn finish_full_text(&mut self, entities: &[&EntitySpec]) -> Result<(), ImportError> {
        let _ = entities;
        Ok(())
    }

    /// The import's first error, given that loading stopped with `error`: rows still waiting
    /// or on their way hold earlier lines, so their error (if the database refuses them)
    /// comes first.
    fn first_error(&mut self, changes: &mut dyn ChangeCapture, error: ImportError) -> ImportError;
}
