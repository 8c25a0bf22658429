//! Stateless `tools/call` requests (the 2026-07-28 protocol) answered without rmcp's
//! per-request service.
//!
//! rmcp serves each stateless request by starting a service for it (a task, channels, a peer,
//! cancellation tokens, and a second task that waits for the first): more than half of the CPU
//! time of a short call, a lookup by id (docs/BENCHMARKS.md, "Against MCP Toolbox and DBHub").
//! A plain `tools/call` needs none of that. This layer reads it into rmcp's own parameter
//! types, answers it with the handler method every other path uses ([`McpHandler::call`]: the
//! same scopes, context values, deadlines, caps, telemetry), and writes rmcp's own response
//! type.
//!
//! It stands outermost, before the request check (`request_check.rs`), so a plain call's body
//! is read once (under the same cap, with the same refusals) and parsed once. It answers only
//! requests that the check would pass and rmcp would accept and answer in the same way;
//! everything else goes on to them untouched, so every check and every error stays theirs:
//! - another method, a batch, a response, a notification, an id that is neither a string nor
//!   an integer;
//! - a session (`Mcp-Session-Id`), another protocol version than 2026-07-28 in the
//!   `MCP-Protocol-Version` header or in `_meta`, a `_meta` without what 2026-07-28 requires,
//!   a progress token (its notifications need a stream);
//! - an `Origin` header, a `Host` outside the allowed hosts, an `Accept` that is not the plain
//!   pair of JSON and event stream, a `Content-Type` that is not `application/json`;
//! - `Mcp-Method` or `Mcp-Name` absent, repeated or not the body's, any `Mcp-Param-*` header.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ProtocolVersion, RequestId, RequestMetaObject,
    ServerJsonRpcMessage, ServerResult,
};

use super::request_check::read_body;
use crate::mcp::handler::McpHandler;
use crate::mcp::origin::Origin;

/// What the layer needs of the server it stands in front of.
pub(super) struct Direct {
    /// The server's handler.
    pub(super) handler: McpHandler,
    /// The `Host` values rmcp accepts (empty: any).
    pub(super) allowed_hosts: Vec<String>,
    /// The body cap.
    pub(super) max_body_bytes: usize,
}

/// The middleware: answers a plain stateless `tools/call`, passes anything else on.
pub(super) async fn answer(direct: Arc<Direct>, request: Request, next: Next) -> Response {
    if !plain_headers(
        request.method(),
        request.uri(),
        request.headers(),
        &direct.allowed_hosts,
    ) {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match read_body(direct.max_body_bytes, body).await {
        Ok(bytes) => bytes,
        Err(refused) => return refused,
    };
    let Some((id, params, meta)) = plain_call(&bytes, &parts.headers) else {
        return next
            .run(Request::from_parts(parts, Body::from(bytes)))
            .await;
    };
    let origin = Origin::Direct {
        id: &id,
        meta: &meta,
        parts: &parts,
    };
    let (status, message) = match direct.handler.call(params, &origin).await {
        Ok(result) => (
            StatusCode::OK,
            ServerJsonRpcMessage::response(ServerResult::from(CallToolResponse::from(result)), id),
        ),
        // An unknown tool (`-32602`, the one error `call` answers) is a 200, as from rmcp.
        Err(error) => (StatusCode::OK, ServerJsonRpcMessage::error(error, Some(id))),
    };
    match serde_json::to_vec(&message) {
        Ok(body) => (status, [(header::CONTENT_TYPE, "application/json")], body).into_response(),
        Err(error) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the answer could not be written as JSON: {error}"),
        )
            .into_response(),
    }
}

/// Whether the headers are those of a plain stateless request that rmcp would let through.
fn plain_headers(
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
    allowed_hosts: &[String],
) -> bool {
    method == Method::POST
        && single(headers, "mcp-protocol-version") == Some(ProtocolVersion::V_2026_07_28.as_str())
        && !headers.contains_key("mcp-session-id")
        && !headers.contains_key(header::ORIGIN)
        && single(headers, "mcp-method") == Some("tools/call")
        && !headers
            .keys()
            .any(|name| name.as_str().starts_with("mcp-param-"))
        && single(headers, header::CONTENT_TYPE.as_str())
            .is_some_and(|value| value.trim().eq_ignore_ascii_case("application/json"))
        && plain_accept(headers)
        && host_allowed(uri, headers, allowed_hosts)
}

/// The header's value when it is there exactly once, as text.
fn single<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    let mut values = headers.get_all(name).iter();
    let value = values.next()?;
    if values.next().is_some() {
        return None;
    }
    value.to_str().ok()
}

