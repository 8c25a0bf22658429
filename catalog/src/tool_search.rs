//! The `tool_search` tool: an agent searches the catalog for the tool it needs (Loom's
//! schema: `query`, `mode`, `capabilities`, `max_results` default 5 at most 10,
//! `task_context`).
//!
//! The tool reads the catalog from the call context: register it with
//! [`ToolSearch::register`], which also adds the catalog as a registry extension.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use toolforge::{
    RegistryBuilder, RegistryError, Tool, ToolContext, ToolError, ToolHandler, ToolRegistry,
};

use crate::catalog::Catalog;
use crate::error::CatalogError;
use crate::listing;
use crate::model::Source;
use crate::search::{SearchMode, SearchRequest};

/// The name of the `tool_search` tool.
pub const TOOL_SEARCH: &str = "tool_search";

/// The most results `tool_search` returns.
pub const MAX_TOOL_SEARCH_RESULTS: u32 = 10;

/// Searches the catalog of available tools and returns the best matches with their parameters.
///
/// Describe what you want to do in natural language; call a found tool by its `name`.
#[derive(Tool)]
#[tool(name = "tool_search", read_only, idempotent, capabilities = ["search"], keywords = ["discover", "find tool"])]
pub struct ToolSearchArgs {
    /// Natural language description of what you want to do.
    pub query: String,
    /// Search accuracy mode: `fast` (keywords), `balanced` (default, meaning too) or
    /// `accurate` (adds synonyms).
    pub mode: Option<SearchMode>,
    /// Capability filters (e.g. ["notification", "database"]): only tools with all of them.
    #[serde(default)]
    pub capabilities: Vec<String>,
    /// Maximum results (default 5, at most 10).
    #[schemars(range(min = 1, max = 10))]
    pub max_results: Option<u32>,
    /// Optional context for ranking: what you are working on.
    pub task_context: Option<String>,
}

/// The catalog `tool_search` searches, as a registry extension.
#[derive(Clone, Debug)]
pub struct ToolSearch(pub Arc<Catalog>);

impl ToolSearch {
    /// Registers `tool_search` over `catalog` in `builder`.
    pub fn register(
        builder: RegistryBuilder,
        catalog: Arc<Catalog>,
    ) -> Result<RegistryBuilder, RegistryError> {
        Ok(builder
            .register(ToolSearchArgs::into_tool())?
            .with_extension(ToolSearch(catalog)))
    }

    /// `registry` with `tool_search` added, searching an in-memory catalog of the registry's
    /// own tools indexed as `source`: progressive discovery over one registry, where an agent
    /// is shown `tool_search` and a few tools and finds the rest by searching.
    pub fn over_registry(
        registry: &ToolRegistry,
        source: &Source,
    ) -> Result<Arc<ToolRegistry>, CatalogError> {
        let catalog = Catalog::in_memory()?;
        catalog.index(source, listing::from_registry(registry))?;
        Ok(ToolSearch::register(registry.to_builder(), Arc::new(catalog))?.build())
    }
}

/// What `tool_search` answers (its output schema is derived from this struct).
#[derive(Debug, Clone, PartialEq, serde::Serialize, toolforge::schemars::JsonSchema)]
#[schemars(crate = "toolforge::schemars")]
pub struct ToolSearchOutput {
    /// The query searched.
    pub query: String,
    /// How many tools were found.
    pub results_count: usize,
    /// The tools found, best first.
    pub results: Vec<ToolSearchHit>,
    /// The mode that answered (`fast` when no embedding model is available).
    pub search_mode: SearchMode,
    /// How long the search took, in milliseconds.
    pub search_time_ms: f64,
    /// How many tools the catalog holds.
    pub total_tools_indexed: u64,
    /// Why the answer differs from what was asked, if it does (a mode fallen back, say).
    pub note: Option<String>,
}

/// One tool `tool_search` found.
#[derive(Debug, Clone, PartialEq, serde::Serialize, toolforge::schemars::JsonSchema)]
#[schemars(crate = "toolforge::schemars")]
pub struct ToolSearchHit {
    /// The name to call it by.
    pub name: String,
    /// What it does.
    pub description: String,
    /// How sure the match is, as a percentage (`"87%"`).
    pub confidence: String,
    /// The kind of source it comes from (`builtin`, `mcp`, `custom`, `config`).
    pub source: String,
    /// The MCP server that serves it, for MCP tools.
    pub mcp_server: Option<String>,
    /// Why it matched.
    pub match_reason: String,
    /// Its capability tags.
    pub capabilities: Vec<String>,
    /// Whether calling it needs a person's approval (it writes or destroys).
    pub requires_approval: bool,
    /// Its parameters by name: description, then type and whether it is required, in
    /// parentheses.
    #[schemars(with = "std::collections::BTreeMap<String, String>")]
    pub parameters: serde_json::Map<String, Value>,
}

impl ToolHandler for ToolSearchArgs {
    type Output = ToolSearchOutput;

    async fn run(self, context: &ToolContext) -> Result<ToolSearchOutput, ToolError> {
        let catalog = context
            .extension::<ToolSearch>()
            .ok_or_else(|| {
                ToolError::execution_failed(
                    "tool_search has no catalog: register it with ToolSearch::register",
                )
            })?
            .0
            .clone();
        let mut request = SearchRequest::new(self.query.clone())
            .with_mode(self.mode.unwrap_or_default())
            .with_max_results(
                self.max_results
                    .unwrap_or(5)
                    .clamp(1, MAX_TOOL_SEARCH_RESULTS) as usize,
            );
        request.capabilities = self.capabilities;
        request.task_context = self.task_context;
        request.deadline = Some(Instant::now() + Duration::from_secs(30));
        let answer = tokio::task::spawn_blocking(move || catalog.search(&request))
            .await
            .map_err(|error| ToolError::execution_failed(format!("the search stopped: {error}")))?
            .map_err(|error| ToolError::invalid_arguments(error.to_string()))?;
        let results: Vec<ToolSearchHit> = answer
            .results
            .iter()
            .map(|result| {
                let parameters: serde_json::Map<String, Value> = result
                    .parameters
                    .iter()
                    .map(|p| {
                        let mut text =
                            format!("({}{})", p.kind, if p.required { ", required" } else { "" });
                        if let Some(description) = &p.description {
                            text = format!("{description} {text}");
                        }
                        (p.name.clone(), Value::String(text))
                    })
                    .collect();
                ToolSearchHit {
                    name: result.name.clone(),
                    description: result.description.clone(),
                    confidence: format!("{:.0}%", result.confidence * 100.0),
                    source: result.source.as_str().to_owned(),
                    mcp_server: result.server.clone(),
                    match_reason: result.match_reason.clone(),
                    capabilities: result.capabilities.clone(),
                    requires_approval: result.requires_approval,
                    parameters,
                }
            })
            .collect();
        Ok(ToolSearchOutput {
            query: self.query,
            results_count: results.len(),
            results,
            search_mode: answer.metadata.mode_used,
            search_time_ms: (answer.metadata.total_ms * 100.0).round() / 100.0,
            total_tools_indexed: answer.metadata.total_indexed,
            note: answer.metadata.note,
        })
    }
}
