//! Several `gore serve` on one PostgreSQL database (each test on a fresh
//! database): a friend game whose players are on two servers and a
//! spectator on a third, every action reaching every socket through
//! `LISTEN`/`NOTIFY`; two servers racing on one ply.
//!
//! They run when `GORE_TEST_POSTGRES` names a database URL (.ci/run sets
//! it). Without it they fail under `CI=true`, and elsewhere pass with a
//! loud warning.

mod common;

use std::time::{Duration, Instant};

use common::*;
use gore_server::domain::Ply;
use serde_json::json;

/// A fresh database, or `None` (with a warning) off CI.
async fn database() -> Option<String> {
    let Some(base) = postgres_url() else {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("GORE_TEST_POSTGRES is not set: under CI=true the PostgreSQL tests must run");
        }
        use std::io::Write;
        let _ = std::io::stderr().write_all(
            b"\n*** WARNING: GORE_TEST_POSTGRES is not set: tests/pg_servers.rs did NOT run. ***\n",
        );
        return None;
    };
    Some(fresh_pg_database(&base).await)
}

#[tokio::test(flavor = "multi_thread")]
async fn players_and_a_spectator_on_three_servers() {
    let Some(url) = database().await else { return };
    let on_url = |c: &mut gore_server::Config| c.db = url.clone();
    let (s1, s2, s3) = (
        server(on_url).await,
        server(on_url).await,
        server(on_url).await,
    );
    let alice = browser();
    let g = create_game(&alice, &s1, json!({"mode": "friend", "colour": "A"})).await;
    let id = g.id.clone();
    let ta = g.token.clone();
    let mut wa = s1.ws(&id, Some(&ta)).await;
    assert_eq!(next_state(&mut wa).await["status"], "waiting");
    // Bob claims the invitation on server 2: Alice's socket on server 1
    // hears of it through the database.
    let bob = browser();
    let tb = claim_seat(&bob, &s2, g.invite.as_deref().unwrap())
        .await
        .token;
    assert_eq!(next_state(&mut wa).await["status"], "playing");
    let mut wb = s2.ws(&id, Some(&tb)).await;
    let mut spectator = s3.ws(&id, None).await;
    next_state(&mut wb).await;
    next_state(&mut spectator).await;
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
    assert_eq!(ply(&next_state(&mut wb).await), 2);
    let sa = next_state(&mut wa).await;
    assert_eq!(ply(&sa), 2);
    assert_eq!(ply(&next_state(&mut spectator).await), 2);
    for s in [&s1, &s2, &s3] {
        assert_eq!(get(&bot(), s, &id).await.1["actions"], sa["actions"]);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn two_servers_racing_on_one_ply_commit_once() {
    let Some(url) = database().await else { return };
    let on_url = |c: &mut gore_server::Config| c.db = url.clone();
    let (s1, s2) = (server(on_url).await, server(on_url).await);
    for round in 0..5 {
        let g = create_game(&bot(), &s1, json!({"mode": "local"})).await;
        let (id, t) = (g.id.clone(), g.token.clone());
        get(&bot(), &s2, &id).await;
        let (c1, c2) = (bot(), bot());
        let (a, b) = tokio::join!(
            act(&c1, &s1, &id, Some(&t), json!({"action": "a1", "ply": 0})),
            act(&c2, &s2, &id, Some(&t), json!({"action": "a2", "ply": 0})),
        );
        let mut codes = [a.0, b.0];
        codes.sort_unstable();
        assert_eq!(codes, [200, 409], "round {round}: {a:?} {b:?}");
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

/// An AI turn is claimed by one server at a time: another server's claim
/// is refused while the lease runs and its holder lives, its holder may
/// renew it, and a lapsed lease, or one whose holder fell silent, is taken
/// over.
#[tokio::test(flavor = "multi_thread")]
async fn an_ai_turn_is_claimed_by_one_server_at_a_time() {
    use gore_server::store::postgres::{PgOptions, PgStore};
    use gore_server::store::ServerStore;
    let Some(url) = database().await else { return };
    let one = PgStore::connect(&url, PgOptions::default()).await.unwrap();
    let two = PgStore::connect(&url, PgOptions::default()).await.unwrap();
    let now = gore_server::domain::now_ms();
    for s in [&one, &two] {
        s.heartbeat(s.origin(), now, vec![], 0).await.unwrap();
    }
    // Both beat at `now`: alive for a `dead_before` at or before it.
    let alive = now;
    let long = Duration::from_secs(600);
    let g = "gggggggggg".to_string();
    // An AI game, marked due at `ply` as each test below needs.
    let sql = pg_connect(&url).await;
    sql.execute(
        "INSERT INTO games (id, mode, rules, start, level, creator, ai_seat, status,
             created_at, updated_at, ai_turn)
         VALUES ($1, 'ai', 'standard', '', 1, 'B', 'A', 'playing', 0, 0, 1)",
        &[&g],
    )
    .await
    .unwrap();
    let due_at = |ply: i32| {
        let (sql, g) = (&sql, &g);
        async move {
            sql.execute("UPDATE games SET ai_turn = $2 WHERE id = $1", &[g, &ply])
                .await
                .unwrap();
        }
    };
    assert!(
        !one.claim_ai_turn(g.clone(), Ply::new(2), long, alive)
            .await
            .unwrap(),
        "not due at that ply"
    );
    assert!(one
        .claim_ai_turn(g.clone(), Ply::new(1), long, alive)
        .await
        .unwrap());
    assert!(
        !two.claim_ai_turn(g.clone(), Ply::new(1), long, alive)
            .await
            .unwrap(),
        "held by one"
    );
    assert!(
        one.claim_ai_turn(g.clone(), Ply::new(1), long, alive)
            .await
            .unwrap(),
        "renewed by its holder"
    );
    due_at(2).await;
    assert!(
        two.claim_ai_turn(g.clone(), Ply::new(2), long, alive)
            .await
            .unwrap(),
        "another ply is free"
    );
    assert!(
        !one.claim_ai_turn(g.clone(), Ply::new(1), long, alive)
            .await
            .unwrap(),
        "a ply no longer due is not claimed, even by its holder"
    );
    due_at(3).await;
    // A lease of no time has lapsed at once: the other server takes it.
    assert!(one
        .claim_ai_turn(g.clone(), Ply::new(3), Duration::ZERO, alive)
        .await
        .unwrap());
    assert!(
        two.claim_ai_turn(g.clone(), Ply::new(3), long, alive)
            .await
            .unwrap(),
        "a lapsed claim is taken over"
    );
    assert!(!one
        .claim_ai_turn(g.clone(), Ply::new(3), long, alive)
        .await
        .unwrap());
    // Two's last heartbeat is before the `dead_before` asked: its claim,
    // though its lease runs, is taken over.
    assert!(
        one.claim_ai_turn(g, Ply::new(3), long, now + 1)
            .await
            .unwrap(),
        "a silent holder's claim is taken over"
    );
}

/// A change whose notice never came (its server died between its commit
/// and its notice): written here straight into the database, with no
/// notice. The server holding the game finds it by its sweep, and its
/// socket gets the action.
#[tokio::test(flavor = "multi_thread")]
async fn a_change_without_its_notice_is_found_by_the_sweep() {
    let Some(url) = database().await else { return };
    let s1 = server(|c| c.db = url.clone()).await;
    let g = create_game(&bot(), &s1, json!({"mode": "local"})).await;
    let id = g.id.clone();
    let mut spectator = s1.ws(&id, None).await;
    assert_eq!(ply(&next_state(&mut spectator).await), 0);
    // a1 from the start, as an old row (no position kept: the server
    // plays it again, checking it).
    pg_connect(&url)
        .await
        .execute(
            "INSERT INTO actions (game_id, ply, action, created_at, position, captured)
             VALUES ($1, 1, 'a1', 0, NULL, '')",
            &[&id],
        )
        .await
        .unwrap();
    // The sweep runs every 2 s; next_state waits up to 30 s.
    let seen = next_state(&mut spectator).await;
    assert_eq!(ply(&seen), 1, "{seen}");
    assert_eq!(seen["actions"][0]["action"], "a1");
}
