//! Printing tool calls and their JSON results, and keeping score of what failed.

use std::sync::Arc;

use serde_json::Value;
use toolforge::ToolRegistry;

/// Strings longer than this are shortened on screen (the tools return them whole).
const SHOWN_CHARS: usize = 72;

/// A scripted conversation with a registry: every call is printed with its result.
pub struct Session {
    registry: Arc<ToolRegistry>,
    step: usize,
    failures: Vec<String>,
}

impl Session {
    /// A session over `registry`.
    pub fn new(registry: Arc<ToolRegistry>) -> Self {
        Session {
            registry,
            step: 0,
            failures: Vec::new(),
        }
    }

    /// Prints a numbered step heading.
    pub fn step(&mut self, title: &str) {
        self.step += 1;
        println!("\n== {}. {title}", self.step);
    }

    /// Calls `tool`, prints the call and the result, and records a failure if it fails.
    pub async fn call(&mut self, tool: &str, arguments: Value) -> Option<Value> {
        println!("-> {tool} {}", arguments);
        match self.registry.call(tool, arguments).await {
            Ok(result) => {
                println!("<- ok\n{}", render(&result));
                Some(result)
            }
            Err(error) => {
                println!("<- error\n{}", render(&error.to_json()));
                self.failures
                    .push(format!("step {}: {tool}: {}", self.step, error.message));
                None
            }
        }
    }

    /// Calls `tool` expecting an error (printed); a success is recorded as a failure.
    pub async fn call_expecting_error(&mut self, tool: &str, arguments: Value) -> Option<Value> {
        println!("-> {tool} {}", arguments);
        match self.registry.call(tool, arguments).await {
            Ok(result) => {
                println!("<- ok (an error was expected)\n{}", render(&result));
                self.failures.push(format!(
                    "step {}: {tool} succeeded but should have failed",
                    self.step
                ));
                None
            }
            Err(error) => {
                let json = error.to_json();
                println!("<- error (as expected)\n{}", render(&json));
                Some(json)
            }
        }
    }

    /// Records a failure found by the script itself (a missing value in a result...).
    pub fn fail(&mut self, message: impl Into<String>) {
        let message = format!("step {}: {}", self.step, message.into());
        println!("!! {message}");
        self.failures.push(message);
    }

    /// The failures so far.
    pub fn failures(&self) -> &[String] {
        &self.failures
    }
}

/// A result for the screen: one line per top-level key, one line per element of a top-level
/// array, everything else compact JSON with long strings shortened.
pub fn render(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                match value {
                    Value::Array(items) if !items.is_empty() => {
                        out.push_str(&format!("  {key}: [\n"));
                        for item in items {
                            out.push_str(&format!("    {}\n", compact(item)));
                        }
                        out.push_str("  ]\n");
                    }
                    other => out.push_str(&format!("  {key}: {}\n", compact(other))),
                }
            }
        }
        other => out.push_str(&format!("  {}\n", compact(other))),
    }
    out.trim_end().to_string()
}

fn compact(value: &Value) -> String {
    serde_json::to_string(&shorten(value)).unwrap_or_default()
}

fn shorten(value: &Value) -> Value {
    match value {
        Value::String(text) if text.chars().count() > SHOWN_CHARS => {
            let head: String = text.chars().take(SHOWN_CHARS - 12).collect();
            Value::String(format!("{head}… ({} chars)", text.chars().count()))
        }
        Value::Array(items) => Value::Array(items.iter().map(shorten).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), shorten(v))).collect())
        }
        other => other.clone(),
    }
}
