//! A client generated from any valid config compiles in a user's crate whose only dependency is
//! `toolforge`: no serde, schemars or serde_json of its own, outside this workspace, with
//! warnings and missing docs denied.
//!
//! One scratch crate holds the client of every corpus config, of every test fixture and of the
//! examples' configs, plus one client that names the runtime through a re-export
//! (`GenerateOptions::with_crate_path`). It is checked with `cargo check` in its own target
//! folder under `target/`, so later runs only re-check the generated code.

use std::path::{Path, PathBuf};
use std::process::Command;

use toolforge_generator::__private::codegen::{GenerateOptions, Layout, generate_files};
use toolforge_generator::__private::output::write_folder;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits in the workspace")
        .to_path_buf()
}

/// Every config the generator must turn into a compiling client: (module name, config path
/// relative to the workspace root).
fn configs() -> Vec<(String, PathBuf)> {
    let root = workspace_root();
    let mut configs: Vec<(String, PathBuf)> = std::fs::read_dir(root.join("tests/corpus"))
        .expect("the corpus folder")
        .map(|entry| entry.expect("a corpus entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .map(|path| {
            let stem = path.file_stem().unwrap().to_string_lossy().to_string();
            (module_name(&stem), path)
        })
        .collect();
    for (name, path) in [
        ("fixture_awkward_names", "tests/fixtures/awkward-names.yaml"),
        ("fixture_notes", "config-macro/tests/fixtures/notes.yaml"),
        ("fixture_prelude_names", "tests/fixtures/prelude-names.yaml"),
        ("example_code_rag", "examples/code-rag/ragforge.config.yaml"),
        (
            "example_cli_client",
            "examples/cli-client/ragforge.config.yaml",
        ),
        ("init_template", "templates/init.config.yaml"),
    ] {
        configs.push((name.to_owned(), root.join(path)));
    }
    configs.sort();
    configs
}

/// A module name from a corpus file stem (`ragforge__examples__code-rag__ragforge.config`).
fn module_name(stem: &str) -> String {
    let words: Vec<String> = stem
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    format!("corpus_{}", words.join("_"))
}

/// Writes the client of `config` into `src/<module>/`; false when the config is invalid (no
/// client to generate).
fn write_client(crate_dir: &Path, module: &str, config: &Path, crate_path: Option<&str>) -> bool {
    let Ok(compiled) = toolforge_generator::compile_file(config, &Default::default()) else {
        return false;
    };
    let mut options = GenerateOptions::new(module, Layout::ClientFolder);
    if let Some(path) = crate_path {
        options = options.with_crate_path(path);
    }
    let files = generate_files(&compiled.spec, &options)
        .unwrap_or_else(|error| panic!("{}: {error}", config.display()));
    write_folder(&crate_dir.join("src").join(module), &files, false)
        .unwrap_or_else(|error| panic!("{module}: {error}"));
    true
}

#[test]
fn every_config_generates_a_client_that_compiles_with_toolforge_alone() {
    let root = workspace_root();
    let scratch = tempfile::tempdir().unwrap();
    let crate_dir = scratch.path();
    let runtime = root.join("runtime");
    std::fs::write(
        crate_dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"standalone-clients\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
             publish = false\n\n[dependencies]\ntoolforge = {{ path = {:?}, package = \"toolforge-runtime\" }}\n\n[workspace]\n",
            runtime.display().to_string()
        ),
    )
    .unwrap();
    // The workspace's versions of every dependency: nothing new to fetch.
    std::fs::copy(root.join("Cargo.lock"), crate_dir.join("Cargo.lock")).unwrap();

    let configs = configs();
    assert!(configs.len() >= 20, "{} configs", configs.len());
    let mut lib = String::from(
        "//! Every generated client, compiled with `toolforge` as the only dependency.\n\
         #![deny(warnings, missing_docs)]\n\n\
         /// The runtime under another path, as a crate that re-exports it would have it.\n\
         pub mod deps {\n    pub use ::toolforge;\n}\n\n",
    );
    let mut invalid = Vec::new();
    for (module, config) in &configs {
        if write_client(crate_dir, module, config, None) {
            lib.push_str(&format!("/// `{module}`.\npub mod {module};\n"));
        } else {
            invalid.push(module.as_str());
        }
    }
    // The two corpus configs without entities have nothing to generate; every other one does.
    assert_eq!(
        invalid,
        [
            "corpus_ragforge_examples_css_test_ragforge_config",
            "corpus_ragforge_test_self_analysis_ragforge_config"
        ]
    );
    assert!(write_client(
        crate_dir,
        "reexported_runtime",
        &root.join("tests/fixtures/awkward-names.yaml"),
        Some("crate::deps::toolforge"),
    ));
    lib.push_str(
        "/// A client naming the runtime `crate::deps::toolforge`.\npub mod reexported_runtime;\n",
    );
    // The re-exported client must not name `::toolforge` anywhere.
    let reexported =
        std::fs::read_to_string(crate_dir.join("src/reexported_runtime/mod.rs")).unwrap();
    assert_eq!(
        reexported.matches("::toolforge").count(),
        reexported.matches("crate::deps::toolforge").count(),
        "{reexported}"
    );
    std::fs::write(crate_dir.join("src/lib.rs"), lib).unwrap();

    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .arg("check")
        .arg("--quiet")
        .arg("--manifest-path")
        .arg(crate_dir.join("Cargo.toml"))
        .env(
            "CARGO_TARGET_DIR",
            root.join("target").join("standalone-clients"),
        )
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .expect("run cargo");
    assert!(
        output.status.success(),
        "the generated clients do not compile on their own:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
