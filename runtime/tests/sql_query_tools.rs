//! Differential tests of the range, pattern, aggregate and graph tools: random rows, edges and
//! arguments; every answer is compared with an evaluation written independently in Rust and,
//! with a PostgreSQL server (`TOOLFORGE_TEST_POSTGRES_URL`), with the same call on PostgreSQL
//! over the same data.
#![cfg(feature = "sqlite")]
// The oracles index their tables as the textbook formulas do.
#![allow(clippy::needless_range_loop)]

#[cfg(feature = "postgres")]
use crate::pg_support;

use std::cmp::Ordering;
use std::sync::Arc;

use jiff::Timestamp;
use proptest::prelude::*;
use serde_json::{Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::sql::tools::database_tools;
use toolforge::{Tool, ToolContext};

const KINDS: [&str; 3] = ["alpha", "beta", "gamma"];
const ALPHABET: [char; 6] = ['a', 'b', 'c', 'A', 'B', 'é'];

fn spec() -> SchemaSpec {
    serde_json::from_value(json!({
        "name": "query-tools",
        "entities": [{
            "name": "Item", "table": "item", "unique_field": "uuid", "display_name_field": "name",
            "fields": [
                {"name": "uuid", "type": "string", "unique": true},
                {"name": "name", "type": "string"},
                {"name": "score", "type": "number"},
                {"name": "kind", "type": "enum", "values": KINDS},
                {"name": "at", "type": "datetime"}
            ],
            "computed_fields": [
                {"name": "double", "type": "number", "source": "score * 2", "sql": "(\"n\".\"score\" * 2)"},
                {"name": "seen", "type": "datetime", "source": "at", "sql": "\"n\".\"at\""}
            ]
        }],
        "relationships": [
            {"source": "Item", "type": "LINKS", "target": "Item", "table": "item__links__item"}
        ],
        "tools": {"default_limit": 10, "max_limit": 50,
                  "families": ["ranges", "patterns", "aggregates", "graph"]}
    }))
    .unwrap()
}

#[derive(Debug, Clone)]
struct Row {
    uuid: String,
    name: Option<String>,
    /// Half-units: score = half / 2, exact in f64.
    half: Option<i64>,
    kind: Option<&'static str>,
    /// Seconds since the epoch.
    at: Option<i64>,
}

fn datetime(seconds: i64) -> String {
    Timestamp::from_second(seconds).unwrap().to_string()
}

fn number(x: f64) -> Value {
    if x.fract() == 0.0 {
        json!(x as i64)
    } else {
        json!(x)
    }
}

impl Row {
    fn score(&self) -> Option<f64> {
        self.half.map(|h| h as f64 / 2.0)
    }

    fn number(&self, field: &str) -> Option<f64> {
        match field {
            "score" => self.score(),
            "double" => self.score().map(|s| s * 2.0),
            other => panic!("no number field {other}"),
        }
    }

    fn data(&self) -> Value {
        let mut data = json!({"uuid": self.uuid});
        if let Some(name) = &self.name {
            data["name"] = json!(name);
        }
        if let Some(score) = self.score() {
            data["score"] = number(score);
        }
        if let Some(kind) = self.kind {
            data["kind"] = json!(kind);
        }
        if let Some(at) = self.at {
            let zoned = Timestamp::from_second(at)
                .unwrap()
                .to_zoned(jiff::tz::TimeZone::fixed(jiff::tz::offset(-4)));
            data["at"] = json!(zoned.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string());
        }
        data
    }
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(ALPHABET.to_vec()), 0..5)
        .prop_map(|chars| chars.into_iter().collect())
}

/// Times around the turn of three months of 2021, some on the same day.
fn rows() -> impl Strategy<Value = Vec<Row>> {
    prop::collection::vec(
        (
            prop::option::weighted(0.9, text()),
            prop::option::weighted(0.85, -10i64..10),
            prop::option::weighted(0.85, prop::sample::select(KINDS.to_vec())),
            prop::option::weighted(0.85, 0i64..240),
        ),
        0..25,
    )
    .prop_map(|items| {
        items
            .into_iter()
            .enumerate()
            .map(|(i, (name, half, kind, at))| Row {
                uuid: format!("id{:02}", (i * 7) % 29),
                name,
                half,
                kind,
                at: at.map(|hours| 1_612_137_600 + hours * 9 * 3600),
            })
            .collect()
    })
}

