//! `toolforge generate` / `check` on real folders: custom tools preserved, no torn files, no
//! change on failure, deterministic output.

use std::fs;
use std::path::{Path, PathBuf};

use toolforge_cli::{Output, run_with};

#[cfg(unix)]
use crate::unprivileged::{self, chmod};

fn run(args: &[&str]) -> (i32, String, String) {
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let code = run_with(
        std::iter::once("toolforge").chain(args.iter().copied()),
        &mut Output {
            stdout: &mut stdout,
            stderr: &mut stderr,
        },
    );
    (
        code,
        String::from_utf8(stdout).unwrap(),
        String::from_utf8(stderr).unwrap(),
    )
}

const BASE: &str = "\
name: shop
entities:
  - name: Product
    unique_field: sku
    searchable_fields:
      - name: sku
        type: string
      - name: price
        type: number
";

fn config_with(dir: &Path, extra_fields: usize) -> PathBuf {
    let mut text = BASE.to_string();
    for i in 0..extra_fields {
        text.push_str(&format!("      - name: extra{i}\n        type: string\n"));
    }
    let path = dir.join("shop.yaml");
    fs::write(&path, text).unwrap();
    path
}

fn snapshot(folder: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                fs::read(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn custom_tools_survive_fifty_regenerations_of_a_changing_config() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tools");
    let config = config_with(dir.path(), 0);
    let args = [
        "generate",
        "--config",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    assert_eq!(run(&args).0, 0);
    let custom = out.join("custom_tools.rs");
    let edited = format!("{}\n// my own edit\n", fs::read_to_string(&custom).unwrap());
    fs::write(&custom, &edited).unwrap();
    let mut previous = fs::read_to_string(out.join("mod.rs")).unwrap();
    for round in 1..=50 {
        config_with(dir.path(), round % 7);
        let (code, stdout, stderr) = run(&args);
        assert_eq!(code, 0, "{stderr}");
        assert!(stdout.contains("kept (user file)"), "{stdout}");
        assert_eq!(
            fs::read_to_string(&custom).unwrap(),
            edited,
            "round {round}"
        );
        let current = fs::read_to_string(out.join("mod.rs")).unwrap();
        if round % 7 != (round - 1) % 7 {
            assert_ne!(current, previous, "round {round}: the config changed");
        }
        previous = current;
    }
}

#[test]
fn an_unchanged_config_rewrites_nothing_and_check_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tools");
    let config = config_with(dir.path(), 2);
    let config = config.to_str().unwrap();
    let out_s = out.to_str().unwrap();
    assert_eq!(run(&["generate", "--config", config, "--out", out_s]).0, 0);
    let modified = fs::metadata(out.join("mod.rs"))
        .unwrap()
        .modified()
        .unwrap();
    let before = snapshot(&out);
    let (code, stdout, _) = run(&["generate", "--config", config, "--out", out_s]);
    assert_eq!(code, 0);
    assert!(stdout.contains("up to date: nothing rewritten"), "{stdout}");
    assert_eq!(snapshot(&out), before, "two runs give byte-identical files");
    assert_eq!(
        fs::metadata(out.join("mod.rs"))
            .unwrap()
            .modified()
            .unwrap(),
        modified
    );
    assert_eq!(run(&["check", "--config", config, "--out", out_s]).0, 0);

    // The config changes: check fails with a summary and a diff naming the new field.
    config_with(dir.path(), 3);
    let (code, stdout, _) = run(&["check", "--config", config, "--out", out_s]);
    assert_eq!(code, 1);
    assert!(stdout.contains("is stale: 3 file(s) differ"), "{stdout}");
    assert!(
        stdout.contains("+") && stdout.contains("extra2"),
        "{stdout}"
    );
}

#[test]
fn a_file_without_the_header_is_refused_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tools");
    fs::create_dir_all(&out).unwrap();
    fs::write(out.join("mod.rs"), "// my module\n").unwrap();
    let config = config_with(dir.path(), 0);
    let args = [
        "generate",
        "--config",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let (code, _, stderr) = run(&args);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("refusing to overwrite") && stderr.contains("--force"),
        "{stderr}"
    );
    assert_eq!(
        fs::read_to_string(out.join("mod.rs")).unwrap(),
        "// my module\n"
    );
    assert!(!out.join("schema.sql").exists(), "a refusal writes nothing");
    let mut forced = args.to_vec();
    forced.push("--force");
    assert_eq!(run(&forced).0, 0);
    assert!(
        fs::read_to_string(out.join("mod.rs"))
            .unwrap()
            .starts_with("// @generated by toolforge")
    );
}

