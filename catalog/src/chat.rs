//! A language model behind an OpenAI-compatible chat-completions API (OpenAI, Azure OpenAI
//! gateways, vLLM, Ollama, LM Studio, llama.cpp's server) as a [`QueryExpander`]
//! ([`ChatQueryExpander`]) and a [`Reranker`] ([`ChatReranker`]), with ureq (blocking,
//! rustls). Crate feature `llm-openai`.
//!
//! Each call is one `POST {url}/chat/completions` with `temperature: 0` and
//! `response_format: {"type": "json_object"}`, within a deadline, reading at most a capped
//! number of answer bytes. The model is asked for one JSON object and its answer is read
//! strictly: anything else (prose, code fences, unknown keys, too many terms, a score per
//! candidate missing or outside [0, 1]) is a [`CatalogError::Llm`] saying what was wrong.
//! [`crate::Catalog::search`] does not fail on such an error: it falls back to the
//! deterministic [`crate::SynonymExpander`] (or ranks without the re-ranker) and says so in
//! [`crate::SearchMetadata::expansion_error`] / [`crate::SearchMetadata::rerank_error`].

use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{Value, json};

use crate::error::CatalogError;
use crate::expand::QueryExpander;
use crate::rerank::{RerankCandidate, Reranker};

/// How long one chat call may take by default.
pub const DEFAULT_CHAT_TIMEOUT: Duration = Duration::from_secs(20);
/// The largest chat answer read by default, in bytes.
pub const DEFAULT_MAX_ANSWER_BYTES: u64 = 256 * 1024;
/// The most terms a [`ChatQueryExpander`] asks for (the catalog keeps at most 32).
const MAX_TERMS: usize = 32;
/// The longest term accepted, in characters.
const MAX_TERM_CHARS: usize = 64;
/// The most characters of a candidate's description shown to the re-ranker.
const MAX_DESCRIPTION_CHARS: usize = 300;
/// The most characters of an answer quoted in an error.
const MAX_QUOTED_CHARS: usize = 200;

const EXPAND_PROMPT: &str = "You help a search engine find software tools (functions an AI \
assistant can call). Given a request, list up to 32 extra search terms that tools serving it \
are likely to use in their names or descriptions: synonyms, related actions and objects. Each \
term is one or two lowercase English words not already in the request. Answer with JSON only, \
exactly this shape: {\"terms\": [\"word\", ...]}";

const RERANK_PROMPT: &str = "You rank software tools (functions an AI assistant can call) for a \
request. For each tool, in the order given, rate how well it serves the request, from 0 (not at \
all) to 1 (exactly what is needed). Answer with JSON only, exactly this shape: \
{\"scores\": [number, ...]}, one number per tool.";

/// Where and how to reach the chat model: base URL, model, API key, deadline, answer cap.
#[derive(Clone)]
pub struct ChatSettings {
    url: String,
    model: String,
    api_key: Option<String>,
    timeout: Duration,
    max_answer_bytes: u64,
}

impl std::fmt::Debug for ChatSettings {
    /// Everything but the API key's value.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatSettings")
            .field("url", &self.url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("timeout", &self.timeout)
            .field("max_answer_bytes", &self.max_answer_bytes)
            .finish()
    }
}

impl ChatSettings {
    /// The model `model` at `base_url` (`https://api.openai.com/v1`,
    /// `http://127.0.0.1:11434/v1`), without an API key, with [`DEFAULT_CHAT_TIMEOUT`] and
    /// [`DEFAULT_MAX_ANSWER_BYTES`].
    pub fn new(base_url: &str, model: &str) -> ChatSettings {
        ChatSettings {
            url: format!("{}/chat/completions", base_url.trim_end_matches('/')),
            model: model.to_owned(),
            api_key: None,
            timeout: DEFAULT_CHAT_TIMEOUT,
            max_answer_bytes: DEFAULT_MAX_ANSWER_BYTES,
        }
    }

