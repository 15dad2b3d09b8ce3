//! Issue 13, ratings on the server: rated games between accounts only,
//! with a clock; a rated game's end moves both players' Glicko-2 ratings
//! of its pace once (checked against hand-derived values: two new players,
//! 1500 ± 350, volatility 0.06, the winner goes to 1662.31 ± 290.32, the
//! loser to 1337.69 ± 290.32, as an independent reference computes them);
//! the player's page and the leaderboard show them. On PostgreSQL too when
//! `GORE_TEST_POSTGRES` is set.

mod common;

use std::time::Duration;

use common::*;
use gore_server::domain::clock::Clock;
use serde_json::{json, Value};

/// A fixed start for the manual clock (2026-12-01, Unix ms).
const T0: i64 = 1_796_083_200_000;

async fn post(s: &Server, cookie: &str, path: &str, body: Value) -> (u16, Value, Option<String>) {
    let r = bot()
        .post(s.at(path))
        .header("cookie", cookie)
        .json(&body)
        .send()
        .await
        .unwrap();
    let st = r.status().as_u16();
    let c = r
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(str::to_string);
    (st, r.json().await.unwrap_or(Value::Null), c)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 0.6
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rated_game_moves_both_ratings_once() {
    let s = Server::start(0).await;
    let awa = account(&s, "Awa").await;
    let yao = account(&s, "Yao").await;
    // Anonymous players, and untimed games, are not rated.
    let anon = visitor_cookie(&s).await;
    let (st, e, _) = post(
        &s,
        &anon,
        "/api/lobby/seek",
        json!({"clock": "5+3", "rated": true}),
    )
    .await;
    assert_eq!(st, 401, "{e}");
    let (st, e, _) = post(
        &s,
        &awa,
        "/api/lobby/challenges",
        json!({"clock": "none", "rated": true}),
    )
    .await;
    assert_eq!(st, 400, "{e}");
    assert!(error_of(&e).message.starts_with("clock:"), "{e}");
    // A challenge waits while its creator is in the lobby (issue 25).
    let mut in_lobby = lobby_ws(&s, &awa).await;
    next_of(&mut in_lobby, "hello").await;
    let (st, v, _) = post(
        &s,
        &awa,
        "/api/lobby/challenges",
        json!({"clock": "5+3", "rated": true}),
    )
    .await;
    assert_eq!(st, 201, "{v}");
    let challenge = v["waiting"].as_str().unwrap().to_string();
    let (st, e, _) = post(
        &s,
        &anon,
        &format!("/api/lobby/challenges/{challenge}/accept"),
        json!({}),
    )
    .await;
    assert_eq!(
        st, 401,
        "an anonymous player cannot accept a rated challenge: {e}"
    );
    let (_, lobby) = get_with(&s, &awa, "/api/lobby").await;
    assert_eq!(lobby["challenges"][0]["rating"], "1500?", "{lobby}");
    // Quick pairing, rated, at 5+3: both accounts, on their sockets.
    let mut wa = lobby_ws(&s, &awa).await;
    let mut wy = lobby_ws(&s, &yao).await;
    next_of(&mut wa, "hello").await;
    next_of(&mut wy, "hello").await;
    send(
        &mut wa,
        json!({"type": "seek", "clock": "5+3", "rated": true}),
    )
    .await;
    next_of(&mut wa, "waiting").await;
    send(
        &mut wy,
        json!({"type": "seek", "clock": "5+3", "rated": true}),
    )
    .await;
    let game = next_of(&mut wy, "paired").await["game"]
        .as_str()
        .unwrap()
        .to_string();
    let (_, va) = get_with(&s, &awa, &format!("/api/games/{game}")).await;
    assert_eq!(va["rated"], true);
    assert_eq!(va["seats"]["A"]["rating"], "1500?");
    assert_eq!(va["seats"]["B"]["rating"], "1500?");
    let awa_seat = va["you"].as_str().unwrap().to_string();
    // Each makes an action (before that a resignation aborts: issue 25),
    // then Awa resigns: Yao wins.
    both_act(&s, &game, &awa, &yao).await;
    let (st, _, _) = post(&s, &awa, &format!("/api/games/{game}/resign"), json!({})).await;
    assert_eq!(st, 200);
    // Rated once: the server's own task or this call, whichever is first.
    s.state.games().ratings().settle(&game).await.unwrap();
    assert!(
        !s.state.games().ratings().settle(&game).await.unwrap(),
        "not twice"
    );
    let (st, py) = get_with(&s, &awa, "/api/players/Yao").await;
    assert_eq!(st, 200, "{py}");
    let fast = &py["ratings"][0];
    assert_eq!(fast["pace"], "fast");
    assert_eq!(fast["shown"], "1662?");
    assert_eq!(
        (fast["games"].as_u64(), fast["provisional"].as_bool()),
        (Some(1), Some(true))
    );
    assert_eq!(fast["deviation"], 290);
    let (_, pa) = get_with(&s, &awa, "/api/players/awa").await;
    assert_eq!(pa["ratings"][0]["shown"], "1338?", "{pa}");
    assert_eq!(pa["history"].as_array().unwrap().len(), 1);
    assert!(close(pa["history"][0]["rating"].as_f64().unwrap(), 1338.0));
    let line = &pa["games"][0];
    assert_eq!(
        (line["id"].as_str(), line["result"].as_str()),
        (Some(game.as_str()), Some("loss"))
    );
    assert_eq!(line["seat"], awa_seat.as_str());
    assert_eq!(line["opponent"], "Yao");
    // Yao has an account: his page is linked.
    assert_eq!(line["opponent_account"], "Yao", "{line}");
    assert_eq!(py["games"][0]["result"], "win");
    // The leaderboard of the fast pace: Yao first.
    let (_, board) = get_with(&s, &awa, "/api/leaderboard/fast").await;
    let names: Vec<&str> = board
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Yao", "Awa"]);
    let (st, _) = get_with(&s, &awa, "/api/leaderboard/blitz").await;
    assert_eq!(st, 400);
    assert_eq!(get_with(&s, &awa, "/api/players/Nobody").await.0, 404);
}

/// A player's page counts his results against each AI level.
#[tokio::test(flavor = "multi_thread")]
async fn the_page_counts_results_against_the_ai() {
    let s = Server::start(0).await;
    let koffi = account(&s, "Koffi").await;
    for _ in 0..2 {
        let (st, g, _) = post(
            &s,
            &koffi,
            "/api/games",
            json!({"mode": "ai", "level": 2, "colour": "A"}),
        )
        .await;
        assert_eq!(st, 201, "{g}");
        let id = g["id"].as_str().unwrap();
        post(&s, &koffi, &format!("/api/games/{id}/resign"), json!({})).await;
    }
    let (_, p) = get_with(&s, &koffi, "/api/players/Koffi").await;
    assert_eq!(
        p["ai"],
        json!([{"level": 2, "wins": 0, "draws": 0, "losses": 2}]),
        "{p}"
    );
    assert_eq!(p["games"][0]["opponent"], "gore-ai level 2");
    assert!(p["games"][0].get("opponent_account").is_none(), "{p}");
    assert_eq!(
        p["ratings"],
        json!([]),
        "games against the AI are not rated"
    );
}

/// `first` seeks `clock` on his lobby socket, then `second` on his: the
/// game they are paired in (rated if `rated`), and their sockets (kept
/// open: a socket closing withdraws its session's seeks, the next one's
/// too if it closed late).
async fn paired(
    s: &Server,
    first: &str,
    second: &str,
    clock: &str,
    rated: bool,
) -> (String, [Ws; 2]) {
    let mut w1 = lobby_ws(s, first).await;
    let mut w2 = lobby_ws(s, second).await;
    next_of(&mut w1, "hello").await;
    next_of(&mut w2, "hello").await;
    send(
        &mut w1,
        json!({"type": "seek", "clock": clock, "rated": rated}),
    )
    .await;
    next_of(&mut w1, "waiting").await;
    send(
        &mut w2,
        json!({"type": "seek", "clock": clock, "rated": rated}),
    )
    .await;
    let game = next_of(&mut w2, "paired").await["game"]
        .as_str()
        .unwrap()
        .to_string();
    next_of(&mut w1, "paired").await;
    (game, [w1, w2])
}

/// The first legal action of game `id`, played by the seat of `cookie`
/// (who must be to act): the state after it.
async fn act_first_legal(s: &Server, cookie: &str, id: &str) -> Value {
    let (_, v) = get_with(s, cookie, &format!("/api/games/{id}")).await;
    let action = legal(&v)[0].clone();
    let (st, after) = post_with(
        s,
        cookie,
        &format!("/api/games/{id}/actions"),
        json!({"action": action, "ply": ply(&v)}),
    )
    .await;
    assert_eq!(st, 200, "{after}");
    after
}

/// Who of the two cookies is to act in game `id`: (to act, the other).
async fn to_act<'a>(s: &Server, id: &str, a: &'a str, b: &'a str) -> (&'a str, &'a str) {
    let (_, v) = get_with(s, a, &format!("/api/games/{id}")).await;
    if legal(&v).is_empty() {
        (b, a)
    } else {
        (a, b)
    }
}

