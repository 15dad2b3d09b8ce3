//! Where games are kept: one implementation of the domain's storage port
//! ([`gore_domain::storage`]: [`Store`], one trait per concern) over two
//! databases: SQLite ([`sqlite`], the default: one machine) and PostgreSQL
//! ([`postgres`]: several servers on one database), on one schema
//! ([`schema`], its steps' SQL in the crate's `migrations/`). Nothing
//! outside this crate sees a row or SQL; the domain cannot (it does not
//! depend on this crate, which depends on it).
//!
//! # What goes where (a new query: CONTRIBUTING.md)
//! - [`queries`]: every statement, once, in PostgreSQL's style
//!   ([`sql::for_sqlite`] rewrites it for SQLite as it runs), and the
//!   store's methods written once over an executor ([`queries::Db`]), a
//!   file per concern. A write is a list of statements run in one
//!   transaction; a check that a game still stands where a change was
//!   decided is a statement that must touch one row ([`sql::Stmt::expect`]).
//! - [`sql`]: the statement, the one value type both drivers bind
//!   ([`sql::Value`]), their rows, and the [`sql::Executor`] contract.
//! - `rows`: the row mappers (a row that does not read is
//!   [`StoreError::Damaged`], naming its row and column).
//! - [`sqlite`] and [`postgres`]: the two executors, each with its own
//!   durability machinery (SQLite's writer thread and group commits;
//!   PostgreSQL's pool, commit resolution and probe; its notices to other
//!   servers are `notices.rs`).
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

mod notices;
pub mod postgres;
pub mod queries;
mod rows;
pub mod schema;
pub mod sql;
pub mod sqlite;
mod url;

use std::sync::Arc;

use gore_core::{Forfeit, Player};

/// The traits this module implements and the records they carry are the
/// domain's ([`gore_domain::storage`]); re-exported here for the store's
/// users outside the domain.
pub use gore_domain::storage::*;
pub use url::{redact, DbUrl};

/// A game's clock credits as one column's text: `ply:ms` joined by commas
/// (a handful at most: one per outage the game lived through).
pub fn credits_text(credits: &[(gore_domain::Ply, i64)]) -> String {
    credits
        .iter()
        .map(|(p, ms)| format!("{p}:{ms}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// Reads [`credits_text`]; what does not fit is named.
pub fn credits_from_text(s: &str) -> Result<Vec<(gore_domain::Ply, i64)>, String> {
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
