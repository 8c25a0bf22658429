//! The checked-in generated clients compile, and behave like the run-time registry.
//!
//! Parity: for each client, the generated registry and a registry built at run time from the
//! config (`toolforge::sql::tools::database_tools` over the spec the generator compiles now)
//! expose identical definitions and give identical results for the same calls on the same
//! database.

#![allow(dead_code)]

#[path = "../generated/awkward_names/mod.rs"]
mod awkward_names;
#[path = "../generated/chinook/mod.rs"]
mod chinook;
#[path = "../generated/code_rag/mod.rs"]
mod code_rag;
#[path = "../generated/computed_fields/mod.rs"]
mod computed_fields;
#[path = "../generated/document_rag/mod.rs"]
mod document_rag;
#[path = "../generated/every_tool/mod.rs"]
mod every_tool;
#[path = "../generated/library/mod.rs"]
mod library;
#[path = "../generated/library_sql/mod.rs"]
mod library_sql;
#[path = "../generated/lr_coderag/mod.rs"]
mod lr_coderag;

use std::sync::Arc;

use serde_json::{Value, json};
use toolforge::sql::Database;
use toolforge::{Dialect, ToolDefinition, ToolRegistry};

fn runtime_registry(config: &str, db: Database) -> Arc<ToolRegistry> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(config);
    let compiled = toolforge_generator::compile_file(&path, &Default::default()).unwrap();
    let mut builder = ToolRegistry::standard().unwrap();
    for tool in toolforge::sql::tools::database_tools(Arc::new(compiled.spec), db) {
        builder.add(tool).unwrap();
    }
    builder.build()
}

