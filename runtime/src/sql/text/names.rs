//! Messages for unknown names, with the workspace's one did-you-mean routine
//! ([`toolforge_names::did_you_mean`]).

/// A sentence naming the unknown `what` (`entity`, `field`...), the nearest names, and every
/// valid name: "Unknown field `nmae` on Scope. Did you mean `name`? Valid fields: ...".
pub fn unknown_name_message<'a>(
    what: &str,
    name: &str,
    context: &str,
    candidates: impl IntoIterator<Item = &'a str> + Clone,
) -> String {
    let shown = shorten(name);
    let mut message = format!("Unknown {what} `{shown}`{context}.");
    let near = toolforge_names::did_you_mean(name, candidates.clone());
    if !near.is_empty() {
        let list: Vec<String> = near.iter().map(|n| format!("`{n}`")).collect();
        message.push_str(&format!(" Did you mean {}?", list.join(" or ")));
    }
    let all: Vec<&str> = candidates.into_iter().collect();
    if all.is_empty() {
        message.push_str(&format!(" There is no valid {what}."));
    } else {
        message.push_str(&format!(" Valid {what} names: {}.", all.join(", ")));
    }
    message
}

/// A user-supplied string cut to at most 80 characters for messages, control characters
/// written as escapes (`\n`, `\t`, `\u{1}`) so that a message stays on one line and shows
/// what was sent.
pub fn shorten(text: &str) -> String {
    const MAX: usize = 80;
    let cleaned: String = text
        .chars()
        .map(|c| match c {
            '\n' => "\\n".to_owned(),
            '\r' => "\\r".to_owned(),
            '\t' => "\\t".to_owned(),
            c if c.is_control() => c.escape_unicode().to_string(),
            c => c.to_string(),
        })
        .collect();
    if cleaned.chars().count() <= MAX {
        cleaned
    } else {
        let cut: String = cleaned.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_lists_valid_names() {
        let message = unknown_name_message("field", "nmae", " on Scope", ["name", "file"]);
        assert!(message.contains("Did you mean `name`?"), "{message}");
        assert!(
            message.contains("Valid field names: name, file."),
            "{message}"
        );
    }
}

#[cfg(test)]
mod examples {
    #[test]
    fn shorten_as_documented() {
        use super::shorten;
        assert_eq!(shorten("a\nb\u{1}"), "a\\nb\\u{1}");
    }
}
