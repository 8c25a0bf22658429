//! Relationships → edge tables: one per (source entity, type, target entity), however many
//! times and from whichever end it is declared.

use toolforge::spec::{EdgeMapping, RelationshipSpec, TableRef};

use super::entities::lower_field;
use crate::config::{Config, Direction, Relationship};
use crate::naming::{edge_table_name, mapped_view_name};

/// Where a relationship between mapped tables reads its edges (`foreign_key:`, `join_table:`).
fn edge_mapping(rel: &Relationship) -> Option<EdgeMapping> {
    if let Some(column) = &rel.foreign_key {
        return Some(EdgeMapping::ForeignKey {
            column: column.clone(),
        });
    }
    let join = rel.join_table.as_ref()?;
    Some(EdgeMapping::JoinTable {
        table: TableRef::parse(&join.table).ok()?,
        source_column: join.source_column.clone(),
        target_column: join.target_column.clone(),
    })
}

pub(super) fn lower_relationships(config: &Config) -> Vec<RelationshipSpec> {
    let defined = |name: &str| config.entities.iter().any(|e| e.name == name);
    let mut edges: Vec<RelationshipSpec> = Vec::new();
    for entity in &config.entities {
        for rel in &entity.relationships {
            if !defined(&rel.target) {
                continue; // reported by validation; left out
            }
            let (source, target) = match rel.direction {
                Direction::Outgoing | Direction::Both => (&entity.name, &rel.target),
                Direction::Incoming => (&rel.target, &entity.name),
            };
            let same = |edge: &RelationshipSpec, s: &str, t: &str| {
                edge.rel_type == rel.rel_type && edge.source == s && edge.target == t
            };
            let existing = edges.iter_mut().position(|edge| {
                same(edge, source, target)
                    || (rel.direction == Direction::Both && same(edge, target, source))
            });
            let properties = rel
                .properties
                .iter()
                .filter_map(|field| lower_field(field, false))
                .collect::<Vec<_>>();
            match existing {
                Some(index) => {
                    let edge = &mut edges[index];
                    if edge.description.is_none() {
                        edge.description = rel.description.clone();
                    }
                    for property in properties {
                        if !edge.properties.iter().any(|p| p.name == property.name) {
                            edge.properties.push(property);
                        }
                    }
                }
                None => {
                    let mapping = edge_mapping(rel);
                    let table = edge_table_name(source, &rel.rel_type, target);
                    edges.push(RelationshipSpec {
                        rel_type: rel.rel_type.clone(),
                        source: source.clone(),
                        target: target.clone(),
                        table: match mapping {
                            Some(_) => mapped_view_name(&table),
                            None => table,
                        },
                        description: rel.description.clone(),
                        properties,
                        mapping,
                    })
                }
            }
        }
    }
    edges
}
