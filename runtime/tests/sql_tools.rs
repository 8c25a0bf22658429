//! Every database tool and every operator, end to end on seeded data.
#![cfg(feature = "sqlite")]

use crate::sql_fixtures;

use std::sync::Arc;

use serde_json::{Value, json};
use sql_fixtures::{dump, seeded};
use toolforge::sql::tools::database_tools;
use toolforge::{ErrorCode, Tool, ToolContext, ToolResult};

struct Fixture {
    _dir: tempfile::TempDir,
    db: toolforge::sql::Database,
    tools: Vec<Arc<dyn Tool>>,
}

fn fixture() -> Fixture {
    let (dir, spec, db) = seeded();
    let tools = database_tools(spec, db.clone());
    Fixture {
        _dir: dir,
        db,
        tools,
    }
}

impl Fixture {
    async fn call(&self, name: &str, arguments: Value) -> ToolResult {
        let tool = self
            .tools
            .iter()
            .find(|t| t.definition().name == name)
            .unwrap_or_else(|| panic!("no tool {name}"));
        tool.call(arguments, &ToolContext::new()).await
    }

    async fn ids(&self, entity: &str, conditions: Value) -> Vec<String> {
        let answer = self
            .call(
                "query_entities",
                json!({"entity_type": entity, "conditions": conditions, "limit": 100}),
            )
            .await
            .unwrap_or_else(|e| panic!("{conditions}: {e}"));
        answer["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["uuid"].as_str().unwrap().to_string())
            .collect()
    }

    async fn error(&self, name: &str, arguments: Value) -> toolforge::ToolError {
        self.call(name, arguments.clone())
            .await
            .expect_err(&format!("{name} {arguments} should fail"))
    }
}

fn cond(field: &str, operator: &str, value: Value) -> Value {
    json!([{"field": field, "operator": operator, "value": value}])
}

#[tokio::test]
async fn tool_set_and_definitions() {
    let f = fixture();
    let names: Vec<&str> = f
        .tools
        .iter()
        .map(|t| t.definition().name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "get_schema",
            "describe_entity",
            "query_entities",
            "get_entity_by_id",
            "get_entities_by_ids",
            "explore_relationships",
            "join_entities",
            "glob_search",
            "query_entities_by_pattern"
        ]
    );
    for tool in &f.tools {
        let definition = tool.definition();
        assert_eq!(definition.annotations.read_only, Some(true));
        assert_eq!(definition.annotations.idempotent, Some(true));
        // Every property has a description.
        for (name, property) in definition.input_schema["properties"].as_object().unwrap() {
            assert!(
                property["description"].is_string(),
                "{}.{name} lacks a description",
                definition.name
            );
        }
        jsonschema::validator_for(&definition.input_schema).expect("valid JSON Schema");
    }
    let query = f.tools[2].definition();
    assert_eq!(
        query.input_schema["properties"]["entity_type"]["enum"],
        json!(["Scope", "File"])
    );
    assert_eq!(query.input_schema["properties"]["limit"]["maximum"], 100);
    let description = &query.description;
    for needle in [
        "Scope (unique field uuid), File (unique field path)",
        "call describe_entity (one entity) or get_schema (all)",
        "STARTS WITH",
        "Example call: ",
        "\"entity_type\":\"Scope\"",
    ] {
        assert!(
            description.contains(needle),
            "missing {needle} in\n{description}"
        );
    }
    // The field catalogue lives in describe_entity and get_schema, not in the description.
    assert!(
        !description.contains("Starting line number"),
        "{description}"
    );
    // The example call in the description is itself a valid call.
    let example: Value =
        serde_json::from_str(description.rsplit("Example call: ").next().unwrap()).unwrap();
    f.call("query_entities", example).await.unwrap();
    let explore = f.tools[6].definition();
    assert!(explore.description.contains("Scope -[CONSUMES]-> Scope"));
}

/// A spec far larger than any real config: many entities with long names, many fields,
/// hierarchies everywhere, many relationships with long descriptions.
fn huge_spec(families: Value) -> toolforge::spec::SchemaSpec {
    let entities: Vec<Value> = (0..60)
        .map(|i| {
            let name = format!("AnEntityWithARatherLongDescriptiveName{i}");
            let mut fields = vec![json!({"name": "uuid", "type": "string", "unique": true})];
            for j in 0..40 {
                fields.push(json!({
                    "name": format!("a_field_with_a_long_name_{j}"),
                    "type": if j % 2 == 0 { "string" } else { "number" },
                    "description": "x".repeat(200),
                }));
            }
            json!({
                "name": name, "table": format!("t{i}"), "unique_field": "uuid",
                "description": "y".repeat(500), "fields": fields,
                "hierarchy": {"relationship": "HAS_PARENT", "child_is_source": true,
                              "content_field": "a_field_with_a_long_name_0"}
            })
        })
        .collect();
    let relationships: Vec<Value> = (0..120)
        .map(|i| {
            json!({
                "source": format!("AnEntityWithARatherLongDescriptiveName{}", i % 60),
                "type": format!("A_LONG_RELATIONSHIP_TYPE_{i}"),
                "target": format!("AnEntityWithARatherLongDescriptiveName{}", (i + 1) % 60),
                "table": format!("e{i}"),
                "description": "z".repeat(300),
            })
        })
        .collect();
    serde_json::from_value(json!({
        "name": "huge", "entities": entities, "relationships": relationships,
        "tools": {"name_prefix": "a_rather_long_prefix_", "default_limit": 20,
                  "max_limit": 100, "families": families}
    }))
    .unwrap()
}

