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
