//! The trait every database tool implements ([`EngineTool`]): its definition for a spec and
//! what a call does on a read-only connection.

use std::future::Future;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::ToolDefinition;
use crate::spec::SchemaSpec;
use crate::sql::Database;
use crate::sql::arg_name::IntoEngine;
use crate::sql::backend::Reader;
use crate::sql::handler_error::HandlerError;
use crate::sql::tools::kind::TableTool;
use crate::sql::tools::shared::answers::Answer;

/// One database tool as the engine runs it: its arguments (with `String` names), its
/// definition for a spec, and what a call does.
pub(crate) trait EngineTool:
    TableTool + IntoEngine + DeserializeOwned + JsonSchema + Clone + Send + Sync + 'static
{
    /// What a call answers: its JSON and, from the same type, its `outputSchema`.
    type Answer: Answer;

    /// The definition for `spec`.
    fn definition(spec: &SchemaSpec) -> ToolDefinition;

    /// Answers the call on a read-only connection.
    fn execute<'a>(
        self,
        spec: &'a SchemaSpec,
        conn: &'a dyn Reader,
    ) -> impl Future<Output = Result<Self::Answer, HandlerError>> + Send + 'a;

    /// Answers the call on a read-only connection of `db`, for tools that need more of the
    /// database than a connection (its embedder, its vectors in memory).
    fn execute_in<'a>(
        self,
        spec: &'a SchemaSpec,
        conn: &'a dyn Reader,
        db: &'a Database,
    ) -> impl Future<Output = Result<Self::Answer, HandlerError>> + Send + 'a {
        let _ = db;
        self.execute(spec, conn)
    }
}
