//! A real `gore serve` as an operator runs it (issue 28, parts 2 and 3):
//! JSON logs whose lines carry each request's id (a trusted proxy's
//! `X-Request-Id`, sent back) and its game's; and a SIGTERM that drains:
//! an open socket is told to reconnect elsewhere, new games are refused,
//! and the process exits 0 within `--drain-seconds`.

use std::process::Stdio;
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio_tungstenite::tungstenite::Message;

/// The drain's bound given to the server.
const DRAIN: u64 = 6;

/// A `gore serve` with JSON logs behind a "proxy" on loopback, its
/// address, and its stderr's lines as they come.
struct Served {
    child: Child,
    url: String,
    /// `http://ADDR/metrics`, of `--metrics-addr`.
    metrics: String,
    logs: UnboundedReceiver<String>,
    _dir: tempfile::TempDir,
}

async fn start() -> Served {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gore"))
        .args(["serve", "--port", "0", "--rate-limit", "0"])
        .args(["--log-format", "json", "--trust-proxy", "127.0.0.1"])
        .args(["--drain-seconds", &DRAIN.to_string()])
        .args(["--metrics-addr", "127.0.0.1:0"])
        .arg("--db")
        .arg(dir.path().join("gore.sqlite3"))
        // The answer of each request is logged at debug.
        .env("RUST_LOG", "info,gore_server::http=debug")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start gore serve");
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(Duration::from_secs(120), out.next_line())
        .await
        .expect("gore serve did not start within 120 s")
        .unwrap()
        .unwrap_or_default();
    let url = line
        .strip_prefix("Goré is ready: open ")
        .and_then(|r| r.strip_suffix('/'))
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    let line = out.next_line().await.unwrap().unwrap_or_default();
    let metrics = line
        .strip_prefix("Metrics: ")
        .unwrap_or_else(|| panic!("unexpected second line {line:?}"))
        .to_string();
    let (tx, logs) = tokio::sync::mpsc::unbounded_channel();
    let mut err = BufReader::new(child.stderr.take().unwrap()).lines();
    tokio::spawn(async move {
        while let Ok(Some(line)) = err.next_line().await {
            let _ = tx.send(line);
        }
    });
    Served {
        child,
        url,
        metrics,
        logs,
        _dir: dir,
    }
}

/// `POST /api/games` of a local game: its id and token.
async fn local_game(c: &reqwest::Client, url: &str) -> (String, String) {
    let r = c
        .post(format!("{url}/api/games"))
        .json(&json!({"mode": "local"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let g: Value = r.json().await.unwrap();
    (
        g["id"].as_str().unwrap().to_string(),
        g["token"].as_str().unwrap().to_string(),
    )
}

/// The first log line (a JSON object) that `pred` accepts, within 60 s;
/// every line must be JSON.
async fn log_line(logs: &mut UnboundedReceiver<String>, pred: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let line = tokio::time::timeout_at(deadline, logs.recv())
            .await
            .expect("no such log line within 60 s")
            .expect("stderr closed before such a line");
        let v: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("a log line that is not JSON ({e}): {line}"));
        if pred(&v) {
            return v;
        }
    }
}

/// A request with the proxy's `X-Request-Id` gets it back, and one JSON
/// line of the log carries that id and the game's; a request without one
/// gets a new id.
#[tokio::test(flavor = "multi_thread")]
async fn json_logs_carry_the_request_id_and_the_game() {
    let mut s = start().await;
    let c = reqwest::Client::new();
    let (id, token) = local_game(&c, &s.url).await;
    let r = c
        .get(format!("{}/api/games/{id}", s.url))
        .bearer_auth(&token)
        .header("X-Request-Id", "ops-test-4242")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["x-request-id"], "ops-test-4242");
    let line = log_line(&mut s.logs, |v| v["span"]["request_id"] == "ops-test-4242").await;
    assert_eq!(line["span"]["game"], id.as_str(), "{line}");
    assert_eq!(line["span"]["path"], format!("/api/games/{id}"), "{line}");
    assert_eq!(line["fields"]["status"], 200, "{line}");

    let r = c.get(format!("{}/api/me", s.url)).send().await.unwrap();
    let given = r.headers()["x-request-id"].to_str().unwrap().to_string();
    assert!(!given.is_empty() && given != "ops-test-4242", "{given}");
    let line = log_line(&mut s.logs, |v| v["span"]["request_id"] == given.as_str()).await;
    assert!(line["span"]["game"].is_null(), "no game here: {line}");
}

