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
