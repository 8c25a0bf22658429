//! `glob_search {entity_type, field, pattern, limit}`.

use std::sync::Arc;

use rusqlite::Connection;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::spec::{FieldType, SchemaSpec};
use crate::{Tool, ToolContext, ToolDefinition, ToolFuture};

use super::super::query::{Condition, ConditionPaths, EntityQuery, Operator};
use super::common::{
    HandlerError, Shared, definition, entity, entity_schema, limit, limit_schema, page_json, parse,
    run,
};

const NAME: &str = "glob_search";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Arguments {
    entity_type: String,
    field: String,
    pattern: String,
    #[serde(default, deserialize_with = "super::common::optional_integer")]
    limit: Option<i64>,
}

/// `glob_search`.
pub struct GlobSearch {
    shared: Arc<Shared>,
    definition: ToolDefinition,
}

impl GlobSearch {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        let definition = Self::definition_for(&shared.spec);
        GlobSearch { shared, definition }
    }

    /// The definition, built from the spec alone.
    pub(crate) fn definition_for(spec: &SchemaSpec) -> ToolDefinition {
        let mut text = String::from(
            "Find records whose text field matches a glob pattern (case-sensitive): `*` matches any \
             text, `?` one character, `[abc]` one of the listed characters. The answer says how many \
             matched in total and whether the list was cut.\nText fields:\n",
        );
        for entity in &spec.entities {
            let fields: Vec<&str> = entity
                .fields
                .iter()
                .filter(|f| {
                    matches!(
                        f.ty,
                        FieldType::String | FieldType::Enum | FieldType::Datetime
                    )
                })
                .map(|f| f.name.as_str())
                .collect();
            text.push_str(&format!("  - {}: {}\n", entity.name, fields.join(", ")));
        }
        if let Some(entity) = spec.entities.first() {
            let field = entity
                .display_name_field
                .clone()
                .unwrap_or_else(|| entity.unique_field.clone());
            text.push_str(&format!(
                "Example call: {}",
                json!({"entity_type": entity.name, "field": field, "pattern": "*parse*", "limit": 10})
            ));
        }
        let input_schema = json!({
            "type": "object",
            "properties": {
                "entity_type": entity_schema(spec, "The entity type to search."),
                "field": {"type": "string", "description": "A text field of the entity (see the list in the description)."},
                "pattern": {"type": "string", "description": "The glob pattern, e.g. `src/*.ts` or `*Parser*`."},
                "limit": limit_schema(spec, "records")
            },
            "required": ["entity_type", "field", "pattern"],
            "additionalProperties": false
        });
        definition(
            spec,
            NAME,
            "Glob search",
            text,
            input_schema,
            &["glob", "pattern", "wildcard", "search", "path"],
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
    let condition = Condition {
        field: arguments.field,
        operator: Operator::Glob,
        value: Value::String(arguments.pattern),
    };
    let paths = ConditionPaths {
        field: "field".into(),
        operator: "field".into(),
        value: "pattern".into(),
    };
    let query = EntityQuery::single(entity, &condition, &paths, limit)?;
    let page = query.run(conn)?;
    Ok(page_json(&entity.name, page))
}

impl Tool for GlobSearch {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(&'a self, arguments: Value, _context: &'a ToolContext) -> ToolFuture<'a> {
        run(&self.shared, arguments, handle)
    }
}
