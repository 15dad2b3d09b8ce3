//! The SQLite store, on a thread of its own: games and their actions.
//!
//! Every write is a transaction with `synchronous=FULL` in WAL mode, so an
//! action is on disk when [`Db::insert_action`] returns. The schema is
//! migrated on start with `PRAGMA user_version`.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;

use anyhow::{bail, Context};
use rusqlite::{params, Connection, OptionalExtension};
use tokio::sync::oneshot;

use crate::error::DbError;

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

/// The schema, one migration per step of `user_version`.
const MIGRATIONS: &[&str] = &[
    // 1: games and actions.
    "CREATE TABLE games (
        id          TEXT PRIMARY KEY,
        mode        TEXT NOT NULL CHECK (mode IN ('ai', 'friend', 'local')),
        rules       TEXT NOT NULL,
        start       TEXT NOT NULL,
        level       INTEGER NOT NULL,
        honourable  INTEGER NOT NULL DEFAULT 0,
        creator     TEXT NOT NULL CHECK (creator IN ('A', 'B', 'both')),
        token_a     TEXT,
        token_b     TEXT,
        token_both  TEXT,
        ai_seat     TEXT CHECK (ai_seat IN ('A', 'B')),
        status      TEXT NOT NULL CHECK (status IN ('waiting', 'playing', 'over')),
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL,
        result      TEXT,
        reason      TEXT,
        rematch     TEXT
    );
    CREATE INDEX games_mode_status ON games (mode, status);
    CREATE TABLE actions (
        game_id     TEXT NOT NULL REFERENCES games (id),
        ply         INTEGER NOT NULL CHECK (ply >= 1),
        action      TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        PRIMARY KEY (game_id, ply)
    ) WITHOUT ROWID;",
];

/// The schema version this server writes.
pub const SCHEMA_VERSION: usize = MIGRATIONS.len();

/// A game's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameRow {
    /// 10 base-32 characters.
    pub id: String,
    /// `ai`, `friend` or `local`.
    pub mode: String,
    /// The rule set as written.
    pub rules: String,
    /// The start position (GPN).
    pub start: String,
    /// The AI's level (kept for every game, used by ai games).
    pub level: u8,
    /// The AI accepts every offer.
    pub honourable: bool,
    /// The creator's seat: `A`, `B` or `both`.
    pub creator: String,
    /// Seat A's token.
    pub token_a: Option<String>,
    /// Seat B's token.
    pub token_b: Option<String>,
    /// The `both` token of a local game.
    pub token_both: Option<String>,
    /// The AI's seat in an ai game.
    pub ai_seat: Option<String>,
    /// `waiting`, `playing` or `over`.
    pub status: String,
    /// Unix time in milliseconds.
    pub created_at: i64,
    /// Unix time in milliseconds of the last change.
    pub updated_at: i64,
    /// The result once over, as a record writes it (`30-18 without glory`).
    pub result: Option<String>,
    /// Why it ended: `board`, `repetition`, `ply-cap`.
    pub reason: Option<String>,
    /// The id of the rematch game, once one was asked for.
    pub rematch: Option<String>,
}

impl GameRow {
    fn from_sql(r: &rusqlite::Row<'_>) -> rusqlite::Result<GameRow> {
        Ok(GameRow {
            id: r.get("id")?,
            mode: r.get("mode")?,
            rules: r.get("rules")?,
            start: r.get("start")?,
            level: r.get("level")?,
            honourable: r.get("honourable")?,
            creator: r.get("creator")?,
            token_a: r.get("token_a")?,
            token_b: r.get("token_b")?,
            token_both: r.get("token_both")?,
            ai_seat: r.get("ai_seat")?,
            status: r.get("status")?,
            created_at: r.get("created_at")?,
            updated_at: r.get("updated_at")?,
            result: r.get("result")?,
            reason: r.get("reason")?,
            rematch: r.get("rematch")?,
        })
    }

    fn insert(&self, c: &Connection) -> rusqlite::Result<()> {
        c.execute(
            "INSERT INTO games (id, mode, rules, start, level, honourable, creator, token_a,
                 token_b, token_both, ai_seat, status, created_at, updated_at, result, reason,
                 rematch)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
            params![
                self.id,
                self.mode,
                self.rules,
                self.start,
                self.level,
                self.honourable,
                self.creator,
                self.token_a,
                self.token_b,
                self.token_both,
                self.ai_seat,
                self.status,
                self.created_at,
                self.updated_at,
                self.result,
                self.reason,
                self.rematch,
            ],
        )?;
        Ok(())
    }
}

/// An action as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionRow {
    /// From 1.
    pub ply: u32,
    /// The action token.
    pub action: String,
    /// Unix time in milliseconds.
    pub created_at: i64,
}

