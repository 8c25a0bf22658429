//! The analysis and the rules on small crates written into a temporary directory: each test
//! states, on a tree of a few files, one thing the tool must see or must not invent.

use std::fs;
use std::path::{Path, PathBuf};

use tempfile::TempDir;
use toolforge_layers::{
    CrateGraph, ItemKind, ModulePath, Resolution, Rule, Violation, acyclic, cfg_confined, check,
    forbidden_crates, layers,
};

/// A crate's `src/` directory holding `files` (path relative to `src/`, contents).
struct Fixture {
    _dir: TempDir,
    src: PathBuf,
}

impl Fixture {
    fn new(files: &[(&str, &str)]) -> Fixture {
        let dir = tempfile::tempdir().expect("temporary directory");
        let src = dir.path().join("src");
        for (path, text) in files {
            let path = src.join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        Fixture { _dir: dir, src }
    }

    fn src(&self) -> &Path {
        &self.src
    }

    fn graph(&self) -> CrateGraph {
        CrateGraph::load(&self.src).unwrap_or_else(|error| panic!("{error}"))
    }
}

fn path(text: &str) -> ModulePath {
    ModulePath::parse(text)
}

/// The edges as `from -> to @ file:line [N mentions]`, without the `crate::` prefixes.
fn edges(graph: &CrateGraph) -> Vec<String> {
    graph
        .edges()
        .iter()
        .map(|edge| {
            let short = |path: &ModulePath| path.segments().join("::");
            let count = match edge.count {
                1 => String::new(),
                count => format!(" [{count} mentions]"),
            };
            let (from, to) = (short(&edge.from), short(&edge.to));
            format!("{from} -> {to} @ {}{count}", edge.first)
        })
        .collect()
}

#[test]
fn a_two_module_cycle_is_reported_with_its_lines() {
    let fixture = Fixture::new(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a.rs", "use crate::b::B;\npub struct A;\n"),
        (
            "b.rs",
            "pub struct B;\n\nfn make() -> crate::a::A {\n    crate::a::A\n}\n",
        ),
    ]);
    let error = acyclic(fixture.src(), "").unwrap_err();
    let text = error.to_string();
    assert!(text.contains("cycle of 2 modules"), "{text}");
    assert!(text.contains("crate::a -> crate::b (a.rs:1)"), "{text}");
    assert!(
        text.contains("crate::b -> crate::a (b.rs:3) [2 mentions]"),
        "{text}"
    );

    let [Violation::Cycle(cycle)] = error.violations().collect::<Vec<_>>()[..] else {
        panic!("one cycle expected: {error}");
    };
    assert_eq!(cycle.modules, vec![path("a"), path("b")]);
    assert_eq!(cycle.edges.len(), 2);

    // The prefix selects which cycles matter.
    assert!(acyclic(fixture.src(), "a").is_err());
    let unrelated = Fixture::new(&[
        ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
        ("a.rs", "use crate::b::B;\npub struct A;\n"),
        ("b.rs", "pub struct B;\nfn f(_: crate::a::A) {}\n"),
        ("c.rs", "use crate::a::A;\n"),
    ]);
    assert!(acyclic(unrelated.src(), "c").is_ok());
    assert!(acyclic(unrelated.src(), "b").is_err());
}

#[test]
fn reexports_lead_to_the_defining_module_not_the_facade() {
    let fixture = Fixture::new(&[
        ("lib.rs", "pub mod facade;\nmod sibling;\n"),
        (
            "facade/mod.rs",
            "mod child;\nmod deep;\npub use child::X;\npub use deep::*;\npub(crate) use self::child::Y as Renamed;\n",
        ),
        ("facade/child.rs", "pub struct X;\npub struct Y;\n"),
        ("facade/deep.rs", "mod deeper;\npub use deeper::Z;\n"),
        ("facade/deep/deeper.rs", "pub struct Z;\n"),
        (
            "sibling.rs",
            "use crate::facade::X;\nuse crate::facade::{Renamed, Z};\n",
        ),
    ]);
    let graph = fixture.graph();
    let from_sibling: Vec<String> = edges(&graph)
        .into_iter()
        .filter(|edge| edge.starts_with("sibling"))
        .collect();
    assert_eq!(
        from_sibling,
        vec![
            "sibling -> facade::child @ sibling.rs:1 [2 mentions]",
            "sibling -> facade::deep::deeper @ sibling.rs:2",
        ]
    );

    // The re-exports themselves are recorded, and resolve to where things are defined.
    let reexports = graph.reexports(&path("facade"));
    let names: Vec<Option<&str>> = reexports
        .iter()
        .map(|(export, _)| export.name.as_deref())
        .collect();
    assert_eq!(names, vec![Some("X"), None, Some("Renamed")]);
    assert_eq!(reexports[0].1, Resolution::Item(path("facade::child")));
    assert_eq!(reexports[1].1, Resolution::Module(path("facade::deep")));
    assert_eq!(reexports[2].0.path, vec!["self", "child", "Y"]);
    assert_eq!(
        graph.resolve(&path("sibling"), "crate::facade::Z"),
        Some(Resolution::Item(path("facade::deep::deeper")))
    );
}

