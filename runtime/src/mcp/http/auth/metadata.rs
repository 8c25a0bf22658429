//! What a client learns before it has a token: the Protected Resource Metadata document
//! (RFC 9728) naming the authorization server, and the `WWW-Authenticate` challenges of
//! RFC 6750 that point to it.

use axum::Router;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

use super::options::OAuthOptions;

/// Where RFC 9728 puts the metadata: this, then the resource's path.
pub(super) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The metadata document of the resource `options` describe.
fn document(options: &OAuthOptions) -> Value {
    json!({
        "resource": options.audience,
        "authorization_servers": [options.issuer],
        "scopes_supported": options.policy.scopes(),
        "bearer_methods_supported": ["header"],
    })
}

/// The metadata URL of `audience`: its origin, the well-known path, then its path.
pub(super) fn metadata_url(audience: &str) -> String {
    let start = audience.find("://").map_or(0, |i| i + 3);
    match audience[start..].find('/') {
        Some(slash) => {
            let (origin, path) = audience.split_at(start + slash);
            format!("{origin}{WELL_KNOWN}{}", path.trim_end_matches('/'))
        }
        None => format!("{audience}{WELL_KNOWN}"),
    }
}

/// Routes serving the metadata at the well-known path and at it followed by each of `paths`
/// (the mount paths, `/mcp` and the toolsets'), readable from any origin.
pub(crate) fn metadata_routes(options: &OAuthOptions, paths: &[&str]) -> Router {
    let body = document(options).to_string();
    let mut router = Router::new();
    let mut seen = Vec::new();
    for path in std::iter::once("").chain(paths.iter().copied()) {
        let route = format!("{WELL_KNOWN}{}", path.trim_end_matches('/'));
        if seen.contains(&route) {
            continue;
        }
        let body = body.clone();
        router = router.route(
            &route,
            get(move || async move {
                (
                    [
                        (header::CONTENT_TYPE, "application/json"),
                        (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
                    ],
                    body,
                )
            }),
        );
        seen.push(route);
    }
    router
}

/// A quoted-string parameter of a challenge: only the characters RFC 6750 allows.
fn quoted(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '"' | '\\' => '\'',
            ' '..='~' => c,
            _ => '?',
        })
        .collect()
}

/// A refusal: `status`, a `WWW-Authenticate: Bearer` challenge naming the metadata (and the
/// error and the scopes needed, when given), and the same as a JSON body.
pub(super) fn challenge(
    status: StatusCode,
    error: Option<(&str, &str)>,
    scopes: &[String],
    metadata_url: &str,
) -> Response {
    let mut parameters = Vec::new();
    if let Some((code, description)) = error {
        parameters.push(format!("error=\"{code}\""));
        parameters.push(format!("error_description=\"{}\"", quoted(description)));
    }
    if !scopes.is_empty() {
        parameters.push(format!("scope=\"{}\"", quoted(&scopes.join(" "))));
    }
    parameters.push(format!("resource_metadata=\"{}\"", quoted(metadata_url)));
    let body = json!({
        "error": error.map_or("unauthorized", |(code, _)| code),
        "error_description": error.map_or(
            "send `Authorization: Bearer <access token>`; the resource metadata names the \
             authorization server that issues them",
            |(_, description)| description,
        ),
        "resource_metadata": metadata_url,
    });
    let mut response = json_response(status, &body);
    if let Ok(value) = HeaderValue::from_str(&format!("Bearer {}", parameters.join(", "))) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// `body` as a JSON answer with `status`.
pub(super) fn json_response(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::{metadata_url, quoted};

    #[test]
    fn the_metadata_url_puts_the_well_known_part_before_the_path() {
        assert_eq!(
            metadata_url("https://tools.example.com/mcp"),
            "https://tools.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            metadata_url("http://127.0.0.1:8080"),
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource"
        );
    }

    #[test]
    fn challenge_parameters_hold_only_allowed_characters() {
        assert_eq!(quoted("a \"b\" \\ é"), "a 'b' ' ?");
    }
}
