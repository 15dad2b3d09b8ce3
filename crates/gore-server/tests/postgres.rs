//! The PostgreSQL store against a real PostgreSQL, each test on a fresh
//! database of its own: two stores ("servers") racing on one ply, one
//! migration for stores opening together, the same schema as SQLite's,
//! acknowledged actions read back by a new store, and the policy of
//! src/store/postgres.rs when connections are lost (terminated backends,
//! a database out of reach, a commit whose answer or whose request is
//! lost, an outcome unknown until the database is back).
//!
//! They run when `GORE_TEST_POSTGRES` names a database URL (.ci/run sets
//! it). Without it they fail under `CI=true`, and elsewhere pass with a
//! loud warning.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use gore_server::domain::Ply;
use gore_server::store::postgres::{PgOptions, PgStore};
use gore_server::store::{GameStore, ServerStore, StoreError, StoredAction};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The base URL, or `None` (with a warning) off CI.
fn pg() -> Option<String> {
    if let Some(url) = postgres_url() {
        return Some(url);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "GORE_TEST_POSTGRES is not set: under CI=true the PostgreSQL tests must run \
             (.ci/run installs and starts PostgreSQL and sets it)"
        );
    }
    // Straight to stderr: the test harness hides what `eprintln!` prints
    // in a passing test.
    use std::io::Write;
    let _ = std::io::stderr().write_all(
        b"\n*** WARNING: GORE_TEST_POSTGRES is not set: the PostgreSQL tests did NOT run. ***\n\
          *** Set it to a database URL, e.g. postgres://gore:gore@127.0.0.1/gore_test ***\n",
    );
    None
}

fn action(ply: u32, a: &str) -> StoredAction {
    StoredAction {
        ply: Ply::new(ply),
        action: a.parse().unwrap(),
        captured: vec![],
        position: None,
        at: 1,
    }
}

/// A server on `url`; a local game created on it: (id, token).
async fn server_with_game(url: &str) -> (Server, String, String) {
    let s = server(|c| c.db = url.to_string()).await;
    let g = create_game(&bot(), &s, json!({"mode": "local"})).await;
    (s, g.id, g.token)
}

/// Two stores on one database append the same ply of the same games at
/// once: for every game exactly one commits, the other is `Conflict`.
#[tokio::test(flavor = "multi_thread")]
async fn two_stores_racing_on_one_ply_commit_it_once() {
    let Some(base) = pg() else { return };
    let url = fresh_pg_database(&base).await;
    let (s, _, _) = server_with_game(&url).await;
    let mut ids = Vec::new();
    for _ in 0..20 {
        let g = create_game(&bot(), &s, json!({"mode": "local"})).await;
        ids.push(g.id.clone());
    }
    let a = PgStore::connect(&url, PgOptions::default()).await.unwrap();
    let b = PgStore::connect(&url, PgOptions::default()).await.unwrap();
    for id in &ids {
        let (ra, rb) = tokio::join!(
            a.append_action(id.clone(), 0, action(1, "a1"), None, None),
            b.append_action(id.clone(), 0, action(1, "a2"), None, None),
        );
        let oks = [&ra, &rb].iter().filter(|r| r.is_ok()).count();
        assert_eq!(oks, 1, "{id}: {ra:?} {rb:?}");
        assert!(
            matches!(ra, Err(StoreError::Conflict)) || matches!(rb, Err(StoreError::Conflict)),
            "{ra:?} {rb:?}"
        );
        let g = a.load_game(id.clone()).await.unwrap().unwrap();
        assert_eq!(g.actions.len(), 1);
        let winner = if ra.is_ok() { "a1" } else { "a2" };
        assert_eq!(g.actions[0].action.to_string(), winner);
    }
    assert_eq!(a.failure(), None);
    assert_eq!(b.failure(), None);
}

