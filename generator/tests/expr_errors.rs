//! The expression compiler's errors: kind, message, hint and the exact span in the body.

use crate::expr_fixture;

use expr_fixture::{fail, spanned};
use toolforge_generator::__private::expr::{
    ComputedBody, ComputedSource, ExprErrorKind, compile_computed_fields,
};

#[test]
fn string_operand_of_arithmetic_is_named() {
    let text = "name * startLine";
    let error = fail("number", text);
    assert_eq!(error.kind, ExprErrorKind::Type);
    assert_eq!(error.field, "f");
    assert_eq!(
        error.message,
        "left operand `name` is a string, but `*` needs numbers"
    );
    assert_eq!(spanned(text, &error), "name");

    let text = "startLine * (name)";
    let error = fail("number", text);
    assert_eq!(
        error.message,
        "right operand `name` is a string, but `*` needs numbers"
    );
    assert_eq!(error.span, 13..17);
}

#[test]
fn plus_on_strings_suggests_concat() {
    let text = "name + '()'";
    let error = fail("string", text);
    assert_eq!(error.kind, ExprErrorKind::Type);
    assert_eq!(spanned(text, &error), "name");
    assert_eq!(
        error.hint.as_deref(),
        Some("to join strings use `concat(a, b)` or `a || b`")
    );
}

#[test]
fn datetime_subtraction_suggests_days_between() {
    let error = fail("number", "updated_at - created_at");
    assert!(error.hint.clone().unwrap().contains("days_between"));
}

#[test]
fn unknown_names_have_suggestions() {
    let text = "endline - startLine";
    let error = fail("number", text);
    assert_eq!(error.kind, ExprErrorKind::UnknownName);
    assert_eq!(
        error.message,
        "`endline` is not a field, computed field or relationship of `Scope`"
    );
    assert_eq!(error.hint.as_deref(), Some("did you mean `endLine`?"));
    assert_eq!(spanned(text, &error), "endline");

    let text = "lenght(name)";
    let error = fail("number", text);
    assert_eq!(error.kind, ExprErrorKind::UnknownName);
    assert_eq!(error.message, "unknown function `lenght`");
    assert_eq!(error.hint.as_deref(), Some("did you mean `length`?"));
    assert_eq!(spanned(text, &error), "lenght");

    let error = fail("number", "size(tags)");
    assert_eq!(error.hint.as_deref(), Some("use `length`"));

    let text = "name.foo";
    let error = fail("string", text);
    assert_eq!(error.message, "unknown function `foo`");
    assert_eq!(spanned(text, &error), "foo");
}

#[test]
fn relationships_need_aggregates() {
    let error = fail("number", "HAS_CHANGE + 1");
    assert_eq!(error.kind, ExprErrorKind::Type);
    assert_eq!(
        error.hint.as_deref(),
        Some("aggregate it, for example `count(HAS_CHANGE)`")
    );
    let text = "HAS_CHANGE.lines_added";
    let error = fail("number", text);
    assert!(
        error
            .hint
            .clone()
            .unwrap()
            .contains("max(HAS_CHANGE.lines_added)")
    );
    assert_eq!(spanned(text, &error), text);
}

#[test]
fn aggregate_errors() {
    let text = "max(HAS_CHANGE.timstamp)";
    let error = fail("datetime", text);
    assert_eq!(error.kind, ExprErrorKind::UnknownName);
    assert_eq!(
        error.message,
        "`Change` (the target of `HAS_CHANGE`) has no field `timstamp`"
    );
    assert_eq!(error.hint.as_deref(), Some("did you mean `timestamp`?"));
    assert_eq!(spanned(text, &error), "timstamp");

    let text = "count(HAS_CHANGES)";
    let error = fail("number", text);
    assert_eq!(error.kind, ExprErrorKind::UnknownName);
    assert_eq!(error.hint.as_deref(), Some("did you mean `HAS_CHANGE`?"));
    assert_eq!(spanned(text, &error), "HAS_CHANGES");

    let error = fail("number", "sum(HAS_CHANGE.author)");
    assert_eq!(error.kind, ExprErrorKind::Type);
    assert_eq!(
        error.message,
        "`sum` needs a number field, but `Change.author` is a string"
    );

    let text = "max(startLine, endLine)";
    let error = fail("number", text);
    assert_eq!(error.kind, ExprErrorKind::Type);
    assert!(error.hint.clone().unwrap().contains("greatest(a, b)"));
    assert_eq!(spanned(text, &error), text);

    let text = "min(startLine)";
    let error = fail("number", text);
    assert_eq!(
        error.message,
        "`min` aggregates over a relationship, but `startLine` is not one"
    );
    assert_eq!(spanned(text, &error), "startLine");

    let error = fail("number", "sum(HAS_CHANGE)");
    assert_eq!(
        error.hint.as_deref(),
        Some("for example `sum(HAS_CHANGE.field)`")
    );
}

