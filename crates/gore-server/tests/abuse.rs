//! Hostile clients at a small scale: each flood must leave an innocent game
//! its latency.

mod common;

use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use common::*;
use gore_server::Config;
use serde_json::{json, Value};

/// Point 4 of issue 8. One address floods top-level games, each with the AI
/// to move first, on a server of two AI threads: before, two search slots
/// served first come first served, and an innocent level-1 game waited
/// behind every top-level search queued (30 s behind 60 of them). Now the
/// flood gets its two games (`--ai-per-client 2`) and `busy` for the rest,
/// and the innocent game, from another address, gets its answer while the
/// flood's searches (60 s each) are still thinking: it never waits behind
/// them, whatever the load of the machine.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ai_flood_does_not_starve_an_innocent_game() {
    const FLOOD: usize = 20;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gore.sqlite3");
    let config = Config {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        db: db.to_str().unwrap().to_string(),
        rate_limit: 0,
        // A top-level search outlives the test: only an answer that jumped
        // the flood's searches can arrive in time.
        ai_time: Duration::from_secs(60),
        ai_threads: 2,
        ai_queue: 64,
        ai_per_client: 2,
        ..Config::default()
    };
    let s = Server::start_with(dir, config).await;

    let attacker = client_from(Ipv4Addr::new(127, 0, 0, 1));
    let flood = (0..FLOOD).map(|_| {
        let c = attacker.clone();
        let url = s.at("/api/games");
        async move {
            let r = c
                .post(url)
                .json(&json!({"mode": "ai", "level": gore_ai::MAX_LEVEL, "colour": "B"}))
                .send()
                .await
                .unwrap();
            let status = r.status().as_u16();
            let retry_after = r.headers().get("retry-after").cloned();
            let body: Value = r.json().await.unwrap();
            (status, retry_after, body)
        }
    });
    let answers = futures_util::future::join_all(flood).await;
    let created: Vec<&Value> = answers
        .iter()
        .filter(|(st, _, _)| *st == 201)
        .map(|(_, _, b)| b)
        .collect();
    let refused: Vec<_> = answers.iter().filter(|(st, _, _)| *st != 201).collect();
    assert_eq!(created.len(), 2, "the cap per client: {answers:?}");
    assert_eq!(refused.len(), FLOOD - 2);
    for (status, retry_after, body) in &refused {
        assert_eq!(*status, 503, "{body}");
        assert_eq!(error_of(body).code, "busy", "{body}");
        assert!(retry_after.is_some(), "busy says when to retry");
        let message = error_of(body).message;
        assert!(message.contains("2 games"), "{message}");
    }

    // The innocent: another address, level 1, the AI to move first.
    let innocent = client_from(Ipv4Addr::new(127, 0, 0, 2));
    let started = Instant::now();
    let g = create(
        &innocent,
        &s,
        json!({"mode": "ai", "level": 1, "colour": "B"}),
    )
    .await;
    let id = g["id"].as_str().unwrap();
    let mut ws = s.ws(id, Some(g["token"].as_str().unwrap())).await;
    // next_msg's 30 s deadline bounds this: far more than a depth-1
    // search needs, far less than a flood's search takes.
    let state = state_with(&mut ws, 1).await;
    let waited = started.elapsed();
    assert_eq!(state["actions"][0]["player"], "A", "{state}");
    assert!(waited < Duration::from_secs(30), "waited {waited:?}");

    // The flood's searches are still thinking, and shown as such.
    for g in &created {
        let (_, v) = get(&attacker, &s, g["id"].as_str().unwrap()).await;
        assert_eq!(v["actions"].as_array().unwrap().len(), 0, "{v}");
        assert_eq!(v["thinking"], true, "{v}");
    }
    // The innocent's address has its own cap: the flood's does not touch it.
    let second = innocent
        .post(s.at("/api/games"))
        .json(&json!({"mode": "ai", "level": 1, "colour": "B"}))
        .send()
        .await
        .unwrap();
    assert_eq!(second.status(), 201);
    // And the flood's address is still refused.
    let again = attacker
        .post(s.at("/api/games"))
        .json(&json!({"mode": "ai", "level": 1, "colour": "B"}))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 503);
}

