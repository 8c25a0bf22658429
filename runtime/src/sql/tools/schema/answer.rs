//! What `get_schema` and `describe_entity` answer: the schema, and each entity, as typed
//! descriptions.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::spec::{EntitySpec, SchemaSpec, ValueType};
use crate::sql::describe::{example_query, operator_names, relationship_arrow};
use crate::sql::tools::shared::answers::Answer;

/// One stored field of an entity.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct FieldDescription {
    /// The field's name.
    name: String,
    /// Its type, as a config names it.
    #[serde(rename = "type")]
    ty: &'static str,
    /// Whether it identifies a record (only on the unique field).
    #[serde(skip_serializing_if = "Option::is_none")]
    unique: Option<bool>,
    /// The values an enum field takes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    values: Vec<String>,
    /// What the field holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
}

/// One computed field of an entity.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ComputedDescription {
    /// The field's name.
    name: String,
    /// The type of its value.
    #[serde(rename = "type")]
    ty: &'static str,
    /// The expression that computes it.
    computes: String,
    /// What the field holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
}

/// The relationships leaving and reaching an entity, as `Source -[TYPE]-> Target`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct EntityRelationships {
    /// The relationships whose source is the entity.
    outgoing: Vec<String>,
    /// The relationships whose target is the entity.
    incoming: Vec<String>,
}

/// An example call of `query_entities` on an entity.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ExampleCall {
    /// The tool's name.
    tool: String,
    /// Its arguments.
    arguments: Value,
}

/// One entity as `describe_entity` and `get_schema` describe it.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct EntityDescription {
    /// The entity's name.
    name: String,
    /// The field identifying a record.
    unique_field: String,
    /// The stored fields.
    fields: Vec<FieldDescription>,
    /// The computed fields.
    computed_fields: Vec<ComputedDescription>,
    /// The relationships leaving and reaching the entity.
    relationships: EntityRelationships,
    /// An example call.
    example: ExampleCall,
    /// What a record is.
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    /// The field that names a record for people.
    #[serde(skip_serializing_if = "Option::is_none")]
    display_name_field: Option<String>,
}

impl Answer for EntityDescription {}

/// A property of a relationship.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct PropertyDescription {
    /// The property's name.
    name: String,
    /// Its type, as a config names it.
    #[serde(rename = "type")]
    ty: &'static str,
}

/// One relationship of the schema.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RelationshipDescription {
    /// The relationship's type.
    #[serde(rename = "type")]
    rel_type: String,
    /// The source entity.
    source: String,
    /// The target entity.
    target: String,
    /// `Source -[TYPE]-> Target`.
    pattern: String,
    /// What the relationship means.
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    /// The properties each edge carries.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    properties: Vec<PropertyDescription>,
}

/// `get_schema`: the whole schema, or the entities asked for.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct SchemaAnswer {
    /// The schema's name.
    name: String,
    /// The entities.
    entities: Vec<EntityDescription>,
    /// The relationships between entities.
    relationships: Vec<RelationshipDescription>,
    /// The operators conditions take.
    operators: Vec<&'static str>,
    /// What the data is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    /// Usage tips, unless `include_tips` is false.
    #[serde(skip_serializing_if = "Option::is_none")]
    tips: Option<Vec<String>>,
}

impl Answer for SchemaAnswer {}

/// The schema as `get_schema` answers it: every entity, or only the entities named in `only`
/// and the relationships that touch them.
pub(crate) fn schema_answer(
    spec: &SchemaSpec,
    include_tips: bool,
    only: Option<&[&str]>,
) -> SchemaAnswer {
    let wanted = |name: &str| only.is_none_or(|only| only.contains(&name));
    let entities = spec
        .entities
        .iter()
        .filter(|entity| wanted(&entity.name))
        .map(|entity| entity_description(spec, entity))
        .collect();
    let relationships = spec
        .relationships
        .iter()
        .filter(|r| wanted(&r.source) || wanted(&r.target))
        .map(|r| RelationshipDescription {
            rel_type: r.rel_type.clone(),
            source: r.source.clone(),
            target: r.target.clone(),
            pattern: relationship_arrow(r),
            description: r.description.clone(),
            properties: r
                .properties
                .iter()
                .map(|p| PropertyDescription {
                    name: p.name.clone(),
                    ty: p.ty.config_name(),
                })
                .collect(),
        })
        .collect();
    let tips = include_tips.then(|| {
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
        tips
    });
    SchemaAnswer {
        name: spec.name.clone(),
        entities,
        relationships,
        operators: operator_names(spec),
        description: spec.description.clone(),
        tips,
    }
}

/// One entity as `describe_entity` answers it.
pub(crate) fn entity_description(spec: &SchemaSpec, entity: &EntitySpec) -> EntityDescription {
    let fields = entity
        .fields
        .iter()
        .map(|field| FieldDescription {
            name: field.name.clone(),
            ty: field.ty.config_name(),
            unique: (field.name == entity.unique_field).then_some(true),
            values: field.values.clone(),
            description: field.description.clone(),
        })
        .collect();
    let computed_fields = entity
        .computed_fields
        .iter()
        .map(|c| ComputedDescription {
            name: c.name.clone(),
            ty: match c.ty {
                ValueType::String => "string",
                ValueType::Number => "number",
                ValueType::Boolean => "boolean",
                ValueType::Datetime => "datetime",
            },
            computes: c.source.clone(),
            description: c.description.clone(),
        })
        .collect();
    let arrows = |leaving: bool| {
        spec.relationships
            .iter()
            .filter(|r| {
                if leaving {
                    r.source == entity.name
                } else {
                    r.target == entity.name
                }
            })
            .map(relationship_arrow)
            .collect()
    };
    EntityDescription {
        name: entity.name.clone(),
        unique_field: entity.unique_field.clone(),
        fields,
        computed_fields,
        relationships: EntityRelationships {
            outgoing: arrows(true),
            incoming: arrows(false),
        },
        example: ExampleCall {
            tool: format!("{}query_entities", spec.tools.name_prefix),
            arguments: example_query(spec, entity),
        },
        description: entity.description.clone(),
        display_name_field: entity.display_name_field.clone(),
    }
}