fn edges(count: usize) -> impl Strategy<Value = Vec<(usize, usize)>> {
    prop::collection::vec((0..count.max(1), 0..count.max(1)), 0..(count * 2 + 1))
}

/// The tools over the same rows and edges on SQLite and, when a server is given, PostgreSQL.
struct Fixture {
    _dir: tempfile::TempDir,
    sqlite: Vec<Arc<dyn Tool>>,
    postgres: Option<(Vec<Arc<dyn Tool>>, Shared)>,
    runtime: tokio::runtime::Runtime,
}

fn lines(rows: &[Row], edges: &[(String, String)]) -> String {
    let mut out = String::new();
    for row in rows {
        out.push_str(&format!(
            "{}\n",
            json!({"entity": "Item", "data": row.data()})
        ));
    }
    for (from, to) in edges {
        out.push_str(&format!(
            "{}\n",
            json!({"relationship": "LINKS", "from": {"entity": "Item", "id": from},
                   "to": {"entity": "Item", "id": to}})
        ));
    }
    out
}

/// The one PostgreSQL database of this test process (when a server is given), held by one
/// fixture at a time.
type Shared = std::sync::MutexGuard<'static, ()>;

#[cfg(feature = "postgres")]
fn postgres_tools(spec: &Arc<SchemaSpec>, lines: &str) -> Option<(Vec<Arc<dyn Tool>>, Shared)> {
    static DB: std::sync::OnceLock<Option<(Database, String)>> = std::sync::OnceLock::new();
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let (db, url) = DB
        .get_or_init(|| {
            let base = std::env::var("TOOLFORGE_TEST_POSTGRES_URL")
                .ok()
                .filter(|url| !url.is_empty())?;
            Some(pg_support::fresh(&base, "query_tools"))
        })
        .as_ref()?;
    let guard = LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    pg_support::reset(url);
    db.init(spec).unwrap();
    db.import_jsonl(spec, lines.as_bytes()).unwrap();
    Some((database_tools(spec.clone(), db.clone()), guard))
}

#[cfg(not(feature = "postgres"))]
fn postgres_tools(_: &Arc<SchemaSpec>, _: &str) -> Option<(Vec<Arc<dyn Tool>>, Shared)> {
    None
}

/// Records `test` (once) in the PostgreSQL test log, when a server is given.
#[cfg(feature = "postgres")]
fn record(test: &str) {
    static SEEN: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut seen = SEEN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if !seen.iter().any(|name| name == test) {
        seen.push(test.to_owned());
        let _ = pg_support::url(&format!("sql_query_tools::{test}"));
    }
}

#[cfg(not(feature = "postgres"))]
fn record(_: &str) {}

impl Fixture {
    fn new(rows: &[Row], edges: &[(String, String)]) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let spec = Arc::new(spec());
        let db = Database::open(dir.path().join("q.db")).unwrap();
        db.init(&spec).unwrap();
        let lines = lines(rows, edges);
        db.import_jsonl(&spec, lines.as_bytes()).unwrap();
        Fixture {
            postgres: postgres_tools(&spec, &lines),
            sqlite: database_tools(spec, db),
            _dir: dir,
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap(),
        }
    }

    /// The SQLite answer (or error as `{"error": code, "message": ...}`), after checking that
    /// PostgreSQL answers the same (errors: the same code).
    fn call(&self, name: &str, arguments: Value) -> Result<Value, TestCaseError> {
        let run = |tools: &[Arc<dyn Tool>]| {
            let tool = tools
                .iter()
                .find(|t| t.definition().name == name)
                .unwrap_or_else(|| panic!("no tool {name}"));
            match self
                .runtime
                .block_on(tool.call(arguments.clone(), &ToolContext::new()))
            {
                Ok(value) => value,
                Err(error) => json!({"error": error.code, "message": error.message}),
            }
        };
        let answer = run(&self.sqlite);
        if let Some((postgres, _)) = &self.postgres {
            let mut other = run(postgres);
            // Messages may quote the clock (`now`), which moves between the two calls.
            if answer.get("error").is_some() && other["error"] == answer["error"] {
                other["message"] = answer["message"].clone();
            }
            prop_assert_eq!(
                &other,
                &answer,
                "PostgreSQL and SQLite differ on {} {}",
                name,
                arguments
            );
        }
        Ok(answer)
    }
}

