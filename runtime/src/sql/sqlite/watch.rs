//! What a SQLite read connection's progress handler and functions watch: the deadline of the
//! call using it, whether that call's caller went away, and the call's context values.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// What a reader's progress handler and functions watch: the deadline of the call using the
/// connection, and whether that call's caller went away.
#[derive(Debug, Default)]
pub(crate) struct Watch {
    pub(crate) deadline: Mutex<Option<Instant>>,
    pub(crate) abandoned: AtomicBool,
    /// The context values of the call using the connection (what row rules read).
    pub(crate) values: Mutex<crate::ContextValues>,
}

impl Watch {
    pub(crate) fn should_stop(&self) -> bool {
        self.abandoned.load(Ordering::Relaxed)
            || lock(&self.deadline).is_some_and(|deadline| Instant::now() >= deadline)
    }

    pub(crate) fn arm(&self, deadline: Option<Instant>, values: crate::ContextValues) {
        *lock(&self.deadline) = deadline;
        *lock(&self.values) = values;
        self.abandoned.store(false, Ordering::Relaxed);
    }
}

pub(crate) use crate::sync::lock;
