//! Generation entry points shared by build scripts and the CLI: compile a config, generate its
//! files, write or check a folder.
//!
//! In `build.rs`:
//!
//! ```no_run
//! // build.rs, inside `fn main()`:
//! if let Err(error) = toolforge_generator::Builder::new("ragforge.config.yaml").generate() {
//!     // file:line:col code frames for config errors
//!     eprintln!("{error}");
//!     std::process::exit(1);
//! }
//! ```
//!
//! and in the crate: `mod tools { toolforge::include_generated!(); }`. The embedded module has
//! no custom-tools file: register your own tools with
//! `tools::setup_tool_registry_with(db, my_tools::register)`.
//!
//! Without a build script, `toolforge_config_macro::include_config!("ragforge.config.yaml")`
//! (crate `toolforge-config-macro`) expands to the same module at compile time.

use std::path::{Path, PathBuf};

use crate::codegen::{CodegenError, GenerateOptions, Layout, generate_files};
use crate::output::{Drift, OutputError, OutputFile, WriteReport, check_folder, write_folder};
use crate::{CompileOptions, Diagnostics, compile_file};

/// Why generation failed. Nothing was written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GenerateError {
    /// The config has errors (rendered with file:line:col code frames by `Display`).
    #[error("{}", .0.render())]
    Config(Diagnostics),
    /// The config is valid but cannot be turned into code.
    #[error(transparent)]
    Codegen(#[from] CodegenError),
    /// The output folder could not be written (or holds files toolforge did not generate).
    #[error(transparent)]
    Output(#[from] OutputError),
    /// `OUT_DIR` is not set: not running inside a build script, and no `out_dir` given.
    #[error(
        "OUT_DIR is not set\n  hint: call Builder::generate from build.rs, or set Builder::out_dir"
    )]
    NoOutDir,
}

/// Compiles `config` and returns the files to generate, without writing anything.
pub fn plan_files(
    config: &Path,
    compile: &CompileOptions,
    options: &GenerateOptions,
) -> Result<(Vec<OutputFile>, Diagnostics), GenerateError> {
    let compiled = compile_file(config, compile).map_err(GenerateError::Config)?;
    let files = generate_files(&compiled.spec, options).map_err(GenerateError::Codegen)?;
    Ok((files, compiled.warnings))
}

/// Writes the generated files of `config` into `folder` (see [`write_folder`]): only files
/// with the generated header are overwritten (all with `force`), atomically; `custom_tools.rs`
/// is never touched once it exists. A config error writes nothing.
pub fn generate_folder(
    config: &Path,
    folder: &Path,
    compile: &CompileOptions,
    options: &GenerateOptions,
    force: bool,
) -> Result<(WriteReport, Diagnostics), GenerateError> {
    let (files, warnings) = plan_files(config, compile, options)?;
    let report = write_folder(folder, &files, force).map_err(GenerateError::Output)?;
    Ok((report, warnings))
}

/// How `folder` differs from what `config` generates now (empty: up to date).
pub fn check_generated_folder(
    config: &Path,
    folder: &Path,
    compile: &CompileOptions,
    options: &GenerateOptions,
) -> Result<Vec<Drift>, GenerateError> {
    let (files, _) = plan_files(config, compile, options)?;
    Ok(check_folder(folder, &files))
}

/// Generates a config's module from a build script into `$OUT_DIR/toolforge/`.
#[derive(Debug, Clone)]
pub struct Builder {
    config: PathBuf,
    out_dir: Option<PathBuf>,
    compile: CompileOptions,
    cargo_directives: bool,
    crate_path: String,
}

impl Builder {
    /// A builder for the config at `config` (relative to the package root in a build script).
    pub fn new(config: impl Into<PathBuf>) -> Self {
        Builder {
            config: config.into(),
            out_dir: None,
            compile: CompileOptions::default(),
            cargo_directives: true,
            crate_path: crate::codegen::DEFAULT_CRATE_PATH.to_owned(),
        }
    }

    /// Writes into `dir` instead of `$OUT_DIR/toolforge`.
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Treats config warnings as errors.
    pub fn strict(mut self, strict: bool) -> Self {
        self.compile.strict = strict;
        self
    }

    /// The tool families to generate, in order, replacing the config's `toolforge.tools`
    /// (the same as `toolforge generate --tools`).
    ///
    /// ```no_run
    /// use toolforge::spec::ToolFamily;
    /// toolforge_generator::Builder::new("ragforge.config.yaml")
    ///     .tools([ToolFamily::Schema, ToolFamily::Query, ToolFamily::Aggregates])
    ///     .generate()
    ///     .unwrap();
    /// ```
    pub fn tools(
        mut self,
        families: impl IntoIterator<Item = toolforge::spec::ToolFamily>,
    ) -> Self {
        self.compile = self.compile.tools(families);
        self
    }

    /// Whether to print `cargo:rerun-if-changed` and `cargo:warning` lines (default: yes).
    pub fn cargo_directives(mut self, print: bool) -> Self {
        self.cargo_directives = print;
        self
    }

    /// The path the generated code names the runtime by, when the crate renames or re-exports
    /// the `toolforge` dependency (default `::toolforge`), like prost-build's `prost_path`:
    ///
    /// ```no_run
    /// // Cargo.toml: tf = { package = "toolforge-runtime", version = "0.1" }
    /// toolforge_generator::Builder::new("ragforge.config.yaml").crate_path("::tf").generate().unwrap();
    /// ```
    pub fn crate_path(mut self, path: impl Into<String>) -> Self {
        self.crate_path = path.into();
        self
    }

    /// Where the files go.
    pub fn target_dir(&self) -> Result<PathBuf, GenerateError> {
        match &self.out_dir {
            Some(dir) => Ok(dir.clone()),
            None => std::env::var_os("OUT_DIR")
                .map(|dir| PathBuf::from(dir).join("toolforge"))
                .ok_or(GenerateError::NoOutDir),
        }
    }

    /// Compiles the config and writes `mod.rs`, `spec.json` and `schema.sql`; unchanged files are not
    /// rewritten (so nothing downstream rebuilds). Prints `cargo:rerun-if-changed=<config>`
    /// first, so a fixed config is picked up even after an error.
    pub fn generate(self) -> Result<WriteReport, GenerateError> {
        if self.cargo_directives {
            println!("cargo:rerun-if-changed={}", self.config.display());
        }
        let folder = self.target_dir()?;
        let options = GenerateOptions::new(self.config.display().to_string(), Layout::Embedded)
            .with_crate_path(self.crate_path);
        let (report, warnings) =
            generate_folder(&self.config, &folder, &self.compile, &options, false)?;
        if self.cargo_directives {
            for warning in warnings.items() {
                println!(
                    "cargo:warning={}:{}:{}: {}",
                    warning.file, warning.line, warning.column, warning.message
                );
            }
        }
        Ok(report)
    }
}
