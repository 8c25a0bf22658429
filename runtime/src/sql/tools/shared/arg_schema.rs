//! What the database tools' argument structs share: the name types they are generic over, and
//! their input schemas, derived from the structs and completed from the spec.
//!
//! Each tool's arguments are one struct (`QueryEntitiesArgs`, ...), generic over the types of
//! the entity, field and relationship names it takes. The engine reads them with `String`
//! names and checks every name against the spec before building SQL; a generated module
//! instantiates the same structs with its own name enums (`QueryEntitiesArgs<EntityName,
//! FieldName>`), so Rust code cannot misspell a name. The schema is derived once from the
//! struct (schemars); the parts that depend on the spec (the entity, field and relationship
//! names, the limit's bounds) are marked with an `x-toolforge-slot` keyword and filled in per
//! spec. A field argument not tied to one entity (a condition's `field`, `order_by.field`,
//! `fields`, `glob_search`'s `field`) takes the union of the entities' names; the engine checks
//! that the name belongs to the call's entity.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::spec::{EntitySpec, FieldType, SchemaSpec};

use crate::sql::query::{field_names, sortable_field_names, text_field_names};

/// The keyword marking a part of a derived schema that the spec completes.
pub(crate) const SLOT: &str = "x-toolforge-slot";

/// The keyword a filled slot leaves on a property the spec has no use for (`with_children`
/// without any hierarchy): the property is removed from its object.
const ABSENT: &str = "x-toolforge-absent";

/// The keyword marking a property the schema requires although serde has a default for it.
pub(crate) const REQUIRED: &str = "x-toolforge-required";

/// The input schema of an argument struct for `spec`: derived from the struct (draft 2020-12,
/// subschemas inlined), optional properties without `null`, documented unit enums as plain
/// `enum`s, and every slot filled from the spec.
pub(crate) fn input_schema<A: JsonSchema>(spec: &SchemaSpec) -> Value {
    let mut settings = SchemaSettings::draft2020_12().for_deserialize();
    settings.inline_subschemas = true;
    let mut schema = settings
        .into_generator()
        .into_root_schema_for::<A>()
        .to_value();
    if let Value::Object(root) = &mut schema {
        for keyword in ["$schema", "title", "description"] {
            root.remove(keyword);
        }
        root.entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
    }
    complete(&mut schema, spec);
    schema
}

/// Completes a derived schema in place, depth first.
fn complete(schema: &mut Value, spec: &SchemaSpec) {
    let Value::Object(object) = schema else {
        return;
    };
    for value in object.values_mut() {
        match value {
            Value::Object(_) => complete(value, spec),
            Value::Array(items) => items.iter_mut().for_each(|item| complete(item, spec)),
            _ => {}
        }
    }
    flatten_documented_enum(object);
    remove_absent_properties(object);
    require_marked_properties(object);
    drop_null_from_optional_properties(object);
    if let Some(Value::String(text)) = object.get_mut("description") {
        *text = unwrap_lines(text);
    }
    if let Some(Value::String(slot)) = object.remove(SLOT) {
        fill_slot(object, &slot, spec);
    }
}

/// schemars writes a unit enum whose variants have doc comments as `oneOf` of `const`s; the
/// providers read a plain `enum` best, so that is what the tools export.
fn flatten_documented_enum(object: &mut Map<String, Value>) {
    let Some(Value::Array(variants)) = object.get("oneOf") else {
        return;
    };
    let values: Option<Vec<Value>> = variants
        .iter()
        .map(|variant| {
            let is_string = variant.get("type").is_none_or(|ty| ty == "string");
            variant.get("const").filter(|_| is_string).cloned()
        })
        .collect();
    if let Some(values) = values {
        object.remove("oneOf");
        object.insert("type".into(), json!("string"));
        object.insert("enum".into(), Value::Array(values));
    }
}

