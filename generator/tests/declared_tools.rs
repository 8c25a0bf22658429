//! Declared tools (`toolforge.declared_tools`): every problem is a located diagnostic (line,
//! column, config path and a hint), and a valid declaration is compiled for both dialects.

use crate::common;

use common::{at, fail, find, hint, ok};

const ENTITIES: &str = "\
entities:
  - name: Loan
    unique_field: id
    searchable_fields:
      - {name: id, type: string}
      - {name: member_id, type: string}
      - {name: status, type: string}
      - {name: fee, type: number}
      - {name: due_at, type: datetime}
toolforge:
  declared_tools:
";

/// The entities and `tools` (whose first line lost its indent to the `\` line continuation).
fn config(tools: &str) -> String {
    format!("{ENTITIES}    {tools}")
}

#[test]
fn a_valid_declaration_compiles_for_both_dialects_with_bound_parameters() {
    let compiled = ok(&config(
        "\
    - name: open_loans_of_member
      description: Open loans of one member
      entity: Loan
      where: \"status = 'open' AND member_id = :member AND due_at < :before\"
      order_by: due_at ASC, fee * 2 DESC
      limit: 50
      parameters:
        member: {type: string, pattern: \"^m[0-9]+$\"}
        before: {type: datetime, default: now}
",
    ));
    let tool = &compiled.spec.declared_tools[0];
    // Parameters in name order: `before` is ?1, `member` is ?2.
    assert_eq!(tool.parameters[0].name, "before");
    assert!(!tool.parameters[0].required);
    assert!(tool.parameters[1].required);
    assert_eq!(
        tool.where_sql.as_deref(),
        Some(r#"("n"."status" = 'open' AND "n"."member_id" = ?2 AND "n"."due_at" < ?1)"#)
    );
    assert!(
        tool.postgres_where_sql
            .as_deref()
            .unwrap()
            .contains("CAST(?2 AS TEXT)")
    );
    assert_eq!(tool.order_by.len(), 2);
    assert!(!tool.order_by[0].descending && tool.order_by[1].descending);
    assert_eq!(tool.limit, 50);
}

#[test]
fn unknown_fields_in_where_are_located_inside_the_clause() {
    let errors = fail(&config(
        "\
    - name: t
      description: d
      entity: Loan
      where: \"statsu = :s\"
      parameters:
        s: {type: string}
",
    ));
    let error = find(&errors, "`statsu` is not a field");
    at(error, 15, 15, "toolforge.declared_tools[0].where");
    assert!(hint(error).contains("did you mean `status`?"));
}

#[test]
fn parameter_types_are_checked_against_the_fields() {
    let errors = fail(&config(
        "\
    - name: t
      description: d
      entity: Loan
      where: \"fee > :minimum\"
      parameters:
        minimum: {type: string}
",
    ));
    let error = find(&errors, "declared tool `t`");
    assert_eq!(error.path, "toolforge.declared_tools[0].where");
    assert_eq!(error.line, 15);
    assert!(error.message.contains("string"), "{}", error.message);
}

#[test]
fn where_must_be_a_condition() {
    let errors = fail(&config(
        "\
    - name: t
      description: d
      entity: Loan
      where: \"fee + 1\"
",
    ));
    let error = find(&errors, "`where` must be a condition");
    at(error, 15, 15, "toolforge.declared_tools[0].where");
}

#[test]
fn undeclared_parameters_are_errors_with_the_nearest_name() {
    let errors = fail(&config(
        "\
    - name: t
      description: d
      entity: Loan
      where: \"member_id = :membre\"
      parameters:
        member: {type: string}
",
    ));
    let error = find(&errors, "parameter `:membre` is not declared");
    at(error, 15, 27, "toolforge.declared_tools[0].where");
    assert!(hint(error).contains("did you mean `:member`?"));
}

#[test]
fn unused_parameters_are_errors_at_their_key() {
    let errors = fail(&config(
        "\
    - name: t
      description: d
      entity: Loan
      where: \"member_id = :member\"
      parameters:
        member: {type: string}
        spare: {type: number}
",
    ));
    let error = find(
        &errors,
        "parameter `spare` of declared tool `t` is never used",
    );
    at(error, 18, 9, "toolforge.declared_tools[0].parameters.spare");
}

#[test]
fn bad_defaults_enums_ranges_and_patterns_are_located() {
    let errors = fail(&config(
        "\
    - name: t
      description: d
      entity: Loan
      where: \"member_id = :a AND fee > :b AND due_at < :c AND status = :d\"
      parameters:
        a: {type: string, pattern: \"(unclosed\"}
        b: {type: number, min: 5, max: 1, default: 9}
        c: {type: datetime, default: \"a while ago\"}
        d: {type: string, enum: [open, 3], default: shut}
",
    ));
    at(
        find(&errors, "`pattern` is not a valid regular expression"),
        17,
        36,
        "toolforge.declared_tools[0].parameters.a.pattern",
    );
    at(
        find(&errors, "`max` (1) is below `min` (5)"),
        18,
        40,
        "toolforge.declared_tools[0].parameters.b.max",
    );
    let default = find(&errors, "the default of `b`");
    assert_eq!(
        default.path,
        "toolforge.declared_tools[0].parameters.b.default"
    );
    let date = find(&errors, "the default of `c`");
    assert_eq!(
        date.path,
        "toolforge.declared_tools[0].parameters.c.default"
    );
    assert!(date.message.contains("relative date"));
    at(
        find(&errors, "`enum` value of `d`"),
        20,
        40,
        "toolforge.declared_tools[0].parameters.d.enum[1]",
    );
    let not_listed = find(&errors, "the default of `d`");
    assert!(not_listed.message.contains("not one of the `enum` values"));
}

#[test]
fn unknown_types_entities_and_clashing_names_are_located() {
    let errors = fail(&config(
        "\
    - name: query_entities
      description: d
      entity: Loans
    - name: t
      description: d
      entity: Loan
      where: \"member_id = :m\"
      parameters:
        m: {type: strng}
        limit: {type: integer}
",
    ));
    at(
        find(&errors, "already the name of a generated tool"),
        12,
        13,
        "toolforge.declared_tools[0].name",
    );
    let entity = find(&errors, "`Loans` is not an entity");
    assert!(hint(entity).contains("did you mean `Loan`?"));
    let ty = find(&errors, "`strng` is not a parameter type");
    at(ty, 20, 19, "toolforge.declared_tools[1].parameters.m.type");
    assert!(hint(ty).contains("did you mean `string`?"));
    assert!(
        hint(ty).contains("`type: enum` with `values: [a, b]`")
            && hint(ty).contains("`type: string` with `enum: [a, b]`"),
        "every refusal shows both enum spellings: {}",
        hint(ty)
    );
    at(
        find(&errors, "`limit` is an argument of every declared tool"),
        21,
        9,
        "toolforge.declared_tools[1].parameters.limit",
    );
}

#[test]
fn order_by_items_are_located_inside_the_clause() {
    let errors = fail(&config(
        "\
    - name: t
      description: d
      entity: Loan
      order_by: \"fee DESC, bogus ASC\"
",
    ));
    at(
        find(&errors, "`bogus` is not a field"),
        15,
        28,
        "toolforge.declared_tools[0].order_by",
    );
}

#[test]
fn parameters_are_refused_in_computed_fields() {
    let errors = fail(
        "\
entities:
  - name: Loan
    searchable_fields:
      - {name: fee, type: number}
    computed_fields:
      - {name: double, type: number, expression: \"fee * :factor\"}
",
    );
    let error = find(&errors, "only declared tools have parameters");
    assert_eq!(error.path, "entities[0].computed_fields[0].expression");
}

#[test]
fn a_context_bound_parameter_is_compiled_with_its_context_value() {
    let compiled = ok(&config(
        "\
    - name: my_loans
      description: The caller's loans
      entity: Loan
      where: \"member_id = :member\"
      parameters:
        member: {type: string, from_context: member_id}
",
    ));
    let param = &compiled.spec.declared_tools[0].parameters[0];
    assert_eq!(param.from_context.as_deref(), Some("member_id"));
    assert!(param.required);
}

#[test]
fn context_bound_parameters_have_no_default_and_are_required() {
    let errors = fail(&config(
        "\
    - name: my_loans
      description: The caller's loans
      entity: Loan
      where: \"member_id = :member AND status = :status AND fee > :fee\"
      parameters:
        member: {type: string, from_context: member, default: m1}
        status: {type: string, from_context: status, required: false}
        fee: {type: number, from_context: \"not a name\"}
",
    ));
    let error = find(
        &errors,
        "`member` takes its value from the context value `member`",
    );
    at(
        error,
        17,
        63,
        "toolforge.declared_tools[0].parameters.member.default",
    );
    assert!(hint(error).contains("remove `default`"));
    let error = find(
        &errors,
        "`status` takes its value from the context value `status`",
    );
    at(
        error,
        18,
        64,
        "toolforge.declared_tools[0].parameters.status.required",
    );
    let error = find(&errors, "`not a name` is not a valid context value name");
    at(
        error,
        19,
        43,
        "toolforge.declared_tools[0].parameters.fee.from_context",
    );
    assert!(hint(error).contains("from_context: tenant"));
}

#[test]
fn a_misspelt_from_context_key_is_reported() {
    let errors = common::fail_strict(&config(
        "\
    - name: my_loans
      description: The caller's loans
      entity: Loan
      where: \"member_id = :member\"
      parameters:
        member: {type: string, from_contxt: member}
",
    ));
    let error = find(&errors, "unknown key `from_contxt`");
    assert!(hint(error).contains("from_context"), "{}", hint(error));
}

/// A tool whose one parameter, `status`, is declared as `parameter`.
fn status_tool(parameter: &str) -> String {
    config(&format!(
        "\
    - name: loans_by_status
      description: Loans in one status
      entity: Loan
      where: \"status = :status\"
      parameters:
        status: {parameter}
"
    ))
}

#[test]
fn a_parameter_takes_an_enum_spelled_as_a_field_spells_it() {
    let compiled = ok(&status_tool(
        "{type: enum, values: [open, closed, late], default: open}",
    ));
    let parameter = &compiled.spec.declared_tools[0].parameters[0];
    assert_eq!(parameter.ty, toolforge::spec::ParameterType::String);
    assert_eq!(
        parameter.allowed,
        [
            serde_json::json!("open"),
            serde_json::json!("closed"),
            serde_json::json!("late")
        ]
    );
    // The same as the string spelling.
    let string = ok(&status_tool(
        "{type: string, enum: [open, closed, late], default: open}",
    ));
    assert_eq!(
        compiled.spec.declared_tools[0].parameters,
        string.spec.declared_tools[0].parameters
    );
}

#[test]
fn an_enum_parameter_without_values_or_with_them_twice_is_located() {
    let errors = fail(&config(
        "\
    - name: t
      description: d
      entity: Loan
      where: \"status = :a AND member_id = :b AND id = :c AND fee > :d AND due_at < :e\"
      parameters:
        a: {type: enum}
        b: {type: enum, values: [x], enum: [x]}
        c: {type: string, values: [x]}
        d: {type: enum, values: [x, 2]}
        e: {type: enum, values: [x, y], default: z}
",
    ));
    let missing = find(&errors, "`a` is an enum without `values`");
    assert_eq!(
        missing.path,
        "toolforge.declared_tools[0].parameters.a.type"
    );
    assert!(hint(missing).contains("{type: enum, values: [a, b]}"));
    let twice = find(&errors, "`b` lists its values twice");
    assert_eq!(twice.path, "toolforge.declared_tools[0].parameters.b.enum");
    let stray = find(&errors, "`values` lists the values of `type: enum`");
    assert_eq!(
        stray.path,
        "toolforge.declared_tools[0].parameters.c.values"
    );
    assert!(hint(stray).contains("write `type: enum`"));
    let numbers = find(&errors, "`values` value of `d`");
    assert_eq!(
        numbers.path,
        "toolforge.declared_tools[0].parameters.d.values[1]"
    );
    let default = find(&errors, "the default of `e`");
    assert!(
        hint(default).contains("one of the `values`"),
        "{}",
        hint(default)
    );
}

#[test]
fn parameters_take_every_field_type_and_refuse_what_lists_and_places_cannot_have() {
    let source = "\
entities:
  - name: Store
    searchable_fields:
      - {name: id, type: string}
      - {name: tags, type: array<string>}
toolforge:
  declared_tools:
    - name: tagged
      description: Stores with any of the tags
      entity: Store
      where: \"contains(:wanted, id)\"
      parameters:
        wanted: {type: array<string>, enum: [a, b]}
    - name: near_sql
      description: Stores by a place
      sql:
        sqlite: \"SELECT id FROM store WHERE json_extract(:here, '$.latitude') > 0\"
      parameters:
        here: {type: point}
    - name: typo
      description: A misspelled list type
      entity: Store
      where: \"contains(:wanted, id)\"
      parameters:
        wanted: {type: arrray<string>}
";
    let errors = fail(source);
    let listed = find(
        &errors,
        "`enum` lists single values, but `wanted` is an array<string>",
    );
    assert!(hint(listed).contains("takes any list"), "{listed:?}");
    let typo = find(&errors, "`arrray<string>` is not a parameter type");
    assert!(hint(typo).contains("`array<string>`"), "{typo:?}");
    assert!(
        !errors.0.iter().any(|e| e.message.contains("`here`")),
        "a point parameter in a statement is refused: {errors:?}"
    );
}
