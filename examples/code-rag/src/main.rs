//! `code-rag`: ingest a Rust source tree, then run the scripted session an agent would.
//!
//! Without `--src`, the tree is the source of a crate `Cargo.lock` pins ([`corpus`]), so the
//! session's answers, its question in words included, are the same on every run.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use serde_json::{Value, json};
use toolforge::Dialect;

use code_rag_example::corpus::{self, Question};
use code_rag_example::session::Session;
use code_rag_example::setup::{Prepared, prepare};

/// Parse a Rust source tree into SQLite and explore it with toolforge tools.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// The source tree to read (`target/` and hidden directories are skipped); by default
    /// the source of the crate `similar` at the version Cargo.lock pins.
    #[arg(long)]
    src: Option<PathBuf>,
    /// The SQLite file to (re)create.
    #[arg(long, default_value = "target/code-rag.db")]
    db: PathBuf,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let tree = match Tree::choose(args.src.clone()) {
        Ok(tree) => tree,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let prepared = match prepare(&tree.root, &args.db) {
        Ok(prepared) => prepared,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    summary(&prepared, &tree, &args);
    let mut session = Session::new(prepared.registry.clone());
    script(&mut session, &prepared, &tree).await;
    println!();
    if session.failures().is_empty() {
        println!("session finished: every step answered as expected");
        ExitCode::SUCCESS
    } else {
        eprintln!("session failed:");
        for failure in session.failures() {
            eprintln!("  {failure}");
        }
        ExitCode::FAILURE
    }
}

/// The tree the session reads, and what it asks of it in words.
struct Tree {
    root: PathBuf,
    /// How the summary names the tree.
    label: String,
    /// The question of the semantic step; its answer is checked when known.
    question: Question,
}

impl Tree {
    fn choose(src: Option<PathBuf>) -> Result<Tree, String> {
        match src {
            Some(root) => Ok(Tree {
                label: root.display().to_string(),
                root,
                question: Question {
                    text: "where is the configuration file parsed",
                    answer: None,
                },
            }),
            None => {
                let pinned = corpus::locate(corpus::PINNED_CRATE)?;
                Ok(Tree {
                    label: format!(
                        "the crate {} {} (pinned by Cargo.lock, from cargo's download cache)",
                        pinned.name, pinned.version
                    ),
                    root: pinned.root,
                    question: corpus::PINNED_QUESTION,
                })
            }
        }
    }
}

fn summary(prepared: &Prepared, tree: &Tree, args: &Args) {
    let codebase = &prepared.codebase;
    println!(
        "Ingested {}: {} directories, {} files, {} scopes, {} CALLS edges \
         (parsed in {:.0?}, loaded in {:.0?} into {})",
        tree.label,
        codebase.directories.len(),
        codebase.files.len(),
        codebase.scopes.len(),
        codebase.calls.len(),
        prepared.parse_time,
        prepared.load_time,
        args.db.display(),
    );
    println!(
        "Loaded {} records and {} relationships in one typed write; {} doc comments embedded \
         (model ready in {:.0?}).",
        prepared.stats.entities,
        prepared.stats.relationships,
        prepared.stats.embeddings.embedded,
        prepared.embed_time,
    );
    for warning in &codebase.warnings {
        println!("warning: {warning}");
    }
}

async fn script(session: &mut Session, prepared: &Prepared, tree: &Tree) {
    let registry = &prepared.registry;

    session.step("List the tool definitions");
    println!("{} tools:", registry.len());
    for definition in registry.definitions() {
        println!(
            "  {:<22} {}",
            definition.name,
            first_sentence(&definition.description)
        );
    }
    let exported = |dialect| {
        registry
            .definitions_for(dialect)
            .into_iter()
            .find(|d| d.to_string().contains("\"scope_loc\""))
    };
    for (label, dialect) in [
        ("OpenAI", Dialect::OpenAiChat),
        ("Anthropic", Dialect::Anthropic),
    ] {
        match exported(dialect) {
            Some(definition) => println!(
                "scope_loc for {label}:\n{}",
                serde_json::to_string_pretty(&definition).unwrap_or_default()
            ),
            None => session.fail(format!("scope_loc is missing from the {label} export")),
        }
    }

    session.step("Find the ten longest functions");
    let longest = session
        .call(
            "query_entities",
            json!({
                "entity_type": "Scope",
                "conditions": [{"field": "kind", "operator": "IN", "value": ["function", "method"]}],
                "order_by": {"field": "line_count", "direction": "DESC"},
                "limit": 10
            }),
        )
        .await;
    let top = longest.as_ref().and_then(|r| r["results"].get(0)).cloned();
    let Some(top) = top else {
        session.fail("no function was found; is the source tree empty?");
        return;
    };
    let (top_uuid, top_name, top_file) =
        (text(&top, "uuid"), text(&top, "name"), text(&top, "file"));

    session.step(&format!("Explore what `{top_name}` calls"));
    session
        .call(
            "explore_relationships",
            json!({
                "start_entity_type": "Scope",
                "start_conditions": [{"field": "uuid", "operator": "=", "value": top_uuid}],
                "relationship_type": "CALLS",
                "direction": "outgoing",
                "limit": 20
            }),
        )
        .await;

    session.step("Find the ten most called functions");
    let most_called = session
        .call(
            "aggregate_entities",
            json!({
                "entity_type": "Scope",
                "aggregation": "COUNT",
                "conditions": [{"field": "kind", "operator": "IN", "value": ["function", "method"]}],
                "along": {"relationship_type": "CALLS", "direction": "incoming"},
                "limit": 10
            }),
        )
        .await;
    let callee = most_called
        .as_ref()
        .and_then(|r| r["groups"].get(0))
        .map(|group| (text(group, "uuid"), text(group, "name")));

    match &callee {
        Some((callee_uuid, callee_name)) => {
            session.step(&format!("How does `{top_name}` reach `{callee_name}`?"));
            session
                .call(
                    "find_path",
                    json!({
                        "from": {"entity_type": "Scope", "id": top_uuid},
                        "to": {"entity_type": "Scope", "id": callee_uuid},
                        "relationship_types": ["CALLS"],
                        "max_depth": 8
                    }),
                )
                .await;
        }
        None => session.fail("no function is called by another one"),
    }

    session.step("Rank the functions by PageRank along CALLS");
    session
        .call(
            "rank_entities",
            json!({"entity_type": "Scope", "relationship_type": "CALLS", "limit": 5}),
        )
        .await;

    session.step("Group the functions into clusters along CALLS");
    session
        .call(
            "find_clusters",
            json!({"entity_type": "Scope", "relationships": ["CALLS"], "members": 3, "limit": 5}),
        )
        .await;

    if let Some((callee_uuid, callee_name)) = &callee {
        session.step(&format!(
            "Find the functions most like `{callee_name}` (the same callers and callees)"
        ));
        session
            .call(
                "find_similar",
                json!({
                    "entity_type": "Scope",
                    "id": callee_uuid,
                    "similarity": "structural",
                    "relationships": ["CALLS"],
                    "top_k": 5
                }),
            )
            .await;
    }

    let question = &tree.question;
    session.step(&format!("Ask in words: {}", question.text));
    let found = session
        .call(
            "semantic_search",
            json!({"entity_type": "Scope", "query": question.text, "top_k": 3}),
        )
        .await;
    if let Some(expected) = question.answer {
        let names: Vec<String> = found
            .as_ref()
            .and_then(|answer| answer["results"].as_array())
            .map(|results| results.iter().map(|r| text(r, "name")).collect())
            .unwrap_or_default();
        if names.iter().any(|name| name == expected) {
            println!("found `{expected}`, as expected");
        } else {
            session.fail(format!(
                "semantic_search did not find `{expected}` (got {names:?})"
            ));
        }
    }

    session.step("Read the largest impl block with its children");
    let largest_impl = session
        .call(
            "query_entities",
            json!({
                "entity_type": "Scope",
                "conditions": [{"field": "kind", "operator": "=", "value": "impl"}],
                "order_by": {"field": "line_count", "direction": "DESC"},
                "limit": 1
            }),
        )
        .await
        .and_then(|r| r["results"].get(0).map(|record| text(record, "uuid")));
    match largest_impl {
        Some(uuid) => {
            session
                .call(
                    "get_entities_by_ids",
                    json!({
                        "entity_type": "Scope",
                        "ids": [uuid],
                        "fields": ["name", "kind", "signature", "line_count"],
                        "with_children": true
                    }),
                )
                .await;
        }
        None => session.fail("the tree has no impl block to read"),
    }

    session.step(&format!(
        "Count the code lines of `{top_name}` (custom tool)"
    ));
    session
        .call("scope_loc", json!({"name": top_name, "file": top_file}))
        .await;

    session.step("Run three calls in one batch");
    session
        .call(
            "batch",
            json!({"calls": [
                {"tool": "glob_search", "args": {"entity_type": "File", "field": "path", "pattern": "*/lib.rs"}},
                {"tool": "query_entities", "args": {
                    "entity_type": "Scope",
                    "conditions": [{"field": "kind", "operator": "=", "value": "trait"}],
                    "limit": 5
                }},
                {"tool": "explore_relationships", "args": {
                    "start_entity_type": "Scope",
                    "start_conditions": [{"field": "uuid", "operator": "=", "value": top_uuid}],
                    "relationship_type": "CALLS",
                    "direction": "incoming"
                }}
            ]}),
        )
        .await;

    session.step("Send a misspelled tool name");
    let error = session
        .call_expecting_error("query_entitys", json!({"entity_type": "Scope", "limit": 1}))
        .await;
    if let Some(error) = error
        && !error.to_string().contains("query_entities")
    {
        session.fail("the unknown-tool error does not suggest query_entities");
    }
}

/// The description up to its first full stop, on one line, at most 110 characters.
fn first_sentence(description: &str) -> String {
    let one_line = description.split_whitespace().collect::<Vec<_>>().join(" ");
    let sentence = match one_line.find(". ") {
        Some(end) => &one_line[..=end],
        None => &one_line,
    };
    if sentence.chars().count() > 110 {
        let cut: String = sentence.chars().take(109).collect();
        format!("{cut}…")
    } else {
        sentence.to_string()
    }
}

fn text(record: &Value, field: &str) -> String {
    record[field].as_str().unwrap_or_default().to_string()
}
