//! The database tools: each one's arguments are one typed struct (its schema derived from it),
//! its definition is built from the spec, and its handler runs on a read-only connection.
//!
//! Every tool is read-only and idempotent, checks entity and field names against the spec
//! before building SQL, binds every value as a parameter, and runs on the database's pool of
//! read-only connections. Lists (`query_entities`, `glob_search`, `full_text_search`, `explore_relationships`,
//! `get_entities_by_ids`) take an `offset` and are answered as `{"entity_type", "offset",
//! "total", "returned", "truncated", "truncated_by", "has_more", "next_offset", "results":
//! [...]}`: `truncated_by` (only when records follow) names the limit that ended the page —
//! `limit` (the call's or the default), `max_rows` or `max_answer_bytes` (the call's
//! [`CallLimits`](crate::CallLimits)) — and its value; `next_offset` (null at the end) is the
//! `offset` of the next page. A page never makes the answer exceed `max_answer_bytes`; a first
//! record too large on its own is a `too_large` error.
//!
//! The argument structs are generic over the name types ([`ArgName`]): the engine reads them
//! with `String` names; a generated module instantiates them with its name enums, which makes
//! them tools of that module's embedded spec ([`EmbeddedSpec`]).

pub(crate) mod aggregates;
pub(crate) mod changes;
pub(crate) mod declared;
pub(crate) mod graph;
pub(crate) mod lookup;
pub(crate) mod patterns;
pub(crate) mod places;
pub(crate) mod query;
pub(crate) mod ranges;
pub(crate) mod relationships;
pub(crate) mod schema;
pub(crate) mod search;

pub(crate) mod engine;
pub(crate) mod kind;
pub(crate) mod registration;
pub(crate) mod shared;
pub(crate) mod typed_calls;

pub use crate::sql::arg_name::{ArgName, EmbeddedSpec, NamedType};
pub use crate::sql::query::{Condition, Direction, Operator, OrderBy};
pub use kind::DatabaseTool;
pub use registration::{
    context_database_tools, database_tool_definitions, database_tools, register_database_tools,
};

pub use aggregates::aggregate::{AggregateOrder, Aggregation, Along, Bucket};
pub use changes::churn::ChurnRank;
pub use changes::recently_modified::ChangeType;
pub use declared::{DeclaredArgs, DeclaredPage, DeclaredRows, call_declared, run_declared};
pub use graph::find_path::PathEnd;
pub use graph::rank_entities::RankAlgorithm;
pub use patterns::pattern::PatternType;
pub use relationships::explore_relationships::TraversalDirection;
pub use relationships::join_entities::JoinHop;
pub use search::find_similar::{NeighbourMeasure, SimilarityKind};

/// Every database tool's argument struct under its public name, from the one table of tools.
macro_rules! argument_structs {
    ($($variant:ident: $name:literal, $family:ident, $($module:ident)::+, $args:ident<$($param:ident),+>, $needs:ident;)*) => {
        $(pub use self::$($module)::+::$args;)*
    };
}
crate::__database_tool_table!(argument_structs);
