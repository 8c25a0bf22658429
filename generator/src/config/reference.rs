//! [`config_reference`]: the config reference, a Markdown page (for mdBook) rendered from the
//! JSON Schema of the config format ([`super::json_schema`]), and the Markdown helpers it
//! shares with the CLI's tool reference ([`type_text`], [`cell`], [`anchor`], [`yaml_flow`],
//! [`yaml_block`]).
//!
//! The page has one section per object of the schema: the top level, then each definition of
//! `$defs` in the order the top level reaches it (depth first, following `$ref`s key by key),
//! then any definition nothing reaches. An object's section is its description, where it is
//! used, a table `| key | type | default | description |` and its examples (the schema's
//! `examples`) as YAML; an enumeration's section is a table of its values. Everything follows
//! from the schema value: the same schema gives the same page, byte for byte.
//!
//! ```
//! use serde_json::json;
//! use toolforge_generator::__private::config::reference::config_reference;
//!
//! let schema = json!({
//!     "title": "demo",
//!     "type": "object",
//!     "properties": {
//!         "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}, "description": "The items."}
//!     },
//!     "$defs": {
//!         "Item": {
//!             "type": "object",
//!             "properties": {"name": {"type": "string", "description": "Its name."}},
//!             "required": ["name"],
//!             "examples": [{"name": "first"}]
//!         }
//!     }
//! });
//! let page = config_reference(&schema);
//! assert!(page.contains("| `items` | array of [Item](#item) | — | The items. |"));
//! assert!(page.contains("| `name` | string | **required** | Its name. |"));
//! assert!(page.contains("```yaml\nname: first\n```"));
//! ```

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::{Map, Value};

/// The heading of the top level's section.
const TOP_LEVEL: &str = "Top level";

/// What a key without a default or requirement shows in the default column.
const NO_DEFAULT: &str = "—";

/// The config reference page for `schema` (the JSON Schema of the config format): Markdown,
/// starting with its `# Config reference` heading, ending with a newline.
pub fn config_reference(schema: &Value) -> String {
    let mut reference = Reference {
        defs: schema.get("$defs").and_then(Value::as_object),
        order: Vec::new(),
        used_in: HashMap::new(),
    };
    reference.walk(TOP_LEVEL, schema);
    if let Some(defs) = reference.defs {
        for (name, def) in defs {
            if !reference.order.contains(&name.as_str()) {
                reference.order.push(name);
                reference.walk(name, def);
            }
        }
    }
    reference.render(schema)
}

/// The sections of the page and where each definition is used.
struct Reference<'a> {
    /// The schema's `$defs`.
    defs: Option<&'a Map<String, Value>>,
    /// The definitions, in the order of their sections.
    order: Vec<&'a str>,
    /// Per definition: the sections and keys that refer to it, in page order.
    used_in: HashMap<&'a str, Vec<(&'a str, &'a str)>>,
}

