//! `#[tool(crate = "...")]` names the runtime when it is reached through another path, and the
//! expansion does not trip over local items named like the libraries it uses.

#![allow(dead_code)]

mod facade {
    pub use ::tf as runtime;
}

// Local items with the names the expansion must not pick up by accident.
mod serde {}
mod schemars {}
mod serde_json {}
mod core {}
type Result = ();
struct Value;

use facade::runtime::{ToolArgs, ToolContext, ToolError, ToolHandler};

#[derive(facade::runtime::Tool)]
#[tool(crate = "crate::facade::runtime", description = "Counts the characters of a text.")]
#[tool(name = "count-chars", keywords = ["length", "text"])]
struct CountChars {
    text: String,
}

impl ToolHandler for CountChars {
    type Output = usize;

    async fn run(self, _context: &ToolContext) -> ::std::result::Result<usize, ToolError> {
        Ok(self.text.chars().count())
    }
}

fn main() {
    let definition = CountChars::definition();
    assert_eq!(definition.name, "count-chars");
    assert_eq!(definition.description, "Counts the characters of a text.");
    assert_eq!(definition.keywords, ["length", "text"]);
    let arguments = CountChars::from_arguments(facade::runtime::serde_json::json!({"text": "été"}));
    assert_eq!(arguments.unwrap().text, "été");
    let _tool = CountChars::into_tool();
}