/// Sample calls: every tool, valid and invalid arguments, every entity.
fn calls(spec: &toolforge::spec::SchemaSpec) -> Vec<(String, Value)> {
    let mut calls = vec![
        ("get_schema".to_string(), json!({})),
        ("get_schema".to_string(), json!({"include_tips": false})),
        (
            "query_entities".to_string(),
            json!({"entity_type": "NoSuchEntity"}),
        ),
        ("query_entities".to_string(), json!({"entity_type": 3})),
        // Odd arguments: the typed tools must accept or refuse them exactly as the engine.
        ("get_schema".to_string(), Value::Null),
        ("get_schema".to_string(), json!([1])),
        ("get_schema".to_string(), json!({"include_tips": null})),
        ("get_schema".to_string(), json!({"bogus": true})),
    ];
    for entity in &spec.entities {
        let name = &entity.name;
        let first = &entity.fields[0].name;
        calls.push(("describe_entity".into(), json!({"entity_name": name})));
        calls.push((
            "query_entities".into(),
            json!({"entity_type": name, "limit": 2}),
        ));
        calls.push((
            "query_entities".into(),
            json!({"entity_type": name, "order_by": {"field": first, "direction": "DESC"}}),
        ));
        calls.push((
            "query_entities".into(),
            json!({"entity_type": name, "conditions": [{"field": "nope", "operator": "=", "value": 1}]}),
        ));
        let odd = [
            json!({"entity_type": name, "limit": 2.0}),
            json!({"entity_type": name, "limit": 0}),
            json!({"entity_type": name, "limit": 1_000_000}),
            json!({"entity_type": name, "limit": "3"}),
            json!({"entity_type": name, "limit": null}),
            json!({"entity_type": name, "bogus": 1}),
            json!({"entity_type": name.to_lowercase()}),
            json!({"entity_type": name, "conditions": [{"field": first, "operator": "="}]}),
            json!({"entity_type": name, "conditions": [{"field": first, "operator": "=", "value": null}]}),
            json!({"entity_type": name, "conditions": [{"field": first, "operator": "IN", "value": [format!("{name}-1"), 10, true]}]}),
            json!({"entity_type": name, "conditions": [{"field": first, "operator": "LIKE", "value": {"a": 1}}]}),
            json!({"entity_type": name, "conditions": [{"field": first, "operator": "=", "value": 1, "extra": 2}]}),
            json!({"entity_type": name, "conditions": {"field": first}}),
            json!({"entity_type": name, "order_by": {"field": first, "direction": "desc"}}),
            json!({"entity_type": name, "order_by": {"field": "nope"}}),
            json!({"entity_type": name, "order_by": null}),
        ];
        for arguments in odd {
            calls.push(("query_entities".into(), arguments));
        }
        calls.push(("describe_entity".into(), json!({})));
        calls.push((
            "describe_entity".into(),
            json!({"entity_name": name.to_uppercase()}),
        ));
        calls.push((
            "get_entities_by_ids".into(),
            json!({"entity_type": name, "ids": [format!("{name}-1")], "fields": ["nope", first], "with_children": true}),
        ));
        calls.push((
            "get_entities_by_ids".into(),
            json!({"entity_type": name, "ids": []}),
        ));
        calls.push((
            "get_entities_by_ids".into(),
            json!({"entity_type": name, "ids": [1, 2]}),
        ));
        calls.push((
            "get_entity_by_id".into(),
            json!({"entity_type": name, "id_value": 1}),
        ));
        calls.push((
            "glob_search".into(),
            json!({"entity_type": name, "field": "nope", "pattern": "*", "limit": 1}),
        ));
        calls.push((
            "glob_search".into(),
            json!({"entity_type": name, "field": first, "pattern": ""}),
        ));
        for computed in &entity.computed_fields {
            calls.push((
                "query_entities".into(),
                json!({"entity_type": name, "order_by": {"field": computed.name}}),
            ));
        }
        calls.push((
            "get_entity_by_id".into(),
            json!({"entity_type": name, "id_value": format!("{name}-1")}),
        ));
        calls.push((
            "get_entities_by_ids".into(),
            json!({"entity_type": name, "ids": [format!("{name}-1"), format!("{name}-2"), "missing"]}),
        ));
        calls.push((
            "glob_search".into(),
            json!({"entity_type": name, "field": entity.unique_field, "pattern": "*-1"}),
        ));
        if let Some(index) = &entity.full_text {
            let field = &index.fields[0].name;
            for arguments in [
                json!({"entity_type": name, "query": "1"}),
                json!({"entity_type": name, "query": "\"", "top_k": 2}),
                json!({"entity_type": name, "query": "x", "fields": [field], "prefix": true}),
                json!({"entity_type": name, "query": "x", "fields": ["nope"]}),
            ] {
                calls.push(("full_text_search".into(), arguments));
            }
        }
    }
    for rel in &spec.relationships {
        calls.push((
            "explore_relationships".into(),
            json!({"start_entity_type": rel.source, "relationship_type": rel.rel_type, "direction": "outgoing"}),
        ));
        calls.push((
            "explore_relationships".into(),
            json!({"start_entity_type": rel.target, "relationship_type": rel.rel_type, "direction": "both"}),
        ));
        calls.push((
            "explore_relationships".into(),
            json!({"start_entity_type": rel.source, "relationship_type": rel.rel_type, "target_entity_type": rel.target, "limit": 1,
                   "start_conditions": [{"field": "nope", "operator": "=", "value": 1}]}),
        ));
        calls.push((
            "explore_relationships".into(),
            json!({"start_entity_type": rel.source, "relationship_type": rel.rel_type, "direction": "sideways"}),
        ));
        calls.push((
            "explore_relationships".into(),
            json!({"start_entity_type": rel.source, "relationship_type": rel.rel_type, "direction": null, "limit": 3.0}),
        ));
    }
    calls
}

/// Two records per entity (unique field only, plus strings), one edge per relationship.
fn load(db: &Database, spec: &toolforge::spec::SchemaSpec) {
    db.import(spec, |import| {
        for entity in &spec.entities {
            for i in 1..=2 {
                let mut data = serde_json::Map::new();
                for field in &entity.fields {
                    let value = match field.ty {
                        toolforge::spec::FieldType::Datetime
                            if field.name != entity.unique_field =>
                        {
                            json!(format!("2024-0{i}-01T00:00:00Z"))
                        }
                        toolforge::spec::FieldType::String
                        | toolforge::spec::FieldType::Datetime => {
                            if field.name == entity.unique_field {
                                json!(format!("{}-{i}", entity.name))
                            } else {
                                json!(format!("{} {i}", field.name))
                            }
                        }
                        toolforge::spec::FieldType::Number
                        | toolforge::spec::FieldType::Integer => {
                            json!(i * 10)
                        }
                        toolforge::spec::FieldType::Boolean => json!(i == 1),
                        toolforge::spec::FieldType::Enum => json!(field.values[0]),
                        toolforge::spec::FieldType::StringArray => json!(["a", "b"]),
                        toolforge::spec::FieldType::NumberArray => json!([1, 2]),
                        toolforge::spec::FieldType::Point => {
                            json!({"latitude": 10.0 * i as f64, "longitude": -20.0})
                        }
                    };
                    data.insert(field.name.clone(), value);
                }
                import.entity(&entity.name, &data)?;
            }
        }
        for rel in &spec.relationships {
            let from = toolforge::sql::EndPoint {
                entity: rel.source.clone(),
                id: format!("{}-1", rel.source),
            };
            let to = toolforge::sql::EndPoint {
                entity: rel.target.clone(),
                id: format!("{}-2", rel.target),
            };
            import.relationship(&rel.rel_type, &from, &to, &serde_json::Map::new())?;
        }
        Ok(())
    })
    .unwrap();
}

