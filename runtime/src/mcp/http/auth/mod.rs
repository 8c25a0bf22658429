//! `serve_http` as an OAuth 2.1 resource server, as MCP's authorization spec (2025-11-25,
//! 2026-07-28) asks:
//!
//! | file | job |
//! |---|---|
//! | `options.rs` | [`OAuthOptions`]: the issuer, the audience, the scope policy, the claims that become context values |
//! | `keys.rs` | the issuer's signing keys: found from its metadata (RFC 8414 or OpenID discovery), fetched, cached, fetched again for an unknown `kid` |
//! | `introspection.rs` | opaque tokens asked about at the issuer's introspection endpoint (RFC 7662), answers cached a minute at most |
//! | `token.rs` | an access token checked as a JWT: allowed algorithm (never `none`), signature, `iss`, `aud`, `exp`/`nbf`; its scopes and mapped claims |
//! | `metadata.rs` | the Protected Resource Metadata document (RFC 9728) and the `WWW-Authenticate` challenges (RFC 6750) |
//! | `layer.rs` | the middleware: every request authenticated, a `tools/call` the token's scopes do not allow refused with `403`, the caller handed to the MCP handler |
//!
//! The handler gives the caller's claim values to every call (row rules and `from_context`
//! parameters read them) and its [`ToolGate`](crate::ToolGate) to the registry, which checks
//! it for the calls a `batch` makes too; `tools/list` shows only the tools the scopes allow.

mod introspection;
mod keys;
mod layer;
mod metadata;
mod options;
mod token;

pub use introspection::Introspection;
pub(crate) use layer::{Caller, auth_layer};
pub(crate) use metadata::metadata_routes;
pub use options::OAuthOptions;
