//! What a Streamable HTTP request must be before rmcp reads it, answered with the status codes
//! JSON-RPC over HTTP uses: a body that cannot be read (a broken chunked encoding) is `400`, one
//! larger than the cap `413`, one that does not arrive within the body timeout `408`; a `POST` whose JSON does not parse is `400` with JSON-RPC's
//! `-32700`, and one that is not a single JSON-RPC 2.0 request (a batch array, no `"jsonrpc":
//! "2.0"`, a key written twice, an `id` that is neither a string nor an integer, no `method`,
//! `params` that are neither an object nor null) is `400` with `-32600`. Valid requests pass
//! on unchanged.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// The middleware; `max_body_bytes` is the body cap.
pub(super) async fn check_request(max_body_bytes: usize, request: Request, next: Next) -> Response {
    let is_json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.trim_start().starts_with("application/json"));
    if request.method() != Method::POST || !is_json {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match read_body(max_body_bytes, body).await {
        Ok(bytes) => bytes,
        Err(refused) => return refused,
    };
    if let Err((code, message)) = check(&bytes) {
        return rpc_error(code, &message);
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// A request's body of at most `max_body_bytes`; otherwise the answer: `413` over the cap,
/// `400` for a body that cannot be read (a broken chunked encoding).
pub(super) async fn read_body(
    max_body_bytes: usize,
    body: Body,
) -> Result<axum::body::Bytes, Response> {
    axum::body::to_bytes(body, max_body_bytes)
        .await
        .map_err(|error| {
            if let Some(timeout) = body_timeout(&error) {
                (StatusCode::REQUEST_TIMEOUT, timeout.to_string()).into_response()
            } else if is_length_limit(&error) {
                (
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!("the request body is larger than {max_body_bytes} bytes"),
                )
                    .into_response()
            } else {
                (
                    StatusCode::BAD_REQUEST,
                    format!("the request body could not be read: {error}"),
                )
                    .into_response()
            }
        })
}

/// The body timeout that made reading a body fail, if that is why.
fn body_timeout(error: &axum::Error) -> Option<&super::connections::BodyTimeout> {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(error) = cause {
        if let Some(timeout) = error.downcast_ref::<super::connections::BodyTimeout>() {
            return Some(timeout);
        }
        cause = error.source();
    }
    None
}

/// Whether reading a body failed on the size cap (rather than on a broken body).
fn is_length_limit(error: &axum::Error) -> bool {
    let mut cause: Option<&dyn std::error::Error> = Some(error);
    while let Some(error) = cause {
        if error.to_string().contains("length limit") {
            return true;
        }
        cause = error.source();
    }
    false
}

/// `Ok` for one JSON-RPC message; otherwise its JSON-RPC error code and message.
fn check(body: &[u8]) -> Result<(), (i64, String)> {
    let message: Value = serde_json::from_slice(body).map_err(|error| {
        (
            -32700,
            format!("Parse error: the body is not JSON ({error})"),
        )
    })?;
    let Value::Object(object) = &message else {
        let what = if message.is_array() {
            "a batch (a JSON array); MCP takes one message per request"
        } else {
            "not a JSON-RPC message object"
        };
        return Err((-32600, format!("Invalid Request: the body is {what}")));
    };
    if let Err(error) = serde_json::from_slice::<UniqueKeys>(body) {
        return Err((-32600, format!("Invalid Request: {error}")));
    }
    match object.get("jsonrpc") {
        Some(Value::String(version)) if version == "2.0" => {}
        None => {
            return Err((
                -32600,
                "Invalid Request: the message has no `jsonrpc` member; a JSON-RPC 2.0 message \
                 carries \"jsonrpc\": \"2.0\""
                    .to_owned(),
            ));
        }
        Some(other) => {
            return Err((
                -32600,
                format!("Invalid Request: `jsonrpc` must be \"2.0\", got {other}"),
            ));
        }
    }
    // `null` is left to the method (some clients send it for "no parameters").
    match object.get("params") {
        None | Some(Value::Object(_) | Value::Null) => {}
        Some(other) => {
            let what = match other {
                Value::Array(_) => "an array",
                _ => "not an object",
            };
            return Err((
                -32600,
                format!(
                    "Invalid Request: `params` is {what}; MCP's parameters are an object of \
                     named members"
                ),
            ));
        }
    }
    match object.get("id") {
        None | Some(Value::String(_)) => {}
        Some(Value::Number(number)) if number.is_i64() => {}
        Some(other) => {
            return Err((
                -32600,
                format!(
                    "Invalid Request: the id {other} is neither a string nor an integer of at \
                     most 64 bits"
                ),
            ));
        }
    }
    let is_response = object.contains_key("result") || object.contains_key("error");
    if !is_response && !object.get("method").is_some_and(Value::is_string) {
        return Err((
            -32600,
            "Invalid Request: the message has no `method`".to_owned(),
        ));
    }
    Ok(())
}

/// A JSON object read for its top-level keys only, refusing one written twice (which
/// `serde_json::Value` would keep the last of, silently).
struct UniqueKeys;

impl<'de> serde::Deserialize<'de> for UniqueKeys {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Keys;
        impl<'de> serde::de::Visitor<'de> for Keys {
            type Value = UniqueKeys;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<UniqueKeys, A::Error> {
                let mut seen: Vec<String> = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    if seen.contains(&key) {
                        return Err(serde::de::Error::custom(format!(
                            "the member `{key}` is written twice"
                        )));
                    }
                    map.next_value::<serde::de::IgnoredAny>()?;
                    seen.push(key);
                }
                Ok(UniqueKeys)
            }
        }
        deserializer.deserialize_map(Keys)
    }
}

/// A JSON-RPC error answer (its `id` is null: the request's could not be trusted), status 400.
fn rpc_error(code: i64, message: &str) -> Response {
    (
        StatusCode::BAD_REQUEST,
        [(header::CONTENT_TYPE, "application/json")],
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}})
            .to_string(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn only_single_well_formed_messages_pass() {
        let code = |body: &str| check(body.as_bytes()).err().map(|(code, _)| code);
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
            None
        );
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#), None);
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            None
        );
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#), None);
        assert_eq!(code("{not json"), Some(-32700));
        assert_eq!(
            code(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#),
            Some(-32600)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            Some(-32600)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
            Some(-32600)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1208925819614629174706176,"method":"ping"}"#),
            Some(-32600)
        );
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1}"#), Some(-32600));
        assert_eq!(code("3"), Some(-32600));
        assert_eq!(
            code(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#),
            Some(-32600)
        );
        assert_eq!(code(r#"{"id":1,"method":"ping"}"#), Some(-32600));
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}"#),
            Some(-32600)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#),
            Some(-32600)
        );
        let (_, message) =
            check(br#"{"jsonrpc":"2.0","id":1,"method":"ping","method":"x"}"#).unwrap_err();
        assert!(
            message.contains("the member `method` is written twice"),
            "{message}"
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#),
            None
        );
    }
}