#[test]
fn test_only_code_is_ignored() {
    let fixture = Fixture::new(&[
        (
            "lib.rs",
            "mod a;\nmod b;\n#[cfg(test)]\nmod test_support;\n",
        ),
        (
            "a.rs",
            "pub struct A;\n\
             #[cfg(test)]\n\
             mod tests {\n    use crate::b::B;\n}\n\
             #[cfg(all(test, feature = \"x\"))]\n\
             fn helper() -> crate::b::B { crate::b::B }\n\
             #[test]\n\
             fn t() { let _ = crate::b::B; }\n\
             impl A {\n    #[cfg(test)]\n    fn only_in_tests(&self) -> crate::b::B { crate::b::B }\n}\n",
        ),
        ("b.rs", "pub struct B;\nuse crate::a::A;\n"),
        ("test_support.rs", "use crate::a::A;\n"),
    ]);
    let graph = fixture.graph();
    assert_eq!(edges(&graph), vec!["b -> a @ b.rs:2"]);
    assert!(acyclic(fixture.src(), "").is_ok());
    // A test-only module is not a module of the crate at all.
    assert!(graph.module(&path("test_support")).is_none());
    assert!(graph.module(&path("a::tests")).is_none());
}

#[test]
fn super_self_and_crate_paths_resolve() {
    let fixture = Fixture::new(&[
        ("lib.rs", "pub mod sql;\npub mod util;\n"),
        (
            "sql/mod.rs",
            "pub mod database;\npub mod query;\npub mod tools;\npub struct Error;\n",
        ),
        ("sql/database.rs", "pub fn open() {}\n"),
        (
            "sql/query.rs",
            "use super::database;\n\npub fn run() -> Result<(), super::Error> {\n    database::open();\n    Ok(())\n}\n",
        ),
        ("sql/tools/mod.rs", "mod lookup;\n"),
        (
            "sql/tools/lookup.rs",
            "pub fn f() {\n    super::super::query::run().ok();\n    self::helper();\n    crate::util::trim();\n}\nfn helper() {}\n",
        ),
        ("util.rs", "pub fn trim() {}\n"),
    ]);
    let graph = fixture.graph();
    assert_eq!(
        edges(&graph),
        vec![
            "sql::query -> sql @ sql/query.rs:3",
            "sql::query -> sql::database @ sql/query.rs:1 [2 mentions]",
            "sql::tools::lookup -> sql::query @ sql/tools/lookup.rs:2",
            "sql::tools::lookup -> util @ sql/tools/lookup.rs:4",
        ]
    );
}

#[test]
fn use_groups_make_one_edge_per_leaf_and_imported_modules_are_followed() {
    let fixture = Fixture::new(&[
        ("lib.rs", "mod a;\nmod b;\nmod c;\nmod user;\n"),
        ("a.rs", "pub struct X;\n"),
        ("b.rs", "pub struct Y;\npub struct Z;\n"),
        ("c.rs", "pub fn open() {}\n"),
        (
            "user.rs",
            "use crate::{\n    a::X,\n    b::{Y, Z},\n};\nuse crate::c;\n\nfn f() {\n    c::open();\n}\n",
        ),
    ]);
    let graph = fixture.graph();
    assert_eq!(
        edges(&graph),
        vec![
            "user -> a @ user.rs:2",
            "user -> b @ user.rs:3 [2 mentions]",
            "user -> c @ user.rs:5 [2 mentions]",
        ]
    );
}

