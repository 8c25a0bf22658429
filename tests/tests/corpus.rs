//! Every ragforge config of the corpus is handled: its diagnostics (and, when valid, the
//! tables and edge tables it lowers to) are snapshot-tested, every config that defines
//! entities validates without errors, and every config validates against the JSON Schema
//! printed by `toolforge schema`.

use std::path::Path;

use serde_json::{Value, json};
use toolforge_generator::{CompileOptions, compile_str};
use toolforge_tests::corpus_dir;

fn read(file: &str) -> String {
    std::fs::read_to_string(corpus_dir().join(file)).expect("corpus file")
}

/// What a user sees for one config, without machine-specific paths.
fn report(file: &str) -> Value {
    let source = read(file);
    let result = compile_str(&source, file, &CompileOptions::default());
    let (valid, diagnostics, spec) = match &result {
        Ok(compiled) => (true, &compiled.warnings, Some(&compiled.spec)),
        Err(diagnostics) => (false, diagnostics, None),
    };
    let diagnostics: Vec<Value> = diagnostics
        .items()
        .iter()
        .map(|d| {
            json!({
                "severity": d.severity,
                "at": format!("{}:{}", d.line, d.column),
                "path": d.path,
                "message": d.message,
                "hint": d.hint,
            })
        })
        .collect();
    let spec = spec.map(|spec| {
        json!({
            "name": spec.name,
            "tables": spec.entities.iter().map(|e| {
                let fields: Vec<&str> = e.fields.iter().map(|f| f.name.as_str()).collect();
                let computed: Vec<&str> = e.computed_fields.iter().map(|f| f.name.as_str()).collect();
                let vectors: Vec<&str> = e.vector_indexes.iter().map(|v| v.column.as_str()).collect();
                json!({ "table": e.table, "fields": fields, "computed": computed, "vectors": vectors })
            }).collect::<Vec<_>>(),
            "edges": spec.relationships.iter().map(|r| r.table.as_str()).collect::<Vec<_>>(),
        })
    });
    let defines_entities = toolforge_generator::__private::config::yaml_to_json(&source)
        .ok()
        .and_then(|v| {
            v.get("entities")
                .and_then(Value::as_array)
                .map(|a| !a.is_empty())
        })
        .unwrap_or(false);
    if defines_entities {
        assert!(
            valid,
            "{file} defines entities and must validate:\n{}",
            result.err().map(|d| d.render()).unwrap_or_default()
        );
    }
    json!({ "valid": valid, "diagnostics": diagnostics, "spec": spec })
}

macro_rules! corpus {
    ($($(#[$attr:meta])* $name:ident => $file:literal,)*) => {
        $(
            #[test]
            $(#[$attr])*
            fn $name() {
                insta::assert_json_snapshot!(stringify!($name), report($file));
            }
        )*

        const FILES: &[&str] = &[$($file),*];
    };
}

corpus! {
    code_typescript_defaults => "ragforge-core__src__defaults__code-typescript.yaml",
    code_rag => "ragforge__examples__code-rag__ragforge.config.yaml",
    css_test => "ragforge__examples__css-test__ragforge.config.yaml",
    document_rag => "ragforge__examples__document-rag__ragforge.config.yaml",
    generated_from_lr_coderag => "ragforge__examples__generated-from-lr-coderag.yaml",
    lr_coderag_dual_embeddings => "ragforge__examples__lr-coderag-dual-embeddings.yaml",
    code_with_summarization => "ragforge__examples__ragforge.code-with-summarization.yaml",
    tool_calling_agent => "ragforge__examples__tool-calling-agent__ragforge.config.yaml",
    tool_calling_agent_minimal => "ragforge__examples__tool-calling-agent__test-config-minimal.yaml",
    tool_calling_agent_aggregations => "ragforge__examples__tool-calling-agent__test-config-with-aggregations.yaml",
    tool_calling_agent_change_tracking => "ragforge__examples__tool-calling-agent__test-config-with-change-tracking.yaml",
    tool_calling_agent_computed_fields => "ragforge__examples__tool-calling-agent__test-config-with-computed-fields.yaml",
    multi_provider_example => "ragforge__packages__runtime__ragforge.multi-provider-example.yaml",
    test_code_rag_backup => "ragforge__test-code-rag__ragforge.config.yaml.backup.yaml",
    test_self_analysis => "ragforge__test-self-analysis__ragforge.config.yaml",
}

#[test]
fn every_corpus_file_has_a_snapshot_test() {
    let mut on_disk: Vec<String> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".yaml") || name.ends_with(".yml"))
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = FILES.iter().map(|f| f.to_string()).collect();
    listed.sort();
    assert_eq!(
        on_disk, listed,
        "add new corpus files to the `corpus!` list"
    );
}

#[test]
fn every_corpus_config_validates_against_the_json_schema() {
    let schema = toolforge_generator::__private::config::json_schema();
    let validator = jsonschema::validator_for(&schema).expect("the schema is a valid JSON Schema");
    for file in FILES {
        let instance =
            toolforge_generator::__private::config::yaml_to_json(&read(file)).expect("YAML");
        let errors: Vec<String> = validator
            .iter_errors(&instance)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{file}: {errors:#?}");
    }
}

#[test]
fn the_json_schema_rejects_wrong_types() {
    let schema = toolforge_generator::__private::config::json_schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let bad = toolforge_generator::__private::config::yaml_to_json(
        "entities:\n  - name: A\n    searchable_fields:\n      - name: x\n        type: whole\n",
    )
    .unwrap();
    assert!(!validator.is_valid(&bad));
    let bad = toolforge_generator::__private::config::yaml_to_json("toolforge:\n  max_limit: -1\n")
        .unwrap();
    assert!(!validator.is_valid(&bad));
}

#[test]
fn the_corpus_directory_exists() {
    assert!(Path::new(&corpus_dir()).is_dir());
}

/// Every tool a config yields, generated, declared or built in, declares what it answers: MCP
/// clients check `structuredContent` against it. The answers themselves are checked against
/// these schemas wherever the tests call the tools (the end-to-end, change, access-rule,
/// declared-tool and batch tests).
#[test]
fn every_tool_of_every_config_declares_an_output_schema() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let configs = FILES.iter().map(|file| corpus_dir().join(file)).chain([
        fixtures.join("declared/library.yaml"),
        fixtures.join("access/branches.yaml"),
    ]);
    let meta = jsonschema::draft202012::meta::validator();
    let mut checked = 0;
    for config in configs {
        let Ok(definitions) = toolforge_cli::dynamic::definitions(&config, &Default::default())
        else {
            continue;
        };
        for definition in definitions {
            let name = format!("{}: {}", config.display(), definition.name);
            let schema = definition
                .output_schema
                .unwrap_or_else(|| panic!("{name} has no outputSchema"));
            assert!(
                meta.is_valid(&schema),
                "{name}: not a JSON Schema: {schema}"
            );
            assert_eq!(
                schema["type"], "object",
                "{name}: MCP wants an object at the root"
            );
            checked += 1;
        }
    }
    assert!(checked > 150, "only {checked} tools checked");
}
