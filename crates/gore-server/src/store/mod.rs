//! Where games are kept: the [`Store`] trait the domain calls, and its
//! SQLite implementation ([`sqlite`]). A store turns rows into typed game
//! data and back; nothing outside it sees a row or SQL.
//!
//! Every write is durable when its future resolves `Ok`: the domain
//! acknowledges and broadcasts an action only then. A store that fails a
//! write or a sync stops accepting writes ([`StoreError::Failed`]) until
//! it is restarted, since after a failed sync nobody knows what is on disk.

pub mod sqlite;

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::bail;
use futures_util::future::BoxFuture;
use gore_core::{Action, Hole, Outcome, Player, Position};

use crate::domain::GameInfo;

/// A game as stored: its facts and its actions in order.
#[derive(Debug, Clone)]
pub struct StoredGame {
    /// The game's facts, seats and status.
    pub info: GameInfo,
    /// Every action, from ply 1.
    pub actions: Vec<StoredAction>,
}

/// One committed action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredAction {
    /// From 1.
    pub ply: u32,
    /// The action.
    pub action: Action,
    /// The holes it captured.
    pub captured: Vec<Hole>,
    /// The position it led to, before any final sweep (`None` in games
    /// stored before positions were kept: those are replayed).
    pub position: Option<Position>,
    /// Unix time in milliseconds.
    pub at: i64,
}

/// Why a store could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The row exists already (a ply already committed, an id taken).
    #[error("already stored")]
    Conflict,
    /// A write or a sync failed earlier (or the file was deleted or
    /// replaced): the store accepts no writes until restarted.
    #[error("the database failed and accepts no more writes until restarted: {0}")]
    Failed(String),
    /// A stored game cannot be read back.
    #[error("stored game {id}: {why}")]
    Damaged {
        /// The game.
        id: String,
        /// What is wrong.
        why: String,
    },
    /// Anything else (the database refused a query).
    #[error("database: {0}")]
    Other(String),
}

/// A change another server committed to a store shared by several: the
/// game and its ply after the change. The receiver loads what changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// Game `game` changed (an action, a claimed invitation, a rematch…);
    /// it now has `ply` actions.
    Changed {
        /// The game.
        game: String,
        /// Its actions after the change.
        ply: u32,
    },
    /// Notices may have been missed (the store reconnected): every game in
    /// memory must be loaded again.
    Missed,
}

/// The futures a [`Store`] returns.
pub type StoreFuture<T> = BoxFuture<'static, Result<T, StoreError>>;

/// What the game domain needs from a database.
pub trait Store: Send + Sync + 'static {
    /// Inserts a new game; when `rematch_of` is given, links it from that
    /// game in the same transaction.
    fn create_game(&self, info: GameInfo, rematch_of: Option<String>) -> StoreFuture<()>;

    /// A game and its actions, or `None` if there is no such game.
    fn load_game(&self, id: String) -> StoreFuture<Option<StoredGame>>;

    /// Commits one action, and the result with it when it ends the game.
    /// A ply already stored is [`StoreError::Conflict`].
    fn append_action(
        &self,
        id: String,
        action: StoredAction,
        ending: Option<Outcome>,
    ) -> StoreFuture<()>;

    /// Claims a friend game's invitation: if `code` is still the game's
    /// invitation, it is spent, `seat` gets the new secret `token` and the
    /// game starts; `false` (and nothing changes) otherwise.
    fn claim_invite(
        &self,
        id: String,
        code: String,
        seat: Player,
        token: String,
        now: i64,
    ) -> StoreFuture<bool>;

    /// Sets (or with `None` revokes) the "continue on another device" code
    /// of a seat's holder.
    fn set_device(
        &self,
        id: String,
        seat: crate::domain::Seat,
        code: Option<String>,
    ) -> StoreFuture<()>;

    /// Remembers that a browser session holds a seat of a game (its token).
    fn remember_seat(&self, session: String, id: String, token: String) -> StoreFuture<()>;

    /// The token a browser session holds in a game, if any.
    fn session_token(&self, session: String, id: String) -> StoreFuture<Option<String>>;

    /// The ids of ai games still being played, most recent first.
    fn active_ai_games(&self, limit: u32) -> StoreFuture<Vec<String>>;

    /// Why the store accepts no writes, once it has failed.
    fn failure(&self) -> Option<String>;

    /// The changes other servers commit, for a store shared by several
    /// servers; `None` for a store one process owns (SQLite).
    fn notices(&self) -> Option<tokio::sync::broadcast::Receiver<Notice>> {
        None
    }

    /// Claims the AI's turn at `ply` of game `id` for this server, for
    /// `lease`: `true` if this server is to compute it (no other server
    /// holds an unexpired claim on it). A store one process owns always
    /// says yes.
    fn claim_ai_turn(&self, id: String, ply: u32, lease: std::time::Duration) -> StoreFuture<bool> {
        let _ = (id, ply, lease);
        Box::pin(async { Ok(true) })
    }
}

/// Where the database lives, from `--db`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DbUrl {
    /// A SQLite file.
    Sqlite(PathBuf),
}

impl DbUrl {
    /// Reads a file path or a `sqlite://PATH` (also `sqlite:PATH`) URL. Any
    /// other scheme (`postgres://`, …) is refused: only SQLite is supported.
    pub fn parse(s: &str) -> anyhow::Result<DbUrl> {
        let s = s.trim();
        if s.is_empty() {
            bail!("--db: empty; give a file path or sqlite://PATH");
        }
        if let Some(rest) = s.strip_prefix("sqlite://") {
            if rest.is_empty() {
                bail!("--db: sqlite:// needs a file path, as sqlite://gore.sqlite3");
            }
            return Ok(DbUrl::Sqlite(PathBuf::from(rest)));
        }
        if let Some(rest) = s.strip_prefix("sqlite:") {
            if !rest.is_empty() {
                return Ok(DbUrl::Sqlite(PathBuf::from(rest)));
            }
        }
        if let Some((scheme, _)) = s.split_once("://") {
            if !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            {
                bail!(
                    "--db: unsupported database `{scheme}://`: only SQLite is supported for now \
                     (give a file path or sqlite://PATH)"
                );
            }
        }
        Ok(DbUrl::Sqlite(PathBuf::from(s)))
    }
}

/// Opens the store `url` names (migrating it; proving it writable).
pub fn open(url: &DbUrl, options: sqlite::SqliteOptions) -> anyhow::Result<Arc<dyn Store>> {
    match url {
        DbUrl::Sqlite(path) => Ok(Arc::new(sqlite::SqliteStore::open(path, options)?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert_eq!(
            DbUrl::parse("gore.sqlite3").unwrap(),
            DbUrl::Sqlite("gore.sqlite3".into())
        );
        assert_eq!(
            DbUrl::parse("sqlite:///tmp/x.db").unwrap(),
            DbUrl::Sqlite("/tmp/x.db".into())
        );
        assert_eq!(
            DbUrl::parse("sqlite://x.db").unwrap(),
            DbUrl::Sqlite("x.db".into())
        );
        assert_eq!(
            DbUrl::parse("sqlite:x.db").unwrap(),
            DbUrl::Sqlite("x.db".into())
        );
        let e = DbUrl::parse("postgres://u@h/db").unwrap_err().to_string();
        assert!(e.contains("only SQLite is supported"), "{e}");
        assert!(e.contains("postgres"), "{e}");
        assert!(DbUrl::parse("").is_err());
        assert!(DbUrl::parse("sqlite://").is_err());
    }
}
