//! Running a handler safely: a panic becomes [`ErrorCode::Panicked`], an overrun
//! [`ErrorCode::Timeout`], and the registry keeps working.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use serde_json::{Value, json};

use crate::CallBudget;

use crate::{ErrorCode, Tool, ToolContext, ToolError, ToolFuture, ToolResult};

/// Runs `tool` with panic isolation and the call's budget: the budget is the current one
/// while the handler runs ([`CallBudget::current`]), and its deadline, if any, ends the call
/// with [`ErrorCode::Timeout`].
///
/// A deadline needs a Tokio runtime with timers enabled; without one the call fails with a
/// contained error rather than bringing the caller down.
pub(crate) async fn run_guarded(
    tool: &dyn Tool,
    arguments: Value,
    context: &ToolContext,
    budget: &CallBudget,
) -> ToolResult {
    let name = &tool.definition().name;
    let future =
        match budget.enter(|| catch_unwind(AssertUnwindSafe(|| tool.call(arguments, context)))) {
            Ok(future) => future,
            Err(payload) => return Err(panicked(name, payload)),
        };
    let scoped = budget.scope(future);
    match budget.deadline() {
        None => CatchUnwind {
            inner: Box::pin(scoped),
        }
        .await
        .map_err(|payload| panicked(name, payload))?,
        Some(deadline) => {
            let timed: ToolFuture<'_> = Box::pin(async move {
                match tokio::time::timeout_at(deadline.into(), scoped).await {
                    Ok(result) => result,
                    Err(_) => Err(budget.timeout_error()),
                }
            });
            CatchUnwind { inner: timed }
                .await
                .map_err(|payload| panicked(name, payload))?
        }
    }
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
