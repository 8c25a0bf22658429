//! Noticing that the client of one HTTP request went away before its answer was complete:
//! each request gets a [`HangUp`] token, cancelled when the request's future or its response
//! body is dropped before the body has ended. The handler then drops the call, which stops its
//! database statement.

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use tokio_util::sync::CancellationToken;

/// Cancelled when the client of one HTTP request goes away before its answer is complete: the
/// handler drops the call, which stops its database statement.
#[derive(Debug, Clone)]
struct HangUp(CancellationToken);

/// The hang-up token of the HTTP request behind an MCP request, if it came over HTTP.
pub(in crate::mcp) fn token(
    context: &rmcp::service::RequestContext<rmcp::service::RoleServer>,
) -> Option<CancellationToken> {
    context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<HangUp>())
        .map(|hang_up| hang_up.0.clone())
}

/// Gives each request a [`HangUp`] token, cancelled if the request's future or its response
/// body is dropped before the body has ended.
pub(super) async fn watch(mut request: Request, next: Next) -> Response {
    let token = CancellationToken::new();
    request.extensions_mut().insert(HangUp(token.clone()));
    let guard = token.drop_guard();
    let response = next.run(request).await;
    let (parts, body) = response.into_parts();
    Response::from_parts(
        parts,
        axum::body::Body::new(GuardedBody {
            inner: body,
            guard: Some(guard),
        }),
    )
}

/// A response body that cancels its request's [`HangUp`] token unless it is read to the end.
struct GuardedBody {
    inner: axum::body::Body,
    guard: Option<tokio_util::sync::DropGuard>,
}

impl axum::body::HttpBody for GuardedBody {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let polled = std::pin::Pin::new(&mut self.inner).poll_frame(cx);
        if let std::task::Poll::Ready(None) = polled
            && let Some(guard) = self.guard.take()
        {
            guard.disarm();
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}
