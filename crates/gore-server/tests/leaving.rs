//! Issue 13, leaving (RULES.md, "Games between people"): a player of a
//! timed game whose sockets all close is away; his opponent sees it, and
//! after 60 s may claim the win; one who comes back in time is not away
//! any more; untimed, the claim comes after 3 days without his action;
//! correspondence, the clock decides. A manual clock: no sleeps.

mod common;

use std::time::Duration;

use common::*;
use gore_server::domain::clock::Clock;
use serde_json::{json, Value};

const T0: i64 = 1_796_083_200_000;

async fn claim_win(s: &Server, id: &str, token: &str) -> (u16, Value) {
    let r = bot()
        .post(s.at(&format!("/api/games/{id}/claim")))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    let st = r.status().as_u16();
    (st, r.json().await.unwrap_or(Value::Null))
}

/// B's socket, once the server has counted it (the chat history comes
/// after his first state, just before he is marked present): closed
/// sooner, the server may never have seen him there.
async fn b_socket(s: &Server, id: &str, tb: &str) -> Ws {
    let mut wb = s.ws(id, Some(tb)).await;
    next_of(&mut wb, "chat_history").await;
    wb
}

/// Waits for A's socket to hear that B is away (or back: `None`).
async fn away_b(ws: &mut Ws, want_away: bool) -> Value {
    loop {
        let st = next_state(ws).await;
        if st["away"]["B"].is_null() != want_away {
            return st;
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_player_who_leaves_a_timed_game_can_be_claimed_after_60_s() {
    let clock = Clock::manual(T0);
    let s = server_with_clock(&clock).await;
    let (id, ta, tb) =
        friend_game(&s, json!({"mode": "friend", "colour": "A", "clock": "5+3"})).await;
    let mut wa = s.ws(&id, Some(&ta)).await;
    let wb = b_socket(&s, &id, &tb).await;
    next_state(&mut wa).await;
    play(&s, &id, &ta, "a3", 0).await;
    play(&s, &id, &tb, "b3", 1).await;
    // Nobody is away: nothing to claim.
    let (st, e) = claim_win(&s, &id, &ta).await;
    assert_eq!(st, 409, "{e}");
    assert!(error_of(&e).message.contains("connected"), "{e}");
    drop(wb);
    let st = away_b(&mut wa, true).await;
    assert_eq!(st["away"]["B"], 0, "away since now");
    clock.advance(Duration::from_millis(59_999));
    let (st, e) = claim_win(&s, &id, &ta).await;
    assert_eq!(st, 409, "a millisecond too soon: {e}");
    clock.advance(Duration::from_millis(1));
    let (_, v) = get(&bot(), &s, &id).await;
    assert_eq!(v["away"]["B"], 60_000);
    // B cannot claim against himself; A can.
    assert_eq!(claim_win(&s, &id, &tb).await.0, 409);
    let (st, v) = claim_win(&s, &id, &ta).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(result_of(&v).reason, "left");
    assert_eq!(result_of(&v).winner.as_deref(), Some("A"));
    let rec = bot()
        .get(s.at(&format!("/api/games/{id}/record")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        rec.contains("[Termination \"left\"]\n[Loser \"B\"]"),
        "{rec}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn coming_back_in_time_keeps_the_game() {
    let clock = Clock::manual(T0);
    let s = server_with_clock(&clock).await;
    let (id, ta, tb) =
        friend_game(&s, json!({"mode": "friend", "colour": "A", "clock": "5+3"})).await;
    play(&s, &id, &ta, "a3", 0).await;
    play(&s, &id, &tb, "b3", 1).await;
    let mut wa = s.ws(&id, Some(&ta)).await;
    next_state(&mut wa).await;
    let wb = b_socket(&s, &id, &tb).await;
    drop(wb);
    away_b(&mut wa, true).await;
    clock.advance(Duration::from_secs(30));
    let mut wb = s.ws(&id, Some(&tb)).await;
    next_state(&mut wb).await;
    away_b(&mut wa, false).await;
    clock.advance(Duration::from_secs(120));
    let (st, e) = claim_win(&s, &id, &ta).await;
    assert_eq!(st, 409, "he came back: {e}");
    assert_eq!(get(&bot(), &s, &id).await.1["status"], "playing");
    // A spectator cannot claim.
    let r = bot()
        .post(s.at(&format!("/api/games/{id}/claim")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
}

#[tokio::test(flavor = "multi_thread")]
async fn untimed_after_three_days_correspondence_never() {
    const DAY: u64 = 86_400_000;
    let clock = Clock::manual(T0);
    let s = server_with_clock(&clock).await;
    let (id, ta, tb) = friend_game(
        &s,
        json!({"mode": "friend", "colour": "A", "clock": "none"}),
    )
    .await;
    play(&s, &id, &ta, "a3", 0).await;
    // B to move: A may claim after 3 days without B's action.
    clock.advance(Duration::from_millis(3 * DAY - 1));
    assert_eq!(claim_win(&s, &id, &ta).await.0, 409);
    assert_eq!(claim_win(&s, &id, &tb).await.0, 409, "his own move");
    clock.advance(Duration::from_millis(1));
    let (st, v) = claim_win(&s, &id, &ta).await;
    assert_eq!(
        (st, v["result"]["reason"].as_str()),
        (200, Some("left")),
        "{v}"
    );
    let (id, ta, tb) =
        friend_game(&s, json!({"mode": "friend", "colour": "A", "clock": "1d"})).await;
    play(&s, &id, &ta, "a3", 0).await;
    play(&s, &id, &tb, "b3", 1).await;
    let (st, e) = claim_win(&s, &id, &tb).await;
    assert_eq!(st, 409);
    assert!(error_of(&e).message.contains("clock decides"), "{e}");
}

/// A sowing the holder of `token` may play now (never an offer: the turns
/// then alternate).
async fn a_sowing(s: &Server, id: &str, token: &str) -> (String, usize) {
    let v = get_as(&bot(), s, id, token).await;
    let sow = legal(&v)
        .into_iter()
        .find(|a| a.len() == 2)
        .expect("a sowing");
    (sow, ply(&v))
}

/// Issue 25, item 2: B's socket is closed but B goes on playing over
/// HTTP (the web app's fallback). Away time counts from his last sign of
/// life on any channel: 12 actions in 60 s, then 5 s more, and A's claim
/// is refused (65 s after the socket closed, 5 s after B's last action);
/// a read of the game with B's token is a sign of life too. Hand
/// arithmetic: claimable 60 s after the last one, not a millisecond
/// before.
#[tokio::test(flavor = "multi_thread")]
async fn a_player_who_plays_over_http_without_a_socket_is_not_away() {
    let clock = Clock::manual(T0);
    let s = server_with_clock(&clock).await;
    let (id, ta, tb) =
        friend_game(&s, json!({"mode": "friend", "colour": "A", "clock": "3+2"})).await;
    let mut wa = s.ws(&id, Some(&ta)).await;
    next_state(&mut wa).await;
    let wb = b_socket(&s, &id, &tb).await;
    play(&s, &id, &ta, "a3", 0).await;
    play(&s, &id, &tb, "b3", 1).await;
    drop(wb);
    away_b(&mut wa, true).await;
    // From here (t = 0) B has no socket: A and B each play 6 sowings,
    // one every 5 s, B over HTTP only; B's last at t = 60 s.
    for _ in 0..6 {
        for t in [&ta, &tb] {
            clock.advance(Duration::from_secs(5));
            let (a, n) = a_sowing(&s, &id, t).await;
            play(&s, &id, t, &a, n).await;
        }
    }
    // t = 65 s: 65 s since the socket closed, 5 s since B acted.
    clock.advance(Duration::from_secs(5));
    let (st, e) = claim_win(&s, &id, &ta).await;
    assert_eq!(st, 409, "B acted 5 s ago: {e}");
    let (_, v) = get(&bot(), &s, &id).await;
    assert_eq!(v["status"], "playing");
    assert_eq!(v["away"]["B"], 5_000, "away since his last action");
    // t = 110 s: B reads the game with his token (the app's poll).
    clock.advance(Duration::from_secs(45));
    get_as(&bot(), &s, &id, &tb).await;
    clock.advance(Duration::from_millis(59_999));
    let (st, e) = claim_win(&s, &id, &ta).await;
    assert_eq!(st, 409, "a millisecond too soon after B's read: {e}");
    // A's own reads are no sign of life of B's.
    get_as(&bot(), &s, &id, &ta).await;
    clock.advance(Duration::from_millis(1));
    let (st, v) = claim_win(&s, &id, &ta).await;
    assert_eq!(st, 200, "60 s after B's last sign of life: {v}");
    assert_eq!(result_of(&v).reason, "left");
    assert_eq!(result_of(&v).winner.as_deref(), Some("A"));
}
