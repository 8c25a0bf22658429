//! `toolforge serve` offers resources, prompts and completions through rmcp's client: read
//! through the tools under the caller's row rules, with the config's URIs, order and prompts.

use std::path::Path;
use std::process::Stdio;

use rmcp::model::{
    ClientConfig, ContentBlock, GetPromptRequestParams, ProtocolVersion, ReadResourceRequestParams,
    ResourceContents,
};
use rmcp::service::{RoleClient, RunningService, ServiceError, ServiceExt};
use rmcp::transport::TokioChildProcess;

const CONFIG: &str = r##"
name: library
entities:
  - name: Member
    unique_field: memberId
    display_name_field: name
    searchable_fields:
      - {name: memberId, type: string}
      - {name: name, type: string}
      - {name: status, type: enum, values: [active, suspended, archived]}
  - name: Loan
    unique_field: loanId
    searchable_fields:
      - {name: loanId, type: string}
      - {name: title, type: string}
      - {name: branch, type: string}
toolforge:
  access:
    Loan: "branch = :context.branch"
  prompts:
    - name: review_member
      description: Review one member
      arguments:
        - {name: member, description: "The member's id", entity: Member}
      messages:
        - resource: "library://members/{{ member }}"
        - text: "Review member {{ member }}."
    - name: list_members
      description: List members in an order
      arguments:
        - {name: order, field_of: Member}
        - {name: status, values_of: Member.status, required: false}
      template: "List the {{ status or 'all' }} members by {{ order }}."
  resources:
    entities:
      Member: {uri: "library://members/{id}", order_by: name DESC, listed: 2}
    documents:
      - {uri: "library://guide", name: guide, mime_type: text/markdown, text: "# How loans work"}
"##;

const DATA: &str = r#"{"entity": "Member", "data": {"memberId": "m1", "name": "Ann", "status": "active"}}
{"entity": "Member", "data": {"memberId": "m2", "name": "Bob"}}
{"entity": "Member", "data": {"memberId": "m3", "name": "Cy"}}
{"entity": "Loan", "data": {"loanId": "l1", "title": "Dune", "branch": "north"}}
{"entity": "Loan", "data": {"loanId": "l2", "title": "Emma", "branch": "south"}}
{"entity": "Loan", "data": {"loanId": "l3", "title": "Faust", "branch": "north"}}
"#;

/// A 2025-11-25 client that keeps the URIs of `notifications/resources/updated`.
#[derive(Clone, Default)]
struct Client {
    updated: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl rmcp::ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::default().with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.updated.lock().unwrap().push(params.uri);
    }
}

