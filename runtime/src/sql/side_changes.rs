//! Change tracking over existing tables: what `toolforge db refresh` records for an entity
//! with `table:` and `change_tracking`.
//!
//! toolforge never writes the user's tables, so it cannot see their writes as they happen
//! (that would take triggers on them). It compares instead. The side store keeps, per
//! tracked entity, each record's tracked values as the last refresh saw them (the state
//! table `"<table>__tracked"`: the key, named and typed as the entity's, the content and the
//! metadata as JSON), beside the change log [`CHANGES_TABLE`] every change tool reads. Each
//! refresh reads the rows as they are now, a page at a time in key order, joined with what
//! it saw last:
//!
//! - a record it did not see before is `created`, one whose values differ is `updated`, and
//!   one it saw that is gone is `deleted`: one change each, with the diff, the metadata before
//!   and after and the content, as imports record them (`changes.rs`), stamped with the
//!   refresh's time;
//! - the first refresh of an entity (and the first after its `change_tracking` changed)
//!   takes a baseline: it keeps what every record holds, and records no change.
//!
//! So the log holds what changed between two refreshes, each record's changes in that span as
//! one; a record changed and changed back in between is not seen.

use crate::spec::{CHANGES_TABLE, EntitySpec, SchemaSpec};

use super::backend::{BlockingReader, ExecError, SqlDialect, Writer};
use super::changes::{ChangeInserter, Snapshot, SnapshotPlan, change_row, now, prune, text_of};
use super::ddl::{ChangeLogTypes, ObjectKind, changes_objects};
use super::side_store::{
    ChangesRefresh, SidePlaces, key_column, key_paging, side_schema, side_table_exists,
};
use super::value::SqlValue;
use crate::sql::text::ident::quote;

/// The side store's table of what each tracked entity's states were taken for: a state table
/// taken for another definition is taken again.
pub(crate) const TRACKING_TABLE: &str = "toolforge_tracking";

/// Records read per statement.
const PAGE: usize = 500;

/// The entities of `spec` whose changes the side store records, in config order.
fn tracked(spec: &SchemaSpec) -> Vec<&EntitySpec> {
    spec.entities
        .iter()
        .filter(|e| e.has_side_changes())
        .collect()
}

/// The side store's table of the tracked values `entity`'s records had at the last refresh.
pub(crate) fn states_table(entity: &EntitySpec) -> String {
    format!("{}__tracked", entity.table)
}

/// What `entity`'s states are taken for: its key, and the fields of its content and
/// metadata.
fn definition(entity: &EntitySpec) -> String {
    let Some(tracking) = &entity.change_tracking else {
        return String::new();
    };
    let content = match &tracking.content_field {
        Some(field) => field.clone(),
        None => {
            let fields: Vec<&str> = entity.fields.iter().map(|f| f.name.as_str()).collect();
            format!("[{}]", fields.join(","))
        }
    };
    format!(
        "key {} {:?}; content {content}; metadata [{}]",
        entity.unique_field,
        entity.key_type(),
        tracking.metadata_fields.join(",")
    )
}

/// The statements creating what is missing of the change log and the tracking table in the
/// side store `side` (quoted).
fn log_create(dialect: SqlDialect, side: &str) -> Vec<String> {
    let types = match dialect {
        SqlDialect::Sqlite => ChangeLogTypes::SQLITE,
        SqlDialect::Postgres => ChangeLogTypes::POSTGRES,
    };
    let log = quote(CHANGES_TABLE);
    let mut statements = vec![format!(
        "CREATE TABLE IF NOT EXISTS {side}.{} (\"entity\" TEXT PRIMARY KEY, \"definition\" TEXT \
         NOT NULL)",
        quote(TRACKING_TABLE)
    )];
    for object in changes_objects(types) {
        statements.push(match (object.kind, dialect) {
            (ObjectKind::Table, _) => object.sql.replacen(
                "CREATE TABLE ",
                &format!("CREATE TABLE IF NOT EXISTS {side}."),
                1,
            ),
            // SQLite names an index's schema on the index, PostgreSQL on its table.
            (_, SqlDialect::Sqlite) => object.sql.replacen(
                "CREATE INDEX ",
                &format!("CREATE INDEX IF NOT EXISTS {side}."),
                1,
            ),
            (_, SqlDialect::Postgres) => object
                .sql
                .replacen("CREATE INDEX ", "CREATE INDEX IF NOT EXISTS ", 1)
                .replacen(&format!(" ON {log}"), &format!(" ON {side}.{log}"), 1),
        });
    }
    statements
}

/// The definition `entity`'s states in the side store were taken for (`None`: never).
fn taken_for(
    conn: &dyn BlockingReader,
    entity: &EntitySpec,
    side: &str,
) -> Result<Option<String>, ExecError> {
    let rows = conn.rows(
        &format!(
            "SELECT \"definition\" FROM {side}.{} WHERE \"entity\" = ?1",
            quote(TRACKING_TABLE)
        ),
        &[SqlValue::Text(entity.name.clone())],
    )?;
    Ok(rows
        .into_iter()
        .next()
        .and_then(|row| row.into_iter().next())
        .map(|value| text_of(Some(value))))
}