fn dedup(rows: Vec<Row>) -> Vec<Row> {
    let mut seen = std::collections::HashSet::new();
    rows.into_iter()
        .filter(|r| seen.insert(r.uuid.clone()))
        .collect()
}

fn ids(answer: &Value) -> Vec<String> {
    answer["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results in {answer}"))
        .iter()
        .map(|r| r["uuid"].as_str().unwrap().to_owned())
        .collect()
}

/// The expected page: `matching` rows sorted by `key` (then uuid), the first `limit` from
/// `offset`, and the total.
fn page<K: PartialOrd>(
    mut matching: Vec<(&Row, K)>,
    descending: bool,
    offset: usize,
    limit: usize,
) -> (Vec<String>, usize) {
    matching.sort_by(|(a, x), (b, y)| {
        let o = x.partial_cmp(y).unwrap_or(Ordering::Equal);
        let o = if descending { o.reverse() } else { o };
        o.then_with(|| a.uuid.cmp(&b.uuid))
    });
    let total = matching.len();
    let ids = matching
        .into_iter()
        .skip(offset)
        .take(limit)
        .map(|(row, _)| row.uuid.clone())
        .collect();
    (ids, total)
}

/// A date bound as a model writes it, and the instant it means (`None`: unbounded).
fn date_bound() -> impl Strategy<Value = Option<(Value, i64)>> {
    prop_oneof![
        Just(None),
        (0i64..250, -6i8..7).prop_map(|(hours, offset)| {
            let seconds = 1_612_137_600 + hours * 9 * 3600 + 1800 * i64::from(hours % 3 == 0);
            let zoned = Timestamp::from_second(seconds)
                .unwrap()
                .to_zoned(jiff::tz::TimeZone::fixed(jiff::tz::offset(offset)));
            Some((
                json!(zoned.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string()),
                seconds,
            ))
        }),
        (0i64..100).prop_map(|days| {
            let seconds = 1_612_137_600 + days * 86_400;
            Some((json!(datetime(seconds)[..10]), seconds))
        }),
        // Relative forms far from the data: the outcome does not depend on today's date.
        Just(Some((json!("100 years ago"), i64::MIN))),
        Just(Some((json!("now"), i64::MAX - 1))),
        Just(Some((json!("in 2 weeks"), i64::MAX))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn ranges_agree_with_rust(
        rows in rows(),
        calls in prop::collection::vec(
            (
                prop::sample::select(vec!["score", "double"]),
                prop::option::of(-12i64..12),
                prop::option::of(-12i64..12),
                date_bound(),
                date_bound(),
                prop::sample::select(vec!["at", "seen"]),
                prop::option::of(any::<bool>()),
                1usize..8,
                0usize..6,
            ),
            1..6,
        ),
    ) {
        record("ranges_agree_with_rust");
        let rows = dedup(rows);
        let fixture = Fixture::new(&rows, &[]);
        for (field, min, max, after, before, date_field, descending, limit, offset) in calls {
            // Number range.
            let mut arguments = json!({"entity_type": "Item", "field": field, "limit": limit, "offset": offset});
            if let Some(min) = min {
                arguments["min"] = number(min as f64 / 2.0);
            }
            if let Some(max) = max {
                arguments["max"] = number(max as f64 / 2.0);
            }
            if let Some(descending) = descending {
                arguments["order"] = json!(if descending { "DESC" } else { "ASC" });
            }
            let answer = fixture.call("query_entities_by_number_range", arguments.clone())?;
            if let (Some(min), Some(max)) = (min, max) && min > max {
                prop_assert_eq!(&answer["error"], &json!("invalid_arguments"), "{}", arguments);
            } else {
                let matching: Vec<(&Row, f64)> = rows
                    .iter()
                    .filter_map(|row| row.number(field).map(|x| (row, x)))
                    .filter(|(_, x)| min.is_none_or(|m| *x >= m as f64 / 2.0))
                    .filter(|(_, x)| max.is_none_or(|m| *x <= m as f64 / 2.0))
                    .collect();
                let (expected, total) = page(matching, descending == Some(true), offset, limit);
                prop_assert_eq!(ids(&answer), expected, "{}", arguments);
                prop_assert_eq!(&answer["total"], &json!(total), "{}", arguments);
            }
            // Date range.
            let mut arguments = json!({"entity_type": "Item", "date_field": date_field, "limit": limit, "offset": offset});
            if let Some((text, _)) = &after {
                arguments["after"] = text.clone();
            }
            if let Some((text, _)) = &before {
                arguments["before"] = text.clone();
            }
            if let Some(descending) = descending {
                arguments["order"] = json!(if descending { "DESC" } else { "ASC" });
            }
            let answer = fixture.call("query_entities_by_date_range", arguments.clone())?;
            let low = after.as_ref().map(|(_, s)| *s);
            let high = before.as_ref().map(|(_, s)| *s);
            if let (Some(low), Some(high)) = (low, high) && low >= high {
                prop_assert_eq!(&answer["error"], &json!("invalid_arguments"), "{}", arguments);
            } else {
                let matching: Vec<(&Row, i64)> = rows
                    .iter()
                    .filter_map(|row| row.at.map(|at| (row, at)))
                    .filter(|(_, at)| low.is_none_or(|low| *at >= low))
                    .filter(|(_, at)| high.is_none_or(|high| *at < high))
                    .collect();
                let (expected, total) = page(matching, descending != Some(false), offset, limit);
                prop_assert_eq!(ids(&answer), expected, "{}", arguments);
                prop_assert_eq!(&answer["total"], &json!(total), "{}", arguments);
            }
        }
    }
}

#[test]
fn range_tools_refuse_wrong_fields_and_dates_naming_the_valid_ones() {
    record("range_tools_refuse_wrong_fields_and_dates_naming_the_valid_ones");
    let fixture = Fixture::new(&[], &[]);
    let answer = fixture
        .call(
            "query_entities_by_date_range",
            json!({"entity_type": "Item", "date_field": "score", "after": "yesterday"}),
        )
        .unwrap();
    assert_eq!(answer["error"], "invalid_arguments", "{answer}");
    assert!(
        answer["message"].as_str().unwrap().contains("at, seen"),
        "{answer}"
    );
    let answer = fixture
        .call(
            "query_entities_by_date_range",
            json!({"entity_type": "Item", "date_field": "at", "after": "a fortnight back"}),
        )
        .unwrap();
    let message = answer["message"].as_str().unwrap();
    assert!(
        message.starts_with("`after`") && message.contains("N <unit> ago"),
        "{answer}"
    );
    let answer = fixture
        .call(
            "query_entities_by_number_range",
            json!({"entity_type": "Item", "field": "name", "min": 1}),
        )
        .unwrap();
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .contains("score, double"),
        "{answer}"
    );
}

/// SQLite's GLOB, written independently: `*`, `?`, `[...]` with `^` and ranges.
fn glob(pattern: &[char], text: &[char]) -> bool {
    match pattern.first() {
        None => text.is_empty(),
        Some('*') => (0..=text.len()).any(|i| glob(&pattern[1..], &text[i..])),
        Some('?') => !text.is_empty() && glob(&pattern[1..], &text[1..]),
        Some('[') => {
            let Some(&c) = text.first() else { return false };
            let mut i = 1;
            let negate = pattern.get(1) == Some(&'^');
            if negate {
                i += 1;
            }
            let (mut matched, mut first) = (false, true);
            while i < pattern.len() && (pattern[i] != ']' || first) {
                first = false;
                if i + 2 < pattern.len() && pattern[i + 1] == '-' && pattern[i + 2] != ']' {
                    matched |= pattern[i] <= c && c <= pattern[i + 2];
                    i += 3;
                } else {
                    matched |= pattern[i] == c;
                    i += 1;
                }
            }
            i < pattern.len() && matched != negate && glob(&pattern[i + 1..], &text[1..])
        }
        Some(&p) => text.first() == Some(&p) && glob(&pattern[1..], &text[1..]),
    }
}

/// Edit distance (insert, delete, replace one character), by the textbook table, over
/// characters lowered one by one.
fn distance(a: &str, b: &str) -> usize {
    let lower = |s: &str| -> Vec<char> {
        s.chars()
            .map(|c| c.to_lowercase().next().unwrap())
            .collect()
    };
    let (a, b) = (lower(a), lower(b));
    let mut table = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in table.iter_mut().enumerate() {
        row[0] = i;
    }
    for j in 0..=b.len() {
        table[0][j] = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let replace = table[i - 1][j - 1] + usize::from(a[i - 1] != b[j - 1]);
            table[i][j] = replace.min(table[i - 1][j] + 1).min(table[i][j - 1] + 1);
        }
    }
    table[a.len()][b.len()]
}