impl<'a> Reference<'a> {
    /// The definition `name` of `$defs`.
    fn def(&self, name: &str) -> Option<&'a Value> {
        self.defs.and_then(|defs| defs.get(name))
    }

    /// Records the definitions the keys of `object` (the schema of section `section`) refer
    /// to, and walks each one the first time it is met.
    fn walk(&mut self, section: &'a str, object: &'a Value) {
        for (key, property) in properties(object) {
            let mut names = Vec::new();
            collect_refs(property, &mut names);
            for name in names {
                let uses = self.used_in.entry(name).or_default();
                if !uses.contains(&(section, key)) {
                    uses.push((section, key));
                }
                if let Some(def) = self.def(name)
                    && !self.order.contains(&name)
                {
                    self.order.push(name);
                    self.walk(name, def);
                }
            }
        }
    }

    /// The whole page.
    fn render(&self, schema: &Value) -> String {
        let mut page = String::from("# Config reference\n\n");
        let title = schema
            .get("title")
            .and_then(Value::as_str)
            .unwrap_or("the config");
        let _ = write!(
            page,
            "Every key of `ragforge.config.yaml` ({title}), from the JSON Schema of the format \
             (`toolforge schema` prints it; this page is `toolforge schema --format markdown`). \
             A key marked **required** must be given; any other may be left out, and its \
             default is the value toolforge then uses (—: none, or one that depends on other \
             keys, as its description says).\n\n"
        );
        page.push_str("Sections: ");
        let sections: Vec<String> = std::iter::once(TOP_LEVEL)
            .chain(self.order.iter().copied())
            .map(|name| format!("[{name}](#{})", anchor(name)))
            .collect();
        page.push_str(&sections.join(", "));
        page.push_str(".\n");
        self.section(&mut page, TOP_LEVEL, schema);
        for name in &self.order {
            if let Some(def) = self.def(name) {
                self.section(&mut page, name, def);
            }
        }
        page
    }

    /// One section: heading, description, uses, then the keys or values and the examples.
    fn section(&self, page: &mut String, name: &str, schema: &Value) {
        let _ = write!(page, "\n## {name}\n\n");
        if let Some(description) = schema.get("description").and_then(Value::as_str) {
            page.push_str(&self.doc_links(description.trim()));
            page.push_str("\n\n");
        }
        if let Some(uses) = self.used_in.get(name) {
            // the keys of one section together: [Entity](#entity) `vector_index`, `vector_indexes`
            let mut groups: Vec<(&str, Vec<String>)> = Vec::new();
            for (section, key) in uses {
                match groups.last_mut() {
                    Some((last, keys)) if last == section => keys.push(format!("`{key}`")),
                    _ => groups.push((section, vec![format!("`{key}`")])),
                }
            }
            let uses: Vec<String> = groups
                .iter()
                .map(|(section, keys)| {
                    format!("[{section}](#{}) {}", anchor(section), keys.join(", "))
                })
                .collect();
            let _ = write!(page, "Used in: {}.\n\n", uses.join("; "));
        }
        if let Some(values) = enum_values(schema) {
            page.push_str("| value | description |\n| --- | --- |\n");
            for (value, description) in values {
                let _ = writeln!(
                    page,
                    "| `{}` | {} |",
                    cell(&as_written(value)),
                    self.cell_text(description.unwrap_or(""))
                );
            }
        } else if schema.get("properties").is_some() {
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|names| names.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            page.push_str("| key | type | default | description |\n| --- | --- | --- | --- |\n");
            for (key, property) in properties(schema) {
                let default = if required.contains(&key) {
                    "**required**".to_owned()
                } else {
                    match property.get("default") {
                        Some(value) => format!("`{}`", cell(&yaml_flow(value))),
                        None => NO_DEFAULT.to_owned(),
                    }
                };
                let mut description = self.cell_text(
                    property
                        .get("description")
                        .and_then(Value::as_str)
                        .unwrap_or(""),
                );
                if let Some(examples) = property.get("examples").and_then(Value::as_array) {
                    let examples: Vec<String> = examples
                        .iter()
                        .map(|example| format!("`{}`", cell(&yaml_flow(example))))
                        .collect();
                    if !examples.is_empty() {
                        let trimmed = description.trim_end();
                        if !trimmed.is_empty() && !trimmed.ends_with('.') {
                            description = format!("{trimmed}.");
                        }
                        let label = if examples.len() == 1 {
                            "Example"
                        } else {
                            "Examples"
                        };
                        let _ = write!(description, " {label}: {}.", examples.join(", "));
                    }
                }
                let _ = writeln!(
                    page,
                    "| `{key}` | {} | {default} | {} |",
                    cell(&self.type_text(property)),
                    description.trim()
                );
            }
        } else {
            let _ = writeln!(page, "Type: {}.", self.type_text(schema));
        }
        let examples = schema
            .get("examples")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for (i, example) in examples.iter().enumerate() {
            let label = match (examples.len(), i) {
                (1, _) => "Example".to_owned(),
                (_, i) => format!("Example {}", i + 1),
            };
            let _ = write!(page, "\n{label}:\n\n```yaml\n{}```\n", yaml_block(example));
        }
    }

    /// The readable type of `schema`, with definitions linked to their sections.
    fn type_text(&self, schema: &Value) -> String {
        type_text_with(schema, &|name| {
            let anchor = anchor(name);
            match self.def(name).and_then(enum_values) {
                Some(values) => format!("{} ([{name}](#{anchor}))", one_of(&values)),
                None if self.def(name).is_some() => format!("[{name}](#{anchor})"),
                None => name.to_owned(),
            }
        })
    }

    /// `text` (Markdown) for a table cell, with rustdoc links to definitions made links to
    /// their sections.
    fn cell_text(&self, text: &str) -> String {
        cell(&self.doc_links(&without_code_blocks(text)))
    }

    /// `text` with rustdoc's intra-doc links (`` [`Name`] ``) made links to the sections of
    /// the definitions they name, and plain code otherwise.
    fn doc_links(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("[`") {
            let after = &rest[start + 2..];
            let Some(end) = after.find("`]") else { break };
            let name = &after[..end];
            let tail = &after[end + 2..];
            out.push_str(&rest[..start]);
            let is_link = tail.starts_with('(') || tail.starts_with('[');
            if is_link || name.contains('`') {
                out.push_str("[`");
                rest = after;
                continue;
            }
            // `Name` or `Name::member` of a definition links to its section
            let def = name.split("::").next().unwrap_or(name);
            match self.def(def) {
                Some(_) => {
                    let _ = write!(out, "[`{name}`](#{})", anchor(def));
                }
                None => {
                    let _ = write!(out, "`{name}`");
                }
            }
            rest = tail;
        }
        out.push_str(rest);
        out
    }
}

