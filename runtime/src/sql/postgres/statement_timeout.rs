//! `statement_timeout` on read connections, sent only when it must change: a `SET` is a
//! statement the server parses and runs, as much work on a lookup by id as the lookup itself.
//!
//! A `SET` outlives the call that sent it (the connection goes back to the pool with it), so
//! [`Timeouts`] remembers what each connection was last given; a call whose own limit (what is
//! left of its deadline) is close to it sends nothing. Close means at most 1/64 shorter (the
//! server stops a statement that early at worst) and at most 1/16 longer (the call's deadline
//! cancels the statement from the client at its time in any case, `PgDatabase::cancel`; the
//! server's own limit is the guard when that request is lost). Calls of a server mostly start
//! with the same deadline, so most send nothing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use deadpool_postgres::{ClientWrapper, Object};

use crate::sync::lock;

/// The `statement_timeout` (ms, 0 for none) each live read connection was last given.
#[derive(Debug, Default)]
pub(crate) struct Timeouts {
    given: Mutex<HashMap<usize, u64>>,
}

/// How many connections' settings are remembered at most before the memory starts afresh
/// (connections come and go; forgetting only costs each a `SET`).
const REMEMBERED: usize = 4_096;

/// A connection's identity while it lives: its statement cache, one `Arc` per connection.
fn key(client: &ClientWrapper) -> usize {
    Arc::as_ptr(&client.statement_cache) as usize
}

impl Timeouts {
    /// Forgets what `client` was given: it is new (its identity may be a closed one's).
    pub(crate) fn forget(&self, client: &ClientWrapper) {
        lock(&self.given).remove(&key(client));
    }
}

/// One call's `statement_timeout`, to be given to the connection its first statement runs on.
pub(crate) struct StatementTimeout {
    pub(crate) millis: u64,
    pub(crate) known: Arc<Timeouts>,
}

impl StatementTimeout {
    /// The `SET` to send before the call's first statement on `client`, if its setting is not
    /// close enough to the call's.
    pub(crate) fn statement(&self, client: &Object) -> Option<String> {
        let given = lock(&self.known.given).get(&key(client)).copied();
        (!given.is_some_and(|given| close_enough(given, self.millis)))
            .then(|| format!("SET statement_timeout = {}", self.millis))
    }

    /// Remembers that `client` now has this call's setting (after the `SET` ran).
    pub(crate) fn given(&self, client: &Object) {
        let mut given = lock(&self.known.given);
        if given.len() >= REMEMBERED {
            given.clear();
        }
        given.insert(key(client), self.millis);
    }
}

/// Whether a connection whose `statement_timeout` is `given` may run a call limited to
/// `wanted` (both in ms, 0 for no limit) without a `SET`.
fn close_enough(given: u64, wanted: u64) -> bool {
    if given == 0 || wanted == 0 {
        return given == wanted;
    }
    given >= wanted - wanted / 64 && given <= wanted + wanted / 16
}

#[cfg(test)]
mod tests {
    use super::close_enough;

    #[test]
    fn a_setting_close_to_the_calls_is_kept() {
        assert!(close_enough(30_000, 30_000));
        assert!(close_enough(29_998, 30_000), "a few ms early");
        assert!(close_enough(30_000, 29_990), "a few ms late");
        assert!(close_enough(31_800, 30_000), "1/16 late at most");
        assert!(!close_enough(32_000, 30_000));
        assert!(!close_enough(29_000, 30_000), "1/64 early at most");
        assert!(!close_enough(30_000, 1_000), "a call with little time left");
        assert!(close_enough(0, 0), "no limit, no limit");
        assert!(!close_enough(0, 30_000));
        assert!(!close_enough(30_000, 0));
        assert!(close_enough(1, 1));
    }
}
