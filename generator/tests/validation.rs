//! One test per validation rule, asserting the line, column and config path of the
//! diagnostic, not only its message.

use crate::common;

use common::{at, fail, fail_strict, find, hint, ok};
use toolforge_generator::Severity;

#[test]
fn unknown_keys_are_warnings_with_the_nearest_key_and_errors_in_strict_mode() {
    let source = "\
name: demo
entities:
  - name: Scope
    searchable_feilds:
      - name: title
        type: string
";
    let compiled = ok(source);
    let warning = find(&compiled.warnings, "unknown key `searchable_feilds`");
    assert_eq!(warning.severity, Severity::Warning);
    at(warning, 4, 5, "entities[0].searchable_feilds");
    assert!(hint(warning).contains("did you mean `searchable_fields`?"));

    let strict = fail_strict(source);
    let error = find(&strict, "unknown key");
    assert_eq!(error.severity, Severity::Error);
    at(error, 4, 5, "entities[0].searchable_feilds");
}

#[test]
fn the_toolforge_section_can_switch_on_strict_mode() {
    let source = "\
toolforge:
  strict: true
entities:
  - name: Scope
    colour: red
";
    let errors = fail(source);
    at(
        find(&errors, "unknown key `colour`"),
        5,
        5,
        "entities[0].colour",
    );
}

#[test]
fn names_must_be_identifiers() {
    let source = "\
entities:
  - name: My Entity
    searchable_fields:
      - name: 2fast
        type: string
    relationships:
      - type: DEFINED-IN
        target: My Entity
";
    let errors = fail(source);
    at(
        find(&errors, "entity name `My Entity`"),
        2,
        11,
        "entities[0].name",
    );
    at(
        find(&errors, "field name `2fast`"),
        4,
        15,
        "entities[0].searchable_fields[0].name",
    );
    let rel = find(&errors, "relationship type `DEFINED-IN`");
    at(rel, 7, 15, "entities[0].relationships[0].type");
    assert!(hint(rel).contains("letters, digits"));
}

#[test]
fn duplicate_entities_name_both_places() {
    let source = "\
entities:
  - name: Scope
  - name: File
  - name: Scope
";
    let errors = fail(source);
    let error = find(&errors, "duplicate entity `Scope`");
    at(error, 4, 11, "entities[2].name");
    assert!(error.message.contains("2:11"), "{}", error.message);
    assert_eq!(error.related[0].path, "entities[0].name");
    assert_eq!((error.related[0].line, error.related[0].column), (2, 11));
}

#[test]
fn entity_names_colliding_in_snake_case_are_errors() {
    let source = "\
entities:
  - name: ExternalLibrary
  - name: external_library
";
    let errors = fail(source);
    let error = find(&errors, "collides with `ExternalLibrary`");
    at(error, 3, 11, "entities[1].name");
    assert!(error.message.contains("external_library"));
    assert_eq!((error.related[0].line, error.related[0].column), (2, 11));
}

#[test]
fn field_names_colliding_as_rust_identifiers_name_both_places() {
    let source = "\
entities:
  - name: Scope
    searchable_fields:
      - name: startLine
        type: number
      - name: start_line
        type: number
";
    let errors = fail(source);
    let error = find(&errors, "`start_line` collides with `startLine`");
    at(error, 6, 15, "entities[0].searchable_fields[1].name");
    assert!(error.message.contains("4:15"), "{}", error.message);
    assert_eq!(
        error.related[0].path,
        "entities[0].searchable_fields[0].name"
    );
    let rendered = errors.render();
    assert!(rendered.contains("test.yaml:6:15"), "{rendered}");
    assert!(rendered.contains("`startLine` declared here"), "{rendered}");
}

#[test]
fn duplicate_field_names_are_errors() {
    let source = "\
entities:
  - name: Scope
    searchable_fields:
      - name: name
        type: string
      - name: name
        type: number
";
    let errors = fail(source);
    let error = find(&errors, "duplicate field `name` (first declared at 4:15)");
    at(error, 6, 15, "entities[0].searchable_fields[1].name");
    assert_eq!(
        error.related[0].path,
        "entities[0].searchable_fields[0].name"
    );
}