fn run(args: &[&str], config: &Path, db: &Path, extra: Option<&Path>) {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_toolforge"));
    command
        .args(args)
        .arg("--config")
        .arg(config)
        .arg("--db")
        .arg(db);
    if let Some(extra) = extra {
        command.arg(extra);
    }
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `toolforge serve` on a seeded library, the caller's branch `north`.
async fn serve(dir: &Path) -> RunningService<RoleClient, Client> {
    serve_with(dir, Client::default()).await
}

async fn serve_with(dir: &Path, client: Client) -> RunningService<RoleClient, Client> {
    let config = dir.join("library.yaml");
    let db = dir.join("library.db");
    let data = dir.join("library.jsonl");
    std::fs::write(&config, CONFIG).unwrap();
    std::fs::write(&data, DATA).unwrap();
    run(&["db", "init"], &config, &db, None);
    run(&["db", "import"], &config, &db, Some(&data));
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolforge"));
    command
        .arg("serve")
        .arg("--config")
        .arg(&config)
        .arg("--db")
        .arg(&db)
        .args(["--context", "branch=LIBRARY_BRANCH"])
        .env("LIBRARY_BRANCH", "north");
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn toolforge serve");
    client.serve(transport).await.expect("handshake")
}

async fn read(client: &RunningService<RoleClient, Client>, uri: &str) -> Result<String, String> {
    match client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
    {
        Ok(result) => match result.contents.into_iter().next() {
            Some(ResourceContents::TextResourceContents { text, .. }) => Ok(text),
            other => Err(format!("no text: {other:?}")),
        },
        Err(ServiceError::McpError(error)) => Err(error.message.to_string()),
        Err(error) => panic!("{uri}: {error}"),
    }
}

#[tokio::test]
async fn resources_follow_the_configs_uris_order_and_the_callers_rules() {
    let dir = tempfile::tempdir().unwrap();
    let client = serve(dir.path()).await;
    let uris: Vec<String> = client
        .list_all_resources()
        .await
        .unwrap()
        .into_iter()
        .map(|resource| resource.uri.to_string())
        .collect();
    assert_eq!(
        uris,
        [
            "library://guide",
            "toolforge://schema",
            "library://members/m3",
            "library://members/m2",
            "toolforge://Loan/l1",
            "toolforge://Loan/l3",
        ],
        "two members, by name descending; the loans of the caller's branch only"
    );
    assert_eq!(
        read(&client, "library://guide").await.unwrap(),
        "# How loans work"
    );
    let member = read(&client, "library://members/m1").await.unwrap();
    assert!(member.starts_with("# Member Ann (m1)"), "{member}");
    let loan = read(&client, "toolforge://Loan/l1?format=json")
        .await
        .unwrap();
    let loan: serde_json::Value = serde_json::from_str(&loan).unwrap();
    assert_eq!(loan["title"], "Dune");
    let hidden = read(&client, "toolforge://Loan/l2").await.unwrap_err();
    assert!(
        hidden.contains("there is no resource `toolforge://Loan/l2`"),
        "{hidden}"
    );
    let unknown = read(&client, "library://members").await.unwrap_err();
    assert!(
        unknown.contains("is not a resource of this server"),
        "{unknown}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn prompts_embed_records_and_completions_respect_the_rules() {
    let dir = tempfile::tempdir().unwrap();
    let client = serve(dir.path()).await;
    let mut arguments = serde_json::Map::new();
    arguments.insert("member".into(), "m2".into());
    let prompt = client
        .get_prompt(GetPromptRequestParams::new("review_member").with_arguments(arguments))
        .await
        .unwrap();
    match &prompt.messages[0].content {
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::TextResourceContents { uri, text, .. } => {
                assert_eq!(uri, "library://members/m2");
                assert!(text.contains("Bob"), "{text}");
            }
            other => panic!("{other:?}"),
        },
        other => panic!("the first message embeds the member: {other:?}"),
    }
    // An argument cannot reach another resource: it is encoded into the URI's id.
    let mut arguments = serde_json::Map::new();
    arguments.insert("member".into(), "../guide".into());
    let refused = client
        .get_prompt(GetPromptRequestParams::new("review_member").with_arguments(arguments))
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("library://members/..%2Fguide"),
        "{refused}"
    );

    let members = client
        .complete_prompt_argument("review_member", "member", "m", None)
        .await
        .unwrap();
    assert_eq!(members.values, ["m1", "m2", "m3"]);
    let loans = client
        .complete_resource_argument("toolforge://Loan/{id}", "id", "l", None)
        .await
        .unwrap();
    assert_eq!(loans.values, ["l1", "l3"], "l2 is another branch's");
    let entities = client
        .complete_prompt_argument("explore_entity", "entity", "l", None)
        .await
        .unwrap();
    assert_eq!(entities.values, ["Loan"]);
    let fields = client
        .complete_prompt_argument("list_members", "order", "", None)
        .await
        .unwrap();
    assert_eq!(fields.values, ["memberId", "name", "status"]);
    let statuses = client
        .complete_prompt_argument("list_members", "status", "A", None)
        .await
        .unwrap();
    assert_eq!(statuses.values, ["active", "archived"]);
    let mut arguments = serde_json::Map::new();
    arguments.insert("order".into(), "title".into());
    let refused = client
        .get_prompt(GetPromptRequestParams::new("list_members").with_arguments(arguments))
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains(
            "`title` is not a value of the argument `order`; use one of: memberId, name, status"
        ),
        "{refused}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
#[allow(deprecated)] // resources/subscribe: the 2025-11-25 way, which this client speaks
async fn an_import_that_changes_a_subscribed_record_is_notified() {
    let dir = tempfile::tempdir().unwrap();
    let client = Client::default();
    let updated = client.updated.clone();
    let running = serve_with(dir.path(), client).await;
    for uri in ["library://members/m1", "library://members/m2"] {
        running
            .subscribe(rmcp::model::SubscribeRequestParams::new(uri))
            .await
            .unwrap();
    }
    running
        .unsubscribe(rmcp::model::UnsubscribeRequestParams::new(
            "library://members/m2",
        ))
        .await
        .unwrap();
    let change = dir.path().join("change.jsonl");
    std::fs::write(
        &change,
        "{\"entity\": \"Member\", \"data\": {\"memberId\": \"m1\", \"name\": \"Anne\"}}\n\
         {\"entity\": \"Member\", \"data\": {\"memberId\": \"m2\", \"name\": \"Bobby\"}}\n",
    )
    .unwrap();
    run(
        &["db", "import"],
        &dir.path().join("library.yaml"),
        &dir.path().join("library.db"),
        Some(&change),
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while updated.lock().unwrap().is_empty() && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    // Two more watch intervals: no notification for the record unsubscribed from.
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    assert_eq!(*updated.lock().unwrap(), ["library://members/m1"]);
    let member = read(&running, "library://members/m1").await.unwrap();
    assert!(member.starts_with("# Member Anne (m1)"), "{member}");
    running.cancel().await.unwrap();
}
