//! The analysis board on AI workers (issue 28, part 4): `gore serve
//! --analysis-threads 0` runs no analysis of its own. Its analysis socket
//! writes each one to the shared database as a job; a `gore worker`
//! claims it, runs it and writes the findings back in batches, which the
//! socket forwards; on SQLite (same machine) and PostgreSQL. A stop and a
//! closed socket reach the worker's search; a job nobody has taken yet is
//! withdrawn at once; a worker SIGKILLed mid-analysis: another takes the
//! job once the first is silent.
//!
//! Each process serves its metrics: the board analyses each one ran to
//! their end are read there (`gore_board_analyses_computed_total`).

mod support;

use std::time::{Duration, Instant};

use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use support::*;
use tokio_tungstenite::tungstenite::Message;

/// How long a test waits for what it expects at most (a loaded machine,
/// a debug build): far below the server's caps, so that an analysis that
/// was not stopped never ends in time.
const WITHIN: Duration = Duration::from_secs(120);

impl Proc {
    /// `gore serve --analysis-threads 0` on `db`, its caps on one analysis
    /// far above [`WITHIN`] (10 minutes, 10^12 nodes): an analysis ends
    /// within the test only by its own `time_ms` or a stop.
    fn board_server(db: &str) -> Proc {
        let caps = [
            "--analysis-time-ms",
            "600000",
            "--analysis-nodes",
            "1000000000000",
        ];
        Proc::searching_nothing(db, &caps)
    }

    /// `gore worker` on `db`: one AI thread, one analysis thread.
    fn board_worker(db: &str) -> Proc {
        Proc::start(&["worker", "--threads", "1"], db, &[])
    }

    /// The board analyses this process ran to their end.
    async fn boards(&self) -> u64 {
        self.metric("gore_board_analyses_computed_total").await
    }

