//! Differential test: `query_entities` against an independent evaluation in plain Rust of the
//! same conditions, ordering and limit over the same random rows; with a PostgreSQL server
//! (`TOOLFORGE_TEST_POSTGRES_URL`), every call also runs on PostgreSQL over the same rows and
//! must give the same answer as on SQLite, order included.
#![cfg(feature = "sqlite")]

#[cfg(feature = "postgres")]
use crate::pg_support;

use std::cmp::Ordering;
use std::sync::Arc;

use jiff::Timestamp;
use proptest::prelude::*;
use serde_json::{Value, json};
use toolforge::ToolContext;
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::sql::tools::database_tools;

const KINDS: [&str; 3] = ["alpha", "beta", "gamma"];
const ALPHABET: [char; 10] = ['a', 'b', 'c', 'A', '%', '_', '*', 'é', '\'', '"'];

fn spec() -> SchemaSpec {
    serde_json::from_value(json!({
        "name": "differential",
        "entities": [{
            "name": "Item", "table": "item", "unique_field": "uuid",
            "fields": [
                {"name": "uuid", "type": "string", "unique": true},
                {"name": "name", "type": "string", "indexed": true},
                {"name": "score", "type": "number"},
                {"name": "flag", "type": "boolean"},
                {"name": "kind", "type": "enum", "values": KINDS},
                {"name": "at", "type": "datetime"},
                {"name": "tags", "type": "string_array"}
            ],
            "computed_fields": [
                {"name": "double", "type": "number", "source": "score * 2", "sql": "(\"n\".\"score\" * 2)"},
                {"name": "name_len", "type": "number", "source": "name.length", "sql": "length(\"n\".\"name\")",
                 "materialized_column": "cached_name_len"}
            ]
        }],
        "relationships": [],
        "tools": {"default_limit": 10, "max_limit": 50, "families": ["query"]}
    }))
    .unwrap()
}

#[derive(Debug, Clone)]
struct Row {
    uuid: String,
    name: Option<String>,
    /// Half-units, so values are exact in f64 and SQLite: score = half / 2.
    half: Option<i64>,
    flag: Option<bool>,
    kind: Option<&'static str>,
    at: Option<i64>,
    tags: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
enum V {
    Null,
    Text(String),
    Num(f64),
    Bool(bool),
    Time(i64),
    Tags(Vec<String>),
}

fn datetime(seconds: i64) -> String {
    Timestamp::from_second(seconds).unwrap().to_string()
}

fn score_json(half: i64) -> Value {
    if half % 2 == 0 {
        json!(half / 2)
    } else {
        json!(half as f64 / 2.0)
    }
}

impl Row {
    fn get(&self, field: &str) -> V {
        match field {
            "uuid" => V::Text(self.uuid.clone()),
            "name" => self.name.clone().map_or(V::Null, V::Text),
            "score" => self.half.map_or(V::Null, |h| V::Num(h as f64 / 2.0)),
            "flag" => self.flag.map_or(V::Null, V::Bool),
            "kind" => self.kind.map_or(V::Null, |k| V::Text(k.into())),
            "at" => self.at.map_or(V::Null, V::Time),
            "tags" => V::Tags(self.tags.clone()),
            "double" => self.half.map_or(V::Null, |h| V::Num(h as f64)),
            "name_len" => self
                .name
                .as_ref()
                .map_or(V::Null, |n| V::Num(n.chars().count() as f64)),
            other => panic!("unknown field {other}"),
        }
    }

    fn data(&self) -> Value {
        let mut data = json!({"uuid": self.uuid, "tags": self.tags});
        if let Some(name) = &self.name {
            data["name"] = json!(name);
        }
        if let Some(half) = self.half {
            data["score"] = score_json(half);
        }
        if let Some(flag) = self.flag {
            data["flag"] = json!(flag);
        }
        if let Some(kind) = self.kind {
            data["kind"] = json!(kind);
        }
        if let Some(at) = self.at {
            // Written with an offset; stored normalised to UTC.
            let zoned = Timestamp::from_second(at)
                .unwrap()
                .to_zoned(jiff::tz::TimeZone::fixed(jiff::tz::offset(3)));
            data["at"] = json!(zoned.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string());
        }
        data
    }

