//! The corpus configs on both backends: each config is compiled by the generator (computed
//! fields in both dialects), a SQLite file and a PostgreSQL database (`TOOLFORGE_TEST_POSTGRES_URL`,
//! see `scripts/with-postgres`) are initialised and seeded from the same fixture, and the live
//! registries `toolforge call` builds over each answer thousands of calls identically: every
//! tool, every field with every operator it takes (values taken from the fixture's records),
//! every order, pages, lookups and traversals. Without a server the test says it was skipped.

use crate::e2e_support;
use crate::pg_support;

use std::sync::Arc;

use serde_json::{Value, json};
use toolforge::ToolRegistry;
use toolforge::spec::{FieldType, SchemaSpec};
use toolforge::sql::query::{Operator, field_names, resolve_field, sortable_field_names};
use toolforge_cli::dynamic;

use e2e_support::{fixtures_dir, seeded};

const CONFIGS: [(&str, &str, &str); 4] = [
    (
        "code_rag",
        "ragforge__examples__code-rag__ragforge.config.yaml",
        "code-rag.jsonl",
    ),
    (
        "document_rag",
        "ragforge__examples__document-rag__ragforge.config.yaml",
        "document-rag.jsonl",
    ),
    (
        "agent",
        "ragforge__examples__tool-calling-agent__ragforge.config.yaml",
        "tool-calling-agent.jsonl",
    ),
    (
        "computed",
        "ragforge__examples__tool-calling-agent__test-config-with-computed-fields.yaml",
        "computed-fields.jsonl",
    ),
];

/// Values of `field` in the fixture's records of `entity`, in fixture order, distinct.
fn fixture_values(lines: &[Value], entity: &str, field: &str) -> Vec<Value> {
    let mut values: Vec<Value> = Vec::new();
    for line in lines {
        if line["entity"] == entity
            && let Some(value) = line["data"].get(field)
            && !value.is_null()
            && !values.contains(value)
        {
            values.push(value.clone());
        }
    }
    values
}

/// A piece of a text value for the substring operators: its first half.
fn piece(value: &Value) -> Value {
    match value {
        Value::String(text) => {
            let chars: Vec<char> = text.chars().collect();
            json!(chars[..chars.len().div_ceil(2)].iter().collect::<String>())
        }
        other => other.clone(),
    }
}

