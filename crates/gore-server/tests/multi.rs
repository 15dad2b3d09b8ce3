//! Several servers on one store: any server serves any game, every change
//! reaches the sockets on every server, a ply is accepted once whichever
//! server receives it, and an AI turn is computed by one server, taken
//! over when that server's claim lapses.
//!
//! The shared store here is the SQLite store with handles that notify each
//! other (tests/common/shared.rs): the store's own queries (a conflict per
//! ply, leased AI claims), notices as PostgreSQL's: the domain's side of
//! the coordination, tested on its own. The PostgreSQL store runs the
//! same tests in tests/postgres.rs when `GORE_TEST_POSTGRES` is set.

mod common;

use std::time::{Duration, Instant};

use common::shared::*;
use common::*;
use serde_json::json;

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
    let g = create_game(&alice, &s1, json!({"mode": "friend", "colour": "A"})).await;
    let id = g.id.clone();
    let ta = g.token.clone();
    let mut wa = s1.ws(&id, Some(&ta)).await;
    assert_eq!(next_state(&mut wa).await["status"], "waiting");
    // Bob claims the invitation on server 2: Alice's socket on server 1
    // hears of it.
    let bob = browser();
    let tb = claim_seat(&bob, &s2, g.invite.as_deref().unwrap())
        .await
        .token;
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
        let g = create_game(&bot(), &s1, json!({"mode": "local"})).await;
        let (id, t) = (g.id.clone(), g.token.clone());
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
        assert_eq!(error_of(loser).code, "stale", "{loser}");
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
/// never moved) is taken over by another server once the dead server is
/// silent for `DEAD_AFTER`, though its lease runs for ten minutes more.
#[tokio::test(flavor = "multi_thread")]
async fn a_dead_servers_ai_turn_is_taken_over() {
    let shared = Shared::new();
    let s1 = server_on(&shared, 1).await;
    let g = create_game(
        &bot(),
        &s1,
        json!({"mode": "ai", "colour": "A", "level": 1}),
    )
    .await;
    let (id, t) = (g.id.clone(), g.token.clone());
    // Server 9, alive now, claims the AI's first turn for ten minutes
    // (as if it had stored the person's action), and dies: it never beats
    // again.
    shared.mark_ai_due(&id, 1);
    let nine = shared.handle(9);
    let now = gore_server::domain::now_ms();
    nine.heartbeat(nine.origin(), now, vec![], 0).await.unwrap();
    assert!(nine
        .claim_ai_turn(
            id.clone(),
            gore_server::domain::Ply::new(1),
            Duration::from_secs(600),
            now - 1
        )
        .await
        .unwrap());
    let died = Instant::now();
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
    assert!(
        died.elapsed() >= gore_server::domain::DEAD_AFTER,
        "taken over only once server 9 was silent long enough"
    );
}

/// Issue 25, item 4, with several servers. A 3+2 game served by servers
/// 1 and 2; A acts at 10 s (180 - 10 + 2 = 172 s). Server 1 dies at 20 s:
/// server 2 served the game all along, so B's time runs on (at 50 s he
/// has 180 - 40 = 140 s), and a server 3 loading it then gives nothing
/// either (server 2 lives). Servers 2 and 3 die at 50 s; server 4 starts
/// 65 s later and takes the game over: B has his 140 s back (not 75).
#[tokio::test(flavor = "multi_thread")]
async fn a_game_taken_over_after_its_servers_died_gets_the_outage_back() {
    use gore_server::domain::clock::Clock;
    const T0: i64 = 1_796_083_200_000;
    let shared = Shared::new();
    let (c1, c2) = (Clock::manual(T0), Clock::manual(T0));
    let both = |d: Duration| {
        c1.advance(d);
        c2.advance(d);
    };
    let s1 = server_on_with(&shared, 1, |c| c.clock = c1.clone()).await;
    let s2 = server_on_with(&shared, 2, |c| c.clock = c2.clone()).await;
    let g = create_game(
        &browser(),
        &s1,
        json!({"mode": "friend", "colour": "A", "clock": "3+2"}),
    )
    .await;
    let id = g.id.clone();
    let ta = g.token.clone();
    let tb = claim_seat(&browser(), &s1, g.invite.as_deref().unwrap())
        .await
        .token;
    let play = |s: &Server, t: &str, a: &str, n: usize| {
        let (s, t, a) = (s.at(""), t.to_string(), a.to_string());
        let id = id.clone();
        async move {
            let r = bot()
                .post(format!("{s}/api/games/{id}/actions"))
                .bearer_auth(t)
                .json(&json!({"action": a, "ply": n}))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200, "{a}");
            r.json::<serde_json::Value>().await.unwrap()
        }
    };
    play(&s1, &ta, "a3", 0).await;
    play(&s1, &tb, "b3", 1).await;
    s1.state.games().heartbeat().await;
    // Server 2 serves it too (server 1 lives: nothing to credit).
    assert_eq!(get(&bot(), &s2, &id).await.1["status"], "playing");
    both(Duration::from_secs(10));
    let v = play(&s2, &ta, "a1", 2).await;
    assert_eq!(clock_of(&v).left.pair(), (172_000, 180_000));
    both(Duration::from_secs(10));
    s1.state.games().heartbeat().await;
    // Server 1 dies at 20 s; 30 s later server 2 beats (and takes the
    // game's pointer: it has served it all along).
    c2.advance(Duration::from_secs(30));
    s2.state.games().heartbeat().await;
    let c3 = Clock::manual(T0 + 50_000);
    let s3 = server_on_with(&shared, 3, |c| c.clock = c3.clone()).await;
    let (_, v) = get(&bot(), &s3, &id).await;
    assert_eq!(clock_of(&v).left.pair(), (172_000, 140_000));
    s3.state.games().heartbeat().await;
    // Servers 2 and 3 die at 50 s; server 4 starts 65 s later.
    let c4 = Clock::manual(T0 + 115_000);
    let s4 = server_on_with(&shared, 4, |c| c.clock = c4.clone()).await;
    let (_, v) = get(&bot(), &s4, &id).await;
    assert_eq!(v["status"], "playing", "{v}");
    assert_eq!(clock_of(&v).left.pair(), (172_000, 140_000));
    // B plays 5 s later: 140 - 5 + 2 = 137 s.
    c4.advance(Duration::from_secs(5));
    let v = play(&s4, &tb, "b1", 3).await;
    assert_eq!(clock_of(&v).left.pair(), (172_000, 137_000));
}

