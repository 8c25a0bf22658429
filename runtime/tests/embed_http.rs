//! The HTTP embedding providers against a real HTTP server on loopback that speaks OpenAI's
//! `POST /v1/embeddings` and Gemini's `POST /models/{model}:batchEmbedContents`, checks each
//! request (model, inputs, API key header) and answers with vectors derived from the text.
//!
//! The first path segment of each base URL picks the server's behaviour: `ok-*` answers
//! normally, `shuffled-*` sends OpenAI's `data` items in reverse order with their `index`,
//! `fail-*` answers 500 with a provider error message, `bad-*` answers malformed JSON and
//! `hang-*` never answers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use serde_json::{Value, json};
use toolforge::embed::{
    EmbedError, Embedder, EmbeddingProvider, EmbeddingSpec, Gemini, OpenAiCompatible, from_spec,
};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;

const OPENAI_KEY: &str = "openai-test-key";
const GEMINI_KEY: &str = "gemini-test-key";
const MODEL: &str = "test-embedder";
const DIMENSION: usize = 4;

/// The vector the server gives `text`: computed from its bytes, so each text gets its own.
fn vector_for(text: &str) -> Vec<f32> {
    let bytes = text.as_bytes();
    vec![
        bytes.len() as f32,
        bytes.iter().map(|&b| f32::from(b)).sum::<f32>(),
        bytes.first().copied().map_or(0.0, f32::from),
        bytes.iter().filter(|&&b| b == b'e').count() as f32,
    ]
}

/// Requests received, by behaviour tag: the number of texts in each.
#[derive(Default)]
struct Log {
    batches: Mutex<HashMap<String, Vec<usize>>>,
}

impl Log {
    fn record(&self, tag: &str, count: usize) {
        self.batches
            .lock()
            .unwrap()
            .entry(tag.to_owned())
            .or_default()
            .push(count);
    }

    fn batches(&self, tag: &str) -> Vec<usize> {
        self.batches
            .lock()
            .unwrap()
            .get(tag)
            .cloned()
            .unwrap_or_default()
    }
}

fn error(status: StatusCode, message: &str) -> (StatusCode, String) {
    (
        status,
        json!({"error": {"message": message, "code": status.as_u16()}}).to_string(),
    )
}

/// What the tag asks for before a well-formed answer: `None` to answer normally.
async fn misbehave(tag: &str) -> Option<(StatusCode, String)> {
    if tag.starts_with("fail") {
        return Some(error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the model is overloaded, try again later",
        ));
    }
    if tag.starts_with("bad") {
        return Some((
            StatusCode::OK,
            "{\"data\": [{\"embedding\": \"oops\"".to_owned(),
        ));
    }
    if tag.starts_with("hang") {
        tokio::time::sleep(Duration::from_secs(600)).await;
    }
    None
}

async fn openai(
    State(log): State<Arc<Log>>,
    Path(tag): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, String) {
    let auth = headers.get("authorization").and_then(|v| v.to_str().ok());
    if auth != Some(&format!("Bearer {OPENAI_KEY}")) {
        return error(StatusCode::UNAUTHORIZED, "Incorrect API key provided");
    }
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return error(StatusCode::BAD_REQUEST, "the body is not JSON");
    };
    if request["model"] != MODEL {
        return error(StatusCode::NOT_FOUND, "the model does not exist");
    }
    if request["encoding_format"] != "float" {
        return error(StatusCode::BAD_REQUEST, "encoding_format must be float");
    }
    let Some(inputs) = request["input"].as_array() else {
        return error(StatusCode::BAD_REQUEST, "input must be an array");
    };
    let Some(texts) = inputs.iter().map(Value::as_str).collect::<Option<Vec<_>>>() else {
        return error(StatusCode::BAD_REQUEST, "input items must be strings");
    };
    log.record(&tag, texts.len());
    if let Some(answer) = misbehave(&tag).await {
        return answer;
    }
    let mut data: Vec<Value> = texts
        .iter()
        .enumerate()
        .map(|(index, text)| {
            json!({"object": "embedding", "index": index, "embedding": vector_for(text)})
        })
        .collect();
    if tag.starts_with("shuffled") {
        data.reverse();
    }
    let answer = json!({"object": "list", "data": data, "model": MODEL,
                        "usage": {"prompt_tokens": 1, "total_tokens": 1}});
    (StatusCode::OK, answer.to_string())
}

