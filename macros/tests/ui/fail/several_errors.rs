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
