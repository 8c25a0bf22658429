//! A SQLite connection as the engine reads and writes through it.

use crate::sql::backend::{ExecError, NamedRows, Reader, Refusal, SqlDialect, Writer};
use crate::sql::value::SqlValue;

impl Reader for rusqlite::Connection {
    fn dialect(&self) -> SqlDialect {
        SqlDialect::Sqlite
    }

    fn temporary_objects(&self, statements: &[String]) -> Result<(), ExecError> {
        self.pragma_update(None, "query_only", false)?;
        let created = statements
            .iter()
            .try_for_each(|statement| self.execute_batch(statement));
        self.pragma_update(None, "query_only", true)?;
        created.map_err(ExecError::from)
    }

    fn trusted_rows(
        &self,
        sql: &str,
        params: &[SqlValue],
        offset: u64,
        take: u64,
    ) -> Result<Result<NamedRows, Refusal>, ExecError> {
        crate::sql::sqlite::trusted::sqlite_rows(self, sql, params, offset, take)
    }

    fn rows(&self, sql: &str, params: &[SqlValue]) -> Result<Vec<Vec<SqlValue>>, ExecError> {
        let _span = crate::trace::statement("sqlite", sql);
        let mut statement = self.prepare_cached(sql)?;
        let width = statement.column_count();
        let mut rows = statement.query(rusqlite::params_from_iter(params.iter()))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            let mut values = Vec::with_capacity(width);
            for i in 0..width {
                values.push(row.get::<_, SqlValue>(i)?);
            }
            out.push(values);
        }
        Ok(out)
    }
}

impl Writer for rusqlite::Connection {
    fn execute(&self, sql: &str, params: Vec<SqlValue>) -> Result<u64, ExecError> {
        let _span = crate::trace::statement("sqlite", sql);
        let mut statement = self.prepare_cached(sql)?;
        Ok(statement.execute(rusqlite::params_from_iter(params.iter()))? as u64)
    }
}
