//! The issuer's signing keys: where they are (the issuer's metadata, RFC 8414, or OpenID
//! Connect discovery), fetched with a deadline and a size cap, cached, and fetched again when a
//! token names a key the cache lacks (at most once per [`REFETCH_INTERVAL`], so tokens with
//! made-up key ids cannot make the server hammer the issuer).

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::DecodingKey;
use jsonwebtoken::jwk::Jwk;
use serde_json::Value;
use tokio::sync::Mutex;

/// The shortest time between two fetches of the key set.
pub(super) const REFETCH_INTERVAL: Duration = Duration::from_secs(10);

/// Keys older than this are fetched again before use (an issuer rotates them).
const MAX_AGE: Duration = Duration::from_secs(3600);

/// The largest metadata document or key set read.
const MAX_DOCUMENT_BYTES: u64 = 1 << 20;

/// Why no key could be found for a token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum KeyError {
    /// The issuer's metadata or keys could not be read: the server cannot check any token.
    Unreachable(String),
    /// The issuer has no key with this id (or none for the token's algorithm).
    Unknown(String),
}

/// The keys as fetched, each decoded once.
struct Cached {
    keys: Vec<(Jwk, Result<Arc<DecodingKey>, String>)>,
    fetched: Instant,
}

/// The issuer's keys, fetched when first needed.
pub(super) struct KeySet {
    issuer: String,
    jwks_uri: Option<String>,
    timeout: Duration,
    /// What lookups read (a short lock, never held across a fetch).
    cached: RwLock<Option<Arc<Cached>>>,
    /// Held while fetching, so concurrent misses fetch once.
    fetching: Mutex<()>,
}

impl KeySet {
    pub(super) fn new(issuer: &str, jwks_uri: Option<&str>, timeout: Duration) -> KeySet {
        KeySet {
            issuer: issuer.to_owned(),
            jwks_uri: jwks_uri.map(str::to_owned),
            timeout,
            cached: RwLock::new(None),
            fetching: Mutex::new(()),
        }
    }

    fn current(&self) -> Option<Arc<Cached>> {
        self.cached
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// The key a token with `kid` (and `family` of algorithm) was signed with.
    pub(super) async fn key(
        &self,
        kid: Option<&str>,
        family: jsonwebtoken::AlgorithmFamily,
    ) -> Result<Arc<DecodingKey>, KeyError> {
        if let Some(cached) = self.current()
            && cached.fetched.elapsed() < MAX_AGE
            && let Some(key) = find(&cached.keys, kid, family)
        {
            return key;
        }
        let _fetching = self.fetching.lock().await;
        // Another request may have fetched while this one waited.
        let cached = self.current();
        let fresh = cached
            .as_ref()
            .is_some_and(|c| c.fetched.elapsed() < MAX_AGE);
        if fresh && let Some(key) = cached.as_ref().and_then(|c| find(&c.keys, kid, family)) {
            return key;
        }
        // Stale, never fetched, or a key the cache lacks (the issuer may have rotated its keys;
        // at most once per REFETCH_INTERVAL).
        let may_fetch = cached
            .as_ref()
            .is_none_or(|c| !fresh || c.fetched.elapsed() >= REFETCH_INTERVAL);
        if may_fetch {
            let fetched = Arc::new(self.fetch().await?);
            *self
                .cached
                .write()
                .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(fetched.clone());
            if let Some(key) = find(&fetched.keys, kid, family) {
                return key;
            }
        }
        Err(KeyError::Unknown(match kid {
            Some(kid) => format!("the issuer has no signing key `{kid}`"),
            None => "the token names no key and the issuer has none for its algorithm".into(),
        }))
    }

    async fn fetch(&self) -> Result<Cached, KeyError> {
        let issuer = self.issuer.clone();
        let jwks_uri = self.jwks_uri.clone();
        let timeout = self.timeout;
        let keys = tokio::task::spawn_blocking(move || fetch_keys(&issuer, jwks_uri, timeout))
            .await
            .map_err(|error| KeyError::Unreachable(error.to_string()))??;
        tracing::info!(keys = keys.len(), "fetched the issuer's signing keys");
        Ok(Cached {
            keys: keys
                .into_iter()
                .map(|jwk| {
                    let key = DecodingKey::from_jwk(&jwk)
                        .map(Arc::new)
                        .map_err(|error| format!("the issuer's key cannot be used: {error}"));
                    (jwk, key)
                })
                .collect(),
            fetched: Instant::now(),
        })
    }
}

/// The key with `kid` (any key of the algorithm's family when the token names none).
fn find(
    keys: &[(Jwk, Result<Arc<DecodingKey>, String>)],
    kid: Option<&str>,
    family: jsonwebtoken::AlgorithmFamily,
) -> Option<Result<Arc<DecodingKey>, KeyError>> {
    let (_, key) = keys.iter().find(|(jwk, _)| match kid {
        Some(kid) => jwk.common.key_id.as_deref() == Some(kid),
        None => jwk_family(jwk) == Some(family),
    })?;
    Some(key.clone().map_err(KeyError::Unknown))
}

fn jwk_family(jwk: &Jwk) -> Option<jsonwebtoken::AlgorithmFamily> {
    use jsonwebtoken::AlgorithmFamily;
    use jsonwebtoken::jwk::AlgorithmParameters;
    match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => Some(AlgorithmFamily::Rsa),
        AlgorithmParameters::EllipticCurve(_) => Some(AlgorithmFamily::Ec),
        AlgorithmParameters::OctetKeyPair(_) => Some(AlgorithmFamily::Ed),
        _ => None,
    }
}

