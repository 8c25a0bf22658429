//! `toolforge db init|import|embed|refresh`: create a database from a config, load data into
//! it, compute its embeddings, and keep the indexes over existing tables up to date.

pub mod embed;
pub mod import;
pub mod init;
pub mod refresh;

use std::path::Path;

use toolforge::sql::Database;

use crate::dynamic::LoadError;

/// The `db` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum DbCommand {
    /// Create the tables and indexes a config needs (idempotent; never changes existing ones).
    Init(init::Args),
    /// Load JSON lines (records and relationships) in one transaction.
    Import(import::Args),
    /// Compute the embeddings missing from the vector indexes (all of them with --force).
    Embed(embed::Args),
    /// Bring what is kept beside existing tables up to date with their rows: full-text
    /// indexes, vectors, and the changes of tracked entities since the last refresh.
    Refresh(refresh::Args),
}

/// Runs a `db` subcommand.
pub fn run(command: &DbCommand, out: &mut super::Output<'_>) -> i32 {
    match command {
        DbCommand::Init(args) => init::run(args, out),
        DbCommand::Import(args) => import::run(args, out),
        DbCommand::Embed(args) => embed::run(args, out),
        DbCommand::Refresh(args) => refresh::run(args, out),
    }
}

/// Opens (creating when `create`) a database for writing, with the path in any error.
pub(crate) fn open_writable(db: &Path, config: &Path, create: bool) -> Result<Database, LoadError> {
    crate::dynamic::not_a_folder(db)?;
    if !create && !crate::dynamic::is_server_url(db) && !db.is_file() {
        return Err(LoadError::MissingDatabase {
            db: db.to_path_buf(),
            config: config.to_path_buf(),
        });
    }
    Database::open(db).map_err(|error| LoadError::Database {
        db: db.to_path_buf(),
        message: error.to_string(),
    })
}
