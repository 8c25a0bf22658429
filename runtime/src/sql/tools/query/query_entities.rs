//! `query_entities {entity_type, conditions, order_by, limit, offset}`.

use crate::__private::IntoEngine;
use crate::sql::backend::Reader;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::ToolDefinition;
use crate::spec::SchemaSpec;

use crate::sql::describe::query_entities_description;
use crate::sql::query::{Condition, EntityQuery, OrderBy};
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::shared::common::{
    HandlerError, PageLimits, definition, entity, list_page, offset,
};

/// The arguments of `query_entities`: the records of one entity type matching conditions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "E: Deserialize<'de>, F: Deserialize<'de>")
)]
pub struct QueryEntitiesArgs<E = String, F = String> {
    /// The entity type to query.
    #[schemars(extend("x-toolforge-slot" = "entity"))]
    pub entity_type: E,
    /// Conditions on fields or computed fields, all of which must hold (AND). Empty or absent:
    /// every record.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition<F>>,
    /// Sort order (ties and the default order: by the unique field, ascending).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_by: Option<OrderBy<F>>,
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

impl EngineTool for QueryEntitiesArgs {
    type Answer = crate::sql::tools::shared::answers::EntityPage;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        definition::<Self>(
            spec,
            "Query entities",
            query_entities_description(spec),
            &["query", "filter", "search", "find", "list", "sort"],
        )
    }

    async fn execute(
        self,
        spec: &SchemaSpec,
        conn: &dyn Reader,
    ) -> Result<Self::Answer, HandlerError> {
        let entity = entity(spec, &self.entity_type, "entity_type")?;
        let limits = PageLimits::of(spec, self.limit)?;
        let offset = offset(self.offset)?;
        let query = EntityQuery::new(
            entity,
            &self.conditions,
            self.order_by.as_ref(),
            limits.rows,
            conn.dialect(),
        )?
        .with_offset(offset);
        list_page(conn, query, &entity.name, &limits).await
    }
}
