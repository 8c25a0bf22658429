//! `#[derive(Tool)]` seen from a user's crate: definitions, schemas, calls and errors.

#![cfg(feature = "derive")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use toolforge::schemars::JsonSchema;
use toolforge::serde::Serialize;
use toolforge::{ErrorCode, Tool, ToolArgs, ToolContext, ToolError, ToolHandler, TypedTool};

/// Searches the code base for a text.
///
/// Returns the matching files.
#[derive(Tool)]
#[tool(read_only, idempotent = true, destructive = false)]
#[tool(capabilities = ["search", "code"], keywords = "grep")]
struct SearchCode {
    /// The text to look for.
    query: String,
    /// How many files to return at most.
    limit: Option<u32>,
    /// Only files whose path starts with one of these prefixes.
    #[serde(default)]
    paths: Vec<String>,
}

/// One file that matched.
#[derive(Serialize, JsonSchema, Debug)]
#[serde(crate = "toolforge::serde")]
#[schemars(crate = "toolforge::schemars")]
struct Match {
    /// Path of the file.
    path: String,
    /// How many times the text occurs in it.
    occurrences: u32,
}

impl ToolHandler for SearchCode {
    type Output = Vec<Match>;

    async fn run(self, _context: &ToolContext) -> Result<Vec<Match>, ToolError> {
        let files = ["src/lib.rs", "src/tool.rs", "tests/derive.rs"];
        let matches = files
            .into_iter()
            .filter(|file| self.paths.is_empty() || self.paths.iter().any(|p| file.starts_with(p)))
            .map(|file| Match {
                path: file.to_owned(),
                occurrences: self.query.len() as u32,
            })
            .take(self.limit.unwrap_or(u32::MAX) as usize)
            .collect();
        Ok(matches)
    }
}

async fn call(tool: &dyn Tool, arguments: Value) -> Result<Value, ToolError> {
    tool.call(arguments, &ToolContext::new()).await
}

#[test]
fn definition_comes_from_the_struct() {
    let definition = SearchCode::definition();
    assert_eq!(definition.name, "search_code");
    assert_eq!(definition.title, None);
    assert_eq!(
        definition.description,
        "Searches the code base for a text.\n\nReturns the matching files."
    );
    assert_eq!(definition.annotations.read_only, Some(true));
    assert_eq!(definition.annotations.idempotent, Some(true));
    assert_eq!(definition.annotations.destructive, Some(false));
    assert_eq!(definition.annotations.open_world, None);
    assert_eq!(definition.capabilities, ["search", "code"]);
    assert_eq!(definition.keywords, ["grep"]);
    // `ToolArgs` alone does not know the output; `TypedTool` adds it.
    assert_eq!(definition.output_schema, None);
}

#[test]
fn input_schema_describes_the_fields() {
    let schema = SearchCode::definition().input_schema;
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["title"], "SearchCode");
    assert_eq!(
        schema.get("description"),
        None,
        "the description is the tool's, not repeated"
    );
    let properties = schema["properties"].as_object().unwrap();
    assert_eq!(
        properties.keys().collect::<Vec<_>>(),
        ["query", "limit", "paths"],
        "properties keep field order"
    );
    assert_eq!(properties["query"]["type"], "string");
    assert_eq!(properties["query"]["description"], "The text to look for.");
    assert_eq!(properties["limit"]["type"], json!(["integer", "null"]));
    assert_eq!(
        properties["limit"]["description"],
        "How many files to return at most."
    );
    assert_eq!(properties["paths"]["type"], "array");
    assert_eq!(
        schema["required"],
        json!(["query"]),
        "Option and default fields are optional"
    );
}

#[test]
fn typed_tool_adds_the_output_schema() {
    let tool = SearchCode::into_tool();
    let output = tool.definition().output_schema.clone().unwrap();
    assert_eq!(output["type"], "array");
    let item = &output["$defs"]["Match"];
    assert_eq!(
        item["properties"]["path"]["description"],
        "Path of the file."
    );
    assert_eq!(item["required"], json!(["path", "occurrences"]));
    assert_eq!(
        tool.definition().name,
        TypedTool::<SearchCode>::new().definition().name
    );
}

#[tokio::test]
async fn good_arguments_run_the_handler() {
    let tool = SearchCode::into_tool();
    let result = call(
        &tool,
        json!({"query": "abc", "paths": ["src/"], "limit": 5}),
    )
    .await
    .unwrap();
    assert_eq!(
        result,
        json!([
            {"path": "src/lib.rs", "occurrences": 3},
            {"path": "src/tool.rs", "occurrences": 3},
        ])
    );
    let limited = call(&tool, json!({"query": "x", "limit": 1}))
        .await
        .unwrap();
    assert_eq!(limited.as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn bad_arguments_are_structured_errors_with_the_path() {
    let tool = SearchCode::into_tool();

    let error = call(&tool, json!({"query": "x", "paths": ["src/", 7]}))
        .await
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidArguments);
    let details = error.details.clone().unwrap();
    assert_eq!(details["path"], "/paths/1");
    assert!(
        details["reason"]
            .as_str()
            .unwrap()
            .contains("expected a string")
    );
    assert!(error.message.contains("`/paths/1`"), "{}", error.message);

    let error = call(&tool, json!({"limit": 3})).await.unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidArguments);
    assert_eq!(error.details.unwrap()["reason"], "missing field `query`");

    let error = call(&tool, json!({"query": "x", "limit": -1}))
        .await
        .unwrap_err();
    assert_eq!(error.details.unwrap()["path"], "/limit");

    let error = call(&tool, json!("query")).await.unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidArguments);
    assert_eq!(
        error.message,
        "invalid arguments: expected an object of named arguments, got a string"
    );
}