/// Creates what is missing of the change log and of `entity`'s state table (again, empty,
/// when taken for another definition): whether its baseline is to be taken now.
fn ensure(
    conn: &dyn Writer,
    spec: &SchemaSpec,
    entity: &EntitySpec,
    side: &str,
) -> Result<bool, ExecError> {
    let wanted = definition(entity);
    let states = format!("{side}.{}", quote(&states_table(entity)));
    if taken_for(conn, entity, side)?.as_deref() == Some(wanted.as_str())
        && side_table_exists(conn, spec, &states_table(entity))?
    {
        return Ok(false);
    }
    conn.execute(&format!("DROP TABLE IF EXISTS {states}"), Vec::new())?;
    conn.execute(
        &format!(
            "CREATE TABLE {states} ({}, \"content\" TEXT NOT NULL, \"metadata\" TEXT NOT NULL)",
            key_column(entity, conn.dialect())
        ),
        Vec::new(),
    )?;
    conn.execute(
        &format!(
            "INSERT INTO {side}.{} (\"entity\", \"definition\") VALUES (?1, ?2) ON CONFLICT \
             (\"entity\") DO UPDATE SET \"definition\" = excluded.\"definition\"",
            quote(TRACKING_TABLE)
        ),
        vec![SqlValue::Text(entity.name.clone()), SqlValue::Text(wanted)],
    )?;
    Ok(true)
}

/// Compares every tracked mapped entity of `spec` with what the last refresh saw and records
/// the changes (inside the caller's write transaction): what it found, per entity.
pub(crate) fn refresh(
    conn: &dyn Writer,
    spec: &SchemaSpec,
    places: SidePlaces<'_>,
) -> Result<Vec<ChangesRefresh>, ExecError> {
    let entities = tracked(spec);
    if entities.is_empty() {
        return Ok(Vec::new());
    }
    for statement in log_create(conn.dialect(), places.side) {
        conn.execute(&statement, Vec::new())?;
    }
    let keep = spec
        .change_log
        .as_ref()
        .and_then(|log| log.max_changes_per_record);
    let timestamp = now();
    let mut reports = Vec::with_capacity(entities.len());
    for entity in entities {
        let (Some(tracking), Some(rows)) = (
            &entity.change_tracking,
            super::mapping::entity_query(entity, conn.dialect(), places.base, None),
        ) else {
            continue;
        };
        let baseline = ensure(conn, spec, entity, places.side)?;
        let mut pass = Pass {
            conn,
            entity,
            places,
            rows,
            plan: SnapshotPlan::new(entity, tracking),
            log: ChangeInserter::new(conn, log_table(places)),
            timestamp: &timestamp,
            changed: Vec::new(),
            report: ChangesRefresh {
                entity: entity.name.clone(),
                baseline,
                ..ChangesRefresh::default()
            },
        };
        pass.present()?;
        if !baseline {
            pass.gone()?;
        }
        let Pass {
            log,
            changed,
            report,
            ..
        } = pass;
        log.finish(conn)?;
        if let Some(keep) = keep {
            for id in &changed {
                prune(conn, &log_table(places), &entity.name, id, keep)?;
            }
        }
        reports.push(report);
    }
    Ok(reports)
}

/// The change log in the side store at `places`.
fn log_table(places: SidePlaces<'_>) -> String {
    format!("{}.{}", places.side, quote(CHANGES_TABLE))
}

/// One refresh of one entity's states.
struct Pass<'a, 's> {
    conn: &'a dyn Writer,
    entity: &'s EntitySpec,
    places: SidePlaces<'a>,
    /// The query presenting the user's table in the spec's terms.
    rows: String,
    plan: SnapshotPlan<'s>,
    log: ChangeInserter,
    timestamp: &'a str,
    /// The ids of the records this pass recorded a change of.
    changed: Vec<String>,
    report: ChangesRefresh,
}

impl Pass<'_, '_> {
    fn states(&self) -> String {
        format!("{}.{}", self.places.side, quote(&states_table(self.entity)))
    }

    /// Compares the records of the table with their states, a page at a time.
    fn present(&mut self) -> Result<(), ExecError> {
        let key = quote(&self.entity.unique_field);
        let columns: Vec<String> = self
            .plan
            .columns()
            .map(|c| format!("\"q\".{}", quote(c)))
            .collect();
        let width = columns.len();
        let query = &self.rows;
        let (mut after, cast) = key_paging(self.entity);
        let page = format!(
            "SELECT \"q\".{key}, {}, \"t\".\"content\", \"t\".\"metadata\" FROM ({query}) AS \"q\" \
             LEFT JOIN {} AS \"t\" ON \"t\".{key} = \"q\".{key} WHERE \"q\".{key} > CAST(?1 AS \
             {cast}) ORDER BY \"q\".{key} LIMIT {PAGE}",
            columns.join(", "),
            self.states()
        );
        loop {
            let rows = self.conn.rows(&page, std::slice::from_ref(&after))?;
            let full = rows.len() == PAGE;
            for row in rows {
                let mut row = row.into_iter();
                let Some(id) = row.next().filter(|id| !matches!(id, SqlValue::Null)) else {
                    continue;
                };
                after = id.clone();
                let new = self.plan.snapshot_of(row.by_ref().take(width));
                let held = match (row.next(), row.next()) {
                    (Some(SqlValue::Text(content)), Some(SqlValue::Text(metadata))) => {
                        Some((content, metadata))
                    }
                    _ => None,
                };
                self.compare(id, held, new)?;
            }
            if !full {
                return Ok(());
            }
        }
    }