#[test]
fn descriptions_fit_1024_characters_in_every_dialect_even_for_huge_specs() {
    use toolforge::dialect::{Dialect, MAX_DESCRIPTION_CHARS, export};
    let fixture_spec = sql_fixtures::code_rag_spec();
    let specs = [
        huge_spec(json!(["schema", "query", "lookup", "relationships"])),
        huge_spec(json!(["query", "lookup", "relationships"])),
        fixture_spec,
    ];
    for spec in &specs {
        for definition in toolforge::sql::registry_definitions(spec) {
            let length = definition.description.chars().count();
            assert!(
                length <= MAX_DESCRIPTION_CHARS,
                "{} has {length} characters:\n{}",
                definition.name,
                definition.description
            );
            for dialect in Dialect::ALL {
                let exported = export(&definition, dialect);
                let text = exported["description"]
                    .as_str()
                    .or(exported["function"]["description"].as_str())
                    .unwrap();
                assert!(text.chars().count() <= MAX_DESCRIPTION_CHARS, "{dialect:?}");
            }
        }
    }
    // Without get_schema / describe_entity, the description lists fields itself, as far as
    // they fit.
    let without_schema = toolforge::sql::registry_definitions(&specs[1]);
    let query = &without_schema[0];
    assert!(query.name.ends_with("query_entities"));
    assert!(
        query.description.contains("Fields of each entity: "),
        "{}",
        query.description
    );
    assert!(
        query.description.contains(" more."),
        "{}",
        query.description
    );
}

#[test]
fn every_database_tool_exports_as_openai_strict() {
    use toolforge::dialect::{Dialect, export, is_openai_strict_compatible};
    let f = fixture();
    for tool in &f.tools {
        let exported = export(tool.definition(), Dialect::OpenAiChat);
        assert_eq!(
            exported["function"]["strict"],
            true,
            "{} is exported non-strict",
            tool.definition().name
        );
        is_openai_strict_compatible(&exported["function"]["parameters"]).unwrap();
    }
}

#[tokio::test]
async fn name_prefix_and_families_are_honoured() {
    let (_dir, spec, db) = seeded();
    let mut spec = (*spec).clone();
    spec.tools.name_prefix = "code_".into();
    spec.tools.families = vec![toolforge::spec::ToolFamily::Lookup];
    let tools = database_tools(Arc::new(spec), db);
    let names: Vec<&str> = tools.iter().map(|t| t.definition().name.as_str()).collect();
    assert_eq!(names, ["code_get_entity_by_id", "code_get_entities_by_ids"]);
}

