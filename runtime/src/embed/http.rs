//! Embedding providers over HTTP: OpenAI's `/v1/embeddings` (and every server speaking it) and
//! Gemini's `batchEmbedContents`, with ureq (blocking, rustls).

use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{Value, json};

use super::embedder::Embedder;
use super::error::EmbedError;

/// The largest answer read from a provider (a batch of 1,000 vectors of 3,072 values as JSON
/// text is about 40 MB).
const MAX_ANSWER_BYTES: u64 = 128 << 20;
/// How long a request may take when the caller gives no deadline.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
/// The most of a provider's error text kept in a message.
const MAX_ERROR_CHARS: usize = 500;

/// A server speaking OpenAI's embeddings API: `POST {url}/embeddings` with
/// `{"model", "input": [...], "encoding_format": "float"}`.
///
/// ```no_run
/// use toolforge::embed::{Embedder, OpenAiCompatible};
/// let ollama = OpenAiCompatible::new("http://127.0.0.1:11434/v1", "nomic-embed-text", None);
/// let vectors = ollama.embed(&["hello"], None)?;
/// # Ok::<(), toolforge::embed::EmbedError>(())
/// ```
#[derive(Debug)]
pub struct OpenAiCompatible {
    endpoint: Endpoint,
    model: String,
    api_key: Option<String>,
}

impl OpenAiCompatible {
    /// A client of the server at `base_url` (`https://api.openai.com/v1`), asking for
    /// `model`, sending `api_key` as a bearer token when given.
    pub fn new(base_url: &str, model: &str, api_key: Option<String>) -> Self {
        let url = format!("{}/embeddings", base_url.trim_end_matches('/'));
        OpenAiCompatible {
            endpoint: Endpoint::new(
                format!("the embedding server at {url}"),
                url,
                format!("openai:{model}"),
                64,
            ),
            model: model.to_owned(),
            api_key,
        }
    }

    /// Texts per request (default 64).
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.endpoint.batch_size = batch_size.max(1);
        self
    }

    /// The vector length the model is known to give.
    pub fn with_dimension(mut self, dimension: usize) -> Self {
        self.endpoint.dimension = Some(dimension);
        self
    }
}

impl Embedder for OpenAiCompatible {
    fn model_id(&self) -> &str {
        &self.endpoint.model_id
    }

    fn dimension(&self) -> Option<usize> {
        self.endpoint.dimension
    }

    fn batch_size(&self) -> usize {
        self.endpoint.batch_size
    }

    fn embed(
        &self,
        texts: &[&str],
        deadline: Option<Instant>,
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        #[derive(Deserialize)]
        struct Answer {
            data: Vec<Item>,
        }
        #[derive(Deserialize)]
        struct Item {
            #[serde(default)]
            index: Option<usize>,
            embedding: Vec<f32>,
        }
        let body = json!({"model": self.model, "input": texts, "encoding_format": "float"});
        let mut headers = Vec::new();
        if let Some(key) = &self.api_key {
            headers.push(("Authorization", format!("Bearer {key}")));
        }
        let answer: Answer = self.endpoint.post(&headers, &body, deadline)?;
        let mut vectors: Vec<Option<Vec<f32>>> = vec![None; texts.len()];
        for (position, item) in answer.data.into_iter().enumerate() {
            let index = item.index.unwrap_or(position);
            match vectors.get_mut(index) {
                Some(slot @ None) => *slot = Some(item.embedding),
                _ => {
                    return Err(EmbedError::BadAnswer {
                        provider: self.endpoint.provider.clone(),
                        message: format!("item index {index} is out of range or repeated"),
                    });
                }
            }
        }
        collect_all(vectors, &self.endpoint.provider)
    }
}

/// Google's Gemini API: `POST {url}/models/{model}:batchEmbedContents`, the key in the
/// `x-goog-api-key` header.
#[derive(Debug)]
pub struct Gemini {
    endpoint: Endpoint,
    model: String,
    api_key: String,
}

impl Gemini {
    /// The default base URL.
    pub const DEFAULT_URL: &'static str = "https://generativelanguage.googleapis.com/v1beta";

    /// A client of the Gemini API at `base_url` for `model` (`text-embedding-004`).
    pub fn new(base_url: &str, model: &str, api_key: String) -> Self {
        let model = model.trim_start_matches("models/");
        let url = format!(
            "{}/models/{model}:batchEmbedContents",
            base_url.trim_end_matches('/')
        );
        Gemini {
            endpoint: Endpoint::new(
                format!("Gemini ({url})"),
                url,
                format!("gemini:{model}"),
                100,
            ),
            model: format!("models/{model}"),
            api_key,
        }
    }

    /// Texts per request (default 100, Gemini's limit).
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.endpoint.batch_size = batch_size.clamp(1, 100);
        self
    }

    /// Asks for vectors of this length (`outputDimensionality`).
    pub fn with_dimension(mut self, dimension: usize) -> Self {
        self.endpoint.dimension = Some(dimension);
        self
    }
}

impl Embedder for Gemini {
    fn model_id(&self) -> &str {
        &self.endpoint.model_id
    }

    fn dimension(&self) -> Option<usize> {
        self.endpoint.dimension
    }

    fn batch_size(&self) -> usize {
        self.endpoint.batch_size
    }

