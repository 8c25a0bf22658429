//! Typed tools: a Rust struct for the arguments, a typed output, and the [`Tool`] adapter.
//!
//! A typed tool is two halves:
//! - [`ToolArgs`] says what the tool is (name, description, input schema, annotations) and turns
//!   the JSON arguments into the struct. `#[derive(Tool)]` writes it.
//! - [`ToolHandler`] is what the tool does: the user implements `run` on the arguments struct,
//!   and its typed `Output` gives the output schema.
//!
//! [`TypedTool`] joins them into a [`Tool`] a registry can hold.

mod derive_spec;
mod deserialize;
mod schema;

use std::fmt;
use std::future::Future;
use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::{Tool, ToolContext, ToolDefinition, ToolError, ToolFuture};

pub use derive_spec::DeriveSpec;
pub use deserialize::deserialize_arguments;
pub use schema::{input_schema_for, output_schema_for};

/// What a typed tool does: implemented by the user on the arguments struct.
///
/// `run` consumes the arguments, may read shared state from the [`ToolContext`] (a database
/// handle, an HTTP client...), and returns a typed `Output` whose JSON Schema becomes the tool's
/// output schema. Write it as an `async fn`; the future must be `Send`.
///
/// A complete tool (the example needs the default `derive` feature):
///
#[cfg_attr(feature = "derive", doc = "```")]
#[cfg_attr(not(feature = "derive"), doc = "```ignore")]
/// use toolforge::{Tool, ToolContext, ToolError, ToolHandler};
///
/// /// Adds two numbers.
/// #[derive(Tool)]
/// #[tool(read_only, idempotent, capabilities = ["math"])]
/// struct AddNumbers {
///     /// The first term.
///     a: i64,
///     /// The second term.
///     b: i64,
/// }
///
/// impl ToolHandler for AddNumbers {
///     type Output = i64;
///
///     async fn run(self, _context: &ToolContext) -> Result<i64, ToolError> {
///         self.a
///             .checked_add(self.b)
///             .ok_or_else(|| ToolError::execution_failed("the sum overflows a 64-bit integer"))
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let tool = AddNumbers::into_tool();
/// assert_eq!(tool.definition().name, "add_numbers");
/// assert_eq!(tool.definition().description, "Adds two numbers.");
///
/// let context = ToolContext::new();
/// let sum = tool.call(serde_json::json!({"a": 2, "b": 3}), &context).await.unwrap();
/// assert_eq!(sum, 5);
///
/// let error = tool.call(serde_json::json!({"a": 2, "b": "3"}), &context).await.unwrap_err();
/// assert_eq!(error.code, toolforge::ErrorCode::InvalidArguments);
/// assert_eq!(error.details.unwrap()["path"], "/b");
/// # }
/// ```
pub trait ToolHandler: Sized + Send + 'static {
    /// The result of a successful call, serialised to JSON for the caller.
    type Output: Serialize + JsonSchema + Send;

    /// Runs the tool with these arguments.
    fn run(
        self,
        context: &ToolContext,
    ) -> impl Future<Output = Result<Self::Output, ToolError>> + Send;

    /// The registrable [`Tool`] for this arguments type (same as [`TypedTool::new`]).
    fn into_tool() -> TypedTool<Self>
    where
        Self: ToolArgs,
    {
        TypedTool::new()
    }
}

/// What a typed tool is, and how its arguments are read: written by `#[derive(Tool)]`.
///
/// Implement it by hand only for arguments the derive cannot describe.
pub trait ToolArgs: Sized + Send + 'static {
    /// The tool's name, title, description, input schema, annotations, capabilities and
    /// keywords. The output schema is left empty: [`TypedTool`] fills it from
    /// [`ToolHandler::Output`] (unless [`COMPLETE_DEFINITION`](ToolArgs::COMPLETE_DEFINITION)).
    fn definition() -> ToolDefinition;

    /// True when [`definition`](ToolArgs::definition) is the tool's whole definition, output
    /// schema included, to be kept exactly as returned: [`TypedTool`] then adds no output
    /// schema. `#[derive(Tool)]` sets it with `#[tool(definition = path::to_fn)]`.
    const COMPLETE_DEFINITION: bool = false;

    /// Reads the arguments of a call; an argument that does not fit is an
    /// [`ErrorCode::InvalidArguments`](crate::ErrorCode::InvalidArguments) error whose details
    /// carry the JSON pointer of the faulty value (see [`deserialize_arguments`]).
    fn from_arguments(arguments: Value) -> Result<Self, ToolError>;
}

/// The [`Tool`] made of a [`ToolArgs`] + [`ToolHandler`] type.
///
/// The definition (with the output schema) is built once, in [`TypedTool::new`]. A call reads
/// the arguments, runs the handler and serialises its output.
pub struct TypedTool<T> {
    definition: ToolDefinition,
    arguments: PhantomData<fn() -> T>,
}

impl<T: ToolArgs + ToolHandler> TypedTool<T> {
    /// Builds the tool, generating its input and output schemas (or keeping a complete
    /// definition as it is, see [`ToolArgs::COMPLETE_DEFINITION`]).
    pub fn new() -> Self {
        let mut definition = T::definition();
        if !T::COMPLETE_DEFINITION {
            definition.output_schema = Some(output_schema_for::<T::Output>());
        }
        TypedTool {
            definition,
            arguments: PhantomData,
        }
    }
}

impl<T: ToolArgs + ToolHandler> Default for TypedTool<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> fmt::Debug for TypedTool<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TypedTool")
            .field("name", &self.definition.name)
            .finish_non_exhaustive()
    }
}

impl<T: ToolArgs + ToolHandler> Tool for TypedTool<T> {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let arguments = T::from_arguments(arguments)?;
            let output = arguments.run(context).await?;
            serde_json::to_value(output).map_err(|error| {
                ToolError::execution_failed(format!(
                    "the result of `{}` could not be serialised to JSON: {error}",
                    self.definition.name
                ))
            })
        })
    }
}

#[cfg(all(test, feature = "derive"))]
mod tests {
    use super::*;
    use crate::ErrorCode;

    /// Doubles a number.
    #[derive(crate::Tool)]
    struct Double {
        /// The number to double.
        value: i32,
    }

    impl ToolHandler for Double {
        type Output = i32;

        async fn run(self, _context: &ToolContext) -> Result<i32, ToolError> {
            self.value
                .checked_mul(2)
                .ok_or_else(|| ToolError::execution_failed("the double overflows"))
        }
    }

    #[tokio::test]
    async fn the_derive_works_inside_the_runtime_crate() {
        let tool = Double::into_tool();
        assert_eq!(tool.definition().name, "double");
        let context = ToolContext::new();
        let doubled = tool.call(serde_json::json!({"value": 21}), &context).await;
        assert_eq!(doubled.unwrap(), 42);
        let overflow = tool
            .call(serde_json::json!({"value": i32::MAX}), &context)
            .await;
        assert_eq!(overflow.unwrap_err().code, ErrorCode::ExecutionFailed);
    }

    #[test]
    fn debug_names_the_tool() {
        let tool = TypedTool::<Double>::default();
        assert_eq!(format!("{tool:?}"), "TypedTool { name: \"double\", .. }");
    }
}
