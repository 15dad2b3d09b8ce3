//! The SQLite store's executor, on a thread of its own: the store's
//! queries ([`super::queries`]) run here as lists of statements.
//!
//! Every write is a transaction with `synchronous=FULL` in WAL mode, so an
//! action is on disk when its future resolves `Ok`. The schema is migrated
//! on start ([`super::schema`], the steps both stores share) and its
//! version kept in `PRAGMA user_version`.
//!
//! Failing closed: a write or sync that fails, or a database file deleted
//! or replaced under the server, puts the store in a failed state in which
//! every write is refused ([`StoreError::Failed`]) and reads go on, until
//! an operator restarts the server — the rule PostgreSQL adopted after its
//! fsync bug: after a failed sync, what is on disk is unknown, so stop
//! acknowledging.

use std::path::Path;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;

use anyhow::Context;
use futures_util::future::BoxFuture;
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::Connection;
use tokio::sync::oneshot;

use super::queries::Db;
use super::schema::{self, Dialect};
use super::sql::{for_sqlite, Answer, Executor, Row, Stmt, Value};
use super::StoreError;

/// SQLite's refusal as the store's error: a constraint it enforces (a
/// ply already stored, an id taken, a game moved on) is a conflict.
fn refused(e: rusqlite::Error) -> StoreError {
    match e {
        rusqlite::Error::SqliteFailure(f, _)
            if f.code == rusqlite::ErrorCode::ConstraintViolation =>
        {
            StoreError::Conflict
        }
        e => StoreError::Other(format!("database: {e}")),
    }
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        use rusqlite::types::Value as V;
        Ok(match self {
            Value::Null => ToSqlOutput::Owned(V::Null),
            Value::Int(i) => ToSqlOutput::Owned(V::Integer(*i)),
            Value::Real(f) => ToSqlOutput::Owned(V::Real(*f)),
            Value::Text(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
            Value::Bool(b) => ToSqlOutput::Owned(V::Integer(i64::from(*b))),
            // Bound to `rarray(?n)` (see `for_sqlite`).
            Value::List(v) => ToSqlOutput::Array(Rc::new(v.iter().cloned().map(V::Text).collect())),
        })
    }
}

fn value(v: ValueRef<'_>) -> rusqlite::Result<Value> {
    Ok(match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Int(i),
        ValueRef::Real(f) => Value::Real(f),
        ValueRef::Text(t) => Value::Text(
            std::str::from_utf8(t)
                .map_err(rusqlite::Error::Utf8Error)?
                .to_string(),
        ),
        ValueRef::Blob(_) => return Err(rusqlite::Error::InvalidQuery),
    })
}

/// Runs `stmts` in order; a statement that touches other rows than it
/// must is refused as a constraint violation, so that it reads as
/// [`StoreError::Conflict`] (and the job's savepoint is rolled back).
fn run(c: &Connection, stmts: &[Stmt]) -> rusqlite::Result<Vec<Answer>> {
    let mut out = Vec::with_capacity(stmts.len());
    for s in stmts {
        let mut st = c.prepare_cached(&for_sqlite(&s.sql))?;
        let params = rusqlite::params_from_iter(s.params.iter());
        let answer = if st.column_count() > 0 {
            let names: Arc<[String]> = st.column_names().into_iter().map(String::from).collect();
            let mut rows = st.query(params)?;
            let mut found = Vec::new();
            while let Some(r) = rows.next()? {
                let values = (0..names.len())
                    .map(|i| value(r.get_ref(i)?))
                    .collect::<rusqlite::Result<_>>()?;
                found.push(Row::new(names.clone(), values));
            }
            Answer {
                count: found.len() as u64,
                rows: found,
            }
        } else {
            Answer {
                count: st.execute(params)? as u64,
                rows: Vec::new(),
            }
        };
        if s.expect.is_some_and(|n| n != answer.count) {
            return Err(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CONSTRAINT),
                Some("the game has moved on".into()),
            ));
        }
        out.push(answer);
    }
    Ok(out)
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

/// The SQLite store: the store's queries on [`SqliteExec`].
pub type SqliteStore = Db<SqliteExec>;

/// The SQLite executor: a handle on its thread. Cheap to clone.
#[derive(Clone)]
pub struct SqliteExec {
    jobs: mpsc::Sender<Job>,
    failed: Arc<Failure>,
    /// This process's name among those sharing the file.
    origin: Arc<str>,
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
    // `rarray(?n)`: the lists of `x = ANY($n)` (see `for_sqlite`).
    rusqlite::vtab::array::load_module(&c)?;
    // Every statement of the store stays prepared (there are about 80).
    c.set_prepared_statement_cache_capacity(128);
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

/// Brings the schema up to [`schema::VERSION`], one transaction per step.
fn migrate(c: &mut Connection) -> anyhow::Result<()> {
    let version: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    for (n, step) in schema::pending(version)? {
        let tx = c.transaction()?;
        tx.execute_batch(&step.text(Dialect::Sqlite))?;
        tx.pragma_update(None, "user_version", n)?;
        tx.commit()?;
        tracing::info!("database schema migrated to version {n}");
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

impl Db<SqliteExec> {
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
                    while let Some(Ok(j)) = (batch.len() < BATCH).then(|| rx.try_recv()) {
                        batch.push(j);
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
        // A worker or a second server may share the file: claims and
        // heartbeats need a name, as on PostgreSQL.
        let origin = format!("{:016x}", rand::random::<u64>());
        Ok(Db(SqliteExec {
            jobs,
            failed,
            origin: origin.into(),
        }))
    }
}

impl SqliteExec {
    /// Runs `f` on the database thread, in a savepoint of a transaction,
    /// and answers once that transaction is committed. An error from `f`
    /// undoes only what `f` did. `writes`: refused once the store failed.
    fn call<R, F>(
        &self,
        writes: bool,
        f: F,
    ) -> impl std::future::Future<Output = Result<R, StoreError>> + Send + 'static
    where
        R: Send + 'static,
        F: FnOnce(&Connection) -> rusqlite::Result<R> + Send + 'static,
    {
        let (tx, rx) = oneshot::channel::<Result<R, StoreError>>();
        let failure = self.failed.clone();
        let refusal = writes.then(|| self.failed.get()).flatten();
        let sent = if refusal.is_some() {
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
                        Some(why) if writes => Err(StoreError::Failed(why)),
                        _ => result.map_err(refused),
                    });
                })
            }))
        };
        async move {
            if let Some(why) = refusal {
                return Err(StoreError::Failed(why));
            }
            let closed = || StoreError::Other("database: the database thread has stopped".into());
            sent.map_err(|_| closed())?;
            rx.await.map_err(|_| closed())?
        }
    }
}

impl Executor for SqliteExec {
    fn write(&self, stmts: Vec<Stmt>) -> BoxFuture<'static, Result<Vec<Answer>, StoreError>> {
        Box::pin(self.call(true, move |c| run(c, &stmts)))
    }

    fn read(&self, stmts: Vec<Stmt>) -> BoxFuture<'static, Result<Vec<Vec<Row>>, StoreError>> {
        let f = self.call(false, move |c| run(c, &stmts));
        Box::pin(async move { Ok(f.await?.into_iter().map(|a| a.rows).collect()) })
    }

    fn failure(&self) -> Option<String> {
        self.failed.get()
    }

    fn origin(&self) -> &str {
        &self.origin
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
        assert_eq!(v as usize, schema::VERSION);
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
}
