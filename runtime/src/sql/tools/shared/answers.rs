//! The database tools' answers as types: each is what a call answers (serialised with serde)
//! and, from the same type, the tool's `outputSchema` (MCP checks `structuredContent` against
//! it; a typed client can rely on it). A handler returns its answer type, so the schema cannot
//! drift from the JSON.
//!
//! Records are open objects: their keys are the entity's stored and computed fields (embedding
//! columns never appear), plus `children` when asked for. Fields are declared in the order an
//! answer lists them.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::spec::SchemaSpec;

/// A record: the entity's fields by name.
pub(crate) type Record = Map<String, Value>;

/// What a database tool answers: serialised into the call's JSON, described by its
/// `outputSchema` ([`output_schema`]).
pub(crate) trait Answer: Serialize + JsonSchema + Send {
    /// The answer as JSON. A page moves its records into the JSON rather than copying them.
    fn into_json(self) -> Result<Value, serde_json::Error>
    where
        Self: Sized,
    {
        serde_json::to_value(&self)
    }
}

/// Which limit ended a page early.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct TruncatedBy {
    /// `limit` (the call's), `max_rows` (the registry's), `max_answer_bytes`, or the tool's
    /// own name for its limit (`top_k`).
    pub limit: &'static str,
    /// The limit's value.
    pub value: u64,
}

/// How a page ends: whether results were left out, which limit left them out, and where the
/// next page starts.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct PageEnd {
    /// Whether results were left out (call again from `next_offset`).
    pub truncated: bool,
    /// Which limit ended the page, when `truncated`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated_by: Option<TruncatedBy>,
    /// Whether more results follow.
    pub has_more: bool,
    /// The `offset` of the next page; `null` on the last one.
    pub next_offset: Option<u64>,
}

/// One page of a list answer: the tool's own keys (`head`), where the page starts, how many
/// results there are in all, how the page ends, and its results.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ListPage<H, T = Record> {
    /// The tool's own keys (the entity listed, ...).
    #[serde(flatten)]
    pub head: H,
    /// The offset of the first result.
    pub offset: u64,
    /// How many results match in all; when `total_exact` is false, at least this many
    /// (counting stops at 1,000 or the end of this page).
    pub total: u64,
    /// Whether `total` is the exact count.
    pub total_exact: bool,
    /// How many results this page holds.
    pub returned: u64,
    #[serde(flatten)]
    pub end: PageEnd,
    /// The results of this page.
    pub results: Vec<T>,
}

impl<H: Serialize + JsonSchema + Send, T: Item> Answer for ListPage<H, T> {
    fn into_json(mut self) -> Result<Value, serde_json::Error> {
        let results = std::mem::take(&mut self.results);
        let mut value = serde_json::to_value(&self)?;
        if let Value::Object(answer) = &mut value {
            let results = results
                .into_iter()
                .map(Item::into_json)
                .collect::<Result<_, _>>()?;
            answer.insert("results".into(), Value::Array(results));
        }
        Ok(value)
    }
}

/// One result of a page: serialised as it is, except that the records it holds are moved into
/// the JSON rather than copied.
pub(crate) trait Item: Serialize + JsonSchema + Send {
    /// The result as JSON.
    fn into_json(self) -> Result<Value, serde_json::Error>
    where
        Self: Sized,
    {
        serde_json::to_value(&self)
    }
}

impl Item for Record {
    fn into_json(self) -> Result<Value, serde_json::Error> {
        Ok(Value::Object(self))
    }
}

/// The JSON of `item`, with `record` (which `item` held under the key `record`, now empty)
/// moved in at its place.
pub(crate) fn with_record(
    item: &impl Serialize,
    record: Record,
) -> Result<Value, serde_json::Error> {
    let mut value = serde_json::to_value(item)?;
    if let Value::Object(members) = &mut value {
        members.insert("record".into(), Value::Object(record));
    }
    Ok(value)
}

/// The head of a list of one entity's records.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct EntityHead {
    /// The entity listed.
    pub entity_type: String,
}

/// `query_entities`, the range tools and `glob_search`: one page of matching records.
pub(crate) type EntityPage = ListPage<EntityHead>;

/// One result of `full_text_search`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct SearchHit {
    /// The record's unique id (fetch the record with `get_entities_by_ids`).
    #[schemars(with = "String", extend("x-toolforge-slot" = "key"))]
    pub id: Value,
    /// The record's display name, when the entity has a display name field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<Value>,
    /// The BM25 relevance (higher is better; comparable within one answer).
    pub score: f64,
    /// The best passage of the searched fields, matched terms between `**` marks, `…` where
    /// text was left out.
    pub snippet: String,
}

impl Item for SearchHit {}

/// `full_text_search`: one page of ranked matches (`total` counts every match).
pub(crate) type SearchPage = ListPage<EntityHead, SearchHit>;