/// Stores opening together on an empty database migrate it once: every
/// open succeeds and each step is recorded once. The columns are SQLite's.
#[tokio::test(flavor = "multi_thread")]
async fn stores_opening_together_migrate_once_to_sqlites_schema() {
    let Some(base) = pg() else { return };
    let url = fresh_pg_database(&base).await;
    let opens: Vec<_> = (0..4)
        .map(|_| {
            let url = url.clone();
            tokio::spawn(async move { PgStore::connect(&url, PgOptions::default()).await })
        })
        .collect();
    for o in opens {
        o.await.unwrap().unwrap();
    }
    let c = pg_connect(&url).await;
    let versions: Vec<i32> = c
        .query("SELECT version FROM schema_version ORDER BY version", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let expected: Vec<i32> = (1..=gore_server::SCHEMA_VERSION as i32).collect();
    assert_eq!(versions, expected);

    // The same tables and columns as a SQLite file of the same version.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.sqlite3");
    drop(gore_server::store::sqlite::SqliteStore::open(&path, Default::default()).unwrap());
    let lite = rusqlite::Connection::open(&path).unwrap();
    for table in ["games", "actions", "session_seats"] {
        let mut want: Vec<String> = lite
            .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        want.sort();
        let mut got: Vec<String> = c
            .query(
                "SELECT column_name::text FROM information_schema.columns
                 WHERE table_schema = current_schema() AND table_name = $1",
                &[&table],
            )
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        got.sort();
        assert_eq!(got, want, "{table}");
    }
    // A newer schema is refused.
    c.batch_execute("INSERT INTO schema_version VALUES (99, 0)")
        .await
        .unwrap();
    let e = PgStore::connect(&url, PgOptions::default())
        .await
        .err()
        .unwrap();
    assert!(format!("{e:#}").contains("newer"), "{e:#}");
}

/// What a server acknowledged is read back by a new store (new
/// connections, nothing cached).
#[tokio::test(flavor = "multi_thread")]
async fn acknowledged_actions_are_there_for_a_new_store() {
    let Some(base) = pg() else { return };
    let url = fresh_pg_database(&base).await;
    let (s, id, t) = server_with_game(&url).await;
    let c = bot();
    for (i, a) in ["a1", "b1", "a2", "b2"].iter().enumerate() {
        let (code, v) = act(&c, &s, &id, Some(&t), json!({"action": a, "ply": i})).await;
        assert_eq!(code, 200, "{v}");
    }
    drop(s);
    let again = PgStore::connect(&url, PgOptions::default()).await.unwrap();
    let g = again.load_game(id).await.unwrap().unwrap();
    let played: Vec<String> = g.actions.iter().map(|a| a.action.to_string()).collect();
    assert_eq!(played, ["a1", "b1", "a2", "b2"]);
}

/// A database at schema version 4 (a ladder of 8 levels, the perfect
/// player stored as level 9) with a perfect game and games at levels 5
/// and 8: after the migration the first reads as perfect, the others keep
/// their levels.
#[tokio::test(flavor = "multi_thread")]
async fn the_old_perfect_level_migrates_and_other_levels_keep_their_number() {
    use gore_server::store::schema::{Dialect, STEPS};
    let Some(base) = pg() else { return };
    let url = fresh_pg_database(&base).await;
    let c = pg_connect(&url).await;
    c.batch_execute(
        "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)",
    )
    .await
    .unwrap();
    for (i, step) in STEPS[..4].iter().enumerate() {
        c.batch_execute(&step.text(Dialect::Postgres))
            .await
            .unwrap();
        let n = (i + 1) as i32;
        c.execute("INSERT INTO schema_version VALUES ($1, 0)", &[&n])
            .await
            .unwrap();
    }
    let rules = gore_core::Rules::STANDARD;
    let start = gore_core::Position::new(rules.variant).to_string();
    for (id, level) in [("perfect000", 9i16), ("level50000", 5), ("level80000", 8)] {
        c.execute(
            "INSERT INTO games (id, mode, rules, start, level, creator, token_a, ai_seat,
                 status, created_at, updated_at)
             VALUES ($1, 'ai', $2, $3, $4, 'A', 'tok', 'B', 'playing', 1, 1)",
            &[&id, &rules.to_string(), &start, &level],
        )
        .await
        .unwrap();
    }
    let store = PgStore::connect(&url, PgOptions::default()).await.unwrap();
    let read = |id: &str| store.load_game(id.to_string());
    let perfect = read("perfect000").await.unwrap().unwrap().info;
    assert!(perfect.perfect);
    assert_eq!(perfect.level, gore_ai::Level::MAX);
    let five = read("level50000").await.unwrap().unwrap().info;
    assert!(!five.perfect);
    assert_eq!(five.level.get(), 5);
    let eight = read("level80000").await.unwrap().unwrap().info;
    assert!(!eight.perfect);
    assert_eq!(eight.level.get(), 8);
    let stored: i16 = c
        .query_one("SELECT level FROM games WHERE id = 'perfect000'", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(stored, i16::from(gore_server::domain::PERFECT_LEVEL));
}

/// Every connection of the server's database terminated under it (as a
/// restart of PostgreSQL does): the next action is committed on a new
/// connection, and the store does not count itself failed.
#[tokio::test(flavor = "multi_thread")]
async fn terminated_connections_are_replaced() {
    let Some(base) = pg() else { return };
    let url = fresh_pg_database(&base).await;
    let (s, id, t) = server_with_game(&url).await;
    let c = bot();
    assert_eq!(
        act(&c, &s, &id, Some(&t), json!({"action": "a1", "ply": 0}))
            .await
            .0,
        200
    );
    let admin = pg_connect(&url).await;
    let killed: i64 = admin
        .query_one(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert!(killed >= 1, "the server had connections to terminate");
    let (code, v) = act(&c, &s, &id, Some(&t), json!({"action": "b1", "ply": 1})).await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(s.state.games().failure(), None);
    let again = PgStore::connect(&url, PgOptions::default()).await.unwrap();
    assert_eq!(again.load_game(id).await.unwrap().unwrap().actions.len(), 2);
}

/// What the test proxy does to connections.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    /// Forwards both ways.
    Pass,
    /// Closes every connection and refuses new ones.
    Cut,
    /// Closes the next connection that would receive a `COMMIT` reply,
    /// without forwarding it (then back to `Pass`).
    LoseCommitReply,
    /// As `LoseCommitReply`, then `Cut`.
    LoseCommitReplyThenCut,
    /// Closes the next connection that sends a `COMMIT`, without
    /// forwarding it (then back to `Pass`).
    LoseCommit,
}

/// A TCP proxy in front of PostgreSQL that the test controls.
struct Proxy {
    port: u16,
    mode: Arc<Mutex<Mode>>,
    cut: Arc<tokio::sync::Notify>,
}

impl Proxy {
    async fn start(upstream: String) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let mode = Arc::new(Mutex::new(Mode::Pass));
        let cut = Arc::new(tokio::sync::Notify::new());
        let (m, k) = (mode.clone(), cut.clone());
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                if *m.lock().unwrap() == Mode::Cut {
                    drop(client);
                    continue;
                }
                let Ok(server) = TcpStream::connect(&upstream).await else {
                    continue;
                };
                tokio::spawn(pipe(client, server, m.clone(), k.clone()));
            }
        });
        Proxy { port, mode, cut }
    }

    fn set(&self, mode: Mode) {
        *self.mode.lock().unwrap() = mode;
        if mode == Mode::Cut {
            self.cut.notify_waiters();
        }
    }
}

