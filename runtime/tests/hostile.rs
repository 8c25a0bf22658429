//! Random hostile arguments through every tool family, for a fixed budget of calls
//! (`TOOLFORGE_HOSTILE_CASES`, default 400): arguments shaped by each tool's own input schema
//! (so they reach the handlers), with leaves drawn from what breaks programs (megabyte texts,
//! regex and glob bombs, NUL, huge numbers and offsets, thousands of conditions, deep nesting,
//! unknown names), over data holding megabyte values and a graph. Every call must:
//!
//! - answer, or fail with a structured error that is not a caught panic,
//! - within its deadline (400 ms) plus a slack for what follows the deadline (writing the
//!   error, dropping the connection's statement),
//! - with the memory live during the call (counted by this binary's allocator) under 96 MB,
//!
//! the process's peak resident memory must stay under 512 MB (SQLite's own memory included),
//! and the data must be unchanged at the end. A failing case prints its seed:
//! `TOOLFORGE_HOSTILE_SEED=<seed> cargo test -p toolforge-runtime --test hostile` replays it.
#![cfg(feature = "sqlite")]

mod alloc_support;
mod sql_fixtures;

use std::sync::Arc;
use std::time::{Duration, Instant};

use alloc_support::Counting;
use serde_json::{Map, Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::{CallLimits, ErrorCode, ToolRegistry};

const DEADLINE: Duration = Duration::from_millis(400);
const SLACK: Duration = Duration::from_millis(1_600);
const MEMORY_BOUND: usize = 96 << 20;
const PROCESS_BOUND: usize = 512 << 20;

/// The fixture spec with every family, full text and change tracking on `Scope`.
fn spec() -> SchemaSpec {
    let mut spec = serde_json::to_value(sql_fixtures::code_rag_spec()).unwrap();
    spec["tools"]["families"] = json!([
        "schema",
        "query",
        "lookup",
        "relationships",
        "search",
        "ranges",
        "patterns",
        "aggregates",
        "graph",
        "changes"
    ]);
    let scope = &mut spec["entities"][0];
    scope["full_text"] =
        json!({"fields": [{"name": "name", "weight": 2.0}, {"name": "source", "weight": 1.0}]});
    scope["change_tracking"] = json!({"content_field": "source"});
    spec["change_log"] = json!({"max_changes_per_record": 10});
    serde_json::from_value(spec).expect("the hostile spec deserialises")
}

/// The seed records, two megabyte values, a non-ASCII one, and a chain of 2,000 scopes.
fn lines() -> String {
    let mut lines = sql_fixtures::seed_lines();
    for (id, source) in [
        ("big-ab-1", "ab".repeat(500_000)),
        ("big-ab-2", "ab".repeat(500_000)),
        ("big-e", "é".repeat(150_000)),
    ] {
        lines.push(json!({"entity": "Scope", "data": {"uuid": id, "name": id, "source": source}}));
    }
    for i in 0..2_000 {
        lines.push(json!({"entity": "Scope", "data": {"uuid": format!("c{i}"), "name": format!("chain{i}"), "source": "x"}}));
    }
    for i in 1..2_000 {
        lines.push(json!({"relationship": "CONSUMES", "from": {"entity": "Scope", "id": format!("c{}", i - 1)}, "to": {"entity": "Scope", "id": format!("c{i}")}}));
    }
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// SplitMix64: a small deterministic generator, so a seed replays a case; with the bytes of
/// large text one call's arguments may still hold.
struct Rng(u64, usize, Mood);

/// How hostile one call's arguments are: wild calls break the schema anywhere, mild calls keep
/// its shape and put the hostile values where the handlers read them.
#[derive(Clone, Copy, PartialEq)]
enum Mood {
    Wild,
    Mild,
}

/// Large text and long arrays one call's arguments hold at most: what an MCP request can carry
/// (the HTTP server refuses bodies over 4 MiB).
const LARGE_TEXT_BUDGET: usize = 3 << 20;

/// What a long array's item is charged against the call's budget: nested long arrays would
/// otherwise multiply into arguments of tens of megabytes, far past what a request carries.
const LONG_ARRAY_ITEM_BYTES: usize = 256;

impl Rng {
    /// Whether the call's budget still allows `bytes` more (then charged).
    fn afford(&mut self, bytes: usize) -> bool {
        if bytes > self.1 {
            return false;
        }
        self.1 -= bytes;
        true
    }

    /// `text` if the call's budget of large text allows it, else a short hostile text.
    fn large(&mut self, text: impl FnOnce() -> String, bytes: usize) -> String {
        if bytes > self.1 {
            return "(?:a|b){1,5000}c".to_owned();
        }
        self.1 -= bytes;
        text()
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Text that breaks programs, and names that reach deep into the handlers.
fn hostile_text(rng: &mut Rng, names: &[String]) -> String {
    match rng.below(26) {
        0 => rng.large(|| "a".repeat(1 << 20), 1 << 20),
        1 => "(?:a|b){1,5000}c".to_owned(),
        2 => rng.large(|| format!("*{}b*", "a".repeat(20_000)), 20_000),
        3 => rng.large(|| "*a".repeat(5_000), 10_000),
        4 => "\u{0}".to_owned(),
        5 => rng.large(|| "é".repeat(50_000), 100_000),
        6 => r"\b(?:a|b){1,400}\b".to_owned(),
        7 => "'; DROP TABLE scope; --".to_owned(),
        8 => [
            "9999-12-31",
            "0000-00-00",
            "2024-02-30T25:61:61Z",
            "-271821-04-20",
        ][rng.below(4)]
        .to_owned(),
        9 => [
            "", " ", "\u{FEFF}", "🦀", "[", "\\", "%", "_", "\"", "NaN", "1e400",
        ][rng.below(11)]
        .to_owned(),
        10 => rng.large(|| "(".repeat(10_000), 10_000),
        11 => "\"unterminated phrase".to_owned(),
        12 | 13 => ["c0", "c1999", "s1", "big-ab-1", "f1", "src/main.ts"][rng.below(6)].to_owned(),
        14 | 15 => "source".to_owned(),
        _ => rng.pick(names).clone(),
    }
}

fn hostile_number(rng: &mut Rng) -> Value {
    match rng.below(12) {
        0 => json!(0),
        1 => json!(-1),
        2 => json!(1),
        3 => json!(i64::MAX),
        4 => json!(u64::MAX),
        5 => json!(1e308),
        6 => json!(-1e308),
        7 => json!(0.5),
        8 => json!(1u64 << 53),
        9 => json!(100_000),
        10 => json!(12),
        _ => json!(rng.below(20)),
    }
}

fn hostile_leaf(rng: &mut Rng, names: &[String]) -> Value {
    match rng.below(10) {
        0..=4 => Value::String(hostile_text(rng, names)),
        5 | 6 => hostile_number(rng),
        7 => json!(rng.chance(50)),
        8 => Value::Null,
        _ => {
            // Deep nesting, as deep as JSON text a server parses can be (serde_json stops at
            // 128 levels).
            let mut value = json!(1);
            for _ in 0..rng.below(120) {
                value = json!([value]);
            }
            value
        }
    }
}

/// A value for `schema` (resolved against `root`), hostile at times.
fn generate(rng: &mut Rng, schema: &Value, root: &Value, names: &[String], depth: usize) -> Value {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let target = reference
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
            .cloned()
            .unwrap_or(Value::Null);
        return generate(rng, &target, root, names, depth + 1);
    }
    let wild = rng.2 == Mood::Wild;
    if depth > 12 || rng.chance(if wild { 8 } else { 1 }) {
        return hostile_leaf(rng, names);
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(choices)) = schema.get(key)
            && !choices.is_empty()
        {
            let choice = rng.pick(choices).clone();
            return generate(rng, &choice, root, names, depth + 1);
        }
    }
    if let Some(Value::Array(values)) = schema.get("enum")
        && !values.is_empty()
    {
        return rng.pick(values).clone();
    }
    if let Some(constant) = schema.get("const") {
        return constant.clone();
    }
    let kind = match schema.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        Some(Value::Array(kinds)) if !kinds.is_empty() => {
            rng.pick(kinds).as_str().unwrap_or("null").to_owned()
        }
        _ => "any".to_owned(),
    };
    match kind.as_str() {
        "object" => {
            let mut object = Map::new();
            if let Some(Value::Object(properties)) = schema.get("properties") {
                let required: Vec<&str> = schema
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|names| names.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                for (name, property) in properties {
                    if required.contains(&name.as_str()) && !wild || rng.chance(60) {
                        object.insert(
                            name.clone(),
                            generate(rng, property, root, names, depth + 1),
                        );
                    }
                }
            }
            if wild && rng.chance(5) {
                object.insert(hostile_text(rng, names), hostile_leaf(rng, names));
            }
            Value::Object(object)
        }
        "array" => {
            let items = schema.get("items").cloned().unwrap_or(json!({}));
            let length = match rng.below(if wild { 10 } else { 40 }) {
                0 => {
                    let long = 200 + rng.below(3_000);
                    if rng.afford(long * LONG_ARRAY_ITEM_BYTES) {
                        long
                    } else {
                        1 + rng.below(4)
                    }
                }
                1 => 0,
                _ => 1 + rng.below(4),
            };
            Value::Array(
                (0..length)
                    .map(|_| generate(rng, &items, root, names, depth + 1))
                    .collect(),
            )
        }
        "string" if !wild && rng.chance(50) => Value::String(rng.pick(names).clone()),
        "string" => Value::String(hostile_text(rng, names)),
        "integer" | "number" if !wild && rng.chance(80) => {
            let low = schema.get("minimum").and_then(Value::as_i64).unwrap_or(0);
            let high = schema
                .get("maximum")
                .and_then(Value::as_i64)
                .unwrap_or(low + 20)
                .min(low + 20);
            json!(low + rng.below((high - low + 1).max(1) as usize) as i64)
        }
        "integer" | "number" => hostile_number(rng),
        "boolean" => json!(rng.chance(50)),
        _ => hostile_leaf(rng, names),
    }
}

/// The names a model would use: entities, fields, relationships, operators, tools.
fn names(spec: &SchemaSpec, registry: &ToolRegistry) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for entity in &spec.entities {
        names.push(entity.name.clone());
        names.extend(entity.fields.iter().map(|field| field.name.clone()));
        names.extend(
            entity
                .computed_fields
                .iter()
                .map(|field| field.name.clone()),
        );
    }
    names.extend(spec.relationships.iter().map(|r| r.rel_type.clone()));
    names.extend(registry.definitions().iter().map(|d| d.name.clone()));
    names
}

