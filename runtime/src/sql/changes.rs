//! Change tracking: what every write path records for entities with `change_tracking`.
//!
//! An import (and every typed write, which runs as one) reads the tracked values of a record
//! the first time it touches it (its content and metadata fields), and when it finishes takes
//! them again (from its last write when that gave them all as text, otherwise read back):
//! each record whose values differ gets one row in
//! [`CHANGES_TABLE`](crate::spec::CHANGES_TABLE), written in the import's transaction —
//! `created`, `updated` or `deleted`, the unified diff of the content (with `similar`), the
//! lines added and removed, the metadata before and after, and the content after (so two
//! versions can be compared). A failed or rolled-back write records nothing; a write that
//! changes nothing records nothing.

use std::collections::HashMap;

use crate::sql::value::SqlValue;
use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::spec::{CHANGES_TABLE, ChangeTrackingSpec, EntitySpec, FieldType, SchemaSpec};

use super::backend::ExecError;
use super::backend::Writer;
use super::value::Bound;
use crate::sql::text::ident::quote;

/// The tracked values of a record at one moment.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Snapshot {
    /// The content the diff is computed over.
    pub content: String,
    /// The metadata fields' values, in the order of the entity's `metadata_fields`.
    pub metadata: Vec<Value>,
}

/// A snapshot's metadata as the JSON object the change log stores, written straight from the
/// field names and values.
struct MetadataJson<'a>(&'a [String], &'a [Value]);

impl Serialize for MetadataJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().zip(self.1))
    }
}

/// The metadata `values` of the fields `names` as the JSON object the change log stores.
fn metadata_json(names: &[String], values: &[Value]) -> String {
    serde_json::to_string(&MetadataJson(names, values)).unwrap_or_else(|_| "{}".to_owned())
}

/// The columns read for an entity's snapshot: the content columns, then the metadata fields.
pub(crate) struct SnapshotPlan<'s> {
    entity: &'s EntitySpec,
    tracking: &'s ChangeTrackingSpec,
    /// The content field, or every stored field (rendered `name: value`, one a line).
    content_columns: Vec<&'s str>,
}

impl<'s> SnapshotPlan<'s> {
    /// The snapshot columns of `entity`, tracked as `tracking` says.
    pub(crate) fn new(entity: &'s EntitySpec, tracking: &'s ChangeTrackingSpec) -> Self {
        let content_columns = match &tracking.content_field {
            Some(field) => vec![field.as_str()],
            None => entity.fields.iter().map(|f| f.name.as_str()).collect(),
        };
        SnapshotPlan {
            entity,
            tracking,
            content_columns,
        }
    }

    fn select_sql(&self, ids: usize) -> String {
        let mut columns: Vec<String> = vec![quote(&self.entity.unique_field)];
        columns.extend(self.content_columns.iter().map(|c| quote(c)));
        columns.extend(self.tracking.metadata_fields.iter().map(|c| quote(c)));
        let placeholders: Vec<String> = (1..=ids).map(|i| format!("?{i}")).collect();
        format!(
            "SELECT {} FROM {} WHERE {} IN ({})",
            columns.join(", "),
            quote(&self.entity.table),
            quote(&self.entity.unique_field),
            placeholders.join(", ")
        )
    }

