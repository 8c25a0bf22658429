//! Vector indexes: positive dimensions, known source fields, similarity functions, one
//! column per index.

use crate::config::Config;
use crate::config::spans::At;
use crate::diagnostics::Severity;
use crate::facts::{DEFAULT_VECTOR_COLUMN, stored_field_names};
use crate::report::{Reporter, did_you_mean, suggestion};

/// Similarity functions a vector index may use.
pub(crate) const SIMILARITIES: [&str; 3] = ["cosine", "euclidean", "dot"];

pub(super) fn check(config: &Config, r: &mut Reporter<'_>) {
    for (i, entity) in config.entities.iter().enumerate() {
        let stored = stored_field_names(entity);
        let mut columns: Vec<(String, String)> = Vec::new();
        for (suffix, index) in entity.all_vector_indexes() {
            let base = format!("entities[{i}].{suffix}");
            if index.dimension <= 0 || index.dimension > i64::from(u32::MAX) {
                r.error(
                    &format!("{base}.dimension"),
                    format!(
                        "vector index `{}` has dimension {}; it must be a positive number",
                        index.name, index.dimension
                    ),
                )
                .hint("use the embedding model's output size, for example 768 or 1536")
                .emit();
            }
            if let Some(source) = &index.source_field
                && !stored.contains(&source.as_str())
            {
                let path = format!("{base}.source_field");
                match did_you_mean(source, stored.iter().copied()) {
                    Some(close) => r
                        .error(
                            &path,
                            format!("source_field `{source}` names no field of `{}`", entity.name),
                        )
                        .hint(format!("did you mean `{close}`?"))
                        .emit(),
                    None => r
                        .at(
                            Severity::Warning,
                            &path,
                            At::Value,
                            format!(
                                "source_field `{source}` names no field of `{}`; vector index `{}` is left out",
                                entity.name, index.name
                            ),
                        )
                        .hint(format!(
                            "add a field `{source}` to `searchable_fields` to keep it ({})",
                            suggestion(source, stored.iter().copied(), "fields")
                        ))
                        .emit(),
                }
            }
            if let Some(similarity) = &index.similarity
                && !SIMILARITIES.contains(&similarity.as_str())
            {
                r.warning(
                    &format!("{base}.similarity"),
                    format!(
                        "unknown similarity `{similarity}` for vector index `{}`",
                        index.name
                    ),
                )
                .hint(suggestion(similarity, SIMILARITIES, "similarities"))
                .emit();
            }
            let column = index
                .field
                .clone()
                .unwrap_or_else(|| DEFAULT_VECTOR_COLUMN.to_owned());
            let path = if index.field.is_some() {
                format!("{base}.field")
            } else {
                format!("{base}.name")
            };
            if let Some((_, first)) = columns.iter().find(|(c, _)| *c == column) {
                let at = r.line_col(first);
                r.error(
                    &path,
                    format!(
                        "vector index `{}` uses column `{column}`, already used by the index at {at}",
                        index.name
                    ),
                )
                .related(first, format!("`{column}` first used here"))
                .hint("give each vector index its own `field:`")
                .emit();
            } else {
                columns.push((column, path));
            }
        }
    }
}
