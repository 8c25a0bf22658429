//! Entities → tables: stored fields (the unique field added when missing), vector columns and
//! hierarchies.

use toolforge::spec::{
    Analyzer, EntitySpec, FieldSpec, FieldType, FullTextField, FullTextSpec, HierarchySpec,
    SchemaSpec, TableRef, VectorIndexSpec,
};

use crate::config::{Config, Entity, Field};
use crate::facts::{DEFAULT_VECTOR_COLUMN, stored_field_names, text_fields};
use crate::naming::{mapped_view_name, table_name};

/// The spec type of a config type name, if it is one.
pub(crate) fn field_type(name: &str) -> Option<FieldType> {
    Some(match name {
        "string" => FieldType::String,
        "number" => FieldType::Number,
        "integer" => FieldType::Integer,
        "boolean" => FieldType::Boolean,
        "datetime" => FieldType::Datetime,
        "enum" => FieldType::Enum,
        "array<string>" => FieldType::StringArray,
        "array<number>" => FieldType::NumberArray,
        "point" => FieldType::Point,
        _ => return None,
    })
}

/// A stored field, or `None` when its type is unknown (already reported).
pub(crate) fn lower_field(field: &Field, unique: bool) -> Option<FieldSpec> {
    Some(FieldSpec {
        name: field.name.clone(),
        column: field.column.clone().filter(|column| *column != field.name),
        ty: field_type(&field.ty)?,
        description: field.description.clone(),
        indexed: field.indexed.unwrap_or(false),
        unique,
        values: field.values.clone().unwrap_or_default(),
    })
}

pub(super) fn lower_entity(entity: &Entity) -> EntitySpec {
    let unique = entity.unique_field();
    let mut fields: Vec<FieldSpec> = entity
        .searchable_fields
        .iter()
        .filter_map(|field| lower_field(field, field.name == unique))
        .collect();
    // A mapped table's key is one of its own columns (validation says so when it is not).
    if entity.field(unique).is_none() && entity.table.is_none() {
        fields.insert(
            0,
            FieldSpec {
                name: unique.to_owned(),
                column: None,
                ty: FieldType::String,
                description: Some(format!("Unique identifier of a {}", entity.name)),
                indexed: true,
                unique: true,
                values: Vec::new(),
            },
        );
    }
    let stored = stored_field_names(entity);
    let vector_indexes = entity
        .all_vector_indexes()
        .into_iter()
        .filter_map(|(_, index)| {
            let dimension = u32::try_from(index.dimension).ok().filter(|d| *d > 0)?;
            if let Some(source) = &index.source_field
                && !stored.contains(&source.as_str())
            {
                return None;
            }
            Some(VectorIndexSpec {
                name: index.name.clone(),
                column: index
                    .field
                    .clone()
                    .unwrap_or_else(|| DEFAULT_VECTOR_COLUMN.to_owned()),
                source_field: index.source_field.clone(),
                existing_column: index.column.clone().filter(|_| entity.table.is_some()),
                dimension,
                similarity: super::embeddings::similarity(index.similarity.as_deref()),
                model: index.model.clone(),
            })
        })
        .collect();
    let source = entity
        .table
        .as_deref()
        .and_then(|table| TableRef::parse(table).ok());
    EntitySpec {
        name: entity.name.clone(),
        table: match source {
            Some(_) => mapped_view_name(&table_name(&entity.name)),
            None => table_name(&entity.name),
        },
        source,
        description: entity.description.clone(),
        unique_field: unique.to_owned(),
        display_name_field: entity.display_name_field.clone(),
        query_field: entity.query_field.clone(),
        content_field: entity.content_field.clone(),
        example_display_fields: entity.example_display_fields.clone(),
        fields,
        computed_fields: Vec::new(),
        vector_indexes,
        hierarchy: None,
        full_text: lower_full_text(entity),
        change_tracking: lower_change_tracking(entity),
    }
}

/// `full_text_index`, with the fields the validator accepted (weights default to 1).
fn lower_full_text(entity: &Entity) -> Option<FullTextSpec> {
    let index = entity.full_text_index.as_ref()?;
    let text = text_fields(entity);
    let mut fields: Vec<FullTextField> = Vec::new();
    for name in &index.fields {
        if text.contains(&name.as_str()) && !fields.iter().any(|f| &f.name == name) {
            let weight = index
                .weights
                .as_ref()
                .and_then(|weights| weights.get(name))
                .copied()
                .filter(|w| w.is_finite() && *w > 0.0)
                .unwrap_or(1.0);
            fields.push(FullTextField {
                name: name.clone(),
                weight,
            });
        }
    }
    let analyzer = match &index.analyzer {
        Some(name) => Analyzer::from_name(name)?,
        None => Analyzer::default(),
    };
    (!fields.is_empty()).then_some(FullTextSpec { fields, analyzer })
}

/// `hierarchical_content`: children point at their parent through a relationship of the
/// entity to itself (`(child)-[:HAS_PARENT]->(parent)`), so the child is the edge's source.
pub(super) fn add_hierarchies(config: &Config, spec: &mut SchemaSpec) {
    for entity in &config.entities {
        let Some(hierarchy) = &entity.hierarchical_content else {
            continue;
        };
        let Some(content_field) = &entity.content_field else {
            continue;
        };
        let has_edge = spec.relationships.iter().any(|edge| {
            edge.rel_type == hierarchy.children_relationship
                && edge.source == entity.name
                && edge.target == entity.name
        });
        if !has_edge || entity.field(content_field).is_none() {
            continue;
        }
        if let Some(target) = spec.entities.iter_mut().find(|e| e.name == entity.name) {
            target.hierarchy = Some(HierarchySpec {
                relationship: hierarchy.children_relationship.clone(),
                child_is_source: true,
                content_field: content_field.clone(),
            });
        }
    }
}

/// `track_changes: true` or a `change_tracking:` section (unless `track_changes: false`): the
/// content field (`change_tracking.content_field`, else the entity's `content_field`) and the
/// metadata fields that exist.
fn lower_change_tracking(entity: &Entity) -> Option<toolforge::spec::ChangeTrackingSpec> {
    let tracked = match entity.track_changes {
        Some(on) => on,
        None => entity.change_tracking.is_some(),
    };
    if !tracked {
        return None;
    }
    let section = entity.change_tracking.clone().unwrap_or_default();
    let stored = |name: &String| entity.field(name).is_some() || name == entity.unique_field();
    let content_field = section
        .content_field
        .or_else(|| entity.content_field.clone())
        .filter(stored);
    let metadata_fields = section
        .metadata_fields
        .into_iter()
        .filter(|name| stored(name))
        .collect();
    Some(toolforge::spec::ChangeTrackingSpec {
        content_field,
        metadata_fields,
    })
}