/// The two registries give identical results (or errors) for every call of [`calls`].
async fn same_answers(
    generated: &ToolRegistry,
    runtime: &ToolRegistry,
    spec: &toolforge::spec::SchemaSpec,
) {
    let calls = calls(spec);
    assert!(calls.len() > 10);
    for (tool, arguments) in calls {
        let a = generated
            .call(&tool, arguments.clone())
            .await
            .map_err(|e| e.to_json());
        let b = runtime
            .call(&tool, arguments.clone())
            .await
            .map_err(|e| e.to_json());
        assert_eq!(a, b, "{tool} {arguments}");
    }
}

macro_rules! parity_test {
    ($test:ident, $module:ident, $config:literal) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $test() {
            let dir = tempfile::tempdir().unwrap();
            let db = Database::open(dir.path().join("db.sqlite")).unwrap();
            $module::apply_schema(&db).unwrap();
            let spec = $module::spec();
            load(&db, spec);

            let generated = $module::setup_tool_registry(db.clone()).unwrap();
            let runtime = runtime_registry($config, db.clone());

            // The generated spec is the spec the generator compiles today.
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join($config);
            let compiled = toolforge_generator::compile_file(&path, &Default::default()).unwrap();
            assert_eq!(**spec, compiled.spec);

            // Identical definitions for every runtime tool, in every dialect, but for the hints
            // of `batch`: it reaches the generated registry's custom tools too.
            let generated_definitions: Vec<ToolDefinition> = generated
                .tools()
                .map(|tool| tool.definition().clone())
                .collect();
            for tool in runtime.tools() {
                let name = &tool.definition().name;
                let ours = generated
                    .get(name)
                    .unwrap_or_else(|| panic!("generated registry lacks {name}"));
                let mut expected = tool.definition().clone();
                if name == "batch" {
                    expected.annotations =
                        toolforge::BatchTool::annotations_reaching(&generated_definitions);
                }
                assert_eq!(ours.definition(), &expected, "definition of {name}");
            }
            for dialect in [
                Dialect::Mcp,
                Dialect::OpenAiChat,
                Dialect::OpenAiResponses,
                Dialect::Anthropic,
            ] {
                let without_batch = |definitions: Vec<Value>| -> Vec<Value> {
                    definitions
                        .into_iter()
                        .filter(|d| {
                            d.get("name").or(d["function"].get("name")) != Some(&json!("batch"))
                        })
                        .collect()
                };
                let theirs = without_batch(runtime.definitions_for(dialect));
                let ours: Vec<Value> = without_batch(generated.definitions_for(dialect))
                    .into_iter()
                    .filter(|d| theirs.contains(d))
                    .collect();
                assert_eq!(ours, theirs, "{dialect:?} definitions");
            }

            // Identical results (or errors) for the same calls.
            same_answers(&generated, &runtime, spec).await;
        }
    };
}

parity_test!(
    parity_awkward_names,
    awkward_names,
    "fixtures/awkward-names.yaml"
);
parity_test!(
    parity_code_rag,
    code_rag,
    "corpus/ragforge__examples__code-rag__ragforge.config.yaml"
);
parity_test!(
    parity_computed_fields,
    computed_fields,
    "corpus/ragforge__examples__tool-calling-agent__test-config-with-computed-fields.yaml"
);
parity_test!(
    parity_document_rag,
    document_rag,
    "corpus/ragforge__examples__document-rag__ragforge.config.yaml"
);
parity_test!(parity_library, library, "fixtures/declared/library.yaml");
parity_test!(
    parity_library_sql,
    library_sql,
    "fixtures/declared/sql_tools.yaml"
);
parity_test!(
    parity_lr_coderag,
    lr_coderag,
    "corpus/ragforge__examples__generated-from-lr-coderag.yaml"
);

