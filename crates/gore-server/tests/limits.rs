//! The server's own limits on a real server: the operator's ply limit,
//! games loaded once however many ask, sockets per game and per address,
//! and sockets that receive what changed rather than the whole log.
//!
//! On PostgreSQL too with `GORE_TEST_POSTGRES`, except the single-flight
//! test: its gated store wraps the SQLite executor (SQLite only).

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use futures_util::future::BoxFuture;
use futures_util::{SinkExt, StreamExt};
use gore_server::store::queries::Db;
use gore_server::store::sql::{Answer, Executor, Row, Stmt};
use gore_server::store::sqlite::{SqliteExec, SqliteStore};
use gore_server::store::StoreError;
use gore_server::{AppState, SqliteOptions};
use serde_json::{json, Value};
use tokio::sync::Notify;
use tokio_tungstenite::tungstenite::Message;

/// Plays the first legal action at each turn of a local game, `n` times
/// (or until it ends), over HTTP.
async fn play_first_legal(s: &Server, id: &str, token: &str, n: usize) -> Value {
    let c = bot();
    let mut v = get_as(&c, s, id, token).await;
    for _ in 0..n {
        if v["status"] == "over" {
            break;
        }
        let a = legal(&v)[0].clone();
        let (st, next) = act(&c, s, id, Some(token), json!({"action": a, "ply": ply(&v)})).await;
        assert_eq!(st, 200, "{next}");
        v = next;
    }
    v
}

/// `--max-plies`: the game ends after that many actions, as the rules'
/// ply cap ends it (the seeds on each side are swept), and no action is
/// taken after.
#[tokio::test(flavor = "multi_thread")]
async fn the_operator_ply_limit_ends_a_game_as_a_ply_cap_does() {
    let dir = tempfile::tempdir().unwrap();
    let config = gore_server::Config {
        max_plies: 5,
        ..config_in(&dir)
    };
    let s = Server::start_with(dir, config).await;
    let c = bot();
    let g = create_game(&c, &s, json!({"mode": "local"})).await;
    let (id, t) = (g.id.as_str(), g.token.as_str());
    let v = play_first_legal(&s, id, t, 4).await;
    assert_eq!((ply(&v), v["status"].as_str()), (4, Some("playing")));
    let v = play_first_legal(&s, id, t, 1).await;
    assert_eq!(v["status"], "over", "{v}");
    assert_eq!(result_of(&v).reason, "ply-cap");
    // Five sowings from the start capture nothing yet: the sweep gives each
    // side the seeds on its own row, 48 in all.
    let seeds = &v["result"]["seeds"];
    assert_eq!(seeds[0].as_u64().unwrap() + seeds[1].as_u64().unwrap(), 48);
    let (st, e) = act(&c, &s, id, Some(t), json!({"action": "b1"})).await;
    assert_eq!((st, e["error"]["code"].as_str()), (409, Some("game_over")));
}

/// The SQLite executor, counting the loads of a game and holding the first
/// one until released: a fake at the executor's seam, so the store's
/// queries stay the real ones and nothing is forwarded by hand.
#[derive(Clone)]
struct Gated {
    inner: SqliteExec,
    loads: Arc<AtomicUsize>,
    started: Arc<Notify>,
    gate: Arc<Notify>,
}

impl Executor for Gated {
    fn write(&self, stmts: Vec<Stmt>) -> BoxFuture<'static, Result<Vec<Answer>, StoreError>> {
        self.inner.write(stmts)
    }

    fn read(&self, stmts: Vec<Stmt>) -> BoxFuture<'static, Result<Vec<Vec<Row>>, StoreError>> {
        // A game's load reads its row first (`load_game`, `load_game_after`).
        let load = stmts
            .first()
            .is_some_and(|s| s.sql.starts_with("SELECT * FROM games WHERE id ="));
        let n = if load {
            self.loads.fetch_add(1, Ordering::SeqCst)
        } else {
            1
        };
        let (started, gate) = (self.started.clone(), self.gate.clone());
        let f = self.inner.read(stmts);
        Box::pin(async move {
            if n == 0 {
                started.notify_one();
                gate.notified().await;
            }
            f.await
        })
    }

    fn failure(&self) -> Option<String> {
        self.inner.failure()
    }

    fn origin(&self) -> &str {
        self.inner.origin()
    }
}