    /// The fields a snapshot reads, in order: the content columns, then the metadata fields.
    pub(crate) fn columns(&self) -> impl Iterator<Item = &'s str> {
        let metadata = self.tracking.metadata_fields.iter().map(String::as_str);
        self.content_columns.clone().into_iter().chain(metadata)
    }

    /// A row read with [`SnapshotPlan::select_sql`]: the record's id and its snapshot.
    fn snapshot(&self, row: Vec<SqlValue>) -> (String, Snapshot) {
        let mut row = row.into_iter();
        let id = text_of(row.next());
        (id, self.snapshot_of(row))
    }

    /// The snapshot of the values of [`SnapshotPlan::columns`], in order.
    pub(crate) fn snapshot_of(&self, values: impl Iterator<Item = SqlValue>) -> Snapshot {
        let mut values = values.into_iter();
        let content = self.content(values.by_ref().take(self.content_columns.len()));
        let metadata = values.map(json_of).collect();
        Snapshot { content, metadata }
    }

    /// A snapshot's metadata as the change log stores it: a JSON object of the metadata
    /// fields, in their order.
    pub(crate) fn metadata_json(&self, snapshot: &Snapshot) -> String {
        metadata_json(&self.tracking.metadata_fields, &snapshot.metadata)
    }

    /// A snapshot from its content and its metadata as [`SnapshotPlan::metadata_json`] wrote
    /// it (a field it lacks is null).
    pub(crate) fn parse(&self, content: String, metadata: &str) -> Snapshot {
        let mut object: serde_json::Map<String, Value> =
            serde_json::from_str(metadata).unwrap_or_default();
        let metadata = self
            .tracking
            .metadata_fields
            .iter()
            .map(|name| object.remove(name).unwrap_or(Value::Null))
            .collect();
        Snapshot { content, metadata }
    }

    /// The content of the values of the content columns, in order.
    fn content(&self, mut values: impl Iterator<Item = SqlValue>) -> String {
        match &self.tracking.content_field {
            Some(_) => text_of(values.next()),
            None => self
                .content_columns
                .iter()
                .zip(values)
                .map(|(name, value)| format!("{name}: {}\n", json_of(value)))
                .collect(),
        }
    }
}

/// Text for the diff: text as it is, numbers written out, null as nothing.
pub(crate) fn text_of(value: Option<SqlValue>) -> String {
    match value {
        Some(SqlValue::Text(text)) => text,
        Some(SqlValue::Integer(n)) => n.to_string(),
        Some(SqlValue::Real(n)) => n.to_string(),
        _ => String::new(),
    }
}

fn json_of(value: SqlValue) -> Value {
    match value {
        SqlValue::Null | SqlValue::Blob(_) => Value::Null,
        SqlValue::Integer(n) => Value::from(n),
        SqlValue::Real(n) => serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number),
        SqlValue::Text(text) => Value::String(text),
    }
}

/// The ids read per statement.
const IDS_PER_READ: usize = 500;

/// How each tracked entity's snapshots are read, built once per import.
struct EntityReads<'s> {
    plan: SnapshotPlan<'s>,
    /// Whether every column of the snapshot is stored as the text an import line gives
    /// (string and enum fields), so a line giving them all tells the values after its write.
    text_columns: bool,
    /// The statement reading one record.
    one: String,
    /// The statement reading [`IDS_PER_READ`] records.
    full_chunk: String,
}

/// A record an import touched.
struct Touched {
    /// Its entity's index in the spec.
    entity: usize,
    /// The value of its unique field.
    id: String,
    /// Its values before the import (`None`: it did not exist, or they are not read yet).
    before: Option<Snapshot>,
    /// Its values after the import's last write to it, when that write gave every tracked
    /// column (otherwise they are read back at the end).
    written: Option<Snapshot>,
}

/// The changes of one import: the tracked values of each record it touched, as they were
/// before its first write.
///
/// Upserts of tracked records are written in batches on both backends, so the records of a
/// batch are noted ([`Tracker::defer`]) and read together just before the batch is written
/// ([`Tracker::capture_waiting`]): one statement instead of one a record. A delete reads its
/// record alone, just before ([`Tracker::capture`]).
pub(crate) struct Tracker<'s> {
    spec: &'s SchemaSpec,
    /// By entity index: how to read its snapshots (`None`: not tracked).
    reads: Vec<Option<EntityReads<'s>>>,
    /// The records touched, in the order first touched.
    touched: Vec<Touched>,
    /// By entity index: a touched record's id → its place in `touched`.
    places: Vec<HashMap<String, usize>>,
    /// The places of touched records whose values before are not read yet (they are not
    /// written yet either).
    waiting: Vec<usize>,
}

