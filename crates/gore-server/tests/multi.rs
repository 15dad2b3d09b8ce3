//! Several servers on one store: any server serves any game, every change
//! reaches the sockets on every server, a ply is accepted once whichever
//! server receives it, and an AI turn is computed by one server, taken
//! over when that server's claim lapses.
//!
//! The shared store here is an in-memory one with the semantics the
//! `Store` trait asks of a store shared by several servers (a conflict per
//! ply, notices to the other servers, leased AI claims): the domain's side
//! of the coordination, tested on its own. The PostgreSQL store runs the
//! same tests in tests/postgres.rs when `GORE_TEST_POSTGRES` is set.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use gore_core::{Outcome, Player};
use gore_server::domain::{GameInfo, Seat, Status};
use gore_server::store::{Notice, Store, StoreError, StoreFuture, StoredAction, StoredGame};
use gore_server::AppState;
use serde_json::json;
use tokio::sync::broadcast;

#[derive(Default)]
struct Data {
    games: HashMap<String, StoredGame>,
    sessions: HashMap<(String, String), String>,
    claims: HashMap<(String, u32), (usize, Instant)>,
}

/// One database, several handles on it (one per server).
#[derive(Clone)]
struct Shared {
    data: Arc<Mutex<Data>>,
    /// Every change, with the handle that made it.
    changes: broadcast::Sender<(usize, Notice)>,
}

struct Handle {
    shared: Shared,
    me: usize,
}

impl Shared {
    fn new() -> Shared {
        Shared {
            data: Arc::default(),
            changes: broadcast::channel(1024).0,
        }
    }

    fn handle(&self, me: usize) -> Arc<dyn Store> {
        Arc::new(Handle {
            shared: self.clone(),
            me,
        })
    }
}

impl Handle {
    fn write<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Data) -> Result<(T, Option<(String, u32)>), StoreError>,
    ) -> StoreFuture<T> {
        let r = f(&mut self.shared.data.lock().unwrap());
        if let Ok((_, Some((game, ply)))) = &r {
            let _ = self.shared.changes.send((
                self.me,
                Notice::Changed {
                    game: game.clone(),
                    ply: *ply,
                },
            ));
        }
        Box::pin(async move { r.map(|(v, _)| v) })
    }
}

fn ply_of(g: &StoredGame) -> u32 {
    g.actions.len() as u32
}