    fn embed(
        &self,
        texts: &[&str],
        deadline: Option<Instant>,
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        #[derive(Deserialize)]
        struct Answer {
            embeddings: Vec<Item>,
        }
        #[derive(Deserialize)]
        struct Item {
            values: Vec<f32>,
        }
        let requests: Vec<Value> = texts
            .iter()
            .map(|text| {
                let mut request =
                    json!({"model": self.model, "content": {"parts": [{"text": text}]}});
                if let Some(dimension) = self.endpoint.dimension {
                    request["outputDimensionality"] = json!(dimension);
                }
                request
            })
            .collect();
        let headers = [("x-goog-api-key", self.api_key.clone())];
        let answer: Answer =
            self.endpoint
                .post(&headers, &json!({"requests": requests}), deadline)?;
        collect_all(
            answer
                .embeddings
                .into_iter()
                .map(|item| Some(item.values))
                .collect(),
            &self.endpoint.provider,
        )
    }
}

/// What both providers keep: where they post, who they are, how much they send at once.
#[derive(Debug)]
struct Endpoint {
    /// The provider in messages (`Gemini (https://...)`).
    provider: String,
    url: String,
    model_id: String,
    batch_size: usize,
    dimension: Option<usize>,
    agent: ureq::Agent,
}

impl Endpoint {
    fn new(provider: String, url: String, model_id: String, batch_size: usize) -> Self {
        Endpoint {
            provider,
            url,
            model_id,
            batch_size,
            dimension: None,
            agent: agent(),
        }
    }

    /// POSTs `body` with `headers` and reads the answer as `T`, within `deadline`.
    fn post<T: serde::de::DeserializeOwned>(
        &self,
        headers: &[(&str, String)],
        body: &Value,
        deadline: Option<Instant>,
    ) -> Result<T, EmbedError> {
        post_json(
            &self.agent,
            &self.url,
            headers,
            body,
            deadline,
            &self.provider,
        )
    }
}

/// TLS checked against the system's certificate store (where company proxies' roots live),
/// not a list compiled in.
pub(super) fn tls() -> ureq::tls::TlsConfig {
    ureq::tls::TlsConfig::builder()
        .root_certs(ureq::tls::RootCerts::PlatformVerifier)
        .build()
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .tls_config(tls())
        .http_status_as_error(false)
        .build()
        .into()
}

/// POSTs `body` as JSON and reads the answer as `T`, within `deadline`.
fn post_json<T: serde::de::DeserializeOwned>(
    agent: &ureq::Agent,
    url: &str,
    headers: &[(&str, String)],
    body: &Value,
    deadline: Option<Instant>,
    provider: &str,
) -> Result<T, EmbedError> {
    let timeout = match deadline {
        Some(deadline) => deadline
            .checked_duration_since(Instant::now())
            .filter(|left| !left.is_zero())
            .ok_or(EmbedError::Stopped)?,
        None => DEFAULT_TIMEOUT,
    };
    let mut request = agent
        .post(url)
        .config()
        .timeout_global(Some(timeout))
        .build();
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let mut response = request.send_json(body).map_err(|error| match error {
        ureq::Error::Timeout(_) if deadline.is_some() => EmbedError::Stopped,
        other => EmbedError::Unreachable {
            provider: provider.to_owned(),
            message: other.to_string(),
        },
    })?;
    let status = response.status().as_u16();
    let text = response
        .body_mut()
        .with_config()
        .limit(MAX_ANSWER_BYTES)
        .read_to_string()
        .map_err(|error| match error {
            ureq::Error::Timeout(_) if deadline.is_some() => EmbedError::Stopped,
            other => EmbedError::BadAnswer {
                provider: provider.to_owned(),
                message: other.to_string(),
            },
        })?;
    if !(200..300).contains(&status) {
        return Err(EmbedError::Status {
            provider: provider.to_owned(),
            status,
            message: error_message(&text),
        });
    }
    serde_json::from_str(&text).map_err(|error| EmbedError::BadAnswer {
        provider: provider.to_owned(),
        message: error.to_string(),
    })
}

/// The provider's own message from an error answer (`{"error": {"message": ...}}`), else the
/// answer's start.
fn error_message(text: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(text).ok();
    let message = parsed
        .as_ref()
        .and_then(|value| {
            value
                .pointer("/error/message")
                .or_else(|| value.get("error"))
                .or_else(|| value.get("message"))
        })
        .map(|value| match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        })
        .unwrap_or_else(|| text.trim().to_owned());
    if message.chars().count() > MAX_ERROR_CHARS {
        let cut: String = message.chars().take(MAX_ERROR_CHARS).collect();
        format!("{cut}...")
    } else if message.is_empty() {
        "(an empty answer)".to_owned()
    } else {
        message
    }
}

fn collect_all(
    vectors: Vec<Option<Vec<f32>>>,
    provider: &str,
) -> Result<Vec<Vec<f32>>, EmbedError> {
    let count = vectors.len();
    let collected: Vec<Vec<f32>> = vectors.into_iter().flatten().collect();
    if collected.len() != count {
        return Err(EmbedError::BadAnswer {
            provider: provider.to_owned(),
            message: format!("{} vectors for {count} texts", collected.len()),
        });
    }
    Ok(collected)
}
