//! The default source tree: a crate cargo already downloaded for this build, at the version
//! `Cargo.lock` pins, so that every run reads the same text and the session's answers hold
//! whatever changes in this repository.
//!
//! The crate is [`similar`](https://crates.io/crates/similar), the text-diffing library the
//! runtime uses for change tracking: small enough to embed in seconds, with diff algorithms,
//! traits, impl blocks and a real call graph, written by people who never heard of toolforge.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;

/// The crate read when no `--src` is given.
pub const PINNED_CRATE: &str = "similar";

/// A question the session asks in words, with the function that answers it when that is known.
pub struct Question {
    /// What the session asks `semantic_search`.
    pub text: &'static str,
    /// The name of the scope that must be among the answers, when the tree is known.
    pub answer: Option<&'static str>,
}

/// The semantic step's question over the pinned crate. Its answer is known because the
/// crate's text, the model and the embedding code are all pinned.
pub const PINNED_QUESTION: Question = Question {
    text: "suggest close matches for a misspelled word",
    answer: Some("get_close_matches"),
};

/// A crate's source as cargo downloaded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinnedCrate {
    /// The crate's name.
    pub name: String,
    /// The version `Cargo.lock` resolves.
    pub version: String,
    /// The folder holding its `Cargo.toml` and `src/`.
    pub root: PathBuf,
}

#[derive(Deserialize)]
struct Metadata {
    packages: Vec<Package>,
}

#[derive(Deserialize)]
struct Package {
    name: String,
    version: String,
    manifest_path: PathBuf,
}

/// The part of `Cargo.lock` read here: its packages' names, versions and sources.
#[derive(Deserialize)]
struct Lock {
    #[serde(default)]
    package: Vec<LockedPackage>,
}

#[derive(Deserialize)]
struct LockedPackage {
    name: String,
    version: String,
    source: Option<String>,
}

/// The source of crates.io in `Cargo.lock`.
const CRATES_IO: &str = "registry+https://github.com/rust-lang/crates.io-index";

/// Finds the source of the crate `name` that this workspace's `Cargo.lock` pins (the newest
/// version when several are locked).
///
/// The first place looked is cargo's own download folder (`$CARGO_HOME/registry/src`), where
/// the build that made this binary unpacked the crate: no network, no other process. Where the
/// crate is not there (sources vendored or replaced, or the folder cleaned since), `cargo
/// metadata --locked` is asked, which finds it wherever cargo's configuration says and downloads
/// it the way a build would.
pub fn locate(name: &str) -> Result<PinnedCrate, String> {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    if let Some(found) = in_download_folder(manifest_dir, name)? {
        return Ok(found);
    }
    from_cargo_metadata(manifest_dir, name)
}

/// The crate as the lock file pins it, in cargo's download folder, or `None` when it is not
/// unpacked there.
fn in_download_folder(manifest_dir: &Path, name: &str) -> Result<Option<PinnedCrate>, String> {
    let Some(lock_path) = manifest_dir
        .ancestors()
        .map(|dir| dir.join("Cargo.lock"))
        .find(|path| path.is_file())
    else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(&lock_path)
        .map_err(|e| format!("cannot read {}: {e}", lock_path.display()))?;
    let lock: Lock =
        toml::from_str(&text).map_err(|e| format!("cannot read {}: {e}", lock_path.display()))?;
    let Some(version) = newest_locked(&lock, name) else {
        return Err(format!(
            "the crate `{name}` is not in {} any more; pass --src DIR to read another tree",
            lock_path.display()
        ));
    };
    let Some(home) = cargo_home() else {
        return Ok(None);
    };
    let folder = format!("{name}-{version}");
    let Ok(registries) = std::fs::read_dir(home.join("registry").join("src")) else {
        return Ok(None);
    };
    let mut roots: Vec<PathBuf> = registries
        .filter_map(Result::ok)
        .map(|registry| registry.path().join(&folder))
        .filter(|root| root.join("Cargo.toml").is_file())
        .collect();
    // One folder per registry index: the same crate from the same index is the same text, and
    // the sort makes the choice the same on every run.
    roots.sort();
    Ok(roots.into_iter().next().map(|root| PinnedCrate {
        name: name.to_owned(),
        version: version.to_owned(),
        root,
    }))
}

/// The newest version of `name` that the lock takes from crates.io.
fn newest_locked<'a>(lock: &'a Lock, name: &str) -> Option<&'a str> {
    lock.package
        .iter()
        .filter(|p| p.name == name && p.source.as_deref() == Some(CRATES_IO))
        .max_by_key(|p| version_key(&p.version))
        .map(|p| p.version.as_str())
}