/// The typed record API, the user-edited custom tools and the typed tool arguments of a
/// generated client, on a real database.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_records_custom_tools_and_typed_arguments() {
    use computed_fields::records::{Scope, ScopeField};
    use computed_fields::tool_args::{EntityName, FieldName, OrderBy, QueryEntitiesArgs};
    use toolforge::sql::query::{Direction, Operator};

    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("db.sqlite")).unwrap();
    computed_fields::apply_schema(&db).unwrap();
    let scope = |uuid: &str, start: f64, end: f64| Scope {
        uuid: uuid.into(),
        name: Some(format!("fn_{uuid}")),
        file: Some("lib.rs".into()),
        r#type: Some("function".into()),
        start_line: Some(start),
        end_line: Some(end),
        source: Some("x".repeat(uuid.len())),
        line_count: None,
        is_large: None,
        char_count: None,
        change_count: None,
    };
    let big = scope("big", 1.0, 300.0);
    let small = scope("small", 10.0, 19.0);
    let mid = scope("mid", 1.0, 150.0);
    Scope::upsert(&db, &[big.clone(), small.clone(), mid.clone()]).unwrap();
    big.link_consumes_scope(&db, &small).unwrap();
    big.link_consumes_scope(&db, &mid).unwrap();

    // Filter and order on a computed field; computed values come back filled in.
    let large = Scope::query()
        .filter(ScopeField::LineCount, Operator::Gt, 100)
        .order_by(ScopeField::LineCount, Direction::Desc)
        .all(&db)
        .await
        .unwrap();
    let ids: Vec<&str> = large.iter().map(|s| s.uuid.as_str()).collect();
    assert_eq!(ids, ["big", "mid"]);
    assert_eq!(large[0].line_count, Some(300.0));
    assert_eq!(large[0].is_large, Some(true));

    // Lookup, traversal both ways, limit.
    let got = Scope::get(&db, "small").await.unwrap().unwrap();
    assert_eq!(got.line_count, Some(10.0));
    // Whole numbers (stored and computed) serialise as JSON integers, and read back the same.
    let json = serde_json::to_value(&got).unwrap();
    assert_eq!(json["startLine"].to_string(), "10");
    assert_eq!(json["line_count"].to_string(), "10");
    let half = Scope {
        start_line: Some(2.5),
        ..got.clone()
    };
    assert_eq!(
        serde_json::to_value(&half).unwrap()["startLine"].to_string(),
        "2.5"
    );
    assert_eq!(serde_json::from_value::<Scope>(json).unwrap(), got);
    assert!(Scope::get(&db, "nope").await.unwrap().is_none());
    let consumed = big.out_consumes_scope(&db, 10).await.unwrap();
    assert_eq!(
        consumed.iter().map(|s| s.uuid.as_str()).collect::<Vec<_>>(),
        ["mid", "small"]
    );
    let consumers = small.in_consumes_scope(&db, 10).await.unwrap();
    assert_eq!(consumers.len(), 1);
    assert_eq!(consumers[0].uuid, "big");
    assert_eq!(big.out_consumes_scope(&db, 1).await.unwrap().len(), 1);

    // An upsert with None keeps stored values; re-upserting a fetched record (computed fields
    // filled in) works.
    let mut renamed = scope("small", 10.0, 19.0);
    renamed.name = None;
    renamed.source = None;
    Scope::upsert(&db, &[renamed, large[1].clone()]).unwrap();
    assert_eq!(
        Scope::get(&db, "small")
            .await
            .unwrap()
            .unwrap()
            .name
            .as_deref(),
        Some("fn_small")
    );

    // A bad value type is an invalid query, whose source is the engine's error; a custom tool's
    // `?` turns it back into that error.
    let error = Scope::query()
        .filter(ScopeField::StartLine, Operator::Eq, "ten")
        .all(&db)
        .await
        .unwrap_err();
    let toolforge::sql::RecordsError::InvalidQuery { entity, source } = &error else {
        panic!("expected an invalid query, got {error:?}");
    };
    assert_eq!(*entity, "Scope");
    assert!(source.message.contains("expected a number"), "{source}");
    let for_model = toolforge::ToolError::from(error);
    assert_eq!(for_model.code, toolforge::ErrorCode::InvalidArguments);

    // The custom tools (one generated stub, one written by hand) run through the registry.
    let registry = computed_fields::setup_tool_registry(db.clone()).unwrap();
    let listed = registry
        .call("list_scope", json!({"limit": 2}))
        .await
        .unwrap();
    assert_eq!(listed[0]["uuid"], "big");
    assert_eq!(listed.as_array().unwrap().len(), 2);
    let large = registry
        .call("large_scopes", json!({"min_lines": 100}))
        .await
        .unwrap();
    assert_eq!(large[0]["scope"]["uuid"], "big");
    assert_eq!(large[0]["consumes"], json!(["mid", "small"]));

    // Typed arguments are the same call as the JSON a model sends.
    let typed = QueryEntitiesArgs {
        entity_type: EntityName::Scope,
        conditions: vec![],
        order_by: Some(OrderBy {
            field: FieldName::LineCount,
            direction: Direction::Desc,
        }),
        limit: Some(2),
        offset: None,
    };
    let raw = json!({"entity_type": "Scope", "order_by": {"field": "line_count", "direction": "DESC"}, "limit": 2});
    let schema = registry
        .get("query_entities")
        .unwrap()
        .definition()
        .input_schema
        .clone();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(validator.is_valid(&serde_json::to_value(&typed).unwrap()));
    assert_eq!(
        typed.call(&registry).await.unwrap(),
        registry.call("query_entities", raw).await.unwrap()
    );
}

