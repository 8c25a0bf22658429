//! The integration tests of this crate, in one test binary: each file beside this one is a
//! module, and the fixtures and helpers they share are declared once here. One binary links
//! the engine once, where one binary per file linked it dozens of times (`autotests = false`
//! in Cargo.toml; a new test file is a `mod` line below).

mod changes_fixture;
mod clusters_fixture;
mod full_text_fixture;
mod join_fixture;
mod paths_fixture;
mod pg_support;
mod places_fixture;
mod registry_support;
#[path = "row_embedder/mod.rs"]
mod row_embedder;
mod similar_fixture;
mod sql_fixtures;
mod test_model;

#[cfg(feature = "ann")]
mod approximate_search;
mod batch;
mod changes;
mod derive;
mod dialect;
#[cfg(all(feature = "embed-http", feature = "sqlite"))]
mod embed_http;
#[cfg(all(feature = "embed-local", feature = "embed-fetch", feature = "postgres"))]
mod embed_local;
mod full_text;
mod full_text_postgres;
mod graph_tools;
mod hardening;
mod read_only_profile;
mod records;
mod registry;
mod registry_invalid_tool;
mod sql_differential;
mod sql_import;
mod sql_injection;
mod sql_postgres;
mod sql_query_tools;
mod sql_tools;
mod vector_search;
