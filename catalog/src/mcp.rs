//! Listing the tools of an MCP server with rmcp's client (feature `mcp-stdio`): a command
//! started as a child process speaking MCP on stdio.

use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;

use crate::catalog::CatalogError;
use crate::listing::from_json;
use crate::model::CatalogEntry;

/// How long a server may take to start, answer `initialize` and list its tools.
pub const LIST_TIMEOUT: Duration = Duration::from_secs(60);

/// Starts `program` with `args`, lists all its tools (following `nextCursor`) and stops it.
/// Fails, and nothing should be pruned, when the server cannot be started or does not list
/// its tools completely within [`LIST_TIMEOUT`].
pub async fn list_stdio(program: &str, args: &[String]) -> Result<Vec<CatalogEntry>, CatalogError> {
    let origin = format!("MCP server `{program}`");
    let mut command = tokio::process::Command::new(program);
    command.args(args);
    let transport = TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(|(transport, _)| transport)
        .map_err(|error| CatalogError::Listing(format!("{origin}: cannot start it: {error}")))?;
    let listing = async {
        let client = ().serve(transport).await.map_err(|error| {
            CatalogError::Listing(format!("{origin}: the MCP handshake failed: {error}"))
        })?;
        let tools = client.list_all_tools().await.map_err(|error| {
            CatalogError::Listing(format!("{origin}: tools/list failed: {error}"))
        });
        let _ = client.cancel().await;
        tools
    };
    let tools = tokio::time::timeout(LIST_TIMEOUT, listing)
        .await
        .map_err(|_| {
            CatalogError::Listing(format!(
                "{origin}: no complete tool listing within {} s",
                LIST_TIMEOUT.as_secs()
            ))
        })??;
    let value = serde_json::to_value(&tools)
        .map_err(|error| CatalogError::Listing(format!("{origin}: {error}")))?;
    from_json(&value.to_string(), &origin)
}
