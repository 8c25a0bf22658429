//! The catalog's index: no ghost postings after many re-indexings, stale tools pruned only
//! after a complete listing, BM25 search with its signals, filters and metadata.

use rusqlite::Connection;
use serde_json::json;
use toolforge::ToolDefinition;
use toolforge_catalog::{
    Catalog, CatalogEntry, SearchMode, SearchRequest, SignalKind, Source, SourceKind,
};

fn tool(name: &str, description: &str) -> CatalogEntry {
    let definition: ToolDefinition = serde_json::from_value(json!({
        "name": name,
        "description": description,
        "input_schema": {"type": "object", "properties": {
            "target": {"type": "string", "description": "What to act on"},
            "limit": {"type": ["integer", "null"]},
        }, "required": ["target"]},
    }))
    .unwrap();
    definition.into()
}

fn slack() -> Source {
    Source::new(SourceKind::Mcp, "slack")
}

fn listing(round: usize) -> Vec<CatalogEntry> {
    let mut tools = vec![
        tool("slack_send", "Send a message to a Slack channel"),
        tool(
            "slack_history",
            "Read the message history of a Slack channel",
        ),
        tool(
            "postgres_query",
            "Run a read-only SQL query on the PostgreSQL database",
        ),
        tool("read_file", "Read a file from the workspace"),
    ];
    // One tool changes its description every round: the update path runs too.
    tools.push(tool(
        "weather_forecast",
        &format!(
            "Get the weather forecast for a city (revision {})",
            round % 3
        ),
    ));
    tools
}

/// Rows of the FTS5 index's own tables: what ghost postings would grow.
fn fts_shadow_rows(path: &std::path::Path) -> (i64, i64, i64) {
    let connection = Connection::open(path).unwrap();
    let count = |sql: &str| {
        connection
            .query_row(sql, [], |row| row.get::<_, i64>(0))
            .unwrap()
    };
    connection
        .execute(
            "INSERT INTO tools_fts (tools_fts, rank) VALUES ('integrity-check', 1)",
            [],
        )
        .expect("the FTS index matches the tools table");
    (
        count("SELECT count(*) FROM tools"),
        count("SELECT count(*) FROM tools_fts_docsize"),
        count("SELECT sum(length(block)) FROM tools_fts_data"),
    )
}

#[test]
fn reindexing_many_times_leaves_no_ghost_postings() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("catalog.db");
    let catalog = Catalog::open(&path).unwrap();
    let request = SearchRequest::fast("send a slack message").with_max_results(10);
    catalog.index(&slack(), listing(0)).unwrap();
    let first = catalog.search(&request).unwrap();
    let first_ids: Vec<_> = first.results.iter().map(|r| r.id.clone()).collect();
    let first_scores: Vec<_> = first.results.iter().map(|r| r.confidence).collect();
    catalog.index(&slack(), listing(1)).unwrap();
    catalog.index(&slack(), listing(2)).unwrap();
    let (_, _, settled_bytes) = fts_shadow_rows(&path);
    for round in 3..63 {
        let report = catalog.index(&slack(), listing(round)).unwrap();
        assert_eq!((report.indexed, report.pruned), (5, 0));
    }
    let (tools, documents, bytes) = fts_shadow_rows(&path);
    assert_eq!((tools, documents), (5, 5), "one FTS document per tool");
    // Merges may reshuffle segments, but 60 rounds of ghosts would grow the index many times.
    assert!(
        bytes <= settled_bytes * 2,
        "the index grew from {settled_bytes} to {bytes} bytes"
    );
    let again = catalog.search(&request).unwrap();
    let again_ids: Vec<_> = again.results.iter().map(|r| r.id.clone()).collect();
    let again_scores: Vec<_> = again.results.iter().map(|r| r.confidence).collect();
    assert_eq!(again_ids, first_ids);
    assert_eq!(
        again_scores, first_scores,
        "BM25 statistics are those of the live tools only"
    );
    // A word only in a removed description is found nowhere.
    assert!(
        catalog
            .search(&SearchRequest::fast("revision 0 1"))
            .unwrap()
            .results
            .len()
            <= 1
    );
}

