//! `get_entity_by_id {entity_type, id_value}`.

use std::sync::Arc;

use rusqlite::{Connection, OptionalExtension};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::spec::SchemaSpec;
use crate::{Tool, ToolContext, ToolDefinition, ToolError, ToolFuture};

use super::super::ident::{qualified, quote};
use super::super::query::{Projection, ROW_ALIAS};
use super::common::{HandlerError, Shared, definition, entity, entity_schema, parse, quoted, run};

const NAME: &str = "get_entity_by_id";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Arguments {
    entity_type: String,
    id_value: String,
}

/// `get_entity_by_id`.
pub struct GetEntityById {
    shared: Arc<Shared>,
    definition: ToolDefinition,
}

impl GetEntityById {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        let definition = Self::definition_for(&shared.spec);
        GetEntityById { shared, definition }
    }

    /// The definition, built from the spec alone.
    pub(crate) fn definition_for(spec: &SchemaSpec) -> ToolDefinition {
        let ids: Vec<String> = spec
            .entities
            .iter()
            .map(|e| format!("{} by {}", e.name, e.unique_field))
            .collect();
        let mut description = format!(
            "Fetch one record with all its fields and computed fields by the value of its unique \
             field ({}). Answers not_found when no record has that value.",
            ids.join(", ")
        );
        if let Some(entity) = spec.entities.first() {
            description.push_str(&format!(
                "\nExample call: {}",
                json!({"entity_type": entity.name, "id_value": "<the record's unique value>"})
            ));
        }
        let input_schema = json!({
            "type": "object",
            "properties": {
                "entity_type": entity_schema(spec, "The entity type of the record."),
                "id_value": {"type": "string", "description": "The value of the entity's unique field."}
            },
            "required": ["entity_type", "id_value"],
            "additionalProperties": false
        });
        definition(
            spec,
            NAME,
            "Get entity by id",
            description,
            input_schema,
            &["get", "fetch", "id", "lookup", "record"],
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
    let projection = Projection::all(entity);
    let sql = format!(
        "SELECT {} FROM {} AS {} WHERE {} = ?1",
        projection.select_list(),
        quote(&entity.table),
        quote(ROW_ALIAS),
        qualified(ROW_ALIAS, &entity.unique_field)
    );
    let mut statement = conn.prepare_cached(&sql)?;
    let record = statement
        .query_row([&arguments.id_value], |row| projection.record(row, 0))
        .optional()?;
    match record {
        Some(record) => Ok(json!({"entity_type": entity.name, "record": record})),
        None => Err(ToolError::not_found(format!(
            "No {} has {} {}.",
            entity.name,
            entity.unique_field,
            quoted(&arguments.id_value)
        ))
        .with_details(json!({"entity_type": entity.name, "unique_field": entity.unique_field}))
        .into()),
    }
}

impl Tool for GetEntityById {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(&'a self, arguments: Value, _context: &'a ToolContext) -> ToolFuture<'a> {
        run(&self.shared, arguments, handle)
    }
}
