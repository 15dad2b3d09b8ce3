//! The PostgreSQL executor: the store's queries ([`super::queries`]) on
//! a PostgreSQL database that several servers may share. A write's
//! statements are sent together (pipelined) in one transaction; reads of
//! several statements share one `REPEATABLE READ` snapshot. Other servers
//! hear of each committed change through `LISTEN`/`NOTIFY`
//! (`src/notices.rs`, started here).
//!
//! Crates: `tokio-postgres` (the asynchronous client most Rust services on
//! PostgreSQL use, maintained for a decade, with no macros or build-time
//! database) and `deadpool-postgres` (its usual pool: small, no background
//! threads, checks connections as they are handed out); why not sqlx: see
//! [`super`]. TLS to the database is not built in yet: keep the database
//! on the same machine or a private network.
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
//! - While writes are refused, [`ServerStore::failure`](super::ServerStore::failure) says why, and reads go
//!   on whenever the database answers.

use std::collections::HashSet;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use bytes::BytesMut;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use futures_util::future::BoxFuture;
use futures_util::TryStreamExt;
use tokio_postgres::types::{FromSql, IsNull, ToSql, Type};
use tokio_postgres::{NoTls, SimpleQueryMessage};

use crate::notices::{spawn_listener, spawn_notifier};

use super::queries::Db;
use super::schema::{self, Dialect};
use super::sql::{Answer, Executor, Row, Stmt, Value};
use super::{Notice, StoreError};
use crate::url::redact;
use gore_domain::now_ms;

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

/// The PostgreSQL store: the store's queries on [`PgExec`].
pub type PgStore = Db<PgExec>;

/// The PostgreSQL executor: a pool of connections. Cheap to clone.
#[derive(Clone)]
pub struct PgExec(Arc<Inner>);

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
}

impl Drop for Conn {
    fn drop(&mut self) {
        if let Some(c) = self.0.take() {
            drop(deadpool_postgres::Object::take(c));
        }
    }
}

/// The pooled client, with its cache of prepared statements.
impl std::ops::Deref for Conn {
    type Target = deadpool_postgres::ClientWrapper;
    fn deref(&self) -> &deadpool_postgres::ClientWrapper {
        self.0.as_ref().expect("a connection until released")
    }
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
        answers: Vec<Answer>,
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

impl Db<PgExec> {
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
        let listened = tokio::time::timeout(options.connect_timeout * 2, listening).await;
        anyhow::ensure!(
            matches!(listened, Ok(Ok(()))),
            "cannot LISTEN on {}",
            redact(url)
        );
        Ok(Db(PgExec(Arc::new(Inner {
            pool,
            options,
            health: Mutex::new(Health::default()),
            probing: AtomicBool::new(false),
            origin,
            notices,
            outbox,
        }))))
    }
}

