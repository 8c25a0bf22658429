//! Snapshots of the generated files for configs with awkward names and a corpus config. The
//! same files are compiled in the `toolforge-tests` crate (`tests/generated/`).

use std::path::Path;

use toolforge_generator::__private::codegen::{GenerateOptions, Layout, generate_files};

fn generate(config: &str, name: &str, layout: Layout) -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(config);
    let compiled = toolforge_generator::compile_file(&path, &Default::default()).unwrap();
    generate_files(&compiled.spec, &GenerateOptions::new(name, layout))
        .unwrap()
        .into_iter()
        .map(|f| (f.path.display().to_string(), f.contents))
        .collect()
}

#[test]
fn awkward_names_client_folder() {
    for (file, contents) in generate(
        "../tests/fixtures/awkward-names.yaml",
        "awkward-names.yaml",
        Layout::ClientFolder,
    ) {
        insta::assert_snapshot!(format!("awkward_names__{file}"), contents);
    }
}

#[test]
fn computed_fields_embedded_module() {
    let files = generate(
        "../tests/corpus/ragforge__examples__tool-calling-agent__test-config-with-computed-fields.yaml",
        "ragforge.config.yaml",
        Layout::Embedded,
    );
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["mod.rs", "spec.json", "schema.sql"],
        "no custom_tools.rs in OUT_DIR"
    );
    insta::assert_snapshot!("computed_fields_embedded__mod.rs", files[0].1);
}

#[test]
fn generation_is_deterministic_for_every_corpus_config() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut generated = 0;
    let mut entries: Vec<_> = std::fs::read_dir(corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let Ok(compiled) = toolforge_generator::compile_file(&path, &Default::default()) else {
            continue;
        };
        let options = GenerateOptions::new("ragforge.config.yaml", Layout::ClientFolder);
        let first = generate_files(&compiled.spec, &options).unwrap();
        let second = generate_files(&compiled.spec, &options).unwrap();
        assert_eq!(first, second, "{}", path.display());
        for file in &first {
            assert!(
                !file.contents.contains(env!("CARGO_MANIFEST_DIR")),
                "no absolute path"
            );
        }
        generated += 1;
    }
    assert!(generated >= 10, "only {generated} corpus configs generated");
}
