//! Schema dialects: every exported schema is valid JSON Schema 2020-12, has an object root with
//! `properties`, and OpenAI output is strict exactly when it satisfies the strict rules.

use crate::registry_support;

use std::collections::HashMap;

use registry_support::definition;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};
use toolforge::dialect::{Dialect, export, is_openai_strict_compatible, to_openai_strict};
use toolforge::{ToolAnnotations, ToolDefinition};

// ---- schemars fixtures -------------------------------------------------------------------

/// Units.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// A place.
#[derive(Serialize, JsonSchema)]
struct Location {
    /// City name.
    city: String,
    /// Country code.
    country: Option<String>,
}

/// Search arguments, the way a derive produces them.
#[derive(Serialize, JsonSchema)]
struct Search {
    /// Free text.
    query: String,
    /// Maximum results.
    limit: Option<u32>,
    /// Temperature unit.
    unit: Option<Unit>,
    /// Where.
    location: Location,
    /// Extra places.
    places: Vec<Location>,
    /// Tags.
    tags: Vec<String>,
    /// Score threshold.
    min_score: f64,
    /// Optional nested.
    near: Option<Location>,
    /// A flag with a default.
    #[serde(default)]
    exact: bool,
}

#[derive(Serialize, JsonSchema)]
struct WithMap {
    labels: HashMap<String, String>,
}

#[derive(Serialize, JsonSchema)]
struct Tree {
    name: String,
    children: Vec<Tree>,
}

#[derive(Serialize, JsonSchema)]
struct FreeForm {
    filter: Value,
}

#[derive(Serialize, JsonSchema)]
struct Empty {}

fn schema_of<T: JsonSchema>() -> Value {
    serde_json::to_value(schemars::schema_for!(T)).unwrap()
}

fn sample_search() -> Value {
    serde_json::to_value(Search {
        query: "rust".into(),
        limit: None,
        unit: Some(Unit::Celsius),
        location: Location {
            city: "Lyon".into(),
            country: None,
        },
        places: vec![Location {
            city: "Oslo".into(),
            country: Some("NO".into()),
        }],
        tags: vec!["a".into()],
        min_score: 0.5,
        near: None,
        exact: false,
    })
    .unwrap()
}

/// (name, input schema, whether OpenAI strict is expected).
fn fixtures() -> Vec<(&'static str, Value, bool)> {
    vec![
        ("search", schema_of::<Search>(), true),
        ("location", schema_of::<Location>(), true),
        ("empty", schema_of::<Empty>(), true),
        ("with_map", schema_of::<WithMap>(), false),
        ("tree", schema_of::<Tree>(), false),
        ("free_form", schema_of::<FreeForm>(), false),
        ("bare_object", json!({"type": "object"}), true),
        (
            "null_properties",
            json!({"type": "object", "properties": null}),
            true,
        ),
        ("true_schema", json!(true), true),
        (
            "hand_written",
            json!({
                "type": "object",
                "properties": {
                    "when": {"type": "string", "format": "date-time"},
                    "code": {"type": "string", "format": "iso-3166", "minLength": 2},
                    "ids": {"type": "array", "items": {"type": "integer"}, "uniqueItems": true},
                    "mode": {"enum": ["fast", "slow"]},
                    "kind": {"oneOf": [{"const": "a"}, {"const": "b"}]}
                },
                "required": ["when", "ids"],
                "additionalProperties": false
            }),
            true,
        ),
        (
            "multi_all_of",
            json!({
                "type": "object",
                "properties": {"x": {"allOf": [{"type": "string"}, {"minLength": 1}]}}
            }),
            false,
        ),
    ]
}

fn definitions() -> Vec<ToolDefinition> {
    fixtures()
        .into_iter()
        .map(|(name, schema, _)| {
            let mut definition = definition(name, schema);
            definition.output_schema = Some(schema_of::<Location>());
            definition
        })
        .collect()
}

/// The input schema inside one exported definition.
fn input_schema(exported: &Value, dialect: Dialect) -> &Value {
    match dialect {
        Dialect::Mcp => &exported["inputSchema"],
        Dialect::OpenAiChat => &exported["function"]["parameters"],
        Dialect::OpenAiResponses => &exported["parameters"],
        Dialect::Anthropic => &exported["input_schema"],
        other => panic!("teach this test where {other:?} puts the input schema"),
    }
}

