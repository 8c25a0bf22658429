//! A synchronous handler run on an async runtime without blocking it ([`Replay`]): the handler
//! runs from its start again each time one more of its statements has been answered.
//!
//! A run sees a [`Replay`] as its reader. Each statement the run asks for is either in the
//! log, answered on the way to an earlier run (the same answer is served again), or the first
//! one not answered yet: that one is noted as wanted, and every statement from there on fails
//! with [`ExecError::Stopped`], so the run ends early and its result is thrown away. The
//! caller then awaits the wanted statement on its own runtime, adds it to the log, and runs
//! the handler again. The run that asks for nothing new is the call's answer.
//!
//! This is sound for a handler whose statements and answer depend only on its arguments and
//! on what its statements answered, and whose work is light: the engine's list and lookup
//! tools (see `EngineTool::ON_RUNTIME`). A run that asks for something other than what the log
//! holds at its place has diverged; the caller then goes on with a live reader
//! ([`Replay::continuing`]) on a blocking thread, as it does after `MAX_REPLAYS` statements.
//! Statements are reads, so one run twice costs only time.

use std::cell::{Cell, RefCell};

use crate::sql::backend::{ExecError, NamedRows, Reader, Refusal, SqlDialect};
use crate::sql::value::SqlValue;

/// One statement a handler asked its reader for, as a replay answers it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Op {
    /// [`Reader::rows`].
    Rows { sql: String, params: Vec<SqlValue> },
    /// [`Reader::temporary_objects`] (answered with no rows).
    TemporaryObjects(Vec<String>),
}

impl Op {
    /// Whether this is `rows(sql, params)`, compared without a copy.
    fn is_rows(&self, sql: &str, params: &[SqlValue]) -> bool {
        matches!(self, Op::Rows { sql: s, params: p } if s == sql && p.as_slice() == params)
    }

    /// Whether this is `temporary_objects(statements)`.
    fn is_objects(&self, statements: &[String]) -> bool {
        matches!(self, Op::TemporaryObjects(s) if s.as_slice() == statements)
    }
}

/// What an [`Op`] answered: its rows (none for [`Op::TemporaryObjects`]).
pub(crate) type Rows = Vec<Vec<SqlValue>>;

/// The ops answered so far, in the order the handler asked for them.
pub(crate) type Log = Vec<(Op, Rows)>;

/// How a run of the handler ended.
#[derive(Debug)]
pub(crate) enum Next {
    /// It asked for nothing the log lacks: its result is the answer.
    Answered,
    /// It asked for this op, the first one the log lacks.
    Wants(Op),
    /// It asked for something other than what the log holds at that place, or for what a
    /// replay does not answer (a declared tool's statement, session settings).
    Diverged,
}

/// The reader a run of the handler sees (see the module's documentation).
pub(crate) struct Replay<'l> {
    dialect: SqlDialect,
    log: &'l [(Op, Rows)],
    /// Where ops the log lacks run, once runs no longer stop at them.
    live: Option<&'l dyn Reader>,
    next: Cell<usize>,
    wanted: RefCell<Option<Op>>,
    diverged: Cell<bool>,
    /// The op after the log's last that failed on the way here, and its error, told once.
    failed: RefCell<Option<(Op, ExecError)>>,
    told: Cell<bool>,
}

impl<'l> Replay<'l> {
    /// A run served from `log` that stops at the first op the log lacks; `failed`, the op
    /// that came after the log's last and the error it failed with, is told as that error.
    pub(crate) fn new(
        dialect: SqlDialect,
        log: &'l [(Op, Rows)],
        failed: Option<(Op, ExecError)>,
    ) -> Self {
        Replay {
            dialect,
            log,
            live: None,
            next: Cell::new(0),
            wanted: RefCell::new(None),
            diverged: Cell::new(false),
            failed: RefCell::new(failed),
            told: Cell::new(false),
        }
    }

