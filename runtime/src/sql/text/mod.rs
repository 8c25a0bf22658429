//! SQL text without a connection, for the engine's own use: identifiers quoted
//! ([`ident`]), PostgreSQL's quoted forms found ([`lex`]), `GLOB` matched without recursion
//! ([`glob`]), the dates a model writes resolved ([`dates`]) and the messages for unknown
//! names ([`names`]).

#[cfg(feature = "engine")]
pub(crate) mod dates;
pub(crate) mod glob;
pub(crate) mod ident;
pub(crate) mod lex;
#[cfg(feature = "engine")]
pub(crate) mod names;
