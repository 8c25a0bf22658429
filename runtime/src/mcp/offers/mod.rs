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
mod data;
mod markdown;
mod prompts;
mod resources;
mod uris;

use std::sync::Arc;

use crate::ToolRegistry;
use crate::spec::SchemaSpec;

pub(super) use completion::complete;
pub(super) use data::{Caller, Offers};
pub(super) use prompts::{get_prompt, list_prompts};
pub(super) use resources::{list_resources, list_templates, not_a_resource, read_resource};

/// What `registry` offers over the data `spec` describes: its resources, and the config's
/// prompts with the generated ones.
pub(super) fn offers(spec: Arc<SchemaSpec>, registry: &ToolRegistry) -> Offers {
    let prompts = prompts::all(&spec, registry);
    Offers::new(spec, registry, prompts)
}