/// The calls for one config: built from its spec and its fixture.
fn calls(spec: &SchemaSpec, lines: &[Value]) -> Vec<(String, Value)> {
    let prefix = &spec.tools.name_prefix;
    let tool = |name: &str| format!("{prefix}{name}");
    let mut calls = vec![(tool("get_schema"), json!({}))];
    for entity in &spec.entities {
        let e = &entity.name;
        calls.push((tool("describe_entity"), json!({"entity_type": e})));
        calls.push((
            tool("query_entities"),
            json!({"entity_type": e, "limit": 100}),
        ));
        calls.push((
            tool("query_entities"),
            json!({"entity_type": e, "limit": 2, "offset": 1}),
        ));
        for field in sortable_field_names(entity) {
            for direction in ["ASC", "DESC"] {
                calls.push((
                    tool("query_entities"),
                    json!({"entity_type": e, "order_by": {"field": field, "direction": direction}, "limit": 100}),
                ));
            }
        }
        for name in field_names(entity) {
            let Ok(field) = resolve_field(entity, name, "field") else {
                continue;
            };
            let mut samples = fixture_values(lines, e, name);
            samples.truncate(3);
            if samples.is_empty() {
                // Computed fields have no fixture values: compare with small numbers, booleans
                // and text anyway.
                samples = match field.ty {
                    FieldType::Number => vec![json!(0), json!(1), json!(60), json!(100)],
                    FieldType::Boolean => vec![json!(true), json!(false)],
                    _ => vec![json!("a"), json!("")],
                };
            }
            for operator in Operator::applicable(field.ty) {
                let op = operator.as_str();
                let mut values: Vec<Value> = match operator {
                    Operator::In => vec![Value::Array(samples.clone())],
                    Operator::Contains
                        if matches!(field.ty, FieldType::StringArray | FieldType::NumberArray) =>
                    {
                        samples
                            .iter()
                            .filter_map(|s| s.as_array().and_then(|a| a.first()).cloned())
                            .collect()
                    }
                    Operator::Contains | Operator::StartsWith | Operator::EndsWith => {
                        samples.iter().map(piece).collect()
                    }
                    Operator::Regex => samples
                        .iter()
                        .filter_map(|s| s.as_str())
                        .map(|s| {
                            json!(format!(
                                "(?i)^{}",
                                regex_escape(&s.chars().take(3).collect::<String>())
                            ))
                        })
                        .collect(),
                    Operator::Glob => samples
                        .iter()
                        .filter_map(|s| s.as_str())
                        .map(|s| {
                            json!(format!(
                                "{}*",
                                s.chars()
                                    .take(2)
                                    .collect::<String>()
                                    .replace(['*', '?', '['], "?")
                            ))
                        })
                        .collect(),
                    _ => samples.clone(),
                };
                if matches!(operator, Operator::Eq | Operator::Ne) {
                    values.push(Value::Null);
                }
                for value in values {
                    calls.push((
                        tool("query_entities"),
                        json!({"entity_type": e, "conditions": [{"field": name, "operator": op, "value": value}], "limit": 100}),
                    ));
                }
            }
            if let Some(text) = samples.iter().find_map(|s| s.as_str())
                && matches!(
                    field.ty,
                    FieldType::String | FieldType::Enum | FieldType::Datetime
                )
            {
                let first: String = text.chars().take(1).collect();
                calls.push((
                    tool("glob_search"),
                    json!({"entity_type": e, "field": name, "pattern": format!("*{}*", first.replace(['*', '?', '['], "?"))}),
                ));
            }
        }
        let ids = fixture_values(lines, e, &entity.unique_field);
        for id in ids.iter().take(5) {
            calls.push((
                tool("get_entity_by_id"),
                json!({"entity_type": e, "id_value": id}),
            ));
        }
        calls.push((
            tool("get_entity_by_id"),
            json!({"entity_type": e, "id_value": "no such id"}),
        ));
        let mut some: Vec<Value> = ids.iter().take(4).cloned().collect();
        some.push(json!("no such id"));
        calls.push((
            tool("get_entities_by_ids"),
            json!({"entity_type": e, "ids": some}),
        ));
        if entity.hierarchy.is_some() {
            calls.push((
                tool("get_entities_by_ids"),
                json!({"entity_type": e, "ids": ids.iter().take(6).collect::<Vec<_>>(), "with_children": true}),
            ));
        }
    }
    for relationship in &spec.relationships {
        for direction in ["outgoing", "incoming", "both"] {
            for start in [&relationship.source, &relationship.target] {
                calls.push((
                    tool("explore_relationships"),
                    json!({"start_entity_type": start, "relationship_type": relationship.rel_type, "direction": direction, "limit": 100}),
                ));
                calls.push((
                    tool("explore_relationships"),
                    json!({"start_entity_type": start, "relationship_type": relationship.rel_type, "direction": direction, "limit": 1, "offset": 1}),
                ));
            }
        }
    }
    calls.extend(query_tool_calls(spec, lines));
    calls
}

