//! `query_entities_by_number_range {entity_type, field, min?, max?, order?, limit, offset}`.

use crate::__private::IntoEngine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Number, Value, json};

use crate::spec::{FieldType, SchemaSpec};
use crate::{ToolDefinition, ToolError};

use crate::sql::backend::Reader;
use crate::sql::query::Direction;
use crate::sql::query::Operator;
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::ranges::bounds::{RangeBound, range_description, range_page, typed_field};
use crate::sql::tools::shared::common::{HandlerError, PageLimits, definition, entity, offset};

/// The arguments of `query_entities_by_number_range`: the records whose number field lies
/// between bounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "E: Deserialize<'de>, F: Deserialize<'de>")
)]
pub struct QueryEntitiesByNumberRangeArgs<E = String, F = String> {
    /// The entity type to query.
    #[schemars(extend("x-toolforge-slot" = "entity"))]
    pub entity_type: E,
    /// A number field (stored or computed) of the entity.
    #[schemars(extend("x-toolforge-slot" = "number_field"))]
    pub field: F,
    /// The smallest value (inclusive); absent: no lower bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<Number>,
    /// The largest value (inclusive); absent: no upper bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<Number>,
    /// ASC (smallest first, the default) or DESC (largest first), by the same field.
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

impl EngineTool for QueryEntitiesByNumberRangeArgs {
    type Answer = crate::sql::tools::shared::answers::EntityPage;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let description = range_description(
            spec,
            "Find records whose number field lies between `min` and `max` (both inclusive, \
             either optional), ordered by that field (smallest first unless `order` is DESC). \
             Records without a value are left out.",
            "Number fields",
            FieldType::Number,
            "field",
            json!({"min": 10, "max": 100, "order": "DESC", "limit": 10}),
        );
        definition::<Self>(
            spec,
            "Query entities by number range",
            description,
            &[
                "number", "range", "between", "minimum", "maximum", "largest", "smallest",
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
            &self.field,
            "field",
            FieldType::Number,
            "query_entities_by_number_range",
        )?;
        let limits = PageLimits::of(spec, self.limit)?;
        let offset = offset(self.offset)?;
        if let (Some(min), Some(max)) = (&self.min, &self.max)
            && min.as_f64() > max.as_f64()
        {
            return Err(ToolError::invalid_arguments(format!(
                "the range is empty: `min` ({min}) is larger than `max` ({max}); swap them"
            ))
            .with_details(json!({"path": "max", "min": min, "max": max}))
            .into());
        }
        let mut bounds = Vec::new();
        if let Some(min) = self.min {
            bounds.push(RangeBound {
                operator: Operator::Ge,
                value: Value::Number(min),
                path: "min",
            });
        }
        if let Some(max) = self.max {
            bounds.push(RangeBound {
                operator: Operator::Le,
                value: Value::Number(max),
                path: "max",
            });
        }
        range_page(
            entity,
            field,
            bounds,
            self.order.unwrap_or(Direction::Asc),
            &limits,
            offset,
            conn,
        )
        .await
    }
}
