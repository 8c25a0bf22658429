//! The connections of [`McpServer::serve_http`](crate::mcp::McpServer::serve_http): each served by
//! hyper's HTTP/1.1 connection, within [`ConnectionLimits`].
//!
//! - A request's headers must arrive within [`ConnectionLimits::header_timeout`] of its first
//!   byte, and its body within [`ConnectionLimits::body_timeout`] of its headers (`408`).
//! - A connection with no request under way and no byte of a new one is closed after
//!   [`ConnectionLimits::idle_timeout`] (a keep-alive connection between requests, or one that
//!   never sends anything).
//! - At most [`ConnectionLimits::max_connections`] are open. A new one beyond the limit closes
//!   the connection that has been waiting longest without a request under way (an idle or a
//!   slow one: a slow-loris client's), so that a fresh client is always served; when every
//!   open connection is answering a request, the new one is answered `503` with `Retry-After`
//!   (and `GET /healthz` `200`), then closed.
//!
//! The watch costs no work per request beyond two atomic updates: each connection's own task
//! looks at its state when a deadline may have passed.

use std::collections::HashMap;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderValue, Request, Response, StatusCode, header};
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, Semaphore, watch};
use tokio_util::sync::CancellationToken;

/// How `serve_http` bounds its connections (see the module's documentation).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// The time from a request's first byte to the end of its headers (default 10 s); a
    /// connection that takes longer is closed.
    pub header_timeout: Duration,
    /// The time from a request's headers to the end of its body (default 30 s); a body that
    /// takes longer is answered `408`.
    pub body_timeout: Duration,
    /// How long a connection may wait without a request under way (default 60 s).
    pub idle_timeout: Duration,
    /// The most connections open at once (default 512).
    pub max_connections: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        use crate::spec::HttpSpec;
        ConnectionLimits {
            header_timeout: Duration::from_secs(HttpSpec::DEFAULT_HEADER_TIMEOUT_SECONDS),
            body_timeout: Duration::from_secs(HttpSpec::DEFAULT_BODY_TIMEOUT_SECONDS),
            idle_timeout: Duration::from_secs(HttpSpec::DEFAULT_IDLE_TIMEOUT_SECONDS),
            max_connections: HttpSpec::DEFAULT_MAX_CONNECTIONS as usize,
        }
    }
}

impl ConnectionLimits {
    /// Sets [`ConnectionLimits::header_timeout`].
    pub fn with_header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// Sets [`ConnectionLimits::body_timeout`].
    pub fn with_body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// Sets [`ConnectionLimits::idle_timeout`].
    pub fn with_idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// Sets [`ConnectionLimits::max_connections`] (at least 1).
    pub fn with_max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.max(1);
        self
    }
}

/// Connections beyond the limit answered `503` at once, at most; more are closed unanswered.
const BUSY_ANSWERS: usize = 64;

/// The time a connection beyond the limit has to send the request its `503` answers.
const BUSY_ANSWER_TIME: Duration = Duration::from_secs(2);

/// Serves `app` on `listener` within `limits` until `shutdown` resolves; then takes no new
/// connection, lets each open one finish the request it is answering, and returns when all
/// are closed.
pub(super) async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()>,
) {
    let open = Arc::new(Open::new(limits.max_connections));
    let busy_answers = Arc::new(Semaphore::new(BUSY_ANSWERS));
    let (closing, closing_seen) = watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    // Out of descriptors, say: wait for some to be freed rather than spin.
                    tracing::warn!(%error, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Answers are small and written in pieces: send each at once (no Nagle delay).
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "cannot set TCP_NODELAY");
        }
        match open.admit() {
            Some(admitted) => {
                tokio::spawn(serve_connection(
                    stream,
                    app.clone(),
                    limits,
                    admitted,
                    closing_seen.clone(),
                ));
            }
            None => match busy_answers.clone().try_acquire_owned() {
                Ok(permit) => {
                    tokio::spawn(async move {
                        answer_busy(stream, limits.max_connections).await;
                        drop(permit);
                    });
                }
                Err(_) => drop(stream),
            },
        }
    }
    drop(listener);
    let _ = closing.send(true);
    open.closed().await;
}

