//! Reading a config: the one module that uses `serde_yaml`.
//!
//! The text is deserialized into [`Config`] through `serde_path_to_error` (type errors carry
//! the config path) and `serde_ignored` (unknown keys become warnings naming the nearest known
//! key, found in the JSON Schema of the format). Positions come from the [`SpanIndex`] built
//! from the same text.

use std::sync::OnceLock;

use serde::Deserialize;

use super::model::Config;
use super::spans::{At, MAX_DEPTH};
use crate::diagnostics::Severity;
use crate::report::{Reporter, suggestion};

/// One step of a config path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Key(String),
    Index(usize),
}

fn format_path(segments: &[Segment]) -> String {
    let mut out = String::new();
    for segment in segments {
        match segment {
            Segment::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Segment::Index(index) => {
                out.push('[');
                out.push_str(&index.to_string());
                out.push(']');
            }
        }
    }
    out
}

fn ignored_segments(path: &serde_ignored::Path<'_>, out: &mut Vec<Segment>) {
    use serde_ignored::Path;
    match path {
        Path::Root => {}
        Path::Seq { parent, index } => {
            ignored_segments(parent, out);
            out.push(Segment::Index(*index));
        }
        Path::Map { parent, key } => {
            ignored_segments(parent, out);
            out.push(Segment::Key(key.clone()));
        }
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => ignored_segments(parent, out),
    }
}

fn error_segments(path: &serde_path_to_error::Path) -> Vec<Segment> {
    use serde_path_to_error::Segment as S;
    path.iter()
        .filter_map(|segment| match segment {
            S::Seq { index } => Some(Segment::Index(*index)),
            S::Map { key } => Some(Segment::Key(key.clone())),
            S::Enum { .. } | S::Unknown => None,
        })
        .collect()
}

/// serde_yaml's message without its own ` at line L column C` suffix and path prefix.
fn clean_message(message: &str) -> String {
    let mut text = message;
    if let Some(cut) = text.rfind(" at line ") {
        let rest = &text[cut + " at line ".len()..];
        if rest
            .split(" column ")
            .all(|part| part.chars().all(|c| c.is_ascii_digit()))
        {
            text = &text[..cut];
        }
    }
    if let Some((prefix, rest)) = text.split_once(": ")
        && !prefix.contains(char::is_whitespace)
        && !prefix.is_empty()
    {
        text = rest;
    }
    text.to_owned()
}

fn schema() -> &'static serde_json::Value {
    static SCHEMA: OnceLock<serde_json::Value> = OnceLock::new();
    SCHEMA.get_or_init(super::schema::json_schema)
}

/// Resolves `$ref`s and `anyOf`/`oneOf` wrappers (from `Option`) to the object or array schema.
fn resolve<'s>(
    root: &'s serde_json::Value,
    mut node: &'s serde_json::Value,
) -> &'s serde_json::Value {
    for _ in 0..16 {
        if let Some(reference) = node.get("$ref").and_then(|r| r.as_str()) {
            let name = reference.rsplit('/').next().unwrap_or("");
            match root.get("$defs").and_then(|defs| defs.get(name)) {
                Some(target) => node = target,
                None => return node,
            }
            continue;
        }
        let variants = node.get("anyOf").or_else(|| node.get("oneOf"));
        if let Some(variants) = variants.and_then(|v| v.as_array())
            && let Some(variant) = variants
                .iter()
                .find(|v| v.get("type").and_then(|t| t.as_str()) != Some("null"))
        {
            node = variant;
            continue;
        }
        return node;
    }
    node
}

