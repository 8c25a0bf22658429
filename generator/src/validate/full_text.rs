//! Full-text indexes: at least one field, every field a stored text field of the entity (listed
//! once), weights positive and finite and only for indexed fields, a known analyzer.

use toolforge::spec::Analyzer;

use crate::config::Config;
use crate::facts::{TEXT_TYPES, stored_field_names, text_fields};
use crate::report::{Reporter, suggestion};

pub(super) fn check(config: &Config, r: &mut Reporter<'_>) {
    for (i, entity) in config.entities.iter().enumerate() {
        let Some(index) = &entity.full_text_index else {
            continue;
        };
        let base = format!("entities[{i}].full_text_index");
        let stored = stored_field_names(entity);
        let text = text_fields(entity);
        if index.fields.is_empty() {
            r.error(
                &format!("{base}.fields"),
                format!("the full-text index of `{}` lists no fields", entity.name),
            )
            .hint(format!(
                "list the text fields to search, for example `fields: [{}]`",
                text.first().copied().unwrap_or("name")
            ))
            .emit();
        }
        for (k, name) in index.fields.iter().enumerate() {
            let path = format!("{base}.fields[{k}]");
            if index.fields[..k].contains(name) {
                r.error(&path, format!("field `{name}` is listed twice"))
                    .hint("list each field once")
                    .emit();
            } else if toolforge::sql::full_text::RESERVED_COLUMNS
                .iter()
                .any(|reserved| reserved.eq_ignore_ascii_case(name))
            {
                r.error(
                    &path,
                    format!(
                        "full-text field `{name}` has a name the full-text table keeps for itself"
                    ),
                )
                .hint(format!(
                    "rename the field (a full-text index cannot list {})",
                    toolforge::sql::full_text::RESERVED_COLUMNS.join(" or ")
                ))
                .emit();
            } else if !stored.contains(&name.as_str()) {
                r.error(
                    &path,
                    format!(
                        "full-text field `{name}` names no field of `{}`",
                        entity.name
                    ),
                )
                .hint(suggestion(name, text.iter().copied(), "text fields"))
                .emit();
            } else if !text.contains(&name.as_str()) {
                let ty = entity.field(name).map(|f| f.ty.as_str()).unwrap_or("");
                r.error(
                    &path,
                    format!(
                        "full-text field `{name}` is a {ty} field; a full-text index searches text \
                         ({})",
                        TEXT_TYPES.join(", ")
                    ),
                )
                .hint(suggestion(name, text.iter().copied(), "text fields"))
                .emit();
            }
        }
        for (name, weight) in index.weights.iter().flatten() {
            let path = format!("{base}.weights.{name}");
            if !index.fields.contains(name) {
                let listed = index.fields.iter().map(String::as_str);
                r.error(
                    &path,
                    format!("a weight is given for `{name}`, which the index does not list"),
                )
                .hint(suggestion(name, listed, "indexed fields"))
                .emit();
            }
            if !weight.is_finite() || *weight <= 0.0 {
                r.error(
                    &path,
                    format!("the weight of `{name}` is {weight}; it must be a positive number"),
                )
                .hint("use 1 for a normal field, more (2, 5, 10) for fields that matter more")
                .emit();
            }
        }
        if let Some(analyzer) = &index.analyzer
            && Analyzer::from_name(analyzer).is_none()
        {
            r.error(
                &format!("{base}.analyzer"),
                format!("unknown analyzer `{analyzer}`"),
            )
            .hint(suggestion(analyzer, Analyzer::NAMES, "analyzers"))
            .emit();
        }
    }
}
