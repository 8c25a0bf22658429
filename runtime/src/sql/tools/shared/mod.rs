//! What the database tools share: the shapes of their answers, the schemas of their arguments,
//! and how a call is parsed, paged, bounded and answered.

pub(crate) mod answers;
pub(crate) mod arg_schema;
pub(crate) mod common;
pub(crate) mod key;
pub(crate) mod source;