#[test]
fn the_module_tree_follows_mod_declarations() {
    let fixture = Fixture::new(&[
        (
            "lib.rs",
            "pub mod a;\nmod b;\nmod missing;\nmod inline {\n    pub fn f() {}\n}\n",
        ),
        ("a.rs", "pub mod child;\npub const C: u8 = 0;\n"),
        (
            "a/child.rs",
            "pub trait T {}\nmacro_rules! m { () => {} }\n",
        ),
        (
            "b/mod.rs",
            "pub(crate) enum E { V }\npub type Alias = E;\npub static S: u8 = 0;\n",
        ),
        ("stray.rs", "use crate::a::C;\n"),
    ]);
    let graph = fixture.graph();
    let modules: Vec<String> = graph
        .file_modules()
        .iter()
        .map(|module| {
            format!(
                "{} {} {}",
                module.path(),
                module.file().display(),
                module.lines()
            )
        })
        .collect();
    assert_eq!(
        modules,
        vec![
            "crate lib.rs 6",
            "crate::a a.rs 2",
            "crate::a::child a/child.rs 2",
            "crate::b b/mod.rs 3",
        ]
    );
    // The inline module is a module for resolution, but not a node of the graph.
    let inline = graph.module(&path("inline")).unwrap();
    assert!(inline.is_inline());
    assert_eq!(inline.lines(), 3);
    // A file no `mod` declares is not a module; a declared one without a file is a warning.
    assert!(graph.module(&path("stray")).is_none());
    assert_eq!(graph.warnings().len(), 1);
    assert!(
        graph.warnings()[0]
            .to_string()
            .starts_with("lib.rs:3: `mod missing;` has no file")
    );

    let defined = |module: &str| graph.module(&path(module)).unwrap().defined().clone();
    assert_eq!(
        defined("").into_iter().collect::<Vec<_>>(),
        vec![
            ("a".to_string(), ItemKind::Mod),
            ("b".to_string(), ItemKind::Mod),
            ("inline".to_string(), ItemKind::Mod),
            ("missing".to_string(), ItemKind::Mod),
        ]
    );
    assert_eq!(defined("a::child").get("T"), Some(&ItemKind::Trait));
    assert_eq!(defined("a::child").get("m"), Some(&ItemKind::Macro));
    assert_eq!(defined("b").get("E"), Some(&ItemKind::Enum));
    assert_eq!(defined("b").get("Alias"), Some(&ItemKind::Type));
    assert_eq!(defined("b").get("S"), Some(&ItemKind::Static));
}

#[test]
fn inline_modules_count_as_their_file_and_resolve_super_from_inside() {
    let fixture = Fixture::new(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        (
            "a.rs",
            "pub struct A;\npub mod inner {\n    pub fn f() -> super::A { super::A }\n    pub fn g() { crate::b::g(); }\n}\n",
        ),
        (
            "b.rs",
            "pub fn g() {}\npub fn h() { crate::a::inner::f(); }\n",
        ),
    ]);
    let graph = fixture.graph();
    assert_eq!(edges(&graph), vec!["a -> b @ a.rs:4", "b -> a @ b.rs:2"]);
}

#[test]
fn the_layer_rule_catches_an_upward_import() {
    let fixture = Fixture::new(&[
        ("lib.rs", "mod ident;\nmod query;\nmod tools;\nmod free;\n"),
        ("ident.rs", "pub fn quote() {}\n"),
        ("query.rs", "use crate::ident::quote;\npub fn build() {}\n"),
        ("tools/mod.rs", "mod lookup;\npub fn register() {}\n"),
        ("tools/lookup.rs", "use crate::query::build;\n"),
        ("free.rs", "use crate::tools::register;\n"),
    ]);
    let stack: &[&[&str]] = &[&["ident"], &["query"], &["tools"]];
    assert!(layers(fixture.src(), stack).is_ok());

    // `ident` (bottom) reaching up into `tools` breaks the rule.
    fs::write(
        fixture.src().join("ident.rs"),
        "pub fn quote() {}\n\nfn f() {\n    crate::tools::register();\n}\n",
    )
    .unwrap();
    let error = layers(fixture.src(), stack).unwrap_err();
    let violations: Vec<&Violation> = error.violations().collect();
    assert_eq!(violations.len(), 1, "{error}");
    let Violation::UpwardImport {
        edge,
        from_layer,
        to_layer,
    } = violations[0]
    else {
        panic!("an upward import expected: {error}");
    };
    assert_eq!(edge.from, path("ident"));
    assert_eq!(edge.to, path("tools"));
    assert_eq!(edge.first.to_string(), "ident.rs:4");
    assert_eq!(from_layer, &(0, "ident".to_string()));
    assert_eq!(to_layer, &(2, "tools".to_string()));
    let text = error.to_string();
    assert!(
        text.contains("upward import: crate::ident -> crate::tools (ident.rs:4)"),
        "{text}"
    );

    // The longest prefix decides: `tools::lookup` placed below `query` now imports upward.
    let error = layers(fixture.src(), &[&["tools::lookup"], &["query"], &["tools"]]).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("crate::tools::lookup -> crate::query"),
        "{error}"
    );
}