    fn expected_record(&self) -> Value {
        let num = |v: Option<f64>| match v {
            None => Value::Null,
            Some(f) if f.fract() == 0.0 => json!(f as i64),
            Some(f) => json!(f),
        };
        json!({
            "uuid": self.uuid,
            "name": self.name,
            "score": self.half.map_or(Value::Null, score_json),
            "flag": self.flag,
            "kind": self.kind,
            "at": self.at.map(datetime),
            "tags": self.tags,
            "double": num(self.half.map(|h| h as f64)),
            "name_len": num(self.name.as_ref().map(|n| n.chars().count() as f64)),
        })
    }
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(ALPHABET.to_vec()), 0..6)
        .prop_map(|chars| chars.into_iter().collect())
}

fn rows() -> impl Strategy<Value = Vec<Row>> {
    prop::collection::vec(
        (
            prop::option::weighted(0.9, text()),
            prop::option::weighted(0.85, -20i64..20),
            prop::option::weighted(0.85, any::<bool>()),
            prop::option::weighted(0.85, prop::sample::select(KINDS.to_vec())),
            prop::option::weighted(0.85, 1_600_000_000i64..1_600_000_100),
            prop::collection::vec(prop::sample::select(vec!["x", "y", "z", "é"]), 0..3),
        ),
        0..30,
    )
    .prop_map(|items| {
        items
            .into_iter()
            .enumerate()
            .map(|(i, (name, half, flag, kind, at, tags))| Row {
                // Not in insertion order, so the unique-field tie-break is exercised.
                uuid: format!("id{:02}", (i * 7) % 31),
                name,
                half,
                flag,
                kind,
                at: at.map(|s| s - s % 10),
                tags: tags.into_iter().map(String::from).collect(),
            })
            .collect()
    })
}

#[derive(Debug, Clone)]
enum Op {
    Cmp(&'static str),
    Contains,
    Starts,
    Ends,
    In,
    Regex,
    Glob,
}

#[derive(Debug, Clone)]
struct Cond {
    field: &'static str,
    op: Op,
    value: Value,
}

/// Replaces the value of a text condition by a piece of a real row's value (whole value,
/// prefix, suffix or middle, by operator), so that matches are frequent.
fn from_row(
    mut cond: Cond,
    rows: &[Row],
    pick: (
        prop::sample::Index,
        prop::sample::Index,
        prop::sample::Index,
    ),
) -> Cond {
    if rows.is_empty() || !matches!(cond.field, "name" | "uuid") {
        return cond;
    }
    let V::Text(text) = rows[pick.0.index(rows.len())].get(cond.field) else {
        return cond;
    };
    let chars: Vec<char> = text.chars().collect();
    let a = pick.1.index(chars.len() + 1);
    let b = a + pick.2.index(chars.len() - a + 1);
    let piece = |range: std::ops::Range<usize>| chars[range].iter().collect::<String>();
    let value = match &cond.op {
        Op::Cmp(_) | Op::In => piece(0..chars.len()),
        Op::Starts => piece(0..b),
        Op::Ends => piece(a..chars.len()),
        Op::Contains => piece(a..b),
        Op::Regex => regex::escape(&piece(a..b)),
        Op::Glob => format!("*{}*", piece(a..b).replace(['*', '?', '['], "?")),
    };
    cond.value = if matches!(cond.op, Op::In) {
        json!([value])
    } else {
        json!(value)
    };
    cond
}

fn glob_pattern() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            prop::sample::select(vec!["a", "b", "c", "A", "é", "%", "_", "'"])
                .prop_map(String::from),
            Just("*".to_string()),
            Just("?".to_string()),
            Just("[ab]".to_string()),
            Just("[^a]".to_string()),
            Just("[a-c]".to_string()),
        ],
        0..4,
    )
    .prop_map(|parts| parts.concat())
}

fn regex_pattern() -> impl Strategy<Value = String> {
    prop_oneof![
        text().prop_map(|t| regex::escape(&t)),
        text().prop_map(|t| format!("^{}", regex::escape(&t))),
        text().prop_map(|t| format!("{}$", regex::escape(&t))),
        text().prop_map(|t| format!("(?i){}", regex::escape(&t))),
        Just("[a-c]+".to_string()),
        Just("^.$".to_string()),
        Just("a.b".to_string()),
    ]
}

fn time_value() -> impl Strategy<Value = (i64, i32)> {
    (1_599_999_990i64..1_600_000_110, -5i32..6)
}

fn time_json((seconds, hours): (i64, i32)) -> Value {
    let zoned = Timestamp::from_second(seconds)
        .unwrap()
        .to_zoned(jiff::tz::TimeZone::fixed(jiff::tz::offset(hours as i8)));
    json!(zoned.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string())
}