    /// A run served from `log` while it holds what the run asks for, then from `live`.
    pub(crate) fn continuing(log: &'l [(Op, Rows)], live: &'l dyn Reader) -> Self {
        Replay {
            live: Some(live),
            ..Replay::new(live.dialect(), log, None)
        }
    }

    /// Whether the run was told the failure it was given.
    pub(crate) fn told_failure(&self) -> bool {
        self.told.get()
    }

    /// How the run ended.
    pub(crate) fn next(self) -> Next {
        if self.diverged.get() {
            return Next::Diverged;
        }
        match self.wanted.into_inner() {
            Some(op) => Next::Wants(op),
            None => Next::Answered,
        }
    }

    /// The logged answer of the run's next op (the one `same` recognises, made by `op` only
    /// when the log lacks it), or `None` when it is for `live` to answer.
    fn served(
        &self,
        same: impl Fn(&Op) -> bool,
        op: impl FnOnce() -> Op,
    ) -> Result<Option<&'l Rows>, ExecError> {
        if self.wanted.borrow().is_some() {
            return Err(ExecError::Stopped);
        }
        let place = self.next.get();
        if self.diverged.get() || place >= self.log.len() {
            if self.live.is_some() {
                return Ok(None);
            }
            let failed = self.failed.borrow_mut().take();
            match failed {
                Some((failed, error)) if !self.diverged.get() && same(&failed) => {
                    self.told.set(true);
                    self.next.set(place + 1);
                    return Err(error);
                }
                _ => *self.wanted.borrow_mut() = Some(op()),
            }
            return Err(ExecError::Stopped);
        }
        let (done, rows) = &self.log[place];
        if !same(done) {
            self.diverged.set(true);
            return match self.live {
                Some(_) => Ok(None),
                None => Err(ExecError::Stopped),
            };
        }
        self.next.set(place + 1);
        Ok(Some(rows))
    }

    /// The live reader, for what a replay does not answer; without one, the run diverges.
    fn unreplayed(&self) -> Result<&'l dyn Reader, ExecError> {
        if self.wanted.borrow().is_some() {
            return Err(ExecError::Stopped);
        }
        self.live.ok_or_else(|| {
            self.diverged.set(true);
            ExecError::Stopped
        })
    }

    fn live(&self) -> Result<&'l dyn Reader, ExecError> {
        self.live.ok_or(ExecError::Stopped)
    }
}

impl Reader for Replay<'_> {
    fn dialect(&self) -> SqlDialect {
        self.dialect
    }

    fn rows(&self, sql: &str, params: &[SqlValue]) -> Result<Vec<Vec<SqlValue>>, ExecError> {
        let op = || Op::Rows {
            sql: sql.to_owned(),
            params: params.to_vec(),
        };
        match self.served(|done| done.is_rows(sql, params), op)? {
            Some(rows) => Ok(rows.clone()),
            None => self.live()?.rows(sql, params),
        }
    }

    fn temporary_objects(&self, statements: &[String]) -> Result<(), ExecError> {
        let op = || Op::TemporaryObjects(statements.to_vec());
        match self.served(|done| done.is_objects(statements), op)? {
            Some(_) => Ok(()),
            None => self.live()?.temporary_objects(statements),
        }
    }

    fn session_settings(&self, settings: &[(&str, &str)]) -> Result<(), ExecError> {
        self.unreplayed()?.session_settings(settings)
    }

    fn trusted_rows(
        &self,
        sql: &str,
        params: &[SqlValue],
        offset: u64,
        take: u64,
    ) -> Result<Result<NamedRows, Refusal>, ExecError> {
        self.unreplayed()?.trusted_rows(sql, params, offset, take)
    }
}

#[cfg(test)]
mod tests {
    use super::{Next, Op, Replay, Rows};
    use crate::sql::backend::{ExecError, Reader, SqlDialect};
    use crate::sql::value::SqlValue;

