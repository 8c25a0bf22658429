//! `glob_search {entity_type, field, pattern, limit, offset}`.

use crate::__private::IntoEngine;
use crate::sql::backend::Reader;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::spec::{FieldType, SchemaSpec};
use crate::{ToolDefinition, ToolError};

use crate::sql::describe::{DescriptionBuilder, field_catalogue};
use crate::sql::query::{
    Condition, ConditionPaths, EntityQuery, Operator, resolve_field, text_field_names,
};
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::shared::answers::EntityPage;
use crate::sql::tools::shared::common::{
    HandlerError, PageLimits, definition, entity, list_page, offset,
};

/// The arguments of `glob_search`: records whose text field matches a glob pattern.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(deny_unknown_fields)]
pub struct GlobSearchArgs<E = String, F = String> {
    /// The entity type to search.
    #[schemars(extend("x-toolforge-slot" = "entity"))]
    pub entity_type: E,
    /// A text field (string, enum or datetime) of the entity.
    #[schemars(extend("x-toolforge-slot" = "text_field"))]
    pub field: F,
    /// The glob pattern, e.g. `src/*.ts` or `*Parser*`.
    pub pattern: String,
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

impl EngineTool for GlobSearchArgs {
    type Answer = EntityPage;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let mut text = DescriptionBuilder::new(
            "Find records whose text field matches a glob pattern (case-sensitive): `*` matches any \
             text, `?` one character, `[abc]` one of the listed characters. `field` is a text field \
             (string, enum or datetime, stored or computed) of entity_type. The answer says how many \
             matched in total and whether the list was cut.",
        );
        let per_entity: Vec<String> = spec
            .entities
            .iter()
            .map(|entity| format!("{}: {}", entity.name, text_field_names(entity).join(", ")))
            .collect();
        let listed = format!("Text fields: {}.", per_entity.join("; "));
        if listed.chars().count() > 500 || !text.push("\n", &listed) {
            let room = text.remaining("\n").min(500);
            text.push("\n", &field_catalogue(spec, room, "Text fields"));
        }
        if let Some(entity) = spec.entities.first() {
            let field = entity
                .display_name_field
                .clone()
                .filter(|name| text_field_names(entity).contains(&name.as_str()))
                .unwrap_or_else(|| entity.unique_field.clone());
            text.push(
                "\n",
                &format!(
                    "Example call: {}",
                    json!({"entity_type": entity.name, "field": field, "pattern": "*parse*", "limit": 10})
                ),
            );
        }
        definition::<Self>(
            spec,
            "Glob search",
            text.finish(),
            &["glob", "pattern", "wildcard", "search", "path"],
        )
    }

    async fn execute(
        self,
        spec: &SchemaSpec,
        conn: &dyn Reader,
    ) -> Result<Self::Answer, HandlerError> {
        handle(spec, conn, self).await
    }
}

async fn handle(
    spec: &SchemaSpec,
    conn: &dyn Reader,
    arguments: GlobSearchArgs,
) -> Result<EntityPage, HandlerError> {
    let entity = entity(spec, &arguments.entity_type, "entity_type")?;
    let limits = PageLimits::of(spec, arguments.limit)?;
    let offset = offset(arguments.offset)?;
    let field = resolve_field(entity, &arguments.field, "field")?;
    if !matches!(
        field.ty,
        FieldType::String | FieldType::Enum | FieldType::Datetime
    ) {
        let text_fields = text_field_names(entity);
        return Err(ToolError::invalid_arguments(format!(
            "`field`: glob_search matches text fields, and `{}` is {} {} field of {}; use one \
             of its text fields ({}), or query_entities to compare {}",
            field.name,
            if field
                .ty
                .config_name()
                .starts_with(['a', 'e', 'i', 'o', 'u'])
            {
                "an"
            } else {
                "a"
            },
            field.ty.config_name(),
            entity.name,
            text_fields.join(", "),
            field.name
        ))
        .with_details(json!({"path": "field", "valid": text_fields}))
        .into());
    }
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
    let query = EntityQuery::single(entity, &condition, &paths, limits.rows, conn.dialect())?
        .with_offset(offset);
    list_page(conn, query, &entity.name, &limits).await
}
