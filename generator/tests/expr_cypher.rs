//! `cypher:` bodies: the single-hop aggregate pattern is translated, anything else explained.

use crate::expr_fixture;

use expr_fixture::{compile_body, spanned};
use toolforge::spec::ValueType;
use toolforge_generator::__private::expr::{CompiledField, ComputedBody, ExprError, ExprErrorKind};

fn cypher(declared: &str, text: &str) -> Result<CompiledField, ExprError> {
    compile_body(declared, ComputedBody::Cypher(text))
}

const COUNT_SQL: &str = r#"(SELECT count(*) FROM "scope__has_change__change" AS e JOIN "change" AS t ON t."uuid" = e."target_id" WHERE e."source_id" = "n"."uuid")"#;

#[test]
fn the_corpus_pattern_becomes_count() {
    let compiled = cypher(
        "number",
        "OPTIONAL MATCH (n)-[:HAS_CHANGE]->(c:Change)\nRETURN count(c)\n",
    )
    .unwrap();
    assert_eq!(compiled.source, "count(HAS_CHANGE)");
    assert_eq!(compiled.sql, COUNT_SQL);
    assert_eq!(compiled.ty, ValueType::Number);
    assert_eq!(compiled.row_local_sql, None);
}

#[test]
fn variants_of_the_pattern() {
    for text in [
        "MATCH (n)-[:HAS_CHANGE]->(c) RETURN count(c)",
        "optional match (n:Scope) - [ r :HAS_CHANGE ] -> ( c : Change )\n  return COUNT( * ) AS changes;",
        "  OPTIONAL  MATCH\n(n)-[:`HAS_CHANGE`]->(x:Change)\r\n\tRETURN count(x) as total",
    ] {
        let compiled = cypher("number", text).unwrap_or_else(|error| panic!("{text}: {error:?}"));
        assert_eq!(compiled.source, "count(HAS_CHANGE)", "{text}");
        assert_eq!(compiled.sql, COUNT_SQL, "{text}");
    }
    let compiled = cypher(
        "number",
        "OPTIONAL MATCH (n)-[:HAS_CHANGE]->(c:Change) RETURN sum(c.lines_added)",
    )
    .unwrap();
    assert_eq!(compiled.source, "sum(HAS_CHANGE.lines_added)");
    assert!(
        compiled
            .sql
            .starts_with(r#"(SELECT coalesce(sum(t."lines_added"), 0) FROM"#)
    );
    let compiled = cypher(
        "datetime",
        "MATCH (n)-[:HAS_CHANGE]->(c:Change) RETURN max(c.timestamp) AS last",
    )
    .unwrap();
    assert_eq!(
        (compiled.source.as_str(), compiled.ty),
        ("max(HAS_CHANGE.timestamp)", ValueType::Datetime)
    );
    let compiled = cypher(
        "number",
        "OPTIONAL MATCH (n)<-[:CONSUMES]-(caller:Scope) RETURN count(caller)",
    )
    .unwrap();
    assert_eq!(compiled.source, "count(<-CONSUMES)");
    assert!(compiled.sql.contains(r#"WHERE e."target_id" = "n"."uuid""#));
}

#[test]
fn filters_are_untranslatable_with_the_rewrite() {
    let text =
        "OPTIONAL MATCH (n)-[:HAS_CHANGE]->(c:Change) WHERE c.lines_added > 10 RETURN count(c)";
    let error = cypher("number", text).unwrap_err();
    assert_eq!(error.kind, ExprErrorKind::UntranslatableCypher);
    assert_eq!(
        error.message,
        "the Cypher of computed field `f` cannot be translated to SQL: expected `RETURN`, found `WHERE`"
    );
    assert_eq!(spanned(text, &error), "WHERE");
    let hint = error.hint.unwrap();
    assert!(
        hint.ends_with("write `expression: count(HAS_CHANGE)` if that is what it computes"),
        "{hint}"
    );
}

#[test]
fn multi_hop_patterns_explain_the_supported_one() {
    let text = "MATCH (n)-[:CONSUMES]->(m)-[:HAS_CHANGE]->(c) RETURN count(c)";
    let error = cypher("number", text).unwrap_err();
    assert_eq!(error.kind, ExprErrorKind::UntranslatableCypher);
    assert_eq!(spanned(text, &error), "-");
    let hint = error.hint.unwrap();
    assert!(
        hint.contains("OPTIONAL MATCH (n)-[:REL]->(x:Label) RETURN count(x)"),
        "{hint}"
    );
    assert!(hint.contains("`sql:`"), "{hint}");

    let error = cypher("string", "RETURN n.name").unwrap_err();
    assert_eq!(
        (error.kind, error.span.clone()),
        (ExprErrorKind::UntranslatableCypher, 0..6)
    );
    let error = cypher("number", "MATCH (n)-[:HAS_CHANGE]->(c) RETURN collect(c)").unwrap_err();
    assert!(error.message.ends_with("found `collect`"));
}

#[test]
fn relationship_and_label_are_checked() {
    let text = "OPTIONAL MATCH (n)-[:HAS_CHANGE]->(c:Commit) RETURN count(c)";
    let error = cypher("number", text).unwrap_err();
    assert_eq!(error.kind, ExprErrorKind::UntranslatableCypher);
    assert!(
        error
            .message
            .ends_with("`HAS_CHANGE` leads from `Scope` to `Change`, not to `Commit`"),
        "{}",
        error.message
    );
    assert_eq!(spanned(text, &error), "Commit");

    let text = "OPTIONAL MATCH (n)-[:HAS_COMMENT]->(c:Comment) RETURN count(c)";
    let error = cypher("number", text).unwrap_err();
    assert_eq!(error.kind, ExprErrorKind::UntranslatableCypher);
    assert_eq!(spanned(text, &error), "HAS_COMMENT");
    assert!(error.message.contains("there is no entity `Comment`"));

    let text = "OPTIONAL MATCH (n)-[:HAS_CHANGES]->(c) RETURN count(c)";
    let error = cypher("number", text).unwrap_err();
    assert_eq!(error.kind, ExprErrorKind::UntranslatableCypher);
    assert_eq!(error.hint.as_deref(), Some("did you mean `HAS_CHANGE`?"));

    let text = "MATCH (n)-[:HAS_CHANGE]->(c) RETURN max(c.when)";
    let error = cypher("datetime", text).unwrap_err();
    assert_eq!(error.kind, ExprErrorKind::UntranslatableCypher);
    assert_eq!(spanned(text, &error), "when");

    let error = cypher("number", "MATCH (n)-[:HAS_CHANGE]->(c) RETURN count(n)").unwrap_err();
    assert!(error.message.contains("expected `c` (the related node)"));
    let error = cypher(
        "number",
        "MATCH (n:File)-[:HAS_CHANGE]->(c) RETURN count(c)",
    )
    .unwrap_err();
    assert!(error.message.contains("labelled `File`"));
}

#[test]
fn type_errors_stay_type_errors() {
    let error = cypher(
        "number",
        "MATCH (n)-[:HAS_CHANGE]->(c) RETURN sum(c.author)",
    )
    .unwrap_err();
    assert_eq!(error.kind, ExprErrorKind::Type);
    let error = cypher("boolean", "MATCH (n)-[:HAS_CHANGE]->(c) RETURN count(c)").unwrap_err();
    assert_eq!(error.kind, ExprErrorKind::Type);
    assert_eq!(
        error.message,
        "`f` is declared `boolean`, but its expression gives a number"
    );
}