impl<'s> Tracker<'s> {
    /// A tracker for an import into `spec`.
    pub fn new(spec: &'s SchemaSpec) -> Self {
        let reads = spec
            .entities
            .iter()
            .map(|entity| {
                entity.change_tracking.as_ref().map(|tracking| {
                    let plan = SnapshotPlan::new(entity, tracking);
                    let text_columns = plan
                        .content_columns
                        .iter()
                        .copied()
                        .chain(tracking.metadata_fields.iter().map(String::as_str))
                        .all(|column| {
                            entity.fields.iter().any(|field| {
                                field.name == column
                                    && matches!(field.ty, FieldType::String | FieldType::Enum)
                            })
                        });
                    EntityReads {
                        text_columns,
                        one: plan.select_sql(1),
                        full_chunk: plan.select_sql(IDS_PER_READ),
                        plan,
                    }
                })
            })
            .collect();
        Tracker {
            spec,
            reads,
            touched: Vec::new(),
            places: vec![HashMap::new(); spec.entities.len()],
            waiting: Vec::new(),
        }
    }

    /// The place in `touched` of a record touched before.
    fn place(&self, entity: usize, id: &str) -> Option<usize> {
        self.places.get(entity)?.get(id).copied()
    }

    /// Notes an upsert of a tracked record: `value` gives the value it writes to a column (if
    /// it writes that column). When it writes every tracked column as text, those are the
    /// record's values after it; otherwise they are read back at the end.
    pub fn written<'v>(
        &mut self,
        entity: usize,
        id: &str,
        value: impl Fn(&str) -> Option<&'v Bound<'v>>,
    ) {
        let (Some(Some(reads)), Some(place)) = (self.reads.get(entity), self.place(entity, id))
        else {
            return;
        };
        let snapshot = if reads.text_columns {
            let plan = &reads.plan;
            let text = |column: &str| match value(column)? {
                Bound::Text(text) => Some(SqlValue::Text((*text).to_owned())),
                Bound::Value(value @ (SqlValue::Text(_) | SqlValue::Null)) => Some(value.clone()),
                Bound::Value(_) => None,
            };
            let content: Option<Vec<SqlValue>> =
                plan.content_columns.iter().map(|c| text(c)).collect();
            let metadata: Option<Vec<Value>> = plan
                .tracking
                .metadata_fields
                .iter()
                .map(|c| text(c).map(json_of))
                .collect();
            content.zip(metadata).map(|(content, metadata)| Snapshot {
                content: plan.content(content.into_iter()),
                metadata,
            })
        } else {
            None
        };
        self.touched[place].written = snapshot;
    }

    /// Notes a delete of a tracked record: its values after are read back at the end.
    pub fn deleted(&mut self, entity: usize, id: &str) {
        if let Some(place) = self.place(entity, id) {
            self.touched[place].written = None;
        }
    }

    /// Whether `entity` (an index into the spec's entities) is tracked.
    pub fn tracks(&self, entity: usize) -> bool {
        self.reads.get(entity).is_some_and(Option::is_some)
    }

    /// Notes the first touch of a record: its place in `touched`, or `None` when it was
    /// touched before or is not tracked.
    fn first_touch(&mut self, entity: usize, id: &str) -> Option<usize> {
        if !self.tracks(entity) || self.place(entity, id).is_some() {
            return None;
        }
        let place = self.touched.len();
        self.touched.push(Touched {
            entity,
            id: id.to_owned(),
            before: None,
            written: None,
        });
        self.places[entity].insert(id.to_owned(), place);
        Some(place)
    }

    /// Reads the record's tracked values now, before its first write in this import.
    pub fn capture(&mut self, conn: &dyn Writer, entity: usize, id: &str) -> Result<(), ExecError> {
        let Some(place) = self.first_touch(entity, id) else {
            return Ok(());
        };
        let Some(reads) = &self.reads[entity] else {
            return Ok(());
        };
        let mut rows = conn.rows(&reads.one, &[SqlValue::Text(id.to_owned())])?;
        self.touched[place].before = rows.pop().map(|row| reads.plan.snapshot(row).1);
        Ok(())
    }

    /// Notes a record about to be written later; its values are read by the next
    /// [`Tracker::capture_waiting`], which must run before that write.
    pub fn defer(&mut self, entity: usize, id: &str) {
        if let Some(place) = self.first_touch(entity, id) {
            self.waiting.push(place);
        }
    }

    /// Reads the values of every record noted with [`Tracker::defer`] since the last call.
    pub fn capture_waiting(&mut self, conn: &dyn Writer) -> Result<(), ExecError> {
        if self.waiting.is_empty() {
            return Ok(());
        }
        let waiting = std::mem::take(&mut self.waiting);
        for (entity, reads) in self.reads.iter().enumerate() {
            let Some(reads) = reads else { continue };
            let places: Vec<usize> = waiting
                .iter()
                .copied()
                .filter(|place| self.touched[*place].entity == entity)
                .collect();
            if places.is_empty() {
                continue;
            }
            let ids: Vec<&str> = places
                .iter()
                .map(|place| self.touched[*place].id.as_str())
                .collect();
            let mut found = read_snapshots(conn, reads, &ids)?;
            for place in places {
                let touched = &mut self.touched[place];
                touched.before = found.remove(&touched.id);
            }
        }
        Ok(())
    }

    /// Compares what each touched record holds now with what it held before and appends one
    /// change per record that differs, then applies the retention. Returns the changes
    /// recorded.
    pub fn record(mut self, conn: &dyn Writer) -> Result<usize, ExecError> {
        // Every write has been sent by now, each batch after reading its records' values.
        debug_assert!(self.waiting.is_empty());
        if self.touched.is_empty() {
            return Ok(0);
        }
        let spec = self.spec;
        let timestamp = now();
        let mut after: Vec<HashMap<String, Snapshot>> = vec![HashMap::new(); spec.entities.len()];
        for (entity, reads) in self.reads.iter().enumerate() {
            let Some(reads) = reads else { continue };
            let ids: Vec<&str> = self
                .touched
                .iter()
                .filter(|touched| touched.entity == entity && touched.written.is_none())
                .map(|touched| touched.id.as_str())
                .collect();
            if !ids.is_empty() {
                after[entity] = read_snapshots(conn, reads, &ids)?;
            }
        }
        let pairs: Vec<Pair<'_>> = self
            .touched
            .iter_mut()
            .map(|touched| Pair {
                entity: &spec.entities[touched.entity],
                old: touched.before.take(),
                new: touched
                    .written
                    .take()
                    .or_else(|| after[touched.entity].remove(&touched.id)),
                id: &touched.id,
            })
            .collect();
        let rows = change_rows(pairs, &timestamp);
        let recorded = rows.len();
        let table = quote(CHANGES_TABLE);
        let mut inserter = ChangeInserter::new(conn, table.clone());
        for row in rows {
            inserter.push(conn, row)?;
        }
        inserter.finish(conn)?;
        if let Some(keep) = spec
            .change_log
            .as_ref()
            .and_then(|log| log.max_changes_per_record)
        {
            for touched in &self.touched {
                prune(
                    conn,
                    &table,
                    &spec.entities[touched.entity].name,
                    &touched.id,
                    keep,
                )?;
            }
        }
        Ok(recorded)
    }
}

