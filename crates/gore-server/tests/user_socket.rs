//! The user socket (issue 36, "one event stream per player"): every page
//! opens `GET /api/user/ws` with its session, and the player's own events
//! reach it, the ones the Bot API's `/api/stream/event` reads. An arena's
//! pairing reaches both players' sockets with its source and tournament,
//! and so do the end of their game and the next pairing after it, while
//! they are on no game's page (a player reading his result). On
//! PostgreSQL too when `GORE_TEST_POSTGRES` is set.

mod common;

use common::*;
use gore_server::domain::clock::Clock;
use serde_json::{json, Value};

/// A fixed start for the manual clock (2026-12-01, Unix ms).
const T0: i64 = 1_796_083_200_000;

/// A player's public id, as `GET /api/me` says it to his session.
async fn id_of(s: &Server, cookie: &str) -> String {
    let (st, v) = get_with(s, cookie, "/api/me").await;
    assert_eq!(st, 200, "{v}");
    v["id"].as_str().unwrap().to_string()
}

/// The next `gameStart` of a user socket, or a `gameFinish` (others
/// skipped).
async fn next_game_event(ws: &mut Ws) -> Value {
    loop {
        let m = next_msg(ws).await;
        if m["type"] == "gameStart" || m["type"] == "gameFinish" {
            return m;
        }
    }
}

/// A server on a manual clock at [`T0`] and two new accounts, each with
/// his user socket open and its hello read (naming him).
async fn two_on_sockets(clock: &Clock, a: &str, b: &str) -> (Server, [String; 2], [Ws; 2]) {
    let dir = tempfile::tempdir().unwrap();
    let config = gore_server::Config {
        clock: clock.clone(),
        ..config_in(&dir)
    };
    let s = Server::start_with(dir, config).await;
    let cookies = [account(&s, a).await, account(&s, b).await];
    let mut sockets = [
        user_ws(&s, &cookies[0]).await,
        user_ws(&s, &cookies[1]).await,
    ];
    for (ws, c) in sockets.iter_mut().zip(&cookies) {
        let hello = next_of(ws, "hello").await;
        assert_eq!(hello["you"], id_of(&s, c).await.as_str(), "{hello}");
    }
    (s, cookies, sockets)
}

/// A tournament made by the first of `cookies` from `body`, joined by
/// each: its id.
async fn joined_by(s: &Server, cookies: &[String], body: Value) -> String {
    let (st, t) = post_with(s, &cookies[0], "/api/tournaments", body).await;
    assert_eq!(st, 201, "{t}");
    let tid = t["id"].as_str().unwrap().to_string();
    for c in cookies {
        let (st, v) = post_with(s, c, &format!("/api/tournaments/{tid}/join"), json!({})).await;
        assert_eq!(st, 200, "{v}");
    }
    tid
}

#[tokio::test(flavor = "multi_thread")]
async fn arena_pairings_reach_both_players_on_their_user_sockets() {
    let clock = Clock::manual(T0);
    let (s, [irati, unai], [mut wi, mut wu]) = two_on_sockets(&clock, "Irati", "Unai").await;
    let tid = joined_by(
        &s,
        &[irati.clone(), unai.clone()],
        json!({"name": "Evening", "kind": "arena", "clock": "3+2", "starts_at": T0, "minutes": 30}),
    )
    .await;
    let tid = tid.as_str();
    // Both hear of the same game, against each other, from the arena.
    let (ei, eu) = (
        next_game_event(&mut wi).await,
        next_game_event(&mut wu).await,
    );
    for (e, them) in [(&ei, "Unai"), (&eu, "Irati")] {
        assert_eq!(e["type"], "gameStart", "{e}");
        assert_eq!(e["game"]["source"], "arena", "{e}");
        assert_eq!(e["game"]["tournamentId"], tid, "{e}");
        assert_eq!(e["game"]["opponent"]["name"], them, "{e}");
    }
    let game = ei["game"]["id"].as_str().unwrap().to_string();
    assert_eq!(eu["game"]["id"], game.as_str());
    assert_eq!(ei["game"]["url"], format!("/g/{game}").as_str());
    let colours = [&ei, &eu].map(|e| e["game"]["colour"].as_str().unwrap().to_string());
    assert!(
        colours == ["A", "B"] || colours == ["B", "A"],
        "{colours:?}"
    );

    // Irati wins; both stay in the arena and read their result on no
    // game's page: the end, then the next pairing, reach both sockets.
    win(&s, &game, &irati, &unai).await;
    for ws in [&mut wi, &mut wu] {
        let end = next_game_event(ws).await;
        assert_eq!(end["type"], "gameFinish", "{end}");
        assert_eq!(end["game"]["id"], game.as_str(), "{end}");
        let next = next_game_event(ws).await;
        assert_eq!(next["type"], "gameStart", "{next}");
        assert_eq!(next["game"]["source"], "arena", "{next}");
        assert_ne!(next["game"]["id"], game.as_str(), "a new game: {next}");
    }
}

/// A Swiss round's pairing reaches its players as its round's game, named
/// by its source and its event (lichess's `swissId`), not as a lobby
/// pairing.
#[tokio::test(flavor = "multi_thread")]
async fn a_swiss_round_reaches_its_players_on_their_user_sockets() {
    let clock = Clock::manual(T0);
    let (s, cookies, [mut wa, mut wi]) = two_on_sockets(&clock, "Ane", "Iker").await;
    let tid = joined_by(
        &s,
        &cookies,
        json!({"name": "Sunday", "kind": "swiss", "clock": "3+2", "starts_at": T0 + 60_000,
               "rounds": 3}),
    )
    .await;
    let tid = tid.as_str();
    // Round 1 is paired at the start.
    clock.advance(std::time::Duration::from_millis(60_000));
    s.state.tournaments().tick().await;
    let (ea, ei) = (
        next_game_event(&mut wa).await,
        next_game_event(&mut wi).await,
    );
    for (e, them) in [(&ea, "Iker"), (&ei, "Ane")] {
        assert_eq!(e["type"], "gameStart", "{e}");
        assert_eq!(e["game"]["source"], "swiss", "{e}");
        assert_eq!(e["game"]["swissId"], tid, "{e}");
        assert_eq!(e["game"].get("tournamentId"), None, "an arena's name: {e}");
        assert_eq!(e["game"]["opponent"]["name"], them, "{e}");
    }
    assert_eq!(ea["game"]["id"], ei["game"]["id"]);
}

/// A page with a session and nothing going on: the hello, then silence
/// but for pongs; without a session, refused before the upgrade.
#[tokio::test(flavor = "multi_thread")]
async fn the_user_socket_needs_a_session_and_answers_pings() {
    let s = Server::start(0).await;
    let cookie = visitor_cookie(&s).await;
    let mut ws = user_ws(&s, &cookie).await;
    let hello = next_msg(&mut ws).await;
    assert_eq!(hello["type"], "hello", "{hello}");
    assert_eq!(hello["you"], id_of(&s, &cookie).await.as_str());
    send(&mut ws, json!({"type": "ping"})).await;
    assert_eq!(next_msg(&mut ws).await["type"], "pong");
    send(&mut ws, json!({"type": "dance"})).await;
    assert_eq!(next_msg(&mut ws).await["type"], "error");

    let r = bot()
        .get(s.at("/api/user/ws"))
        .header("connection", "upgrade")
        .header("upgrade", "websocket")
        .header("sec-websocket-version", "13")
        .header("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ==")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
}
