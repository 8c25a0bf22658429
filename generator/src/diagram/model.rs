//! The diagram of a config: what its entity–relationship drawing shows, read from the storage
//! spec once, in config order, so every rendering draws the same thing.

use toolforge::spec::{FieldType, SchemaSpec, ValueType};

/// The entities of a config and the relationships between them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagram {
    /// The config's name.
    pub name: String,
    /// The entities, in config order.
    pub entities: Vec<Entity>,
    /// The relationships, one per edge table (source, type, target), in config order.
    pub edges: Vec<Edge>,
}

/// One entity: a box with its fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entity {
    /// The entity's name as the config writes it.
    pub name: String,
    /// Its stored fields, in config order (the unique field included).
    pub fields: Vec<Field>,
    /// Its computed fields, in config order.
    pub computed: Vec<Computed>,
}

/// A stored field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The field's name.
    pub name: String,
    /// Its type as a config writes it (`string`, `array<number>`, ...).
    pub ty: &'static str,
    /// The allowed values of an `enum` field.
    pub values: Vec<String>,
    /// What makes the field special, in [`Marker`] order.
    pub markers: Vec<Marker>,
}

/// What a diagram says about a field besides its type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Marker {
    /// The entity's unique field (its id in tool calls and edges).
    Unique,
    /// `indexed: true`: a database index serves conditions on it.
    Indexed,
    /// Part of the entity's full-text index (`full_text_search`).
    FullText,
    /// The source text of a vector index (`semantic_search`).
    Embedded,
}

impl Marker {
    /// The marker as the diagrams write it.
    pub fn label(self) -> &'static str {
        match self {
            Marker::Unique => "unique",
            Marker::Indexed => "indexed",
            Marker::FullText => "full-text",
            Marker::Embedded => "embedded",
        }
    }
}

/// A computed field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Computed {
    /// The field's name.
    pub name: String,
    /// The result type (`string`, `number`, `boolean`, `datetime`).
    pub ty: &'static str,
    /// The expression as the config writes it.
    pub source: String,
    /// Whether the value is stored in a generated column (`materialized`).
    pub materialized: bool,
}

/// A relationship: edges of one type from one entity to another (or the same).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// The relationship type (`DEFINED_IN`).
    pub rel_type: String,
    /// The entity edges start from.
    pub source: String,
    /// The entity edges point to.
    pub target: String,
    /// The edge's own properties: name and type.
    pub properties: Vec<(String, &'static str)>,
}

impl Edge {
    /// The edge's label: its type, and its properties when it has some
    /// (`CALLS {line: number}`).
    pub fn label(&self) -> String {
        if self.properties.is_empty() {
            return self.rel_type.clone();
        }
        let properties: Vec<String> = self
            .properties
            .iter()
            .map(|(name, ty)| format!("{name}: {ty}"))
            .collect();
        format!("{} {{{}}}", self.rel_type, properties.join(", "))
    }
}

impl Field {
    /// The type with an enum's values (`enum(open, closed)`), at most four of them shown.
    pub fn type_text(&self) -> String {
        if self.values.is_empty() {
            return self.ty.to_owned();
        }
        let mut shown: Vec<&str> = self.values.iter().take(4).map(String::as_str).collect();
        if self.values.len() > 4 {
            shown.push("…");
        }
        format!("{}({})", self.ty, shown.join(", "))
    }
}

impl Diagram {
    /// The diagram of a compiled config.
    pub fn from_spec(spec: &SchemaSpec) -> Diagram {
        let entities = spec
            .entities
            .iter()
            .map(|entity| {
                let full_text: Vec<&str> = entity
                    .full_text
                    .iter()
                    .flat_map(|index| index.fields.iter().map(|f| f.name.as_str()))
                    .collect();
                let embedded: Vec<&str> = entity
                    .vector_indexes
                    .iter()
                    .filter_map(|index| index.source_field.as_deref())
                    .collect();
                let fields = entity
                    .fields
                    .iter()
                    .map(|field| {
                        let mut markers = Vec::new();
                        let unique = field.unique || field.name == entity.unique_field;
                        if unique {
                            markers.push(Marker::Unique);
                        }
                        // a unique field is indexed by its constraint: said once
                        if field.indexed && !unique {
                            markers.push(Marker::Indexed);
                        }
                        if full_text.contains(&field.name.as_str()) {
                            markers.push(Marker::FullText);
                        }
                        if embedded.contains(&field.name.as_str()) {
                            markers.push(Marker::Embedded);
                        }
                        Field {
                            name: field.name.clone(),
                            ty: field.ty.config_name(),
                            values: if field.ty == FieldType::Enum {
                                field.values.clone()
                            } else {
                                Vec::new()
                            },
                            markers,
                        }
                    })
                    .collect();
                let computed = entity
                    .computed_fields
                    .iter()
                    .map(|field| Computed {
                        name: field.name.clone(),
                        ty: value_type_name(field.ty),
                        source: one_line(&field.source),
                        materialized: field.materialized_column.is_some(),
                    })
                    .collect();
                Entity {
                    name: entity.name.clone(),
                    fields,
                    computed,
                }
            })
            .collect();
        let edges = spec
            .relationships
            .iter()
            .map(|relationship| Edge {
                rel_type: relationship.rel_type.clone(),
                source: relationship.source.clone(),
                target: relationship.target.clone(),
                properties: relationship
                    .properties
                    .iter()
                    .map(|p| (p.name.clone(), p.ty.config_name()))
                    .collect(),
            })
            .collect();
        Diagram {
            name: spec.name.clone(),
            entities,
            edges,
        }
    }
}

/// The name configs give a computed field's type.
fn value_type_name(ty: ValueType) -> &'static str {
    match ty {
        ValueType::String => "string",
        ValueType::Number => "number",
        ValueType::Boolean => "boolean",
        ValueType::Datetime => "datetime",
    }
}

/// The text on one line: every run of whitespace (line breaks included) one space.
pub(super) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` cut to at most `max` characters, an ellipsis ending a cut one.
pub(super) fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}
