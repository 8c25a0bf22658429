//! The settings of the resource server.

use std::sync::Arc;
use std::time::Duration;

use super::introspection::Introspection;
use crate::ScopePolicy;

/// How `serve_http` authenticates callers with OAuth access tokens (MCP's authorization spec).
///
/// ```
/// use std::sync::Arc;
/// use toolforge::ScopePolicy;
/// use toolforge::mcp::OAuthOptions;
/// let oauth = OAuthOptions::new("https://id.example.com", "https://tools.example.com/mcp")
///     .with_policy(Arc::new(ScopePolicy::new(["mcp"])))
///     .with_claim("member", "sub")
///     .with_claim("branch", "org.branch");
/// assert_eq!(oauth.claims.len(), 2);
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthOptions {
    /// The authorization server: the `iss` every token must carry.
    pub issuer: String,
    /// This resource's identifier: the `aud` every token must carry (and the `resource` of the
    /// Protected Resource Metadata).
    pub audience: String,
    /// The issuer's JWK Set URL; `None` reads it from the issuer's metadata.
    pub jwks_uri: Option<String>,
    /// The signature algorithms accepted (`RS256`, `ES256`, ...).
    pub algorithms: Vec<String>,
    /// Clock difference tolerated on `exp` and `nbf`.
    pub leeway: Duration,
    /// The scopes each request and each tool needs.
    pub policy: Arc<ScopePolicy>,
    /// Context values read from the token: context name and claim path (`org.branch`).
    pub claims: Vec<(String, String)>,
    /// How long fetching the issuer's metadata or keys (or introspecting a token) may take.
    pub fetch_timeout: Duration,
    /// Opaque (non-JWT) tokens are checked at the issuer's introspection endpoint (RFC 7662);
    /// without it only JWTs are accepted.
    pub introspection: Option<Introspection>,
}

/// The algorithms accepted when none are named.
pub const DEFAULT_ALGORITHMS: [&str; 4] = ["RS256", "PS256", "ES256", "EdDSA"];

impl OAuthOptions {
    /// Tokens of `issuer` for `audience`, with the default algorithms, a 30 s leeway, no
    /// scopes needed and no claims read.
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>) -> OAuthOptions {
        OAuthOptions {
            issuer: issuer.into(),
            audience: audience.into(),
            jwks_uri: None,
            algorithms: DEFAULT_ALGORITHMS.map(String::from).to_vec(),
            leeway: Duration::from_secs(30),
            policy: Arc::new(ScopePolicy::default()),
            claims: Vec::new(),
            fetch_timeout: Duration::from_secs(5),
            introspection: None,
        }
    }

    /// Sets [`OAuthOptions::jwks_uri`].
    pub fn with_jwks_uri(mut self, uri: Option<String>) -> Self {
        self.jwks_uri = uri;
        self
    }

    /// Sets [`OAuthOptions::introspection`].
    pub fn with_introspection(mut self, introspection: Option<Introspection>) -> Self {
        self.introspection = introspection;
        self
    }

    /// Sets [`OAuthOptions::algorithms`] (the defaults when empty).
    pub fn with_algorithms(mut self, algorithms: Vec<String>) -> Self {
        if !algorithms.is_empty() {
            self.algorithms = algorithms;
        }
        self
    }

    /// Sets [`OAuthOptions::leeway`].
    pub fn with_leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// Sets [`OAuthOptions::policy`].
    pub fn with_policy(mut self, policy: Arc<ScopePolicy>) -> Self {
        self.policy = policy;
        self
    }

    /// Checks what a server cannot start with: an algorithm it cannot accept, none at all.
    pub fn check(&self) -> Result<(), String> {
        for name in &self.algorithms {
            accepted(name)?;
        }
        if self.algorithms.is_empty() {
            return Err("no signature algorithm is accepted: name at least one".into());
        }
        Ok(())
    }

    /// Adds a context value `name` read from the claim at `path` (dots for nested claims).
    pub fn with_claim(mut self, name: impl Into<String>, path: impl Into<String>) -> Self {
        self.claims.push((name.into(), path.into()));
        self
    }
}

/// The algorithm named `name`, if a resource server may accept it (a public-key one).
pub(super) fn accepted(name: &str) -> Result<jsonwebtoken::Algorithm, String> {
    let algorithm = <jsonwebtoken::Algorithm as std::str::FromStr>::from_str(name)
        .map_err(|_| format!("`{name}` is not a signature algorithm"))?;
    if algorithm.family() == jsonwebtoken::AlgorithmFamily::Hmac {
        return Err(format!(
            "`{name}` signs with a shared secret, which a resource server must not accept from \
             an issuer; use its public-key algorithm"
        ));
    }
    Ok(algorithm)
}
