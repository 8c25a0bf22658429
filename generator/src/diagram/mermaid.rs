//! The diagram as a Mermaid `erDiagram`, for Markdown documentation (GitHub, GitLab and most
//! documentation sites render it).
//!
//! Mermaid's ER syntax has no arrows: each relationship is written source first, with its type
//! as the label, and the cardinality "zero or more on both sides" (the config does not say more).
//! Attribute names and types keep to Mermaid's characters (`array<string>` is written
//! `string[]`); comments carry the markers, enum values and computed expressions.

use std::fmt::Write;

use super::model::{Diagram, Marker, one_line, shorten};

/// The diagram in Mermaid's `erDiagram` syntax.
pub fn to_mermaid(diagram: &Diagram) -> String {
    let mut out = String::new();
    // YAML front matter: the title double-quoted, without a quote or an escape in it.
    let title = comment(&diagram.name).replace('\\', "/");
    let _ = writeln!(out, "---\ntitle: \"{title}\"\n---");
    out.push_str("erDiagram\n");
    for entity in &diagram.entities {
        let _ = writeln!(out, "    {} {{", entity_name(&entity.name));
        for field in &entity.fields {
            let key = if field.markers.contains(&Marker::Unique) {
                " PK"
            } else {
                ""
            };
            let mut notes: Vec<String> = field
                .markers
                .iter()
                .filter(|m| **m != Marker::Unique)
                .map(|m| m.label().to_owned())
                .collect();
            if !field.values.is_empty() {
                notes.push(format!("values: {}", field.values.join(", ")));
            }
            let _ = write!(
                out,
                "        {} {}{key}",
                attribute_type(field.ty),
                attribute_name(&field.name)
            );
            if !notes.is_empty() {
                let _ = write!(out, " \"{}\"", comment(&notes.join("; ")));
            }
            out.push('\n');
        }
        for field in &entity.computed {
            let what = if field.materialized {
                "computed, materialized"
            } else {
                "computed"
            };
            let _ = writeln!(
                out,
                "        {} {} \"{}\"",
                attribute_type(field.ty),
                attribute_name(&field.name),
                comment(&format!("{what}: {}", shorten(&field.source, 120)))
            );
        }
        out.push_str("    }\n");
    }
    for edge in &diagram.edges {
        let _ = writeln!(
            out,
            "    {} }}o--o{{ {} : \"{}\"",
            entity_name(&edge.source),
            entity_name(&edge.target),
            comment(&edge.label())
        );
    }
    out
}

/// Whether Mermaid reads `name` as a bare word.
fn is_word(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// An entity name: bare when Mermaid reads it so, quoted otherwise.
fn entity_name(name: &str) -> String {
    if is_word(name) {
        name.to_owned()
    } else {
        format!("\"{}\"", comment(name))
    }
}

/// An attribute name in Mermaid's characters: others become `_`, and a leading digit gets one.
fn attribute_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        out.insert(0, '_');
    }
    out
}

/// A field type in Mermaid's characters (`array<string>` → `string[]`).
fn attribute_type(ty: &str) -> String {
    match ty.strip_prefix("array<").and_then(|t| t.strip_suffix('>')) {
        Some(item) => format!("{item}[]"),
        None => ty.to_owned(),
    }
}

/// Text inside double quotes: on one line, with no double quote (Mermaid has no escape).
fn comment(text: &str) -> String {
    one_line(text).replace('"', "'")
}
