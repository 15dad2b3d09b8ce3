//! AI workers apart from the web servers (issue 28, part 4): `gore serve
//! --ai-threads 0` never searches, and `gore worker` processes on the same
//! database play the AI's turns, on SQLite (same machine) and PostgreSQL.
//! A worker SIGKILLed mid-search: another takes the turn. Two workers
//! never search the same turn.
//!
//! Each process serves its metrics: the searches each one ran are read
//! there (`gore_ai_search_seconds_count`), and compared with the AI's
//! actions in the games' records.

mod support;

use std::time::{Duration, Instant};

use gore_core::Player;
use gore_server::api::{GameView, Status};
use serde_json::json;
use support::*;

impl Proc {
    /// `gore serve --ai-threads 0` on `db`, with metrics.
    fn server(db: &str) -> Proc {
        // Six AI games from one address at once (the tests' floods): the
        // server counts an address's turns due against `--ai-per-client`
        // as its own pool would (issue 37).
        Proc::start(
            &[
                "serve",
                "--port",
                "0",
                "--rate-limit",
                "0",
                "--ai-threads",
                "0",
                "--ai-per-client",
                "6",
            ],
            db,
            &[],
        )
    }

    /// `gore worker` on `db` with one thread, metrics, and `extra`.
    fn worker(db: &str, extra: &[&str]) -> Proc {
        let p = Proc::start(&["worker", "--threads", "1"], db, extra);
        assert!(
            p.ready.starts_with("Goré worker is ready: 1 AI threads"),
            "unexpected first line: {:?}",
            p.ready
        );
        p
    }

    /// The searches this process ran, all levels.
    async fn searches(&self) -> u64 {
        self.metric("gore_ai_search_seconds_count").await
    }
}

/// An AI game (`level`) where the person plays B: the AI opens.
async fn ai_game(server: &Proc, level: u8) -> (String, String) {
    let g = create(
        &http(),
        &server.url,
        json!({"mode": "ai", "level": level, "colour": "B"}),
    )
    .await;
    (
        g["id"].as_str().unwrap().to_string(),
        g["token"].as_str().unwrap().to_string(),
    )
}

/// Plays the person's side (B, the first legal action each time) until
/// the game has `plies` actions and the person is to act, or is over; the
/// AI's actions come from whoever computes them. The socket sees every
/// action.
async fn play_until(server: &Proc, id: &str, token: &str, plies: usize) -> GameView {
    let mut watch = Watch::open(&server.url, id, Some(token)).await;
    let c = http();
    loop {
        let v = &watch.view;
        // Not while the AI is to act (it may act twice running): its
        // search would still be under way.
        if v.head.status == Status::Over
            || (v.head.ply.index() >= plies && v.head.to_move == Some(Player::B))
        {
            return watch.view;
        }
        if v.head.to_move == Some(Player::B) && !v.head.legal.is_empty() {
            let a = v.head.legal[0].to_string();
            let (st, body) = act(&c, &server.url, id, token, &a, v.head.ply.index())
                .await
                .expect("the server answers");
            assert_eq!(st, 200, "{body}");
        }
        let at = watch.view.head.ply.index();
        // 60 s: the bound of a loaded machine, not the promise.
        assert!(
            watch.until(60, |v| v.head.ply.index() > at).await,
            "no action after ply {at} (the AI's turn not taken?)"
        );
    }
}

/// The AI's actions in a game's record (it plays A).
fn ai_actions(v: &GameView) -> u64 {
    v.actions.iter().filter(|e| e.player == Player::A).count() as u64
}

