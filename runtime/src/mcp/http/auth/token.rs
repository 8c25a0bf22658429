//! An access token checked as a JWT (RFC 9068's profile): an accepted algorithm (never
//! `none`, never a shared secret), the issuer's signature, `iss`, `aud`, `exp` and `nbf`; then
//! its scopes and the claims the server maps to context values.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, Validation};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::introspection::{Inactive, Introspector};
use super::keys::{KeyError, KeySet};
use super::options::{OAuthOptions, accepted};
use crate::ContextValues;

/// Why a token was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Refusal {
    /// The request carries no bearer token.
    Missing,
    /// The token is not one this server accepts: what is wrong with it.
    Invalid(String),
    /// The issuer's keys cannot be read, so no token can be checked.
    Unreachable(String),
}

/// What a valid token says about its caller.
#[derive(Debug, Clone)]
pub(super) struct Verified {
    /// The scopes it grants (`scope`, or `scp`).
    pub scopes: Arc<BTreeSet<String>>,
    /// The context values of its mapped claims.
    pub values: ContextValues,
    /// Its subject, for the logs.
    pub subject: Option<Arc<str>>,
}

/// A JWT that passed the full check: its caller, and the times checked again on each use.
struct Checked {
    verified: Verified,
    expires: Option<u64>,
    not_before: Option<u64>,
}

/// Checks tokens against one issuer's keys.
pub(super) struct Verifier {
    keys: KeySet,
    issuer: String,
    audience: String,
    algorithms: Vec<Algorithm>,
    leeway: u64,
    claims: Vec<(String, String)>,
    introspector: Option<Introspector>,
    /// Tokens whose signature, issuer, audience and mapped claims checked out, by their
    /// SHA-256: a caller's next request skips every check but the times.
    checked: std::sync::Mutex<HashMap<[u8; 32], Arc<Checked>>>,
}

/// The most checked tokens remembered; past it the memory starts again empty.
const MAX_CHECKED: usize = 10_000;

impl Verifier {
    /// A verifier for `options`; only the algorithms [`accepted`] takes are accepted.
    pub(super) fn new(options: &OAuthOptions) -> Verifier {
        let algorithms = options
            .algorithms
            .iter()
            .filter_map(|name| accepted(name).ok())
            .collect();
        Verifier {
            keys: KeySet::new(
                &options.issuer,
                options.jwks_uri.as_deref(),
                options.fetch_timeout,
            ),
            issuer: options.issuer.clone(),
            audience: options.audience.clone(),
            algorithms,
            leeway: options.leeway.as_secs(),
            claims: options.claims.clone(),
            introspector: options
                .introspection
                .clone()
                .map(|settings| Introspector::new(settings, options.fetch_timeout)),
            checked: std::sync::Mutex::new(HashMap::new()),
        }
    }

    /// The caller a bearer token stands for: a JWT checked here, or (with introspection) an
    /// opaque token the issuer vouches for. A JWT checked before is found by its SHA-256 and
    /// only its times are checked again.
    pub(super) async fn verify(&self, token: &str) -> Result<Verified, Refusal> {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        let known = self.lock_checked().get(&digest).cloned();
        if let Some(known) = known {
            self.check_times(known.expires, known.not_before)?;
            return Ok(known.verified.clone());
        }
        let Ok(header) = jsonwebtoken::decode_header(token) else {
            let Some(introspector) = &self.introspector else {
                return Err(Refusal::Invalid(
                    "the token is not a signed JWT (unsigned `alg: none` tokens are never \
                     accepted)"
                        .into(),
                ));
            };
            let claims = introspector
                .claims(token, &self.issuer, &self.audience)
                .await
                .map_err(|inactive| match inactive {
                    Inactive::Refused(message) => Refusal::Invalid(message),
                    Inactive::Unreachable(message) => Refusal::Unreachable(message),
                })?;
            return self.caller(&claims);
        };
        let claims = self.verify_jwt(token, header).await?;
        let verified = self.caller(&claims)?;
        let known = Arc::new(Checked {
            verified: verified.clone(),
            expires: claims["exp"].as_u64(),
            not_before: claims["nbf"].as_u64(),
        });
        let mut checked = self.lock_checked();
        if checked.len() >= MAX_CHECKED {
            checked.clear();
        }
        checked.insert(digest, known);
        Ok(verified)
    }

    /// The caller that valid claims describe: its scopes and mapped context values.
    fn caller(&self, claims: &Value) -> Result<Verified, Refusal> {
        let mut values = ContextValues::new();
        for (name, path) in &self.claims {
            let value = claim(claims, path).ok_or_else(|| {
                Refusal::Invalid(format!(
                    "the token has no claim `{path}` (a text, number or boolean), which this \
                     server needs for the context value `{name}`; ask the issuer to include it"
                ))
            })?;
            values = values.with(name.clone(), value);
        }
        Ok(Verified {
            scopes: Arc::new(scopes(claims)),
            values,
            subject: claims["sub"].as_str().map(Arc::from),
        })
    }

