//! What the change tools (`get_entity_change_history`, `find_recently_modified_entities`,
//! `get_most_modified_entities`, `get_change_statistics`, `compare_entity_versions`) share:
//! the tracked entity of a call, `since`, the rows of the change log and their answers.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::ToolError;
use crate::spec::{CHANGES_TABLE, EntitySpec, SchemaSpec};

use crate::sql::text::dates::{ACCEPTED_FORMS, resolve};
use crate::sql::text::ident::quote;
use crate::sql::text::names::unknown_name_message;
use crate::sql::tools::shared::answers::{Answer, Item, ListPage};
use crate::sql::value::SqlValue;

/// The change log table, quoted.
pub(crate) fn table() -> String {
    quote(CHANGES_TABLE)
}

/// The entity a call names, which must track its changes.
pub(crate) fn tracked_entity<'s>(
    spec: &'s SchemaSpec,
    name: &str,
    path: &str,
) -> Result<&'s EntitySpec, ToolError> {
    match spec.entity(name) {
        Some(entity) if entity.change_tracking.is_some() => Ok(entity),
        found => {
            let tracked: Vec<&str> = spec.tracked_entities().map(|e| e.name.as_str()).collect();
            let message = match found {
                Some(entity) => format!(
                    "`{}` does not track its changes; entities that do: {}",
                    entity.name,
                    tracked.join(", ")
                ),
                None => unknown_name_message("entity", name, "", tracked.iter().copied()),
            };
            Err(ToolError::invalid_arguments(message)
                .with_details(json!({"path": path, "tracked_entities": tracked})))
        }
    }
}

/// `since` (ISO 8601 or relative) as a UTC instant.
pub(crate) fn instant(text: &str, path: &str) -> Result<String, ToolError> {
    resolve(text, jiff::Timestamp::now()).map_err(|message| {
        ToolError::invalid_arguments(format!("`{path}`: {message}"))
            .with_details(json!({"path": path, "accepted": ACCEPTED_FORMS}))
    })
}

/// Conditions on the change log: an optional entity and an optional earliest instant, as SQL
/// (`WHERE ...` or nothing) and its parameters.
pub(crate) fn filter(
    spec: &SchemaSpec,
    entity_type: Option<&str>,
    since: Option<&str>,
) -> Result<(Vec<String>, Vec<SqlValue>), ToolError> {
    let mut conditions = Vec::new();
    let mut params = Vec::new();
    match entity_type {
        Some(name) => {
            let entity = tracked_entity(spec, name, "entity_type")?;
            params.push(SqlValue::Text(entity.name.clone()));
            conditions.push(format!("\"entity\" = ?{}", params.len()));
        }
        None => {
            let names: Vec<String> = spec
                .tracked_entities()
                .map(|e| {
                    params.push(SqlValue::Text(e.name.clone()));
                    format!("?{}", params.len())
                })
                .collect();
            conditions.push(format!("\"entity\" IN ({})", names.join(", ")));
        }
    }
    if let Some(since) = since {
        params.push(SqlValue::Text(instant(since, "since")?));
        conditions.push(format!("\"timestamp\" >= ?{}", params.len()));
    }
    Ok((conditions, params))
}

/// The columns of a change, in the order [`change_of`] reads them.
pub(crate) const CHANGE_SELECT: &str = "\"id\", \"entity\", \"record_id\", \"timestamp\", \
     \"change_type\", \"lines_added\", \"lines_removed\", \"diff\", \"metadata_before\", \
     \"metadata_after\"";

/// Text of a column.
pub(crate) fn text(value: Option<&SqlValue>) -> Option<String> {
    match value {
        Some(SqlValue::Text(text)) => Some(text.clone()),
        _ => None,
    }
}

/// An integer column.
pub(crate) fn integer(value: Option<&SqlValue>) -> i64 {
    match value {
        Some(SqlValue::Integer(n)) => *n,
        Some(SqlValue::Real(n)) => *n as i64,
        Some(SqlValue::Text(text)) => text.parse().unwrap_or(0),
        _ => 0,
    }
}