fn strict_flag(exported: &Value, dialect: Dialect) -> Option<bool> {
    match dialect {
        Dialect::OpenAiChat => exported["function"]["strict"].as_bool(),
        Dialect::OpenAiResponses => exported["strict"].as_bool(),
        _ => None,
    }
}

// ---- tests -------------------------------------------------------------------------------

/// The dialects whose input schema is JSON Schema (Gemini's is its own OpenAPI subset).
const JSON_SCHEMA_DIALECTS: [Dialect; 4] = [
    Dialect::Mcp,
    Dialect::OpenAiChat,
    Dialect::OpenAiResponses,
    Dialect::Anthropic,
];

#[test]
fn every_exported_schema_is_valid_json_schema_2020_12() {
    let meta = jsonschema::draft202012::meta::validator();
    for definition in definitions() {
        for dialect in JSON_SCHEMA_DIALECTS {
            let exported = export(&definition, dialect);
            let schema = input_schema(&exported, dialect);
            if let Err(error) = meta.validate(schema) {
                panic!("{} / {dialect:?}: {error}\n{schema:#}", definition.name);
            }
            // And it compiles as a validator.
            jsonschema::validator_for(schema)
                .unwrap_or_else(|e| panic!("{} / {dialect:?}: {e}", definition.name));
            if let Some(output) = exported.get("outputSchema") {
                meta.validate(output).unwrap();
            }
        }
    }
}

#[test]
fn every_root_is_an_object_with_properties() {
    for definition in definitions() {
        for dialect in JSON_SCHEMA_DIALECTS {
            let exported = export(&definition, dialect);
            let schema = input_schema(&exported, dialect);
            assert_eq!(
                schema["type"], "object",
                "{} / {dialect:?}",
                definition.name
            );
            assert!(
                schema["properties"].is_object(),
                "{} / {dialect:?}: {schema}",
                definition.name
            );
            assert!(schema.get("$schema").is_none());
        }
    }
}

#[test]
fn openai_is_strict_exactly_when_the_checker_agrees() {
    for (name, schema, expect_strict) in fixtures() {
        let definition = definition(name, schema);
        for dialect in [Dialect::OpenAiChat, Dialect::OpenAiResponses] {
            let exported = export(&definition, dialect);
            let parameters = input_schema(&exported, dialect);
            let strict = strict_flag(&exported, dialect).unwrap();
            assert_eq!(
                strict, expect_strict,
                "{name} / {dialect:?}: {parameters:#}"
            );
            if strict {
                if let Err(problems) = is_openai_strict_compatible(parameters) {
                    panic!("{name}: strict output breaks the rules: {problems:?}");
                }
            } else {
                assert!(is_openai_strict_compatible(parameters).is_err(), "{name}");
            }
        }
    }
}

#[test]
fn strict_search_schema_is_inlined_closed_and_nullable() {
    let strict = to_openai_strict(&schema_of::<Search>()).unwrap();
    assert!(strict.get("$defs").is_none());
    assert!(!strict.to_string().contains("$ref"));
    let properties = strict["properties"].as_object().unwrap();
    let names: Vec<&String> = properties.keys().collect();
    assert_eq!(strict["required"], json!(names));
    assert_eq!(strict["additionalProperties"], false);
    // Option<u32>: nullable integer without the non-standard `uint32` format, written as the
    // OpenAI SDK writes an optional value.
    assert_eq!(
        properties["limit"]["anyOf"],
        json!([{"type": "integer", "minimum": 0}, {"type": "null"}])
    );
    assert_eq!(properties["limit"]["description"], "Maximum results.");
    // The nested struct was inlined and closed.
    assert_eq!(properties["location"]["additionalProperties"], false);
    assert_eq!(
        properties["location"]["required"],
        json!(["city", "country"])
    );
    assert_eq!(properties["places"]["items"]["additionalProperties"], false);
    // The optional enum accepts null.
    let unit = properties["unit"].to_string();
    assert!(unit.contains("celsius") && unit.contains("null"), "{unit}");
    // `exact` was optional (serde default): now required and nullable.
    assert_eq!(
        properties["exact"]["anyOf"],
        json!([{"type": "boolean"}, {"type": "null"}])
    );
}

/// Every node of `schema`, depth first.
fn nodes(schema: &Value) -> Vec<&Value> {
    let mut out = vec![schema];
    match schema {
        Value::Object(object) => object.values().for_each(|v| out.extend(nodes(v))),
        Value::Array(items) => items.iter().for_each(|v| out.extend(nodes(v))),
        _ => {}
    }
    out
}

