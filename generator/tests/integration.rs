//! The integration tests of this crate, in one test binary: each file beside this one is a
//! module, and the fixtures and helpers they share are declared once here. One binary links
//! the engine once, where one binary per file linked it dozens of times (`autotests = false`
//! in Cargo.toml; a new test file is a `mod` line below).

mod common;
mod expr_fixture;

mod access_rules;
mod codegen_snapshots;
mod computed_fields;
mod declared_tools;
mod diagram;
mod expr_compile;
mod expr_corpus;
mod expr_cypher;
mod expr_errors;
mod expr_postgres;
mod expr_proptest;
mod expr_sqlite;
mod lowering;
mod no_panics;
mod validation;
mod validation_embeddings;
mod validation_full_text;
mod validation_mapping;