#[test]
fn stale_tools_are_pruned_after_a_complete_listing_only() {
    let catalog = Catalog::in_memory().unwrap();
    catalog.index(&slack(), listing(0)).unwrap();
    let other = Source::new(SourceKind::Custom, "mine");
    catalog
        .index(&other, [tool("deploy_app", "Deploy the app to Kubernetes")])
        .unwrap();
    let report = catalog
        .index(
            &slack(),
            [tool("slack_send", "Send a message to a Slack channel")],
        )
        .unwrap();
    assert_eq!((report.indexed, report.pruned), (1, 4));
    assert_eq!(catalog.len().unwrap(), 2, "the other source keeps its tool");
    assert!(
        catalog
            .search(&SearchRequest::fast("weather forecast"))
            .unwrap()
            .results
            .is_empty()
    );

    // A failed listing prunes nothing and marks the source unavailable.
    catalog
        .mark_unavailable(&slack(), "connection refused")
        .unwrap();
    assert_eq!(catalog.len().unwrap(), 2);
    let sources = catalog.sources().unwrap();
    let slack_info = sources.iter().find(|s| s.name == "slack").unwrap();
    assert!(!slack_info.available);
    assert_eq!(slack_info.tool_count, 1);
    assert_eq!(slack_info.status.as_deref(), Some("connection refused"));
    let mine = sources.iter().find(|s| s.name == "mine").unwrap();
    assert!(mine.available && mine.last_indexed.is_some());
    assert_eq!(mine.kind, SourceKind::Custom);

    // An empty complete listing removes everything of the source.
    let report = catalog.index(&other, []).unwrap();
    assert_eq!(report.pruned, 1);
    assert_eq!(catalog.len().unwrap(), 1);
}

#[test]
fn fast_search_ranks_by_weighted_bm25_and_explains_itself() {
    let catalog = Catalog::in_memory().unwrap();
    catalog.index(&slack(), listing(0)).unwrap();
    let answer = catalog
        .search(&SearchRequest::fast("post a message on slack").with_max_results(3))
        .unwrap();
    let first = &answer.results[0];
    assert!(first.name.starts_with("slack_"), "{:?}", answer.results);
    assert_eq!(first.source, SourceKind::Mcp);
    assert_eq!(first.server.as_deref(), Some("slack"));
    assert!(first.capabilities.contains(&"notification".to_owned()));
    assert!(first.confidence > 0.0 && first.confidence <= 1.0);
    assert!(
        first.match_reason.contains("slack"),
        "{}",
        first.match_reason
    );
    assert!(first.signals.iter().any(|s| s.kind == SignalKind::Bm25));
    assert!(
        first
            .signals
            .iter()
            .any(|s| s.kind == SignalKind::CapabilityMatch)
    );
    assert_eq!(first.parameters[0].name, "target");
    assert!(first.parameters[0].required);
    assert_eq!(first.parameters[1].kind, "integer|null");
    assert!(first.input_schema.is_none());
    let confidences: Vec<f64> = answer.results.iter().map(|r| r.confidence).collect();
    assert!(
        confidences.windows(2).all(|w| w[0] >= w[1]),
        "{confidences:?}"
    );
    assert_eq!(answer.metadata.total_indexed, 5);
    assert_eq!(answer.metadata.mode_used, SearchMode::Fast);
    assert!(answer.metadata.total_ms >= answer.metadata.retrieval_ms);

    // The name outweighs the description: a tool named for the word comes first.
    let answer = catalog.search(&SearchRequest::fast("history")).unwrap();
    assert_eq!(answer.results[0].name, "slack_history");
}

#[test]
fn filters_and_bad_requests() {
    let catalog = Catalog::in_memory().unwrap();
    catalog.index(&slack(), listing(0)).unwrap();
    catalog
        .index(
            &Source::new(SourceKind::Builtin, "core"),
            [tool("read_message_file", "Read a message file")],
        )
        .unwrap();
    let only_database = catalog
        .search(
            &SearchRequest::fast("read")
                .with_capability("database")
                .with_max_results(10),
        )
        .unwrap();
    let names: Vec<_> = only_database
        .results
        .iter()
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(names, ["postgres_query"]);
    let mut builtin_only = SearchRequest::fast("message").with_max_results(10);
    builtin_only.sources = vec![SourceKind::Builtin];
    let answer = catalog.search(&builtin_only).unwrap();
    assert_eq!(answer.results.len(), 1);
    assert_eq!(answer.results[0].id, "builtin:read_message_file");

    for bad in [
        SearchRequest::fast("   "),
        SearchRequest::fast("x").with_max_results(0),
        SearchRequest::fast("x").with_max_results(101),
        SearchRequest::fast("y".repeat(5000)),
    ] {
        let error = catalog.search(&bad).unwrap_err().to_string();
        assert!(!error.is_empty());
    }
    // FTS5 syntax in a query is only words: no error, no injection.
    let answer = catalog
        .search(&SearchRequest::fast("\"slack\" OR NEAR( * ^ -"))
        .unwrap();
    assert!(answer.results.iter().any(|r| r.name.starts_with("slack")));
    // `balanced` without a model says so and runs BM25.
    let answer = catalog.search(&SearchRequest::new("slack")).unwrap();
    assert_eq!(answer.metadata.mode_used, SearchMode::Fast);
    assert!(answer.metadata.note.is_some());
}

