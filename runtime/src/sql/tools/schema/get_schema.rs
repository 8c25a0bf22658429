//! `get_schema {include_tips, entity_types}`.

use crate::__private::IntoEngine;
use crate::sql::backend::Reader;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::ToolDefinition;
use crate::spec::SchemaSpec;

use crate::sql::describe::{DescriptionBuilder, bounded_list};
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::schema::answer::{SchemaAnswer, schema_answer};
use crate::sql::tools::shared::common::{HandlerError, definition, entity, entity_names};

/// The arguments of `get_schema`: the whole schema, or the part about some entity types.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(deny_unknown_fields, bound(deserialize = "E: Deserialize<'de>"))]
pub struct GetSchemaArgs<E = String> {
    /// Also return usage tips and an example query (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub include_tips: Option<bool>,
    /// Only these entity types and the relationships that touch them (default: every entity).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-toolforge-slot" = "entity_list"))]
    pub entity_types: Option<Vec<E>>,
}

impl<E> Default for GetSchemaArgs<E> {
    fn default() -> Self {
        GetSchemaArgs {
            include_tips: None,
            entity_types: None,
        }
    }
}

impl EngineTool for GetSchemaArgs {
    type Answer = SchemaAnswer;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let names: Vec<String> = entity_names(spec).into_iter().map(str::to_owned).collect();
        let mut description = DescriptionBuilder::new(
            "Return the database schema: every entity with its fields, types, unique field and \
             computed fields, the relationships between entities, and the query operators. Call it \
             first when unsure which fields exist.",
        );
        let room = description.remaining(" Entities: .");
        description.push(" ", &format!("Entities: {}.", bounded_list(&names, room)));
        let description = description.finish();
        definition::<Self>(
            spec,
            "Get schema",
            description,
            &["schema", "entities", "fields", "relationships", "help"],
        )
    }

    async fn execute(
        self,
        spec: &SchemaSpec,
        _conn: &dyn Reader,
    ) -> Result<Self::Answer, HandlerError> {
        let only = match &self.entity_types {
            Some(names) => {
                let mut only = Vec::with_capacity(names.len());
                for (i, name) in names.iter().enumerate() {
                    only.push(
                        entity(spec, name, &format!("entity_types[{i}]"))?
                            .name
                            .as_str(),
                    );
                }
                Some(only)
            }
            None => None,
        };
        Ok(schema_answer(
            spec,
            self.include_tips.unwrap_or(true),
            only.as_deref(),
        ))
    }
}