/// Calls of the range, pattern, aggregate and graph tools the spec builds.
fn query_tool_calls(spec: &SchemaSpec, lines: &[Value]) -> Vec<(String, Value)> {
    let built = spec.database_tool_names();
    let tool = |name: &str| format!("{}{name}", spec.tools.name_prefix);
    let mut calls = Vec::new();
    for entity in &spec.entities {
        let e = &entity.name;
        for name in field_names(entity) {
            let Ok(field) = resolve_field(entity, name, "field") else {
                continue;
            };
            let samples = fixture_values(lines, e, name);
            match field.ty {
                FieldType::Number if built.contains(&"query_entities_by_number_range") => {
                    for (min, max, order) in [
                        (json!(1), json!(100), "ASC"),
                        (json!(-5.5), json!(20), "DESC"),
                    ] {
                        calls.push((
                            tool("query_entities_by_number_range"),
                            json!({"entity_type": e, "field": name, "min": min, "max": max, "order": order, "limit": 100}),
                        ));
                    }
                }
                FieldType::Datetime if built.contains(&"query_entities_by_date_range") => {
                    for (after, before) in [
                        ("2000-01-01", "now"),
                        ("2024-01-01", "2024-06-01T12:00:00+02:00"),
                    ] {
                        calls.push((
                            tool("query_entities_by_date_range"),
                            json!({"entity_type": e, "date_field": name, "after": after, "before": before, "limit": 100}),
                        ));
                    }
                }
                FieldType::String | FieldType::Enum
                    if built.contains(&"query_entities_by_pattern") =>
                {
                    for sample in samples.iter().filter_map(Value::as_str).take(2) {
                        let fuzzy: String = sample.chars().skip(1).collect();
                        calls.push((
                            tool("query_entities_by_pattern"),
                            json!({"entity_type": e, "field": name, "pattern": fuzzy, "pattern_type": "fuzzy", "max_distance": 3}),
                        ));
                        let start: String = sample.chars().take(3).collect();
                        calls.push((
                            tool("query_entities_by_pattern"),
                            json!({"entity_type": e, "field": name, "pattern": format!("{start}*"), "pattern_type": "glob"}),
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    if built.contains(&"find_path") {
        for relationship in &spec.relationships {
            let ids = |entity: &str| -> Vec<Value> {
                spec.entity(entity)
                    .map(|spec_entity| fixture_values(lines, entity, &spec_entity.unique_field))
                    .unwrap_or_default()
            };
            let (sources, targets) = (ids(&relationship.source), ids(&relationship.target));
            for (from, to) in sources.iter().take(3).zip(targets.iter().rev().take(3)) {
                for direction in ["outgoing", "both"] {
                    calls.push((
                        tool("find_path"),
                        json!({"from": {"entity_type": relationship.source, "id": from},
                               "to": {"entity_type": relationship.target, "id": to},
                               "direction": direction}),
                    ));
                }
            }
            for algorithm in ["degree", "pagerank"] {
                for direction in ["incoming", "outgoing", "both"] {
                    calls.push((
                        tool("rank_entities"),
                        json!({"entity_type": relationship.target, "relationship_type": relationship.rel_type,
                               "algorithm": algorithm, "direction": direction, "limit": 50}),
                    ));
                }
            }
        }
    }
    calls
}

fn regex_escape(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            if "\\.+*?()|[]{}^$#&-~".contains(c) {
                vec!['\\', c]
            } else {
                vec![c]
            }
        })
        .collect()
}

fn outcome(result: Result<Value, toolforge::ToolError>) -> Value {
    match result {
        Ok(value) => value,
        Err(error) => json!({"error": error.code, "message": error.message}),
    }
}

#[test]
fn corpus_configs_answer_alike_on_sqlite_and_postgres() {
    let Some(base) =
        pg_support::url("e2e_postgres::corpus_configs_answer_alike_on_sqlite_and_postgres")
    else {
        return;
    };
    let mut total = 0;
    let mut answered = 0;
    for (name, config_file, fixture) in CONFIGS {
        let sqlite = seeded(config_file, fixture);
        let (pg, url) = pg_support::fresh(&base, &format!("corpus_{name}"));
        let spec: Arc<SchemaSpec> = sqlite.spec.clone();
        let created = pg.init(&spec).expect("init");
        assert!(!created.created.is_empty());
        assert!(pg.init(&spec).expect("init again").created.is_empty());
        let data = std::fs::read(fixtures_dir().join(fixture)).expect("fixture");
        pg.import_jsonl(&spec, data.as_slice())
            .unwrap_or_else(|e| panic!("{fixture}: {e}"));
        // The registry `toolforge call --db postgres://...` builds.
        let live = dynamic::load(
            &sqlite.config,
            std::path::Path::new(&url),
            &e2e_support::options(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let registry: Arc<ToolRegistry> = live.registry;
        let lines: Vec<Value> = String::from_utf8(data)
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let calls = calls(&spec, &lines);
        let runtime = e2e_support::runtime();
        for (tool, arguments) in &calls {
            let expected = outcome(runtime.block_on(sqlite.registry.call(tool, arguments.clone())));
            let found = runtime.block_on(registry.call(tool, arguments.clone()));
            if let (Ok(answer), Some(registered)) = (&found, registry.get(tool)) {
                toolforge_tests::assert_answer_matches_output_schema(
                    registered.definition(),
                    arguments,
                    answer,
                );
            }
            let found = outcome(found);
            assert_eq!(found, expected, "{name}: {tool} {arguments}");
            answered += usize::from(expected.get("error").is_none());
        }
        total += calls.len();
    }
    eprintln!("{total} calls, {answered} answered");
    assert!(total > 1_000, "only {total} calls");
    assert!(
        answered * 10 > total * 8,
        "only {answered} of {total} calls were answered"
    );
}