/// A web server that never searches and one worker play AI games: every
/// search is the worker's, one per AI action, and the player's socket on
/// the web server hears each of them.
async fn a_worker_plays_for_a_server_that_does_not_search(db: &str) {
    let server = Proc::server(db);
    let worker = Proc::worker(db, &[]);
    let mut ai = 0;
    for _ in 0..2 {
        let (id, token) = ai_game(&server, 2).await;
        let v = play_until(&server, &id, &token, 5).await;
        assert!(ai_actions(&v) >= 3, "{:?}", v.actions);
        ai += ai_actions(&v);
    }
    assert_eq!(server.searches().await, 0, "the web server searched");
    assert_eq!(worker.searches().await, ai, "one search per AI action");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_plays_for_a_server_that_does_not_search_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gore.sqlite3");
    a_worker_plays_for_a_server_that_does_not_search(db.to_str().unwrap()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_plays_for_a_server_that_does_not_search_on_postgres() {
    let Some(base) = postgres_or_skip("the AI worker test") else {
        return;
    };
    let db = fresh_database(&base, "worker").await;
    a_worker_plays_for_a_server_that_does_not_search(&db).await;
}

/// A worker SIGKILLed while it searches (the top level, thinking ten
/// minutes): its claim's lease runs on, but its heartbeat stops, and
/// another worker takes the turn once it is silent for `DEAD_AFTER`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_workers_turn_is_taken_by_another() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gore.sqlite3");
    let db = db.to_str().unwrap();
    let server = Proc::server(db);
    let mut first = Proc::worker(db, &["--ai-time-ms", "600000"]);
    let (id, token) = ai_game(&server, gore_ai::MAX_LEVEL).await;
    // The first worker takes the turn up and searches.
    let deadline = Instant::now() + Duration::from_secs(60);
    while first.metric("gore_ai_running").await == 0 {
        assert!(Instant::now() < deadline, "the worker never searched");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    first.kill();
    let killed = Instant::now();
    let second = Proc::worker(db, &["--ai-time-ms", "300"]);
    let v = play_until(&server, &id, &token, 1).await;
    assert_eq!(v.actions[0].player, Player::A, "the AI moved");
    assert!(
        killed.elapsed() >= gore_server::domain::DEAD_AFTER,
        "taken before the first worker was silent long enough: {:?}",
        killed.elapsed()
    );
    assert_eq!(second.searches().await, 1, "the second worker searched it");
    // And the game goes on with the second worker.
    let v = play_until(&server, &id, &token, 3).await;
    assert_eq!(ai_actions(&v), 2);
    assert_eq!(second.searches().await, 2);
}

/// Two workers on one PostgreSQL database, six AI games at once: every
/// AI action was searched once, by one worker (a turn both searched would
/// count twice: the store keeps one action per ply), and both worked.
/// Each worker has one thread and each search its 300 ms at the top level,
/// so that six turns due at once are more than one worker can hold: the
/// other must take some (with level 1's instant searches, one worker
/// could take every turn on a loaded machine, and once did in CI).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_workers_never_search_the_same_turn() {
    let Some(base) = postgres_or_skip("the two workers test") else {
        return;
    };
    let db = fresh_database(&base, "workers").await;
    let server = Proc::server(&db);
    let one = Proc::worker(&db, &["--ai-time-ms", "300"]);
    let two = Proc::worker(&db, &["--ai-time-ms", "300"]);
    let mut games = Vec::new();
    for _ in 0..6 {
        games.push(ai_game(&server, gore_ai::MAX_LEVEL).await);
    }
    let plays = games
        .iter()
        .map(|(id, token)| play_until(&server, id, token, 7));
    let views = futures::future::join_all(plays).await;
    let ai: u64 = views.iter().map(ai_actions).sum();
    assert!(ai >= 24, "{ai} AI actions");
    let (a, b) = (one.searches().await, two.searches().await);
    assert_eq!(a + b, ai, "searches {a} + {b} for {ai} AI actions");
    assert!(a > 0 && b > 0, "both workers took turns: {a} and {b}");
    assert_eq!(server.searches().await, 0);
}

/// A flood of top-level AI games from one address, on a worker with one
/// thread (each search 2 s): a level-1 game from another address gets
/// its AI's first action after at most the search under way and one more,
/// not after the whole flood (the turns due are taken each address's
/// oldest first, and the worker's threads are shared among addresses).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_from_one_address_does_not_hold_back_another_on_a_worker() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gore.sqlite3");
    let db = db.to_str().unwrap();
    let server = Proc::server(db);
    let worker = Proc::worker(db, &["--ai-time-ms", "2000"]);
    let from = |ip: [u8; 4]| {
        reqwest::Client::builder()
            .local_address(std::net::IpAddr::from(ip))
            .build()
            .unwrap()
    };
    let flooder = from([127, 1, 0, 1]);
    for _ in 0..6 {
        create(
            &flooder,
            &server.url,
            json!({"mode": "ai", "level": gore_ai::MAX_LEVEL, "colour": "B"}),
        )
        .await;
    }
    // The worker is busy with the flood.
    let deadline = Instant::now() + Duration::from_secs(60);
    while worker.metric("gore_ai_running").await == 0 {
        assert!(Instant::now() < deadline, "the worker never searched");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let g = create(
        &from([127, 0, 0, 77]),
        &server.url,
        json!({"mode": "ai", "level": 1, "colour": "B"}),
    )
    .await;
    let (id, token) = (g["id"].as_str().unwrap(), g["token"].as_str().unwrap());
    play_until(&server, id, token, 1).await;
    // Its own search, the flood's search under way, and at most one more
    // that was already waiting for the thread.
    let searched = worker.searches().await;
    assert!(
        searched <= 3,
        "the innocent game waited for {} of the flood's searches",
        searched - 1
    );
}
