//! `toolforge serve` over the Chinook sample database as it is (SQLite, `tests/fixtures/
//! sample-databases/chinook`, MIT), seen by rmcp's client: tools, resources at the config's
//! URIs with integer keys, a prompt embedding a record, and completions of integer keys — each
//! compared with SQL on the file, which is byte-identical afterwards.

use std::path::Path;
use std::process::Stdio;

use rmcp::model::{
    CallToolRequestParams, ContentBlock, GetPromptRequestParams, ReadResourceRequestParams,
    ResourceContents,
};
use rmcp::service::{RoleClient, RunningService, ServiceExt};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

use crate::sample_databases::chinook_sqlite;

const CONFIG: &str = r#"
name: chinook
entities:
  - name: Artist
    table: Artist
    unique_field: ArtistId
    display_name_field: name
    searchable_fields:
      - {name: ArtistId, type: integer}
      - {name: name, column: Name, type: string}
  - name: Album
    table: Album
    unique_field: AlbumId
    display_name_field: title
    searchable_fields:
      - {name: AlbumId, type: integer}
      - {name: title, column: Title, type: string}
      - {name: ArtistId, type: integer}
    relationships:
      - {type: ARTIST, target: Artist, foreign_key: ArtistId}
toolforge:
  prompts:
    - name: review_artist
      description: Review one artist
      arguments:
        - {name: artist, description: "The artist's id", entity: Artist}
      messages:
        - resource: "chinook://artists/{{ artist }}"
        - text: "Review artist {{ artist }}."
  resources:
    entities:
      Artist: {uri: "chinook://artists/{id}", order_by: name ASC, listed: 3}
"#;

/// The first column of `sql`'s rows on the file at `db`, as text.
fn texts(db: &Path, sql: &str) -> Vec<String> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut statement = conn.prepare(sql).unwrap();
    statement
        .query_map([], |row| {
            Ok(match row.get::<_, rusqlite::types::Value>(0)? {
                rusqlite::types::Value::Integer(n) => n.to_string(),
                rusqlite::types::Value::Text(text) => text,
                other => format!("{other:?}"),
            })
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

async fn serve(config: &Path, db: &Path) -> RunningService<RoleClient, ()> {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolforge"));
    command
        .arg("serve")
        .arg("--config")
        .arg(config)
        .arg("--db")
        .arg(db);
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn toolforge serve");
    ().serve(transport).await.expect("handshake")
}

async fn read(client: &RunningService<RoleClient, ()>, uri: &str) -> String {
    let result = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap_or_else(|error| panic!("{uri}: {error}"));
    match result.contents.into_iter().next() {
        Some(ResourceContents::TextResourceContents { text, .. }) => text,
        other => panic!("{uri}: no text: {other:?}"),
    }
}

#[tokio::test]
async fn serve_offers_tools_resources_prompts_and_completions_over_chinook_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let db = chinook_sqlite(dir.path());
    let before = std::fs::read(&db).unwrap();
    let config = dir.path().join("chinook.yaml");
    std::fs::write(&config, CONFIG).unwrap();
    let client = serve(&config, &db).await;

    // A tool call, the key an integer.
    let mut arguments = serde_json::Map::new();
    arguments.insert("entity_type".into(), json!("Album"));
    arguments.insert("id_value".into(), json!(1));
    let answer = client
        .call_tool(CallToolRequestParams::new("get_entity_by_id").with_arguments(arguments))
        .await
        .unwrap();
    let record: Value = answer.structured_content.expect("structured answer");
    assert_eq!(record["record"]["AlbumId"], json!(1));
    assert_eq!(
        [record["record"]["title"].as_str().unwrap().to_owned()],
        *texts(&db, "SELECT Title FROM Album WHERE AlbumId = 1")
    );

    // Resources: the first three artists by name, at the config's URIs.
    let uris: Vec<String> = client
        .list_all_resources()
        .await
        .unwrap()
        .into_iter()
        .map(|resource| resource.uri.to_string())
        .filter(|uri| uri.starts_with("chinook://"))
        .collect();
    let expected: Vec<String> = texts(&db, "SELECT ArtistId FROM Artist ORDER BY Name LIMIT 3")
        .into_iter()
        .map(|id| format!("chinook://artists/{id}"))
        .collect();
    assert_eq!(uris, expected);
    let artist = read(&client, "chinook://artists/1").await;
    assert!(artist.contains("AC/DC"), "{artist}");

    // A prompt embedding a record by its integer key.
    let mut arguments = serde_json::Map::new();
    arguments.insert("artist".into(), "1".into());
    let prompt = client
        .get_prompt(GetPromptRequestParams::new("review_artist").with_arguments(arguments))
        .await
        .unwrap();
    match &prompt.messages[0].content {
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::TextResourceContents { text, .. } => {
                assert!(text.contains("AC/DC"), "{text}")
            }
            other => panic!("{other:?}"),
        },
        other => panic!("the first message embeds the artist: {other:?}"),
    }

    // Completions of an integer key, by its decimal prefix.
    let completed = client
        .complete_prompt_argument("review_artist", "artist", "27", None)
        .await
        .unwrap();
    assert_eq!(
        completed.values,
        texts(
            &db,
            "SELECT ArtistId FROM Artist WHERE CAST(ArtistId AS TEXT) LIKE '27%' \
             ORDER BY ArtistId LIMIT 100"
        )
    );
    assert!(!completed.values.is_empty());

    client.cancel().await.unwrap();
    assert_eq!(std::fs::read(&db).unwrap(), before);
}