#[test]
fn a_bad_config_changes_no_file_and_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tools");
    let config = config_with(dir.path(), 1);
    let args = [
        "generate",
        "--config",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    assert_eq!(run(&args).0, 0);
    let before = snapshot(&out);
    fs::write(&config, BASE.replace("type: number", "type: nubmer")).unwrap();
    let (code, _, stderr) = run(&args);
    assert_eq!(code, 1);
    assert!(stderr.contains("shop.yaml:9:15"), "{stderr}");
    assert_eq!(snapshot(&out), before);
}

/// Configs `validate` used to accept and `generate` or `db init` then refused or panicked on:
/// now `validate` refuses them with a location, and nothing else runs on them.
#[test]
fn what_validate_refuses_nothing_else_runs() {
    let cases = [
        (
            "unique.yaml",
            "entities:\n  - name: Doc\n    unique_field: \"x²\"\n",
            "unique.yaml:3:19",
        ),
        (
            "reserved.yaml",
            "entities:\n  - name: SqliteMaster\n",
            "reserved.yaml:2:11",
        ),
        (
            "edge.yaml",
            "entities:\n  - name: Doc\n    relationships:\n      - type: LINKS\n        target: Doc\n        properties:\n          - name: source_id\n            type: string\n",
            "edge.yaml:7:19",
        ),
        (
            "objects.yaml",
            "entities:\n  - name: A\n    searchable_fields:\n      - name: x\n        type: string\n        indexed: true\n    relationships:\n      - type: X\n        target: Idx\n  - name: Idx\n",
            "objects.yaml:8:15",
        ),
    ];
    for (name, source, location) in cases {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join(name);
        fs::write(&config, source).unwrap();
        let config = config.to_str().unwrap();
        let out = dir.path().join("tools");
        let db = dir.path().join("data.db");
        let (code, _, stderr) = run(&["validate", "--config", config]);
        assert_eq!(code, 1, "{name}: {stderr}");
        assert!(stderr.contains(location), "{name}: {stderr}");
        let (code, _, stderr) = run(&[
            "generate",
            "--config",
            config,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 1, "{name}: {stderr}");
        assert!(stderr.contains(location), "{name}: {stderr}");
        assert!(!out.exists(), "{name}: nothing generated");
        let (code, _, stderr) = run(&[
            "db",
            "init",
            "--config",
            config,
            "--db",
            db.to_str().unwrap(),
        ]);
        assert_eq!(code, 1, "{name}: {stderr}");
        assert!(stderr.contains(location), "{name}: {stderr}");
    }
}

/// File and folder names with line breaks (legal on Unix) stay inside the header comments.
#[cfg(unix)]
#[test]
fn line_breaks_in_file_and_folder_names_stay_in_the_headers() {
    let dir = tempfile::tempdir().unwrap();
    let nested = dir.path().join("cfg\npub fn injected() {}\n//");
    fs::create_dir_all(&nested).unwrap();
    let config = nested.join("shop\r\n#![deny(warnings)].yaml");
    fs::write(&config, BASE).unwrap();
    let out = dir.path().join("tools\n}\nfn also_injected() {\n");
    let args = [
        "generate",
        "--config",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let (code, _, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    for (file, comment) in [("mod.rs", "//"), ("schema.sql", "--")] {
        let text = fs::read_to_string(out.join(file)).unwrap();
        let header: Vec<&str> = text.lines().take(2).collect();
        assert!(
            header.iter().all(|line| line.starts_with(comment)),
            "{file}: {header:?}"
        );
        assert!(
            header[0].contains("cfg\\npub fn injected() {}\\n//"),
            "{header:?}"
        );
        assert!(
            header[0].contains("shop\\r\\n#![deny(warnings)].yaml"),
            "{header:?}"
        );
        assert!(
            header[1].contains("tools\\n}\\nfn also_injected() {\\n"),
            "{header:?}"
        );
        assert!(!text.contains("\npub fn injected"), "{file}");
        assert!(!text.contains("\nfn also_injected"), "{file}");
    }
    let custom = fs::read_to_string(out.join("custom_tools.rs")).unwrap();
    assert!(!custom.contains("\npub fn injected"), "{custom}");
    // Still recognised as generated: the next run rewrites nothing and `check` agrees.
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("up to date"), "{stdout}");
    let mut check = args;
    check[0] = "check";
    assert_eq!(run(&check).0, 0);
}

/// A hand-written file that only mentions the generated marker is not overwritten.
#[test]
fn a_file_mentioning_the_marker_is_refused_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tools");
    fs::create_dir_all(&out).unwrap();
    let mine = "//! My module. Unlike the files marked `@generated by toolforge`, this one is mine.\npub fn mine() {}\n";
    fs::write(out.join("mod.rs"), mine).unwrap();
    let config = config_with(dir.path(), 0);
    let args = [
        "generate",
        "--config",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let (code, _, stderr) = run(&args);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("refusing to overwrite"), "{stderr}");
    assert_eq!(fs::read_to_string(out.join("mod.rs")).unwrap(), mine);
    let mut forced = args.to_vec();
    forced.push("--force");
    assert_eq!(run(&forced).0, 0);
    assert!(
        fs::read_to_string(out.join("mod.rs"))
            .unwrap()
            .starts_with("// @generated by toolforge")
    );
}

/// A generation into a folder its user cannot write fails and changes no file. The failing
/// run is `toolforge` as a user for whom the folder's mode holds (`unprivileged.rs`: `nobody`
/// when the tests run as root), and that it holds is checked first.
#[cfg(unix)]
#[test]
fn an_unwritable_folder_changes_no_file() {
    let dir = tempfile::tempdir().unwrap();
    // The user of the failing run reads the config and the folder.
    chmod(dir.path(), 0o755);
    let out = dir.path().join("tools");
    let config = config_with(dir.path(), 1);
    let args = [
        "generate",
        "--config",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    assert_eq!(run(&args).0, 0);
    let before = snapshot(&out);
    config_with(dir.path(), 2);
    chmod(&out, 0o555);
    let probe = unprivileged::shell(&format!("touch '{}/probe'", out.display()));
    assert!(
        !probe.status.success(),
        "the folder must not be writable for the user of the run"
    );
    let failed = unprivileged::toolforge(&args);
    chmod(&out, 0o755);
    let stderr = String::from_utf8(failed.stderr).unwrap();
    assert_eq!(failed.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("error:"), "{stderr}");
    assert_eq!(snapshot(&out), before, "no torn or partial file");
}

#[test]
fn concurrent_generations_leave_no_torn_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tools");
    let config = config_with(dir.path(), 4);
    let config = config.to_str().unwrap().to_string();
    let out_s = out.to_str().unwrap().to_string();
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                for _ in 0..5 {
                    let (code, _, stderr) =
                        run(&["generate", "--config", &config, "--out", &out_s]);
                    assert_eq!(code, 0, "{stderr}");
                }
            });
        }
    });
    // Every file is complete: exactly what one sequential run writes.
    let (code, stdout, _) = run(&["check", "--config", &config, "--out", &out_s]);
    assert_eq!(code, 0, "{stdout}");
    let names: Vec<String> = snapshot(&out).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        ["custom_tools.rs", "mod.rs", "schema.sql", "spec.json"],
        "no temporary file left"
    );
}