/// The registered database tools of a generated module are the engine's tools over its
/// embedded spec: their definitions are the engine's, they run on the database of the call
/// context, and a call without one is refused with a clear error. Typed arguments run the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_registered_database_tools_are_the_engines() {
    use computed_fields::tool_args::{EntityName, GetEntityByIdArgs, QueryEntitiesArgs};
    use toolforge::ToolContext;

    let spec = computed_fields::spec();
    let registered: Vec<_> = computed_fields::database_tools()
        .iter()
        .map(|tool| tool.definition().clone())
        .collect();
    assert_eq!(
        registered,
        toolforge::sql::tools::database_tool_definitions(spec)
    );
    assert_eq!(QueryEntitiesArgs::tool_name(), "query_entities");

    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("db.sqlite")).unwrap();
    computed_fields::apply_schema(&db).unwrap();
    load(&db, spec);
    let tools = computed_fields::database_tools();
    let tool = tools
        .iter()
        .find(|tool| tool.definition().name == GetEntityByIdArgs::tool_name())
        .unwrap();
    let arguments = json!({"entity_type": "Scope", "id_value": "Scope-1"});

    let without_db = tool
        .call(arguments.clone(), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(without_db.code, toolforge::ErrorCode::Unavailable);
    assert!(without_db.message.contains("registry_builder"));

    let context = ToolContext::new().with_extension(db.clone());
    let found = tool.call(arguments.clone(), &context).await.unwrap();
    let registry = runtime_registry(
        "corpus/ragforge__examples__tool-calling-agent__test-config-with-computed-fields.yaml",
        db.clone(),
    );
    assert_eq!(
        found,
        registry.call("get_entity_by_id", arguments).await.unwrap()
    );
    assert_eq!(found["record"]["uuid"], "Scope-1");

    // A typed value runs the same way.
    let direct = GetEntityByIdArgs {
        entity_type: EntityName::Scope,
        id_value: "Scope-2".into(),
    }
    .run(&context)
    .await
    .unwrap();
    assert_eq!(direct["record"]["uuid"], "Scope-2");
}

/// `full_text_search` typed with the generated names: through the registry and directly on
/// the context's database, the same answer as the run-time tool.
#[tokio::test]
async fn typed_full_text_search() {
    use awkward_names::tool_args::{EntityName, FieldName, FullTextSearchArgs};
    use toolforge::ToolContext;

    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("db.sqlite")).unwrap();
    awkward_names::apply_schema(&db).unwrap();
    load(&db, awkward_names::spec());
    let search = FullTextSearchArgs {
        entity_type: EntityName::HttpServer,
        query: "select".into(),
        fields: Some(vec![FieldName::Select]),
        top_k: Some(5),
        prefix: None,
        offset: None,
    };
    assert_eq!(FullTextSearchArgs::tool_name(), "full_text_search");
    let registry = awkward_names::registry_builder(db.clone()).unwrap().build();
    let through_registry = search.call(&registry).await.unwrap();
    let context = ToolContext::new().with_extension(db.clone());
    let direct = search.clone().run(&context).await.unwrap();
    assert_eq!(through_registry, direct);
    let runtime = runtime_registry("fixtures/awkward-names.yaml", db);
    assert_eq!(
        runtime
            .call(
                "full_text_search",
                json!({"entity_type": "HTTPServer", "query": "select", "fields": ["select"], "top_k": 5})
            )
            .await
            .unwrap(),
        direct
    );
    assert_eq!(direct["total"], 2);
    assert!(
        direct["results"][0]["snippet"]
            .as_str()
            .unwrap()
            .contains("**select**"),
        "{direct}"
    );
}

