//! "Did you mean" suggestions for unknown names.

/// The candidates closest to `name` (Jaro-Winkler ≥ 0.8, or a case-insensitive match), best
/// first, at most three.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let lower = name.to_lowercase();
    let mut scored: Vec<(f64, &'a str)> = candidates
        .into_iter()
        .filter_map(|candidate| {
            let score = if candidate.to_lowercase() == lower {
                2.0
            } else {
                strsim::jaro_winkler(&lower, &candidate.to_lowercase())
            };
            (score >= 0.8).then_some((score, candidate))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored.into_iter().take(3).map(|(_, name)| name).collect()
}

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
    let near = closest(name, candidates.clone());
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

/// A user-supplied string cut to at most 80 characters for messages.
pub fn shorten(text: &str) -> String {
    const MAX: usize = 80;
    let cleaned: String = text
        .chars()
        .map(|c| if c.is_control() { '\u{FFFD}' } else { c })
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
    fn suggests_near_names() {
        assert_eq!(closest("nmae", ["name", "file", "type"]), vec!["name"]);
        assert_eq!(closest("SCOPE", ["Scope", "File"]), vec!["Scope"]);
        assert!(closest("zzzz", ["name"]).is_empty());
    }

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