/// The properties of an object schema, in schema order.
fn properties(schema: &Value) -> impl Iterator<Item = (&str, &Value)> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(key, value)| (key.as_str(), value))
}

/// The definitions `schema` refers to (`#/$defs/NAME`), in order, looking into its variants,
/// items, map values and nested properties.
fn collect_refs<'a>(schema: &'a Value, names: &mut Vec<&'a str>) {
    if let Some(name) = ref_name(schema)
        && !names.contains(&name)
    {
        names.push(name);
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        for variant in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            collect_refs(variant, names);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(inner) = schema.get(key).filter(|inner| inner.is_object()) {
            collect_refs(inner, names);
        }
    }
    for (_, property) in properties(schema) {
        collect_refs(property, names);
    }
}

/// The definition a `$ref` names (`#/$defs/NAME` or `#/definitions/NAME`).
fn ref_name(schema: &Value) -> Option<&str> {
    let reference = schema.get("$ref")?.as_str()?;
    reference
        .strip_prefix("#/$defs/")
        .or_else(|| reference.strip_prefix("#/definitions/"))
}

/// The values of an enumeration (`enum`, or a `oneOf` of `const`s with their descriptions),
/// `null` left out; `None` for any other schema.
fn enum_values(schema: &Value) -> Option<Vec<(&Value, Option<&str>)>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Some(
            values
                .iter()
                .filter(|value| !value.is_null())
                .map(|value| (value, None))
                .collect(),
        );
    }
    let variants = schema.get("oneOf").and_then(Value::as_array)?;
    let values: Option<Vec<_>> = variants
        .iter()
        .map(|variant| {
            let value = variant.get("const")?;
            Some((value, variant.get("description").and_then(Value::as_str)))
        })
        .collect();
    values.filter(|values| !values.is_empty())
}

/// A value of an enumeration: a string as it is, anything else as YAML.
fn as_written(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => yaml_flow(other),
    }
}

/// `one of: `a`, `b`` (strings as written, other values as YAML).
fn one_of(values: &[(&Value, Option<&str>)]) -> String {
    let values: Vec<String> = values
        .iter()
        .map(|(value, _)| format!("`{}`", as_written(value)))
        .collect();
    format!("one of: {}", values.join(", "))
}

/// The readable type of a JSON Schema: `string`, `integer`, `array of string`, `map of
/// number`, `one of: `a`, `b``, `string or number`, `any`; `null` is left out (an optional
/// key may be left out anyway). Definitions (`$ref`) are named by `name_ref`.
///
/// ```
/// use serde_json::json;
/// use toolforge_generator::__private::config::reference::type_text;
///
/// assert_eq!(type_text(&json!({"type": ["integer", "null"]})), "integer");
/// assert_eq!(type_text(&json!({"type": "array", "items": {"type": "string"}})), "array of string");
/// assert_eq!(type_text(&json!({"type": "string", "enum": ["ASC", "DESC"]})), "one of: `ASC`, `DESC`");
/// assert_eq!(type_text(&json!({"type": ["string", "number"]})), "string or number");
/// assert_eq!(type_text(&json!({})), "any");
/// assert_eq!(
///     type_text(&json!({"type": ["string", "array"], "items": {"type": ["string", "number"]}})),
///     "string or array of (string or number)"
/// );
/// ```
pub fn type_text(schema: &Value) -> String {
    type_text_with(schema, &|name| name.to_owned())
}

