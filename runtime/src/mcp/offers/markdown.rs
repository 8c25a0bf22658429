//! A record as Markdown: its fields and computed fields in a table, its content below, and the
//! records related to it, each with the URI that reads it.

use std::fmt::Write;

use serde_json::Value;

use super::data::Offers;
use crate::spec::EntitySpec;

/// The longest value shown in a table cell, in characters.
const CELL_CHARS: usize = 400;

/// `record` of `entity` in Markdown, with `related` (relationship type, the answer of
/// `explore_relationships`).
pub(super) fn record(
    offers: &Offers,
    entity: &EntitySpec,
    record: &Value,
    related: &[(String, Value)],
) -> String {
    let id = scalar(&record[&entity.unique_field]);
    let name = entity
        .display_name_field
        .as_ref()
        .map(|field| scalar(&record[field]))
        .filter(|name| !name.is_empty() && *name != id);
    let mut out = String::new();
    let _ = match &name {
        Some(name) => writeln!(out, "# {} {} ({})", entity.name, inline(name), inline(&id)),
        None => writeln!(out, "# {} {}", entity.name, inline(&id)),
    };
    if let Some(description) = &entity.description {
        let _ = writeln!(out, "\n{}", inline(description));
    }
    let content = entity.content_field.as_deref();
    let mut rows: Vec<(&str, &Value)> = Vec::new();
    let mut computed: Vec<(&str, &Value)> = Vec::new();
    if let Value::Object(fields) = record {
        for (field, value) in fields {
            if Some(field.as_str()) == content {
                continue;
            }
            if entity.computed_fields.iter().any(|c| c.name == *field) {
                computed.push((field, value));
            } else {
                rows.push((field, value));
            }
        }
    }
    table(&mut out, "Fields", &rows);
    table(&mut out, "Computed fields", &computed);
    if let Some(field) = content
        && let Some(text) = record[field].as_str()
    {
        let _ = writeln!(out, "\n## {field}\n\n{}", text.trim_end());
    }
    for (rel_type, answer) in related {
        let results = answer["results"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        if results.is_empty() {
            continue;
        }
        let total = answer["total"].as_u64().unwrap_or(results.len() as u64);
        let _ = writeln!(out, "\n## {rel_type} ({} of {total})\n", results.len());
        for item in results {
            let other = item["entity_type"].as_str().unwrap_or_default();
            let arrow = if item["direction"] == "incoming" {
                "←"
            } else {
                "→"
            };
            let record = &item["record"];
            let Some((position, spec)) = offers
                .spec
                .entities
                .iter()
                .enumerate()
                .find(|(_, spec)| spec.name == other)
            else {
                continue;
            };
            let id = scalar(&record[&spec.unique_field]);
            let label = spec
                .display_name_field
                .as_ref()
                .map(|field| scalar(&record[field]))
                .filter(|label| !label.is_empty())
                .unwrap_or_else(|| id.clone());
            let _ = writeln!(
                out,
                "- {arrow} {other} [{}]({})",
                inline(&label).replace(['[', ']'], ""),
                offers.uris[position].uri(&id)
            );
        }
    }
    out
}

/// A `| field | value |` table under `## {title}`, when it has rows.
fn table(out: &mut String, title: &str, rows: &[(&str, &Value)]) {
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n## {title}\n\n| field | value |\n|---|---|");
    for (field, value) in rows {
        let _ = writeln!(out, "| {} | {} |", cell(field), cell(&scalar(value)));
    }
}

/// A value as text: strings as they are, `null` as nothing, anything else as JSON.
fn scalar(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Text on one line.
fn inline(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text for a table cell: one line, `|` escaped, at most [`CELL_CHARS`] characters.
fn cell(text: &str) -> String {
    let line = inline(text).replace('|', "\\|");
    match line.char_indices().nth(CELL_CHARS) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_stay_on_one_line_and_in_their_column() {
        assert_eq!(cell("a | b\nc"), "a \\| b c");
        let long = "é".repeat(CELL_CHARS + 5);
        assert_eq!(cell(&long).chars().count(), CELL_CHARS + 1);
    }
}
