//! Writing a set of generated files into a folder without ever losing a user's work.
//!
//! The policy:
//! - a file marked [`WritePolicy::Generated`] is written when it is missing or carries the
//!   generated header; a file at that path without the header is refused (unless forced);
//! - a file marked [`WritePolicy::CreateOnce`] (`custom_tools.rs`) is created when missing and
//!   never touched again;
//! - an unchanged file is not rewritten (its modification time stays);
//! - every refusal is found before anything is written, and each write goes to a temporary file
//!   in the same folder that is then renamed over the target, so a reader never sees a torn file;
//! - a run holds an exclusive lock on the folder ([`LOCK_FILE`]) from planning to its last
//!   write, so concurrent runs into one folder take turns and the folder ends as one run's
//!   output, never a mix of two configs'.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::header::is_generated;

/// How a generated file may be written.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WritePolicy {
    /// Toolforge owns the file: rewritten whenever its contents change.
    Generated,
    /// The user owns the file after it is created: written only when missing.
    CreateOnce,
}

/// One file to write, relative to the output folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputFile {
    /// Path relative to the output folder.
    pub path: PathBuf,
    /// The full contents.
    pub contents: String,
    /// Who owns the file.
    pub policy: WritePolicy,
}

impl OutputFile {
    /// A file toolforge owns.
    pub fn generated(path: impl Into<PathBuf>, contents: impl Into<String>) -> Self {
        OutputFile {
            path: path.into(),
            contents: contents.into(),
            policy: WritePolicy::Generated,
        }
    }

    /// A file created once and then left to the user.
    pub fn create_once(path: impl Into<PathBuf>, contents: impl Into<String>) -> Self {
        OutputFile {
            path: path.into(),
            contents: contents.into(),
            policy: WritePolicy::CreateOnce,
        }
    }
}

/// What happened (or would happen) to one file.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileAction {
    /// The file did not exist and was created.
    Created,
    /// The file's contents changed.
    Updated,
    /// The file already had these contents; it was not rewritten.
    Unchanged,
    /// The file belongs to the user and was left alone.
    Kept,
}

impl fmt::Display for FileAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileAction::Created => "created",
            FileAction::Updated => "updated",
            FileAction::Unchanged => "unchanged",
            FileAction::Kept => "kept (user file)",
        })
    }
}

/// A failure to write the output folder. Nothing was written when this is returned from the
/// planning step.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// Files at generated paths that do not carry the generated header.
    #[error(
        "refusing to overwrite {} file(s) that toolforge did not generate: {}\n  \
         hint: move them away, or pass --force to overwrite them",
        .0.len(),
        .0.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    NotGenerated(Vec<PathBuf>),
    /// An I/O error on a path.
    #[error("{action} `{path}` failed")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
}

/// The outcome of writing a folder: one action per file, in input order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteReport {
    /// Each file and what happened to it.
    pub files: Vec<(PathBuf, FileAction)>,
}

impl WriteReport {
    /// True when at least one file was created or updated.
    pub fn changed(&self) -> bool {
        self.files
            .iter()
            .any(|(_, action)| matches!(action, FileAction::Created | FileAction::Updated))
    }
}

/// The lock file a run holds in the folder it writes. It is removed when the run ends (on Unix;
/// elsewhere the empty file stays, and may be ignored by version control).
pub const LOCK_FILE: &str = ".toolforge.lock";

/// An exclusive lock on a folder being written: [`LOCK_FILE`] in it, locked with the
/// operating system's advisory file lock, which other processes and other handles of this one
/// respect and which is released if the process dies.
struct FolderLock {
    file: File,
    path: PathBuf,
}

impl FolderLock {
    /// Waits for the folder's lock (creating the folder if needed).
    fn acquire(folder: &Path) -> Result<FolderLock, OutputError> {
        fs::create_dir_all(folder).map_err(|source| OutputError::Io {
            action: "creating folder",
            path: folder.to_path_buf(),
            source,
        })?;
        let path = folder.join(LOCK_FILE);
        let io_error = |action| {
            let path = path.clone();
            move |source| OutputError::Io {
                action,
                path,
                source,
            }
        };
        loop {
            let file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .map_err(io_error("creating the lock file"))?;
            file.lock().map_err(io_error("locking"))?;
            // The run that held the lock removed the file before releasing it: lock the file
            // now at the path instead, or two runs would each hold a lock on a different file.
            if still_at(&file, &path) {
                return Ok(FolderLock { file, path });
            }
        }
    }
}

