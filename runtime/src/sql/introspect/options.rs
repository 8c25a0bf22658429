//! What to read of a database ([`IntrospectOptions`]): which PostgreSQL schemas, which tables.

use crate::sql::text::glob::GlobPattern;

/// What [`read_catalog`](super::read_catalog) reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IntrospectOptions {
    /// The PostgreSQL schemas to read, in this order; empty means `public`. A SQLite file has
    /// one schema, and ignores this.
    pub schemas: Vec<String>,
    /// Glob patterns (SQLite's `GLOB`: `*`, `?`, `[a-z]`, case-sensitive) a table's name must
    /// match one of to be read; empty means every table. A pattern with a dot also matches
    /// the schema-qualified name (`sales.*`; SQLite's schema is `main`).
    pub include: Vec<String>,
    /// Glob patterns of tables left out, as for `include`; they win over it.
    pub exclude: Vec<String>,
}

impl IntrospectOptions {
    /// The schemas to read: those given, or `public`.
    pub fn schemas_or_default(&self) -> Vec<String> {
        if self.schemas.is_empty() {
            vec!["public".to_owned()]
        } else {
            self.schemas.clone()
        }
    }
}

/// The include and exclude patterns, compiled.
pub(crate) struct TableFilter {
    include: Vec<GlobPattern>,
    exclude: Vec<GlobPattern>,
}

impl TableFilter {
    pub(crate) fn new(options: &IntrospectOptions) -> TableFilter {
        let compile = |patterns: &[String]| patterns.iter().map(|p| GlobPattern::new(p)).collect();
        TableFilter {
            include: compile(&options.include),
            exclude: compile(&options.exclude),
        }
    }

    /// Whether the table `name` of `schema` (SQLite: `main`) is kept.
    pub(crate) fn keeps(&self, schema: &str, name: &str) -> bool {
        let qualified = format!("{schema}.{name}");
        let matches =
            |pattern: &GlobPattern| pattern.is_match(name) || pattern.is_match(&qualified);
        (self.include.is_empty() || self.include.iter().any(matches))
            && !self.exclude.iter().any(matches)
    }
}

#[cfg(test)]
mod tests {
    use super::{IntrospectOptions, TableFilter};

    fn filter(include: &[&str], exclude: &[&str]) -> TableFilter {
        TableFilter::new(&IntrospectOptions {
            schemas: Vec::new(),
            include: include.iter().map(|s| s.to_string()).collect(),
            exclude: exclude.iter().map(|s| s.to_string()).collect(),
        })
    }

    #[test]
    fn patterns_match_the_name_or_the_qualified_name() {
        let all = filter(&[], &[]);
        assert!(all.keeps("public", "film"));
        let sales = filter(&["sales.*"], &["*_log"]);
        assert!(sales.keeps("sales", "orders"));
        assert!(!sales.keeps("public", "orders"));
        assert!(!sales.keeps("sales", "audit_log"));
        let films = filter(&["film*"], &["film_list"]);
        assert!(films.keeps("public", "film_actor"));
        assert!(!films.keeps("public", "film_list"));
        assert!(!films.keeps("public", "actor"));
        // Case-sensitive, as SQLite's GLOB.
        assert!(!films.keeps("public", "Film"));
    }
}
