//! Where games are kept: one implementation of the domain's storage port
//! ([`crate::domain::storage`]: [`Store`], the sum of one trait per
//! concern: [`GameStore`], [`SessionStore`], [`LobbyStore`],
//! [`RatingStore`], [`ChatStore`], [`ServerStore`]) over two databases: SQLite ([`sqlite`], the
//! default: one machine) and PostgreSQL ([`postgres`]: several servers on
//! one database), both on the schema of [`schema`]. A store turns rows
//! into typed game data and back; nothing outside it sees a row or SQL.
//!
//! # What goes where
//! - [`queries`]: every statement, once, and the store's methods written
//!   once over an executor ([`queries::Db`]). Statements are written in
//!   PostgreSQL's style (`$1`, `::TEXT` casts, `= ANY($1)`, `FOR
//!   UPDATE`); [`sql::for_sqlite`] rewrites them for SQLite as they are
//!   run. A write is a list of statements run in one transaction; a check
//!   that a game still stands where a change was decided is a statement
//!   that must touch one row ([`sql::Stmt::expect`]).
//! - [`sql`]: the statement, the one value type that binds into both
//!   drivers ([`sql::Value`]), the rows both answer, and the
//!   [`sql::Executor`] contract.
//! - `rows`: the row mappers (rows into typed data; a row that does not
//!   read is [`StoreError::Damaged`], naming its row).
//! - [`sqlite`] and [`postgres`]: the two executors, each with its own
//!   durability machinery (SQLite's writer thread and group commits;
//!   PostgreSQL's pool, commit resolution, probe and notices).
//!
//! A new query: a method on the trait of its concern in
//! `domain/storage.rs` (documented as a contract), its body in [`queries`] (statements in PostgreSQL's
//! style, mapped by a function of `rows`; a method that is one statement
//! goes in its impl's `one_statement!` list), a schema step at the end of
//! [`schema::STEPS`] if it needs a column, and a test in
//! `tests/store_contract.rs` (run on both databases).
//!
//! Hand-made rather than sqlx: sqlx would give one SQL text for both, but
//! it brings its own pool, migrations and driver for SQLite, and keeping
//! the durability below (group commits on one thread, `txid_status`) on
//! it would have meant rewriting both executors; this layer is a few
//! hundred lines over the drivers the store already used.
//!
//! Every write is durable when its future resolves `Ok`: the domain
//! acknowledges and broadcasts an action only then. A store that cannot
//! know what its database holds refuses writes ([`StoreError::Failed`]):
//! the SQLite store after a failed write or sync, until it is restarted;
//! the PostgreSQL store while its database is unreachable or the outcome
//! of a commit is unknown (see [`postgres`]).

pub mod postgres;
pub mod queries;
mod rows;
pub mod schema;
pub mod sql;
pub mod sqlite;

use std::sync::Arc;

use gore_core::{Forfeit, Player};

pub use crate::config::DbUrl;
/// The traits this module implements and the records they carry are the
/// domain's ([`crate::domain::storage`]); re-exported here for the store's
/// users outside the domain.
pub use crate::domain::storage::*;

/// A game's clock credits as one column's text: `ply:ms` joined by commas
/// (a handful at most: one per outage the game lived through).
pub fn credits_text(credits: &[(u32, i64)]) -> String {
    credits
        .iter()
        .map(|(p, ms)| format!("{p}:{ms}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// Reads [`credits_text`]; what does not fit is named.
pub fn credits_from_text(s: &str) -> Result<Vec<(u32, i64)>, String> {
    s.split(',')
        .filter(|c| !c.is_empty())
        .map(|c| {
            c.split_once(':')
                .and_then(|(p, ms)| Some((p.parse().ok()?, ms.parse().ok()?)))
                .ok_or_else(|| format!("clock credit `{c}`"))
        })
        .collect()
}

/// A stored game's forfeit, from its columns: `resigned` (a resignation,
/// as stored before the other forfeits came), else `reason` (`time`,
/// `left`, `abort`) with `loser`. What does not fit is named.
pub fn forfeit_from_columns(
    reason: Option<&str>,
    resigned: Option<Player>,
    loser: Option<Player>,
) -> Result<Option<Forfeit>, String> {
    if let Some(p) = resigned {
        return Ok(Some(Forfeit::Resign(p)));
    }
    match reason {
        Some(word @ ("time" | "left" | "abort")) => Forfeit::from_parts(word, loser)
            .map(Some)
            .ok_or_else(|| format!("reason {word} with loser {loser:?}")),
        _ => Ok(None),
    }
}

/// The columns `reason`, `resigned` and `loser` that keep a forfeit.
pub fn forfeit_columns(f: Forfeit) -> (&'static str, Option<Player>, Option<Player>) {
    match f {
        Forfeit::Resign(p) => ("resign", Some(p), None),
        Forfeit::Time(p) | Forfeit::Left(p) => (f.as_str(), None, Some(p)),
        Forfeit::Abort => ("abort", None, None),
    }
}

/// Opens the store `url` names (migrating it; proving it writable);
/// `options` apply to a SQLite store. Must run inside a Tokio runtime.
pub async fn open(url: &DbUrl, options: sqlite::SqliteOptions) -> anyhow::Result<Arc<dyn Store>> {
    match url {
        DbUrl::Sqlite(path) => {
            let path = path.clone();
            // SQLite opens and migrates synchronously: off the runtime.
            let store =
                tokio::task::spawn_blocking(move || sqlite::SqliteStore::open(&path, options))
                    .await??;
            Ok(Arc::new(store))
        }
        DbUrl::Postgres(url) => Ok(Arc::new(
            postgres::PgStore::connect(url, postgres::PgOptions::default()).await?,
        )),
    }
}