/// [`type_text`], naming each definition with `name_ref`.
fn type_text_with(schema: &Value, name_ref: &dyn Fn(&str) -> String) -> String {
    if let Some(name) = ref_name(schema) {
        return name_ref(name);
    }
    if let Some(values) = enum_values(schema) {
        return one_of(&values);
    }
    if let Some(value) = schema.get("const") {
        return format!("`{}`", yaml_flow(value));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(variants) = schema.get(key).and_then(Value::as_array) {
            let mut texts: Vec<String> = Vec::new();
            for variant in variants {
                if variant.get("type").and_then(Value::as_str) == Some("null") {
                    continue;
                }
                let text = type_text_with(variant, name_ref);
                if !texts.contains(&text) {
                    texts.push(text);
                }
            }
            if !texts.is_empty() {
                return texts.join(" or ");
            }
        }
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let texts: Vec<String> = types
        .into_iter()
        .filter(|name| *name != "null")
        .map(|name| match name {
            "array" => match schema.get("items").filter(|items| items.is_object()) {
                Some(items) => format!("array of {}", grouped(type_text_with(items, name_ref))),
                None => "array".to_owned(),
            },
            "object" => match schema
                .get("additionalProperties")
                .filter(|values| values.is_object())
            {
                Some(values) => format!("map of {}", grouped(type_text_with(values, name_ref))),
                None => "object".to_owned(),
            },
            other => other.to_owned(),
        })
        .collect();
    if texts.is_empty() {
        "any".to_owned()
    } else {
        texts.join(" or ")
    }
}

/// `text` in parentheses when it is a choice (`a or b`), so that `array of` applies to all.
fn grouped(text: String) -> String {
    if text.contains(" or ") {
        format!("({text})")
    } else {
        text
    }
}

/// The id mdBook gives a heading with this text: lowercase letters, digits, `_` and `-`, a
/// space becoming `-` and anything else dropped.
///
/// ```
/// use toolforge_generator::__private::config::reference::anchor;
/// assert_eq!(anchor("Top level"), "top-level");
/// assert_eq!(anchor("`query_entities`"), "query_entities");
/// ```
pub fn anchor(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// Markdown text made fit for one table cell: one line, `|` escaped (also inside code spans,
/// as GitHub-flavoured tables want), and `<` outside code spans written `&lt;` so that it is
/// never read as HTML.
///
/// ```
/// use toolforge_generator::__private::config::reference::cell;
/// assert_eq!(cell("a | b\n<c> `<d>`"), "a \\| b &lt;c> `<d>`");
/// ```
pub fn cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    for (i, line) in text.lines().map(str::trim).enumerate() {
        if i > 0 && !line.is_empty() {
            out.push(' ');
        }
        for c in line.chars() {
            match c {
                '`' => {
                    in_code = !in_code;
                    out.push(c);
                }
                '|' => out.push_str("\\|"),
                '<' if !in_code => out.push_str("&lt;"),
                _ => out.push(c),
            }
        }
    }
    out
}

/// `text` without its fenced code blocks (a table cell cannot hold one).
fn without_code_blocks(text: &str) -> String {
    let mut out = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
        } else if !in_block {
            out.push(line);
        }
    }
    out.join("\n")
}

