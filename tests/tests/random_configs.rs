//! What `validate` accepts, everything accepts: a config that validates initialises a SQLite
//! database, generates, and its generated client compiles.
//!
//! A generator of random configs aims at valid ones, with hostile names: Rust and SQL keywords,
//! prelude and runtime type names, names reserved by SQLite or by the edge tables, unicode,
//! leading digits and underscores, and names that collide in snake_case, UpperCamelCase or
//! case-insensitively. Every one goes through validation; every one that validates is created
//! in a fresh database with the runtime's `Database::init` and generated into a client folder
//! whose Rust files syn parses. A small sample of valid ones is compiled in a scratch crate that
//! depends on `toolforge` alone (like `standalone_clients.rs`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config as RunnerConfig, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Map, Value, json};
use toolforge_generator::__private::codegen::{
    GenerateOptions, Layout, generate_files, module_tokens,
};
use toolforge_generator::__private::output::write_folder;
use toolforge_generator::{CompileOptions, Compiled, compile_str};

/// Names that have broken, or could break, a generated client or its tables. All identifiers.
const HOSTILE: &[&str] = &[
    // Rust keywords, raw and not
    "type",
    "self",
    "Self",
    "super",
    "crate",
    "fn",
    "match",
    "async",
    "gen",
    "_1",
    // SQL keywords and SQLite's own names
    "select",
    "order",
    "where",
    "group",
    "table",
    "index",
    "rowid",
    "_rowid_",
    "oid",
    "SqliteMaster",
    "sqlite_master",
    "Sqlite_x",
    "SQLite_x",
    // prelude and generated names
    "String",
    "Option",
    "Vec",
    "Result",
    "Some",
    "None",
    "Ok",
    "Err",
    "Box",
    "Default",
    "Query",
    "Record",
    "RecordField",
    "Writer",
    "Follow",
    "Database",
    "Tool",
    "Into",
    "From",
    "records",
    "tool_args",
    "spec",
    "write",
    "EntityName",
    "FieldName",
    "RelationshipName",
    "Condition",
    "OrderBy",
    "Direction",
    "Operator",
    "TraversalDirection",
    "QueryEntitiesArgs",
    "f64",
    "bool",
    "str",
    "u32",
    "std",
    "core",
    "toolforge",
    "serde",
    "schemars",
    // the storage mapping
    "source_id",
    "target_id",
    "SOURCE_ID",
    "uuid",
    "UUID",
    "embedding",
    "idx",
    "target_id_idx",
    // digits, underscores, case twins
    "a1",
    "a_1",
    "A1",
    "aB",
    "ab",
    "AB",
    "a_b",
    "A_B",
    "Ab",
    "_a",
    "a_",
    "x__y",
    "DocField",
    "Doc",
    "doc",
    "Docs",
    "DocTitle",
    "title",
    "Title",
    "field",
    "Field",
];

/// Names that are not usable: validation must reject them (and nothing may panic on them).
const INVALID: &[&str] = &[
    "x²", "é", "名前", "a-b", "a b", "", "1", "_", "__", "r#type",
];

/// A name: mostly identifiers, from short alphabets so that collisions are frequent.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        10 => "[A-Za-z][A-Za-z0-9_]{0,7}",
        6 => prop::sample::select(HOSTILE).prop_map(str::to_owned),
        3 => "[aAbB][aAbB_1]{0,3}",
        1 => prop::sample::select(INVALID).prop_map(str::to_owned),
    ]
}

/// Free text (names of configs, descriptions) that ends up in comments, doc comments and
/// string literals: line breaks, comment ends, code fences, bidirectional controls, SQL.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("a description".to_owned()),
        Just("line one\nline two */ /* ``` \"quoted\" \\ #[x] {{ x }} {% if %}".to_owned()),
        Just("-- comment\nDROP TABLE x; /* \r\n */".to_owned()),
        Just("tab\there, bell\u{7}, rtl \u{202E}txet\u{202C}, isolate \u{2067}x\u{2069}, sep \u{2028}".to_owned()),
        Just("ends with a backslash \\".to_owned()),
        Just("a bare\rcarriage return".to_owned()),
        "[ -~]{0,20}",
        "\\PC{0,12}",
    ]
}

const FIELD_TYPES: &[&str] = &[
    "string",
    "number",
    "boolean",
    "datetime",
    "enum",
    "array<string>",
    "array<number>",
    "point",
];

#[derive(Debug, Clone)]
struct FieldPlan {
    name: String,
    ty: &'static str,
    indexed: bool,
    values: Vec<String>,
    description: Option<String>,
}

