//! `ChatQueryExpander` and `ChatReranker` (feature `llm-openai`) end to end, against a small
//! HTTP server on loopback that speaks the chat-completions wire format: a stand-in for the
//! provider (no model behind it), which checks each request (path, API key, model, JSON
//! response format, temperature, the messages) and answers like OpenAI does.
//!
//! The model named in a request picks the server's behaviour: `terms` answers expansion terms
//! (and scores when asked to re-rank), `chatty` answers prose instead of the JSON asked for,
//! `huge` answers more than the client's cap and `slow` answers after the client's deadline.
//! The re-ranking stage runs with the real local embedding model.

#[path = "../../runtime/tests/test_model/mod.rs"]
mod test_model;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use serde_json::{Value, json};
use test_model::model;
use toolforge::ToolDefinition;
use toolforge_catalog::{
    Catalog, CatalogEntry, ChatQueryExpander, ChatReranker, ChatSettings, QueryExpander,
    SearchMode, SearchRequest, SignalKind, Source, SourceKind, SynonymExpander,
};

const KEY: &str = "chat-test-key";
/// What the stand-in model answers to expand a query.
const TERMS: [&str; 3] = ["resume", "hibernated", "virtual"];
const QUERY: &str = "wake my vm and notify ops";

fn error(status: StatusCode, message: &str) -> (StatusCode, String) {
    (
        status,
        json!({"error": {"message": message, "type": "invalid_request_error"}}).to_string(),
    )
}

fn completion(content: &str) -> String {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1741569952, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content, "refusal": null}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    })
    .to_string()
}

async fn chat_completions(headers: HeaderMap, body: Bytes) -> (StatusCode, String) {
    if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(&format!("Bearer {KEY}"))
    {
        return error(StatusCode::UNAUTHORIZED, "Incorrect API key provided");
    }
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return error(StatusCode::BAD_REQUEST, "the body is not JSON");
    };
    if request["response_format"] != json!({"type": "json_object"}) || request["temperature"] != 0 {
        return error(
            StatusCode::BAD_REQUEST,
            "expected JSON mode at temperature 0",
        );
    }
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let (Some(system), Some(user)) = (
        messages.first().and_then(|m| m["content"].as_str()),
        messages
            .get(1)
            .and_then(|m| m["content"].as_str())
            .and_then(|text| serde_json::from_str::<Value>(text).ok()),
    ) else {
        return error(
            StatusCode::BAD_REQUEST,
            "expected a system and a user message",
        );
    };
    if !system.contains("JSON") || user["request"].as_str().is_none() {
        return error(StatusCode::BAD_REQUEST, "the prompt does not ask for JSON");
    }
    let content = match request["model"].as_str().unwrap_or_default() {
        "terms" => match user["tools"].as_array() {
            // Re-ranking: the tool about virtual machines is the one.
            Some(tools) => {
                let scores: Vec<f64> = tools
                    .iter()
                    .map(|tool| {
                        let name = tool["name"].as_str().unwrap_or_default();
                        if name.contains("machine") { 1.0 } else { 0.0 }
                    })
                    .collect();
                json!({"scores": scores}).to_string()
            }
            None => json!({"terms": TERMS}).to_string(),
        },
        "chatty" => "Sure! Good terms would be resume, hibernated and virtual.".to_owned(),
        "huge" => json!({"terms": vec!["padding"; 2000]}).to_string(),
        "slow" => {
            tokio::time::sleep(Duration::from_secs(5)).await;
            json!({"terms": TERMS}).to_string()
        }
        _ => return error(StatusCode::NOT_FOUND, "The model does not exist"),
    };
    (StatusCode::OK, completion(&content))
}

/// Starts the stand-in server; answers its base URL (`http://127.0.0.1:PORT/v1`) and the
/// runtime that keeps it running.
fn server() -> (String, tokio::runtime::Runtime) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let address = listener.local_addr().unwrap();
    let app = Router::new().route("/v1/chat/completions", post(chat_completions));
    runtime.spawn(async move { axum::serve(listener, app).await });
    (format!("http://{address}/v1"), runtime)
}

fn settings(url: &str, model: &str) -> ChatSettings {
    ChatSettings::new(url, model)
        .with_api_key(KEY)
        .with_timeout(Duration::from_millis(800))
        .with_max_answer_bytes(4096)
}

fn tool(name: &str, description: &str) -> CatalogEntry {
    let definition: ToolDefinition = serde_json::from_value(json!({
        "name": name, "description": description,
        "input_schema": {"type": "object", "properties": {"target": {"type": "string"}}},
    }))
    .unwrap();
    definition.into()
}