async fn gemini(
    State(log): State<Arc<Log>>,
    Path((tag, call)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, String) {
    if call != format!("{MODEL}:batchEmbedContents") {
        return error(StatusCode::NOT_FOUND, "no such method");
    }
    let key = headers.get("x-goog-api-key").and_then(|v| v.to_str().ok());
    if key != Some(GEMINI_KEY) {
        return error(
            StatusCode::FORBIDDEN,
            "API key not valid. Please pass a valid API key.",
        );
    }
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return error(StatusCode::BAD_REQUEST, "the body is not JSON");
    };
    let Some(requests) = request["requests"].as_array() else {
        return error(StatusCode::BAD_REQUEST, "requests must be an array");
    };
    let mut texts = Vec::new();
    for item in requests {
        if item["model"] != format!("models/{MODEL}") {
            return error(StatusCode::BAD_REQUEST, "each request must name the model");
        }
        let Some(text) = item
            .pointer("/content/parts/0/text")
            .and_then(Value::as_str)
        else {
            return error(
                StatusCode::BAD_REQUEST,
                "each request needs content.parts[0].text",
            );
        };
        texts.push(text);
    }
    log.record(&tag, texts.len());
    if let Some(answer) = misbehave(&tag).await {
        return answer;
    }
    let embeddings: Vec<Value> = texts
        .iter()
        .map(|text| json!({"values": vector_for(text)}))
        .collect();
    (
        StatusCode::OK,
        json!({"embeddings": embeddings}).to_string(),
    )
}

struct Server {
    base: String,
    log: Arc<Log>,
}

/// The server, started once on a free loopback port, on its own thread.
fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| {
        let log = Arc::new(Log::default());
        let state = log.clone();
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                sender.send(listener.local_addr().unwrap()).unwrap();
                let app = Router::new()
                    .route("/{tag}/v1/embeddings", post(openai))
                    .route("/{tag}/models/{call}", post(gemini))
                    .with_state(state);
                axum::serve(listener, app).await.unwrap();
            });
        });
        let address = receiver.recv().unwrap();
        Server {
            base: format!("http://{address}"),
            log,
        }
    })
}

fn openai_client(tag: &str) -> OpenAiCompatible {
    OpenAiCompatible::new(
        &format!("{}/{tag}/v1", server().base),
        MODEL,
        Some(OPENAI_KEY.to_owned()),
    )
}

fn gemini_client(tag: &str) -> Gemini {
    Gemini::new(
        &format!("{}/{tag}", server().base),
        MODEL,
        GEMINI_KEY.to_owned(),
    )
}

fn texts(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("sentence number {i} about {}", "e".repeat(i % 7)))
        .collect()
}

fn deadline() -> Option<Instant> {
    Some(Instant::now() + Duration::from_secs(30))
}

fn expected(texts: &[&str]) -> Vec<Vec<f32>> {
    texts.iter().map(|text| vector_for(text)).collect()
}

#[test]
fn openai_vectors_come_back_in_order() {
    let owned = texts(5);
    let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
    let vectors = openai_client("ok-order").embed(&texts, deadline()).unwrap();
    assert_eq!(vectors, expected(&texts));
    assert_eq!(server().log.batches("ok-order"), vec![5]);
}

#[test]
fn openai_items_out_of_order_are_placed_by_their_index() {
    let owned = texts(6);
    let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
    let vectors = openai_client("shuffled-order")
        .embed(&texts, deadline())
        .unwrap();
    assert_eq!(vectors, expected(&texts));
}