fn field() -> impl Strategy<Value = FieldPlan> {
    (
        name(),
        prop::sample::select(FIELD_TYPES),
        any::<bool>(),
        prop::collection::btree_set(
            prop_oneof![
                3 => "[a-z]{1,5}",
                2 => prop::sample::select(HOSTILE).prop_map(str::to_owned),
                1 => text(),
            ],
            1..4,
        ),
        prop::option::of(text()),
    )
        .prop_map(|(name, ty, indexed, values, description)| FieldPlan {
            name,
            ty,
            indexed,
            values: values.into_iter().collect(),
            description,
        })
}

#[derive(Debug, Clone)]
enum Body {
    Constant,
    Field(Index),
    Count(Index),
    Sql,
}

#[derive(Debug, Clone)]
struct ComputedPlan {
    name: String,
    body: Body,
    materialized: Option<String>,
}

fn computed() -> impl Strategy<Value = ComputedPlan> {
    (
        name(),
        prop_oneof![
            Just(Body::Constant),
            any::<Index>().prop_map(Body::Field),
            any::<Index>().prop_map(Body::Count),
            Just(Body::Sql),
        ],
        prop::option::weighted(0.15, name()),
    )
        .prop_map(|(name, body, materialized)| ComputedPlan {
            name,
            body,
            materialized,
        })
}

#[derive(Debug, Clone)]
struct RelationshipPlan {
    rel_type: String,
    target: Index,
    direction: &'static str,
    properties: Vec<FieldPlan>,
}

fn relationship() -> impl Strategy<Value = RelationshipPlan> {
    (
        prop_oneof![
            2 => prop::sample::select(&["HAS", "LINKS", "DEFINED_IN"][..]).prop_map(str::to_owned),
            1 => name(),
        ],
        any::<Index>(),
        prop::sample::select(&["outgoing", "incoming", "both"][..]),
        prop::collection::vec(field(), 0..3),
    )
        .prop_map(
            |(rel_type, target, direction, properties)| RelationshipPlan {
                rel_type,
                target,
                direction,
                properties,
            },
        )
}

#[derive(Debug, Clone)]
struct EntityPlan {
    name: String,
    fields: Vec<FieldPlan>,
    unique: Option<Result<Index, String>>,
    computed: Vec<ComputedPlan>,
    relationships: Vec<RelationshipPlan>,
    vector: Option<Option<String>>,
    display: Option<Index>,
    description: Option<String>,
}

fn entity() -> impl Strategy<Value = EntityPlan> {
    (
        name(),
        prop::collection::vec(field(), 0..5),
        prop::option::weighted(
            0.4,
            prop_oneof![any::<Index>().prop_map(Ok), name().prop_map(Err)],
        ),
        prop::collection::vec(computed(), 0..3),
        prop::collection::vec(relationship(), 0..3),
        prop::option::weighted(0.2, prop::option::of(name())),
        prop::option::weighted(0.3, any::<Index>()),
        prop::option::weighted(0.3, text()),
    )
        .prop_map(
            |(name, fields, unique, computed, relationships, vector, display, description)| {
                EntityPlan {
                    description,
                    name,
                    fields,
                    unique,
                    computed,
                    relationships,
                    vector,
                    display,
                }
            },
        )
}

/// A config as YAML text.
fn config() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(entity(), 1..4),
        prop::option::weighted(0.2, prop_oneof![Just("code_".to_owned()), name()]),
        prop::option::weighted(0.3, text()),
        prop::option::weighted(0.3, text()),
    )
        .prop_map(|(entities, prefix, name, description)| {
            render(&entities, prefix, name, description)
        })
}

/// A computed-field expression naming `name` (backticks for names that need them).
fn quoted(name: &str) -> String {
    format!("`{name}`")
}

