//! Putting the ingested records into the database through the generated typed API.
//!
//! Each ingested record becomes its generated record struct ([`crate::tools::records`]); one
//! typed write loads them all in one transaction: an upsert per entity, then the generated
//! `link_*_in` methods add the edges. A field name or type that the config no longer has is a compile error here,
//! not a run-time one.

use std::collections::HashMap;

use toolforge::sql::{Database, ImportError, ImportStats};

use crate::ingest::{Codebase, DirectoryRecord, FileRecord, ScopeKind, ScopeRecord};
use crate::tools::records::{self, Directory, File, Scope};

/// Loads every directory, file, scope and relationship of `codebase` into `db` (whose tables
/// the generated `apply_schema` created) in one transaction, and returns how much was written.
/// A refused record or edge stops the load and leaves the database as it was.
pub fn load(db: &Database, codebase: &Codebase) -> Result<ImportStats, ImportError> {
    let directories: Vec<Directory> = codebase.directories.iter().map(directory).collect();
    let files: Vec<File> = codebase.files.iter().map(file).collect();
    let scopes: Vec<Scope> = codebase.scopes.iter().map(scope).collect();

    let directory_by_path = index(&directories, |d| &d.path);
    let file_by_path = index(&files, |f| &f.path);
    let scope_by_uuid = index(&scopes, |s| &s.uuid);

    let ((), stats) = records::write(db, |w| {
        w.upsert(&directories)?;
        w.upsert(&files)?;
        w.upsert(&scopes)?;
        for (record, ingested) in files.iter().zip(&codebase.files) {
            let directory = find(&directory_by_path, &ingested.directory, "Directory")?;
            record.link_in_directory_directory_in(w, directory)?;
        }
        for (record, ingested) in scopes.iter().zip(&codebase.scopes) {
            let defined_in = find(&file_by_path, &ingested.file, "File")?;
            record.link_defined_in_file_in(w, defined_in)?;
            if let Some(parent) = &ingested.parent {
                let parent = find(&scope_by_uuid, parent, "Scope")?;
                record.link_has_parent_scope_in(w, parent)?;
            }
        }
        for (caller, callee) in &codebase.calls {
            let caller = find(&scope_by_uuid, caller, "Scope")?;
            let callee = find(&scope_by_uuid, callee, "Scope")?;
            caller.link_calls_scope_in(w, callee)?;
        }
        Ok(())
    })?;
    Ok(stats)
}

fn directory(directory: &DirectoryRecord) -> Directory {
    Directory {
        path: directory.path.clone(),
        name: Some(directory.name.clone()),
        depth: Some(directory.depth as f64),
    }
}

fn file(file: &FileRecord) -> File {
    File {
        path: file.path.clone(),
        name: Some(file.name.clone()),
        extension: Some(file.extension.clone()),
        line_count: Some(file.line_count as f64),
    }
}

fn scope(scope: &ScopeRecord) -> Scope {
    Scope {
        uuid: scope.uuid.clone(),
        name: Some(scope.name.clone()),
        kind: Some(stored_kind(scope.kind)),
        file: Some(scope.file.clone()),
        start_line: Some(scope.start_line as f64),
        end_line: Some(scope.end_line as f64),
        signature: Some(scope.signature.clone()),
        docstring: scope.docstring.clone(),
        source: Some(scope.source.clone()),
        // Computed by the database from the fields above; never written.
        line_count: None,
        is_large: None,
        has_docstring: None,
    }
}

fn index<'r, R>(records: &'r [R], key: impl Fn(&'r R) -> &'r String) -> HashMap<&'r str, &'r R> {
    records.iter().map(|r| (key(r).as_str(), r)).collect()
}

fn find<'r, R>(
    records: &HashMap<&str, &'r R>,
    id: &str,
    entity: &str,
) -> Result<&'r R, ImportError> {
    records.get(id).copied().ok_or_else(|| ImportError {
        line: None,
        field: None,
        message: format!(
            "an edge points to the {entity} `{id}`, which the ingester did not produce"
        ),
    })
}

/// A scope's kind as the config's `kind` enum stores it.
fn stored_kind(kind: ScopeKind) -> records::ScopeKind {
    match kind {
        ScopeKind::Function => records::ScopeKind::Function,
        ScopeKind::Method => records::ScopeKind::Method,
        ScopeKind::Struct => records::ScopeKind::Struct,
        ScopeKind::Enum => records::ScopeKind::Enum,
        ScopeKind::Trait => records::ScopeKind::Trait,
        ScopeKind::Impl => records::ScopeKind::Impl,
        ScopeKind::Module => records::ScopeKind::Module,
        ScopeKind::Const => records::ScopeKind::Const,
        ScopeKind::Static => records::ScopeKind::Static,
        ScopeKind::Type => records::ScopeKind::Type,
        ScopeKind::Macro => records::ScopeKind::Macro,
    }
}
