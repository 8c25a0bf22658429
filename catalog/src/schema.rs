//! The catalog's tables: `tools` (one row per tool), `tools_fts` (FTS5 with `tools` as
//! external content, kept in sync by triggers), and `sources`.
//!
//! The indexed columns are terms made for the index, not the text shown: the name's words,
//! the description and the parameters' names and descriptions without stop words
//! (`description_terms`, `parameters`), the capability tags and the declared keywords.
//!
//! Rows are written with `INSERT ... ON CONFLICT DO UPDATE` and removed with `DELETE`, so the
//! triggers see every change: no `INSERT OR REPLACE`, whose implicit delete fires no trigger
//! and would leave ghost postings behind. The update trigger fires only when an indexed column
//! changes, so re-indexing an unchanged tool touches no posting.

/// The statements that create the schema (idempotent).
pub(crate) const SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS tools (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    source TEXT NOT NULL,
    source_name TEXT NOT NULL,
    server TEXT,
    input_schema TEXT NOT NULL,
    output_schema TEXT,
    capabilities TEXT NOT NULL,
    keywords TEXT NOT NULL,
    parameters TEXT NOT NULL,
    name_terms TEXT NOT NULL,
    description_terms TEXT NOT NULL,
    examples TEXT NOT NULL,
    version TEXT,
    requires_approval INTEGER NOT NULL,
    indexed_at TEXT NOT NULL,
    generation INTEGER NOT NULL,
    embedding_model TEXT,
    embedding BLOB
);
CREATE INDEX IF NOT EXISTS tools_by_source ON tools (source_name, generation);
CREATE INDEX IF NOT EXISTS tools_by_name ON tools (name);
CREATE VIRTUAL TABLE IF NOT EXISTS tools_fts USING fts5(
    name_terms, description_terms, capabilities, keywords, parameters,
    content='tools', content_rowid='rowid', tokenize='porter unicode61'
);
CREATE TRIGGER IF NOT EXISTS tools_fts_insert AFTER INSERT ON tools BEGIN
    INSERT INTO tools_fts (rowid, name_terms, description_terms, capabilities, keywords, parameters)
    VALUES (new.rowid, new.name_terms, new.description_terms, new.capabilities, new.keywords, new.parameters);
END;
CREATE TRIGGER IF NOT EXISTS tools_fts_delete AFTER DELETE ON tools BEGIN
    INSERT INTO tools_fts (tools_fts, rowid, name_terms, description_terms, capabilities, keywords, parameters)
    VALUES ('delete', old.rowid, old.name_terms, old.description_terms, old.capabilities, old.keywords, old.parameters);
END;
CREATE TRIGGER IF NOT EXISTS tools_fts_update
AFTER UPDATE OF name_terms, description_terms, capabilities, keywords, parameters ON tools BEGIN
    INSERT INTO tools_fts (tools_fts, rowid, name_terms, description_terms, capabilities, keywords, parameters)
    VALUES ('delete', old.rowid, old.name_terms, old.description_terms, old.capabilities, old.keywords, old.parameters);
    INSERT INTO tools_fts (rowid, name_terms, description_terms, capabilities, keywords, parameters)
    VALUES (new.rowid, new.name_terms, new.description_terms, new.capabilities, new.keywords, new.parameters);
END;
CREATE TABLE IF NOT EXISTS sources (
    name TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    location TEXT,
    tool_count INTEGER NOT NULL DEFAULT 0,
    last_indexed TEXT,
    available INTEGER NOT NULL,
    status TEXT,
    generation INTEGER NOT NULL DEFAULT 0
);
"#;

/// A temporary table the rows of one listing are written to before they are upserted into
/// `tools` together (see [`UPSERT_STAGED_TOOLS`]).
pub(crate) const STAGED_TOOLS: &str = r#"
CREATE TEMP TABLE IF NOT EXISTS staged_tools (
    id TEXT NOT NULL, name TEXT NOT NULL, description TEXT NOT NULL, source TEXT NOT NULL,
    source_name TEXT NOT NULL, server TEXT, input_schema TEXT NOT NULL, output_schema TEXT,
    capabilities TEXT NOT NULL, keywords TEXT NOT NULL, parameters TEXT NOT NULL,
    name_terms TEXT NOT NULL, examples TEXT NOT NULL, version TEXT,
    requires_approval INTEGER NOT NULL, indexed_at TEXT NOT NULL, generation INTEGER NOT NULL,
    description_terms TEXT NOT NULL
);
"#;

/// Stages one tool.
pub(crate) const STAGE_TOOL: &str = r#"
INSERT INTO temp.staged_tools (id, name, description, source, source_name, server, input_schema,
    output_schema, capabilities, keywords, parameters, name_terms, examples, version,
    requires_approval, indexed_at, generation, description_terms)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)
"#;

/// Upserts the staged tools in the order they were staged (a tool staged twice keeps its
/// last definition); the update changes only what differs, so the FTS trigger fires only for
/// a changed indexed column.
///
/// One statement for the whole listing, not one a tool: a statement that writes through
/// triggers runs in a savepoint of its own, and FTS5 writes its pending postings to disk at
/// every savepoint, so one statement a tool made FTS5 write (and merge) a segment a tool.
pub(crate) const UPSERT_STAGED_TOOLS: &str = r#"
INSERT INTO tools (id, name, description, source, source_name, server, input_schema,
    output_schema, capabilities, keywords, parameters, name_terms, examples, version,
    requires_approval, indexed_at, generation, description_terms)
SELECT id, name, description, source, source_name, server, input_schema,
    output_schema, capabilities, keywords, parameters, name_terms, examples, version,
    requires_approval, indexed_at, generation, description_terms
FROM temp.staged_tools WHERE true ORDER BY rowid
ON CONFLICT (id) DO UPDATE SET
    name = excluded.name, description = excluded.description, source = excluded.source,
    source_name = excluded.source_name, server = excluded.server,
    input_schema = excluded.input_schema, output_schema = excluded.output_schema,
    capabilities = excluded.capabilities, keywords = excluded.keywords,
    parameters = excluded.parameters, name_terms = excluded.name_terms,
    examples = excluded.examples, version = excluded.version,
    requires_approval = excluded.requires_approval, indexed_at = excluded.indexed_at,
    generation = excluded.generation, description_terms = excluded.description_terms,
    embedding = CASE WHEN tools.name_terms = excluded.name_terms
        AND tools.description = excluded.description
        AND tools.parameters = excluded.parameters THEN tools.embedding ELSE NULL END
"#;

/// Whether the catalog's `tools` table predates `description_terms` (its FTS table then
/// indexes the shown description and must be rebuilt).
pub(crate) const NEEDS_DESCRIPTION_TERMS: &str =
    "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'tools')
    AND NOT EXISTS (SELECT 1 FROM pragma_table_info('tools') WHERE name = 'description_terms')";

/// Drops the FTS table and its triggers and adds `description_terms`, before [`SCHEMA`]
/// creates them again over the new columns.
pub(crate) const DROP_OLD_INDEX: &str = r#"
DROP TRIGGER IF EXISTS tools_fts_insert;
DROP TRIGGER IF EXISTS tools_fts_delete;
DROP TRIGGER IF EXISTS tools_fts_update;
DROP TABLE IF EXISTS tools_fts;
ALTER TABLE tools ADD COLUMN description_terms TEXT NOT NULL DEFAULT '';
"#;
