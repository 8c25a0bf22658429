//! The diagram in Graphviz's DOT language: one table per entity (HTML-like labels), one
//! labelled arrow per relationship from its source to its target. `dot -Tsvg` or `dot -Tpng`
//! draws it; `toolforge schema --format svg` draws the same diagram without Graphviz.

use std::fmt::Write;

use super::model::{Diagram, shorten};

/// The header colour of entity tables (the SVG rendering uses the same).
pub(super) const HEADER_FILL: &str = "#dbe7f7";
/// The colour of computed fields' lines.
pub(super) const COMPUTED_COLOUR: &str = "#555555";

/// The diagram as a DOT `digraph`.
pub fn to_dot(diagram: &Diagram) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quoted(&diagram.name));
    out.push_str("    graph [rankdir=LR, fontname=\"Helvetica\", nodesep=0.5, ranksep=1.0];\n");
    out.push_str("    node [shape=plain, fontname=\"Helvetica\", fontsize=11];\n");
    out.push_str("    edge [fontname=\"Helvetica\", fontsize=10];\n");
    for entity in &diagram.entities {
        let _ = writeln!(out, "    {} [label=<", quoted(&entity.name));
        out.push_str(
            "        <table border=\"1\" cellborder=\"0\" cellspacing=\"0\" cellpadding=\"3\">\n",
        );
        let _ = writeln!(
            out,
            "        <tr><td bgcolor=\"{HEADER_FILL}\"><b>{}</b></td></tr>",
            html(&entity.name)
        );
        for field in &entity.fields {
            let markers: Vec<&str> = field.markers.iter().map(|m| m.label()).collect();
            let markers = if markers.is_empty() {
                String::new()
            } else {
                format!(" [{}]", markers.join(", "))
            };
            let _ = writeln!(
                out,
                "        <tr><td align=\"left\">{}: {}{}</td></tr>",
                html(&field.name),
                html(&field.type_text()),
                html(&markers)
            );
        }
        for field in &entity.computed {
            let _ = writeln!(
                out,
                "        <tr><td align=\"left\"><font color=\"{COMPUTED_COLOUR}\"><i>{}: {} = {}</i></font></td></tr>",
                html(&field.name),
                field.ty,
                html(&shorten(&field.source, 60))
            );
        }
        out.push_str("        </table>>];\n");
    }
    for edge in &diagram.edges {
        let _ = writeln!(
            out,
            "    {} -> {} [label={}];",
            quoted(&edge.source),
            quoted(&edge.target),
            quoted(&edge.label())
        );
    }
    out.push_str("}\n");
    out
}

/// A DOT double-quoted string.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Text inside an HTML-like label (and, through [`super::svg`], SVG text).
pub(super) fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}