/// `Accept` lists JSON and the event stream, every entry a bare media type (no weights or
/// parameters, which rmcp reads in ways this layer does not repeat).
fn plain_accept(headers: &HeaderMap) -> bool {
    let (mut json, mut stream) = (false, false);
    for value in headers.get_all(header::ACCEPT) {
        let Ok(value) = value.to_str() else {
            return false;
        };
        for entry in value.split(',') {
            let entry = entry.trim();
            if entry.contains([';', '"']) {
                return false;
            }
            json |= entry.eq_ignore_ascii_case("application/json");
            stream |= entry.eq_ignore_ascii_case("text/event-stream");
        }
    }
    json && stream
}

/// The request's host is one rmcp allows: the same reading of `Host` (or the URI's authority)
/// and of the allowed list (a name, or `name:port`).
fn host_allowed(uri: &Uri, headers: &HeaderMap, allowed_hosts: &[String]) -> bool {
    let authority = match headers.get(header::HOST) {
        Some(host) => match host
            .to_str()
            .ok()
            .and_then(|host| axum::http::uri::Authority::try_from(host).ok())
        {
            Some(authority) => authority,
            None => return false,
        },
        None => match uri.authority() {
            Some(authority) => authority.clone(),
            None => return false,
        },
    };
    if allowed_hosts.is_empty() {
        return true;
    }
    let host = normalize(authority.host());
    let port = authority.port_u16();
    allowed_hosts.iter().any(|allowed| {
        let allowed = allowed.trim();
        if allowed.is_empty() {
            return false;
        }
        match axum::http::uri::Authority::try_from(allowed) {
            Ok(allowed) => {
                normalize(allowed.host()) == host
                    && allowed.port_u16().is_none_or(|wanted| port == Some(wanted))
            }
            Err(_) => normalize(allowed) == host,
        }
    })
}

/// A host name as rmcp compares them: without IPv6 brackets, lower case.
fn normalize(host: &str) -> String {
    host.trim_matches('[')
        .trim_matches(']')
        .to_ascii_lowercase()
}

/// The JSON-RPC envelope of a plain `tools/call`. Read as a plain struct: rmcp's message type
/// is an untagged enum, which serde reads by buffering the whole message first (8 % of a
/// lookup's CPU time). Any member this does not know makes the request rmcp's.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope<'a> {
    #[serde(borrow)]
    jsonrpc: std::borrow::Cow<'a, str>,
    /// Read as JSON: the request check takes a string or an integer of at most 64 bits, where
    /// rmcp's id type also takes `1.0`.
    id: serde_json::Value,
    #[serde(borrow)]
    method: std::borrow::Cow<'a, str>,
    params: Params,
}

/// The parameters of a plain `tools/call`: no `inputResponses` or `requestState` (a retry of
/// an incomplete result), whose handling stays rmcp's.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    name: String,
    #[serde(default)]
    arguments: Option<rmcp::model::JsonObject>,
    #[serde(rename = "_meta")]
    meta: RequestMetaObject,
}

/// The id, parameters and `_meta` of `body` when it is one `tools/call` request of the
/// stateless protocol whose `Mcp-Name` header is its tool's name, with nothing that needs rmcp.
fn plain_call(
    body: &[u8],
    headers: &HeaderMap,
) -> Option<(RequestId, CallToolRequestParams, RequestMetaObject)> {
    let envelope: Envelope<'_> = serde_json::from_slice(body).ok()?;
    let Params {
        name,
        arguments,
        meta,
    } = envelope.params;
    let stateless = ProtocolVersion::V_2026_07_28;
    let plain = envelope.jsonrpc == "2.0"
        && envelope.method == "tools/call"
        && meta.protocol_version().as_ref() == Some(&stateless)
        && meta.missing_required_keys(&stateless).is_empty()
        && meta.get_progress_token().is_none()
        && single(headers, "mcp-name") == Some(name.as_str())
        && !name.starts_with("=?");
    if !plain {
        return None;
    }
    let id = match envelope.id {
        serde_json::Value::String(id) => RequestId::String(id.into()),
        serde_json::Value::Number(id) => RequestId::Number(id.as_i64()?),
        _ => return None,
    };
    let mut params = CallToolRequestParams::new(name);
    params.arguments = arguments;
    Some((id, params, meta))
}

#[cfg(test)]
mod tests {
    use super::{host_allowed, plain_accept, plain_call, plain_headers};
    use axum::http::{HeaderMap, HeaderValue, Method, Uri, header};