#[test]
fn a_catalog_file_is_reopened_with_its_tools_and_a_foreign_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("catalog.db");
    Catalog::open(&path)
        .unwrap()
        .index(&slack(), listing(0))
        .unwrap();
    let reopened = Catalog::open(&path).unwrap();
    assert_eq!(reopened.len().unwrap(), 5);
    assert_eq!(
        reopened.definition("slack_send").unwrap().unwrap().name,
        "slack_send"
    );
    assert!(reopened.definition("mcp:slack:nope").unwrap().is_none());
    let foreign = dir.path().join("foreign.db");
    std::fs::write(&foreign, b"not a database at all, just text").unwrap();
    assert!(Catalog::open(&foreign).is_err());
}

#[tokio::test]
async fn tool_search_answers_through_a_registry_in_loom_shape() {
    let catalog = std::sync::Arc::new(Catalog::in_memory().unwrap());
    catalog.index(&slack(), listing(0)).unwrap();
    let builder = toolforge::ToolRegistry::standard().unwrap();
    let registry = toolforge_catalog::ToolSearch::register(builder, catalog)
        .unwrap()
        .build();
    let definition = registry.get("tool_search").unwrap().definition().clone();
    let properties = &definition.input_schema["properties"];
    for key in [
        "query",
        "mode",
        "capabilities",
        "max_results",
        "task_context",
    ] {
        assert!(properties.get(key).is_some(), "{key}: {properties}");
    }
    let answer = registry
        .call(
            "tool_search",
            json!({"query": "weather in Paris", "mode": "fast", "max_results": 2}),
        )
        .await
        .unwrap();
    assert_eq!(answer["results"][0]["name"], "weather_forecast", "{answer}");
    assert_eq!(
        answer["results_count"],
        answer["results"].as_array().unwrap().len()
    );
    assert!(
        answer["results"][0]["confidence"]
            .as_str()
            .unwrap()
            .ends_with('%')
    );
    assert_eq!(answer["total_tools_indexed"], 5);
    // The answer is typed: it meets the output schema derived from `ToolSearchOutput`.
    let output_schema = definition.output_schema.expect("an output schema");
    let hit = &output_schema["$defs"]["ToolSearchHit"];
    assert_eq!(
        hit["properties"]["parameters"]["additionalProperties"]["type"], "string",
        "{output_schema}"
    );
    let validator = jsonschema::validator_for(&output_schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&answer)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}\n{answer}");
    let mut wrong = answer.clone();
    wrong["results"][0]["requires_approval"] = json!("no");
    assert!(
        !validator.is_valid(&wrong),
        "the schema says what each field holds"
    );
    let refused = registry
        .call("tool_search", json!({"query": "x", "max_results": 50}))
        .await
        .unwrap_err();
    assert_eq!(refused.code, toolforge::ErrorCode::InvalidArguments);
}

/// The tables of a catalog written before the index held its own description terms: the FTS
/// table indexed the shown description.
const OLD_LAYOUT: &str = r#"
CREATE TABLE tools (
    rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
    description TEXT NOT NULL, source TEXT NOT NULL, source_name TEXT NOT NULL, server TEXT,
    input_schema TEXT NOT NULL, output_schema TEXT, capabilities TEXT NOT NULL,
    keywords TEXT NOT NULL, parameters TEXT NOT NULL, name_terms TEXT NOT NULL,
    examples TEXT NOT NULL, version TEXT, requires_approval INTEGER NOT NULL,
    indexed_at TEXT NOT NULL, generation INTEGER NOT NULL, embedding_model TEXT, embedding BLOB
);
CREATE VIRTUAL TABLE tools_fts USING fts5(
    name_terms, description, capabilities, keywords, parameters,
    content='tools', content_rowid='rowid', tokenize='porter unicode61'
);
CREATE TRIGGER tools_fts_insert AFTER INSERT ON tools BEGIN
    INSERT INTO tools_fts (rowid, name_terms, description, capabilities, keywords, parameters)
    VALUES (new.rowid, new.name_terms, new.description, new.capabilities, new.keywords, new.parameters);
