//! Compile-time behaviour of `#[derive(Tool)]`: what compiles, and the error each mistake gets.
//!
//! The test crates depend on the runtime only, and under another name
//! (`tf = { package = "toolforge-runtime" }`): every case also proves the expansion needs no direct
//! serde / serde_json / schemars dependency and finds a renamed runtime. Regenerate the expected
//! errors with `TRYBUILD=overwrite cargo test -p toolforge-macros --test ui`, then read them.

mod trybuild_flags;

#[test]
fn ui() {
    trybuild_flags::one_build_of_the_dependencies();
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/fail/*.rs");
}
