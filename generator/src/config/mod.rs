//! The config front end: the ragforge config model ([`Config`] and friends), the `toolforge:`
//! options section, parsing with positions, the JSON Schema of the format and the reference
//! page rendered from it.

mod model;
mod offers;
pub mod options;
pub(crate) mod parse;
pub mod reference;
mod schema;
pub mod spans;

pub use model::{
    COMPUTED_TYPES, ChangeTracking, ComputedField, Config, DEFAULT_UNIQUE_FIELD, Direction, Entity,
    FIELD_TYPES, Field, FullTextIndex, HierarchicalContent, JoinTable, McpSection, McpServerInfo,
    McpTool, Opaque, Relationship, RelationshipFilter, Summarization, VectorIndex,
};
pub use options::{ToolFamilyName, ToolforgeOptions};
pub use parse::yaml_to_json;
pub use reference::config_reference;
pub use schema::json_schema;
