//! "Did you mean" suggestions for unknown names.

/// The candidate closest to `name`, if one is close enough to be a plausible typo.
/// A candidate equal but for case always wins.
pub(crate) fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let wanted = name.to_lowercase();
    let mut best: Option<(f64, &'a str)> = None;
    for candidate in candidates {
        let lowered = candidate.to_lowercase();
        let score = if lowered == wanted {
            2.0
        } else {
            strsim::jaro_winkler(&wanted, &lowered)
        };
        if score >= 0.82 && best.is_none_or(|(best_score, _)| score > best_score) {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::did_you_mean;

    #[test]
    fn finds_typos_and_case_differences() {
        let names = ["startLine", "endLine", "name"];
        assert_eq!(did_you_mean("endline", names), Some("endLine"));
        assert_eq!(did_you_mean("strtLine", names), Some("startLine"));
        assert_eq!(did_you_mean("zzz", names), None);
    }
}
