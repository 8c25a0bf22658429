//! Code generation time: the largest corpus config and a synthetic 200-entity config
//! (compile of the config included separately; generation = Rust + SQL + stub, formatted).

use std::fmt::Write;

use toolforge::spec::SchemaSpec;
use toolforge_generator::__private::codegen::{GenerateOptions, Layout, generate_files};

fn main() {
    divan::main();
}

/// The corpus config producing the most generated code.
fn largest_corpus_spec() -> SchemaSpec {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/corpus/ragforge__test-code-rag__ragforge.config.yaml.backup.yaml"
    );
    toolforge_generator::compile_file(path.as_ref(), &Default::default())
        .expect("corpus config compiles")
        .spec
}

/// 200 entities of 10 fields, 2 computed fields and one relationship each.
pub fn synthetic_config(entities: usize) -> String {
    let mut text = String::from("name: synthetic\nentities:\n");
    for i in 0..entities {
        let _ = write!(text, "  - name: Entity{i}\n    searchable_fields:\n");
        for j in 0..10 {
            let ty = if j % 2 == 0 { "string" } else { "number" };
            let _ = write!(text, "      - name: field{j}\n        type: {ty}\n");
        }
        let _ = write!(
            text,
            "    computed_fields:\n      - name: total\n        type: number\n        expression: field1 + field3\n      - name: big\n        type: boolean\n        expression: field5 > 100\n"
        );
        let _ = write!(
            text,
            "    relationships:\n      - type: NEXT\n        target: Entity{}\n        direction: outgoing\n",
            (i + 1) % entities
        );
    }
    text
}

fn synthetic_spec(entities: usize) -> SchemaSpec {
    toolforge_generator::compile_str(
        &synthetic_config(entities),
        "synthetic.yaml",
        &Default::default(),
    )
    .expect("synthetic config compiles")
    .spec
}

#[divan::bench(sample_count = 20)]
fn largest_corpus_config(bencher: divan::Bencher) {
    let spec = largest_corpus_spec();
    let options = GenerateOptions::new("ragforge.config.yaml", Layout::ClientFolder);
    bencher.bench(|| generate_files(&spec, &options).unwrap());
}

#[divan::bench(sample_count = 10)]
fn synthetic_200_entities(bencher: divan::Bencher) {
    let spec = synthetic_spec(200);
    let options = GenerateOptions::new("ragforge.config.yaml", Layout::ClientFolder);
    bencher.bench(|| generate_files(&spec, &options).unwrap());
}