/// Counts calls in a shared counter.
#[derive(Tool)]
#[tool(name = "count-calls", title = "Call counter", open_world = false)]
#[serde(deny_unknown_fields)]
struct CountCalls {
    /// Added to the counter.
    #[serde(rename = "by", default = "one")]
    step: usize,
}

fn one() -> usize {
    1
}

/// The shared state the tool reads from its context.
struct Counter(AtomicUsize);

/// What `count-calls` returns.
#[derive(Serialize, JsonSchema)]
#[serde(crate = "toolforge::serde")]
#[schemars(crate = "toolforge::schemars")]
struct Count {
    /// The counter after this call.
    total: usize,
}

impl ToolHandler for CountCalls {
    type Output = Count;

    async fn run(self, context: &ToolContext) -> Result<Count, ToolError> {
        let counter = context
            .extension::<Counter>()
            .ok_or_else(|| ToolError::execution_failed("no Counter in the context"))?;
        let total = counter.0.fetch_add(self.step, Ordering::SeqCst) + self.step;
        Ok(Count { total })
    }
}

#[tokio::test]
async fn handlers_read_context_extensions() {
    let tool: Arc<dyn Tool> = Arc::new(CountCalls::into_tool());
    let context = ToolContext::new().with_extension(Counter(AtomicUsize::new(10)));
    assert_eq!(
        tool.call(json!({}), &context).await.unwrap(),
        json!({"total": 11})
    );
    assert_eq!(
        tool.call(json!({"by": 5}), &context).await.unwrap(),
        json!({"total": 16})
    );

    let error = tool.call(json!({}), &ToolContext::new()).await.unwrap_err();
    assert_eq!(error.code, ErrorCode::ExecutionFailed);
    assert_eq!(error.message, "no Counter in the context");
}

#[tokio::test]
async fn serde_attributes_shape_schema_and_parsing() {
    let tool = CountCalls::into_tool();
    let definition = tool.definition();
    assert_eq!(definition.name, "count-calls");
    assert_eq!(definition.title.as_deref(), Some("Call counter"));
    assert_eq!(definition.annotations.open_world, Some(false));
    let schema = &definition.input_schema;
    assert_eq!(
        schema["properties"]["by"]["description"],
        "Added to the counter."
    );
    assert_eq!(schema["properties"]["by"]["default"], 1);
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema.get("required"), None);
    let output = definition.output_schema.as_ref().unwrap();
    assert_eq!(
        output["properties"]["total"]["description"],
        "The counter after this call."
    );

    let context = ToolContext::new().with_extension(Counter(AtomicUsize::new(0)));
    let error = tool.call(json!({"step": 2}), &context).await.unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidArguments);
    assert!(
        error.message.contains("unknown field `step`"),
        "{}",
        error.message
    );
}

/// Answers `pong`.
#[derive(Tool)]
struct Ping {}

impl ToolHandler for Ping {
    type Output = String;

    async fn run(self, _context: &ToolContext) -> Result<String, ToolError> {
        Ok("pong".to_owned())
    }
}

#[tokio::test]
async fn a_tool_without_arguments_has_an_empty_object_schema() {
    let tool = Ping::into_tool();
    let schema = &tool.definition().input_schema;
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"], json!({}));
    assert_eq!(call(&tool, json!({})).await.unwrap(), "pong");
    assert_eq!(
        tool.definition().output_schema.as_ref().unwrap()["type"],
        "string"
    );
}

#[test]
fn many_tools_have_distinct_definitions() {
    let tools: Vec<Arc<dyn Tool>> = vec![
        Arc::new(SearchCode::into_tool()),
        Arc::new(CountCalls::into_tool()),
        Arc::new(Ping::into_tool()),
    ];
    let names: Vec<&str> = tools
        .iter()
        .map(|tool| tool.definition().name.as_str())
        .collect();
    assert_eq!(names, ["search_code", "count-calls", "ping"]);
}

/// Line one.
#[doc = concat!("Line ", "two, built by a macro.")]
#[derive(Tool)]
struct MacroDocs {}

impl ToolHandler for MacroDocs {
    type Output = ();

    async fn run(self, _context: &ToolContext) -> Result<(), ToolError> {
        Ok(())
    }
}

#[test]
fn doc_comments_built_by_macros_are_descriptions_too() {
    assert_eq!(
        MacroDocs::definition().description,
        "Line one.\nLine two, built by a macro."
    );
}

#[test]
fn derived_schemas_are_valid_draft_2020_12_and_match_good_arguments() {
    let tools: Vec<Arc<dyn Tool>> = vec![
        Arc::new(SearchCode::into_tool()),
        Arc::new(CountCalls::into_tool()),
        Arc::new(Ping::into_tool()),
    ];
    for tool in &tools {
        let definition = tool.definition();
        jsonschema::meta::validate(&definition.input_schema)
            .unwrap_or_else(|error| panic!("{}: input schema: {error}", definition.name));
        let output = definition.output_schema.as_ref().unwrap();
        jsonschema::meta::validate(output)
            .unwrap_or_else(|error| panic!("{}: output schema: {error}", definition.name));
    }
    let search = SearchCode::definition().input_schema;
    assert!(jsonschema::is_valid(
        &search,
        &json!({"query": "x", "limit": null})
    ));
    assert!(!jsonschema::is_valid(&search, &json!({"limit": 3})));
    assert!(!jsonschema::is_valid(
        &search,
        &json!({"query": "x", "limit": -1})
    ));
}
