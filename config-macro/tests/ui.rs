//! Compile-fail tests of `include_config!`: config errors, a missing file, a bad argument.
//!
//! trybuild compiles the cases in its own project folder (under the target dir), which is the
//! `CARGO_MANIFEST_DIR` the macro sees; the fixture configs are copied there first, under the
//! same relative paths they have in this crate.

use std::path::Path;

fn copy_fixtures() {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target tmp dir is inside the target dir");
    let project = target.join("tests/trybuild/toolforge-config-macro/tests/ui");
    std::fs::create_dir_all(&project).unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui");
    for entry in std::fs::read_dir(&fixtures).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|ext| ext == "yaml") {
            std::fs::copy(&path, project.join(path.file_name().unwrap())).unwrap();
        }
    }
}

#[path = "../../macros/tests/trybuild_flags/mod.rs"]
mod trybuild_flags;

#[test]
fn ui() {
    copy_fixtures();
    trybuild_flags::one_build_of_the_dependencies();
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
