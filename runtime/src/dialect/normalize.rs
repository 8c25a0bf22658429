//! What every dialect's export shares: descriptions cut to the providers' limit, a dropped
//! default stated in the description, and the base normalisation of the schema's root.

use std::borrow::Cow;

use serde_json::{Map, Value};

/// The longest tool description any dialect exports, in characters: Azure OpenAI and several
/// gateways refuse a request in which one tool description is longer.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;

/// `text` cut to at most [`MAX_DESCRIPTION_CHARS`] characters: unchanged when it fits,
/// otherwise cut at the last space before the limit (when there is one close to it) and ended
/// with `…`.
///
/// ```
/// use toolforge::dialect::{MAX_DESCRIPTION_CHARS, fit_description};
/// assert_eq!(fit_description("Short."), "Short.");
/// let long = "word ".repeat(400);
/// let fitted = fit_description(&long);
/// assert!(fitted.chars().count() <= MAX_DESCRIPTION_CHARS);
/// assert!(fitted.ends_with("word…"));
/// ```
pub fn fit_description(text: &str) -> Cow<'_, str> {
    if text.chars().count() <= MAX_DESCRIPTION_CHARS {
        return Cow::Borrowed(text);
    }
    let kept: String = text.chars().take(MAX_DESCRIPTION_CHARS - 1).collect();
    let cut = match kept.rfind(char::is_whitespace) {
        Some(at) if kept[at..].chars().count() <= 80 => kept[..at].trim_end(),
        _ => kept.as_str(),
    };
    Cow::Owned(format!("{cut}…"))
}

/// The description of a schema node whose `default` a dialect drops, so that the default is
/// still stated: `description (default: X)`, or `Default: X.` without a description. A
/// description that already speaks of its default is kept as it is.
pub(crate) fn description_with_default(description: Option<&str>, default: &Value) -> String {
    match description {
        Some(text) if text.to_lowercase().contains("default") => text.to_owned(),
        Some(text) => format!("{} (default: {default})", text.trim_end()),
        None => format!("Default: {default}."),
    }
}

/// The base normalisation every dialect shares: an object root (`true`/`{}` become an empty
/// object schema), `"type": "object"` set when missing, `properties` present (a `null` or
/// missing one becomes `{}`), and `$schema` removed.
pub fn normalize_object_root(schema: &Value) -> Value {
    let mut root = match schema {
        Value::Object(object) => object.clone(),
        _ => Map::new(),
    };
    root.remove("$schema");
    if !root.contains_key("type") {
        root.insert("type".into(), Value::String("object".into()));
    }
    match root.get("properties") {
        Some(Value::Object(_)) => {}
        _ => {
            root.insert("properties".into(), Value::Object(Map::new()));
        }
    }
    Value::Object(root)
}