    const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_entity_by_id","arguments":{"entity_type":"Scope","id_value":"s-login"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

    fn call_headers() -> HeaderMap {
        headers(&[
            (header::CONTENT_TYPE, "application/json"),
            (header::ACCEPT, "application/json, text/event-stream"),
            (header::HOST, "127.0.0.1:8080"),
            (
                header::HeaderName::from_static("mcp-protocol-version"),
                "2026-07-28",
            ),
            (header::HeaderName::from_static("mcp-method"), "tools/call"),
            (
                header::HeaderName::from_static("mcp-name"),
                "get_entity_by_id",
            ),
        ])
    }

    #[test]
    fn a_plain_stateless_call_is_answered_directly() {
        let allowed = ["127.0.0.1".to_owned()];
        let uri = Uri::from_static("/mcp");
        assert!(plain_headers(
            &Method::POST,
            &uri,
            &call_headers(),
            &allowed
        ));
        let (id, params, meta) =
            plain_call(CALL.as_bytes(), &call_headers()).expect("a plain call");
        assert_eq!(id, rmcp::model::RequestId::Number(1));
        assert_eq!(params.name, "get_entity_by_id");
        assert!(meta.client_capabilities().is_some());
    }

    #[test]
    fn anything_else_goes_on_to_rmcp() {
        let allowed = ["127.0.0.1".to_owned()];
        let uri = Uri::from_static("/mcp");
        for (name, value) in [
            ("origin", "http://127.0.0.1:8080"),
            ("mcp-session-id", "abc"),
            ("mcp-param-region", "eu"),
            ("mcp-method", "tools/call"),
        ] {
            let mut headers = call_headers();
            headers.append(
                header::HeaderName::from_static(name),
                HeaderValue::from_static(value),
            );
            assert!(
                !plain_headers(&Method::POST, &uri, &headers, &allowed),
                "{name}"
            );
        }
        assert!(!plain_headers(
            &Method::GET,
            &uri,
            &call_headers(),
            &allowed
        ));
        let mut other_name = call_headers();
        other_name.insert("mcp-name", HeaderValue::from_static("get_schema"));
        assert!(plain_call(CALL.as_bytes(), &other_name).is_none());
        for body in [
            CALL.replace("2026-07-28", "2025-11-25"),
            CALL.replace(
                r#""io.modelcontextprotocol/clientCapabilities":{}"#,
                r#""progressToken":7"#,
            ),
            CALL.replace("tools/call", "tools/list"),
            CALL.replace(r#""2.0""#, r#""1.0""#),
            CALL.replace(r#""id":1,"#, r#""id":1.0,"#),
            CALL.replace(r#""id":1,"#, r#""id":null,"#),
            CALL.replace(r#""name":"#, r#""requestState":"again","name":"#),
            CALL.replace(r#","_meta":{"#, r#","extra":1,"_meta":{"#),
            format!("[{CALL}]"),
        ] {
            assert!(
                plain_call(body.as_bytes(), &call_headers()).is_none(),
                "{body}"
            );
        }
    }

    fn headers(pairs: &[(header::HeaderName, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(name.clone(), HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn only_a_bare_pair_of_media_types_is_plain() {
        let plain = |value| plain_accept(&headers(&[(header::ACCEPT, value)]));
        assert!(plain("application/json, text/event-stream"));
        assert!(plain("Text/Event-Stream,application/json"));
        assert!(!plain("application/json"));
        assert!(!plain("application/json;q=0, text/event-stream"));
        assert!(!plain("*/*"));
        assert!(!plain_accept(&HeaderMap::new()));
    }

    #[test]
    fn hosts_are_read_as_rmcp_reads_them() {
        let uri = Uri::from_static("/mcp");
        let allowed: Vec<String> = ["localhost", "127.0.0.1", "[::1]", "example.com:8443"]
            .map(String::from)
            .to_vec();
        let host = |value| host_allowed(&uri, &headers(&[(header::HOST, value)]), &allowed);
        assert!(host("localhost:3000"));
        assert!(host("LOCALHOST"));
        assert!(host("127.0.0.1:80"));
        assert!(host("[::1]:9000"));
        assert!(host("example.com:8443"));
        assert!(!host("example.com:8080"));
        assert!(!host("example.com"));
        assert!(!host("evil.test"));
        assert!(!host("local host"));
        assert!(!host_allowed(&uri, &HeaderMap::new(), &allowed));
        assert!(host_allowed(
            &uri,
            &headers(&[(header::HOST, "anything.test")]),
            &[]
        ));
    }
}