/// One change as an answer gives it.
pub(crate) fn change_of(row: &[SqlValue]) -> Change {
    let metadata = |value: Option<&SqlValue>| {
        text(value)
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .unwrap_or(Value::Null)
    };
    Change {
        change_id: integer(row.first()),
        entity_type: text(row.get(1)),
        id: text(row.get(2)),
        timestamp: text(row.get(3)),
        change_type: text(row.get(4)),
        lines_added: integer(row.get(5)),
        lines_removed: integer(row.get(6)),
        diff: text(row.get(7)),
        metadata_before: metadata(row.get(8)),
        metadata_after: metadata(row.get(9)),
    }
}

/// One recorded change.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Change {
    /// The change's id (increasing in the order changes were recorded).
    change_id: i64,
    /// The entity of the record.
    entity_type: Option<String>,
    /// The record's unique id.
    id: Option<String>,
    /// When the write was committed (UTC, whole seconds).
    timestamp: Option<String>,
    /// `created`, `updated` or `deleted`.
    change_type: Option<String>,
    /// Lines the change added to the content.
    lines_added: i64,
    /// Lines the change removed from the content.
    lines_removed: i64,
    /// The unified diff of the content.
    diff: Option<String>,
    /// The metadata fields before the change (null when the record was created).
    #[schemars(with = "Option<Map<String, Value>>")]
    metadata_before: Value,
    /// The metadata fields after the change (null when the record was deleted).
    #[schemars(with = "Option<Map<String, Value>>")]
    metadata_after: Value,
}

impl Item for Change {}

/// The head of `get_entity_change_history`'s pages.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct HistoryHead {
    /// The entity.
    pub entity_type: String,
    /// The record's unique id.
    pub id: String,
}

/// `get_entity_change_history`: one page of a record's changes, newest first (every change
/// is counted).
pub(crate) type ChangeHistoryPage = ListPage<HistoryHead, Change>;

/// A record and a summary of its changes.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ModifiedRecord {
    /// The entity.
    pub entity_type: Option<String>,
    /// The record's unique id.
    pub id: Option<String>,
    /// Its changes in the window.
    pub change_count: i64,
    /// Its latest change's instant.
    pub last_modified: Option<String>,
    /// Its latest change's type.
    pub last_change_type: Option<String>,
    /// Lines added by its changes in the window.
    pub lines_added: i64,
    /// Lines removed by its changes in the window.
    pub lines_removed: i64,
}

/// `find_recently_modified_entities`, `get_most_modified_entities`: records with changes.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ModifiedRecords {
    /// How many records match in all.
    pub total: u64,
    /// How many this answer holds.
    pub returned: u64,
    /// Whether records were left out.
    pub truncated: bool,
    /// The records.
    pub results: Vec<ModifiedRecord>,
}

impl Answer for ModifiedRecords {}

/// The changes of one period of `get_change_statistics`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Period {
    /// The period's start, as the bucket names it.
    pub period: Option<String>,
    /// Changes in the period.
    pub changes: i64,
}

/// `get_change_statistics`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ChangeStatistics {
    /// Changes in the window.
    pub total_changes: i64,
    /// Distinct records changed.
    pub records_changed: i64,
    /// Changes by type (`created`, `updated`, `deleted`), in the database's order of names.
    #[schemars(with = "BTreeMap<String, i64>")]
    pub by_type: Map<String, Value>,
    /// Changes by entity, in the database's order of names.
    #[schemars(with = "BTreeMap<String, i64>")]
    pub by_entity: Map<String, Value>,
    /// Lines added in all.
    pub lines_added: i64,
    /// Lines removed in all.
    pub lines_removed: i64,
    /// Changes per period, oldest first, when `bucket` is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frequency: Option<Vec<Period>>,
}

impl Answer for ChangeStatistics {}

/// One end of a comparison.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct VersionRef {
    /// The change that produced this version (null: before the first change).
    pub change_id: Option<i64>,
    /// Its instant.
    pub timestamp: Option<String>,
}

/// `compare_entity_versions`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct VersionComparison {
    /// The entity.
    pub entity_type: String,
    /// The record's unique id.
    pub id: String,
    /// The older version.
    pub from: VersionRef,
    /// The newer version.
    pub to: VersionRef,
    /// The unified diff from `from` to `to`.
    pub diff: String,
    /// Lines added.
    pub lines_added: u64,
    /// Lines removed.
    pub lines_removed: u64,
}

impl Answer for VersionComparison {}