/// The declared tools of a generated client, typed: each argument struct serialises to
/// arguments its tool's input schema accepts, and its `call` (through a registry) and `run`
/// (on a context's database) answer the same records as an untyped call, typed as the
/// entity's records; `from_context` parameters come from the context, never the struct.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_declared_tools() {
    use library::declared_tools::{
        ExpensiveLoansArgs, LoansByStatusArgs, LoansByStatusStatus, MyLoansArgs,
        OpenLoansOfMemberArgs,
    };
    use toolforge::sql::tools::DeclaredArgs;
    use toolforge::{ErrorCode, ToolContext};

    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("db.sqlite")).unwrap();
    library::apply_schema(&db).unwrap();
    let mut lines = String::new();
    for i in 0..30 {
        let line = json!({"entity": "Loan", "data": {
            "id": format!("l{i:02}"),
            "member_id": format!("m{}", i % 3),
            "title": format!("{}{i}", "t".repeat(1 + i % 5)),
            "status": if i % 3 == 0 { "returned" } else { "open" },
            "due_at": format!("2024-{:02}-10T00:00:00Z", 1 + i % 12),
            "fee": (i % 7) as f64 * 2.5,
            "branch": if i % 2 == 0 { "north" } else { "south" },
        }});
        lines.push_str(&format!("{line}\n"));
    }
    db.import_jsonl(library::spec(), lines.as_bytes()).unwrap();
    let registry = library::registry_builder(db.clone())
        .unwrap()
        .with_context_values(&toolforge::ContextValues::new().with("member", "m1"))
        .build();
    let context = ToolContext::new()
        .with_extension(db.clone())
        .with_value("member", "m1");

    /// The typed answer of `args` by both doors, checked against the untyped call.
    async fn both<A>(
        args: &A,
        registry: &ToolRegistry,
        context: &ToolContext,
    ) -> toolforge::sql::tools::DeclaredPage<library::records::Loan>
    where
        A: DeclaredArgs<Answer = toolforge::sql::tools::DeclaredPage<library::records::Loan>>,
    {
        let arguments = serde_json::to_value(args).unwrap();
        let definition = registry.get(A::TOOL_NAME).unwrap().definition();
        let validator = jsonschema::validator_for(&definition.input_schema).unwrap();
        assert!(
            validator.is_valid(&arguments),
            "{} {arguments} against {}",
            A::TOOL_NAME,
            definition.input_schema
        );
        let untyped = registry.call(A::TOOL_NAME, arguments).await.unwrap();
        let called = toolforge::sql::tools::call_declared(args, registry)
            .await
            .unwrap();
        let ran = toolforge::sql::tools::run_declared(args, context)
            .await
            .unwrap();
        assert_eq!(called, ran, "{}", A::TOOL_NAME);
        let untyped_ids: Vec<&str> = untyped["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|record| record["id"].as_str().unwrap())
            .collect();
        let typed_ids: Vec<&str> = called.records.iter().map(|loan| loan.id.as_str()).collect();
        assert_eq!(typed_ids, untyped_ids, "{}", A::TOOL_NAME);
        assert_eq!(called.total, untyped["total"].as_u64().unwrap());
        assert_eq!(called.next_offset, untyped["next_offset"].as_u64());
        called
    }

    // Required parameters only, then every one set.
    let open = both(
        &OpenLoansOfMemberArgs::new("m2".into()),
        &registry,
        &context,
    )
    .await;
    assert!(!open.records.is_empty());
    for loan in &open.records {
        assert_eq!(loan.member_id.as_deref(), Some("m2"));
        assert_eq!(loan.status, Some(library::records::LoanStatus::Open));
    }
    let before = OpenLoansOfMemberArgs {
        before: Some("2024-06-01T00:00:00Z".into()),
        limit: Some(2),
        ..OpenLoansOfMemberArgs::new("m2".into())
    };
    let page = both(&before, &registry, &context).await;
    assert_eq!(page.records.len(), 2);
    assert!(page.has_more && page.next_offset == Some(2));
    assert!(page.records[0].due_at <= page.records[1].due_at);
    let next = OpenLoansOfMemberArgs {
        offset: page.next_offset,
        ..before.clone()
    };
    assert_eq!(both(&next, &registry, &context).await.offset, 2);

    let expensive = ExpensiveLoansArgs {
        min_len: Some(3),
        ..ExpensiveLoansArgs::new(5.0)
    };
    let expensive = both(&expensive, &registry, &context).await;
    assert!(expensive.records.iter().all(|loan| loan.fee >= Some(5.0)));
    assert!(
        expensive
            .records
            .iter()
            .all(|loan| loan.title_length > Some(3.0))
    );

    let returned = LoansByStatusArgs {
        branch: Some("south".into()),
        ..LoansByStatusArgs::new(LoansByStatusStatus::Returned)
    };
    let returned = both(&returned, &registry, &context).await;
    assert_eq!(returned.total, 5);
    assert!(returned.records.iter().all(|loan| {
        loan.status == Some(library::records::LoanStatus::Returned)
            && loan.branch.as_deref() == Some("south")
    }));

    // `member` is the context's: the struct has no such field, and the answer is m1's.
    let mine = both(&MyLoansArgs::new(), &registry, &context).await;
    assert_eq!(mine.total, 10);
    assert!(
        mine.records
            .iter()
            .all(|loan| loan.member_id.as_deref() == Some("m1"))
    );
    let without = ToolContext::new().with_extension(db.clone());
    let denied = MyLoansArgs::new().run(&without).await.unwrap_err();
    assert_eq!(denied.code, ErrorCode::Unavailable);

    // Values the declarations refuse are refused through the typed doors too.
    let bad = OpenLoansOfMemberArgs::new("x1".into());
    assert_eq!(
        bad.call(&registry).await.unwrap_err().code,
        ErrorCode::InvalidArguments
    );
    assert_eq!(
        bad.run(&context).await.unwrap_err().code,
        ErrorCode::InvalidArguments
    );
}

