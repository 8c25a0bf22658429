//! The expression compiler: exact SQL for every construct, types, row-local forms.

use crate::expr_fixture;

use expr_fixture::{compile, compile_body, sql};
use toolforge::spec::ValueType;
use toolforge_generator::__private::expr::ComputedBody;

#[test]
fn arithmetic_keeps_source_grouping() {
    let compiled = compile("number", "endLine - startLine + 1").unwrap();
    assert_eq!(compiled.sql, r#"("n"."endLine" - "n"."startLine" + 1)"#);
    assert_eq!(
        compiled.row_local_sql.as_deref(),
        Some(r#"("endLine" - "startLine" + 1)"#)
    );
    assert_eq!(compiled.ty, ValueType::Number);
    assert_eq!(compiled.source, "endLine - startLine + 1");
    assert_eq!(
        sql("number", "endLine - (startLine - 1)"),
        r#"("n"."endLine" - ("n"."startLine" - 1))"#
    );
    assert_eq!(
        sql("number", "(endLine + 1) * 2 % 7"),
        r#"(("n"."endLine" + 1) * 2 % 7)"#
    );
    assert_eq!(sql("number", "-startLine"), r#"(-"n"."startLine")"#);
    assert_eq!(sql("number", "- -startLine"), r#"(-(-"n"."startLine"))"#);
    assert_eq!(
        sql("number", "-(endLine - startLine)"),
        r#"(-("n"."endLine" - "n"."startLine"))"#
    );
}

#[test]
fn division_is_real_division() {
    assert_eq!(
        sql("number", "endLine / 2"),
        r#"(CAST("n"."endLine" AS REAL) / 2)"#
    );
    assert_eq!(
        sql("number", "(endLine - startLine) / (endLine + 1)"),
        r#"(CAST("n"."endLine" - "n"."startLine" AS REAL) / ("n"."endLine" + 1))"#
    );
}

#[test]
fn literals() {
    assert_eq!(sql("number", "1.5"), "1.5");
    assert_eq!(sql("number", "99999999999999999999"), "1e20");
    assert_eq!(sql("string", "'it''s'"), "'it''s'");
    assert_eq!(sql("string", r#""say \"hi\"""#), r#"'say "hi"'"#);
    assert_eq!(sql("boolean", "TRUE"), "1");
    assert_eq!(sql("boolean", "false"), "0");
    assert_eq!(sql("string", "null"), "NULL");
    assert_eq!(sql("string", "'ünïcödé ✓'"), "'ünïcödé ✓'");
}

#[test]
fn keyword_and_backtick_names_are_quoted_columns() {
    assert_eq!(
        sql("boolean", "type = 'function'"),
        r#"("n"."type" = 'function')"#
    );
    assert_eq!(
        sql("boolean", "`type` == 'class'"),
        r#"("n"."type" = 'class')"#
    );
}

#[test]
fn comparisons_and_logic() {
    assert_eq!(
        sql("boolean", "(endLine - startLine + 1) > 100"),
        r#"("n"."endLine" - "n"."startLine" + 1 > 100)"#
    );
    assert_eq!(
        sql(
            "boolean",
            "startLine <> 1 and not exported OR docstring is null"
        ),
        r#"("n"."startLine" != 1 AND NOT "n"."exported" OR "n"."docstring" IS NULL)"#
    );
    assert_eq!(
        sql("boolean", "NOT (exported OR startLine >= 3)"),
        r#"(NOT ("n"."exported" OR "n"."startLine" >= 3))"#
    );
    assert_eq!(
        sql("boolean", "(startLine < 3) = exported"),
        r#"(("n"."startLine" < 3) = "n"."exported")"#
    );
    assert_eq!(sql("boolean", "exported = true"), r#"("n"."exported" = 1)"#);
    assert_eq!(
        sql("boolean", "docstring IS NOT NULL"),
        r#"("n"."docstring" IS NOT NULL)"#
    );
    assert_eq!(
        sql("boolean", "created_at > '2024-01-01'"),
        r#"("n"."created_at" > '2024-01-01')"#
    );
}

#[test]
fn string_functions_and_length_sugar() {
    let compiled = compile("number", "source.length").unwrap();
    assert_eq!(compiled.sql, r#"length("n"."source")"#);
    assert_eq!(
        compiled.row_local_sql.as_deref(),
        Some(r#"length("source")"#)
    );
    assert_eq!(compiled.source, "source.length");
    assert_eq!(sql("number", "LENGTH(name)"), r#"length("n"."name")"#);
    assert_eq!(
        sql("number", "tags.length"),
        r#"json_array_length("n"."tags")"#
    );
    assert_eq!(sql("string", "name.lower()"), r#"lower("n"."name")"#);
    assert_eq!(
        sql("string", "upper(trim(name))"),
        r#"upper(trim("n"."name"))"#
    );
    assert_eq!(
        sql("string", "name || ':' || type"),
        r#"("n"."name" || ':' || "n"."type")"#
    );
    assert_eq!(
        sql("string", "concat(name, ' at ', startLine)"),
        r#"(coalesce("n"."name", '') || coalesce(' at ', '') || coalesce("n"."startLine", ''))"#
    );
    assert_eq!(sql("string", "concat(name)"), r#"coalesce("n"."name", '')"#);
    assert_eq!(
        sql("boolean", "contains(name, 'test')"),
        r#"(instr("n"."name", 'test') > 0)"#
    );
    assert_eq!(
        sql("boolean", "name.starts_with('get')"),
        r#"(substr("n"."name", 1, length('get')) = 'get')"#
    );
    assert_eq!(
        sql("boolean", "ends_with(name, 'Test')"),
        r#"(substr("n"."name", length("n"."name") - length('Test') + 1) = 'Test')"#
    );
}

#[test]
fn array_contains_is_not_row_local() {
    let compiled = compile("boolean", "contains(tags, 'api')").unwrap();
    assert_eq!(
        compiled.sql,
        r#"EXISTS (SELECT 1 FROM json_each("n"."tags") AS j WHERE j."value" = 'api')"#
    );
    assert_eq!(compiled.row_local_sql, None);
    assert!(compile("boolean", "weights.contains(2)").is_ok());
}

#[test]
fn numeric_and_null_functions() {
    assert_eq!(
        sql("number", "abs(startLine - endLine)"),
        r#"abs("n"."startLine" - "n"."endLine")"#
    );
    assert_eq!(
        sql("number", "round(endLine / 3, 2)"),
        r#"round(CAST("n"."endLine" AS REAL) / 3, 2)"#
    );
    assert_eq!(sql("number", "round(endLine)"), r#"round("n"."endLine")"#);
    assert_eq!(
        sql("string", "coalesce(docstring, name, '')"),
        r#"coalesce("n"."docstring", "n"."name", '')"#
    );
    assert_eq!(
        sql("number", "least(startLine, endLine, 10)"),
        r#"min("n"."startLine", "n"."endLine", 10)"#
    );
    assert_eq!(
        sql("number", "greatest(startLine, 0)"),
        r#"max("n"."startLine", 0)"#
    );
    assert_eq!(
        sql("datetime", "coalesce(updated_at, created_at)"),
        r#"coalesce("n"."updated_at", "n"."created_at")"#
    );
}

#[test]
fn dates_and_now() {
    let compiled = compile("datetime", "now()").unwrap();
    assert_eq!(compiled.sql, "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')");
    assert_eq!(compiled.row_local_sql, None, "now() changes over time");
    let compiled = compile("number", "days_between(created_at, updated_at)").unwrap();
    assert_eq!(
        compiled.sql,
        r#"CAST(julianday("n"."updated_at") - julianday("n"."created_at") AS INTEGER)"#
    );
    assert!(compiled.row_local_sql.is_some());
    assert_eq!(
        compile("number", "days_between(created_at, now())")
            .unwrap()
            .row_local_sql,
        None
    );
    let years = sql("number", "years_between(created_at, '2030-01-01')");
    assert!(
        years.starts_with(
            r#"CASE WHEN julianday('2030-01-01') >= julianday("n"."created_at") THEN"#
        ),
        "{years}"
    );
}

#[test]
fn computed_fields_are_inlined_in_declaration_order_or_not() {
    use toolforge_generator::__private::expr::{ComputedSource, compile_computed_fields};
    let fields = [
        ComputedSource {
            name: "is_large",
            declared_type: "boolean",
            body: ComputedBody::Expression("line_count > 100"),
        },
        ComputedSource {
            name: "line_count",
            declared_type: "number",
            body: ComputedBody::Expression("endLine - startLine + 1"),
        },
        ComputedSource {
            name: "size",
            declared_type: "number",
            body: ComputedBody::Expression("line_count * 2"),
        },
        ComputedSource {
            name: "changes",
            declared_type: "number",
            body: ComputedBody::Expression("count(HAS_CHANGE)"),
        },
        ComputedSource {
            name: "busy",
            declared_type: "boolean",
            body: ComputedBody::Expression("changes > 3"),
        },
    ];
    let results = compile_computed_fields(&expr_fixture::schema(), "Scope", &fields);
    let results: Vec<_> = results.into_iter().map(Result::unwrap).collect();
    assert_eq!(results[0].name, "is_large");
    assert_eq!(
        results[0].sql,
        r#"(("n"."endLine" - "n"."startLine" + 1) > 100)"#
    );
    assert_eq!(
        results[0].row_local_sql.as_deref(),
        Some(r#"(("endLine" - "startLine" + 1) > 100)"#)
    );
    assert_eq!(
        results[2].sql,
        r#"(("n"."endLine" - "n"."startLine" + 1) * 2)"#
    );
    assert!(results[4].sql.contains("SELECT count(*)"));
    assert_eq!(
        results[4].row_local_sql, None,
        "uses an aggregate through `changes`"
    );
}

#[test]
fn relationship_aggregates_are_correlated_subqueries() {
    let join = r#"FROM "scope__has_change__change" AS e JOIN "change" AS t ON t."uuid" = e."target_id" WHERE e."source_id" = "n"."uuid")"#;
    let compiled = compile("number", "count(HAS_CHANGE)").unwrap();
    assert_eq!(compiled.sql, format!("(SELECT count(*) {join}"));
    assert_eq!(compiled.row_local_sql, None);
    let compiled = compile("datetime", "max(HAS_CHANGE.timestamp)").unwrap();
    assert_eq!(
        compiled.sql,
        format!(r#"(SELECT max(t."timestamp") {join}"#)
    );
    assert_eq!(compiled.ty, ValueType::Datetime);
    assert_eq!(
        sql("number", "sum(HAS_CHANGE.lines_added)"),
        format!(r#"(SELECT coalesce(sum(t."lines_added"), 0) {join}"#)
    );
    assert_eq!(
        sql("number", "AVG(HAS_CHANGE.lines_added)"),
        format!(r#"(SELECT avg(t."lines_added") {join}"#)
    );
    assert_eq!(
        sql("number", "count(HAS_CHANGE.author)"),
        format!(r#"(SELECT count(t."author") {join}"#)
    );
    assert_eq!(
        sql("number", "count(<-CONSUMES)"),
        r#"(SELECT count(*) FROM "scope__consumes__scope" AS e JOIN "scope" AS t ON t."uuid" = e."source_id" WHERE e."target_id" = "n"."uuid")"#
    );
    assert_eq!(
        sql("number", "count(CONSUMES) + 1"),
        r#"((SELECT count(*) FROM "scope__consumes__scope" AS e JOIN "scope" AS t ON t."uuid" = e."target_id" WHERE e."source_id" = "n"."uuid") + 1)"#
    );
    assert_eq!(
        sql("boolean", "count(HAS_CHANGE) > 0"),
        format!("((SELECT count(*) {join} > 0)")
    );
}

#[test]
fn a_relationship_type_with_several_targets_is_a_union() {
    let mut schema = expr_fixture::schema();
    schema
        .relationships
        .push(expr_fixture::relationship("MENTIONS", "Scope", "Change"));
    schema
        .relationships
        .push(expr_fixture::relationship("MENTIONS", "Scope", "Scope"));
    use toolforge_generator::__private::expr::{ComputedSource, compile_computed_fields};
    let fields = [
        ComputedSource {
            name: "mentions",
            declared_type: "number",
            body: ComputedBody::Expression("count(MENTIONS)"),
        },
        ComputedSource {
            name: "last",
            declared_type: "string",
            body: ComputedBody::Expression("max(MENTIONS.uuid)"),
        },
    ];
    let results = compile_computed_fields(&schema, "Scope", &fields);
    assert_eq!(
        results[0].as_ref().unwrap().sql,
        r#"(SELECT count(*) FROM (SELECT 1 AS v FROM "scope__mentions__change" AS e JOIN "change" AS t ON t."uuid" = e."target_id" WHERE e."source_id" = "n"."uuid" UNION ALL SELECT 1 AS v FROM "scope__mentions__scope" AS e JOIN "scope" AS t ON t."uuid" = e."target_id" WHERE e."source_id" = "n"."uuid") AS u)"#
    );
    assert!(
        results[1]
            .as_ref()
            .unwrap()
            .sql
            .starts_with(r#"(SELECT max(u.v) FROM (SELECT t."uuid" AS v FROM"#)
    );
}

#[test]
fn sql_bodies_are_trusted() {
    let compiled = compile_body("number", ComputedBody::Sql("  n.\"endLine\" * 2 ")).unwrap();
    assert_eq!(compiled.sql, "(n.\"endLine\" * 2)");
    assert_eq!(compiled.ty, ValueType::Number);
    assert_eq!(compiled.row_local_sql, None);
    assert_eq!(compiled.source, "n.\"endLine\" * 2");
}

#[test]
fn null_takes_the_declared_type() {
    assert_eq!(compile("datetime", "null").unwrap().ty, ValueType::Datetime);
    assert_eq!(
        compile("number", "coalesce(null, startLine)").unwrap().ty,
        ValueType::Number
    );
}

#[test]
fn unknown_declared_types_are_left_to_the_validator() {
    let compiled = compile("integer", "startLine + 1").unwrap();
    assert_eq!(compiled.ty, ValueType::Number);
}