    /// The settings sending `Authorization: Bearer` with the value of the environment
    /// variable `variable`; an unset or empty variable is an error naming it (never its
    /// value).
    pub fn with_api_key_from_env(mut self, variable: &str) -> Result<ChatSettings, CatalogError> {
        match std::env::var(variable) {
            Ok(key) if !key.trim().is_empty() => {
                self.api_key = Some(key.trim().to_owned());
                Ok(self)
            }
            _ => Err(CatalogError::Llm {
                provider: self.provider(),
                message: format!(
                    "the environment variable `{variable}` that should hold the API key is not set or empty"
                ),
            }),
        }
    }

    /// The settings sending `Authorization: Bearer key`.
    pub fn with_api_key(mut self, key: impl Into<String>) -> ChatSettings {
        self.api_key = Some(key.into());
        self
    }

    /// The settings with another deadline for one call (a search's own deadline, when
    /// sooner, wins).
    pub fn with_timeout(mut self, timeout: Duration) -> ChatSettings {
        self.timeout = timeout;
        self
    }

    /// The settings with another cap on the bytes of one answer.
    pub fn with_max_answer_bytes(mut self, max_answer_bytes: u64) -> ChatSettings {
        self.max_answer_bytes = max_answer_bytes;
        self
    }

    /// The provider in messages: `chat model `M` at URL`.
    fn provider(&self) -> String {
        format!("chat model `{}` at {}", self.model, self.url)
    }
}

/// The HTTP side shared by the expander and the re-ranker.
#[derive(Debug)]
struct ChatClient {
    settings: ChatSettings,
    agent: ureq::Agent,
}

impl ChatClient {
    fn new(settings: ChatSettings) -> ChatClient {
        let tls = ureq::tls::TlsConfig::builder()
            .root_certs(ureq::tls::RootCerts::PlatformVerifier)
            .build();
        let agent = ureq::Agent::config_builder()
            .tls_config(tls)
            .http_status_as_error(false)
            .build()
            .into();
        ChatClient { settings, agent }
    }

    fn error(&self, message: impl Into<String>) -> CatalogError {
        CatalogError::Llm {
            provider: self.settings.provider(),
            message: message.into(),
        }
    }

    /// The chat-completions request for `system` and `user`.
    fn request_body(&self, system: &str, user: &Value) -> Value {
        json!({
            "model": self.settings.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user.to_string()},
            ],
            "temperature": 0,
            "response_format": {"type": "json_object"},
        })
    }

    /// Asks the model and answers the text of its message, within the settings' timeout and
    /// `deadline`, reading at most the answer cap.
    fn complete(
        &self,
        system: &str,
        user: &Value,
        deadline: Option<Instant>,
    ) -> Result<String, CatalogError> {
        let mut timeout = self.settings.timeout;
        if let Some(deadline) = deadline {
            let left = deadline
                .checked_duration_since(Instant::now())
                .filter(|left| !left.is_zero())
                .ok_or_else(|| self.error("the search's deadline passed before it was asked"))?;
            timeout = timeout.min(left);
        }
        let mut request = self
            .agent
            .post(&self.settings.url)
            .config()
            .timeout_global(Some(timeout))
            .build();
        if let Some(key) = &self.settings.api_key {
            request = request.header("Authorization", &format!("Bearer {key}"));
        }
        let timed_out = |what: &str| self.error(format!("no {what} within {timeout:?}"));
        let mut response = request
            .send_json(self.request_body(system, user))
            .map_err(|error| match error {
                ureq::Error::Timeout(_) => timed_out("answer"),
                other => self.error(format!("unreachable: {other}")),
            })?;
        let status = response.status().as_u16();
        let cap = self.settings.max_answer_bytes;
        let text = response
            .body_mut()
            .with_config()
            .limit(cap)
            .read_to_string()
            .map_err(|error| match error {
                ureq::Error::Timeout(_) => timed_out("whole answer"),
                ureq::Error::BodyExceedsLimit(_) => {
                    self.error(format!("the answer is larger than the cap of {cap} bytes"))
                }
                other => self.error(format!("the answer cannot be read: {other}")),
            })?;
        if !(200..300).contains(&status) {
            return Err(self.error(format!(
                "answered HTTP {status}: {}",
                provider_message(&text)
            )));
        }
        message_content(&text).map_err(|message| self.error(message))
    }
}

