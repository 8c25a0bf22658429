//! The argument structs instantiated with a generated module's name enums: a typed call of the
//! module's tools, run through a registry (as a model's call) or directly on the [`Database`]
//! of a call context.
//!
//! [`Database`]: super::super::Database

use std::sync::Arc;

use crate::{ToolContext, ToolError, ToolRegistry, ToolResult};

use super::common::{Shared, context_database, run};
use super::{
    AggregateEntitiesArgs, ArgName, CompareEntityVersionsArgs, DescribeEntityArgs, EmbeddedSpec,
    EngineTool, ExploreRelationshipsArgs, FindPathArgs, FindRecentlyModifiedEntitiesArgs,
    FullTextSearchArgs, GetChangeStatisticsArgs, GetEntitiesByIdsArgs, GetEntityByIdArgs,
    GetEntityChangeHistoryArgs, GetMostModifiedEntitiesArgs, GetSchemaArgs, GlobSearchArgs,
    HybridSearchArgs, QueryEntitiesArgs, QueryEntitiesByDateRangeArgs,
    QueryEntitiesByNumberRangeArgs, QueryEntitiesByPatternArgs, RankEntitiesArgs,
    SemanticSearchArgs,
};

/// Implements the typed calls of one argument struct whose first type parameter is the
/// entity-name type `E`.
macro_rules! typed_database_tool {
    ($args:ident < E $(, $name:ident)* >) => {
        impl<E: EmbeddedSpec $(, $name: ArgName)*> $args<E $(, $name)*> {
            /// The name this tool is registered under (the spec's prefix included).
            pub fn tool_name() -> String {
                format!(
                    "{}{}",
                    E::spec().tools.name_prefix,
                    <$args as EngineTool>::KIND.name()
                )
            }

            /// Runs the tool through `registry`, exactly as a model's call would (argument
            /// validation included).
            pub async fn call(&self, registry: &ToolRegistry) -> ToolResult {
                let name = Self::tool_name();
                let arguments = serde_json::to_value(self).map_err(|error| {
                    ToolError::invalid_arguments(format!(
                        "the arguments of `{name}` cannot be serialised: {error}"
                    ))
                })?;
                registry.call(&name, arguments).await
            }

            /// Runs the engine's tool on the [`Database`](crate::sql::Database) of `context`,
            /// without a registry.
            pub async fn run(self, context: &ToolContext) -> ToolResult {
                let db = context_database(context)?;
                run(
                    Arc::new(Shared::new(E::spec().clone(), db)),
                    self.into_engine(),
                    context.values().clone(),
                )
                .await
            }
        }
    };
}

typed_database_tool!(GetSchemaArgs<E>);
typed_database_tool!(DescribeEntityArgs<E>);
typed_database_tool!(QueryEntitiesArgs<E, F>);
typed_database_tool!(GlobSearchArgs<E, F>);
typed_database_tool!(GetEntityByIdArgs<E>);
typed_database_tool!(GetEntitiesByIdsArgs<E, F>);
typed_database_tool!(ExploreRelationshipsArgs<E, F, R>);
typed_database_tool!(FullTextSearchArgs<E, F>);
typed_database_tool!(SemanticSearchArgs<E, F>);
typed_database_tool!(HybridSearchArgs<E>);
typed_database_tool!(QueryEntitiesByDateRangeArgs<E, F>);
typed_database_tool!(QueryEntitiesByNumberRangeArgs<E, F>);
typed_database_tool!(QueryEntitiesByPatternArgs<E, F>);
typed_database_tool!(AggregateEntitiesArgs<E, F, R>);
typed_database_tool!(FindPathArgs<E, R>);
typed_database_tool!(RankEntitiesArgs<E, R>);
typed_database_tool!(GetEntityChangeHistoryArgs<E>);
typed_database_tool!(FindRecentlyModifiedEntitiesArgs<E>);
typed_database_tool!(GetMostModifiedEntitiesArgs<E>);
typed_database_tool!(GetChangeStatisticsArgs<E>);
typed_database_tool!(CompareEntityVersionsArgs<E>);
