//! `toolforge init [--dir DIR] [--out DIR]`: scaffolds `ragforge.config.yaml` (never
//! overwriting an existing one) and generates its client folder.
//!
//! `toolforge init --from-db <FILE|URL> [--schema NAME]... [--include PATTERN]...
//! [--exclude PATTERN]... [--out FILE] [--force]`: writes the config of an existing database
//! instead, read only (`from_db`), and nothing else.

pub mod from_db;

use std::path::{Path, PathBuf};

use toolforge::sql::introspect::{IntrospectOptions, read_catalog};
use toolforge_generator::__private::codegen::GenerateOptions;
use toolforge_generator::__private::generate_folder;
use toolforge_generator::__private::output::{FileAction, OutputFile, write_folder};
use toolforge_generator::CompileOptions;

use crate::{EXIT_INVALID, EXIT_OK, Output};

const CONFIG: &str = include_str!("../../templates/init.config.yaml");

/// The config's file name.
const CONFIG_NAME: &str = "ragforge.config.yaml";

/// Arguments of `toolforge init`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project folder (the config goes there).
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub dir: PathBuf,
    /// The client folder, relative to `--dir` (default `src/tools`); with `--from-db`, the
    /// config file to write, relative to `--dir` (default `ragforge.config.yaml`).
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Write the config of an existing database instead: a SQLite file or a postgres:// URL,
    /// read only (its tables and views, keys, foreign keys, enums). Nothing else is generated.
    #[arg(long, value_name = "FILE|URL")]
    pub from_db: Option<String>,
    /// With --from-db on PostgreSQL: a schema to read (repeatable; default `public`).
    #[arg(long = "schema", value_name = "NAME", requires = "from_db")]
    pub schemas: Vec<String>,
    /// With --from-db: map only the tables matching this glob (`*`, `?`, `[a-z]`;
    /// case-sensitive; `sales.*` matches schema-qualified names). Repeatable.
    #[arg(long, value_name = "PATTERN", requires = "from_db")]
    pub include: Vec<String>,
    /// With --from-db: leave out the tables matching this glob. Repeatable; wins over
    /// --include.
    #[arg(long, value_name = "PATTERN", requires = "from_db")]
    pub exclude: Vec<String>,
    /// With --from-db: overwrite the config file if it exists.
    #[arg(long, requires = "from_db")]
    pub force: bool,
}

/// Runs `toolforge init`.
pub fn run(args: &Args, out: &mut Output<'_>) -> i32 {
    if let Some(source) = &args.from_db {
        return from_db(args, source, out);
    }
    let client = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("src/tools"));
    let config_name = PathBuf::from(CONFIG_NAME);
    let scaffold = [OutputFile::create_once(&config_name, CONFIG)];
    let written = match write_folder(&args.dir, &scaffold, false) {
        Ok(report) => report,
        Err(error) => {
            let _ = writeln!(out.stderr, "error: {error}");
            return EXIT_INVALID;
        }
    };
    for (path, action) in &written.files {
        let _ = writeln!(
            out.stdout,
            "{:>9}  {}",
            action.to_string(),
            args.dir.join(path).display()
        );
    }
    // Headers name the paths relative to the project folder, as the user will run the command.
    let options = GenerateOptions::cli_generate(&config_name, &client);
    match generate_folder(
        &args.dir.join(&config_name),
        &args.dir.join(&client),
        &CompileOptions::default(),
        &options,
        false,
    ) {
        Ok((report, _)) => {
            for (path, action) in &report.files {
                let _ = writeln!(
                    out.stdout,
                    "{:>9}  {}",
                    action.to_string(),
                    args.dir.join(&client).join(path).display()
                );
            }
            let _ = writeln!(
                out.stdout,
                "next: add `mod tools;` to your crate, depend on `toolforge`, then call `tools::apply_schema(&db)` and `tools::setup_tool_registry(db)`"
            );
            EXIT_OK
        }
        Err(error) => {
            let _ = writeln!(out.stderr, "{error}");
            EXIT_INVALID
        }
    }
}

/// `toolforge init --from-db`: reads the database's catalog (read only) and writes its config
/// atomically, refusing to replace an existing file without `--force`.
fn from_db(args: &Args, source: &str, out: &mut Output<'_>) -> i32 {
    let path = args
        .dir
        .join(args.out.as_deref().unwrap_or(Path::new(CONFIG_NAME)));
    let fail = |out: &mut Output<'_>, message: &str| {
        let _ = writeln!(out.stderr, "error: {message}");
        EXIT_INVALID
    };
    if !args.force && std::fs::symlink_metadata(&path).is_ok() {
        return fail(
            out,
            &format!(
                "`{}` exists: pass --force to overwrite it, or --out to write another file",
                path.display()
            ),
        );
    }
    let postgres = toolforge::sql::postgres::is_postgres_url(source);
    if !postgres && !args.schemas.is_empty() {
        return fail(
            out,
            &format!(
                "--schema names PostgreSQL schemas, and `{source}` is a SQLite file (one schema): leave --schema out"
            ),
        );
    }
    let options = IntrospectOptions {
        schemas: args.schemas.clone(),
        include: args.include.clone(),
        exclude: args.exclude.clone(),
    };
    let catalog = match read_catalog(source, &options) {
        Ok(catalog) => catalog,
        Err(error) => return fail(out, &error.to_string()),
    };
    let written = from_db::write_config(&catalog, &command_line(args, source, postgres));
    let (folder, file) = match (path.parent(), path.file_name()) {
        (Some(parent), Some(file)) => (
            if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            },
            file,
        ),
        _ => {
            return fail(
                out,
                &format!("`{}` is not a file name: give --out FILE", path.display()),
            );
        }
    };
    let output = if args.force {
        OutputFile::generated(file, written.yaml)
    } else {
        OutputFile::create_once(file, written.yaml)
    };
    match write_folder(folder, &[output], args.force) {
        Ok(report) if report.files.iter().any(|(_, a)| *a == FileAction::Kept) => fail(
            out,
            &format!(
                "`{}` appeared while the database was read: pass --force to overwrite it",
                path.display()
            ),
        ),
        Ok(_) => {
            let _ = writeln!(
                out.stdout,
                "wrote {}: {}",
                path.display(),
                written.summary.line()
            );
            EXIT_OK
        }
        Err(error) => fail(out, &error.to_string()),
    }
}

/// The command line the config's first comment names: the database as given (a file by its
/// name alone, a URL without its password) and the options that chose what was read.
fn command_line(args: &Args, source: &str, postgres: bool) -> String {
    let shown = if postgres {
        without_password(source)
    } else {
        Path::new(source).file_name().map_or_else(
            || source.to_owned(),
            |name| name.to_string_lossy().into_owned(),
        )
    };
    let mut line = format!("toolforge init --from-db {shown}");
    for (flag, values) in [
        ("--schema", &args.schemas),
        ("--include", &args.include),
        ("--exclude", &args.exclude),
    ] {
        for value in values {
            line.push_str(&format!(" {flag} {value}"));
        }
    }
    line
}

/// A URL with the password of its user part (`user:password@`) left out, and its query.
fn without_password(url: &str) -> String {
    let url = url.split_once('?').map_or(url, |(head, _)| head);
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    match rest.rsplit_once('@') {
        Some((user, host)) => {
            let user = user.split_once(':').map_or(user, |(name, _)| name);
            format!("{scheme}://{user}@{host}")
        }
        None => url.to_owned(),
    }
}
