//! What the tests of several real `gore serve` processes on one
//! PostgreSQL database need (tests/kill.rs, tests/pg_restart.rs): the
//! processes themselves (so that they can be SIGKILLed), a fresh database
//! for each test, and a small HTTP and WebSocket client.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use gore_server::api::{ClientMsg, GameView, ServerMsg};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

/// `GORE_TEST_POSTGRES`, or `None` after a loud warning; under `CI=true`
/// a missing PostgreSQL fails the test instead.
pub fn postgres_or_skip(test: &str) -> Option<String> {
    match std::env::var("GORE_TEST_POSTGRES") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("CI").map_or(true, |v| v != "true"),
                "GORE_TEST_POSTGRES is not set: under CI=true {test} must run"
            );
            eprintln!("\n*** GORE_TEST_POSTGRES is not set: {test} did NOT run ***\n");
            None
        }
    }
}

/// A connection to `url`.
pub async fn pg(url: &str) -> tokio_postgres::Client {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap_or_else(|e| panic!("cannot connect to GORE_TEST_POSTGRES: {e}"));
    tokio::spawn(conn);
    client
}

/// A fresh, empty database beside the one `base` names; its URL. Named
/// after this process, so a later run drops those of dead processes.
pub async fn fresh_database(base: &str, tag: &str) -> String {
    let admin = pg(base).await;
    for r in admin
        .query(
            "SELECT datname FROM pg_database WHERE datname LIKE 'gore\\_k\\_%'",
            &[],
        )
        .await
        .unwrap()
    {
        let name: String = r.get(0);
        let owner: Option<u32> = name.split('_').nth(2).and_then(|p| p.parse().ok());
        if owner.is_some_and(|p| !std::path::Path::new(&format!("/proc/{p}")).exists()) {
            let _ = admin
                .batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
                .await;
        }
    }
    let name = format!("gore_k_{}_{tag}", std::process::id());
    // Two statements: neither may run in a transaction block.
    admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
        .await
        .unwrap();
    admin
        .batch_execute(&format!("CREATE DATABASE \"{name}\""))
        .await
        .unwrap();
    // The same URL with the database's name replaced.
    let (prefix, rest) = base.rsplit_once('/').expect("a database URL has a path");
    let query = rest.split_once('?').map(|(_, q)| format!("?{q}"));
    format!("{prefix}/{name}{}", query.unwrap_or_default())
}

/// A `gore serve` process on database `db`; SIGKILLed when dropped.
pub struct Gore {
    pub child: Child,
    /// `http://127.0.0.1:PORT`
    pub url: String,
}

impl Gore {
    /// Starts one on a free port and waits for its ready line (it prints
    /// it once it listens to the database's notices and serves).
    pub fn start(db: &str, extra: &[&str]) -> Gore {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gore"))
            .args(["serve", "--port", "0", "--rate-limit", "0", "--db", db])
            .args(extra)
            .env(
                "RUST_LOG",
                std::env::var("GORE_TEST_LOG").unwrap_or_else(|_| "warn".into()),
            )
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start gore serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix("Goré is ready: open ")
            .unwrap_or_else(|| panic!("unexpected first line from gore serve: {line:?}"))
            .trim_end_matches('/')
            .to_string();
        Gore { child, url }
    }

    /// SIGKILL: no shutdown, no flush, as a crash or an OOM kill.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Gore {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A `gore serve` or `gore worker` process with its metrics address
/// (tests/worker.rs, tests/worker_reviews.rs); SIGKILLed when dropped.
pub struct Proc {
    pub child: Child,
    /// `http://127.0.0.1:PORT` (a server's; empty for a worker).
    pub url: String,
    /// `http://127.0.0.1:PORT/metrics`
    pub metrics: String,
    /// Its ready line (a worker's says its threads).
    pub ready: String,
}

impl Proc {
    /// Starts `gore HEAD… --db DB --metrics-addr 127.0.0.1:0 EXTRA…` and
    /// waits for its two first lines: ready, then the metrics address.
    pub fn start(head: &[&str], db: &str, extra: &[&str]) -> Proc {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gore"))
            .args(head)
            .args(["--db", db, "--metrics-addr", "127.0.0.1:0"])
            .args(extra)
            .env(
                "RUST_LOG",
                std::env::var("GORE_TEST_LOG").unwrap_or_else(|_| "warn".into()),
            )
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start gore");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut ready = String::new();
        out.read_line(&mut ready).unwrap();
        let url = match ready.trim().strip_prefix("Goré is ready: open ") {
            Some(u) => u.trim_end_matches('/').to_string(),
            None => {
                assert!(
                    ready.starts_with("Goré worker is ready"),
                    "unexpected first line: {ready:?}"
                );
                String::new()
            }
        };
        let mut m = String::new();
        out.read_line(&mut m).unwrap();
        let metrics = m
            .trim()
            .strip_prefix("Metrics: ")
            .unwrap_or_else(|| panic!("unexpected second line: {m:?}"))
            .to_string();
        Proc {
            child,
            url,
            metrics,
            ready,
        }
    }

    /// `gore serve` on `db` that searches nothing itself (`--ai-threads 0
    /// --analysis-threads 0`: the workers do), no rate limit, and `extra`.
    pub fn searching_nothing(db: &str, extra: &[&str]) -> Proc {
        let head = ["serve", "--port", "0", "--rate-limit", "0"];
        let none = ["--ai-threads", "0", "--analysis-threads", "0"];
        Proc::start(&head, db, &[&none[..], extra].concat())
    }

