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
