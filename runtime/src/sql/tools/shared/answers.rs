//! The shapes of the database tools' answers, as JSON Schemas: each tool's `outputSchema`
//! (MCP checks `structuredContent` against it; a typed client can rely on it).
//!
//! Records are open objects: their keys are the entity's stored and computed fields (embedding
//! columns never appear), plus `children` when asked for.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

use crate::spec::SchemaSpec;

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
    /// How many records match in all; when `total_exact` is false, at least this many
    /// (counting stops at 1,000 or the end of this page).
    total: u64,
    /// Whether `total` is the exact count.
    total_exact: bool,
    #[serde(flatten)]
    paging: Paging,
    /// The records of this page.
    results: Vec<Record>,
}

/// One result of `full_text_search`.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct SearchHit {
    /// The record's unique id (fetch the record with `get_entities_by_ids`).
    #[schemars(extend("x-toolforge-slot" = "key"))]
    id: String,
    /// The record's display name, when the entity has a display name field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<Value>,
    /// The BM25 relevance (higher is better; comparable within one answer).
    score: f64,
    /// The best passage of the searched fields, matched terms between `**` marks, `…` where
    /// text was left out.
    snippet: String,
}

/// `full_text_search`: one page of ranked matches.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct SearchPage {
    /// The entity searched.
    entity_type: String,
    /// How many records match in all.
    total: u64,
    /// Always true: a search counts every match.
    total_exact: bool,
    #[serde(flatten)]
    paging: Paging,
    /// The matches of this page, best first.
    results: Vec<SearchHit>,
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
    /// Always true: every hop is counted.
    total_exact: bool,
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

/// `query_entities_by_pattern`: one page of matching records; for a fuzzy search, each
/// record's distance from the pattern.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct PatternPage {
    #[serde(flatten)]
    page: EntityPage,
    /// fuzzy only: the edit distance of each record of `results`, in the same order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    distances: Option<Vec<u64>>,
}

/// One group of `aggregate_entities`: the group fields by name, then `value` and `count`.
type Group = Map<String, Value>;

/// `aggregate_entities`: the overall value and count, and the groups.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct AggregateAnswer {
    /// The entity aggregated.
    entity_type: String,
    /// COUNT, SUM, AVG, MIN or MAX.
    aggregation: String,
    /// The field aggregated (null for COUNT of rows).
    field: Option<String>,
    /// The relationship aggregated along, when asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    along: Option<Record>,
    /// The aggregate over every matching row (null when no row has a value).
    value: Value,
    /// How many rows were aggregated.
    count: u64,
    /// The fields grouped by, when grouping.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    group_by: Option<Vec<String>>,
    /// How many groups there are in all, when grouping.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    total_groups: Option<u64>,
    /// How many groups this answer holds, when grouping.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    returned: Option<u64>,
    /// Whether groups were left out (raise `limit`), when grouping.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    truncated: Option<bool>,
    /// The groups, in the order asked, when grouping.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    groups: Option<Vec<Group>>,
}

/// One end of a hop of `find_path`.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct PathNode {
    /// The record's entity.
    entity_type: String,
    /// The record's unique id.
    #[schemars(extend("x-toolforge-slot" = "key"))]
    id: String,
}

/// One hop of `find_path`.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct PathHop {
    /// The record the hop leaves (with its display name, when the entity has one).
    from: PathNode,
    /// The relationship, as `Source -[TYPE]-> Target`.
    relationship: String,
    /// `outgoing` (followed from source to target) or `incoming`.
    direction: String,
    /// The record the hop reaches.
    to: PathNode,
}

/// `find_path`: a shortest path, or `found: false`.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct PathAnswer {
    /// The start record.
    from: PathNode,
    /// The target record.
    to: PathNode,
    /// Whether a path of at most `max_depth` hops exists.
    found: bool,
    /// The number of hops (null when not found).
    length: Option<u64>,
    /// The hops, from `from` to `to`.
    hops: Vec<PathHop>,
    /// The most hops searched.
    max_depth: u64,
}

/// `rank_entities`: the top records by score.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub(crate) struct RankAnswer {
    /// The entity ranked.
    entity_type: String,
    /// The relationship whose edges count.
    relationship_type: String,
    /// `pagerank` or `degree`.
    algorithm: String,
    /// Which edges count: `incoming`, `outgoing` or `both`.
    direction: String,
    /// How many records the entity has.
    total: u64,
    /// How many records this answer holds.
    returned: u64,
    /// The records, highest score first: `id`, the display name when the entity has one, and
    /// `score`.
    results: Vec<Record>,
}

/// The JSON Schema of answers of type `T`: draft 2020-12, subschemas inlined, no title, and
/// no prose. The tool's description says what it answers; a client checks the structure, and
/// every `tools/list` carries the schema (its descriptions were a fifth of the tokens of the
/// corpus configs' definitions: `scripts/count-tool-tokens.py`).
pub(crate) fn output_schema<T: JsonSchema>(spec: &SchemaSpec) -> Value {
    let mut settings = SchemaSettings::draft2020_12().for_serialize();
    settings.inline_subschemas = true;
    let mut schema = settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    if let Value::Object(root) = &mut schema {
        for keyword in ["$schema", "title"] {
            root.remove(keyword);
        }
    }
    without_prose(&mut schema);
    with_key_types(&mut schema, spec);
    schema
}

