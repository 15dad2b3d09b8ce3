//! The SQLite store, on a thread of its own: games, their actions, and the
//! seats each browser session holds.
//!
//! Every write is a transaction with `synchronous=FULL` in WAL mode, so an
//! action is on disk when [`SqliteStore::append_action`] resolves. The
//! schema is migrated on start ([`super::schema`], the steps both stores
//! share) and its version kept in `PRAGMA user_version`.
//!
//! Failing closed: a write or sync that fails, or a database file deleted
//! or replaced under the server, puts the store in a failed state in which
//! every write is refused ([`StoreError::Failed`]) and reads go on, until
//! an operator restarts the server — the rule PostgreSQL adopted after its
//! fsync bug: after a failed sync, what is on disk is unknown, so stop
//! acknowledging.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;

use anyhow::{bail, Context};
use gore_ai::Level;
use gore_core::{Hole, Outcome, Player, Position, Rules};
use rusqlite::{params, Connection, OptionalExtension};
use tokio::sync::oneshot;

use super::schema::{self, Dialect};
use super::{
    At, ChatLine, GameChange, HistoryPoint, Ranked, RatingUpdate, Store, StoreError, StoreFuture,
    StoredAccount, StoredAction, StoredChallenge, StoredGame, StoredPlayer, StoredRating,
};
use crate::domain::{GameInfo, Mode, PerSeat, Seat, Status, PERFECT_LEVEL};

/// A failure of the SQLite layer, before it is a [`StoreError`].
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// SQLite refused.
    #[error("database: {0}")]
    Sql(#[from] rusqlite::Error),
    /// The transaction holding this work was not committed.
    #[error("database: not committed: {0}")]
    Commit(String),
    /// The database thread has stopped.
    #[error("database: the database thread has stopped")]
    Closed,
    /// The store has failed earlier and takes no writes.
    #[error("{0}")]
    Failed(String),
}

impl DbError {
    /// Whether this is a primary-key (or unique) conflict.
    pub fn is_conflict(&self) -> bool {
        matches!(
            self,
            DbError::Sql(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::ConstraintViolation
        )
    }
}

impl From<DbError> for StoreError {
    fn from(e: DbError) -> StoreError {
        match e {
            e if e.is_conflict() => StoreError::Conflict,
            DbError::Failed(why) | DbError::Commit(why) => StoreError::Failed(why),
            e => StoreError::Other(e.to_string()),
        }
    }
}

/// The schema version this server writes.
pub const SCHEMA_VERSION: usize = schema::VERSION;

fn bad(id: &str, why: impl Into<String>) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(
        0,
        rusqlite::types::Type::Text,
        format!("stored game {id}: {}", why.into()).into(),
    )
}

/// Reads a games row into typed data; a value that does not read is an
/// error naming the game and the column.
fn info_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<GameInfo> {
    let id: String = r.get("id")?;
    let word = |col: &str| -> rusqlite::Result<String> { r.get(col) };
    let mode = Mode::from_word(&word("mode")?).ok_or_else(|| bad(&id, "mode"))?;
    let rules: Rules = word("rules")?
        .parse()
        .map_err(|e| bad(&id, format!("rules: {e}")))?;
    let start = Position::from_gpn(&word("start")?, rules.variant)
        .map_err(|e| bad(&id, format!("start: {e}")))?;
    let stored: u8 = r.get("level")?;
    let perfect = stored == PERFECT_LEVEL;
    let level = if perfect {
        Level::MAX
    } else {
        Level::new(stored).map_err(|e| bad(&id, format!("level: {e}")))?
    };
    let creator = Seat::from_word(&word("creator")?).ok_or_else(|| bad(&id, "creator"))?;
    let ai_seat = match r.get::<_, Option<String>>("ai_seat")? {
        None => None,
        Some(s) => Some(
            s.parse::<Player>()
                .map_err(|_| bad(&id, format!("ai seat {s}")))?,
        ),
    };
    if (mode == Mode::Ai) != ai_seat.is_some() {
        return Err(bad(&id, "an ai game has one ai seat, others none"));
    }
    let status = Status::from_word(&word("status")?).ok_or_else(|| bad(&id, "status"))?;
    let player = |col: &str| -> rusqlite::Result<Option<Player>> {
        match r.get::<_, Option<String>>(col)? {
            None => Ok(None),
            Some(s) => s
                .parse::<Player>()
                .map(Some)
                .map_err(|_| bad(&id, format!("{col} {s}"))),
        }
    };
    let reason: Option<String> = r.get("reason")?;
    let forfeit =
        super::forfeit_from_columns(reason.as_deref(), player("resigned")?, player("loser")?)
            .map_err(|e| bad(&id, e))?;
    let clock = match r.get::<_, Option<String>>("clock")? {
        None => None,
        Some(s) => Some(s.parse().map_err(|e| bad(&id, format!("clock: {e}")))?),
    };
    let takeback = player("takeback_request")?;
    let takebacks: i64 = r.get("takebacks")?;
    let takebacks = u32::try_from(takebacks).map_err(|_| bad(&id, "takebacks"))?;
    Ok(GameInfo {
        forfeit,
        clock,
        names: [r.get("name_a")?, r.get("name_b")?],
        lobby: r.get("lobby")?,
        away: [r.get("away_a")?, r.get("away_b")?],
        credits: super::credits_from_text(&r.get::<_, String>("clock_credits")?)
            .map_err(|e| bad(&id, e))?,
        players: [r.get("player_a")?, r.get("player_b")?],
        rated: r.get("rated")?,
        ratings: [r.get("rating_a")?, r.get("rating_b")?],
        started_at: r.get("started_at")?,
        deadline: r.get("deadline")?,
        takebacks,
        takeback,
        mode,
        rules,
        start,
        level,
        perfect,
        honourable: r.get("honourable")?,
        creator,
        ai_seat,
        status,
        created_at: r.get("created_at")?,
        rematch: r.get("rematch")?,
        tokens: PerSeat([r.get("token_a")?, r.get("token_b")?, r.get("token_both")?]),
        invite: r.get("invite")?,
        devices: PerSeat([
            r.get("device_a")?,
            r.get("device_b")?,
            r.get("device_both")?,
        ]),
        id,
    })
}