#[test]
fn rust_and_sql_keywords_are_valid_names() {
    let source = "\
entities:
  - name: Order
    unique_field: self
    searchable_fields:
      - name: type
        type: string
      - name: self
        type: string
      - name: order
        type: number
      - name: match
        type: boolean
      - name: select
        type: string
      - name: where
        type: datetime
  - name: Group
    relationships:
      - type: FROM
        target: Order
";
    let compiled = ok(source);
    assert!(compiled.warnings.is_empty(), "{}", compiled.warnings);
    let order = compiled.spec.entity("Order").unwrap();
    let names: Vec<&str> = order.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["type", "self", "order", "match", "select", "where"]);
    assert!(order.field("self").unwrap().unique);
    assert_eq!(compiled.spec.relationships[0].table, "group__from__order");
}

#[test]
fn enum_without_values_is_an_error() {
    let source = "\
entities:
  - name: Scope
    searchable_fields:
      - name: kind
        type: enum
      - name: state
        type: enum
        values: []
";
    let errors = fail(source);
    at(
        find(&errors, "enum field `kind` has no `values`"),
        5,
        15,
        "entities[0].searchable_fields[0].type",
    );
    at(
        find(&errors, "enum field `state` has no `values`"),
        8,
        17,
        "entities[0].searchable_fields[1].values",
    );
}

#[test]
fn unknown_types_suggest_the_right_one() {
    let source = "\
entities:
  - name: Scope
    searchable_fields:
      - name: size
        type: numbr
      - name: label
        type: strnig
    computed_fields:
      - name: big
        type: bool
";
    let errors = fail(source);
    let size = find(&errors, "unknown type `numbr`");
    at(size, 5, 15, "entities[0].searchable_fields[0].type");
    assert_eq!(hint(size), "did you mean `number`?");
    let label = find(&errors, "unknown type `strnig`");
    at(label, 7, 15, "entities[0].searchable_fields[1].type");
    assert_eq!(hint(label), "did you mean `string`?");
    let big = find(&errors, "unknown result type `bool`");
    at(big, 10, 15, "entities[0].computed_fields[0].type");
    assert_eq!(hint(big), "did you mean `boolean`?");
}

#[test]
fn a_misspelt_relationship_target_is_an_error_with_did_you_mean() {
    let source = "\
entities:
  - name: Scope
    relationships:
      - type: DEFINED_IN
        direction: outgoing
        target: Flie
  - name: File
";
    let errors = fail(source);
    let error = find(&errors, "unknown entity `Flie`");
    at(error, 6, 17, "entities[0].relationships[0].target");
    assert_eq!(hint(error), "did you mean `File`?");
}

#[test]
fn a_target_the_config_does_not_define_is_left_out_with_a_warning() {
    let source = "\
entities:
  - name: Scope
    relationships:
      - type: USES_LIBRARY
        target: ExternalLibrary
";
    let compiled = ok(source);
    let warning = find(&compiled.warnings, "targets `ExternalLibrary`");
    at(warning, 5, 17, "entities[0].relationships[0].target");
    assert!(compiled.spec.relationships.is_empty());
    let strict = fail_strict(source);
    assert_eq!(
        find(&strict, "targets `ExternalLibrary`").severity,
        Severity::Error
    );
}

#[test]
fn entity_settings_must_name_fields() {
    let source = "\
entities:
  - name: Doc
    unique_field: pth
    display_name_field: titel
    query_field: body
    content_field: conten
    searchable_fields:
      - name: path
        type: string
      - name: title
        type: string
      - name: content
        type: string
    change_tracking:
      content_field: contnet
";
    let errors = fail(source);
    let cases = [
        (
            "unique_field `pth`",
            3,
            19,
            "entities[0].unique_field",
            "`path`",
        ),
        (
            "display_name_field `titel`",
            4,
            25,
            "entities[0].display_name_field",
            "`title`",
        ),
        (
            "query_field `body`",
            5,
            18,
            "entities[0].query_field",
            "fields:",
        ),
        (
            "content_field `conten`",
            6,
            20,
            "entities[0].content_field",
            "`content`",
        ),
        (
            "change_tracking.content_field `contnet`",
            15,
            22,
            "entities[0].change_tracking.content_field",
            "`content`",
        ),
    ];
    for (needle, line, column, path, hint_part) in cases {
        let error = find(&errors, needle);
        at(error, line, column, path);
        assert!(hint(error).contains(hint_part), "{error}");
    }
    assert_eq!(errors.error_count(), 5, "{errors}");
}

