//! Why a crate's source could not be read.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// A crate's source tree could not be read or parsed.
#[derive(Debug)]
#[non_exhaustive]
pub enum LoadError {
    /// Neither `lib.rs` nor `main.rs` exists in the given directory.
    NoCrateRoot {
        /// The directory that was expected to be a crate's `src/`.
        dir: PathBuf,
    },
    /// A file or directory could not be read.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// A file is not valid Rust.
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// The parser's message.
        message: String,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::NoCrateRoot { dir } => write!(
                f,
                "{} has neither lib.rs nor main.rs: expected a crate's src/ directory",
                dir.display()
            ),
            LoadError::Io { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            LoadError::Parse {
                path,
                line,
                column,
                message,
            } => write!(f, "{}:{line}:{column}: {message}", path.display()),
        }
    }
}

impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LoadError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
