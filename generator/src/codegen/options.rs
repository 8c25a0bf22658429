//! [`GenerateOptions`] and [`Layout`]: how and where to generate the module.

use super::crate_path::DEFAULT_CRATE_PATH;

/// Where the generated module lives, which decides where custom tools come from.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// A checked-in client folder (`toolforge generate`): `mod.rs`, `schema.sql` and a
    /// `custom_tools.rs` created once; `setup_tool_registry(db)` registers
    /// `custom_tools::register`.
    ClientFolder,
    /// `$OUT_DIR/toolforge/` (build.rs): no custom-tools file; pass your own registration
    /// function to `setup_tool_registry_with(db, custom)`.
    Embedded,
    /// The config macro: one token stream and no files (the spec is inline); custom tools as
    /// with [`Layout::Embedded`].
    Inline,
}

/// How to generate.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenerateOptions {
    /// The config's name as shown in headers (a relative path, never an absolute one).
    pub config_name: String,
    /// The command shown in headers to regenerate the files.
    pub regenerate: String,
    /// Client folder or embedded module.
    pub layout: Layout,
    /// The path generated code names the runtime crate by ([`DEFAULT_CRATE_PATH`] unless the
    /// dependency is renamed or re-exported, e.g. `::tf` or `crate::deps::toolforge`).
    pub crate_path: String,
}

impl GenerateOptions {
    /// Options with the default regenerate command for `layout`.
    pub fn new(config_name: impl Into<String>, layout: Layout) -> Self {
        let config_name = config_name.into();
        let regenerate = match layout {
            Layout::ClientFolder => {
                format!("toolforge generate --config {config_name} --out <this folder>")
            }
            Layout::Embedded => {
                format!("cargo build (build.rs runs toolforge_generator::Builder on {config_name})")
            }
            Layout::Inline => {
                format!("cargo build (include_config! expands {config_name})")
            }
        };
        GenerateOptions {
            config_name,
            regenerate,
            layout,
            crate_path: DEFAULT_CRATE_PATH.to_owned(),
        }
    }

    /// Names the runtime crate `path` in generated code (for a renamed or re-exported
    /// `toolforge` dependency).
    ///
    /// ```
    /// use toolforge_generator::__private::codegen::{GenerateOptions, Layout, generate_files};
    /// let source = "name: demo\nentities:\n  - name: Note\n    searchable_fields:\n      - name: title\n        type: string\n";
    /// let compiled = toolforge_generator::compile_str(source, "demo.yaml", &Default::default()).unwrap();
    /// let options = GenerateOptions::new("demo.yaml", Layout::Embedded).with_crate_path("::tf");
    /// let module = &generate_files(&compiled.spec, &options).unwrap()[0].contents;
    /// assert!(module.contains("::tf::sql::Database"));
    /// assert!(!module.contains("::toolforge::"));
    /// ```
    pub fn with_crate_path(mut self, path: impl Into<String>) -> Self {
        self.crate_path = path.into();
        self
    }

    /// The options of `toolforge generate ... --crate-path PATH`: [`with_crate_path`], and the
    /// regenerate command in the headers names the flag too.
    ///
    /// [`with_crate_path`]: GenerateOptions::with_crate_path
    ///
    /// ```
    /// use std::path::Path;
    /// use toolforge_generator::__private::codegen::GenerateOptions;
    ///
    /// let options = GenerateOptions::cli_generate(Path::new("c.yaml"), Path::new("src/tools"))
    ///     .with_cli_crate_path("::tf");
    /// assert_eq!(options.crate_path, "::tf");
    /// assert!(options.regenerate.ends_with("--out src/tools --crate-path ::tf"));
    /// ```
    pub fn with_cli_crate_path(mut self, path: &str) -> Self {
        self.regenerate.push_str(&format!(" --crate-path {path}"));
        self.with_crate_path(path)
    }

    /// The options `toolforge generate --config <config> --out <out>` (and `toolforge check`
    /// with the same arguments) use: a client folder whose headers name `config` and the exact
    /// command, with the paths as given. A test that checks a folder is fresh uses these so it
    /// agrees with the CLI byte for byte.
    ///
    /// ```
    /// use std::path::Path;
    /// use toolforge_generator::__private::codegen::{GenerateOptions, Layout};
    ///
    /// let options = GenerateOptions::cli_generate(Path::new("ragforge.config.yaml"), Path::new("src/tools"));
    /// assert_eq!(options.layout, Layout::ClientFolder);
    /// assert_eq!(options.config_name, "ragforge.config.yaml");
    /// assert_eq!(options.regenerate, "toolforge generate --config ragforge.config.yaml --out src/tools");
    /// ```
    pub fn cli_generate(config: &std::path::Path, out: &std::path::Path) -> Self {
        let config_name = config.display().to_string();
        let mut options = GenerateOptions::new(config_name.clone(), Layout::ClientFolder);
        options.regenerate = format!(
            "toolforge generate --config {config_name} --out {}",
            out.display()
        );
        options
    }
}