/// The player of a session: the account it is logged in to, else its
/// anonymous player.
fn player_of(c: &Connection, session: &str) -> rusqlite::Result<Option<StoredPlayer>> {
    let account = c
        .query_row(
            "SELECT a.id, a.username FROM account_sessions s
             JOIN accounts a ON a.id = s.account_id WHERE s.session = ?1",
            [session],
            |r| {
                Ok(StoredPlayer {
                    id: r.get(0)?,
                    name: r.get(1)?,
                    account: true,
                })
            },
        )
        .optional()?;
    if account.is_some() {
        return Ok(account);
    }
    c.query_row(
        "SELECT id, name FROM players WHERE session = ?1",
        [session],
        |r| {
            Ok(StoredPlayer {
                id: r.get(0)?,
                name: r.get(1)?,
                account: false,
            })
        },
    )
    .optional()
}

fn rating_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredRating> {
    Ok(StoredRating {
        pace: r.get(0)?,
        rating: r.get(1)?,
        deviation: r.get(2)?,
        volatility: r.get(3)?,
        games: r.get(4)?,
    })
}

/// Remembers a seat for a session: its account's if it is logged in to
/// one, else its own.
fn remember(c: &Connection, session: &str, id: &str, token: &str) -> rusqlite::Result<()> {
    let n = c.execute(
        "INSERT INTO account_seats (account_id, game_id, token)
         SELECT account_id, ?2, ?3 FROM account_sessions WHERE session = ?1
         ON CONFLICT (account_id, game_id) DO UPDATE SET token = excluded.token",
        params![session, id, token],
    )?;
    if n == 0 {
        c.execute(
            "INSERT INTO session_seats (session, game_id, token) VALUES (?1, ?2, ?3)
             ON CONFLICT (session, game_id) DO UPDATE SET token = excluded.token",
            params![session, id, token],
        )?;
    }
    Ok(())
}

/// Issues session `id`, logged in to `account` if given.
fn start_session(
    c: &Connection,
    id: &str,
    account: Option<&str>,
    now: i64,
) -> rusqlite::Result<()> {
    c.execute(
        "INSERT INTO sessions (id, created_at) VALUES (?1, ?2)",
        params![id, now],
    )?;
    if let Some(a) = account {
        c.execute(
            "INSERT INTO account_sessions (session, account_id, created_at) VALUES (?1, ?2, ?3)",
            params![id, a, now],
        )?;
    }
    Ok(())
}

/// Ends a session: its own seats go (an account keeps its own), and with
/// them its log-in.
fn end_session(c: &Connection, id: &str) -> rusqlite::Result<()> {
    c.execute("DELETE FROM session_seats WHERE session = ?1", [id])?;
    c.execute("DELETE FROM account_sessions WHERE session = ?1", [id])?;
    c.execute("DELETE FROM sessions WHERE id = ?1", [id])?;
    Ok(())
}

/// Gives the seats session `from` holds of its own to `account` (a seat
/// the account already holds in a game stays), then ends `from`.
fn end_into_account(c: &Connection, from: &str, account: &str) -> rusqlite::Result<()> {
    c.execute(
        "INSERT INTO account_seats (account_id, game_id, token)
         SELECT ?2, game_id, token FROM session_seats WHERE session = ?1
         ON CONFLICT (account_id, game_id) DO NOTHING",
        params![from, account],
    )?;
    end_session(c, from)
}

/// Reads a challenges row.
fn challenge_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredChallenge> {
    let id: String = r.get("id")?;
    let rules: String = r.get("rules")?;
    let clock: Option<String> = r.get("clock")?;
    let colour: Option<String> = r.get("colour")?;
    Ok(StoredChallenge {
        rules: rules
            .parse()
            .map_err(|e| bad(&id, format!("challenge rules: {e}")))?,
        clock: clock
            .map(|c| c.parse())
            .transpose()
            .map_err(|e| bad(&id, format!("challenge clock: {e}")))?,
        colour: colour
            .map(|c| c.parse::<Player>())
            .transpose()
            .map_err(|_| bad(&id, "challenge colour"))?,
        session: r.get("session")?,
        player: r.get("player")?,
        name: r.get("name")?,
        rated: r.get("rated")?,
        quick: r.get("quick")?,
        created_at: r.get("created_at")?,
        game: r.get("game_id")?,
        rating: r.get("rating")?,
        id,
    })
}

fn insert_game(c: &Connection, g: &GameInfo, now: i64) -> rusqlite::Result<()> {
    c.execute(
        "INSERT INTO games (id, mode, rules, start, level, honourable, creator, token_a,
             token_b, token_both, ai_seat, status, created_at, updated_at, rematch, invite,
             device_a, device_b, device_both, clock, started_at, deadline, name_a, name_b,
             lobby, player_a, player_b, rated, rating_a, rating_b)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
             ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30)",
        params![
            g.id,
            g.mode.as_str(),
            g.rules.to_string(),
            g.start.to_string(),
            if g.perfect {
                PERFECT_LEVEL
            } else {
                u8::from(g.level)
            },
            g.honourable,
            g.creator.as_str(),
            g.tokens.0[0],
            g.tokens.0[1],
            g.tokens.0[2],
            g.ai_seat.map(|p| p.char().to_string()),
            g.status.as_str(),
            g.created_at,
            now,
            g.rematch,
            g.invite,
            g.devices.0[0],
            g.devices.0[1],
            g.devices.0[2],
            g.clock.map(|c| c.to_string()),
            g.started_at,
            g.deadline,
            g.names[0],
            g.names[1],
            g.lobby,
            g.players[0],
            g.players[1],
            g.rated,
            g.ratings[0],
            g.ratings[1],
        ],
    )?;
    Ok(())
}

fn holes_text(holes: &[Hole]) -> String {
    holes
        .iter()
        .map(|h| h.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The refusal of a change whose game has moved on: a constraint
/// violation, so that it reads as [`StoreError::Conflict`] (and the
/// job's savepoint is rolled back).
fn moved_on(why: &str) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CONSTRAINT),
        Some(format!("the game has moved on: {why}")),
    )
}

/// Checks that game `id` is being played with `takebacks` takebacks and,
/// if `ply` is given, that many actions.
fn check_at(c: &Connection, id: &str, takebacks: u32, ply: Option<u32>) -> rusqlite::Result<()> {
    let row: Option<(String, i64)> = c
        .query_row(
            "SELECT status, takebacks FROM games WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    match row {
        Some((status, t)) if status == "playing" && t == i64::from(takebacks) => {}
        _ => return Err(moved_on("not being played at this takeback")),
    }
    if let Some(ply) = ply {
        let n: i64 = c.query_row(
            "SELECT count(*) FROM actions WHERE game_id = ?1",
            [id],
            |r| r.get(0),
        )?;
        if n != i64::from(ply) {
            return Err(moved_on("not at this ply"));
        }
    }
    Ok(())
}