fn pattern_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            prop::sample::select(ALPHABET.to_vec()).prop_map(String::from),
            Just("*".to_owned()),
            Just("?".to_owned()),
            Just("[ab]".to_owned()),
            Just(".".to_owned()),
            Just("^".to_owned()),
        ],
        0..4,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn patterns_agree_with_rust(
        rows in rows(),
        calls in prop::collection::vec(
            (pattern_text(), text(), prop::sample::select(vec!["regex", "glob", "fuzzy"]),
             prop::option::of(0i64..4), 1usize..8, 0usize..4),
            1..6,
        ),
    ) {
        record("patterns_agree_with_rust");
        let rows = dedup(rows);
        let fixture = Fixture::new(&rows, &[]);
        for (pattern, plain, kind, max_distance, limit, offset) in calls {
            let pattern = if kind == "fuzzy" { plain } else if kind == "regex" {
                pattern.replace(['*', '?', '['], "").replace(']', "")
            } else {
                pattern.replace(['.', '^'], "")
            };
            let mut arguments = json!({"entity_type": "Item", "field": "name", "pattern": pattern,
                                       "pattern_type": kind, "limit": limit, "offset": offset});
            if kind == "fuzzy" && let Some(d) = max_distance {
                arguments["max_distance"] = json!(d);
            }
            let answer = fixture.call("query_entities_by_pattern", arguments.clone())?;
            let named = rows.iter().filter_map(|r| r.name.as_ref().map(|n| (r, n)));
            let (expected, total) = match kind {
                "fuzzy" => {
                    let d = max_distance.unwrap_or(2) as usize;
                    let matching: Vec<(&Row, (usize, Vec<u8>))> = named
                        .map(|(r, n)| (r, (distance(&pattern, n), n.as_bytes().to_vec())))
                        .filter(|(_, (k, _))| *k <= d)
                        .collect();
                    let (ids, total) = page(matching.clone(), false, offset, limit);
                    let distances: Vec<Value> = ids.iter().map(|id| {
                        let row = rows.iter().find(|r| &r.uuid == id).unwrap();
                        json!(distance(&pattern, row.name.as_deref().unwrap()))
                    }).collect();
                    prop_assert_eq!(&answer["distances"], &Value::Array(distances), "{}", arguments);
                    (ids, total)
                }
                "regex" => {
                    let re = regex::Regex::new(&pattern).unwrap();
                    page(named.filter(|(_, n)| re.is_match(n)).map(|(r, n)| (r, n.as_bytes().to_vec())).collect(), false, offset, limit)
                }
                _ => {
                    let p: Vec<char> = pattern.chars().collect();
                    page(named.filter(|(_, n)| glob(&p, &n.chars().collect::<Vec<_>>())).map(|(r, n)| (r, n.as_bytes().to_vec())).collect(), false, offset, limit)
                }
            };
            prop_assert_eq!(ids(&answer), expected, "{}", arguments);
            prop_assert_eq!(&answer["total"], &json!(total), "{}", arguments);
        }
    }
}

