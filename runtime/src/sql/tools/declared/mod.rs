//! Tools declared in the config (`toolforge.declared_tools`): the `query:` form over one entity
//! ([`tool`]), the trusted `sql:` form ([`sql_statement`]) and their typed calls from generated
//! modules ([`typed_calls`]).

pub(crate) mod sql_statement;
pub(crate) mod tool;
pub(crate) mod typed_calls;

pub use typed_calls::{DeclaredArgs, DeclaredPage, DeclaredRows, call_declared, run_declared};
