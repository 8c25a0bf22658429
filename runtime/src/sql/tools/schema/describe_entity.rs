//! `describe_entity {entity_name}`.

use crate::__private::IntoEngine;
use crate::sql::backend::Reader;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::ToolDefinition;
use crate::spec::SchemaSpec;

use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::schema::answer::{EntityDescription, entity_description};
use crate::sql::tools::shared::common::{HandlerError, definition, entity};

/// The arguments of `describe_entity`: one entity type in detail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(deny_unknown_fields)]
pub struct DescribeEntityArgs<E = String> {
    /// The entity type to describe.
    #[schemars(extend("x-toolforge-slot" = "entity"))]
    pub entity_name: E,
}

impl EngineTool for DescribeEntityArgs {
    type Answer = EntityDescription;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let description = "Describe one entity type: its fields with types and descriptions, the \
             unique field, computed fields and what they compute, its outgoing and incoming \
             relationships, and an example query."
            .to_string();
        definition::<Self>(
            spec,
            "Describe entity",
            description,
            &["describe", "entity", "fields", "schema"],
        )
    }

    async fn execute(
        self,
        spec: &SchemaSpec,
        _conn: &dyn Reader,
    ) -> Result<Self::Answer, HandlerError> {
        let entity = entity(spec, &self.entity_name, "entity_name")?;
        Ok(entity_description(spec, entity))
    }
}
