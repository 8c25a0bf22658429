//! Search: `fast` (BM25 over FTS5), `balanced` (BM25 candidates re-ranked by the cosine of
//! query and tool embeddings) and `accurate` (query expansion, then `balanced`, then a
//! plugged-in [`crate::Reranker`] if any).

use std::collections::{BTreeSet, HashMap};
use std::time::Instant;

use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::catalog::Catalog;
use crate::error::{CatalogError, sqlite};
use crate::expand::{QueryExpander, SynonymExpander, query_capabilities};
use crate::model::SourceKind;
use crate::rerank::RerankCandidate;
use crate::words::{is_stop_word, stem, words};

/// The most results one search returns.
pub const MAX_RESULTS: usize = 100;
/// The longest query, in characters.
pub const MAX_QUERY_CHARS: usize = 4096;
/// The most distinct terms a query is searched with.
const MAX_TERMS: usize = 64;
/// BM25 candidates re-ranked by the semantic stage (at least; more when more results are
/// asked for).
const RERANK_POOL: usize = 30;
/// BM25 score at which the lexical confidence is one half.
const BM25_HALF: f64 = 10.0;
/// Share of the cosine in the `balanced` score (the rest is the lexical confidence).
const SEMANTIC_SHARE: f64 = 0.6;

/// How hard to search.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    toolforge::schemars::JsonSchema,
)]
#[schemars(crate = "toolforge::schemars")]
#[serde(rename_all = "snake_case")]
pub enum SearchMode {
    /// BM25 only.
    Fast,
    /// BM25 candidates re-ranked with the embedding model (no LLM).
    #[default]
    Balanced,
    /// Query expansion, then `balanced`, then the re-ranker if one is plugged in.
    Accurate,
}

impl SearchMode {
    /// The mode's name (`fast`, `balanced`, `accurate`).
    pub fn as_str(self) -> &'static str {
        match self {
            SearchMode::Fast => "fast",
            SearchMode::Balanced => "balanced",
            SearchMode::Accurate => "accurate",
        }
    }
}

/// A search.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRequest {
    /// What the caller wants to do, in natural language or keywords.
    pub query: String,
    /// How hard to search.
    pub mode: SearchMode,
    /// Only tools with all these capability tags.
    pub capabilities: Vec<String>,
    /// Only tools from these kinds of source (all when empty).
    pub sources: Vec<SourceKind>,
    /// How many results, 1 to [`MAX_RESULTS`].
    pub max_results: usize,
    /// What the caller is working on, used by the semantic and expansion stages.
    pub task_context: Option<String>,
    /// Whether results carry the full input schema.
    pub include_schema: bool,
    /// When the embedding model must give up.
    pub deadline: Option<Instant>,
}

impl SearchRequest {
    /// A `balanced` search for `query` with 5 results.
    pub fn new(query: impl Into<String>) -> SearchRequest {
        SearchRequest {
            query: query.into(),
            mode: SearchMode::Balanced,
            capabilities: Vec::new(),
            sources: Vec::new(),
            max_results: 5,
            task_context: None,
            include_schema: false,
            deadline: None,
        }
    }

    /// A `fast` search for `query` with 5 results.
    pub fn fast(query: impl Into<String>) -> SearchRequest {
        SearchRequest::new(query).with_mode(SearchMode::Fast)
    }

    /// The request with another mode.
    pub fn with_mode(mut self, mode: SearchMode) -> SearchRequest {
        self.mode = mode;
        self
    }

    /// The request with another number of results.
    pub fn with_max_results(mut self, max_results: usize) -> SearchRequest {
        self.max_results = max_results;
        self
    }

    /// Whether the request keeps only some tools (by capability or source).
    fn is_filtered(&self) -> bool {
        !self.capabilities.is_empty() || !self.sources.is_empty()
    }

    /// The request keeping only tools with this capability tag (repeatable).
    pub fn with_capability(mut self, capability: impl Into<String>) -> SearchRequest {
        self.capabilities.push(capability.into());
        self
    }
}

/// What a search found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchResponse {
    /// The tools, best first.
    pub results: Vec<SearchResult>,
    /// How the search went.
    pub metadata: SearchMetadata,
}

