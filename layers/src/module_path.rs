//! Module paths (`crate::sql::database`) and the prefixes rules select modules with.

use std::fmt;

/// The path of a module inside its crate, as segments below the crate root.
///
/// The root itself has no segments. It displays as `crate` and its children as
/// `crate::a::b`.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ModulePath(Vec<String>);

impl ModulePath {
    /// The crate root.
    pub fn root() -> Self {
        ModulePath(Vec::new())
    }

    /// A path from its segments below the crate root.
    pub fn from_segments<I, S>(segments: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        ModulePath(segments.into_iter().map(Into::into).collect())
    }

    /// Parses `a::b`, `crate::a::b`, `crate` or the empty string (the root).
    pub fn parse(text: &str) -> Self {
        let text = text.trim();
        let text = text.strip_prefix("crate").map_or(text, |rest| {
            if rest.is_empty() {
                ""
            } else {
                rest.strip_prefix("::").unwrap_or(text)
            }
        });
        ModulePath(
            text.split("::")
                .map(str::trim)
                .filter(|segment| !segment.is_empty())
                .map(str::to_string)
                .collect(),
        )
    }

    /// The segments below the crate root (none for the root).
    pub fn segments(&self) -> &[String] {
        &self.0
    }

    /// Whether this is the crate root.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// The path of a child module.
    pub fn child(&self, name: &str) -> Self {
        let mut segments = self.0.clone();
        segments.push(name.to_string());
        ModulePath(segments)
    }

    /// The parent module's path, `None` for the root.
    pub fn parent(&self) -> Option<Self> {
        let (_, parent) = self.0.split_last()?;
        Some(ModulePath(parent.to_vec()))
    }

    /// Whether this module is `prefix` or lies below it (`crate::sql::tools` is under
    /// `crate::sql`; `crate::sqlx` is not). Every module is under the root.
    pub fn is_under(&self, prefix: &ModulePath) -> bool {
        self.0.starts_with(&prefix.0)
    }
}

impl fmt::Display for ModulePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("crate")?;
        for segment in &self.0 {
            write!(f, "::{segment}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for ModulePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::ModulePath;

    #[test]
    fn parses_every_spelling_of_a_prefix() {
        assert_eq!(ModulePath::parse(""), ModulePath::root());
        assert_eq!(ModulePath::parse("crate"), ModulePath::root());
        assert_eq!(ModulePath::parse("sql"), ModulePath::from_segments(["sql"]));
        assert_eq!(
            ModulePath::parse("crate::sql::tools"),
            ModulePath::from_segments(["sql", "tools"])
        );
        // A module whose name merely starts with `crate` is not the root.
        assert_eq!(
            ModulePath::parse("crates"),
            ModulePath::from_segments(["crates"])
        );
    }

    #[test]
    fn prefixes_match_whole_segments() {
        let sql = ModulePath::parse("sql");
        assert!(ModulePath::parse("sql").is_under(&sql));
        assert!(ModulePath::parse("sql::tools::common").is_under(&sql));
        assert!(!ModulePath::parse("sqlx").is_under(&sql));
        assert!(!ModulePath::root().is_under(&sql));
        assert!(ModulePath::parse("sql").is_under(&ModulePath::root()));
        assert_eq!(
            ModulePath::parse("sql::tools").to_string(),
            "crate::sql::tools"
        );
    }
}