/// The keys the format allows in the mapping at `segments`.
fn known_keys(segments: &[Segment]) -> Vec<&'static str> {
    let root = schema();
    let mut node = root;
    for segment in segments {
        node = resolve(root, node);
        let next = match segment {
            // A map's values (`parameters: {name: ...}`) follow `additionalProperties`.
            Segment::Key(key) => node
                .get("properties")
                .and_then(|p| p.get(key))
                .or_else(|| node.get("additionalProperties").filter(|a| a.is_object())),
            Segment::Index(_) => node.get("items"),
        };
        match next {
            Some(next) => node = next,
            None => return Vec::new(),
        }
    }
    resolve(root, node)
        .get("properties")
        .and_then(|p| p.as_object())
        .map(|props| props.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

/// Parses `source`, reporting syntax errors, type errors and unknown keys. Returns the config
/// when it could be deserialized.
pub(crate) fn parse(source: &str, reporter: &mut Reporter<'_>) -> Option<Config> {
    if source.trim().is_empty()
        || source
            .lines()
            .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
    {
        reporter
            .error("", "the config is empty")
            .hint("a config needs at least an `entities:` list; see `toolforge schema`")
            .emit();
        return None;
    }
    // One streaming pass (the span index) before serde reads anything: it stops at the first
    // node nested too deep, and finds keys written twice.
    if let Some(span) = reporter.index().too_deep() {
        let location = reporter.index().location(span);
        reporter
            .at_location(
                Severity::Error,
                "",
                location,
                format!("the YAML nests deeper than {MAX_DEPTH} levels here"),
            )
            .hint("a config nests about six levels (`entities[0].searchable_fields[0].values`); flatten or remove this value")
            .emit();
        return None;
    }
    let duplicates = reporter.index().duplicates().to_vec();
    if !duplicates.is_empty() {
        for duplicate in duplicates {
            let first = reporter.index().location(duplicate.first);
            let second = reporter.index().location(duplicate.second);
            reporter
                .at_location(
                    Severity::Error,
                    &duplicate.path,
                    second,
                    format!(
                        "duplicate key `{}` (first written at {}:{})",
                        duplicate.key, first.line, first.column
                    ),
                )
                .related_at(
                    &duplicate.path,
                    first,
                    format!("`{}` first written here", duplicate.key),
                )
                .hint("a key may appear once in a mapping: remove one of the two, or merge their values")
                .emit();
        }
        return None;
    }
    let mut unknown: Vec<Vec<Segment>> = Vec::new();
    let result = {
        let deserializer = serde_yaml::Deserializer::from_str(source);
        let mut record = |path: serde_ignored::Path<'_>| {
            let mut segments = Vec::new();
            ignored_segments(&path, &mut segments);
            unknown.push(segments);
        };
        let ignored = serde_ignored::Deserializer::new(deserializer, &mut record);
        serde_path_to_error::deserialize::<_, Config>(ignored)
    };
    for segments in &unknown {
        let path = format_path(segments);
        let Some((Segment::Key(key), parent)) = segments.split_last() else {
            continue;
        };
        let keys = known_keys(parent);
        let hint = suggestion(key, keys.iter().copied(), "known keys here");
        reporter
            .at(
                Severity::Warning,
                &path,
                At::Key,
                format!("unknown key `{key}`"),
            )
            .hint(format!(
                "{hint} (unknown keys are ignored; an error with --strict)"
            ))
            .emit();
    }
    match result {
        Ok(config) => Some(config),
        Err(error) => {
            let segments = error_segments(error.path());
            let path = format_path(&segments);
            let inner = error.inner();
            // A syntax error is where the parser stopped (serde_yaml's location, the one its
            // message names), not at the node being read then.
            let syntax = reporter.index().syntax_error().is_some();
            let raw = inner.to_string();
            let message = if raw.contains(", while ") {
                syntax_message(&raw)
            } else {
                clean_message(&raw)
            };
            let from_index = !syntax && !path.is_empty() && reporter.index().get(&path).is_some();
            let pending = match (from_index, inner.location()) {
                (false, Some(location)) => {
                    let (line, column) = (location.line(), location.column());
                    let byte = location.index().min(source.len());
                    let end = source[byte..]
                        .find('\n')
                        .map_or(source.len(), |n| byte + n)
                        .max(byte);
                    let end = if end == byte {
                        (byte + 1).min(source.len())
                    } else {
                        end
                    };
                    reporter.at_location(
                        Severity::Error,
                        &path,
                        super::spans::Location {
                            line,
                            column,
                            span: byte..end,
                        },
                        message.clone(),
                    )
                }
                _ => reporter.error(&path, message.clone()),
            };
            pending.hint(type_hint(&message)).emit();
            None
        }
    }
}

