//! The vision's last tools at scale, on SQLite:
//!
//! - `find_clusters` (Louvain) over a call graph of 200,000 records and 1,000,000 edges, against
//!   `rank_entities` PageRank over the same graph (the same load, another in-memory algorithm);
//!   a counting allocator reports the peak memory of the first call (which loads the graph),
//!   over every thread.
//! - `find_near` within 10 km over 1,000,000 places, through the coordinate indexes, against a
//!   hand-written full scan computing every distance (the same registered function).
//! - `join_entities` of three hops (person → company → city → country) against the same
//!   question as one hand-written statement.
//!
//! Run: `cargo bench -p toolforge-runtime --bench vision_tools`.

use std::sync::{Arc, OnceLock};

use divan::Bencher;
use serde_json::{Map, Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::tools::database_tools;
use toolforge::sql::{Database, EndPoint};
use toolforge::{Tool, ToolContext};

/// The tests' counting allocator (the bytes live over every thread, and the peak).
#[path = "../tests/alloc_support/mod.rs"]
mod alloc_support;
use alloc_support::Counting;

/// Runs `f` and reports the most memory held above what was held before it.
fn peak_of<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let before = Counting::start();
    let out = f();
    let peak = Counting::peak_above(before);
    let kept = Counting::live().saturating_sub(before);
    eprintln!(
        "{what}: peak {:.1} MB above the start, {:.1} MB still held after",
        peak as f64 / 1e6,
        kept as f64 / 1e6
    );
    out
}

const FUNCTIONS: usize = 200_000;
const CALLS_PER_FUNCTION: usize = 5;
const PLACES: usize = 1_000_000;
const PEOPLE: usize = 100_000;
const COMPANIES: usize = 10_000;
const CITIES: usize = 1_000;
const COUNTRIES: usize = 50;

fn main() {
    divan::main();
}

fn spec() -> SchemaSpec {
    let entity = |name: &str, table: &str, extra: Value| {
        let mut fields = vec![json!({"name": "uuid", "type": "string", "unique": true})];
        fields.extend(extra.as_array().cloned().unwrap_or_default());
        json!({"name": name, "table": table, "unique_field": "uuid", "fields": fields})
    };
    serde_json::from_value(json!({
        "name": "bench",
        "entities": [
            entity("Function", "function", json!([{"name": "name", "type": "string"}])),
            entity("Store", "store", json!([{"name": "location", "type": "point"}])),
            entity("Person", "person", json!([{"name": "age", "type": "number"}])),
            entity("Company", "company", json!([])),
            entity("City", "city", json!([])),
            entity("Country", "country", json!([{"name": "name", "type": "string"}]))
        ],
        "relationships": [
            {"type": "CALLS", "source": "Function", "target": "Function", "table": "function__calls__function"},
            {"type": "WORKS_AT", "source": "Person", "target": "Company", "table": "person__works_at__company"},
            {"type": "LOCATED_IN", "source": "Company", "target": "City", "table": "company__located_in__city"},
            {"type": "IN_COUNTRY", "source": "City", "target": "Country", "table": "city__in_country__country"}
        ],
        "tools": {"default_limit": 20, "max_limit": 500,
                  "families": ["graph", "places", "relationships"]}
    }))
    .expect("spec")
}

struct Fixture {
    _dir: tempfile::TempDir,
    db: Database,
    tools: Vec<Arc<dyn Tool>>,
    runtime: tokio::runtime::Runtime,
}

