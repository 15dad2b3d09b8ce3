//! Give time (issue 36, the command added through the one command table;
//! docs/RULES.md, "Giving time"): in a game between people with a
//! running clock of minutes, a player gives his opponent 15 s, by HTTP or
//! by the game's socket, and the clocks move by hand arithmetic; the
//! refusals are typed and change nothing. Time is a manual clock the test
//! moves: no sleeps. On PostgreSQL too when `GORE_TEST_POSTGRES` is set.

mod common;

use std::time::Duration;

use common::*;
use gore_server::domain::clock::Clock;
use serde_json::{json, Value};

/// A fixed start for the manual clock (2026-12-01, Unix ms).
const T0: i64 = 1_796_083_200_000;

/// A game of `body` (A the creator) claimed by B when it is a friend
/// game: id and both tokens (B's `None` otherwise).
async fn game_of(s: &Server, body: Value) -> (String, String, Option<String>) {
    let g = create_game(&browser(), s, body).await;
    let tb = match &g.invite {
        Some(invite) => Some(claim_seat(&browser(), s, invite).await.token),
        None => None,
    };
    (g.id, g.token, tb)
}

/// `POST /api/games/{id}/give-time` as the holder of `token`.
async fn give(s: &Server, id: &str, token: &str) -> (u16, Value) {
    let r = bot()
        .post(s.at(&format!("/api/games/{id}/give-time")))
        .bearer_auth(token)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

fn reason(v: &Value) -> &str {
    v["error"]["reason"].as_str().unwrap_or("")
}

/// 1+2, both first actions free (as in tests/clocks.rs): after A's a1 at
/// +10 s, A has 60 - 10 + 2 = 52 s and B, to act, 60 s. A gives B 15 s:
/// B 75 s, his deadline 75 s away. Then B, still to act, gives A 15 s:
/// A's clock is not running, so it is credited to A's last paid period:
/// A 52 + 15 = 67 s, B's running time untouched (75 s). 5 s later B has
/// 70 s. Each gift is answered the whole state by HTTP.
#[tokio::test(flavor = "multi_thread")]
async fn time_given_moves_the_opponents_clock_by_hand_arithmetic() {
    let clock = Clock::manual(T0);
    let s = server_with_clock(&clock).await;
    let (id, ta, tb) = game_of(&s, json!({"mode": "friend", "colour": "A", "clock": "1+2"})).await;
    let tb = tb.unwrap();
    clock.advance(Duration::from_secs(20));
    play(&s, &id, &ta, "a3", 0).await;
    clock.advance(Duration::from_secs(25));
    play(&s, &id, &tb, "b3", 1).await;
    clock.advance(Duration::from_secs(10));
    let v = play(&s, &id, &ta, "a1", 2).await;
    assert_eq!(clock_of(&v).left.pair(), (52_000, 60_000));

    let (st, v) = give(&s, &id, &ta).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(clock_of(&v).left.pair(), (52_000, 75_000));
    assert_eq!(clock_of(&v).running.as_deref(), Some("B"));
    assert_eq!(clock_of(&v).deadline_in, Some(75_000));

    let (st, v) = give(&s, &id, &tb).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(clock_of(&v).left.pair(), (67_000, 75_000));

    clock.advance(Duration::from_secs(5));
    let (_, v) = get(&bot(), &s, &id).await;
    assert_eq!(clock_of(&v).left.pair(), (67_000, 70_000));
    // The gifts hold at B's flag: 70 s on, not before.
    clock.advance(Duration::from_millis(69_999));
    s.state.games().settle_clocks().await;
    let (_, v) = get(&bot(), &s, &id).await;
    assert_eq!(v["status"], "playing", "{v}");
    clock.advance(Duration::from_millis(1));
    s.state.games().settle_clocks().await;
    let (_, v) = get(&bot(), &s, &id).await;
    assert_eq!(v["status"], "over", "{v}");
    assert_eq!(result_of(&v).winner.as_deref(), Some("A"), "{v}");
}

/// Through the game's socket: `{"type": "give_time"}` from A reaches both
/// sockets as a change of B's clock (60 → 75 s), as every command's change
/// does.
#[tokio::test(flavor = "multi_thread")]
async fn time_given_through_the_socket_reaches_both_players() {
    let clock = Clock::manual(T0);
    let s = server_with_clock(&clock).await;
    let (id, ta, tb) = game_of(&s, json!({"mode": "friend", "colour": "A", "clock": "1+2"})).await;
    let tb = tb.unwrap();
    play(&s, &id, &ta, "a3", 0).await;
    play(&s, &id, &tb, "b3", 1).await;
    play(&s, &id, &ta, "a1", 2).await;
    let mut wa = s.ws(&id, Some(&ta)).await;
    let mut wb = s.ws(&id, Some(&tb)).await;
    next_state(&mut wa).await;
    next_state(&mut wb).await;
    send(&mut wa, json!({"type": "give_time"})).await;
    for ws in [&mut wa, &mut wb] {
        // Other changes may come first (the other socket's presence): the
        // first state whose clock moved is the gift's.
        let mut seen = Vec::new();
        let clock = loop {
            let m = next_msg(ws).await;
            let head = match m["type"].as_str() {
                Some("update") => &m["update"],
                Some("state") => &m["state"],
                // The chat's history, to each player of a friend game.
                _ => continue,
            };
            if head["clock"]["left"]["B"] != 60_000 {
                break head["clock"]["left"].clone();
            }
            seen.push(m.clone());
            assert!(seen.len() < 10, "no gift in {seen:?}");
        };
        assert_eq!(clock, json!({"A": 62_000, "B": 75_000}));
    }
}

/// Refused, typed, and nothing changed: before the opponent's clock has
/// run (both first actions are free), in an untimed game, in a game
/// against the AI, for a spectator.
#[tokio::test(flavor = "multi_thread")]
async fn time_is_given_only_where_a_clock_runs_between_people() {
    let clock = Clock::manual(T0);
    let s = server_with_clock(&clock).await;
    let (id, ta, _) = game_of(&s, json!({"mode": "friend", "colour": "A", "clock": "1+2"})).await;
    let before = get(&bot(), &s, &id).await.1;
    let (st, v) = give(&s, &id, &ta).await;
    assert_eq!((st, reason(&v)), (409, "give_time_not_yet"), "{v}");
    assert_eq!(get(&bot(), &s, &id).await.1["clock"], before["clock"]);

    let (id, ta, tb) = game_of(&s, json!({"mode": "friend", "colour": "A"})).await;
    play(&s, &id, &ta, "a3", 0).await;
    play(&s, &id, &tb.unwrap(), "b3", 1).await;
    let (st, v) = give(&s, &id, &ta).await;
    assert_eq!((st, reason(&v)), (409, "give_time_no_clock"), "{v}");

    let (id, ta, _) = game_of(&s, json!({"mode": "ai", "colour": "A", "level": 1})).await;
    let (st, v) = give(&s, &id, &ta).await;
    assert_eq!((st, reason(&v)), (409, "give_time_people"), "{v}");

    let (st, v) = give(&s, &id, "0123456789abcdef0123456789abcdef").await;
    assert_eq!(st, 403, "{v}");
}
