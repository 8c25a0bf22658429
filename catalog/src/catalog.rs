//! [`Catalog`]: the index file (or in-memory database), indexing a source's tools and listing
//! the sources.

use std::collections::HashSet;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use rusqlite::{Connection, OptionalExtension, params};
use toolforge::embed::Embedder;

use crate::error::{CatalogError, sqlite};
use crate::expand::{QueryExpander, SynonymExpander};
use crate::extract;
use crate::model::{CatalogEntry, IndexReport, Source, SourceInfo, SourceKind};
use crate::postings::{Postings, QueryTokenizer, TEMP_TABLES};
use crate::rerank::Reranker;
use crate::schema::{
    DROP_OLD_INDEX, NEEDS_DESCRIPTION_TERMS, SCHEMA, STAGE_TOOL, STAGED_TOOLS, UPSERT_STAGED_TOOLS,
};
use crate::weights::Weights;
use crate::words::{index_terms, index_terms_of, words};

/// A searchable index of tool definitions from many sources.
///
/// ```
/// use toolforge::ToolDefinition;
/// use toolforge_catalog::{Catalog, SearchRequest, Source, SourceKind};
///
/// let catalog = Catalog::in_memory()?;
/// let tool: ToolDefinition = serde_json::from_value(serde_json::json!({
///     "name": "slack_send", "description": "Send a message to a Slack channel",
///     "input_schema": {"type": "object", "properties": {"channel": {"type": "string"}}},
/// }))?;
/// catalog.index(&Source::new(SourceKind::Mcp, "slack"), [tool.into()])?;
/// let answer = catalog.search(&SearchRequest::fast("notify the team on slack"))?;
/// assert_eq!(answer.results[0].id, "mcp:slack:slack_send");
/// assert!(answer.results[0].capabilities.contains(&"notification".to_owned()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Catalog {
    pub(crate) connection: Mutex<Connection>,
    pub(crate) weights: Weights,
    pub(crate) embedder: Option<Arc<dyn Embedder>>,
    pub(crate) expander: Arc<dyn QueryExpander>,
    pub(crate) reranker: Option<Arc<dyn Reranker>>,
    /// The number of tools, with the `data_version` it was counted at: another connection's
    /// commit changes that version, this one's writes clear the cache.
    tool_count: Mutex<Option<(i64, u64)>>,
    /// The index's postings for BM25 in memory, with the `data_version` they were read at:
    /// another connection's commit changes that version, this one's writes clear them.
    postings: Mutex<Option<(i64, Option<Arc<Postings>>)>>,
    /// Query words to FTS5 tokens.
    pub(crate) tokenizer: QueryTokenizer,
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog")
            .field("weights", &self.weights)
            .field(
                "embedder",
                &self.embedder.as_ref().map(|e| e.model_id().to_owned()),
            )
            .finish_non_exhaustive()
    }
}