/// The text of the first choice's message of a chat-completions answer, or what is wrong
/// with the answer.
fn message_content(text: &str) -> Result<String, String> {
    #[derive(Deserialize)]
    struct Completion {
        choices: Vec<Choice>,
    }
    #[derive(Deserialize)]
    struct Choice {
        message: Message,
        #[serde(default)]
        finish_reason: Option<String>,
    }
    #[derive(Deserialize)]
    struct Message {
        #[serde(default)]
        content: Option<String>,
        #[serde(default)]
        refusal: Option<String>,
    }
    let completion: Completion = serde_json::from_str(text).map_err(|error| {
        format!(
            "the answer is not a chat completion ({error}): {}",
            quote(text)
        )
    })?;
    let Some(choice) = completion.choices.into_iter().next() else {
        return Err("the answer has no choices".into());
    };
    if let Some(refusal) = choice.message.refusal.filter(|r| !r.is_empty()) {
        return Err(format!("the model refused: {}", quote(&refusal)));
    }
    if choice.finish_reason.as_deref() == Some("length") {
        return Err("the model's answer was cut off (finish_reason `length`)".into());
    }
    match choice.message.content {
        Some(content) if !content.trim().is_empty() => Ok(content),
        _ => Err("the model's message has no content".into()),
    }
}

/// Reads `content` as exactly `T`, or says what was asked for and what came.
fn parse_strictly<T: serde::de::DeserializeOwned>(content: &str, shape: &str) -> Result<T, String> {
    serde_json::from_str(content.trim()).map_err(|error| {
        format!(
            "the model did not answer the JSON asked for, `{shape}` ({error}): {}",
            quote(content)
        )
    })
}

/// The terms of an expansion answer `{"terms": [...]}`: lowercase, trimmed, each non-empty,
/// at most [`MAX_TERM_CHARS`] characters without control characters, at most [`MAX_TERMS`].
fn parse_terms(content: &str) -> Result<Vec<String>, String> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Terms {
        terms: Vec<String>,
    }
    let Terms { terms } = parse_strictly(content, r#"{"terms": ["word", ...]}"#)?;
    if terms.len() > MAX_TERMS {
        return Err(format!(
            "the model gave {} terms; at most {MAX_TERMS} were asked for",
            terms.len()
        ));
    }
    terms
        .into_iter()
        .enumerate()
        .map(|(index, term)| {
            let term = term.trim().to_lowercase();
            if term.is_empty()
                || term.chars().count() > MAX_TERM_CHARS
                || term.chars().any(char::is_control)
            {
                Err(format!(
                    "term {index} is empty, longer than {MAX_TERM_CHARS} characters or holds control characters: {}",
                    quote(&term)
                ))
            } else {
                Ok(term)
            }
        })
        .collect()
}

/// The scores of a re-ranking answer `{"scores": [...]}`: exactly `count` numbers in [0, 1].
fn parse_scores(content: &str, count: usize) -> Result<Vec<f64>, String> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Scores {
        scores: Vec<f64>,
    }
    let Scores { scores } = parse_strictly(content, r#"{"scores": [number, ...]}"#)?;
    if scores.len() != count {
        return Err(format!(
            "the model gave {} scores for {count} tools",
            scores.len()
        ));
    }
    if let Some((index, score)) = scores
        .iter()
        .enumerate()
        .find(|(_, score)| !(0.0..=1.0).contains(*score))
    {
        return Err(format!("score {index} is {score}, outside [0, 1]"));
    }
    Ok(scores)
}

/// A provider's own error message (`{"error": {"message": ...}}`), else the answer's start.
fn provider_message(text: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(text).ok();
    match parsed.as_ref().and_then(|value| {
        value
            .pointer("/error/message")
            .or_else(|| value.get("error"))
            .or_else(|| value.get("message"))
    }) {
        Some(Value::String(message)) => quote(message),
        Some(other) => quote(&other.to_string()),
        None if text.trim().is_empty() => "(an empty answer)".into(),
        None => quote(text),
    }
}

/// `text` for an error message: cut at [`MAX_QUOTED_CHARS`] characters.
fn quote(text: &str) -> String {
    let text = text.trim();
    if text.chars().count() > MAX_QUOTED_CHARS {
        let cut: String = text.chars().take(MAX_QUOTED_CHARS).collect();
        format!("`{cut}…`")
    } else {
        format!("`{text}`")
    }
}

