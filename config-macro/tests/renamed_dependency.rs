//! This crate depends on the runtime under the name `tf` (see `Cargo.toml`), and nothing here
//! is named `toolforge`: the expansion compiles only if it names the runtime `::tf`, as the
//! manifest does.

mod tools {
    toolforge_config_macro::include_config!("tests/fixtures/notes.yaml");
}

#[test]
fn the_expansion_names_the_runtime_as_the_manifest_does() {
    let spec: &tf::spec::SchemaSpec = tools::spec();
    assert_eq!(spec.entities[0].name, "Note");
    let names: Vec<String> = tools::database_tools()
        .iter()
        .map(|tool| tool.definition().name.clone())
        .collect();
    assert!(names.contains(&"get_entity_by_id".to_owned()), "{names:?}");
}
