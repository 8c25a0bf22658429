//! Locking that outlives a panicking holder.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, whatever a panicking holder left: the state behind the engine's locks
/// (caches, connection watches) stays usable after a call panicked while holding one.
#[cfg_attr(not(feature = "engine"), allow(dead_code))]
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs `work`, CPU-bound or blocking work of a database tool's handler (embedding a query,
/// clustering a graph, scanning vectors in memory), without holding up the other tasks of the
/// runtime it is polled on: on a runtime of several worker threads, the worker hands its other
/// tasks to the rest first ([`tokio::task::block_in_place`]); elsewhere (tokio's blocking pool,
/// where SQLite's handlers run; a runtime of one thread; no runtime) it simply runs.
#[cfg_attr(not(feature = "engine"), allow(dead_code))]
pub(crate) fn compute<T>(work: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(work)
        }
        _ => work(),
    }
}
