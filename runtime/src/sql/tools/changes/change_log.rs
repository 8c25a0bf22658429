//! What the change tools (`get_entity_change_history`, `find_recently_modified_entities`,
//! `get_most_modified_entities`, `get_change_statistics`, `compare_entity_versions`) share:
//! the tracked entity of a call, `since`, the rows of the change log and their answers.

use schemars::JsonSchema;
use serde_json::{Map, Value, json};

use crate::ToolError;
use crate::spec::{CHANGES_TABLE, EntitySpec, SchemaSpec};

use crate::sql::text::dates::{ACCEPTED_FORMS, resolve};
use crate::sql::text::ident::quote;
use crate::sql::text::names::unknown_name_message;
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

/// The columns of a change, in the order [`change_json`] reads them.
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
pub(crate) fn change_json(row: &[SqlValue]) -> Value {
    let metadata = |value: Option<&SqlValue>| {
        text(value)
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .unwrap_or(Value::Null)
    };
    json!({
        "change_id": integer(row.first()),
        "entity_type": text(row.get(1)),
        "id": text(row.get(2)),
        "timestamp": text(row.get(3)),
        "change_type": text(row.get(4)),
        "lines_added": integer(row.get(5)),
        "lines_removed": integer(row.get(6)),
        "diff": text(row.get(7)),
        "metadata_before": metadata(row.get(8)),
        "metadata_after": metadata(row.get(9)),
    })
}

/// One recorded change.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct Change {
    /// The change's id (increasing in the order changes were recorded).
    change_id: i64,
    /// The entity of the record.
    entity_type: String,
    /// The record's unique id.
    id: String,
    /// When the write was committed (UTC, whole seconds).
    timestamp: String,
    /// `created`, `updated` or `deleted`.
    change_type: String,
    /// Lines the change added to the content.
    lines_added: i64,
    /// Lines the change removed from the content.
    lines_removed: i64,
    /// The unified diff of the content.
    diff: String,
    /// The metadata fields before the change (null when the record was created).
    metadata_before: Option<Map<String, Value>>,
    /// The metadata fields after the change (null when the record was deleted).
    metadata_after: Option<Map<String, Value>>,
}

/// `get_entity_change_history`: one page of a record's changes, newest first.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct ChangeHistoryPage {
    /// The entity.
    entity_type: String,
    /// The record's unique id.
    id: String,
    /// How many changes the record has in all.
    total: u64,
    /// Always true: every change is counted.
    total_exact: bool,
    #[serde(flatten)]
    paging: crate::sql::tools::shared::answers::Paging,
    /// The changes of this page.
    results: Vec<Change>,
}

/// A record and a summary of its changes.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct ModifiedRecord {
    /// The entity.
    entity_type: String,
    /// The record's unique id.
    id: String,
    /// Its changes in the window.
    change_count: u64,
    /// Its latest change's instant.
    last_modified: String,
    /// Its latest change's type.
    last_change_type: String,
    /// Lines added by its changes in the window.
    lines_added: i64,
    /// Lines removed by its changes in the window.
    lines_removed: i64,
}

/// `find_recently_modified_entities`, `get_most_modified_entities`: records with changes.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct ModifiedRecords {
    /// How many records match in all.
    total: u64,
    /// How many this answer holds.
    returned: u64,
    /// Whether records were left out.
    truncated: bool,
    /// The records.
    results: Vec<ModifiedRecord>,
}

/// `get_change_statistics`.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct ChangeStatistics {
    /// Changes in the window.
    total_changes: u64,
    /// Distinct records changed.
    records_changed: u64,
    /// Changes by type (`created`, `updated`, `deleted`).
    by_type: Map<String, Value>,
    /// Changes by entity.
    by_entity: Map<String, Value>,
    /// Lines added in all.
    lines_added: i64,
    /// Lines removed in all.
    lines_removed: i64,
    /// Changes per period, oldest first, when `bucket` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    frequency: Option<Vec<Map<String, Value>>>,
}

/// One end of a comparison.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct VersionRef {
    /// The change that produced this version (null: before the first change).
    change_id: Option<i64>,
    /// Its instant.
    timestamp: Option<String>,
}

/// `compare_entity_versions`.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct VersionComparison {
    /// The entity.
    entity_type: String,
    /// The record's unique id.
    id: String,
    /// The older version.
    from: VersionRef,
    /// The newer version.
    to: VersionRef,
    /// The unified diff from `from` to `to`.
    diff: String,
    /// Lines added.
    lines_added: u64,
    /// Lines removed.
    lines_removed: u64,
}
