//! `query_entities {entity_type, conditions, order_by, limit}`.

use std::sync::Arc;

use rusqlite::Connection;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::spec::SchemaSpec;
use crate::{Tool, ToolContext, ToolDefinition, ToolFuture};

use super::super::describe::{operator_names, query_entities_description};
use super::super::query::{Condition, EntityQuery, OrderBy};
use super::common::{
    HandlerError, Shared, definition, entity, entity_schema, limit, limit_schema, page_json, parse,
    run,
};

const NAME: &str = "query_entities";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Arguments {
    entity_type: String,
    #[serde(default)]
    conditions: Vec<Condition>,
    #[serde(default)]
    order_by: Option<OrderBy>,
    #[serde(default, deserialize_with = "super::common::optional_integer")]
    limit: Option<i64>,
}

/// The JSON Schema of one condition.
pub(crate) fn condition_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "field": {"type": "string", "description": "A field or computed field of the entity."},
            "operator": {"type": "string", "enum": operator_names(), "description": "The comparison (see the tool description)."},
            "value": {
                "anyOf": [
                    {"type": "string"},
                    {"type": "number"},
                    {"type": "boolean"},
                    {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]}},
                    {"type": "null"}
                ],
                "description": "The value to compare with: a string, number or boolean matching the field's type, an array for IN, or null with = / != for a missing value."
            }
        },
        "required": ["field", "operator", "value"],
        "additionalProperties": false
    })
}

/// `query_entities`.
pub struct QueryEntities {
    shared: Arc<Shared>,
    definition: ToolDefinition,
}

impl QueryEntities {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        let definition = Self::definition_for(&shared.spec);
        QueryEntities { shared, definition }
    }

    /// The definition, built from the spec alone.
    pub(crate) fn definition_for(spec: &SchemaSpec) -> ToolDefinition {
        let input_schema = json!({
            "type": "object",
            "properties": {
                "entity_type": entity_schema(spec, "The entity type to query."),
                "conditions": {
                    "type": "array",
                    "description": "Conditions on fields or computed fields, all of which must hold (AND). Empty or absent: every record.",
                    "items": condition_schema()
                },
                "order_by": {
                    "type": "object",
                    "description": "Sort order (ties and the default order: by the unique field, ascending).",
                    "properties": {
                        "field": {"type": "string", "description": "A field or computed field to sort by."},
                        "direction": {"type": "string", "enum": ["ASC", "DESC"], "description": "ASC (default) or DESC."}
                    },
                    "required": ["field"],
                    "additionalProperties": false
                },
                "limit": limit_schema(spec, "records")
            },
            "required": ["entity_type"],
            "additionalProperties": false
        });
        definition(
            spec,
            NAME,
            "Query entities",
            query_entities_description(spec),
            input_schema,
            &["query", "filter", "search", "find", "list", "sort"],
        )
    }
}

pub(crate) fn handle(
    spec: &SchemaSpec,
    conn: &Connection,
    arguments: Value,
) -> Result<Value, HandlerError> {
    let arguments: Arguments = parse(NAME, arguments)?;
    let entity = entity(spec, &arguments.entity_type, "entity_type")?;
    let limit = limit(spec, arguments.limit)?;
    let query = EntityQuery::new(
        entity,
        &arguments.conditions,
        arguments.order_by.as_ref(),
        limit,
    )?;
    let page = query.run(conn)?;
    Ok(page_json(&entity.name, page))
}

impl Tool for QueryEntities {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(&'a self, arguments: Value, _context: &'a ToolContext) -> ToolFuture<'a> {
        run(&self.shared, arguments, handle)
    }
}