/// `get_entity_by_id`: one record.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RecordAnswer {
    /// The entity looked up.
    pub entity_type: String,
    /// The record.
    pub record: Record,
}

impl Answer for RecordAnswer {
    fn into_json(self) -> Result<Value, serde_json::Error> {
        let mut answer = Map::with_capacity(2);
        answer.insert("entity_type".into(), Value::String(self.entity_type));
        answer.insert("record".into(), Value::Object(self.record));
        Ok(Value::Object(answer))
    }
}

/// `get_entities_by_ids`: the records found, in the order asked, and the ids not found.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RecordsPage {
    /// The entity looked up.
    pub entity_type: String,
    /// How many distinct ids were asked for.
    pub requested: u64,
    /// The offset (in distinct ids) of the first id answered.
    pub offset: u64,
    /// How many records this page holds.
    pub returned: u64,
    /// The ids of this page that match no record.
    pub missing: Vec<String>,
    #[serde(flatten)]
    pub end: PageEnd,
    /// The records found.
    pub results: Vec<Record>,
}

impl Answer for RecordsPage {
    fn into_json(mut self) -> Result<Value, serde_json::Error> {
        let results = std::mem::take(&mut self.results);
        let mut value = serde_json::to_value(&self)?;
        if let Value::Object(answer) = &mut value {
            let results = results.into_iter().map(Value::Object).collect();
            answer.insert("results".into(), Value::Array(results));
        }
        Ok(value)
    }
}

/// The head of `explore_relationships`'s pages.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct HopsHead {
    /// The entity the hops start from.
    pub start_entity_type: String,
    /// The relationship followed.
    pub relationship_type: String,
}

/// One hop of `explore_relationships`: the record reached and how.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Hop {
    /// The unique id of the record the hop starts from.
    #[schemars(with = "String")]
    pub from: Value,
    /// The relationship, as `Source -[TYPE]-> Target` (one text shared by a leg's hops).
    #[schemars(with = "String")]
    pub relationship: Value,
    /// `outgoing` or `incoming`.
    pub direction: &'static str,
    /// The entity of the record reached.
    pub entity_type: String,
    /// The relationship's properties on this edge, when it has any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub properties: Option<Record>,
    /// The record reached.
    pub record: Record,
}

impl Item for Hop {
    fn into_json(mut self) -> Result<Value, serde_json::Error> {
        let record = std::mem::take(&mut self.record);
        with_record(&self, record)
    }
}

/// `explore_relationships`: one page of hops (every hop is counted).
pub(crate) type RelationshipPage = ListPage<HopsHead, Hop>;

/// `query_entities_by_pattern`: one page of matching records; for a fuzzy search, each
/// record's distance from the pattern.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct PatternPage {
    #[serde(flatten)]
    pub page: EntityPage,
    /// fuzzy only: the edit distance of each record of `results`, in the same order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distances: Option<Vec<u64>>,
}

impl Answer for PatternPage {
    fn into_json(self) -> Result<Value, serde_json::Error> {
        let mut value = self.page.into_json()?;
        if let (Value::Object(answer), Some(distances)) = (&mut value, self.distances) {
            answer.insert("distances".into(), serde_json::to_value(distances)?);
        }
        Ok(value)
    }
}

/// One end of a hop of `find_path`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct PathNode {
    /// The record's entity.
    pub entity_type: String,
    /// The record's unique id.
    #[schemars(with = "String", extend("x-toolforge-slot" = "key"))]
    pub id: Value,
    /// The record's display name, under the entity's display name field, when it has one.
    #[serde(flatten)]
    pub display: Record,
}

/// One hop of `find_path`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct PathHop {
    /// The record the hop leaves.
    pub from: PathNode,
    /// The relationship, as `Source -[TYPE]-> Target`.
    pub relationship: String,
    /// `outgoing` (followed from source to target) or `incoming`.
    pub direction: &'static str,
    /// The record the hop reaches.
    pub to: PathNode,
}

/// `find_path`: a shortest path, or `found: false`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct PathAnswer {
    /// The start record.
    pub from: PathNode,
    /// The target record.
    pub to: PathNode,
    /// Whether a path of at most `max_depth` hops exists.
    pub found: bool,
    /// The number of hops (null when not found).
    pub length: Option<u64>,
    /// The hops, from `from` to `to`.
    pub hops: Vec<PathHop>,
    /// The most hops searched.
    pub max_depth: u64,
}

impl Answer for PathAnswer {}

/// `semantic_search` (and, later, every ranked search): the best matches, best first.
#[derive(Debug, Serialize, JsonSchema)]
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

impl Answer for RankedAnswer {}

/// One match of a ranked search.
#[derive(Debug, Serialize, JsonSchema)]
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
        let schema =
            output_schema::<crate::sql::tools::schema::answer::EntityDescription>(&spec("string"));
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