#[test]
fn vector_indexes_need_a_positive_dimension_and_a_known_source_field() {
    let source = "\
entities:
  - name: Chunk
    searchable_fields:
      - name: content
        type: string
    vector_indexes:
      - name: a
        field: emb_a
        source_field: contnt
        dimension: 0
      - name: b
        field: emb_b
        dimension: -3
";
    let errors = fail(source);
    let source_field = find(&errors, "source_field `contnt`");
    at(
        source_field,
        9,
        23,
        "entities[0].vector_indexes[0].source_field",
    );
    assert_eq!(hint(source_field), "did you mean `content`?");
    at(
        find(&errors, "dimension 0"),
        10,
        20,
        "entities[0].vector_indexes[0].dimension",
    );
    at(
        find(&errors, "dimension -3"),
        13,
        20,
        "entities[0].vector_indexes[1].dimension",
    );
}

#[test]
fn a_config_without_entities_says_so() {
    let errors = fail("name: empty\nentities: []\n");
    let error = find(&errors, "defines no entities");
    at(error, 2, 11, "entities");
    assert!(hint(error).contains("entities:"));

    let errors = fail("name: nothing\n");
    at(find(&errors, "defines no entities"), 1, 1, "entities");

    let errors = fail("# only a comment\n");
    at(find(&errors, "empty"), 1, 1, "");
}

#[test]
fn every_problem_is_reported_at_once_in_source_order() {
    let source = "\
entities:
  - name: Scope
    searchable_feilds: []
    searchable_fields:
      - name: kind
        type: enum
      - name: size
        type: int
    relationships:
      - type: IN
        target: Flie
  - name: File
";
    let errors = fail(source);
    let positions: Vec<(usize, usize)> =
        errors.items().iter().map(|d| (d.line, d.column)).collect();
    assert_eq!(positions, [(3, 5), (6, 15), (8, 15), (11, 17)], "{errors}");
    assert_eq!(errors.error_count(), 3);
    assert_eq!(errors.warning_count(), 1);
}

#[test]
fn type_errors_are_located_by_path() {
    let source = "\
entities:
  - name: Chunk
    vector_indexes:
      - name: a
        dimension: large
";
    let errors = fail(source);
    let error = find(&errors, "invalid type");
    at(error, 5, 20, "entities[0].vector_indexes[0].dimension");
    assert!(!error.message.contains("line"), "{}", error.message);

    let errors = fail(
        "entities:\n  - name: A\n    relationships:\n      - type: X\n        target: A\n        direction: outgoin\n",
    );
    let error = find(&errors, "unknown variant `outgoin`");
    at(error, 6, 20, "entities[0].relationships[0].direction");

    let errors = fail("entities:\n  - description: no name\n");
    at(find(&errors, "missing field `name`"), 2, 5, "entities[0]");
}

#[test]
fn yaml_syntax_errors_are_located() {
    let errors = fail("entities:\n  - name: [unclosed\n");
    let error = &errors.items()[0];
    assert_eq!(error.severity, Severity::Error);
    assert!(error.line >= 2, "{error}");
    assert!(error.column >= 1);
}

#[test]
fn a_file_that_cannot_be_read_is_a_diagnostic() {
    let path = std::path::Path::new("does/not/exist.yaml");
    let errors =
        toolforge_generator::compile_file(path, &Default::default()).expect_err("missing file");
    let error = find(&errors, "cannot read the config file");
    assert_eq!(error.file, "does/not/exist.yaml");
    assert!(hint(error).contains("--config"));
}

#[test]
fn computed_field_bodies_are_checked() {
    let source = "\
entities:
  - name: Scope
    computed_fields:
      - name: none
        type: number
      - name: two
        type: number
        expression: 1
        sql: '1'
";
    let errors = fail(source);
    at(
        find(&errors, "`none` has no `expression`"),
        4,
        9,
        "entities[0].computed_fields[0]",
    );
    at(
        find(&errors, "more than one body"),
        9,
        14,
        "entities[0].computed_fields[1].sql",
    );
}

#[test]
fn relationship_types_colliding_in_snake_case_are_errors() {
    let source = "\
entities:
  - name: A
    relationships:
      - type: DEFINED_IN
        target: A
      - type: definedIn
        target: A
";
    let errors = fail(source);
    at(
        find(&errors, "`definedIn` collides with `DEFINED_IN`"),
        6,
        15,
        "entities[0].relationships[1].type",
    );
}

