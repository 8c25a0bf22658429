//! Which database tool ([`DatabaseTool`]): the enum, the list of every tool and their names,
//! all generated from the one table of tools (`spec/tool_table.rs`).

use crate::spec::ToolFamily;

/// The enum of database tools and its table-given facts.
macro_rules! database_tool_kind {
    ($($variant:ident: $name:literal, $family:ident, $($module:ident)::+, $args:ident<$($param:ident),+>, $needs:ident;)*) => {
        /// One database tool of the engine, for code that needs one tool without the others: its
        /// name, its definition and its call, the same as the tool [`database_tools`](super::database_tools) builds.
        ///
        /// ```
        /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
        /// # let spec: toolforge::spec::SchemaSpec = serde_json::from_value(serde_json::json!({
        /// #   "name": "books", "entities": [{"name": "Book", "table": "book", "unique_field": "isbn",
        /// #   "fields": [{"name": "isbn", "type": "string", "unique": true}]}],
        /// #   "relationships": [], "tools": {"default_limit": 20, "max_limit": 100,
        /// #   "families": ["lookup"]}}))?;
        /// use toolforge::sql::tools::{DatabaseTool, database_tool_definitions};
        /// let definition = DatabaseTool::GetEntityById.definition(&spec);
        /// assert_eq!(definition, database_tool_definitions(&spec)[0]);
        /// let dir = tempfile::tempdir()?;
        /// let db = toolforge::sql::Database::open(dir.path().join("books.db"))?;
        /// db.init(&spec)?;
        /// let call = DatabaseTool::GetEntityById.call(
        ///     std::sync::Arc::new(spec),
        ///     db,
        ///     serde_json::json!({"entity_type": "Book", "id_value": "978-0"}),
        /// );
        /// let error = tokio::runtime::Runtime::new()?.block_on(call).unwrap_err();
        /// assert_eq!(error.code, toolforge::ErrorCode::NotFound);
        /// # Ok(()) }
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum DatabaseTool {
            $(
                #[doc = concat!("`", $name, "` ([`", stringify!($args), "`](super::", stringify!($args), ")).")]
                $variant,
            )*
        }

        $(impl TableTool for crate::sql::tools::$args {
            const KIND: DatabaseTool = DatabaseTool::$variant;
        })*

        impl DatabaseTool {
            /// Every database tool, in registration order (grouped by family).
            pub const ALL: [DatabaseTool; [$(DatabaseTool::$variant),*].len()] =
                [$(DatabaseTool::$variant),*];

            /// The tool's name without the spec's prefix (`query_entities`).
            pub fn name(self) -> &'static str {
                match self {
                    $(DatabaseTool::$variant => $name,)*
                }
            }

            /// The family the tool belongs to (`spec.tools.families` switches families on).
            pub fn family(self) -> ToolFamily {
                match self {
                    $(DatabaseTool::$variant => ToolFamily::$family,)*
                }
            }
        }
    };
}
crate::__database_tool_table!(database_tool_kind);

/// A tool's argument struct, as the table of tools knows it: which tool it is (implemented
/// from the table's row, never by hand).
pub(crate) trait TableTool {
    /// Which tool this is.
    const KIND: DatabaseTool;
}
