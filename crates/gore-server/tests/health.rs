//! Health checks and the drain (issue 28, part 2): `/healthz` says the
//! process serves; `/readyz` says whether it should be given traffic (not
//! when its database failed closed, nor while it drains), on the public
//! port, without the Host check or the rate limit; a draining server
//! refuses new games and sockets `503 draining` and closes open sockets
//! with a reason. (The SIGTERM of a real `gore serve`:
//! crates/gore-cli/tests/ops.rs.)

mod common;

use common::*;
use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

async fn health(s: &Server, path: &str) -> (u16, Value) {
    let r = bot().get(s.at(path)).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// A server at work is alive and ready; asked often, and by its own
/// address under `--public-url` (a balancer's way), it still answers 200.
#[tokio::test(flavor = "multi_thread")]
async fn a_working_server_is_ready_whoever_asks_and_however_often() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_in(&dir);
    config.rate_limit = 1;
    config.public_url = Some("https://gore.example".into());
    let s = Server::start_with(dir, config).await;
    for _ in 0..10 {
        assert_eq!(health(&s, "/healthz").await, (200, json!({"alive": true})));
        assert_eq!(health(&s, "/readyz").await, (200, json!({"ready": true})));
    }
    // The app itself refuses that Host (the check still stands).
    assert_eq!(health(&s, "/api/me").await.0, 421);
}

/// A database that failed closed makes the server not ready (naming
/// why), while it stays alive and keeps serving reads.
#[tokio::test(flavor = "multi_thread")]
async fn a_failed_closed_database_is_not_ready() {
    let s = Server::start_sqlite(0).await;
    let c = bot();
    let g = create_game(&c, &s, json!({"mode": "local"})).await;
    let (id, token) = (g.id.as_str(), g.token.as_str());
    assert_eq!(health(&s, "/readyz").await.0, 200);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(s.dir.path().join(format!("gore.sqlite3{suffix}")));
    }
    let v = get_as(&c, &s, id, token).await;
    let a = legal(&v)[0].clone();
    let (st, e) = act(&c, &s, id, Some(token), json!({"action": a, "ply": 0})).await;
    assert_eq!(
        (st, e["error"]["code"].as_str()),
        (503, Some("unavailable"))
    );
    let (st, v) = health(&s, "/readyz").await;
    assert_eq!((st, v["ready"].as_bool()), (503, Some(false)), "{v}");
    assert_eq!(v["why"], "failed_closed", "{v}");
    assert!(!v["message"].as_str().unwrap_or("").is_empty(), "{v}");
    assert_eq!(health(&s, "/healthz").await.0, 200);
}

/// Draining: `/readyz` says 503 `draining`; an open socket is closed with
/// `1012` and the reason; new games and sockets are refused `503
/// draining`; an action in a game under way is still taken.
#[tokio::test(flavor = "multi_thread")]
async fn a_draining_server_sends_its_sockets_away_and_takes_nothing_new() {
    let s = Server::start(0).await;
    let c = bot();
    let g = create_game(&c, &s, json!({"mode": "local"})).await;
    let (id, token) = (g.id.as_str(), g.token.as_str());
    let mut ws = s.ws(id, Some(token)).await;
    let first = next_state(&mut ws).await;

    s.state.begin_drain();
    let close = loop {
        let m = tokio::time::timeout(std::time::Duration::from_secs(30), ws.next())
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

    let (st, v) = health(&s, "/readyz").await;
    assert_eq!((st, v["why"].as_str()), (503, Some("draining")), "{v}");
    assert_eq!(health(&s, "/healthz").await.0, 200);
    let (st, e) = post_json(&c, &s, "/api/games", json!({"mode": "local"})).await;
    assert_eq!((st, e["error"]["code"].as_str()), (503, Some("draining")));
    let url = format!("ws://{}/api/games/{id}/ws?token={token}", s.addr);
    match tokio_tungstenite::connect_async(url).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 503),
        other => panic!("a new socket while draining: {other:?}"),
    }
    // The game under way goes on until the server stops.
    let a = legal(&first)[0].clone();
    let (st, v) = act(&c, &s, id, Some(token), json!({"action": a, "ply": 0})).await;
    assert_eq!(st, 200, "{v}");
}