/// Two configs generated into one folder at the same time: the folder afterwards is exactly
/// one config's output (the runs take turns on the folder's lock), and no lock or temporary
/// file is left.
#[test]
fn concurrent_generations_of_two_configs_leave_one_configs_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tools");
    let out = out.to_str().unwrap();
    let mut configs = Vec::new();
    for (name, entity) in [("a.yaml", "Product"), ("b.yaml", "Order")] {
        let mut text = format!("name: {entity}\nentities:\n");
        for i in 0..12 {
            text.push_str(&format!(
                "  - name: {entity}{i}\n    searchable_fields:\n      - name: {entity}_field{i}\n        type: string\n"
            ));
        }
        let path = dir.path().join(name);
        fs::write(&path, text).unwrap();
        configs.push(path.to_str().unwrap().to_string());
    }
    for round in 0..25 {
        std::thread::scope(|scope| {
            for config in &configs {
                scope.spawn(move || {
                    let (code, _, stderr) = run(&["generate", "--config", config, "--out", out]);
                    assert_eq!(code, 0, "{stderr}");
                });
            }
        });
        let fresh: Vec<bool> = configs
            .iter()
            .map(|config| run(&["check", "--config", config, "--out", out]).0 == 0)
            .collect();
        assert!(
            fresh.contains(&true),
            "round {round}: the folder mixes the two configs' files"
        );
        let names: Vec<String> = snapshot(Path::new(out))
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(
            names,
            ["custom_tools.rs", "mod.rs", "schema.sql", "spec.json"],
            "round {round}: no lock or temporary file left"
        );
    }
}

