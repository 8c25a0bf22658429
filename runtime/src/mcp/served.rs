//! [`Served`]: what a server serves now, swapped whole when its registry is replaced.

use std::sync::Arc;

use super::convert;
use super::offers::{self, Offers};
use crate::ToolRegistry;
use crate::spec::SchemaSpec;

/// What is served now: the registry and its MCP definitions, converted once, and what the
/// server offers over the data it knows.
pub(super) struct Served {
    pub(super) registry: Arc<ToolRegistry>,
    pub(super) tools: Vec<rmcp::model::Tool>,
    /// Resources, prompts and completions
    /// ([`McpServer::with_data`](super::McpServer::with_data)).
    pub(super) offers: Option<Offers>,
}

impl Served {
    pub(super) fn new(
        registry: Arc<ToolRegistry>,
        listed: Option<&[String]>,
        data: Option<Arc<SchemaSpec>>,
    ) -> Arc<Served> {
        let mut tools = convert::tools(&registry);
        if let Some(listed) = listed {
            tools.retain(|tool| listed.iter().any(|name| *name == tool.name));
        }
        let offers = data.map(|spec| offers::offers(spec, &registry));
        Arc::new(Served {
            registry,
            tools,
            offers,
        })
    }

    /// The same tools, with the offers over `spec` (the definitions are not converted again).
    pub(super) fn with_data(&self, spec: Arc<SchemaSpec>) -> Arc<Served> {
        Arc::new(Served {
            registry: self.registry.clone(),
            tools: self.tools.clone(),
            offers: Some(offers::offers(spec, &self.registry)),
        })
    }

    /// The spec of the data served, when the server knows it.
    pub(super) fn data(&self) -> Option<Arc<SchemaSpec>> {
        self.offers.as_ref().map(|offers| offers.spec_arc())
    }
}
