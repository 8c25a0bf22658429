//! Change tracking: what every write path records for entities with `change_tracking`.
//!
//! An import (and every typed write, which runs as one) reads the tracked values of a record
//! the first time it touches it (its content and metadata fields), and when it finishes reads
//! them again: each record whose values differ gets one row in
//! [`CHANGES_TABLE`](crate::spec::CHANGES_TABLE), written in the import's transaction —
//! `created`, `updated` or `deleted`, the unified diff of the content (with `similar`), the
//! lines added and removed, the metadata before and after, and the content after (so two
//! versions can be compared). A failed or rolled-back write records nothing; a write that
//! changes nothing records nothing.

use std::collections::HashMap;

use rusqlite::types::Value as SqlValue;
use serde_json::{Map, Value};

use crate::spec::{CHANGES_TABLE, ChangeTrackingSpec, EntitySpec, SchemaSpec};

use super::backend::ExecError;
use super::embeddings::Writer;
use super::ident::quote;

/// The tracked values of a record at one moment.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Snapshot {
    /// The content the diff is computed over.
    pub content: String,
    /// The metadata fields' values, by name.
    pub metadata: Map<String, Value>,
}

/// The columns read for an entity's snapshot: the content columns, then the metadata fields.
struct SnapshotPlan<'s> {
    entity: &'s EntitySpec,
    tracking: &'s ChangeTrackingSpec,
    /// The content field, or every stored field (rendered `name: value`, one a line).
    content_columns: Vec<&'s str>,
}

impl<'s> SnapshotPlan<'s> {
    fn new(entity: &'s EntitySpec, tracking: &'s ChangeTrackingSpec) -> Self {
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

    fn snapshot(&self, row: &[SqlValue]) -> (String, Snapshot) {
        let id = text_of(row.first());
        let content_values = &row[1..1 + self.content_columns.len()];
        let content = match &self.tracking.content_field {
            Some(_) => text_of(content_values.first()),
            None => self
                .content_columns
                .iter()
                .zip(content_values)
                .map(|(name, value)| format!("{name}: {}\n", json_of(value)))
                .collect(),
        };
        let metadata = self
            .tracking
            .metadata_fields
            .iter()
            .zip(&row[1 + self.content_columns.len()..])
            .map(|(name, value)| (name.clone(), json_of(value)))
            .collect();
        (id, Snapshot { content, metadata })
    }
}

/// Text for the diff: text as it is, numbers written out, null as nothing.
fn text_of(value: Option<&SqlValue>) -> String {
    match value {
        Some(SqlValue::Text(text)) => text.clone(),
        Some(SqlValue::Integer(n)) => n.to_string(),
        Some(SqlValue::Real(n)) => n.to_string(),
        _ => String::new(),
    }
}

fn json_of(value: &SqlValue) -> Value {
    match value {
        SqlValue::Null | SqlValue::Blob(_) => Value::Null,
        SqlValue::Integer(n) => Value::from(*n),
        SqlValue::Real(n) => serde_json::Number::from_f64(*n).map_or(Value::Null, Value::Number),
        SqlValue::Text(text) => Value::String(text.clone()),
    }
}

/// The ids read per statement.
const IDS_PER_READ: usize = 500;

/// The snapshots of the records `ids` of `entity` that exist.
fn read_snapshots(
    conn: &dyn Writer,
    entity: &EntitySpec,
    tracking: &ChangeTrackingSpec,
    ids: &[String],
) -> Result<HashMap<String, Snapshot>, ExecError> {
    let plan = SnapshotPlan::new(entity, tracking);
    let mut found = HashMap::with_capacity(ids.len());
    for chunk in ids.chunks(IDS_PER_READ) {
        let params: Vec<SqlValue> = chunk.iter().map(|id| SqlValue::Text(id.clone())).collect();
        for row in conn.rows(&plan.select_sql(chunk.len()), &params)? {
            let (id, snapshot) = plan.snapshot(&row);
            found.insert(id, snapshot);
        }
    }
    Ok(found)
}

/// The changes of one import: the tracked values of each record it touched, as they were
/// before its first write.
#[derive(Debug, Default)]
pub(crate) struct Tracker {
    /// (entity index, id) → the values before the import (`None`: the record did not exist).
    before: HashMap<(usize, String), Option<Snapshot>>,
    /// The keys of `before`, in the order the records were first touched.
    order: Vec<(usize, String)>,
}

impl Tracker {
    /// Reads the record's tracked values before its first write in this import.
    pub fn capture(
        &mut self,
        conn: &dyn Writer,
        spec: &SchemaSpec,
        entity: usize,
        id: &str,
    ) -> Result<(), ExecError> {
        let key = (entity, id.to_owned());
        if self.before.contains_key(&key) {
            return Ok(());
        }
        let entity_spec = &spec.entities[entity];
        let Some(tracking) = &entity_spec.change_tracking else {
            return Ok(());
        };
        let mut found = read_snapshots(conn, entity_spec, tracking, &[id.to_owned()])?;
        self.before.insert(key.clone(), found.remove(id));
        self.order.push(key);
        Ok(())
    }

