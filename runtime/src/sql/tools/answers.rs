//! The shapes of the database tools' answers, as JSON Schemas: each tool's `outputSchema`
//! (MCP checks `structuredContent` against it; a typed client can rely on it).
//!
//! Records are open objects: their keys are the entity's stored and computed fields (embedding
//! columns never appear), plus `children` when asked for.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// A record: the entity's fields by name.
type Record = Map<String, Value>;

/// Which limit ended a page early.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct TruncatedBy {
    /// `limit` (the call's), `max_rows` (the registry's) or `max_answer_bytes`.
    limit: String,
    /// The limit's value.
    value: u64,
}

/// How a list answer pages: where it starts, how much it holds and where the next page starts.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct Paging {
    /// The offset of the first result.
    offset: u64,
    /// How many results this page holds.
    returned: u64,
    /// Whether results were left out (call again from `next_offset`).
    truncated: bool,
    /// Which limit ended the page, when `truncated`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    truncated_by: Option<TruncatedBy>,
    /// Whether more results follow.
    has_more: bool,
    /// The `offset` of the next page; `null` on the last one.
    next_offset: Option<u64>,
}

/// `query_entities` and `glob_search`: one page of matching records.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct EntityPage {
    /// The entity queried.
    entity_type: String,
    /// How many records match in all.
    total: u64,
    #[serde(flatten)]
    paging: Paging,
    /// The records of this page.
    results: Vec<Record>,
}

/// `get_entity_by_id`: one record.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct RecordAnswer {
    /// The entity looked up.
    entity_type: String,
    /// The record.
    record: Record,
}

/// `get_entities_by_ids`: the records found, in the order asked, and the ids not found.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct RecordsPage {
    /// The entity looked up.
    entity_type: String,
    /// How many ids were asked for.
    requested: u64,
    /// The ids that match no record.
    missing: Vec<String>,
    #[serde(flatten)]
    paging: Paging,
    /// The records found.
    results: Vec<Record>,
}

/// One hop of `explore_relationships`: the record reached and how.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct Hop {
    /// The unique id of the record the hop starts from.
    from: String,
    /// The relationship, as `Source -[TYPE]-> Target`.
    relationship: String,
    /// `outgoing` or `incoming`.
    direction: String,
    /// The entity of the record reached.
    entity_type: String,
    /// The record reached.
    record: Record,
}

/// `explore_relationships`: one page of hops.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct RelationshipPage {
    /// The entity the hops start from.
    start_entity_type: String,
    /// The relationship followed.
    relationship_type: String,
    /// How many hops there are in all.
    total: u64,
    #[serde(flatten)]
    paging: Paging,
    /// The hops of this page.
    results: Vec<Hop>,
}

/// One entity as `describe_entity` and `get_schema` describe it.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct EntityDescription {
    /// The entity's name.
    name: String,
    /// What a record is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    /// The field identifying a record.
    unique_field: String,
    /// The stored fields: name, type, and what else is known of each.
    fields: Vec<Record>,
    /// The computed fields.
    computed_fields: Vec<Record>,
    /// The relationships leaving and reaching the entity.
    relationships: Record,
    /// An example call.
    example: Record,
}

/// `get_schema`: the whole schema.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct SchemaAnswer {
    /// The schema's name.
    name: String,
    /// What the data is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    /// The entities.
    entities: Vec<EntityDescription>,
    /// The relationships between entities.
    relationships: Vec<Record>,
    /// The operators conditions take.
    operators: Vec<String>,
    /// Usage tips, unless `include_tips` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tips: Option<Vec<String>>,
}

/// The JSON Schema of answers of type `T`: draft 2020-12, subschemas inlined, no title.
pub(crate) fn output_schema<T: JsonSchema>() -> Value {
    let mut settings = SchemaSettings::draft2020_12().for_serialize();
    settings.inline_subschemas = true;
    let mut schema = settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    if let Value::Object(root) = &mut schema {
        for keyword in ["$schema", "title", "description"] {
            root.remove(keyword);
        }
    }
    schema
}
