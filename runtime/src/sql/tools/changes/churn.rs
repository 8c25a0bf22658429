//! `analyze_churn {entity_type?, group_by?, since?, until?, rank_by?, limit}`: how often
//! records (or groups of records sharing a metadata value, such as a file) change, how much,
//! and how regularly, over a window of the change log, the most unstable first.

use crate::__private::IntoEngine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::spec::{EntitySpec, SchemaSpec};
use crate::{ToolDefinition, ToolError};

use crate::sql::backend::{Reader, SqlDialect};
use crate::sql::text::names::unknown_name_message;
use crate::sql::tools::changes::change_history::tracked_list;
use crate::sql::tools::changes::change_log::{
    filter, instant, integer, table, text, tracked_entity,
};
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::shared::answers::Answer;
use crate::sql::tools::shared::common::{Collector, HandlerError, PageLimits, definition};
use crate::sql::value::SqlValue;

/// What ranks the answer of `analyze_churn`, the highest first.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, IntoEngine,
)]
#[serde(rename_all = "snake_case")]
pub enum ChurnRank {
    /// The number of changes.
    #[default]
    Changes,
    /// The lines added and removed.
    Lines,
}

/// The arguments of `analyze_churn`: change frequency per record or per metadata value over a
/// window, the most unstable first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(deny_unknown_fields)]
pub struct AnalyzeChurnArgs<E = String, F = String> {
    /// Only changes of this entity type (absent: every tracked entity). Needed with
    /// `group_by`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-toolforge-slot" = "tracked_entity"))]
    pub entity_type: Option<E>,
    /// Group the changes by this tracked metadata field's value at the time of each change
    /// (e.g. per file) instead of per record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-toolforge-slot" = "tracked_metadata_field"))]
    pub group_by: Option<F>,
    /// Only changes at or after this instant, ISO 8601 or relative (`30 days ago`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Only changes before this instant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// `changes` (default) or `lines` (added plus removed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank_by: Option<ChurnRank>,
    /// The most records or groups to return.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(extend("x-toolforge-slot" = "limit"))]
    pub limit: Option<i64>,
}

/// One record, or one group of records, and how it changed in the window.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ChurnEntry {
    /// The entity.
    entity_type: Option<String>,
    /// The record's unique id (per record).
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    /// The metadata value the group shares (with `group_by`; null: changes without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<Value>,
    /// How many records the group's changes touched (with `group_by`).
    #[serde(skip_serializing_if = "Option::is_none")]
    records: Option<i64>,
    /// Changes in the window.
    change_count: i64,
    /// Lines added by them.
    lines_added: i64,
    /// Lines removed by them.
    lines_removed: i64,
    /// The first change's instant.
    first_change: Option<String>,
    /// The last change's instant.
    last_change: Option<String>,
    /// The last change's type.
    last_change_type: Option<String>,
    /// Mean time between consecutive changes, in hours (null: a single change).
    mean_hours_between_changes: Option<f64>,
    /// Median time between consecutive changes, in hours (null: a single change).
    median_hours_between_changes: Option<f64>,
}

/// `analyze_churn`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Churn {
    /// The metadata field the changes are grouped by (absent: per record).
    #[serde(skip_serializing_if = "Option::is_none")]
    group_by: Option<String>,
    /// How many records (or groups) changed in the window.
    total: u64,
    /// How many this answer holds.
    returned: u64,
    /// Whether records (or groups) were left out.
    truncated: bool,
    /// The most unstable first.
    results: Vec<ChurnEntry>,
}

impl Answer for Churn {}