#[cfg(unix)]
fn still_at(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(held), Ok(current)) => held.dev() == current.dev() && held.ino() == current.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn still_at(_file: &File, _path: &Path) -> bool {
    // The lock file is never removed here, so the locked file is the one at the path.
    true
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        // Removed while still locked: a run waiting on this file sees it gone and retries.
        #[cfg(unix)]
        let _ = fs::remove_file(&self.path);
        #[cfg(not(unix))]
        let _ = &self.path;
        let _ = self.file.unlock();
    }
}

/// Writes `files` into `folder` following the policy of this module, holding the folder's
/// lock throughout.
///
/// With `force`, generated paths occupied by files without the header are overwritten too.
pub fn write_folder(
    folder: &Path,
    files: &[OutputFile],
    force: bool,
) -> Result<WriteReport, OutputError> {
    let _lock = FolderLock::acquire(folder)?;
    let planned = plan(folder, files, force)?;
    let mut report = Vec::with_capacity(files.len());
    for (file, action) in files.iter().zip(planned) {
        let target = folder.join(&file.path);
        let action = match action {
            FileAction::Created if file.policy == WritePolicy::CreateOnce => {
                // Another run may have created it meanwhile: never replace it.
                if write_new(&target, &file.contents)? {
                    FileAction::Created
                } else {
                    FileAction::Kept
                }
            }
            FileAction::Created | FileAction::Updated => {
                write_atomically(&target, &file.contents)?;
                action
            }
            FileAction::Unchanged | FileAction::Kept => action,
        };
        report.push((file.path.clone(), action));
    }
    Ok(WriteReport { files: report })
}

/// Decides, without writing, what [`write_folder`] would do to each file.
pub fn plan(
    folder: &Path,
    files: &[OutputFile],
    force: bool,
) -> Result<Vec<FileAction>, OutputError> {
    let mut actions = Vec::with_capacity(files.len());
    let mut refused = Vec::new();
    for file in files {
        let target = folder.join(&file.path);
        let existing = read_if_exists(&target)?;
        let action = match (existing, file.policy) {
            (None, _) => FileAction::Created,
            (Some(_), WritePolicy::CreateOnce) => FileAction::Kept,
            (Some(current), WritePolicy::Generated) if current == file.contents => {
                FileAction::Unchanged
            }
            (Some(current), WritePolicy::Generated) => {
                if !is_generated(&current) && !force {
                    refused.push(target.clone());
                }
                FileAction::Updated
            }
        };
        actions.push(action);
    }
    if refused.is_empty() {
        Ok(actions)
    } else {
        Err(OutputError::NotGenerated(refused))
    }
}

fn read_if_exists(path: &Path) -> Result<Option<String>, OutputError> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(OutputError::Io {
            action: "reading",
            path: path.to_path_buf(),
            source,
        }),
    }
}

fn temp_file_beside(target: &Path) -> Result<tempfile::NamedTempFile, OutputError> {
    let parent = target.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(|source| OutputError::Io {
        action: "creating folder",
        path: parent.to_path_buf(),
        source,
    })?;
    tempfile::Builder::new()
        .prefix(".toolforge-")
        .suffix(".tmp")
        .tempfile_in(parent)
        .map_err(|source| OutputError::Io {
            action: "creating a temporary file in",
            path: parent.to_path_buf(),
            source,
        })
}

fn fill(temp: &mut tempfile::NamedTempFile, contents: &str) -> Result<(), OutputError> {
    let path = temp.path().to_path_buf();
    temp.write_all(contents.as_bytes())
        .and_then(|()| temp.as_file_mut().sync_all())
        .map_err(|source| OutputError::Io {
            action: "writing",
            path,
            source,
        })
}

/// Writes `contents` to a temporary file beside `target`, then renames it over `target`.
fn write_atomically(target: &Path, contents: &str) -> Result<(), OutputError> {
    let mut temp = temp_file_beside(target)?;
    fill(&mut temp, contents)?;
    temp.persist(target).map_err(|error| OutputError::Io {
        action: "replacing",
        path: target.to_path_buf(),
        source: error.error,
    })?;
    Ok(())
}