/// Called once the batch a job ran in is committed (`None`) or failed
/// (the reason): only then does the caller hear of its result.
type Finish = Box<dyn FnOnce(Option<String>) + Send>;
/// Work for the database thread, run inside the batch's transaction.
type Job = Box<dyn FnOnce(&Connection) -> Finish + Send>;

/// The most jobs committed together.
const BATCH: usize = 256;

/// Options of the SQLite store beyond its path.
#[derive(Debug, Clone, Default)]
pub struct SqliteOptions {
    /// A cap on the file's size in pages (`PRAGMA max_page_count`): a
    /// write past it fails as a full disk does (the fail-closed tests use
    /// it).
    pub max_pages: Option<u32>,
}

/// The SQLite store: a handle on its thread. Cheap to clone.
#[derive(Clone)]
pub struct SqliteStore {
    jobs: mpsc::Sender<Job>,
    failed: Arc<Failure>,
}

/// The store's failed state, shared with its thread.
#[derive(Default)]
struct Failure {
    set: AtomicBool,
    why: Mutex<Option<String>>,
}

impl Failure {
    fn fail(&self, why: String) {
        if !self.set.swap(true, Ordering::SeqCst) {
            tracing::error!(
                "DATABASE FAILURE: {why}. The server accepts no more changes (503) until it is \
                 restarted; games can still be watched. Check the disk and the database file, \
                 then restart."
            );
            *self.why.lock().unwrap_or_else(|e| e.into_inner()) = Some(why);
        }
    }

