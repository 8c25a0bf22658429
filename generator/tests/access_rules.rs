//! Row rules (`toolforge.access`): every problem is a located diagnostic (line, column, config
//! path and a hint), and a valid rule is compiled for both dialects with its context values
//! read from the connection, never written into the SQL.

use crate::common;

use common::{at, fail, find, hint, ok};

const ENTITIES: &str = "\
entities:
  - name: Loan
    unique_field: id
    searchable_fields:
      - {name: id, type: string}
      - {name: branch, type: string}
      - {name: fee, type: number}
    computed_fields:
      - {name: double_fee, type: number, expression: fee * 2}
toolforge:
  access:
";

fn config(rules: &str) -> String {
    format!("{ENTITIES}    {rules}\n")
}

#[test]
fn a_valid_rule_compiles_for_both_dialects_and_denies_without_its_values() {
    let compiled = ok(&config("Loan: \"branch = :context.branch AND fee >= 0\""));
    let rule = &compiled.spec.access[0];
    assert_eq!(rule.entity, "Loan");
    assert_eq!(rule.context, ["branch"]);
    assert_eq!(
        rule.sql,
        r#"(toolforge_context('branch') IS NOT NULL AND ("n"."branch" = toolforge_context('branch') AND "n"."fee" >= 0))"#
    );
    assert!(
        rule.postgres_sql.starts_with(
            "(NULLIF(current_setting('toolforge.ctx_branch', true), '') IS NOT NULL AND "
        ),
        "{}",
        rule.postgres_sql
    );
}

#[test]
fn unknown_fields_are_located_inside_the_rule() {
    let errors = fail(&config("Loan: \"brnch = :context.branch\""));
    let error = find(&errors, "`brnch` is not a field");
    at(error, 12, 12, "toolforge.access.Loan");
    assert!(hint(error).contains("did you mean `branch`?"));
}

#[test]
fn unknown_entities_are_located_at_their_key() {
    let errors = fail(&config("Lon: \"branch = :context.branch\""));
    let error = find(&errors, "`Lon` is not an entity");
    at(error, 12, 5, "toolforge.access.Lon");
    assert!(hint(error).contains("Loan"));
}

#[test]
fn bad_expressions_are_located() {
    let errors = fail(&config("Loan: \"fee = :context.branch +\""));
    let error = find(&errors, "row rule of `Loan`");
    assert_eq!(error.path, "toolforge.access.Loan");
    assert_eq!(error.line, 12);
}

#[test]
fn a_rule_must_be_a_condition_that_reads_a_context_value() {
    let errors = fail(&config("Loan: \"fee > 3\""));
    find(&errors, "must read a context value");
    let errors = fail(&config("Loan: \"fee + length(:context.branch)\""));
    find(&errors, "must be a condition");
}

#[test]
fn rules_read_stored_fields_only_and_no_declared_parameters() {
    let errors = fail(&config(
        "Loan: \"double_fee > 2 AND branch = :context.branch\"",
    ));
    find(&errors, "reads only the row's stored fields");
    let errors = fail(&config("Loan: \"branch = :branch\""));
    find(&errors, "row rule of `Loan`");
    let errors = fail(&config("Loan: \"fee = :context.branch\""));
    find(&errors, "row rule of `Loan`");
}
