//! The integration tests of this crate, in one test binary: each file beside this one is a
//! module, and the fixtures and helpers they share are declared once here. One binary links
//! the engine once, where one binary per file linked it dozens of times (`autotests = false`
//! in Cargo.toml; a new test file is a `mod` line below).

mod http_support;
#[path = "../../runtime/tests/pg_support/mod.rs"]
mod pg_support;
mod sample_databases;
mod unprivileged;

mod cli;
mod cli_catalog;
mod cli_db;
mod cli_full_text;
mod cli_http_limits;
mod cli_oauth;
mod cli_offers;
mod cli_postgres;
mod cli_replicas;
mod cli_schema;
mod cli_serve;
mod cli_telemetry;
mod cli_workbench;
mod codegen_folder;
mod guide_reference;
mod init_from_db;
mod mapped_changes;
mod mapped_full_text;
mod mapped_postgres;
mod mapped_serve;
mod mapped_sqlite;
mod mapped_vectors;
mod validate_db;