/// A [`QueryExpander`] that asks a chat model for related search terms.
///
/// ```no_run
/// use std::sync::Arc;
/// use toolforge_catalog::{Catalog, ChatQueryExpander, ChatSettings, SearchMode, SearchRequest};
///
/// let settings = ChatSettings::new("https://api.openai.com/v1", "gpt-4o-mini")
///     .with_api_key_from_env("OPENAI_API_KEY")?;
/// let catalog = Catalog::open("tools.db")?.with_expander(Arc::new(ChatQueryExpander::new(settings)));
/// let answer = catalog.search(&SearchRequest::new("tell the team").with_mode(SearchMode::Accurate))?;
/// println!("{:?} {:?}", answer.metadata.expanded_terms, answer.metadata.expansion_error);
/// # Ok::<(), toolforge_catalog::CatalogError>(())
/// ```
#[derive(Debug)]
pub struct ChatQueryExpander {
    client: ChatClient,
}

impl ChatQueryExpander {
    /// An expander asking the model of `settings`.
    pub fn new(settings: ChatSettings) -> ChatQueryExpander {
        ChatQueryExpander {
            client: ChatClient::new(settings),
        }
    }
}

impl QueryExpander for ChatQueryExpander {
    fn expand(&self, query: &str, task_context: Option<&str>) -> Result<Vec<String>, CatalogError> {
        self.expand_before(query, task_context, None)
    }

    fn expand_before(
        &self,
        query: &str,
        task_context: Option<&str>,
        deadline: Option<Instant>,
    ) -> Result<Vec<String>, CatalogError> {
        let user = json!({"request": query, "task_context": task_context});
        let content = self.client.complete(EXPAND_PROMPT, &user, deadline)?;
        parse_terms(&content).map_err(|message| self.client.error(message))
    }
}

/// A [`Reranker`] that asks a chat model to score the candidates.
#[derive(Debug)]
pub struct ChatReranker {
    client: ChatClient,
}

impl ChatReranker {
    /// A re-ranker asking the model of `settings`.
    pub fn new(settings: ChatSettings) -> ChatReranker {
        ChatReranker {
            client: ChatClient::new(settings),
        }
    }
}

