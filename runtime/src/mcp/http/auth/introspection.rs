//! Opaque access tokens, asked about at the issuer's introspection endpoint (RFC 7662, given, or
//! found in the issuer's metadata as `introspection_endpoint` when first needed): the
//! server authenticates as a client of the issuer (HTTP Basic), and accepts a token only when
//! the answer says it is active, names this issuer (when it names one) and this resource as
//! its audience. Answers are cached for at most a minute (never past the token's `exp`), keyed
//! by the token's SHA-256, so a busy caller costs one request a minute.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The longest an answer is reused.
const CACHE_FOR: Duration = Duration::from_secs(60);

/// The most answers kept; past it the cache starts again empty.
const MAX_CACHED: usize = 10_000;

/// Where and as whom tokens are introspected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Introspection {
    /// The issuer's introspection endpoint; `None`: the `introspection_endpoint` of the
    /// issuer's metadata.
    pub endpoint: Option<String>,
    /// This server's client id at the issuer.
    pub client_id: String,
    /// Its secret.
    pub client_secret: String,
}

/// Answers by the token's SHA-256: the claims or why the token was refused, and until when the
/// answer may be reused.
type Answers = HashMap<[u8; 32], (Result<Arc<Value>, String>, Instant)>;

/// Asks the endpoint, with a cache.
pub(super) struct Introspector {
    settings: Introspection,
    /// The endpoint asked: given, or discovered once.
    endpoint: tokio::sync::OnceCell<String>,
    timeout: Duration,
    cache: Mutex<Answers>,
}

/// Why introspection gave no claims.
pub(super) enum Inactive {
    /// The issuer says the token is not valid here: why.
    Refused(String),
    /// The endpoint cannot be asked.
    Unreachable(String),
}

impl Introspector {
    pub(super) fn new(settings: Introspection, timeout: Duration) -> Introspector {
        Introspector {
            settings,
            endpoint: tokio::sync::OnceCell::new(),
            timeout,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The claims of an active `token` for `audience` from `issuer`.
    pub(super) async fn claims(
        &self,
        token: &str,
        issuer: &str,
        audience: &str,
    ) -> Result<Arc<Value>, Inactive> {
        let key: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if let Some((answer, until)) = self.lock().get(&key)
            && Instant::now() < *until
        {
            return answer.clone().map_err(Inactive::Refused);
        }
        let endpoint = self.endpoint(issuer).await.map_err(Inactive::Unreachable)?;
        let settings = self.settings.clone();
        let (token_owned, timeout) = (token.to_owned(), self.timeout);
        let answer =
            tokio::task::spawn_blocking(move || ask(&settings, &endpoint, &token_owned, timeout))
                .await
                .map_err(|error| Inactive::Unreachable(error.to_string()))?
                .map_err(Inactive::Unreachable)?;
        let checked = check(answer, issuer, audience).map(Arc::new);
        let until = Instant::now() + cache_time(checked.as_deref().ok());
        let mut cache = self.lock();
        if cache.len() >= MAX_CACHED {
            cache.clear();
        }
        cache.insert(key, (checked.clone(), until));
        checked.map_err(Inactive::Refused)
    }

    /// The endpoint: the one given, or the issuer's metadata's (read once; a failed read is
    /// tried again by the next token).
    async fn endpoint(&self, issuer: &str) -> Result<String, String> {
        if let Some(given) = &self.settings.endpoint {
            return Ok(given.clone());
        }
        let (issuer, timeout) = (issuer.to_owned(), self.timeout);
        self.endpoint
            .get_or_try_init(|| async move {
                tokio::task::spawn_blocking(move || {
                    super::keys::discover(
                        &super::keys::agent(timeout),
                        &issuer,
                        "introspection_endpoint",
                        std::time::Instant::now() + timeout,
                    )
                })
                .await
                .map_err(|error| error.to_string())?
            })
            .await
            .cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Answers> {
        self.cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// How long an answer may be reused: a minute, never past the token's expiry.
fn cache_time(claims: Option<&Value>) -> Duration {
    let Some(exp) = claims.and_then(|claims| claims["exp"].as_u64()) else {
        return CACHE_FOR;
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    Duration::from_secs(exp.saturating_sub(now)).min(CACHE_FOR)
}

/// The endpoint's answer about `token`.
fn ask(
    settings: &Introspection,
    endpoint: &str,
    token: &str,
    timeout: Duration,
) -> Result<Value, String> {
    let agent = super::keys::agent(timeout);
    let credentials = base64::engine::general_purpose::STANDARD.encode(format!(
        "{}:{}",
        form_encode(&settings.client_id),
        form_encode(&settings.client_secret)
    ));
    agent
        .post(endpoint)
        .header("Authorization", &format!("Basic {credentials}"))
        .header("Accept", "application/json")
        .send_form([("token", token), ("token_type_hint", "access_token")])
        .map_err(|error| format!("POST {endpoint}: {error}"))?
        .body_mut()
        .with_config()
        .limit(1 << 20)
        .read_json()
        .map_err(|error| format!("POST {endpoint}: not a JSON answer: {error}"))
}

/// RFC 6749's form encoding of a client credential (before Basic's base64).
fn form_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The answer's claims if it is active for this issuer and resource; otherwise why not.
fn check(answer: Value, issuer: &str, audience: &str) -> Result<Value, String> {
    if answer["active"] != Value::Bool(true) {
        return Err("the issuer says the token is not active (expired, revoked or unknown)".into());
    }
    if let Some(named) = answer["iss"].as_str()
        && named.trim_end_matches('/') != issuer.trim_end_matches('/')
    {
        return Err(format!("the token was not issued by `{issuer}`"));
    }
    let audiences: Vec<&str> = match &answer["aud"] {
        Value::String(one) => vec![one.as_str()],
        Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if !audiences.contains(&audience) {
        return Err(format!(
            "the token is not for this resource: its audience must be `{audience}`"
        ));
    }
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::check;

    #[test]
    fn only_active_tokens_of_this_issuer_for_this_resource_pass() {
        let (iss, aud) = ("https://id.example.com", "https://tools.example.com/mcp");
        let good = json!({"active": true, "iss": iss, "aud": [aud, "other"], "scope": "mcp"});
        assert!(check(good, iss, aud).is_ok());
        assert!(
            check(json!({"active": false}), iss, aud)
                .unwrap_err()
                .contains("not active")
        );
        let foreign = json!({"active": true, "iss": "https://evil.example", "aud": aud});
        assert!(
            check(foreign, iss, aud)
                .unwrap_err()
                .contains("not issued by")
        );
        let unbound = json!({"active": true, "iss": iss});
        assert!(check(unbound, iss, aud).unwrap_err().contains("audience"));
    }
}
