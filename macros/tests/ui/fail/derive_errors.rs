//! Every mistake `#[derive(Tool)]` reports, one module a mistake, compiled as one crate so that
//! trybuild runs rustc once for all of them. The expected output lists each module's errors;
//! an error more (a cascade the placeholder impls are there to prevent) fails the case.

mod bad_values {
    use tf::{Tool, ToolContext, ToolError, ToolHandler};

    /// Searches code.
    #[derive(Tool)]
    #[tool(capabilities = ["search", "search"], read_only = "yes")]
    struct SearchCode {
        query: String,
    }

    impl ToolHandler for SearchCode {
        type Output = ();

        async fn run(self, _context: &ToolContext) -> Result<(), ToolError> {
            Ok(())
        }
    }

    fn main() {
        // The placeholder impl keeps this compiling: the only error is the one above.
        let _tool = SearchCode::into_tool();
    }
}

mod default_name_not_ascii {
    use tf::{Tool, ToolContext, ToolError, ToolHandler};

    /// Cherche du texte.
    #[derive(Tool)]
    struct Recherché {
        texte: String,
    }

    type Recherche = Recherché;

    impl ToolHandler for Recherche {
        type Output = ();

        async fn run(self, _context: &ToolContext) -> Result<(), ToolError> {
            Ok(())
        }
    }

    fn main() {
        // The placeholder impl keeps this compiling: the only error is the one above.
        let _tool = Recherche::into_tool();
    }
}

mod definition_with_other_keys {
    use tf::Tool;

    /// Searches.
    #[derive(Tool)]
    #[tool(definition = search_definition, name = "search", read_only)]
    #[tool(keywords = ["find"])]
    struct Search {
        query: String,
    }

    fn main() {}
}

mod duplicate_key {
    use tf::{Tool, ToolContext, ToolError, ToolHandler};

    /// Searches code.
    #[derive(Tool)]
    #[tool(name = "search")]
    #[tool(name = "find")]
    struct SearchCode {
        query: String,
    }

    impl ToolHandler for SearchCode {
        type Output = ();

        async fn run(self, _context: &ToolContext) -> Result<(), ToolError> {
            Ok(())
        }
    }

    fn main() {
        // The placeholder impl keeps this compiling: the only error is the one above.
        let _tool = SearchCode::into_tool();
    }
}

mod empty_description {
    use tf::Tool;

    #[derive(Tool)]
    #[tool(description = "  ")]
    struct Search {
        query: String,
    }

    fn main() {}
}

mod empty_values {
    use tf::Tool;

    /// Searches.
    #[derive(Tool)]
    #[tool(name = "", title = " ", keywords = ["grep", ""])]
    struct Search {
        query: String,
    }

    fn main() {}
}

mod an_enum {
    use tf::{Tool, ToolContext, ToolError, ToolHandler};

    /// Picks one.
    #[derive(Tool)]
    enum Choice {
        Left,
        Right,
    }

    impl ToolHandler for Choice {
        type Output = ();

        async fn run(self, _context: &ToolContext) -> Result<(), ToolError> {
            Ok(())
        }
    }

    fn main() {
        // The placeholder impl keeps this compiling: the only error is the one above.
        let _tool = Choice::into_tool();
    }
}

mod generic {
    use tf::Tool;

    /// Searches anything.
    #[derive(Tool)]
    struct Search<T> {
        query: T,
    }

    fn main() {}
}

mod invalid_name {
    use tf::{Tool, ToolContext, ToolError, ToolHandler};

    /// Searches code.
    #[derive(Tool)]
    #[tool(name = "search code")]
    struct SearchCode {
        query: String,
    }

    impl ToolHandler for SearchCode {
        type Output = ();

        async fn run(self, _context: &ToolContext) -> Result<(), ToolError> {
            Ok(())
        }
    }

    fn main() {
        // The placeholder impl keeps this compiling: the only error is the one above.
        let _tool = SearchCode::into_tool();
    }
}

mod missing_description {
    use tf::{Tool, ToolContext, ToolError, ToolHandler};

    #[derive(Tool)]
    struct SearchCode {
        /// The text to look for.
        query: String,
    }

    impl ToolHandler for SearchCode {
        type Output = ();

        async fn run(self, _context: &ToolContext) -> Result<(), ToolError> {
            Ok(())
        }
    }