#[test]
fn a_stale_prefix_is_a_violation() {
    let fixture = Fixture::new(&[("lib.rs", "mod a;\n"), ("a.rs", "")]);
    let error = acyclic(fixture.src(), "sql").unwrap_err();
    assert_eq!(
        error.violations().collect::<Vec<_>>(),
        vec![&Violation::UnknownPrefix("sql".to_string())]
    );
    let error = cfg_confined(fixture.src(), "postgres", &["sql/postgres"]).unwrap_err();
    assert!(
        error.to_string().contains("`sql/postgres` matches nothing"),
        "{error}"
    );
}

#[test]
fn the_cfg_rule_catches_a_misplaced_cfg() {
    let fixture = Fixture::new(&[
        (
            "lib.rs",
            "pub mod sql;\n#[cfg(feature = \"postgres\")]\nfn leak() {}\n",
        ),
        (
            "sql/mod.rs",
            "#[cfg(feature = \"postgres\")]\npub mod postgres;\n",
        ),
        (
            "sql/postgres/mod.rs",
            "#[cfg_attr(feature = \"postgres\", derive(Debug))]\npub struct Pg;\n",
        ),
        (
            "sql/query.rs",
            "// #[cfg(feature = \"postgres\")] in a comment does not count\n\
             #[cfg(test)]\nmod tests {\n    #[cfg(feature = \"postgres\")]\n    fn pg() {}\n}\n\
             fn f() -> bool {\n    cfg!(feature = \"postgres\")\n}\n",
        ),
    ]);
    assert!(cfg_confined(fixture.src(), "postgres", &["sql/", "lib.rs"]).is_ok());
    let error =
        cfg_confined(fixture.src(), "postgres", &["sql/mod.rs", "sql/postgres/"]).unwrap_err();
    let misplaced: Vec<String> = error
        .violations()
        .map(|violation| match violation {
            Violation::MisplacedCfg(mention) => mention.location.to_string(),
            other => panic!("unexpected {other}"),
        })
        .collect();
    // Test code counts too: it is compiled with and without the feature like any other.
    assert_eq!(
        misplaced,
        vec!["lib.rs:2", "sql/query.rs:4", "sql/query.rs:8"]
    );
    assert!(
        error
            .to_string()
            .contains("misplaced cfg at lib.rs:2: #[cfg(feature = \"postgres\")]"),
        "{error}"
    );
}

#[test]
fn forbidden_crates_are_found_in_uses_and_paths() {
    let fixture = Fixture::new(&[
        ("lib.rs", "pub mod sql;\nextern crate self as mylib;\n"),
        (
            "sql/mod.rs",
            "pub mod tools;\npub mod sqlite;\npub use rusqlite;\n",
        ),
        (
            "sql/sqlite.rs",
            "use rusqlite::Connection;\npub fn open() -> Connection { todo!() }\n",
        ),
        (
            "sql/tools/mod.rs",
            "use std::collections::BTreeMap;\n\n\
             pub fn f<T: Default>(_: BTreeMap<u8, T>) -> T {\n    \
             let _ = u32::MAX;\n    \
             let _ = <Vec<u8>>::new();\n    \
             let _ = Option::<u8>::None;\n    \
             let _ = mylib::sql::sqlite::open;\n    \
             T::default()\n}\n\n\
             fn g() -> Result<(), tokio_postgres::Error> {\n    \
             let _ = format!(\"{}\", ::serde_json::Value::Null);\n    \
             Ok(())\n}\n",
        ),
    ]);
    let graph = fixture.graph();
    let crates = |module: &str| -> Vec<String> {
        graph
            .external_crates(&path(module))
            .into_iter()
            .map(|(name, location)| format!("{name} @ {location}"))
            .collect()
    };
    assert_eq!(
        crates("sql::tools"),
        vec![
            "serde_json @ sql/tools/mod.rs:12",
            "std @ sql/tools/mod.rs:1",
            "tokio_postgres @ sql/tools/mod.rs:11",
        ]
    );
    assert_eq!(crates("sql"), vec!["rusqlite @ sql/mod.rs:3"]);
    // `extern crate self as mylib` makes `mylib::` this crate.
    assert!(
        edges(&graph).contains(&"sql::tools -> sql::sqlite @ sql/tools/mod.rs:7".to_string()),
        "{:?}",
        edges(&graph)
    );

    let error =
        forbidden_crates(fixture.src(), "sql::tools", &["rusqlite", "tokio_postgres"]).unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains(
            "crate::sql::tools mentions the forbidden crate `tokio_postgres` (sql/tools/mod.rs:11)"
        ),
        "{text}"
    );
    assert_eq!(error.violations().count(), 1, "{text}");
    assert!(forbidden_crates(fixture.src(), "sql", &["rusqlite"]).is_err());
}