/// Sixteen requests at once for a game not in memory load it once: the
/// others wait for that load (single flight) instead of each replaying the
/// game.
#[tokio::test(flavor = "multi_thread")]
async fn a_game_is_loaded_once_however_many_ask_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let config = config_in(&dir);
    let first = Server::start_with_sqlite(tempfile::tempdir().unwrap(), config.clone()).await;
    let c = bot();
    let g = create(&c, &first, json!({"mode": "local"})).await;
    let id = g["id"].as_str().unwrap().to_string();
    let t = g["token"].as_str().unwrap().to_string();
    let played = play_first_legal(&first, &id, &t, 30).await;

    // A second server on the same file, with nothing in memory.
    let (loads, started, gate) = (
        Arc::new(AtomicUsize::new(0)),
        Arc::new(Notify::new()),
        Arc::new(Notify::new()),
    );
    let path = std::path::PathBuf::from(&config.db);
    let store = Db(Gated {
        inner: SqliteStore::open(&path, SqliteOptions::default())
            .unwrap()
            .0,
        loads: loads.clone(),
        started: started.clone(),
        gate: gate.clone(),
    });
    let s = Server::serve(dir, AppState::with_store(config, Arc::new(store)).unwrap()).await;
    let gets: Vec<_> = (0..16)
        .map(|_| {
            let (c, url) = (bot(), s.at(&format!("/api/games/{id}")));
            tokio::spawn(async move { c.get(url).send().await.unwrap().json::<Value>().await })
        })
        .collect();
    started.notified().await;
    // While the first load is held, no request starts another: a second
    // load would come within milliseconds; two seconds is a generous wait
    // for an absence.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(loads.load(Ordering::SeqCst), 1, "a second load started");
    gate.notify_one();
    for g in gets {
        let v = g.await.unwrap().unwrap();
        assert_eq!(v["actions"], played["actions"]);
    }
    assert_eq!(loads.load(Ordering::SeqCst), 1);
}

/// Sockets per game and per address are capped; a closed socket frees
/// its place.
#[tokio::test(flavor = "multi_thread")]
async fn sockets_are_capped_per_game_and_per_address() {
    let dir = tempfile::tempdir().unwrap();
    let config = gore_server::Config {
        max_sockets_per_game: 3,
        max_sockets_per_ip: 5,
        ..config_in(&dir)
    };
    let s = Server::start_with(dir, config).await;
    let c = bot();
    let x = create(&c, &s, json!({"mode": "local"})).await;
    let y = create(&c, &s, json!({"mode": "local"})).await;
    let (x, y) = (x["id"].as_str().unwrap(), y["id"].as_str().unwrap());
    let url = |id: &str| format!("ws://{}/api/games/{id}/ws", s.addr);
    let refused = |r: Result<_, tokio_tungstenite::tungstenite::Error>| match r {
        Err(tokio_tungstenite::tungstenite::Error::Http(res)) => res.status().as_u16(),
        Err(e) => panic!("{e}"),
        Ok(_) => 0,
    };
    let mut on_x = Vec::new();
    for _ in 0..3 {
        on_x.push(s.ws(x, None).await);
    }
    assert_eq!(refused(tokio_tungstenite::connect_async(url(x)).await), 503);
    let mut on_y = vec![s.ws(y, None).await, s.ws(y, None).await];
    // Five from this address: a sixth is refused, on any game.
    assert_eq!(refused(tokio_tungstenite::connect_async(url(y)).await), 503);
    // One closed: room for one more (once the server has seen it close).
    let mut gone = on_y.pop().unwrap();
    gone.close(None).await.unwrap();
    drop(gone);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        match tokio_tungstenite::connect_async(url(y)).await {
            Ok((ws, _)) => {
                on_y.push(Ws {
                    inner: ws,
                    view: None,
                });
                break;
            }
            Err(_) if std::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await
            }
            Err(e) => panic!("the closed socket's place was not freed: {e}"),
        }
    }
    drop(on_x);
}