    fn get(&self) -> Option<String> {
        if !self.set.load(Ordering::SeqCst) {
            return None;
        }
        self.why.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// The identity of the database file (device and inode on Unix): a file
/// deleted, or replaced by another, under the server no longer matches.
#[cfg(unix)]
fn file_identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_identity(path: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(path).ok().map(|_| (0, 0))
}

/// Opens the file, sets durability pragmas, migrates the schema, and
/// proves it can write (a transaction that syncs).
fn open_connection(path: &Path, options: &SqliteOptions) -> anyhow::Result<Connection> {
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
    // Writable now, not at the first player's action: a transaction that
    // rewrites the schema version and syncs.
    let v: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    c.execute_batch(&format!(
        "BEGIN IMMEDIATE; PRAGMA user_version = {v}; COMMIT"
    ))
    .with_context(|| format!("the database {} is not writable", path.display()))?;
    if let Some(pages) = options.max_pages {
        c.pragma_update(None, "max_page_count", pages)?;
    }
    Ok(c)
}

/// Brings the schema up to [`SCHEMA_VERSION`], one transaction per step.
fn migrate(c: &mut Connection) -> anyhow::Result<()> {
    let version: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version < 0 || version as usize > schema::VERSION {
        bail!(
            "the database's schema version is {version}, newer than this server's ({}); \
             use a newer gore",
            schema::VERSION
        );
    }
    for (i, step) in schema::STEPS.iter().enumerate().skip(version as usize) {
        let tx = c.transaction()?;
        tx.execute_batch(&step.text(Dialect::Sqlite))?;
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

/// Whether an error of a job means the disk or the file failed (rather
/// than the job's own query being refused).
fn is_io_failure(e: &rusqlite::Error) -> bool {
    use rusqlite::ErrorCode as C;
    matches!(
        e,
        rusqlite::Error::SqliteFailure(f, _)
            if matches!(f.code, C::SystemIoFailure | C::DiskFull | C::DatabaseCorrupt
                | C::ReadOnly | C::CannotOpen | C::NotADatabase)
    )
}

/// One transaction for a batch of jobs; then every job hears how it went.
fn run_batch(conn: &Connection, batch: Vec<Job>, failure: &Failure) {
    if let Err(e) = conn.execute_batch("BEGIN IMMEDIATE") {
        if is_io_failure(&e) {
            failure.fail(format!("cannot begin a transaction: {e}"));
        }
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
    } else if let Some(why) = failure.get() {
        // A job met a disk failure: what it wrote is not to be trusted.
        Some(why)
    } else {
        conn.execute_batch("COMMIT").err().map(|e| {
            // A failed COMMIT is a failed write or sync: from now on the
            // state on disk is unknown.
            let why = format!("the commit failed: {e}");
            failure.fail(why.clone());
            why
        })
    };
    if let Some(why) = &failed {
        tracing::error!("database: the batch was not committed: {why}");
        let _ = conn.execute_batch("ROLLBACK");
    }
    for f in finishers {
        f(failed.clone());
    }
}

impl SqliteStore {
    /// Opens (creating if need be) and migrates the database, then starts
    /// its thread.
    ///
    /// The thread commits in groups: it takes every job waiting (up to
    /// `BATCH`, 256), runs each in a savepoint of one transaction, commits
    /// once (one sync to disk for all), and only then answers each job.
    /// An action is thus on disk before it is acknowledged, and a busy
    /// server does not wait for one sync per action. Before each batch the
    /// thread checks that the file is still the one it opened.
    pub fn open(path: &Path, options: SqliteOptions) -> anyhow::Result<SqliteStore> {
        let conn = open_connection(path, &options)?;
        let identity = file_identity(path);
        let (jobs, rx) = mpsc::channel::<Job>();
        let failed = Arc::new(Failure::default());
        let failure = failed.clone();
        let path = path.to_path_buf();
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
                    if failure.get().is_none() && file_identity(&path) != identity {
                        failure.fail(format!(
                            "the database file {} was deleted or replaced",
                            path.display()
                        ));
                    }
                    run_batch(&conn, batch, &failure);
                }
            })
            .context("cannot start the database thread")?;
        Ok(SqliteStore { jobs, failed })
    }

    /// Runs `f` on the database thread, in a savepoint of a transaction,
    /// and answers once that transaction is committed. An error from `f`
    /// undoes only what `f` did. `writes`: refused once the store failed.
    fn call<R, F>(
        &self,
        writes: bool,
        f: F,
    ) -> impl std::future::Future<Output = Result<R, DbError>> + Send + 'static
    where
        R: Send + 'static,
        F: FnOnce(&Connection) -> rusqlite::Result<R> + Send + 'static,
    {
        let (tx, rx) = oneshot::channel::<Result<R, DbError>>();
        let failure = self.failed.clone();
        let refused = writes.then(|| self.failed.get()).flatten();
        let sent = if refused.is_some() {
            Ok(())
        } else {
            self.jobs.send(Box::new(move |c: &Connection| -> Finish {
                let result = in_savepoint(c, f);
                if let Err(e) = &result {
                    if is_io_failure(e) {
                        failure.fail(format!("a write failed: {e}"));
                    }
                }
                Box::new(move |failed: Option<String>| {
                    let _ = tx.send(match failed {
                        // A read needs no commit: what it read stands even
                        // when the batch is rolled back.
                        Some(why) if writes => Err(DbError::Commit(why)),
                        _ => result.map_err(DbError::Sql),
                    });
                })
            }))
        };
        async move {
            if let Some(why) = refused {
                return Err(DbError::Failed(why));
            }
            sent.map_err(|_| DbError::Closed)?;
            rx.await.map_err(|_| DbError::Closed)?
        }
    }
}

fn load_game(c: &Connection, id: &str) -> rusqlite::Result<Option<StoredGame>> {
    let Some(info) = c
        .query_row("SELECT * FROM games WHERE id = ?1", [id], info_from_row)
        .optional()?
    else {
        return Ok(None);
    };
    let variant = info.rules.variant;
    let mut st = c.prepare_cached(
        "SELECT ply, action, created_at, position, captured FROM actions
         WHERE game_id = ?1 ORDER BY ply",
    )?;
    let actions = st
        .query_map([id], |r| {
            let ply: u32 = r.get(0)?;
            let action: String = r.get(1)?;
            let position: Option<String> = r.get(3)?;
            let captured: Option<String> = r.get(4)?;
            let at = format!("ply {ply}");
            Ok(StoredAction {
                ply,
                action: action.parse().map_err(|e| bad(id, format!("{at}: {e}")))?,
                captured: captured
                    .unwrap_or_default()
                    .split_whitespace()
                    .map(|h| h.parse::<Hole>())
                    .collect::<Result<_, _>>()
                    .map_err(|e| bad(id, format!("{at}: {e}")))?,
                position: position
                    .map(|p| Position::from_gpn(&p, variant))
                    .transpose()
                    .map_err(|e| bad(id, format!("{at}: {e}")))?,
                at: r.get(2)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Some(StoredGame { info, actions }))
}

/// The anonymous players unchanged since `?1` (or before) with nothing of
/// theirs left:
/// no account, no seat, no game, no challenge.
const FORGET_IDLE_PLAYERS_SQLITE: &str = "DELETE FROM players WHERE updated_at <= ?1
    AND NOT EXISTS (SELECT 1 FROM account_sessions a WHERE a.session = players.session)
    AND NOT EXISTS (SELECT 1 FROM session_seats s WHERE s.session = players.session)
    AND NOT EXISTS (SELECT 1 FROM games g WHERE g.player_a = players.id)
    AND NOT EXISTS (SELECT 1 FROM games g WHERE g.player_b = players.id)
    AND NOT EXISTS (SELECT 1 FROM challenges c WHERE c.session = players.session)";

impl Store for SqliteStore {
    fn create_game(&self, info: GameInfo, rematch_of: Option<String>) -> StoreFuture<()> {
        let f = self.call(true, move |c| {
            insert_game(c, &info, info.created_at)?;
            if let Some(old) = rematch_of {
                c.execute(
                    "UPDATE games SET rematch = ?2, updated_at = ?3 WHERE id = ?1",
                    params![old, info.id, info.created_at],
                )?;
            }
            Ok(())
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn load_game(&self, id: String) -> StoreFuture<Option<StoredGame>> {
        let f = self.call(false, move |c| load_game(c, &id));
        Box::pin(async move {
            f.await.map_err(|e| match e {
                DbError::Sql(rusqlite::Error::FromSqlConversionFailure(_, _, why)) => {
                    StoreError::Damaged {
                        id: String::new(),
                        why: why.to_string(),
                    }
                }
                e => e.into(),
            })
        })
    }

    fn append_action(
        &self,
        id: String,
        takebacks: u32,
        a: StoredAction,
        ending: Option<Outcome>,
        deadline: Option<i64>,
    ) -> StoreFuture<()> {
        let f = self.call(true, move |c| {
            // The ply itself is checked by the primary key.
            check_at(c, &id, takebacks, None)?;
            c.execute(
                "INSERT INTO actions (game_id, ply, action, created_at, position, captured)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    id,
                    a.ply,
                    a.action.to_string(),
                    a.at,
                    a.position.map(|p| p.to_string()),
                    holes_text(&a.captured),
                ],
            )?;
            match ending {
                Some(o) => c.execute(
                    "UPDATE games SET status = 'over', result = ?2, reason = ?3, updated_at = ?4,
                         takeback_request = NULL, deadline = NULL
                     WHERE id = ?1",
                    params![id, o.to_string(), o.reason.as_str(), a.at],
                )?,
                None => c.execute(
                    "UPDATE games SET updated_at = ?2, takeback_request = NULL, deadline = ?3
                     WHERE id = ?1",
                    params![id, a.at, deadline],
                )?,
            };
            Ok(())
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn change_game(&self, id: String, at: At, change: GameChange, now: i64) -> StoreFuture<()> {
        let f = self.call(true, move |c| {
            check_at(c, &id, at.takebacks, Some(at.ply))?;
            match change {
                GameChange::Forfeit { forfeit, result } => {
                    let (reason, resigned, loser) = super::forfeit_columns(forfeit);
                    c.execute(
                        "UPDATE games SET status = 'over', result = ?2, reason = ?3,
                             resigned = ?4, loser = ?5, takeback_request = NULL,
                             deadline = NULL, updated_at = ?6
                         WHERE id = ?1",
                        params![id, result, reason, resigned, loser, now],
                    )?
                }
                GameChange::TakeBack { to, deadline } => {
                    c.execute(
                        "DELETE FROM actions WHERE game_id = ?1 AND ply > ?2",
                        params![id, to],
                    )?;
                    c.execute(
                        "UPDATE games SET takebacks = takebacks + 1, takeback_request = NULL,
                             updated_at = ?2, deadline = ?3
                         WHERE id = ?1",
                        params![id, now, deadline],
                    )?
                }
                GameChange::Request(who) => c.execute(
                    "UPDATE games SET takeback_request = ?2, updated_at = ?3 WHERE id = ?1",
                    params![id, who.map(|p| p.char().to_string()), now],
                )?,
                GameChange::Credit { credits, deadline } => c.execute(
                    "UPDATE games SET clock_credits = ?2, deadline = ?3 WHERE id = ?1",
                    params![id, super::credits_text(&credits), deadline],
                )?,
            };
            Ok(())
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn claim_invite(
        &self,
        id: String,
        code: String,
        seat: Player,
        claim: super::SeatClaim,
    ) -> StoreFuture<bool> {
        let (column, name, player) = match seat {
            Player::A => ("token_a", "name_a", "player_a"),
            Player::B => ("token_b", "name_b", "player_b"),
        };
        let f = self.call(true, move |c| {
            let n = c.execute(
                &format!(
                    "UPDATE games SET invite = NULL, {column} = ?3, status = 'playing',
                         updated_at = ?4, started_at = ?4, deadline = ?5, {name} = ?6,
                         {player} = ?7
                     WHERE id = ?1 AND invite = ?2 AND status = 'waiting'"
                ),
                params![
                    id,
                    code,
                    claim.token,
                    claim.now,
                    claim.deadline,
                    claim.name,
                    claim.player
                ],
            )?;
            Ok(n == 1)
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn set_device(&self, id: String, seat: Seat, code: Option<String>) -> StoreFuture<()> {
        let column = match seat {
            Seat::A => "device_a",
            Seat::B => "device_b",
            Seat::Both => "device_both",
        };
        let f = self.call(true, move |c| {
            c.execute(
                &format!("UPDATE games SET {column} = ?2 WHERE id = ?1"),
                params![id, code],
            )?;
            Ok(())
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn remember_seat(&self, session: String, id: String, token: String) -> StoreFuture<()> {
        let f = self.call(true, move |c| remember(c, &session, &id, &token));
        Box::pin(async move { Ok(f.await?) })
    }

    fn session_token(&self, session: String, id: String) -> StoreFuture<Option<String>> {
        let f = self.call(false, move |c| {
            c.query_row(
                "SELECT t.token FROM account_seats t
                 JOIN account_sessions s ON s.account_id = t.account_id
                 WHERE s.session = ?1 AND t.game_id = ?2
                 UNION ALL
                 SELECT token FROM session_seats WHERE session = ?1 AND game_id = ?2
                 LIMIT 1",
                params![session, id],
                |r| r.get(0),
            )
            .optional()
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn post_chat(
        &self,
        game: String,
        player: Player,
        text: String,
        at: i64,
    ) -> StoreFuture<ChatLine> {
        let f = self.call(true, move |c| {
            let n: u32 = c.query_row(
                "SELECT COALESCE(MAX(n), 0) + 1 FROM chat WHERE game_id = ?1",
                [&game],
                |r| r.get(0),
            )?;
            c.execute(
                "INSERT INTO chat (game_id, n, player, text, at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![game, n, player.char().to_string(), text, at],
            )?;
            Ok(ChatLine {
                n,
                from: player,
                text,
                at,
            })
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn chat_after(&self, game: String, after: u32) -> StoreFuture<Vec<ChatLine>> {
        let f = self.call(false, move |c| {
            let mut st = c.prepare(
                "SELECT n, player, text, at FROM (SELECT * FROM chat WHERE game_id = ?1 AND n > ?2
                     ORDER BY n DESC LIMIT 100) ORDER BY n",
            )?;
            let v = st
                .query_map(params![game, after], |r| {
                    let p: String = r.get(1)?;
                    Ok(ChatLine {
                        n: r.get(0)?,
                        from: if p == "B" { Player::B } else { Player::A },
                        text: r.get(2)?,
                        at: r.get(3)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(v)
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn report_chat(&self, game: String, n: u32, reporter: Player, at: i64) -> StoreFuture<()> {
        let f = self.call(true, move |c| {
            c.execute(
                "INSERT INTO chat_reports (game_id, n, reporter, at) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT DO NOTHING",
                params![game, n, reporter.char().to_string(), at],
            )?;
            Ok(())
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn record_abort(&self, player: String, game: String, at: i64) -> StoreFuture<()> {
        let f = self.call(true, move |c| {
            c.execute(
                "INSERT INTO aborts (player, game_id, at) VALUES (?1, ?2, ?3)
                 ON CONFLICT DO NOTHING",
                params![player, game, at],
            )?;
            Ok(())
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn aborts_since(&self, player: String, since: i64) -> StoreFuture<Vec<i64>> {
        let f = self.call(false, move |c| {
            let mut st =
                c.prepare("SELECT at FROM aborts WHERE player = ?1 AND at > ?2 ORDER BY at")?;
            let v = st
                .query_map(params![player, since], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<i64>>>()?;
            Ok(v)
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn forget_idle_players(&self, before: i64) -> StoreFuture<u64> {
        let f = self.call(true, move |c| {
            let n = c.execute(FORGET_IDLE_PLAYERS_SQLITE, params![before])?;
            Ok(n as u64)
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn active_ai_games(&self, limit: u32) -> StoreFuture<Vec<String>> {
        let f = self.call(false, move |c| {
            let mut st = c.prepare(
                "SELECT id FROM games WHERE mode = 'ai' AND status = 'playing'
                 ORDER BY updated_at DESC LIMIT ?1",
            )?;
            let ids = st
                .query_map([limit], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            Ok(ids)
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn create_session(&self, session: String, now: i64) -> StoreFuture<()> {
        let f = self.call(true, move |c| start_session(c, &session, None, now));
        Box::pin(async move { Ok(f.await?) })
    }

    fn session_exists(&self, session: String) -> StoreFuture<bool> {
        let f = self.call(false, move |c| {
            c.prepare_cached("SELECT 1 FROM sessions WHERE id = ?1")?
                .exists([session])
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn player(&self, session: String) -> StoreFuture<Option<StoredPlayer>> {
        let f = self.call(false, move |c| player_of(c, &session));
        Box::pin(async move { Ok(f.await?) })
    }

    fn create_player(
        &self,
        session: String,
        p: StoredPlayer,
        now: i64,
    ) -> StoreFuture<StoredPlayer> {
        let f = self.call(true, move |c| {
            c.execute(
                "INSERT INTO players (session, id, name, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?4) ON CONFLICT (session) DO NOTHING",
                params![session, p.id, p.name, now],
            )?;
            player_of(c, &session)?.ok_or(rusqlite::Error::QueryReturnedNoRows)
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn account_by_key(&self, key: String) -> StoreFuture<Option<StoredAccount>> {
        let f = self.call(false, move |c| {
            c.query_row(
                "SELECT a.id, a.username, a.password FROM account_keys k
                 JOIN accounts a ON a.id = k.account_id WHERE k.key = ?1",
                [key],
                |r| {
                    Ok(StoredAccount {
                        id: r.get(0)?,
                        username: r.get(1)?,
                        password: r.get(2)?,
                    })
                },
            )
            .optional()
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn keys_taken(&self, keys: Vec<String>) -> StoreFuture<bool> {
        let f = self.call(false, move |c| {
            let mut st = c.prepare("SELECT 1 FROM account_keys WHERE key = ?1")?;
            for k in &keys {
                if st.exists([k])? {
                    return Ok(true);
                }
            }
            Ok(false)
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn create_account(
        &self,
        a: StoredAccount,
        keys: Vec<String>,
        from: String,
        to: String,
        now: i64,
    ) -> StoreFuture<bool> {
        let f = self.call(true, move |c| {
            for k in &keys {
                c.execute(
                    "INSERT INTO account_keys (key, account_id) VALUES (?1, ?2)",
                    params![k, a.id],
                )?;
            }
            c.execute(
                "INSERT INTO accounts (id, username, password, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?4)",
                params![a.id, a.username, a.password, now],
            )?;
            c.execute(
                "UPDATE players SET session = ?2, name = ?3, updated_at = ?4 WHERE session = ?1",
                params![from, to, a.username, now],
            )?;
            end_into_account(c, &from, &a.id)?;
            start_session(c, &to, Some(&a.id), now)?;
            Ok(())
        });
        Box::pin(async move {
            match f.await {
                Ok(()) => Ok(true),
                Err(e) if e.is_conflict() => Ok(false),
                Err(e) => Err(e.into()),
            }
        })
    }

    fn log_in(&self, account: String, from: String, to: String, now: i64) -> StoreFuture<()> {
        let f = self.call(true, move |c| {
            end_into_account(c, &from, &account)?;
            start_session(c, &to, Some(&account), now)?;
            Ok(())
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn ratings_of(&self, account: String) -> StoreFuture<Vec<StoredRating>> {
        let f = self.call(false, move |c| {
            let mut st = c.prepare(
                "SELECT pace, rating, deviation, volatility, games FROM ratings
                 WHERE account_id = ?1 ORDER BY pace",
            )?;
            let v = st
                .query_map([account], rating_from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(v)
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn rate_game(&self, game: String, updates: Vec<RatingUpdate>, now: i64) -> StoreFuture<bool> {
        let f = self.call(true, move |c| {
            for u in &updates {
                let a = &u.after;
                let n = if u.before == 0 {
                    c.execute(
                        "INSERT INTO ratings (account_id, pace, rating, deviation, volatility,
                             games, updated_at)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                        params![
                            u.account,
                            a.pace,
                            a.rating,
                            a.deviation,
                            a.volatility,
                            a.games,
                            now
                        ],
                    )?
                } else {
                    c.execute(
                        "UPDATE ratings SET rating = ?3, deviation = ?4, volatility = ?5,
                             games = ?6, updated_at = ?7
                         WHERE account_id = ?1 AND pace = ?2 AND games = ?8",
                        params![
                            u.account,
                            a.pace,
                            a.rating,
                            a.deviation,
                            a.volatility,
                            a.games,
                            now,
                            u.before
                        ],
                    )?
                };
                if n != 1 {
                    return Err(moved_on("another game was rated meanwhile"));
                }
                c.execute(
                    "INSERT INTO rating_history (account_id, game_id, pace, rating, deviation, at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![u.account, game, a.pace, a.rating, a.deviation, now],
                )?;
            }
            Ok(())
        });
        Box::pin(async move {
            match f.await {
                Ok(()) => Ok(true),
                Err(e) if e.is_conflict() => Ok(false),
                Err(e) => Err(e.into()),
            }
        })
    }

    fn rating_history(&self, account: String) -> StoreFuture<Vec<HistoryPoint>> {
        let f = self.call(false, move |c| {
            let mut st = c.prepare(
                "SELECT game_id, pace, rating, deviation, at FROM rating_history
                 WHERE account_id = ?1 ORDER BY at, game_id",
            )?;
            let v = st
                .query_map([account], |r| {
                    Ok(HistoryPoint {
                        game: r.get(0)?,
                        pace: r.get(1)?,
                        rating: r.get(2)?,
                        deviation: r.get(3)?,
                        at: r.get(4)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(v)
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn leaderboard(&self, pace: String, limit: u32) -> StoreFuture<Vec<Ranked>> {
        let f = self.call(false, move |c| {
            let mut st = c.prepare(
                "SELECT a.id, a.username, r.pace, r.rating, r.deviation, r.volatility, r.games
                 FROM ratings r JOIN accounts a ON a.id = r.account_id
                 WHERE r.pace = ?1 ORDER BY r.rating DESC, a.username LIMIT ?2",
            )?;
            let v = st
                .query_map(params![pace, limit], |r| {
                    Ok(Ranked {
                        id: r.get(0)?,
                        username: r.get(1)?,
                        rating: StoredRating {
                            pace: r.get(2)?,
                            rating: r.get(3)?,
                            deviation: r.get(4)?,
                            volatility: r.get(5)?,
                            games: r.get(6)?,
                        },
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(v)
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn player_games(
        &self,
        player: String,
        limit: u32,
    ) -> StoreFuture<Vec<(GameInfo, Option<String>)>> {
        let f = self.call(false, move |c| {
            let mut st = c.prepare(
                "SELECT * FROM games WHERE player_a = ?1 OR player_b = ?1
                 ORDER BY created_at DESC LIMIT ?2",
            )?;
            let v = st
                .query_map(params![player, limit], |r| {
                    Ok((info_from_row(r)?, r.get::<_, Option<String>>("result")?))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(v)
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn unrated_games(&self, limit: u32) -> StoreFuture<Vec<String>> {
        let f = self.call(false, move |c| {
            let mut st = c.prepare(
                "SELECT id FROM games g WHERE rated AND status = 'over'
                     AND (reason IS NULL OR reason <> 'abort') AND player_a <> player_b
                     AND NOT EXISTS (SELECT 1 FROM rating_history h WHERE h.game_id = g.id)
                 LIMIT ?1",
            )?;
            let v = st
                .query_map([limit], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            Ok(v)
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn log_out(&self, session: String) -> StoreFuture<()> {
        let f = self.call(true, move |c| end_session(c, &session));
        Box::pin(async move { Ok(f.await?) })
    }

    fn set_password(
        &self,
        account: String,
        hash: String,
        from: String,
        to: String,
        now: i64,
    ) -> StoreFuture<()> {
        let f = self.call(true, move |c| {
            c.execute(
                "UPDATE accounts SET password = ?2, updated_at = ?3 WHERE id = ?1",
                params![account, hash, now],
            )?;
            // Every session of the account ends, the one asking too.
            let ended: Vec<String> = c
                .prepare("SELECT session FROM account_sessions WHERE account_id = ?1")?
                .query_map([&account], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            for s in ended.iter().chain([&from]) {
                end_session(c, s)?;
            }
            start_session(c, &to, Some(&account), now)?;
            Ok(())
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn set_player_name(&self, session: String, name: String, now: i64) -> StoreFuture<()> {
        let f = self.call(true, move |c| {
            c.execute(
                "UPDATE players SET name = ?2, updated_at = ?3 WHERE session = ?1",
                params![session, name, now],
            )?;
            Ok(())
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn post_challenge(&self, ch: StoredChallenge) -> StoreFuture<()> {
        let f = self.call(true, move |c| {
            c.execute(
                "INSERT INTO challenges (id, session, player, name, rules, clock, colour, rated,
                     quick, created_at, seen_at, rating)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10, ?11)",
                params![
                    ch.id,
                    ch.session,
                    ch.player,
                    ch.name,
                    ch.rules.to_string(),
                    ch.clock.map(|t| t.to_string()),
                    ch.colour.map(|p| p.char().to_string()),
                    ch.rated,
                    ch.quick,
                    ch.created_at,
                    ch.rating,
                ],
            )?;
            Ok(())
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn cancel_challenges(&self, session: String, id: Option<String>) -> StoreFuture<u64> {
        let f = self.call(true, move |c| {
            let n = c.execute(
                "DELETE FROM challenges WHERE session = ?1 AND game_id IS NULL
                     AND (?2 IS NULL OR id = ?2)",
                params![session, id],
            )?;
            Ok(n as u64)
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn open_challenges(&self, limit: u32) -> StoreFuture<Vec<StoredChallenge>> {
        let f = self.call(false, move |c| {
            let mut st = c.prepare(
                "SELECT * FROM challenges WHERE game_id IS NULL
                 ORDER BY created_at DESC, id DESC LIMIT ?1",
            )?;
            let v = st
                .query_map([limit], challenge_from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(v)
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn challenge(&self, id: String) -> StoreFuture<Option<StoredChallenge>> {
        let f = self.call(false, move |c| {
            c.query_row(
                "SELECT * FROM challenges WHERE id = ?1",
                [id],
                challenge_from_row,
            )
            .optional()
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn find_matches(&self, seek: StoredChallenge, limit: u32) -> StoreFuture<Vec<StoredChallenge>> {
        let f = self.call(false, move |c| {
            let mut st = c.prepare(
                "SELECT * FROM challenges WHERE game_id IS NULL AND quick
                     AND clock IS ?1 AND rules = ?2 AND rated = ?3 AND player <> ?4
                 ORDER BY created_at, id LIMIT ?5",
            )?;
            let v = st
                .query_map(
                    params![
                        seek.clock.map(|t| t.to_string()),
                        seek.rules.to_string(),
                        seek.rated,
                        seek.player,
                        limit,
                    ],
                    challenge_from_row,
                )?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(v)
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn pair(
        &self,
        taken: Vec<String>,
        game: GameInfo,
        seats: Vec<(String, String)>,
    ) -> StoreFuture<bool> {
        let f = self.call(true, move |c| {
            for id in &taken {
                let n = c.execute(
                    "UPDATE challenges SET game_id = ?2 WHERE id = ?1 AND game_id IS NULL",
                    params![id, game.id],
                )?;
                if n != 1 {
                    return Err(moved_on("the challenge was taken or withdrawn"));
                }
            }
            insert_game(c, &game, game.created_at)?;
            for (session, token) in &seats {
                remember(c, session, &game.id, token)?;
            }
            Ok(())
        });
        Box::pin(async move {
            match f.await {
                Ok(()) => Ok(true),
                Err(e) if e.is_conflict() => Ok(false),
                Err(e) => Err(e.into()),
            }
        })
    }

    fn touch_challenges(&self, sessions: Vec<String>, now: i64) -> StoreFuture<()> {
        let f = self.call(true, move |c| {
            let mut st = c.prepare(
                "UPDATE challenges SET seen_at = ?2 WHERE session = ?1 AND game_id IS NULL",
            )?;
            for s in &sessions {
                st.execute(params![s, now])?;
            }
            Ok(())
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn expire_challenges(&self, unseen_before: i64, taken_before: i64) -> StoreFuture<u64> {
        let f = self.call(true, move |c| {
            let n = c.execute(
                "DELETE FROM challenges WHERE (game_id IS NULL AND seen_at < ?1)
                     OR (game_id IS NOT NULL AND created_at < ?2)",
                params![unseen_before, taken_before],
            )?;
            Ok(n as u64)
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn playing_now(&self, limit: u32) -> StoreFuture<Vec<GameInfo>> {
        let f = self.call(false, move |c| {
            let mut st = c.prepare(
                "SELECT * FROM games WHERE mode = 'friend' AND status = 'playing'
                 ORDER BY started_at DESC LIMIT ?1",
            )?;
            let v = st
                .query_map([limit], info_from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(v)
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn set_away(&self, id: String, seat: Player, since: Option<i64>) -> StoreFuture<()> {
        let column = match seat {
            Player::A => "away_a",
            Player::B => "away_b",
        };
        let f = self.call(true, move |c| {
            c.execute(
                &format!("UPDATE games SET {column} = ?2 WHERE id = ?1"),
                params![id, since],
            )?;
            Ok(())
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn heartbeat(
        &self,
        server: String,
        now: i64,
        games: Vec<String>,
        dead_before: i64,
    ) -> StoreFuture<()> {
        let f = self.call(true, move |c| {
            c.execute(
                "INSERT INTO servers (id, alive_at) VALUES (?1, ?2)
                 ON CONFLICT (id) DO UPDATE SET alive_at = excluded.alive_at",
                params![server, now],
            )?;
            let mut st = c.prepare_cached(
                "UPDATE games SET server = ?2 WHERE id = ?1 AND (server IS NULL
                     OR server NOT IN (SELECT id FROM servers WHERE alive_at >= ?3))",
            )?;
            for g in games {
                st.execute(params![g, server, dead_before])?;
            }
            Ok(())
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn take_over(&self, id: String, server: String, dead_before: i64) -> StoreFuture<Option<i64>> {
        let f = self.call(true, move |c| {
            let row: Option<(Option<String>, Option<i64>)> = c
                .query_row(
                    "SELECT g.server, s.alive_at FROM games g
                     LEFT JOIN servers s ON s.id = g.server WHERE g.id = ?1",
                    [&id],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            let Some((was, alive_at)) = row else {
                return Ok(None);
            };
            let credit = match (&was, alive_at) {
                (Some(w), _) if *w == server => return Ok(None),
                (Some(_), Some(at)) if at >= dead_before => return Ok(None),
                (Some(_), at) => at,
                (None, _) => None,
            };
            c.execute(
                "UPDATE games SET server = ?2 WHERE id = ?1",
                params![id, server],
            )?;
            Ok(credit)
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn set_watchers(
        &self,
        server: String,
        counts: Vec<(String, u32)>,
        now: i64,
    ) -> StoreFuture<()> {
        let f = self.call(true, move |c| {
            c.execute("DELETE FROM watchers WHERE server = ?1", [&server])?;
            let mut st =
                c.prepare("INSERT INTO watchers (game_id, server, n, at) VALUES (?1, ?2, ?3, ?4)")?;
            for (g, n) in &counts {
                st.execute(params![g, server, n, now])?;
            }
            Ok(())
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn watchers(&self, ids: Vec<String>, since: i64) -> StoreFuture<Vec<(String, u32)>> {
        let f = self.call(false, move |c| {
            let mut st = c.prepare(
                "SELECT COALESCE(SUM(n), 0) FROM watchers WHERE game_id = ?1 AND at > ?2",
            )?;
            let mut v = Vec::new();
            for id in ids {
                let n: u32 = st.query_row(params![id, since], |r| r.get(0))?;
                if n > 0 {
                    v.push((id, n));
                }
            }
            Ok(v)
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn due_games(&self, now: i64, limit: u32) -> StoreFuture<Vec<String>> {
        let f = self.call(false, move |c| {
            let mut st = c.prepare(
                "SELECT id FROM games WHERE deadline IS NOT NULL AND deadline <= ?1
                     AND status = 'playing'
                 ORDER BY deadline LIMIT ?2",
            )?;
            let ids = st
                .query_map(params![now, limit], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            Ok(ids)
        });
        Box::pin(async move { Ok(f.await?) })
    }

    fn failure(&self) -> Option<String> {
        self.failed.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_run_once_and_refuse_newer_schemas() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.sqlite3");
        let c = open_connection(&path, &SqliteOptions::default()).unwrap();
        let v: i64 = c
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v as usize, SCHEMA_VERSION);
        let sync: i64 = c.query_row("PRAGMA synchronous", [], |r| r.get(0)).unwrap();
        assert_eq!(sync, 2, "synchronous=FULL");
        drop(c);
        // Opening again changes nothing.
        let c = open_connection(&path, &SqliteOptions::default()).unwrap();
        c.pragma_update(None, "user_version", 99).unwrap();
        drop(c);
        let e = open_connection(&path, &SqliteOptions::default()).unwrap_err();
        assert!(format!("{e:#}").contains("newer"), "{e:#}");
    }

    /// Sessions before they were issued (issue 25 item 11): after the
    /// migration, logged-in sessions and anonymous players' stay sessions,
    /// the seats of the logged-in are their account's; a session whose
    /// player became an account but is no longer logged in (logged out),
    /// and ids that only held seats, are sessions no more, seats and all.
    #[test]
    fn sessions_migrate_to_issued_ones_and_account_seats() {
        let step = schema::STEPS
            .iter()
            .position(|s| s.about == "issued sessions and the accounts' seats")
            .unwrap();
        let mut c = Connection::open_in_memory().unwrap();
        for s in &schema::STEPS[..step] {
            c.execute_batch(&s.text(Dialect::Sqlite)).unwrap();
        }
        // Seats of games not made here: their rows are beside the point.
        c.execute_batch(
            "PRAGMA foreign_keys = OFF;
             INSERT INTO accounts VALUES ('acc', 'Koffi', 'h', 1, 1);
             INSERT INTO players VALUES ('signedup', 'acc', 'Koffi', 1, 1);
             INSERT INTO players VALUES ('anon', 'p2', 'Anon', 2, 2);
             INSERT INTO account_sessions VALUES ('in', 'acc', 3);
             INSERT INTO session_seats VALUES ('in', 'g1', 't1');
             INSERT INTO session_seats VALUES ('anon', 'g2', 't2');
             INSERT INTO session_seats VALUES ('signedup', 'g3', 't3');
             INSERT INTO session_seats VALUES ('device', 'g4', 't4')",
        )
        .unwrap();
        let tx = c.transaction().unwrap();
        tx.execute_batch(&schema::STEPS[step].text(Dialect::Sqlite))
            .unwrap();
        tx.commit().unwrap();
        let list = |q: &str| -> Vec<String> {
            c.prepare(q)
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap()
        };
        assert_eq!(list("SELECT id FROM sessions ORDER BY id"), ["anon", "in"]);
        assert_eq!(
            list("SELECT account_id || game_id || token FROM account_seats"),
            ["accg1t1"]
        );
        assert_eq!(
            list("SELECT session || game_id || token FROM session_seats"),
            ["anong2t2"]
        );
    }

    /// A file at schema version 4 (ladder of 8 levels, the perfect player
    /// stored as level 9) with a perfect game and a level-5 game: after the
    /// migration the first reads as perfect, the second as level 5.
    #[test]
    fn the_old_perfect_level_migrates_and_other_levels_keep_their_number() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.sqlite3");
        let mut c = Connection::open(&path).unwrap();
        for (i, step) in schema::STEPS[..4].iter().enumerate() {
            let tx = c.transaction().unwrap();
            tx.execute_batch(&step.text(Dialect::Sqlite)).unwrap();
            tx.pragma_update(None, "user_version", (i + 1) as i64)
                .unwrap();
            tx.commit().unwrap();
        }
        let rules = Rules::STANDARD;
        let start = Position::new(rules.variant).to_string();
        for (id, level) in [("perfect000", 9), ("level50000", 5), ("level80000", 8)] {
            c.execute(
                "INSERT INTO games (id, mode, rules, start, level, creator, token_a, ai_seat,
                     status, created_at, updated_at)
                 VALUES (?1, 'ai', ?2, ?3, ?4, 'A', 'tok', 'B', 'playing', 1, 1)",
                params![id, rules.to_string(), start, level],
            )
            .unwrap();
        }
        drop(c);
        let c = open_connection(&path, &SqliteOptions::default()).unwrap();
        let read = |id: &str| {
            c.query_row("SELECT * FROM games WHERE id = ?1", [id], info_from_row)
                .unwrap()
        };
        let perfect = read("perfect000");
        assert!(perfect.perfect);
        assert_eq!(perfect.level, Level::MAX);
        let five = read("level50000");
        assert!(!five.perfect);
        assert_eq!(five.level.get(), 5);
        let eight = read("level80000");
        assert!(!eight.perfect);
        assert_eq!(eight.level.get(), 8);
        let stored: u8 = c
            .query_row("SELECT level FROM games WHERE id = 'perfect000'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(stored, PERFECT_LEVEL);
    }
}
