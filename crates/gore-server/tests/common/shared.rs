//! Several servers of one test on one store: handles on one SQLite store
//! (one file, one writer), each with its own name, announcing its changes
//! to the others as PostgreSQL's notices do. The queries are the real
//! store's; only the notices are this test's (at the executor's seam), so
//! the domain's side of the coordination (a conflict per ply, takebacks
//! and resignations checked where the game stands, notices to the other
//! servers, leased AI claims) is tested without PostgreSQL.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use gore_server::store::queries::Db;
use gore_server::store::sql::{Answer, Executor, Row, Stmt};
use gore_server::store::sqlite::{SqliteExec, SqliteStore};
use gore_server::store::{Notice, Store, StoreError};
use tokio::sync::broadcast;

use super::{server_on_store, Server};

/// One database, several handles on it (one per server).
#[derive(Clone)]
pub struct Shared {
    exec: SqliteExec,
    path: std::path::PathBuf,
    /// Every change, with the name of the handle that made it.
    changes: broadcast::Sender<(String, Notice)>,
    _dir: Arc<tempfile::TempDir>,
}

impl Shared {
    pub fn new() -> Shared {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shared.sqlite3");
        Shared {
            exec: SqliteStore::open(&path, Default::default()).unwrap().0,
            path,
            changes: broadcast::channel(1024).0,
            _dir: Arc::new(dir),
        }
    }

    /// The store of server `me`.
    pub fn handle(&self, me: usize) -> Arc<dyn Store> {
        Arc::new(Db(Hub {
            inner: self.exec.clone(),
            me: name(me),
            changes: self.changes.clone(),
            _dir: self._dir.clone(),
        }))
    }
}

impl Shared {
    /// Marks game `game`'s AI due at `ply` in the file itself, as a
    /// server would that stored an action leaving the AI to act there.
    pub fn mark_ai_due(&self, game: &str, ply: u32) {
        let c = rusqlite::Connection::open(&self.path).unwrap();
        c.busy_timeout(std::time::Duration::from_secs(30)).unwrap();
        c.execute(
            "UPDATE games SET ai_turn = ?2 WHERE id = ?1",
            rusqlite::params![game, ply],
        )
        .unwrap();
    }
}

fn name(me: usize) -> String {
    format!("server-{me}")
}

/// A handle's executor: the shared SQLite one, with notices.
#[derive(Clone)]
struct Hub {
    inner: SqliteExec,
    me: String,
    changes: broadcast::Sender<(String, Notice)>,
    /// The database's folder lives as long as a handle does (the servers
    /// may outlive `Shared`).
    _dir: Arc<tempfile::TempDir>,
}

impl Executor for Hub {
    fn write(&self, stmts: Vec<Stmt>) -> BoxFuture<'static, Result<Vec<Answer>, StoreError>> {
        self.inner.write(stmts)
    }

    fn read(&self, stmts: Vec<Stmt>) -> BoxFuture<'static, Result<Vec<Vec<Row>>, StoreError>> {
        self.inner.read(stmts)
    }

    fn failure(&self) -> Option<String> {
        self.inner.failure()
    }

    fn origin(&self) -> &str {
        &self.me
    }

    fn announce(&self, game: String, ply: gore_server::domain::Ply) {
        let _ = self
            .changes
            .send((self.me.clone(), Notice::Changed { game, ply }));
    }

    fn announce_lobby(&self, event: String) {
        let _ = self.changes.send((self.me.clone(), Notice::Lobby(event)));
    }

    fn notices(&self) -> Option<broadcast::Receiver<Notice>> {
        let (tx, rx) = broadcast::channel(1024);
        let mut all = self.changes.subscribe();
        let me = self.me.clone();
        tokio::spawn(async move {
            while let Ok((from, n)) = all.recv().await {
                if from != me && tx.send(n).is_err() {
                    return;
                }
            }
        });
        Some(rx)
    }
}

/// A server of this test on the shared store, as handle `me`.
pub async fn server_on(shared: &Shared, me: usize) -> Server {
    server_on_with(shared, me, |_| {}).await
}

/// As [`server_on`], its test configuration changed by `f`.
pub async fn server_on_with(
    shared: &Shared,
    me: usize,
    f: impl FnOnce(&mut gore_server::Config),
) -> Server {
    server_on_store(shared.handle(me), f).await
}
