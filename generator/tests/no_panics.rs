//! Property test: no mutated config makes the front end panic; every diagnostic it returns is
//! located inside the text and renders.

use proptest::prelude::*;
use toolforge_generator::{CompileOptions, compile_str};

const SEEDS: &[&str] = &[
    include_str!("../../tests/corpus/ragforge__examples__code-rag__ragforge.config.yaml"),
    include_str!("../../tests/corpus/ragforge__examples__generated-from-lr-coderag.yaml"),
    include_str!("../../tests/corpus/ragforge__examples__tool-calling-agent__ragforge.config.yaml"),
    include_str!(
        "../../tests/corpus/ragforge__examples__tool-calling-agent__test-config-with-change-tracking.yaml"
    ),
    include_str!("../../tests/corpus/ragforge__test-code-rag__ragforge.config.yaml.backup.yaml"),
    "toolforge:\n  name_prefix: x_\n  tools: [query]\nentities:\n  - name: Ünïcode\n    description: \"héllo — wörld\"\n    searchable_fields:\n      - name: startLine\n        type: number\n      - name: kind\n        type: enum\n        values: [a, b]\n    vector_indexes:\n      - name: v\n        dimension: 3\n",
];

/// Seeds with computed fields (need the expression compiler).
const COMPUTED_SEEDS: &[&str] = &[
    include_str!(
        "../../tests/corpus/ragforge__examples__tool-calling-agent__test-config-with-computed-fields.yaml"
    ),
    include_str!("../../examples/code-rag/ragforge.config.yaml"),
];

const KEYS: &[&str] = &[
    "name",
    "type",
    "entities",
    "searchable_fields",
    "relationships",
    "target",
    "direction",
    "values",
    "unique_field",
    "vector_index",
    "vector_indexes",
    "dimension",
    "toolforge",
    "hierarchical_content",
    "children_relationship",
    "content_field",
    "change_tracking",
    "materialized",
    "cache_property",
    "&anchor",
    "*anchor",
    "<<",
    "? complex",
    "- item",
];

const VALUES: &[&str] = &[
    "",
    "x",
    "Scope",
    "-1",
    "0",
    "1e309",
    "[]",
    "{}",
    "[a, b",
    "|",
    ">",
    "'q",
    "\"q",
    "null",
    "~",
    "é",
    "🦀",
    "true",
    "!!binary aGk=",
    "*a",
    "&a x",
    "\t",
    "enum",
    "array<string>",
];

#[derive(Debug, Clone)]
enum Mutation {
    DeleteChars(usize, usize),
    DeleteLine(usize),
    SwapLines(usize, usize),
    DuplicateLine(usize),
    InsertKey(usize, usize, usize, usize),
    ReplaceChar(usize, char),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1usize..12).prop_map(|(a, n)| Mutation::DeleteChars(a, n)),
        any::<usize>().prop_map(Mutation::DeleteLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        (any::<usize>(), 0usize..10, 0..KEYS.len(), 0..VALUES.len())
            .prop_map(|(l, i, k, v)| Mutation::InsertKey(l, i, k, v)),
        (
            any::<usize>(),
            prop::sample::select(vec![
                ':', '-', '[', ']', '{', '}', '|', '>', '&', '*', '!', '#', '\'', '"', '\n', '\t',
                ' ', 'é', '🦀', '\u{0}'
            ])
        )
            .prop_map(|(a, c)| Mutation::ReplaceChar(a, c)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn apply(text: &str, mutation: &Mutation) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let n_chars = chars.len().max(1);
    let n_lines = lines.len().max(1);
    match *mutation {
        Mutation::DeleteChars(at, len) => {
            let start = at % n_chars;
            let end = (start + len).min(chars.len());
            chars[..start.min(chars.len())]
                .iter()
                .chain(&chars[end..])
                .collect()
        }
        Mutation::DeleteLine(at) => {
            if !lines.is_empty() {
                lines.remove(at % n_lines);
            }
            lines.join("\n")
        }
        Mutation::SwapLines(a, b) => {
            if !lines.is_empty() {
                lines.swap(a % n_lines, b % n_lines);
            }
            lines.join("\n")
        }
        Mutation::DuplicateLine(at) => {
            if !lines.is_empty() {
                let line = lines[at % n_lines].clone();
                lines.insert(at % n_lines, line);
            }
            lines.join("\n")
        }
        Mutation::InsertKey(at, indent, key, value) => {
            let line = format!("{}{}: {}", " ".repeat(indent), KEYS[key], VALUES[value]);
            lines.insert(at % (lines.len() + 1), line);
            lines.join("\n")
        }
        Mutation::ReplaceChar(at, c) => {
            let mut chars = chars;
            if !chars.is_empty() {
                let i = at % chars.len();
                chars[i] = c;
            }
            chars.into_iter().collect()
        }
        Mutation::Truncate(at) => chars[..at % n_chars.min(chars.len() + 1)].iter().collect(),
    }
}

fn check(seeds: &[&str], seed: usize, mutations: &[Mutation], strict: bool) {
    let mut text = seeds[seed % seeds.len()].to_owned();
    for mutation in mutations {
        text = apply(&text, mutation);
    }
    let diagnostics = match compile_str(
        &text,
        "mutated.yaml",
        &CompileOptions::default().strict(strict),
    ) {
        Ok(compiled) => compiled.warnings,
        Err(errors) => {
            assert!(errors.has_errors());
            errors
        }
    };
    for diagnostic in diagnostics.items() {
        assert!(diagnostic.span.end <= text.len(), "{diagnostic}");
        assert!(text.is_char_boundary(diagnostic.span.start), "{diagnostic}");
        assert!(text.is_char_boundary(diagnostic.span.end), "{diagnostic}");
        assert!(
            diagnostic.line >= 1 && diagnostic.column >= 1,
            "{diagnostic}"
        );
        assert!(diagnostic.hint.is_some(), "{diagnostic}");
    }
    let _ = diagnostics.render();
    let _ = diagnostics.to_json();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn mutated_configs_never_panic(
        seed in 0usize..SEEDS.len(),
        mutations in prop::collection::vec(mutation(), 1..6),
        strict in any::<bool>(),
    ) {
        check(SEEDS, seed, &mutations, strict);
    }

    #[test]
    fn mutated_configs_with_computed_fields_never_panic(
        seed in 0usize..COMPUTED_SEEDS.len(),
        mutations in prop::collection::vec(mutation(), 1..6),
    ) {
        check(COMPUTED_SEEDS, seed, &mutations, false);
    }

    #[test]
    fn random_expressions_never_panic(expression in "[a-zA-Z_ ().+*/%<>=!0-9'\"-]{0,40}") {
        let source = format!(
            "entities:\n  - name: Scope\n    searchable_fields:\n      - name: startLine\n        type: number\n    computed_fields:\n      - name: c\n        type: number\n        expression: {:?}\n",
            expression
        );
        check(&[source.as_str()], 0, &[], false);
    }
}