/// A declared tool in the trusted `sql:` form, typed: its struct's `call` and `run` answer the
/// untyped call's rows as `DeclaredRows`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_declared_sql_tools() {
    use library_sql::declared_tools::{FeesFromArgs, SqliteOnlyTitlesArgs};
    use toolforge::ToolContext;

    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("db.sqlite")).unwrap();
    library_sql::apply_schema(&db).unwrap();
    let mut lines = String::new();
    for i in 0..12 {
        let line = json!({"entity": "Loan", "data": {
            "id": format!("l{i:02}"), "title": format!("t{i}"), "fee": i as f64,
            "status": "open", "due_at": "2024-01-01T00:00:00Z", "branch": "north",
        }});
        lines.push_str(&format!("{line}\n"));
    }
    db.import_jsonl(library_sql::spec(), lines.as_bytes())
        .unwrap();
    let registry = library_sql::registry_builder(db.clone()).unwrap().build();
    let context = ToolContext::new().with_extension(db.clone());

    let args = FeesFromArgs {
        parts: Some(2),
        limit: Some(3),
        ..FeesFromArgs::new(4.0)
    };
    let untyped = registry
        .call("fees_from", serde_json::to_value(&args).unwrap())
        .await
        .unwrap();
    let typed = args.call(&registry).await.unwrap();
    assert_eq!(typed, args.run(&context).await.unwrap());
    assert_eq!(typed.columns, ["id", "fee", "status", "share"]);
    assert_eq!(Value::from(typed.rows.clone()), untyped["rows"]);
    assert_eq!(typed.rows[0]["id"], "l04");
    assert_eq!(typed.rows[0]["share"], 2.0);
    assert!(typed.has_more && typed.next_offset == Some(3));

    let titles = SqliteOnlyTitlesArgs::new("t1*".into())
        .call(&registry)
        .await
        .unwrap();
    let ids: Vec<&Value> = titles.rows.iter().map(|row| &row["title"]).collect();
    assert_eq!(ids, [&json!("T1"), &json!("T10"), &json!("T11")]);
}