END;
CREATE TABLE sources (
    name TEXT PRIMARY KEY, kind TEXT NOT NULL, location TEXT,
    tool_count INTEGER NOT NULL DEFAULT 0, last_indexed TEXT, available INTEGER NOT NULL,
    status TEXT, generation INTEGER NOT NULL DEFAULT 0
);
INSERT INTO tools (id, name, description, source, source_name, server, input_schema,
    capabilities, keywords, parameters, name_terms, examples, requires_approval, indexed_at,
    generation)
VALUES ('mcp:slack:slack_send', 'slack_send', 'Send a message to the channel', 'mcp', 'slack',
    'slack', '{"type":"object","properties":{"channel":{"type":"string","description":"The channel"}}}',
    'notification', 'slack send channel', 'channel The channel', 'slack send', '[]', 0,
    '2026-01-01T00:00:00Z', 1);
"#;

#[test]
fn a_catalog_file_of_the_previous_layout_is_upgraded_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    Connection::open(&path)
        .unwrap()
        .execute_batch(OLD_LAYOUT)
        .unwrap();
    let catalog = Catalog::open(&path).unwrap();
    let answer = catalog.search(&SearchRequest::fast("message")).unwrap();
    assert_eq!(answer.results[0].id, "mcp:slack:slack_send");
    drop(catalog);
    let connection = Connection::open(&path).unwrap();
    let (terms, parameters): (String, String) = connection
        .query_row(
            "SELECT description_terms, parameters FROM tools",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    assert_eq!(terms, "send message channel");
    assert_eq!(parameters, "channel channel\n");
    // Writes after the upgrade keep the new index in sync (its triggers exist).
    let catalog = Catalog::open(&path).unwrap();
    catalog.index(&slack(), listing(1)).unwrap();
    let answer = catalog.search(&SearchRequest::fast("history")).unwrap();
    assert_eq!(answer.results[0].name, "slack_history");
    assert!(
        catalog
            .search(&SearchRequest::fast("workspace"))
            .unwrap()
            .results
            .iter()
            .all(|r| r.name == "read_file")
    );
}

#[test]
fn the_tool_count_follows_writes_of_another_connection() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("catalog.db");
    let reader = Catalog::open(&path).unwrap();
    assert_eq!(reader.len().unwrap(), 0);
    let writer = Catalog::open(&path).unwrap();
    writer.index(&slack(), listing(0)).unwrap();
    assert_eq!(reader.len().unwrap(), 5);
    let answer = reader.search(&SearchRequest::fast("slack")).unwrap();
    assert_eq!(answer.metadata.total_indexed, 5);
    reader
        .index(&slack(), listing(0).into_iter().take(2))
        .unwrap();
    assert_eq!(reader.len().unwrap(), 2);
    assert_eq!(writer.len().unwrap(), 2);
}

/// A varied catalog: shared and rare words, camelCase names, numbers, accented words, tools
/// with long and short texts.
fn varied_listing(round: usize, tools: usize) -> Vec<CatalogEntry> {
    const VERBS: [&str; 7] = ["get", "list", "send", "delete", "export", "analyze", "sync"];
    const OBJECTS: [&str; 9] = [
        "message",
        "file",
        "invoice",
        "café menu",
        "naïve forecast",
        "pipeline",
        "ticket",
        "report",
        "calendar event",
    ];
    const SERVICES: [&str; 5] = ["slack", "github", "stripe", "s3", "okta"];
    (0..tools)
        .filter(|i| !(i + round).is_multiple_of(11))
        .map(|i| {
            let verb = VERBS[i % VERBS.len()];
            let object = OBJECTS[(i / 3 + round) % OBJECTS.len()];
            let service = SERVICES[(i / 7) % SERVICES.len()];
            let name = if i % 4 == 0 {
                format!("{service}{}{}V{i}", &verb[..1].to_uppercase(), &verb[1..])
            } else {
                format!("{service}_{verb}_{}_{i}", object.replace(' ', "_"))
            };
            let extra = " with retries, paging and a deadline".repeat(i % 3);
            tool(&name, &format!("{verb} the {object} in {service}{extra}"))
        })
        .collect()
}

