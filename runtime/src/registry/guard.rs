//! Running a handler safely: a panic becomes [`ErrorCode::Panicked`], an overrun
//! [`ErrorCode::Timeout`], and the registry keeps working.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use serde_json::{Value, json};

use crate::{ErrorCode, Tool, ToolContext, ToolError, ToolFuture, ToolResult};

/// Runs `tool` with panic isolation and, when `timeout` is set, a deadline.
///
/// A deadline needs a Tokio runtime with timers enabled; without one the call fails with a
/// contained error rather than bringing the caller down.
pub(crate) async fn run_guarded(
    tool: &dyn Tool,
    arguments: Value,
    context: &ToolContext,
    timeout: Option<Duration>,
) -> ToolResult {
    let name = &tool.definition().name;
    let future = match catch_unwind(AssertUnwindSafe(|| tool.call(arguments, context))) {
        Ok(future) => future,
        Err(payload) => return Err(panicked(name, payload)),
    };
    match timeout {
        None => CatchUnwind { inner: future }
            .await
            .map_err(|payload| panicked(name, payload))?,
        Some(limit) => {
            let timed: ToolFuture<'_> = Box::pin(async move {
                match tokio::time::timeout(limit, future).await {
                    Ok(result) => result,
                    Err(_) => Err(timed_out(name, limit)),
                }
            });
            CatchUnwind { inner: timed }
                .await
                .map_err(|payload| panicked(name, payload))?
        }
    }
}

/// The error for a call that overran `limit`.
pub(crate) fn timed_out(name: &str, limit: Duration) -> ToolError {
    ToolError::new(
        ErrorCode::Timeout,
        format!(
            "`{name}` did not finish within {} ms and was cancelled; try narrower arguments",
            limit.as_millis()
        ),
    )
    .with_details(json!({ "tool": name, "timeout_ms": limit.as_millis() as u64 }))
}

fn panicked(name: &str, payload: Box<dyn Any + Send>) -> ToolError {
    let reason = payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-text panic payload".to_owned());
    ToolError::new(
        ErrorCode::Panicked,
        format!("`{name}` failed internally (it panicked: {reason}); the call had no result"),
    )
    .with_details(json!({ "tool": name, "panic": reason }))
}

/// Polls a boxed future inside `catch_unwind`, turning a panic into `Err(payload)`.
struct CatchUnwind<'a> {
    inner: ToolFuture<'a>,
}

impl Future for CatchUnwind<'_> {
    type Output = Result<ToolResult, Box<dyn Any + Send>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = &mut self.inner;
        match catch_unwind(AssertUnwindSafe(|| inner.as_mut().poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(result)) => Poll::Ready(Ok(result)),
            Err(payload) => Poll::Ready(Err(payload)),
        }
    }
}