/// Serves one admitted connection until it closes, breaks a limit, is evicted or the server
/// shuts down.
async fn serve_connection(
    stream: TcpStream,
    app: Router,
    limits: ConnectionLimits,
    admitted: Admitted,
    mut closing: watch::Receiver<bool>,
) {
    let activity = admitted.activity.clone();
    let io = TokioIo::new(Watched {
        stream,
        activity: activity.clone(),
    });
    let in_service = activity.clone();
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let request = request.map(|body| Deadline::new(body, limits.body_timeout));
        let answering = Answering::start(in_service.clone());
        let mut app = app.clone();
        async move {
            let response = tower_service::Service::call(&mut app, request)
                .await
                .unwrap_or_else(|never: Infallible| match never {});
            Ok::<_, Infallible>(response.map(|body| Tracked {
                body,
                _answering: answering,
            }))
        }
    });
    let connection = hyper::server::conn::http1::Builder::new().serve_connection(io, service);
    let mut connection = std::pin::pin!(connection);
    let mut shutting_down = false;
    if *closing.borrow_and_update() {
        connection.as_mut().graceful_shutdown();
        shutting_down = true;
    }
    loop {
        tokio::select! {
            outcome = connection.as_mut() => {
                if let Err(error) = outcome {
                    tracing::debug!(%error, "connection ended with an error");
                }
                return;
            }
            why = activity.overdue(&limits) => {
                tracing::debug!(reason = why, "closing a connection");
                return;
            }
            () = activity.evicted.cancelled() => {
                tracing::debug!("closing the longest-waiting connection for a new one");
                return;
            }
            changed = closing.changed(), if !shutting_down => {
                if changed.is_err() || *closing.borrow() {
                    connection.as_mut().graceful_shutdown();
                    shutting_down = true;
                }
            }
        }
    }
}

/// Answers the one request of a connection beyond the limit: `503`, or `200` for
/// `GET /healthz`, then closes it.
async fn answer_busy(stream: TcpStream, max_connections: usize) {
    let service = hyper::service::service_fn(move |request: Request<Incoming>| async move {
        let response = if request.uri().path() == "/healthz" {
            Response::new(axum::body::Body::from("ok\n"))
        } else {
            let mut response = Response::new(axum::body::Body::from(format!(
                "the server has {max_connections} connections open, each answering a request \
                 (its limit, --max-connections): try again shortly\n"
            )));
            *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            response
        };
        Ok::<_, Infallible>(response)
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .keep_alive(false)
        .serve_connection(TokioIo::new(stream), service);
    let _ = tokio::time::timeout(BUSY_ANSWER_TIME, connection).await;
}

/// Milliseconds since the first call, as a clock the connections share.
fn now_ms() -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_millis() as u64
}

/// What a connection is doing, as its task and the accept loop read it.
struct Activity {
    /// Requests under way (answers not yet written to their end).
    answering: AtomicUsize,
    /// Whether bytes of a new request's headers have arrived (with no request under way).
    reading: AtomicBool,
    /// When the connection last became idle, or when its current headers started.
    since_ms: AtomicU64,
    /// Cancelled when a new connection takes this one's place.
    evicted: CancellationToken,
}

impl Activity {
    fn new() -> Activity {
        Activity {
            answering: AtomicUsize::new(0),
            reading: AtomicBool::new(false),
            since_ms: AtomicU64::new(now_ms()),
            evicted: CancellationToken::new(),
        }
    }

    fn is_answering(&self) -> bool {
        self.answering.load(Ordering::Acquire) > 0
    }

    /// Resolves when the connection has broken `limits`: its headers or its idle time too
    /// long; with the reason. Wakes at least every `header_timeout` to look.
    async fn overdue(&self, limits: &ConnectionLimits) -> &'static str {
        let step = limits.header_timeout.min(limits.idle_timeout);
        loop {
            let now = now_ms();
            let wait = if self.is_answering() {
                step
            } else {
                let (limit, reason) = if self.reading.load(Ordering::Acquire) {
                    (limits.header_timeout, "its request's headers took too long")
                } else {
                    (limits.idle_timeout, "it was idle too long")
                };
                let deadline = self
                    .since_ms
                    .load(Ordering::Acquire)
                    .saturating_add(limit.as_millis() as u64);
                if now >= deadline {
                    return reason;
                }
                Duration::from_millis(deadline - now).min(step)
            };
            tokio::time::sleep(wait).await;
        }
    }
}

/// A request under way on a connection, from its headers until its answer is written (or
/// dropped).
struct Answering(Arc<Activity>);

impl Answering {
    fn start(activity: Arc<Activity>) -> Answering {
        activity.answering.fetch_add(1, Ordering::AcqRel);
        activity.reading.store(false, Ordering::Release);
        Answering(activity)
    }
}

impl Drop for Answering {
    fn drop(&mut self) {
        if self.0.answering.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.since_ms.store(now_ms(), Ordering::Release);
        }
    }
}

