//! A mapped config against its database: each [`Drift`] a [`DatabaseCheck`] finds, reported at
//! the config key it concerns (an entity's `table:`, a field's `column:`, a relationship's
//! `foreign_key:` or `join_table:`). What breaks a tool is an error, what may surprise a
//! warning, what is not mapped yet a note.

use toolforge::spec::{Drift, DriftLevel, DriftPlace, SchemaSpec};

use crate::config::spans::At;
use crate::config::{Config, Direction, Field};
use crate::database_check::DatabaseCheck;
use crate::diagnostics::Severity;
use crate::report::Reporter;

/// Runs `check` on a mapped `spec` and reports what it finds.
pub(crate) fn check_database(
    config: &Config,
    spec: &SchemaSpec,
    check: &DatabaseCheck,
    r: &mut Reporter<'_>,
) {
    if !spec.is_mapped() {
        return;
    }
    let found = match (check.0)(spec) {
        Ok(found) => found,
        Err(message) => {
            r.at(
                Severity::Error,
                "",
                At::Value,
                format!("cannot compare the config with the database: {message}"),
            )
            .hint("check --db, or run `toolforge validate` without it to check the config alone")
            .emit();
            return;
        }
    };
    for drift in found {
        report(config, &drift, r);
    }
}

fn report(config: &Config, drift: &Drift, r: &mut Reporter<'_>) {
    let severity = match drift.level {
        DriftLevel::Breaks => Severity::Error,
        DriftLevel::Risky => Severity::Warning,
        _ => Severity::Note,
    };
    let (path, at) = path_of(config, &drift.place);
    let pending = r.at(severity, &path, at, drift.message.clone());
    match &drift.hint {
        Some(hint) => pending.hint(hint.clone()).emit(),
        None => pending.emit(),
    }
}

/// The config path a drift belongs at (the whole `entities` list when nothing closer).
fn path_of(config: &Config, place: &DriftPlace) -> (String, At) {
    let entity_index = |name: &str| config.entities.iter().position(|e| e.name == name);
    let fallback = ("entities".to_owned(), At::Key);
    match place {
        DriftPlace::Entity { entity } => match entity_index(entity) {
            Some(i) => (format!("entities[{i}].table"), At::Value),
            None => fallback,
        },
        DriftPlace::Field { entity, field } => {
            let Some(i) = entity_index(entity) else {
                return fallback;
            };
            let fields = &config.entities[i].searchable_fields;
            match fields.iter().position(|f| f.name == *field) {
                Some(j) => field_path(&format!("entities[{i}].searchable_fields[{j}]"), &fields[j]),
                None => (format!("entities[{i}].table"), At::Value),
            }
        }
        DriftPlace::Relationship {
            source,
            rel_type,
            target,
        } => match relationship_index(config, source, rel_type, target) {
            Some((i, j)) => {
                let relationship = &config.entities[i].relationships[j];
                let key = if relationship.join_table.is_some() {
                    "join_table"
                } else {
                    "foreign_key"
                };
                (format!("entities[{i}].relationships[{j}].{key}"), At::Value)
            }
            None => fallback,
        },
        DriftPlace::Property {
            source,
            rel_type,
            target,
            property,
        } => match relationship_index(config, source, rel_type, target) {
            Some((i, j)) => {
                let properties = &config.entities[i].relationships[j].properties;
                match properties.iter().position(|p| p.name == *property) {
                    Some(k) => field_path(
                        &format!("entities[{i}].relationships[{j}].properties[{k}]"),
                        &properties[k],
                    ),
                    None => (
                        format!("entities[{i}].relationships[{j}].join_table"),
                        At::Value,
                    ),
                }
            }
            None => fallback,
        },
        _ => fallback,
    }
}

/// A field's `column:` when it has one, else its `name:`.
fn field_path(base: &str, field: &Field) -> (String, At) {
    let key = if field.column.is_some() {
        "column"
    } else {
        "name"
    };
    (format!("{base}.{key}"), At::Value)
}

/// The entity and relationship of the config that declare the spec's `source -[rel_type]->
/// target` (declared on either end, as the direction says).
fn relationship_index(
    config: &Config,
    source: &str,
    rel_type: &str,
    target: &str,
) -> Option<(usize, usize)> {
    config.entities.iter().enumerate().find_map(|(i, entity)| {
        entity
            .relationships
            .iter()
            .position(|relationship| {
                relationship.rel_type == rel_type
                    && match relationship.direction {
                        Direction::Incoming => {
                            entity.name == target && relationship.target == source
                        }
                        _ => entity.name == source && relationship.target == target,
                    }
            })
            .map(|j| (i, j))
    })
}
