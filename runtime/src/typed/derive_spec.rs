//! The static description `#[derive(Tool)]` emits, turned into a [`ToolDefinition`].

use schemars::JsonSchema;

use super::input_schema_for;
use crate::{ToolAnnotations, ToolDefinition};

/// Everything `#[derive(Tool)]` knows about a tool at compile time. Not a stable API: the
/// derive's expansion builds it, users call [`ToolArgs::definition`](crate::ToolArgs).
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct DeriveSpec<'a> {
    /// The tool name (already validated by the derive).
    pub name: &'a str,
    /// The optional title.
    pub title: Option<&'a str>,
    /// The description (`#[tool(description)]` or the doc comment).
    pub description: &'a str,
    /// MCP `readOnlyHint`.
    pub read_only: Option<bool>,
    /// MCP `destructiveHint`.
    pub destructive: Option<bool>,
    /// MCP `idempotentHint`.
    pub idempotent: Option<bool>,
    /// MCP `openWorldHint`.
    pub open_world: Option<bool>,
    /// Capability tags.
    pub capabilities: &'a [&'a str],
    /// Search keywords.
    pub keywords: &'a [&'a str],
}

impl DeriveSpec<'_> {
    /// The definition, with the input schema of `A` (the derive's mirror of the arguments).
    pub fn into_definition<A: JsonSchema + ?Sized>(self) -> ToolDefinition {
        ToolDefinition {
            name: self.name.to_owned(),
            title: self.title.map(str::to_owned),
            description: self.description.trim().to_owned(),
            input_schema: input_schema_for::<A>(),
            output_schema: None,
            annotations: ToolAnnotations {
                read_only: self.read_only,
                destructive: self.destructive,
                idempotent: self.idempotent,
                open_world: self.open_world,
            },
            capabilities: self
                .capabilities
                .iter()
                .map(|&tag| tag.to_owned())
                .collect(),
            keywords: self
                .keywords
                .iter()
                .map(|&keyword| keyword.to_owned())
                .collect(),
        }
    }
}