    /// Compares what each touched record holds now with what it held before and appends one
    /// change per record that differs, then applies the retention. Returns the changes
    /// recorded.
    pub fn record(self, conn: &dyn Writer, spec: &SchemaSpec) -> Result<usize, ExecError> {
        if self.order.is_empty() {
            return Ok(0);
        }
        let timestamp = now();
        let mut after: Vec<HashMap<String, Snapshot>> = vec![HashMap::new(); spec.entities.len()];
        for (index, entity) in spec.entities.iter().enumerate() {
            let Some(tracking) = &entity.change_tracking else {
                continue;
            };
            let ids: Vec<String> = self
                .order
                .iter()
                .filter(|key| key.0 == index)
                .map(|key| key.1.clone())
                .collect();
            if !ids.is_empty() {
                after[index] = read_snapshots(conn, entity, tracking, &ids)?;
            }
        }
        let mut rows: Vec<Vec<SqlValue>> = Vec::new();
        let mut before = self.before;
        for (index, id) in &self.order {
            let old = before.remove(&(*index, id.clone())).flatten();
            let new = after[*index].remove(id);
            let entity = &spec.entities[*index];
            if let Some(row) = change_row(entity, id, old.as_ref(), new.as_ref(), &timestamp) {
                rows.push(row);
            }
        }
        let recorded = rows.len();
        insert_rows(conn, rows)?;
        if let Some(keep) = spec
            .change_log
            .as_ref()
            .and_then(|log| log.max_changes_per_record)
        {
            for (index, id) in &self.order {
                prune(conn, &spec.entities[*index].name, id, keep)?;
            }
        }
        Ok(recorded)
    }
}

/// The instant of a write, in whole seconds (`2024-05-01T12:00:00Z`).
fn now() -> String {
    let now = jiff::Timestamp::now();
    jiff::Timestamp::from_second(now.as_second())
        .unwrap_or(now)
        .to_string()
}

/// The unified diff from `old` to `new` and the lines it adds and removes.
pub(crate) fn unified_diff(old: &str, new: &str, from: &str, to: &str) -> (String, u64, u64) {
    let diff = similar::TextDiff::from_lines(old, new);
    let (mut added, mut removed) = (0u64, 0u64);
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Insert => added += 1,
            similar::ChangeTag::Delete => removed += 1,
            similar::ChangeTag::Equal => {}
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

/// The change-log row for a record that held `old` and now holds `new`; `None` when nothing
/// tracked changed.
fn change_row(
    entity: &EntitySpec,
    id: &str,
    old: Option<&Snapshot>,
    new: Option<&Snapshot>,
    timestamp: &str,
) -> Option<Vec<SqlValue>> {
    let change_type = match (old, new) {
        (None, None) => return None,
        (Some(old), Some(new)) if old == new => return None,
        (None, Some(_)) => "created",
        (Some(_), Some(_)) => "updated",
        (Some(_), None) => "deleted",
    };
    let empty = String::new();
    let old_content = old.map_or(&empty, |s| &s.content);
    let new_content = new.map_or(&empty, |s| &s.content);
    let name = format!("{}/{id}", entity.name);
    let (diff, added, removed) = unified_diff(old_content, new_content, &name, &name);
    let metadata = |snapshot: Option<&Snapshot>| match snapshot {
        Some(snapshot) => SqlValue::Text(Value::Object(snapshot.metadata.clone()).to_string()),
        None => SqlValue::Null,
    };
    Some(vec![
        SqlValue::Text(entity.name.clone()),
        SqlValue::Text(id.to_owned()),
        SqlValue::Text(timestamp.to_owned()),
        SqlValue::Text(change_type.to_owned()),
        SqlValue::Text(diff),
        SqlValue::Integer(added as i64),
        SqlValue::Integer(removed as i64),
        metadata(old),
        metadata(new),
        new.map_or(SqlValue::Null, |s| SqlValue::Text(s.content.clone())),
    ])
}

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

/// Rows per INSERT statement.
const ROWS_PER_INSERT: usize = 200;

fn insert_rows(conn: &dyn Writer, rows: Vec<Vec<SqlValue>>) -> Result<(), ExecError> {
    let columns: Vec<String> = CHANGE_COLUMNS.iter().map(|c| quote(c)).collect();
    let width = CHANGE_COLUMNS.len();
    let mut rows = rows.into_iter().peekable();
    while rows.peek().is_some() {
        let chunk: Vec<Vec<SqlValue>> = rows.by_ref().take(ROWS_PER_INSERT).collect();
        let values: Vec<String> = (0..chunk.len())
            .map(|row| {
                let places: Vec<String> = (1..=width)
                    .map(|i| format!("?{}", row * width + i))
                    .collect();
                format!("({})", places.join(", "))
            })
            .collect();
        let sql = format!(
            "INSERT INTO {} ({}) VALUES {}",
            quote(CHANGES_TABLE),
            columns.join(", "),
            values.join(", ")
        );
        conn.execute(&sql, chunk.into_iter().flatten().collect())?;
    }
    Ok(())
}

/// Keeps the newest `keep` changes of one record.
fn prune(conn: &dyn Writer, entity: &str, id: &str, keep: u32) -> Result<(), ExecError> {
    let table = quote(CHANGES_TABLE);
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
