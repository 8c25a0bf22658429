//! Descriptions written for a model: the schema as text, entity summaries, operators and an
//! example call, all from the spec (real entity and field names).

use serde_json::{Value, json};

use crate::dialect::{MAX_DESCRIPTION_CHARS, fit_description};
use crate::spec::{EntitySpec, FieldType, RelationshipSpec, SchemaSpec, ToolFamily};

use super::query::Operator;

/// `Scope -[DEFINED_IN]-> File`.
pub fn relationship_arrow(relationship: &RelationshipSpec) -> String {
    format!(
        "{} -[{}]-> {}",
        relationship.source, relationship.rel_type, relationship.target
    )
}

/// The relationship's description, unless it only restates the arrow (`Scope DEFINED_IN
/// File` beside `Scope -[DEFINED_IN]-> File`: words compared without case or punctuation).
pub fn description_beyond_arrow(relationship: &RelationshipSpec) -> Option<&str> {
    let text = relationship.description.as_deref()?;
    let words = |text: &str| -> Vec<String> {
        text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|word| !word.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let arrow = [
        relationship.source.as_str(),
        relationship.rel_type.as_str(),
        relationship.target.as_str(),
    ]
    .join(" ");
    (words(text) != words(&arrow)).then_some(text)
}

/// Every operator of `spec` as written in calls (`WITHIN` only where there are points).
pub fn operator_names(spec: &SchemaSpec) -> Vec<&'static str> {
    Operator::ALL
        .iter()
        .filter(|o| **o != Operator::Within || spec.has_points())
        .map(|o| o.as_str())
        .collect()
}

fn example_field(entity: &EntitySpec) -> (&str, FieldType) {
    let preferred = entity
        .query_field
        .as_deref()
        .or(entity.display_name_field.as_deref())
        .and_then(|name| entity.field(name));
    let field = preferred
        .or_else(|| {
            entity
                .fields
                .iter()
                .find(|f| f.ty == FieldType::String && f.name != entity.unique_field)
        })
        .or_else(|| entity.fields.first());
    match field {
        Some(field) => (field.name.as_str(), field.ty),
        None => (entity.unique_field.as_str(), FieldType::String),
    }
}

/// An example `query_entities` call using the first entity's real names.
pub fn example_query(spec: &SchemaSpec, entity: &EntitySpec) -> Value {
    let (field, ty) = example_field(entity);
    let (operator, value) = match ty {
        FieldType::Number | FieldType::Integer => (">", json!(10)),

        FieldType::Boolean => ("=", json!(true)),
        FieldType::Datetime => (">=", json!("2024-01-01T00:00:00Z")),
        FieldType::Enum => (
            "=",
            json!(
                entity
                    .field(field)
                    .and_then(|f| f.values.first())
                    .cloned()
                    .unwrap_or_default()
            ),
        ),
        FieldType::StringArray => ("CONTAINS", json!("example")),
        FieldType::NumberArray => ("CONTAINS", json!(1)),
        FieldType::String => ("CONTAINS", json!("example")),
        FieldType::Point => ("WITHIN", json!([48.8, 2.2, 48.9, 2.5])),
    };
    let order = entity
        .computed_fields
        .iter()
        .find(|c| c.ty == crate::spec::ValueType::Number)
        .map(|c| json!({"field": c.name, "direction": "DESC"}))
        .unwrap_or_else(|| json!({"field": field, "direction": "ASC"}));
    json!({
        "entity_type": entity.name,
        "conditions": [{"field": field, "operator": operator, "value": value}],
        "order_by": order,
        "limit": spec.tools.default_limit.min(10),
    })
}

/// A tool description kept within [`MAX_DESCRIPTION_CHARS`]: the parts every description needs
/// are always written, the optional ones (lists of names, an example call) only when they fit.
pub(crate) struct DescriptionBuilder {
    text: String,
}

impl DescriptionBuilder {
    /// Starts with the tool's purpose.
    pub(crate) fn new(text: impl Into<String>) -> Self {
        DescriptionBuilder { text: text.into() }
    }

    /// How many characters are left after `separator`.
    pub(crate) fn remaining(&self, separator: &str) -> usize {
        MAX_DESCRIPTION_CHARS.saturating_sub(self.text.chars().count() + separator.chars().count())
    }

    /// Appends `separator` and `part` when they fit; says whether they did.
    pub(crate) fn push(&mut self, separator: &str, part: &str) -> bool {
        if part.chars().count() > self.remaining(separator) {
            return false;
        }
        self.text.push_str(separator);
        self.text.push_str(part);
        true
    }

