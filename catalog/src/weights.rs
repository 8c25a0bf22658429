//! [`Weights`]: the BM25 weight of each indexed column.

/// BM25 weights of the indexed columns (FTS5 `bm25()` arguments).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    /// The tool's name (its words).
    pub name: f64,
    /// The description.
    pub description: f64,
    /// The capability tags.
    pub capabilities: f64,
    /// The keywords.
    pub keywords: f64,
    /// The parameters' names and descriptions.
    pub parameters: f64,
}

impl Default for Weights {
    /// The name 2, everything else 1. FTS5 multiplies a column's term frequency by its weight
    /// before BM25 saturates it, so large weights (Loom's 10, 5, 3, 2) make any match in the
    /// name or description count as fully saturated and switch off length normalisation;
    /// small ones keep BM25 working and still favour the name.
    fn default() -> Self {
        Weights {
            name: 2.0,
            description: 1.0,
            capabilities: 1.0,
            keywords: 1.0,
            parameters: 1.0,
        }
    }
}