/// Issue 25, item 2, with several servers: B has a socket on server 1 and
/// one on server 2; the one on server 2 closes, and server 2 marks him
/// away (it has no socket of his left). His messages on server 1's socket
/// are signs of life: 70 s after the close, 40 s after his last message,
/// A's claim is refused; 60 s after that message it is granted.
#[tokio::test(flavor = "multi_thread")]
async fn a_players_socket_messages_on_another_server_are_signs_of_life() {
    use gore_server::domain::clock::Clock;
    const T0: i64 = 1_796_083_200_000;
    let shared = Shared::new();
    let clock = Clock::manual(T0);
    let s1 = server_on_with(&shared, 1, |c| c.clock = clock.clone()).await;
    let s2 = server_on_with(&shared, 2, |c| c.clock = clock.clone()).await;
    let g = create_game(
        &browser(),
        &s1,
        json!({"mode": "friend", "colour": "A", "clock": "5+3"}),
    )
    .await;
    let id = g.id.clone();
    let ta = g.token.clone();
    let tb = claim_seat(&browser(), &s1, g.invite.as_deref().unwrap())
        .await
        .token;
    // The first actions (the game would be aborted 30 s without them).
    for (t, a, n) in [(&ta, "a3", 0), (&tb, "b3", 1)] {
        let (st, v) = act(&bot(), &s1, &id, Some(t), json!({"action": a, "ply": n})).await;
        assert_eq!(st, 200, "{v}");
    }
    let mut wa = s1.ws(&id, Some(&ta)).await;
    next_state(&mut wa).await;
    // Each socket is counted (present) on its server once it answers a
    // ping: its loop runs.
    let mut b1 = s1.ws(&id, Some(&tb)).await;
    send(&mut b1, json!({"type": "ping"})).await;
    next_of(&mut b1, "pong").await;
    let mut b2 = s2.ws(&id, Some(&tb)).await;
    send(&mut b2, json!({"type": "ping"})).await;
    next_of(&mut b2, "pong").await;
    drop(b2);
    // Server 2 marks B away; server 1 hears of it.
    loop {
        if !next_state(&mut wa).await["away"]["B"].is_null() {
            break;
        }
    }
    let claim_win = |s: &Server| {
        let url = s.at(&format!("/api/games/{id}/claim"));
        let ta = ta.clone();
        async move {
            bot()
                .post(url)
                .bearer_auth(ta)
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    };
    clock.advance(Duration::from_secs(30));
    send(&mut b1, json!({"type": "ping"})).await;
    assert_eq!(next_of(&mut b1, "pong").await["type"], "pong");
    clock.advance(Duration::from_secs(40));
    assert_eq!(claim_win(&s2).await, 409, "B's ping was 40 s ago");
    assert_eq!(claim_win(&s1).await, 409, "B's ping was 40 s ago");
    clock.advance(Duration::from_secs(20));
    assert_eq!(
        claim_win(&s2).await,
        200,
        "60 s after B's last sign of life"
    );
}
