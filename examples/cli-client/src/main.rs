//! `cli-client`: load a few books into a fresh SQLite file, then call tools of the generated
//! client folder and print each call with its JSON result.

use std::process::ExitCode;

use serde_json::{Value, json};
use toolforge::ToolRegistry;
use toolforge::sql::Database;
use toolforge::sql::query::{Direction, Operator};

use cli_client_example::library::tool_args::{
    Condition, EntityName, FieldName, OrderBy, QueryEntitiesArgs,
};
use cli_client_example::{library, sample};

type Error = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), Error> {
    let dir = tempfile::tempdir()?;
    let db = Database::open(dir.path().join("library.db"))?;
    let stats = sample::load(&db)?;
    println!(
        "Loaded {} records and {} WRITTEN_BY edges in one typed write.",
        stats.entities, stats.relationships
    );

    let registry = library::setup_tool_registry(db)?;
    let names: Vec<_> = registry
        .definitions()
        .iter()
        .map(|d| d.name.clone())
        .collect();
    println!("{} tools: {}", names.len(), names.join(", "));

    // Typed arguments: a misspelled field or entity is a compile error, not a failed call.
    let long_books = QueryEntitiesArgs {
        entity_type: EntityName::Book,
        conditions: vec![Condition {
            field: FieldName::IsLong,
            operator: Operator::Eq,
            value: json!(true),
        }],
        order_by: Some(OrderBy {
            field: FieldName::Pages,
            direction: Direction::Desc,
        }),
        limit: Some(5),
        offset: None,
    };
    show(
        &QueryEntitiesArgs::tool_name(),
        &serde_json::to_value(&long_books)?,
        long_books.call(&registry).await,
    )?;

    call(
        &registry,
        "explore_relationships",
        json!({
            "start_entity_type": "Book",
            "start_conditions": [{"field": "title", "operator": "=", "value": "Good Omens"}],
            "relationship_type": "WRITTEN_BY",
            "direction": "outgoing"
        }),
    )
    .await?;

    // The custom tool of `src/library/custom_tools.rs`.
    call(&registry, "author_bibliography", json!({"name": "Le Guin"})).await?;
    Ok(())
}

async fn call(registry: &ToolRegistry, tool: &str, arguments: Value) -> Result<(), Error> {
    let result = registry.call(tool, arguments.clone()).await;
    show(tool, &arguments, result)
}

fn show(tool: &str, arguments: &Value, result: toolforge::ToolResult) -> Result<(), Error> {
    println!("\n> {tool} {arguments}");
    let value = result.map_err(|error| format!("{tool} failed: {error}"))?;
    println!("{}", serde_json::to_string_pretty(&value)?);
    Ok(())
}
