//! The issuer's signing keys: where they are (the issuer's metadata, RFC 8414, or OpenID
//! Connect discovery), fetched with a deadline and a size cap, cached, and fetched again when a
//! token names a key the cache lacks.
//!
//! No request waits behind a slow issuer longer than one fetch: one fetch runs at a time, and
//! every request that needs it shares its outcome, which comes within the fetch timeout. The
//! rules that keep tokens with made-up key ids from making the server hammer the issuer:
//! - a key the cache lacks is fetched for at most once per [`REFETCH_INTERVAL`];
//! - after a failed fetch, none is tried for [`FIRST_BACKOFF`], doubled after each further
//!   failure up to [`MAX_BACKOFF`]; meanwhile a token whose key is not cached is answered at
//!   once with the failure;
//! - keys older than an hour are fetched again in the background while they keep being used,
//!   and used on while the issuer fails.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use jsonwebtoken::DecodingKey;
use jsonwebtoken::jwk::Jwk;
use serde_json::Value;
use tokio::sync::watch;

/// The shortest time between two fetches of the key set for a key it lacks.
const REFETCH_INTERVAL: Duration = Duration::from_secs(10);

/// No fetch for this long after a failed one; doubled after each further failure.
const FIRST_BACKOFF: Duration = Duration::from_secs(1);

/// The longest wait between two fetches while the issuer keeps failing.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// Keys older than this are fetched again (an issuer rotates them).
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

/// What a fetch ends with, shared by every request that waited for it.
type Outcome = Result<Arc<Cached>, KeyError>;

/// The last fetches' failures, while they go on.
struct Failing {
    error: String,
    /// No fetch before this.
    retry_at: Instant,
    /// Failures in a row.
    count: u32,
}

#[derive(Default)]
struct State {
    cached: Option<Arc<Cached>>,
    /// The fetch under way: its outcome, once it has one.
    fetching: Option<watch::Receiver<Option<Outcome>>>,
    failing: Option<Failing>,
}

/// The issuer's keys, fetched when first needed.
pub(super) struct KeySet {
    issuer: String,
    jwks_uri: Option<String>,
    timeout: Duration,
    /// A short lock, never held across a fetch.
    state: Arc<Mutex<State>>,
}

/// What a lookup does once it has read the state.
enum Next {
    Found(Result<Arc<DecodingKey>, KeyError>),
    Wait(watch::Receiver<Option<Outcome>>),
}