/// After the first state, a socket receives each change as an update that
/// carries the new action only: its size does not grow with the game. The
/// actor receives his own action once, as the update every socket gets.
#[tokio::test(flavor = "multi_thread")]
async fn sockets_receive_what_changed_not_the_whole_log() {
    let s = Server::start(0).await;
    let c = bot();
    let g = create_game(&c, &s, json!({"mode": "local", "rules": "no-trades"})).await;
    let (id, t) = (g.id.as_str(), g.token.as_str());
    let v = play_first_legal(&s, id, t, 40).await;
    let n = ply(&v);
    assert!(n >= 20, "a game long enough to compare: {n} plies");
    let mut spectator = s.ws(id, None).await;
    let mut player = s.ws(id, Some(t)).await;
    let full = match spectator.next().await.unwrap().unwrap() {
        Message::Text(t) => t.len(),
        m => panic!("{m:?}"),
    };
    let st = next_state(&mut player).await;
    assert_eq!(ply(&st), n);
    send_action(&mut player, legal(&st)[0].as_str(), n).await;
    let m = next_msg(&mut spectator).await;
    assert_eq!(m["type"], "update", "{m}");
    let size = m.to_string().len();
    assert_eq!(m["update"]["actions"].as_array().unwrap().len(), 1);
    assert!(
        size * 5 < full,
        "an update of {size} bytes against a whole state of {full}"
    );
    // The actor: one update for his action, nothing else before the pong.
    let m = next_msg(&mut player).await;
    assert_eq!(
        (m["type"].as_str(), m["update"]["ply"].as_u64()),
        (Some("update"), Some(n as u64 + 1))
    );
    assert!(
        !m["update"]["legal"].as_array().unwrap().is_empty() || m["update"]["status"] == "over"
    );
    send(&mut player, json!({"type": "ping"})).await;
    assert_eq!(next_msg(&mut player).await["type"], "pong");
    // A resync brings the whole state again.
    send(&mut player, json!({"type": "resync"})).await;
    let m = next_msg(&mut player).await;
    assert_eq!(m["type"], "state");
    assert_eq!(ply(&m["state"]), n + 1);
    player.send(Message::Close(None)).await.unwrap();
}

/// Issue 25, item 3: spectators fill a timed game's socket cap; a player
/// of the game still opens his socket (again and again: reconnects), and
/// the cap still holds for one more spectator. The seats' sockets do not
/// count against the spectators' cap.
#[tokio::test(flavor = "multi_thread")]
async fn spectators_filling_the_cap_never_lock_a_player_out() {
    let dir = tempfile::tempdir().unwrap();
    let config = gore_server::Config {
        max_sockets_per_game: 3,
        ..config_in(&dir)
    };
    let s = Server::start_with(dir, config).await;
    let g = create_game(
        &browser(),
        &s,
        json!({"mode": "friend", "colour": "A", "clock": "3+2"}),
    )
    .await;
    let id = g.id.clone();
    let ta = g.token.clone();
    let tb = claim_seat(&browser(), &s, g.invite.as_deref().unwrap())
        .await
        .token;
    let url = format!("ws://{}/api/games/{id}/ws", s.addr);
    let status = |r: Result<_, tokio_tungstenite::tungstenite::Error>| match r {
        Err(tokio_tungstenite::tungstenite::Error::Http(res)) => res.status().as_u16(),
        Err(e) => panic!("{e}"),
        Ok(_) => 101,
    };
    let mut spectators = Vec::new();
    for _ in 0..3 {
        let mut w = s.ws(&id, None).await;
        next_state(&mut w).await;
        spectators.push(w);
    }
    assert_eq!(
        status(tokio_tungstenite::connect_async(url.as_str()).await),
        503,
        "a fourth spectator"
    );
    // B reconnects three times (each socket closed before the next), A
    // connects once: every one is let in and gets his seat's state.
    for _ in 0..3 {
        let mut wb = s.ws(&id, Some(&tb)).await;
        assert_eq!(next_state(&mut wb).await["you"], "B");
        wb.close(None).await.unwrap();
    }
    let mut wb = s.ws(&id, Some(&tb)).await;
    assert_eq!(next_state(&mut wb).await["you"], "B");
    let mut wa = s.ws(&id, Some(&ta)).await;
    assert_eq!(next_state(&mut wa).await["you"], "A");
    // With both players in, the spectators' cap is still 3.
    assert_eq!(
        status(tokio_tungstenite::connect_async(url.as_str()).await),
        503,
        "a fourth spectator with the players in"
    );
    drop(spectators);
}