fn catalog() -> Catalog {
    let catalog = Catalog::in_memory().unwrap();
    catalog
        .index(
            &Source::new(SourceKind::Custom, "ops"),
            [
                tool("resume_machine", "Resume a hibernated virtual machine"),
                tool("send_alert", "Post an alert to the on-call channel"),
                tool("read_file", "Read a file from the workspace"),
            ],
        )
        .unwrap();
    catalog
}

fn names(answer: &toolforge_catalog::SearchResponse) -> Vec<&str> {
    answer.results.iter().map(|r| r.name.as_str()).collect()
}

fn accurate() -> SearchRequest {
    SearchRequest::new(QUERY).with_mode(SearchMode::Accurate)
}

#[test]
fn the_models_terms_reach_the_search() {
    let (url, _server) = server();
    let plain = catalog().search(&accurate()).unwrap();
    assert!(!names(&plain).contains(&"resume_machine"), "{plain:?}");

    let catalog =
        catalog().with_expander(Arc::new(ChatQueryExpander::new(settings(&url, "terms"))));
    let answer = catalog.search(&accurate()).unwrap();
    assert_eq!(answer.metadata.expanded_terms, TERMS);
    assert_eq!(answer.metadata.expansion_error, None);
    assert_eq!(names(&answer)[0], "resume_machine", "{answer:?}");
    assert!(
        answer.results[0].match_reason.contains("hibernat"),
        "{}",
        answer.results[0].match_reason
    );
}

#[test]
fn a_bad_answer_falls_back_to_the_built_in_expander_and_says_why() {
    let (url, _server) = server();
    let synonyms = SynonymExpander.expand(QUERY, None).unwrap();
    assert!(synonyms.contains(&"post".to_owned()));
    for (model, why) in [
        ("chatty", "did not answer the JSON asked for"),
        ("huge", "larger than the cap of 4096 bytes"),
        ("slow", "no answer within 800ms"),
        ("missing", "HTTP 404: `The model does not exist`"),
    ] {
        let catalog =
            catalog().with_expander(Arc::new(ChatQueryExpander::new(settings(&url, model))));
        let answer = catalog.search(&accurate()).unwrap();
        let error = answer.metadata.expansion_error.as_deref().unwrap_or("");
        assert!(
            error.contains(why) && error.contains(&format!("chat model `{model}`")),
            "{model}: {error}"
        );
        assert!(!error.contains(KEY), "{error}");
        assert_eq!(answer.metadata.expanded_terms, synonyms, "{model}");
        assert_eq!(names(&answer)[0], "send_alert", "{model}: {answer:?}");
        assert!(!names(&answer).contains(&"resume_machine"), "{model}");
    }
    let wrong_key = ChatQueryExpander::new(ChatSettings::new(&url, "terms"));
    let error = wrong_key.expand(QUERY, None).unwrap_err().to_string();
    assert!(
        error.contains("HTTP 401: `Incorrect API key provided`"),
        "{error}"
    );
}

#[test]
fn the_models_scores_rerank_and_a_bad_answer_leaves_the_ranking_alone() {
    let (url, _server) = server();
    let model = model();
    let query = "tell the on-call people the virtual machine is back";
    let request = SearchRequest::new(query).with_mode(SearchMode::Accurate);

    let reranked = catalog()
        .with_embedder(model.clone())
        .with_reranker(Arc::new(ChatReranker::new(settings(&url, "terms"))));
    let answer = reranked.search(&request).unwrap();
    assert_eq!(answer.metadata.mode_used, SearchMode::Accurate);
    assert_eq!(answer.metadata.rerank_error, None);
    assert_eq!(names(&answer)[0], "resume_machine", "{answer:?}");
    let rerank = |result: &toolforge_catalog::SearchResult| {
        result
            .signals
            .iter()
            .find(|s| s.kind == SignalKind::Rerank)
            .map(|s| s.score)
    };
    assert_eq!(rerank(&answer.results[0]), Some(1.0));
    assert!(answer.results[1..].iter().all(|r| rerank(r) == Some(0.0)));

    let without = catalog()
        .with_embedder(model.clone())
        .search(&request)
        .unwrap();
    let failing = catalog()
        .with_embedder(model)
        .with_reranker(Arc::new(ChatReranker::new(settings(&url, "chatty"))));
    let answer = failing.search(&request).unwrap();
    let error = answer.metadata.rerank_error.as_deref().unwrap_or("");
    assert!(
        error.contains("did not answer the JSON asked for"),
        "{error}"
    );
    assert_eq!(names(&answer), names(&without));
    assert!(answer.results.iter().all(|r| rerank(r).is_none()));
}