/// Item 5 of issue 25. One address queues six top-level games, each with
/// the AI to move first, on a server of one AI thread; then another
/// address asks for one. Before, jobs of equal cost ran first come first
/// served (and a cheaper one always first: a level-11 flood starved level
/// 12 for ever; the pool's unit tests show the order ignores the cost
/// now): the innocent waited for the flood's six searches. Now addresses
/// take turns: the innocent's search runs right after the one running
/// when it asked, before the flood's others. Observed by the order the
/// AI's first replies arrive on the games' sockets; each search takes the
/// top level's time, so a reply cannot overtake another.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ai_flood_from_one_address_does_not_make_another_address_wait_its_turn() {
    const FLOOD: usize = 6;
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_in(&dir);
    config.ai_threads = 1;
    config.ai_per_client = FLOOD;
    config.ai_time = Duration::from_secs(2);
    let s = Server::start_with(dir, config).await;
    let level = gore_ai::MAX_LEVEL;

    // Each game's socket reports the game's name at the AI's first action.
    let (tx, mut replies) = tokio::sync::mpsc::unbounded_channel();
    let watch = |name: String, g: Value| {
        let tx = tx.clone();
        let s = &s;
        async move {
            let mut ws = s
                .ws(
                    g["id"].as_str().unwrap(),
                    Some(g["token"].as_str().unwrap()),
                )
                .await;
            tokio::spawn(async move {
                state_with(&mut ws, 1).await;
                let _ = tx.send(name);
            });
        }
    };
    let attacker = client_from(Ipv4Addr::new(127, 0, 0, 1));
    for i in 0..FLOOD {
        let g = create(
            &attacker,
            &s,
            json!({"mode": "ai", "level": level, "colour": "B"}),
        )
        .await;
        watch(format!("flood-{i}"), g).await;
    }
    let innocent = client_from(Ipv4Addr::new(127, 0, 0, 2));
    let g = create(
        &innocent,
        &s,
        json!({"mode": "ai", "level": level, "colour": "B"}),
    )
    .await;
    // Replies already in: searches over before the innocent asked.
    let mut done_before = Vec::new();
    while let Ok(name) = replies.try_recv() {
        done_before.push(name);
    }
    watch("innocent".to_string(), g).await;
    let mut overtook = Vec::new();
    loop {
        let name = replies.recv().await.expect("a reply");
        if name == "innocent" {
            break;
        }
        overtook.push(name);
        // At most the flood's search running when the innocent asked.
        assert!(
            overtook.len() <= 1,
            "the innocent waited for {overtook:?} (done before it asked: {done_before:?})"
        );
    }
}

/// Issue 37, High 3: with the workers searching (`--ai-threads 0`), AI
/// games were not limited per address: 20 addresses made 1,416 level-12
/// AI-first games in 20 s (none refused), and an innocent's next game had
/// no reply after 38 s. Now the store counts an address's AI turns due
/// against `--ai-per-client`, as the server's own pool does: the third
/// such game of one address is refused `busy`; another address's is not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_workers_an_address_has_few_ai_turns_due() {
    let s = server(|c| {
        c.ai_threads = 0;
        c.ai_per_client = 2;
    })
    .await;
    let flood = client_from(Ipv4Addr::new(127, 0, 0, 1));
    let ai_first = |c: &reqwest::Client| {
        c.post(s.at("/api/games"))
            .json(&json!({"mode": "ai", "level": 12, "colour": "B"}))
            .send()
    };
    for n in 0..2 {
        let r = ai_first(&flood).await.unwrap();
        assert_eq!(r.status(), 201, "game {n}");
    }
    let r = ai_first(&flood).await.unwrap();
    assert_eq!(r.status(), 503);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"]["code"], "busy", "{v}");
    let innocent = client_from(Ipv4Addr::new(127, 0, 0, 2));
    assert_eq!(ai_first(&innocent).await.unwrap().status(), 201);
}
