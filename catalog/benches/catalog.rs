//! The catalog's speed over 10,000 tools: `fast` search (BM25 over FTS5 with weighted columns)
//! against a linear scan of the same tools that counts query words in each tool's text (the
//! simplest search a registry could do, measured in the same run), and indexing throughput
//! (one complete listing of a source, written in one transaction).
//!
//! The tools are synthetic but shaped like real ones: a verb, an object and a service in the
//! name, a sentence of description, two parameters with descriptions.
//!
//! Run: `cargo bench -p toolforge-catalog --bench catalog`.

use std::sync::OnceLock;
use std::time::Instant;

use divan::Bencher;
use divan::counter::ItemsCount;
use serde_json::json;
use toolforge::ToolDefinition;
use toolforge_catalog::{Catalog, CatalogEntry, SearchRequest, Source, SourceKind};

const TOOLS: usize = 10_000;

const VERBS: [&str; 12] = [
    "get", "list", "create", "update", "delete", "search", "send", "read", "write", "export",
    "validate", "analyze",
];
const OBJECTS: [&str; 24] = [
    "message", "file", "issue", "invoice", "customer", "order", "ticket", "report", "image",
    "pipeline", "commit", "branch", "bucket", "cluster", "event", "user", "payment", "document",
    "table", "metric", "alert", "contact", "calendar", "forecast",
];
const SERVICES: [&str; 36] = [
    "slack",
    "github",
    "gitlab",
    "jira",
    "stripe",
    "s3",
    "gcs",
    "kubernetes",
    "postgres",
    "mysql",
    "salesforce",
    "hubspot",
    "zendesk",
    "notion",
    "drive",
    "dropbox",
    "figma",
    "linear",
    "sentry",
    "datadog",
    "pagerduty",
    "twilio",
    "sendgrid",
    "shopify",
    "airtable",
    "asana",
    "trello",
    "confluence",
    "bigquery",
    "snowflake",
    "redis",
    "kafka",
    "teams",
    "discord",
    "zoom",
    "okta",
];

/// Queries a user would type, each matching some of the tools.
const QUERIES: [&str; 8] = [
    "send a message to the team channel",
    "list open issues in the repository",
    "delete a file from the bucket",
    "create an invoice for a customer",
    "search documents about the quarterly report",
    "get the weather forecast",
    "analyze metrics and alerts",
    "update the calendar event",
];

fn tools() -> &'static Vec<CatalogEntry> {
    static TOOLS_LIST: OnceLock<Vec<CatalogEntry>> = OnceLock::new();
    TOOLS_LIST.get_or_init(|| {
        (0..TOOLS)
            .map(|i| {
                let verb = VERBS[i % VERBS.len()];
                let object = OBJECTS[(i / VERBS.len()) % OBJECTS.len()];
                let service = SERVICES[(i / (VERBS.len() * OBJECTS.len())) % SERVICES.len()];
                let definition: ToolDefinition = serde_json::from_value(json!({
                    "name": format!("{service}_{verb}_{object}_{i}"),
                    "description": format!(
                        "{verb} a {object} in {service}: the {object} is chosen by its id, \
                         and the answer says what changed"
                    ),
                    "input_schema": {"type": "object", "properties": {
                        "id": {"type": "string", "description": format!("The {object}'s id")},
                        "limit": {"type": "integer", "description": "How many at most"}
                    }, "required": ["id"]}
                }))
                .expect("a tool definition");
                definition.into()
            })
            .collect()
    })
}

fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        let catalog = Catalog::in_memory().expect("a catalog");
        catalog
            .index(&Source::new(SourceKind::Custom, "bench"), tools().clone())
            .expect("indexed");
        catalog
    })
}

/// The text the linear scan searches: name words and description, lower case.
fn texts() -> &'static Vec<String> {
    static TEXTS: OnceLock<Vec<String>> = OnceLock::new();
    TEXTS.get_or_init(|| {
        tools()
            .iter()
            .map(|entry| {
                let definition = &entry.definition;
                format!(
                    "{} {}",
                    definition.name.replace('_', " "),
                    definition.description
                )
                .to_lowercase()
            })
            .collect()
    })
}

fn main() {
    report_percentiles();
    divan::main();
}

/// p50 and p99 of `fast` search over 2,000 searches (divan reports medians and means).
fn report_percentiles() {
    let catalog = catalog();
    let mut times: Vec<f64> = (0..2_000)
        .map(|i| {
            let started = Instant::now();
            let response = catalog
                .search(&SearchRequest::fast(QUERIES[i % QUERIES.len()]).with_max_results(5))
                .expect("search");
            divan::black_box(response);
            started.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    println!(
        "fast search over {TOOLS} tools, 2000 searches: p50 {:.3} ms, p99 {:.3} ms",
        times[times.len() / 2],
        times[times.len() * 99 / 100]
    );
}

#[divan::bench]
fn fast_search(bencher: Bencher) {
    let catalog = catalog();
    let mut next = 0;
    bencher.bench_local(|| {
        next = (next + 1) % QUERIES.len();
        catalog
            .search(&SearchRequest::fast(QUERIES[next]).with_max_results(5))
            .expect("search")
    });
}

/// Baseline: every tool's text scanned for the query's words, the five with most kept.
#[divan::bench]
fn linear_word_scan(bencher: Bencher) {
    let texts = texts();
    let mut next = 0;
    bencher.bench_local(|| {
        next = (next + 1) % QUERIES.len();
        let words: Vec<&str> = QUERIES[next].split_whitespace().collect();
        let mut scored: Vec<(usize, usize)> = texts
            .iter()
            .enumerate()
            .map(|(i, text)| (words.iter().filter(|w| text.contains(*w)).count(), i))
            .filter(|(score, _)| *score > 0)
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.truncate(5);
        scored
    });
}

#[divan::bench(sample_count = 5)]
fn index_10000_tools(bencher: Bencher) {
    let tools = tools();
    bencher
        .counter(ItemsCount::new(TOOLS))
        .with_inputs(|| Catalog::in_memory().expect("a catalog"))
        .bench_local_values(|catalog| {
            catalog
                .index(&Source::new(SourceKind::Custom, "bench"), tools.clone())
                .expect("indexed")
        });
}