/// Doc comments wrap lines; a description reads as one paragraph per blank-line break.
fn unwrap_lines(text: &str) -> String {
    text.split("\n\n")
        .map(|paragraph| paragraph.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Removes the properties a slot marked absent, from `properties` and `required`.
fn remove_absent_properties(object: &mut Map<String, Value>) {
    let Some(Value::Object(properties)) = object.get_mut("properties") else {
        return;
    };
    let absent: Vec<String> = properties
        .iter()
        .filter(|(_, property)| property.get(ABSENT).is_some())
        .map(|(name, _)| name.clone())
        .collect();
    for name in &absent {
        properties.remove(name);
    }
    if let Some(Value::Array(required)) = object.get_mut("required") {
        required.retain(|name| !name.as_str().is_some_and(|n| absent.iter().any(|a| a == n)));
    }
}

/// A property with a serde default that the model must still give (a condition's `value`,
/// whose absence would read as `null`) is marked `x-toolforge-required`: list it as required
/// and drop the `null` default schemars gives it.
fn require_marked_properties(object: &mut Map<String, Value>) {
    let Some(Value::Object(properties)) = object.get_mut("properties") else {
        return;
    };
    let mut marked = Vec::new();
    for (name, property) in properties.iter_mut() {
        if let Value::Object(property) = property
            && property.remove(REQUIRED).is_some()
        {
            property.remove("default");
            marked.push(Value::String(name.clone()));
        }
    }
    if marked.is_empty() {
        return;
    }
    let required = object
        .entry("required")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(required) = required {
        for name in marked {
            if !required.contains(&name) {
                required.push(name);
            }
        }
    }
}

/// An optional argument is optional by leaving it out: its schema does not also accept `null`
/// (schemars adds `null` for every `Option`).
fn drop_null_from_optional_properties(object: &mut Map<String, Value>) {
    let required: Vec<String> = match object.get("required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(|name| name.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    let Some(Value::Object(properties)) = object.get_mut("properties") else {
        return;
    };
    for (name, property) in properties.iter_mut() {
        if required.contains(name) {
            continue;
        }
        let Value::Object(property) = property else {
            continue;
        };
        if let Some(Value::Array(alternatives)) = property.get("anyOf") {
            let mut kept = alternatives
                .iter()
                .filter(|alternative| alternative.get("type").is_none_or(|ty| ty != "null"));
            if let (Some(Value::Object(single)), None) = (kept.next(), kept.next()) {
                let mut unwrapped = single.clone();
                property.remove("anyOf");
                unwrapped.extend(std::mem::take(property));
                *property = unwrapped;
            }
        }
        if let Some(Value::Array(types)) = property.get("type") {
            let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
            let kept = match <[Value; 1]>::try_from(kept) {
                Ok([single]) => single,
                Err(kept) => Value::Array(kept),
            };
            property.insert("type".into(), kept);
        }
        if let Some(Value::Array(values)) = property.get_mut("enum") {
            values.retain(|value| !value.is_null());
        }
    }
}

/// Fills one slot from the spec.
fn fill_slot(object: &mut Map<String, Value>, slot: &str, spec: &SchemaSpec) {
    match slot {
        "entity" => {
            let names: Vec<&str> = spec.entities.iter().map(|e| e.name.as_str()).collect();
            object.insert("type".into(), json!("string"));
            object.insert("enum".into(), json!(names));
        }
        "entity_list" => {
            let names: Vec<&str> = spec.entities.iter().map(|e| e.name.as_str()).collect();
            object.insert("items".into(), json!({"type": "string", "enum": names}));
        }
        "relationship" => {
            let mut names: Vec<&str> = spec
                .relationships
                .iter()
                .map(|r| r.rel_type.as_str())
                .collect();
            names.sort_unstable();
            names.dedup();
            object.insert("type".into(), json!("string"));
            object.insert("enum".into(), json!(names));
        }
        "limit" => {
            let (max, default) = limit_bounds(spec);
            let what = object
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("The most results to return.")
                .trim_end_matches('.')
                .to_owned();
            object.clear();
            object.insert("type".into(), json!("integer"));
            object.insert("minimum".into(), json!(1));
            object.insert("maximum".into(), json!(max));
            object.insert("default".into(), json!(default));
            object.insert(
                "description".into(),
                json!(format!("{what} (1 to {max}, default {default}).")),
            );
        }
        "max_items" => {
            let (max, _) = limit_bounds(spec);
            object.insert("maxItems".into(), json!(max));
        }
        "key" => {
            let ty = super::key::schema_type(spec);
            if ty != "string" {
                object.remove("minLength");
                object.remove("maxLength");
            }
            object.insert("type".into(), ty);
        }
        "key_list" => {
            let (max, _) = limit_bounds(spec);
            object.insert("maxItems".into(), json!(max));
            object.insert(
                "items".into(),
                json!({"type": super::key::schema_type(spec)}),
            );
        }

        "hierarchy" => {
            let with_hierarchy: Vec<&str> = spec
                .entities
                .iter()
                .filter(|entity| entity.hierarchy.is_some())
                .map(|entity| entity.name.as_str())
                .collect();
            if with_hierarchy.is_empty() {
                object.insert(ABSENT.into(), json!(true));
            } else if let Some(Value::String(text)) = object.get_mut("description") {
                *text = format!(
                    "{} Only for: {}.",
                    text.trim_end(),
                    with_hierarchy.join(", ")
                );
            }
        }
        "field" => {
            object.insert("type".into(), json!("string"));
            object.insert("enum".into(), json!(field_union(spec, field_names)));
        }
        "sort_field" => {
            object.insert("type".into(), json!("string"));
            object.insert(
                "enum".into(),
                json!(field_union(spec, sortable_field_names)),
            );
        }
        "text_field" => {
            object.insert("type".into(), json!("string"));
            object.insert("enum".into(), json!(field_union(spec, text_field_names)));
        }
        "relationship_list" => {
            let mut names: Vec<&str> = spec
                .relationships
                .iter()
                .map(|r| r.rel_type.as_str())
                .collect();
            names.sort_unstable();
            names.dedup();
            object.insert("items".into(), json!({"type": "string", "enum": names}));
        }
        "along" if spec.relationships.is_empty() => {
            object.insert(ABSENT.into(), json!(true));
        }
        "datetime_field" => {
            object.insert("type".into(), json!("string"));
            object.insert(
                "enum".into(),
                json!(field_union_without_unique(spec, FieldType::Datetime)),
            );
        }
        "point_field" => {
            object.insert("type".into(), json!("string"));
            object.insert(
                "enum".into(),
                json!(field_union_without_unique(spec, FieldType::Point)),
            );
        }
        "operator" if !spec.has_points() => {
            if let Some(Value::Array(operators)) = object.get_mut("enum") {
                operators.retain(|operator| operator != "WITHIN");
            }
        }
        "number_field" => {
            object.insert("type".into(), json!("string"));
            object.insert(
                "enum".into(),
                json!(field_union_without_unique(spec, FieldType::Number)),
            );
        }
        "field_list" => {
            object.insert(
                "items".into(),
                json!({"type": "string", "enum": field_union(spec, field_names)}),
            );
        }
        "tracked_entity" => {
            let names: Vec<&str> = spec.tracked_entities().map(|e| e.name.as_str()).collect();
            object.insert("type".into(), json!("string"));
            object.insert("enum".into(), json!(names));
        }
        "tracked_metadata_field" => {
            let mut names: Vec<&str> = Vec::new();
            for tracking in spec
                .entities
                .iter()
                .filter_map(|e| e.change_tracking.as_ref())
            {
                for field in &tracking.metadata_fields {
                    if !names.contains(&field.as_str()) {
                        names.push(field);
                    }
                }
            }
            if names.is_empty() {
                object.insert(ABSENT.into(), json!(true));
            } else {
                object.insert("type".into(), json!("string"));
                object.insert("enum".into(), json!(names));
            }
        }
        "full_text_entity" => {
            let names: Vec<&str> = spec
                .entities
                .iter()
                .filter(|e| e.full_text.is_some())
                .map(|e| e.name.as_str())
                .collect();
            object.insert("type".into(), json!("string"));
            object.insert("enum".into(), json!(names));
        }
        "full_text_field_list" => {
            let mut names: Vec<&str> = Vec::new();
            for index in spec.entities.iter().filter_map(|e| e.full_text.as_ref()) {
                for field in &index.fields {
                    if !names.contains(&field.name.as_str()) {
                        names.push(&field.name);
                    }
                }
            }
            object.insert("items".into(), json!({"type": "string", "enum": names}));
        }
        // Unknown slots are a bug of this crate; leaving the derived schema as it is keeps
        // the tool usable.
        _ => {}
    }
}

/// The names `names_of` gives for each entity (the unique field always included), in config
/// order without repeats: the values a field argument not tied to one entity may take. Which
/// of them belong to the call's entity is checked when the call runs.
fn field_union<'s>(
    spec: &'s SchemaSpec,
    names_of: impl Fn(&'s EntitySpec) -> Vec<&'s str>,
) -> Vec<&'s str> {
    let mut union: Vec<&str> = Vec::new();
    for entity in &spec.entities {
        let mut names = names_of(entity);
        if !names.contains(&entity.unique_field.as_str()) {
            names.insert(0, &entity.unique_field);
        }
        for name in names {
            if !union.contains(&name) {
                union.push(name);
            }
        }
    }
    union
}

/// The names of the fields of type `ty` of every entity (stored and computed, the unique
/// fields left out), in config order without repeats.
fn field_union_without_unique(spec: &SchemaSpec, ty: FieldType) -> Vec<&str> {
    let mut union: Vec<&str> = Vec::new();
    for entity in &spec.entities {
        for name in crate::sql::query::fields_of_type(entity, ty) {
            if !union.contains(&name) {
                union.push(name);
            }
        }
    }
    union
}

/// The spec's largest and default page sizes, as the tools apply them.
pub(crate) fn limit_bounds(spec: &SchemaSpec) -> (u32, u32) {
    let max = spec.tools.max_limit.max(1);
    (max, spec.tools.default_limit.clamp(1, max))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> SchemaSpec {
        serde_json::from_value(json!({
            "name": "books",
            "entities": [
                {"name": "Book", "table": "book", "unique_field": "isbn",
                 "fields": [{"name": "isbn", "type": "string", "unique": true}]},
                {"name": "Author", "table": "author", "unique_field": "slug",
                 "fields": [{"name": "slug", "type": "string", "unique": true}]}
            ],
            "relationships": [
                {"source": "Book", "type": "WRITTEN_BY", "target": "Author", "table": "b_w_a"},
                {"source": "Book", "type": "CITES", "target": "Book", "table": "b_c_b"}
            ],
            "tools": {"default_limit": 20, "max_limit": 100, "families": ["query"]}
        }))
        .unwrap()
    }

    /// Arguments of a test tool.
    #[derive(serde::Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Sample {
        /// The entity type.
        #[schemars(extend("x-toolforge-slot" = "entity"))]
        entity_type: String,
        /// The relationship.
        #[schemars(extend("x-toolforge-slot" = "relationship"))]
        relationship: Option<String>,
        /// The most records to return.
        #[schemars(extend("x-toolforge-slot" = "limit"))]
        limit: Option<i64>,
        /// Ids.
        #[schemars(extend("x-toolforge-slot" = "max_items"))]
        ids: Vec<String>,
        /// Which way.
        #[serde(default)]
        way: Option<Way>,
    }

    #[derive(serde::Deserialize, JsonSchema)]
    enum Way {
        /// Up.
        #[serde(rename = "up")]
        Up,
        /// Down.
        #[serde(rename = "down")]
        Down,
    }

    #[test]
    fn slots_are_filled_from_the_spec() {
        let schema = input_schema::<Sample>(&spec());
        let properties = &schema["properties"];
        assert_eq!(properties["entity_type"]["enum"], json!(["Book", "Author"]));
        assert_eq!(
            properties["relationship"]["enum"],
            json!(["CITES", "WRITTEN_BY"])
        );
        assert_eq!(properties["relationship"]["type"], "string");
        assert_eq!(
            properties["limit"],
            json!({"type": "integer", "minimum": 1, "maximum": 100, "default": 20,
                   "description": "The most records to return (1 to 100, default 20)."})
        );
        assert_eq!(properties["ids"]["maxItems"], 100);
        assert_eq!(properties["way"]["enum"], json!(["up", "down"]));
        assert_eq!(properties["way"]["type"], "string");
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(schema["required"], json!(["entity_type", "ids"]));
        assert!(!schema.to_string().contains(SLOT), "{schema}");
        assert!(schema.get("$schema").is_none() && schema.get("title").is_none());
    }
}
