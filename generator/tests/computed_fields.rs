//! Computed fields through the expression compiler: compiled into the spec, their errors
//! located inside the expression text.

use crate::common;

use common::{at, fail, fail_strict, find, ok};
use toolforge::spec::ValueType;
use toolforge_generator::Severity;

const SCOPE: &str = "\
entities:
  - name: Scope
    searchable_fields:
      - name: name
        type: string
      - name: startLine
        type: number
      - name: endLine
        type: number
    relationships:
      - type: HAS_CHANGE
        target: Change
  - name: Change
    searchable_fields:
      - name: timestamp
        type: datetime
";

fn with_computed(fields: &str) -> String {
    let (head, tail) = SCOPE.split_at(SCOPE.find("    relationships:").unwrap());
    format!("{head}    computed_fields:\n{fields}{tail}")
}

#[test]
fn computed_fields_are_compiled_into_the_spec() {
    let source = with_computed(
        "      - name: line_count\n        type: number\n        expression: endLine - startLine + 1\n        materialized: true\n        cache_property: cached_line_count\n",
    );
    let compiled = ok(&source);
    let field = &compiled.spec.entities[0].computed_fields[0];
    assert_eq!(field.name, "line_count");
    assert_eq!(field.ty, ValueType::Number);
    assert!(field.sql.contains("\"endLine\""), "{}", field.sql);
    assert_eq!(
        field.materialized_column.as_deref(),
        Some("cached_line_count")
    );
}

#[test]
fn a_type_error_points_inside_the_expression() {
    // `name * 2`: `name` is a string; the error points at `name` (column 21).
    let source =
        with_computed("      - name: bad\n        type: number\n        expression: name * 2\n");
    let errors = fail(&source);
    let error = &errors.items()[0];
    assert_eq!(error.severity, Severity::Error);
    at(error, 13, 21, "entities[0].computed_fields[0].expression");
    assert!(error.message.contains("`name`"), "{error}");
}

#[test]
fn an_unknown_name_points_at_the_name_with_did_you_mean() {
    let source = with_computed(
        "      - name: bad\n        type: number\n        expression: endLine - strtLine\n",
    );
    let errors = fail(&source);
    let error = find(&errors, "strtLine");
    at(error, 13, 31, "entities[0].computed_fields[0].expression");
    assert!(error.hint.as_deref().unwrap_or("").contains("startLine"));
}

#[test]
fn materialized_needs_a_row_local_expression() {
    let source = with_computed(
        "      - name: changes\n        type: number\n        expression: count(HAS_CHANGE)\n        materialized: true\n        cache_property: cached_changes\n",
    );
    let errors = fail(&source);
    at(
        find(&errors, "cannot be materialized"),
        14,
        23,
        "entities[0].computed_fields[0].materialized",
    );
}

#[test]
fn materialized_without_cache_property_is_an_error() {
    let source = with_computed(
        "      - name: lines\n        type: number\n        expression: endLine - startLine\n        materialized: true\n",
    );
    let errors = fail(&source);
    at(
        find(&errors, "has no `cache_property`"),
        14,
        23,
        "entities[0].computed_fields[0].materialized",
    );
}

#[test]
fn untranslatable_cypher_is_a_warning_and_an_error_in_strict_mode() {
    let source = with_computed(
        "      - name: odd\n        type: number\n        cypher: |\n          MATCH (a)-[:X*2]->(b) RETURN count(b)\n",
    );
    let compiled = ok(&source);
    let warning = find(&compiled.warnings, "left out");
    assert_eq!(warning.severity, Severity::Warning);
    assert_eq!(warning.line, 14);
    assert_eq!(warning.path, "entities[0].computed_fields[0].cypher");
    assert!(compiled.spec.entities[0].computed_fields.is_empty());
    let strict = fail_strict(&source);
    assert_eq!(find(&strict, "left out").severity, Severity::Error);
}

#[test]
fn cycles_are_errors() {
    let source = with_computed(
        "      - name: a\n        type: number\n        expression: b + 1\n      - name: b\n        type: number\n        expression: a + 1\n",
    );
    let errors = fail(&source);
    assert!(errors.has_errors());
    assert!(
        errors
            .items()
            .iter()
            .any(|d| d.path.ends_with(".expression") && d.line >= 12),
        "{errors}"
    );
}

#[test]
fn the_bundled_example_validates_without_diagnostics() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/code-rag/ragforge.config.yaml");
    let compiled = toolforge_generator::compile_file(&path, &Default::default())
        .unwrap_or_else(|errors| panic!("{}", errors.render()));
    assert!(
        compiled.warnings.is_empty(),
        "{}",
        compiled.warnings.render()
    );
    let scope = compiled.spec.entity("Scope").unwrap();
    let computed: Vec<&str> = scope
        .computed_fields
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(computed, ["line_count", "is_large", "has_docstring"]);
    assert_eq!(compiled.spec.relationships.len(), 4);
    assert!(scope.hierarchy.is_some());
}