#[test]
fn strict_optionals_are_any_of_with_null_never_a_type_list_or_a_null_enum_value() {
    let optional_enum = json!({
        "type": "object",
        "properties": {
            "mode": {"type": "string", "enum": ["fast", "slow"], "description": "How."},
            "kind": {"type": ["string", "null"], "enum": ["a", "b", null]},
            "count": {"type": ["integer", "null"]}
        },
        "required": ["kind"]
    });
    let mut schemas: Vec<Value> = fixtures().into_iter().map(|(_, s, _)| s).collect();
    schemas.push(optional_enum.clone());
    for schema in &schemas {
        let Ok(strict) = to_openai_strict(schema) else {
            continue;
        };
        for node in nodes(&strict) {
            assert!(
                !node.get("type").is_some_and(Value::is_array),
                "list type in {strict:#}"
            );
            assert!(
                !node
                    .get("enum")
                    .and_then(Value::as_array)
                    .is_some_and(|values| values.contains(&Value::Null)),
                "null enum value in {strict:#}"
            );
        }
    }
    let strict = to_openai_strict(&optional_enum).unwrap();
    assert_eq!(
        strict["properties"]["mode"],
        json!({"anyOf": [{"type": "string", "enum": ["fast", "slow"]}, {"type": "null"}],
               "description": "How."})
    );
    assert_eq!(
        strict["properties"]["kind"],
        json!({"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}]})
    );
    assert!(jsonschema::is_valid(
        &strict,
        &json!({"mode": null, "kind": "a", "count": null})
    ));
    assert!(jsonschema::is_valid(
        &strict,
        &json!({"mode": "fast", "kind": null, "count": 2})
    ));
    assert!(!jsonschema::is_valid(
        &strict,
        &json!({"mode": "x", "kind": null, "count": 2})
    ));
}

#[test]
fn strict_schemas_accept_what_the_original_accepts() {
    let original = schema_of::<Search>();
    let strict = to_openai_strict(&original).unwrap();
    let sample = sample_search();
    assert!(jsonschema::is_valid(&original, &sample));
    assert!(jsonschema::is_valid(&strict, &sample), "{strict:#}");
    // A model filling every optional with null is accepted too.
    let mut all_null = sample.clone();
    for key in ["limit", "unit", "near", "exact"] {
        all_null[key] = Value::Null;
    }
    assert!(jsonschema::is_valid(&strict, &all_null));
    // And unknown properties are rejected.
    let mut extra = sample;
    extra["surprise"] = json!(1);
    assert!(!jsonschema::is_valid(&strict, &extra));
}

#[test]
fn non_strict_reasons_name_the_offending_node() {
    let problems = to_openai_strict(&schema_of::<Tree>()).unwrap_err();
    assert!(
        problems.iter().any(|p| p.contains("recursive")),
        "{problems:?}"
    );
    let problems = to_openai_strict(&schema_of::<WithMap>()).unwrap_err();
    assert!(
        problems
            .iter()
            .any(|p| p.contains("/properties/labels") && p.contains("map")),
        "{problems:?}"
    );
    let problems = to_openai_strict(&schema_of::<FreeForm>()).unwrap_err();
    assert!(
        problems.iter().any(|p| p.contains("/properties/filter")),
        "{problems:?}"
    );
}

#[test]
fn non_strict_openai_keeps_the_original_schema_cleaned() {
    let schema = schema_of::<Tree>();
    let exported = export(&definition("tree", schema.clone()), Dialect::OpenAiChat);
    let parameters = &exported["function"]["parameters"];
    assert_eq!(exported["function"]["strict"], false);
    assert!(parameters.get("$schema").is_none());
    assert_eq!(parameters["properties"], schema["properties"]);
    assert_eq!(parameters["$defs"], schema["$defs"]);
}

#[test]
fn the_checker_reports_each_broken_rule() {
    let cases = [
        (
            json!({"type": "array", "items": {"type": "string"}}),
            "root must be",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}),
            "additionalProperties",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": [],
                   "additionalProperties": false}),
            "must be listed in `required`",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 1}},
                   "required": ["a"], "additionalProperties": false}),
            "`minLength` is not supported",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string", "format": "uint8"}},
                   "required": ["a"], "additionalProperties": false}),
            "format",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "array"}},
                   "required": ["a"], "additionalProperties": false}),
            "`items`",
        ),
        (
            json!({"type": "object", "properties": {"a": {"description": "untyped"}},
                   "required": ["a"], "additionalProperties": false}),
            "needs a `type`",
        ),
        (
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/Missing"}},
                   "required": ["a"], "additionalProperties": false}),
            "does not resolve",
        ),
        (
            json!({"type": "object", "anyOf": [{"type": "object"}], "properties": {},
                   "required": [], "additionalProperties": false}),
            "must not be an `anyOf`",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string", "enum": ["x", null]}},
                   "required": ["a"], "additionalProperties": false}),
            "does not match the type",
        ),
    ];
    for (schema, expected) in cases {
        let problems = is_openai_strict_compatible(&schema).unwrap_err();
        assert!(
            problems.iter().any(|p| p.contains(expected)),
            "expected {expected:?} in {problems:?} for {schema}"
        );
    }
}