fn render(
    entities: &[EntityPlan],
    prefix: Option<String>,
    name: Option<String>,
    description: Option<String>,
) -> String {
    let names: Vec<&str> = entities.iter().map(|e| e.name.as_str()).collect();
    let rendered: Vec<Value> = entities
        .iter()
        .map(|entity| {
            let mut out = Map::new();
            out.insert("name".into(), json!(entity.name));
            if let Some(description) = &entity.description {
                out.insert("description".into(), json!(description));
            }
            out.insert(
                "searchable_fields".into(),
                entity.fields.iter().map(field_value).collect(),
            );
            match &entity.unique {
                Some(Ok(index)) => {
                    // A listed unique field must be a string.
                    let strings: Vec<&FieldPlan> =
                        entity.fields.iter().filter(|f| f.ty == "string").collect();
                    if !strings.is_empty() {
                        let field = strings[index.index(strings.len())];
                        out.insert("unique_field".into(), json!(field.name));
                    }
                }
                Some(Err(name)) => {
                    out.insert("unique_field".into(), json!(name));
                }
                _ => {}
            }
            if let Some(index) = &entity.display
                && !entity.fields.is_empty()
            {
                let field = &entity.fields[index.index(entity.fields.len())];
                out.insert("display_name_field".into(), json!(field.name));
            }
            let relationships: Vec<Value> = entity
                .relationships
                .iter()
                .map(|rel| {
                    json!({
                        "type": rel.rel_type,
                        "target": names[rel.target.index(names.len())],
                        "direction": rel.direction,
                        "properties": rel.properties.iter().map(field_value).collect::<Vec<_>>(),
                    })
                })
                .collect();
            let computed: Vec<Value> = entity
                .computed
                .iter()
                .map(|plan| {
                    let (ty, expression) = match &plan.body {
                        Body::Field(index) if !entity.fields.is_empty() => {
                            let field = &entity.fields[index.index(entity.fields.len())];
                            match field.ty {
                                "number" => ("number", format!("{} + 1", quoted(&field.name))),
                                "boolean" => ("boolean", format!("NOT {}", quoted(&field.name))),
                                "datetime" => ("datetime", quoted(&field.name)),
                                "array<string>" | "array<number>" => {
                                    ("number", format!("{}.length", quoted(&field.name)))
                                }
                                // Expressions cannot read places.
                                "point" => ("number", "1 + 2".to_owned()),
                                _ => ("number", format!("length({})", quoted(&field.name))),
                            }
                        }
                        Body::Count(index) if !entity.relationships.is_empty() => {
                            let rel =
                                &entity.relationships[index.index(entity.relationships.len())];
                            ("number", format!("count({})", rel.rel_type))
                        }
                        Body::Sql => ("string", String::new()),
                        _ => ("number", "1 + 2".to_owned()),
                    };
                    let mut out = Map::new();
                    out.insert("name".into(), json!(plan.name));
                    out.insert("type".into(), json!(ty));
                    if matches!(plan.body, Body::Sql) {
                        out.insert("sql".into(), json!("'x'"));
                    } else {
                        out.insert("expression".into(), json!(expression));
                    }
                    if let Some(cache) = &plan.materialized {
                        out.insert("materialized".into(), json!(true));
                        out.insert("cache_property".into(), json!(cache));
                    }
                    Value::Object(out)
                })
                .collect();
            if !relationships.is_empty() {
                out.insert("relationships".into(), Value::Array(relationships));
            }
            if !computed.is_empty() {
                out.insert("computed_fields".into(), Value::Array(computed));
            }
            if let Some(column) = &entity.vector {
                let mut index = Map::new();
                index.insert("name".into(), json!("vectors"));
                index.insert("dimension".into(), json!(4));
                if let Some(column) = column {
                    index.insert("field".into(), json!(column));
                }
                out.insert("vector_index".into(), Value::Object(index));
            }
            Value::Object(out)
        })
        .collect();
    let mut config = Map::new();
    config.insert(
        "name".into(),
        json!(name.unwrap_or_else(|| "random".to_owned())),
    );
    if let Some(description) = description {
        config.insert("description".into(), json!(description));
    }
    config.insert("entities".into(), Value::Array(rendered));
    if let Some(prefix) = prefix {
        config.insert("toolforge".into(), json!({ "name_prefix": prefix }));
    }
    serde_yaml::to_string(&Value::Object(config)).expect("a JSON value is YAML")
}

fn field_value(field: &FieldPlan) -> Value {
    let mut out = Map::new();
    out.insert("name".into(), json!(field.name));
    out.insert("type".into(), json!(field.ty));
    if field.indexed {
        out.insert("indexed".into(), json!(true));
    }
    if field.ty == "enum" {
        out.insert("values".into(), json!(field.values));
    }
    if let Some(description) = &field.description {
        out.insert("description".into(), json!(description));
    }
    Value::Object(out)
}

/// Checks that a config that validates initialises a fresh database (and a second `init`
/// finds every table in place) and generates a client folder whose Rust files parse, and the
/// config macro's module. Returns the compiled config when it validated.
fn check_config(yaml: &str) -> Result<Option<Compiled>, TestCaseError> {
    let Ok(compiled) = compile_str(yaml, "random.yaml", &CompileOptions::default()) else {
        return Ok(None);
    };
    let fail = |message: String| TestCaseError::fail(format!("{message}\n--- config ---\n{yaml}"));
    let db = toolforge::sql::Database::open(":memory:")
        .map_err(|error| fail(format!("cannot open an in-memory database: {error}")))?;
    db.init(&compiled.spec)
        .map_err(|error| fail(format!("db init refuses a valid config: {error}")))?;
    let again = db
        .init(&compiled.spec)
        .map_err(|error| fail(format!("a second db init fails: {error}")))?;
    prop_assert!(
        again.created.is_empty(),
        "a second init created {:?}",
        again.created
    );
    let options = GenerateOptions::new("random.yaml", Layout::ClientFolder);
    let files = generate_files(&compiled.spec, &options)
        .map_err(|error| fail(format!("generate refuses a valid config: {error}")))?;
    for file in files
        .iter()
        .filter(|file| file.path.extension().is_some_and(|ext| ext == "rs"))
    {
        syn::parse_file(&file.contents).map_err(|error| {
            fail(format!(
                "generated {} does not parse: {error}",
                file.path.display()
            ))
        })?;
    }
    let inline = module_tokens(
        &compiled.spec,
        &GenerateOptions::new("random.yaml", Layout::Inline),
    )
    .map_err(|error| fail(format!("the config macro refuses a valid config: {error}")))?;
    syn::parse2::<syn::File>(inline)
        .map_err(|error| fail(format!("the config macro's module does not parse: {error}")))?;
    Ok(Some(compiled))
}