impl Reranker for ChatReranker {
    fn rerank(
        &self,
        query: &str,
        task_context: Option<&str>,
        candidates: &[RerankCandidate<'_>],
    ) -> Result<Vec<f64>, CatalogError> {
        self.rerank_before(query, task_context, candidates, None)
    }

    fn rerank_before(
        &self,
        query: &str,
        task_context: Option<&str>,
        candidates: &[RerankCandidate<'_>],
        deadline: Option<Instant>,
    ) -> Result<Vec<f64>, CatalogError> {
        if candidates.is_empty() {
            return Ok(Vec::new());
        }
        let tools: Vec<Value> = candidates
            .iter()
            .map(|candidate| {
                let description: String = candidate
                    .description
                    .chars()
                    .take(MAX_DESCRIPTION_CHARS)
                    .collect();
                json!({"name": candidate.name, "description": description})
            })
            .collect();
        let user = json!({"request": query, "task_context": task_context, "tools": tools});
        let content = self.client.complete(RERANK_PROMPT, &user, deadline)?;
        parse_scores(&content, candidates.len()).map_err(|message| self.client.error(message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chat-completions answer carrying `content`, as OpenAI sends it.
    fn completion(content: &str) -> String {
        json!({
            "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
            "object": "chat.completion",
            "created": 1741569952,
            "model": "gpt-4o-mini-2024-07-18",
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": null, "annotations": []},
                "logprobs": null,
                "finish_reason": "stop"
            }],
            "usage": {"prompt_tokens": 19, "completion_tokens": 10, "total_tokens": 29},
            "service_tier": "default",
            "system_fingerprint": "fp_06737a9306"
        })
        .to_string()
    }

    #[test]
    fn the_request_asks_for_json_at_temperature_zero() {
        let client = ChatClient::new(ChatSettings::new("http://127.0.0.1:9/v1/", "m"));
        assert_eq!(
            client.settings.url,
            "http://127.0.0.1:9/v1/chat/completions"
        );
        let body = client.request_body(EXPAND_PROMPT, &json!({"request": "send mail"}));
        assert_eq!(body["model"], "m");
        assert_eq!(body["temperature"], 0);
        assert_eq!(body["response_format"], json!({"type": "json_object"}));
        assert_eq!(body["messages"][0]["role"], "system");
        assert!(
            body["messages"][0]["content"]
                .as_str()
                .unwrap()
                .contains("JSON")
        );
        assert_eq!(body["messages"][1]["role"], "user");
        let user: Value =
            serde_json::from_str(body["messages"][1]["content"].as_str().unwrap()).unwrap();
        assert_eq!(user["request"], "send mail");
    }

    #[test]
    fn a_recorded_answer_gives_its_terms() {
        let content = message_content(&completion(
            r#"{"terms": ["Email", " notify ", "message", "smtp"]}"#,
        ))
        .unwrap();
        assert_eq!(
            parse_terms(&content).unwrap(),
            ["email", "notify", "message", "smtp"]
        );
        let content = message_content(&completion(r#"{"scores": [0.9, 0, 1, 0.25]}"#)).unwrap();
        assert_eq!(parse_scores(&content, 4).unwrap(), [0.9, 0.0, 1.0, 0.25]);
    }

    #[test]
    fn answers_out_of_form_are_refused_with_what_was_wrong() {
        let fenced = "```json\n{\"terms\": [\"email\"]}\n```";
        assert!(
            parse_terms(fenced)
                .unwrap_err()
                .contains(r#"`{"terms": ["word", ...]}`"#)
        );
        assert!(
            parse_terms(r#"{"terms": ["email"], "note": "x"}"#)
                .unwrap_err()
                .contains("unknown field `note`")
        );
        assert!(
            parse_terms(r#"{"terms": "email"}"#)
                .unwrap_err()
                .contains("invalid type")
        );
        assert!(
            parse_terms(r#"{"terms": ["email", ""]}"#)
                .unwrap_err()
                .starts_with("term 1 is empty")
        );
        let many = json!({"terms": vec!["w"; 40]}).to_string();
        assert!(parse_terms(&many).unwrap_err().contains("gave 40 terms"));
        assert!(
            parse_scores(r#"{"scores": [0.5]}"#, 2)
                .unwrap_err()
                .contains("1 scores for 2 tools")
        );
        assert!(
            parse_scores(r#"{"scores": [0.5, 7]}"#, 2)
                .unwrap_err()
                .contains("score 1 is 7, outside [0, 1]")
        );
    }

    #[test]
    fn envelopes_out_of_form_are_refused() {
        assert!(
            message_content(r#"{"object": "list"}"#)
                .unwrap_err()
                .contains("not a chat completion")
        );
        assert_eq!(
            message_content(r#"{"choices": []}"#).unwrap_err(),
            "the answer has no choices"
        );
        let refused = json!({"choices": [{"message": {"content": null, "refusal": "I can't help"}, "finish_reason": "stop"}]});
        assert!(
            message_content(&refused.to_string())
                .unwrap_err()
                .contains("refused: `I can't help`")
        );
        let cut = json!({"choices": [{"message": {"content": "{\"terms\": [\"a"}, "finish_reason": "length"}]});
        assert!(
            message_content(&cut.to_string())
                .unwrap_err()
                .contains("cut off")
        );
        assert_eq!(
            provider_message(
                r#"{"error": {"message": "Invalid API key", "type": "invalid_request_error"}}"#
            ),
            "`Invalid API key`"
        );
    }

    #[test]
    fn the_api_key_comes_from_the_environment_and_is_never_shown() {
        let missing = ChatSettings::new("http://127.0.0.1:9/v1", "m")
            .with_api_key_from_env("TOOLFORGE_CATALOG_TEST_UNSET_KEY")
            .unwrap_err();
        assert!(
            missing
                .to_string()
                .contains("`TOOLFORGE_CATALOG_TEST_UNSET_KEY`"),
            "{missing}"
        );
        let mut settings = ChatSettings::new("http://127.0.0.1:9/v1", "m");
        settings.api_key = Some("sk-secret".into());
        let shown = format!("{:?}", ChatQueryExpander::new(settings));
        assert!(
            !shown.contains("sk-secret") && shown.contains("<set>"),
            "{shown}"
        );
    }
}