/// Creates `target` with `contents` unless it exists; returns whether it was created.
fn write_new(target: &Path, contents: &str) -> Result<bool, OutputError> {
    let mut temp = temp_file_beside(target)?;
    fill(&mut temp, contents)?;
    match temp.persist_noclobber(target) {
        Ok(_) => Ok(true),
        Err(error) if error.error.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(error) => Err(OutputError::Io {
            action: "creating",
            path: target.to_path_buf(),
            source: error.error,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::header::rust_header;

    fn generated(body: &str) -> String {
        format!("{}{body}", rust_header("c.yaml", "toolforge generate"))
    }

    #[test]
    fn creates_then_leaves_unchanged_files_alone() {
        let dir = tempfile::tempdir().unwrap();
        let files = [OutputFile::generated("mod.rs", generated("pub mod a;\n"))];
        let first = write_folder(dir.path(), &files, false).unwrap();
        assert_eq!(first.files[0].1, FileAction::Created);
        let modified = fs::metadata(dir.path().join("mod.rs"))
            .unwrap()
            .modified()
            .unwrap();
        let second = write_folder(dir.path(), &files, false).unwrap();
        assert_eq!(second.files[0].1, FileAction::Unchanged);
        assert!(!second.changed());
        let after = fs::metadata(dir.path().join("mod.rs"))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(modified, after, "an unchanged file is not rewritten");
    }

    #[test]
    fn create_once_files_are_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let stub = [OutputFile::create_once("custom_tools.rs", "// stub\n")];
        write_folder(dir.path(), &stub, false).unwrap();
        fs::write(dir.path().join("custom_tools.rs"), "// mine\n").unwrap();
        let report = write_folder(dir.path(), &stub, true).unwrap();
        assert_eq!(report.files[0].1, FileAction::Kept);
        assert_eq!(
            fs::read_to_string(dir.path().join("custom_tools.rs")).unwrap(),
            "// mine\n"
        );
    }

    #[test]
    fn user_files_at_generated_paths_are_refused_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("tools.rs"), "// hand written\n").unwrap();
        let files = [
            OutputFile::generated("mod.rs", generated("pub mod tools;\n")),
            OutputFile::generated("tools.rs", generated("pub fn f() {}\n")),
        ];
        let error = write_folder(dir.path(), &files, false).unwrap_err();
        assert!(matches!(&error, OutputError::NotGenerated(paths) if paths.len() == 1));
        assert!(error.to_string().contains("--force"));
        assert!(
            !dir.path().join("mod.rs").exists(),
            "a refused run writes nothing"
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("tools.rs")).unwrap(),
            "// hand written\n"
        );

        let forced = write_folder(dir.path(), &files, true).unwrap();
        assert_eq!(forced.files[1].1, FileAction::Updated);
    }

    #[test]
    fn a_run_waits_for_the_folders_lock_and_leaves_no_lock_file() {
        let dir = tempfile::tempdir().unwrap();
        let held = FolderLock::acquire(dir.path()).unwrap();
        let (done, finished) = std::sync::mpsc::channel();
        let folder = dir.path().to_path_buf();
        let writer = std::thread::spawn(move || {
            let files = [OutputFile::generated("mod.rs", generated("1\n"))];
            let report = write_folder(&folder, &files, false);
            done.send(()).unwrap();
            report
        });
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert!(
            finished.try_recv().is_err(),
            "a run wrote while another held the lock"
        );
        assert!(!dir.path().join("mod.rs").exists());
        drop(held);
        finished.recv().unwrap();
        assert_eq!(
            writer.join().unwrap().unwrap().files[0].1,
            FileAction::Created
        );
        #[cfg(unix)]
        assert!(
            !dir.path().join(LOCK_FILE).exists(),
            "the lock file is removed"
        );
    }

    #[test]
    fn generated_files_are_updated_in_place() {
        let dir = tempfile::tempdir().unwrap();
        write_folder(
            dir.path(),
            &[OutputFile::generated("a.rs", generated("1\n"))],
            false,
        )
        .unwrap();
        let report = write_folder(
            dir.path(),
            &[OutputFile::generated("a.rs", generated("2\n"))],
            false,
        )
        .unwrap();
        assert_eq!(report.files[0].1, FileAction::Updated);
        assert!(
            fs::read_to_string(dir.path().join("a.rs"))
                .unwrap()
                .ends_with("2\n")
        );
        let leftovers: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|entry| entry.ok())
            .filter(|entry| entry.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "no temporary file is left behind");
    }
}
