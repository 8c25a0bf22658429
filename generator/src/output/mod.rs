//! Writing generated files: the generated-file header, the folder writer that never loses a
//! user's file, and the drift check behind `toolforge check`.

mod check;
mod header;
mod writer;

pub use check::{Drift, check_folder};
pub use header::{
    GENERATED_MARKER, escape_invisible, is_generated, json_header, rust_header, sql_header,
};
pub use writer::{
    FileAction, LOCK_FILE, OutputError, OutputFile, WritePolicy, WriteReport, plan, write_folder,
};
