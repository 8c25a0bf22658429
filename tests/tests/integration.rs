//! The integration tests of this crate, in one test binary: each file beside this one is a
//! module, and the fixtures and helpers they share are declared once here. One binary links
//! the engine once, where one binary per file linked it dozens of times (`autotests = false`
//! in Cargo.toml; a new test file is a `mod` line below).

mod e2e_support;
#[path = "../../runtime/tests/pg_support/mod.rs"]
mod pg_support;
#[path = "../../runtime/tests/row_embedder/mod.rs"]
mod row_embedder;
#[path = "../../cli/tests/sample_databases.rs"]
mod sample_databases;
#[path = "../../runtime/tests/similar_fixture/mod.rs"]
mod similar_fixture;
#[path = "../../runtime/tests/test_model/mod.rs"]
mod test_model;

mod access_rules;
mod argument_types;
mod build_graph;
mod build_script;
mod client_definitions;
mod config_macro;
mod corpus;
mod declared_sql_tools;
mod declared_tools;
mod e2e_changes;
mod e2e_code_rag;
mod e2e_computed_fields;
mod e2e_document_rag;
mod e2e_postgres;
mod e2e_tool_calling_agent;
mod generated_clients;
mod generated_fresh;
mod guide_pages;
mod mcp_server;
mod pgvector;
mod random_configs;
mod standalone_clients;