#[test]
fn gemini_vectors_come_back_in_order() {
    let owned = texts(7);
    let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
    let vectors = gemini_client("ok-gemini")
        .embed(&texts, deadline())
        .unwrap();
    assert_eq!(vectors, expected(&texts));
    assert_eq!(server().log.batches("ok-gemini"), vec![7]);
}

#[test]
fn embed_all_sends_batches_of_the_batch_size() {
    let owned = texts(23);
    let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
    let mut progress = Vec::new();
    let client = openai_client("ok-batches").with_batch_size(10);
    let vectors =
        toolforge::embed::embed_all(&client, &texts, "docs", DIMENSION, deadline(), |n| {
            progress.push(n)
        })
        .unwrap();
    assert_eq!(vectors, expected(&texts));
    assert_eq!(server().log.batches("ok-batches"), vec![10, 10, 3]);
    assert_eq!(progress, vec![10, 20, 23]);

    let client = gemini_client("ok-gemini-batches").with_batch_size(4);
    let vectors =
        toolforge::embed::embed_all(&client, &texts, "docs", DIMENSION, deadline(), |_| {})
            .unwrap();
    assert_eq!(vectors, expected(&texts));
    assert_eq!(
        server().log.batches("ok-gemini-batches"),
        vec![4, 4, 4, 4, 4, 3]
    );
}

#[test]
fn an_error_status_carries_the_providers_message() {
    let error = openai_client("fail-status")
        .embed(&["hello"], deadline())
        .unwrap_err();
    match &error {
        EmbedError::Status {
            status, message, ..
        } => {
            assert_eq!(*status, 500);
            assert_eq!(message, "the model is overloaded, try again later");
        }
        other => panic!("expected a status error, got {other:?}"),
    }
    assert!(error.to_string().contains("fail-status"), "{error}");

    let wrong_key = OpenAiCompatible::new(
        &format!("{}/ok-wrong-key/v1", server().base),
        MODEL,
        Some("not-the-key".to_owned()),
    );
    match wrong_key.embed(&["hello"], deadline()).unwrap_err() {
        EmbedError::Status {
            status, message, ..
        } => assert_eq!(
            (status, message.as_str()),
            (401, "Incorrect API key provided")
        ),
        other => panic!("expected a status error, got {other:?}"),
    }

    let wrong_key = Gemini::new(
        &format!("{}/ok-gemini-wrong-key", server().base),
        MODEL,
        "nope".to_owned(),
    );
    match wrong_key.embed(&["hello"], deadline()).unwrap_err() {
        EmbedError::Status {
            status, message, ..
        } => {
            assert_eq!(status, 403);
            assert!(message.contains("API key not valid"), "{message}");
        }
        other => panic!("expected a status error, got {other:?}"),
    }
    match gemini_client("fail-gemini")
        .embed(&["hello"], deadline())
        .unwrap_err()
    {
        EmbedError::Status {
            status, message, ..
        } => assert_eq!(
            (status, message.as_str()),
            (500, "the model is overloaded, try again later")
        ),
        other => panic!("expected a status error, got {other:?}"),
    }
}

#[test]
fn a_malformed_answer_is_a_bad_answer() {
    let error = openai_client("bad-json")
        .embed(&["hello"], deadline())
        .unwrap_err();
    assert!(matches!(error, EmbedError::BadAnswer { .. }), "{error:?}");
    let error = gemini_client("bad-gemini")
        .embed(&["hello"], deadline())
        .unwrap_err();
    assert!(matches!(error, EmbedError::BadAnswer { .. }), "{error:?}");
}

