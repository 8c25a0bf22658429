//! trybuild compiles a project's dependencies with one set of rustflags, then its cases with
//! those and `--diagnostic-width=140`, so every dependency was compiled twice. Cargo takes
//! `CARGO_ENCODED_RUSTFLAGS` over the flags trybuild puts on its command line: set to the flags
//! trybuild gives the cases, both of its builds are one compilation. Shared by the UI tests of
//! toolforge-macros and toolforge-config-macro.

/// Sets `CARGO_ENCODED_RUSTFLAGS` for the cargo processes trybuild starts. Call it first in the
/// binary's only test, before `trybuild::TestCases::new()`.
pub fn one_build_of_the_dependencies() {
    let flags = [
        "--cfg",
        "trybuild",
        "--verbose",
        "-A",
        "dead_code",
        "--diagnostic-width=140",
    ];
    // SAFETY: set by the binary's only test before it starts trybuild, while no other thread
    // of the process reads or writes the environment.
    unsafe { std::env::set_var("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f")) };
}
