//! `get_schema {include_tips}`.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::spec::SchemaSpec;
use crate::{Tool, ToolContext, ToolDefinition, ToolFuture, ToolResult};

use super::super::describe::schema_json;
use super::common::{Shared, definition, entity_names, parse, run_pure};

const NAME: &str = "get_schema";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Arguments {
    #[serde(default = "yes")]
    include_tips: bool,
}

fn yes() -> bool {
    true
}

/// `get_schema`.
pub struct GetSchema {
    shared: Arc<Shared>,
    definition: ToolDefinition,
}

impl GetSchema {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        let definition = Self::definition_for(&shared.spec);
        GetSchema { shared, definition }
    }

    /// The definition, built from the spec alone.
    pub(crate) fn definition_for(spec: &SchemaSpec) -> ToolDefinition {
        let description = format!(
            "Return the database schema: every entity ({}) with its fields, types, unique field and \
             computed fields, the relationships between entities, and the query operators. Call it \
             first when unsure which fields exist.",
            entity_names(spec).join(", ")
        );
        let input_schema = json!({
            "type": "object",
            "properties": {
                "include_tips": {"type": "boolean", "default": true, "description": "Also return usage tips and an example query (default true)."}
            },
            "additionalProperties": false
        });
        definition(
            spec,
            NAME,
            "Get schema",
            description,
            input_schema,
            &["schema", "entities", "fields", "relationships", "help"],
        )
    }
}

pub(crate) fn handle(spec: &SchemaSpec, arguments: Value) -> ToolResult {
    let arguments: Arguments = parse(NAME, arguments)?;
    Ok(schema_json(spec, arguments.include_tips))
}

impl Tool for GetSchema {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(&'a self, arguments: Value, _context: &'a ToolContext) -> ToolFuture<'a> {
        run_pure(&self.shared.spec, arguments, handle)
    }
}