fn cmp_op() -> impl Strategy<Value = Op> {
    prop::sample::select(vec!["=", "!=", ">", ">=", "<", "<="]).prop_map(Op::Cmp)
}

fn condition() -> impl Strategy<Value = Cond> {
    let text_fields = prop::sample::select(vec!["name", "uuid", "kind"]);
    let number_fields = prop::sample::select(vec!["score", "double", "name_len"]);
    prop_oneof![
        (prop::sample::select(vec!["name", "uuid"]), cmp_op(), text()).prop_map(
            |(field, op, v)| Cond {
                field,
                op,
                value: json!(v)
            }
        ),
        // Enum operands of comparisons must be allowed values (anything else is refused).
        (cmp_op(), prop::sample::select(KINDS.to_vec())).prop_map(|(op, v)| Cond {
            field: "kind",
            op,
            value: json!(v)
        }),
        (text_fields.clone(), text()).prop_map(|(field, v)| Cond {
            field,
            op: Op::Contains,
            value: json!(v)
        }),
        (text_fields.clone(), text()).prop_map(|(field, v)| Cond {
            field,
            op: Op::Starts,
            value: json!(v)
        }),
        (text_fields.clone(), text()).prop_map(|(field, v)| Cond {
            field,
            op: Op::Ends,
            value: json!(v)
        }),
        (text_fields.clone(), regex_pattern()).prop_map(|(field, v)| Cond {
            field,
            op: Op::Regex,
            value: json!(v)
        }),
        (text_fields.clone(), glob_pattern()).prop_map(|(field, v)| Cond {
            field,
            op: Op::Glob,
            value: json!(v)
        }),
        (prop::collection::vec(text(), 0..4)).prop_map(|v| Cond {
            field: "name",
            op: Op::In,
            value: json!(v)
        }),
        (prop::collection::vec(prop::sample::select(KINDS.to_vec()), 0..3)).prop_map(|v| Cond {
            field: "kind",
            op: Op::In,
            value: json!(v)
        }),
        (number_fields.clone(), cmp_op(), -12i64..12).prop_map(|(field, op, h)| Cond {
            field,
            op,
            value: score_json(h)
        }),
        (number_fields, prop::collection::vec(-12i64..12, 0..4)).prop_map(|(field, v)| Cond {
            field,
            op: Op::In,
            value: Value::Array(v.into_iter().map(score_json).collect())
        }),
        (prop::sample::select(vec!["=", "!="]), any::<bool>()).prop_map(|(op, b)| Cond {
            field: "flag",
            op: Op::Cmp(op),
            value: json!(b)
        }),
        (cmp_op(), time_value()).prop_map(|(op, t)| Cond {
            field: "at",
            op,
            value: time_json(t)
        }),
        (prop::sample::select(vec!["x", "y", "z", "é", "w"])).prop_map(|t| Cond {
            field: "tags",
            op: Op::Contains,
            value: json!(t)
        }),
        (
            prop::sample::select(vec!["name", "score", "flag", "at", "double"]),
            prop::sample::select(vec!["=", "!="])
        )
            .prop_map(|(field, op)| Cond {
                field,
                op: Op::Cmp(op),
                value: Value::Null
            }),
    ]
}

fn op_name(op: &Op) -> &'static str {
    match op {
        Op::Cmp(s) => s,
        Op::Contains => "CONTAINS",
        Op::Starts => "STARTS WITH",
        Op::Ends => "ENDS WITH",
        Op::In => "IN",
        Op::Regex => "REGEX",
        Op::Glob => "GLOB",
    }
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
            let mut matched = false;
            let mut first = true;
            while i < pattern.len() && (pattern[i] != ']' || first) {
                first = false;
                if i + 2 < pattern.len() && pattern[i + 1] == '-' && pattern[i + 2] != ']' {
                    if pattern[i] <= c && c <= pattern[i + 2] {
                        matched = true;
                    }
                    i += 3;
                } else {
                    if pattern[i] == c {
                        matched = true;
                    }
                    i += 1;
                }
            }
            if i >= pattern.len() {
                return false;
            }
            matched != negate && glob(&pattern[i + 1..], &text[1..])
        }
        Some(&p) => text.first() == Some(&p) && glob(&pattern[1..], &text[1..]),
    }
}

