//! What real clients need from the definitions of every corpus config, in every dialect:
//! descriptions a gateway accepts, and schemas the provider libraries read.

use serde_json::Value;
use toolforge::ToolDefinition;
use toolforge::dialect::{Dialect, MAX_DESCRIPTION_CHARS, export};
use toolforge_tests::corpus_dir;

/// (file name, the registry's definitions) of every corpus config that compiles.
fn corpus_definitions() -> Vec<(String, Vec<ToolDefinition>)> {
    let mut files: Vec<_> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    files.sort();
    let compiled: Vec<_> = files
        .iter()
        .filter_map(|path| {
            let compiled = toolforge_generator::compile_file(path, &Default::default()).ok()?;
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            Some((name, toolforge::sql::registry_definitions(&compiled.spec)))
        })
        .collect();
    assert!(
        compiled.len() >= 10,
        "only {} corpus configs compile",
        compiled.len()
    );
    compiled
}

/// The tool description inside one exported definition.
fn exported_description(exported: &Value) -> &str {
    exported["description"]
        .as_str()
        .or(exported["function"]["description"].as_str())
        .unwrap_or_else(|| panic!("no description in {exported}"))
}

#[test]
fn every_description_of_every_corpus_config_fits_1024_characters_in_every_dialect() {
    let mut checked = 0;
    for (file, definitions) in corpus_definitions() {
        for definition in &definitions {
            // Written to fit, not cut to fit.
            assert!(
                !definition.description.ends_with('…'),
                "{file}: {} was cut:\n{}",
                definition.name,
                definition.description
            );
            if definition.name == "query_entities" {
                assert!(definition.description.contains("Example call: {"), "{file}");
            }
            for dialect in Dialect::ALL {
                let exported = export(definition, dialect);
                let length = exported_description(&exported).chars().count();
                assert!(
                    length <= MAX_DESCRIPTION_CHARS,
                    "{file}: {} has {length} characters in {dialect:?}",
                    definition.name
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 300, "{checked}");
}