/// Splits `… at line L column C` into the text and its position.
fn split_position(text: &str) -> (&str, Option<&str>) {
    match text.rfind(" at line ") {
        Some(cut)
            if text[cut + " at line ".len()..]
                .split(" column ")
                .all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit())) =>
        {
            (&text[..cut], Some(&text[cut + " at ".len()..]))
        }
        _ => (text, None),
    }
}

/// A libyaml syntax error (`did not find expected key at line 7 column 6, while parsing a block
/// mapping at line 3 column 5`) without the problem's own position (the code frame shows it),
/// naming where the enclosing construct starts.
fn syntax_message(message: &str) -> String {
    let (problem, context) = match message.split_once(", while ") {
        Some((problem, context)) => (problem, Some(context)),
        None => (message, None),
    };
    let (problem, _) = split_position(problem);
    match context.map(split_position) {
        Some((context, Some(position))) => {
            format!("{problem}, while {context} starting at {position}")
        }
        Some((context, None)) => format!("{problem}, while {context}"),
        None => problem.to_owned(),
    }
}

fn type_hint(message: &str) -> String {
    if message.starts_with("missing field") {
        "add the missing key; see `toolforge schema` for the format".to_owned()
    } else if message.starts_with("unknown variant") {
        "use one of the listed values".to_owned()
    } else if message.starts_with("invalid type") {
        "change the value to the expected type (see `toolforge schema`)".to_owned()
    } else if message.contains("duplicate entry") {
        "remove one of the two entries".to_owned()
    } else {
        "fix the YAML at this position".to_owned()
    }
}

/// Reads YAML text into a JSON value (for validating a config against
/// [`super::json_schema`]).
///
/// ```
/// let value = toolforge_generator::__private::config::yaml_to_json("name: x\nentities: []\n").unwrap();
/// assert_eq!(value["name"], "x");
/// assert!(toolforge_generator::__private::config::yaml_to_json("name: [").is_err());
/// ```
pub fn yaml_to_json(source: &str) -> Result<serde_json::Value, serde_yaml::Error> {
    serde_json::Value::deserialize(serde_yaml::Deserializer::from_str(source))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_keys_follow_the_schema() {
        let keys = known_keys(&[Segment::Key("entities".into()), Segment::Index(0)]);
        assert!(keys.contains(&"searchable_fields"));
        let keys = known_keys(&[
            Segment::Key("entities".into()),
            Segment::Index(0),
            Segment::Key("vector_index".into()),
        ]);
        assert!(keys.contains(&"dimension"));
        assert!(known_keys(&[]).contains(&"toolforge"));
    }

    #[test]
    fn syntax_messages_keep_the_context_and_drop_the_problems_position() {
        assert_eq!(
            syntax_message(
                "did not find expected key at line 7 column 6, while parsing a block mapping at line 3 column 5"
            ),
            "did not find expected key, while parsing a block mapping starting at line 3 column 5"
        );
        assert_eq!(
            syntax_message("mapping values are not allowed in this context at line 1 column 5"),
            "mapping values are not allowed in this context"
        );
    }

    #[test]
    fn messages_lose_their_position_suffix_and_path_prefix() {
        assert_eq!(
            clean_message("entities[0].name: invalid type: map at line 3 column 5"),
            "invalid type: map"
        );
        assert_eq!(
            clean_message("missing field `name`"),
            "missing field `name`"
        );
    }
}
