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

/// Every `(description, default)` of the schema nodes that have a default.
fn defaults(schema: &Value, out: &mut Vec<(String, Value)>) {
    match schema {
        Value::Object(object) => {
            if let Some(default) = object.get("default") {
                let description = object.get("description").and_then(Value::as_str);
                out.push((description.unwrap_or_default().to_owned(), default.clone()));
            }
            object.values().for_each(|value| defaults(value, out));
        }
        Value::Array(items) => items.iter().for_each(|value| defaults(value, out)),
        _ => {}
    }
}

/// Every description in a schema.
fn descriptions(schema: &Value, out: &mut Vec<String>) {
    match schema {
        Value::Object(object) => {
            if let Some(Value::String(text)) = object.get("description") {
                out.push(text.clone());
            }
            object.values().for_each(|value| descriptions(value, out));
        }
        Value::Array(items) => items.iter().for_each(|value| descriptions(value, out)),
        _ => {}
    }
}

#[test]
fn strict_descriptions_state_every_default_the_strict_schema_drops() {
    let mut checked = 0;
    for (file, definitions) in corpus_definitions() {
        for definition in &definitions {
            let mut wanted = Vec::new();
            defaults(&definition.input_schema, &mut wanted);
            let strict = export(definition, Dialect::OpenAiChat);
            let parameters = &strict["function"]["parameters"];
            assert!(!parameters.to_string().contains("\"default\""), "{file}");
            let mut stated = Vec::new();
            descriptions(parameters, &mut stated);
            for (description, default) in wanted {
                assert!(
                    stated
                        .iter()
                        .any(|text| text.starts_with(description.trim_end())
                            && text.to_lowercase().contains("default")),
                    "{file}: {}: the default {default} of \"{description}\" is not stated in \
                     {stated:#?}",
                    definition.name
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 20, "{checked}");
}

#[test]
fn batch_is_read_only_over_database_tools_and_with_children_needs_a_hierarchy() {
    for (file, definitions) in corpus_definitions() {
        let batch = definitions.iter().find(|d| d.name == "batch").unwrap();
        assert_eq!(
            export(batch, Dialect::Mcp)["annotations"],
            serde_json::json!({"readOnlyHint": true, "openWorldHint": false}),
            "{file}"
        );
        let compiled =
            toolforge_generator::compile_file(&corpus_dir().join(&file), &Default::default())
                .unwrap();
        let has_hierarchy = compiled.spec.entities.iter().any(|e| e.hierarchy.is_some());
        let by_ids = definitions
            .iter()
            .find(|d| d.name == "get_entities_by_ids")
            .unwrap();
        assert_eq!(
            by_ids.input_schema["properties"]
                .get("with_children")
                .is_some(),
            has_hierarchy,
            "{file}"
        );
    }
}

#[test]
fn every_gemini_declaration_of_every_corpus_config_keeps_to_the_gemini_subset() {
    let mut checked = 0;
    for (file, definitions) in corpus_definitions() {
        for definition in &definitions {
            let declaration = export(definition, Dialect::Gemini);
            let parameters = declaration
                .get("parameters")
                .unwrap_or_else(|| panic!("{file}: {} has no parameters", definition.name));
            if let Err(problems) = toolforge::dialect::is_gemini_compatible(parameters) {
                panic!("{file}: {}: {problems:#?}", definition.name);
            }
            checked += 1;
        }
    }
    assert!(checked > 80, "{checked}");
}