/// How a game ended, written with its last action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ending {
    /// `30-18 without glory`.
    pub result: String,
    /// `board`, `repetition` or `ply-cap`.
    pub reason: String,
}

/// Called once the batch a job ran in is committed (`None`) or failed
/// (the reason): only then does the caller hear of its result.
type Finish = Box<dyn FnOnce(Option<String>) + Send>;
/// Work for the database thread, run inside the batch's transaction.
type Job = Box<dyn FnOnce(&Connection) -> Finish + Send>;

/// The most jobs committed together.
const BATCH: usize = 256;

/// A handle on the database thread. Cheap to clone.
#[derive(Clone)]
pub struct Db {
    jobs: mpsc::Sender<Job>,
}

/// Opens the file, sets durability pragmas and migrates the schema.
fn open_connection(path: &Path) -> anyhow::Result<Connection> {
    let mut c = Connection::open(path)
        .with_context(|| format!("cannot open the database {}", path.display()))?;
    c.busy_timeout(std::time::Duration::from_secs(5))?;
    let mode: String = c.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        tracing::warn!("the database is in journal mode {mode}, not WAL");
    }
    c.pragma_update(None, "synchronous", "FULL")?;
    c.pragma_update(None, "foreign_keys", "ON")?;
    migrate(&mut c).with_context(|| format!("cannot migrate the database {}", path.display()))?;
    Ok(c)
}

/// Brings the schema up to [`SCHEMA_VERSION`], one transaction per step.
fn migrate(c: &mut Connection) -> anyhow::Result<()> {
    let version: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version < 0 || version as usize > MIGRATIONS.len() {
        bail!(
            "the database's schema version is {version}, newer than this server's ({}); \
             use a newer gore",
            MIGRATIONS.len()
        );
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        let tx = c.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (i + 1) as i64)?;
        tx.commit()?;
        tracing::info!("database schema migrated to version {}", i + 1);
    }
    Ok(())
}

/// Runs `f` between `SAVEPOINT` and `RELEASE`, or rolls back to the
/// savepoint when it fails.
fn in_savepoint<R>(
    c: &Connection,
    f: impl FnOnce(&Connection) -> rusqlite::Result<R>,
) -> rusqlite::Result<R> {
    c.execute_batch("SAVEPOINT job")?;
    match f(c) {
        Ok(v) => {
            c.execute_batch("RELEASE job")?;
            Ok(v)
        }
        Err(e) => {
            c.execute_batch("ROLLBACK TO job; RELEASE job")?;
            Err(e)
        }
    }
}

/// One transaction for a batch of jobs; then every job hears how it went.
fn run_batch(conn: &Connection, batch: Vec<Job>) {
    if let Err(e) = conn.execute_batch("BEGIN IMMEDIATE") {
        // The jobs never ran: dropping them tells each caller it failed.
        drop(batch);
        tracing::error!("database: cannot begin a transaction: {e}");
        return;
    }
    let mut finishers = Vec::with_capacity(batch.len());
    let mut panicked = false;
    for job in batch {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(conn))) {
            Ok(f) => finishers.push(f),
            Err(_) => panicked = true,
        }
    }
    let failed = if panicked {
        Some("a database job failed".to_string())
    } else {
        conn.execute_batch("COMMIT").err().map(|e| e.to_string())
    };
    if let Some(why) = &failed {
        tracing::error!("database: the batch was not committed: {why}");
        let _ = conn.execute_batch("ROLLBACK");
    }
    for f in finishers {
        f(failed.clone());
    }
}

impl Db {
    /// Opens (creating if need be) and migrates the database, then starts
    /// its thread.
    ///
    /// The thread commits in groups: it takes every job waiting (up to
    /// [`BATCH`]), runs each in a savepoint of one transaction, commits
    /// once (one sync to disk for all), and only then answers each job.
    /// An action is thus on disk before it is acknowledged, and a busy
    /// server does not wait for one sync per action.
    pub fn open(url: &DbUrl) -> anyhow::Result<Db> {
        let DbUrl::Sqlite(path) = url;
        let conn = open_connection(path)?;
        let (jobs, rx) = mpsc::channel::<Job>();
        thread::Builder::new()
            .name("gore-db".into())
            .spawn(move || {
                while let Ok(first) = rx.recv() {
                    let mut batch = vec![first];
                    while batch.len() < BATCH {
                        match rx.try_recv() {
                            Ok(j) => batch.push(j),
                            Err(_) => break,
                        }
                    }
                    run_batch(&conn, batch);
                }
            })
            .context("cannot start the database thread")?;
        Ok(Db { jobs })
    }

