//! `query_entities_by_date_range {entity_type, date_field, after?, before?, order?, limit,
//! offset}`.

use crate::__private::IntoEngine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::spec::{FieldType, SchemaSpec};
use crate::{ToolDefinition, ToolError};

use crate::sql::backend::Reader;
use crate::sql::query::Direction;
use crate::sql::query::Operator;
use crate::sql::text::dates::{ACCEPTED_FORMS, resolve};
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::ranges::bounds::{RangeBound, range_description, range_page, typed_field};
use crate::sql::tools::shared::common::{HandlerError, PageLimits, definition, entity, offset};

/// The arguments of `query_entities_by_date_range`: the records whose datetime field lies in a
/// time window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "E: Deserialize<'de>, F: Deserialize<'de>")
)]
pub struct QueryEntitiesByDateRangeArgs<E = String, F = String> {
    /// The entity type to query.
    #[schemars(extend("x-toolforge-slot" = "entity"))]
    pub entity_type: E,
    /// A datetime field (stored or computed) of the entity.
    #[schemars(extend("x-toolforge-slot" = "datetime_field"))]
    pub date_field: F,
    /// The earliest instant (inclusive): ISO 8601 (`2024-05-01`, `2024-05-01T12:00:00Z`) or
    /// relative (`now`, `today`, `yesterday`, `7 days ago`, `2 weeks ago`, `last month`,
    /// `in 3 days`). Absent: no lower bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// The instant the window ends before (exclusive), in the same forms as `after`. Absent:
    /// no upper bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// DESC (newest first, the default) or ASC (oldest first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<Direction>,
    /// The most records to return.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(extend("x-toolforge-slot" = "limit"))]
    pub limit: Option<i64>,
    /// Records to skip: `0` (the default), then the previous answer's `next_offset`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(range(min = 0))]
    pub offset: Option<i64>,
}

impl EngineTool for QueryEntitiesByDateRangeArgs {
    type Answer = crate::sql::tools::shared::answers::EntityPage;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let description = range_description(
            spec,
            "Find records whose datetime field lies in a time window: `after` (inclusive) and \
             `before` (exclusive), each ISO 8601 or relative (`now`, `today`, `yesterday`, \
             `7 days ago`, `2 weeks ago`, `last month`, `in 3 days`; times in UTC). Records \
             without a value are left out; newest first unless `order` is ASC.",
            "Datetime fields",
            FieldType::Datetime,
            "date_field",
            json!({"after": "7 days ago", "before": "now", "limit": 10}),
        );
        definition::<Self>(
            spec,
            "Query entities by date range",
            description,
            &[
                "date", "time", "recent", "range", "since", "between", "changed",
            ],
        )
    }

    async fn execute(
        self,
        spec: &SchemaSpec,
        conn: &dyn Reader,
    ) -> Result<Self::Answer, HandlerError> {
        let entity = entity(spec, &self.entity_type, "entity_type")?;
        let field = typed_field(
            entity,
            &self.date_field,
            "date_field",
            FieldType::Datetime,
            "query_entities_by_date_range",
        )?;
        let limits = PageLimits::of(spec, self.limit)?;
        let offset = offset(self.offset)?;
        let now = jiff::Timestamp::now();
        let read = |text: &Option<String>, path: &str| -> Result<Option<String>, ToolError> {
            text.as_deref()
                .map(|text| {
                    resolve(text, now).map_err(|message| {
                        ToolError::invalid_arguments(format!("`{path}`: {message}"))
                            .with_details(json!({"path": path, "accepted": ACCEPTED_FORMS}))
                    })
                })
                .transpose()
        };
        let after = read(&self.after, "after")?;
        let before = read(&self.before, "before")?;
        if let (Some(after), Some(before)) = (&after, &before)
            && after >= before
        {
            return Err(ToolError::invalid_arguments(format!(
                "the window is empty: `after` ({after}) is not earlier than `before` ({before}); \
                 swap them, or move one"
            ))
            .with_details(json!({"path": "before", "after": after, "before": before}))
            .into());
        }
        let mut bounds = Vec::new();
        if let Some(after) = after {
            bounds.push(RangeBound {
                operator: Operator::Ge,
                value: Value::String(after),
                path: "after",
            });
        }
        if let Some(before) = before {
            bounds.push(RangeBound {
                operator: Operator::Lt,
                value: Value::String(before),
                path: "before",
            });
        }
        range_page(
            entity,
            field,
            bounds,
            self.order.unwrap_or(Direction::Desc),
            &limits,
            offset,
            conn,
        )
        .await
    }
}