    fn lock_checked(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], Arc<Checked>>> {
        self.checked
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// `exp` and `nbf` of a token checked before, against the clock now (with the leeway).
    fn check_times(&self, expires: Option<u64>, not_before: Option<u64>) -> Result<(), Refusal> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        if expires.is_none_or(|exp| exp.saturating_add(self.leeway) <= now) {
            return Err(Refusal::Invalid(
                "the token has expired; get a new one".into(),
            ));
        }
        if not_before.is_some_and(|nbf| nbf > now.saturating_add(self.leeway)) {
            return Err(Refusal::Invalid(
                "the token is not valid yet (`nbf`)".into(),
            ));
        }
        Ok(())
    }

    /// A JWT's claims after the full check: algorithm, key, signature, issuer, audience, times.
    async fn verify_jwt(
        &self,
        token: &str,
        header: jsonwebtoken::Header,
    ) -> Result<Value, Refusal> {
        if !self.algorithms.contains(&header.alg) {
            return Err(Refusal::Invalid(format!(
                "the token is signed with {:?}, which this server does not accept",
                header.alg
            )));
        }
        let key = self
            .keys
            .key(header.kid.as_deref(), header.alg.family())
            .await
            .map_err(|error| match error {
                KeyError::Unreachable(message) => Refusal::Unreachable(message),
                KeyError::Unknown(message) => Refusal::Invalid(message),
            })?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.leeway = self.leeway;
        validation.validate_nbf = true;
        Ok(jsonwebtoken::decode::<Value>(token, &key, &validation)
            .map_err(|error| Refusal::Invalid(describe(&error, &self.issuer, &self.audience)))?
            .claims)
    }
}

/// What a failed check means, for the `error_description` a client shows.
fn describe(error: &jsonwebtoken::errors::Error, issuer: &str, audience: &str) -> String {
    use jsonwebtoken::errors::ErrorKind;
    match error.kind() {
        ErrorKind::ExpiredSignature => "the token has expired; get a new one".into(),
        ErrorKind::ImmatureSignature => "the token is not valid yet (`nbf`)".into(),
        ErrorKind::InvalidIssuer => format!("the token was not issued by `{issuer}`"),
        ErrorKind::InvalidAudience => {
            format!("the token is not for this resource: its `aud` must be `{audience}`")
        }
        ErrorKind::InvalidSignature => "the token's signature does not match its content".into(),
        ErrorKind::MissingRequiredClaim(claim) => format!("the token has no `{claim}` claim"),
        _ => format!("the token cannot be read: {error}"),
    }
}

/// The scopes of a token: `scope` (space-separated, RFC 9068) or `scp` (a list or a string).
fn scopes(claims: &Value) -> BTreeSet<String> {
    let words =
        |text: &str| -> Vec<String> { text.split_whitespace().map(str::to_owned).collect() };
    match (&claims["scope"], &claims["scp"]) {
        (Value::String(scope), _) => words(scope).into_iter().collect(),
        (_, Value::String(scp)) => words(scp).into_iter().collect(),
        (_, Value::Array(list)) => list
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => BTreeSet::new(),
    }
}

/// The claim at `path` (dots between nested names), as text.
fn claim(claims: &Value, path: &str) -> Option<String> {
    let mut value = claims;
    for part in path.split('.') {
        value = value.get(part)?;
    }
    match value {
        Value::String(text) if !text.is_empty() => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{claim, scopes};

    #[test]
    fn scopes_come_from_scope_or_scp() {
        let granted = |claims| scopes(&claims).into_iter().collect::<Vec<_>>();
        assert_eq!(granted(json!({"scope": "mcp  read"})), ["mcp", "read"]);
        assert_eq!(granted(json!({"scp": ["mcp", "read"]})), ["mcp", "read"]);
        assert_eq!(granted(json!({"scp": "mcp"})), ["mcp"]);
        assert!(granted(json!({"scope": 3})).is_empty());
    }

    #[test]
    fn claims_are_read_by_path_as_text() {
        let claims = json!({"sub": "u1", "org": {"branch": "north", "level": 3, "list": [1]},
                            "empty": ""});
        assert_eq!(claim(&claims, "sub").as_deref(), Some("u1"));
        assert_eq!(claim(&claims, "org.branch").as_deref(), Some("north"));
        assert_eq!(claim(&claims, "org.level").as_deref(), Some("3"));
        assert_eq!(claim(&claims, "org.list"), None);
        assert_eq!(claim(&claims, "org.missing"), None);
        assert_eq!(claim(&claims, "empty"), None);
    }
}
