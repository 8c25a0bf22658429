//! `find_recently_modified_entities {entity_type?, since, change_types?, limit}`.

use crate::__private::IntoEngine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::spec::SchemaSpec;
use crate::{ToolDefinition, ToolError};

use crate::sql::backend::Reader;
use crate::sql::tools::changes::change_history::tracked_list;
use crate::sql::tools::changes::change_log::filter;
use crate::sql::tools::changes::most_modified::modified_records;
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::shared::common::{HandlerError, PageLimits, definition};

/// A kind of change.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, IntoEngine,
)]
#[serde(rename_all = "lowercase")]
pub enum ChangeType {
    /// The record was written for the first time.
    Created,
    /// Its tracked content or metadata changed.
    Updated,
    /// It was deleted.
    Deleted,
}

impl ChangeType {
    /// The name stored in the change log.
    pub fn name(self) -> &'static str {
        match self {
            ChangeType::Created => "created",
            ChangeType::Updated => "updated",
            ChangeType::Deleted => "deleted",
        }
    }
}

/// The arguments of `find_recently_modified_entities`: the records changed since an instant,
/// most recently changed first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(deny_unknown_fields)]
pub struct FindRecentlyModifiedEntitiesArgs<E = String> {
    /// Only records of this entity type (absent: every tracked entity).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-toolforge-slot" = "tracked_entity"))]
    pub entity_type: Option<E>,
    /// The earliest change (inclusive): ISO 8601 (`2024-05-01`) or relative (`1 hour ago`,
    /// `7 days ago`, `yesterday`).
    pub since: String,
    /// Only these kinds of change (absent: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_types: Option<Vec<ChangeType>>,
    /// The most records to return.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(extend("x-toolforge-slot" = "limit"))]
    pub limit: Option<i64>,
}

impl EngineTool for FindRecentlyModifiedEntitiesArgs {
    type Answer = crate::sql::tools::changes::change_log::ModifiedRecords;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let description = format!(
            "Find the records changed since an instant (ISO 8601 or relative: `1 hour ago`, \
             `7 days ago`, `yesterday`), most recently changed first, with their number of \
             changes in the window, last change and lines added and removed; optionally only \
             some change types (created, updated, deleted). Tracked entities: {}.\nExample \
             call: {}",
            tracked_list(spec),
            json!({"since": "7 days ago", "change_types": ["updated"], "limit": 10})
        );
        definition::<Self>(
            spec,
            "Find recently modified entities",
            description,
            &["recent", "changed", "modified", "since", "latest"],
        )
    }

    async fn execute(
        self,
        spec: &SchemaSpec,
        conn: &dyn Reader,
    ) -> Result<Self::Answer, HandlerError> {
        let limits = PageLimits::of(spec, self.limit)?;
        let (mut conditions, mut params) =
            filter(spec, self.entity_type.as_deref(), Some(&self.since))?;
        if let Some(types) = &self.change_types {
            if types.is_empty() {
                return Err(ToolError::invalid_arguments(
                    "`change_types` is empty; leave it out for every kind of change",
                )
                .with_details(json!({"path": "change_types"}))
                .into());
            }
            let places: Vec<String> = types
                .iter()
                .map(|t| {
                    params.push(crate::sql::value::SqlValue::Text(t.name().to_owned()));
                    format!("?{}", params.len())
                })
                .collect();
            conditions.push(format!("\"change_type\" IN ({})", places.join(", ")));
        }
        modified_records(conn, &conditions, params, "g.last_id DESC", &limits).await
    }
}
