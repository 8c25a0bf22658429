//! Reading a Rust source tree into records: directories, files, scopes and their links.
//!
//! Scopes are the named items of every file, parsed with syn: functions, methods (functions
//! of impl blocks and traits), structs (and unions), enums, traits, impl blocks, inline modules
//! (`mod m { ... }`; a `mod m;` declaration is not a scope), consts, statics, type aliases and
//! `macro_rules!` macros. Items inside function bodies are not scopes of their own.
//!
//! A scope spans from its first token after the outer attributes and doc comments (its
//! visibility or keyword) to its last token, both lines included. Its `uuid` is
//! `file::parent::name#startLine` (`runtime/src/lib.rs::impl Registry::call#40`): stable for
//! an unchanged file and unique even for two `impl` blocks of the same type.
//!
//! A file that does not parse is skipped with a warning; the rest of the tree is still read.

mod calls;
mod items;
mod text;
mod walk;

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

pub use calls::{Call, called_names, resolve};
pub use text::SourceText;
pub use walk::{rust_files, slash_path};

/// What kind of item a scope is (the config's `kind` values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ScopeKind {
    /// A free function.
    Function,
    /// A function of an impl block or a trait.
    Method,
    /// A struct or a union.
    Struct,
    /// An enum.
    Enum,
    /// A trait.
    Trait,
    /// An impl block.
    Impl,
    /// An inline module.
    Module,
    /// A constant.
    Const,
    /// A static.
    Static,
    /// A type alias (or an associated type).
    Type,
    /// A `macro_rules!` macro.
    Macro,
}

impl ScopeKind {
    /// The value stored in the `kind` field.
    pub fn as_str(self) -> &'static str {
        match self {
            ScopeKind::Function => "function",
            ScopeKind::Method => "method",
            ScopeKind::Struct => "struct",
            ScopeKind::Enum => "enum",
            ScopeKind::Trait => "trait",
            ScopeKind::Impl => "impl",
            ScopeKind::Module => "module",
            ScopeKind::Const => "const",
            ScopeKind::Static => "static",
            ScopeKind::Type => "type",
            ScopeKind::Macro => "macro",
        }
    }

    /// Kinds whose head ends at `=` (`const X: u8 = ...`) rather than at a body.
    fn has_initializer(self) -> bool {
        matches!(self, ScopeKind::Const | ScopeKind::Static | ScopeKind::Type)
    }
}

impl fmt::Display for ScopeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A directory holding at least one `.rs` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectoryRecord {
    /// Path relative to the root with `/` separators; the root itself is `.`.
    pub path: String,
    /// The last path component (the root's own directory name for `.`).
    pub name: String,
    /// Number of path components (the root is 0).
    pub depth: usize,
}

/// A `.rs` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRecord {
    /// Path relative to the root with `/` separators.
    pub path: String,
    /// The file name.
    pub name: String,
    /// The extension without the dot.
    pub extension: String,
    /// Number of lines.
    pub line_count: usize,
    /// The path of the directory holding the file.
    pub directory: String,
}

/// A named item of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeRecord {
    /// `file::parent::name#startLine`.
    pub uuid: String,
    /// The item's name (`impl Tool for Echo` for an impl block).
    pub name: String,
    /// The kind of item.
    pub kind: ScopeKind,
    /// The defining file's path.
    pub file: String,
    /// First line (1-based), after attributes and doc comments.
    pub start_line: usize,
    /// Last line (inclusive).
    pub end_line: usize,
    /// The head of the item (up to its body), whitespace collapsed.
    pub signature: String,
    /// The doc comment without its markers.
    pub docstring: Option<String>,
    /// The lines `start_line..=end_line`.
    pub source: String,
    /// The enclosing impl block, trait or inline module.
    pub parent: Option<String>,
    /// Calls made from the body (functions and methods only; see [`resolve`] for the rule).
    pub called_names: BTreeSet<Call>,
}