/// Removes the `description` keyword from `schema` and every schema inside it (a property
/// named `description` stays: only keywords go).
fn without_prose(schema: &mut Value) {
    each_schema(schema, &mut |map| {
        map.remove("description");
    });
}

/// Gives every record key of `schema` (a schema marked `"x-toolforge-slot": "key"`) the type
/// of `spec`'s keys: `string`, or `["integer", "string"]` when an entity's key is a whole
/// number (an existing table's own), as the answers give them.
fn with_key_types(schema: &mut Value, spec: &SchemaSpec) {
    let ty = super::key::schema_type(spec);
    each_schema(schema, &mut |map| {
        if map.get("x-toolforge-slot").and_then(Value::as_str) == Some("key") {
            map.remove("x-toolforge-slot");
            map.insert("type".into(), ty.clone());
        }
    });
}

/// Runs `f` on `schema` and on every schema inside it.
fn each_schema(schema: &mut Value, f: &mut impl FnMut(&mut Map<String, Value>)) {
    let Value::Object(map) = schema else {
        return;
    };
    f(map);
    for (keyword, value) in map.iter_mut() {
        match (keyword.as_str(), value) {
            (
                "properties" | "$defs" | "definitions" | "patternProperties",
                Value::Object(named),
            ) => {
                named.values_mut().for_each(|value| each_schema(value, f));
            }
            ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(schemas)) => {
                schemas.iter_mut().for_each(|value| each_schema(value, f));
            }
            (
                "items" | "additionalProperties" | "not" | "if" | "then" | "else" | "contains",
                value,
            ) => {
                each_schema(value, f);
            }
            _ => {}
        }
    }
}

/// `semantic_search` (and, later, every ranked search): the best matches, best first.
#[derive(JsonSchema, serde::Serialize)]
pub(crate) struct RankedAnswer {
    /// The entity searched.
    pub entity_type: String,
    /// The vector index used (`semantic_search`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<String>,
    /// How scores are computed: `cosine`, `dot` or `euclidean` (vectors), `jaccard` or
    /// `adamic_adar` (shared neighbours), `rrf` (fused ranks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<String>,
    /// How many results this answer holds.
    pub returned: u64,
    /// Whether matches were left out to keep the answer under `max_answer_bytes`.
    pub truncated: bool,
    /// The matches, best first.
    pub results: Vec<RankedHit>,
}

/// One match of a ranked search.
#[derive(JsonSchema, serde::Serialize)]
pub(crate) struct RankedHit {
    /// The record's unique id: a whole number for an integer key, else text.
    #[schemars(with = "String", extend("x-toolforge-slot" = "key"))]
    pub id: Value,
    /// The record's display name, when the entity has a display field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// How close the record is (higher is closer).
    pub score: f64,
    /// The start of the text the match was found in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A spec of one entity whose key has the type `key`.
    fn spec(key: &str) -> SchemaSpec {
        serde_json::from_value(serde_json::json!({
            "name": "shop",
            "entities": [
                {"name": "Item", "table": "item", "unique_field": "id",
                 "fields": [{"name": "id", "type": key, "unique": true}]}
            ],
            "relationships": [],
            "tools": {"default_limit": 20, "max_limit": 100, "families": ["search"]}
        }))
        .expect("a spec")
    }

    #[test]
    fn record_keys_in_answers_have_the_type_of_the_specs_keys() {
        for (key, wanted) in [
            ("string", serde_json::json!("string")),
            ("integer", serde_json::json!(["integer", "string"])),
        ] {
            let spec = spec(key);
            let ranked = output_schema::<RankedAnswer>(&spec);
            let hit = &ranked["properties"]["results"]["items"]["properties"]["id"];
            assert_eq!(hit["type"], wanted, "{ranked}");
            let path = output_schema::<PathAnswer>(&spec);
            assert_eq!(
                path["properties"]["from"]["properties"]["id"]["type"],
                wanted
            );
            let search = output_schema::<SearchPage>(&spec).to_string();
            assert!(!search.contains("x-toolforge-slot"), "{search}");
        }
    }

    #[test]
    fn output_schemas_keep_structure_and_a_property_named_description_but_no_prose() {
        let schema = output_schema::<EntityDescription>(&spec("string"));
        let text = schema.to_string();
        let properties = &schema["properties"];
        assert!(properties.get("description").is_some(), "{text}");
        assert!(
            properties["description"].get("description").is_none(),
            "{text}"
        );
        assert!(!text.contains("\"description\":\""), "prose left: {text}");
        assert_eq!(schema["type"], "object");
        assert!(schema["required"].as_array().is_some_and(|r| !r.is_empty()));
    }
}