/// FTS5's own ranking of an OR query of `words`: (id, score), best first, ties by rowid.
fn fts_ranking(path: &std::path::Path, words: &[&str], limit: usize) -> Vec<(String, f64)> {
    let connection = Connection::open(path).unwrap();
    let expression = words
        .iter()
        .map(|w| format!("\"{w}\""))
        .collect::<Vec<_>>()
        .join(" OR ");
    let mut statement = connection
        .prepare(
            "SELECT t.id, -bm25(tools_fts, 2.0, 1.0, 1.0, 1.0, 1.0) AS score
             FROM tools_fts JOIN tools t ON t.rowid = tools_fts.rowid
             WHERE tools_fts MATCH ?1 ORDER BY score DESC, tools_fts.rowid LIMIT ?2",
        )
        .unwrap();
    let mut ranking: Vec<(String, f64)> = statement
        .query_map(rusqlite::params![expression, limit as i64], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    ranking.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    ranking
}

/// The search's ranking: (id, BM25 signal), best first.
fn search_ranking(catalog: &Catalog, query: &str, limit: usize) -> Vec<(String, f64)> {
    let answer = catalog
        .search(&SearchRequest::fast(query).with_max_results(limit))
        .unwrap();
    answer
        .results
        .into_iter()
        .map(|result| {
            let bm25 = result
                .signals
                .iter()
                .find(|signal| signal.kind == SignalKind::Bm25)
                .map(|signal| signal.score)
                .unwrap();
            (result.id, bm25)
        })
        .collect()
}

#[test]
fn search_scores_equal_fts5_bm25_bit_for_bit_through_reindexing_and_other_writers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("catalog.db");
    let catalog = Catalog::open(&path).unwrap();
    let other = Catalog::open(&path).unwrap();
    let queries: [&[&str]; 9] = [
        &["message"],
        &["send", "message", "slack"],
        &["messages", "message", "sending"],
        &["café", "menu"],
        &["naive", "forecasts"],
        &["deadline", "retries", "paging", "invoice", "stripe"],
        &["slackgetv0", "githubsyncv28"],
        &["calendar", "events", "okta", "analyze", "analysis"],
        &["nothingmatchesthis"],
    ];
    let mut compared = 0;
    for round in 0..4 {
        // Rounds alternate writers: this catalog's own writes, then another connection's.
        let writer = if round % 2 == 0 { &catalog } else { &other };
        writer
            .index(&slack(), varied_listing(round, 600 + 50 * round))
            .unwrap();
        writer
            .index(&Source::new(SourceKind::Custom, "extra"), listing(round))
            .unwrap();
        for words in queries {
            for limit in [1, 5, 30, 100] {
                let expected = fts_ranking(&path, words, limit);
                let found = search_ranking(&catalog, &words.join(" "), limit);
                assert_eq!(
                    found, expected,
                    "round {round}, query {words:?}, limit {limit}"
                );
                compared += found.len();
            }
        }
    }
    assert!(compared > 2_000, "only {compared} results compared");
}

#[test]
fn a_tool_listed_twice_keeps_its_last_definition() {
    let catalog = Catalog::in_memory().unwrap();
    let report = catalog
        .index(
            &slack(),
            [
                tool("slack_send", "Send a message (first listing)"),
                tool("slack_history", "Read the history"),
                tool("slack_send", "Post a note to a channel (second listing)"),
            ],
        )
        .unwrap();
    assert_eq!((report.indexed, report.pruned), (2, 0));
    assert_eq!(catalog.len().unwrap(), 2);
    let definition = catalog.definition("mcp:slack:slack_send").unwrap().unwrap();
    assert_eq!(
        definition.description,
        "Post a note to a channel (second listing)"
    );
    // The index holds the last definition's words only.
    let found = |query: &str| {
        catalog
            .search(&SearchRequest::fast(query))
            .unwrap()
            .results
            .into_iter()
            .map(|r| r.name)
            .collect::<Vec<_>>()
    };
    assert_eq!(found("note"), ["slack_send"]);
    assert!(found("first").is_empty());
}
