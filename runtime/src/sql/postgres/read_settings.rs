//! What a read connection is given before a call's first statement, sent only when it must
//! change: a `SET` is a statement the server parses and runs, as much work on a lookup by id as
//! the lookup itself.
//!
//! - **`statement_timeout`**: what is left of the call's deadline. A call whose own limit is
//!   close to the connection's sends nothing. Close means at most 1/64 shorter (the server
//!   stops a statement that early at worst) and at most 1/16 longer (the call's deadline
//!   cancels the statement from the client at its time in any case, `PgDatabase::cancel`; the
//!   server's own limit is the guard when that request is lost). Calls of a server mostly
//!   start with the same deadline, so most send nothing.
//! - **Parallel workers** ([`Parallel`]): by default a read may use PostgreSQL's parallel
//!   workers (its own settings apply) while the server is quiet, and is given
//!   `max_parallel_workers_per_gather = 0` while it is busy: from a read that starts while
//!   another of this server runs until a second after the last such start. Under concurrent
//!   calls the cores are busy already: workers only add their start-up and the gathering, and
//!   a scan in one process answers more calls a second (the same statement at 16 clients on
//!   2 cores: about 32 against 25 a second, see `docs/BENCHMARKS.md`). The second of grace
//!   keeps short reads, which leave gaps between them even under load, from switching their
//!   connection's setting back and forth: a steady load sends nothing.
//!
//! A `SET` outlives the call that sent it (the connection goes back to the pool with it), so
//! [`Given`] remembers what each connection was last given.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use deadpool_postgres::{ClientWrapper, Object};

use crate::sync::lock;

/// When a read may use PostgreSQL's parallel workers: `?parallel=quiet|always|never` in the
/// database URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Parallel {
    /// While the server is quiet: no read of it has started beside another for a second (the
    /// default).
    #[default]
    Quiet,
    /// Always: PostgreSQL's own settings decide.
    Always,
    /// Never: every read runs in one process.
    Never,
}

impl Parallel {
    /// The value of `parallel=` in a URL.
    pub(crate) fn parse(value: &str) -> Option<Parallel> {
        match value {
            "quiet" => Some(Parallel::Quiet),
            "always" => Some(Parallel::Always),
            "never" => Some(Parallel::Never),
            _ => None,
        }
    }

    /// Whether a read starting while the server is `busy` goes without parallel workers
    /// (`Some(true)`), is given the server's setting back (`Some(false)`), or leaves the
    /// connection's as it is (`None`).
    fn serial(self, busy: bool) -> Option<bool> {
        match self {
            Parallel::Quiet => Some(busy),
            Parallel::Always => None,
            Parallel::Never => Some(true),
        }
    }
}

/// What one live connection was last given.
#[derive(Debug, Clone, Copy, Default)]
struct Settings {
    /// `statement_timeout` in ms (0 for none); `None` until a call gave one.
    timeout: Option<u64>,
    /// Whether `max_parallel_workers_per_gather` was set to 0 (`true`) or reset to the
    /// server's (`false`); `None` until a call gave either.
    serial: Option<bool>,
}

/// What each live read connection was last given, how many reads run, and until when the
/// server counts as busy.
#[derive(Debug)]
pub(crate) struct Given {
    settings: Mutex<HashMap<usize, Settings>>,
    running: AtomicUsize,
    /// Until when (ms after `epoch`) the server counts as busy.
    busy_until: AtomicU64,
    epoch: Instant,
}

impl Default for Given {
    fn default() -> Self {
        Given {
            settings: Mutex::default(),
            running: AtomicUsize::new(0),
            busy_until: AtomicU64::new(0),
            epoch: Instant::now(),
        }
    }
}

/// How long (ms) the server counts as busy after a read started beside another.
const BUSY_FOR: u64 = 1_000;

/// How many connections' settings are remembered at most before the memory starts afresh
/// (connections come and go; forgetting only costs each a `SET`).
const REMEMBERED: usize = 4_096;

/// A connection's identity while it lives: its statement cache, one `Arc` per connection.
fn key(client: &ClientWrapper) -> usize {
    Arc::as_ptr(&client.statement_cache) as usize
}

impl Given {
    /// Forgets what `client` was given: it is new (its identity may be a closed one's).
    pub(crate) fn forget(&self, client: &ClientWrapper) {
        lock(&self.settings).remove(&key(client));
    }

    /// A read starting now, counted until the returned guard is dropped, and the settings it
    /// wants: `millis` of `statement_timeout` (0 for none) and parallel workers as `parallel`
    /// allows with the reads already running.
    pub(crate) fn start(
        self: &Arc<Given>,
        millis: u64,
        parallel: Parallel,
    ) -> (Running<'_>, ReadSettings) {
        let now = self.epoch.elapsed().as_millis() as u64;
        let (running, busy) = self.start_at(now);
        let settings = ReadSettings {
            millis,
            serial: parallel.serial(busy),
            known: self.clone(),
        };
        (running, settings)
    }

