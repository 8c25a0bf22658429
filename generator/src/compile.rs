//! The front end's entry points: text or file in, validated config and storage spec out.

use std::path::Path;
use std::sync::Arc;

use toolforge::spec::{SchemaSpec, ToolFamily};

use crate::config::Config;
use crate::database_check::DatabaseCheck;
use crate::diagnostics::{Diagnostic, Diagnostics, Severity};
use crate::report::Reporter;
use crate::sqlite_check::SqliteCheck;

/// How to compile a config.
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompileOptions {
    /// Treat warnings as errors (also switched on by `toolforge: { strict: true }`).
    pub strict: bool,
    /// Check the config as `toolforge serve` serves it: a tool named in `mcp.tools` or
    /// `toolforge.toolsets` that the config does not generate is an error (otherwise a
    /// warning, since a Rust registry may add it).
    pub serving: bool,
    /// The tool families to generate, replacing the config's `toolforge.tools` (`None`: the
    /// config's list, or the default families).
    pub tools: Option<Vec<ToolFamily>>,
    /// Prepares the SQLite statements of declared tools in the `sql:` form against the schema
    /// (the generator links no SQLite: a host that does hands it in, see
    /// [`CompileOptions::check_sqlite`]). `None`: they are only scanned.
    pub sqlite_check: Option<SqliteCheck>,
    /// Compares a mapped config (entities with `table:`) with the database it maps, and
    /// reports each difference at its key (see [`CompileOptions::check_database`]). `None`:
    /// the config is checked alone.
    pub database_check: Option<DatabaseCheck>,
}

impl CompileOptions {
    /// Sets [`CompileOptions::sqlite_check`]: `validate` then reports a `sql.sqlite` statement
    /// that does not prepare (unknown table or column, syntax) or is not a read, at its key,
    /// with SQLite's message.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolforge_generator::{CompileOptions, SqliteCheck};
    /// let check = SqliteCheck(Arc::new(|_spec, statements: &[&str]| {
    ///     statements.iter().map(|_| Some("no such table: nowhere".to_owned())).collect()
    /// }));
    /// let options = CompileOptions::default().check_sqlite(check);
    /// assert!(options.sqlite_check.is_some());
    /// ```
    pub fn check_sqlite(mut self, check: SqliteCheck) -> Self {
        self.sqlite_check = Some(check);
        self
    }

    /// Sets [`CompileOptions::database_check`]: `validate --db` then reports a mapped table or
    /// column the database no longer has (or holds in another type) as an error at the
    /// config's `table:` or `column:`, a key no longer unique as a warning, and what the
    /// database has that the config does not map yet as notes.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolforge::spec::{Drift, DriftLevel, DriftPlace};
    /// use toolforge_generator::{CompileOptions, DatabaseCheck, compile_str};
    /// let gone = DatabaseCheck(Arc::new(|_spec: &toolforge::spec::SchemaSpec| {
    ///     Ok(vec![Drift {
    ///         level: DriftLevel::Breaks,
    ///         place: DriftPlace::Entity { entity: "Item".into() },
    ///         message: "table \"item\" is not in the database".into(),
    ///         hint: None,
    ///     }])
    /// }));
    /// let yaml = "entities:\n  - name: Item\n    table: item\n    unique_field: id\n    searchable_fields:\n      - name: id\n        type: integer\n";
    /// let errors = compile_str(yaml, "shop.yaml", &CompileOptions::default().check_database(gone))
    ///     .unwrap_err();
    /// let error = &errors.items()[0];
    /// assert_eq!((error.path.as_str(), error.line, error.column), ("entities[0].table", 3, 12));
    /// ```
    pub fn check_database(mut self, check: DatabaseCheck) -> Self {
        self.database_check = Some(check);
        self
    }

    /// Sets [`CompileOptions::strict`].
    ///
    /// ```
    /// let options = toolforge_generator::CompileOptions::default().strict(true);
    /// assert!(options.strict);
    /// ```
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Sets [`CompileOptions::serving`].
    ///
    /// ```
    /// use toolforge_generator::{CompileOptions, compile_str};
    /// let yaml = "entities:\n  - name: Note\nmcp:\n  tools:\n    - name: search_notes\n";
    /// let compiled = compile_str(yaml, "notes.yaml", &CompileOptions::default()).unwrap();
    /// assert_eq!(compiled.warnings.warning_count(), 1);
    /// let refused = compile_str(yaml, "notes.yaml", &CompileOptions::default().serving(true));
    /// assert_eq!(refused.unwrap_err().items()[0].path, "mcp.tools[0].name");
    /// ```
    pub fn serving(mut self, serving: bool) -> Self {
        self.serving = serving;
        self
    }

