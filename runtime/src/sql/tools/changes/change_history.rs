//! `get_entity_change_history {entity_type, id, limit, offset}`.

use crate::__private::IntoEngine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::ToolDefinition;
use crate::spec::SchemaSpec;

use crate::sql::backend::Reader;
use crate::sql::query::Page;
use crate::sql::tools::changes::change_log::{
    CHANGE_SELECT, ChangeHistoryPage, HistoryHead, change_of, table, tracked_entity,
};
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::shared::common::{
    Collector, HandlerError, PageLimits, definition, list_answer, offset,
};
use crate::sql::value::SqlValue;

/// The arguments of `get_entity_change_history`: a record's recorded changes, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(deny_unknown_fields)]
pub struct GetEntityChangeHistoryArgs<E = String> {
    /// The entity type of the record (one that tracks its changes).
    #[schemars(extend("x-toolforge-slot" = "tracked_entity"))]
    pub entity_type: E,
    /// The value of the record's unique field.
    #[serde(deserialize_with = "crate::sql::tools::shared::key::text_or_integer")]
    #[schemars(extend("x-toolforge-slot" = "key"))]
    pub id: String,
    /// The most changes to return.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(extend("x-toolforge-slot" = "limit"))]
    pub limit: Option<i64>,
    /// How many changes to skip (newest first): `0` (the default), then the `next_offset` of
    /// the previous answer.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(range(min = 0))]
    pub offset: Option<i64>,
}

/// The description's list of tracked entities.
pub(crate) fn tracked_list(spec: &SchemaSpec) -> String {
    spec.tracked_entities()
        .map(|e| e.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

impl EngineTool for GetEntityChangeHistoryArgs {
    type Answer = ChangeHistoryPage;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let example = spec.tracked_entities().next().map(
            |e| json!({"entity_type": e.name, "id": format!("<{}>", e.unique_field), "limit": 5}),
        );
        let mut description = format!(
            "List the recorded changes of one record, newest first: when (UTC), the type \
             (created, updated, deleted), the unified diff of its content, lines added and \
             removed, and its metadata before and after. Tracked entities: {}.",
            tracked_list(spec)
        );
        if let Some(example) = example {
            description.push_str(&format!("\nExample call: {example}"));
        }
        definition::<Self>(
            spec,
            "Get entity change history",
            description,
            &["history", "changes", "diff", "versions", "audit"],
        )
    }

    async fn execute(
        self,
        spec: &SchemaSpec,
        conn: &dyn Reader,
    ) -> Result<Self::Answer, HandlerError> {
        let entity = tracked_entity(spec, &self.entity_type, "entity_type")?;
        let limits = PageLimits::of(spec, self.limit)?;
        let offset = offset(self.offset)?;
        let params = vec![
            SqlValue::Text(entity.name.clone()),
            SqlValue::Text(self.id.clone()),
        ];
        let total = conn
            .count(
                &format!(
                    "SELECT count(*) FROM {} WHERE \"entity\" = ?1 AND \"record_id\" = ?2",
                    table()
                ),
                &params,
            )
            .await?;
        let rows = conn
            .rows(
                &format!(
                    "SELECT {CHANGE_SELECT} FROM {} WHERE \"entity\" = ?1 AND \"record_id\" = ?2 \
                 ORDER BY \"id\" DESC LIMIT {} OFFSET {offset}",
                    table(),
                    limits.rows
                ),
                &params,
            )
            .await?;
        let head = HistoryHead {
            entity_type: entity.name.clone(),
            id: self.id.clone(),
        };
        let mut collector = Collector::new(&limits, &head);
        let mut results = Vec::new();
        for row in &rows {
            let change = change_of(row);
            if !collector.take_item(&change) {
                break;
            }
            results.push(change);
        }
        let page = Page {
            total,
            total_exact: true,
            offset,
            results,
        };
        Ok(list_answer(head, page, &limits, &collector)?)
    }
}