/// Cargo's home as cargo itself finds it: `$CARGO_HOME` (which cargo sets for the programs it
/// runs), the one this binary was built with, or `~/.cargo`.
fn cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
        .or_else(|| option_env!("CODE_RAG_CARGO_HOME").map(PathBuf::from))
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cargo")))
}

/// The crate as `cargo metadata --locked` finds it (for the platform this binary is built for:
/// a dependency behind another platform's `cfg` is in `Cargo.lock` but is not needed here).
fn from_cargo_metadata(manifest_dir: &Path, name: &str) -> Result<PinnedCrate, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let output = Command::new(&cargo)
        .args(["metadata", "--format-version", "1", "--locked"])
        .args(["--filter-platform", env!("CODE_RAG_TARGET")])
        .arg("--manifest-path")
        .arg(manifest_dir.join("Cargo.toml"))
        .output()
        .map_err(|e| {
            format!(
                "cannot run `{} metadata` to find the crate `{name}`: {e}; pass --src DIR to read another tree",
                Path::new(&cargo).display()
            )
        })?;
    if !output.status.success() {
        return Err(format!(
            "`cargo metadata` could not find the crate `{name}`: {}; pass --src DIR to read another tree",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let metadata: Metadata = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("cannot read `cargo metadata`'s answer: {e}"))?;
    pick(metadata.packages, name)
}

/// The newest version of `name` among `packages`, with its source folder.
fn pick(packages: Vec<Package>, name: &str) -> Result<PinnedCrate, String> {
    let package = packages
        .into_iter()
        .filter(|p| p.name == name)
        .max_by_key(|p| version_key(&p.version))
        .ok_or_else(|| {
            format!(
                "the crate `{name}` is not in Cargo.lock any more; pass --src DIR to read another tree"
            )
        })?;
    let root = package
        .manifest_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    Ok(PinnedCrate {
        name: package.name,
        version: package.version,
        root,
    })
}

/// `1.10.0` after `1.9.3`: the numeric parts compared as numbers.
fn version_key(version: &str) -> Vec<u64> {
    version
        .split(['.', '-', '+'])
        .map_while(|part| part.parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(name: &str, version: &str) -> Package {
        Package {
            name: name.to_owned(),
            version: version.to_owned(),
            manifest_path: PathBuf::from(format!("/registry/{name}-{version}/Cargo.toml")),
        }
    }

    #[test]
    fn the_newest_locked_version_is_read() {
        let found = pick(
            vec![
                package("similar", "2.7.0"),
                package("other", "9.0.0"),
                package("similar", "10.0.1"),
                package("similar", "3.2.1"),
            ],
            "similar",
        )
        .unwrap();
        assert_eq!(found.version, "10.0.1");
        assert_eq!(found.root, PathBuf::from("/registry/similar-10.0.1"));
    }

    #[test]
    fn a_crate_missing_from_the_lock_says_how_to_go_on() {
        let error = pick(vec![package("other", "1.0.0")], "similar").unwrap_err();
        assert!(error.contains("`similar` is not in Cargo.lock"), "{error}");
        assert!(error.contains("--src DIR"), "{error}");
    }

    #[test]
    fn the_lock_names_the_newest_version_from_crates_io() {
        let lock: Lock = toml::from_str(&format!(
            r#"
version = 4

[[package]]
name = "similar"
version = "2.7.0"
source = "{CRATES_IO}"

[[package]]
name = "similar"
version = "10.0.1"
source = "git+https://example.com/similar"

[[package]]
name = "similar"
version = "3.2.1"
source = "{CRATES_IO}"
"#
        ))
        .unwrap();
        assert_eq!(newest_locked(&lock, "similar"), Some("3.2.1"));
        assert_eq!(newest_locked(&lock, "other"), None);
    }

    #[test]
    fn the_pinned_crate_is_found_in_the_download_folder_without_cargo() {
        let found = in_download_folder(Path::new(env!("CARGO_MANIFEST_DIR")), PINNED_CRATE)
            .unwrap()
            .expect("the build unpacked the pinned crate into cargo's download folder");
        assert_eq!(found.name, PINNED_CRATE);
        assert!(found.root.join("src/lib.rs").is_file(), "{found:?}");
        assert!(
            found
                .root
                .ends_with(format!("{PINNED_CRATE}-{}", found.version))
        );
    }

    #[test]
    fn the_pinned_crate_is_found_in_this_workspace() {
        let found = locate(PINNED_CRATE).unwrap();
        assert_eq!(found.name, PINNED_CRATE);
        assert!(found.root.join("src/lib.rs").is_file(), "{found:?}");
    }
}
