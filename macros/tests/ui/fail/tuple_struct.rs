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