impl Store for Handle {
    fn create_game(&self, info: GameInfo, rematch_of: Option<String>) -> StoreFuture<()> {
        self.write(move |d| {
            if d.games.contains_key(&info.id) {
                return Err(StoreError::Conflict);
            }
            let old = rematch_of.and_then(|old| {
                let g = d.games.get_mut(&old)?;
                g.info.rematch = Some(info.id.clone());
                Some((old, ply_of(g)))
            });
            d.games.insert(
                info.id.clone(),
                StoredGame {
                    info,
                    actions: Vec::new(),
                },
            );
            Ok(((), old))
        })
    }
    fn load_game(&self, id: String) -> StoreFuture<Option<StoredGame>> {
        let g = self.shared.data.lock().unwrap().games.get(&id).cloned();
        Box::pin(async move { Ok(g) })
    }
    fn append_action(&self, id: String, a: StoredAction, e: Option<Outcome>) -> StoreFuture<()> {
        self.write(move |d| {
            let g = d
                .games
                .get_mut(&id)
                .ok_or(StoreError::Other("no game".into()))?;
            if a.ply as usize != g.actions.len() + 1 {
                return Err(StoreError::Conflict);
            }
            g.actions.push(a);
            if e.is_some() {
                g.info.status = Status::Over;
            }
            Ok(((), Some((id, ply_of(g)))))
        })
    }
    fn claim_invite(
        &self,
        id: String,
        code: String,
        seat: Player,
        token: String,
        _now: i64,
    ) -> StoreFuture<bool> {
        self.write(move |d| {
            let g = d
                .games
                .get_mut(&id)
                .ok_or(StoreError::Other("no game".into()))?;
            if g.info.invite.as_deref() != Some(code.as_str()) || g.info.status != Status::Waiting {
                return Ok((false, None));
            }
            g.info.invite = None;
            g.info.tokens.set(Seat::of(seat), Some(token));
            g.info.status = Status::Playing;
            Ok((true, Some((id, ply_of(g)))))
        })
    }
    fn set_device(&self, id: String, seat: Seat, code: Option<String>) -> StoreFuture<()> {
        self.write(move |d| {
            let g = d
                .games
                .get_mut(&id)
                .ok_or(StoreError::Other("no game".into()))?;
            g.info.devices.set(seat, code);
            Ok(((), Some((id, ply_of(g)))))
        })
    }
    fn remember_seat(&self, session: String, id: String, token: String) -> StoreFuture<()> {
        self.write(move |d| {
            d.sessions.insert((session, id), token);
            Ok(((), None))
        })
    }
    fn session_token(&self, session: String, id: String) -> StoreFuture<Option<String>> {
        let t = self
            .shared
            .data
            .lock()
            .unwrap()
            .sessions
            .get(&(session, id))
            .cloned();
        Box::pin(async move { Ok(t) })
    }
    fn active_ai_games(&self, _limit: u32) -> StoreFuture<Vec<String>> {
        let ids = self
            .shared
            .data
            .lock()
            .unwrap()
            .games
            .values()
            .filter(|g| g.info.ai_seat.is_some() && g.info.status == Status::Playing)
            .map(|g| g.info.id.clone())
            .collect();
        Box::pin(async move { Ok(ids) })
    }
    fn failure(&self) -> Option<String> {
        None
    }
    fn notices(&self) -> Option<broadcast::Receiver<Notice>> {
        let (tx, rx) = broadcast::channel(1024);
        let mut all = self.shared.changes.subscribe();
        let me = self.me;
        tokio::spawn(async move {
            while let Ok((from, n)) = all.recv().await {
                if from != me && tx.send(n).is_err() {
                    return;
                }
            }
        });
        Some(rx)
    }
    fn claim_ai_turn(&self, id: String, ply: u32, lease: Duration) -> StoreFuture<bool> {
        let mut d = self.shared.data.lock().unwrap();
        let now = Instant::now();
        let ok = match d.claims.get(&(id.clone(), ply)) {
            Some(&(who, until)) if who != self.me && until > now => false,
            _ => {
                d.claims.insert((id, ply), (self.me, now + lease));
                true
            }
        };
        Box::pin(async move { Ok(ok) })
    }
}

async fn server_on(shared: &Shared, me: usize) -> Server {
    let dir = tempfile::tempdir().unwrap();
    let config = config_in(&dir);
    let state = AppState::with_store(config, shared.handle(me)).unwrap();
    Server::serve(dir, state).await
}

