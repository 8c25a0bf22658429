//! Finding the `.rs` files of a source tree.

use std::io;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `root`, as paths relative to `root`, sorted. Skips directories named
/// `target` and every hidden file or directory (name starting with `.`), and does not follow
/// symbolic links.
pub fn rust_files(root: &Path) -> io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    visit(root, Path::new(""), &mut found)?;
    found.sort();
    Ok(found)
}

fn visit(root: &Path, relative: &Path, found: &mut Vec<PathBuf>) -> io::Result<()> {
    let directory = root.join(relative);
    let entries = std::fs::read_dir(&directory).map_err(|error| {
        io::Error::new(
            error.kind(),
            format!("cannot read directory {}: {error}", directory.display()),
        )
    })?;
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue; // not UTF-8: cannot be named in the database
        };
        if name.starts_with('.') {
            continue;
        }
        let kind = entry.file_type()?;
        let path = relative.join(name);
        if kind.is_dir() && name != "target" {
            visit(root, &path, found)?;
        } else if kind.is_file() && name.ends_with(".rs") {
            found.push(path);
        }
    }
    Ok(())
}

/// A relative path with `/` separators (`runtime/src/lib.rs`), the same on every platform.
pub fn slash_path(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}