#[test]
fn several_rules_report_together() {
    let fixture = Fixture::new(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a.rs", "pub fn f() { crate::b::g() }\n"),
        ("b.rs", "pub fn g() { crate::a::f() }\n"),
    ]);
    let error = check(
        fixture.src(),
        &[
            Rule::Acyclic { under: "" },
            Rule::Layers(&[&["a"], &["b"]]),
            Rule::ForbiddenCrates {
                under: "",
                crates: &["rusqlite"],
            },
        ],
    )
    .unwrap_err();
    let rules: Vec<&str> = error
        .reports()
        .iter()
        .map(|report| report.rule.as_str())
        .collect();
    assert_eq!(rules, vec!["acyclic(crate)", "layers([a] < [b])"]);
    // Debug shows the readable report, for `.unwrap()` and tests returning `Result`.
    assert!(format!("{error:?}").contains("crate::a -> crate::b (a.rs:1)"));
}

#[test]
fn an_unreadable_crate_is_a_clear_error() {
    let fixture = Fixture::new(&[("lib.rs", "mod a;\n"), ("a.rs", "fn broken( {}\n")]);
    let error = acyclic(fixture.src(), "").unwrap_err().to_string();
    assert!(error.contains("a.rs:1:"), "{error}");
    let empty = Fixture::new(&[("other.rs", "")]);
    let error = acyclic(empty.src(), "").unwrap_err().to_string();
    assert!(error.contains("has neither lib.rs nor main.rs"), "{error}");
}

#[test]
fn the_binary_prints_the_graph_and_the_cfg_counts() {
    let fixture = Fixture::new(&[
        ("lib.rs", "pub mod sql;\nmod other;\n"),
        (
            "sql/mod.rs",
            "mod a;\nmod b;\n#[cfg(feature = \"postgres\")]\nfn pg() {}\n",
        ),
        ("sql/a.rs", "use super::b::B;\npub struct A;\n"),
        ("sql/b.rs", "pub struct B;\nfn f(_: super::a::A) {}\n"),
        ("other.rs", "#[cfg(feature = \"postgres\")]\nfn pg() {}\n"),
    ]);
    let run = |args: &[&str]| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolforge-layers"))
            .arg(fixture.src())
            .args(args)
            .output()
            .expect("the binary runs");
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };

    let summary = run(&["--prefix", "sql"]);
    assert!(summary.contains("3 modules under crate::sql"), "{summary}");
    assert!(
        summary.contains("crate::sql::a -> crate::sql::b (sql/a.rs:1)"),
        "{summary}"
    );
    assert!(
        summary.contains("1 cycle(s) through crate::sql"),
        "{summary}"
    );
    assert!(!summary.contains("crate::other "), "{summary}");

    let cfgs = run(&["--cfg", "postgres"]);
    assert!(
        cfgs.contains("2 cfg(s) mentioning feature = \"postgres\" in 2 file(s)"),
        "{cfgs}"
    );
    assert!(cfgs.contains("     1  sql/\n"), "{cfgs}");
    assert!(cfgs.contains("     1  other.rs\n"), "{cfgs}");

    let usage = std::process::Command::new(env!("CARGO_BIN_EXE_toolforge-layers"))
        .arg("--bogus")
        .output()
        .unwrap();
    assert_eq!(usage.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&usage.stderr).contains("unknown option --bogus"));
}

#[test]
fn exported_macros_lead_to_their_module() {
    let fixture = Fixture::new(&[
        ("lib.rs", "mod table;\nmod user;\n"),
        (
            "table.rs",
            "#[macro_export]\nmacro_rules! each_tool {\n    ($m:ident) => { $m!(a b) };\n}\n",
        ),
        (
            "user.rs",
            "macro_rules! kinds { ($($x:ident)*) => {} }\ncrate::each_tool!(kinds);\n",
        ),
    ]);
    assert_eq!(edges(&fixture.graph()), vec!["user -> table @ user.rs:2"]);
}

#[test]
fn a_module_declared_under_two_cfgs_is_one_module() {
    let fixture = Fixture::new(&[
        (
            "lib.rs",
            "#[cfg(unix)]\npub mod os;\n#[cfg(not(unix))]\npub mod os;\nmod user;\n",
        ),
        ("os.rs", "pub fn name() {}\n"),
        ("user.rs", "fn f() { crate::os::name() }\n"),
    ]);
    let graph = fixture.graph();
    assert_eq!(graph.file_modules().len(), 3);
    assert_eq!(edges(&graph), vec!["user -> os @ user.rs:1"]);
}
