//! Computed fields: exactly one body, `materialized` with a `cache_property`. The bodies
//! themselves are compiled (parsed, type-checked, cycle-checked) when the config is lowered.

use crate::config::Config;
use crate::report::Reporter;

pub(super) fn check(config: &Config, r: &mut Reporter<'_>) {
    for (i, entity) in config.entities.iter().enumerate() {
        for (j, field) in entity.computed_fields.iter().enumerate() {
            let base = format!("entities[{i}].computed_fields[{j}]");
            let bodies: Vec<&str> = [
                ("expression", field.expression.is_some()),
                ("cypher", field.cypher.is_some()),
                ("sql", field.sql.is_some()),
            ]
            .into_iter()
            .filter_map(|(key, set)| set.then_some(key))
            .collect();
            match bodies.as_slice() {
                [] => r
                    .error(
                        &base,
                        format!("computed field `{}` has no `expression`", field.name),
                    )
                    .hint("add `expression:` (for example `endLine - startLine + 1`), `cypher:` or `sql:`")
                    .emit(),
                [_] => {}
                [_, second, ..] => r
                    .error(
                        &format!("{base}.{second}"),
                        format!(
                            "computed field `{}` has more than one body ({})",
                            field.name,
                            bodies.join(", ")
                        ),
                    )
                    .hint("keep exactly one of `expression`, `cypher` and `sql`")
                    .emit(),
            }
            let materialized = field.materialized.unwrap_or(false);
            if materialized && field.cache_property.is_none() {
                r.error(
                    &format!("{base}.materialized"),
                    format!(
                        "materialized computed field `{}` has no `cache_property`",
                        field.name
                    ),
                )
                .hint(format!(
                    "name the column holding the value, for example `cache_property: cached_{}`",
                    field.name
                ))
                .emit();
            }
            if !materialized && field.cache_property.is_some() {
                r.warning(
                    &format!("{base}.cache_property"),
                    format!(
                        "`cache_property` is ignored: computed field `{}` is not materialized",
                        field.name
                    ),
                )
                .hint("add `materialized: true` to store the value, or remove `cache_property`")
                .emit();
            }
        }
    }
}
