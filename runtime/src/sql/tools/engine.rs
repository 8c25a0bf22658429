//! The trait every database tool implements ([`EngineTool`]): its definition for a spec and
//! what a call does on a read-only connection.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::ToolDefinition;
use crate::spec::SchemaSpec;
use crate::sql::Database;
use crate::sql::backend::Reader;
use crate::sql::handler_error::HandlerError;
use crate::sql::tools::kind::DatabaseTool;

/// One database tool as the engine runs it: its arguments (with `String` names), its
/// definition for a spec, and what a call does.
pub(crate) trait EngineTool:
    DeserializeOwned + JsonSchema + Clone + Send + Sync + 'static
{
    /// Which tool this is.
    const KIND: DatabaseTool;

    /// Whether a call may run on the server's own runtime rather than on a blocking thread:
    /// [`EngineTool::execute`] is light (its work is bounded by the page it answers) and
    /// depends only on the arguments and on what its statements answer, so it may run again
    /// from its start on the answers so far (`postgres/replay.rs`). On PostgreSQL, such a call's
    /// statements are awaited without a hand-off to another thread.
    const ON_RUNTIME: bool = false;

    /// The shape of its answers (its `outputSchema`, see `answers.rs`).
    type Answer: JsonSchema;

    /// The definition for `spec`.
    fn definition(spec: &SchemaSpec) -> ToolDefinition;

    /// Answers the call on a read-only connection.
    fn execute(self, spec: &SchemaSpec, conn: &dyn Reader) -> Result<Value, HandlerError>;

    /// Answers the call on a read-only connection of `db`, for tools that need more of the
    /// database than a connection (its embedder, its vectors in memory).
    fn execute_in(
        self,
        spec: &SchemaSpec,
        conn: &dyn Reader,
        db: &Database,
    ) -> Result<Value, HandlerError> {
        let _ = db;
        self.execute(spec, conn)
    }
}
