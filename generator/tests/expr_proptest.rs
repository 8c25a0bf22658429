//! No input makes the expression compiler panic, and every error points inside the body.

use crate::expr_fixture;

use proptest::prelude::*;
use toolforge_generator::__private::expr::{
    ComputedBody, ComputedSource, ExprError, compile_computed_fields,
};

const TOKENS: &[&str] = &[
    "endLine",
    "startLine",
    "name",
    "type",
    "tags",
    "created_at",
    "exported",
    "a",
    "b",
    "HAS_CHANGE",
    "CONSUMES",
    "count",
    "max",
    "sum",
    "length",
    "coalesce",
    "now",
    "days_between",
    "contains",
    "(",
    ")",
    ",",
    ".",
    ".length",
    "+",
    "-",
    "*",
    "/",
    "%",
    "||",
    "=",
    "!=",
    "<>",
    "<",
    "<=",
    ">",
    ">=",
    "<-",
    "AND",
    "OR",
    "NOT",
    "IS",
    "NULL",
    "true",
    "false",
    "1",
    "2.5",
    "1e308",
    "'x'",
    "\"y\"",
    "'",
    "`",
    "`odd`",
    "MATCH",
    "OPTIONAL",
    "RETURN",
    "[",
    "]",
    ":",
    "->",
    "é",
    "#",
    "\\",
    "\n",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..40).prop_map(|tokens| tokens.join(" "))
}

fn glued_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..40).prop_map(|tokens| tokens.concat())
}

/// Compiles `text` as expression and as Cypher, next to two fields that use each other and it.
fn check(text: &str) {
    for body in [
        ComputedBody::Expression(text),
        ComputedBody::Cypher(text),
        ComputedBody::Sql(text),
    ] {
        let fields = [
            ComputedSource {
                name: "a",
                declared_type: "number",
                body,
            },
            ComputedSource {
                name: "b",
                declared_type: "boolean",
                body: ComputedBody::Expression("a > 1"),
            },
        ];
        for result in compile_computed_fields(&expr_fixture::schema(), "Scope", &fields) {
            if let Err(ExprError { span, field, .. }) = result {
                let own = if field == "a" { text } else { "a > 1" };
                assert!(
                    span.start <= span.end && span.end <= own.len(),
                    "{span:?} in {own:?}"
                );
                assert!(
                    own.is_char_boundary(span.start) && own.is_char_boundary(span.end),
                    "{span:?} in {own:?}"
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_text_never_panics(text in any::<String>()) {
        check(&text);
    }

    #[test]
    fn token_soups_never_panic(text in soup()) {
        check(&text);
    }

    #[test]
    fn glued_token_soups_never_panic(text in glued_soup()) {
        check(&text);
    }
}

#[test]
fn pathological_inputs() {
    for text in [
        "(".repeat(100_000),
        ")".repeat(1000),
        "-".repeat(100_000),
        "NOT ".repeat(50_000),
        format!("{}1", "<-".repeat(50_000)),
        vec!["endLine"; 50_000].join(" + "),
        format!("a{}", ".length".repeat(50_000)),
        "9".repeat(10_000),
        format!("'{}", "x".repeat(10_000)),
        "\u{0}".to_owned(),
        "'\u{0}'".to_owned(),
        "`".to_owned(),
        "count(".to_owned(),
        "MATCH (n)-[:HAS_CHANGE]->(".to_owned(),
    ] {
        check(&text);
    }
}