impl KeySet {
    pub(super) fn new(issuer: &str, jwks_uri: Option<&str>, timeout: Duration) -> KeySet {
        KeySet {
            issuer: issuer.to_owned(),
            jwks_uri: jwks_uri.map(str::to_owned),
            timeout,
            state: Arc::new(Mutex::new(State::default())),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The key a token with `kid` (and `family` of algorithm) was signed with.
    pub(super) async fn key(
        &self,
        kid: Option<&str>,
        family: jsonwebtoken::AlgorithmFamily,
    ) -> Result<Arc<DecodingKey>, KeyError> {
        let waiting = match self.next(kid, family) {
            Next::Found(found) => return found,
            Next::Wait(waiting) => waiting,
        };
        match outcome(waiting).await {
            Ok(cached) => find(&cached.keys, kid, family).unwrap_or_else(|| Err(unknown(kid))),
            Err(error) => Err(error),
        }
    }

    /// Reads the cache and decides: a key, an error, or a fetch to wait for (started here
    /// unless one is under way).
    fn next(&self, kid: Option<&str>, family: jsonwebtoken::AlgorithmFamily) -> Next {
        let mut state = self.lock();
        let now = Instant::now();
        let cached = state.cached.clone();
        let found = cached.as_ref().and_then(|c| find(&c.keys, kid, family));
        let may_fetch =
            state.fetching.is_none() && state.failing.as_ref().is_none_or(|f| now >= f.retry_at);
        if let (Some(cached), Some(found)) = (&cached, found) {
            // Old keys are still used while new ones are fetched, or while the issuer fails.
            if now.duration_since(cached.fetched) >= MAX_AGE && may_fetch {
                drop(self.start(&mut state));
            }
            return Next::Found(found);
        }
        if let Some(fetching) = &state.fetching {
            return Next::Wait(fetching.clone());
        }
        if let Some(failing) = &state.failing
            && now < failing.retry_at
        {
            return Next::Found(Err(KeyError::Unreachable(format!(
                "{} (asked again in {} s at the latest)",
                failing.error,
                failing.retry_at.duration_since(now).as_secs().max(1)
            ))));
        }
        // A key the cache lacks: the issuer may have rotated its keys.
        if let Some(cached) = &cached
            && now.duration_since(cached.fetched) < REFETCH_INTERVAL
        {
            return Next::Found(Err(unknown(kid)));
        }
        Next::Wait(self.start(&mut state))
    }

    /// Starts a fetch whose outcome goes into the cache (or the failures) and to every waiter.
    fn start(&self, state: &mut State) -> watch::Receiver<Option<Outcome>> {
        let (sender, receiver) = watch::channel(None);
        state.fetching = Some(receiver.clone());
        let (issuer, jwks_uri, timeout) =
            (self.issuer.clone(), self.jwks_uri.clone(), self.timeout);
        let shared = self.state.clone();
        tokio::spawn(async move {
            let fetched = fetch(issuer, jwks_uri, timeout).await.map(Arc::new);
            let mut state = shared
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            state.fetching = None;
            match &fetched {
                Ok(cached) => {
                    state.cached = Some(cached.clone());
                    state.failing = None;
                }
                Err(KeyError::Unreachable(error) | KeyError::Unknown(error)) => {
                    let count = state.failing.as_ref().map_or(1, |f| f.count + 1);
                    let backoff = FIRST_BACKOFF
                        .saturating_mul(1 << (count - 1).min(16))
                        .min(MAX_BACKOFF);
                    tracing::warn!(%error, failures = count, retry_in_s = backoff.as_secs(), "cannot fetch the issuer's signing keys");
                    state.failing = Some(Failing {
                        error: error.clone(),
                        retry_at: Instant::now() + backoff,
                        count,
                    });
                }
            }
            drop(state);
            let _ = sender.send(Some(fetched));
        });
        receiver
    }
}

/// The outcome of the fetch `waiting` watches.
async fn outcome(mut waiting: watch::Receiver<Option<Outcome>>) -> Outcome {
    match waiting.wait_for(Option::is_some).await {
        Ok(outcome) => outcome.clone().unwrap_or_else(unreachable_fetch),
        Err(_) => unreachable_fetch(),
    }
}

fn unreachable_fetch() -> Outcome {
    Err(KeyError::Unreachable(
        "the fetch of the issuer's keys stopped before it ended".to_owned(),
    ))
}

fn unknown(kid: Option<&str>) -> KeyError {
    KeyError::Unknown(match kid {
        Some(kid) => format!("the issuer has no signing key `{kid}`"),
        None => "the token names no key and the issuer has none for its algorithm".into(),
    })
}

/// The issuer's keys, within `timeout` however the issuer answers.
async fn fetch(
    issuer: String,
    jwks_uri: Option<String>,
    timeout: Duration,
) -> Result<Cached, KeyError> {
    let fetching = tokio::task::spawn_blocking(move || fetch_keys(&issuer, jwks_uri, timeout));
    let keys = match tokio::time::timeout(timeout, fetching).await {
        Ok(Ok(keys)) => keys?,
        Ok(Err(error)) => return Err(KeyError::Unreachable(error.to_string())),
        Err(_) => {
            return Err(KeyError::Unreachable(format!(
                "the issuer's metadata and keys did not arrive within {} s",
                timeout.as_secs_f64()
            )));
        }
    };
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

/// The JSON document at `url`, by `deadline` (each request of a lookup gets the time left).
fn get_json(agent: &ureq::Agent, url: &str, deadline: Instant) -> Result<Value, String> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(format!(
            "GET {url}: not asked, the time for the lookup ran out"
        ));
    }
    agent
        .get(url)
        .header("Accept", "application/json")
        .config()
        .timeout_global(Some(left))
        .build()
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
/// (`jwks_uri`, `introspection_endpoint`), checking that the metadata is the issuer's own; by
/// `deadline`.
pub(super) fn discover(
    agent: &ureq::Agent,
    issuer: &str,
    field: &str,
    deadline: Instant,
) -> Result<String, String> {
    let mut failures = Vec::new();
    for url in metadata_urls(issuer) {
        match get_json(agent, &url, deadline) {
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
    // The whole lookup (metadata, then keys) within `timeout`: a request that gave up waiting
    // leaves nothing running long after it.
    let deadline = Instant::now() + timeout;
    let agent = agent(timeout);
    let jwks_uri = match jwks_uri {
        Some(uri) => uri,
        None => discover(&agent, issuer, "jwks_uri", deadline).map_err(KeyError::Unreachable)?,
    };
    let set = get_json(&agent, &jwks_uri, deadline).map_err(KeyError::Unreachable)?;
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
