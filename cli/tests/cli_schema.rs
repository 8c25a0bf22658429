//! `toolforge schema`: the JSON Schema of the config format by default, and with `--config
//! FILE` the config's entity–relationship diagram as Mermaid, DOT or SVG; usage errors say
//! which flag to add or drop.

use std::process::Command;

use serde_json::Value;

/// Books and their authors: a computed field and one relationship.
const CONFIG: &str = include_str!("fixtures/library-books.yaml");

fn toolforge() -> Command {
    Command::new(env!("CARGO_BIN_EXE_toolforge"))
}

#[test]
fn schema_draws_a_config_in_three_formats() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("library.yaml");
    std::fs::write(&config, CONFIG).unwrap();
    let run = |args: &[&str]| {
        let output = toolforge().arg("schema").args(args).output().unwrap();
        (
            output.status.code(),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        )
    };
    let config = config.to_str().unwrap();
    let (code, mermaid, _) = run(&["--config", config, "--format", "mermaid"]);
    assert_eq!(code, Some(0));
    assert!(
        mermaid.contains("    Book }o--o{ Author : \"WRITTEN_BY\""),
        "{mermaid}"
    );
    assert!(mermaid.contains("string isbn PK"), "{mermaid}");
    assert!(mermaid.contains("string title \"indexed\""), "{mermaid}");
    assert!(
        mermaid.contains("boolean long \"computed: pages > 300\""),
        "{mermaid}"
    );
    // mermaid is the default format of a config
    assert_eq!(run(&["--config", config]).1, mermaid);
    let (code, dot, _) = run(&["--config", config, "--format", "dot"]);
    assert_eq!(code, Some(0));
    assert!(
        dot.contains("\"Book\" -> \"Author\" [label=\"WRITTEN_BY\"];"),
        "{dot}"
    );
    let (code, svg, _) = run(&["--config", config, "--format", "svg"]);
    assert_eq!(code, Some(0));
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{svg}"
    );
    assert!(svg.contains("data-entity=\"Author\""));
    // the JSON Schema stays the default without a config
    let (code, schema, _) = run(&[]);
    assert_eq!(code, Some(0));
    assert_eq!(run(&["--format", "json-schema"]).1, schema);
    let schema: Value = serde_json::from_str(&schema).unwrap();
    assert!(schema.get("$schema").is_some() || schema.get("properties").is_some());
    // a diagram needs a config, and the JSON Schema takes none
    let (code, _, stderr) = run(&["--format", "svg"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("--config FILE"), "{stderr}");
    let (code, _, stderr) = run(&["--config", config, "--format", "json-schema"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("drop --config"), "{stderr}");
    // an invalid config is reported as `validate` does
    let broken = std::path::Path::new(config).with_file_name("broken.yaml");
    std::fs::write(
        &broken,
        "entities:\n  - name: A\n    searchable_fields:\n      - {name: x, type: strin}\n",
    )
    .unwrap();
    let (code, _, stderr) = run(&["--config", broken.to_str().unwrap(), "--format", "dot"]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("broken.yaml:"), "{stderr}");
}