impl Catalog {
    /// Opens (or creates) the catalog in the SQLite file at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Catalog, CatalogError> {
        let path = path.as_ref();
        let connection =
            Connection::open(path).map_err(sqlite(&format!("cannot open {}", path.display())))?;
        Catalog::with_connection(connection)
    }

    /// A catalog held in memory.
    pub fn in_memory() -> Result<Catalog, CatalogError> {
        let connection = Connection::open_in_memory().map_err(sqlite("cannot open in memory"))?;
        Catalog::with_connection(connection)
    }

    fn with_connection(mut connection: Connection) -> Result<Catalog, CatalogError> {
        connection
            .pragma_update(None, "journal_mode", "WAL")
            .or_else(|_| connection.pragma_update(None, "journal_mode", "MEMORY"))
            .map_err(sqlite("cannot set the journal mode"))?;
        connection
            .pragma_update(None, "synchronous", "NORMAL")
            .map_err(sqlite("cannot set synchronous"))?;
        connection
            .busy_timeout(std::time::Duration::from_secs(5))
            .map_err(sqlite("cannot set the busy timeout"))?;
        let outdated: bool = connection
            .query_row(NEEDS_DESCRIPTION_TERMS, [], |row| row.get(0))
            .map_err(sqlite("cannot read its tables (is this a catalog file?)"))?;
        if outdated {
            upgrade_index(&mut connection)?;
        } else {
            connection
                .execute_batch(SCHEMA)
                .map_err(sqlite("cannot create its tables (is this a catalog file?)"))?;
        }
        connection
            .execute_batch(TEMP_TABLES)
            .and_then(|()| connection.execute_batch(STAGED_TOOLS))
            .map_err(sqlite("cannot create its temporary tables"))?;
        Ok(Catalog {
            connection: Mutex::new(connection),
            weights: Weights::default(),
            embedder: None,
            expander: Arc::new(SynonymExpander),
            reranker: None,
            tool_count: Mutex::new(None),
            postings: Mutex::new(None),
            tokenizer: QueryTokenizer::default(),
        })
    }

    /// The catalog with other BM25 column weights.
    pub fn with_weights(mut self, weights: Weights) -> Catalog {
        self.weights = weights;
        self
    }

    /// The catalog with an embedding model for `balanced` and `accurate` search (tool vectors
    /// are computed when first needed and kept in the catalog).
    pub fn with_embedder(mut self, embedder: Arc<dyn Embedder>) -> Catalog {
        self.embedder = Some(embedder);
        self
    }

    /// The catalog with another query expander for `accurate` search.
    pub fn with_expander(mut self, expander: Arc<dyn QueryExpander>) -> Catalog {
        self.expander = expander;
        self
    }

    /// The catalog with a re-ranker (an LLM, say) run last in `accurate` search.
    pub fn with_reranker(mut self, reranker: Arc<dyn Reranker>) -> Catalog {
        self.reranker = Some(reranker);
        self
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock leaves SQLite consistent (transactions roll back).
        lock_ignoring_poison(&self.connection)
    }

    /// Replaces the tools of `source` with `entries`, a complete listing: new and changed
    /// tools are written, the source's tools missing from it are removed, all in one
    /// transaction. A tool listed twice keeps its last definition.
    pub fn index(
        &self,
        source: &Source,
        entries: impl IntoIterator<Item = CatalogEntry>,
    ) -> Result<IndexReport, CatalogError> {
        let now = jiff::Timestamp::now().to_string();
        let mut connection = self.lock();
        let transaction = connection
            .transaction()
            .map_err(sqlite("cannot start a transaction"))?;
        let generation: i64 = transaction
            .query_row(
                "SELECT coalesce(max(generation), 0) + 1 FROM sources WHERE name = ?1",
                [&source.name],
                |row| row.get(0),
            )
            .map_err(sqlite("cannot read the source"))?;
        let mut ids = HashSet::new();
        transaction
            .execute("DELETE FROM temp.staged_tools", [])
            .map_err(sqlite("cannot clear the staged tools"))?;
        {
            let mut stage = transaction
                .prepare_cached(STAGE_TOOL)
                .map_err(sqlite("cannot prepare the staging"))?;
            for entry in entries {
                let row = ToolRow::new(source, &entry);
                stage
                    .execute(params![
                        row.id,
                        entry.definition.name,
                        entry.definition.description,
                        source.kind.as_str(),
                        source.name,
                        server_of(source),
                        row.input_schema,
                        row.output_schema,
                        row.capabilities,
                        row.keywords,
                        row.parameters,
                        row.name_terms,
                        row.examples,
                        entry.version,
                        row.requires_approval,
                        now,
                        generation,
                        row.description_terms,
                    ])
                    .map_err(sqlite(&format!("cannot index tool `{}`", row.id)))?;
                ids.insert(row.id);
            }
        }
        transaction
            .execute(UPSERT_STAGED_TOOLS, [])
            .map_err(sqlite("cannot write the tools"))?;
        transaction
            .execute("DELETE FROM temp.staged_tools", [])
            .map_err(sqlite("cannot clear the staged tools"))?;
        let pruned = transaction
            .execute(
                "DELETE FROM tools WHERE source_name = ?1 AND generation <> ?2",
                params![source.name, generation],
            )
            .map_err(sqlite("cannot prune stale tools"))?;
        let tool_count: i64 = transaction
            .query_row(
                "SELECT count(*) FROM tools WHERE source_name = ?1",
                [&source.name],
                |row| row.get(0),
            )
            .map_err(sqlite("cannot count tools"))?;
        transaction
            .execute(
                "INSERT INTO sources (name, kind, location, tool_count, last_indexed, available, status, generation)
                 VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6, ?7)
                 ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, location = excluded.location,
                   tool_count = excluded.tool_count, last_indexed = excluded.last_indexed,
                   available = 1, status = excluded.status, generation = excluded.generation",
                params![
                    source.name,
                    source.kind.as_str(),
                    source.location,
                    tool_count,
                    now,
                    format!("indexed {} tools, pruned {pruned}", ids.len()),
                    generation
                ],
            )
            .map_err(sqlite("cannot record the source"))?;
        transaction
            .commit()
            .map_err(sqlite("cannot commit the index"))?;
        *lock_ignoring_poison(&self.tool_count) = None;
        *lock_ignoring_poison(&self.postings) = None;
        Ok(IndexReport {
            source: source.name.clone(),
            indexed: ids.len(),
            pruned,
        })
    }

    /// Records that `source` could not be listed (`message` says why): its tools stay
    /// indexed (nothing is pruned after an incomplete listing) and `sources` shows it
    /// unavailable.
    pub fn mark_unavailable(&self, source: &Source, message: &str) -> Result<(), CatalogError> {
        self.lock()
            .execute(
                "INSERT INTO sources (name, kind, location, available, status) VALUES (?1, ?2, ?3, 0, ?4)
                 ON CONFLICT (name) DO UPDATE SET available = 0, status = excluded.status",
                params![source.name, source.kind.as_str(), source.location, message],
            )
            .map_err(sqlite("cannot record the source"))?;
        Ok(())
    }

    /// Every source, by name.
    pub fn sources(&self) -> Result<Vec<SourceInfo>, CatalogError> {
        let connection = self.lock();
        let mut statement = connection
            .prepare_cached(
                "SELECT name, kind, location, tool_count, last_indexed, available, status
                 FROM sources ORDER BY name",
            )
            .map_err(sqlite("cannot list sources"))?;
        let rows = statement
            .query_map([], |row| {
                let kind: String = row.get(1)?;
                Ok(SourceInfo {
                    name: row.get(0)?,
                    kind: SourceKind::parse(&kind).unwrap_or(SourceKind::Custom),
                    location: row.get(2)?,
                    tool_count: row.get::<_, i64>(3)?.max(0) as u64,
                    last_indexed: row.get(4)?,
                    available: row.get(5)?,
                    status: row.get(6)?,
                })
            })
            .map_err(sqlite("cannot list sources"))?;
        rows.collect::<Result<_, _>>()
            .map_err(sqlite("cannot list sources"))
    }

    /// How many tools are indexed.
    pub fn len(&self) -> Result<u64, CatalogError> {
        self.count_tools(&self.lock())
    }

    /// The number of tools, counted again only when the file changed since the last count.
    pub(crate) fn count_tools(&self, connection: &Connection) -> Result<u64, CatalogError> {
        let version = data_version(connection)?;
        let mut cached = lock_ignoring_poison(&self.tool_count);
        if let Some((counted_at, count)) = *cached
            && counted_at == version
        {
            return Ok(count);
        }
        let count: i64 = connection
            .prepare_cached("SELECT count(*) FROM tools")
            .and_then(|mut statement| statement.query_row([], |row| row.get(0)))
            .map_err(sqlite("cannot count tools"))?;
        let count = count.max(0) as u64;
        *cached = Some((version, count));
        Ok(count)
    }

    /// The index's postings, read again only when the file changed since they were read;
    /// `None` when the index is too large to hold in memory.
    pub(crate) fn postings(
        &self,
        connection: &Connection,
    ) -> Result<Option<Arc<Postings>>, CatalogError> {
        let version = data_version(connection)?;
        let mut cached = lock_ignoring_poison(&self.postings);
        if let Some((read_at, postings)) = cached.as_ref()
            && *read_at == version
        {
            return Ok(postings.clone());
        }
        let postings = Postings::read(connection)?.map(Arc::new);
        *cached = Some((version, postings.clone()));
        Ok(postings)
    }

    /// Whether no tool is indexed.
    pub fn is_empty(&self) -> Result<bool, CatalogError> {
        Ok(self.len()? == 0)
    }

    /// The definition of the tool with catalog id `id`, or of the one tool named `id`.
    pub fn definition(&self, id: &str) -> Result<Option<toolforge::ToolDefinition>, CatalogError> {
        let connection = self.lock();
        let row: Option<(String, String, String, Option<String>)> = connection
            .query_row(
                "SELECT name, description, input_schema, output_schema FROM tools
                 WHERE id = ?1 OR name = ?1 ORDER BY id = ?1 DESC, id LIMIT 1",
                [id],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)),
            )
            .optional()
            .map_err(sqlite("cannot read a tool"))?;
        Ok(row.map(
            |(name, description, input, output)| toolforge::ToolDefinition {
                name,
                title: None,
                description,
                input_schema: serde_json::from_str(&input).unwrap_or_default(),
                output_schema: output.and_then(|text| serde_json::from_str(&text).ok()),
                annotations: Default::default(),
                capabilities: Vec::new(),
                keywords: Vec::new(),
            },
        ))
    }
}

