//! [`Offers`]: what one registry offers over the spec of its data, and the [`Caller`] it reads
//! for.

use std::sync::Arc;

use serde_json::Value;

use super::uris::{EntityUri, JSON_QUERY, Target};
use crate::spec::{PromptSpec, SchemaSpec};
use crate::{ContextValues, ToolGate, ToolRegistry, ToolResult};

/// The tools the offers read through, by their unprefixed names.
const GET_SCHEMA: &str = "get_schema";
const GET_ENTITY_BY_ID: &str = "get_entity_by_id";
const QUERY_ENTITIES: &str = "query_entities";
const EXPLORE_RELATIONSHIPS: &str = "explore_relationships";

/// The URI of the schema resource.
pub(super) const SCHEMA_URI: &str = "toolforge://schema";

/// What a server offers over one registry and the spec of its data.
pub(in crate::mcp) struct Offers {
    pub(super) spec: Arc<SchemaSpec>,
    /// The registry's names of the tools the offers call (`None`: not served).
    pub(super) get_schema: Option<String>,
    pub(super) get_entity_by_id: Option<String>,
    pub(super) query_entities: Option<String>,
    pub(super) explore_relationships: Option<String>,
    /// Each entity's URI template, in the spec's order.
    pub(super) uris: Vec<EntityUri>,
    /// The config's prompts, then the generated ones whose names it does not take.
    pub(super) prompts: Vec<PromptSpec>,
}

impl Offers {
    /// The offers of `registry` over the data `spec` describes, with `prompts`.
    pub(super) fn new(
        spec: Arc<SchemaSpec>,
        registry: &ToolRegistry,
        prompts: Vec<PromptSpec>,
    ) -> Offers {
        let served = |name: &str| {
            let full = format!("{}{name}", spec.tools.name_prefix);
            registry.contains(&full).then_some(full)
        };
        Offers {
            get_schema: served(GET_SCHEMA),
            get_entity_by_id: served(GET_ENTITY_BY_ID),
            query_entities: served(QUERY_ENTITIES),
            explore_relationships: served(EXPLORE_RELATIONSHIPS),
            uris: EntityUri::all(&spec),
            prompts,
            spec,
        }
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
        let documents = &self.spec.mcp.resources.documents;
        if let Some(position) = documents.iter().position(|document| document.uri == uri) {
            return Some(Target::Document(position));
        }
        if uri == SCHEMA_URI && self.get_schema.is_some() {
            return Some(Target::Schema);
        }
        self.get_entity_by_id.as_ref()?;
        let (base, json) = match uri.strip_suffix(JSON_QUERY) {
            Some(base) => (base, true),
            None => (uri, false),
        };
        // The longest prefix first, so that `lib://a/{id}` does not take `lib://a/b/1`.
        let mut candidates: Vec<(usize, &EntityUri)> = self.uris.iter().enumerate().collect();
        candidates.sort_by_key(|(_, entity)| std::cmp::Reverse(entity.prefix_len()));
        candidates.into_iter().find_map(|(entity, template)| {
            template
                .id_in(base)
                .map(|id| Target::Record { entity, id, json })
        })
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
    pub(super) async fn call(&self, tool: &str, arguments: Value) -> ToolResult {
        self.registry
            .call_for(tool, arguments, self.values, self.gate)
            .await
    }
}

/// A value as text, for a URI or a name (strings as they are, numbers written).
pub(super) fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}