#[test]
fn a_server_that_never_answers_is_stopped_by_the_deadline() {
    for client in [
        Box::new(openai_client("hang-openai")) as Box<dyn Embedder>,
        Box::new(gemini_client("hang-gemini")),
    ] {
        let started = Instant::now();
        let error = client
            .embed(&["hello"], Some(started + Duration::from_millis(300)))
            .unwrap_err();
        assert!(matches!(error, EmbedError::Stopped), "{error:?}");
        // Stopped at the deadline, not after the server's 600 s (a wide margin for a busy machine).
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
    }
    assert_eq!(server().log.batches("hang-openai"), vec![1]);
}

#[test]
fn a_missing_api_key_names_the_variable() {
    for provider in [EmbeddingProvider::OpenAi, EmbeddingProvider::Gemini] {
        let mut spec = EmbeddingSpec::new(provider);
        spec.api_key_env = Some("TOOLFORGE_EMBED_HTTP_TEST_KEY_THAT_IS_NEVER_SET".to_owned());
        spec.url = Some(format!("{}/ok-settings/v1", server().base));
        let error = from_spec(&spec).unwrap_err();
        assert!(matches!(error, EmbedError::Settings(_)), "{error:?}");
        assert!(
            error
                .to_string()
                .contains("`TOOLFORGE_EMBED_HTTP_TEST_KEY_THAT_IS_NEVER_SET`"),
            "{error}"
        );
    }
}

fn docs_spec() -> SchemaSpec {
    serde_json::from_value(json!({
        "name": "docs",
        "entities": [{
            "name": "Note", "table": "note", "unique_field": "key",
            "display_name_field": "key",
            "fields": [
                {"name": "key", "type": "string", "unique": true},
                {"name": "body", "type": "string"}
            ],
            "vector_indexes": [{"name": "body_vectors", "column": "body_embedding",
                                "source_field": "body", "dimension": DIMENSION}]
        }],
        "relationships": [],
        "tools": {"default_limit": 5, "max_limit": 50, "families": ["search"]}
    }))
    .unwrap()
}

fn import_notes(
    db: &Database,
    spec: &SchemaSpec,
    notes: &[(&str, &str)],
) -> Result<toolforge::sql::ImportStats, toolforge::sql::ImportError> {
    db.import(spec, |import| {
        for (key, body) in notes {
            let data = json!({"key": key, "body": body});
            import.entity("Note", data.as_object().unwrap())?;
        }
        Ok(())
    })
}

/// Every note as (key, body, whether it has a vector), by key.
fn notes(db: &Database) -> Vec<(String, String, bool)> {
    db.read_blocking(|conn| {
        let mut statement = conn
            .prepare("SELECT key, body, body_embedding IS NOT NULL FROM note ORDER BY key")
            .unwrap();
        statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap()
    })
    .unwrap()
}

#[test]
fn an_import_embeds_through_the_server_and_a_provider_failure_commits_nothing() {
    let spec = docs_spec();
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("notes.db")).unwrap();
    db.init(&spec).unwrap();

    let ok = db
        .clone()
        .with_embedder(Arc::new(openai_client("ok-import").with_batch_size(2)));
    let first = [
        ("a", "the first note"),
        ("b", "the second note"),
        ("c", "a third one"),
    ];
    let stats = import_notes(&ok, &spec, &first).unwrap();
    assert_eq!(stats.embeddings.embedded, 3);
    assert_eq!(server().log.batches("ok-import"), vec![2, 1]);
    let before = notes(&db);
    assert_eq!(
        before,
        vec![
            ("a".to_owned(), "the first note".to_owned(), true),
            ("b".to_owned(), "the second note".to_owned(), true),
            ("c".to_owned(), "a third one".to_owned(), true),
        ]
    );

    let failing = db
        .clone()
        .with_embedder(Arc::new(openai_client("fail-import")));
    let error = import_notes(
        &failing,
        &spec,
        &[("a", "an edited first note"), ("d", "a new note")],
    )
    .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("the model is overloaded, try again later"),
        "{error}"
    );
    assert_eq!(server().log.batches("fail-import"), vec![2]);
    assert_eq!(notes(&db), before);
}
