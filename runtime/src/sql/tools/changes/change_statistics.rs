//! `get_change_statistics {entity_type?, since?, bucket?}`.

use crate::__private::IntoEngine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::ToolDefinition;
use crate::spec::SchemaSpec;

use crate::sql::backend::Reader;
use crate::sql::tools::aggregates::aggregate::{Bucket, bucketed};
use crate::sql::tools::changes::change_history::tracked_list;
use crate::sql::tools::changes::change_log::{
    ChangeStatistics, Period, filter, integer, table, text,
};
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::shared::common::{HandlerError, definition};

/// The most periods a `frequency` answer holds (the latest ones).
const MAX_PERIODS: u32 = 500;

/// The arguments of `get_change_statistics`: how much changed, by type, entity and period.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(deny_unknown_fields)]
pub struct GetChangeStatisticsArgs<E = String> {
    /// Only changes of this entity type (absent: every tracked entity).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-toolforge-slot" = "tracked_entity"))]
    pub entity_type: Option<E>,
    /// Only changes since this instant (inclusive), ISO 8601 or relative (`7 days ago`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Also count changes per period (UTC): `day`, `week` (ISO weeks, by their Monday),
    /// `month` or `year`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bucket: Option<Bucket>,
}

impl EngineTool for GetChangeStatisticsArgs {
    type Answer = ChangeStatistics;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let description = format!(
            "Summarize the recorded changes: how many, how many records, counts by change type \
             and by entity, lines added and removed, and with `bucket` (day, week, month, year) \
             the number of changes per period. Optionally one entity type and changes since \
             an instant (ISO 8601 or relative). Tracked entities: {}.\nExample call: {}",
            tracked_list(spec),
            json!({"since": "30 days ago", "bucket": "week"})
        );
        definition::<Self>(
            spec,
            "Get change statistics",
            description,
            &["statistics", "changes", "frequency", "activity", "churn"],
        )
    }

    async fn execute(
        self,
        spec: &SchemaSpec,
        conn: &dyn Reader,
    ) -> Result<Self::Answer, HandlerError> {
        let (conditions, params) =
            filter(spec, self.entity_type.as_deref(), self.since.as_deref())?;
        let filter = conditions.join(" AND ");
        let t = table();
        let totals = conn
            .rows(
                &format!(
                    "SELECT count(*), count(DISTINCT \"entity\" || '/' || \"record_id\"), \
                 coalesce(sum(\"lines_added\"), 0), coalesce(sum(\"lines_removed\"), 0) \
                 FROM {t} WHERE {filter}"
                ),
                &params,
            )
            .await?;
        let totals = totals.first().cloned().unwrap_or_default();
        let counts = async |column: &str| -> Result<Map<String, Value>, HandlerError> {
            let rows = conn
                .rows(
                    &format!(
                        "SELECT \"{column}\", count(*) FROM {t} WHERE {filter} \
                     GROUP BY \"{column}\" ORDER BY \"{column}\""
                    ),
                    &params,
                )
                .await?;
            Ok(rows
                .iter()
                .map(|row| {
                    (
                        text(row.first()).unwrap_or_default(),
                        json!(integer(row.get(1))),
                    )
                })
                .collect())
        };
        let mut answer = ChangeStatistics {
            total_changes: integer(totals.first()),
            records_changed: integer(totals.get(1)),
            by_type: counts("change_type").await?,
            by_entity: counts("entity").await?,
            lines_added: integer(totals.get(2)),
            lines_removed: integer(totals.get(3)),
            frequency: None,
        };
        if let Some(bucket) = self.bucket {
            let period = bucketed("\"timestamp\"", bucket, conn.dialect());
            let rows = conn
                .rows(
                    &format!(
                        "SELECT p, n FROM (SELECT {period} AS p, count(*) AS n FROM {t} \
                     WHERE {filter} GROUP BY {period} ORDER BY p DESC LIMIT {MAX_PERIODS}) AS g \
                     ORDER BY p"
                    ),
                    &params,
                )
                .await?;
            answer.frequency = Some(
                rows.iter()
                    .map(|row| Period {
                        period: text(row.first()),
                        changes: integer(row.get(1)),
                    })
                    .collect(),
            );
        }
        Ok(answer)
    }
}
