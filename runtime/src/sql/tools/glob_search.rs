//! `glob_search {entity_type, field, pattern, limit, offset}`.

use rusqlite::Connection;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::ToolDefinition;
use crate::spec::{FieldType, SchemaSpec};

use super::super::query::{Condition, ConditionPaths, EntityQuery, Operator};
use super::common::{HandlerError, PageLimits, definition, entity, list_page, offset};
use super::{ArgName, DatabaseTool, EngineTool};

/// The arguments of `glob_search`: records whose text field matches a glob pattern.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GlobSearchArgs<E = String, F = String> {
    /// The entity type to search.
    #[schemars(extend("x-toolforge-slot" = "entity"))]
    pub entity_type: E,
    /// A text field of the entity (see the list in the description).
    pub field: F,
    /// The glob pattern, e.g. `src/*.ts` or `*Parser*`.
    pub pattern: String,
    /// The most records to return.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::common::optional_integer"
    )]
    #[schemars(extend("x-toolforge-slot" = "limit"))]
    pub limit: Option<i64>,
    /// How many matching records to skip (in order) before the first one returned: `0` (the
    /// default), then the `next_offset` of the previous answer.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::common::optional_integer"
    )]
    #[schemars(range(min = 0))]
    pub offset: Option<i64>,
}

impl<E: ArgName, F: ArgName> GlobSearchArgs<E, F> {
    /// The same arguments with names as strings, as the engine reads them.
    pub fn into_engine(self) -> GlobSearchArgs {
        GlobSearchArgs {
            entity_type: self.entity_type.as_name().to_owned(),
            field: self.field.as_name().to_owned(),
            pattern: self.pattern,
            limit: self.limit,
            offset: self.offset,
        }
    }
}

impl EngineTool for GlobSearchArgs {
    const KIND: DatabaseTool = DatabaseTool::GlobSearch;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
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
        definition::<Self>(
            spec,
            "Glob search",
            text,
            &["glob", "pattern", "wildcard", "search", "path"],
        )
    }

    fn execute(self, spec: &SchemaSpec, conn: &Connection) -> Result<Value, HandlerError> {
        handle(spec, conn, self)
    }
}

fn handle(
    spec: &SchemaSpec,
    conn: &Connection,
    arguments: GlobSearchArgs,
) -> Result<Value, HandlerError> {
    let entity = entity(spec, &arguments.entity_type, "entity_type")?;
    let limits = PageLimits::of(spec, arguments.limit)?;
    let offset = offset(arguments.offset)?;
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
    let query = EntityQuery::single(entity, &condition, &paths, limits.rows)?.with_offset(offset);
    let mut head = Map::new();
    head.insert("entity_type".into(), Value::String(entity.name.clone()));
    list_page(conn, query, head, &limits)
}
