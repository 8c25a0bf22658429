//! What the lowered spec needs from SQLite and from Rust, checked on the spec itself so that
//! a config that validates is one `db init` creates and `generate` turns into a module:
//! - every table and index name is distinct, ignoring ASCII case as SQLite does (an entity's
//!   table, the index of an `indexed` field, an edge table, an edge table's target index);
//! - a relationship declared at both ends has no two properties SQLite would see as one;
//! - no two entities need the same Rust type name in the records module (record structs, field
//!   enums, value enums of `enum` fields);
//! - and, as a last guard, the spec's DDL can be written.
//!
//! Runs after lowering, and only on a config without other errors (lowering leaves out what
//! validation rejected, so names could collide spuriously).

use std::collections::HashMap;

use toolforge::spec::{RelationshipSpec, SchemaSpec};
use toolforge::sql::ddl::{field_index_name, schema_objects, target_index_name};

use crate::codegen::records::{TypeRole, type_names};
use crate::config::{Config, Direction};
use crate::report::Reporter;

/// The config path of the first declaration that lowers to `edge`.
fn declaration(config: &Config, edge: &RelationshipSpec) -> Option<(usize, usize)> {
    config.entities.iter().enumerate().find_map(|(i, entity)| {
        entity
            .relationships
            .iter()
            .position(|rel| {
                rel.rel_type == edge.rel_type
                    && match rel.direction {
                        Direction::Outgoing => {
                            entity.name == edge.source && rel.target == edge.target
                        }
                        Direction::Incoming => {
                            entity.name == edge.target && rel.target == edge.source
                        }
                        Direction::Both => {
                            (entity.name == edge.source && rel.target == edge.target)
                                || (entity.name == edge.target && rel.target == edge.source)
                        }
                    }
            })
            .map(|j| (i, j))
    })
}

/// One table or index, with the config element it comes from.
struct Object {
    kind: &'static str,
    name: String,
    path: String,
    origin: String,
}

fn objects(config: &Config, spec: &SchemaSpec) -> Vec<Object> {
    let mut objects = Vec::new();
    for (i, entity) in spec.entities.iter().enumerate() {
        objects.push(Object {
            kind: "table",
            name: entity.table.clone(),
            path: format!("entities[{i}].name"),
            origin: format!("entity `{}`", entity.name),
        });
        for field in &entity.fields {
            if !field.indexed || field.name == entity.unique_field {
                continue;
            }
            let path = config.entities[i]
                .searchable_fields
                .iter()
                .position(|f| f.name == field.name)
                .map_or_else(
                    || format!("entities[{i}].name"),
                    |j| format!("entities[{i}].searchable_fields[{j}].name"),
                );
            objects.push(Object {
                kind: "index",
                name: field_index_name(&entity.table, &field.name),
                path,
                origin: format!("the indexed field `{}.{}`", entity.name, field.name),
            });
        }
    }
    for edge in &spec.relationships {
        let path = declaration(config, edge).map_or_else(
            || "entities".to_owned(),
            |(i, j)| format!("entities[{i}].relationships[{j}].type"),
        );
        let origin = format!(
            "the relationship `{} -[{}]-> {}`",
            edge.source, edge.rel_type, edge.target
        );
        objects.push(Object {
            kind: "edge table",
            name: edge.table.clone(),
            path: path.clone(),
            origin: origin.clone(),
        });
        objects.push(Object {
            kind: "index",
            name: target_index_name(&edge.table),
            path,
            origin,
        });
    }
    objects
}