    /// The sum of the samples of `name` (over its labels); 0 if absent.
    pub async fn metric(&self, name: &str) -> u64 {
        let text = http()
            .get(&self.metrics)
            .send()
            .await
            .expect("scrape")
            .text()
            .await
            .unwrap();
        text.lines()
            .filter(|l| l.starts_with(name) && l[name.len()..].starts_with(['{', ' ']))
            .map(|l| {
                let v = l.rsplit(' ').next().unwrap();
                v.parse::<f64>().unwrap_or_else(|_| panic!("a sample: {l}")) as u64
            })
            .sum()
    }

    /// SIGTERM, as an operator's stop; returns at once.
    pub fn term(&self) {
        let st = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill");
        assert!(st.success());
    }

    /// SIGKILL: no shutdown, as a crash or an OOM kill.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill();
    }
}

/// An HTTP client for the tests (no cookies: each request names its seat
/// by its bearer token).
pub fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

/// Creates a game; the `Created` answer.
pub async fn create(c: &reqwest::Client, server: &str, body: Value) -> Value {
    let r = c
        .post(format!("{server}/api/games"))
        .json(&body)
        .send()
        .await
        .expect("create a game");
    assert_eq!(r.status(), 201, "creating {body}");
    r.json().await.unwrap()
}

/// Plays `action` at `ply`: the status and the body, or `Err` when the
/// request failed on the way (the server died under it).
pub async fn act(
    c: &reqwest::Client,
    server: &str,
    id: &str,
    token: &str,
    action: &str,
    ply: usize,
) -> Result<(u16, Value), reqwest::Error> {
    let r = c
        .post(format!("{server}/api/games/{id}/actions"))
        .bearer_auth(token)
        .json(&json!({"action": action, "ply": ply}))
        .send()
        .await?;
    let status = r.status().as_u16();
    Ok((status, r.json().await.unwrap_or(Value::Null)))
}

/// The game as a spectator sees it.
pub async fn game(c: &reqwest::Client, server: &str, id: &str) -> GameView {
    let r = c
        .get(format!("{server}/api/games/{id}"))
        .send()
        .await
        .expect("read the game");
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

/// The game as the holder of `token` sees it (with the legal actions).
pub async fn game_as(c: &reqwest::Client, server: &str, id: &str, token: &str) -> GameView {
    let r = c
        .get(format!("{server}/api/games/{id}"))
        .bearer_auth(token)
        .send()
        .await
        .expect("read the game");
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

pub type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A game's socket, as a spectator (`token` `None`) or a seat.
pub async fn socket(server: &str, id: &str, token: Option<&str>) -> Ws {
    let base = server.replacen("http://", "ws://", 1);
    let url = match token {
        Some(t) => format!("{base}/api/games/{id}/ws?token={t}"),
        None => format!("{base}/api/games/{id}/ws"),
    };
    tokio_tungstenite::connect_async(url)
        .await
        .expect("open the game's socket")
        .0
}

/// A game as a socket knows it: its first state, then every update and
/// state applied.
pub struct Watch {
    pub ws: Ws,
    pub view: GameView,
}

impl Watch {
    pub async fn open(server: &str, id: &str, token: Option<&str>) -> Watch {
        let mut ws = socket(server, id, token).await;
        let view = match next(&mut ws, Duration::from_secs(20)).await {
            Some(ServerMsg::State { state }) => *state,
            m => panic!("the first message is not the state: {m:?}"),
        };
        Watch { ws, view }
    }

    /// Waits (at most `secs`) until the view satisfies `done`; `false` if
    /// it did not in time or the socket closed.
    pub async fn until(&mut self, secs: u64, done: impl Fn(&GameView) -> bool) -> bool {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
        while !done(&self.view) {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match next(&mut self.ws, left).await.or_else(|| {
                eprintln!(
                    "socket: nothing more at ply {} ({})",
                    self.view.head.ply.index(),
                    if left.is_zero() {
                        "timed out"
                    } else {
                        "closed"
                    }
                );
                None
            }) {
                Some(ServerMsg::State { state }) => self.view = *state,
                Some(ServerMsg::Update { update }) => {
                    assert!(
                        self.view.apply(&update),
                        "an update that does not follow the state: since {} at ply {}",
                        update.since,
                        self.view.head.ply.index()
                    );
                }
                Some(_) => {}
                None => return false,
            }
        }
        true
    }

    /// Sends an action over the socket.
    pub async fn send(&mut self, action: &str) {
        let msg = ClientMsg::Action {
            action: action.to_string(),
            ply: Some(self.view.head.ply),
        };
        self.ws
            .send(Message::Text(serde_json::to_string(&msg).unwrap().into()))
            .await
            .unwrap();
    }
}

/// The next message within `within`; `None` on a timeout or a close.
pub async fn next(ws: &mut Ws, within: Duration) -> Option<ServerMsg> {
    loop {
        let m = tokio::time::timeout(within, ws.next()).await.ok()??.ok()?;
        if let Message::Text(t) = m {
            return Some(serde_json::from_str(&t).expect("a message the server sends"));
        }
    }
}
