//! A registry's tools as rmcp's `Tool`s: the MCP dialect's export, read back as rmcp's type so
//! that `tools/list` serves exactly what `definitions_for(Dialect::Mcp)` shows.

use crate::{Dialect, ToolRegistry};

/// Every tool of `registry`, in registration order. A definition rmcp cannot read (which the
/// MCP dialect never produces) is left out and logged, rather than failing the whole list.
pub(super) fn tools(registry: &ToolRegistry) -> Vec<rmcp::model::Tool> {
    registry
        .definitions_for(Dialect::Mcp)
        .into_iter()
        .filter_map(|definition| {
            let name = definition["name"].as_str().unwrap_or_default().to_owned();
            match serde_json::from_value::<rmcp::model::Tool>(definition) {
                Ok(tool) => Some(tool),
                Err(error) => {
                    tracing::error!(tool = %name, %error, "a tool definition is not valid MCP; it is not served");
                    None
                }
            }
        })
        .collect()
}