/// Table and index names SQLite would see as one.
fn check_object_names(config: &Config, spec: &SchemaSpec, r: &mut Reporter<'_>) {
    let mut seen: HashMap<String, Object> = HashMap::new();
    for object in objects(config, spec) {
        match seen.get(&object.name.to_ascii_lowercase()) {
            Some(first) => {
                let at = r.line_col(&first.path);
                r.error(
                    &object.path,
                    format!(
                        "the {} `{}` of {} has the same name as the {} `{}` of {} (declared at {at}); SQLite names ignore case",
                        object.kind, object.name, object.origin, first.kind, first.name, first.origin
                    ),
                )
                .related(&first.path, format!("{} declared here", first.origin))
                .hint("rename one of the entities, fields or relationship types involved: tables are `<entity>`, `<entity>__<field>__idx`, `<source>__<type>__<target>` and `<edge table>__target_id__idx`, all in snake_case")
                .emit();
            }
            None => {
                seen.insert(object.name.to_ascii_lowercase(), object);
            }
        }
    }
}

/// Properties of one edge table, gathered from every declaration of the relationship.
fn check_merged_properties(config: &Config, spec: &SchemaSpec, r: &mut Reporter<'_>) {
    for edge in &spec.relationships {
        let mut seen: HashMap<String, &str> = HashMap::new();
        for property in &edge.properties {
            let key = property.name.to_ascii_lowercase();
            let Some(first) = seen.get(&key).copied() else {
                seen.insert(key, &property.name);
                continue;
            };
            // Only declarations at both ends merge; locate the later spelling.
            let path = config
                .entities
                .iter()
                .enumerate()
                .flat_map(|(i, entity)| {
                    entity
                        .relationships
                        .iter()
                        .enumerate()
                        .flat_map(move |(j, rel)| {
                            rel.properties
                                .iter()
                                .enumerate()
                                .filter(|(_, p)| {
                                    p.name == property.name && rel.rel_type == edge.rel_type
                                })
                                .map(move |(k, _)| {
                                    format!("entities[{i}].relationships[{j}].properties[{k}].name")
                                })
                        })
                })
                .next()
                .unwrap_or_else(|| "entities".to_owned());
            r.error(
                &path,
                format!(
                    "relationship property `{}` of `{} -[{}]-> {}` and the property `{first}` declared at its other end are one column for SQLite, which ignores case",
                    property.name, edge.source, edge.rel_type, edge.target
                ),
            )
            .hint("spell the property the same way at both ends of the relationship")
            .emit();
        }
    }
}

/// Rust type names the records module would declare twice.
fn check_type_names(spec: &SchemaSpec, r: &mut Reporter<'_>) {
    let mut seen: HashMap<String, (usize, String)> = HashMap::new();
    for (i, entity) in spec.entities.iter().enumerate() {
        for (name, role) in type_names(entity) {
            let what = match role {
                TypeRole::Record => format!("the record struct of `{}`", entity.name),
                TypeRole::FieldEnum => format!("the field enum of `{}`", entity.name),
                TypeRole::ValueEnum(field) => {
                    format!("the enum of the values of `{}.{field}`", entity.name)
                }
            };
            match seen.get(&name) {
                Some((first, first_what)) => {
                    let first_path = format!("entities[{first}].name");
                    let at = r.line_col(&first_path);
                    r.error(
                        &format!("entities[{i}].name"),
                        format!(
                            "the Rust type `{name}` would be both {first_what} (declared at {at}) and {what}"
                        ),
                    )
                    .related(&first_path, format!("`{}` declared here", spec.entities[*first].name))
                    .hint("rename one of them: an entity `X` declares the types `X` and `XField`, and `X<Field>` for each `enum` field")
                    .emit();
                }
                None => {
                    seen.insert(name, (i, what));
                }
            }
        }
    }
}

/// Runs the checks of this module on `spec`, lowered from `config`.
pub(crate) fn check(config: &Config, spec: &SchemaSpec, r: &mut Reporter<'_>) {
    let before = r.error_count();
    check_object_names(config, spec, r);
    check_merged_properties(config, spec, r);
    check_type_names(spec, r);
    if r.error_count() == before
        && let Err(error) = schema_objects(spec)
    {
        r.error(
            "entities",
            format!("the tables of this config cannot be created: {error}"),
        )
        .hint("rename the entities, fields or relationships the message names")
        .emit();
    }
}