/// SQLite's `PRAGMA data_version`: it changes when another connection commits.
fn data_version(connection: &Connection) -> Result<i64, CatalogError> {
    connection
        .prepare_cached("PRAGMA data_version")
        .and_then(|mut statement| statement.query_row([], |row| row.get(0)))
        .map_err(sqlite("cannot read the data version"))
}

fn lock_ignoring_poison<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn server_of(source: &Source) -> Option<&str> {
    (source.kind == SourceKind::Mcp).then_some(source.name.as_str())
}

/// The stored text of one tool.
struct ToolRow {
    id: String,
    input_schema: String,
    output_schema: Option<String>,
    capabilities: String,
    keywords: String,
    parameters: String,
    name_terms: String,
    description_terms: String,
    examples: String,
    requires_approval: bool,
}

impl ToolRow {
    fn new(source: &Source, entry: &CatalogEntry) -> ToolRow {
        let definition = &entry.definition;
        let name_words = words(&definition.name);
        let description_words = words(&definition.description);
        let mut name_terms = name_words.join(" ");
        if name_terms != definition.name.to_lowercase().replace(['_', '-', '.'], " ") {
            // camelCase: the joined form is searchable too.
            name_terms.push(' ');
            name_terms.push_str(&definition.name);
        }
        ToolRow {
            id: source.tool_id(&definition.name),
            input_schema: definition.input_schema.to_string(),
            output_schema: definition
                .output_schema
                .as_ref()
                .map(|schema| schema.to_string()),
            capabilities: extract::capabilities_of(definition, &name_words, &description_words)
                .join(" "),
            keywords: extract::keywords(definition).join(" "),
            parameters: parameter_text(&definition.input_schema),
            description_terms: index_terms_of(&description_words),
            requires_approval: extract::requires_approval_of(definition, &name_words),
            name_terms,
            examples: serde_json::Value::from(entry.examples.clone()).to_string(),
        }
    }
}