    /// Records the change of the record `id` from what it held at the last refresh (`None`:
    /// it was not there) to `new`, and keeps `new` as its state.
    fn compare(
        &mut self,
        id: SqlValue,
        held: Option<(String, String)>,
        new: Snapshot,
    ) -> Result<(), ExecError> {
        let metadata = self.plan.metadata_json(&new);
        let same = held
            .as_ref()
            .is_some_and(|(content, stored)| *content == new.content && *stored == metadata);
        if same {
            self.report.unchanged += 1;
            return Ok(());
        }
        let old = held.map(|(content, stored)| self.plan.parse(content, &stored));
        let created = old.is_none();
        self.conn.execute(
            &format!(
                "INSERT INTO {} ({key}, \"content\", \"metadata\") VALUES (?1, ?2, ?3) ON \
                 CONFLICT ({key}) DO UPDATE SET \"content\" = excluded.\"content\", \
                 \"metadata\" = excluded.\"metadata\"",
                self.states(),
                key = quote(&self.entity.unique_field)
            ),
            vec![
                id.clone(),
                SqlValue::Text(new.content.clone()),
                SqlValue::Text(metadata),
            ],
        )?;
        if self.report.baseline {
            self.report.unchanged += 1;
            return Ok(());
        }
        let text = text_of(Some(id));
        match change_row(self.entity, &text, old.as_ref(), Some(new), self.timestamp) {
            Some(row) => {
                self.log.push(self.conn, row)?;
                self.changed.push(text);
                if created {
                    self.report.created += 1;
                } else {
                    self.report.updated += 1;
                }
            }
            None => self.report.unchanged += 1,
        }
        Ok(())
    }

    /// Records the deletion of the records whose states are there and that the table no
    /// longer holds, and drops their states.
    fn gone(&mut self) -> Result<(), ExecError> {
        let key = quote(&self.entity.unique_field);
        let query = &self.rows;
        let (mut after, cast) = key_paging(self.entity);
        let page = format!(
            "SELECT \"t\".{key}, \"t\".\"content\", \"t\".\"metadata\" FROM {} AS \"t\" WHERE \
             \"t\".{key} > CAST(?1 AS {cast}) AND NOT EXISTS (SELECT 1 FROM ({query}) AS \"q\" \
             WHERE \"q\".{key} = \"t\".{key}) ORDER BY \"t\".{key} LIMIT {PAGE}",
            self.states()
        );
        let delete = format!("DELETE FROM {} WHERE {key} = ?1", self.states());
        loop {
            let rows = self.conn.rows(&page, std::slice::from_ref(&after))?;
            let full = rows.len() == PAGE;
            for row in rows {
                let mut row = row.into_iter();
                let (Some(id), Some(content), Some(metadata)) =
                    (row.next(), row.next(), row.next())
                else {
                    continue;
                };
                after = id.clone();
                let old = self
                    .plan
                    .parse(text_of(Some(content)), &text_of(Some(metadata)));
                let text = text_of(Some(id.clone()));
                if let Some(row) = change_row(self.entity, &text, Some(&old), None, self.timestamp)
                {
                    self.log.push(self.conn, row)?;
                    self.changed.push(text);
                    self.report.deleted += 1;
                }
                self.conn.execute(&delete, vec![id])?;
            }
            if !full {
                return Ok(());
            }
        }
    }
}

/// What is missing of the change tracking of `spec`'s mapped entities in its side store at
/// `place` (the side file, or `the schema "toolforge"`): the change log, or an entity's
/// states, which `toolforge db refresh` takes.
pub(crate) fn gaps(
    conn: &dyn BlockingReader,
    spec: &SchemaSpec,
    place: &str,
) -> Result<Vec<String>, ExecError> {
    let tracked = tracked(spec);
    if tracked.is_empty() {
        return Ok(Vec::new());
    }
    if !side_table_exists(conn, spec, CHANGES_TABLE)?
        || !side_table_exists(conn, spec, TRACKING_TABLE)?
    {
        return Ok(vec![format!(
            "the change log of {place} (table \"{CHANGES_TABLE}\")"
        )]);
    }
    let side = side_schema(spec, conn.dialect());
    let mut missing = Vec::new();
    for entity in tracked {
        if taken_for(conn, entity, &side)?.is_none()
            || !side_table_exists(conn, spec, &states_table(entity))?
        {
            missing.push(format!(
                "the tracked states of {} (table \"{}\" of {place})",
                entity.name,
                states_table(entity)
            ));
        }
    }
    Ok(missing)
}