/// Actions of `a` and `b` in game `id` (each the first legal one) until
/// each has made one.
async fn both_act(s: &Server, id: &str, a: &str, b: &str) {
    let mut acted = [false, false];
    while acted != [true, true] {
        let (who, _) = to_act(s, id, a, b).await;
        act_first_legal(s, who, id).await;
        acted[usize::from(who == b)] = true;
    }
}

/// Issue 25 item 9, the rating farm: a feeder who resigns before each
/// player has made an action gives nothing. The game ends aborted (no
/// winner, no result) and both ratings stay unrated; once each has made
/// an action, a resignation is rated as before (1662? and 1338?, the
/// hand-derived figures of the first test).
#[tokio::test(flavor = "multi_thread")]
async fn a_resignation_before_both_have_acted_is_an_unrated_abort() {
    let s = Server::start(0).await;
    let booster = account(&s, "Booster").await;
    let feeder = account(&s, "Feeder").await;
    let (game, _w) = paired(&s, &booster, &feeder, "5+3", true).await;
    let (st, v, _) = post(&s, &feeder, &format!("/api/games/{game}/resign"), json!({})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(result_of(&v).reason, "abort", "{v}");
    assert_eq!(result_of(&v).winner, None, "{v}");
    assert!(!s.state.games().ratings().settle(&game).await.unwrap());
    for name in ["Booster", "Feeder"] {
        let (_, p) = get_with(&s, &booster, &format!("/api/players/{name}")).await;
        assert_eq!(p["ratings"], json!([]), "{name}: {p}");
        assert_eq!(p["games"][0]["result"], Value::Null, "{name}: {p}");
    }
    let (_, board) = get_with(&s, &booster, "/api/leaderboard/fast").await;
    assert_eq!(board, json!([]));
    // One action of the first to act only: still an abort.
    let (game, _w2) = paired(&s, &booster, &feeder, "5+3", true).await;
    let (first, _) = to_act(&s, &game, &booster, &feeder).await;
    act_first_legal(&s, first, &game).await;
    let (st, v, _) = post(&s, first, &format!("/api/games/{game}/resign"), json!({})).await;
    assert_eq!((st, v["result"]["reason"].as_str()), (200, Some("abort")));
    // Each has acted: a resignation is rated.
    let (game, _w3) = paired(&s, &booster, &feeder, "5+3", true).await;
    both_act(&s, &game, &booster, &feeder).await;
    let (st, v, _) = post(&s, &feeder, &format!("/api/games/{game}/resign"), json!({})).await;
    assert_eq!((st, v["result"]["reason"].as_str()), (200, Some("resign")));
    s.state.games().ratings().settle(&game).await.unwrap();
    let (_, pb) = get_with(&s, &booster, "/api/players/Booster").await;
    assert_eq!(pb["ratings"][0]["shown"], "1662?", "{pb}");
    let (_, pf) = get_with(&s, &booster, "/api/players/Feeder").await;
    assert_eq!(pf["ratings"][0]["shown"], "1338?", "{pf}");
}

/// Issue 25 item 9: one account's two sessions (two browsers) never pair
/// with each other, rated or casual: the second seek waits, and neither
/// accepts the other's.
#[tokio::test(flavor = "multi_thread")]
async fn one_account_never_pairs_with_itself() {
    let s = Server::start(0).await;
    let one = account(&s, "Solo").await;
    let two = log_in(&s, "Solo").await;
    let mut w1 = lobby_ws(&s, &one).await;
    let mut w2 = lobby_ws(&s, &two).await;
    let me = next_of(&mut w1, "hello").await["you"].clone();
    assert_eq!(next_of(&mut w2, "hello").await["you"], me);
    for rated in [true, false] {
        send(
            &mut w1,
            json!({"type": "seek", "clock": "5+3", "rated": rated}),
        )
        .await;
        next_of(&mut w1, "waiting").await;
        send(
            &mut w2,
            json!({"type": "seek", "clock": "5+3", "rated": rated}),
        )
        .await;
        let m = next_of_any(&mut w2, &["waiting", "paired", "error"]).await;
        assert_eq!(m["type"], "waiting", "rated {rated}: {m}");
        let theirs = m["id"].as_str().unwrap().to_string();
        let (st, e, _) = post(
            &s,
            &one,
            &format!("/api/lobby/challenges/{theirs}/accept"),
            json!({}),
        )
        .await;
        assert_eq!(st, 409, "rated {rated}: {e}");
    }
}

/// Issue 25 item 9: a player who aborts 3 games within an hour (by hand,
/// or by resigning a rated game before both have acted) is kept out of the lobby until
/// the first of them is an hour old: seeking, posting and accepting are
/// refused with the rule; his opponent is not. Time is a manual clock.
#[tokio::test(flavor = "multi_thread")]
async fn repeated_aborts_keep_a_player_out_of_the_lobby_for_an_hour() {
    let clock = Clock::manual(T0);
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_in(&dir);
    config.clock = clock.clone();
    let s = Server::start_with(dir, config).await;
    let quitter = account(&s, "Quitter").await;
    let patient = account(&s, "Patient").await;
    // Aborts at T0, T0 + 60 s and T0 + 120 s.
    let mut sockets = Vec::new();
    for path in ["abort", "resign", "resign"] {
        let (game, ws) = paired(&s, &patient, &quitter, "5+3", true).await;
        sockets.push(ws);
        let (st, v, _) = post(
            &s,
            &quitter,
            &format!("/api/games/{game}/{path}"),
            json!({}),
        )
        .await;
        assert_eq!(
            (st, v["result"]["reason"].as_str()),
            (200, Some("abort")),
            "{v}"
        );
        clock.advance(Duration::from_secs(60));
    }
    let mut wq = lobby_ws(&s, &quitter).await;
    let mut wp = lobby_ws(&s, &patient).await;
    next_of(&mut wq, "hello").await;
    next_of(&mut wp, "hello").await;
    let refused = |e: &Value| {
        e["code"] == "too_many_aborts"
            && e["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("abort limit"))
    };
    send(&mut wq, json!({"type": "seek", "clock": "5+3"})).await;
    let e = next_of(&mut wq, "error").await["error"].clone();
    assert!(refused(&e), "{e}");
    send(&mut wq, json!({"type": "challenge", "clock": "5+3"})).await;
    let e = next_of(&mut wq, "error").await["error"].clone();
    assert!(refused(&e), "{e}");
    // His opponent seeks as before; the quitter may not accept.
    send(&mut wp, json!({"type": "seek", "clock": "10+5"})).await;
    let id = next_of(&mut wp, "waiting").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (st, e, _) = post(
        &s,
        &quitter,
        &format!("/api/lobby/challenges/{id}/accept"),
        json!({}),
    )
    .await;
    assert_eq!(st, 429, "{e}");
    assert!(refused(&e["error"]), "{e}");
    // At T0 + 1 h less 1 ms the first abort is within the hour; at T0 + 1 h
    // it is not: two left, he is back.
    clock.advance(Duration::from_millis(3_600_000 - 180_000 - 1));
    send(&mut wq, json!({"type": "seek", "clock": "5+3"})).await;
    let e = next_of(&mut wq, "error").await["error"].clone();
    assert!(refused(&e), "{e}");
    clock.advance(Duration::from_millis(1));
    send(&mut wq, json!({"type": "seek", "clock": "5+3"})).await;
    next_of(&mut wq, "waiting").await;
}

async fn next_of_any(ws: &mut Ws, kinds: &[&str]) -> Value {
    loop {
        let m = next_msg(ws).await;
        if kinds.iter().any(|k| m["type"] == *k) {
            return m;
        }
    }
}

/// The seats of a `state` or `update` message.
fn seats_of(m: &Value) -> Option<&Value> {
    match m["type"].as_str() {
        Some("state") => Some(&m["state"]["seats"]),
        Some("update") => Some(&m["update"]["seats"]),
        _ => None,
    }
}

/// Issue 27 point 7: a rated game's page shows each player's change at
/// its end. Its seats say `rating_change: null` while it goes on; once it
/// is rated the server sends the state again, each seat with the rating
/// after the game and the change (+162 and −162: the hand-derived figures
/// of the first test), on the sockets and in `GET`. Unrated games have no
/// such field.
#[tokio::test(flavor = "multi_thread")]
async fn a_rated_games_end_shows_each_players_change() {
    let s = Server::start(0).await;
    let awa = account(&s, "Awa").await;
    let yao = account(&s, "Yao").await;
    let (game, _w) = paired(&s, &awa, &yao, "5+3", true).await;
    both_act(&s, &game, &awa, &yao).await;
    let (_, v) = get_with(&s, &awa, &format!("/api/games/{game}")).await;
    for p in ["A", "B"] {
        assert_eq!(v["seats"][p]["rating"], "1500?", "{v}");
        assert!(
            v["seats"][p]
                .as_object()
                .unwrap()
                .get("rating_change")
                .is_some_and(Value::is_null),
            "null while the game goes on: {v}"
        );
    }
    let awa_seat = v["you"].as_str().unwrap().to_string();
    let yao_seat = if awa_seat == "A" { "B" } else { "A" };
    let mut watcher = s.ws(&game, None).await;
    next_of(&mut watcher, "state").await;
    let (st, _, _) = post(&s, &awa, &format!("/api/games/{game}/resign"), json!({})).await;
    assert_eq!(st, 200);
    // The server rates the game in a task of its own, then says so.
    let seats = loop {
        let m = next_msg(&mut watcher).await;
        if let Some(seats) = seats_of(&m) {
            if !seats["A"]["rating_change"].is_null() && !seats["B"]["rating_change"].is_null() {
                break seats.clone();
            }
        }
    };
    assert_eq!(
        seats[yao_seat]["rating_change"],
        json!({"after": "1662?", "change": 162}),
        "{seats}"
    );
    assert_eq!(
        seats[&awa_seat]["rating_change"],
        json!({"after": "1338?", "change": -162}),
        "{seats}"
    );
    // The rating at the start stays what it was.
    assert_eq!(seats["A"]["rating"], "1500?");
    let (_, v) = get_with(&s, &yao, &format!("/api/games/{game}")).await;
    assert_eq!(v["seats"], seats, "GET says the same");
    // An unrated game between the same accounts has no such field.
    let (casual, _w2) = paired(&s, &awa, &yao, "5+3", false).await;
    let (_, v) = get_with(&s, &awa, &format!("/api/games/{casual}")).await;
    for p in ["A", "B"] {
        assert!(
            v["seats"][p].get("rating_change").is_none(),
            "no rating change in a casual game: {v}"
        );
    }
}
