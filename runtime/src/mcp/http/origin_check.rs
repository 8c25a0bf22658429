//! Every HTTP route refuses a browser request from a foreign origin the way `/mcp` does: a
//! request whose `Origin` header is not one of [`HttpOptions::allowed_origins`] (loopback by
//! default; with an empty list, every `Origin`) is answered `403` before any route reads it —
//! the workbench's pages and JSON, the health probes and the OAuth metadata included, not only
//! the MCP endpoint, where rmcp makes the same check. A request without `Origin` (any
//! non-browser client) passes.
//!
//! The entries are read as rmcp reads them: `scheme://host:port`, `:*` for any port, a missing
//! port for any port, `null` for the opaque origin; hosts compared without case.
//!
//! [`HttpOptions::allowed_origins`]: super::HttpOptions::allowed_origins

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The allowed origins, parsed once.
#[derive(Debug, Clone)]
pub(super) struct AllowedOrigins(Arc<Vec<Allowed>>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Allowed {
    Null,
    Tuple {
        scheme: String,
        host: String,
        /// `None`: any port.
        port: Option<u16>,
    },
}

/// An `Origin` header's value, read.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Origin {
    Null,
    Tuple {
        scheme: String,
        host: String,
        port: Option<u16>,
    },
}

impl AllowedOrigins {
    /// `entries` as [`HttpOptions::allowed_origins`](super::HttpOptions::allowed_origins) holds
    /// them; an entry that is not an origin allows nothing.
    pub(super) fn new(entries: &[String]) -> AllowedOrigins {
        AllowedOrigins(Arc::new(
            entries.iter().filter_map(|e| allowed(e)).collect(),
        ))
    }

    /// Whether a request with this `Origin` value may be answered.
    fn admits(&self, value: &str) -> bool {
        let Some(origin) = origin(value) else {
            return false;
        };
        self.0.iter().any(|allowed| match (allowed, &origin) {
            (Allowed::Null, Origin::Null) => true,
            (
                Allowed::Tuple { scheme, host, port },
                Origin::Tuple {
                    scheme: o_scheme,
                    host: o_host,
                    port: o_port,
                },
            ) => {
                scheme == o_scheme
                    && host == o_host
                    && port.is_none_or(|port| o_port.or(default_port(o_scheme)) == Some(port))
            }
            _ => false,
        })
    }
}

/// The middleware: `403` for a foreign `Origin`, otherwise the route.
pub(super) async fn refuse_foreign_origin(
    State(allowed): State<AllowedOrigins>,
    request: Request,
    next: Next,
) -> Response {
    match request.headers().get(header::ORIGIN) {
        None => next.run(request).await,
        Some(value) => match value.to_str() {
            Ok(text) if allowed.admits(text) => next.run(request).await,
            Ok(_) => forbidden("Forbidden: Origin header is not allowed"),
            Err(_) => forbidden("Forbidden: Invalid Origin header encoding"),
        },
    }
}

fn forbidden(message: &'static str) -> Response {
    (StatusCode::FORBIDDEN, message).into_response()
}

fn origin(value: &str) -> Option<Origin> {
    let value = value.trim();
    if value.eq_ignore_ascii_case("null") {
        return Some(Origin::Null);
    }
    let uri: Uri = value.parse().ok()?;
    let authority = uri.authority()?;
    Some(Origin::Tuple {
        scheme: uri.scheme_str()?.to_ascii_lowercase(),
        host: authority.host().to_ascii_lowercase(),
        port: authority.port_u16(),
    })
}

fn allowed(entry: &str) -> Option<Allowed> {
    let entry = entry.trim();
    if let Some(base) = entry.strip_suffix(":*") {
        return match origin(base)? {
            Origin::Tuple {
                scheme,
                host,
                port: None,
            } => Some(Allowed::Tuple {
                scheme,
                host,
                port: None,
            }),
            _ => None,
        };
    }
    Some(match origin(entry)? {
        Origin::Null => Allowed::Null,
        Origin::Tuple { scheme, host, port } => Allowed::Tuple { scheme, host, port },
    })
}

/// The port a scheme implies when an origin leaves it out (RFC 6454 §4).
fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::AllowedOrigins;

    #[test]
    fn origins_match_as_rmcp_reads_them() {
        let loopback = AllowedOrigins::new(&[
            "http://localhost:*".to_owned(),
            "https://app.example.com".to_owned(),
            "http://tools.example.com:8080".to_owned(),
        ]);
        assert!(loopback.admits("http://localhost:5173"));
        assert!(loopback.admits("http://LOCALHOST"));
        assert!(loopback.admits("https://app.example.com:9443"));
        assert!(loopback.admits("http://tools.example.com:8080"));
        assert!(!loopback.admits("http://tools.example.com"));
        assert!(!loopback.admits("https://localhost:5173"));
        assert!(!loopback.admits("http://evil.example"));
        assert!(!loopback.admits("null"));
        assert!(!loopback.admits("not an origin"));
        assert!(!AllowedOrigins::new(&[]).admits("http://localhost:1"));
        assert!(AllowedOrigins::new(&["null".to_owned()]).admits("null"));
    }
}
