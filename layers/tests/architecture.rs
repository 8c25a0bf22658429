//! The project's own architecture, checked from source: which modules may import which.
//!
//! Each test is one rule over one crate of the workspace, and reads as the rule it keeps
//! (`docs/DESIGN.md`, "Layers", says the same in prose). A failure prints the offending imports
//! as `from -> to (file:line)`; `cargo run -p toolforge-layers -- runtime/src --prefix sql`
//! shows the whole graph around them.

use std::path::PathBuf;

use toolforge_layers::{Error, Rule, acyclic, cfg_confined, check};

/// The `src/` directory of a workspace crate (`runtime`, `generator`, `catalog`).
fn src(krate: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(krate)
        .join("src")
}

/// The layers of the SQL engine (`runtime/src/sql`), bottom first: a module imports modules of
/// its own layer and of the layers below, never above.
const SQL_LAYERS: &[&[&str]] = &[
    // SQL text and values, without a connection: the text helpers (identifiers, lexing, names,
    // globs, dates),
    // DDL (the generator writes `schema.sql` from it without linking SQLite), schema
    // comparison, the full-text query language and tokenizer, the names tool arguments take.
    &[
        "sql::text",
        "sql::value",
        "sql::key",
        "sql::ddl",
        "sql::schema_diff",
        "sql::full_text::query",
        "sql::full_text::sqlite_ddl",
        // FTS5's tokenizer, stemmer and snippets ported, for backends without FTS5.
        "sql::full_text::fts5_tables",
        "sql::full_text::unicode61",
        "sql::full_text::porter",
        "sql::full_text::analyzer",
        "sql::full_text::snippet",
        "sql::arg_name",
        // What a database's catalog holds (read by both backends), the errors and options of
        // reading it, and the scanner of `CHECK (... IN ...)` lists.
        "sql::introspect::catalog",
        "sql::introspect::check_in",
        "sql::introspect::error",
        "sql::introspect::options",
    ],
    // The backend layer, which names no backend: the dialect, the execution error, the reader
    // and writer traits, the import sink.
    &["sql::backend"],
    // What both backends and the services share above that layer.
    &[
        "sql::database::error",
        "sql::handler_error",
        "sql::full_text::pg_tables",
        // The vectors of each index kept in memory.
        "sql::vectors::cache",
        "sql::graphs",
        // The graphs `find_path` walks, kept per data stamp.
        "sql::path_graphs",
        // The views presenting an existing database's tables in a spec's terms.
        "sql::mapping",
        "sql::side_store",
    ],
    // The backends, one folder each.
    &["sql::sqlite", "sql::postgres"],
    // The one dispatch point: the database handle, which opens either backend.
    &["sql::database"],
    // The engine's services over any backend.
    &[
        "sql::query",
        "sql::full_text",
        "sql::access",
        // Vector search wherever the vectors live, and the embedding pass.
        "sql::vectors::nearest",
        "sql::vectors::embed_pass",
        "sql::changes",
        "sql::import",
        "sql::records",
        "sql::describe",
        // Reading an existing database's catalog (`init --from-db`) through either backend.
        "sql::introspect",
    ],
    // The database tools, grouped by family.
    &["sql::tools"],
    // The standard registry of the tools.
    &["sql::standard_registry"],
];

#[test]
fn the_runtime_has_no_import_cycles() -> Result<(), Error> {
    acyclic(src("runtime"), "")
}

#[test]
fn the_sql_engine_is_layered() -> Result<(), Error> {
    check(src("runtime"), &[Rule::Layers(SQL_LAYERS)])
}

#[test]
fn the_backend_layer_and_the_services_name_no_backend_driver() -> Result<(), Error> {
    let servers = ["tokio_postgres", "deadpool_postgres"];
    check(
        src("runtime"),
        &[
            Rule::ForbiddenCrates {
                under: "sql::backend",
                crates: &["rusqlite", "tokio_postgres", "deadpool_postgres"],
            },
            Rule::ForbiddenCrates {
                under: "sql::tools",
                crates: &servers,
            },
            Rule::ForbiddenCrates {
                under: "sql::query",
                crates: &servers,
            },
            Rule::ForbiddenCrates {
                under: "sql::full_text",
                crates: &servers,
            },
            Rule::ForbiddenCrates {
                under: "sql::import",
                crates: &servers,
            },
            Rule::ForbiddenCrates {
                under: "sql::access",
                crates: &servers,
            },
            Rule::ForbiddenCrates {
                under: "sql::introspect",
                crates: &["rusqlite", "tokio_postgres", "deadpool_postgres"],
            },
        ],
    )
}

