//! `full_text_search` at scale on both backends: the same documents in SQLite (FTS5) and in
//! PostgreSQL (the term tables that reproduce FTS5's ranking), a common and a rare word, top
//! 10 with snippets and the total. Before divan's groups it prints each backend's import time
//! and the p50 and p99 of 200 calls per word. Needs a server: run under
//! `scripts/with-postgres` (`TOOLFORGE_TEST_POSTGRES_URL`); without it every benchmark returns
//! at once. `TOOLFORGE_BENCH_DOCUMENTS` sets the count (default 1,000,000).
//!
//! Run: `scripts/with-postgres cargo bench -p toolforge-runtime --features postgres --bench
//! full_text_postgres`.

#[path = "../tests/pg_support/mod.rs"]
mod pg_support;

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::sql::tools::database_tools;
use toolforge::{Tool, ToolContext};

const VOCABULARY: usize = 20_000;

/// A word in most documents, and one in a few hundred of a million.
const WORDS: [(&str, usize); 2] = [("common", 2), ("rare", 15_000)];

fn main() {
    if let Some(setup) = setup() {
        for (backend, db) in [("SQLite", &setup.sqlite), ("PostgreSQL", &setup.postgres)] {
            let (tool, runtime) = searcher(db);
            for (name, rank) in WORDS {
                let mut times: Vec<Duration> = (0..200)
                    .map(|_| {
                        let started = Instant::now();
                        search(&tool, &runtime, rank);
                        started.elapsed()
                    })
                    .collect();
                times.sort();
                let total = search(&tool, &runtime, rank)["total"].clone();
                eprintln!(
                    "{backend}, {name} word ({total} documents): p50 {:.2} ms, p99 {:.2} ms",
                    times[100].as_secs_f64() * 1e3,
                    times[198].as_secs_f64() * 1e3
                );
            }
        }
    }
    divan::main();
}

fn count() -> usize {
    std::env::var("TOOLFORGE_BENCH_DOCUMENTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000_000)
}

fn spec() -> Arc<SchemaSpec> {
    Arc::new(
        serde_json::from_value(json!({
            "name": "bench",
            "entities": [{
                "name": "Doc", "table": "doc", "unique_field": "uuid", "display_name_field": "title",
                "fields": [
                    {"name": "uuid", "type": "string", "unique": true},
                    {"name": "title", "type": "string"},
                    {"name": "body", "type": "string"}
                ],
                "full_text": {"fields": [{"name": "title", "weight": 3.0}, {"name": "body", "weight": 1.0}]}
            }],
            "relationships": [],
            "tools": {"default_limit": 10, "max_limit": 100, "families": ["search"]}
        }))
        .expect("bench spec"),
    )
}

/// A made-up word for a vocabulary rank: syllables, so the stemmer sees word-like text.
fn word(rank: usize) -> String {
    const SYLLABLES: [&str; 16] = [
        "ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "ve", "da", "gu", "he", "jo", "bi", "fe",
        "wu",
    ];
    let mut n = rank + 16;
    let mut out = String::new();
    while n > 0 {
        out.push_str(SYLLABLES[n % 16]);
        n /= 16;
    }
    out
}

/// `words` words skewed towards frequent ones (roughly Zipf-like), from a xorshift stream.
fn text(state: &mut u64, words: usize) -> String {
    (0..words)
        .map(|_| {
            *state ^= *state << 13;
            *state ^= *state >> 7;
            *state ^= *state << 17;
            let u = (*state % 1_000_000) as f64 / 1_000_000.0;
            word(((VOCABULARY as f64) * u.powi(3)) as usize)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Imports the documents into `db` (initialised); returns the seconds it took.
fn fill(db: &Database, spec: &SchemaSpec) -> f64 {
    db.init(spec).expect("init");
    let started = Instant::now();
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    db.import(spec, |import| {
        for i in 0..count() {
            let data = json!({"uuid": format!("doc-{i:07}"), "title": text(&mut state, 6),
                              "body": text(&mut state, 20)});
            import.entity("Doc", data.as_object().expect("object"))?;
        }
        Ok(())
    })
    .expect("import");
    started.elapsed().as_secs_f64()
}

struct Setup {
    sqlite: Database,
    postgres: Database,
    _dir: tempfile::TempDir,
}

/// Both databases filled, or `None` without a server.
fn setup() -> Option<&'static Setup> {
    static SETUP: OnceLock<Option<Setup>> = OnceLock::new();
    SETUP
        .get_or_init(|| {
            let base = std::env::var("TOOLFORGE_TEST_POSTGRES_URL")
                .ok()
                .filter(|url| !url.is_empty())?;
            let spec = spec();
            let (postgres, url) = pg_support::fresh(&base, &format!("bench_fts_{}", count()));
            let seconds = fill(&postgres, &spec);
            pg_support::batch(&url, "ANALYZE");
            eprintln!(
                "PostgreSQL: {} documents imported in {seconds:.1} s",
                count()
            );
            let dir = tempfile::tempdir().expect("temporary folder");
            let sqlite = Database::open(dir.path().join("bench.db")).expect("open");
            let seconds = fill(&sqlite, &spec);
            eprintln!("SQLite: {} documents imported in {seconds:.1} s", count());
            Some(Setup {
                sqlite,
                postgres,
                _dir: dir,
            })
        })
        .as_ref()
}

/// The full_text_search tool over `db`, and a runtime to call it on.
fn searcher(db: &Database) -> (Arc<dyn Tool>, tokio::runtime::Runtime) {
    let tool = database_tools(db.spec_for(&spec()), db.clone())
        .into_iter()
        .find(|tool| tool.definition().name == "full_text_search")
        .expect("full_text_search");
    (tool, tokio::runtime::Runtime::new().unwrap())
}

/// The top 10 for the word of vocabulary rank `rank`.
fn search(tool: &Arc<dyn Tool>, runtime: &tokio::runtime::Runtime, rank: usize) -> Value {
    let arguments = json!({"entity_type": "Doc", "query": word(rank), "top_k": 10});
    let answer = runtime
        .block_on(tool.call(arguments, &ToolContext::new()))
        .expect("search");
    assert_eq!(answer["results"].as_array().map(Vec::len), Some(10));
    answer
}

fn bench(bencher: divan::Bencher, db: &Database, rank: usize) {
    let (tool, runtime) = searcher(db);
    bencher.bench_local(|| search(&tool, &runtime, rank));
}

#[divan::bench(args = [2, 15_000], sample_count = 50)]
fn sqlite_fts5(bencher: divan::Bencher, rank: usize) {
    let Some(setup) = setup() else { return };
    bench(bencher, &setup.sqlite, rank);
}

#[divan::bench(args = [2, 15_000], sample_count = 50)]
fn postgres_term_tables(bencher: divan::Bencher, rank: usize) {
    let Some(setup) = setup() else { return };
    bench(bencher, &setup.postgres, rank);
}