/// Everything read from a source tree.
#[derive(Debug, Clone, Default)]
pub struct Codebase {
    /// Directories holding `.rs` files, sorted by path.
    pub directories: Vec<DirectoryRecord>,
    /// Files that parsed, sorted by path.
    pub files: Vec<FileRecord>,
    /// Scopes in file order, then source order (parents before children).
    pub scopes: Vec<ScopeRecord>,
    /// CALLS edges `(caller uuid, callee uuid)`, resolved as [`resolve`] says.
    pub calls: Vec<(String, String)>,
    /// One message per file that could not be read or parsed (those files are left out).
    pub warnings: Vec<String>,
}

/// Parses one file's text into its scopes. `file` is the path stored on each scope.
///
/// ```
/// let scopes = code_rag_example::ingest::parse_file("lib.rs", "/// Adds.\npub fn add(a: u8, b: u8) -> u8 {\n    a + b\n}\n").unwrap();
/// assert_eq!(scopes[0].uuid, "lib.rs::add#2");
/// assert_eq!(scopes[0].signature, "pub fn add(a: u8, b: u8) -> u8");
/// assert_eq!((scopes[0].start_line, scopes[0].end_line), (2, 4));
/// assert_eq!(scopes[0].docstring.as_deref(), Some("Adds."));
/// ```
pub fn parse_file(file: &str, text: &str) -> Result<Vec<ScopeRecord>, ParseError> {
    let scopes = match syn::parse_file(text) {
        Ok(syntax) => Ok(items::FileScopes::collect(
            file,
            &SourceText::new(text),
            &syntax.items,
        )),
        Err(error) => {
            let at = error.span().start();
            Err(ParseError {
                line: at.line,
                column: at.column + 1,
                message: error.to_string(),
            })
        }
    };
    // Span locations are kept per thread for every parsed text; drop them once done (no span
    // of this text may be used after this line).
    proc_macro2::extra::invalidate_current_thread_spans();
    scopes
}

/// Why a file does not parse as Rust, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// syn's message.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Reads every `.rs` file under `root` (see [`rust_files`] for what is skipped).
///
/// Fails only if the tree itself cannot be listed; unreadable or unparsable files become
/// [`Codebase::warnings`].
pub fn ingest(root: &Path) -> std::io::Result<Codebase> {
    let mut codebase = Codebase::default();
    let mut directories = BTreeSet::new();
    for relative in rust_files(root)? {
        let path = slash_path(&relative);
        let text = match std::fs::read_to_string(root.join(&relative)) {
            Ok(text) => text,
            Err(error) => {
                codebase
                    .warnings
                    .push(format!("{path}: cannot read ({error}); skipped"));
                continue;
            }
        };
        let scopes = match parse_file(&path, &text) {
            Ok(scopes) => scopes,
            Err(error) => {
                codebase.warnings.push(format!(
                    "{path}:{}:{}: does not parse as Rust ({}); skipped",
                    error.line, error.column, error.message
                ));
                continue;
            }
        };
        let directory = relative
            .parent()
            .map(slash_path)
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| ".".to_string());
        directories.insert(directory.clone());
        codebase.files.push(FileRecord {
            name: relative
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            extension: "rs".to_string(),
            line_count: SourceText::new(&text).line_count(),
            directory,
            path,
        });
        codebase.scopes.extend(scopes);
    }
    codebase.directories = directories
        .into_iter()
        .map(|path| {
            if path == "." {
                let name = std::fs::canonicalize(root)
                    .ok()
                    .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                    .unwrap_or_else(|| ".".to_string());
                DirectoryRecord {
                    path,
                    name,
                    depth: 0,
                }
            } else {
                DirectoryRecord {
                    name: path.rsplit('/').next().unwrap_or(&path).to_string(),
                    depth: path.split('/').count(),
                    path,
                }
            }
        })
        .collect();
    codebase.calls = resolve(&codebase.scopes);
    Ok(codebase)
}
