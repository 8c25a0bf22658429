//! Typed calls of declared tools: a generated module declares one argument struct per declared
//! tool ([`DeclaredArgs`]) and reads its answer as a [`DeclaredPage`] of the entity's typed
//! records (or [`DeclaredRows`] for a tool in the trusted `sql:` form). The tool itself (its
//! schema, checks and query) stays the one built from the spec.

use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::spec::SchemaSpec;
use crate::{Tool, ToolContext, ToolError, ToolRegistry};

use crate::sql::tools::declared::tool::DeclaredTool;
use crate::sql::tools::shared::source::DatabaseSource;

/// The arguments of one declared tool of a generated module's embedded spec, and the type of
/// its answers. Generated code implements it; call through the struct's own `call` and `run`
/// methods, which use [`call_declared`] and [`run_declared`].
pub trait DeclaredArgs: Serialize {
    /// The tool's name, as declared.
    const TOOL_NAME: &'static str;

    /// Its answer: a [`DeclaredPage`] of the entity's typed records, or [`DeclaredRows`].
    type Answer: DeserializeOwned;

    /// The spec that declares the tool.
    fn spec() -> &'static Arc<SchemaSpec>;
}

/// One page of a declared tool's answer, its records typed.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[non_exhaustive]
pub struct DeclaredPage<R> {
    /// The entity the tool returns.
    pub entity_type: String,
    /// How many records match in all: exactly when `total_exact`, otherwise at least this
    /// many.
    pub total: u64,
    /// Whether `total` is the exact count.
    #[serde(default = "exact")]
    pub total_exact: bool,
    /// The offset of the first record of this page.
    pub offset: u64,
    /// How many records this page holds.
    pub returned: u64,
    /// Whether records were left out (call again from `next_offset`).
    pub truncated: bool,
    /// Whether more records follow.
    pub has_more: bool,
    /// The `offset` of the next page; `None` on the last one.
    pub next_offset: Option<u64>,
    /// The records of this page, in the tool's order.
    #[serde(rename = "results")]
    pub records: Vec<R>,
}

/// A total is exact unless the answer says otherwise.
fn exact() -> bool {
    true
}

/// One page of the rows of a declared tool in the trusted `sql:` form.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[non_exhaustive]
pub struct DeclaredRows {
    /// The statement's column names, in order.
    pub columns: Vec<String>,
    /// The offset of the first row of this page.
    pub offset: u64,
    /// How many rows this page holds.
    pub returned: u64,
    /// Whether rows were left out (call again from `next_offset`).
    pub truncated: bool,
    /// Whether more rows follow.
    pub has_more: bool,
    /// The `offset` of the next page; `None` on the last one.
    pub next_offset: Option<u64>,
    /// The rows of this page, each column name to value.
    pub rows: Vec<serde_json::Map<String, Value>>,
}

/// Runs the declared tool of `args` through `registry`, exactly as a model's call would
/// (argument checks, deadline and answer cap included), and types its answer.
pub async fn call_declared<A: DeclaredArgs>(
    args: &A,
    registry: &ToolRegistry,
) -> Result<A::Answer, ToolError> {
    let answer = registry.call(A::TOOL_NAME, arguments(args)?).await?;
    typed_answer::<A>(answer)
}

/// Runs the declared tool of `args` on the [`Database`](crate::sql::Database) of `context`
/// (its context values bind `from_context` parameters and row rules), without a registry.
pub async fn run_declared<A: DeclaredArgs>(
    args: &A,
    context: &ToolContext,
) -> Result<A::Answer, ToolError> {
    let spec = A::spec();
    let tool = spec
        .declared_tools
        .iter()
        .position(|tool| tool.name == A::TOOL_NAME)
        .and_then(|index| DeclaredTool::new(DatabaseSource::Context(spec.clone()), index))
        .ok_or_else(|| {
            ToolError::new(
                crate::ErrorCode::UnknownTool,
                format!(
                    "the spec declares no tool `{}`; regenerate the module",
                    A::TOOL_NAME
                ),
            )
        })?;
    let answer = tool.call(arguments(args)?, context).await?;
    typed_answer::<A>(answer)
}

fn arguments<A: DeclaredArgs>(args: &A) -> Result<Value, ToolError> {
    serde_json::to_value(args).map_err(|error| {
        ToolError::invalid_arguments(format!(
            "the arguments of `{}` cannot be serialised: {error}",
            A::TOOL_NAME
        ))
    })
}

fn typed_answer<A: DeclaredArgs>(answer: Value) -> Result<A::Answer, ToolError> {
    serde_path_to_error::deserialize(answer).map_err(|error| {
        ToolError::execution_failed(format!(
            "the answer of `{}` does not fit its type at `{}`: {}; regenerate the \
             module from the config the database was built with",
            A::TOOL_NAME,
            error.path(),
            error.inner()
        ))
    })
}
