//! `get_entity_by_id {entity_type, id_value}`.

use crate::__private::IntoEngine;
use crate::sql::backend::Reader;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::spec::SchemaSpec;
use crate::{ToolDefinition, ToolError};

use crate::sql::describe::{DescriptionBuilder, bounded_list};
use crate::sql::query::{Projection, ROW_ALIAS};
use crate::sql::text::ident::{qualified, quote};
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::shared::answers::RecordAnswer;
use crate::sql::tools::shared::common::{HandlerError, definition, entity, quoted};

/// The arguments of `get_entity_by_id`: one record by the value of its unique field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(deny_unknown_fields)]
pub struct GetEntityByIdArgs<E = String> {
    /// The entity type of the record.
    #[schemars(extend("x-toolforge-slot" = "entity"))]
    pub entity_type: E,
    /// The value of the entity's unique field.
    #[serde(deserialize_with = "crate::sql::tools::shared::key::text_or_integer")]
    #[schemars(extend("x-toolforge-slot" = "key"))]
    pub id_value: String,
}

impl EngineTool for GetEntityByIdArgs {
    type Answer = RecordAnswer;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let ids: Vec<String> = spec
            .entities
            .iter()
            .map(|e| format!("{} by {}", e.name, e.unique_field))
            .collect();
        let mut description = DescriptionBuilder::new(
            "Fetch one record with all its fields and computed fields by the value of its unique \
             field. Answers not_found when no record has that value.",
        );
        let room = description.remaining(" Unique fields: .").min(600);
        description.push(
            " ",
            &format!("Unique fields: {}.", bounded_list(&ids, room)),
        );
        if let Some(entity) = spec.entities.first() {
            description.push(
                "\n",
                &format!(
                    "Example call: {}",
                    json!({"entity_type": entity.name, "id_value": "<the record's unique value>"})
                ),
            );
        }
        let description = description.finish();
        definition::<Self>(
            spec,
            "Get entity by id",
            description,
            &["get", "fetch", "id", "lookup", "record"],
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
    arguments: GetEntityByIdArgs,
) -> Result<RecordAnswer, HandlerError> {
    let entity = entity(spec, &arguments.entity_type, "entity_type")?;
    let projection = Projection::all(entity);
    let sql = format!(
        "SELECT {} FROM {} AS {} WHERE {} = ?1",
        projection.select_list(),
        quote(&entity.table),
        quote(ROW_ALIAS),
        qualified(ROW_ALIAS, &entity.unique_field)
    );
    let key = crate::sql::tools::shared::key::bound(entity, &arguments.id_value, "id_value")?;
    let rows = conn.rows(&sql, &[key]).await?;
    let record = rows.first().map(|row| projection.record(row, 0));
    match record {
        Some(record) => Ok(RecordAnswer {
            entity_type: entity.name.clone(),
            record,
        }),
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
