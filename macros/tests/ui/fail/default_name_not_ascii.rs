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