/// The snapshots of the records `ids` that exist, by id.
fn read_snapshots(
    conn: &dyn Writer,
    reads: &EntityReads<'_>,
    ids: &[&str],
) -> Result<HashMap<String, Snapshot>, ExecError> {
    let mut found = HashMap::with_capacity(ids.len());
    for chunk in ids.chunks(IDS_PER_READ) {
        let params: Vec<SqlValue> = chunk
            .iter()
            .map(|id| SqlValue::Text((*id).to_owned()))
            .collect();
        let partial;
        let sql = if chunk.len() == IDS_PER_READ {
            &reads.full_chunk
        } else {
            partial = reads.plan.select_sql(chunk.len());
            &partial
        };
        for row in conn.rows(sql, &params)? {
            let (id, snapshot) = reads.plan.snapshot(row);
            found.insert(id, snapshot);
        }
    }
    Ok(found)
}

/// The instant of a write, in whole seconds (`2024-05-01T12:00:00Z`).
pub(crate) fn now() -> String {
    let now = jiff::Timestamp::now();
    jiff::Timestamp::from_second(now.as_second())
        .unwrap_or(now)
        .to_string()
}

/// The unified diff from `old` to `new` and the lines it adds and removes.
pub(crate) fn unified_diff(old: &str, new: &str, from: &str, to: &str) -> (String, u64, u64) {
    let diff = similar::TextDiff::from_lines(old, new);
    let (mut added, mut removed) = (0u64, 0u64);
    for op in diff.ops() {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        match tag {
            similar::DiffTag::Insert => added += new_range.len() as u64,
            similar::DiffTag::Delete => removed += old_range.len() as u64,
            similar::DiffTag::Replace => {
                added += new_range.len() as u64;
                removed += old_range.len() as u64;
            }
            similar::DiffTag::Equal => {}
        }
    }
    let text = diff
        .unified_diff()
        .context_radius(3)
        .missing_newline_hint(true)
        .header(from, to)
        .to_string();
    (text, added, removed)
}