impl EngineTool for AnalyzeChurnArgs {
    type Answer = Churn;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let grouped = spec.tracked_entities().find_map(|e| {
            let tracking = e.change_tracking.as_ref()?;
            let field = tracking.metadata_fields.first()?;
            Some((e.name.as_str(), field.as_str()))
        });
        let example = match grouped {
            Some((entity, field)) => json!({"entity_type": entity, "group_by": field,
                "since": "90 days ago", "limit": 10}),
            None => json!({"since": "90 days ago", "limit": 10}),
        };
        let description = format!(
            "Analyze churn: how often records changed in a window (`since`, `until`: ISO 8601 \
             or relative), per record or, with `group_by`, per value of a tracked metadata \
             field (e.g. per file): changes, lines added and removed, first and last change, \
             mean and median hours between changes; ranked by changes or lines, most unstable \
             first. Tracked entities: {}.\nExample call: {example}",
            tracked_list(spec),
        );
        definition::<Self>(
            spec,
            "Analyze churn",
            description,
            &["churn", "unstable", "hotspot", "frequency", "changes"],
        )
    }

    async fn execute(
        self,
        spec: &SchemaSpec,
        conn: &dyn Reader,
    ) -> Result<Self::Answer, HandlerError> {
        let limits = PageLimits::of(spec, self.limit)?;
        let (mut conditions, mut params) =
            filter(spec, self.entity_type.as_deref(), self.since.as_deref())?;
        let group = match &self.group_by {
            Some(field) => Some(metadata_field(spec, self.entity_type.as_deref(), field)?),
            None => None,
        };
        if let Some(until) = &self.until {
            params.push(SqlValue::Text(instant(until, "until")?));
            conditions.push(format!("\"timestamp\" < ?{}", params.len()));
        }
        let key = match group {
            Some(field) => {
                params.push(SqlValue::Text(field.to_owned()));
                let member = conn.dialect().json_member(
                    "coalesce(\"metadata_after\", \"metadata_before\")",
                    &format!("?{}", params.len()),
                );
                format!("coalesce({member}, 'null')")
            }
            None => "\"record_id\"".to_owned(),
        };
        let rank = match self.rank_by.unwrap_or_default() {
            ChurnRank::Changes => "g.n DESC",
            ChurnRank::Lines => "g.added + g.removed DESC, g.n DESC",
        };
        let sql = churn_sql(
            conn.dialect(),
            &key,
            &conditions.join(" AND "),
            rank,
            limits.rows,
        );
        let rows = conn.rows(&sql, &params).await?;
        let total = rows.first().map_or(0, |row| integer(row.get(11))) as u64;
        let mut collector = Collector::new(&limits, &());
        let mut results = Vec::new();
        for row in &rows {
            let entry = entry_of(row, group.is_some());
            if !collector.take_item(&entry) {
                break;
            }
            results.push(entry);
        }
        Ok(Churn {
            group_by: group.map(str::to_owned),
            total,
            returned: results.len() as u64,
            truncated: total > results.len() as u64,
            results,
        })
    }
}

/// The tracked metadata field `field` of the call's entity: what `group_by` may name.
fn metadata_field<'s>(
    spec: &'s SchemaSpec,
    entity_type: Option<&str>,
    field: &str,
) -> Result<&'s str, ToolError> {
    let Some(entity_type) = entity_type else {
        return Err(ToolError::invalid_arguments(format!(
            "`group_by` groups one entity's changes: give `entity_type` too (tracked \
             entities: {})",
            tracked_list(spec)
        ))
        .with_details(json!({"path": "entity_type"})));
    };
    // `filter` has refused an entity that is unknown or does not track its changes.
    let entity = tracked_entity(spec, entity_type, "entity_type")?;
    let fields = metadata_fields(entity);
    fields
        .iter()
        .copied()
        .find(|name| *name == field)
        .ok_or_else(|| {
            let message = if fields.is_empty() {
                format!(
                    "`{}` records no metadata with its changes, so its changes cannot be \
                     grouped; list fields under its `change_tracking.metadata_fields` in the \
                     config to group by them",
                    entity.name
                )
            } else {
                let known = unknown_name_message(
                    "tracked metadata field",
                    field,
                    &format!(" of `{}`", entity.name),
                    fields.iter().copied(),
                );
                format!(
                    "{known}; a field is grouped by only when the config lists it under the \
                     entity's `change_tracking.metadata_fields`"
                )
            };
            ToolError::invalid_arguments(message)
                .with_details(json!({"path": "group_by", "metadata_fields": fields}))
        })
}