    /// A read starting at `now` (ms after `epoch`), and whether the server is busy then.
    fn start_at(&self, now: u64) -> (Running<'_>, bool) {
        let others = self.running.fetch_add(1, Ordering::Relaxed);
        let running = Running(self);
        let busy = if others > 0 {
            self.busy_until.fetch_max(now + BUSY_FOR, Ordering::Relaxed);
            true
        } else {
            now < self.busy_until.load(Ordering::Relaxed)
        };
        (running, busy)
    }
}

/// A read being counted as running.
pub(crate) struct Running<'g>(&'g Given);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::Relaxed);
    }
}

/// One call's settings, to be given to the connection its first statement runs on.
pub(crate) struct ReadSettings {
    millis: u64,
    serial: Option<bool>,
    known: Arc<Given>,
}

/// The `SET`s a connection needs before a call's first statement, and what it has after them.
pub(crate) struct Change {
    pub(crate) statements: String,
    after: Settings,
}

impl ReadSettings {
    /// What to send before the call's first statement on `client`, if its settings are not
    /// close enough to the call's.
    pub(crate) fn change(&self, client: &Object) -> Option<Change> {
        let given = lock(&self.known.settings)
            .get(&key(client))
            .copied()
            .unwrap_or_default();
        self.change_from(given)
    }

    /// What to send to a connection that was given `given`.
    fn change_from(&self, given: Settings) -> Option<Change> {
        let mut statements = Vec::new();
        let mut after = given;
        if !given
            .timeout
            .is_some_and(|given| close_enough(given, self.millis))
        {
            statements.push(format!("SET statement_timeout = {}", self.millis));
            after.timeout = Some(self.millis);
        }
        if let Some(serial) = self.serial
            && given.serial != Some(serial)
        {
            statements.push(
                if serial {
                    "SET max_parallel_workers_per_gather = 0"
                } else {
                    "RESET max_parallel_workers_per_gather"
                }
                .to_owned(),
            );
            after.serial = Some(serial);
        }
        (!statements.is_empty()).then(|| Change {
            statements: statements.join("; "),
            after,
        })
    }

    /// Remembers that `client` now has what `change` gave it (after it ran).
    pub(crate) fn given(&self, client: &Object, change: &Change) {
        let mut settings = lock(&self.known.settings);
        if settings.len() >= REMEMBERED {
            settings.clear();
        }
        settings.insert(key(client), change.after);
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
    use std::sync::Arc;

    use super::{BUSY_FOR, Given, Parallel, ReadSettings, Settings, close_enough};

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

    #[test]
    fn the_server_is_busy_from_an_overlap_until_a_quiet_second() {
        let given = Arc::new(Given::default());
        let (first, busy) = given.start_at(10);
        assert!(!busy, "a read alone");
        let (second, busy) = given.start_at(20);
        assert!(busy, "a read beside another");
        drop((first, second));
        assert!(
            given.start_at(20 + BUSY_FOR - 1).1,
            "alone, within the second"
        );
        assert!(
            !given.start_at(20 + BUSY_FOR).1,
            "alone, after a quiet second"
        );
    }

    #[test]
    fn parallel_workers_go_to_reads_of_a_quiet_server_by_default() {
        assert_eq!(Parallel::default().serial(false), Some(false));
        assert_eq!(Parallel::default().serial(true), Some(true));
        assert_eq!(Parallel::Always.serial(true), None, "left as it is");
        assert_eq!(Parallel::Never.serial(false), Some(true));
        assert_eq!(Parallel::parse("quiet"), Some(Parallel::Quiet));
        assert_eq!(Parallel::parse("never"), Some(Parallel::Never));
        assert_eq!(Parallel::parse("sometimes"), None);
    }

    #[test]
    fn a_connection_is_sent_only_what_it_lacks() {
        let known = Arc::new(Given::default());
        let read = |serial| ReadSettings {
            millis: 30_000,
            serial,
            known: known.clone(),
        };
        let sent = |read: ReadSettings, given| read.change_from(given).map(|c| c.statements);
        assert_eq!(
            sent(read(Some(true)), Settings::default()),
            Some("SET statement_timeout = 30000; SET max_parallel_workers_per_gather = 0".into()),
            "a new connection is told both"
        );
        let serial = read(Some(true))
            .change_from(Settings::default())
            .unwrap()
            .after;
        assert_eq!(
            sent(read(Some(true)), serial),
            None,
            "a steady load sends nothing"
        );
        assert_eq!(
            sent(read(None), serial),
            None,
            "`always` leaves the connection's"
        );
        assert_eq!(
            sent(read(Some(false)), serial),
            Some("RESET max_parallel_workers_per_gather".into()),
            "a quiet server's read gets the server's setting back"
        );
    }
}
