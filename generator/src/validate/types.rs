//! Types: stored field types, `enum` values, computed field result types.

use crate::config::{COMPUTED_TYPES, Config, FIELD_TYPES, Field};
use crate::report::{Reporter, did_you_mean};

/// Common spellings of other languages' types, mapped to the config's.
const ALIASES: [(&str, &str); 19] = [
    ("int", "number"),
    ("integer", "number"),
    ("float", "number"),
    ("double", "number"),
    ("decimal", "number"),
    ("bool", "boolean"),
    ("text", "string"),
    ("str", "string"),
    ("date", "datetime"),
    ("timestamp", "datetime"),
    ("time", "datetime"),
    ("array", "array<string>"),
    ("string[]", "array<string>"),
    ("number[]", "array<number>"),
    ("geopoint", "point"),
    ("geo_point", "point"),
    ("location", "point"),
    ("latlng", "point"),
    ("coordinates", "point"),
];

fn type_hint(ty: &str, allowed: &[&str]) -> String {
    let lower = ty.trim().to_lowercase();
    let alias = ALIASES
        .iter()
        .find(|(alias, target)| *alias == lower && allowed.contains(target))
        .map(|(_, target)| *target);
    match alias.or_else(|| did_you_mean(ty, allowed.iter().copied())) {
        Some(close) => format!("did you mean `{close}`?"),
        None => format!(
            "use one of {}",
            allowed
                .iter()
                .map(|t| format!("`{t}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn check_field(field: &Field, path: &str, r: &mut Reporter<'_>) {
    let type_path = format!("{path}.type");
    if !FIELD_TYPES.contains(&field.ty.as_str()) {
        r.error(
            &type_path,
            format!("unknown type `{}` for field `{}`", field.ty, field.name),
        )
        .hint(type_hint(&field.ty, &FIELD_TYPES))
        .emit();
        return;
    }
    let values = field.values.as_deref().unwrap_or_default();
    if field.ty == "enum" && values.is_empty() {
        let at = if field.values.is_some() {
            format!("{path}.values")
        } else {
            type_path
        };
        r.error(&at, format!("enum field `{}` has no `values`", field.name))
            .hint("list the allowed values, for example `values: [open, closed]`")
            .emit();
    } else if field.ty != "enum" && field.values.is_some() {
        r.warning(
            &format!("{path}.values"),
            format!(
                "`values` is ignored on field `{}` of type `{}`",
                field.name, field.ty
            ),
        )
        .hint("use `type: enum` to restrict the field to these values, or remove `values`")
        .emit();
    }
    if field.ty == "enum" {
        let mut seen: Vec<&str> = Vec::new();
        for (k, value) in values.iter().enumerate() {
            if seen.contains(&value.as_str()) {
                r.error(
                    &format!("{path}.values[{k}]"),
                    format!("duplicate enum value `{value}` in field `{}`", field.name),
                )
                .hint("remove the repeated value")
                .emit();
            }
            seen.push(value);
        }
    }
}

pub(super) fn check(config: &Config, r: &mut Reporter<'_>) {
    for (i, entity) in config.entities.iter().enumerate() {
        for (j, field) in entity.searchable_fields.iter().enumerate() {
            check_field(field, &format!("entities[{i}].searchable_fields[{j}]"), r);
        }
        for (j, rel) in entity.relationships.iter().enumerate() {
            for (k, property) in rel.properties.iter().enumerate() {
                let path = format!("entities[{i}].relationships[{j}].properties[{k}]");
                check_field(property, &path, r);
                if property.ty == "point" {
                    r.error(
                        &format!("{path}.type"),
                        format!(
                            "relationship property `{}` is a point; places are fields of \
                             entities, where `find_near` and `WITHIN` can reach them",
                            property.name
                        ),
                    )
                    .hint("move the place to a field of one of the entities the relationship joins")
                    .emit();
                }
            }
        }
        for (j, field) in entity.computed_fields.iter().enumerate() {
            if !COMPUTED_TYPES.contains(&field.ty.as_str()) {
                r.error(
                    &format!("entities[{i}].computed_fields[{j}].type"),
                    format!(
                        "unknown result type `{}` for computed field `{}`",
                        field.ty, field.name
                    ),
                )
                .hint(type_hint(&field.ty, &COMPUTED_TYPES))
                .emit();
            }
        }
        // A mapped table's key is checked with the mapping (`mapping.rs`).
        if let Some(unique) = entity.field(entity.unique_field())
            && entity.table.is_none()
            && FIELD_TYPES.contains(&unique.ty.as_str())
            && !matches!(
                unique.ty.as_str(),
                "string" | "number" | "enum" | "datetime"
            )
        {
            let j = entity
                .searchable_fields
                .iter()
                .position(|f| f.name == unique.name)
                .unwrap_or_default();
            r.error(
                &format!("entities[{i}].searchable_fields[{j}].type"),
                format!(
                    "unique field `{}` has type `{}`, which cannot identify a record",
                    unique.name, unique.ty
                ),
            )
            .hint(
                "use a `string` (or `number`) field as `unique_field` (an `integer` key is a \
                 mapped table's own, with `table:`)",
            )
            .related(
                &format!("entities[{i}].unique_field"),
                "chosen as unique field here",
            )
            .emit();
        }
    }
}
