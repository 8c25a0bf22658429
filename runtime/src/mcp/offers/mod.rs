//! What a server offers besides tools, when it knows the data it serves
//! ([`McpServer::with_data`](super::McpServer::with_data)): resources (the schema, each record,
//! the config's documents), prompts (the config's and generated ones) and completions of their
//! arguments.
//!
//! Everything here reads through the registry's own tools (`get_schema`, `get_entity_by_id`,
//! `query_entities`, `explore_relationships`) with the caller's context values and scopes, so
//! a resource shows what the same caller's tool call would: the same row rules, deadlines,
//! answer caps and scope checks. A part whose tool the server does not serve is not offered.

mod completion;
mod markdown;
mod prompts;
mod resources;
mod uris;

use std::sync::Arc;

use serde_json::Value;

use crate::spec::{PromptSpec, SchemaSpec};
use crate::{ContextValues, ToolGate, ToolRegistry, ToolResult};

pub(super) use completion::complete;
pub(super) use prompts::{get_prompt, list_prompts};
pub(super) use resources::{list_resources, list_templates, read_resource};
pub(super) use uris::Target;

/// The tools the offers read through, by their unprefixed names.
pub(super) const GET_SCHEMA: &str = "get_schema";
const GET_ENTITY_BY_ID: &str = "get_entity_by_id";
const QUERY_ENTITIES: &str = "query_entities";
const EXPLORE_RELATIONSHIPS: &str = "explore_relationships";

/// The URI of the schema resource.
pub(super) const SCHEMA_URI: &str = "toolforge://schema";

/// What a server offers over one registry and the spec of its data.
pub(in crate::mcp) struct Offers {
    spec: Arc<SchemaSpec>,
    /// The registry's names of the tools the offers call (`None`: not served).
    get_schema: Option<String>,
    get_entity_by_id: Option<String>,
    query_entities: Option<String>,
    explore_relationships: Option<String>,
    /// Each entity's URI template, in the spec's order.
    uris: Vec<uris::EntityUri>,
    /// The config's prompts, then the generated ones whose names it does not take.
    prompts: Vec<PromptSpec>,
}

impl Offers {
    /// The offers of `registry` over the data `spec` describes.
    pub(in crate::mcp) fn new(spec: Arc<SchemaSpec>, registry: &ToolRegistry) -> Offers {
        let served = |name: &str| {
            let full = format!("{}{name}", spec.tools.name_prefix);
            registry.contains(&full).then_some(full)
        };
        let mut offers = Offers {
            get_schema: served(GET_SCHEMA),
            get_entity_by_id: served(GET_ENTITY_BY_ID),
            query_entities: served(QUERY_ENTITIES),
            explore_relationships: served(EXPLORE_RELATIONSHIPS),
            uris: uris::EntityUri::all(&spec),
            prompts: Vec::new(),
            spec,
        };
        offers.prompts = prompts::all(&offers, registry);
        offers
    }

    /// The spec of the data served.
    pub(in crate::mcp) fn spec_arc(&self) -> Arc<SchemaSpec> {
        self.spec.clone()
    }

    /// Whether the server has resources to offer.
    pub(in crate::mcp) fn has_resources(&self) -> bool {
        self.get_schema.is_some()
            || self.get_entity_by_id.is_some()
            || !self.spec.mcp.resources.documents.is_empty()
    }

    /// What `uri` names, if anything of this server.
    pub(in crate::mcp) fn target(&self, uri: &str) -> Option<Target> {
        uris::target(self, uri)
    }
}

/// Who asks: the context values and scopes every tool call made for them carries.
pub(in crate::mcp) struct Caller<'a> {
    pub(in crate::mcp) registry: &'a ToolRegistry,
    pub(in crate::mcp) values: &'a ContextValues,
    pub(in crate::mcp) gate: Option<&'a ToolGate>,
}

impl Caller<'_> {
    /// Calls `tool` for the caller.
    async fn call(&self, tool: &str, arguments: Value) -> ToolResult {
        self.registry
            .call_for(tool, arguments, self.values, self.gate)
            .await
    }
}
