//! `#[tool(definition = ...)]`: the definition is taken exactly as the function returns it.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use tf::{Tool, ToolContext, ToolDefinition, ToolError, ToolHandler};

fn echo_definition() -> ToolDefinition {
    ToolDefinition {
        name: "echo".into(),
        title: None,
        description: "Echoes a word.".into(),
        input_schema: tf::serde_json::json!({
            "type": "object",
            "properties": {"word": {"type": "string"}},
            "required": ["word"],
            "additionalProperties": false
        }),
        output_schema: None,
        annotations: Default::default(),
        capabilities: vec!["demo".into()],
        keywords: vec![],
    }
}

#[derive(Tool)]
#[tool(definition = echo_definition)]
#[serde(deny_unknown_fields)]
struct Echo {
    word: String,
}

impl ToolHandler for Echo {
    type Output = String;

    async fn run(self, _context: &ToolContext) -> Result<String, ToolError> {
        Ok(self.word)
    }
}

fn ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the handler should not wait"),
    }
}

fn main() {
    let tool = Echo::into_tool();
    assert_eq!(tool.definition(), &echo_definition());
    let context = ToolContext::new();
    let echoed = ready(tool.call(tf::serde_json::json!({"word": "hi"}), &context));
    assert_eq!(echoed.unwrap(), "hi");
}
