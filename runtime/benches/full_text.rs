//! Full-text search benchmarks: `full_text_search` over 100,000 documents (title and body,
//! BM25 with weights, top 10 with snippets and the total) against the same FTS5 statements
//! written by hand with rusqlite, in the same run.
//!
//! Run: `cargo bench -p toolforge-runtime --bench full_text`.

use std::sync::{Arc, OnceLock};

use divan::Bencher;
use serde_json::{Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::sql::tools::DatabaseTool;

const DOCUMENTS: usize = 100_000;
const VOCABULARY: usize = 20_000;

/// Two-word queries of words of middling frequency (each matches a few hundred documents).
const QUERIES: [&str; 4] = [
    "word-120 word-340",
    "word-75 word-900",
    "word-210 word-55",
    "word-400 word-160",
];

fn main() {
    divan::main();
}

fn spec() -> SchemaSpec {
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
    .expect("bench spec")
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

/// The word a query names as `word-<rank>`.
fn query_text(query: &str) -> String {
    query
        .split(' ')
        .map(|w| word(w.trim_start_matches("word-").parse().expect("rank")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A pseudo-random stream (xorshift), so every run builds the same documents.
struct Stream(u64);

impl Stream {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A vocabulary rank, skewed towards frequent words (roughly Zipf-like).
    fn rank(&mut self) -> usize {
        let u = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        ((VOCABULARY as f64) * u.powi(3)) as usize
    }

    fn text(&mut self, words: usize) -> String {
        (0..words)
            .map(|_| word(self.rank()))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    spec: Arc<SchemaSpec>,
    db: Database,
    runtime: tokio::runtime::Runtime,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let spec = Arc::new(spec());
        let db = Database::open(dir.path().join("bench.db")).expect("open");
        db.init(&spec).expect("init");
        let started = std::time::Instant::now();
        let mut stream = Stream(0x9E37_79B9_7F4A_7C15);
        db.import(&spec, |import| {
            for i in 0..DOCUMENTS {
                let data = json!({
                    "uuid": format!("doc-{i:06}"),
                    "title": stream.text(6),
                    "body": stream.text(60),
                });
                import.entity("Doc", data.as_object().expect("object"))?;
            }
            Ok(())
        })
        .expect("build the documents");
        eprintln!(
            "indexed {DOCUMENTS} documents in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        for query in QUERIES {
            let text = query_text(query);
            let total = db
                .read_blocking(|conn| {
                    conn.query_row(
                        "SELECT count(*) FROM doc__fts WHERE doc__fts MATCH ?1",
                        [fts5(&text)],
                        |row| row.get::<_, i64>(0),
                    )
                })
                .expect("read")
                .expect("count");
            eprintln!("{query} ({text}) matches {total} documents");
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .expect("runtime");
        Fixture {
            _dir: dir,
            spec,
            db,
            runtime,
        }
    })
}

/// The FTS5 query for plain words, quoted by hand.
fn fts5(text: &str) -> String {
    text.split(' ')
        .map(|w| format!("\"{w}\""))
        .collect::<Vec<_>>()
        .join(" AND ")
}

/// The baseline: the ranked top 10 with id, title and snippet (one statement), and the
/// total, written by hand.
fn hand_search(
    conn: &rusqlite::Connection,
    text: &str,
) -> (i64, Vec<(String, String, f64, String)>) {
    let query = fts5(text);
    let mut top = conn
        .prepare_cached(
            "SELECT n.uuid, n.title, bm25(doc__fts, 3.0, 1.0) AS score, \
             snippet(doc__fts, -1, '**', '**', '…', 24) FROM doc__fts JOIN doc AS n \
             ON n.rowid = doc__fts.rowid WHERE doc__fts MATCH ?1 ORDER BY score, n.uuid LIMIT 10",
        )
        .expect("prepare");
    let hits: Vec<(String, String, f64, String)> = top
        .query_map([&query], |r| {
            Ok((r.get(0)?, r.get(1)?, -r.get::<_, f64>(2)?, r.get(3)?))
        })
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    let total = conn
        .query_row(
            "SELECT count(*) FROM doc__fts WHERE doc__fts MATCH ?1",
            [&query],
            |r| r.get(0),
        )
        .expect("count");
    (total, hits)
}

#[divan::bench(args = QUERIES)]
fn hand_written_fts5_baseline(bencher: Bencher, query: &str) {
    let f = fixture();
    let text = query_text(query);
    bencher.bench(|| {
        f.db.read_blocking(|conn| hand_search(conn, &text))
            .expect("read")
    });
}

#[divan::bench(args = QUERIES)]
fn full_text_search_tool(bencher: Bencher, query: &str) {
    let f = fixture();
    let arguments = json!({"entity_type": "Doc", "query": query_text(query), "top_k": 10});
    bencher.bench(|| {
        let answer: Value = f
            .runtime
            .block_on(DatabaseTool::FullTextSearch.call(
                f.spec.clone(),
                f.db.clone(),
                arguments.clone(),
            ))
            .expect("search");
        answer
    });
}