/// One call's arguments: `batch` gets calls of other tools, each shaped by its tool's schema.
fn arguments(rng: &mut Rng, registry: &ToolRegistry, tool: &str, names: &[String]) -> Value {
    let definitions = registry.definitions();
    let shaped = |rng: &mut Rng, name: &str| {
        let schema = &registry.get(name).unwrap().definition().input_schema;
        generate(rng, schema, schema, names, 0)
    };
    if tool == "batch" {
        let calls: Vec<Value> = (0..1 + rng.below(16))
            .map(|_| {
                let other = &rng.pick(&definitions).name;
                json!({"tool": other, "args": shaped(rng, other)})
            })
            .collect();
        return json!({ "calls": calls });
    }
    shaped(rng, tool)
}

#[test]
fn hostile_arguments_are_answered_within_the_deadline_and_a_memory_bound() {
    let dir = tempfile::tempdir().unwrap();
    let spec = Arc::new(spec());
    let db = Database::open(dir.path().join("hostile.db")).unwrap();
    db.init(&spec).unwrap();
    db.import_jsonl(&spec, lines().as_bytes()).unwrap();
    let before = sql_fixtures::dump(&db);
    let registry = toolforge::sql::tools::register_database_tools(
        ToolRegistry::standard().unwrap(),
        spec.clone(),
        db.clone(),
    )
    .unwrap()
    .with_limits(CallLimits::default().timeout(Some(DEADLINE)))
    .build();
    let names = names(&spec, &registry);
    let tools: Vec<String> = registry
        .definitions()
        .iter()
        .map(|d| d.name.clone())
        .collect();
    let families = toolforge::spec::ToolFamily::ALL.len();
    assert!(tools.len() > 2 * families, "{tools:?}");
    let cases: u64 = std::env::var("TOOLFORGE_HOSTILE_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(400);
    let seeds: Vec<u64> = match std::env::var("TOOLFORGE_HOSTILE_SEED") {
        Ok(seed) => vec![seed.parse().expect("a seed")],
        Err(_) => (0..cases).map(|case| 0x7001_F0E6 + case).collect(),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (mut answered, mut refused, mut timed_out) = (0, 0, 0);
    let replay = seeds.len() == 1;
    for seed in seeds {
        let mood = if seed % 2 == 0 {
            Mood::Wild
        } else {
            Mood::Mild
        };
        let mut rng = Rng(seed, LARGE_TEXT_BUDGET, mood);
        // Every tool in turn, wild and mild.
        let tool = tools[(seed as usize / 2) % tools.len()].clone();
        let arguments = arguments(&mut rng, &registry, &tool, &names);
        let shown = {
            let text: String = arguments.to_string().chars().take(300).collect();
            format!("seed {seed}, {tool} {text}")
        };
        let live = Counting::start();
        let started = Instant::now();
        let outcome = runtime.block_on(registry.call(&tool, arguments));
        let took = started.elapsed();
        let peak = Counting::peak_above(live);
        assert!(took < DEADLINE + SLACK, "{shown}: took {took:?}");
        assert!(
            peak < MEMORY_BOUND,
            "{shown}: {peak} bytes live at the peak"
        );
        match outcome {
            Ok(_) => answered += 1,
            Err(error) => {
                assert_ne!(error.code, ErrorCode::Panicked, "{shown}: {error}");
                assert!(!error.message.is_empty(), "{shown}");
                if error.code == ErrorCode::Timeout {
                    timed_out += 1;
                } else {
                    refused += 1;
                }
            }
        }
    }
    eprintln!(
        "hostile calls: {answered} answered, {refused} refused, {timed_out} timed out \
         (deadline {DEADLINE:?})"
    );
    assert!(
        replay || answered > 0 && refused > 0,
        "the arguments reach both outcomes"
    );
    assert_eq!(
        sql_fixtures::dump(&db),
        before,
        "a tool call changed the data"
    );
    // The whole process too (SQLite's own memory included), where the system reports it.
    if let Ok(status) = std::fs::read_to_string("/proc/self/status")
        && let Some(kilobytes) = status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|rest| {
                rest.trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<usize>()
                    .ok()
            })
    {
        eprintln!(
            "hostile calls: the process peaked at {} MB resident",
            kilobytes >> 10
        );
        assert!(
            kilobytes << 10 < PROCESS_BOUND,
            "the process peaked at {kilobytes} kB resident"
        );
    }
}