impl PgExec {
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
        drop(client); // closed, not returned
        self.0.pool.retain(|_, _| false);
    }

    /// Rolls back `client`'s failed transaction and returns it to the
    /// pool (or drops it, if the rollback fails).
    async fn roll_back(&self, client: Conn) {
        if client.batch_execute("ROLLBACK").await.is_err() {
            self.drop_idle(client);
        } else {
            client.release();
        }
    }

    /// Runs `stmts` in one transaction (see the module's policy) and
    /// returns their answers once committed.
    async fn write(&self, stmts: Vec<Stmt>) -> Result<Vec<Answer>, StoreError> {
        if let Some(why) = self.health().refusal() {
            return Err(StoreError::Failed(why));
        }
        let mut lost = String::new();
        for _ in 0..3 {
            let client = self.client().await?;
            match run_tx(&client, &stmts).await {
                Ok(answers) => {
                    client.release();
                    return Ok(answers);
                }
                Err(TxError::Refused(e)) => {
                    self.roll_back(client).await;
                    return Err(if is_conflict(&e) {
                        StoreError::Conflict
                    } else {
                        StoreError::Other(e.to_string())
                    });
                }
                Err(TxError::Moved) => {
                    self.roll_back(client).await;
                    return Err(StoreError::Conflict);
                }
                Err(TxError::Lost(why)) => {
                    tracing::warn!("database: connection lost before commit ({why}); retrying");
                    self.drop_idle(client);
                    lost = why;
                }
                Err(TxError::AtCommit { xid, why, answers }) => {
                    self.drop_idle(client);
                    return self.resolve(xid, why).await.map(|()| answers);
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
            match self
                .ask::<Option<String>>("SELECT txid_status($1)", &[&xid])
                .await
            {
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

    /// The first column of a one-row query on a connection from the pool
    /// (after a failed query, the idle ones are dropped).
    async fn ask<T: for<'a> FromSql<'a>>(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<T, String> {
        let client = Conn(Some(self.0.pool.get().await.map_err(|e| e.to_string())?));
        match client
            .query_one(sql, params)
            .await
            .and_then(|r| r.try_get(0))
        {
            Ok(v) => {
                client.release();
                Ok(v)
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
                let store = PgExec(inner);
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
            match self
                .ask::<Option<String>>("SELECT txid_status($1)", &[&xid])
                .await
            {
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
        if self.ask::<i32>("SELECT 1", &[]).await.is_ok() {
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
                    if queries.len() > 1 {
                        self.roll_back(client).await;
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
        let rows = client.query(q.sql.as_ref(), &params(q)).await?;
        out.push(rows_of(&rows)?);
    }
    if tx {
        client.batch_execute("COMMIT").await?;
    }
    Ok(out)
}

/// A statement's values as the driver takes them.
fn params(s: &Stmt) -> Vec<&(dyn ToSql + Sync)> {
    s.params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

/// The driver's rows as the store's.
fn rows_of(rows: &[tokio_postgres::Row]) -> Result<Vec<Row>, tokio_postgres::Error> {
    let Some(first) = rows.first() else {
        return Ok(Vec::new());
    };
    let names: Arc<[String]> = first
        .columns()
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    rows.iter()
        .map(|r| {
            let values = (0..names.len())
                .map(|i| r.try_get::<_, Value>(i))
                .collect::<Result<_, _>>()?;
            Ok(Row::new(names.clone(), values))
        })
        .collect()
}

/// `BEGIN`, the transaction's id, the statements, `COMMIT`.
async fn run_tx(
    client: &deadpool_postgres::ClientWrapper,
    stmts: &[Stmt],
) -> Result<Vec<Answer>, TxError> {
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
        prepared.push(client.prepare_cached(s.sql.as_ref()).await.map_err(early)?);
    }
    let refs: Vec<Vec<&(dyn ToSql + Sync)>> = stmts.iter().map(params).collect();
    let results =
        futures_util::future::join_all(prepared.iter().zip(&refs).map(|(st, params)| async move {
            let stream = client.query_raw(st, params.iter().copied()).await?;
            futures_util::pin_mut!(stream);
            let rows: Vec<tokio_postgres::Row> = (&mut stream).try_collect().await?;
            let count = stream.rows_affected().unwrap_or(rows.len() as u64);
            Ok::<_, tokio_postgres::Error>(Answer {
                count,
                rows: rows_of(&rows)?,
            })
        }))
        .await;
    let mut answers = Vec::with_capacity(stmts.len());
    for r in results {
        answers.push(r.map_err(early)?);
    }
    if stmts
        .iter()
        .zip(&answers)
        .any(|(s, a)| s.expect.is_some_and(|e| e != a.count))
    {
        return Err(TxError::Moved);
    }
    match client.batch_execute("COMMIT").await {
        Ok(()) => Ok(answers),
        // A plain refusal (a deferred constraint): rolled back.
        Err(e) if !is_lost(&e) && e.as_db_error().is_some() => Err(TxError::Refused(e)),
        Err(e) => Err(TxError::AtCommit {
            xid,
            why: e.to_string(),
            answers,
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
    for (n, step) in schema::pending(version.into())? {
        tx.batch_execute(&step.text(Dialect::Postgres)).await?;
        let n = n as i32;
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

impl Executor for PgExec {
    fn write(&self, stmts: Vec<Stmt>) -> BoxFuture<'static, Result<Vec<Answer>, StoreError>> {
        let exec = self.clone();
        Box::pin(async move { PgExec::write(&exec, stmts).await })
    }

    fn read(&self, stmts: Vec<Stmt>) -> BoxFuture<'static, Result<Vec<Vec<Row>>, StoreError>> {
        let exec = self.clone();
        Box::pin(async move { PgExec::read(&exec, stmts).await })
    }

    fn failure(&self) -> Option<String> {
        self.health().refusal()
    }

    fn origin(&self) -> &str {
        &self.0.origin
    }

    /// Through the notifier: after the commit, in a batch.
    fn announce(&self, game: String, ply: gore_domain::Ply) {
        let _ = self.0.outbox.send((game, ply.get()));
    }

    fn announce_lobby(&self, event: String) {
        // With the games' notices, in the same batches: `~EVENT` is never a
        // game id (those are base-32 letters and digits).
        self.announce(
            format!("~{}", event.replace(' ', "/")),
            gore_domain::Ply::ZERO,
        );
    }

    fn notices(&self) -> Option<tokio::sync::broadcast::Receiver<Notice>> {
        Some(self.0.notices.subscribe())
    }
}

type BoxError = Box<dyn std::error::Error + Sync + Send>;

/// Binds at the parameter's type: an integer at its width (PostgreSQL
/// refuses a `BIGINT` for an `INTEGER`), a number as a float of its size.
impl ToSql for Value {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
        fn checked<T: ToSql>(v: &T, ty: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
            if !T::accepts(ty) {
                return Err(
                    format!("a {} parameter given {}", ty, std::any::type_name::<T>()).into(),
                );
            }
            v.to_sql(ty, out)
        }
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(i) if *ty == Type::INT2 => checked(&i16::try_from(*i)?, ty, out),
            Value::Int(i) if *ty == Type::INT4 => checked(&i32::try_from(*i)?, ty, out),
            Value::Int(i) => checked(i, ty, out),
            Value::Real(f) if *ty == Type::FLOAT4 => checked(&(*f as f32), ty, out),
            Value::Real(f) => checked(f, ty, out),
            Value::Text(s) => checked(s, ty, out),
            Value::Bool(b) => checked(b, ty, out),
            Value::List(v) => checked(v, ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    tokio_postgres::types::to_sql_checked!();
}

/// Reads the column types the schema has.
impl<'a> FromSql<'a> for Value {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Value, BoxError> {
        Ok(match *ty {
            Type::INT2 => Value::Int(i16::from_sql(ty, raw)?.into()),
            Type::INT4 => Value::Int(i32::from_sql(ty, raw)?.into()),
            Type::INT8 => Value::Int(i64::from_sql(ty, raw)?),
            Type::FLOAT4 => Value::Real(f32::from_sql(ty, raw)?.into()),
            Type::FLOAT8 => Value::Real(f64::from_sql(ty, raw)?),
            Type::BOOL => Value::Bool(bool::from_sql(ty, raw)?),
            // NUMERIC (a sum of BIGINTs) is not read: the statements cast.
            _ => Value::Text(String::from_sql(ty, raw)?),
        })
    }

    fn from_sql_null(_: &Type) -> Result<Value, BoxError> {
        Ok(Value::Null)
    }

    fn accepts(ty: &Type) -> bool {
        matches!(
            *ty,
            Type::INT2 | Type::INT4 | Type::INT8 | Type::FLOAT4 | Type::FLOAT8 | Type::BOOL
        ) || <String as FromSql>::accepts(ty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
