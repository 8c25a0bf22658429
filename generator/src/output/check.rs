//! Comparing a generated folder with what the config would generate now (`toolforge check`).

use std::fs;
use std::path::{Path, PathBuf};

use similar::TextDiff;

use super::writer::{OutputFile, WritePolicy};

/// How one file differs from what would be generated.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Drift {
    /// The file is missing.
    Missing(PathBuf),
    /// The file's contents differ; `diff` is a unified diff from the file on disk to the
    /// expected contents.
    Changed {
        /// The file, relative to the folder.
        path: PathBuf,
        /// Unified diff, disk → expected.
        diff: String,
    },
}

impl Drift {
    /// The file the drift is about.
    pub fn path(&self) -> &Path {
        match self {
            Drift::Missing(path) | Drift::Changed { path, .. } => path,
        }
    }
}

/// Lists how `folder` differs from `files`. Files the user owns ([`WritePolicy::CreateOnce`])
/// only count when missing: their contents are the user's.
pub fn check_folder(folder: &Path, files: &[OutputFile]) -> Vec<Drift> {
    let mut drift = Vec::new();
    for file in files {
        let target = folder.join(&file.path);
        match fs::read_to_string(&target) {
            Err(_) => drift.push(Drift::Missing(file.path.clone())),
            Ok(_) if file.policy == WritePolicy::CreateOnce => {}
            Ok(current) if current == file.contents => {}
            Ok(current) => {
                let name = file.path.display().to_string();
                let diff = TextDiff::from_lines(&current, &file.contents)
                    .unified_diff()
                    .context_radius(2)
                    .header(&format!("{name} (on disk)"), &format!("{name} (expected)"))
                    .to_string();
                drift.push(Drift::Changed {
                    path: file.path.clone(),
                    diff,
                });
            }
        }
    }
    drift
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_missing_and_changed_files_with_a_diff() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.rs"), "one\ntwo\n").unwrap();
        fs::write(dir.path().join("custom_tools.rs"), "mine\n").unwrap();
        let files = [
            OutputFile::generated("a.rs", "one\nthree\n"),
            OutputFile::generated("b.rs", "new\n"),
            OutputFile::create_once("custom_tools.rs", "stub\n"),
        ];
        let drift = check_folder(dir.path(), &files);
        assert_eq!(drift.len(), 2);
        match &drift[0] {
            Drift::Changed { path, diff } => {
                assert_eq!(path, Path::new("a.rs"));
                assert!(diff.contains("-two"), "{diff}");
                assert!(diff.contains("+three"), "{diff}");
            }
            other => panic!("expected a change, got {other:?}"),
        }
        assert_eq!(drift[1], Drift::Missing(PathBuf::from("b.rs")));
    }

    #[test]
    fn a_fresh_folder_has_no_drift() {
        let dir = tempfile::tempdir().unwrap();
        let files = [OutputFile::generated("a.rs", "x\n")];
        crate::output::write_folder(dir.path(), &files, false).unwrap();
        assert!(check_folder(dir.path(), &files).is_empty());
    }
}