#[test]
fn init_scaffolds_a_valid_config_and_its_client() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let (code, stdout, stderr) = run(&["init", "--dir", d]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("ragforge.config.yaml"));
    let mod_rs = fs::read_to_string(dir.path().join("src/tools/mod.rs")).unwrap();
    assert!(
        mod_rs.contains("from `ragforge.config.yaml`"),
        "header names the relative config"
    );
    assert!(mod_rs.contains("pub struct Note {"));
    // A second init keeps the (possibly edited) config.
    fs::write(dir.path().join("ragforge.config.yaml"), "name: mine\n").unwrap();
    run(&["init", "--dir", d]);
    assert_eq!(
        fs::read_to_string(dir.path().join("ragforge.config.yaml")).unwrap(),
        "name: mine\n"
    );
}

#[test]
fn a_crate_path_names_the_runtime_everywhere_and_check_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tools");
    let config = config_with(dir.path(), 1);
    let (config, out_s) = (config.to_str().unwrap(), out.to_str().unwrap());
    let with_path = ["--config", config, "--out", out_s, "--crate-path", "::tf"];
    let generate: Vec<&str> = std::iter::once("generate").chain(with_path).collect();
    assert_eq!(run(&generate).0, 0);
    let module = fs::read_to_string(out.join("mod.rs")).unwrap();
    assert!(module.contains("::tf::sql::Database"), "{module}");
    assert!(!module.contains("::toolforge::"), "{module}");
    // The header's regenerate command reproduces the folder byte for byte.
    assert!(module.contains("--crate-path ::tf"), "{module}");
    let stub = fs::read_to_string(out.join("custom_tools.rs")).unwrap();
    assert!(stub.contains("use tf::sql::Database;"), "{stub}");
    let check: Vec<&str> = std::iter::once("check").chain(with_path).collect();
    assert_eq!(run(&check).0, 0);
    // Without the flag the folder is stale.
    assert_eq!(run(&["check", "--config", config, "--out", out_s]).0, 1);

    // A path that is not a Rust path is refused, and nothing changes.
    let before = snapshot(&out);
    let (code, _, stderr) = run(&[
        "generate",
        "--config",
        config,
        "--out",
        out_s,
        "--crate-path",
        "tool forge",
    ]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("`tool forge` is not a Rust path"),
        "{stderr}"
    );
    assert_eq!(snapshot(&out), before);
}