#[tokio::test]
async fn schema_tools() {
    let f = fixture();
    let schema = f.call("get_schema", json!({})).await.unwrap();
    assert_eq!(schema["entities"][0]["name"], "Scope");
    assert_eq!(
        schema["entities"][0]["fields"][0],
        json!({"name": "uuid", "type": "string", "unique": true, "description": "Stable id"})
    );
    assert_eq!(
        schema["relationships"][0]["pattern"],
        "Scope -[DEFINED_IN]-> File"
    );
    assert!(schema["tips"].is_array());
    let no_tips = f
        .call("get_schema", json!({"include_tips": false}))
        .await
        .unwrap();
    assert!(no_tips.get("tips").is_none());
    // Part of the schema: the entities asked for and the relationships touching them.
    let files = f
        .call("get_schema", json!({"entity_types": ["File"]}))
        .await
        .unwrap();
    let entities: Vec<&Value> = files["entities"].as_array().unwrap().iter().collect();
    assert_eq!(entities.len(), 1);
    assert_eq!(entities[0]["name"], "File");
    let patterns: Vec<&str> = files["relationships"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["pattern"].as_str().unwrap())
        .collect();
    assert_eq!(patterns, ["Scope -[DEFINED_IN]-> File"]);
    let unknown = f
        .error("get_schema", json!({"entity_types": ["File", "Fil"]}))
        .await;
    assert_eq!(unknown.code, ErrorCode::InvalidArguments);
    assert!(unknown.message.contains("entity_types[1]"), "{unknown}");
    let scope = f
        .call("describe_entity", json!({"entity_name": "Scope"}))
        .await
        .unwrap();
    assert_eq!(
        scope["computed_fields"][0]["computes"],
        "endLine - startLine + 1"
    );
    assert_eq!(
        scope["relationships"]["incoming"],
        json!(["Scope -[CONSUMES]-> Scope", "Scope -[HAS_PARENT]-> Scope"])
    );
    let error = f
        .error("describe_entity", json!({"entity_name": "Scop"}))
        .await;
    assert_eq!(error.code, ErrorCode::InvalidArguments);
    assert!(
        error.message.contains("Did you mean `Scope`?"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn query_results_carry_typed_fields_and_counts() {
    let f = fixture();
    let answer = f
        .call(
            "query_entities",
            json!({"entity_type": "Scope", "conditions": cond("uuid", "=", json!("s1"))}),
        )
        .await
        .unwrap();
    assert_eq!(answer["total"], 1);
    assert_eq!(answer["returned"], 1);
    assert_eq!(answer["truncated"], false);
    let record = &answer["results"][0];
    assert_eq!(
        *record,
        json!({
            "uuid": "s1", "name": "parseConfig", "type": "function", "file": "src/a.ts",
            "startLine": 1, "endLine": 150, "source": "function parseConfig() { return 1; }",
            "tags": ["parser", "config"], "kind": "function", "created_at": "2024-05-01T12:00:00Z",
            "is_exported": true, "line_count": 150, "is_large": true, "char_count": 36
        })
    );
    assert!(
        record.get("embedding").is_none(),
        "never returns vector blobs"
    );
    let page = f
        .call(
            "query_entities",
            json!({"entity_type": "Scope", "limit": 2}),
        )
        .await
        .unwrap();
    assert_eq!(
        (
            page["total"].as_u64(),
            page["returned"].as_u64(),
            page["truncated"].as_bool()
        ),
        (Some(5), Some(2), Some(true))
    );
    assert_eq!(page["results"][0]["uuid"], "s1");
    assert_eq!(page["results"][1]["uuid"], "s2");
    let default_limit = f
        .call("query_entities", json!({"entity_type": "Scope"}))
        .await
        .unwrap();
    assert_eq!(default_limit["returned"], 5);
}

#[tokio::test]
async fn every_operator() {
    let f = fixture();
    let cases: Vec<(&str, &str, Value, Vec<&str>)> = vec![
        ("name", "=", json!("Parser"), vec!["s2"]),
        ("name", "=", json!("parser"), vec![]),
        ("type", "!=", json!("function"), vec!["s2", "s3"]),
        ("type", "=", Value::Null, vec!["s5"]),
        ("type", "!=", Value::Null, vec!["s1", "s2", "s3", "s4"]),
        ("startLine", ">", json!(5), vec!["s2", "s3"]),
        ("startLine", ">=", json!(5), vec!["s2", "s3", "s4"]),
        ("startLine", "<", json!(10), vec!["s1", "s4"]),
        ("startLine", "<=", json!(10.0), vec!["s1", "s2", "s4"]),
        (
            "created_at",
            ">",
            json!("2024-05-01T13:00:00+02:00"),
            vec!["s1", "s2", "s3"],
        ),
        ("created_at", "<", json!("2024-05-01"), vec!["s4"]),
        (
            "created_at",
            "=",
            json!("2024-05-02T02:00:00+02:00"),
            vec!["s2"],
        ),
        ("name", "<", json!("a"), vec!["s2"]),
        ("name", "CONTAINS", json!("arse"), vec!["s1", "s2", "s3"]),
        ("name", "CONTAINS", json!("ARSE"), vec![]),
        ("tags", "CONTAINS", json!("parser"), vec!["s1", "s2"]),
        ("tags", "CONTAINS", json!("pars"), vec![]),
        ("tags", "=", json!(["ui"]), vec!["s4"]),
        ("name", "STARTS WITH", json!("parse"), vec!["s1", "s3"]),
        ("name", "STARTS WITH", json!("render%"), vec!["s4"]),
        ("name", "STARTS WITH", json!("r%"), vec![]),
        ("name", "STARTS WITH", json!("_"), vec![]),
        ("name", "ENDS WITH", json!("_it"), vec!["s3"]),
        ("name", "ENDS WITH", json!("%_*"), vec!["s4"]),
        ("name", "ENDS WITH", json!("_*"), vec!["s4"]),
        ("name", "ENDS WITH", json!("xparse_it"), vec![]),
        (
            "name",
            "ENDS WITH",
            json!(""),
            vec!["s1", "s2", "s3", "s4", "s5"],
        ),
        ("kind", "IN", json!(["class", "method"]), vec!["s2", "s3"]),
        ("startLine", "IN", json!([1, 12]), vec!["s1", "s3"]),
        ("is_exported", "IN", json!([true]), vec!["s1", "s4"]),
        ("uuid", "IN", json!([]), vec![]),
        ("name", "REGEX", json!("^parse[A-Z]"), vec!["s1"]),
        ("name", "REGEX", json!("(?i)^PARSER$"), vec!["s2"]),
        ("source", "REGEX", json!("\\d+%"), vec!["s4"]),
        (
            "file",
            "GLOB",
            json!("src/?.ts"),
            vec!["s1", "s2", "s3", "s4", "s5"],
        ),
        ("name", "GLOB", json!("*[A-Z]*"), vec!["s1", "s2"]),
        ("is_exported", "=", json!(false), vec!["s2", "s3"]),
        ("line_count", ">", json!(4), vec!["s1", "s2", "s4"]),
        ("is_large", "=", json!(true), vec!["s1"]),
        ("char_count", "<", json!(20), vec!["s3"]),
        ("kind", "=", json!("method"), vec!["s3"]),
    ];
    for (field, operator, value, expected) in cases {
        let got = f.ids("Scope", cond(field, operator, value.clone())).await;
        assert_eq!(got, expected, "{field} {operator} {value}");
    }
    // Several conditions are ANDed.
    let both = f
        .ids(
            "Scope",
            json!([
                {"field": "file", "operator": "=", "value": "src/a.ts"},
                {"field": "line_count", "operator": "<", "value": 100}
            ]),
        )
        .await;
    assert_eq!(both, ["s2", "s3"]);
}

#[tokio::test]
async fn ordering_by_fields_and_computed_fields() {
    let f = fixture();
    let order = |field: &str, direction: &str| json!({"entity_type": "Scope", "order_by": {"field": field, "direction": direction}});
    let ids = |answer: Value| -> Vec<String> {
        answer["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["uuid"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        ids(f
            .call("query_entities", order("line_count", "DESC"))
            .await
            .unwrap()),
        ["s1", "s2", "s4", "s3", "s5"]
    );
    assert_eq!(
        ids(f
            .call("query_entities", order("startLine", "ASC"))
            .await
            .unwrap()),
        ["s5", "s1", "s4", "s2", "s3"]
    );
    assert_eq!(
        ids(f
            .call("query_entities", order("char_count", "DESC"))
            .await
            .unwrap())[0],
        "s1"
    );
    assert_eq!(
        ids(f
            .call("query_entities", order("file", "DESC"))
            .await
            .unwrap()),
        ["s4", "s5", "s1", "s2", "s3"]
    );
}

#[tokio::test]
async fn invalid_queries_are_explained() {
    let f = fixture();
    let cases: Vec<(Value, &str)> = vec![
        (json!({"entity_type": "Scop"}), "Did you mean `Scope`?"),
        (
            json!({"entity_type": "Scope", "conditions": cond("nmae", "=", json!("x"))}),
            "`conditions[0].field`: Unknown field `nmae` on Scope. Did you mean `name`?",
        ),
        (
            json!({"entity_type": "Scope", "conditions": cond("startLine", "=", json!("ten"))}),
            "field `startLine` is number: expected a number, got a string (\"ten\")",
        ),
        (
            json!({"entity_type": "Scope", "conditions": cond("startLine", "CONTAINS", json!(1))}),
            "`CONTAINS` does not apply to `startLine` (number)",
        ),
        (
            json!({"entity_type": "Scope", "conditions": cond("kind", "=", json!("interface"))}),
            "allowed values: \"function\", \"class\", \"method\"",
        ),
        (
            json!({"entity_type": "Scope", "conditions": cond("name", "IN", json!("x"))}),
            "IN needs an array",
        ),
        (
            json!({"entity_type": "Scope", "conditions": cond("name", "REGEX", json!("(unclosed"))}),
            "invalid REGEX pattern \"(unclosed\": unclosed group",
        ),
        (
            json!({"entity_type": "Scope", "conditions": cond("kind", "=", json!(true))}),
            "expected one of the strings \"function\", \"class\", \"method\", got a boolean (true)",
        ),
        (
            json!({"entity_type": "Scope", "conditions": cond("name", "LIKE", json!("x"))}),
            "unknown variant `LIKE`",
        ),
        (
            json!({"entity_type": "Scope", "conditions": cond("created_at", ">", json!("soon"))}),
            "expected a datetime",
        ),
        (
            json!({"entity_type": "Scope", "conditions": cond("embedding", "=", json!("x"))}),
            "embedding column",
        ),
        (
            json!({"entity_type": "Scope", "conditions": cond("name", ">", Value::Null)}),
            "needs a value",
        ),
        (
            json!({"entity_type": "Scope", "conditions": cond("tags", "CONTAINS", json!(3))}),
            "looks for one element",
        ),
        (
            json!({"entity_type": "Scope", "order_by": {"field": "lines"}}),
            "`order_by.field`",
        ),
        (
            json!({"entity_type": "Scope", "limit": 0}),
            "`limit` must be between 1 and 100",
        ),
        (
            json!({"entity_type": "Scope", "limit": 101}),
            "`limit` must be between 1 and 100",
        ),
        (
            json!({"entity_type": "Scope", "bogus": 1}),
            "unknown field `bogus`",
        ),
        (
            json!({"entity_type": "Scope", "order_by": {"field": "tags"}}),
            "`order_by.field`: `tags` is an array<string> field, and arrays have no order",
        ),
    ];
    for (arguments, needle) in cases {
        let error = f.error("query_entities", arguments.clone()).await;
        assert_eq!(error.code, ErrorCode::InvalidArguments, "{arguments}");
        assert!(
            error.message.contains(needle),
            "{arguments}: `{}` should contain `{needle}`",
            error.message
        );
    }
}

#[tokio::test]
async fn regex_errors_are_one_readable_line() {
    let f = fixture();
    let error = f
        .error(
            "query_entities",
            json!({"entity_type": "Scope", "conditions": cond("name", "REGEX", json!("(\u{1}\n"))}),
        )
        .await;
    assert_eq!(
        error.message,
        "`conditions[0].value`: invalid REGEX pattern \"(\\u{1}\\n\": unclosed group"
    );
    assert!(!error.message.contains('\u{FFFD}'));
}

#[tokio::test]
async fn glob_search_tool() {
    let f = fixture();
    let answer = f
        .call(
            "glob_search",
            json!({"entity_type": "File", "field": "path", "pattern": "src/[a]*"}),
        )
        .await
        .unwrap();
    assert_eq!(answer["total"], 1);
    assert_eq!(
        answer["results"][0],
        json!({"path": "src/a.ts", "language": "typescript"})
    );
    let limited = f
        .call(
            "glob_search",
            json!({"entity_type": "Scope", "field": "file", "pattern": "*.ts", "limit": 3}),
        )
        .await
        .unwrap();
    assert_eq!(
        (
            limited["total"].as_u64(),
            limited["returned"].as_u64(),
            limited["truncated"].as_bool()
        ),
        (Some(5), Some(3), Some(true))
    );
    let error = f
        .error(
            "glob_search",
            json!({"entity_type": "Scope", "field": "startLine", "pattern": "1*"}),
        )
        .await;
    // glob_search takes no operator: it names the entity's text fields, never operators.
    assert!(
        error.message.contains(
            "glob_search matches text fields, and `startLine` is a number field of Scope"
        ),
        "{}",
        error.message
    );
    assert!(
        error.message.contains("name, type, file"),
        "{}",
        error.message
    );
    assert!(
        !error.message.contains("use one of: ="),
        "{}",
        error.message
    );
    assert_eq!(error.details.unwrap()["valid"][0], "uuid");
    assert!(error.message.starts_with("`field`:"), "{}", error.message);
    let too_long = f
        .error(
            "glob_search",
            json!({"entity_type": "File", "field": "path", "pattern": "*".repeat(50_001)}),
        )
        .await;
    // The error names the tool's own argument, not the condition it is compiled to.
    assert!(
        too_long.message.starts_with("`pattern`:"),
        "{}",
        too_long.message
    );
}

#[tokio::test]
async fn lookup_tools() {
    let f = fixture();
    let one = f
        .call(
            "get_entity_by_id",
            json!({"entity_type": "File", "id_value": "src/b.ts"}),
        )
        .await
        .unwrap();
    assert_eq!(
        one,
        json!({"entity_type": "File", "record": {"path": "src/b.ts", "language": "typescript"}})
    );
    let missing = f
        .error(
            "get_entity_by_id",
            json!({"entity_type": "File", "id_value": "nope"}),
        )
        .await;
    assert_eq!(missing.code, ErrorCode::NotFound);
    assert_eq!(missing.message, "No File has path \"nope\".");

    let many = f
        .call("get_entities_by_ids", json!({"entity_type": "Scope", "ids": ["s3", "zz", "s1"], "fields": ["name", "line_count"]}))
        .await
        .unwrap();
    assert_eq!(
        many,
        json!({"entity_type": "Scope", "requested": 3, "offset": 0, "returned": 2, "missing": ["zz"],
               "truncated": false, "has_more": false, "next_offset": null, "results": [
            {"uuid": "s3", "name": "parse_it", "line_count": 3},
            {"uuid": "s1", "name": "parseConfig", "line_count": 150}
        ]})
    );
    let children = f
        .call("get_entities_by_ids", json!({"entity_type": "Scope", "ids": ["s2", "s1"], "fields": ["name"], "with_children": true}))
        .await
        .unwrap();
    assert_eq!(
        children["results"][0]["children"],
        json!([{"entity_type": "Scope", "uuid": "s3", "source": "parse_it() {}"}])
    );
    assert_eq!(children["results"][1]["children"], json!([]));
    let error = f
        .error(
            "get_entities_by_ids",
            json!({"entity_type": "Scope", "ids": ["s1"], "fields": ["nam"]}),
        )
        .await;
    assert!(
        error.message.contains("`fields[0]`") && error.message.contains("Did you mean `name`?"),
        "{}",
        error.message
    );
    let error = f
        .error(
            "get_entities_by_ids",
            json!({"entity_type": "File", "ids": ["src/a.ts"], "with_children": true}),
        )
        .await;
    assert!(
        error.message.contains("File has no hierarchy"),
        "{}",
        error.message
    );
    let error = f
        .error(
            "get_entities_by_ids",
            json!({"entity_type": "File", "ids": []}),
        )
        .await;
    assert!(error.message.contains("1 to 100"), "{}", error.message);
}

#[tokio::test]
async fn explore_relationships_tool() {
    let f = fixture();
    let out = f
        .call(
            "explore_relationships",
            json!({
                "start_entity_type": "Scope",
                "start_conditions": cond("name", "STARTS WITH", json!("parse")),
                "relationship_type": "DEFINED_IN",
                "direction": "outgoing",
                "target_entity_type": "File"
            }),
        )
        .await
        .unwrap();
    assert_eq!(out["total"], 2);
    assert_eq!(
        out["results"][0],
        json!({
            "from": "s1", "relationship": "Scope -[DEFINED_IN]-> File", "direction": "outgoing",
            "entity_type": "File", "record": {"path": "src/a.ts", "language": "typescript"}
        })
    );
    assert_eq!(out["results"][1]["from"], "s3");
    // Incoming: which scopes are defined in src/a.ts?
    let incoming = f
        .call(
            "explore_relationships",
            json!({
                "start_entity_type": "File",
                "start_conditions": cond("path", "=", json!("src/a.ts")),
                "relationship_type": "DEFINED_IN",
                "direction": "incoming"
            }),
        )
        .await
        .unwrap();
    let from: Vec<&str> = incoming["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["record"]["uuid"].as_str().unwrap())
        .collect();
    assert_eq!(from, ["s1", "s2", "s3"]);
    // Both directions on a self-relationship, with edge properties.
    let both = f
        .call(
            "explore_relationships",
            json!({
                "start_entity_type": "Scope",
                "start_conditions": cond("uuid", "=", json!("s1")),
                "relationship_type": "CONSUMES",
                "direction": "both",
                "limit": 1
            }),
        )
        .await
        .unwrap();
    assert_eq!(
        (
            both["total"].as_u64(),
            both["returned"].as_u64(),
            both["truncated"].as_bool()
        ),
        (Some(2), Some(1), Some(true))
    );
    assert_eq!(both["results"][0]["properties"], json!({"weight": 2}));
    assert_eq!(both["results"][0]["record"]["uuid"], "s2");
    let all = f
        .call("explore_relationships", json!({"start_entity_type": "Scope", "start_conditions": cond("uuid", "=", json!("s1")), "relationship_type": "CONSUMES"}))
        .await
        .unwrap();
    let directions: Vec<(&str, &str)> = all["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["direction"].as_str().unwrap(),
                r["record"]["uuid"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(directions, [("outgoing", "s2"), ("incoming", "s4")]);
    // Validation.
    let error = f
        .error(
            "explore_relationships",
            json!({"start_entity_type": "Scope", "relationship_type": "DEFINED"}),
        )
        .await;
    assert!(
        error.message.contains("Did you mean `DEFINED_IN`?"),
        "{}",
        error.message
    );
    let error = f.error("explore_relationships", json!({"start_entity_type": "File", "relationship_type": "DEFINED_IN", "direction": "outgoing"})).await;
    assert!(
        error
            .message
            .contains("No relationship matches File -[DEFINED_IN]-> *")
            && error.message.contains("Scope -[DEFINED_IN]-> File"),
        "{}",
        error.message
    );
    let error = f.error("explore_relationships", json!({"start_entity_type": "Scope", "relationship_type": "DEFINED_IN", "target_entity_type": "Scope"})).await;
    assert!(
        error.message.contains("No relationship matches"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn a_start_by_its_id_answers_as_any_other_start_conditions() {
    // `uuid = X` filters the edges by X directly; `uuid IN [X]` goes through the start table.
    // Both answer the same page, in every direction, paged or not, for a record with edges,
    // one without and an id no record has.
    let f = fixture();
    for (entity, id, relationship) in [
        ("Scope", "s1", "CONSUMES"),
        ("Scope", "s2", "CONSUMES"),
        ("File", "src/a.ts", "DEFINED_IN"),
        ("Scope", "s3", "HAS_PARENT"),
        ("Scope", "no-such-scope", "CONSUMES"),
    ] {
        for direction in ["outgoing", "incoming", "both"] {
            for (limit, offset) in [(20, 0), (1, 0), (1, 1)] {
                let call = |operator: &str, value: Value| {
                    json!({"start_entity_type": entity,
                           "start_conditions": cond(uuid_of(entity), operator, value),
                           "relationship_type": relationship, "direction": direction,
                           "limit": limit, "offset": offset})
                };
                let by_id = f.call("explore_relationships", call("=", json!(id))).await;
                let by_list = f
                    .call("explore_relationships", call("IN", json!([id])))
                    .await;
                match (by_id, by_list) {
                    (Ok(by_id), Ok(by_list)) => assert_eq!(
                        by_id, by_list,
                        "{entity} {id} {relationship} {direction} {limit} {offset}"
                    ),
                    (Err(by_id), Err(by_list)) => assert_eq!(by_id.message, by_list.message),
                    (by_id, by_list) => panic!("{entity} {id}: {by_id:?} against {by_list:?}"),
                }
            }
        }
    }
}

#[tokio::test]
async fn hops_list_the_other_ends_in_the_order_of_their_ids() {
    // The other ends come in the order of their ids, which are text whatever the unique
    // field's type ("10" before "2"): the edge's column and the record's field hold the same.
    let spec: toolforge::spec::SchemaSpec = serde_json::from_value(json!({
        "name": "shelves",
        "entities": [
            {"name": "Shelf", "table": "shelf", "unique_field": "code",
             "fields": [{"name": "code", "type": "string", "unique": true}]},
            {"name": "Item", "table": "item", "unique_field": "n",
             "fields": [{"name": "n", "type": "number", "unique": true},
                        {"name": "label", "type": "string"}]}
        ],
        "relationships": [
            {"type": "HOLDS", "source": "Shelf", "target": "Item", "table": "shelf__holds__item"}
        ],
        "tools": {"name_prefix": "", "default_limit": 10, "max_limit": 100,
                  "families": ["relationships"]}
    }))
    .unwrap();
    let spec = Arc::new(spec);
    let dir = tempfile::tempdir().unwrap();
    let db = toolforge::sql::Database::open(dir.path().join("s.db")).unwrap();
    db.init(&spec).unwrap();
    let mut lines = vec![
        json!({"entity": "Shelf", "data": {"code": "b"}}),
        json!({"entity": "Shelf", "data": {"code": "a"}}),
    ];
    for n in [10, 2, 9] {
        lines.push(
            json!({"entity": "Item", "data": {"n": n.to_string(), "label": format!("item {n}")}}),
        );
        for shelf in ["a", "b"] {
            lines.push(
                json!({"relationship": "HOLDS", "from": {"entity": "Shelf", "id": shelf},
                              "to": {"entity": "Item", "id": n.to_string()}}),
            );
        }
    }
    db.import_jsonl(&spec, sql_fixtures::jsonl(&lines).as_bytes())
        .unwrap();
    let f = Fixture {
        tools: database_tools(spec, db.clone()),
        _dir: dir,
        db,
    };
    let ends = |answer: &Value, key: &str| -> Vec<Value> {
        answer["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[key].clone())
            .collect()
    };
    let forward = f
        .call(
            "explore_relationships",
            json!({"start_entity_type": "Shelf", "relationship_type": "HOLDS",
                   "start_conditions": cond("code", "IN", json!(["a", "b"])),
                   "direction": "outgoing"}),
        )
        .await
        .unwrap();
    let numbers: Vec<Value> = ends(&forward, "record")
        .iter()
        .map(|r| r["n"].clone())
        .collect();
    assert_eq!(
        numbers,
        ["10", "2", "9", "10", "2", "9"].map(|n| json!(n)),
        "{forward}"
    );
    assert_eq!(
        ends(&forward, "from"),
        ["a", "a", "a", "b", "b", "b"].map(|s| json!(s))
    );
    let back = f
        .call(
            "explore_relationships",
            json!({"start_entity_type": "Item", "relationship_type": "HOLDS",
                   "start_conditions": cond("n", "=", json!("9")),
                   "direction": "incoming", "limit": 1, "offset": 1}),
        )
        .await
        .unwrap();
    let codes: Vec<Value> = ends(&back, "record")
        .iter()
        .map(|r| r["code"].clone())
        .collect();
    assert_eq!(codes, [json!("b")], "{back}");
}

/// The unique field of the fixture's entities.
fn uuid_of(entity: &str) -> &'static str {
    match entity {
        "File" => "path",
        _ => "uuid",
    }
}

#[tokio::test]
async fn sqlite_errors_are_structured_without_sql_or_paths() {
    let (dir, spec, db) = seeded();
    // A computed field whose SQL fails at run time (an unknown function) stands in for any
    // SQLite failure.
    let mut broken = (*spec).clone();
    broken.entities[0].computed_fields[0].sql = "no_such_function(\"n\".\"startLine\")".into();
    let tools = database_tools(Arc::new(broken), db.clone());
    let query = tools
        .iter()
        .find(|t| t.definition().name == "query_entities")
        .unwrap();
    let error = query
        .call(json!({"entity_type": "Scope"}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::ExecutionFailed);
    let text = error.to_json().to_string();
    for leak in [
        "SELECT",
        "no_such_function",
        "\"n\"",
        dir.path().to_str().unwrap(),
        ".db",
    ] {
        assert!(!text.contains(leak), "{text} leaks {leak}");
    }
    assert!(text.contains("SQLite"), "{text}");
}

#[tokio::test]
async fn tools_never_write() {
    let f = fixture();
    let before = dump(&f.db);
    let _ = f.call("query_entities", json!({"entity_type": "Scope", "conditions": cond("name", "=", json!("x'); DELETE FROM scope; --"))})).await;
    assert_eq!(before, dump(&f.db));
    // The pool's connections refuse writes even when asked directly.
    let refused =
        f.db.read_blocking(|c| c.execute("DELETE FROM file", []))
            .expect("a SQLite read");
    assert!(refused.is_err());
    assert_eq!(before, dump(&f.db));
}

/// Where calls meet: each arrival waits until `parties` have arrived (or 10 s have passed).
struct Meeting {
    parties: usize,
    arrived: std::sync::Mutex<usize>,
    all_here: std::sync::Condvar,
}

impl Meeting {
    /// Arrives and waits; 1 when every party met, 0 when the wait ran out first.
    fn meet(&self) -> i64 {
        let mut arrived = self.arrived.lock().unwrap();
        *arrived += 1;
        self.all_here.notify_all();
        let (arrived, _) = self
            .all_here
            .wait_timeout_while(arrived, std::time::Duration::from_secs(10), |arrived| {
                *arrived < self.parties
            })
            .unwrap();
        i64::from(*arrived >= self.parties)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn calls_run_in_parallel_on_the_pool() {
    let (dir, spec, db) = seeded();
    let parties = db.reader_count();
    assert!(parties >= 2, "{parties} pooled readers");
    // `meet()` on every pooled connection: as many reads at once as there are connections,
    // each keeping its connection until all have registered the function (so each read has
    // its own), which also proves the pool hands them out in parallel.
    let meeting = Arc::new(Meeting {
        parties,
        arrived: std::sync::Mutex::new(0),
        all_here: std::sync::Condvar::new(),
    });
    let registered = Arc::new(Meeting {
        parties,
        arrived: std::sync::Mutex::new(0),
        all_here: std::sync::Condvar::new(),
    });
    let mut reads = Vec::new();
    for _ in 0..parties {
        let (meeting, registered, db) = (meeting.clone(), registered.clone(), db.clone());
        reads.push(tokio::spawn(async move {
            db.read(move |conn| {
                conn.create_scalar_function(
                    "meet",
                    0,
                    rusqlite::functions::FunctionFlags::SQLITE_UTF8,
                    move |_| Ok(meeting.meet()),
                )
                .unwrap();
                registered.meet()
            })
            .await
        }));
    }
    for read in reads {
        assert_eq!(
            read.await.unwrap().unwrap(),
            1,
            "the pool gave {parties} reads at once"
        );
    }
    // A tool whose statement meets the others inside SQLite: its calls can only all answer
    // met = 1 if as many run at once, each on its own pooled connection.
    let mut with_meeting = (*spec).clone();
    with_meeting.declared_tools.push(
        serde_json::from_value(json!({
            "name": "meet", "description": "Meets the other calls.", "limit": 1,
            "sql": {"sqlite": "SELECT meet() AS \"met\""}
        }))
        .unwrap(),
    );
    let f = Arc::new(Fixture {
        _dir: dir,
        tools: database_tools(Arc::new(with_meeting), db.clone()),
        db,
    });
    let mut meetings = Vec::new();
    for _ in 0..parties {
        let f = f.clone();
        meetings.push(tokio::spawn(async move { f.call("meet", json!({})).await }));
    }
    for meeting in meetings {
        let answer = meeting.await.unwrap().expect("answered");
        assert_eq!(answer["rows"][0]["met"], 1, "{answer}");
    }
    // Many more calls than connections, at once: each answers as alone.
    let mut handles = Vec::new();
    for i in 0..32 {
        let f = f.clone();
        handles.push(tokio::spawn(async move {
            let n = f
                .ids("Scope", cond("startLine", ">=", json!(i % 3)))
                .await
                .len();
            (i, n)
        }));
    }
    for handle in handles {
        let (i, n) = handle.await.unwrap();
        // startLine values: 1, 10, 12, 5 and one missing.
        assert_eq!(n, if i % 3 == 2 { 3 } else { 4 }, "call {i}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_call_interrupts_its_query() {
    let (_dir, _spec, db) = seeded();
    let (sender, receiver) = std::sync::mpsc::channel();
    let slow = db.read(move |conn| {
        let result: rusqlite::Result<i64> = conn.query_row(
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
            [],
            |r| r.get(0),
        );
        let _ = sender.send(result.is_err());
    });
    let timed_out = tokio::time::timeout(std::time::Duration::from_millis(200), slow).await;
    assert!(timed_out.is_err(), "the endless query cannot finish");
    let interrupted = tokio::task::spawn_blocking(move || {
        receiver.recv_timeout(std::time::Duration::from_secs(10))
    })
    .await
    .unwrap();
    assert_eq!(interrupted, Ok(true), "the statement was interrupted");
    // Every pooled connection works afterwards.
    for _ in 0..db.reader_count() * 2 {
        let n: i64 = db
            .read(|c| {
                c.query_row("SELECT count(*) FROM scope", [], |r| r.get(0))
                    .unwrap()
            })
            .await
            .unwrap();
        assert_eq!(n, 5);
    }
}

#[tokio::test]
async fn field_arguments_are_enums_of_the_config_names() {
    let (_dir, spec, db) = seeded();
    let definitions = toolforge::sql::registry_definitions(&spec);
    let schema_of = |name: &str| {
        definitions
            .iter()
            .find(|d| d.name == name)
            .unwrap()
            .input_schema
            .clone()
    };
    let scope_and_file = json!([
        "uuid",
        "name",
        "type",
        "file",
        "startLine",
        "endLine",
        "source",
        "tags",
        "kind",
        "created_at",
        "is_exported",
        "line_count",
        "is_large",
        "char_count",
        "path",
        "language"
    ]);
    let query = schema_of("query_entities");
    let condition_field = &query["properties"]["conditions"]["items"]["properties"]["field"];
    assert_eq!(condition_field["enum"], scope_and_file);
    assert_eq!(condition_field["type"], "string");
    // Arrays cannot be sorted: `tags` is not offered.
    assert_eq!(
        query["properties"]["order_by"]["properties"]["field"]["enum"],
        json!([
            "uuid",
            "name",
            "type",
            "file",
            "startLine",
            "endLine",
            "source",
            "kind",
            "created_at",
            "is_exported",
            "line_count",
            "is_large",
            "char_count",
            "path",
            "language"
        ])
    );
    let explore = schema_of("explore_relationships");
    assert_eq!(
        explore["properties"]["start_conditions"]["items"]["properties"]["field"]["enum"],
        scope_and_file
    );
    assert_eq!(
        schema_of("get_entities_by_ids")["properties"]["fields"]["items"]["enum"],
        scope_and_file
    );
    // glob_search: text fields only (stored string, enum and datetime fields).
    assert_eq!(
        schema_of("glob_search")["properties"]["field"]["enum"],
        json!([
            "uuid",
            "name",
            "type",
            "file",
            "source",
            "kind",
            "created_at",
            "path",
            "language"
        ])
    );

    let registry = toolforge::sql::registry(spec, db).unwrap();
    // A name no entity has is refused by the schema, naming the nearest and the valid names.
    let error = registry
        .call(
            "query_entities",
            json!({"entity_type": "Scope", "conditions": [{"field": "nmae", "operator": "=", "value": "x"}]}),
        )
        .await
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidArguments);
    assert!(
        error.message.contains("(did you mean \"name\"?)"),
        "{}",
        error.message
    );
    let problem = &error.details.unwrap()["problems"][0];
    assert_eq!(problem["path"], "/conditions/0/field");
    assert_eq!(problem["did_you_mean"], json!(["name"]));
    assert_eq!(problem["allowed"], scope_and_file);
    for (tool, arguments, path) in [
        (
            "query_entities",
            json!({"entity_type": "Scope", "order_by": {"field": "line_cont"}}),
            "/order_by/field",
        ),
        (
            "glob_search",
            json!({"entity_type": "Scope", "field": "startLine", "pattern": "1*"}),
            "/field",
        ),
        (
            "get_entities_by_ids",
            json!({"entity_type": "Scope", "ids": ["s1"], "fields": ["nmae"]}),
            "/fields/0",
        ),
    ] {
        let error = registry.call(tool, arguments).await.unwrap_err();
        assert_eq!(
            error.details.unwrap()["problems"][0]["path"],
            path,
            "{tool}"
        );
    }
    // A field of another entity passes the schema; the engine names the entity's own fields.
    let error = registry
        .call(
            "query_entities",
            json!({"entity_type": "File", "conditions": [{"field": "name", "operator": "=", "value": "x"}]}),
        )
        .await
        .unwrap_err();
    assert!(
        error
            .message
            .contains("`conditions[0].field`: Unknown field `name` on File."),
        "{}",
        error.message
    );
    assert!(
        error.message.contains("Valid field names: path, language."),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn with_children_is_offered_only_where_a_hierarchy_exists() {
    use toolforge::dialect::{Dialect, export};
    let (_dir, spec, db) = seeded();
    let by_ids = |spec: &toolforge::spec::SchemaSpec| {
        toolforge::sql::registry_definitions(spec)
            .into_iter()
            .find(|d| d.name == "get_entities_by_ids")
            .unwrap()
    };
    let with_hierarchy = by_ids(&spec);
    let property = &with_hierarchy.input_schema["properties"]["with_children"];
    assert_eq!(
        property["description"],
        "Also return each record's children and their content. Only for: Scope."
    );
    // The strict normaliser drops `default`; the description states it instead.
    let strict = export(&with_hierarchy, Dialect::OpenAiChat);
    assert_eq!(
        strict["function"]["parameters"]["properties"]["with_children"]["description"],
        "Also return each record's children and their content. Only for: Scope. (default: false)"
    );

    let mut flat = (*spec).clone();
    for entity in &mut flat.entities {
        entity.hierarchy = None;
    }
    let without = by_ids(&flat);
    assert!(
        without.input_schema["properties"]
            .get("with_children")
            .is_none(),
        "{}",
        without.input_schema
    );
    assert!(!without.description.contains("with_children"));
    let registry = toolforge::sql::registry(Arc::new(flat), db).unwrap();
    let error = registry
        .call(
            "get_entities_by_ids",
            json!({"entity_type": "Scope", "ids": ["s1"], "with_children": true}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error.details.unwrap()["problems"][0]["unexpected"],
        json!(["with_children"])
    );
    let answer = registry
        .call(
            "get_entities_by_ids",
            json!({"entity_type": "Scope", "ids": ["s1"]}),
        )
        .await
        .unwrap();
    assert_eq!(answer["returned"], 1);
}

/// Hundreds of conditions are refused with the limit and what to do (they used to reach SQLite
/// and come back as "SQLite: Unknown ... The arguments were valid"); every tool that takes
/// conditions compiles them the same way.
#[tokio::test]
async fn too_many_conditions_are_refused_with_the_limit() {
    let f = fixture();
    for count in [101, 999, 1_500] {
        let conditions: Vec<Value> = (0..count)
            .map(|i| json!({"field": "name", "operator": "!=", "value": format!("n{i}")}))
            .collect();
        for (tool, arguments) in [(
            "query_entities",
            json!({"entity_type": "Scope", "conditions": conditions}),
        )] {
            let error = f.call(tool, arguments).await.unwrap_err();
            assert_eq!(error.code, ErrorCode::InvalidArguments, "{tool}: {error}");
            assert!(error.message.contains("at most 100"), "{tool}: {error}");
            assert!(!error.message.contains("SQLite"), "{tool}: {error}");
        }
    }
    // At the limit the call runs.
    let conditions: Vec<Value> = (0..100)
        .map(|i| json!({"field": "name", "operator": "!=", "value": format!("n{i}")}))
        .collect();
    f.call(
        "query_entities",
        json!({"entity_type": "Scope", "conditions": conditions}),
    )
    .await
    .unwrap();
}

/// A list answer counts its matches up to 1,000 (or past its own page, when that is further)
/// and then says "at least": `total_exact` tells which, and `has_more` / `next_offset` stay
/// exact either way. (It counted every match: a second full scan for a broad filter.)
#[tokio::test]
async fn list_answers_count_up_to_a_cap_and_say_when_they_stopped() {
    let fixture = fixture();
    let lines: String = (0..1_500)
        .map(|i| {
            format!(
                "{}\n",
                json!({"entity": "Scope", "data": {"uuid": format!("bulk-{i:04}"), "name": format!("bulk{i}"), "type": "bulk"}})
            )
        })
        .collect();
    let spec = Arc::new(sql_fixtures::code_rag_spec());
    fixture.db.import_jsonl(&spec, lines.as_bytes()).unwrap();
    let page = |offset: u64, limit: u64| {
        json!({"entity_type": "Scope", "conditions": [{"field": "type", "operator": "=", "value": "bulk"}],
               "order_by": {"field": "uuid"}, "offset": offset, "limit": limit})
    };
    let cases = [
        // (offset, limit) -> (total, exact, has_more)
        ((0, 10), (1_000, false, true)),
        // Past the cap, the count reaches past this page.
        ((995, 20), (1_016, false, true)),
        // The last page knows the total from its own rows.
        ((1_490, 20), (1_500, true, false)),
    ];
    for ((offset, limit), (total, exact, more)) in cases {
        let answer = fixture
            .call("query_entities", page(offset, limit))
            .await
            .unwrap();
        assert_eq!(answer["total"], total, "{offset}/{limit}: {answer:.300}");
        assert_eq!(answer["total_exact"], exact, "{offset}/{limit}");
        assert_eq!(answer["has_more"], more, "{offset}/{limit}");
        let returned = answer["returned"].as_u64().unwrap();
        let next = if more {
            json!(offset + returned)
        } else {
            Value::Null
        };
        assert_eq!(answer["next_offset"], next, "{offset}/{limit}");
    }
    // A narrow filter is counted exactly.
    let answer = fixture
        .call(
            "query_entities",
            json!({"entity_type": "Scope", "conditions": [{"field": "uuid", "operator": "STARTS WITH", "value": "bulk-00"}], "limit": 5}),
        )
        .await
        .unwrap();
    assert_eq!(
        (answer["total"].clone(), answer["total_exact"].clone()),
        (json!(100), json!(true))
    );
}
