//! Putting the ingested records into the database, in one transaction.
//!
//! This is the one place that knows the entity and field names of the config; once the
//! generated typed inserts exist, they replace the JSON maps built here.

use serde_json::{Map, Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::{Database, EndPoint, ImportError, ImportStats, Importer};

use crate::ingest::{Codebase, ScopeRecord};

/// Loads every directory, file, scope and relationship of `codebase` into `db` (whose tables
/// `spec` describes). Nothing is loaded if any record is refused.
pub fn load(
    db: &Database,
    spec: &SchemaSpec,
    codebase: &Codebase,
) -> Result<ImportStats, ImportError> {
    db.import(spec, |import| load_into(import, codebase))
}

fn load_into(import: &mut Importer<'_, '_>, codebase: &Codebase) -> Result<(), ImportError> {
    for directory in &codebase.directories {
        import.entity(
            "Directory",
            &object(json!({
                "path": directory.path,
                "name": directory.name,
                "depth": directory.depth,
            })),
        )?;
    }
    for file in &codebase.files {
        import.entity(
            "File",
            &object(json!({
                "path": file.path,
                "name": file.name,
                "extension": file.extension,
                "lineCount": file.line_count,
            })),
        )?;
        edge(
            import,
            "IN_DIRECTORY",
            ("File", &file.path),
            ("Directory", &file.directory),
        )?;
    }
    for scope in &codebase.scopes {
        import.entity("Scope", &scope_data(scope))?;
    }
    for scope in &codebase.scopes {
        edge(
            import,
            "DEFINED_IN",
            ("Scope", &scope.uuid),
            ("File", &scope.file),
        )?;
        if let Some(parent) = &scope.parent {
            edge(
                import,
                "HAS_PARENT",
                ("Scope", &scope.uuid),
                ("Scope", parent),
            )?;
        }
    }
    for (caller, callee) in &codebase.calls {
        edge(import, "CALLS", ("Scope", caller), ("Scope", callee))?;
    }
    Ok(())
}

fn scope_data(scope: &ScopeRecord) -> Map<String, Value> {
    object(json!({
        "uuid": scope.uuid,
        "name": scope.name,
        "kind": scope.kind.as_str(),
        "file": scope.file,
        "startLine": scope.start_line,
        "endLine": scope.end_line,
        "signature": scope.signature,
        "docstring": scope.docstring,
        "source": scope.source,
    }))
}

fn edge(
    import: &mut Importer<'_, '_>,
    relationship: &str,
    from: (&str, &str),
    to: (&str, &str),
) -> Result<(), ImportError> {
    let end = |(entity, id): (&str, &str)| EndPoint {
        entity: entity.to_string(),
        id: id.to_string(),
    };
    import.relationship(relationship, &end(from), &end(to), &Map::new())
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}
