//! The PostgreSQL store: games, their actions and the seats each browser
//! session holds, in a PostgreSQL database that several servers may share.
//!
//! Crates: `tokio-postgres` (the asynchronous client of the `rust-postgres`
//! project, the one most Rust services on PostgreSQL use, maintained for a
//! decade, with no macros or build-time database) and `deadpool-postgres`
//! (the usual pool for it: small, no background threads, checks connections
//! as they are handed out). sqlx was the other candidate; it brings its
//! own migrations, macros and several database drivers this server does
//! not need. TLS to the database is not built in yet (the client connects
//! without TLS): keep the database on the same machine or a private
//! network.
//!
//! # Guarantees (the same as the SQLite store's)
//! - Every write is one transaction, committed (`synchronous_commit = on`
//!   for it, whatever the server's default) before its future resolves
//!   `Ok`: the domain acknowledges and broadcasts an action only then.
//! - `actions (game_id, ply)` is the primary key: a second commit of the
//!   same ply, from this process or any other, is [`StoreError::Conflict`]
//!   (the database enforces it, not a lock here).
//! - A refused or failed write changes nothing: its transaction is rolled
//!   back (or never committed).
//!
//! # When the connection is lost (the policy)
//! - Lost **before** `COMMIT` was sent: PostgreSQL rolls the transaction
//!   back when its session ends, so nothing was written. The store drops
//!   its idle connections (they are likely dead too) and runs the write
//!   again on a new connection from the pool; if no connection can be made
//!   the write is refused ([`StoreError::Failed`]) and so is every write
//!   after it, at once, until a connection works again (the database is
//!   *unreachable*).
//! - Lost **during** `COMMIT` (no answer to it): the outcome is unknown.
//!   Each write transaction asks for its id (`txid_current()`) first, so
//!   the store asks a new connection `txid_status(id)`: *committed* — the
//!   write is durable and is acknowledged; *aborted* — nothing changed and
//!   the write is refused; still *in progress*, or no connection — it asks
//!   again, for at most [`PgOptions::resolve_wait`]. Past that the write is
//!   refused **without being acknowledged** (it may have committed), and
//!   every write is refused while that outcome is unknown; a background
//!   task keeps asking, and writes resume once it knows. (An action that
//!   did commit then shows when its game is next loaded: the domain drops a
//!   game from memory when a write of it fails.) If PostgreSQL no longer
//!   knows the transaction (`txid_status` is null, far in the past), the
//!   store fails closed for good, as the SQLite store does: restart.
//! - While writes are refused, [`Store::failure`] says why, and reads go
//!   on whenever the database answers.

use std::collections::HashSet;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use gore_ai::Level;
use gore_core::{Hole, Outcome, Player, Position, Rules};
use tokio_postgres::types::ToSql;
use tokio_postgres::{NoTls, Row, SimpleQueryMessage};

use super::schema::{self, Dialect};
use super::{
    At, ChatLine, GameChange, HistoryPoint, Notice, Ranked, RatingUpdate, Store, StoreError,
    StoreFuture, StoredAccount, StoredAction, StoredChallenge, StoredGame, StoredPlayer,
    StoredRating,
};
use crate::domain::{GameInfo, Mode, PerSeat, Seat, Status, PERFECT_LEVEL};

/// Options of the PostgreSQL store beyond its URL.
#[derive(Debug, Clone)]
pub struct PgOptions {
    /// Connections in the pool at most.
    pub pool_size: usize,
    /// How long a connection attempt may take (unless the URL sets
    /// `connect_timeout`).
    pub connect_timeout: Duration,
    /// How long a write whose commit outcome is unknown waits to learn it
    /// before it is refused.
    pub resolve_wait: Duration,
}

impl Default for PgOptions {
    fn default() -> PgOptions {
        PgOptions {
            pool_size: 16,
            connect_timeout: Duration::from_secs(5),
            resolve_wait: Duration::from_secs(10),
        }
    }
}

/// The advisory lock migrations run under ("gore" in ASCII).
const MIGRATION_LOCK: i64 = 0x676f_7265;

/// The PostgreSQL store: a pool of connections. Cheap to clone.
#[derive(Clone)]
pub struct PgStore(Arc<Inner>);

struct Inner {
    pool: Pool,
    options: PgOptions,
    health: Mutex<Health>,
    /// Whether the background task that restores health is running.
    probing: AtomicBool,
    /// This store's name in notices and AI claims: its own are ignored.
    origin: String,
    /// Other servers' changes, from `LISTEN gore_changes`.
    notices: tokio::sync::broadcast::Sender<Notice>,
    /// This server's committed changes, for the notifier to announce.
    outbox: tokio::sync::mpsc::UnboundedSender<(String, u32)>,
}

/// The channel every server notifies and listens on.
const CHANNEL: &str = "gore_changes";

/// The most changes one notice carries (a payload stays well under
/// PostgreSQL's 8000 bytes).
const NOTICE_BATCH: usize = 250;

/// Announces this server's committed changes to the others: one `NOTIFY`
/// ("ORIGIN GAME PLY;GAME PLY;…") for all the changes committed since the
/// last, on a connection of its own with `synchronous_commit = off`.
///
/// Why not `NOTIFY` in each change's transaction: PostgreSQL takes one
/// lock for the whole cluster from a notifying transaction's commit until
/// its commit record is flushed, so notifying commits cannot share a disk
/// flush and queue up one flush at a time (docs/DEPLOY.md, "Where the limit
/// is", has the figures). Here the changes commit (durably, in groups) on
/// their own, and the notice, which is a hint and never the truth,
/// follows. A server killed between a commit and its notice leaves the
/// others behind until their catch-up sweep
/// ([`Store::latest_plies`]) finds it.
fn spawn_notifier(
    config: tokio_postgres::Config,
    origin: String,
    mut outbox: tokio::sync::mpsc::UnboundedReceiver<(String, u32)>,
) {
    tokio::spawn(async move {
        let mut client: Option<tokio_postgres::Client> = None;
        let mut batch: Vec<(String, u32)> = Vec::new();
        loop {
            if batch.is_empty() {
                match outbox.recv().await {
                    Some(change) => batch.push(change),
                    None => return, // the store was dropped
                }
            }
            while batch.len() < NOTICE_BATCH {
                match outbox.try_recv() {
                    Ok(change) => batch.push(change),
                    Err(_) => break,
                }
            }
            if client.as_ref().is_none_or(|c| c.is_closed()) {
                client = match config.connect(NoTls).await {
                    Ok((c, connection)) => {
                        tokio::spawn(connection);
                        // A notice is a hint: its transaction need not
                        // wait for the disk (the changes it names did).
                        match c.batch_execute("SET synchronous_commit = off").await {
                            Ok(()) => Some(c),
                            Err(_) => None,
                        }
                    }
                    Err(_) => None,
                };
            }
            let payload = notice_payload(&origin, &batch);
            let sent = match &client {
                Some(c) => c
                    .execute("SELECT pg_notify('gore_changes', $1)", &[&payload])
                    .await
                    .is_ok(),
                None => false,
            };
            if sent {
                batch.clear();
            } else {
                // The database is away: the batch is kept and sent once it
                // is back (the listeners reload everything then anyway).
                client = None;
                tokio::time::sleep(std::time::Duration::from_millis(500)).await;
            }
        }
    });
}

/// A notice's payload: "ORIGIN GAME PLY;GAME PLY;…".
fn notice_payload(origin: &str, changes: &[(String, u32)]) -> String {
    let list: Vec<String> = changes.iter().map(|(g, p)| format!("{g} {p}")).collect();
    format!("{origin} {}", list.join(";"))
}

/// Reads a notice's payload: nothing for this store's own; what parses of
/// a malformed one.
fn parse_notice(payload: &str, origin: &str) -> Vec<Notice> {
    let Some((from, list)) = payload.split_once(' ') else {
        return Vec::new();
    };
    if from == origin {
        return Vec::new();
    }
    list.split(';')
        .filter_map(|change| {
            let (game, ply) = change.split_once(' ')?;
            if let Some(event) = game.strip_prefix('~') {
                return Some(Notice::Lobby(event.replace('/', " ")));
            }
            Some(Notice::Changed {
                game: game.to_string(),
                ply: ply.parse().ok()?,
            })
        })
        .collect()
}

/// Listens to [`CHANNEL`] on a connection of its own, for as long as the
/// store lives; after a lost connection it connects again and sends
/// [`Notice::Missed`] (what was notified meanwhile is lost).
fn spawn_listener(
    config: tokio_postgres::Config,
    origin: String,
    tx: tokio::sync::broadcast::Sender<Notice>,
    ready: tokio::sync::oneshot::Sender<()>,
) {
    tokio::spawn(async move {
        let mut first = true;
        let mut ready = Some(ready);
        loop {
            if tx.receiver_count() == 0 && !first {
                // Nobody listens any more (the store was dropped).
                return;
            }
            match config.connect(NoTls).await {
                Ok((client, mut connection)) => {
                    let (msgs_tx, mut msgs) = tokio::sync::mpsc::unbounded_channel();
                    let driver = tokio::spawn(async move {
                        let mut stream =
                            futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
                        use futures_util::StreamExt;
                        while let Some(Ok(m)) = stream.next().await {
                            if msgs_tx.send(m).is_err() {
                                return;
                            }
                        }
                    });
                    if client
                        .batch_execute(&format!("LISTEN {CHANNEL}"))
                        .await
                        .is_ok()
                    {
                        if !first {
                            let _ = tx.send(Notice::Missed);
                        }
                        first = false;
                        if let Some(r) = ready.take() {
                            let _ = r.send(());
                        }
                        while let Some(m) = msgs.recv().await {
                            if let tokio_postgres::AsyncMessage::Notification(n) = m {
                                for notice in parse_notice(n.payload(), &origin) {
                                    let _ = tx.send(notice);
                                }
                            }
                        }
                    }
                    driver.abort();
                    tracing::warn!("database: the LISTEN connection was lost; connecting again");
                }
                Err(e) => tracing::warn!("database: cannot LISTEN: {e}"),
            }
            tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        }
    });
}