/// The MCP server's modules outside `mcp/http/` (the protocol handlers, stdio, the offers)
/// serve no HTTP: the servers, routers and bodies of the HTTP transport stay in its folder.
/// (`origin.rs` and `client_log.rs` read a request's headers through `axum::http`'s types,
/// which every transport's request context may carry.)
#[test]
fn the_http_transport_stays_in_its_folder() -> Result<(), Error> {
    let http = ["axum", "hyper", "hyper_util", "http_body", "tower_service"];
    let rules: Vec<Rule<'_>> = [
        "mcp::handler",
        "mcp::server",
        "mcp::stdio",
        "mcp::served",
        "mcp::offers",
        "mcp::subscriptions",
        "mcp::convert",
        "mcp::paging",
        "mcp::invalid_params",
        "mcp::shutdown",
        "mcp::telemetry",
    ]
    .into_iter()
    .map(|under| Rule::ForbiddenCrates {
        under,
        crates: &http,
    })
    .collect();
    check(src("runtime"), &rules)
}

/// Only the backends' folders and the handle over them talk to a database driver: every other
/// module of the engine (the text and values, the services, the tools, the registry) reads and
/// writes through the backend trait (`sql/backend/`), so it runs on either backend unchanged.
/// Test code is not counted (the oracles some tests hold the ports against are SQLite's).
#[test]
fn no_read_path_outside_the_backend_trait() -> Result<(), Error> {
    let drivers = ["rusqlite", "tokio_postgres", "deadpool_postgres"];
    let own_drivers = ["sql::sqlite", "sql::postgres", "sql::database"];
    let rules: Vec<Rule<'_>> = SQL_LAYERS
        .iter()
        .flat_map(|layer| layer.iter().copied())
        .filter(|module| !own_drivers.contains(module) && !module.starts_with("sql::database"))
        .chain([
            "builtin", "dialect", "embed", "mcp", "registry", "search", "spec", "typed",
        ])
        .map(|under| Rule::ForbiddenCrates {
            under,
            crates: &drivers,
        })
        .collect();
    assert!(rules.len() > 30, "{} modules checked", rules.len());
    check(src("runtime"), &rules)
}

/// What needs SQLite itself is in its folder, the handle that opens it, the catalog reader
/// that reads either backend's catalog and the lines that declare them; elsewhere, tests whose
/// oracle is SQLite's own (its FTS5 tokenizer and `snippet()`, a view made once per
/// connection, one load of a table's vectors) and the trace context carried onto SQLite's
/// blocking pool. So `postgres` builds alone, and CI builds it so.
#[test]
fn sqlite_cfgs_stay_in_the_backend_folder_and_the_dispatch_points() -> Result<(), Error> {
    cfg_confined(
        src("runtime"),
        "sqlite",
        &[
            "sql/sqlite/",
            "sql/database/",
            "sql/introspect/",
            "sql/mod.rs",
            "lib.rs",
            "trace.rs",
            "sql/full_text/mod.rs",
            "sql/full_text/snippet.rs",
            "sql/access.rs",
            "sql/vectors/cache.rs",
        ],
    )
}

#[test]
fn postgres_cfgs_stay_in_the_backend_folders_and_the_dispatch_point() -> Result<(), Error> {
    // Relative to runtime/src: the PostgreSQL backend's folder, the database handle that opens
    // either backend, the catalog reader that reads either backend's catalog, and the line
    // that declares the backend's module.
    cfg_confined(
        src("runtime"),
        "postgres",
        &[
            "sql/postgres/",
            "sql/database/mod.rs",
            "sql/introspect/mod.rs",
            "sql/mod.rs",
        ],
    )
}

#[test]
fn the_generator_has_no_import_cycles() -> Result<(), Error> {
    acyclic(src("generator"), "")
}

#[test]
fn the_catalog_has_no_import_cycles() -> Result<(), Error> {
    acyclic(src("catalog"), "")
}

/// The checks above read real trees: the crates load without warnings.
#[test]
fn every_checked_crate_loads() {
    for krate in ["runtime", "generator", "catalog"] {
        let graph = toolforge_layers::CrateGraph::load(src(krate))
            .unwrap_or_else(|error| panic!("{krate}: {error}"));
        assert!(
            graph.file_modules().len() > 5 && !graph.edges().is_empty(),
            "{krate}: {} modules, {} edges",
            graph.file_modules().len(),
            graph.edges().len()
        );
        assert!(
            graph.warnings().is_empty(),
            "{krate}: {:?}",
            graph.warnings()
        );
    }
}