/// `--metrics-addr` serves the metrics on their own port; the public port
/// does not.
#[tokio::test(flavor = "multi_thread")]
async fn the_metrics_have_a_port_of_their_own() {
    let s = start().await;
    let c = reqwest::Client::new();
    local_game(&c, &s.url).await;
    let r = c.get(&s.metrics).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let text = r.text().await.unwrap();
    assert!(text.contains("gore_games_in_memory 1"), "{text}");
    assert!(text.ends_with("# EOF\n"), "{text}");
    let r = c.get(format!("{}/metrics", s.url)).send().await.unwrap();
    assert_eq!(r.status(), 404);
}

/// SIGTERM with a socket open: the socket is closed with `1012` and a
/// reason, a new game is refused (`503 draining`, or the connection once
/// the listener is closed), and the process exits 0 within the drain's
/// bound.
#[tokio::test(flavor = "multi_thread")]
async fn sigterm_drains_and_exits_within_the_bound() {
    let mut s = start().await;
    let c = reqwest::Client::new();
    let (id, token) = local_game(&c, &s.url).await;
    let ws_url = format!(
        "{}/api/games/{id}/ws?token={token}",
        s.url.replacen("http://", "ws://", 1)
    );
    let (mut ws, _) = tokio_tungstenite::connect_async(ws_url).await.unwrap();
    // The hello: the socket is served.
    let first = tokio::time::timeout(Duration::from_secs(30), ws.next())
        .await
        .expect("no hello within 30 s");
    assert!(matches!(first, Some(Ok(Message::Text(_)))), "{first:?}");

    let pid = s.child.id().expect("the server runs") as libc::pid_t;
    let sent = Instant::now();
    // SAFETY: kill sends a signal to our own child process.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);

    let close = loop {
        let m = tokio::time::timeout(Duration::from_secs(30), ws.next())
            .await
            .expect("no close frame within 30 s")
            .expect("closed without a close frame")
            .expect("socket error");
        if let Message::Close(f) = m {
            break f.expect("a close frame with a code");
        }
    };
    assert_eq!(u16::from(close.code), 1012);
    assert!(close.reason.starts_with("draining"), "{close:?}");

    match c
        .post(format!("{}/api/games", s.url))
        .json(&json!({"mode": "local"}))
        .send()
        .await
    {
        Ok(r) => {
            assert_eq!(r.status(), 503);
            let e: Value = r.json().await.unwrap();
            assert_eq!(e["error"]["code"], "draining", "{e}");
        }
        // The listener is closed already: refused, as a balancer sees it.
        Err(e) => assert!(e.is_connect() || e.is_request(), "{e}"),
    }

    let status = tokio::time::timeout(Duration::from_secs(120), s.child.wait())
        .await
        .expect("the server did not exit")
        .unwrap();
    let took = sent.elapsed();
    assert!(status.success(), "{status:?}");
    // The bound, plus the time a loaded machine takes to deliver a signal
    // and reap a process.
    assert!(
        took < Duration::from_secs(DRAIN + 5),
        "exited {took:?} after SIGTERM, over the {DRAIN} s bound"
    );
    let stopped = log_line(&mut s.logs, |v| v["fields"]["message"] == "stopped").await;
    assert_eq!(stopped["level"], "INFO");
}
