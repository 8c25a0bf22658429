//! The argument structs instantiated with a generated module's name enums: a typed call of the
//! module's tools, run through a registry (as a model's call) or directly on the [`Database`]
//! of a call context.
//!
//! [`Database`]: crate::sql::Database

use std::sync::Arc;

use crate::{ToolContext, ToolError, ToolRegistry, ToolResult};

use crate::sql::arg_name::{ArgName, EmbeddedSpec, IntoEngine};
use crate::sql::tools::shared::common::{Shared, context_database, run};

/// Implements the typed calls of one argument struct whose first type parameter is the
/// entity-name type `E`.
macro_rules! typed_database_tool {
    ($variant:ident, $args:ident < E $(, $name:ident)* >) => {
        impl<E: EmbeddedSpec $(, $name: ArgName)*> crate::sql::tools::$args<E $(, $name)*> {
            /// The name this tool is registered under (the spec's prefix included).
            pub fn tool_name() -> String {
                format!(
                    "{}{}",
                    E::spec().tools.name_prefix,
                    crate::sql::tools::DatabaseTool::$variant.name()
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

/// The typed calls of every database tool's argument struct, from the one table of tools.
macro_rules! typed_database_tools {
    ($($variant:ident: $name:literal, $family:ident, $($module:ident)::+, $args:ident<$($param:ident),+>, $needs:ident;)*) => {
        $(typed_database_tool!($variant, $args<$($param),+>);)*
    };
}
crate::__database_tool_table!(typed_database_tools);
