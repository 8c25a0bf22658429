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

/// Finds the source of the crate `name` that this workspace's `Cargo.lock` pins, with
/// `cargo metadata --locked --offline --filter-platform` (the build already downloaded it).
/// When several versions are locked, the newest is read.
pub fn locate(name: &str) -> Result<PinnedCrate, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let output = Command::new(&cargo)
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        // Only the packages this platform builds are downloaded: a dependency behind another
        // platform's (or an unset) `cfg` is in Cargo.lock but not in cargo's cache.
        .args(["--filter-platform", env!("CODE_RAG_TARGET")])
        .arg("--manifest-path")
        .arg(&manifest)
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
    fn the_pinned_crate_is_found_in_this_workspace() {
        let found = locate(PINNED_CRATE).unwrap();
        assert_eq!(found.name, PINNED_CRATE);
        assert!(found.root.join("src/lib.rs").is_file(), "{found:?}");
    }
}