/// Why writes are refused, if they are.
#[derive(Default)]
struct Health {
    /// No connection could be made (why).
    unreachable: Option<String>,
    /// Transactions whose `COMMIT` went unanswered, and why.
    unknown: HashSet<i64>,
    unknown_why: Option<String>,
    /// Failed for good (restart).
    fatal: Option<String>,
}

impl Health {
    fn refusal(&self) -> Option<String> {
        if let Some(why) = &self.fatal {
            return Some(why.clone());
        }
        if !self.unknown.is_empty() {
            return Some(format!(
                "the outcome of a commit is unknown ({}); no writes until it is known",
                self.unknown_why
                    .as_deref()
                    .unwrap_or("the connection was lost")
            ));
        }
        self.unreachable
            .as_ref()
            .map(|why| format!("the database cannot be reached: {why}"))
    }
}

/// A connection from the pool that may be inside a transaction: dropped
/// without [`Conn::release`] (the future holding it was dropped halfway),
/// it is closed — PostgreSQL rolls the transaction back — rather than
/// returned to the pool with the transaction open.
struct Conn(Option<deadpool_postgres::Object>);

impl Conn {
    /// Back to the pool: the transaction, if any, has ended.
    fn release(mut self) {
        drop(self.0.take());
    }

    /// Out of the pool for good (closed).
    fn discard(mut self) {
        if let Some(c) = self.0.take() {
            drop(deadpool_postgres::Object::take(c));
        }
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        if let Some(c) = self.0.take() {
            drop(deadpool_postgres::Object::take(c));
        }
    }
}

impl Conn {
    /// The pooled client, with its cache of prepared statements.
    fn wrapper(&self) -> &deadpool_postgres::ClientWrapper {
        self.0.as_ref().expect("a connection until released")
    }
}

impl std::ops::Deref for Conn {
    type Target = tokio_postgres::Client;
    fn deref(&self) -> &tokio_postgres::Client {
        self.0.as_ref().expect("a connection until released")
    }
}

/// A statement of a write and its parameters.
struct Stmt {
    sql: String,
    params: Vec<Box<dyn ToSql + Send + Sync>>,
    /// The rows it must touch, or the transaction is rolled back and the
    /// write refused as [`StoreError::Conflict`] (the game moved on).
    expect: Option<u64>,
}

fn stmt(sql: impl Into<String>, params: Vec<Box<dyn ToSql + Send + Sync>>) -> Stmt {
    Stmt {
        sql: sql.into(),
        params,
        expect: None,
    }
}

impl Stmt {
    /// The statement must touch `n` rows.
    fn expect(mut self, n: u64) -> Stmt {
        self.expect = Some(n);
        self
    }
}

/// Locks game `id`'s row for the rest of the transaction, if it is being
/// played with `takebacks` takebacks (else the write is a conflict). Every
/// change of a game's actions takes this lock first, so that they are
/// one after the other; the statements after it see what committed
/// before (each statement of a `READ COMMITTED` transaction has a
/// snapshot of its own).
fn lock_at(id: &str, takebacks: u32) -> Stmt {
    stmt(
        "SELECT 1 FROM games WHERE id = $1 AND status = 'playing' AND takebacks = $2
         FOR UPDATE",
        vec![
            Box::new(id.to_string()),
            Box::new(i32::try_from(takebacks).unwrap_or(i32::MAX)),
        ],
    )
    .expect(1)
}

/// Checks that game `id` has `ply` actions (after [`lock_at`]).
fn check_ply(id: &str, ply: u32) -> Stmt {
    stmt(
        "SELECT 1 FROM games WHERE id = $1
             AND (SELECT count(*) FROM actions WHERE game_id = $1) = $2",
        vec![Box::new(id.to_string()), Box::new(i64::from(ply))],
    )
    .expect(1)
}

/// How a transaction went wrong.
enum TxError {
    /// The database refused a statement; rolled back.
    Refused(tokio_postgres::Error),
    /// The connection was lost before `COMMIT` was sent: nothing written.
    Lost(String),
    /// A statement touched other rows than it had to (the game moved
    /// on); rolled back.
    Moved,
    /// `COMMIT` went unanswered: the outcome of transaction `xid` is unknown.
    AtCommit {
        xid: i64,
        why: String,
        counts: Vec<u64>,
    },
}

/// Whether an error means the connection is gone (rather than a query
/// refused on a live connection).
fn is_lost(e: &tokio_postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    if let Some(db) = e.as_db_error() {
        let code = db.code().code();
        // Connection exceptions, operator intervention (terminated,
        // shutting down), and any FATAL error: the session ends.
        return code.starts_with("08")
            || code.starts_with("57")
            || matches!(db.severity(), "FATAL" | "PANIC");
    }
    std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>())
}

fn is_conflict(e: &tokio_postgres::Error) -> bool {
    e.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION)
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// A URL with its password replaced, for messages.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (auth, host) = match rest.rsplit_once('@') {
        Some((a, h)) => (a, h),
        None => return url.to_string(),
    };
    let user = auth.split_once(':').map_or(auth, |(u, _)| u);
    format!("{scheme}://{user}:***@{host}")
}