#[test]
fn hierarchical_content_needs_a_self_relationship_and_a_content_field() {
    let source = "\
entities:
  - name: Scope
    hierarchical_content:
      children_relationship: HAS_PARNT
    relationships:
      - type: HAS_PARENT
        target: Scope
";
    let errors = fail(source);
    let rel = find(&errors, "children_relationship `HAS_PARNT`");
    at(
        rel,
        4,
        30,
        "entities[0].hierarchical_content.children_relationship",
    );
    assert_eq!(hint(rel), "did you mean `HAS_PARENT`?");
    at(
        find(&errors, "needs a `content_field`"),
        4,
        7,
        "entities[0].hierarchical_content",
    );
}

#[test]
fn toolforge_options_are_checked() {
    let source = "\
toolforge:
  name_prefix: 'my tools '
  default_limit: 900
entities:
  - name: A
";
    let errors = fail(source);
    at(
        find(&errors, "default_limit 900 is larger than max_limit 500"),
        3,
        18,
        "toolforge.default_limit",
    );
    at(
        find(&errors, "name_prefix `my tools `"),
        2,
        16,
        "toolforge.name_prefix",
    );

    let errors = fail("toolforge:\n  tools: [query, lokup]\nentities:\n  - name: A\n");
    let error = find(&errors, "unknown variant `lokup`");
    at(error, 2, 18, "toolforge.tools[1]");
}

#[test]
fn a_tool_of_a_family_left_out_says_how_to_build_it() {
    let config = |tools: &str| {
        format!(
            "toolforge:\n{tools}  toolsets:\n    find: [query_entities, glob_search]\n\
             entities:\n  - name: A\n    unique_field: id\n    searchable_fields:\n      \
             - {{name: id, type: string}}\n"
        )
    };
    // `glob_search` is in `patterns`, which is off unless listed: the hint says how to list it,
    // keeping the families the config builds.
    let errors = fail_strict(&config(""));
    let error = find(&errors, "`glob_search` is not a tool of this config");
    at(error, 3, 28, "toolforge.toolsets.find[1]");
    assert!(
        hint(error).contains(
            "`glob_search` is a tool of the `patterns` family, which is built only when \
             `toolforge.tools` lists it: `tools: [schema, query, lookup, relationships, search, \
             graph, changes, places, patterns]`"
        ),
        "{}",
        hint(error)
    );
    // Listed, it is built and the toolset is served as written.
    let compiled = ok(&config("  tools: [query, patterns]\n"));
    assert!(
        compiled.warnings.is_empty(),
        "{}",
        compiled.warnings.render()
    );
    assert_eq!(
        compiled.spec.database_tool_names(),
        ["query_entities", "glob_search", "query_entities_by_pattern"]
    );
}

// What `validate` accepts, `db init` creates and `generate` turns into a compiling module: the
// names below used to validate and then fail in SQLite, in code generation or in rustc.

#[test]
fn an_unlisted_unique_field_must_be_an_identifier() {
    let source = "\
entities:
  - name: Doc
    unique_field: \"x²\"
    searchable_fields:
      - name: title
        type: string
";
    let errors = fail(source);
    let error = find(&errors, "field name `x²` is not an identifier");
    at(error, 3, 19, "entities[0].unique_field");
    assert!(hint(error).contains("ASCII letters"));
}

#[test]
fn tables_sqlite_reserves_are_refused() {
    let source = "\
entities:
  - name: Doc
  - name: SqliteMaster
";
    let errors = fail(source);
    let error = find(
        &errors,
        "entity `SqliteMaster` would be stored in the table `sqlite_master`",
    );
    at(error, 3, 11, "entities[1].name");
    assert!(hint(error).contains("sqlite_"));
}

#[test]
fn relationship_properties_named_like_edge_columns_are_refused() {
    let source = "\
entities:
  - name: Doc
    relationships:
      - type: LINKS
        target: Doc
        properties:
          - name: weight
            type: number
          - name: source_id
            type: string
          - name: Target_ID
            type: string
          - name: Weight
            type: number
";
    let errors = fail(source);
    at(
        find(
            &errors,
            "`source_id` is named like the edge table's own column `source_id`",
        ),
        9,
        19,
        "entities[0].relationships[0].properties[1].name",
    );
    at(
        find(
            &errors,
            "`Target_ID` is named like the edge table's own column `target_id`",
        ),
        11,
        19,
        "entities[0].relationships[0].properties[2].name",
    );
    let twin = find(&errors, "`Weight` collides with `weight`");
    at(
        twin,
        13,
        19,
        "entities[0].relationships[0].properties[3].name",
    );
    assert!(twin.message.contains("ignores case"), "{}", twin.message);
}