/// A deterministic pseudo-random sequence (xorshift), so every run builds the same data.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn end(entity: &str, id: String) -> EndPoint {
    EndPoint {
        entity: entity.into(),
        id,
    }
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let spec = Arc::new(spec());
        let db = Database::open(dir.path().join("bench.db")).expect("open");
        db.init(&spec).expect("init");
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let empty = Map::new();
        db.import(&spec, |import| {
            for i in 0..FUNCTIONS {
                let mut function = Map::new();
                function.insert("uuid".into(), json!(format!("fn-{i:06}")));
                function.insert("name".into(), json!(format!("function_{i}")));
                import.entity("Function", &function)?;
            }
            for i in 0..FUNCTIONS {
                for _ in 0..CALLS_PER_FUNCTION {
                    // Calls stay mostly within a module of 200 functions, a few cross over.
                    let module = i / 200;
                    let to = if next(&mut state) % 10 < 8 {
                        module * 200 + (next(&mut state) % 200) as usize
                    } else {
                        (next(&mut state) % FUNCTIONS as u64) as usize
                    };
                    import.relationship(
                        "CALLS",
                        &end("Function", format!("fn-{i:06}")),
                        &end("Function", format!("fn-{to:06}")),
                        &empty,
                    )?;
                }
            }
            for i in 0..PLACES {
                // Between 60° south and 70° north, everywhere in longitude.
                let latitude = (next(&mut state) % 13_000_000) as f64 / 100_000.0 - 60.0;
                let longitude = (next(&mut state) % 36_000_000) as f64 / 100_000.0 - 180.0;
                let mut store = Map::new();
                store.insert("uuid".into(), json!(format!("st-{i:07}")));
                store.insert(
                    "location".into(),
                    json!({"latitude": latitude, "longitude": longitude}),
                );
                import.entity("Store", &store)?;
            }
            for i in 0..COUNTRIES {
                let mut country = Map::new();
                country.insert("uuid".into(), json!(format!("co-{i:02}")));
                country.insert("name".into(), json!(format!("country {i}")));
                import.entity("Country", &country)?;
            }
            for i in 0..CITIES {
                let mut city = Map::new();
                city.insert("uuid".into(), json!(format!("ci-{i:04}")));
                import.entity("City", &city)?;
                let country = next(&mut state) as usize % COUNTRIES;
                import.relationship(
                    "IN_COUNTRY",
                    &end("City", format!("ci-{i:04}")),
                    &end("Country", format!("co-{country:02}")),
                    &empty,
                )?;
            }
            for i in 0..COMPANIES {
                let mut company = Map::new();
                company.insert("uuid".into(), json!(format!("cm-{i:05}")));
                import.entity("Company", &company)?;
                let city = next(&mut state) as usize % CITIES;
                import.relationship(
                    "LOCATED_IN",
                    &end("Company", format!("cm-{i:05}")),
                    &end("City", format!("ci-{city:04}")),
                    &empty,
                )?;
            }
            for i in 0..PEOPLE {
                let mut person = Map::new();
                person.insert("uuid".into(), json!(format!("pe-{i:06}")));
                person.insert("age".into(), json!(18 + next(&mut state) % 60));
                import.entity("Person", &person)?;
                let company = next(&mut state) as usize % COMPANIES;
                import.relationship(
                    "WORKS_AT",
                    &end("Person", format!("pe-{i:06}")),
                    &end("Company", format!("cm-{company:05}")),
                    &empty,
                )?;
            }
            Ok(())
        })
        .expect("build the tables");
        let tools = database_tools(spec, db.clone());
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .expect("runtime");
        Fixture {
            _dir: dir,
            db,
            tools,
            runtime,
        }
    })
}

fn call(name: &str, arguments: &Value) -> Value {
    let f = fixture();
    let tool = f
        .tools
        .iter()
        .find(|t| t.definition().name == name)
        .expect("tool");
    f.runtime
        .block_on(tool.call(arguments.clone(), &ToolContext::new()))
        .unwrap_or_else(|error| panic!("{name} {arguments}: {}", error.to_json()))
}

// ---- clusters over 1,000,000 edges ----

