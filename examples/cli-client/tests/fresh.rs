//! The checked-in client folder `src/library/` is exactly what `toolforge generate` writes from
//! `ragforge.config.yaml` today: a config or generator change without regenerating fails here,
//! with the diff.
//!
//! The headers record repository-relative paths, because the folder is generated and checked
//! from the repository root:
//! `toolforge generate --config examples/cli-client/ragforge.config.yaml --out examples/cli-client/src/library`.

use std::path::Path;

use toolforge_generator::__private::check_generated_folder;
use toolforge_generator::__private::codegen::GenerateOptions;
use toolforge_generator::__private::output::Drift;
use toolforge_generator::CompileOptions;

/// The paths as given on the command line (from the repository root), which the headers show.
const CONFIG: &str = "examples/cli-client/ragforge.config.yaml";
const OUT: &str = "examples/cli-client/src/library";

#[test]
fn the_generated_client_folder_is_up_to_date() {
    let package = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The options `toolforge generate` and `toolforge check` use for these arguments.
    let options = GenerateOptions::cli_generate(Path::new(CONFIG), Path::new(OUT));
    let compile = CompileOptions::default().strict(true);
    let drift = check_generated_folder(
        &package.join("ragforge.config.yaml"),
        &package.join("src/library"),
        &compile,
        &options,
    )
    .unwrap_or_else(|error| panic!("{error}"));
    if !drift.is_empty() {
        let mut report = String::new();
        for item in &drift {
            match item {
                Drift::Missing(path) => report.push_str(&format!("missing {}\n", path.display())),
                Drift::Changed { path, diff } => {
                    report.push_str(&format!("changed {}\n{diff}\n", path.display()))
                }
                other => report.push_str(&format!("{other:?}\n")),
            }
        }
        panic!(
            "src/library is stale; from the repository root run\n  \
             cargo run -p toolforge-cli -- generate --config {CONFIG} --out {OUT}\n\n{report}"
        );
    }
}
