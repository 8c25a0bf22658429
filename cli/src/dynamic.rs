//! Live tools straight from a config, with no compile step: the config is compiled to a
//! [`SchemaSpec`] and the runtime's database tools are registered over an existing database.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use serde_json::json;
//! use toolforge_cli::dynamic;
//!
//! let dir = tempfile::tempdir()?;
//! let config = dir.path().join("books.yaml");
//! std::fs::write(&config, "name: books\nentities:\n  - name: Book\n    unique_field: isbn\n    \
//!     searchable_fields:\n      - name: isbn\n        type: string\n      - name: title\n        type: string\n")?;
//! let db_path = dir.path().join("books.db");
//!
//! // a database that was never initialised is refused, with the command that fixes it
//! std::fs::File::create(&db_path)?;
//! let error = dynamic::load(&config, &db_path, &Default::default()).unwrap_err();
//! assert!(error.to_string().contains("toolforge db init"), "{error}");
//!
//! // `toolforge db init` and `toolforge db import` do the same as this
//! let compiled = dynamic::compile(&config, &Default::default())?;
//! let db = toolforge::sql::Database::open(&db_path)?;
//! db.init(&compiled.spec)?;
//! db.import_jsonl(&compiled.spec, r#"{"entity":"Book","data":{"isbn":"1","title":"Dune"}}"#.as_bytes())?;
//! drop(db);
//!
//! let live = dynamic::load(&config, &db_path, &Default::default())?;
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! let answer = runtime.block_on(live.registry.call(
//!     "query_entities",
//!     json!({"entity_type": "Book", "conditions": [{"field": "title", "operator": "STARTS WITH", "value": "Du"}]}),
//! ))?;
//! assert_eq!(answer["results"][0]["isbn"], "1");
//! # Ok(()) }
//! ```

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use toolforge::spec::SchemaSpec;
use toolforge::sql::{Database, SchemaDifference};
use toolforge::{CallLimits, RegistryError, ToolDefinition, ToolRegistry};

use toolforge_generator::{CompileOptions, Compiled, Diagnostics, compile_file};

/// Why live tools could not be set up. `Display` is the full message for a person: config
/// diagnostics rendered with `file:line:col` and code frames, database problems with the
/// command that fixes them.
#[derive(Debug)]
pub enum LoadError {
    /// The config is invalid (every diagnostic, with positions).
    Config(Diagnostics),
    /// The database file does not exist.
    MissingDatabase {
        /// The database path given.
        db: PathBuf,
        /// The config path given.
        config: PathBuf,
    },
    /// SQLite could not open or read the database.
    Database {
        /// The database path given.
        db: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The database has none of the config's tables yet (an empty or unrelated file).
    NotInitialised {
        /// The database path given.
        db: PathBuf,
        /// The config path given.
        config: PathBuf,
        /// How many tables and indexes the config needs.
        expected: usize,
    },
    /// The database's tables differ from the config (or some are missing); nothing was
    /// changed.
    SchemaMismatch {
        /// The database path given.
        db: PathBuf,
        /// The config path given.
        config: PathBuf,
        /// Every table or index that is missing or different.
        differences: Vec<SchemaDifference>,
    },
    /// The database lacks a table or column a config over existing tables maps (dropped,
    /// renamed, or not readable by this role); nothing was changed.
    MappingDrift {
        /// The database path given.
        db: PathBuf,
        /// The config path given.
        config: PathBuf,
        /// Every table or column that cannot be read.
        differences: Vec<SchemaDifference>,
    },
    /// A config over existing tables has a full-text index that toolforge's side store does
    /// not hold yet (`toolforge db init` creates it).
    SideStoreMissing {
        /// The database path given.
        db: PathBuf,
        /// The config path given.
        config: PathBuf,
        /// Each index missing.
        missing: Vec<String>,
    },
    /// The tools could not be registered (a name clash, for example).
    Registry(RegistryError),
    /// toolforge's side store beside the user's tables could not be brought up to date.
    SideStore {
        /// The database path given.
        db: PathBuf,
        /// What went wrong.
        message: String,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Config(diagnostics) => {
                write!(f, "{}", diagnostics.render().trim_end())
            }
            LoadError::MissingDatabase { db, config } => write!(
                f,
                "error: the database {} does not exist\n  = hint: create it with `{}`",
                db.display(),
                init_command(config, db)
            ),
            LoadError::Database { db, message } => {
                write!(
                    f,
                    "error: cannot open the database {}: {message}",
                    db.display()
                )
            }
            LoadError::SchemaMismatch {
                db,
                config,
                differences,
            } => {
                writeln!(
                    f,
                    "error: the database {} does not match the config {}:",
                    db.display(),
                    config.display()
                )?;
                for difference in differences {
                    writeln!(f, "  - {difference}")?;
                }
                if differences.iter().all(|d| d.message == MISSING) {
                    write!(
                        f,
                        "  = hint: create the missing ones with `{}`",
                        init_command(config, db)
                    )
                } else {
                    write!(
                        f,
                        "  = hint: nothing was changed; this database was made from another \
                         config (or an older version of this one): use that config, or \
                         initialise a new database file with `{}`",
                        init_command(config, Path::new("NEW.db"))
                    )
                }
            }
            LoadError::MappingDrift {
                db,
                config,
                differences,
            } => {
                writeln!(
                    f,
                    "error: the database {} lacks what the config {} maps:",
                    db.display(),
                    config.display()
                )?;
                for difference in differences {
                    writeln!(f, "  - {difference}")?;
                }
                write!(
                    f,
                    "  = hint: nothing was changed; the config reads these tables as they are: \
                     fix the names in the config, or write it anew from the database with \
                     `toolforge init --from-db {} --out {} --force`",
                    db.display(),
                    config.display()
                )
            }
            LoadError::SideStoreMissing {
                db,
                config,
                missing,
            } => {
                writeln!(
                    f,
                    "error: the config {} searches existing tables of {} through indexes not \
                     made for it yet:",
                    config.display(),
                    db.display()
                )?;
                for line in missing {
                    writeln!(f, "  - {line}")?;
                }
                write!(
                    f,
                    "  = hint: create or rebuild them (your tables are only read) with \
                     `toolforge db init --config {} --db {}`",
                    config.display(),
                    db.display()
                )
            }
            LoadError::NotInitialised {
                db,
                config,
                expected,
            } => write!(
                f,
                "error: the database {} has none of the {expected} tables and indexes of the \
                 config {}\n  = hint: create them with `{}`",
                db.display(),
                config.display(),
                init_command(config, db)
            ),
            LoadError::SideStore { db, message } => write!(
                f,
                "error: the side store of {} was left as it was: {message}",
                db.display()
            ),
            LoadError::Registry(error) => {
                write!(f, "error: {error}")?;
                match std::error::Error::source(error) {
                    Some(reason) => write!(f, ": {reason}"),
                    None => Ok(()),
                }
            }
        }
    }
}

impl std::error::Error for LoadError {}

impl From<RegistryError> for LoadError {
    fn from(error: RegistryError) -> Self {
        LoadError::Registry(error)
    }
}

fn init_command(config: &Path, db: &Path) -> String {
    format!(
        "toolforge db init --config {} --db {}",
        config.display(),
        db.display()
    )
}

/// Live tools over a database: the compiled config and the registry.
#[derive(Debug)]
pub struct Live {
    /// The config that was loaded (with its warnings).
    pub compiled: Compiled,
    /// The storage spec the tools answer from.
    pub spec: Arc<SchemaSpec>,
    /// The database tools, `batch`, and unknown names answered with the nearest names.
    pub registry: Arc<ToolRegistry>,
    /// The database the tools answer from.
    pub database: Database,
}

/// Compiles a config file; errors carry every diagnostic with its position.
pub fn compile(config: &Path, options: &CompileOptions) -> Result<Compiled, LoadError> {
    compile_file(config, &with_sqlite_check(options.clone())).map_err(LoadError::Config)
}

/// `options` with the SQLite statements of declared tools prepared against the config's
/// schema (what the generator cannot do, since it links no SQLite).
pub fn with_sqlite_check(options: CompileOptions) -> CompileOptions {
    options.check_sqlite(toolforge_generator::SqliteCheck(std::sync::Arc::new(
        toolforge::sql::check_sqlite_reads,
    )))
}

/// `options` with a mapped config (entities with `table:`) compared with the database `db`
/// names, read only: what breaks a tool is a located error, what may surprise a warning, what
/// the database has that the config does not map yet a note (see
/// [`CompileOptions::check_database`]). A config of toolforge's own tables is not compared.
pub fn with_database_check(options: CompileOptions, db: &str) -> CompileOptions {
    let db = db.to_owned();
    options.check_database(toolforge_generator::DatabaseCheck(std::sync::Arc::new(
        move |spec| {
            toolforge::sql::introspect::check_database(&db, spec).map_err(|e| e.to_string())
        },
    )))
}

/// The tool definitions a config produces (identical to those of [`load`]'s registry, in the
/// same order), without any database.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let config = dir.path().join("notes.yaml");
/// std::fs::write(&config, "entities:\n  - name: Note\n    searchable_fields:\n      - name: title\n        type: string\n")?;
/// let names: Vec<String> = toolforge_cli::dynamic::definitions(&config, &Default::default())?
///     .into_iter()
///     .map(|d| d.name)
///     .collect();
/// assert!(names.contains(&"query_entities".to_string()) && names.contains(&"batch".to_string()));
/// # Ok(()) }
/// ```
pub fn definitions(
    config: &Path,
    options: &CompileOptions,
) -> Result<Vec<ToolDefinition>, LoadError> {
    Ok(toolforge::sql::registry_definitions(
        &compile(config, options)?.spec,
    ))
}

/// Opens an existing database for the tools and checks that its tables are exactly the ones
/// the spec needs. `config` is only used in messages.
pub fn open_ready(db: &Path, spec: &SchemaSpec, config: &Path) -> Result<Database, LoadError> {
    not_a_folder(db)?;
    if !is_server_url(db) && !db.is_file() {
        return Err(LoadError::MissingDatabase {
            db: db.to_path_buf(),
            config: config.to_path_buf(),
        });
    }
    let database_error = |error: &dyn fmt::Display| LoadError::Database {
        db: db.to_path_buf(),
        message: error.to_string(),
    };
    let mut database = Database::open_read_only(db).map_err(|e| database_error(&e))?;
    check_ready(&database, db, spec, config)?;
    if let Some(embedder) = crate::embedding::for_spec(spec, config) {
        database = database.with_embedder(embedder);
    }
    Ok(database)
}

/// Refuses a `--db` that names a folder, saying so (rather than that it does not exist).
pub(crate) fn not_a_folder(db: &Path) -> Result<(), LoadError> {
    if !is_server_url(db) && db.is_dir() {
        return Err(LoadError::Database {
            db: db.to_path_buf(),
            message: "it is a folder, not a database file; name the `.db` file inside it (or a \
                      new file for `toolforge db init` to create)"
                .into(),
        });
    }
    Ok(())
}

/// Whether `--db` names a database server (`postgres://...`) rather than a SQLite file.
pub fn is_server_url(db: &Path) -> bool {
    db.to_str()
        .is_some_and(toolforge::sql::postgres::is_postgres_url)
}

/// The message [`toolforge::sql::schema_gaps`] gives a missing table or index.
const MISSING: &str = "does not exist";

/// Checks that `database` (found at `db`) has exactly the tables and indexes of `spec`, and
/// for a config over existing tables, the indexes its side store keeps. `config` is only used
/// in messages.
pub fn check_ready(
    database: &Database,
    db: &Path,
    spec: &SchemaSpec,
    config: &Path,
) -> Result<(), LoadError> {
    check_tables(database, db, spec, config)?;
    let missing = database
        .side_store_gaps(spec)
        .map_err(|error| LoadError::Database {
            db: db.to_path_buf(),
            message: error.to_string(),
        })?;
    if missing.is_empty() {
        Ok(())
    } else {
        Err(LoadError::SideStoreMissing {
            db: db.to_path_buf(),
            config: config.to_path_buf(),
            missing,
        })
    }
}

/// Checks that `database` (found at `db`) has exactly the tables and indexes of `spec`: those
/// it creates, or the tables and columns it maps.
pub fn check_tables(
    database: &Database,
    db: &Path,
    spec: &SchemaSpec,
    config: &Path,
) -> Result<(), LoadError> {
    let database_error = |error: &dyn fmt::Display| LoadError::Database {
        db: db.to_path_buf(),
        message: error.to_string(),
    };
    let differences =
        toolforge::sql::schema_gaps(database, spec).map_err(|e| database_error(&e))?;
    let expected = toolforge::sql::ddl::schema_objects(spec)
        .map_err(|e| database_error(&e))?
        .len();
    if differences.is_empty() {
        Ok(())
    } else if spec.is_mapped() {
        Err(LoadError::MappingDrift {
            db: db.to_path_buf(),
            config: config.to_path_buf(),
            differences,
        })
    } else if differences.len() == expected && differences.iter().all(|d| d.message == MISSING) {
        Err(LoadError::NotInitialised {
            db: db.to_path_buf(),
            config: config.to_path_buf(),
            expected,
        })
    } else {
        Err(LoadError::SchemaMismatch {
            db: db.to_path_buf(),
            config: config.to_path_buf(),
            differences,
        })
    }
}

/// Compiles the config, opens the database (which must exist and match the config) and
/// registers the tools: the one call to get a live registry (with the default
/// [`CallLimits`]: 30 s per call, answers of at most 1 MiB).
pub fn load(config: &Path, db: &Path, options: &CompileOptions) -> Result<Live, LoadError> {
    load_with_limits(config, db, options, CallLimits::default())
}

/// [`load`] with the given limits for every call.
pub fn load_with_limits(
    config: &Path,
    db: &Path,
    options: &CompileOptions,
    limits: CallLimits,
) -> Result<Live, LoadError> {
    load_with_context(
        config,
        db,
        options,
        limits,
        &toolforge::ContextValues::new(),
    )
}

/// [`load_with_limits`] with the context values every call carries (what the config's row
/// rules read as `:context.NAME`).
pub fn load_with_context(
    config: &Path,
    db: &Path,
    options: &CompileOptions,
    limits: CallLimits,
    values: &toolforge::ContextValues,
) -> Result<Live, LoadError> {
    let compiled = compile(config, options)?;
    let spec = Arc::new(compiled.spec.clone());
    let database = open_ready(db, &spec, config)?;
    let registry = toolforge::sql::registry_builder(spec.clone(), database.clone())?
        .with_limits(limits)
        .with_context_values(values)
        .build();
    Ok(Live {
        compiled,
        spec,
        registry,
        database,
    })
}

/// [`load`], keeping only the registry.
pub fn load_registry(
    config: &Path,
    db: &Path,
    options: &CompileOptions,
) -> Result<Arc<ToolRegistry>, LoadError> {
    load(config, db, options).map(|live| live.registry)
}