/// A JSON value as one line of YAML (flow style): strings plain when YAML reads them back as
/// the same string, double-quoted otherwise; arrays `[a, b]`, maps `{k: v}`.
///
/// ```
/// use serde_json::json;
/// use toolforge_generator::__private::config::reference::yaml_flow;
/// assert_eq!(yaml_flow(&json!(["schema", "query"])), "[schema, query]");
/// assert_eq!(yaml_flow(&json!({"name": "id", "type": "string"})), "{name: id, type: string}");
/// assert_eq!(yaml_flow(&json!("true")), "\"true\"");
/// assert_eq!(yaml_flow(&json!("a: b")), "\"a: b\"");
/// ```
pub fn yaml_flow(value: &Value) -> String {
    match value {
        Value::String(text) => yaml_string(text),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(yaml_flow).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) => {
            let entries: Vec<String> = map
                .iter()
                .map(|(key, value)| format!("{}: {}", yaml_string(key), yaml_flow(value)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
        other => other.to_string(),
    }
}

/// A JSON value as a YAML document (block style, two-space indents, each line ending with a
/// newline): maps one key a line, lists of scalars and small maps of scalars as list items
/// in flow style.
///
/// ```
/// use serde_json::json;
/// use toolforge_generator::__private::config::reference::yaml_block;
/// let value = json!({"name": "Book", "fields": [{"name": "isbn", "type": "string"}], "tags": ["a"]});
/// assert_eq!(
///     yaml_block(&value),
///     "name: Book\nfields:\n  - {name: isbn, type: string}\ntags: [a]\n"
/// );
/// ```
pub fn yaml_block(value: &Value) -> String {
    let mut lines = Vec::new();
    block_lines(value, &mut lines);
    let mut out = String::new();
    for line in lines {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The longest line of flow YAML written inside a block.
const FLOW_WIDTH: usize = 72;

/// Whether `value` is written in flow style as a list item or a list value: a scalar, a short
/// list of scalars, or a short map of scalars and lists of scalars.
fn is_flow(value: &Value) -> bool {
    let flat = |value: &Value| match value {
        Value::Array(items) => items
            .iter()
            .all(|item| !item.is_array() && !item.is_object()),
        Value::Object(_) => false,
        _ => true,
    };
    match value {
        Value::Array(items) => items.iter().all(flat) && yaml_flow(value).len() <= FLOW_WIDTH,
        Value::Object(map) => {
            map.is_empty() || (map.values().all(flat) && yaml_flow(value).len() <= FLOW_WIDTH)
        }
        _ => true,
    }
}

/// The lines of `value` in block style, unindented.
fn block_lines(value: &Value, lines: &mut Vec<String>) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, value) in map {
                let key = yaml_string(key);
                let block = match value {
                    Value::Object(map) => !map.is_empty(),
                    Value::Array(items) => !items.is_empty() && !is_flow(value),
                    _ => false,
                };
                if block {
                    lines.push(format!("{key}:"));
                    let mut inner = Vec::new();
                    block_lines(value, &mut inner);
                    lines.extend(inner.into_iter().map(|line| format!("  {line}")));
                } else {
                    lines.push(format!("{key}: {}", yaml_flow(value)));
                }
            }
        }
        Value::Array(items) if !items.is_empty() && !is_flow(value) => {
            for item in items {
                if is_flow(item) {
                    lines.push(format!("- {}", yaml_flow(item)));
                } else {
                    let mut inner = Vec::new();
                    block_lines(item, &mut inner);
                    for (i, line) in inner.into_iter().enumerate() {
                        let prefix = if i == 0 { "- " } else { "  " };
                        lines.push(format!("{prefix}{line}"));
                    }
                }
            }
        }
        other => lines.push(yaml_flow(other)),
    }
}

/// A string as a YAML scalar: plain when YAML (1.1 and 1.2, block or flow) reads it back as
/// this string, otherwise double-quoted (JSON's escapes are YAML's).
fn yaml_string(text: &str) -> String {
    if is_plain(text) {
        text.to_owned()
    } else {
        Value::String(text.to_owned()).to_string()
    }
}

/// Whether `text` can be written as a plain YAML scalar.
fn is_plain(text: &str) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    let reserved = [
        "true", "false", "null", "yes", "no", "on", "off", "y", "n", "~",
    ];
    !reserved.contains(&text.to_ascii_lowercase().as_str())
        && !"-?:,[]{}#&*!|>'\"%@` ".contains(first)
        && !text.ends_with(' ')
        && !text.ends_with(':')
        && !text.contains(": ")
        && !text.contains(" #")
        && !text.chars().any(|c| c.is_control() || ",[]{}".contains(c))
        && !looks_numeric(text)
}