impl PgStore {
    /// Connects, migrates the schema (under an advisory lock: servers
    /// starting together migrate once) and proves the database writable.
    pub async fn connect(url: &str, options: PgOptions) -> anyhow::Result<PgStore> {
        let mut config = tokio_postgres::Config::from_str(url)
            .with_context(|| format!("--db: not a PostgreSQL URL: {}", redact(url)))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(options.connect_timeout);
        }
        if config.get_application_name().is_none() {
            config.application_name("gore");
        }
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(options.pool_size.max(1))
            .runtime(Runtime::Tokio1)
            .create_timeout(Some(options.connect_timeout))
            .wait_timeout(Some(options.connect_timeout * 2))
            .build()
            .context("cannot make the PostgreSQL pool")?;
        let mut client = pool
            .get()
            .await
            .with_context(|| format!("cannot connect to PostgreSQL at {}", redact(url)))?;
        migrate(&mut client)
            .await
            .with_context(|| format!("cannot migrate the database {}", redact(url)))?;
        drop(client);
        let origin = format!("{:016x}", rand::random::<u64>());
        let (notices, _) = tokio::sync::broadcast::channel(4096);
        let listen_config = tokio_postgres::Config::from_str(url)?;
        let (ready, listening) = tokio::sync::oneshot::channel();
        spawn_listener(
            listen_config.clone(),
            origin.clone(),
            notices.clone(),
            ready,
        );
        let (outbox, unsent) = tokio::sync::mpsc::unbounded_channel();
        spawn_notifier(listen_config, origin.clone(), unsent);
        // Serving before listening would miss other servers' changes.
        tokio::time::timeout(options.connect_timeout * 2, listening)
            .await
            .map_err(|_| anyhow::anyhow!("cannot LISTEN on {}", redact(url)))?
            .map_err(|_| anyhow::anyhow!("cannot LISTEN on {}", redact(url)))?;
        Ok(PgStore(Arc::new(Inner {
            pool,
            options,
            health: Mutex::new(Health::default()),
            probing: AtomicBool::new(false),
            origin,
            notices,
            outbox,
        })))
    }

    /// Tells the other servers of a change this server committed (through
    /// the notifier: after the commit, in a batch).
    fn announce(&self, game: String, ply: u32) {
        let _ = self.0.outbox.send((game, ply));
    }

    fn health(&self) -> std::sync::MutexGuard<'_, Health> {
        self.0.health.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn unreachable(&self, why: String) {
        {
            let mut h = self.health();
            if h.unreachable.is_none() {
                tracing::error!(
                    "DATABASE UNREACHABLE: {why}. The server accepts no changes (503) until \
                     it can connect again; games can still be watched."
                );
            }
            h.unreachable = Some(why);
        }
        self.spawn_probe();
    }

    /// Gets a connection: a dead one in the pool is replaced by a new one.
    async fn client(&self) -> Result<Conn, StoreError> {
        match self.0.pool.get().await {
            Ok(c) => Ok(Conn(Some(c))),
            Err(e) => {
                let why = e.to_string();
                self.unreachable(why.clone());
                Err(StoreError::Failed(format!(
                    "the database cannot be reached: {why}"
                )))
            }
        }
    }

    /// A connection was lost: the idle ones probably are too (a restart,
    /// terminated backends), so drop them all; new ones replace them.
    fn drop_idle(&self, client: Conn) {
        client.discard();
        self.0.pool.retain(|_, _| false);
    }

    /// Runs `stmts` in one transaction (see the module's policy) and
    /// returns their row counts once committed.
    async fn write(&self, stmts: Vec<Stmt>) -> Result<Vec<u64>, StoreError> {
        if let Some(why) = self.health().refusal() {
            return Err(StoreError::Failed(why));
        }
        let mut lost = String::new();
        for _ in 0..3 {
            let client = self.client().await?;
            match run_tx(client.wrapper(), &stmts).await {
                Ok(counts) => {
                    client.release();
                    return Ok(counts);
                }
                Err(TxError::Refused(e)) => {
                    if client.batch_execute("ROLLBACK").await.is_err() {
                        self.drop_idle(client);
                    } else {
                        client.release();
                    }
                    if is_conflict(&e) {
                        return Err(StoreError::Conflict);
                    }
                    return Err(StoreError::Other(e.to_string()));
                }
                Err(TxError::Moved) => {
                    if client.batch_execute("ROLLBACK").await.is_err() {
                        self.drop_idle(client);
                    } else {
                        client.release();
                    }
                    return Err(StoreError::Conflict);
                }
                Err(TxError::Lost(why)) => {
                    tracing::warn!("database: connection lost before commit ({why}); retrying");
                    self.drop_idle(client);
                    lost = why;
                }
                Err(TxError::AtCommit { xid, why, counts }) => {
                    self.drop_idle(client);
                    return self.resolve(xid, why).await.map(|()| counts);
                }
            }
        }
        let why = format!("the connection was lost three times: {lost}");
        self.unreachable(why.clone());
        Err(StoreError::Failed(format!("{why}; nothing was changed")))
    }

    /// Learns whether transaction `xid`, whose `COMMIT` went unanswered,
    /// committed: `Ok` if it did.
    async fn resolve(&self, xid: i64, why: String) -> Result<(), StoreError> {
        tracing::error!("database: no answer to a commit ({why}); asking whether it committed");
        {
            let mut h = self.health();
            h.unknown.insert(xid);
            h.unknown_why = Some(why.clone());
        }
        // The probe resolves it too, should this future be dropped before
        // it learns the outcome.
        self.spawn_probe();
        let deadline = Instant::now() + self.0.options.resolve_wait;
        loop {
            match self.xact_status(xid).await {
                Ok(Some(status)) if status == "committed" || status == "aborted" => {
                    self.known(xid);
                    return if status == "committed" {
                        Ok(())
                    } else {
                        Err(StoreError::Failed(format!(
                            "the connection was lost ({why}); nothing was changed"
                        )))
                    };
                }
                Ok(None) => return Err(StoreError::Failed(self.fatal(xid))),
                Ok(Some(_)) | Err(_) if Instant::now() >= deadline => {
                    self.spawn_probe();
                    return Err(StoreError::Failed(format!(
                        "the connection was lost during a commit ({why}) and its outcome is \
                         not known yet: not acknowledged"
                    )));
                }
                Ok(Some(_)) | Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
            }
        }
    }

    fn known(&self, xid: i64) {
        let mut h = self.health();
        h.unknown.remove(&xid);
        if h.unknown.is_empty() {
            h.unknown_why = None;
        }
    }

    fn fatal(&self, xid: i64) -> String {
        let why = format!(
            "the outcome of transaction {xid} cannot be known any more; restart the server"
        );
        tracing::error!("DATABASE FAILURE: {why}. The server accepts no more changes (503).");
        self.health().fatal = Some(why.clone());
        why
    }

    /// `txid_status(xid)` on a fresh connection.
    async fn xact_status(&self, xid: i64) -> Result<Option<String>, String> {
        let client = Conn(Some(self.0.pool.get().await.map_err(|e| e.to_string())?));
        match client
            .query_one("SELECT txid_status($1)", &[&xid])
            .await
            .and_then(|r| r.try_get::<_, Option<String>>(0))
        {
            Ok(s) => {
                client.release();
                Ok(s)
            }
            Err(e) => {
                self.drop_idle(client);
                Err(e.to_string())
            }
        }
    }

    /// Starts (once) the task that restores writes: it resolves unknown
    /// commits and checks that a connection works, every half second.
    fn spawn_probe(&self) {
        if self.0.probing.swap(true, Ordering::SeqCst) {
            return;
        }
        let weak = Arc::downgrade(&self.0);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(500)).await;
                let Some(inner) = weak.upgrade() else { return };
                let store = PgStore(inner);
                if store.probe().await {
                    store.0.probing.store(false, Ordering::SeqCst);
                    // A failure may have come in between the probe and now.
                    if store.health().refusal().is_some() && store.health().fatal.is_none() {
                        store.spawn_probe();
                    }
                    return;
                }
            }
        });
    }

    /// One round of the probe: `true` once healthy (or failed for good).
    async fn probe(&self) -> bool {
        let pending: Vec<i64> = self.health().unknown.iter().copied().collect();
        for xid in pending {
            match self.xact_status(xid).await {
                Ok(Some(s)) if s == "committed" || s == "aborted" => {
                    tracing::warn!(
                        "database: the commit of transaction {xid} whose answer was lost: {s}"
                    );
                    self.known(xid);
                }
                Ok(None) => {
                    self.fatal(xid);
                    return true;
                }
                _ => return false,
            }
        }
        let ok = match self.0.pool.get().await {
            Ok(c) => {
                let c = Conn(Some(c));
                match c.simple_query("SELECT 1").await {
                    Ok(_) => {
                        c.release();
                        true
                    }
                    Err(_) => {
                        self.drop_idle(c);
                        false
                    }
                }
            }
            Err(_) => false,
        };
        if ok {
            let mut h = self.health();
            if h.unreachable.take().is_some() {
                tracing::warn!("database: reachable again; accepting changes");
            }
            return h.fatal.is_some() || h.unknown.is_empty();
        }
        false
    }

    /// Runs reads, on a new connection if the first is found dead; several
    /// run in one `REPEATABLE READ` transaction, so they see one snapshot.
    async fn read(&self, queries: Vec<Stmt>) -> Result<Vec<Vec<Row>>, StoreError> {
        let mut last = String::new();
        for _ in 0..3 {
            let client = self.client().await?;
            match run_reads(&client, &queries).await {
                Ok(rows) => {
                    client.release();
                    return Ok(rows);
                }
                Err(e) if is_lost(&e) => {
                    last = e.to_string();
                    self.drop_idle(client);
                }
                Err(e) => {
                    if queries.len() > 1 && client.batch_execute("ROLLBACK").await.is_err() {
                        self.drop_idle(client);
                    } else {
                        client.release();
                    }
                    return Err(StoreError::Other(e.to_string()));
                }
            }
        }
        self.unreachable(last.clone());
        Err(StoreError::Failed(format!(
            "the database cannot be reached: {last}"
        )))
    }

    /// One read query's rows.
    async fn read_one(&self, q: Stmt) -> Result<Vec<Row>, StoreError> {
        Ok(self.read(vec![q]).await?.pop().unwrap_or_default())
    }
}

async fn run_reads(
    client: &tokio_postgres::Client,
    queries: &[Stmt],
) -> Result<Vec<Vec<Row>>, tokio_postgres::Error> {
    let tx = queries.len() > 1;
    if tx {
        client
            .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            .await?;
    }
    let mut out = Vec::with_capacity(queries.len());
    for q in queries {
        let refs: Vec<&(dyn ToSql + Sync)> = q
            .params
            .iter()
            .map(|p| p.as_ref() as &(dyn ToSql + Sync))
            .collect();
        out.push(client.query(q.sql.as_str(), &refs).await?);
    }
    if tx {
        client.batch_execute("COMMIT").await?;
    }
    Ok(out)
}

/// `BEGIN`, the transaction's id, the statements, `COMMIT`.
async fn run_tx(
    client: &deadpool_postgres::ClientWrapper,
    stmts: &[Stmt],
) -> Result<Vec<u64>, TxError> {
    let early = |e: tokio_postgres::Error| {
        if is_lost(&e) {
            TxError::Lost(e.to_string())
        } else {
            TxError::Refused(e)
        }
    };
    // One round trip: the commit waits for the disk (and synchronous
    // standbys) whatever the server's default.
    let msgs = client
        .simple_query("BEGIN; SET LOCAL synchronous_commit TO on; SELECT txid_current()")
        .await
        .map_err(early)?;
    let xid = msgs
        .iter()
        .find_map(|m| match m {
            SimpleQueryMessage::Row(r) => r.get(0).and_then(|s| s.parse::<i64>().ok()),
            _ => None,
        })
        .ok_or_else(|| TxError::Lost("no transaction id".into()))?;
    // Each statement prepared once per connection, then all of them sent
    // at once (tokio-postgres pipelines requests made together; the
    // database runs them in order): one round trip for the change instead
    // of two per statement. After a failed one the rest fail too
    // (the transaction is aborted): the first error is the one reported.
    let mut prepared = Vec::with_capacity(stmts.len());
    for s in stmts {
        prepared.push(client.prepare_cached(s.sql.as_str()).await.map_err(early)?);
    }
    let refs: Vec<Vec<&(dyn ToSql + Sync)>> = stmts
        .iter()
        .map(|s| {
            s.params
                .iter()
                .map(|p| p.as_ref() as &(dyn ToSql + Sync))
                .collect()
        })
        .collect();
    let results = futures_util::future::join_all(
        prepared
            .iter()
            .zip(&refs)
            .map(|(st, params)| client.execute(st, params)),
    )
    .await;
    let mut counts = Vec::with_capacity(stmts.len());
    for r in results {
        counts.push(r.map_err(early)?);
    }
    if stmts
        .iter()
        .zip(&counts)
        .any(|(s, &n)| s.expect.is_some_and(|e| e != n))
    {
        return Err(TxError::Moved);
    }
    match client.batch_execute("COMMIT").await {
        Ok(()) => Ok(counts),
        // A plain refusal (a deferred constraint): rolled back.
        Err(e) if !is_lost(&e) && e.as_db_error().is_some() => Err(TxError::Refused(e)),
        Err(e) => Err(TxError::AtCommit {
            xid,
            why: e.to_string(),
            counts,
        }),
    }
}

