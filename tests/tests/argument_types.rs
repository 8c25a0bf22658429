//! The generator's list of the runtime's argument types (`generator/src/codegen/argument_types.rs`)
//! is what the runtime's argument structs name today (their `#[derive(IntoEngine)]`), and every
//! type a tool's argument schema names is reachable in a generated `tool_args` module. A stale
//! list fails with a diff; `TOOLFORGE_BLESS=1 cargo test -p toolforge-tests --test integration
//! argument_types` rewrites it.

use std::collections::BTreeSet;
use std::path::Path;

use toolforge::sql::tools::{DatabaseTool, NamedType};
use toolforge_generator::__private::output::{Drift, OutputFile, WritePolicy, check_folder};

/// The folder of the file the generator includes.
fn list_path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../generator/src/codegen")
}

/// One `NamedType { .. }` as the generated list writes it.
fn entry(named: &NamedType) -> String {
    let params: Vec<String> = named.params.iter().map(|p| format!("{p:?}")).collect();
    format!("{:?}, &[{}]", named.name, params.join(", "))
}

/// The list's text, from the runtime's derives.
fn expected_list() -> String {
    let mut text = String::from(
        "//! @generated from the runtime's argument types (their `#[derive(IntoEngine)]`) by\n\
         //! `TOOLFORGE_BLESS=1 cargo test -p toolforge-tests --test integration argument_types`;\n\
         //! do not edit. The generator cannot read them itself: it never links the SQL engine.\n\n\
         /// A runtime type's name under `toolforge::sql::tools`, and its name parameters.\n\
         pub(crate) type NamedType = (&'static str, &'static [&'static str]);\n\n\
         /// Per database tool, the runtime's types its arguments name (the argument struct\n\
         /// first), each with its name parameters.\n\
         #[rustfmt::skip]\n\
         pub(crate) const TOOL_ARGUMENT_TYPES: &[(&str, &[NamedType])] = &[\n",
    );
    for tool in DatabaseTool::ALL {
        text.push_str(&format!("    (\n        {:?},\n        &[\n", tool.name()));
        for named in tool.argument_types() {
            text.push_str(&format!("            ({}),\n", entry(&named)));
        }
        text.push_str("        ],\n    ),\n");
    }
    text.push_str("];\n");
    text
}

#[test]
fn the_generators_list_is_what_the_argument_structs_name() {
    let file = OutputFile {
        path: "argument_types.rs".into(),
        contents: expected_list(),
        policy: WritePolicy::Generated,
    };
    let folder = list_path();
    if std::env::var_os("TOOLFORGE_BLESS").is_some() {
        std::fs::write(folder.join(&file.path), &file.contents).expect("write the list");
    }
    let stale: Vec<String> = check_folder(&folder, &[file])
        .into_iter()
        .map(|drift| match drift {
            Drift::Changed { diff, .. } => diff,
            other => format!("{other:?}"),
        })
        .collect();
    assert!(
        stale.is_empty(),
        "the generator's list is stale (rerun with TOOLFORGE_BLESS=1):\n{}",
        stale.join("\n")
    );
}

/// Every `$defs` name of a schema, the generic ones without schemars' `_for_...` suffix.
fn schema_type_names(schema: &serde_json::Value, out: &mut BTreeSet<String>) {
    if let Some(defs) = schema.get("$defs").and_then(serde_json::Value::as_object) {
        for name in defs.keys() {
            let base = name.split("_for_").next().unwrap_or(name);
            out.insert(base.to_owned());
        }
    }
}

#[test]
fn every_type_an_argument_names_is_in_the_generated_tool_args_module() {
    let config = "fixtures/every-tool.yaml";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(config);
    let spec = toolforge_generator::compile_file(&path, &Default::default())
        .expect("the fixture compiles")
        .spec;
    let module = toolforge_tests::generate_client(config)
        .into_iter()
        .find(|file| file.path.ends_with("mod.rs"))
        .map(|file| file.contents)
        .expect("the generated mod.rs");
    let planned = spec.database_tool_names();
    assert_eq!(
        planned.len(),
        DatabaseTool::ALL.len(),
        "the fixture builds every database tool"
    );
    let tool_args = module
        .split("pub mod tool_args {")
        .nth(1)
        .expect("a tool_args module");
    let mut missing = Vec::new();
    for tool in DatabaseTool::ALL {
        let mut names: BTreeSet<String> = tool
            .argument_types()
            .iter()
            .map(|t| t.name.to_owned())
            .collect();
        // The argument schema is an independent witness of what the struct names.
        let definition = tool.definition(&spec);
        schema_type_names(&definition.input_schema, &mut names);
        for name in names {
            let exported = [
                format!("pub use ::toolforge::sql::tools::{name};"),
                format!("pub type {name} = "),
            ];
            if !exported
                .iter()
                .any(|form| tool_args.contains(form.as_str()))
            {
                missing.push(format!("{}: {name}", tool.name()));
            }
        }
    }
    assert!(missing.is_empty(), "missing from tool_args: {missing:?}");
}