async fn pipe(
    client: TcpStream,
    server: TcpStream,
    mode: Arc<Mutex<Mode>>,
    cut: Arc<tokio::sync::Notify>,
) {
    let (mut cr, mut cw) = client.into_split();
    let (mut sr, mut sw) = server.into_split();
    let up = async {
        let mut buf = vec![0u8; 16384];
        loop {
            let n = cr.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                return;
            }
            {
                let mut m = mode.lock().unwrap();
                if *m == Mode::LoseCommit && buf[..n].windows(7).any(|w| w == b"COMMIT\0") {
                    *m = Mode::Pass;
                    return;
                }
            }
            if sw.write_all(&buf[..n]).await.is_err() {
                return;
            }
        }
    };
    let down = async {
        let mut buf = vec![0u8; 16384];
        loop {
            let n = sr.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                return;
            }
            {
                let mut m = mode.lock().unwrap();
                // The CommandComplete of a COMMIT: the server has committed.
                if matches!(*m, Mode::LoseCommitReply | Mode::LoseCommitReplyThenCut)
                    && buf[..n].windows(7).any(|w| w == b"COMMIT\0")
                {
                    if *m == Mode::LoseCommitReplyThenCut {
                        *m = Mode::Cut;
                        cut.notify_waiters();
                    } else {
                        *m = Mode::Pass;
                    }
                    return;
                }
            }
            if cw.write_all(&buf[..n]).await.is_err() {
                return;
            }
        }
    };
    tokio::select! {
        _ = up => {}
        _ = down => {}
        _ = cut.notified() => {}
    }
}

