//! Integration tests for the toolforge workspace live in `tests/tests/`; this library holds the
//! fixtures they share.

/// The folder holding the ragforge configs the generator must handle.
pub fn corpus_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

/// The client folders generated into `tests/generated/<name>/` (name, config path relative to
/// this crate). The `generated_clients` test compiles them; `generated_fresh` regenerates them
/// and fails when a checked-in folder is stale (`TOOLFORGE_BLESS=1` rewrites them).
pub const GENERATED_CLIENTS: &[(&str, &str)] = &[
    ("awkward_names", "fixtures/awkward-names.yaml"),
    ("chinook", "fixtures/mapped/chinook.yaml"),
    (
        "code_rag",
        "corpus/ragforge__examples__code-rag__ragforge.config.yaml",
    ),
    (
        "computed_fields",
        "corpus/ragforge__examples__tool-calling-agent__test-config-with-computed-fields.yaml",
    ),
    (
        "document_rag",
        "corpus/ragforge__examples__document-rag__ragforge.config.yaml",
    ),
    ("every_tool", "fixtures/every-tool.yaml"),
    (
        "lr_coderag",
        "corpus/ragforge__examples__generated-from-lr-coderag.yaml",
    ),
    ("library", "fixtures/declared/library.yaml"),
    ("library_sql", "fixtures/declared/sql_tools.yaml"),
];

/// The files a client folder should hold for `config` (relative to this crate), generated the
/// way `toolforge generate --config <config> --out generated/<name>` run from this crate would.
pub fn generate_client(config: &str) -> Vec<toolforge_generator::__private::output::OutputFile> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(config);
    let compiled = toolforge_generator::compile_file(&path, &Default::default())
        .unwrap_or_else(|errors| panic!("{config} does not compile:\n{}", errors.render()));
    let options = toolforge_generator::__private::codegen::GenerateOptions::new(
        config,
        toolforge_generator::__private::codegen::Layout::ClientFolder,
    );
    toolforge_generator::__private::codegen::generate_files(&compiled.spec, &options)
        .unwrap_or_else(|error| panic!("{config}: {error}"))
}

/// The README's Rust examples, compiled and run as doc tests so they stay true.
#[doc = include_str!("../../README.md")]
pub struct ReadmeExamples;

/// Checks a tool's successful answer against the tool's `outputSchema` (what MCP clients check
/// `structuredContent` against) and panics, naming the tool and the places, when it departs.
/// A tool without an `outputSchema` fails too: every tool declares one.
pub fn assert_answer_matches_output_schema(
    definition: &toolforge::ToolDefinition,
    arguments: &serde_json::Value,
    answer: &serde_json::Value,
) {
    let tool = &definition.name;
    let schema = definition
        .output_schema
        .as_ref()
        .unwrap_or_else(|| panic!("{tool} has no outputSchema"));
    let validator = jsonschema::validator_for(schema)
        .unwrap_or_else(|e| panic!("the outputSchema of {tool} does not compile: {e}"));
    let problems: Vec<String> = validator
        .iter_errors(answer)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        problems.is_empty(),
        "the answer of {tool} {arguments} does not match its outputSchema: {problems:?}\n{answer}"
    );
}

/// The Rust snippets of the README and of the guide (`docs/guide/src`), run as this crate's
/// doctests (`cargo test -p toolforge-tests --doc`), so that every snippet a reader copies
/// compiles and does what its page says. A chapter with no Rust costs nothing here.
macro_rules! doctests_of {
    ($($name:ident => $page:literal),* $(,)?) => {
        $(
            #[cfg(doctest)]
            #[doc = include_str!(concat!("../../", $page))]
            pub struct $name;
        )*
    };
}

doctests_of! {
    Readme => "README.md",
    GuideIntroduction => "docs/guide/src/introduction.md",
    GuideGettingStarted => "docs/guide/src/getting-started.md",
    GuideConfig => "docs/guide/src/config.md",
    GuideComputedFields => "docs/guide/src/computed-fields.md",
    GuideTools => "docs/guide/src/tools.md",
    GuideChangeTracking => "docs/guide/src/change-tracking.md",
    GuideDatabases => "docs/guide/src/databases.md",
    GuideServing => "docs/guide/src/serving.md",
    GuideSearch => "docs/guide/src/search.md",
    GuideGeneratedCode => "docs/guide/src/generated-code.md",
    GuideCustomTools => "docs/guide/src/custom-tools.md",
    GuideMigratingFromRagforge => "docs/guide/src/migrating-from-ragforge.md",
    GuideTroubleshooting => "docs/guide/src/troubleshooting.md",
    GuideLimits => "docs/guide/src/limits.md",
}