/// One tool found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchResult {
    /// The catalog id (`mcp:SERVER:NAME`, ...).
    pub id: String,
    /// The tool's name (what it is called by).
    pub name: String,
    /// Its description.
    pub description: String,
    /// The kind of source it comes from.
    pub source: SourceKind,
    /// Its MCP server, for MCP tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// Its capability tags.
    pub capabilities: Vec<String>,
    /// Its parameters, compactly.
    pub parameters: Vec<Parameter>,
    /// Whether it needs a person's approval.
    pub requires_approval: bool,
    /// How well it matches, in [0, 1].
    pub confidence: f64,
    /// Why it matched, for a person or a model.
    pub match_reason: String,
    /// The signals the confidence was made of.
    pub signals: Vec<Signal>,
    /// Its input schema, when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Value>,
}

/// One parameter of a found tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parameter {
    /// Its name.
    pub name: String,
    /// Its JSON type (`string`, `integer|null`, `any`).
    #[serde(rename = "type")]
    pub kind: String,
    /// Whether it must be given.
    pub required: bool,
    /// Its description, cut at 160 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// What kind of evidence a [`Signal`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SignalKind {
    /// The BM25 score over the weighted columns.
    Bm25,
    /// The cosine of query and tool embeddings.
    Semantic,
    /// The tool has a capability the query signals.
    CapabilityMatch,
    /// The plugged-in re-ranker's score.
    Rerank,
}

/// One piece of evidence behind a result's confidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Signal {
    /// What it is.
    pub kind: SignalKind,
    /// Its raw value (BM25 score, cosine, number of matched capabilities, re-ranker score).
    pub score: f64,
    /// What it says.
    pub detail: String,
}

/// How a search went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchMetadata {
    /// The mode that ran (`fast` when `balanced` was asked without an embedding model).
    pub mode_used: SearchMode,
    /// Tools in the catalog.
    pub total_indexed: u64,
    /// BM25 candidates retrieved.
    pub candidates_retrieved: usize,
    /// Terms the expander added.
    pub expanded_terms: Vec<String>,
    /// Milliseconds spent expanding the query.
    pub expansion_ms: f64,
    /// Milliseconds spent in FTS5 retrieval.
    pub retrieval_ms: f64,
    /// Milliseconds spent re-ranking (embeddings and re-ranker).
    pub rerank_ms: f64,
    /// Milliseconds in all.
    pub total_ms: f64,
    /// Anything the caller should know (a mode that could not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Why the plugged-in query expander's terms are not used (its error): the built-in
    /// [`crate::SynonymExpander`]'s are, in `expanded_terms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expansion_error: Option<String>,
    /// Why the plugged-in re-ranker's scores are not used (its error): the results are
    /// ranked without them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rerank_error: Option<String>,
}

/// A candidate as read from the catalog.
struct Candidate {
    rowid: i64,
    id: String,
    name: String,
    description: String,
    source: String,
    server: Option<String>,
    capabilities: String,
    input_schema: String,
    requires_approval: bool,
    name_terms: String,
    bm25: f64,
    embedding: Option<Vec<f32>>,
    score: f64,
    signals: Vec<Signal>,
}

/// The columns a [`Candidate`] is read from, of `tools t`: the vector only when asked for
/// and computed by the model `?2`, and `score` last.
fn candidate_columns(with_embeddings: bool, score: &str) -> String {
    format!(
        "t.rowid, t.id, t.name, t.description, t.source, t.server, t.capabilities,
         t.input_schema, t.requires_approval, t.name_terms, {embedding}, {score}",
        embedding = if with_embeddings {
            "CASE WHEN t.embedding_model = ?2 THEN t.embedding END"
        } else {
            "NULL AND ?2 IS NULL"
        },
    )
}

/// A candidate from a row of [`candidate_columns`].
fn candidate(row: &rusqlite::Row<'_>) -> rusqlite::Result<Candidate> {
    let embedding: Option<Vec<u8>> = row.get(10)?;
    Ok(Candidate {
        rowid: row.get(0)?,
        id: row.get(1)?,
        name: row.get(2)?,
        description: row.get(3)?,
        source: row.get(4)?,
        server: row.get(5)?,
        capabilities: row.get(6)?,
        input_schema: row.get(7)?,
        requires_approval: row.get(8)?,
        name_terms: row.get(9)?,
        embedding: embedding.map(|bytes| from_bytes(&bytes)),
        bm25: row.get(11)?,
        score: 0.0,
        signals: Vec::new(),
    })
}