/// Brings the schema up to [`schema::VERSION`] in one transaction, under
/// an advisory lock, and proves the database writable.
async fn migrate(client: &mut deadpool_postgres::Object) -> anyhow::Result<()> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS schema_version (
            version     INTEGER PRIMARY KEY,
            applied_at  BIGINT NOT NULL
        )",
    )
    .await?;
    let version: i32 = tx
        .query_one("SELECT coalesce(max(version), 0) FROM schema_version", &[])
        .await?
        .get(0);
    if version < 0 || version as usize > schema::VERSION {
        bail!(
            "the database's schema version is {version}, newer than this server's ({}); \
             use a newer gore",
            schema::VERSION
        );
    }
    for (i, step) in schema::STEPS.iter().enumerate().skip(version as usize) {
        tx.batch_execute(&step.text(Dialect::Postgres)).await?;
        let n = (i + 1) as i32;
        tx.execute(
            "INSERT INTO schema_version (version, applied_at) VALUES ($1, $2)",
            &[&n, &now_ms()],
        )
        .await?;
        tracing::info!("database schema migrated to version {n} ({})", step.about);
    }
    // Writable now, not at the first player's action.
    tx.execute(
        "UPDATE schema_version SET applied_at = applied_at
         WHERE version = (SELECT max(version) FROM schema_version)",
        &[],
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

fn damaged(id: &str, why: impl Into<String>) -> StoreError {
    StoreError::Damaged {
        id: id.to_string(),
        why: why.into(),
    }
}

fn col<'a, T: tokio_postgres::types::FromSql<'a>>(
    r: &'a Row,
    id: &str,
    name: &str,
) -> Result<T, StoreError> {
    r.try_get(name)
        .map_err(|e| damaged(id, format!("{name}: {e}")))
}

/// Reads a games row into typed data; a value that does not read is an
/// error naming the game and the column.
fn info_from_row(r: &Row) -> Result<GameInfo, StoreError> {
    let id: String = col(r, "?", "id")?;
    let word = |c: &str| -> Result<String, StoreError> { col(r, &id, c) };
    let mode = Mode::from_word(&word("mode")?).ok_or_else(|| damaged(&id, "mode"))?;
    let rules: Rules = word("rules")?
        .parse()
        .map_err(|e| damaged(&id, format!("rules: {e}")))?;
    let start = Position::from_gpn(&word("start")?, rules.variant)
        .map_err(|e| damaged(&id, format!("start: {e}")))?;
    let level: i16 = col(r, &id, "level")?;
    let perfect = level == i16::from(PERFECT_LEVEL);
    let level = u8::try_from(level)
        .ok()
        .and_then(|l| {
            if perfect {
                Some(Level::MAX)
            } else {
                Level::new(l).ok()
            }
        })
        .ok_or_else(|| damaged(&id, format!("level {level}")))?;
    let creator = Seat::from_word(&word("creator")?).ok_or_else(|| damaged(&id, "creator"))?;
    let ai_seat = match col::<Option<String>>(r, &id, "ai_seat")? {
        None => None,
        Some(s) => Some(
            s.parse::<Player>()
                .map_err(|_| damaged(&id, format!("ai seat {s}")))?,
        ),
    };
    if (mode == Mode::Ai) != ai_seat.is_some() {
        return Err(damaged(&id, "an ai game has one ai seat, others none"));
    }
    let status = Status::from_word(&word("status")?).ok_or_else(|| damaged(&id, "status"))?;
    let opt = |c: &str| -> Result<Option<String>, StoreError> { col(r, &id, c) };
    let player = |c: &str| -> Result<Option<Player>, StoreError> {
        opt(c)?
            .map(|s| {
                s.parse::<Player>()
                    .map_err(|_| damaged(&id, format!("{c} {s}")))
            })
            .transpose()
    };
    let takebacks: i32 = col(r, &id, "takebacks")?;
    let reason = opt("reason")?;
    let forfeit =
        super::forfeit_from_columns(reason.as_deref(), player("resigned")?, player("loser")?)
            .map_err(|e| damaged(&id, e))?;
    let clock = opt("clock")?
        .map(|s| s.parse().map_err(|e| damaged(&id, format!("clock: {e}"))))
        .transpose()?;
    Ok(GameInfo {
        forfeit,
        clock,
        names: [opt("name_a")?, opt("name_b")?],
        lobby: col(r, &id, "lobby")?,
        away: [col(r, &id, "away_a")?, col(r, &id, "away_b")?],
        credits: super::credits_from_text(&col::<String>(r, &id, "clock_credits")?)
            .map_err(|e| damaged(&id, e))?,
        players: [opt("player_a")?, opt("player_b")?],
        rated: col(r, &id, "rated")?,
        ratings: [opt("rating_a")?, opt("rating_b")?],
        started_at: col(r, &id, "started_at")?,
        deadline: col(r, &id, "deadline")?,
        takebacks: u32::try_from(takebacks).map_err(|_| damaged(&id, "takebacks"))?,
        takeback: player("takeback_request")?,
        mode,
        rules,
        start,
        level,
        perfect,
        honourable: col(r, &id, "honourable")?,
        creator,
        ai_seat,
        status,
        created_at: col(r, &id, "created_at")?,
        rematch: opt("rematch")?,
        tokens: PerSeat([opt("token_a")?, opt("token_b")?, opt("token_both")?]),
        invite: opt("invite")?,
        devices: PerSeat([opt("device_a")?, opt("device_b")?, opt("device_both")?]),
        id,
    })
}

fn player_from_row(r: &Row) -> Result<StoredPlayer, StoreError> {
    Ok(StoredPlayer {
        id: col(r, "?", "id")?,
        name: col(r, "?", "name")?,
        account: col(r, "?", "account")?,
    })
}

fn rating_from_row(r: &Row) -> Result<StoredRating, StoreError> {
    let games: i32 = col(r, "?", "games")?;
    Ok(StoredRating {
        pace: col(r, "?", "pace")?,
        rating: col(r, "?", "rating")?,
        deviation: col(r, "?", "deviation")?,
        volatility: col(r, "?", "volatility")?,
        games: u32::try_from(games).unwrap_or(0),
    })
}

/// The player of session `$1`: the account it is logged in to, else its
/// anonymous player.
const PLAYER_OF: &str = "SELECT a.id, a.username AS name, TRUE AS account
     FROM account_sessions s JOIN accounts a ON a.id = s.account_id WHERE s.session = $1
     UNION ALL
     SELECT id, name, FALSE AS account FROM players WHERE session = $1
     ORDER BY account DESC LIMIT 1";

/// Remembers a seat for a session: its account's if it is logged in to
/// one, else its own (two statements, one of which inserts).
fn remember(session: &str, id: &str, token: &str) -> [Stmt; 2] {
    let args = || -> Vec<Box<dyn ToSql + Send + Sync>> {
        vec![
            Box::new(session.to_string()),
            Box::new(id.to_string()),
            Box::new(token.to_string()),
        ]
    };
    [
        stmt(
            "INSERT INTO account_seats (account_id, game_id, token)
             SELECT account_id, $2::TEXT, $3::TEXT FROM account_sessions WHERE session = $1
             ON CONFLICT (account_id, game_id) DO UPDATE SET token = excluded.token",
            args(),
        ),
        stmt(
            "INSERT INTO session_seats (session, game_id, token)
             SELECT $1::TEXT, $2::TEXT, $3::TEXT
             WHERE NOT EXISTS (SELECT 1 FROM account_sessions WHERE session = $1)
             ON CONFLICT (session, game_id) DO UPDATE SET token = excluded.token",
            args(),
        ),
    ]
}

/// Issues session `id`, logged in to `account` if given.
fn start_session(id: &str, account: Option<&str>, now: i64) -> Vec<Stmt> {
    let mut v = vec![stmt(
        "INSERT INTO sessions (id, created_at) VALUES ($1, $2)",
        vec![Box::new(id.to_string()), Box::new(now)],
    )];
    if let Some(a) = account {
        v.push(stmt(
            "INSERT INTO account_sessions (session, account_id, created_at) VALUES ($1, $2, $3)",
            vec![
                Box::new(id.to_string()),
                Box::new(a.to_string()),
                Box::new(now),
            ],
        ));
    }
    v
}

/// Ends a session: its own seats go (an account keeps its own), and with
/// them its log-in.
fn end_session(id: &str) -> Vec<Stmt> {
    [
        "DELETE FROM session_seats WHERE session = $1",
        "DELETE FROM account_sessions WHERE session = $1",
        "DELETE FROM sessions WHERE id = $1",
    ]
    .into_iter()
    .map(|q| stmt(q, vec![Box::new(id.to_string())]))
    .collect()
}

/// Gives the seats session `from` holds of its own to `account` (a seat
/// the account already holds in a game stays), then ends `from`.
fn end_into_account(from: &str, account: &str) -> Vec<Stmt> {
    let mut v = vec![stmt(
        "INSERT INTO account_seats (account_id, game_id, token)
         SELECT $2::TEXT, game_id, token FROM session_seats WHERE session = $1
         ON CONFLICT (account_id, game_id) DO NOTHING",
        vec![Box::new(from.to_string()), Box::new(account.to_string())],
    )];
    v.extend(end_session(from));
    v
}

fn challenge_from_row(r: &Row) -> Result<StoredChallenge, StoreError> {
    let id: String = col(r, "?", "id")?;
    let rules: String = col(r, &id, "rules")?;
    let clock: Option<String> = col(r, &id, "clock")?;
    let colour: Option<String> = col(r, &id, "colour")?;
    Ok(StoredChallenge {
        rules: rules
            .parse()
            .map_err(|e| damaged(&id, format!("challenge rules: {e}")))?,
        clock: clock
            .map(|c| c.parse())
            .transpose()
            .map_err(|e: String| damaged(&id, format!("challenge clock: {e}")))?,
        colour: colour
            .map(|c| c.parse::<Player>())
            .transpose()
            .map_err(|_| damaged(&id, "challenge colour"))?,
        session: col(r, &id, "session")?,
        player: col(r, &id, "player")?,
        name: col(r, &id, "name")?,
        rated: col(r, &id, "rated")?,
        quick: col(r, &id, "quick")?,
        created_at: col(r, &id, "created_at")?,
        game: col(r, &id, "game_id")?,
        rating: col(r, &id, "rating")?,
        id,
    })
}

fn action_from_row(r: &Row, id: &str, info: &GameInfo) -> Result<StoredAction, StoreError> {
    let ply: i32 = col(r, id, "ply")?;
    let at = format!("ply {ply}");
    let action: String = col(r, id, "action")?;
    let position: Option<String> = col(r, id, "position")?;
    let captured: Option<String> = col(r, id, "captured")?;
    Ok(StoredAction {
        ply: u32::try_from(ply).map_err(|_| damaged(id, at.clone()))?,
        action: action
            .parse()
            .map_err(|e| damaged(id, format!("{at}: {e}")))?,
        captured: captured
            .unwrap_or_default()
            .split_whitespace()
            .map(|h| h.parse::<Hole>())
            .collect::<Result<_, _>>()
            .map_err(|e| damaged(id, format!("{at}: {e}")))?,
        position: position
            .map(|p| Position::from_gpn(&p, info.rules.variant))
            .transpose()
            .map_err(|e| damaged(id, format!("{at}: {e}")))?,
        at: col(r, id, "created_at")?,
    })
}

fn holes_text(holes: &[Hole]) -> String {
    holes
        .iter()
        .map(|h| h.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

fn insert_game(g: &GameInfo) -> Stmt {
    stmt(
        "INSERT INTO games (id, mode, rules, start, level, honourable, creator, token_a,
             token_b, token_both, ai_seat, status, created_at, updated_at, rematch, invite,
             device_a, device_b, device_both, clock, started_at, deadline, name_a, name_b,
             lobby, player_a, player_b, rated, rating_a, rating_b)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
             $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30)",
        vec![
            Box::new(g.id.clone()),
            Box::new(g.mode.as_str().to_string()),
            Box::new(g.rules.to_string()),
            Box::new(g.start.to_string()),
            Box::new(i16::from(if g.perfect {
                PERFECT_LEVEL
            } else {
                u8::from(g.level)
            })),
            Box::new(g.honourable),
            Box::new(g.creator.as_str().to_string()),
            Box::new(g.tokens.0[0].clone()),
            Box::new(g.tokens.0[1].clone()),
            Box::new(g.tokens.0[2].clone()),
            Box::new(g.ai_seat.map(|p| p.char().to_string())),
            Box::new(g.status.as_str().to_string()),
            Box::new(g.created_at),
            Box::new(g.created_at),
            Box::new(g.rematch.clone()),
            Box::new(g.invite.clone()),
            Box::new(g.devices.0[0].clone()),
            Box::new(g.devices.0[1].clone()),
            Box::new(g.devices.0[2].clone()),
            Box::new(g.clock.map(|c| c.to_string())),
            Box::new(g.started_at),
            Box::new(g.deadline),
            Box::new(g.names[0].clone()),
            Box::new(g.names[1].clone()),
            Box::new(g.lobby),
            Box::new(g.players[0].clone()),
            Box::new(g.players[1].clone()),
            Box::new(g.rated),
            Box::new(g.ratings[0].clone()),
            Box::new(g.ratings[1].clone()),
        ],
    )
}

impl Store for PgStore {
    fn create_game(&self, info: GameInfo, rematch_of: Option<String>) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            let mut stmts = vec![insert_game(&info)];
            if let Some(old) = &rematch_of {
                stmts.push(stmt(
                    "UPDATE games SET rematch = $2, updated_at = $3 WHERE id = $1",
                    vec![
                        Box::new(old.clone()),
                        Box::new(info.id.clone()),
                        Box::new(info.created_at),
                    ],
                ));
            }
            store.write(stmts).await?;
            if let Some(old) = rematch_of {
                store.announce(old, 0);
            }
            Ok(())
        })
    }

    fn load_game(&self, id: String) -> StoreFuture<Option<StoredGame>> {
        self.load_game_after(id, 0)
    }

    fn load_game_after(&self, id: String, after: u32) -> StoreFuture<Option<StoredGame>> {
        let store = self.clone();
        Box::pin(async move {
            let mut found = store
                .read(vec![
                    stmt(
                        "SELECT * FROM games WHERE id = $1",
                        vec![Box::new(id.clone())],
                    ),
                    stmt(
                        "SELECT ply, action, created_at, position, captured FROM actions
                         WHERE game_id = $1 AND ply > $2 ORDER BY ply",
                        vec![
                            Box::new(id.clone()),
                            Box::new(i32::try_from(after).unwrap_or(i32::MAX)),
                        ],
                    ),
                ])
                .await?;
            let rows = found.pop().unwrap_or_default();
            let Some(row) = found.pop().and_then(|g| g.into_iter().next()) else {
                return Ok(None);
            };
            let info = info_from_row(&row)?;
            let actions = rows
                .iter()
                .map(|r| action_from_row(r, &id, &info))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Some(StoredGame { info, actions }))
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
        let store = self.clone();
        Box::pin(async move {
            let ply =
                i32::try_from(a.ply).map_err(|_| StoreError::Other("ply too large".into()))?;
            // The game's row first: a takeback or resignation committing
            // meanwhile is seen (a conflict), and the primary key refuses
            // a second commit of the ply.
            let mut stmts = vec![
                lock_at(&id, takebacks),
                stmt(
                    "INSERT INTO actions (game_id, ply, action, created_at, position, captured)
                 VALUES ($1, $2, $3, $4, $5, $6)",
                    vec![
                        Box::new(id.clone()),
                        Box::new(ply),
                        Box::new(a.action.to_string()),
                        Box::new(a.at),
                        Box::new(a.position.map(|p| p.to_string())),
                        Box::new(holes_text(&a.captured)),
                    ],
                ),
            ];
            stmts.push(match ending {
                Some(o) => stmt(
                    "UPDATE games SET status = 'over', result = $2, reason = $3,
                         updated_at = $4, takeback_request = NULL, deadline = NULL
                     WHERE id = $1",
                    vec![
                        Box::new(id.clone()),
                        Box::new(o.to_string()),
                        Box::new(o.reason.as_str().to_string()),
                        Box::new(a.at),
                    ],
                ),
                None => stmt(
                    "UPDATE games SET updated_at = $2, takeback_request = NULL, deadline = $3
                     WHERE id = $1",
                    vec![Box::new(id.clone()), Box::new(a.at), Box::new(deadline)],
                ),
            });
            store.write(stmts).await?;
            store.announce(id, a.ply);
            Ok(())
        })
    }

    fn change_game(&self, id: String, at: At, change: GameChange, now: i64) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            let mut stmts = vec![lock_at(&id, at.takebacks), check_ply(&id, at.ply)];
            let mut ply = at.ply;
            match change {
                GameChange::Forfeit { forfeit, result } => {
                    let (reason, resigned, loser) = super::forfeit_columns(forfeit);
                    stmts.push(stmt(
                        "UPDATE games SET status = 'over', result = $2, reason = $3,
                             resigned = $4, loser = $5, takeback_request = NULL,
                             deadline = NULL, updated_at = $6
                         WHERE id = $1",
                        vec![
                            Box::new(id.clone()),
                            Box::new(result),
                            Box::new(reason.to_string()),
                            Box::new(resigned),
                            Box::new(loser),
                            Box::new(now),
                        ],
                    ))
                }
                GameChange::TakeBack { to, deadline } => {
                    ply = to;
                    let to = i32::try_from(to).unwrap_or(i32::MAX);
                    stmts.push(stmt(
                        "DELETE FROM actions WHERE game_id = $1 AND ply > $2",
                        vec![Box::new(id.clone()), Box::new(to)],
                    ));
                    // Claims on AI turns of the plies taken back are void:
                    // the next AI turn is claimed afresh.
                    stmts.push(stmt(
                        "DELETE FROM ai_claims WHERE game_id = $1 AND ply >= $2",
                        vec![Box::new(id.clone()), Box::new(to)],
                    ));
                    stmts.push(stmt(
                        "UPDATE games SET takebacks = takebacks + 1, takeback_request = NULL,
                             updated_at = $2, deadline = $3
                         WHERE id = $1",
                        vec![Box::new(id.clone()), Box::new(now), Box::new(deadline)],
                    ));
                }
                GameChange::Request(who) => stmts.push(stmt(
                    "UPDATE games SET takeback_request = $2, updated_at = $3 WHERE id = $1",
                    vec![
                        Box::new(id.clone()),
                        Box::new(who.map(|p| p.char().to_string())),
                        Box::new(now),
                    ],
                )),
                GameChange::Credit { credits, deadline } => stmts.push(stmt(
                    "UPDATE games SET clock_credits = $2, deadline = $3 WHERE id = $1",
                    vec![
                        Box::new(id.clone()),
                        Box::new(super::credits_text(&credits)),
                        Box::new(deadline),
                    ],
                )),
            }
            store.write(stmts).await?;
            store.announce(id, ply);
            Ok(())
        })
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
        let store = self.clone();
        Box::pin(async move {
            let counts = store
                .write(vec![stmt(
                    format!(
                        "UPDATE games SET invite = NULL, {column} = $3, status = 'playing',
                             updated_at = $4, started_at = $4, deadline = $5, {name} = $6,
                             {player} = $7
                         WHERE id = $1 AND invite = $2 AND status = 'waiting'"
                    ),
                    vec![
                        Box::new(id.clone()),
                        Box::new(code),
                        Box::new(claim.token),
                        Box::new(claim.now),
                        Box::new(claim.deadline),
                        Box::new(claim.name),
                        Box::new(claim.player),
                    ],
                )])
                .await?;
            let claimed = counts.first() == Some(&1);
            if claimed {
                store.announce(id, 0);
            }
            Ok(claimed)
        })
    }

    fn set_device(&self, id: String, seat: Seat, code: Option<String>) -> StoreFuture<()> {
        let column = match seat {
            Seat::A => "device_a",
            Seat::B => "device_b",
            Seat::Both => "device_both",
        };
        let store = self.clone();
        Box::pin(async move {
            store
                .write(vec![stmt(
                    format!("UPDATE games SET {column} = $2 WHERE id = $1"),
                    vec![Box::new(id.clone()), Box::new(code)],
                )])
                .await?;
            store.announce(id, 0);
            Ok(())
        })
    }

    fn remember_seat(&self, session: String, id: String, token: String) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            store
                .write(remember(&session, &id, &token).into())
                .await
                .map(|_| ())
        })
    }

    fn session_token(&self, session: String, id: String) -> StoreFuture<Option<String>> {
        let store = self.clone();
        Box::pin(async move {
            let rows = store
                .read_one(stmt(
                    "SELECT t.token FROM account_seats t
                     JOIN account_sessions s ON s.account_id = t.account_id
                     WHERE s.session = $1 AND t.game_id = $2
                     UNION ALL
                     SELECT token FROM session_seats WHERE session = $1 AND game_id = $2
                     LIMIT 1",
                    vec![Box::new(session), Box::new(id)],
                ))
                .await?;
            match rows.first() {
                None => Ok(None),
                Some(r) => r
                    .try_get::<_, String>(0)
                    .map(Some)
                    .map_err(|e| StoreError::Other(e.to_string())),
            }
        })
    }

    fn post_chat(
        &self,
        game: String,
        player: Player,
        text: String,
        at: i64,
    ) -> StoreFuture<ChatLine> {
        let store = self.clone();
        Box::pin(async move {
            // The next number under the game's row lock: messages of one game
            // one after the other, whatever the server.
            for _ in 0..5 {
                let rows = store
                    .read_one(stmt(
                        "SELECT COALESCE(MAX(n), 0) + 1 FROM chat WHERE game_id = $1",
                        vec![Box::new(game.clone())],
                    ))
                    .await?;
                let n: i32 = rows
                    .first()
                    .map(|r| r.try_get(0))
                    .transpose()
                    .map_err(|e| StoreError::Other(e.to_string()))?
                    .unwrap_or(1);
                match store
                    .write(vec![stmt(
                        "INSERT INTO chat (game_id, n, player, text, at) VALUES ($1, $2, $3, $4, $5)",
                        vec![
                            Box::new(game.clone()),
                            Box::new(n),
                            Box::new(player.char().to_string()),
                            Box::new(text.clone()),
                            Box::new(at),
                        ],
                    )])
                    .await
                {
                    Ok(_) => {
                        return Ok(ChatLine {
                            n: u32::try_from(n).unwrap_or(0),
                            from: player,
                            text,
                            at,
                        })
                    }
                    Err(StoreError::Conflict) => continue,
                    Err(e) => return Err(e),
                }
            }
            Err(StoreError::Other("chat: too many messages at once".into()))
        })
    }

    fn chat_after(&self, game: String, after: u32) -> StoreFuture<Vec<ChatLine>> {
        let store = self.clone();
        Box::pin(async move {
            let rows = store
                .read_one(stmt(
                    "SELECT n, player, text, at FROM (SELECT * FROM chat WHERE game_id = $1
                         AND n > $2 ORDER BY n DESC LIMIT 100) t ORDER BY n",
                    vec![
                        Box::new(game),
                        Box::new(i32::try_from(after).unwrap_or(i32::MAX)),
                    ],
                ))
                .await?;
            rows.iter()
                .map(|r| {
                    let n: i32 = col(r, "?", "n")?;
                    let p: String = col(r, "?", "player")?;
                    Ok(ChatLine {
                        n: u32::try_from(n).unwrap_or(0),
                        from: if p == "B" { Player::B } else { Player::A },
                        text: col(r, "?", "text")?,
                        at: col(r, "?", "at")?,
                    })
                })
                .collect()
        })
    }

    fn report_chat(&self, game: String, n: u32, reporter: Player, at: i64) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            store
                .write(vec![stmt(
                    "INSERT INTO chat_reports (game_id, n, reporter, at) VALUES ($1, $2, $3, $4)
                     ON CONFLICT DO NOTHING",
                    vec![
                        Box::new(game),
                        Box::new(i32::try_from(n).unwrap_or(i32::MAX)),
                        Box::new(reporter.char().to_string()),
                        Box::new(at),
                    ],
                )])
                .await?;
            Ok(())
        })
    }

    fn record_abort(&self, player: String, game: String, at: i64) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            store
                .write(vec![stmt(
                    "INSERT INTO aborts (player, game_id, at) VALUES ($1, $2, $3)
                     ON CONFLICT DO NOTHING",
                    vec![Box::new(player), Box::new(game), Box::new(at)],
                )])
                .await?;
            Ok(())
        })
    }

    fn aborts_since(&self, player: String, since: i64) -> StoreFuture<Vec<i64>> {
        let store = self.clone();
        Box::pin(async move {
            let rows = store
                .read_one(stmt(
                    "SELECT at FROM aborts WHERE player = $1 AND at > $2 ORDER BY at",
                    vec![Box::new(player), Box::new(since)],
                ))
                .await?;
            rows.iter()
                .map(|r| r.try_get::<_, i64>(0))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| StoreError::Other(e.to_string()))
        })
    }

    fn forget_idle_players(&self, before: i64) -> StoreFuture<u64> {
        let store = self.clone();
        Box::pin(async move {
            let counts = store
                .write(vec![stmt(
                    "DELETE FROM players WHERE updated_at <= $1
                        AND NOT EXISTS (SELECT 1 FROM account_sessions a
                                        WHERE a.session = players.session)
                        AND NOT EXISTS (SELECT 1 FROM session_seats s
                                        WHERE s.session = players.session)
                        AND NOT EXISTS (SELECT 1 FROM games g WHERE g.player_a = players.id)
                        AND NOT EXISTS (SELECT 1 FROM games g WHERE g.player_b = players.id)
                        AND NOT EXISTS (SELECT 1 FROM challenges c
                                        WHERE c.session = players.session)",
                    vec![Box::new(before)],
                )])
                .await?;
            Ok(counts.first().copied().unwrap_or(0))
        })
    }

    fn active_ai_games(&self, limit: u32) -> StoreFuture<Vec<String>> {
        let store = self.clone();
        Box::pin(async move {
            let rows = store
                .read_one(stmt(
                    "SELECT id FROM games WHERE mode = 'ai' AND status = 'playing'
                     ORDER BY updated_at DESC LIMIT $1",
                    vec![Box::new(i64::from(limit))],
                ))
                .await?;
            rows.iter()
                .map(|r| r.try_get::<_, String>(0))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| StoreError::Other(e.to_string()))
        })
    }

    fn create_session(&self, session: String, now: i64) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            store.write(start_session(&session, None, now)).await?;
            Ok(())
        })
    }

    fn session_exists(&self, session: String) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move {
            let rows = store
                .read_one(stmt(
                    "SELECT 1 FROM sessions WHERE id = $1",
                    vec![Box::new(session)],
                ))
                .await?;
            Ok(!rows.is_empty())
        })
    }

    fn player(&self, session: String) -> StoreFuture<Option<StoredPlayer>> {
        let store = self.clone();
        Box::pin(async move {
            let rows = store
                .read_one(stmt(PLAYER_OF, vec![Box::new(session)]))
                .await?;
            rows.first().map(player_from_row).transpose()
        })
    }

    fn create_player(
        &self,
        session: String,
        p: StoredPlayer,
        now: i64,
    ) -> StoreFuture<StoredPlayer> {
        let store = self.clone();
        Box::pin(async move {
            store
                .write(vec![stmt(
                    "INSERT INTO players (session, id, name, created_at, updated_at)
                     VALUES ($1, $2, $3, $4, $4) ON CONFLICT (session) DO NOTHING",
                    vec![
                        Box::new(session.clone()),
                        Box::new(p.id),
                        Box::new(p.name),
                        Box::new(now),
                    ],
                )])
                .await?;
            let rows = store
                .read_one(stmt(PLAYER_OF, vec![Box::new(session)]))
                .await?;
            rows.first()
                .map(player_from_row)
                .transpose()?
                .ok_or_else(|| StoreError::Other("the player just made is missing".into()))
        })
    }

    fn account_by_key(&self, key: String) -> StoreFuture<Option<StoredAccount>> {
        let store = self.clone();
        Box::pin(async move {
            let rows = store
                .read_one(stmt(
                    "SELECT a.id, a.username, a.password FROM account_keys k
                     JOIN accounts a ON a.id = k.account_id WHERE k.key = $1",
                    vec![Box::new(key)],
                ))
                .await?;
            rows.first()
                .map(|r| {
                    Ok(StoredAccount {
                        id: col(r, "?", "id")?,
                        username: col(r, "?", "username")?,
                        password: col(r, "?", "password")?,
                    })
                })
                .transpose()
        })
    }

    fn keys_taken(&self, keys: Vec<String>) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move {
            let rows = store
                .read_one(stmt(
                    "SELECT 1 FROM account_keys WHERE key = ANY($1)",
                    vec![Box::new(keys)],
                ))
                .await?;
            Ok(!rows.is_empty())
        })
    }

    fn create_account(
        &self,
        a: StoredAccount,
        keys: Vec<String>,
        from: String,
        to: String,
        now: i64,
    ) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move {
            let mut stmts: Vec<Stmt> = keys
                .into_iter()
                .map(|k| {
                    stmt(
                        "INSERT INTO account_keys (key, account_id) VALUES ($1, $2)",
                        vec![Box::new(k), Box::new(a.id.clone())],
                    )
                })
                .collect();
            stmts.push(stmt(
                "INSERT INTO accounts (id, username, password, created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $4)",
                vec![
                    Box::new(a.id.clone()),
                    Box::new(a.username.clone()),
                    Box::new(a.password),
                    Box::new(now),
                ],
            ));
            stmts.push(stmt(
                "UPDATE players SET session = $2, name = $3, updated_at = $4 WHERE session = $1",
                vec![
                    Box::new(from.clone()),
                    Box::new(to.clone()),
                    Box::new(a.username),
                    Box::new(now),
                ],
            ));
            stmts.extend(end_into_account(&from, &a.id));
            stmts.extend(start_session(&to, Some(&a.id), now));
            match store.write(stmts).await {
                Ok(_) => Ok(true),
                Err(StoreError::Conflict) => Ok(false),
                Err(e) => Err(e),
            }
        })
    }

    fn log_in(&self, account: String, from: String, to: String, now: i64) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            let mut stmts = end_into_account(&from, &account);
            stmts.extend(start_session(&to, Some(&account), now));
            store.write(stmts).await?;
            Ok(())
        })
    }

    fn ratings_of(&self, account: String) -> StoreFuture<Vec<StoredRating>> {
        let store = self.clone();
        Box::pin(async move {
            let rows = store
                .read_one(stmt(
                    "SELECT pace, rating, deviation, volatility, games FROM ratings
                     WHERE account_id = $1 ORDER BY pace",
                    vec![Box::new(account)],
                ))
                .await?;
            rows.iter().map(rating_from_row).collect()
        })
    }

    fn rate_game(&self, game: String, updates: Vec<RatingUpdate>, now: i64) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move {
            let mut stmts = Vec::new();
            for u in updates {
                let a = u.after;
                let games = i32::try_from(a.games).unwrap_or(i32::MAX);
                stmts.push(if u.before == 0 {
                    stmt(
                        "INSERT INTO ratings (account_id, pace, rating, deviation, volatility,
                             games, updated_at)
                         VALUES ($1, $2, $3, $4, $5, $6, $7)",
                        vec![
                            Box::new(u.account.clone()),
                            Box::new(a.pace.clone()),
                            Box::new(a.rating),
                            Box::new(a.deviation),
                            Box::new(a.volatility),
                            Box::new(games),
                            Box::new(now),
                        ],
                    )
                    .expect(1)
                } else {
                    stmt(
                        "UPDATE ratings SET rating = $3, deviation = $4, volatility = $5,
                             games = $6, updated_at = $7
                         WHERE account_id = $1 AND pace = $2 AND games = $8",
                        vec![
                            Box::new(u.account.clone()),
                            Box::new(a.pace.clone()),
                            Box::new(a.rating),
                            Box::new(a.deviation),
                            Box::new(a.volatility),
                            Box::new(games),
                            Box::new(now),
                            Box::new(i32::try_from(u.before).unwrap_or(i32::MAX)),
                        ],
                    )
                    .expect(1)
                });
                stmts.push(stmt(
                    "INSERT INTO rating_history (account_id, game_id, pace, rating, deviation, at)
                     VALUES ($1, $2, $3, $4, $5, $6)",
                    vec![
                        Box::new(u.account),
                        Box::new(game.clone()),
                        Box::new(a.pace),
                        Box::new(a.rating),
                        Box::new(a.deviation),
                        Box::new(now),
                    ],
                ));
            }
            match store.write(stmts).await {
                Ok(_) => Ok(true),
                Err(StoreError::Conflict) => Ok(false),
                Err(e) => Err(e),
            }
        })
    }

    fn rating_history(&self, account: String) -> StoreFuture<Vec<HistoryPoint>> {
        let store = self.clone();
        Box::pin(async move {
            let rows = store
                .read_one(stmt(
                    "SELECT game_id, pace, rating, deviation, at FROM rating_history
                     WHERE account_id = $1 ORDER BY at, game_id",
                    vec![Box::new(account)],
                ))
                .await?;
            rows.iter()
                .map(|r| {
                    Ok(HistoryPoint {
                        game: col(r, "?", "game_id")?,
                        pace: col(r, "?", "pace")?,
                        rating: col(r, "?", "rating")?,
                        deviation: col(r, "?", "deviation")?,
                        at: col(r, "?", "at")?,
                    })
                })
                .collect()
        })
    }

    fn leaderboard(&self, pace: String, limit: u32) -> StoreFuture<Vec<Ranked>> {
        let store = self.clone();
        Box::pin(async move {
            let rows = store
                .read_one(stmt(
                    "SELECT a.id, a.username, r.pace, r.rating, r.deviation, r.volatility, r.games
                     FROM ratings r JOIN accounts a ON a.id = r.account_id
                     WHERE r.pace = $1 ORDER BY r.rating DESC, a.username LIMIT $2",
                    vec![Box::new(pace), Box::new(i64::from(limit))],
                ))
                .await?;
            rows.iter()
                .map(|r| {
                    Ok(Ranked {
                        id: col(r, "?", "id")?,
                        username: col(r, "?", "username")?,
                        rating: rating_from_row(r)?,
                    })
                })
                .collect()
        })
    }

    fn player_games(
        &self,
        player: String,
        limit: u32,
    ) -> StoreFuture<Vec<(GameInfo, Option<String>)>> {
        let store = self.clone();
        Box::pin(async move {
            let rows = store
                .read_one(stmt(
                    "SELECT * FROM games WHERE player_a = $1 OR player_b = $1
                     ORDER BY created_at DESC LIMIT $2",
                    vec![Box::new(player), Box::new(i64::from(limit))],
                ))
                .await?;
            rows.iter()
                .map(|r| Ok((info_from_row(r)?, col(r, "?", "result")?)))
                .collect()
        })
    }

    fn unrated_games(&self, limit: u32) -> StoreFuture<Vec<String>> {
        let store = self.clone();
        Box::pin(async move {
            let rows = store
                .read_one(stmt(
                    "SELECT id FROM games g WHERE rated AND status = 'over'
                         AND (reason IS NULL OR reason <> 'abort') AND player_a <> player_b
                         AND NOT EXISTS (SELECT 1 FROM rating_history h WHERE h.game_id = g.id)
                     LIMIT $1",
                    vec![Box::new(i64::from(limit))],
                ))
                .await?;
            rows.iter()
                .map(|r| r.try_get::<_, String>(0))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| StoreError::Other(e.to_string()))
        })
    }

    fn log_out(&self, session: String) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            store.write(end_session(&session)).await?;
            Ok(())
        })
    }

    fn set_password(
        &self,
        account: String,
        hash: String,
        from: String,
        to: String,
        now: i64,
    ) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            store
                .write(
                    vec![
                        stmt(
                            "UPDATE accounts SET password = $2, updated_at = $3 WHERE id = $1",
                            vec![Box::new(account.clone()), Box::new(hash), Box::new(now)],
                        ),
                        // Every session of the account ends, the one asking too.
                        stmt(
                            "DELETE FROM session_seats WHERE session = $2 OR session IN
                         (SELECT session FROM account_sessions WHERE account_id = $1)",
                            vec![Box::new(account.clone()), Box::new(from.clone())],
                        ),
                        stmt(
                            "DELETE FROM sessions WHERE id = $2 OR id IN
                         (SELECT session FROM account_sessions WHERE account_id = $1)",
                            vec![Box::new(account.clone()), Box::new(from.clone())],
                        ),
                        stmt(
                            "DELETE FROM account_sessions WHERE account_id = $1 OR session = $2",
                            vec![Box::new(account.clone()), Box::new(from)],
                        ),
                    ]
                    .into_iter()
                    .chain(start_session(&to, Some(&account), now))
                    .collect(),
                )
                .await?;
            Ok(())
        })
    }

    fn set_player_name(&self, session: String, name: String, now: i64) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            store
                .write(vec![stmt(
                    "UPDATE players SET name = $2, updated_at = $3 WHERE session = $1",
                    vec![Box::new(session), Box::new(name), Box::new(now)],
                )])
                .await?;
            Ok(())
        })
    }

    fn post_challenge(&self, ch: StoredChallenge) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            store
                .write(vec![stmt(
                    "INSERT INTO challenges (id, session, player, name, rules, clock, colour,
                         rated, quick, created_at, seen_at, rating)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11)",
                    vec![
                        Box::new(ch.id),
                        Box::new(ch.session),
                        Box::new(ch.player),
                        Box::new(ch.name),
                        Box::new(ch.rules.to_string()),
                        Box::new(ch.clock.map(|t| t.to_string())),
                        Box::new(ch.colour.map(|p| p.char().to_string())),
                        Box::new(ch.rated),
                        Box::new(ch.quick),
                        Box::new(ch.created_at),
                        Box::new(ch.rating),
                    ],
                )])
                .await?;
            Ok(())
        })
    }

    fn cancel_challenges(&self, session: String, id: Option<String>) -> StoreFuture<u64> {
        let store = self.clone();
        Box::pin(async move {
            let counts = store
                .write(vec![stmt(
                    "DELETE FROM challenges WHERE session = $1 AND game_id IS NULL
                         AND ($2::TEXT IS NULL OR id = $2)",
                    vec![Box::new(session), Box::new(id)],
                )])
                .await?;
            Ok(counts.first().copied().unwrap_or(0))
        })
    }

    fn open_challenges(&self, limit: u32) -> StoreFuture<Vec<StoredChallenge>> {
        let store = self.clone();
        Box::pin(async move {
            let rows = store
                .read_one(stmt(
                    "SELECT * FROM challenges WHERE game_id IS NULL
                     ORDER BY created_at DESC, id DESC LIMIT $1",
                    vec![Box::new(i64::from(limit))],
                ))
                .await?;
            rows.iter().map(challenge_from_row).collect()
        })
    }

    fn challenge(&self, id: String) -> StoreFuture<Option<StoredChallenge>> {
        let store = self.clone();
        Box::pin(async move {
            let rows = store
                .read_one(stmt(
                    "SELECT * FROM challenges WHERE id = $1",
                    vec![Box::new(id)],
                ))
                .await?;
            rows.first().map(challenge_from_row).transpose()
        })
    }

    fn find_matches(&self, seek: StoredChallenge, limit: u32) -> StoreFuture<Vec<StoredChallenge>> {
        let store = self.clone();
        Box::pin(async move {
            let rows = store
                .read_one(stmt(
                    "SELECT * FROM challenges WHERE game_id IS NULL AND quick
                         AND clock IS NOT DISTINCT FROM $1 AND rules = $2 AND rated = $3
                         AND player <> $4
                     ORDER BY created_at, id LIMIT $5",
                    vec![
                        Box::new(seek.clock.map(|t| t.to_string())),
                        Box::new(seek.rules.to_string()),
                        Box::new(seek.rated),
                        Box::new(seek.player),
                        Box::new(i64::from(limit)),
                    ],
                ))
                .await?;
            rows.iter().map(challenge_from_row).collect()
        })
    }

    fn pair(
        &self,
        taken: Vec<String>,
        game: GameInfo,
        seats: Vec<(String, String)>,
    ) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move {
            // Rows locked in one order by every pairing: two that race for
            // the same seeks wait for each other instead of deadlocking.
            let mut taken = taken;
            taken.sort();
            let mut stmts: Vec<Stmt> = taken
                .iter()
                .map(|id| {
                    stmt(
                        "UPDATE challenges SET game_id = $2 WHERE id = $1 AND game_id IS NULL",
                        vec![Box::new(id.clone()), Box::new(game.id.clone())],
                    )
                    .expect(1)
                })
                .collect();
            stmts.push(insert_game(&game));
            for (session, token) in seats {
                stmts.extend(remember(&session, &game.id, &token));
            }
            match store.write(stmts).await {
                Ok(_) => Ok(true),
                Err(StoreError::Conflict) => Ok(false),
                Err(e) => Err(e),
            }
        })
    }

    fn touch_challenges(&self, sessions: Vec<String>, now: i64) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            if sessions.is_empty() {
                return Ok(());
            }
            store
                .write(vec![stmt(
                    "UPDATE challenges SET seen_at = $2
                     WHERE session = ANY($1) AND game_id IS NULL",
                    vec![Box::new(sessions), Box::new(now)],
                )])
                .await?;
            Ok(())
        })
    }

    fn expire_challenges(&self, unseen_before: i64, taken_before: i64) -> StoreFuture<u64> {
        let store = self.clone();
        Box::pin(async move {
            let counts = store
                .write(vec![stmt(
                    "DELETE FROM challenges WHERE (game_id IS NULL AND seen_at < $1)
                         OR (game_id IS NOT NULL AND created_at < $2)",
                    vec![Box::new(unseen_before), Box::new(taken_before)],
                )])
                .await?;
            Ok(counts.first().copied().unwrap_or(0))
        })
    }

    fn playing_now(&self, limit: u32) -> StoreFuture<Vec<GameInfo>> {
        let store = self.clone();
        Box::pin(async move {
            let rows = store
                .read_one(stmt(
                    "SELECT * FROM games WHERE mode = 'friend' AND status = 'playing'
                     ORDER BY started_at DESC LIMIT $1",
                    vec![Box::new(i64::from(limit))],
                ))
                .await?;
            rows.iter().map(info_from_row).collect()
        })
    }

    fn announce_lobby(&self, event: String) {
        // With the games' notices, in the same batches: `~EVENT` is never a
        // game id (those are base-32 letters and digits).
        let _ = self
            .0
            .outbox
            .send((format!("~{}", event.replace(' ', "/")), 0));
    }

    fn set_away(&self, id: String, seat: Player, since: Option<i64>) -> StoreFuture<()> {
        let column = match seat {
            Player::A => "away_a",
            Player::B => "away_b",
        };
        let store = self.clone();
        Box::pin(async move {
            store
                .write(vec![stmt(
                    format!("UPDATE games SET {column} = $2 WHERE id = $1"),
                    vec![Box::new(id.clone()), Box::new(since)],
                )])
                .await?;
            store.announce(id, 0);
            Ok(())
        })
    }

    fn heartbeat(
        &self,
        server: String,
        now: i64,
        games: Vec<String>,
        dead_before: i64,
    ) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            let mut stmts = vec![stmt(
                "INSERT INTO servers (id, alive_at) VALUES ($1, $2)
                 ON CONFLICT (id) DO UPDATE SET alive_at = excluded.alive_at",
                vec![Box::new(server.clone()), Box::new(now)],
            )];
            if !games.is_empty() {
                stmts.push(stmt(
                    "UPDATE games SET server = $2 WHERE id = ANY($1) AND (server IS NULL
                         OR server NOT IN (SELECT id FROM servers WHERE alive_at >= $3))",
                    vec![Box::new(games), Box::new(server), Box::new(dead_before)],
                ));
            }
            store.write(stmts).await?;
            Ok(())
        })
    }

    fn take_over(&self, id: String, server: String, dead_before: i64) -> StoreFuture<Option<i64>> {
        let store = self.clone();
        Box::pin(async move {
            let rows = store
                .read_one(stmt(
                    "SELECT g.server, s.alive_at FROM games g
                     LEFT JOIN servers s ON s.id = g.server WHERE g.id = $1",
                    vec![Box::new(id.clone())],
                ))
                .await?;
            let Some(r) = rows.first() else {
                return Ok(None);
            };
            let other = |e: tokio_postgres::Error| StoreError::Other(e.to_string());
            let was: Option<String> = r.try_get(0).map_err(other)?;
            let alive_at: Option<i64> = r.try_get(1).map_err(other)?;
            let credit = match (&was, alive_at) {
                (Some(w), _) if *w == server => return Ok(None),
                (Some(_), Some(at)) if at >= dead_before => return Ok(None),
                (Some(_), at) => at,
                (None, _) => None,
            };
            // Compare and set: of two servers taking over at once, one
            // changes the row; the other is told there is nothing to credit.
            match store
                .write(vec![stmt(
                    "UPDATE games SET server = $2 WHERE id = $1 AND server IS NOT DISTINCT FROM $3",
                    vec![Box::new(id), Box::new(server), Box::new(was)],
                )
                .expect(1)])
                .await
            {
                Ok(_) => Ok(credit),
                Err(StoreError::Conflict) => Ok(None),
                Err(e) => Err(e),
            }
        })
    }

    fn set_watchers(
        &self,
        server: String,
        counts: Vec<(String, u32)>,
        now: i64,
    ) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            let mut stmts = vec![stmt(
                "DELETE FROM watchers WHERE server = $1",
                vec![Box::new(server.clone())],
            )];
            for (g, n) in counts {
                stmts.push(stmt(
                    "INSERT INTO watchers (game_id, server, n, at) VALUES ($1, $2, $3, $4)",
                    vec![
                        Box::new(g),
                        Box::new(server.clone()),
                        Box::new(i32::try_from(n).unwrap_or(i32::MAX)),
                        Box::new(now),
                    ],
                ));
            }
            store.write(stmts).await?;
            Ok(())
        })
    }

    fn watchers(&self, ids: Vec<String>, since: i64) -> StoreFuture<Vec<(String, u32)>> {
        let store = self.clone();
        Box::pin(async move {
            let rows = store
                .read_one(stmt(
                    "SELECT game_id, SUM(n)::INTEGER FROM watchers
                     WHERE game_id = ANY($1) AND at > $2 GROUP BY game_id",
                    vec![Box::new(ids), Box::new(since)],
                ))
                .await?;
            rows.iter()
                .map(|r| {
                    let g: String = r.try_get(0).map_err(|e| StoreError::Other(e.to_string()))?;
                    let n: i32 = r.try_get(1).map_err(|e| StoreError::Other(e.to_string()))?;
                    Ok((g, u32::try_from(n).unwrap_or(0)))
                })
                .collect()
        })
    }

    fn due_games(&self, now: i64, limit: u32) -> StoreFuture<Vec<String>> {
        let store = self.clone();
        Box::pin(async move {
            let rows = store
                .read_one(stmt(
                    "SELECT id FROM games WHERE deadline IS NOT NULL AND deadline <= $1
                         AND status = 'playing'
                     ORDER BY deadline LIMIT $2",
                    vec![Box::new(now), Box::new(i64::from(limit))],
                ))
                .await?;
            rows.iter()
                .map(|r| r.try_get::<_, String>(0))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| StoreError::Other(e.to_string()))
        })
    }

    fn notices(&self) -> Option<tokio::sync::broadcast::Receiver<Notice>> {
        Some(self.0.notices.subscribe())
    }

    fn latest_plies(&self, ids: Vec<String>) -> StoreFuture<Vec<(String, u32)>> {
        let store = self.clone();
        Box::pin(async move {
            let rows = store
                .read_one(stmt(
                    "SELECT game_id, max(ply) FROM actions WHERE game_id = ANY($1)
                     GROUP BY game_id",
                    vec![Box::new(ids)],
                ))
                .await?;
            rows.iter()
                .map(|r| {
                    let ply: i32 = r.try_get(1)?;
                    Ok((r.try_get::<_, String>(0)?, ply.max(0) as u32))
                })
                .collect::<Result<Vec<_>, tokio_postgres::Error>>()
                .map_err(|e| StoreError::Other(e.to_string()))
        })
    }

    fn claim_ai_turn(&self, id: String, ply: u32, lease: std::time::Duration) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move {
            let now = now_ms();
            let until = now + lease.as_millis() as i64;
            let ply = i32::try_from(ply).map_err(|_| StoreError::Other("ply too large".into()))?;
            // Taken if free, lapsed, or already this server's; the row's
            // lock makes two servers' claims one after the other.
            let counts = store
                .write(vec![stmt(
                    "INSERT INTO ai_claims (game_id, ply, server, until_ms) VALUES ($1, $2, $3, $4)
                     ON CONFLICT (game_id, ply) DO UPDATE
                         SET server = excluded.server, until_ms = excluded.until_ms
                         WHERE ai_claims.server = excluded.server OR ai_claims.until_ms <= $5",
                    vec![
                        Box::new(id),
                        Box::new(ply),
                        Box::new(store.0.origin.clone()),
                        Box::new(until),
                        Box::new(now),
                    ],
                )])
                .await?;
            Ok(counts.first() == Some(&1))
        })
    }

    fn failure(&self) -> Option<String> {
        self.health().refusal()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_redacted() {
        assert_eq!(
            redact("postgres://gore:secret@db.example/gore"),
            "postgres://gore:***@db.example/gore"
        );
        assert_eq!(redact("postgres://db/gore"), "postgres://db/gore");
    }

    #[test]
    fn health_refuses_for_each_reason() {
        let mut h = Health::default();
        assert_eq!(h.refusal(), None);
        h.unreachable = Some("refused".into());
        assert!(h.refusal().unwrap().contains("cannot be reached"));
        h.unknown.insert(7);
        assert!(h.refusal().unwrap().contains("unknown"));
        h.unknown.clear();
        h.unreachable = None;
        h.fatal = Some("restart".into());
        assert_eq!(h.refusal().as_deref(), Some("restart"));
    }
}
