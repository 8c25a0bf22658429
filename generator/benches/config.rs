//! Parse + validate + lower of configs: the largest corpus config and a synthetic
//! 500-entity × 20-field config (target: under 50 ms), and a hostile 200 KB file of nested
//! flow sequences, refused for its depth (quadratic in the depth before it was refused early).
//!
//! `cargo bench -p toolforge-generator --bench config`

use std::fmt::Write;

use toolforge_generator::{CompileOptions, compile_str};

fn main() {
    divan::main();
}

/// The largest corpus config (by size).
const LARGEST: &str =
    include_str!("../../tests/corpus/ragforge__examples__ragforge.code-with-summarization.yaml");

/// 500 entities of 20 fields each, every entity related to the next one.
fn synthetic(entities: usize, fields: usize) -> String {
    let mut out = String::from("name: synthetic\nentities:\n");
    for e in 0..entities {
        let _ = write!(
            out,
            "  - name: Entity{e}\n    description: Entity number {e}\n    display_name_field: field0\n    searchable_fields:\n"
        );
        for f in 0..fields {
            let ty = ["string", "number", "boolean", "datetime"][f % 4];
            let _ = write!(
                out,
                "      - name: field{f}\n        type: {ty}\n        indexed: {}\n        description: Field {f} of entity {e}\n",
                f % 3 == 0
            );
        }
        let _ = write!(
            out,
            "    relationships:\n      - type: NEXT\n        direction: outgoing\n        target: Entity{}\n",
            (e + 1) % entities
        );
    }
    out
}

#[divan::bench]
fn largest_corpus_config(bencher: divan::Bencher) {
    bencher.bench(|| {
        compile_str(
            divan::black_box(LARGEST),
            "largest.yaml",
            &CompileOptions::default(),
        )
        .expect("valid")
    });
}

#[divan::bench]
fn synthetic_500_entities_20_fields(bencher: divan::Bencher) {
    let source = synthetic(500, 20);
    bencher.bench(|| {
        compile_str(
            divan::black_box(&source),
            "synthetic.yaml",
            &CompileOptions::default(),
        )
        .expect("valid")
    });
}

/// The same config with one unknown key: the warning makes the span index (the second YAML
/// pass that locates diagnostics) get built.
#[divan::bench]
fn synthetic_500_entities_20_fields_with_a_warning(bencher: divan::Bencher) {
    let source =
        synthetic(500, 20).replacen("name: synthetic\n", "name: synthetic\ncolour: red\n", 1);
    bencher.bench(|| {
        compile_str(
            divan::black_box(&source),
            "synthetic.yaml",
            &CompileOptions::default(),
        )
        .expect("valid")
    });
}

#[divan::bench]
fn deeply_nested_200kb_refused(bencher: divan::Bencher) {
    let source = format!("entities: {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    bencher.bench(|| {
        compile_str(
            divan::black_box(&source),
            "deep.yaml",
            &CompileOptions::default(),
        )
        .expect_err("too deep")
    });
}