fn operand(field: &str, value: &Value) -> V {
    match (field, value) {
        (_, Value::Null) => V::Null,
        ("at", Value::String(s)) => V::Time(s.parse::<Timestamp>().unwrap().as_second()),
        (_, Value::String(s)) => V::Text(s.clone()),
        (_, Value::Number(n)) => V::Num(n.as_f64().unwrap()),
        (_, Value::Bool(b)) => V::Bool(*b),
        other => panic!("no operand for {other:?}"),
    }
}

fn compare(a: &V, b: &V) -> Option<Ordering> {
    match (a, b) {
        (V::Text(x), V::Text(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (V::Num(x), V::Num(y)) => x.partial_cmp(y),
        (V::Bool(x), V::Bool(y)) => Some(x.cmp(y)),
        (V::Time(x), V::Time(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

fn as_text(v: &V) -> Option<String> {
    match v {
        V::Text(s) => Some(s.clone()),
        V::Time(t) => Some(datetime(*t)),
        _ => None,
    }
}

fn matches(row: &Row, cond: &Cond) -> bool {
    let left = row.get(cond.field);
    match &cond.op {
        Op::Cmp(op) => {
            if cond.value.is_null() {
                return (left == V::Null) == (*op == "=");
            }
            let right = operand(cond.field, &cond.value);
            let Some(ordering) = compare(&left, &right) else {
                return false;
            };
            match *op {
                "=" => ordering == Ordering::Equal,
                "!=" => ordering != Ordering::Equal,
                ">" => ordering == Ordering::Greater,
                ">=" => ordering != Ordering::Less,
                "<" => ordering == Ordering::Less,
                "<=" => ordering != Ordering::Greater,
                _ => unreachable!(),
            }
        }
        Op::Contains => match (&left, &cond.value) {
            (V::Tags(tags), Value::String(t)) => tags.contains(t),
            (_, Value::String(t)) => as_text(&left).is_some_and(|s| s.contains(t.as_str())),
            _ => false,
        },
        Op::Starts => as_text(&left).is_some_and(|s| s.starts_with(cond.value.as_str().unwrap())),
        Op::Ends => as_text(&left).is_some_and(|s| s.ends_with(cond.value.as_str().unwrap())),
        Op::Regex => as_text(&left).is_some_and(|s| {
            regex::Regex::new(cond.value.as_str().unwrap())
                .unwrap()
                .is_match(&s)
        }),
        Op::Glob => as_text(&left).is_some_and(|s| {
            let p: Vec<char> = cond.value.as_str().unwrap().chars().collect();
            let t: Vec<char> = s.chars().collect();
            glob(&p, &t)
        }),
        Op::In => cond
            .value
            .as_array()
            .unwrap()
            .iter()
            .any(|item| compare(&left, &operand(cond.field, item)) == Some(Ordering::Equal)),
    }
}

fn order(rows: &mut [&Row], field: Option<&'static str>, descending: bool) {
    rows.sort_by(|a, b| {
        let primary = match field {
            None => Ordering::Equal,
            Some(field) => {
                let (x, y) = (a.get(field), b.get(field));
                // NULLs sort first ascending, last descending (SQLite).
                let o = match (&x, &y) {
                    (V::Null, V::Null) => Ordering::Equal,
                    (V::Null, _) => Ordering::Less,
                    (_, V::Null) => Ordering::Greater,
                    _ => compare(&x, &y).unwrap_or(Ordering::Equal),
                };
                if descending { o.reverse() } else { o }
            }
        };
        primary.then_with(|| a.uuid.cmp(&b.uuid))
    });
}

fn dedup(rows: Vec<Row>) -> Vec<Row> {
    let mut seen = std::collections::HashSet::new();
    rows.into_iter()
        .filter(|r| seen.insert(r.uuid.clone()))
        .collect()
}

/// The PostgreSQL database the differential cases run on, when a server is given: created
/// once per test process, emptied before each case.
#[cfg(feature = "postgres")]
fn postgres() -> Option<&'static (Database, String)> {
    static DB: std::sync::OnceLock<Option<(Database, String)>> = std::sync::OnceLock::new();
    DB.get_or_init(|| {
        let base = pg_support::url("sql_differential::query_entities_agrees_with_rust")?;
        Some(pg_support::fresh(&base, "differential"))
    })
    .as_ref()
}

/// The same rows on PostgreSQL (tables recreated), and its `query_entities` tool.
#[cfg(feature = "postgres")]
fn postgres_tool(spec: &Arc<SchemaSpec>, lines: &str) -> Option<Arc<dyn toolforge::Tool>> {
    let (db, url) = postgres()?;
    pg_support::reset(url);
    let report = db.init(spec).unwrap();
    assert!(!report.created.is_empty());
    let again = db.init(spec).unwrap();
    assert!(
        again.created.is_empty(),
        "a second init created {:?}",
        again.created
    );
    db.import_jsonl(spec, lines.as_bytes()).unwrap();
    let tools = database_tools(spec.clone(), db.clone());
    tools
        .into_iter()
        .find(|t| t.definition().name == "query_entities")
}

#[cfg(not(feature = "postgres"))]
fn postgres_tool(_: &Arc<SchemaSpec>, _: &str) -> Option<Arc<dyn toolforge::Tool>> {
    None
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn query_entities_agrees_with_rust(
        rows in rows(),
        queries in prop::collection::vec(
            (
                prop::collection::vec((condition(), prop::bool::weighted(0.75), any::<(prop::sample::Index, prop::sample::Index, prop::sample::Index)>()), 0..3),
                prop::option::of((prop::sample::select(vec!["uuid", "name", "score", "flag", "kind", "at", "double", "name_len"]), any::<bool>())),
                1u32..12,
            ),
            1..8,
        ),
    ) {
        let rows = dedup(rows);
        let dir = tempfile::tempdir().unwrap();
        let spec = Arc::new(spec());
        let db = Database::open(dir.path().join("d.db")).unwrap();
        db.init(&spec).unwrap();
        let lines: String = rows.iter().map(|r| format!("{}\n", json!({"entity": "Item", "data": r.data()}))).collect();
        db.import_jsonl(&spec, lines.as_bytes()).unwrap();
        let pg_tool = postgres_tool(&spec, &lines);
        let tools = database_tools(spec, db);
        let tool = tools.iter().find(|t| t.definition().name == "query_entities").unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        for (conditions, order_by, limit) in queries {
            let conditions: Vec<Cond> = conditions
                .into_iter()
                .map(|(cond, use_row, pick)| if use_row { from_row(cond, &rows, pick) } else { cond })
                .collect();
            let mut arguments = json!({
                "entity_type": "Item",
                "conditions": conditions.iter().map(|c| json!({"field": c.field, "operator": op_name(&c.op), "value": c.value})).collect::<Vec<_>>(),
                "limit": limit,
            });
            if let Some((field, descending)) = order_by {
                arguments["order_by"] = json!({"field": field, "direction": if descending { "DESC" } else { "ASC" }});
            }
            let answer = runtime.block_on(tool.call(arguments.clone(), &ToolContext::new()));
            let answer = answer.map_err(|e| TestCaseError::fail(format!("{arguments}: {e}")))?;
            if let Some(pg_tool) = &pg_tool {
                let pg_answer = runtime.block_on(pg_tool.call(arguments.clone(), &ToolContext::new()));
                let pg_answer = pg_answer.map_err(|e| TestCaseError::fail(format!("PostgreSQL, {arguments}: {e}")))?;
                prop_assert_eq!(&pg_answer, &answer, "PostgreSQL and SQLite differ on {}", arguments);
            }
            let mut expected: Vec<&Row> = rows.iter().filter(|r| conditions.iter().all(|c| matches(r, c))).collect();
            order(&mut expected, order_by.map(|o| o.0), order_by.is_some_and(|o| o.1));
            let total = expected.len();
            let page: Vec<Value> = expected.iter().take(limit as usize).map(|r| r.expected_record()).collect();
            prop_assert_eq!(&answer["total"], &json!(total), "{}", arguments);
            prop_assert_eq!(&answer["returned"], &json!(page.len()), "{}", arguments);
            prop_assert_eq!(&answer["truncated"], &json!(total > page.len()), "{}", arguments);
            prop_assert_eq!(&answer["results"], &Value::Array(page), "{}", arguments);
        }
    }
}

#[test]
fn glob_oracle_agrees_with_known_cases() {
    let g = |p: &str, t: &str| {
        glob(
            &p.chars().collect::<Vec<_>>(),
            &t.chars().collect::<Vec<_>>(),
        )
    };
    assert!(g("a*", "abc"));
    assert!(g("?b?", "abc"));
    assert!(g("[^x]b[a-c]", "abc"));
    assert!(!g("[ab]", "c"));
    assert!(!g("a", "A"));
}
