//! Row rules (`toolforge.access`): one condition per entity, compiled against the lowered
//! schema with `:context.NAME` values. Every problem is a located diagnostic; a rule with an
//! error is left out of the spec (and the config does not validate).

use toolforge::spec::{AccessRuleSpec, SchemaSpec};

use crate::config::Config;
use crate::config::spans::At;
use crate::diagnostics::Severity;
use crate::expr::{ExprError, compile_rule};
use crate::report::{Reporter, suggestion};

pub(super) fn lower_access_rules(config: &Config, spec: &mut SchemaSpec, r: &mut Reporter<'_>) {
    let Some(rules) = config.toolforge.as_ref().and_then(|t| t.access.as_ref()) else {
        return;
    };
    let mut lowered = Vec::new();
    for (entity, text) in rules {
        let path = format!("toolforge.access.{entity}");
        if spec.entity(entity).is_none() {
            let names: Vec<&str> = spec.entities.iter().map(|e| e.name.as_str()).collect();
            r.at(
                Severity::Error,
                &path,
                At::Key,
                format!("`{entity}` is not an entity of this config"),
            )
            .hint(suggestion(entity, names.iter().copied(), "entities"))
            .emit();
            continue;
        }
        match compile_rule(spec, entity, text) {
            Ok(rule) => lowered.push(AccessRuleSpec {
                entity: entity.clone(),
                source: text.trim().to_owned(),
                sql: rule.sql,
                postgres_sql: rule.postgres_sql,
                context: rule.context,
            }),
            Err(error) => report(r, &path, text, &error),
        }
    }
    spec.access = lowered;
}

/// Reports a rule's compile error at its place in the rule text.
fn report(r: &mut Reporter<'_>, path: &str, text: &str, error: &ExprError) {
    let location = if error.span.is_empty() {
        r.index().locate(path, At::Value)
    } else {
        r.index().locate_in_scalar(path, text, error.span.clone())
    };
    r.at_location(
        Severity::Error,
        path,
        location,
        format!("row rule of `{}`: {}", error.field, error.message),
    )
    .hint(error.hint.clone().unwrap_or_else(|| {
        "compare the entity's stored fields with `:context.NAME` values".to_owned()
    }))
    .emit();
}