#[test]
fn the_checker_enforces_size_limits() {
    let mut deep = json!({"type": "string"});
    for _ in 0..12 {
        deep = json!({"type": "object", "properties": {"n": deep}, "required": ["n"],
                      "additionalProperties": false});
    }
    let problems = is_openai_strict_compatible(&deep).unwrap_err();
    assert!(
        problems.iter().any(|p| p.contains("nested")),
        "{problems:?}"
    );
    assert!(to_openai_strict(&deep).is_err());

    let values: Vec<String> = (0..1_001).map(|i| format!("v{i}")).collect();
    let many = json!({"type": "object", "properties": {"e": {"type": "string", "enum": values}},
                      "required": ["e"], "additionalProperties": false});
    let problems = is_openai_strict_compatible(&many).unwrap_err();
    assert!(
        problems.iter().any(|p| p.contains("enum values")),
        "{problems:?}"
    );
}

#[test]
fn the_checker_accepts_defs_and_refs_that_resolve() {
    let schema = json!({
        "type": "object",
        "properties": {"loc": {"$ref": "#/$defs/Loc"}},
        "required": ["loc"],
        "additionalProperties": false,
        "$defs": {"Loc": {"type": "object", "properties": {"c": {"type": "string"}},
                           "required": ["c"], "additionalProperties": false}}
    });
    assert_eq!(is_openai_strict_compatible(&schema), Ok(()));
}

#[test]
fn mcp_shape_has_title_schemas_and_annotation_hints() {
    let mut definition = definition("lookup", schema_of::<Location>());
    definition.title = Some("Look up".into());
    definition.output_schema = Some(schema_of::<Location>());
    definition.annotations = ToolAnnotations::default();
    definition.annotations.read_only = Some(true);
    definition.annotations.destructive = Some(false);
    definition.annotations.idempotent = Some(true);
    let mcp = export(&definition, Dialect::Mcp);
    assert_eq!(mcp["name"], "lookup");
    assert_eq!(mcp["title"], "Look up");
    assert_eq!(mcp["description"], definition.description);
    assert_eq!(mcp["inputSchema"]["type"], "object");
    assert_eq!(mcp["outputSchema"]["type"], "object");
    assert_eq!(
        mcp["annotations"],
        json!({"readOnlyHint": true}),
        "a read-only tool's other hints mean nothing to MCP, and `title` is said once"
    );
    let keys: Vec<&String> = mcp.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "name",
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations"
        ]
    );

    // A non-object output schema cannot be MCP structured content: it is left out.
    definition.output_schema = Some(schema_of::<Vec<String>>());
    definition.annotations = ToolAnnotations::default();
    let mcp = export(&definition, Dialect::Mcp);
    assert!(mcp.get("outputSchema").is_none());
    // Without hints, the annotations are empty; the title is the tool's own.
    assert_eq!(mcp["annotations"], json!({}));
    assert_eq!(mcp["title"], "Look up");
    // A tool that writes says whether it destroys and whether a repeat changes anything.
    definition.annotations.read_only = Some(false);
    definition.annotations.destructive = Some(false);
    definition.annotations.idempotent = Some(true);
    assert_eq!(
        export(&definition, Dialect::Mcp)["annotations"],
        json!({"readOnlyHint": false, "destructiveHint": false, "idempotentHint": true})
    );
    definition.title = None;
    assert_eq!(export(&definition, Dialect::Mcp)["title"], "Lookup");
}