/// Whether YAML could read `text` as a number (or a date).
fn looks_numeric(text: &str) -> bool {
    let body = text.trim_start_matches(['+', '-']);
    text.parse::<f64>().is_ok()
        || body.starts_with(|c: char| c.is_ascii_digit())
            && body
                .chars()
                .all(|c| c.is_ascii_hexdigit() || "._:xXoObB-+eE".contains(c))
        || [".inf", ".nan"].contains(&body.to_ascii_lowercase().as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A small schema with every kind of section: objects with required keys, defaults and
    /// examples, an enumeration with described values, a map, a nullable reference and a
    /// definition nothing refers to.
    fn small_schema() -> Value {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "demo config",
            "description": "A whole demo file.",
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The name."},
                "shelves": {
                    "type": "array",
                    "items": {"$ref": "#/$defs/Shelf"},
                    "description": "The shelves | all of them.",
                    "default": []
                },
                "options": {
                    "anyOf": [{"$ref": "#/$defs/Options"}, {"type": "null"}],
                    "description": "Options (see [`Options`], [`Shelf::name`] and [`Other`])."
                },
                "anything": {"description": "Kept as written."}
            },
            "required": ["name"],
            "examples": [{"name": "demo", "shelves": [{"name": "a", "order": "asc"}]}],
            "$defs": {
                "Shelf": {
                    "type": "object",
                    "description": "One shelf.\n\n```yaml\nname: a\n```",
                    "properties": {
                        "name": {"type": "string", "description": "Its name,\non two lines."},
                        "order": {
                            "$ref": "#/$defs/Order",
                            "description": "The order.",
                            "default": "asc"
                        },
                        "size": {
                            "type": ["integer", "null"],
                            "format": "uint32",
                            "minimum": 0,
                            "examples": [12]
                        }
                    },
                    "required": ["name"]
                },
                "Order": {
                    "oneOf": [
                        {"type": "string", "const": "asc", "description": "Smallest `<first>`."},
                        {"type": "string", "const": "desc", "description": "Largest first."}
                    ],
                    "description": "How books are ordered."
                },
                "Options": {
                    "type": "object",
                    "properties": {
                        "labels": {
                            "type": ["object", "null"],
                            "additionalProperties": {"type": "array", "items": {"type": "string"}},
                            "description": "Labels per shelf."
                        },
                        "mode": {"type": ["string", "null"], "enum": ["fast", "exact"], "default": "exact"},
                        "ratio": {"type": ["number", "string"]}
                    },
                    "examples": [{"labels": {"a": ["x", "z"]}}, {"mode": "fast"}]
                },
                "Orphan": {"type": "string", "description": "Reached by nothing."}
            }
        })
    }

    #[test]
    fn renders_one_section_per_object_in_reach_order() {
        let page = config_reference(&small_schema());
        let headings: Vec<&str> = page
            .lines()
            .filter_map(|line| line.strip_prefix("## "))
            .collect();
        assert_eq!(
            headings,
            ["Top level", "Shelf", "Order", "Options", "Orphan"]
        );
        assert!(page.starts_with(
            "# Config reference\n\nEvery key of `ragforge.config.yaml` (demo config)"
        ));
        assert!(page.contains(
            "Sections: [Top level](#top-level), [Shelf](#shelf), [Order](#order), [Options](#options), [Orphan](#orphan).\n"
        ));
        assert!(page.ends_with("```\n") || page.ends_with(".\n"), "{page}");
    }

    #[test]
    fn tables_give_types_defaults_and_descriptions() {
        let page = config_reference(&small_schema());
        for row in [
            "| key | type | default | description |",
            "| `name` | string | **required** | The name. |",
            "| `shelves` | array of [Shelf](#shelf) | `[]` | The shelves \\| all of them. |",
            "| `options` | [Options](#options) | — | Options (see [`Options`](#options), [`Shelf::name`](#shelf) and `Other`). |",
            "| `anything` | any | — | Kept as written. |",
            "| `name` | string | **required** | Its name, on two lines. |",
            "| `order` | one of: `asc`, `desc` ([Order](#order)) | `asc` | The order. |",
            "| `size` | integer | — | Example: `12`. |",
            "| `labels` | map of array of string | — | Labels per shelf. |",
            "| `mode` | one of: `fast`, `exact` | `exact` |  |",
            "| `ratio` | number or string | — |  |",
            "| `asc` | Smallest `<first>`. |",
            "| `desc` | Largest first. |",
        ] {
            assert!(
                page.lines().any(|line| line == row),
                "no row {row:?} in:\n{page}"
            );
        }
        assert!(page.contains("Type: string.\n"), "{page}");
    }

    #[test]
    fn sections_say_where_they_are_used_and_show_examples() {
        let page = config_reference(&small_schema());
        assert!(page.contains("Used in: [Top level](#top-level) `shelves`.\n"));
        assert!(page.contains("Used in: [Shelf](#shelf) `order`.\n"));
        // the description keeps its own code block
        assert!(page.contains("One shelf.\n\n```yaml\nname: a\n```\n\nUsed in:"));
        assert!(page.contains(
            "Example:\n\n```yaml\nname: demo\nshelves:\n  - {name: a, order: asc}\n```\n"
        ));
        assert!(
            page.contains("Example 1:\n\n```yaml\nlabels:\n  a: [x, z]\n```\n"),
            "{page}"
        );
        assert!(page.contains("Example 2:\n\n```yaml\nmode: fast\n```\n"));
    }

    #[test]
    fn the_same_schema_gives_the_same_page() {
        assert_eq!(
            config_reference(&small_schema()),
            config_reference(&small_schema())
        );
    }

    #[test]
    fn a_schema_without_definitions_or_properties_still_renders() {
        let page = config_reference(&json!({"type": "object", "properties": {
            "x": {"$ref": "#/$defs/Missing"}
        }}));
        assert!(page.contains("| `x` | Missing | — |  |"), "{page}");
        let page = config_reference(&json!(true));
        assert!(page.contains("## Top level"), "{page}");
    }

    #[test]
    fn yaml_scalars_are_plain_only_when_read_back_the_same() {
        let plain = [
            "uuid",
            "code_",
            "text/plain",
            "7 days ago",
            "a:b",
            "library://guide",
            "joined_at DESC",
        ];
        for text in plain {
            assert_eq!(yaml_string(text), text);
            // read back the same in block and in flow context
            let back: Value = serde_yaml::from_str(&format!("k: {text}")).unwrap();
            assert_eq!(back["k"], text);
            let back: Value = serde_yaml::from_str(&format!("[{{k: {text}}}, {text}]")).unwrap();
            assert_eq!(back, json!([{"k": text}, text]));
        }
        for quoted in [
            "",
            "yes",
            "No",
            "null",
            "12",
            "1.5",
            "0x1f",
            "-3",
            "1e3",
            "2024-01-01",
            " lead",
            "a: b",
            "x #y",
            "- item",
            "*star",
            "{id}",
            "a,b",
            "line\nbreak",
            "ends:",
            "^m[0-9]+$",
            "1.0.0",
        ] {
            let written = yaml_string(quoted);
            assert!(written.starts_with('"'), "{quoted:?} written {written}");
            let back: Value = serde_yaml::from_str(&written).unwrap();
            assert_eq!(back, Value::String(quoted.to_owned()));
        }
    }

    #[test]
    fn yaml_blocks_read_back_as_the_value() {
        let value = json!({
            "name": "library",
            "entities": [
                {"name": "Book", "searchable_fields": [{"name": "isbn", "type": "string"}],
                 "relationships": [{"type": "WRITTEN_BY", "target": "Author", "properties": [
                     {"name": "since", "type": "datetime"}]}]},
            ],
            "toolforge": {"tools": ["schema", "query"], "toolsets": {"a": ["x"]}, "empty": {}, "none": []},
            "text": "# The library\n...",
            "number": 2.5,
            "flag": true,
        });
        let text = yaml_block(&value);
        let back: Value = serde_yaml::from_str(&text).unwrap();
        assert_eq!(back, value, "{text}");
        assert!(text.contains("- {name: since, type: datetime}\n"), "{text}");
        assert!(text.contains("\ntoolforge:\n  tools: [schema, query]\n  toolsets:\n    a: [x]\n  empty: {}\n  none: []\n"), "{text}");
    }

    #[test]
    fn cells_are_one_line_and_never_html() {
        assert_eq!(cell("one\ntwo\n\nthree"), "one two three");
        assert_eq!(cell("`a|b` <b>"), "`a\\|b` &lt;b>");
        assert_eq!(without_code_blocks("a\n```yaml\nx: 1\n```\nb"), "a\nb");
    }
}
