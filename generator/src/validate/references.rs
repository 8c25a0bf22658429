//! References: fields named by entity settings, relationship targets, `hierarchical_content`.
//!
//! A relationship target or vector `source_field` that names nothing the config defines is
//! an error when it is a near miss of a defined name (a typo). Otherwise it is a warning and
//! the relationship / index is left out: ragforge configs routinely refer to entities and
//! properties the ingestion adapter creates without declaring them. `--strict` makes it an
//! error.

use crate::config::{Config, DEFAULT_UNIQUE_FIELD, Entity};
use crate::diagnostics::Severity;
use crate::facts::stored_field_names;
use crate::report::{Reporter, did_you_mean, suggestion};

/// Reports `name` (at `path`) if it is none of `names`.
fn require(
    name: &str,
    names: &[&str],
    path: &str,
    role: &str,
    entity: &Entity,
    r: &mut Reporter<'_>,
) {
    if !names.contains(&name) {
        r.error(
            path,
            format!("{role} `{name}` names no field of `{}`", entity.name),
        )
        .hint(suggestion(name, names.iter().copied(), "fields"))
        .emit();
    }
}

pub(super) fn check(config: &Config, r: &mut Reporter<'_>) {
    let entity_names: Vec<&str> = config.entities.iter().map(|e| e.name.as_str()).collect();
    for (i, entity) in config.entities.iter().enumerate() {
        let base = format!("entities[{i}]");
        let stored = stored_field_names(entity);
        let mut readable = stored.clone();
        readable.extend(entity.computed_fields.iter().map(|f| f.name.as_str()));

        // unique_field: added as a string field when not listed, unless it looks like a typo.
        if let Some(unique) = &entity.unique_field
            && unique != DEFAULT_UNIQUE_FIELD
            && entity.field(unique).is_none()
        {
            let listed: Vec<&str> = entity
                .searchable_fields
                .iter()
                .map(|f| f.name.as_str())
                .collect();
            if let Some(close) = did_you_mean(unique, listed.iter().copied()) {
                r.error(
                    &format!("{base}.unique_field"),
                    format!("unique_field `{unique}` names no field of `{}`", entity.name),
                )
                .hint(format!(
                    "did you mean `{close}`? (a unique field that is not listed is added as a new string field)"
                ))
                .emit();
            }
        }
        for (key, value, names) in [
            ("display_name_field", &entity.display_name_field, &readable),
            ("query_field", &entity.query_field, &stored),
            ("content_field", &entity.content_field, &stored),
        ] {
            if let Some(name) = value {
                require(name, names, &format!("{base}.{key}"), key, entity, r);
            }
        }
        for (k, name) in entity.example_display_fields.iter().enumerate() {
            require(
                name,
                &readable,
                &format!("{base}.example_display_fields[{k}]"),
                "example display field",
                entity,
                r,
            );
        }
        if let Some(tracking) = &entity.change_tracking {
            if let Some(name) = &tracking.content_field {
                require(
                    name,
                    &stored,
                    &format!("{base}.change_tracking.content_field"),
                    "change_tracking.content_field",
                    entity,
                    r,
                );
            }
            for (k, name) in tracking.metadata_fields.iter().enumerate() {
                require(
                    name,
                    &readable,
                    &format!("{base}.change_tracking.metadata_fields[{k}]"),
                    "change_tracking metadata field",
                    entity,
                    r,
                );
            }
        }

        for (j, rel) in entity.relationships.iter().enumerate() {
            let path = format!("{base}.relationships[{j}].target");
            if entity_names.contains(&rel.target.as_str()) {
                continue;
            }
            match did_you_mean(&rel.target, entity_names.iter().copied()) {
                Some(close) => r
                    .error(
                        &path,
                        format!(
                            "relationship `{}` targets unknown entity `{}`",
                            rel.rel_type, rel.target
                        ),
                    )
                    .hint(format!("did you mean `{close}`?"))
                    .emit(),
                None => r
                    .at(
                        Severity::Warning,
                        &path,
                        crate::config::spans::At::Value,
                        format!(
                            "relationship `{}` targets `{}`, which this config does not define; the relationship is left out",
                            rel.rel_type, rel.target
                        ),
                    )
                    .hint(format!(
                        "define an entity `{}` to keep it (entities defined: {})",
                        rel.target,
                        entity_names.join(", ")
                    ))
                    .emit(),
            }
        }

        if let Some(hierarchy) = &entity.hierarchical_content {
            let path = format!("{base}.hierarchical_content.children_relationship");
            let name = hierarchy.children_relationship.as_str();
            // Children of this entity point at their parent: a self relationship.
            let self_types: Vec<&str> = entity
                .relationships
                .iter()
                .filter(|rel| rel.target == entity.name)
                .map(|rel| rel.rel_type.as_str())
                .collect();
            if !self_types.contains(&name) {
                r.error(
                    &path,
                    format!(
                        "children_relationship `{name}` is not a relationship from `{0}` to `{0}`",
                        entity.name
                    ),
                )
                .hint(match did_you_mean(name, self_types.iter().copied()) {
                    Some(close) => format!("did you mean `{close}`?"),
                    None => format!(
                        "declare it under `relationships:`, for example `- type: {name}` with `target: {}`",
                        entity.name
                    ),
                })
                .emit();
            }
            if entity.content_field.is_none() {
                r.error(
                    &format!("{base}.hierarchical_content"),
                    format!(
                        "`hierarchical_content` on `{}` needs a `content_field`",
                        entity.name
                    ),
                )
                .hint("set `content_field:` to the field holding each record's content")
                .emit();
            }
        }
    }
}