    /// A handler of two statements, the second built from the first's answer.
    fn handler(conn: &dyn Reader) -> Result<i64, ExecError> {
        let first = conn.rows("SELECT ?1", &[SqlValue::Integer(1)])?;
        let Some(SqlValue::Integer(n)) = first.first().and_then(|row| row.first()).cloned() else {
            return Ok(-1);
        };
        let second = conn.rows("SELECT ?1 + 1", &[SqlValue::Integer(n)])?;
        match second.first().and_then(|row| row.first()) {
            Some(SqlValue::Integer(m)) => Ok(*m),
            _ => Ok(-2),
        }
    }

    fn rows(n: i64) -> Rows {
        vec![vec![SqlValue::Integer(n)]]
    }

    #[test]
    fn each_run_asks_for_the_next_statement_until_one_answers() {
        let mut log = Vec::new();
        let replay = Replay::new(SqlDialect::Postgres, &log, None);
        assert!(handler(&replay).is_err());
        let Next::Wants(op) = replay.next() else {
            panic!("the first run wants its first statement")
        };
        assert_eq!(
            op,
            Op::Rows {
                sql: "SELECT ?1".into(),
                params: vec![SqlValue::Integer(1)]
            }
        );
        log.push((op, rows(41)));
        let replay = Replay::new(SqlDialect::Postgres, &log, None);
        assert!(handler(&replay).is_err());
        let Next::Wants(op) = replay.next() else {
            panic!("the second run wants its second statement")
        };
        assert_eq!(
            op,
            Op::Rows {
                sql: "SELECT ?1 + 1".into(),
                params: vec![SqlValue::Integer(41)]
            }
        );
        log.push((op, rows(42)));
        let replay = Replay::new(SqlDialect::Postgres, &log, None);
        assert_eq!(handler(&replay).unwrap(), 42);
        assert!(matches!(replay.next(), Next::Answered));
    }

    #[test]
    fn a_run_that_asks_for_something_else_has_diverged() {
        let log = vec![(
            Op::Rows {
                sql: "SELECT 2".into(),
                params: vec![],
            },
            rows(2),
        )];
        let replay = Replay::new(SqlDialect::Postgres, &log, None);
        assert!(handler(&replay).is_err());
        assert!(matches!(replay.next(), Next::Diverged));
    }

    #[test]
    fn a_failed_statement_is_told_to_the_run_that_asks_for_it() {
        let log = vec![(
            Op::Rows {
                sql: "SELECT ?1".into(),
                params: vec![SqlValue::Integer(1)],
            },
            rows(41),
        )];
        let failed = Op::Rows {
            sql: "SELECT ?1 + 1".into(),
            params: vec![SqlValue::Integer(41)],
        };
        let replay = Replay::new(
            SqlDialect::Postgres,
            &log,
            Some((failed, ExecError::Unavailable("down".into()))),
        );
        let error = handler(&replay).unwrap_err();
        assert!(
            matches!(error, ExecError::Unavailable(ref m) if m == "down"),
            "{error:?}"
        );
        assert!(replay.told_failure());
        assert!(matches!(replay.next(), Next::Answered));
    }

    #[test]
    fn what_a_replay_does_not_answer_diverges() {
        let log = Vec::new();
        let replay = Replay::new(SqlDialect::Postgres, &log, None);
        assert!(
            replay
                .session_settings(&[("hnsw.ef_search", "40")])
                .is_err()
        );
        assert!(matches!(replay.next(), Next::Diverged));
        let replay = Replay::new(SqlDialect::Postgres, &log, None);
        assert!(replay.trusted_rows("SELECT 1", &[], 0, 1).is_err());
        assert!(matches!(replay.next(), Next::Diverged));
    }

    #[test]
    fn a_statement_after_the_wanted_one_is_not_noted() {
        let log = Vec::new();
        let replay = Replay::new(SqlDialect::Sqlite, &log, None);
        // A handler that swallows the error and asks for something else.
        let _ = replay.rows("SELECT 1", &[]);
        let _ = replay.rows("SELECT 2", &[]);
        let Next::Wants(Op::Rows { sql, .. }) = replay.next() else {
            panic!("the first statement is the wanted one")
        };
        assert_eq!(sql, "SELECT 1");
    }
}
