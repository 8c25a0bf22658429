//! The middleware in front of the MCP endpoints: every request authenticated with its bearer
//! token, the scopes every request needs checked, a `tools/call` of a tool the token's scopes
//! do not reach refused with `403` and the scope it needs, and the caller handed on.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::metadata::{challenge, json_response, metadata_url};
use super::options::OAuthOptions;
use super::token::{Refusal, Verifier};
use crate::{ContextValues, ScopePolicy, ToolGate};

/// Who sent a request: the context values of its token's claims and what its scopes allow.
/// Put in the request's extensions for the MCP handler.
#[derive(Debug, Clone)]
pub(crate) struct Caller {
    /// The values of the mapped claims.
    pub values: ContextValues,
    /// The tools the caller may run.
    pub gate: ToolGate,
}

struct Auth {
    verifier: Verifier,
    policy: Arc<ScopePolicy>,
    metadata_url: String,
    max_body_bytes: usize,
}

/// `router` behind the OAuth checks of `options`.
pub(crate) fn auth_layer(router: Router, options: &OAuthOptions, max_body_bytes: usize) -> Router {
    let auth = Arc::new(Auth {
        verifier: Verifier::new(options),
        policy: options.policy.clone(),
        metadata_url: metadata_url(&options.audience),
        max_body_bytes,
    });
    router.layer(middleware::from_fn_with_state(auth, authenticate))
}

async fn authenticate(State(auth): State<Arc<Auth>>, request: Request, next: Next) -> Response {
    let token = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| {
            let (scheme, token) = value.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        });
    let verified = match token {
        None => Err(Refusal::Missing),
        Some(token) => auth.verifier.verify(token).await,
    };
    let verified = match verified {
        Ok(verified) => verified,
        Err(Refusal::Missing) => {
            return challenge(
                StatusCode::UNAUTHORIZED,
                None,
                auth.policy.required(),
                &auth.metadata_url,
            );
        }
        Err(Refusal::Invalid(description)) => {
            tracing::info!(reason = %description, "access token refused");
            return challenge(
                StatusCode::UNAUTHORIZED,
                Some(("invalid_token", &description)),
                &[],
                &auth.metadata_url,
            );
        }
        Err(Refusal::Unreachable(message)) => {
            tracing::error!(%message, "cannot read the authorization server's keys");
            return json_response(
                StatusCode::SERVICE_UNAVAILABLE,
                &serde_json::json!({
                    "error": "temporarily_unavailable",
                    "error_description": "the server cannot check access tokens now (the \
                        authorization server's keys cannot be read); try again shortly",
                }),
            );
        }
    };
    let gate = ToolGate::shared(auth.policy.clone(), verified.scopes);
    if let Some(missing) = auth.policy.missing_required(gate.granted()) {
        return challenge(
            StatusCode::FORBIDDEN,
            Some((
                "insufficient_scope",
                "the token lacks a scope every request to this server needs",
            )),
            &missing,
            &auth.metadata_url,
        );
    }
    let (parts, body) = request.into_parts();
    let request = if parts.method == Method::POST {
        let Ok(bytes) = axum::body::to_bytes(body, auth.max_body_bytes).await else {
            return (
                StatusCode::PAYLOAD_TOO_LARGE,
                "the request body is larger than the server accepts",
            )
                .into_response();
        };
        for tool in called_tools(&bytes) {
            if let Some(needed) = auth.policy.missing(&tool, gate.granted()) {
                tracing::info!(%tool, subject = ?verified.subject, "call refused: insufficient scope");
                return challenge(
                    StatusCode::FORBIDDEN,
                    Some((
                        "insufficient_scope",
                        &format!("`{tool}` needs a scope the token does not grant"),
                    )),
                    &needed,
                    &auth.metadata_url,
                );
            }
        }
        Request::from_parts(parts, Body::from(bytes))
    } else {
        Request::from_parts(parts, body)
    };
    let mut request = request;
    request.extensions_mut().insert(Caller {
        values: verified.values,
        gate,
    });
    next.run(request).await
}

/// The tools a JSON-RPC body calls with `tools/call` (a message or a list of them).
///
/// Read first as the few members it needs, borrowed from the body; a body that reading does
/// not take (a member of another type, a repeated member, a list with a non-object) is read
/// whole as JSON, so every body gets the same answer as from the whole reading.
fn called_tools(body: &[u8]) -> Vec<String> {
    let first = body.iter().find(|byte| !byte.is_ascii_whitespace());
    let quick = if first == Some(&b'[') {
        serde_json::from_slice::<Vec<Message<'_>>>(body).ok()
    } else {
        serde_json::from_slice::<Message<'_>>(body)
            .ok()
            .map(|message| vec![message])
    };
    if let Some(messages) = quick {
        return messages
            .into_iter()
            .filter(|message| message.method.as_deref() == Some("tools/call"))
            .filter_map(|message| message.params.and_then(|params| params.name))
            .map(std::borrow::Cow::into_owned)
            .collect();
    }
    let Ok(message) = serde_json::from_slice::<Value>(body) else {
        return Vec::new();
    };
    let messages = match message {
        Value::Array(messages) => messages,
        message => vec![message],
    };
    messages
        .iter()
        .filter(|message| message["method"] == "tools/call")
        .filter_map(|message| message["params"]["name"].as_str().map(str::to_owned))
        .collect()
}

/// The members of a JSON-RPC message that say which tool it calls.
#[derive(serde::Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    method: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<Params<'a>>,
}

/// The member of a call's parameters that names its tool.
#[derive(serde::Deserialize)]
struct Params<'a> {
    #[serde(borrow, default)]
    name: Option<std::borrow::Cow<'a, str>>,
}

#[cfg(test)]
mod tests {
    use super::called_tools;

    #[test]
    fn calls_are_found_in_single_and_listed_messages() {
        let one = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}"#;
        assert_eq!(called_tools(one), ["a"]);
        let list = br#"[{"method":"tools/list"},{"method":"tools/call","params":{"name":"b"}}]"#;
        assert_eq!(called_tools(list), ["b"]);
        assert!(called_tools(b"not json").is_empty());
        // Bodies the quick reading does not take are read whole, with the same answers.
        let mixed = br#"[1, {"method":"tools/call","params":{"name":"c"}}]"#;
        assert_eq!(called_tools(mixed), ["c"]);
        let repeated = br#"{"method":"tools/call","params":{"name":"d","name":"e"}}"#;
        assert_eq!(called_tools(repeated), ["e"]);
        let odd = br#"{"method":"tools/call","params":{"name":7}}"#;
        assert!(called_tools(odd).is_empty());
        let other = br#"{"method":"tools/call","params":"f"}"#;
        assert!(called_tools(other).is_empty());
    }
}
