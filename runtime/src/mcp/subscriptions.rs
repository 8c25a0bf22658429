//! Resource subscriptions: `resources/subscribe` (2025-11-25 sessions) and the
//! `resourceSubscriptions` of `subscriptions/listen` (2026-07-28). A watcher task re-reads
//! each watched resource for its subscriber (under the subscriber's rules) every
//! [`McpOptions::watch_interval`](super::McpOptions::watch_interval) and sends
//! `notifications/resources/updated` when its content changed, as an import does; it runs only
//! while something is watched, and at most [`MAX_WATCHES`] resources are watched per server.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::{Peer, RoleServer, SubscriptionSink};

use super::offers::{self, Caller};
use super::served::Served;
use crate::{ContextValues, ToolGate};

/// What the watcher reads through: what the server serves now (`None` once it is gone).
pub(super) type Current = Arc<dyn Fn() -> Option<Arc<Served>> + Send + Sync>;

/// The most resources one server watches at once.
pub(super) const MAX_WATCHES: usize = 1000;

/// Who is told of a change.
#[derive(Clone)]
pub(super) enum Subscriber {
    /// A 2025-11-25 session, by its id ("" for stdio).
    Session(String, Peer<RoleServer>),
    /// A `subscriptions/listen` stream, by its request id.
    Listener(String, SubscriptionSink),
}

impl Subscriber {
    fn key(&self) -> &str {
        match self {
            Subscriber::Session(key, _) | Subscriber::Listener(key, _) => key,
        }
    }

    fn closed(&self) -> bool {
        match self {
            Subscriber::Session(_, peer) => peer.is_transport_closed(),
            Subscriber::Listener(..) => false,
        }
    }

    /// Sends the notification; false when the subscriber is gone.
    async fn notify(&self, uri: &str) -> bool {
        match self {
            Subscriber::Session(_, peer) => peer
                .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                .await
                .is_ok(),
            Subscriber::Listener(_, sink) => sink.notify_resource_updated(uri).await.is_ok(),
        }
    }
}

/// One watched resource.
#[derive(Clone)]
pub(super) struct Watch {
    pub(super) uri: String,
    pub(super) subscriber: Subscriber,
    pub(super) values: ContextValues,
    pub(super) gate: Option<ToolGate>,
    /// A hash of the content last seen (`None`: it could not be read).
    pub(super) seen: Option<u64>,
}

/// The hash of what `uri` reads as for a subscriber with `values` and `gate` now.
pub(super) async fn fingerprint(
    served: &Served,
    uri: &str,
    values: &ContextValues,
    gate: Option<&ToolGate>,
) -> Option<u64> {
    let offers = served.offers.as_ref()?;
    let caller = Caller {
        registry: &served.registry,
        values,
        gate,
    };
    let read = offers::read_resource(offers, &caller, uri).await.ok()?;
    let mut hasher = DefaultHasher::new();
    for content in &read.contents {
        serde_json::to_string(content).ok()?.hash(&mut hasher);
    }
    Some(hasher.finish())
}

/// The watched resources of one server, and whether its watcher runs.
#[derive(Default)]
pub(super) struct Watches {
    list: Mutex<Vec<Watch>>,
    running: AtomicBool,
}

impl Watches {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Watch>> {
        self.list
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Adds a watch, starting the watcher (reading through `current` every `interval`) when
    /// it is not running; `Err` when the server watches as many resources as it may.
    pub(super) fn watch(
        self: &Arc<Self>,
        watch: Watch,
        current: Current,
        interval: Duration,
    ) -> Result<(), String> {
        {
            let mut watches = self.lock();
            watches
                .retain(|w| !(w.uri == watch.uri && w.subscriber.key() == watch.subscriber.key()));
            if watches.len() >= MAX_WATCHES {
                return Err(format!(
                    "the server watches {MAX_WATCHES} resources, as many as it may; unsubscribe \
                     from one first"
                ));
            }
            watches.push(watch);
        }
        if !self.running.swap(true, Ordering::SeqCst) {
            tokio::spawn(run(Arc::downgrade(self), current, interval));
        }
        Ok(())
    }

    /// Removes the watches of `key` (on `uri`, or all of them).
    pub(super) fn unwatch(&self, key: &str, uri: Option<&str>) {
        self.lock()
            .retain(|w| !(w.subscriber.key() == key && uri.is_none_or(|uri| w.uri == uri)));
    }
}

/// The watcher: every interval, each watch re-read and compared; it ends when nothing is
/// watched or the server is gone.
async fn run(watches: Weak<Watches>, current: Current, interval: Duration) {
    loop {
        let Some(strong) = watches.upgrade() else {
            return;
        };
        let Some(served) = current() else {
            strong.running.store(false, Ordering::SeqCst);
            return;
        };
        let pending: Vec<Watch> = {
            let mut list = strong.lock();
            list.retain(|w| !w.subscriber.closed());
            if list.is_empty() {
                strong.running.store(false, Ordering::SeqCst);
                return;
            }
            list.clone()
        };
        for watch in pending {
            let (uri, key) = (&watch.uri, watch.subscriber.key());
            let now = fingerprint(&served, uri, &watch.values, watch.gate.as_ref()).await;
            if now == watch.seen {
                continue;
            }
            let subscriber = {
                let mut list = strong.lock();
                let Some(watch) = list
                    .iter_mut()
                    .find(|w| w.uri == *uri && w.subscriber.key() == key)
                else {
                    continue;
                };
                watch.seen = now;
                watch.subscriber.clone()
            };
            if !subscriber.notify(uri).await {
                strong.unwatch(key, None);
            }
        }
        drop((strong, served));
        tokio::time::sleep(interval).await;
    }
}
