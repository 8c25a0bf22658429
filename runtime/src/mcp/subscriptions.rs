//! Resource subscriptions: `resources/subscribe` (2025-11-25 sessions) and the
//! `resourceSubscriptions` of `subscriptions/listen` (2026-07-28). A watcher task re-reads
//! each watched resource for its subscriber (under the subscriber's rules) every
//! [`McpOptions::watch_interval`](super::McpOptions::watch_interval) and sends
//! `notifications/resources/updated` when its content changed, as an import does; it runs only
//! while something is watched, and at most [`MAX_WATCHES`] resources are watched per server.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Weak};

use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::{Peer, RoleServer, SubscriptionSink};

use super::offers::{self, Caller};
use super::server::Shared;
use crate::{ContextValues, ToolGate};

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

/// The hash of what `uri` reads as for the watch's subscriber now.
pub(super) async fn fingerprint(
    shared: &Shared,
    uri: &str,
    values: &ContextValues,
    gate: Option<&ToolGate>,
) -> Option<u64> {
    let served = shared.current();
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

/// Adds a watch, starting the watcher when it is not running; `Err` when the server watches
/// as many resources as it may.
pub(super) fn watch(shared: &Arc<Shared>, watch: Watch) -> Result<(), String> {
    {
        let mut watches = shared.lock_watches();
        watches.retain(|w| !(w.uri == watch.uri && w.subscriber.key() == watch.subscriber.key()));
        if watches.len() >= MAX_WATCHES {
            return Err(format!(
                "the server watches {MAX_WATCHES} resources, as many as it may; unsubscribe from \
                 one first"
            ));
        }
        watches.push(watch);
    }
    if !shared
        .watcher_running
        .swap(true, std::sync::atomic::Ordering::SeqCst)
    {
        tokio::spawn(run(Arc::downgrade(shared)));
    }
    Ok(())
}

/// Removes the watches of `key` (on `uri`, or all of them).
pub(super) fn unwatch(shared: &Shared, key: &str, uri: Option<&str>) {
    shared
        .lock_watches()
        .retain(|w| !(w.subscriber.key() == key && uri.is_none_or(|uri| w.uri == uri)));
}

/// The watcher: every interval, each watch re-read and compared; it ends when nothing is
/// watched or the server is gone.
async fn run(shared: Weak<Shared>) {
    loop {
        let Some(strong) = shared.upgrade() else {
            return;
        };
        let interval = strong.settings.options.watch_interval;
        let pending: Vec<Watch> = {
            let mut watches = strong.lock_watches();
            watches.retain(|w| !w.subscriber.closed());
            if watches.is_empty() {
                strong
                    .watcher_running
                    .store(false, std::sync::atomic::Ordering::SeqCst);
                return;
            }
            watches.clone()
        };
        for watch in pending {
            let (uri, key) = (&watch.uri, watch.subscriber.key());
            let now = fingerprint(&strong, uri, &watch.values, watch.gate.as_ref()).await;
            if now == watch.seen {
                continue;
            }
            let subscriber = {
                let mut watches = strong.lock_watches();
                let Some(watch) = watches
                    .iter_mut()
                    .find(|w| w.uri == *uri && w.subscriber.key() == key)
                else {
                    continue;
                };
                watch.seen = now;
                watch.subscriber.clone()
            };
            if !subscriber.notify(uri).await {
                unwatch(&strong, key, None);
            }
        }
        drop(strong);
        tokio::time::sleep(interval).await;
    }
}
