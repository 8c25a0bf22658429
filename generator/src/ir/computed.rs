//! Computed fields: compiled by [`crate::expr`] against the lowered schema; compile errors
//! become located diagnostics (`cypher:` that cannot be translated is a warning and the field
//! is left out).

use toolforge::spec::{ComputedFieldSpec, SchemaSpec};

use crate::config::Config;
use crate::config::spans::At;
use crate::diagnostics::Severity;
use crate::expr::{ComputedBody, ComputedSource, ExprErrorKind, compile_computed_fields};
use crate::report::Reporter;

pub(super) fn lower_computed_fields(config: &Config, spec: &mut SchemaSpec, r: &mut Reporter<'_>) {
    for (i, entity) in config.entities.iter().enumerate() {
        // Only fields with exactly one body (the others are reported by validation).
        let mut sources = Vec::new();
        let mut origin = Vec::new();
        for (j, field) in entity.computed_fields.iter().enumerate() {
            let body = match (&field.expression, &field.cypher, &field.sql) {
                (Some(text), None, None) => ("expression", text, ComputedBody::Expression(text)),
                (None, Some(text), None) => ("cypher", text, ComputedBody::Cypher(text)),
                (None, None, Some(text)) => ("sql", text, ComputedBody::Sql(text)),
                _ => continue,
            };
            sources.push(ComputedSource {
                name: &field.name,
                declared_type: &field.ty,
                body: body.2,
            });
            origin.push((j, body.0, body.1.as_str()));
        }
        if sources.is_empty() || spec.entity(&entity.name).is_none() {
            continue;
        }
        let results = compile_computed_fields(spec, &entity.name, &sources);
        let mut compiled = Vec::new();
        for (result, (j, key, text)) in results.into_iter().zip(origin) {
            let field = &entity.computed_fields[j];
            let base = format!("entities[{i}].computed_fields[{j}]");
            match result {
                Ok(done) => {
                    let materialized = field.materialized.unwrap_or(false);
                    if materialized && done.row_local_sql.is_none() {
                        r.error(
                            &format!("{base}.materialized"),
                            format!(
                                "computed field `{}` cannot be materialized: it is not computed from this row alone",
                                field.name
                            ),
                        )
                        .hint("aggregates over relationships and `now()` change without the row changing; remove `materialized`")
                        .emit();
                        continue;
                    }
                    compiled.push(ComputedFieldSpec {
                        name: done.name,
                        ty: done.ty,
                        description: field.description.clone(),
                        source: done.source,
                        sql: done.sql,
                        postgres_sql: done.postgres_sql,
                        materialized_column: if materialized {
                            field.cache_property.clone()
                        } else {
                            None
                        },
                    });
                }
                Err(error) => {
                    let path = format!("{base}.{key}");
                    let location = if error.span.is_empty() {
                        r.index().locate(&path, At::Value)
                    } else {
                        r.index().locate_in_scalar(&path, text, error.span.clone())
                    };
                    let severity = if error.kind == ExprErrorKind::UntranslatableCypher {
                        Severity::Warning
                    } else {
                        Severity::Error
                    };
                    let message = if error.kind == ExprErrorKind::UntranslatableCypher {
                        format!(
                            "computed field `{}` is left out: {}",
                            field.name, error.message
                        )
                    } else {
                        format!("computed field `{}`: {}", field.name, error.message)
                    };
                    let hint = error
                        .hint
                        .unwrap_or_else(|| fallback_hint(error.kind, spec, &entity.name));
                    r.at_location(severity, &path, location, message)
                        .hint(hint)
                        .emit();
                }
            }
        }
        if let Some(target) = spec.entities.iter_mut().find(|e| e.name == entity.name) {
            target.computed_fields = compiled;
        }
    }
}

/// A hint for compiler errors that carry none of their own: every diagnostic says how to go on.
fn fallback_hint(kind: ExprErrorKind, spec: &SchemaSpec, entity: &str) -> String {
    match kind {
        ExprErrorKind::UnknownName => {
            let Some(entity_spec) = spec.entity(entity) else {
                return "use a field, computed field or relationship of this entity".to_owned();
            };
            let fields: Vec<String> = entity_spec
                .fields
                .iter()
                .map(|field| format!("`{}`", field.name))
                .collect();
            let relationships: Vec<String> = spec
                .relationships
                .iter()
                .filter(|edge| edge.source == entity)
                .map(|edge| format!("`{}`", edge.rel_type))
                .collect();
            let mut hint = format!("fields of `{entity}`: {}", fields.join(", "));
            if !relationships.is_empty() {
                hint.push_str(&format!(
                    "; relationships for aggregates: {}",
                    relationships.join(", ")
                ));
            }
            hint
        }
        ExprErrorKind::Type => {
            "check the operand types: arithmetic needs numbers, AND/OR/NOT need booleans".to_owned()
        }
        ExprErrorKind::Syntax => "write an expression such as `endLine - startLine + 1`, \
             `name IS NOT NULL` or `count(HAS_CHANGE)`"
            .to_owned(),
        ExprErrorKind::Cycle => {
            "break the cycle: compute one of the fields from stored fields only".to_owned()
        }
        ExprErrorKind::UntranslatableCypher => {
            "use `expression:` with a relationship aggregate such as `count(REL)`".to_owned()
        }
    }
}
