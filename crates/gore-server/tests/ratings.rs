//! Issue 13, ratings on the server: rated games between accounts only,
//! with a clock; a rated game's end moves both players' Glicko-2 ratings
//! of its pace once (checked against hand-derived values: two new players,
//! 1500 ± 350, volatility 0.06, the winner goes to 1662.31 ± 290.32, the
//! loser to 1337.69 ± 290.32, as an independent reference computes them);
//! the player's page and the leaderboard show them. On PostgreSQL too when
//! `GORE_TEST_POSTGRES` is set.

mod common;

use common::*;
use serde_json::{json, Value};

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

/// An account: its session cookie.
async fn account(s: &Server, name: &str) -> String {
    let v = visitor_cookie(s).await;
    let (st, body, c) = post(
        s,
        &v,
        "/api/account/signup",
        json!({"username": name, "password": "long enough pass"}),
    )
    .await;
    assert_eq!(st, 201, "{body}");
    c.unwrap()
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
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("clock:"),
        "{e}"
    );
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
    // Awa resigns: Yao wins.
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
    assert_eq!(
        p["ratings"],
        json!([]),
        "games against the AI are not rated"
    );
}