#[test]
fn properties_merged_from_both_ends_may_not_differ_only_in_case() {
    let source = "\
entities:
  - name: Doc
    relationships:
      - type: CITES
        target: Paper
        properties:
          - name: page
            type: number
  - name: Paper
    relationships:
      - type: CITES
        target: Doc
        direction: incoming
        properties:
          - name: Page
            type: number
";
    let errors = fail(source);
    let error = find(
        &errors,
        "relationship property `Page` of `Doc -[CITES]-> Paper`",
    );
    at(
        error,
        15,
        19,
        "entities[1].relationships[0].properties[0].name",
    );
}

#[test]
fn a_table_and_an_index_may_not_share_a_name() {
    // The index of `A.x` is `a__x__idx`; so is the edge table of `A -[X]-> Idx`.
    let source = "\
entities:
  - name: A
    searchable_fields:
      - name: x
        type: string
        indexed: true
    relationships:
      - type: X
        target: Idx
  - name: Idx
";
    let errors = fail(source);
    let error = find(&errors, "the edge table `a__x__idx`");
    at(error, 8, 15, "entities[0].relationships[0].type");
    assert!(
        error
            .message
            .contains("the index `a__x__idx` of the indexed field `A.x`"),
        "{}",
        error.message
    );
    assert_eq!(
        error.related[0].path,
        "entities[0].searchable_fields[0].name"
    );
}

#[test]
fn columns_differing_only_in_case_are_one_column_for_sqlite() {
    let source = "\
entities:
  - name: Doc
    searchable_fields:
      - name: aB
        type: string
      - name: ab
        type: string
";
    let errors = fail(source);
    let error = find(&errors, "`ab` collides with `aB`");
    at(error, 6, 15, "entities[0].searchable_fields[1].name");
    assert!(error.message.contains("ignores case"), "{}", error.message);
}

#[test]
fn fields_colliding_as_enum_variants_are_refused() {
    // `a_1` and `a1` are distinct fields in snake_case but both `A1` in the field enum.
    let source = "\
entities:
  - name: Doc
    searchable_fields:
      - name: a_1
        type: string
      - name: a1
        type: string
";
    let errors = fail(source);
    let error = find(&errors, "`a1` collides with `a_1`");
    at(error, 6, 15, "entities[0].searchable_fields[1].name");
    assert!(
        error.message.contains("`A1` as Rust enum variants"),
        "{}",
        error.message
    );
}

#[test]
fn an_entity_named_like_another_entitys_generated_type_is_refused() {
    let source = "\
entities:
  - name: Doc
  - name: DocField
  - name: Book
    searchable_fields:
      - name: genre
        type: enum
        values: [sf, crime]
  - name: BookGenre
";
    let errors = fail(source);
    let field_enum = find(&errors, "the Rust type `DocField`");
    at(field_enum, 3, 11, "entities[1].name");
    assert!(
        field_enum.message.contains("the field enum of `Doc`"),
        "{}",
        field_enum.message
    );
    let value_enum = find(&errors, "the Rust type `BookGenre`");
    at(value_enum, 9, 11, "entities[3].name");
    assert!(
        value_enum
            .message
            .contains("the enum of the values of `Book.genre`"),
        "{}",
        value_enum.message
    );
}

#[test]
fn a_vector_column_may_not_reuse_a_field() {
    let source = "\
entities:
  - name: Doc
    searchable_fields:
      - name: embedding
        type: string
    vector_index:
      name: by_text
      dimension: 4
";
    let errors = fail(source);
    let error = find(&errors, "duplicate vector column `embedding`");
    at(error, 7, 13, "entities[0].vector_index.name");
}