    /// Waits until this process has run `n` board analyses to their end.
    async fn until_boards(&self, n: u64) {
        let start = Instant::now();
        while self.boards().await < n {
            assert!(start.elapsed() < WITHIN, "{n} board analyses never ended");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// A fresh SQLite file's path, in a directory removed with the guard.
fn sqlite(name: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join(name).to_str().unwrap().to_string();
    (dir, db)
}

/// A server without analysis threads, a worker, and a socket whose
/// analysis (capped at 10 minutes: only a stop ends it within the test)
/// the worker runs: its first depth has come.
async fn running(db: &str) -> (Proc, Proc, Ws) {
    let server = Proc::board_server(db);
    let worker = Proc::board_worker(db);
    let mut ws = board(&server).await;
    send(&mut ws, json!({"type": "analyse"})).await;
    let seen = until(&mut ws, "depth").await;
    assert_eq!(seen.last().unwrap()["depth"], 1);
    (server, worker, ws)
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// The server's analysis socket.
async fn board(server: &Proc) -> Ws {
    let url = format!("{}/api/analysis/ws", server.url.replace("http", "ws"));
    tokio_tungstenite::connect_async(url).await.unwrap().0
}

async fn send(ws: &mut Ws, msg: Value) {
    ws.send(Message::Text(msg.to_string().into()))
        .await
        .unwrap();
}

/// The next message, before `deadline`.
async fn recv_by(ws: &mut Ws, deadline: Instant) -> Value {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let m = tokio::time::timeout(left, ws.next())
            .await
            .expect("a message in time")
            .expect("the socket open")
            .unwrap();
        if let Message::Text(t) = m {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

/// The next message, within [`WITHIN`].
async fn recv(ws: &mut Ws) -> Value {
    recv_by(ws, Instant::now() + WITHIN).await
}

/// Reads messages until one of `kind`, within [`WITHIN`] in all (an
/// analysis that was not stopped goes on sending, for 10 minutes); all of
/// them, that one last.
async fn until(ws: &mut Ws, kind: &str) -> Vec<Value> {
    let deadline = Instant::now() + WITHIN;
    let mut seen = Vec::new();
    loop {
        let m = recv_by(ws, deadline).await;
        assert_ne!(m["type"], "error", "{m}");
        let done = m["type"] == kind;
        seen.push(m);
        if done {
            return seen;
        }
    }
}

fn kinds(seen: &[Value]) -> Vec<&str> {
    seen.iter().map(|m| m["type"].as_str().unwrap()).collect()
}

/// A server without analysis threads and one worker: the worker runs the
/// analysis, its findings reach the socket in order, with the socket's
/// analysis number, and the server ran none.
async fn a_worker_analyses_for_a_server_that_does_not(db: &str) {
    let server = Proc::board_server(db);
    let worker = Proc::board_worker(db);
    let mut ws = board(&server).await;
    send(
        &mut ws,
        json!({"type": "analyse", "line": "a1", "time_ms": 1500}),
    )
    .await;
    let seen = until(&mut ws, "done").await;
    let ks = kinds(&seen);
    assert_eq!(ks[0], "started", "{seen:?}");
    // The socket's caps applied to what it asked: 1.5 s, the nodes' cap.
    assert_eq!(seen[0]["limits"]["time_ms"], 1500);
    assert_eq!(seen[0]["limits"]["nodes"], 1_000_000_000_000u64);
    assert!(ks.contains(&"depth"), "{seen:?}");
    assert!(ks.contains(&"action"), "{seen:?}");
    // Depths come in order, every message is analysis 1's.
    let depths: Vec<u64> = seen
        .iter()
        .filter(|m| m["type"] == "depth")
        .map(|m| m["depth"].as_u64().unwrap())
        .collect();
    assert!(depths.windows(2).all(|w| w[0] < w[1]), "{depths:?}");
    assert!(seen.iter().skip(1).all(|m| m["id"] == 1), "{seen:?}");
    let done = seen.last().unwrap();
    assert!(done["best"].is_string(), "{done}");
    assert_eq!(done["depth"].as_u64(), depths.last().copied(), "{done}");
    worker.until_boards(1).await;
    assert_eq!(server.boards().await, 0);
    // The socket goes on: its next analysis is number 2.
    send(&mut ws, json!({"type": "analyse", "time_ms": 300})).await;
    let seen = until(&mut ws, "done").await;
    assert!(seen.iter().skip(1).all(|m| m["id"] == 2), "{seen:?}");
    worker.until_boards(2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_analyses_for_a_server_that_does_not_on_sqlite() {
    let (_dir, db) = sqlite("boards.sqlite3");
    a_worker_analyses_for_a_server_that_does_not(&db).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_analyses_for_a_server_that_does_not_on_postgres() {
    let Some(base) = postgres_or_skip("the board worker test") else {
        return;
    };
    let db = fresh_database(&base, "boardworker").await;
    a_worker_analyses_for_a_server_that_does_not(&db).await;
}

/// A stop reaches the worker's search: the analysis, capped at 10
/// minutes, ends `stopped` within the test's wait. A new `analyse` stops
/// the running one the same way, its `done` first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_reaches_the_workers_search() {
    let (_dir, db) = sqlite("stop.sqlite3");
    let (_server, worker, mut ws) = running(&db).await;
    send(&mut ws, json!({"type": "stop"})).await;
    let seen = until(&mut ws, "done").await;
    assert_eq!(seen.last().unwrap()["stopped"], true, "{seen:?}");
    worker.until_boards(1).await;
    send(&mut ws, json!({"type": "analyse"})).await;
    until(&mut ws, "depth").await;
    send(&mut ws, json!({"type": "analyse", "time_ms": 300})).await;
    let seen = until(&mut ws, "done").await;
    let done = seen.last().unwrap();
    assert_eq!(
        (done["id"].as_u64(), &done["stopped"]),
        (Some(2), &json!(true))
    );
    let seen = until(&mut ws, "done").await;
    assert_eq!(seen[0]["type"], "started");
    assert!(seen.iter().all(|m| m["id"] == 3), "{seen:?}");
}

/// A socket closed mid-analysis: the worker stops the search (and ends
/// the job) within the test's wait, far below the 10 minutes' cap.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_socket_stops_the_workers_search() {
    let (_dir, db) = sqlite("closed.sqlite3");
    let (_server, worker, ws) = running(&db).await;
    drop(ws);
    worker.until_boards(1).await;
}

/// With no worker, an analysis waits (told its place); a stop withdraws
/// it at once, nothing searched. A worker that comes later takes the next.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_worker_an_analysis_waits_and_a_stop_withdraws_it() {
    let (_dir, db) = sqlite("waits.sqlite3");
    let db = db.as_str();
    let server = Proc::board_server(db);
    let mut ws = board(&server).await;
    send(&mut ws, json!({"type": "analyse", "time_ms": 300})).await;
    let seen = until(&mut ws, "queued").await;
    assert_eq!(kinds(&seen), ["started", "queued"]);
    assert_eq!(seen[1]["place"], 0);
    send(&mut ws, json!({"type": "stop"})).await;
    let done = recv(&mut ws).await;
    assert_eq!(
        (&done["type"], &done["id"], &done["stopped"], &done["nodes"]),
        (&json!("done"), &json!(1), &json!(true), &json!(0)),
        "{done}"
    );
    let worker = Proc::board_worker(db);
    send(&mut ws, json!({"type": "analyse", "time_ms": 300})).await;
    let seen = until(&mut ws, "done").await;
    assert!(kinds(&seen).contains(&"depth"), "{seen:?}");
    worker.until_boards(1).await;
}

/// A worker SIGKILLed mid-analysis: its claim dies with its heartbeat,
/// another worker runs the job again (its depths start again from 1),
/// and the socket, which saw nothing of it, gets its findings and `done`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_workers_analysis_is_taken_by_another() {
    let (_dir, db) = sqlite("killed.sqlite3");
    let (_server, mut first, mut ws) = running(&db).await;
    first.kill();
    let second = Proc::board_worker(&db);
    // The second worker's search: depth 1 again (the first's findings
    // were all sent before its first depth).
    loop {
        let m = until(&mut ws, "depth").await;
        if m.last().unwrap()["depth"] == 1 {
            break;
        }
    }
    send(&mut ws, json!({"type": "stop"})).await;
    let seen = until(&mut ws, "done").await;
    assert_eq!(seen.last().unwrap()["stopped"], true);
    assert!(seen.iter().all(|m| m["id"] == 1), "{seen:?}");
    second.until_boards(1).await;
}