    /// The description (cut as the dialects would, should the required parts alone be too
    /// long).
    pub(crate) fn finish(self) -> String {
        fit_description(&self.text).into_owned()
    }
}

/// `items` joined with `, ` within `budget` characters: as many as fit, then `and N more`.
pub(crate) fn bounded_list(items: &[String], budget: usize) -> String {
    let all = items.join(", ");
    if all.chars().count() <= budget {
        return all;
    }
    let mut out = String::new();
    for (taken, item) in items.iter().enumerate() {
        let separator = if taken == 0 { "" } else { ", " };
        let more = format!(" and {} more", items.len() - taken - 1);
        let would = out.chars().count()
            + separator.chars().count()
            + item.chars().count()
            + more.chars().count();
        if would > budget {
            return format!("{out} and {} more", items.len() - taken)
                .trim_start()
                .to_string();
        }
        out.push_str(separator);
        out.push_str(item);
    }
    out
}

/// The sentence pointing a model to the tools that list every field (`describe_entity`,
/// `get_schema`), or, in a spec without them, the fields themselves as far as they fit.
pub(crate) fn field_catalogue(spec: &SchemaSpec, budget: usize, what: &str) -> String {
    let prefix = &spec.tools.name_prefix;
    if spec.tools.families.contains(&ToolFamily::Schema) {
        return format!(
            "{what}: call {prefix}describe_entity (one entity) or {prefix}get_schema (all) for \
             each entity's fields, types and computed fields."
        );
    }
    let entities: Vec<String> = spec
        .entities
        .iter()
        .map(|entity| {
            format!(
                "{} ({})",
                entity.name,
                super::query::field_names(entity).join(", ")
            )
        })
        .collect();
    format!(
        "{what} of each entity: {}.",
        bounded_list(&entities, budget)
    )
}

/// The description of `query_entities`: purpose, the entities, where to find their fields,
/// the operators and one example call, within [`MAX_DESCRIPTION_CHARS`].
pub fn query_entities_description(spec: &SchemaSpec) -> String {
    let mut out = DescriptionBuilder::new(
        "Find records of one entity type by conditions on their fields or computed fields \
         (combined with AND), optionally ordered, with a limit. The answer says how many records \
         matched in total, how many were returned and whether the list was cut.",
    );
    let operators = "Operators (case-sensitive): = != > >= < <= compare (value null with = or != \
         tests for a missing value); CONTAINS substring, or an element of an array field; \
         STARTS WITH / ENDS WITH prefix / suffix; IN one of an array of values; REGEX Rust \
         syntax, (?i) ignores case; GLOB * any text, ? one character, [abc] one of. Datetimes \
         are UTC ISO-8601 (2024-05-01T12:00:00Z).";
    out.push("\n", operators);
    if spec.has_points() {
        out.push(
            "\n",
            "WITHIN (point fields): in the box [south, west, north, east], degrees; west > east \
             crosses the antimeridian.",
        );
    }
    let catalogue = field_catalogue(spec, 400, "Fields");
    let example = spec
        .entities
        .first()
        .map(|entity| format!("Example call: {}", example_query(spec, entity)));
    let reserved =
        catalogue.chars().count() + example.as_ref().map_or(0, |e| e.chars().count() + 1) + 1;
    let entities: Vec<String> = spec
        .entities
        .iter()
        .map(|e| format!("{} (unique field {})", e.name, e.unique_field))
        .collect();
    let room = out.remaining("\nEntities: .").saturating_sub(reserved);
    if room >= 40 {
        out.push(
            "\n",
            &format!("Entities: {}.", bounded_list(&entities, room)),
        );
    }
    out.push("\n", &catalogue);
    if let Some(example) = example {
        out.push("\n", &example);
    }
    out.finish()
}

#[cfg(test)]
mod examples {
    #[test]
    fn description_beyond_arrow_as_documented() {
        let relationship = |description: &str| -> toolforge::spec::RelationshipSpec {
            serde_json::from_value(serde_json::json!({"type": "DEFINED_IN", "source": "Scope",
                "target": "File", "table": "t", "description": description}))
            .unwrap()
        };
        use super::description_beyond_arrow;
        assert_eq!(
            description_beyond_arrow(&relationship("Scope DEFINED_IN File.")),
            None
        );
        assert_eq!(
            description_beyond_arrow(&relationship("scope -> defined_in -> file")),
            None
        );
        assert_eq!(
            description_beyond_arrow(&relationship("The file a scope is written in")),
            Some("The file a scope is written in")
        );
    }
}