fn millis(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

impl Catalog {
    /// Searches the catalog.
    pub fn search(&self, request: &SearchRequest) -> Result<SearchResponse, CatalogError> {
        let started = Instant::now();
        let query = request.query.trim();
        if query.is_empty() {
            return Err(CatalogError::InvalidRequest(
                "the query is empty; say what the tool should do".into(),
            ));
        }
        if query.chars().count() > MAX_QUERY_CHARS {
            return Err(CatalogError::InvalidRequest(format!(
                "the query has more than {MAX_QUERY_CHARS} characters; shorten it"
            )));
        }
        if request.max_results == 0 || request.max_results > MAX_RESULTS {
            return Err(CatalogError::InvalidRequest(format!(
                "max_results is {}; it must be between 1 and {MAX_RESULTS}",
                request.max_results
            )));
        }
        let mut note = None;
        let mut mode = request.mode;
        if mode != SearchMode::Fast && self.embedder.is_none() {
            note = Some(format!(
                "`{}` needs an embedding model and this catalog has none: BM25 only",
                mode.as_str()
            ));
            mode = SearchMode::Fast;
        }
        let expanding = Instant::now();
        let mut expansion_error = None;
        let expanded_terms = if request.mode == SearchMode::Accurate {
            let context = request.task_context.as_deref();
            let mut terms = match self
                .expander
                .expand_before(query, context, request.deadline)
            {
                Ok(terms) => terms,
                Err(error) => {
                    // A plugged-in expander (an LLM) that fails does not fail the search.
                    expansion_error = Some(error.to_string());
                    SynonymExpander.expand(query, context)?
                }
            };
            terms.truncate(32);
            terms
        } else {
            Vec::new()
        };
        let expansion_ms = millis(expanding);

        let terms = query_terms(query, &expanded_terms);
        let retrieving = Instant::now();
        let pool = if mode == SearchMode::Fast {
            request.max_results
        } else {
            RERANK_POOL.max(request.max_results * 3)
        };
        let (mut candidates, total_indexed) = if terms.is_empty() {
            (Vec::new(), self.count_tools(&self.lock())?)
        } else {
            self.retrieve(&terms, request, pool, mode != SearchMode::Fast)?
        };
        let retrieval_ms = millis(retrieving);
        let candidates_retrieved = candidates.len();

        let query_caps = query_capabilities(query);
        for candidate in &mut candidates {
            let lexical = candidate.bm25 / (candidate.bm25 + BM25_HALF);
            candidate.score = lexical;
            candidate.signals.push(Signal {
                kind: SignalKind::Bm25,
                score: candidate.bm25,
                detail: format!(
                    "BM25 {:.2} over name, description, capabilities, keywords, parameters",
                    candidate.bm25
                ),
            });
            let tags: BTreeSet<&str> = candidate.capabilities.split(' ').collect();
            let matched: Vec<&str> = query_caps
                .iter()
                .copied()
                .filter(|c| tags.contains(c))
                .collect();
            if !matched.is_empty() {
                candidate.signals.push(Signal {
                    kind: SignalKind::CapabilityMatch,
                    score: matched.len() as f64,
                    detail: format!("capabilities the query asks for: {}", matched.join(", ")),
                });
            }
        }

        let reranking = Instant::now();
        let mut rerank_error = None;
        if mode != SearchMode::Fast {
            self.semantic_stage(query, request, &mut candidates)?;
            if mode == SearchMode::Accurate {
                rerank_error = self.rerank_stage(query, request, &mut candidates);
            }
            candidates.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
        }
        let rerank_ms = if mode == SearchMode::Fast {
            0.0
        } else {
            millis(reranking)
        };
        candidates.truncate(request.max_results);

        let query_words: BTreeSet<String> = terms.iter().map(|t| stem(t).into_owned()).collect();
        let results = candidates
            .into_iter()
            .map(|candidate| into_result(candidate, &query_words, request.include_schema))
            .collect();
        Ok(SearchResponse {
            results,
            metadata: SearchMetadata {
                mode_used: mode,
                total_indexed,
                candidates_retrieved,
                expanded_terms,
                expansion_ms,
                retrieval_ms,
                rerank_ms,
                total_ms: millis(started),
                note,
                expansion_error,
                rerank_error,
            },
        })
    }

    /// The best `pool` tools by BM25 for `terms`, with the filters, and the catalog's size.
    ///
    /// Without filters the scores are computed from the postings held in memory
    /// ([`Postings`](crate::postings::Postings)), equal to FTS5's `bm25()`; with filters, a
    /// query word FTS5 cuts into several tokens (a phrase), or an index too large to hold,
    /// FTS5 ranks the rows itself.
    fn retrieve(
        &self,
        terms: &[String],
        request: &SearchRequest,
        pool: usize,
        with_embeddings: bool,
    ) -> Result<(Vec<Candidate>, u64), CatalogError> {
        let connection = self.lock();
        let total = self.count_tools(&connection)?;
        let filtered = request.is_filtered();
        if !filtered {
            let tokens = self.tokenizer.tokens(&connection, terms)?;
            let postings = self.postings(&connection)?;
            if let Some(postings) = postings
                && tokens.iter().all(|word| word.len() <= 1)
            {
                let phrases: Vec<String> = tokens.into_iter().flatten().collect();
                let best = postings.best(&phrases, &self.weights, pool);
                let candidates = self.read_candidates(&connection, &best, with_embeddings)?;
                return Ok((candidates, total));
            }
        }
        let candidates =
            self.retrieve_with_fts(&connection, terms, request, pool, with_embeddings)?;
        Ok((candidates, total))
    }

    /// The rows `best` (rowid and BM25 score, best first), best first, ties by id.
    fn read_candidates(
        &self,
        connection: &Connection,
        best: &[(i64, f64)],
        with_embeddings: bool,
    ) -> Result<Vec<Candidate>, CatalogError> {
        let sql = format!(
            "SELECT {} FROM tools t WHERE t.rowid = ?1",
            candidate_columns(with_embeddings, "?3")
        );
        let mut statement = connection
            .prepare_cached(&sql)
            .map_err(sqlite("cannot prepare the search"))?;
        let model = self.model_parameter();
        let mut candidates = Vec::with_capacity(best.len());
        for (rowid, score) in best {
            let found = statement
                .query_row(rusqlite::params![rowid, model, score], candidate)
                .optional()
                .map_err(sqlite("cannot search"))?;
            candidates.extend(found);
        }
        candidates.sort_by(|a, b| b.bm25.total_cmp(&a.bm25).then_with(|| a.id.cmp(&b.id)));
        Ok(candidates)
    }

    /// The best `pool` tools by FTS5's own `bm25()`, with the filters.
    fn retrieve_with_fts(
        &self,
        connection: &Connection,
        terms: &[String],
        request: &SearchRequest,
        pool: usize,
        with_embeddings: bool,
    ) -> Result<Vec<Candidate>, CatalogError> {
        let match_expression = terms
            .iter()
            .map(|term| format!("\"{}\"", term.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join(" OR ");
        let filtered = request.is_filtered();
        // The best `pool` rowids are chosen from the FTS table alone; only those rows of
        // `tools` are read. Filters need `tools` before the limit, so they join it there.
        let mut hits = format!(
            "SELECT tools_fts.rowid AS rowid, {} AS score
             FROM tools_fts{}
             WHERE tools_fts MATCH ?1",
            self.bm25_expression(),
            if filtered {
                " JOIN tools t ON t.rowid = tools_fts.rowid"
            } else {
                ""
            },
        );
        let mut values: Vec<SqlValue> =
            vec![SqlValue::Text(match_expression), self.model_parameter()];
        for capability in &request.capabilities {
            values.push(SqlValue::Text(format!(
                " {} ",
                capability.trim().to_lowercase()
            )));
            hits.push_str(&format!(
                " AND instr(' ' || t.capabilities || ' ', ?{}) > 0",
                values.len()
            ));
        }
        if !request.sources.is_empty() {
            let mut placeholders = Vec::new();
            for kind in &request.sources {
                values.push(SqlValue::Text(kind.as_str().to_owned()));
                placeholders.push(format!("?{}", values.len()));
            }
            hits.push_str(&format!(" AND t.source IN ({})", placeholders.join(", ")));
        }
        values.push(SqlValue::Integer(pool as i64));
        hits.push_str(&format!(
            " ORDER BY score DESC, tools_fts.rowid LIMIT ?{}",
            values.len()
        ));
        let sql = format!(
            "SELECT {} FROM ({hits}) AS hits JOIN tools t ON t.rowid = hits.rowid
             ORDER BY hits.score DESC, t.id",
            candidate_columns(with_embeddings, "hits.score"),
        );
        let mut statement = connection
            .prepare_cached(&sql)
            .map_err(sqlite("cannot prepare the search"))?;
        let rows = statement
            .query_map(rusqlite::params_from_iter(values), candidate)
            .map_err(sqlite("cannot search"))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(sqlite("cannot search"))
    }

    /// FTS5's BM25 score of a row with the catalog's column weights (higher is better).
    pub(crate) fn bm25_expression(&self) -> String {
        let w = self.weights;
        format!(
            "-bm25(tools_fts, {}, {}, {}, {}, {})",
            w.name, w.description, w.capabilities, w.keywords, w.parameters
        )
    }

    /// The embedding model's id as the `?2` of a candidate query (stored vectors of other
    /// models are not read).
    fn model_parameter(&self) -> SqlValue {
        self.embedder
            .as_ref()
            .map_or(SqlValue::Null, |e| SqlValue::Text(e.model_id().to_owned()))
    }

    /// Scores candidates by the cosine of query and tool embeddings blended with BM25;
    /// embeds the tools that have no vector for this model yet, and keeps their vectors.
    fn semantic_stage(
        &self,
        query: &str,
        request: &SearchRequest,
        candidates: &mut [Candidate],
    ) -> Result<(), CatalogError> {
        let Some(embedder) = &self.embedder else {
            return Ok(());
        };
        let mut query_text = query.to_owned();
        if let Some(context) = &request.task_context {
            query_text.push_str(". ");
            query_text.push_str(context);
        }
        let missing: Vec<usize> = (0..candidates.len())
            .filter(|&i| candidates[i].embedding.is_none())
            .collect();
        let mut texts: Vec<String> = vec![query_text];
        texts.extend(missing.iter().map(|&i| embedding_text(&candidates[i])));
        let text_refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let mut vectors = Vec::with_capacity(text_refs.len());
        for batch in text_refs.chunks(embedder.batch_size().max(1)) {
            vectors.extend(embedder.embed(batch, request.deadline)?);
        }
        if vectors.len() != text_refs.len() {
            return Err(CatalogError::Embed(
                toolforge::embed::EmbedError::BadAnswer {
                    provider: embedder.model_id().to_owned(),
                    message: format!("{} vectors for {} texts", vectors.len(), text_refs.len()),
                },
            ));
        }
        let mut vectors = vectors.into_iter();
        let query_vector = vectors.next().unwrap_or_default();
        if !missing.is_empty() {
            let connection = self.lock();
            let mut store = connection
                .prepare_cached(
                    "UPDATE tools SET embedding_model = ?1, embedding = ?2 WHERE rowid = ?3",
                )
                .map_err(sqlite("cannot store embeddings"))?;
            for (&i, vector) in missing.iter().zip(vectors) {
                store
                    .execute(rusqlite::params![
                        embedder.model_id(),
                        to_bytes(&vector),
                        candidates[i].rowid
                    ])
                    .map_err(sqlite("cannot store embeddings"))?;
                candidates[i].embedding = Some(vector);
            }
        }
        for candidate in candidates.iter_mut() {
            let cosine = candidate
                .embedding
                .as_deref()
                .map_or(0.0, |vector| cosine(&query_vector, vector));
            candidate.score =
                SEMANTIC_SHARE * cosine.max(0.0) + (1.0 - SEMANTIC_SHARE) * candidate.score;
            candidate.signals.push(Signal {
                kind: SignalKind::Semantic,
                score: cosine,
                detail: format!(
                    "meaning close to the query (cosine {cosine:.2}, {})",
                    embedder.model_id()
                ),
            });
        }
        Ok(())
    }

    /// Blends in the plugged-in re-ranker's scores, if there is one; answers why they are
    /// left out when it fails (the candidates keep their scores).
    fn rerank_stage(
        &self,
        query: &str,
        request: &SearchRequest,
        candidates: &mut [Candidate],
    ) -> Option<String> {
        let reranker = self.reranker.as_ref()?;
        let shown: Vec<RerankCandidate<'_>> = candidates
            .iter()
            .map(|c| RerankCandidate {
                name: &c.name,
                description: &c.description,
            })
            .collect();
        let scores = match reranker.rerank_before(
            query,
            request.task_context.as_deref(),
            &shown,
            request.deadline,
        ) {
            Ok(scores) if scores.len() == candidates.len() => scores,
            Ok(scores) => {
                return Some(format!(
                    "the re-ranker gave {} scores for {} candidates",
                    scores.len(),
                    candidates.len()
                ));
            }
            Err(error) => return Some(error.to_string()),
        };
        for (candidate, score) in candidates.iter_mut().zip(scores) {
            let score = if score.is_finite() {
                score.clamp(0.0, 1.0)
            } else {
                0.0
            };
            candidate.score = 0.5 * candidate.score + 0.5 * score;
            candidate.signals.push(Signal {
                kind: SignalKind::Rerank,
                score,
                detail: "the re-ranker's relevance".into(),
            });
        }
        None
    }
}

/// The distinct non-stop words of the query, then the expansion terms, at most
/// [`MAX_TERMS`]. A query of stop words only keeps its words.
fn query_terms(query: &str, expanded: &[String]) -> Vec<String> {
    let all = words(query);
    let mut kept: Vec<String> = all.iter().filter(|w| !is_stop_word(w)).cloned().collect();
    if kept.is_empty() {
        kept = all;
    }
    kept.extend(expanded.iter().flat_map(|term| words(term)));
    let mut seen = BTreeSet::new();
    kept.retain(|term| seen.insert(term.clone()));
    kept.truncate(MAX_TERMS);
    kept
}

/// What a tool's vector is computed from.
fn embedding_text(candidate: &Candidate) -> String {
    let mut text = format!("{}: {}", candidate.name_terms, candidate.description);
    if text.len() > 2000 {
        let mut end = 2000;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}

fn to_bytes(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn from_bytes(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|chunk| f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]))
        .collect()
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    if a.len() != b.len() || a.is_empty() {
        return 0.0;
    }
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let denominator = norm(a) * norm(b);
    if denominator == 0.0 {
        0.0
    } else {
        dot / denominator
    }
}

fn into_result(
    candidate: Candidate,
    query_words: &BTreeSet<String>,
    include_schema: bool,
) -> SearchResult {
    let schema: Value = serde_json::from_str(&candidate.input_schema).unwrap_or(Value::Null);
    let matched_in = |text: &str| -> Vec<String> {
        let text_words: BTreeSet<String> =
            words(text).iter().map(|w| stem(w).into_owned()).collect();
        query_words
            .iter()
            .filter(|w| text_words.contains(*w))
            .cloned()
            .collect()
    };
    let mut reasons = Vec::new();
    let in_name = matched_in(&candidate.name_terms);
    if !in_name.is_empty() {
        reasons.push(format!("name matches {}", in_name.join(", ")));
    }
    let in_description: Vec<String> = matched_in(&candidate.description)
        .into_iter()
        .filter(|w| !in_name.contains(w))
        .collect();
    if !in_description.is_empty() {
        reasons.push(format!("description matches {}", in_description.join(", ")));
    }
    for signal in &candidate.signals {
        match signal.kind {
            SignalKind::CapabilityMatch => reasons.push(signal.detail.clone()),
            SignalKind::Semantic => reasons.push(format!("meaning similarity {:.2}", signal.score)),
            SignalKind::Rerank => reasons.push(format!("re-ranker score {:.2}", signal.score)),
            SignalKind::Bm25 => {}
        }
    }
    if reasons.is_empty() {
        reasons.push("keywords or parameters match".into());
    }
    SearchResult {
        id: candidate.id,
        name: candidate.name,
        description: candidate.description,
        source: SourceKind::parse(&candidate.source).unwrap_or(SourceKind::Custom),
        server: candidate.server,
        capabilities: candidate
            .capabilities
            .split(' ')
            .filter(|c| !c.is_empty())
            .map(str::to_owned)
            .collect(),
        parameters: parameters(&schema),
        requires_approval: candidate.requires_approval,
        confidence: candidate.score.clamp(0.0, 1.0),
        match_reason: reasons.join("; "),
        signals: candidate.signals,
        input_schema: include_schema.then_some(schema),
    }
}

/// The top-level parameters of an input schema.
pub(crate) fn parameters(schema: &Value) -> Vec<Parameter> {
    let required: BTreeSet<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let types: HashMap<&str, String> = properties
        .iter()
        .map(|(name, property)| {
            let kind = match property.get("type") {
                Some(Value::String(kind)) => kind.clone(),
                Some(Value::Array(kinds)) => kinds
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("|"),
                _ if property.get("enum").is_some() => "enum".into(),
                _ => "any".into(),
            };
            (name.as_str(), kind)
        })
        .collect();
    properties
        .iter()
        .map(|(name, property)| Parameter {
            name: name.clone(),
            kind: types.get(name.as_str()).cloned().unwrap_or_default(),
            required: required.contains(name.as_str()),
            description: property
                .get("description")
                .and_then(Value::as_str)
                .map(|text| cut(text, 160)),
        })
        .collect()
}

fn cut(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max_chars - 1).collect();
    cut.push('…');
    cut
}
