//! Locking that outlives a panicking holder.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, whatever a panicking holder left: the state behind the engine's locks
/// (caches, connection watches) stays usable after a call panicked while holding one.
#[cfg_attr(not(feature = "sqlite"), allow(dead_code))]
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