/// The metadata fields an entity's change log records.
fn metadata_fields(entity: &EntitySpec) -> Vec<&str> {
    entity
        .change_tracking
        .as_ref()
        .map(|tracking| {
            tracking
                .metadata_fields
                .iter()
                .map(String::as_str)
                .collect()
        })
        .unwrap_or_default()
}

/// One statement: the changes in the window keyed by entity and `key`, the gaps between
/// consecutive changes of a key, their median (the middle gap, or the mean of the two middle
/// ones), and per key the counts, sums and span; the top `rows` keys by `rank`, each with the
/// number of keys in all.
fn churn_sql(dialect: SqlDialect, key: &str, filter: &str, rank: &str, rows: u32) -> String {
    let t = table();
    let epoch = dialect.epoch_seconds("\"timestamp\"");
    format!(
        "WITH c AS (SELECT \"entity\" AS e, {key} AS k, \"id\" AS cid, {epoch} AS t, \
         \"timestamp\" AS ts, \"lines_added\" AS a, \"lines_removed\" AS r, \
         \"record_id\" AS rid FROM {t} WHERE {filter}), \
         d AS (SELECT e, k, t - lag(t) OVER (PARTITION BY e, k ORDER BY t, cid) AS gap FROM c), \
         m AS (SELECT e, k, gap, row_number() OVER (PARTITION BY e, k ORDER BY gap) AS rn, \
         count(*) OVER (PARTITION BY e, k) AS cnt FROM d WHERE gap IS NOT NULL), \
         med AS (SELECT e, k, CAST(avg(gap) AS double precision) AS median FROM m \
         WHERE rn = (cnt + 1) / 2 OR rn = (cnt + 2) / 2 GROUP BY e, k), \
         g AS (SELECT e, k, count(*) AS n, CAST(sum(a) AS bigint) AS added, \
         CAST(sum(r) AS bigint) AS removed, min(ts) AS first_at, max(ts) AS last_at, \
         max(t) - min(t) AS span, max(cid) AS last_id, count(DISTINCT rid) AS records \
         FROM c GROUP BY e, k) \
         SELECT g.e, g.k, g.n, g.added, g.removed, g.first_at, g.last_at, g.span, med.median, \
         l.\"change_type\", g.records, count(*) OVER () AS keys \
         FROM g LEFT JOIN med ON med.e = g.e AND med.k = g.k \
         JOIN {t} AS l ON l.\"id\" = g.last_id \
         ORDER BY {rank}, g.last_id DESC LIMIT {rows}"
    )
}

/// Hours, to three decimals (3.6 seconds), from seconds.
fn hours(seconds: f64) -> f64 {
    (seconds / 3.6).round() / 1000.0
}

/// One row of [`churn_sql`] as an answer gives it.
fn entry_of(row: &[SqlValue], grouped: bool) -> ChurnEntry {
    let count = integer(row.get(2));
    let real = |value: Option<&SqlValue>| match value {
        Some(SqlValue::Real(n)) => Some(*n),
        Some(SqlValue::Integer(n)) => Some(*n as f64),
        _ => None,
    };
    let key = text(row.get(1)).unwrap_or_default();
    let (id, value, records) = if grouped {
        let value = serde_json::from_str(&key).unwrap_or(Value::String(key));
        (None, Some(value), Some(integer(row.get(10))))
    } else {
        (Some(key), None, None)
    };
    ChurnEntry {
        entity_type: text(row.first()),
        id,
        value,
        records,
        change_count: count,
        lines_added: integer(row.get(3)),
        lines_removed: integer(row.get(4)),
        first_change: text(row.get(5)),
        last_change: text(row.get(6)),
        last_change_type: text(row.get(9)),
        mean_hours_between_changes: (count > 1)
            .then(|| hours(integer(row.get(7)) as f64 / (count - 1) as f64)),
        median_hours_between_changes: real(row.get(8)).map(hours),
    }
}

#[cfg(test)]
mod tests {
    use super::hours;

    #[test]
    fn hours_keep_three_decimals() {
        assert_eq!(hours(3600.0), 1.0);
        assert_eq!(hours(5400.0), 1.5);
        assert_eq!(hours(1.0), 0.0);
        assert_eq!(hours(36.0), 0.01);
    }
}