    fn main() {
        // The placeholder impl keeps this compiling: the only error is the one above.
        let _tool = SearchCode::into_tool();
    }
}

mod name_too_long {
    use tf::{Tool, ToolContext, ToolError, ToolHandler};

    /// Searches code.
    #[derive(Tool)]
    #[tool(name = "search_the_whole_code_base_of_the_company_for_a_text_and_return_files")]
    struct SearchCode {
        query: String,
    }

    impl ToolHandler for SearchCode {
        type Output = ();

        async fn run(self, _context: &ToolContext) -> Result<(), ToolError> {
            Ok(())
        }
    }

    fn main() {
        // The placeholder impl keeps this compiling: the only error is the one above.
        let _tool = SearchCode::into_tool();
    }
}

mod no_direct_serde {
    //! The UI test crates depend on the runtime only: this proves the pass cases do not borrow a
    //! direct serde dependency.

    use serde::Deserialize;
    use schemars::JsonSchema;

    fn main() {}
}

mod several_errors {
    use tf::{Tool, ToolContext, ToolError, ToolHandler};

    #[derive(Tool)]
    #[tool(name = "search!", keyword = "grep")]
    struct Search {
        query: String,
    }

    impl ToolHandler for Search {
        type Output = ();

        async fn run(self, _context: &ToolContext) -> Result<(), ToolError> {
            Ok(())
        }
    }

    fn main() {
        // The placeholder impl keeps this compiling: the only error is the one above.
        let _tool = Search::into_tool();
    }
}

mod tool_attribute_on_field {
    use tf::{Tool, ToolContext, ToolError, ToolHandler};

    /// Searches code.
    #[derive(Tool)]
    struct SearchCode {
        #[tool(description = "The text to look for.")]
        query: String,
    }

    impl ToolHandler for SearchCode {
        type Output = ();

        async fn run(self, _context: &ToolContext) -> Result<(), ToolError> {
            Ok(())
        }
    }

    fn main() {
        // The placeholder impl keeps this compiling: the only error is the one above.
        let _tool = SearchCode::into_tool();
    }
}

mod tuple_struct {
    use tf::{Tool, ToolContext, ToolError, ToolHandler};

    /// Searches.
    #[derive(Tool)]
    struct Search(String, u32);

    impl ToolHandler for Search {
        type Output = ();

        async fn run(self, _context: &ToolContext) -> Result<(), ToolError> {
            Ok(())
        }
    }

    fn main() {
        // The placeholder impl keeps this compiling: the only error is the one above.
        let _tool = Search::into_tool();
    }
}

mod union {
    use tf::Tool;

    /// Reads bits.
    #[derive(Tool)]
    union Bits {
        integer: u32,
        float: f32,
    }

    fn main() {}
}

mod unit_struct {
    use tf::{Tool, ToolContext, ToolError, ToolHandler};

    /// Answers pong.
    #[derive(Tool)]
    struct Ping;

    impl ToolHandler for Ping {
        type Output = ();

        async fn run(self, _context: &ToolContext) -> Result<(), ToolError> {
            Ok(())
        }
    }

    fn main() {
        // The placeholder impl keeps this compiling: the only error is the one above.
        let _tool = Ping::into_tool();
    }
}

mod unknown_key {
    use tf::{Tool, ToolContext, ToolError, ToolHandler};

    /// Searches code.
    #[derive(Tool)]
    #[tool(read_only, descripton = "Searches code.")]
    struct SearchCode {
        query: String,
    }

    impl ToolHandler for SearchCode {
        type Output = ();

        async fn run(self, _context: &ToolContext) -> Result<(), ToolError> {
            Ok(())
        }
    }

    fn main() {
        // The placeholder impl keeps this compiling: the only error is the one above.
        let _tool = SearchCode::into_tool();
    }
}

mod unknown_key_no_suggestion {
    use tf::{Tool, ToolContext, ToolError, ToolHandler};

    /// Searches code.
    #[derive(Tool)]
    #[tool(cache_results = true)]
    struct SearchCode {
        query: String,
    }

    impl ToolHandler for SearchCode {
        type Output = ();

        async fn run(self, _context: &ToolContext) -> Result<(), ToolError> {
            Ok(())
        }
    }

    fn main() {
        // The placeholder impl keeps this compiling: the only error is the one above.
        let _tool = SearchCode::into_tool();
    }
}

fn main() {}