#[test]
fn names_need_a_letter_or_a_digit() {
    let source = "\
entities:
  - name: _
    searchable_fields:
      - name: __
        type: string
";
    let errors = fail(source);
    at(
        find(&errors, "entity name `_` has no letter or digit"),
        2,
        11,
        "entities[0].name",
    );
    at(
        find(&errors, "field name `__` has no letter or digit"),
        4,
        15,
        "entities[0].searchable_fields[0].name",
    );
}

#[test]
fn hostile_but_valid_names_validate() {
    // Prelude, runtime and keyword names are fine: the generated code qualifies every path.
    ok("\
entities:
  - name: Option
    searchable_fields:
      - name: Some
        type: string
  - name: Result
  - name: Query
  - name: Record
  - name: String
  - name: Self
    unique_field: crate
");
}

// YAML itself: syntax errors where the parser stopped, duplicate keys at the repeated key,
// nesting refused before it gets expensive.

#[test]
fn a_syntax_error_is_framed_where_its_message_says() {
    let source = "\
name: x
entities:
  - name: Doc
    searchable_fields:
      - name: a
        type: string
     bad: [
";
    let errors = fail(source);
    let error = &errors.items()[0];
    assert_eq!((error.line, error.column), (7, 6), "{error}");
    assert_eq!(
        error.message,
        "did not find expected key, while parsing a block mapping starting at line 3 column 5"
    );
    // Other shapes: the frame is where the message's problem is.
    for (source, line, column) in [
        ("entities:\n  - name: \"unclosed\n", 3, 1),
        ("entities:\n  - name: Doc\n    description: b: c\n", 3, 19),
        (
            "entities:\n  - name: Doc\n    searchable_fields:\n      - name: a\n        type: string\n      b: c\n",
            6,
            7,
        ),
    ] {
        let errors = fail(source);
        let error = &errors.items()[0];
        assert_eq!(
            (error.line, error.column),
            (line, column),
            "{source:?}: {error}"
        );
        assert!(
            !error
                .message
                .contains(&format!("line {line} column {column}")),
            "{error}"
        );
    }
}

#[test]
fn duplicate_keys_are_reported_at_the_repeated_key() {
    for (source, line, column, path, first) in [
        // top level
        ("name: x\nname: y\nentities: []\n", 2, 1, "name", (1, 1)),
        // in an entity, after another key
        (
            "entities:\n  - name: Doc\n    description: d\n    name: Other\n",
            4,
            5,
            "entities[0].name",
            (2, 5),
        ),
        // in a field of the second entity
        (
            "entities:\n  - name: A\n  - name: B\n    searchable_fields:\n      - name: a\n        type: string\n        type: number\n",
            7,
            9,
            "entities[1].searchable_fields[0].type",
            (6, 9),
        ),
        // in a flow mapping, and quoted the second time
        (
            "entities:\n  - {name: A, \"name\": B}\n",
            2,
            15,
            "entities[0].name",
            (2, 6),
        ),
        // in a section toolforge keeps but does not read (serde would keep one value silently)
        (
            "neo4j:\n  uri: a\n  uri: b\nentities:\n  - name: A\n",
            3,
            3,
            "neo4j.uri",
            (2, 3),
        ),
    ] {
        let errors = fail(source);
        let error = find(&errors, "duplicate key");
        assert_eq!(errors.items().len(), 1, "{source:?}: {errors}");
        at(error, line, column, path);
        assert_eq!(
            (error.related[0].line, error.related[0].column),
            first,
            "{source:?}"
        );
        assert!(
            error
                .message
                .contains(&format!("first written at {}:{}", first.0, first.1)),
            "{error}"
        );
    }
}

#[test]
fn deep_nesting_is_refused_before_it_is_read() {
    let flow_sequences = format!("entities: {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    let flow_mappings = format!(
        "entities:\n  - name: A\n    description: {}1{}\n",
        "{a: ".repeat(20_000),
        "}".repeat(20_000)
    );
    let mut block = String::from("entities:\n  - name: A\n    neo4j:\n");
    for depth in 0..300 {
        block.push_str(&format!("{}k:\n", "  ".repeat(depth + 3)));
    }
    block.push_str(&format!("{}v\n", "  ".repeat(303)));
    for (name, source, line) in [
        ("flow sequences", flow_sequences, 1),
        ("flow mappings", flow_mappings, 3),
        ("block mappings", block, 65),
    ] {
        let errors = fail(&source);
        assert_eq!(errors.items().len(), 1, "{name}: {errors}");
        let error = find(&errors, "the YAML nests deeper than 64 levels");
        assert_eq!(error.line, line, "{name}: {error}");
        assert!(hint(error).contains("flatten"), "{name}");
    }
    // 64 levels are fine (as YAML; this config then fails for its content only).
    let fine = format!("entities: {}{}\n", "[".repeat(63), "]".repeat(63));
    let errors = fail(&fine);
    assert!(!errors.to_string().contains("nests deeper"), "{errors}");
}

#[test]
fn points_are_located_where_they_cannot_go() {
    let source = "\
entities:
  - name: Store
    unique_field: spot
    searchable_fields:
      - name: spot
        type: point
      - name: where
        type: geopoint
      - name: name
        type: string
    computed_fields:
      - name: far
        type: number
        expression: spot + 1
    relationships:
      - type: NEAR
        target: Store
        properties:
          - name: midpoint
            type: point
";
    let errors = fail(source);
    at(
        find(&errors, "unique field `spot` has type `point`"),
        6,
        15,
        "entities[0].searchable_fields[0].type",
    );
    let alias = find(&errors, "unknown type `geopoint`");
    at(alias, 8, 15, "entities[0].searchable_fields[1].type");
    assert!(hint(alias).contains("did you mean `point`?"), "{alias:?}");
    let property = find(&errors, "relationship property `midpoint` is a point");
    at(
        property,
        20,
        19,
        "entities[0].relationships[0].properties[0].type",
    );
    let expression = find(
        &errors,
        "`spot` is a point field, which expressions cannot read",
    );
    assert!(hint(expression).contains("find_near"), "{expression:?}");
}

#[test]
fn prompts_and_resources_are_checked_where_they_are_written() {
    let source = "\
entities:
  - name: Member
    unique_field: memberId
    searchable_fields:
      - name: name
        type: string
toolforge:
  prompts:
    - name: review
      description: Review a member
      arguments:
        - {name: who, entity: Membr}
      template: \"Review {{ whom }}\"
    - name: review
      template: \"{% if %}\"
  resources:
    listed: 500
    entities:
      Member: {uri: \"library://members\", order_by: nam DESC}
    documents:
      - {uri: guide, name: guide, text: x}
";
    let errors = fail(source);
    let entity = find(&errors, "there is no entity `Membr`");
    at(entity, 12, 31, "toolforge.prompts[0].arguments[0].entity");
    assert!(
        hint(entity).contains("did you mean `Member`?"),
        "{entity:?}"
    );
    let variable = find(
        &errors,
        "the template reads `whom`, which is not an argument of the prompt",
    );
    assert!(
        hint(variable).contains("did you mean `who`?"),
        "{variable:?}"
    );
    at(
        find(&errors, "two prompts are named `review`"),
        14,
        13,
        "toolforge.prompts[1].name",
    );
    find(&errors, "prompt `review` has no `description`");
    find(&errors, "the template does not parse");
    find(&errors, "`listed` is 500");
    find(
        &errors,
        "`library://members` is not a URI template with one `{id}`",
    );
    assert!(hint(find(&errors, "`Member` has no field `nam`")).contains("did you mean `name`?"));
    find(&errors, "`guide` is not a URI");
    assert_eq!(errors.0.len(), 9, "{errors:#?}");
}

#[test]
fn prompt_arguments_name_what_they_take_once() {
    let source = "\
entities:
  - name: Member
    searchable_fields:
      - name: name
        type: string
      - name: status
        type: enum
        values: [active, archived]
toolforge:
  prompts:
    - name: list
      description: List members
      arguments:
        - {name: a, field_of: Membr}
        - {name: b, values_of: Member.name}
        - {name: c, values_of: Member.state}
        - {name: d, values_of: Member.status, values: [x]}
      template: \"{{ a }}{{ b }}{{ c }}{{ d }}\"
";
    let errors = fail(source);
    let entity = find(&errors, "there is no entity `Membr`");
    at(entity, 14, 31, "toolforge.prompts[0].arguments[0].field_of");
    assert!(
        hint(entity).contains("did you mean `Member`?"),
        "{entity:?}"
    );
    find(&errors, "`Member.name` is not an enum field");
    find(&errors, "`Member` has no field `state`");
    find(
        &errors,
        "the argument `d` says in more than one way what it takes",
    );
    assert_eq!(errors.0.len(), 4, "{errors:#?}");
}
