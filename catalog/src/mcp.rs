//! Listing the tools of an MCP server with rmcp's client: a command started as a child
//! process speaking MCP on stdio (feature `mcp-stdio`), or a server reached over Streamable
//! HTTP at a plain `http://` URL (feature `mcp-http`).

use std::time::Duration;

use rmcp::{RoleClient, ServiceExt};

use crate::error::CatalogError;
use crate::listing::from_json;
use crate::model::CatalogEntry;

/// How long a server may take to start, answer `initialize` and list its tools.
pub const LIST_TIMEOUT: Duration = Duration::from_secs(60);

/// Starts `program` with `args`, lists all its tools (following `nextCursor`) and stops it.
/// Fails, and nothing should be pruned, when the server cannot be started or does not list
/// its tools completely within [`LIST_TIMEOUT`].
#[cfg(feature = "mcp-stdio")]
pub async fn list_stdio(program: &str, args: &[String]) -> Result<Vec<CatalogEntry>, CatalogError> {
    use rmcp::transport::TokioChildProcess;

    let origin = format!("MCP server `{program}`");
    let mut command = tokio::process::Command::new(program);
    command.args(args);
    let transport = TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(|(transport, _)| transport)
        .map_err(|error| CatalogError::Listing(format!("{origin}: cannot start it: {error}")))?;
    list_over(transport, &origin).await
}

/// Lists all the tools of the Streamable HTTP MCP server at `url` (`http://host:port/path`),
/// sending `Authorization: Bearer <token>` when a token is given. Fails, and nothing should
/// be pruned, when the URL is not a plain `http://` URL, the server cannot be reached or it
/// does not list its tools completely within [`LIST_TIMEOUT`].
#[cfg(feature = "mcp-http")]
pub async fn list_http(url: &str, token: Option<&str>) -> Result<Vec<CatalogEntry>, CatalogError> {
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

    let origin = format!("MCP server at {url}");
    let parsed = reqwest_url(url)?;
    if parsed != "http" {
        return Err(CatalogError::Listing(format!(
            "{origin}: only http:// URLs are read (this build has no TLS stack for `{parsed}`); reach an https server through a local proxy"
        )));
    }
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    if let Some(token) = token {
        config = config.auth_header(token.to_owned());
    }
    let transport = StreamableHttpClientTransport::from_config(config);
    list_over(transport, &origin).await
}

/// The scheme of `url`, or an error saying why it is not a URL.
#[cfg(feature = "mcp-http")]
fn reqwest_url(url: &str) -> Result<String, CatalogError> {
    let invalid = |why: &str| CatalogError::Listing(format!("`{url}` is not a URL: {why}"));
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| invalid("it has no scheme (write http://host:port/path)"))?;
    if rest.is_empty() || rest.starts_with('/') {
        return Err(invalid("it has no host"));
    }
    Ok(scheme.to_ascii_lowercase())
}

/// Handshakes over `transport`, lists all the tools and closes the connection, within
/// [`LIST_TIMEOUT`].
async fn list_over<T, E, A>(transport: T, origin: &str) -> Result<Vec<CatalogEntry>, CatalogError>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
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
    from_json(&value.to_string(), origin)
}
