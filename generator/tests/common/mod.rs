//! Helpers shared by the generator's integration tests.
#![allow(dead_code)]

use toolforge_generator::{CompileOptions, Compiled, Diagnostic, Diagnostics, compile_str};

/// Compiles `source`, expecting failure; returns the diagnostics.
pub fn fail(source: &str) -> Diagnostics {
    match compile_str(source, "test.yaml", &CompileOptions::default()) {
        Ok(compiled) => panic!("expected errors, got a valid config: {compiled:#?}"),
        Err(diagnostics) => diagnostics,
    }
}

/// Compiles `source` in strict mode, expecting failure.
pub fn fail_strict(source: &str) -> Diagnostics {
    match compile_str(source, "test.yaml", &CompileOptions::default().strict(true)) {
        Ok(compiled) => panic!("expected errors, got a valid config: {compiled:#?}"),
        Err(diagnostics) => diagnostics,
    }
}

/// Compiles `source`, expecting success.
pub fn ok(source: &str) -> Compiled {
    match compile_str(source, "test.yaml", &CompileOptions::default()) {
        Ok(compiled) => compiled,
        Err(diagnostics) => panic!("expected a valid config:\n{}", diagnostics.render()),
    }
}

/// The one diagnostic whose message contains `needle`.
pub fn find<'d>(diagnostics: &'d Diagnostics, needle: &str) -> &'d Diagnostic {
    let matching: Vec<&Diagnostic> = diagnostics
        .items()
        .iter()
        .filter(|d| d.message.contains(needle))
        .collect();
    assert_eq!(
        matching.len(),
        1,
        "expected one diagnostic containing {needle:?}, got:\n{diagnostics}"
    );
    matching[0]
}

/// Asserts position and path of a diagnostic.
pub fn at(diagnostic: &Diagnostic, line: usize, column: usize, path: &str) {
    assert_eq!(
        (diagnostic.line, diagnostic.column, diagnostic.path.as_str()),
        (line, column, path),
        "{diagnostic}"
    );
    assert_eq!(diagnostic.file, "test.yaml");
}

/// The hint, which every diagnostic has.
pub fn hint(diagnostic: &Diagnostic) -> &str {
    diagnostic
        .hint
        .as_deref()
        .expect("every diagnostic has a hint")
}
