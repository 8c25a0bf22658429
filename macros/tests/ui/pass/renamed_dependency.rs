//! A complete tool in a crate that depends on the runtime as `tf` and on nothing else.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use tf::{ErrorCode, Tool, ToolContext, ToolError, ToolHandler};

/// Greets someone.
#[derive(Tool)]
#[tool(read_only, capabilities = "demo")]
struct Greet {
    /// Who to greet.
    name: String,
    /// Shout the greeting.
    #[serde(default)]
    loud: bool,
}

/// A greeting.
#[derive(tf::serde::Serialize, tf::schemars::JsonSchema)]
#[serde(crate = "tf::serde")]
#[schemars(crate = "tf::schemars")]
struct Greeting {
    /// The text.
    text: String,
}

impl ToolHandler for Greet {
    type Output = Greeting;

    async fn run(self, _context: &ToolContext) -> Result<Greeting, ToolError> {
        let text = format!("hello, {}", self.name);
        Ok(Greeting {
            text: if self.loud { text.to_uppercase() } else { text },
        })
    }
}

/// Polls a future that never waits (the handlers here do not).
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
    let tool = Greet::into_tool();
    let definition = tool.definition();
    assert_eq!(definition.name, "greet");
    assert_eq!(definition.input_schema["properties"]["name"]["description"], "Who to greet.");
    assert_eq!(definition.input_schema["required"], tf::serde_json::json!(["name"]));
    assert_eq!(definition.output_schema.as_ref().unwrap()["properties"]["text"]["type"], "string");

    let context = ToolContext::new();
    let arguments = tf::serde_json::json!({"name": "Ada", "loud": true});
    let result = ready(tool.call(arguments, &context)).unwrap();
    assert_eq!(result["text"], "HELLO, ADA");

    let error = ready(tool.call(tf::serde_json::json!({"name": 1}), &context)).unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidArguments);
    assert_eq!(error.details.unwrap()["path"], "/name");
}