    /// Sets [`CompileOptions::tools`]: the tool families to generate, in order, whatever the
    /// config lists (repeats are dropped).
    ///
    /// ```
    /// use toolforge::spec::ToolFamily;
    /// use toolforge_generator::{CompileOptions, compile_str};
    /// let yaml = "entities:\n  - name: Note\n";
    /// let options = CompileOptions::default().tools([ToolFamily::Lookup, ToolFamily::Aggregates]);
    /// let compiled = compile_str(yaml, "notes.yaml", &options).unwrap();
    /// assert_eq!(
    ///     compiled.spec.database_tool_names(),
    ///     ["get_entity_by_id", "get_entities_by_ids", "aggregate_entities"]
    /// );
    /// ```
    pub fn tools(mut self, families: impl IntoIterator<Item = ToolFamily>) -> Self {
        let mut list: Vec<ToolFamily> = Vec::new();
        for family in families {
            if !list.contains(&family) {
                list.push(family);
            }
        }
        self.tools = Some(list);
        self
    }
}

/// A config that validated: its storage spec and the warnings (and, for the workspace's own
/// tools, the config as deserialized).
#[derive(Debug, Clone, PartialEq)]
pub struct Compiled {
    /// The config as deserialized, sections toolforge does not use included. Its model is
    /// internal (not public API), hence hidden.
    #[doc(hidden)]
    pub config: Config,
    /// The storage specification lowered from it.
    pub spec: SchemaSpec,
    /// Warnings (never errors).
    pub warnings: Diagnostics,
}

/// Parses, validates and lowers a config held in memory. `file_name` is only used in
/// diagnostics and as the schema name when the config has no `name`.
///
/// ```
/// use toolforge_generator::{compile_str, CompileOptions};
/// let source = "entities:\n  - name: Scope\n    searchable_fields:\n      - name: kind\n        type: enum\n";
/// let errors = compile_str(source, "bad.yaml", &CompileOptions::default()).unwrap_err();
/// let error = &errors.items()[0];
/// assert_eq!((error.line, error.column), (5, 15));
/// assert_eq!(error.path, "entities[0].searchable_fields[0].type");
/// ```
pub fn compile_str(
    source: &str,
    file_name: &str,
    options: &CompileOptions,
) -> Result<Compiled, Diagnostics> {
    let shared: Arc<str> = Arc::from(source);
    let mut reporter = Reporter::new(file_name, shared);
    let Some(config) = crate::config::parse::parse(source, &mut reporter) else {
        return Err(finish(reporter.out, options.strict));
    };
    crate::validate::validate(&config, &mut reporter);
    let mut spec = crate::ir::lower(&config, &default_name(file_name), &mut reporter);
    if let Some(families) = &options.tools {
        spec.tools.families = families.clone();
    }
    crate::validate::validate_spec(&config, &spec, options.serving, &mut reporter);
    if let Some(check) = &options.sqlite_check
        && reporter.error_count() == 0
    {
        crate::ir::check_sqlite_statements(&config, &spec, check, &mut reporter);
    }
    if let Some(check) = &options.database_check
        && reporter.error_count() == 0
    {
        crate::validate::check_database(&config, &spec, check, &mut reporter);
    }
    let strict = options.strict
        || config
            .toolforge
            .as_ref()
            .and_then(|t| t.strict)
            .unwrap_or(false);
    let diagnostics = finish(reporter.out, strict);
    if diagnostics.has_errors() {
        Err(diagnostics)
    } else {
        Ok(Compiled {
            config,
            spec,
            warnings: diagnostics,
        })
    }
}

/// Reads and compiles a config file. A file that cannot be read is reported as a diagnostic.
pub fn compile_file(path: &Path, options: &CompileOptions) -> Result<Compiled, Diagnostics> {
    let file_name = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(source) => compile_str(&source, &file_name, options),
        Err(error) => Err(Diagnostics(vec![
            Diagnostic::whole_file(
                Severity::Error,
                &file_name,
                format!("cannot read the config file: {error}"),
            )
            .with_hint("check the path given to --config"),
        ])),
    }
}

fn finish(out: Vec<Diagnostic>, strict: bool) -> Diagnostics {
    let mut diagnostics = Diagnostics(out);
    diagnostics.sort();
    if strict {
        diagnostics.promote_warnings();
    }
    diagnostics
}

/// `path/to/ragforge.config.yaml` → `ragforge`.
fn default_name(file_name: &str) -> String {
    let stem = Path::new(file_name)
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = stem.split('.').next().unwrap_or_default();
    if stem.is_empty() {
        "config".to_owned()
    } else {
        stem.to_owned()
    }
}