/// A connection's stream, noting when the bytes of a new request start to arrive.
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        let activity = &self.activity;
        if buf.filled().len() > before
            && !activity.is_answering()
            && !activity.reading.load(Ordering::Acquire)
        {
            activity.since_ms.store(now_ms(), Ordering::Release);
            activity.reading.store(true, Ordering::Release);
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// The open connections, for the limit and for eviction.
struct Open {
    max: usize,
    next: AtomicU64,
    connections: Mutex<HashMap<u64, Arc<Activity>>>,
    emptied: Notify,
}

impl Open {
    fn new(max: usize) -> Open {
        Open {
            max: max.max(1),
            next: AtomicU64::new(0),
            connections: Mutex::new(HashMap::new()),
            emptied: Notify::new(),
        }
    }

    /// A place for a new connection: a free one, or the one of the connection waiting longest
    /// without a request under way; `None` when every open connection is answering.
    fn admit(self: &Arc<Self>) -> Option<Admitted> {
        let mut connections = self.lock();
        if connections.len() >= self.max {
            let (&oldest, _) = connections
                .iter()
                .filter(|(_, activity)| !activity.is_answering())
                .min_by_key(|(_, activity)| activity.since_ms.load(Ordering::Acquire))?;
            if let Some(evicted) = connections.remove(&oldest) {
                evicted.evicted.cancel();
            }
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let activity = Arc::new(Activity::new());
        connections.insert(id, activity.clone());
        Some(Admitted {
            id,
            activity,
            open: self.clone(),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Activity>>> {
        self.connections
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Resolves once no connection is open.
    async fn closed(&self) {
        loop {
            let emptied = self.emptied.notified();
            let mut emptied = std::pin::pin!(emptied);
            emptied.as_mut().enable();
            if self.lock().is_empty() {
                return;
            }
            emptied.await;
        }
    }
}

/// An open connection's place; freed when the connection's task ends.
struct Admitted {
    id: u64,
    activity: Arc<Activity>,
    open: Arc<Open>,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut connections = self.open.lock();
        connections.remove(&self.id);
        if connections.is_empty() {
            self.open.emptied.notify_waiters();
        }
    }
}

/// A request body that must arrive by a deadline; past it, reading fails with
/// [`BodyTimeout`].
pub(super) struct Deadline {
    body: Incoming,
    deadline: Instant,
    timeout: Duration,
    /// Made at the first read that has to wait.
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl Deadline {
    fn new(body: Incoming, timeout: Duration) -> Deadline {
        Deadline {
            body,
            deadline: Instant::now() + timeout,
            timeout,
            sleep: None,
        }
    }
}

impl Body for Deadline {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        if let Poll::Ready(frame) = Pin::new(&mut this.body).poll_frame(cx) {
            return Poll::Ready(frame.map(|frame| frame.map_err(Into::into)));
        }
        let deadline = this.deadline;
        let sleep = this
            .sleep
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline.into())));
        match sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err(Box::new(BodyTimeout(this.timeout))))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// A request body that did not arrive within the body timeout.
#[derive(Debug)]
pub(super) struct BodyTimeout(pub(super) Duration);

impl std::fmt::Display for BodyTimeout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the request body did not arrive within {} s of its headers",
            self.0.as_secs_f64()
        )
    }
}

impl std::error::Error for BodyTimeout {}

/// An answer's body, holding its request's [`Answering`] until hyper has written it or
/// dropped it.
struct Tracked {
    body: axum::body::Body,
    _answering: Answering,
}

impl Body for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::{Activity, Open};
    use std::sync::Arc;
    use std::sync::atomic::Ordering;

    #[test]
    fn a_new_connection_beyond_the_limit_takes_the_place_of_the_longest_waiting() {
        let open = Arc::new(Open::new(2));
        let first = open.admit().unwrap();
        let second = open.admit().unwrap();
        first.activity.since_ms.store(1, Ordering::Release);
        second.activity.since_ms.store(2, Ordering::Release);
        let third = open.admit().expect("the first connection's place");
        assert!(first.activity.evicted.is_cancelled());
        assert!(!second.activity.evicted.is_cancelled());
        // A connection answering a request is never evicted: with both answering, none is.
        let _answering = (
            super::Answering::start(second.activity.clone()),
            super::Answering::start(third.activity.clone()),
        );
        assert!(open.admit().is_none());
        drop(first);
        assert_eq!(open.lock().len(), 2);
    }

    #[test]
    fn a_request_under_way_holds_its_connection_until_its_answer_is_done() {
        let activity = Arc::new(Activity::new());
        activity.reading.store(true, Ordering::Release);
        let answering = super::Answering::start(activity.clone());
        assert!(activity.is_answering());
        assert!(!activity.reading.load(Ordering::Acquire));
        activity.since_ms.store(0, Ordering::Release);
        drop(answering);
        assert!(!activity.is_answering());
        assert!(activity.since_ms.load(Ordering::Acquire) >= super::now_ms().saturating_sub(1));
    }
}