/// A friend game whose players are on different servers, and a spectator
/// on a third: every action reaches every socket, wherever it is.
#[tokio::test(flavor = "multi_thread")]
async fn players_and_a_spectator_on_three_servers() {
    let shared = Shared::new();
    let (s1, s2, s3) = (
        server_on(&shared, 1).await,
        server_on(&shared, 2).await,
        server_on(&shared, 3).await,
    );
    let alice = browser();
    let g = create(&alice, &s1, json!({"mode": "friend", "colour": "A"})).await;
    let id = g["id"].as_str().unwrap().to_string();
    let ta = g["token"].as_str().unwrap().to_string();
    let mut wa = s1.ws(&id, Some(&ta)).await;
    assert_eq!(next_state(&mut wa).await["status"], "waiting");
    // Bob claims the invitation on server 2: Alice's socket on server 1
    // hears of it.
    let bob = browser();
    let tb = claim(&bob, &s2, g["invite"].as_str().unwrap()).await["token"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(next_state(&mut wa).await["status"], "playing");
    let mut wb = s2.ws(&id, Some(&tb)).await;
    let mut spectator = s3.ws(&id, None).await;
    next_state(&mut wb).await;
    next_state(&mut spectator).await;
    // A plays on server 1 over HTTP; B on server 2 over his socket.
    let (st, v) = act(
        &bot(),
        &s1,
        &id,
        Some(&ta),
        json!({"action": "a3", "ply": 0}),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(ply(&next_state(&mut wa).await), 1);
    let sb = next_state(&mut wb).await;
    assert_eq!(ply(&sb), 1);
    assert_eq!(ply(&next_state(&mut spectator).await), 1);
    send_action(&mut wb, legal(&sb)[0].as_str(), 1).await;
    let after = next_state(&mut wb).await;
    assert_eq!(ply(&after), 2, "{after}");
    let sa = next_state(&mut wa).await;
    assert_eq!(ply(&sa), 2);
    assert_eq!(ply(&next_state(&mut spectator).await), 2);
    // Every server tells the same game.
    for s in [&s1, &s2, &s3] {
        assert_eq!(get(&bot(), s, &id).await.1["actions"], sa["actions"]);
    }
}

/// Two servers receiving an action for the same ply: exactly one commits,
/// the other answers `stale`, and both then tell the same game.
#[tokio::test(flavor = "multi_thread")]
async fn two_servers_racing_on_one_ply_commit_once() {
    let shared = Shared::new();
    let (s1, s2) = (server_on(&shared, 1).await, server_on(&shared, 2).await);
    for round in 0..10 {
        let g = create(&bot(), &s1, json!({"mode": "local"})).await;
        let (id, t) = (
            g["id"].as_str().unwrap().to_string(),
            g["token"].as_str().unwrap().to_string(),
        );
        // Both servers have the game in memory.
        get(&bot(), &s2, &id).await;
        let (c1, c2) = (bot(), bot());
        let (a, b) = tokio::join!(
            act(&c1, &s1, &id, Some(&t), json!({"action": "a1", "ply": 0})),
            act(&c2, &s2, &id, Some(&t), json!({"action": "a2", "ply": 0})),
        );
        let mut codes = [a.0, b.0];
        codes.sort_unstable();
        assert_eq!(codes, [200, 409], "round {round}: {a:?} {b:?}");
        let loser = if a.0 == 409 { &a.1 } else { &b.1 };
        assert_eq!(loser["error"]["code"], "stale", "{loser}");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let (v1, v2) = (get(&bot(), &s1, &id).await.1, get(&bot(), &s2, &id).await.1);
            if ply(&v1) == 1 && v1["actions"] == v2["actions"] {
                break;
            }
            assert!(Instant::now() < deadline, "the servers disagree: {v1} {v2}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// An AI turn whose claim is held by a server that died (it claimed and
/// never moved) is taken over by another server once the claim lapses.
#[tokio::test(flavor = "multi_thread")]
async fn a_dead_servers_ai_turn_is_taken_over() {
    let shared = Shared::new();
    let s1 = server_on(&shared, 1).await;
    let g = create(
        &bot(),
        &s1,
        json!({"mode": "ai", "colour": "A", "level": 1}),
    )
    .await;
    let (id, t) = (
        g["id"].as_str().unwrap().to_string(),
        g["token"].as_str().unwrap().to_string(),
    );
    // Server 9 claims the AI's first turn for 1 s, and dies.
    assert!(shared
        .handle(9)
        .claim_ai_turn(id.clone(), 1, Duration::from_secs(1))
        .await
        .unwrap());
    let (st, _) = act(
        &bot(),
        &s1,
        &id,
        Some(&t),
        json!({"action": "a3", "ply": 0}),
    )
    .await;
    assert_eq!(st, 200);
    let v = poll_until(&bot(), &s1, &id, |v| ply(v) == 2).await;
    assert_eq!(v["actions"][1]["player"], "B", "the AI moved, once");
    let claims = &shared.data.lock().unwrap().claims;
    assert_eq!(claims[&(id.clone(), 1)].0, 1, "server 1 took the turn over");
}
