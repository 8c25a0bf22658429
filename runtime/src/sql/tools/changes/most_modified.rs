//! `get_most_modified_entities {entity_type?, since?, limit}`.

use crate::__private::IntoEngine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::ToolDefinition;
use crate::spec::SchemaSpec;

use crate::sql::backend::Reader;
use crate::sql::tools::changes::change_history::tracked_list;
use crate::sql::tools::changes::change_log::{
    ModifiedRecord, ModifiedRecords, filter, integer, table, text,
};
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::shared::common::{Collector, HandlerError, PageLimits, definition};
use crate::sql::value::SqlValue;

/// The arguments of `get_most_modified_entities`: the records with the most changes (the most
/// unstable), most changes first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(deny_unknown_fields)]
pub struct GetMostModifiedEntitiesArgs<E = String> {
    /// Only records of this entity type (absent: every tracked entity).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-toolforge-slot" = "tracked_entity"))]
    pub entity_type: Option<E>,
    /// Only changes since this instant (inclusive), ISO 8601 or relative (`30 days ago`).
    /// Absent: every change kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// The most records to return.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(extend("x-toolforge-slot" = "limit"))]
    pub limit: Option<i64>,
}

/// The records whose changes match `conditions`, one summary each, in `order`.
pub(crate) async fn modified_records(
    conn: &dyn Reader,
    conditions: &[String],
    params: Vec<SqlValue>,
    order: &str,
    limits: &PageLimits,
) -> Result<ModifiedRecords, HandlerError> {
    let filter = conditions.join(" AND ");
    let total = conn
        .count(
            &format!(
                "SELECT count(*) FROM (SELECT 1 FROM {} WHERE {filter} \
             GROUP BY \"entity\", \"record_id\") AS g",
                table()
            ),
            &params,
        )
        .await?;
    let sql = format!(
        "SELECT g.\"entity\", g.\"record_id\", g.n, g.last_at, l.\"change_type\", g.added, \
         g.removed FROM (SELECT \"entity\", \"record_id\", count(*) AS n, \
         max(\"timestamp\") AS last_at, max(\"id\") AS last_id, sum(\"lines_added\") AS added, \
         sum(\"lines_removed\") AS removed FROM {t} WHERE {filter} \
         GROUP BY \"entity\", \"record_id\") AS g JOIN {t} AS l ON l.\"id\" = g.last_id \
         ORDER BY {order}, g.\"entity\", g.\"record_id\" LIMIT {}",
        limits.rows,
        t = table()
    );
    let rows = conn.rows(&sql, &params).await?;
    let mut collector = Collector::new(limits, &());
    let mut results = Vec::new();
    for row in &rows {
        let record = ModifiedRecord {
            entity_type: text(row.first()),
            id: text(row.get(1)),
            change_count: integer(row.get(2)),
            last_modified: text(row.get(3)),
            last_change_type: text(row.get(4)),
            lines_added: integer(row.get(5)),
            lines_removed: integer(row.get(6)),
        };
        if !collector.take_item(&record) {
            break;
        }
        results.push(record);
    }
    Ok(ModifiedRecords {
        total,
        returned: results.len() as u64,
        truncated: total > results.len() as u64,
        results,
    })
}

impl EngineTool for GetMostModifiedEntitiesArgs {
    type Answer = ModifiedRecords;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let description = format!(
            "Find the records changed most often (the most unstable), most changes first, \
             optionally only counting changes since an instant (ISO 8601 or relative: `30 days \
             ago`), with their last change and lines added and removed. Tracked entities: \
             {}.\nExample call: {}",
            tracked_list(spec),
            json!({"since": "30 days ago", "limit": 10})
        );
        definition::<Self>(
            spec,
            "Get most modified entities",
            description,
            &["unstable", "churn", "hotspot", "changes", "modified"],
        )
    }

    async fn execute(
        self,
        spec: &SchemaSpec,
        conn: &dyn Reader,
    ) -> Result<Self::Answer, HandlerError> {
        let limits = PageLimits::of(spec, self.limit)?;
        let (conditions, params) =
            filter(spec, self.entity_type.as_deref(), self.since.as_deref())?;
        modified_records(
            conn,
            &conditions,
            params,
            "g.n DESC, g.last_id DESC",
            &limits,
        )
        .await
    }
}