/// A touched record's values before and after an import.
struct Pair<'a> {
    entity: &'a EntitySpec,
    id: &'a str,
    old: Option<Snapshot>,
    new: Option<Snapshot>,
}

/// Below this many records the change rows are computed on the writing thread alone.
const PARALLEL_FROM: usize = 2_000;

/// The change-log rows of `pairs` (in their order), diffs computed on every available core
/// for large imports: diffing is the part of recording that needs no database.
fn change_rows(pairs: Vec<Pair<'_>>, timestamp: &str) -> Vec<ChangeRow> {
    let rows_of = |pairs: Vec<Pair<'_>>| -> Vec<ChangeRow> {
        pairs
            .into_iter()
            .filter_map(|pair| {
                change_row(pair.entity, pair.id, pair.old.as_ref(), pair.new, timestamp)
            })
            .collect()
    };
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    if pairs.len() < PARALLEL_FROM || threads < 2 {
        return rows_of(pairs);
    }
    let per_thread = pairs.len().div_ceil(threads);
    let mut chunks: Vec<Vec<Pair<'_>>> = Vec::with_capacity(threads);
    let mut pairs = pairs.into_iter().peekable();
    while pairs.peek().is_some() {
        chunks.push(pairs.by_ref().take(per_thread).collect());
    }
    std::thread::scope(|scope| {
        let mut chunks = chunks.into_iter();
        let first = chunks.next();
        let handles: Vec<_> = chunks
            .map(|chunk| scope.spawn(move || rows_of(chunk)))
            .collect();
        let mut rows = first.map(rows_of).unwrap_or_default();
        for handle in handles {
            match handle.join() {
                Ok(more) => rows.extend(more),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        rows
    })
}

/// The change-log row for a record that held `old` and now holds `new`; `None` when nothing
/// tracked changed.
pub(crate) fn change_row(
    entity: &EntitySpec,
    id: &str,
    old: Option<&Snapshot>,
    new: Option<Snapshot>,
    timestamp: &str,
) -> Option<ChangeRow> {
    let change_type = match (old, &new) {
        (None, None) => return None,
        (Some(old), Some(new)) if old == new => return None,
        (None, Some(_)) => "created",
        (Some(_), Some(_)) => "updated",
        (Some(_), None) => "deleted",
    };
    let old_content = old.map_or("", |s| s.content.as_str());
    let new_content = new.as_ref().map_or("", |s| s.content.as_str());
    let name = format!("{}/{id}", entity.name);
    let (diff, added, removed) = unified_diff(old_content, new_content, &name, &name);
    let names = entity
        .change_tracking
        .as_ref()
        .map_or(&[][..], |tracking| &tracking.metadata_fields);
    let metadata = |snapshot: Option<&Snapshot>| match snapshot {
        Some(snapshot) => SqlValue::Text(metadata_json(names, &snapshot.metadata)),
        None => SqlValue::Null,
    };
    let metadata_before = metadata(old);
    let metadata_after = metadata(new.as_ref());
    Some([
        SqlValue::Text(entity.name.clone()),
        SqlValue::Text(id.to_owned()),
        SqlValue::Text(timestamp.to_owned()),
        SqlValue::Text(change_type.to_owned()),
        SqlValue::Text(diff),
        SqlValue::Integer(added as i64),
        SqlValue::Integer(removed as i64),
        metadata_before,
        metadata_after,
        new.map_or(SqlValue::Null, |s| SqlValue::Text(s.content)),
    ])
}

/// One row of the change log, its values in the order of [`CHANGE_COLUMNS`].
pub(crate) type ChangeRow = [SqlValue; CHANGE_COLUMNS.len()];

const CHANGE_COLUMNS: [&str; 10] = [
    "entity",
    "record_id",
    "timestamp",
    "change_type",
    "diff",
    "lines_added",
    "lines_removed",
    "metadata_before",
    "metadata_after",
    "content",
];

/// Rows per INSERT statement on a database server, where each statement is a round trip.
const SERVER_ROWS_PER_INSERT: usize = 200;

/// Rows per INSERT statement on SQLite: each statement run has its own overhead (and a log
/// created by an earlier version, whose check is `IN (...)`, builds a temporary table for it
/// once per run), so several rows a statement cost less than one.
const SQLITE_ROWS_PER_INSERT: usize = 64;

/// `INSERT` of `rows` change rows into `table` (quoted).
fn insert_sql(table: &str, rows: usize) -> String {
    let columns: Vec<String> = CHANGE_COLUMNS.iter().map(|c| quote(c)).collect();
    let width = CHANGE_COLUMNS.len();
    let values: Vec<String> = (0..rows)
        .map(|row| {
            let places: Vec<String> = (1..=width)
                .map(|i| format!("?{}", row * width + i))
                .collect();
            format!("({})", places.join(", "))
        })
        .collect();
    format!(
        "INSERT INTO {table} ({}) VALUES {}",
        columns.join(", "),
        values.join(", ")
    )
}

/// Change rows on their way into the log, `rows_per_insert` a statement.
pub(crate) struct ChangeInserter {
    /// The change log (quoted, qualified where it is not the connection's own).
    table: String,
    rows_per_insert: usize,
    /// The statement for a full batch, built on first use.
    full_batch: Option<String>,
    /// The values of the rows waiting, row after row.
    values: Vec<SqlValue>,
}

impl ChangeInserter {
    /// Rows for the change log `table` (quoted) of `conn`.
    pub(crate) fn new(conn: &dyn Writer, table: String) -> Self {
        let rows_per_insert = match conn.dialect() {
            super::backend::SqlDialect::Sqlite => SQLITE_ROWS_PER_INSERT,
            _ => SERVER_ROWS_PER_INSERT,
        };
        ChangeInserter {
            table,
            rows_per_insert,
            full_batch: None,
            values: Vec::new(),
        }
    }

    /// Adds a row, sending a full batch.
    pub(crate) fn push(&mut self, conn: &dyn Writer, row: ChangeRow) -> Result<(), ExecError> {
        self.values.extend(row);
        if self.values.len() == self.rows_per_insert * CHANGE_COLUMNS.len() {
            let rows = self.rows_per_insert;
            let table = &self.table;
            let sql = self
                .full_batch
                .get_or_insert_with(|| insert_sql(table, rows));
            conn.execute(sql, std::mem::take(&mut self.values))?;
        }
        Ok(())
    }

    /// Sends the rows still waiting.
    pub(crate) fn finish(self, conn: &dyn Writer) -> Result<(), ExecError> {
        if self.values.is_empty() {
            return Ok(());
        }
        let rows = self.values.len() / CHANGE_COLUMNS.len();
        conn.execute(&insert_sql(&self.table, rows), self.values)?;
        Ok(())
    }
}

/// Keeps the newest `keep` changes of one record in the change log `table` (quoted).
pub(crate) fn prune(
    conn: &dyn Writer,
    table: &str,
    entity: &str,
    id: &str,
    keep: u32,
) -> Result<(), ExecError> {
    conn.execute(
        &format!(
            "DELETE FROM {table} WHERE \"entity\" = ?1 AND \"record_id\" = ?2 AND \"id\" NOT IN \
             (SELECT \"id\" FROM {table} WHERE \"entity\" = ?1 AND \"record_id\" = ?2 \
             ORDER BY \"id\" DESC LIMIT ?3)"
        ),
        vec![
            SqlValue::Text(entity.to_owned()),
            SqlValue::Text(id.to_owned()),
            SqlValue::Integer(i64::from(keep)),
        ],
    )?;
    Ok(())
}

impl crate::sql::backend::import_sink::ChangeCapture for Tracker<'_> {
    fn defer(&mut self, entity: usize, id: &str) {
        Tracker::defer(self, entity, id);
    }

    fn capture_waiting(&mut self, conn: &dyn Writer) -> Result<(), ExecError> {
        Tracker::capture_waiting(self, conn)
    }
}
