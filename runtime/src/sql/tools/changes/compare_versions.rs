//! `compare_entity_versions {entity_type, id, from, to?}`.

use crate::__private::IntoEngine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::spec::{EntitySpec, SchemaSpec};
use crate::{ToolDefinition, ToolError};

use crate::sql::backend::Reader;
use crate::sql::changes::unified_diff;
use crate::sql::tools::changes::change_history::tracked_list;
use crate::sql::tools::changes::change_log::{
    VersionComparison, VersionRef, instant, integer, table, text, tracked_entity,
};
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::shared::common::{HandlerError, definition};
use crate::sql::value::SqlValue;

/// The arguments of `compare_entity_versions`: the unified diff of a record's content between
/// two versions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(deny_unknown_fields)]
pub struct CompareEntityVersionsArgs<E = String> {
    /// The entity type of the record (one that tracks its changes).
    #[schemars(extend("x-toolforge-slot" = "tracked_entity"))]
    pub entity_type: E,
    /// The value of the record's unique field.
    #[serde(deserialize_with = "crate::sql::tools::shared::key::text_or_integer")]
    #[schemars(extend("x-toolforge-slot" = "key"))]
    pub id: String,
    /// The older version: a `change_id` (the version that change produced) or an instant
    /// (ISO 8601 or relative: the version current then).
    pub from: String,
    /// The newer version, in the same forms; absent: the latest version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
}

/// A version of a record: the change that produced it (none: before its first change) and its
/// content.
struct Version {
    change_id: Option<i64>,
    timestamp: Option<String>,
    content: String,
}

/// The version `reference` names (a change id or an instant); `None` reference: the latest.
async fn version(
    conn: &dyn Reader,
    entity: &EntitySpec,
    id: &str,
    reference: Option<&str>,
    path: &str,
) -> Result<Version, HandlerError> {
    let mut params = vec![
        SqlValue::Text(entity.name.clone()),
        SqlValue::Text(id.to_owned()),
    ];
    let condition = match reference.map(str::trim) {
        None => String::new(),
        Some(text) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
            let change: i64 = text.parse().map_err(|_| {
                ToolError::invalid_arguments(format!("`{path}`: change id {text} is too large"))
            })?;
            params.push(SqlValue::Integer(change));
            let found = conn
                .count(
                    &format!(
                        "SELECT count(*) FROM {} WHERE \"entity\" = ?1 AND \"record_id\" = ?2 \
                     AND \"id\" = ?3",
                        table()
                    ),
                    &params,
                )
                .await?;
            if found == 0 {
                return Err(ToolError::not_found(format!(
                    "`{path}`: {} {id} has no change {change}; list its changes with \
                     get_entity_change_history",
                    entity.name
                ))
                .with_details(json!({"path": path}))
                .into());
            }
            "AND \"id\" <= ?3".to_owned()
        }
        Some(text) => {
            params.push(SqlValue::Text(instant(text, path)?));
            "AND \"timestamp\" <= ?3".to_owned()
        }
    };
    let rows = conn
        .rows(
            &format!(
                "SELECT \"id\", \"timestamp\", \"content\" FROM {} WHERE \"entity\" = ?1 AND \
             \"record_id\" = ?2 {condition} ORDER BY \"id\" DESC LIMIT 1",
                table()
            ),
            &params,
        )
        .await?;
    Ok(match rows.first() {
        Some(row) => Version {
            change_id: Some(integer(row.first())),
            timestamp: text(row.get(1)),
            content: text(row.get(2)).unwrap_or_default(),
        },
        None => Version {
            change_id: None,
            timestamp: None,
            content: String::new(),
        },
    })
}

impl EngineTool for CompareEntityVersionsArgs {
    type Answer = VersionComparison;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let example = spec.tracked_entities().next().map(|e| {
            json!({"entity_type": e.name, "id": format!("<{}>", e.unique_field), "from": "7 days ago"})
        });
        let mut description = format!(
            "Show the unified diff of one record's content between two versions, each named by \
             a change id (from get_entity_change_history) or an instant (ISO 8601 or relative: \
             the version current then); `to` absent means the latest version. Tracked \
             entities: {}.",
            tracked_list(spec)
        );
        if let Some(example) = example {
            description.push_str(&format!("\nExample call: {example}"));
        }
        definition::<Self>(
            spec,
            "Compare entity versions",
            description,
            &["diff", "compare", "version", "before", "after"],
        )
    }

    async fn execute(
        self,
        spec: &SchemaSpec,
        conn: &dyn Reader,
    ) -> Result<Self::Answer, HandlerError> {
        let entity = tracked_entity(spec, &self.entity_type, "entity_type")?;
        let from = version(conn, entity, &self.id, Some(&self.from), "from").await?;
        let to = version(conn, entity, &self.id, self.to.as_deref(), "to").await?;
        if to.change_id.is_none() && from.change_id.is_none() {
            return Err(ToolError::not_found(format!(
                "{} {} has no recorded change at these versions",
                entity.name, self.id
            ))
            .with_details(json!({"entity_type": entity.name, "id": self.id}))
            .into());
        }
        let name = format!("{}/{}", entity.name, self.id);
        let (diff, added, removed) = unified_diff(&from.content, &to.content, &name, &name);
        Ok(VersionComparison {
            entity_type: entity.name.clone(),
            id: self.id,
            from: VersionRef {
                change_id: from.change_id,
                timestamp: from.timestamp,
            },
            to: VersionRef {
                change_id: to.change_id,
                timestamp: to.timestamp,
            },
            diff,
            lines_added: added,
            lines_removed: removed,
        })
    }
}