#[test]
fn every_config_that_validates_initialises_and_generates() {
    let valid = AtomicUsize::new(0);
    let total = AtomicUsize::new(0);
    let mut runner = TestRunner::new(RunnerConfig {
        cases: 1000,
        failure_persistence: None,
        ..RunnerConfig::default()
    });
    let result = runner.run(&config(), |yaml| {
        total.fetch_add(1, Ordering::Relaxed);
        if check_config(&yaml)?.is_some() {
            valid.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    });
    if let Err(error) = result {
        panic!("{error}");
    }
    let (valid, total) = (valid.into_inner(), total.into_inner());
    eprintln!("{valid} of {total} random configs validated");
    // The generator aims at valid configs: a run where few validate proves little.
    assert!(
        total >= 1000 && valid * 4 >= total,
        "only {valid} of {total} random configs validated"
    );
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits in the workspace")
        .to_path_buf()
}

/// Five valid random configs (a fresh sample each run; the failing configs are printed) are
/// generated into one scratch crate whose only dependency is `toolforge`, checked with one
/// `cargo check` (sharing `standalone_clients.rs`'s target folder, so the runtime is built
/// once).
#[test]
fn a_sample_of_valid_random_configs_compiles_with_toolforge_alone() {
    const SAMPLE: usize = 5;
    let root = workspace_root();
    let scratch = tempfile::tempdir().unwrap();
    let crate_dir = scratch.path().join("crate");
    std::fs::create_dir_all(crate_dir.join("src")).unwrap();
    std::fs::write(
        crate_dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"random-clients\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
             publish = false\n\n[dependencies]\ntoolforge = {{ path = {:?}, package = \"toolforge-runtime\" }}\n\n[workspace]\n",
            root.join("runtime").display().to_string()
        ),
    )
    .unwrap();
    std::fs::copy(root.join("Cargo.lock"), crate_dir.join("Cargo.lock")).unwrap();

    let strategy = config();
    let mut lib = String::from(
        "//! Random valid configs' clients, compiled with `toolforge` as the only dependency.\n\
         #![deny(warnings, missing_docs)]\n\n",
    );
    let mut configs = Vec::new();
    let mut runner = TestRunner::new_with_rng(
        RunnerConfig::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &rand_seed()),
    );
    while configs.len() < SAMPLE {
        let yaml = strategy.new_tree(&mut runner).expect("a config").current();
        let Some(compiled) = check_config(&yaml).unwrap_or_else(|e| panic!("{e}")) else {
            continue;
        };
        let module = format!("client_{}", configs.len());
        let files = generate_files(
            &compiled.spec,
            &GenerateOptions::new("random.yaml", Layout::ClientFolder),
        )
        .unwrap();
        write_folder(&crate_dir.join("src").join(&module), &files, false).unwrap();
        lib.push_str(&format!("/// `{module}`.\npub mod {module};\n"));
        configs.push(yaml);
    }
    std::fs::write(crate_dir.join("src/lib.rs"), lib).unwrap();

    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["check", "--quiet", "--manifest-path"])
        .arg(crate_dir.join("Cargo.toml"))
        .env(
            "CARGO_TARGET_DIR",
            root.join("target").join("standalone-clients"),
        )
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .expect("run cargo");
    assert!(
        output.status.success(),
        "the clients of valid random configs do not compile:\n{}\n--- configs ---\n{}",
        String::from_utf8_lossy(&output.stderr),
        configs
            .iter()
            .enumerate()
            .map(|(i, yaml)| format!("# client_{i}\n{yaml}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// A seed from the clock, so each run compiles a different sample.
fn rand_seed() -> [u8; 32] {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_nanos())
        .unwrap_or_default();
    let mut seed = [0u8; 32];
    seed[..16].copy_from_slice(&nanos.to_le_bytes());
    seed
}