/// The words of each top-level parameter's name and description, stop words left out, one
/// parameter a line.
fn parameter_text(schema: &serde_json::Value) -> String {
    let Some(properties) = schema.get("properties").and_then(|p| p.as_object()) else {
        return String::new();
    };
    let mut text = String::new();
    for (name, property) in properties {
        text.push_str(&words(name).join(" "));
        if let Some(description) = property.get("description").and_then(|d| d.as_str()) {
            text.push(' ');
            text.push_str(&index_terms(description));
        }
        text.push('\n');
    }
    text
}

/// Rebuilds the FTS index of a catalog written before `description_terms`: the column is
/// added and filled, the parameters' text recomputed from the stored schemas, and the FTS
/// table and its triggers created again over the new columns, in one transaction.
fn upgrade_index(connection: &mut Connection) -> Result<(), CatalogError> {
    let context = "cannot upgrade its index";
    let transaction = connection.transaction().map_err(sqlite(context))?;
    transaction
        .execute_batch(DROP_OLD_INDEX)
        .map_err(sqlite(context))?;
    let rows: Vec<(i64, String, String)> = {
        let mut statement = transaction
            .prepare("SELECT rowid, description, input_schema FROM tools")
            .map_err(sqlite(context))?;
        let rows = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
            .map_err(sqlite(context))?;
        rows.collect::<Result<_, _>>().map_err(sqlite(context))?
    };
    {
        let mut update = transaction
            .prepare("UPDATE tools SET description_terms = ?1, parameters = ?2 WHERE rowid = ?3")
            .map_err(sqlite(context))?;
        for (rowid, description, input_schema) in rows {
            let schema: serde_json::Value = serde_json::from_str(&input_schema).unwrap_or_default();
            update
                .execute(params![
                    index_terms(&description),
                    parameter_text(&schema),
                    rowid
                ])
                .map_err(sqlite(context))?;
        }
    }
    transaction.execute_batch(SCHEMA).map_err(sqlite(context))?;
    transaction
        .execute("INSERT INTO tools_fts (tools_fts) VALUES ('rebuild')", [])
        .map_err(sqlite(context))?;
    transaction.commit().map_err(sqlite(context))
}
