//! Descriptions written for a model: the schema as text, entity summaries, operators and an
//! example call, all from the spec (real entity and field names).

use serde_json::{Value, json};

use crate::spec::{EntitySpec, FieldType, RelationshipSpec, SchemaSpec};

use super::query::Operator;

/// `Scope -[DEFINED_IN]-> File`.
pub fn relationship_arrow(relationship: &RelationshipSpec) -> String {
    format!(
        "{} -[{}]-> {}",
        relationship.source, relationship.rel_type, relationship.target
    )
}

fn field_type_text(ty: FieldType, values: &[String]) -> String {
    if ty == FieldType::Enum && !values.is_empty() {
        format!("enum ({})", values.join(" | "))
    } else {
        ty.config_name().to_string()
    }
}

/// One entity as text: fields with types and descriptions, the unique field marked, computed
/// fields with what they compute, relationships with direction and target.
pub fn entity_text(spec: &SchemaSpec, entity: &EntitySpec) -> String {
    let mut out = entity.name.clone();
    if let Some(description) = &entity.description {
        out.push_str(&format!(": {description}"));
    }
    out.push('\n');
    out.push_str("  fields:\n");
    for field in &entity.fields {
        let mut line = format!(
            "    - {}: {}",
            field.name,
            field_type_text(field.ty, &field.values)
        );
        if field.name == entity.unique_field {
            line.push_str(" [unique id]");
        }
        if let Some(description) = &field.description {
            line.push_str(&format!(" — {description}"));
        }
        out.push_str(&line);
        out.push('\n');
    }
    if !entity.computed_fields.is_empty() {
        out.push_str("  computed fields (read-only, usable in conditions and order_by):\n");
        for computed in &entity.computed_fields {
            let mut line = format!(
                "    - {}: {} = {}",
                computed.name,
                match computed.ty {
                    crate::spec::ValueType::String => "string",
                    crate::spec::ValueType::Number => "number",
                    crate::spec::ValueType::Boolean => "boolean",
                    crate::spec::ValueType::Datetime => "datetime",
                },
                computed.source
            );
            if let Some(description) = &computed.description {
                line.push_str(&format!(" — {description}"));
            }
            out.push_str(&line);
            out.push('\n');
        }
    }
    let relationships: Vec<String> = spec
        .relationships
        .iter()
        .filter(|r| r.source == entity.name || r.target == entity.name)
        .map(|r| {
            let mut line = format!("    - {}", relationship_arrow(r));
            if let Some(description) = &r.description {
                line.push_str(&format!(" — {description}"));
            }
            line
        })
        .collect();
    if !relationships.is_empty() {
        out.push_str("  relationships:\n");
        out.push_str(&relationships.join("\n"));
        out.push('\n');
    }
    out
}