/// A group key of the oracle: `None` for null.
type Key = Vec<Option<String>>;

fn month_of(seconds: i64) -> String {
    datetime(seconds)[..7].to_owned()
}

/// The Monday starting the week of `seconds`, as `YYYY-MM-DD`.
fn week_of(seconds: i64) -> String {
    let date = Timestamp::from_second(seconds)
        .unwrap()
        .to_zoned(jiff::tz::TimeZone::UTC)
        .date();
    let back = i64::from(date.weekday().to_monday_zero_offset());
    date.checked_sub(jiff::Span::new().days(back))
        .unwrap()
        .to_string()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn aggregates_agree_with_rust(
        rows in rows(),
        edge_picks in edges(25),
        calls in prop::collection::vec(
            (
                prop::sample::select(vec!["COUNT", "SUM", "AVG", "MIN", "MAX"]),
                any::<bool>(),
                prop::sample::select(vec!["none", "kind", "day", "week", "month", "along_in", "along_out", "along_both"]),
                prop::option::of(-10i64..10),
                1usize..6,
            ),
            1..6,
        ),
    ) {
        record("aggregates_agree_with_rust");
        let rows = dedup(rows);
        let edge_list: Vec<(String, String)> = if rows.is_empty() { Vec::new() } else {
            let mut list: Vec<(String, String)> = edge_picks.iter()
                .map(|(a, b)| (rows[a % rows.len()].uuid.clone(), rows[b % rows.len()].uuid.clone()))
                .collect();
            list.sort();
            list.dedup();
            list
        };
        let fixture = Fixture::new(&rows, &edge_list);
        for (aggregation, with_field, grouping, min_half, limit) in calls {
            let mut arguments = json!({"entity_type": "Item", "aggregation": aggregation, "limit": limit});
            let field = with_field || aggregation != "COUNT";
            if field {
                arguments["field"] = json!("score");
            }
            if let Some(h) = min_half {
                arguments["conditions"] = json!([{"field": "score", "operator": ">=", "value": number(h as f64 / 2.0)}]);
            }
            let along = grouping.strip_prefix("along_");
            match grouping {
                "none" => {}
                "kind" => arguments["group_by"] = json!(["kind"]),
                "day" | "week" | "month" => {
                    arguments["group_by"] = json!(["at"]);
                    arguments["bucket"] = json!(grouping);
                }
                _ => {
                    let direction = match along { Some("in") => "incoming", Some("out") => "outgoing", _ => "both" };
                    arguments["along"] = json!({"relationship_type": "LINKS", "direction": direction});
                }
            }
            let answer = fixture.call("aggregate_entities", arguments.clone())?;
            // The rows aggregated: (group key, value) pairs.
            let selected: Vec<&Row> = rows.iter()
                .filter(|r| min_half.is_none_or(|h| r.half.is_some_and(|x| x >= h)))
                .collect();
            let find = |id: &str| rows.iter().find(|r| r.uuid == id).unwrap();
            let mut items: Vec<(Key, Option<f64>)> = Vec::new();
            for row in &selected {
                match along {
                    None => {
                        let key = match grouping {
                            "kind" => vec![row.kind.map(String::from)],
                            "day" => vec![row.at.map(|s| datetime(s)[..10].to_owned())],
                            "week" => vec![row.at.map(week_of)],
                            "month" => vec![row.at.map(month_of)],
                            _ => vec![],
                        };
                        items.push((key, row.score()));
                    }
                    Some(direction) => {
                        for (a, b) in &edge_list {
                            let key = vec![Some(row.uuid.clone()), row.name.clone()];
                            if direction != "in" && a == &row.uuid {
                                items.push((key.clone(), find(b).score()));
                            }
                            if direction != "out" && b == &row.uuid {
                                items.push((key, find(a).score()));
                            }
                        }
                    }
                }
            }
            let aggregate = |values: &[Option<f64>]| -> (Value, usize) {
                let present: Vec<f64> = values.iter().flatten().copied().collect();
                let value = match aggregation {
                    "COUNT" => json!(if field { present.len() } else { values.len() }),
                    _ if present.is_empty() => Value::Null,
                    "SUM" => number(present.iter().sum()),
                    "AVG" => number(present.iter().sum::<f64>() / present.len() as f64),
                    "MIN" => number(present.iter().copied().fold(f64::INFINITY, f64::min)),
                    _ => number(present.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
                };
                (value, values.len())
            };
            let all: Vec<Option<f64>> = items.iter().map(|(_, v)| *v).collect();
            let grouped = grouping != "none";
            let (value, count) = aggregate(&all);
            if !grouped || !all.is_empty() {
                prop_assert_eq!(&answer["value"], &value, "{}", arguments);
            }
            prop_assert_eq!(&answer["count"], &json!(count), "{}", arguments);
            if !grouped {
                continue;
            }
            let mut groups: Vec<(Key, Value, usize)> = Vec::new();
            let mut keys: Vec<Key> = items.iter().map(|(k, _)| k.clone()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                let values: Vec<Option<f64>> = items.iter().filter(|(k, _)| *k == key).map(|(_, v)| *v).collect();
                let (value, count) = aggregate(&values);
                groups.push((key, value, count));
            }
            // Largest value first (nulls last), ties by key ascending (nulls first).
            groups.sort_by(|(ka, va, _), (kb, vb, _)| {
                let by_value = match (va.as_f64(), vb.as_f64()) {
                    (Some(x), Some(y)) => y.partial_cmp(&x).unwrap(),
                    (None, None) => Ordering::Equal,
                    (None, _) => Ordering::Greater,
                    (_, None) => Ordering::Less,
                };
                by_value.then_with(|| ka.cmp(kb))
            });
            prop_assert_eq!(&answer["total_groups"], &json!(groups.len()), "{}", arguments);
            let names: Vec<&str> = match grouping {
                "kind" => vec!["kind"],
                "day" | "week" | "month" => vec!["at"],
                _ => vec!["uuid", "name"],
            };
            let expected: Vec<Value> = groups.into_iter().take(limit).map(|(key, value, count)| {
                let mut group = serde_json::Map::new();
                for (name, part) in names.iter().zip(key) {
                    group.insert((*name).to_owned(), json!(part));
                }
                group.insert("value".into(), value);
                group.insert("count".into(), json!(count));
                Value::Object(group)
            }).collect();
            prop_assert_eq!(&answer["groups"], &Value::Array(expected), "{}", arguments);
        }
    }
}

/// The shortest path lengths from `start` over `edges` (followed as `direction` says).
fn bfs(
    start: &str,
    edges: &[(String, String)],
    direction: &str,
) -> std::collections::HashMap<String, usize> {
    let mut seen = std::collections::HashMap::from([(start.to_owned(), 0usize)]);
    let mut queue = std::collections::VecDeque::from([start.to_owned()]);
    while let Some(node) = queue.pop_front() {
        let depth = seen[&node];
        for (a, b) in edges {
            let next = match direction {
                "outgoing" if a == &node => b,
                "incoming" if b == &node => a,
                "both" if a == &node => b,
                "both" if b == &node => a,
                _ => continue,
            };
            if !seen.contains_key(next) {
                seen.insert(next.clone(), depth + 1);
                queue.push_back(next.clone());
            }
        }
    }
    seen
}

/// PageRank as a dense power iteration, written apart from the engine's: n x n transition
/// matrix, dangling columns uniform.
fn dense_page_rank(ids: &[String], edges: &[(String, String)]) -> Vec<f64> {
    let n = ids.len();
    let at = |id: &String| ids.iter().position(|x| x == id).unwrap();
    let mut matrix = vec![vec![0.0f64; n]; n];
    for j in 0..n {
        let targets: Vec<usize> = edges
            .iter()
            .filter(|(a, _)| at(a) == j)
            .map(|(_, b)| at(b))
            .collect();
        for i in 0..n {
            matrix[i][j] = if targets.is_empty() {
                1.0 / n as f64
            } else {
                targets.iter().filter(|t| **t == i).count() as f64 / targets.len() as f64
            };
        }
    }
    let mut rank = vec![1.0 / n as f64; n];
    for _ in 0..3000 {
        rank = (0..n)
            .map(|i| 0.15 / n as f64 + 0.85 * (0..n).map(|j| matrix[i][j] * rank[j]).sum::<f64>())
            .collect();
    }
    rank
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn graph_tools_agree_with_rust(
        rows in rows(),
        edge_picks in edges(12),
        calls in prop::collection::vec(
            (any::<prop::sample::Index>(), any::<prop::sample::Index>(),
             prop::sample::select(vec!["outgoing", "incoming", "both"]), 1i64..5,
             prop::sample::select(vec!["pagerank", "degree"]), 1usize..8),
            1..6,
        ),
    ) {
        record("graph_tools_agree_with_rust");
        let rows: Vec<Row> = dedup(rows).into_iter().take(12).collect();
        prop_assume!(!rows.is_empty());
        let mut edge_list: Vec<(String, String)> = edge_picks.iter()
            .map(|(a, b)| (rows[a % rows.len()].uuid.clone(), rows[b % rows.len()].uuid.clone()))
            .collect();
        edge_list.sort();
        edge_list.dedup();
        let fixture = Fixture::new(&rows, &edge_list);
        let mut ids: Vec<String> = rows.iter().map(|r| r.uuid.clone()).collect();
        ids.sort();
        for (from, to, direction, max_depth, algorithm, limit) in calls {
            let (from, to) = (&ids[from.index(ids.len())], &ids[to.index(ids.len())]);
            let arguments = json!({"from": {"entity_type": "Item", "id": from}, "to": {"entity_type": "Item", "id": to},
                                   "direction": direction, "max_depth": max_depth});
            let answer = fixture.call("find_path", arguments.clone())?;
            let reach = bfs(from, &edge_list, direction);
            let shortest = reach.get(to).copied().filter(|d| *d as i64 <= max_depth);
            prop_assert_eq!(&answer["found"], &json!(shortest.is_some()), "{}", arguments);
            if let Some(length) = shortest {
                let hops = answer["hops"].as_array().unwrap();
                prop_assert_eq!(hops.len(), length, "{}", arguments);
                let mut at = from.clone();
                for hop in hops {
                    let (a, b) = (hop["from"]["id"].as_str().unwrap(), hop["to"]["id"].as_str().unwrap());
                    prop_assert_eq!(a, at.as_str());
                    let edge = if hop["direction"] == "outgoing" { (a.to_owned(), b.to_owned()) } else { (b.to_owned(), a.to_owned()) };
                    prop_assert!(edge_list.contains(&edge), "{} is no edge: {}", hop, arguments);
                    at = b.to_owned();
                }
                prop_assert_eq!(&at, to);
            }
            let arguments = json!({"entity_type": "Item", "relationship_type": "LINKS",
                                   "algorithm": algorithm, "direction": direction, "limit": limit});
            let answer = fixture.call("rank_entities", arguments.clone())?;
            let results = answer["results"].as_array().unwrap();
            prop_assert_eq!(results.len(), limit.min(ids.len()), "{}", arguments);
            let expected: Vec<f64> = if algorithm == "degree" {
                ids.iter().map(|id| edge_list.iter().map(|(a, b)| {
                    usize::from(direction != "outgoing" && b == id) + usize::from(direction != "incoming" && a == id)
                }).sum::<usize>() as f64).collect()
            } else {
                let oriented: Vec<(String, String)> = match direction {
                    "incoming" => edge_list.clone(),
                    "outgoing" => edge_list.iter().map(|(a, b)| (b.clone(), a.clone())).collect(),
                    _ => edge_list.iter().flat_map(|(a, b)| [(a.clone(), b.clone()), (b.clone(), a.clone())]).collect::<std::collections::BTreeSet<_>>().into_iter().collect(),
                };
                dense_page_rank(&ids, &oriented)
            };
            let score_of = |id: &str| expected[ids.iter().position(|x| x == id).unwrap()];
            let mut previous = f64::INFINITY;
            for result in results {
                let score = result["score"].as_f64().unwrap();
                let id = result["id"].as_str().unwrap();
                prop_assert!((score - score_of(id)).abs() < 1e-9, "{}: {} vs {}, {}", id, score, score_of(id), arguments);
                prop_assert!(score <= previous + 1e-12, "{}", arguments);
                previous = score;
            }
            let lowest = previous;
            for (id, score) in ids.iter().zip(&expected) {
                if *score > lowest + 1e-9 {
                    prop_assert!(results.iter().any(|r| r["id"] == json!(id)), "{} missing: {}", id, arguments);
                }
            }
        }
    }
}