    /// Runs `f` on the database thread, in a savepoint of a transaction,
    /// and answers once that transaction is committed. An error from `f`
    /// undoes only what `f` did.
    pub async fn call<R, F>(&self, f: F) -> Result<R, DbError>
    where
        R: Send + 'static,
        F: FnOnce(&Connection) -> rusqlite::Result<R> + Send + 'static,
    {
        let (tx, rx) = oneshot::channel::<Result<R, DbError>>();
        self.jobs
            .send(Box::new(move |c: &Connection| -> Finish {
                let result = in_savepoint(c, f);
                Box::new(move |failed: Option<String>| {
                    let _ = tx.send(match failed {
                        None => result.map_err(DbError::Sql),
                        Some(why) => Err(DbError::Commit(why)),
                    });
                })
            }))
            .map_err(|_| DbError::Closed)?;
        rx.await.map_err(|_| DbError::Closed)?
    }

    /// Inserts a new game; when `rematch_of` is given, links it from that
    /// game, in the same transaction.
    pub async fn create_game(
        &self,
        row: GameRow,
        rematch_of: Option<String>,
    ) -> Result<(), DbError> {
        self.call(move |c| {
            row.insert(c)?;
            if let Some(old) = rematch_of {
                c.execute(
                    "UPDATE games SET rematch = ?2, updated_at = ?3 WHERE id = ?1",
                    params![old, row.id, row.created_at],
                )?;
            }
            Ok(())
        })
        .await
    }

    /// A game and its actions in order, or `None`.
    pub async fn load_game(
        &self,
        id: String,
    ) -> Result<Option<(GameRow, Vec<ActionRow>)>, DbError> {
        self.call(move |c| {
            let Some(row) = c
                .query_row(
                    "SELECT * FROM games WHERE id = ?1",
                    [&id],
                    GameRow::from_sql,
                )
                .optional()?
            else {
                return Ok(None);
            };
            let mut st = c.prepare_cached(
                "SELECT ply, action, created_at FROM actions WHERE game_id = ?1 ORDER BY ply",
            )?;
            let actions = st
                .query_map([&id], |r| {
                    Ok(ActionRow {
                        ply: r.get(0)?,
                        action: r.get(1)?,
                        created_at: r.get(2)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(Some((row, actions)))
        })
        .await
    }

    /// Commits one action (and the result when it ends the game) in one
    /// transaction. A ply already stored is a conflict
    /// ([`DbError::is_conflict`]).
    pub async fn insert_action(
        &self,
        game_id: String,
        action: ActionRow,
        ending: Option<Ending>,
    ) -> Result<(), DbError> {
        self.call(move |c| {
            c.execute(
                "INSERT INTO actions (game_id, ply, action, created_at) VALUES (?1, ?2, ?3, ?4)",
                params![game_id, action.ply, action.action, action.created_at],
            )?;
            match ending {
                Some(e) => c.execute(
                    "UPDATE games SET status = 'over', result = ?2, reason = ?3, updated_at = ?4
                     WHERE id = ?1",
                    params![game_id, e.result, e.reason, action.created_at],
                )?,
                None => c.execute(
                    "UPDATE games SET updated_at = ?2 WHERE id = ?1",
                    params![game_id, action.created_at],
                )?,
            };
            Ok(())
        })
        .await
    }

    /// Sets a game's status (a friend arriving: `waiting` → `playing`).
    pub async fn set_status(
        &self,
        id: String,
        status: &'static str,
        now: i64,
    ) -> Result<(), DbError> {
        self.call(move |c| {
            c.execute(
                "UPDATE games SET status = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, status, now],
            )?;
            Ok(())
        })
        .await
    }

    /// The ids of ai games still being played, most recent first: those
    /// where the AI may have been thinking when the server stopped.
    pub async fn active_ai_games(&self, limit: u32) -> Result<Vec<String>, DbError> {
        self.call(move |c| {
            let mut st = c.prepare(
                "SELECT id FROM games WHERE mode = 'ai' AND status = 'playing'
                 ORDER BY updated_at DESC LIMIT ?1",
            )?;
            let ids = st
                .query_map([limit], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            Ok(ids)
        })
        .await
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

    #[test]
    fn migrations_run_once_and_refuse_newer_schemas() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.sqlite3");
        let c = open_connection(&path).unwrap();
        let v: i64 = c
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v as usize, SCHEMA_VERSION);
        let sync: i64 = c.query_row("PRAGMA synchronous", [], |r| r.get(0)).unwrap();
        assert_eq!(sync, 2, "synchronous=FULL");
        drop(c);
        // Opening again changes nothing.
        let c = open_connection(&path).unwrap();
        c.pragma_update(None, "user_version", 99).unwrap();
        drop(c);
        let e = open_connection(&path).unwrap_err();
        assert!(format!("{e:#}").contains("newer"), "{e:#}");
    }
}