#[test]
fn relationships_in_the_other_direction_are_explained() {
    let text = "count(HAS_CHANGE)";
    let fields = [ComputedSource {
        name: "scopes",
        declared_type: "number",
        body: ComputedBody::Expression(text),
    }];
    let error = compile_computed_fields(&expr_fixture::schema(), "Change", &fields)
        .remove(0)
        .unwrap_err();
    assert_eq!(error.kind, ExprErrorKind::UnknownName);
    assert_eq!(
        error.message,
        "relationship `HAS_CHANGE` does not start at `Change`: it goes from `Scope` to `Change`"
    );
    assert_eq!(
        error.hint.as_deref(),
        Some("follow it backwards with `<-HAS_CHANGE`, for example `count(<-HAS_CHANGE)`")
    );
    assert_eq!(spanned(text, &error), "HAS_CHANGE");
    let fields = [ComputedSource {
        name: "scopes",
        declared_type: "number",
        body: ComputedBody::Expression("count(<-HAS_CHANGE)"),
    }];
    assert!(compile_computed_fields(&expr_fixture::schema(), "Change", &fields)[0].is_ok());

    let error = fail("number", "count(<-HAS_CHANGE)");
    assert!(error.hint.clone().unwrap().contains("without `<-`"));
}

#[test]
fn declared_type_must_match() {
    let text = "  endLine - startLine ";
    let error = fail("boolean", text);
    assert_eq!(error.kind, ExprErrorKind::Type);
    assert_eq!(
        error.message,
        "`f` is declared `boolean`, but its expression gives a number"
    );
    assert_eq!(
        error.hint.as_deref(),
        Some("declare `type: number`, or compare the value, for example `... > 0`")
    );
    assert_eq!(spanned(text, &error), "endLine - startLine");
    let error = fail("string", "tags");
    assert!(error.message.contains("an array<string>"));
}

#[test]
fn logic_and_comparison_types() {
    let text = "startLine AND exported";
    let error = fail("boolean", text);
    assert_eq!(
        error.message,
        "left operand `startLine` is a number, but `AND` needs booleans"
    );
    assert_eq!(spanned(text, &error), "startLine");

    let text = "name > 3";
    let error = fail("boolean", text);
    assert_eq!(
        error.message,
        "cannot compare `name` (a string) with `3` (a number)"
    );
    assert_eq!(spanned(text, &error), text);

    let text = "docstring = null";
    let error = fail("boolean", text);
    assert_eq!(
        error.hint.as_deref(),
        Some("use `IS NULL` or `IS NOT NULL`, for example `docstring IS NULL`")
    );

    let error = fail("boolean", "NOT name");
    assert!(error.message.contains("NOT needs a boolean"));
    let error = fail("boolean", "tags = 'x'");
    assert!(error.hint.clone().unwrap().contains("contains"));
    let error = fail("number", "length(startLine)");
    assert_eq!(
        error.message,
        "argument 1 of `length`, `startLine`, is a number, but `length` needs a string or an array"
    );
    let error = fail("number", "round(1, 2, 3)");
    assert_eq!(
        error.message,
        "`round` takes 1 or 2 arguments, but 3 were given"
    );
    let error = fail("string", "coalesce(name, 1)");
    assert!(error.message.contains("must have one type"));
}

#[test]
fn syntax_errors_have_spans() {
    for (text, covered) in [
        ("endLine - ", "-"),
        ("(endLine - startLine", "("),
        ("name = 'abc", "'abc"),
        ("endLine startLine", "startLine"),
        ("a < b < c", "<"),
        ("endLine # 2", "#"),
        ("1e400", "1e400"),
        ("count(<-CONSUMES) + <-CONSUMES", "<-CONSUMES"),
    ] {
        let error = fail("number", text);
        assert!(
            matches!(error.kind, ExprErrorKind::Syntax),
            "{text}: {error:?}"
        );
        assert_eq!(spanned(text, &error), covered, "{text}");
    }
    let error = fail("number", "");
    assert_eq!((error.kind, error.span), (ExprErrorKind::Syntax, 0..0));
}