#[test]
fn openai_and_anthropic_shapes() {
    let definition = definition("lookup", schema_of::<Location>());
    let chat = export(&definition, Dialect::OpenAiChat);
    assert_eq!(chat["type"], "function");
    let function = chat["function"].as_object().unwrap();
    assert_eq!(
        function.keys().collect::<Vec<_>>(),
        ["name", "description", "parameters", "strict"]
    );
    let responses = export(&definition, Dialect::OpenAiResponses);
    assert_eq!(
        responses.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["type", "name", "description", "parameters", "strict"]
    );
    assert_eq!(responses["parameters"], chat["function"]["parameters"]);
    let anthropic = export(&definition, Dialect::Anthropic);
    assert_eq!(
        anthropic.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["name", "description", "input_schema"]
    );
    assert_eq!(
        anthropic["input_schema"]["properties"]["city"]["type"],
        "string"
    );
}

#[test]
fn registry_exports_in_registration_order_for_every_dialect() {
    let mut builder = toolforge::ToolRegistry::standard().unwrap();
    // `"properties": null` is not valid JSON Schema: the exporters repair it, the registry
    // refuses it (see `registry.rs`).
    for definition in definitions()
        .into_iter()
        .filter(|d| d.name != "null_properties")
    {
        builder = builder
            .register(registry_support::Echo(definition))
            .unwrap();
    }
    let registry = builder.build();
    for dialect in Dialect::ALL {
        let exported = registry.definitions_for(dialect);
        assert_eq!(exported.len(), registry.len());
        let names: Vec<&str> = exported
            .iter()
            .map(|e| {
                e.get("name")
                    .or_else(|| e["function"].get("name"))
                    .and_then(Value::as_str)
                    .unwrap()
            })
            .collect();
        assert_eq!(names, registry.names().collect::<Vec<_>>(), "{dialect:?}");
    }
}

#[tokio::test]
async fn strict_mode_calls_with_null_optionals_pass_the_registry() {
    let registry = toolforge::ToolRegistry::builder()
        .register(registry_support::Echo(definition(
            "search",
            schema_of::<Search>(),
        )))
        .unwrap()
        .build();
    let strict = to_openai_strict(&schema_of::<Search>()).unwrap();
    // What a strict-mode model sends when it leaves every optional out.
    let mut call = sample_search();
    for key in ["limit", "unit", "near", "exact"] {
        call[key] = Value::Null;
    }
    assert!(jsonschema::is_valid(&strict, &call));
    let received = registry.call("search", call).await.unwrap();
    // `exact` (serde default, not nullable) is dropped; Option fields keep their null.
    assert!(received.get("exact").is_none(), "{received}");
    assert_eq!(received["limit"], Value::Null);
    assert_eq!(received["near"], Value::Null);
    // A null for a required, non-nullable property is still an error.
    let mut bad = sample_search();
    bad["query"] = Value::Null;
    let error = registry.call("search", bad).await.unwrap_err();
    assert_eq!(error.code, toolforge::ErrorCode::InvalidArguments);
}

#[test]
fn every_dialect_cuts_a_description_over_1024_characters() {
    use toolforge::dialect::MAX_DESCRIPTION_CHARS;
    let mut long = definition("long", json!({"type": "object"}));
    long.description = "A sentence that a custom tool repeats. ".repeat(100);
    for dialect in Dialect::ALL {
        let exported = export(&long, dialect);
        let text = exported["description"]
            .as_str()
            .or(exported["function"]["description"].as_str())
            .unwrap();
        assert!(text.chars().count() <= MAX_DESCRIPTION_CHARS, "{dialect:?}");
        assert!(
            text.starts_with("A sentence") && text.ends_with(" A…"),
            "{text}"
        );
    }
    let short = definition("short", json!({"type": "object"}));
    assert_eq!(
        export(&short, Dialect::Anthropic)["description"],
        json!(short.description)
    );
}

