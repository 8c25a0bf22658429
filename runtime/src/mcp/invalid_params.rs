//! Requests rmcp could not read: a method MCP defines whose params do not fit it is JSON-RPC's
//! `-32602` Invalid params, naming the parameter and what it must be; only a method that does
//! not exist is `-32601` Method not found.
//!
//! rmcp reads a request into the variant its method names and, when the params do not fit that
//! variant (`resources/read` with `"uri": 123`, `tools/call` without params), keeps it as a
//! [`CustomRequest`], which a server answers as a method it does not know. Reading the params
//! again into the method's own type, with the path of the first member that does not fit, says
//! what is wrong. The same answer goes out over stdio and HTTP, both eras.

#[allow(deprecated)] // logging is deprecated by 2026-07-28, not by 2025-11-25
use rmcp::model::SetLevelRequestParams;
use rmcp::model::{
    CallToolRequestParams, CancelTaskParams, CompleteRequestParams, CustomRequest, ErrorCode,
    ErrorData, GetPromptRequestParams, GetTaskParams, InitializeRequestParams,
    PaginatedRequestParams, ReadResourceRequestParams, SubscribeRequestParams,
    SubscriptionsListenRequestParams, UnsubscribeRequestParams,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Whether a method's params may be left out.
#[derive(Clone, Copy)]
enum Params {
    Required,
    Optional,
}

/// The MCP methods a client sends whose params rmcp types, with a check of their params.
type Check = fn(&str, Option<&Value>, Params) -> Result<(), String>;

#[allow(deprecated)] // `logging/setLevel`, as above
const METHODS: &[(&str, Params, Check)] = &[
    (
        "initialize",
        Params::Required,
        fits::<InitializeRequestParams>,
    ),
    (
        "tools/call",
        Params::Required,
        fits::<CallToolRequestParams>,
    ),
    (
        "tools/list",
        Params::Optional,
        fits::<PaginatedRequestParams>,
    ),
    (
        "resources/list",
        Params::Optional,
        fits::<PaginatedRequestParams>,
    ),
    (
        "resources/templates/list",
        Params::Optional,
        fits::<PaginatedRequestParams>,
    ),
    (
        "resources/read",
        Params::Required,
        fits::<ReadResourceRequestParams>,
    ),
    (
        "resources/subscribe",
        Params::Required,
        fits::<SubscribeRequestParams>,
    ),
    (
        "resources/unsubscribe",
        Params::Required,
        fits::<UnsubscribeRequestParams>,
    ),
    (
        "subscriptions/listen",
        Params::Required,
        fits::<SubscriptionsListenRequestParams>,
    ),
    (
        "prompts/list",
        Params::Optional,
        fits::<PaginatedRequestParams>,
    ),
    (
        "prompts/get",
        Params::Required,
        fits::<GetPromptRequestParams>,
    ),
    (
        "completion/complete",
        Params::Required,
        fits::<CompleteRequestParams>,
    ),
    (
        "logging/setLevel",
        Params::Required,
        fits::<SetLevelRequestParams>,
    ),
    ("tasks/get", Params::Required, fits::<GetTaskParams>),
    ("tasks/cancel", Params::Required, fits::<CancelTaskParams>),
];

/// The error answering `request`, which rmcp could not read as any request it knows.
pub(super) fn answer(request: &CustomRequest) -> ErrorData {
    let method = request.method.as_str();
    let Some((_, params, check)) = METHODS.iter().find(|(name, ..)| *name == method) else {
        return ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("Method not found: this server has no method `{method}`"),
            None,
        );
    };
    let problem = check(method, request.params.as_ref(), *params)
        .err()
        .unwrap_or_else(|| format!("the params of `{method}` could not be read"));
    ErrorData::new(
        ErrorCode::INVALID_PARAMS,
        format!("Invalid params: {problem}"),
        None,
    )
}

/// `Ok` when `params` read as `T`; otherwise what does not fit, and where.
fn fits<T: DeserializeOwned>(
    method: &str,
    params: Option<&Value>,
    needed: Params,
) -> Result<(), String> {
    let params = match (params, needed) {
        (None | Some(Value::Null), Params::Optional) => return Ok(()),
        (None | Some(Value::Null), Params::Required) => {
            return Err(format!(
                "`{method}` takes its parameters as an object in `params`; the request has none"
            ));
        }
        (Some(params), _) => params,
    };
    match serde_path_to_error::deserialize::<_, T>(params) {
        Ok(_) => Ok(()),
        Err(error) => {
            let path = error.path().to_string();
            let inner = error.into_inner();
            if path == "." {
                Err(format!("`{method}`: {inner}"))
            } else {
                Err(format!("`{method}`: `{path}`: {inner}"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{CustomRequest, ErrorCode};
    use serde_json::{Value, json};

    fn answer(method: &str, params: Option<Value>) -> (ErrorCode, String) {
        let error = super::answer(&CustomRequest::new(method, params));
        (error.code, error.message.into_owned())
    }

    #[test]
    fn a_known_method_with_params_that_do_not_fit_is_invalid_params() {
        let (code, message) = answer("resources/read", Some(json!({"uri": 123})));
        assert_eq!(code, ErrorCode::INVALID_PARAMS);
        assert!(message.contains("`resources/read`: `uri`"), "{message}");
        assert!(message.contains("expected a string"), "{message}");

        let (code, message) = answer("tools/call", None);
        assert_eq!(code, ErrorCode::INVALID_PARAMS);
        assert!(message.contains("the request has none"), "{message}");

        let (code, message) = answer("tools/call", Some(json!({"name": 1})));
        assert_eq!(code, ErrorCode::INVALID_PARAMS);
        assert!(message.contains("`name`"), "{message}");

        let (code, message) = answer("prompts/get", Some(json!({"name": null})));
        assert_eq!(code, ErrorCode::INVALID_PARAMS);
        assert!(message.contains("`name`"), "{message}");

        let (code, message) = answer(
            "completion/complete",
            Some(json!({
                "ref": {"type": "ref/prompt", "name": "p"},
                "argument": {"name": "a", "value": 7}
            })),
        );
        assert_eq!(code, ErrorCode::INVALID_PARAMS);
        assert!(message.contains("`argument.value`"), "{message}");
    }

    #[test]
    fn only_a_method_that_does_not_exist_is_method_not_found() {
        let (code, message) = answer("tools/delete", Some(json!({})));
        assert_eq!(code, ErrorCode::METHOD_NOT_FOUND);
        assert!(message.contains("`tools/delete`"), "{message}");
    }
}