/// The first column of `sql`'s rows on the SQLite file `path`, as integers.
fn integers(path: &std::path::Path, sql: &str) -> Vec<i64> {
    let conn = toolforge::sql::sqlite::rusqlite::Connection::open(path).unwrap();
    let mut statement = conn.prepare(sql).unwrap();
    statement
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// A client generated from a config over existing tables (Chinook as it is, read-only):
/// integer keys are `i64` in records and lookups, traversal follows foreign keys (both ways, a
/// self-reference included) and a join table, typed queries filter integer columns, the
/// generated registry answers as the run-time one, and nothing is written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_records_over_chinook_as_it_is() {
    use chinook::records::{Artist, Employee, Track, TrackField};
    use toolforge::sql::query::{Direction, Operator};

    let dir = tempfile::tempdir().unwrap();
    let path = crate::sample_databases::chinook_sqlite(dir.path());
    let before = std::fs::read(&path).unwrap();
    let db = Database::open_read_only(&path).unwrap();

    let track: Track = Track::get(&db, 3).await.unwrap().unwrap();
    assert_eq!(track.track_id, 3);
    assert_eq!(
        track.milliseconds,
        Some(integers(&path, "SELECT Milliseconds FROM Track WHERE TrackId = 3")[0])
    );
    assert_eq!(
        track.minutes,
        Some(track.milliseconds.unwrap() as f64 / 60000.0)
    );
    assert!(Track::get(&db, 999_999).await.unwrap().is_none());

    // Many-to-one, and back: the album of a track, the albums of its artist.
    let albums = track.out_album_album(&db, 5).await.unwrap();
    assert_eq!(
        albums.iter().map(|a| a.album_id).collect::<Vec<_>>(),
        [track.album_id.unwrap()]
    );
    let artists = albums[0].out_artist_artist(&db, 5).await.unwrap();
    let artist: &Artist = &artists[0];
    let theirs = artist.in_artist_album(&db, 100).await.unwrap();
    assert_eq!(
        theirs.iter().map(|a| a.album_id).collect::<Vec<_>>(),
        integers(
            &path,
            &format!(
                "SELECT AlbumId FROM Album WHERE ArtistId = {} ORDER BY AlbumId",
                artist.artist_id
            )
        )
    );
    // Many-to-many through the join table.
    let playlists = track.out_in_playlist_playlist(&db, 50).await.unwrap();
    assert_eq!(
        playlists.iter().map(|p| p.playlist_id).collect::<Vec<_>>(),
        integers(
            &path,
            "SELECT PlaylistId FROM PlaylistTrack WHERE TrackId = 3 ORDER BY PlaylistId"
        )
    );
    assert!(!playlists.is_empty());
    // A self-reference: who reports to employee 2.
    let manager = Employee::get(&db, 2).await.unwrap().unwrap();
    let reports = manager.in_reports_to_employee(&db, 50).await.unwrap();
    assert_eq!(
        reports.iter().map(|e| e.employee_id).collect::<Vec<_>>(),
        integers(
            &path,
            "SELECT EmployeeId FROM Employee WHERE ReportsTo = 2 ORDER BY EmployeeId"
        )
    );

    // A typed query over an integer column, ordered.
    let longest = Track::query()
        .filter(TrackField::Milliseconds, Operator::Gt, 1_000_000)
        .order_by(TrackField::Milliseconds, Direction::Desc)
        .limit(3)
        .fetch(&db)
        .await
        .unwrap()
        .records;
    assert_eq!(
        longest.iter().map(|t| t.track_id).collect::<Vec<_>>(),
        integers(
            &path,
            "SELECT TrackId FROM Track WHERE Milliseconds > 1000000 \
             ORDER BY Milliseconds DESC LIMIT 3"
        )
    );

    // The generated registry answers as the run-time one.
    let generated = chinook::setup_tool_registry(db.clone()).unwrap();
    let runtime = runtime_registry("fixtures/mapped/chinook.yaml", db.clone());
    same_answers(&generated, &runtime, chinook::spec()).await;
    let answer = generated
        .call(
            "get_entity_by_id",
            json!({"entity_type": "Track", "id_value": 3}),
        )
        .await
        .unwrap();
    assert_eq!(answer["record"]["TrackId"], json!(3));

    // Writes are refused before they start; the file is as it was.
    let error = Artist::upsert(&db, std::slice::from_ref(artist)).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("reads existing tables (`table:`), which toolforge never writes"),
        "{error}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
}