#[test]
fn gemini_declarations_keep_to_the_gemini_subset() {
    use toolforge::dialect::is_gemini_compatible;
    for definition in definitions() {
        let declaration = export(&definition, Dialect::Gemini);
        assert_eq!(declaration["name"], json!(definition.name));
        assert_eq!(declaration["description"], json!(definition.description));
        let keys: Vec<&String> = declaration.as_object().unwrap().keys().collect();
        assert!(
            keys.iter()
                .all(|k| ["name", "description", "parameters"].contains(&k.as_str())),
            "{keys:?}"
        );
        match declaration.get("parameters") {
            Some(parameters) => {
                if let Err(problems) = is_gemini_compatible(parameters) {
                    panic!("{}: {problems:#?}\n{parameters:#}", definition.name);
                }
                assert_eq!(parameters["type"], "OBJECT");
            }
            // A tool without arguments declares no parameters (Gemini refuses an OBJECT
            // without properties).
            None => assert!(
                ["empty", "bare_object", "null_properties", "true_schema"]
                    .contains(&definition.name.as_str()),
                "{}",
                definition.name
            ),
        }
    }
    let search = export(
        &definition("search", schema_of::<Search>()),
        Dialect::Gemini,
    );
    let properties = &search["parameters"]["properties"];
    // Option<u32>: an INTEGER, minimum kept, the non-Gemini `uint32` format dropped.
    assert_eq!(
        properties["limit"],
        json!({"type": "INTEGER", "minimum": 0, "nullable": true, "description": "Maximum results."})
    );
    assert_eq!(properties["unit"]["enum"], json!(["celsius", "fahrenheit"]));
    assert_eq!(properties["location"]["required"], json!(["city"]));
    assert_eq!(
        search["parameters"]["required"].as_array().unwrap().len(),
        5
    );
    // A recursive type is cut where it refers to itself; a free-form value becomes JSON text.
    let tree = export(&definition("tree", schema_of::<Tree>()), Dialect::Gemini);
    is_gemini_compatible(&tree["parameters"]).unwrap();
    let free = export(
        &definition("free", schema_of::<FreeForm>()),
        Dialect::Gemini,
    );
    is_gemini_compatible(&free["parameters"]).unwrap();
}

#[test]
fn gemini_any_of_is_alone_in_its_node_with_the_description_in_each_branch() {
    let schema = json!({
        "type": "object",
        "properties": {
            "value": {
                "description": "A value.",
                "anyOf": [{"type": "string"}, {"type": "number"}, {"type": "null"}]
            },
            "either": {"type": ["integer", "boolean"]},
            "maybe": {"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "null"}]}
        },
        "required": ["value"]
    });
    let gemini = toolforge::dialect::to_gemini_schema(&schema);
    assert_eq!(
        gemini["properties"]["value"],
        json!({"anyOf": [
            {"type": "STRING", "nullable": true, "description": "A value."},
            {"type": "NUMBER", "nullable": true, "description": "A value."}
        ]})
    );
    assert_eq!(
        gemini["properties"]["either"],
        json!({"anyOf": [{"type": "INTEGER"}, {"type": "BOOLEAN"}]})
    );
    assert_eq!(
        gemini["properties"]["maybe"],
        json!({"type": "OBJECT", "properties": {"a": {"type": "STRING"}}, "nullable": true})
    );
    toolforge::dialect::is_gemini_compatible(&gemini).unwrap();
}

#[tokio::test]
async fn batch_args_written_as_json_text_for_gemini_reach_the_tool_as_an_object() {
    let registry = toolforge::ToolRegistry::standard()
        .unwrap()
        .register(registry_support::Echo::with_schema(
            "echo",
            json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        ))
        .unwrap()
        .build();
    let batch = registry.get("batch").unwrap().definition().clone();
    let declaration = export(&batch, Dialect::Gemini);
    let args = &declaration["parameters"]["properties"]["calls"]["items"]["properties"]["args"];
    assert_eq!(args["type"], "STRING");
    assert!(
        args["description"]
            .as_str()
            .unwrap()
            .contains("JSON object"),
        "{args}"
    );
    toolforge::dialect::is_gemini_compatible(&declaration["parameters"]).unwrap();
    // What a Gemini model sends, following that declaration.
    let answer = registry
        .call(
            "batch",
            json!({"calls": [{"tool": "echo", "args": "{\"text\": \"hi\"}"}]}),
        )
        .await
        .unwrap();
    assert_eq!(answer["results"][0]["result"], json!({"text": "hi"}));
    // Text that is not an object stays an error.
    let error = registry
        .call("batch", json!({"calls": [{"tool": "echo", "args": "[1]"}]}))
        .await
        .unwrap_err();
    assert_eq!(error.code, toolforge::ErrorCode::InvalidArguments);
}
