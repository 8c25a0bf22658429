//! Lowering a valid config into the storage spec.

use crate::common;

use common::ok;
use toolforge::spec::{FieldType, ToolFamily, ToolOptions};

#[test]
fn entities_become_snake_case_tables_with_the_unique_field_added_first() {
    let compiled = ok("\
name: demo
description: A demo
entities:
  - name: ExternalLibrary
    searchable_fields:
      - name: name
        type: string
        indexed: true
      - name: kind
        type: enum
        values: [crate, npm]
  - name: File
    unique_field: path
    searchable_fields:
      - name: path
        type: string
");
    let spec = &compiled.spec;
    assert_eq!(spec.name, "demo");
    assert_eq!(spec.description.as_deref(), Some("A demo"));
    let library = &spec.entities[0];
    assert_eq!(library.table, "external_library");
    assert_eq!(library.unique_field, "uuid");
    let names: Vec<&str> = library.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["uuid", "name", "kind"]);
    assert_eq!(library.fields[0].ty, FieldType::String);
    assert!(library.fields[0].unique);
    assert!(library.fields[1].indexed && !library.fields[1].unique);
    assert_eq!(library.fields[2].ty, FieldType::Enum);
    assert_eq!(library.fields[2].values, ["crate", "npm"]);
    let file = &spec.entities[1];
    assert_eq!(
        file.fields.len(),
        1,
        "a listed unique field is not added again"
    );
    assert!(file.fields[0].unique);
}

#[test]
fn a_relationship_declared_at_both_ends_is_one_edge_table() {
    let compiled = ok("\
entities:
  - name: Scope
    relationships:
      - type: DEFINED_IN
        direction: outgoing
        target: File
        description: where the scope is
      - type: CALLS
        direction: both
        target: Scope
  - name: File
    relationships:
      - type: DEFINED_IN
        direction: incoming
        target: Scope
      - type: IN_DIRECTORY
        direction: outgoing
        target: Directory
        properties:
          - name: depth
            type: number
  - name: Directory
    relationships:
      - type: LINKS
        direction: both
        target: File
  - name: Other
    relationships:
      - type: LINKS
        direction: both
        target: Directory
");
    let edges: Vec<(&str, &str, &str, &str)> = compiled
        .spec
        .relationships
        .iter()
        .map(|r| {
            (
                r.source.as_str(),
                r.rel_type.as_str(),
                r.target.as_str(),
                r.table.as_str(),
            )
        })
        .collect();
    assert_eq!(
        edges,
        [
            ("Scope", "DEFINED_IN", "File", "scope__defined_in__file"),
            ("Scope", "CALLS", "Scope", "scope__calls__scope"),
            (
                "File",
                "IN_DIRECTORY",
                "Directory",
                "file__in_directory__directory"
            ),
            ("Directory", "LINKS", "File", "directory__links__file"),
            ("Other", "LINKS", "Directory", "other__links__directory"),
        ]
    );
    let defined_in = &compiled.spec.relationships[0];
    assert_eq!(
        defined_in.description.as_deref(),
        Some("where the scope is")
    );
    assert_eq!(compiled.spec.relationships[2].properties[0].name, "depth");
}

#[test]
fn both_directions_declared_from_the_other_end_are_the_same_edge() {
    let compiled = ok("\
entities:
  - name: A
    relationships:
      - type: LINKS
        direction: both
        target: B
  - name: B
    relationships:
      - type: LINKS
        direction: both
        target: A
");
    assert_eq!(compiled.spec.relationships.len(), 1);
    assert_eq!(compiled.spec.relationships[0].table, "a__links__b");
}

#[test]
fn vector_indexes_and_hierarchies_are_lowered() {
    let compiled = ok("\
entities:
  - name: Scope
    content_field: source
    hierarchical_content:
      children_relationship: HAS_PARENT
      include_children: true
    searchable_fields:
      - name: source
        type: string
    vector_index:
      name: legacy
      dimension: 1536
    vector_indexes:
      - name: bySource
        field: source_embedding
        source_field: source
        dimension: 768
        similarity: cosine
    relationships:
      - type: HAS_PARENT
        target: Scope
");
    let scope = &compiled.spec.entities[0];
    let vectors: Vec<(&str, &str, u32)> = scope
        .vector_indexes
        .iter()
        .map(|v| (v.name.as_str(), v.column.as_str(), v.dimension))
        .collect();
    assert_eq!(
        vectors,
        [
            ("legacy", "embedding", 1536),
            ("bySource", "source_embedding", 768)
        ]
    );
    assert_eq!(
        scope.vector_indexes[1].source_field.as_deref(),
        Some("source")
    );
    let hierarchy = scope.hierarchy.as_ref().expect("hierarchy");
    assert_eq!(hierarchy.relationship, "HAS_PARENT");
    assert!(hierarchy.child_is_source);
    assert_eq!(hierarchy.content_field, "source");
}

#[test]
fn tool_options_come_from_the_toolforge_section_with_defaults() {
    let compiled = ok("\
toolforge:
  name_prefix: code_
  default_limit: 10
  max_limit: 100
  tools: [query, lookup, query]
entities:
  - name: A
");
    let mut expected = ToolOptions::default();
    expected.name_prefix = "code_".into();
    expected.default_limit = 10;
    expected.max_limit = 100;
    expected.families = vec![ToolFamily::Query, ToolFamily::Lookup];
    assert_eq!(compiled.spec.tools, expected);
    let defaults = ok("entities:\n  - name: A\n");
    assert_eq!(defaults.spec.tools, ToolOptions::default());
}

#[test]
fn the_schema_name_defaults_to_the_file_name() {
    let compiled = toolforge_generator::compile_str(
        "entities:\n  - name: A\n",
        "some/dir/ragforge.config.yaml",
        &Default::default(),
    )
    .unwrap();
    assert_eq!(compiled.spec.name, "ragforge");
}

#[test]
fn unused_ragforge_sections_are_kept() {
    let compiled = ok("\
neo4j:
  uri: bolt://localhost:7687
reranking:
  strategies: [{name: x}]
version: 1.0
entities:
  - name: A
");
    assert!(compiled.warnings.is_empty());
    assert_eq!(
        compiled.config.neo4j.as_ref().unwrap()["uri"],
        "bolt://localhost:7687"
    );
    assert_eq!(compiled.config.version.as_deref(), Some("1"));
}
