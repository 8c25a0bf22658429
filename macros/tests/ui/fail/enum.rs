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
