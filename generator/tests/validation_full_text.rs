//! `full_text_index`: every mistake is a located error with a hint, and a valid index is
//! lowered into the spec with its weights and analyzer.

use crate::common;

use common::{at, fail, find, hint, ok};
use toolforge::spec::Analyzer;

const ENTITY: &str = "\
name: demo
entities:
  - name: Doc
    searchable_fields:
      - name: title
        type: string
      - name: body
        type: string
      - name: pages
        type: number
      - name: rank
        type: string
";

#[test]
fn a_valid_index_is_lowered_with_weights_and_analyzer() {
    let source = format!(
        "{ENTITY}    full_text_index:\n      fields: [title, body]\n      weights: {{title: 3}}\n      analyzer: unicode61\n"
    );
    let compiled = ok(&source);
    let index = compiled.spec.entities[0].full_text.as_ref().expect("index");
    let fields: Vec<(&str, f64)> = index
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.weight))
        .collect();
    assert_eq!(fields, [("title", 3.0), ("body", 1.0)]);
    assert_eq!(index.analyzer, Analyzer::Unicode61);
    assert!(
        compiled
            .spec
            .database_tool_names()
            .contains(&"full_text_search")
    );
    let without = ok(ENTITY);
    assert!(
        !without
            .spec
            .database_tool_names()
            .contains(&"full_text_search"),
        "no index, no tool"
    );
}

#[test]
fn unknown_and_non_text_fields_are_located_errors() {
    let source =
        format!("{ENTITY}    full_text_index:\n      fields: [titel, pages, rank, body, body]\n");
    let errors = fail(&source);
    let unknown = find(&errors, "full-text field `titel` names no field");
    at(unknown, 14, 16, "entities[0].full_text_index.fields[0]");
    assert!(hint(unknown).contains("did you mean `title`?"));
    let number = find(&errors, "full-text field `pages` is a number field");
    at(number, 14, 23, "entities[0].full_text_index.fields[1]");
    let reserved = find(&errors, "full-text field `rank`");
    at(reserved, 14, 30, "entities[0].full_text_index.fields[2]");
    at(
        find(&errors, "field `body` is listed twice"),
        14,
        42,
        "entities[0].full_text_index.fields[4]",
    );
}

#[test]
fn bad_weights_empty_fields_and_unknown_analyzers_are_errors() {
    let source = format!(
        "{ENTITY}    full_text_index:\n      fields: [title]\n      weights: {{title: -1, bdy: 2}}\n      analyzer: porterr\n"
    );
    let errors = fail(&source);
    let negative = find(&errors, "the weight of `title` is -1");
    assert_eq!(negative.path, "entities[0].full_text_index.weights.title");
    assert!(hint(negative).contains("positive") || hint(negative).contains("use 1"));
    let stray = find(&errors, "a weight is given for `bdy`");
    assert_eq!(stray.path, "entities[0].full_text_index.weights.bdy");
    let analyzer = find(&errors, "unknown analyzer `porterr`");
    at(analyzer, 16, 17, "entities[0].full_text_index.analyzer");
    assert!(hint(analyzer).contains("did you mean `porter`?"));

    let empty = fail(&format!("{ENTITY}    full_text_index:\n      fields: []\n"));
    let error = find(&empty, "lists no fields");
    at(error, 14, 15, "entities[0].full_text_index.fields");
}

#[test]
fn the_search_family_can_be_switched_off() {
    let source = format!(
        "{ENTITY}    full_text_index:\n      fields: [title]\ntoolforge:\n  tools: [schema, query]\n"
    );
    let compiled = ok(&source);
    assert!(
        !compiled
            .spec
            .database_tool_names()
            .contains(&"full_text_search")
    );
}