#[test]
fn cycles_print_the_cycle() {
    let body = ComputedBody::Expression;
    let fields = [
        ComputedSource {
            name: "a",
            declared_type: "number",
            body: body("b + 1"),
        },
        ComputedSource {
            name: "b",
            declared_type: "number",
            body: body("startLine * a"),
        },
        ComputedSource {
            name: "c",
            declared_type: "number",
            body: body("a + 2"),
        },
        ComputedSource {
            name: "d",
            declared_type: "number",
            body: body("d"),
        },
        ComputedSource {
            name: "e",
            declared_type: "number",
            body: body("endLine"),
        },
    ];
    let results = compile_computed_fields(&expr_fixture::schema(), "Scope", &fields);
    let a = results[0].clone().unwrap_err();
    assert_eq!(a.kind, ExprErrorKind::Cycle);
    assert_eq!(
        a.message,
        "computed fields refer to each other in a cycle: a -> b -> a"
    );
    assert_eq!(a.span, 0..1);
    let b = results[1].clone().unwrap_err();
    assert_eq!(
        b.message,
        "computed fields refer to each other in a cycle: b -> a -> b"
    );
    assert_eq!(b.span, 12..13);
    let c = results[2].clone().unwrap_err();
    assert_eq!(c.kind, ExprErrorKind::Cycle);
    assert_eq!(
        c.message,
        "computed field `a` used here depends on a cycle of computed fields"
    );
    let d = results[3].clone().unwrap_err();
    assert_eq!(
        d.message,
        "computed fields refer to each other in a cycle: d -> d"
    );
    assert_eq!(results[4].as_ref().unwrap().sql, r#""n"."endLine""#);
}

#[test]
fn errors_in_used_fields_propagate() {
    let fields = [
        ComputedSource {
            name: "bad",
            declared_type: "number",
            body: ComputedBody::Expression("name * 2"),
        },
        ComputedSource {
            name: "uses_bad",
            declared_type: "number",
            body: ComputedBody::Expression("1 + bad"),
        },
    ];
    let results = compile_computed_fields(&expr_fixture::schema(), "Scope", &fields);
    let error = results[1].clone().unwrap_err();
    assert_eq!(error.kind, ExprErrorKind::Type);
    assert_eq!(error.span, 4..7);
    assert!(
        error
            .message
            .starts_with("computed field `bad` used here cannot be compiled")
    );
}

#[test]
fn exponential_inlining_is_stopped() {
    let names: Vec<String> = (0..40).map(|index| format!("f{index}")).collect();
    let bodies: Vec<String> = (0..40)
        .map(|index| {
            if index == 0 {
                "endLine".to_owned()
            } else {
                format!("f{0} + f{0}", index - 1)
            }
        })
        .collect();
    let fields: Vec<ComputedSource> = (0..40)
        .map(|index| ComputedSource {
            name: &names[index],
            declared_type: "number",
            body: ComputedBody::Expression(&bodies[index]),
        })
        .collect();
    let results = compile_computed_fields(&expr_fixture::schema(), "Scope", &fields);
    assert!(results[5].is_ok());
    let error = results.last().unwrap().clone().unwrap_err();
    assert!(
        error.message.contains("too large") || error.message.contains("cannot be compiled"),
        "{error:?}"
    );
}

#[test]
fn unknown_entity() {
    let fields = [ComputedSource {
        name: "x",
        declared_type: "number",
        body: ComputedBody::Expression("1"),
    }];
    let error = compile_computed_fields(&expr_fixture::schema(), "Nope", &fields)
        .remove(0)
        .unwrap_err();
    assert_eq!(error.kind, ExprErrorKind::UnknownName);
}

#[test]
fn errors_display_field_message_and_hint() {
    let error = fail("number", "endline");
    assert_eq!(
        error.to_string(),
        "computed field `f`: `endline` is not a field, computed field or relationship of `Scope` (did you mean `endLine`?)"
    );
}