/// An HTTP client to the issuer (its metadata, keys, introspection): TLS checked against the
/// system's certificate store, every request within `timeout`.
pub(super) fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .tls_config(
            ureq::tls::TlsConfig::builder()
                .root_certs(ureq::tls::RootCerts::PlatformVerifier)
                .build(),
        )
        .timeout_global(Some(timeout))
        .build()
        .into()
}

fn get_json(agent: &ureq::Agent, url: &str) -> Result<Value, String> {
    agent
        .get(url)
        .header("Accept", "application/json")
        .call()
        .map_err(|error| format!("GET {url}: {error}"))?
        .body_mut()
        .with_config()
        .limit(MAX_DOCUMENT_BYTES)
        .read_json()
        .map_err(|error| format!("GET {url}: not a JSON document: {error}"))
}

/// The metadata URLs of `issuer`: RFC 8414's (the well-known part before the issuer's path),
/// then OpenID Connect's (after it).
fn metadata_urls(issuer: &str) -> Vec<String> {
    let issuer = issuer.trim_end_matches('/');
    let (origin, path) = match issuer.find("://").map(|i| i + 3) {
        Some(start) => match issuer[start..].find('/') {
            Some(slash) => issuer.split_at(start + slash),
            None => (issuer, ""),
        },
        None => (issuer, ""),
    };
    vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{issuer}/.well-known/openid-configuration"),
    ]
}

/// The URL the issuer's metadata (RFC 8414, or OpenID Connect discovery) gives as `field`
/// (`jwks_uri`, `introspection_endpoint`), checking that the metadata is the issuer's own.
pub(super) fn discover(agent: &ureq::Agent, issuer: &str, field: &str) -> Result<String, String> {
    let mut failures = Vec::new();
    for url in metadata_urls(issuer) {
        match get_json(agent, &url) {
            Ok(metadata) => {
                // RFC 8414 §3.3: the metadata must be the issuer's own.
                let named = metadata["issuer"].as_str().unwrap_or_default();
                if named.trim_end_matches('/') != issuer.trim_end_matches('/') {
                    return Err(format!(
                        "{url} describes the issuer `{named}`, not `{issuer}`"
                    ));
                }
                match metadata[field].as_str() {
                    Some(found) => return Ok(found.to_owned()),
                    None => failures.push(format!("{url} names no `{field}`")),
                }
            }
            Err(error) => failures.push(error),
        }
    }
    Err(failures.join("; "))
}

fn fetch_keys(
    issuer: &str,
    jwks_uri: Option<String>,
    timeout: Duration,
) -> Result<Vec<Jwk>, KeyError> {
    let agent = agent(timeout);
    let jwks_uri = match jwks_uri {
        Some(uri) => uri,
        None => discover(&agent, issuer, "jwks_uri").map_err(KeyError::Unreachable)?,
    };
    let set = get_json(&agent, &jwks_uri).map_err(KeyError::Unreachable)?;
    // Keys of types this server cannot use (symmetric ones, say) are left out, not fatal.
    let keys: Vec<Jwk> = set["keys"]
        .as_array()
        .map(|keys| {
            keys.iter()
                .filter_map(|key| serde_json::from_value(key.clone()).ok())
                .collect()
        })
        .unwrap_or_default();
    if keys.is_empty() {
        return Err(KeyError::Unreachable(format!(
            "{jwks_uri} holds no usable signing key"
        )));
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::metadata_urls;

    #[test]
    fn metadata_is_looked_for_where_both_specs_put_it() {
        assert_eq!(
            metadata_urls("https://id.example.com"),
            [
                "https://id.example.com/.well-known/oauth-authorization-server",
                "https://id.example.com/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            metadata_urls("https://id.example.com/tenant/1/"),
            [
                "https://id.example.com/.well-known/oauth-authorization-server/tenant/1",
                "https://id.example.com/tenant/1/.well-known/openid-configuration"
            ]
        );
    }
}
