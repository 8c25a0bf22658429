//! Integration tests for the toolforge workspace live in `tests/tests/`; this library holds the
//! fixtures they share.

/// The folder holding the ragforge configs the generator must handle.
pub fn corpus_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}
