//! What a user's build pays for: `toolforge-generator` (a `build.rs` dependency) and
//! `toolforge-config-macro` (a proc-macro) must not pull clap or SQLite into the build graph;
//! those belong to `toolforge-cli`. Checked with `cargo tree` on this workspace.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// Crates a build-time dependency must not bring in.
const HEAVY: &[&str] = &["clap", "rusqlite", "libsqlite3-sys"];

/// The names of the crates in the normal (non-dev, non-build) dependency graph of `package`,
/// as `cargo tree` resolves it for that package alone (its own features only).
fn normal_graph(package: &str) -> BTreeSet<String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root");
    let output = Command::new(cargo)
        .current_dir(workspace)
        .args(["tree", "--offline", "-p", package, "-e", "normal"])
        .args(["--prefix", "none", "--format", "{p}"])
        .output()
        .expect("cargo tree runs");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    assert!(
        output.status.success(),
        "cargo tree -p {package} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Lines look like `syn v3.0.9` or `toolforge v0.1.0 (/path) (*)`.
    stdout
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

fn assert_light(package: &str) {
    let graph = normal_graph(package);
    // The listing is real: the package and its code-generation dependencies are in it.
    for expected in [package, "syn", "quote", "toolforge-runtime"] {
        assert!(
            graph.contains(expected),
            "`{expected}` missing from the graph of {package}: {graph:?}"
        );
    }
    let heavy: Vec<&str> = HEAVY
        .iter()
        .copied()
        .filter(|name| graph.contains(*name))
        .collect();
    assert!(
        heavy.is_empty(),
        "{package} pulls {heavy:?} into every build that uses it; they belong to toolforge-cli"
    );
}

#[test]
fn the_generator_links_neither_clap_nor_sqlite() {
    assert_light("toolforge-generator");
}

#[test]
fn the_config_macro_links_neither_clap_nor_sqlite() {
    assert_light("toolforge-config-macro");
}

#[test]
fn the_cli_is_where_clap_and_sqlite_live() {
    // The same listing does show them where they belong, so the checks above can fail.
    let graph = normal_graph("toolforge-cli");
    for name in HEAVY {
        assert!(
            graph.contains(*name),
            "`{name}` missing from toolforge-cli: {graph:?}"
        );
    }
}