/// The whole schema as text.
pub fn schema_text(spec: &SchemaSpec) -> String {
    spec.entities
        .iter()
        .map(|entity| entity_text(spec, entity))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The operators and their meaning.
pub fn operators_text() -> String {
    [
        "Operators (case-sensitive):",
        "  = != > >= < <=  compare (value null with = / != tests for a missing value)",
        "  CONTAINS        substring; on array fields: the array has this element",
        "  STARTS WITH / ENDS WITH  prefix / suffix (no wildcards)",
        "  IN              value is an array; matches any of its values",
        "  REGEX           regular expression (Rust syntax, (?i) ignores case)",
        "  GLOB            * any text, ? one character, [abc] one of",
        "Datetimes are UTC ISO-8601 (2024-05-01T12:00:00Z); values with an offset or plain dates are accepted.",
    ]
    .join("\n")
}

/// Every operator as written in calls.
pub fn operator_names() -> Vec<&'static str> {
    Operator::ALL.iter().map(|o| o.as_str()).collect()
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
        FieldType::Number => (">", json!(10)),
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

/// The description of `query_entities`: purpose, schema, operators and one example call.
pub fn query_entities_description(spec: &SchemaSpec) -> String {
    let mut out = String::from(
        "Find records of one entity type by conditions on their fields or computed fields \
         (combined with AND), optionally ordered, with a limit. The answer says how many records \
         matched in total, how many were returned and whether the list was cut.\n\n",
    );
    out.push_str(&schema_text(spec));
    out.push('\n');
    out.push_str(&operators_text());
    if let Some(entity) = spec.entities.first() {
        out.push_str("\n\nExample call:\n");
        out.push_str(&example_query(spec, entity).to_string());
    }
    out
}

/// The schema as JSON, as `get_schema` returns it: every entity, or only the entities named in
/// `only` and the relationships that touch them.
pub fn schema_json(spec: &SchemaSpec, include_tips: bool, only: Option<&[&str]>) -> Value {
    let wanted = |name: &str| only.is_none_or(|only| only.contains(&name));
    let entities: Vec<Value> = spec
        .entities
        .iter()
        .filter(|entity| wanted(&entity.name))
        .map(|entity| entity_json(spec, entity))
        .collect();
    let relationships: Vec<Value> = spec
        .relationships
        .iter()
        .filter(|r| wanted(&r.source) || wanted(&r.target))
        .map(|r| {
            let mut value = json!({
                "type": r.rel_type,
                "source": r.source,
                "target": r.target,
                "pattern": relationship_arrow(r),
            });
            if let Some(description) = &r.description {
                value["description"] = json!(description);
            }
            if !r.properties.is_empty() {
                value["properties"] = json!(
                    r.properties
                        .iter()
                        .map(|p| json!({"name": p.name, "type": p.ty.config_name()}))
                        .collect::<Vec<_>>()
                );
            }
            value
        })
        .collect();
    let mut schema = json!({
        "name": spec.name,
        "entities": entities,
        "relationships": relationships,
        "operators": operator_names(),
    });
    if let Some(description) = &spec.description {
        schema["description"] = json!(description);
    }
    if include_tips {
        let mut tips = vec![
            "Use query_entities with conditions on fields or computed fields; combine several conditions to narrow results.".to_string(),
            "Use get_entity_by_id or get_entities_by_ids with the entity's unique field value to fetch full records.".to_string(),
            "All text comparisons are case-sensitive; use REGEX with (?i) to ignore case.".to_string(),
            "CONTAINS on an array field tests whether the array has the element.".to_string(),
        ];
        if !spec.relationships.is_empty() {
            tips.push("Use explore_relationships to follow relationships (outgoing, incoming or both) from records matching conditions.".into());
        }
        if let Some(entity) = spec.entities.first() {
            tips.push(format!(
                "Example query_entities call: {}",
                example_query(spec, entity)
            ));
        }
        schema["tips"] = json!(tips);
    }
    schema
}

/// One entity as JSON, as `describe_entity` returns it.
pub fn entity_json(spec: &SchemaSpec, entity: &EntitySpec) -> Value {
    let fields: Vec<Value> = entity
        .fields
        .iter()
        .map(|field| {
            let mut value = json!({"name": field.name, "type": field.ty.config_name()});
            if field.name == entity.unique_field {
                value["unique"] = json!(true);
            }
            if !field.values.is_empty() {
                value["values"] = json!(field.values);
            }
            if let Some(description) = &field.description {
                value["description"] = json!(description);
            }
            value
        })
        .collect();
    let computed: Vec<Value> = entity
        .computed_fields
        .iter()
        .map(|c| {
            let mut value = json!({
                "name": c.name,
                "type": match c.ty {
                    crate::spec::ValueType::String => "string",
                    crate::spec::ValueType::Number => "number",
                    crate::spec::ValueType::Boolean => "boolean",
                    crate::spec::ValueType::Datetime => "datetime",
                },
                "computes": c.source,
            });
            if let Some(description) = &c.description {
                value["description"] = json!(description);
            }
            value
        })
        .collect();
    let outgoing: Vec<String> = spec
        .relationships
        .iter()
        .filter(|r| r.source == entity.name)
        .map(relationship_arrow)
        .collect();
    let incoming: Vec<String> = spec
        .relationships
        .iter()
        .filter(|r| r.target == entity.name)
        .map(relationship_arrow)
        .collect();
    let mut value = json!({
        "name": entity.name,
        "unique_field": entity.unique_field,
        "fields": fields,
        "computed_fields": computed,
        "relationships": {"outgoing": outgoing, "incoming": incoming},
        "example": {"tool": format!("{}query_entities", spec.tools.name_prefix), "arguments": example_query(spec, entity)},
    });
    if let Some(description) = &entity.description {
        value["description"] = json!(description);
    }
    if let Some(display) = &entity.display_name_field {
        value["display_name_field"] = json!(display);
    }
    value
}