#[divan::bench(sample_count = 3, sample_size = 1)]
fn find_clusters_one_million_edges(bencher: Bencher) {
    let arguments = json!({"entity_type": "Function", "relationships": ["CALLS"], "limit": 10});
    fixture();
    let answer = peak_of("find_clusters, first call (loads the graph)", || {
        call("find_clusters", &arguments)
    });
    eprintln!(
        "find_clusters: {} clusters, modularity {}",
        answer["total"], answer["modularity"]
    );
    bencher.bench(|| call("find_clusters", &arguments));
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn rank_entities_pagerank_one_million_edges(bencher: Bencher) {
    let arguments = json!({"entity_type": "Function", "relationship_type": "CALLS", "limit": 10});
    peak_of("rank_entities pagerank, the graph loaded", || {
        call("rank_entities", &arguments)
    });
    bencher.bench(|| call("rank_entities", &arguments));
}

// ---- places: find_near over 1,000,000 points ----

/// The places asked about, cycled through by the benchmarks.
const CENTERS: [(f64, f64); 8] = [
    (48.8566, 2.3522),
    (-33.8688, 151.2093),
    (40.7128, -74.006),
    (35.6762, 139.6503),
    (-23.5505, -46.6333),
    (64.1466, -21.9426),
    (1.3521, 103.8198),
    (-17.7134, 178.065),
];

const RADIUS_KM: f64 = 50.0;

#[divan::bench(sample_count = 40, sample_size = 8)]
fn find_near_within_50_km(bencher: Bencher) {
    fixture();
    let mut i = 0;
    bencher.bench_local(|| {
        let (latitude, longitude) = CENTERS[i % CENTERS.len()];
        i += 1;
        call(
            "find_near",
            &json!({"entity_type": "Store", "field": "location", "latitude": latitude,
                    "longitude": longitude, "radius_km": RADIUS_KM, "limit": 20}),
        )
    });
}

/// The same question without the index: every place's distance computed, the nearest kept.
fn full_scan(conn: &rusqlite::Connection, latitude: f64, longitude: f64) -> Vec<String> {
    let mut statement = conn
        .prepare_cached(
            "SELECT \"uuid\", \"location\" FROM (SELECT \"uuid\", \"location\", \
             toolforge_distance_km(json_extract(\"location\", '$.latitude'), \
             json_extract(\"location\", '$.longitude'), ?1, ?2) AS \"d\" FROM \"store\") \
             WHERE \"d\" <= ?3 ORDER BY \"d\", \"uuid\" LIMIT 21",
        )
        .expect("prepare");
    statement
        .query_map(rusqlite::params![latitude, longitude, RADIUS_KM], |row| {
            row.get(0)
        })
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows")
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn find_near_hand_written_full_scan(bencher: Bencher) {
    let f = fixture();
    for (latitude, longitude) in CENTERS {
        let by_hand =
            f.db.read_blocking(|conn| full_scan(conn, latitude, longitude))
                .expect("a SQLite read");
        let answer = call(
            "find_near",
            &json!({"entity_type": "Store", "field": "location", "latitude": latitude,
                    "longitude": longitude, "radius_km": RADIUS_KM, "limit": 21}),
        );
        let ids: Vec<&str> = answer["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|r| r["record"]["uuid"].as_str().expect("uuid"))
            .collect();
        assert_eq!(ids, by_hand, "around {latitude}, {longitude}");
    }
    let mut i = 0;
    bencher.bench_local(|| {
        let (latitude, longitude) = CENTERS[i % CENTERS.len()];
        i += 1;
        f.db.read_blocking(|conn| full_scan(conn, latitude, longitude))
            .expect("a SQLite read")
    });
}

// ---- join_entities: three hops ----

fn join_arguments() -> Value {
    json!({
        "start_entity_type": "Person",
        "start_conditions": [{"field": "age", "operator": ">=", "value": 70}],
        "hops": [
            {"relationship_type": "WORKS_AT", "direction": "outgoing"},
            {"relationship_type": "LOCATED_IN", "direction": "outgoing"},
            {"relationship_type": "IN_COUNTRY", "direction": "outgoing",
             "conditions": [{"field": "name", "operator": "=", "value": "country 7"}]}
        ],
        "limit": 500
    })
}

/// The same question by hand: the people of 70 and over working in a company of a city of
/// country 7, with the ids of the path, in the order of the path.
fn hand_join(conn: &rusqlite::Connection) -> Vec<(String, String, String, String)> {
    let mut statement = conn
        .prepare_cached(
            "SELECT p.\"uuid\", w.\"target_id\", l.\"target_id\", c.\"uuid\", c.\"name\" \
             FROM \"person\" AS p \
             JOIN \"person__works_at__company\" AS w ON w.\"source_id\" = p.\"uuid\" \
             JOIN \"company__located_in__city\" AS l ON l.\"source_id\" = w.\"target_id\" \
             JOIN \"city__in_country__country\" AS i ON i.\"source_id\" = l.\"target_id\" \
             JOIN \"country\" AS c ON c.\"uuid\" = i.\"target_id\" \
             WHERE p.\"age\" >= ?1 AND c.\"name\" = ?2 ORDER BY 1, 2, 3, 4 LIMIT 501",
        )
        .expect("prepare");
    statement
        .query_map(rusqlite::params![70, "country 7"], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows")
}

#[divan::bench(sample_count = 30, sample_size = 4)]
fn join_entities_three_hops(bencher: Bencher) {
    let arguments = join_arguments();
    let answer = call("join_entities", &arguments);
    let f = fixture();
    let by_hand = f.db.read_blocking(hand_join).expect("a SQLite read");
    let paths: Vec<(String, String, String, String)> = answer["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|row| {
            let id = |i: usize| row["path"][i].as_str().expect("id").to_owned();
            (id(0), id(1), id(2), id(3))
        })
        .collect();
    assert!(!paths.is_empty() && paths.len() < 500, "{}", paths.len());
    assert_eq!(paths, by_hand);
    bencher.bench(|| call("join_entities", &arguments));
}

#[divan::bench(sample_count = 30, sample_size = 4)]
fn join_hand_written_three_hops(bencher: Bencher) {
    let f = fixture();
    bencher.bench(|| f.db.read_blocking(hand_join).expect("a SQLite read"));
}
