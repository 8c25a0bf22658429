//! Compile-time behaviour of `#[derive(Tool)]`: what compiles, and the error each mistake gets.
//!
//! The test crates depend on the runtime only, and under another name
//! (`tf = { package = "toolforge-runtime" }`): every case also proves the expansion needs no direct
//! serde / serde_json / schemars dependency and finds a renamed runtime. Regenerate the expected
//! errors with `TRYBUILD=overwrite cargo test -p toolforge-macros --test ui`, then read them.

#[test]
fn ui() {
    one_build_of_the_dependencies();
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/fail/*.rs");
}

/// trybuild compiles the cases' dependencies with one set of rustflags, then the cases with
/// those and `--diagnostic-width=140`, so every dependency was compiled twice. Cargo takes
/// `CARGO_ENCODED_RUSTFLAGS` over the flags trybuild puts on its command line: set to the flags
/// trybuild gives the cases, both of its builds are one compilation.
fn one_build_of_the_dependencies() {
    let flags = [
        "--cfg",
        "trybuild",
        "--verbose",
        "-A",
        "dead_code",
        "--diagnostic-width=140",
    ];
    // SAFETY: set by this binary's only test before it starts trybuild, while no other thread
    // of the process reads or writes the environment.
    unsafe { std::env::set_var("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f")) };
}