/// `url` through the proxy on `port`; and the upstream host:port.
fn via_proxy(url: &str, port: u16) -> (String, String) {
    use std::str::FromStr;
    let config = tokio_postgres::Config::from_str(url).unwrap();
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
        _ => "127.0.0.1".to_string(),
    };
    let up_port = config.get_ports().first().copied().unwrap_or(5432);
    let (scheme, rest) = url.split_once("://").unwrap();
    let (auth_host, tail) = rest.split_once('/').unwrap_or((rest, ""));
    let auth = auth_host.rsplit_once('@').map(|(a, _)| format!("{a}@"));
    (
        format!(
            "{scheme}://{}127.0.0.1:{port}/{tail}",
            auth.unwrap_or_default()
        ),
        format!("{host}:{up_port}"),
    )
}

/// Waits (30 s at most) until the store takes writes again.
async fn healthy(store: &PgStore) {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while let Some(why) = store.failure() {
        assert!(
            std::time::Instant::now() < deadline,
            "still refusing: {why}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The database out of reach: the write is refused (not acknowledged),
/// `failure()` says why, and so is the next write at once; once the
/// database answers again, writes resume.
#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_database_refuses_writes_until_it_is_back() {
    let Some(base) = pg() else { return };
    let url = fresh_pg_database(&base).await;
    let (_s, id, _) = server_with_game(&url).await;
    let proxy = Proxy::start(via_proxy(&url, 0).1).await;
    let (purl, _) = via_proxy(&url, proxy.port);
    let options = PgOptions {
        connect_timeout: Duration::from_secs(2),
        ..PgOptions::default()
    };
    let store = PgStore::connect(&purl, options).await.unwrap();
    proxy.set(Mode::Cut);
    let r = store
        .append_action(id.clone(), 0, action(1, "a1"), None, None)
        .await;
    assert!(matches!(r, Err(StoreError::Failed(_))), "{r:?}");
    let why = store.failure().expect("refusing writes");
    assert!(why.contains("cannot be reached"), "{why}");
    let r = store
        .append_action(id.clone(), 0, action(1, "a1"), None, None)
        .await;
    assert!(matches!(r, Err(StoreError::Failed(_))), "{r:?}");
    proxy.set(Mode::Pass);
    healthy(&store).await;
    store
        .append_action(id.clone(), 0, action(1, "a1"), None, None)
        .await
        .unwrap();
    assert_eq!(store.load_game(id).await.unwrap().unwrap().actions.len(), 1);
}

/// The answer to a `COMMIT` lost (the connection closes after the server
/// committed): the store learns from `txid_status` that it committed, and
/// acknowledges it; the action is there once, and writes go on.
#[tokio::test(flavor = "multi_thread")]
async fn a_commit_whose_answer_is_lost_is_resolved() {
    let Some(base) = pg() else { return };
    let url = fresh_pg_database(&base).await;
    let (_s, id, _) = server_with_game(&url).await;
    let proxy = Proxy::start(via_proxy(&url, 0).1).await;
    let (purl, _) = via_proxy(&url, proxy.port);
    let options = PgOptions {
        resolve_wait: Duration::from_secs(60),
        ..PgOptions::default()
    };
    let store = PgStore::connect(&purl, options).await.unwrap();
    proxy.set(Mode::LoseCommitReply);
    store
        .append_action(id.clone(), 0, action(1, "a1"), None, None)
        .await
        .expect("committed, and known to be");
    assert_eq!(*proxy.mode.lock().unwrap(), Mode::Pass, "a reply was lost");
    assert_eq!(store.failure(), None);
    let r = store
        .append_action(id.clone(), 0, action(1, "a2"), None, None)
        .await;
    assert!(matches!(r, Err(StoreError::Conflict)), "{r:?}");
    store
        .append_action(id.clone(), 0, action(2, "b1"), None, None)
        .await
        .unwrap();
    let g = store.load_game(id).await.unwrap().unwrap();
    let played: Vec<String> = g.actions.iter().map(|a| a.action.to_string()).collect();
    assert_eq!(played, ["a1", "b1"]);
}

/// A `COMMIT` that never reaches the server: the store learns that the
/// transaction was aborted, refuses the write (nothing changed), and takes
/// the next one.
#[tokio::test(flavor = "multi_thread")]
async fn a_commit_lost_on_the_way_is_refused_and_changes_nothing() {
    let Some(base) = pg() else { return };
    let url = fresh_pg_database(&base).await;
    let (_s, id, _) = server_with_game(&url).await;
    let proxy = Proxy::start(via_proxy(&url, 0).1).await;
    let (purl, _) = via_proxy(&url, proxy.port);
    let options = PgOptions {
        resolve_wait: Duration::from_secs(60),
        ..PgOptions::default()
    };
    let store = PgStore::connect(&purl, options).await.unwrap();
    proxy.set(Mode::LoseCommit);
    let r = store
        .append_action(id.clone(), 0, action(1, "a1"), None, None)
        .await;
    assert!(matches!(r, Err(StoreError::Failed(_))), "{r:?}");
    assert_eq!(*proxy.mode.lock().unwrap(), Mode::Pass, "a commit was lost");
    assert_eq!(store.failure(), None, "the outcome is known");
    assert!(store
        .load_game(id.clone())
        .await
        .unwrap()
        .unwrap()
        .actions
        .is_empty());
    store
        .append_action(id.clone(), 0, action(1, "a2"), None, None)
        .await
        .unwrap();
    let g = store.load_game(id).await.unwrap().unwrap();
    assert_eq!(g.actions[0].action.to_string(), "a2");
}

/// A commit whose answer is lost while the database is out of reach: the
/// write is refused without being acknowledged, every write is refused
/// while its outcome is unknown, and once the database answers the store
/// learns it (it had committed) and takes writes again.
#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_commit_refuses_writes_until_it_is_known() {
    let Some(base) = pg() else { return };
    let url = fresh_pg_database(&base).await;
    let (_s, id, _) = server_with_game(&url).await;
    let proxy = Proxy::start(via_proxy(&url, 0).1).await;
    let (purl, _) = via_proxy(&url, proxy.port);
    let options = PgOptions {
        connect_timeout: Duration::from_secs(2),
        resolve_wait: Duration::from_millis(500),
        ..PgOptions::default()
    };
    let store = PgStore::connect(&purl, options).await.unwrap();
    proxy.set(Mode::LoseCommitReplyThenCut);
    let r = store
        .append_action(id.clone(), 0, action(1, "a1"), None, None)
        .await;
    assert!(matches!(r, Err(StoreError::Failed(_))), "{r:?}");
    let why = store.failure().expect("refusing writes");
    assert!(why.contains("unknown"), "{why}");
    let r = store
        .append_action(id.clone(), 0, action(2, "b1"), None, None)
        .await;
    assert!(matches!(r, Err(StoreError::Failed(_))), "{r:?}");
    proxy.set(Mode::Pass);
    healthy(&store).await;
    // It had committed: ply 1 is taken, and only by it.
    let r = store
        .append_action(id.clone(), 0, action(1, "a2"), None, None)
        .await;
    assert!(matches!(r, Err(StoreError::Conflict)), "{r:?}");
    let g = store.load_game(id).await.unwrap().unwrap();
    let played: Vec<String> = g.actions.iter().map(|a| a.action.to_string()).collect();
    assert_eq!(played, ["a1"]);
}

/// Two stores on one database taking back, resigning and appending at
/// once, each decided where the game stood (2 actions, no takeback yet):
/// - two takebacks: one commits, the other is `Conflict` (a takeback
///   happens once);
/// - after it, an append from a store that missed it (takebacks 0) is
///   refused even at a free ply, and one that saw it commits;
/// - a takeback racing an append: exactly one commits, and the game is
///   one or the other, never the append on the shortened log;
/// - a resignation racing an append: one commits.
#[tokio::test(flavor = "multi_thread")]
async fn takebacks_and_resignations_race_actions_once() {
    use gore_server::store::{At, GameChange};
    let Some(base) = pg() else { return };
    let url = fresh_pg_database(&base).await;
    let (s, _, _) = server_with_game(&url).await;
    let a = PgStore::connect(&url, PgOptions::default()).await.unwrap();
    let b = PgStore::connect(&url, PgOptions::default()).await.unwrap();
    let at = |ply: u32, takebacks| At {
        ply: Ply::new(ply),
        takebacks,
    };
    for round in 0..10 {
        let id = create(&bot(), &s, json!({"mode": "local"})).await["id"]
            .as_str()
            .unwrap()
            .to_string();
        a.append_action(id.clone(), 0, action(1, "a3"), None, None)
            .await
            .unwrap();
        a.append_action(id.clone(), 0, action(2, "b1"), None, None)
            .await
            .unwrap();
        let (ra, rb) = tokio::join!(
            a.change_game(
                id.clone(),
                at(2, 0),
                GameChange::TakeBack {
                    to: Ply::new(1),
                    deadline: None
                },
                1
            ),
            b.change_game(
                id.clone(),
                at(2, 0),
                GameChange::TakeBack {
                    to: Ply::ZERO,
                    deadline: None
                },
                1
            ),
        );
        assert_eq!(
            [&ra, &rb].iter().filter(|r| r.is_ok()).count(),
            1,
            "round {round}: {ra:?} {rb:?}"
        );
        assert!(matches!(
            (&ra, &rb),
            (Err(StoreError::Conflict), _) | (_, Err(StoreError::Conflict))
        ));
        let g = a.load_game(id.clone()).await.unwrap().unwrap();
        let kept = if ra.is_ok() { 1 } else { 0 };
        assert_eq!((g.actions.len(), g.info.takebacks), (kept, 1));
        // A store that missed the takeback cannot append, even at a ply
        // that is free now.
        let next = kept as u32 + 1;
        let r = b
            .append_action(id.clone(), 0, action(next, "b2"), None, None)
            .await;
        assert!(matches!(r, Err(StoreError::Conflict)), "{r:?}");
        // A takeback and an append racing at the same standing.
        let (rt, rp) = tokio::join!(
            a.change_game(id.clone(), at(kept as u32, 1), GameChange::Request(None), 1),
            b.append_action(
                id.clone(),
                1,
                action(next, if kept == 1 { "b2" } else { "a1" }),
                None,
                None
            ),
        );
        // A request needs the ply to stand: the append may go first, then
        // the request is a conflict; or the request first, and the append
        // (which only needs the takebacks) commits after it.
        assert!(rp.is_ok(), "{rp:?}");
        assert!(
            rt.is_ok() || matches!(rt, Err(StoreError::Conflict)),
            "{rt:?}"
        );
        let g = a.load_game(id.clone()).await.unwrap().unwrap();
        assert_eq!(g.actions.len(), kept + 1);
        let ply = g.actions.len() as u32;
        let (rt, rp) = tokio::join!(
            a.change_game(
                id.clone(),
                at(ply, 1),
                GameChange::TakeBack {
                    to: Ply::new(ply - 1),
                    deadline: None
                },
                1
            ),
            b.append_action(
                id.clone(),
                1,
                action(ply + 1, if ply % 2 == 1 { "b3" } else { "a2" }),
                None,
                None
            ),
        );
        assert_eq!(
            [&rt, &rp].iter().filter(|r| r.is_ok()).count(),
            1,
            "round {round}: {rt:?} {rp:?}"
        );
        let g = a.load_game(id.clone()).await.unwrap().unwrap();
        let plies: Vec<u32> = g.actions.iter().map(|x| x.ply.get()).collect();
        let expect: Vec<u32> = if rt.is_ok() {
            (1..ply).collect()
        } else {
            (1..=ply + 1).collect()
        };
        assert_eq!(plies, expect, "round {round}");
        assert_eq!(g.info.takebacks, if rt.is_ok() { 2 } else { 1 });
        // A resignation racing an append: one of them.
        let (ply, takebacks) = (g.actions.len() as u32, g.info.takebacks);
        let resign = GameChange::Forfeit {
            forfeit: gore_core::Forfeit::Resign(gore_core::Player::A),
            result: Some("0-0".into()),
        };
        let (rr, rp) = tokio::join!(
            a.change_game(id.clone(), at(ply, takebacks), resign, 1),
            b.append_action(
                id.clone(),
                takebacks,
                action(ply + 1, if ply % 2 == 0 { "a4" } else { "b4" }),
                None,
                None
            ),
        );
        assert_eq!(
            [&rr, &rp].iter().filter(|r| r.is_ok()).count(),
            1,
            "round {round}: {rr:?} {rp:?}"
        );
        let g = a.load_game(id.clone()).await.unwrap().unwrap();
        assert_eq!(
            g.info.forfeit.is_some(),
            rr.is_ok(),
            "round {round}: {:?}",
            g.info
        );
        // Once resigned, nothing more is appended.
        if rr.is_ok() {
            let r = a
                .append_action(id.clone(), takebacks, action(ply + 1, "a4"), None, None)
                .await;
            assert!(matches!(r, Err(StoreError::Conflict)), "{r:?}");
        }
    }
    assert_eq!(a.failure(), None);
    assert_eq!(b.failure(), None);
}
