//! `describe_entity {entity_name}`.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::spec::SchemaSpec;
use crate::{Tool, ToolContext, ToolDefinition, ToolFuture, ToolResult};

use super::super::describe::entity_json;
use super::common::{Shared, definition, entity, entity_schema, parse, run_pure};

const NAME: &str = "describe_entity";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Arguments {
    entity_name: String,
}

/// `describe_entity`.
pub struct DescribeEntity {
    shared: Arc<Shared>,
    definition: ToolDefinition,
}

impl DescribeEntity {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        let definition = Self::definition_for(&shared.spec);
        DescribeEntity { shared, definition }
    }

    /// The definition, built from the spec alone.
    pub(crate) fn definition_for(spec: &SchemaSpec) -> ToolDefinition {
        let description = "Describe one entity type: its fields with types and descriptions, the \
             unique field, computed fields and what they compute, its outgoing and incoming \
             relationships, and an example query."
            .to_string();
        let input_schema = json!({
            "type": "object",
            "properties": {
                "entity_name": entity_schema(spec, "The entity type to describe.")
            },
            "required": ["entity_name"],
            "additionalProperties": false
        });
        definition(
            spec,
            NAME,
            "Describe entity",
            description,
            input_schema,
            &["describe", "entity", "fields", "schema"],
        )
    }
}

pub(crate) fn handle(spec: &SchemaSpec, arguments: Value) -> ToolResult {
    let arguments: Arguments = parse(NAME, arguments)?;
    let entity = entity(spec, &arguments.entity_name, "entity_name")?;
    Ok(entity_json(spec, entity))
}

impl Tool for DescribeEntity {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(&'a self, arguments: Value, _context: &'a ToolContext) -> ToolFuture<'a> {
        run_pure(&self.shared.spec, arguments, handle)
    }
}
