//! Relationships → edge tables: one per (source entity, type, target entity), however many
//! times and from whichever end it is declared.

use toolforge::spec::RelationshipSpec;

use super::entities::lower_field;
use crate::config::{Config, Direction};
use crate::naming::edge_table_name;

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
                None => edges.push(RelationshipSpec {
                    rel_type: rel.rel_type.clone(),
                    source: source.clone(),
                    target: target.clone(),
                    table: edge_table_name(source, &rel.rel_type, target),
                    description: rel.description.clone(),
                    properties,
                }),
            }
        }
    }
    edges
}
