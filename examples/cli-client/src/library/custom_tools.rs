//! Your own tools, next to the ones generated from `examples/cli-client/ragforge.config.yaml`.
//!
//! toolforge created this file once and never overwrites it: edit it freely. Every tool you add
//! to `register` is served by `setup_tool_registry` together with the database tools.
//!
//! A tool is a struct of arguments deriving `Tool` (its doc comment is the description the
//! model reads) plus a `ToolHandler` impl. The database is in the call's context; the typed
//! records in `super::records` query it without writing SQL.

use schemars::JsonSchema;
use serde::Serialize;
use toolforge::sql::Database;
use toolforge::sql::query::{Direction, Operator};
use toolforge::{RegistryBuilder, RegistryError, Tool, ToolContext, ToolError, ToolHandler};

use super::records::{Author, AuthorField, Book};

/// The most books listed per author.
const MAX_BOOKS: u32 = 100;

/// Finds the authors whose name contains a text and lists each one's books, oldest first,
/// with the number of pages they wrote in total. Use it for "what did X write" questions.
#[derive(Tool, Debug)]
#[tool(name = "author_bibliography", read_only, idempotent)]
pub struct AuthorBibliography {
    /// Text the author's name must contain, case-sensitive (`Herbert`, `Ursula K.`).
    pub name: String,
}

/// One author and their books.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Bibliography {
    /// The author.
    pub author: Author,
    /// Their books in the library, by year of first publication.
    pub books: Vec<Book>,
    /// Pages of all those books together.
    pub total_pages: u64,
}

impl ToolHandler for AuthorBibliography {
    type Output = Vec<Bibliography>;

    async fn run(self, context: &ToolContext) -> Result<Self::Output, ToolError> {
        let db = database(context)?;
        let authors = Author::query()
            .filter(AuthorField::Name, Operator::Contains, self.name.as_str())
            .order_by(AuthorField::Name, Direction::Asc)
            .limit(20)
            .all(db)
            .await?;
        if authors.is_empty() {
            return Err(ToolError::not_found(format!(
                "no author's name contains `{}`; list authors with query_entities on Author",
                self.name
            )));
        }
        let mut bibliographies = Vec::with_capacity(authors.len());
        for author in authors {
            let mut books = author.in_written_by_book(db, MAX_BOOKS).await?;
            books.sort_by(|a, b| a.year.unwrap_or(f64::MAX).total_cmp(&b.year.unwrap_or(f64::MAX)));
            let total_pages = books.iter().filter_map(|b| b.pages).sum::<f64>() as u64;
            bibliographies.push(Bibliography {
                author,
                books,
                total_pages,
            });
        }
        Ok(bibliographies)
    }
}

/// Adds your tools to the registry `setup_tool_registry` builds.
pub fn register(builder: RegistryBuilder) -> Result<RegistryBuilder, RegistryError> {
    builder.register(AuthorBibliography::into_tool())
}

/// The database `setup_tool_registry` put in the context.
fn database(context: &ToolContext) -> Result<&Database, ToolError> {
    context
        .extension::<Database>()
        .ok_or_else(|| ToolError::execution_failed("no database in the tool context"))
}
