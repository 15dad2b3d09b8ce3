//! Issue 29, berserk in an arena (docs/RULES.md, "Tournaments"): before
//! his first action a player halves his own clock and drops its
//! increment; the halved clock is stored with the game (another server
//! on the database sees and enforces it), runs out at half the time, and
//! a win with at least 5 actions of his own scores one point more, by a
//! table worked by hand. Refusals (not an arena game, a second time,
//! after his first action, not a player) are typed and change nothing.
//! The time is a manual clock. On PostgreSQL too when
//! `GORE_TEST_POSTGRES` is set.

mod common;

use std::time::Duration;

use common::*;
use gore_server::domain::clock::Clock;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// A fixed start for the manual clock (2026-12-01, Unix ms).
const T0: i64 = 1_796_083_200_000;

/// `x` and `y` (names, with their cookies) join the arena alone (the
/// others paused) and are paired; both pause again. Their game's id.
async fn pair(s: &Server, id: &str, x: (&str, &str), y: (&str, &str)) -> String {
    post_ok(s, x.1, &format!("/api/tournaments/{id}/join")).await;
    post_ok(s, y.1, &format!("/api/tournaments/{id}/join")).await;
    let path = format!("/api/tournaments/{id}");
    let d = wait_get(s, "", &path, |d| {
        let g = |n| line(d, n)["game"].as_str().map(str::to_string);
        g(x.0).is_some() && g(x.0) == g(y.0)
    })
    .await;
    post_ok(s, x.1, &format!("/api/tournaments/{id}/pause")).await;
    post_ok(s, y.1, &format!("/api/tournaments/{id}/pause")).await;
    line(&d, x.0)["game"].as_str().unwrap().to_string()
}

async fn game(s: &Server, cookie: &str, g: &str) -> Value {
    let (st, v) = get_with(s, cookie, &format!("/api/games/{g}")).await;
    assert_eq!(st, 200, "{v}");
    v
}

/// The caller's berserk: its status and answer.
async fn berserk(s: &Server, cookie: &str, g: &str) -> (u16, Value) {
    post_with(s, cookie, &format!("/api/games/{g}/berserk"), json!({})).await
}

/// A refused berserk: its reason; the game unchanged.
async fn refused(s: &Server, cookie: &str, g: &str) -> String {
    let before = game(s, "", g).await;
    let (st, v) = berserk(s, cookie, g).await;
    assert!(st >= 400, "{st}: {v}");
    let after = game(s, "", g).await;
    for k in ["berserk", "ply", "status", "clock"] {
        let (mut b, mut a) = (before[k].clone(), after[k].clone());
        // The clocks' figures are as of each message: the same time.
        for c in [&mut b, &mut a] {
            if let Some(o) = c.as_object_mut() {
                o.remove("now");
            }
        }
        assert_eq!(b, a, "{k} changed by a refused berserk: {v}");
    }
    v["error"]["reason"].as_str().unwrap_or("").to_string()
}

/// `winner` wins game `g` with exactly `n` actions of his own (n ≥ 1;
/// the loser acts in between), then `loser` resigns.
/// (Local, unlike common's `win`: the winner's own action count decides
/// the berserk point.)
async fn win_with(s: &Server, g: &str, winner: &str, loser: &str, n: u32) {
    let mut mine = 0;
    let mut theirs = 0;
    while mine < n || theirs == 0 {
        // The winner stops at n: the loser acts (or answers) meanwhile.
        let v = game(s, winner, g).await;
        if mine == n && !legal(&v).is_empty() {
            panic!("{g}: the winner is to act again before the loser has acted: {v}");
        }
        match act_once(s, g, winner, loser).await {
            0 => mine += 1,
            _ => theirs += 1,
        }
    }
    let (st, v) = post_with(s, loser, &format!("/api/games/{g}/resign"), json!({})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(result_of(&v).reason, "resign", "{v}");
}

/// The sheet of `name` in arena `id` as (berserk, berserk point, points)
/// per game.
async fn sheet(s: &Server, id: &str, d: &Value, name: &str) -> Vec<(bool, bool, u64)> {
    sheet_of(s, id, d, name).await["sheet"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["berserk"].as_bool().unwrap(),
                x["berserk_point"].as_bool().unwrap(),
                x["points"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The hand-worked table (RULES.md: a win 2, a draw 1, doubled on fire;
/// a berserk win with at least 5 actions of one's own 1 more):
///
/// | game | players                 | berserk | result                 | points          |
/// |------|-------------------------|---------|------------------------|-----------------|
/// | 1    | Ana (A to act) – Bea    | Ana     | Ana loses on time, 90 s | Ana 0, Bea 2    |
/// | 2    | Cai – Dan               | Cai     | Cai wins, 5 actions    | Cai 2+1, Dan 0  |
/// | 3    | Dan – Ana               | Dan     | Dan wins, 4 actions    | Dan 2, Ana 0    |
/// | 4    | Cai – Bea               | Cai     | Cai wins, 5 actions    | Cai 2+1, Bea 0  |
/// | 5    | Cai – Dan               | Cai     | Cai (on fire) wins, 6  | Cai 4+1, Dan 0  |
///
/// Totals: Cai 3+3+5 = 11 (on fire), Bea 2, Dan 2, Ana 0.
#[tokio::test(flavor = "multi_thread")]
async fn berserk_halves_the_clock_and_scores_by_the_hand_worked_table() {
    let clock = Clock::manual(T0);
    let dir = tempfile::tempdir().unwrap();
    let db = dir
        .path()
        .join("gore.sqlite3")
        .to_str()
        .unwrap()
        .to_string();
    let s = server_on_db(&clock, &db).await;
    let ana = account(&s, "Ana").await;
    let bea = account(&s, "Bea").await;
    let cai = account(&s, "Cai").await;
    let dan = account(&s, "Dan").await;
    let (st, v) = post_with(
        &s,
        &ana,
        "/api/tournaments",
        json!({"name": "Berserk 3+2", "kind": "arena", "clock": "3+2", "rules": "standard",
               "rated": true, "minutes": 60}),
    )
    .await;
    assert_eq!(st, 201, "{v}");
    let id = v["id"].as_str().unwrap().to_string();

    // Not an arena game: refused, typed.
    let (st, ai) = post_with(&s, &ana, "/api/games", json!({"mode": "ai"})).await;
    assert_eq!(st, 201, "{ai}");
    let ai_id = ai["id"].as_str().unwrap();
    let ai_token = ai["token"].as_str().unwrap();
    let r = bot()
        .post(s.at(&format!("/api/games/{ai_id}/berserk")))
        .bearer_auth(ai_token)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_client_error(), "an ai game");
    let v: Value = r.json().await.unwrap();
    assert_eq!(
        error_of(&v).reason.as_deref(),
        Some("berserk_not_arena"),
        "{v}"
    );

    // Game 1: Ana and Bea; whoever is A (to act first) goes berserk.
    let g1 = pair(&s, &id, ("Ana", &ana), ("Bea", &bea)).await;
    let you = game(&s, &ana, &g1).await["you"]
        .as_str()
        .unwrap()
        .to_string();
    let (x, y, xn, yn) = if you == "A" {
        (&ana, &bea, "Ana", "Bea")
    } else {
        (&bea, &ana, "Bea", "Ana")
    };
    let (xs, ys) = ("A", "B");
    let v = game(&s, x, &g1).await;
    assert_eq!(v["berserkable"][xs], true, "{v}");
    assert_eq!(v["berserk"][xs], false, "{v}");
    // Not a player of it (Cai, a spectator): refused.
    assert_eq!(refused(&s, &cai, &g1).await, "no_seat");
    assert_eq!(refused(&s, "", &g1).await, "no_seat");
    let (st, v) = berserk(&s, x, &g1).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["berserk"][xs], true, "{v}");
    assert_eq!(v["berserk"][ys], false, "{v}");
    assert_eq!(v["berserkable"][xs], false, "{v}");
    assert_eq!(v["clock"]["left"][xs], 90_000, "{v}");
    assert_eq!(v["clock"]["left"][ys], 180_000, "{v}");
    // Spectators see it; so does another server on the database (the
    // berserk is stored with the game: a restart keeps it).
    let seen = game(&s, "", &g1).await;
    assert_eq!(seen["berserk"][xs], true, "{seen}");
    let s2 = server_on_db(&clock, &db).await;
    let seen = game(&s2, "", &g1).await;
    assert_eq!(seen["berserk"][xs], true, "{seen}");
    assert_eq!(seen["clock"]["left"][xs], 90_000, "{seen}");
    // A second time: refused, nothing changed.
    assert_eq!(refused(&s, x, &g1).await, "berserk_already");
    // Each makes his first action; then Y may no longer go berserk.
    act_once(&s, &g1, x, y).await;
    act_once(&s, &g1, x, y).await;
    assert_eq!(refused(&s, y, &g1).await, "berserk_too_late");
    let v = game(&s, "", &g1).await;
    assert_eq!(v["berserkable"], json!({"A": false, "B": false}), "{v}");
    // X's clock runs: 90 s, no increment. At 89 s he still plays on...
    let v = game(&s, x, &g1).await;
    assert!(!legal(&v).is_empty(), "X is to act: {v}");
    clock.advance(Duration::from_millis(89_000));
    let v = game(&s2, "", &g1).await;
    assert_eq!(v["status"], "playing", "{v}");
    assert_eq!(v["clock"]["left"][xs], 1_000, "{v}");
    // ...and at 90 s he has lost on time (Y's three minutes untouched).
    clock.advance(Duration::from_millis(1_001));
    let v = wait_get(&s2, "", &format!("/api/games/{g1}"), |v| {
        v["status"] == "over"
    })
    .await;
    assert_eq!(result_of(&v).reason, "time", "{v}");
    assert_eq!(v["result"]["winner"], ys, "{v}");
    assert_eq!(v["clock"]["left"][ys], 180_000, "{v}");

    // Game 2: Cai berserks and wins with 5 actions: 3 points.
    let g2 = pair(&s, &id, ("Cai", &cai), ("Dan", &dan)).await;
    assert_eq!(berserk(&s, &cai, &g2).await.0, 200);
    win_with(&s, &g2, &cai, &dan, 5).await;
    // Game 3: Dan berserks and wins with 4 actions only: 2 points.
    let g3 = pair(&s, &id, ("Dan", &dan), ("Ana", &ana)).await;
    assert_eq!(berserk(&s, &dan, &g3).await.0, 200);
    win_with(&s, &g3, &dan, &ana, 4).await;
    // Game 4: Cai again, 5 actions: 3 (his second win: not doubled).
    let g4 = pair(&s, &id, ("Cai", &cai), ("Bea", &bea)).await;
    assert_eq!(berserk(&s, &cai, &g4).await.0, 200);
    win_with(&s, &g4, &cai, &bea, 5).await;
    // Game 5: Cai on fire, 6 actions: 4 + 1.
    let g5 = pair(&s, &id, ("Cai", &cai), ("Dan", &dan)).await;
    assert_eq!(berserk(&s, &cai, &g5).await.0, 200);
    win_with(&s, &g5, &cai, &dan, 6).await;

    let path = format!("/api/tournaments/{id}");
    let d = wait_get(&s, "", &path, |d| {
        d["playing"].as_array().unwrap().is_empty() && line(d, "Cai")["games"] == 3
    })
    .await;
    assert_eq!(sheet(&s, &id, &d, xn).await[0], (true, false, 0), "{d}");
    assert_eq!(
        sheet(&s, &id, &d, "Cai").await,
        [(true, true, 3), (true, true, 3), (true, true, 5)]
    );
    assert_eq!(sheet(&s, &id, &d, "Dan").await[1], (true, false, 2), "{d}");
    // The page counts the berserk points its lines no longer list.
    assert_eq!(line(&d, "Cai")["berserk_points"], 3, "{d}");
    assert_eq!(line(&d, xn)["berserk_points"], 0, "{d}");
    let (st, v) = get_with(&s, "", &format!("/api/tournaments/{id}/players/nobody")).await;
    assert_eq!(st, 404, "{v}");
    assert_eq!(
        error_of(&v).reason.as_deref(),
        Some("tournament_no_player"),
        "{v}"
    );
    // Game 1's winner is Bea when Ana was A (the table), else Ana.
    let score = |n: &str| line(&d, n)["score"].as_u64().unwrap();
    assert_eq!(
        [score("Cai"), score(yn), score("Dan"), score(xn)],
        [11, 2, 2, 0],
        "{d}"
    );
    assert_eq!(line(&d, "Cai")["on_fire"], true);
}

/// Berserk over the game socket (a person, by her browser session: every
/// socket sees it in an update) and through the Bot API (a BOT, by its
/// token, in an arena that allows BOTs); a second one is refused on each
/// path, over the socket as an error to that socket only.
#[tokio::test(flavor = "multi_thread")]
async fn berserk_over_the_socket_and_the_bot_api() {
    let clock = Clock::manual(T0);
    let dir = tempfile::tempdir().unwrap();
    let db = dir
        .path()
        .join("gore.sqlite3")
        .to_str()
        .unwrap()
        .to_string();
    let s = server_on_db(&clock, &db).await;
    let ana = account(&s, "Ana").await;
    let robo_cookie = account(&s, "Robo").await;
    let (st, v) = post_with(
        &s,
        &robo_cookie,
        "/api/account/tokens",
        json!({"description": "engine", "scopes": ["bot:play"]}),
    )
    .await;
    assert_eq!(st, 201, "{v}");
    let robo = v["token"].as_str().unwrap().to_string();
    let with_token = |path: String| {
        bot()
            .post(s.at(&path))
            .bearer_auth(&robo)
            .json(&json!({}))
            .send()
    };
    let r = with_token("/api/bot/account/upgrade".into()).await.unwrap();
    assert_eq!(r.status(), 200);
    let (st, v) = post_with(
        &s,
        &ana,
        "/api/tournaments",
        json!({"name": "Bots welcome", "clock": "3+2", "minutes": 60, "bots": true}),
    )
    .await;
    assert_eq!(st, 201, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let r = with_token(format!("/api/tournaments/{id}/join"))
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    post_ok(&s, &ana, &format!("/api/tournaments/{id}/join")).await;
    let d = wait_get(&s, "", &format!("/api/tournaments/{id}"), |d| {
        line(d, "Ana")["game"].is_string()
    })
    .await;
    let g = line(&d, "Ana")["game"].as_str().unwrap().to_string();
    let me = game(&s, &ana, &g).await["you"]
        .as_str()
        .unwrap()
        .to_string();
    let them = if me == "A" { "B" } else { "A" };

    // Ana's socket, by her session.
    let mut req = format!("ws://{}/api/games/{g}/ws", s.addr)
        .into_client_request()
        .unwrap();
    req.headers_mut().insert("cookie", ana.parse().unwrap());
    let (inner, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    let mut ws = Ws { inner, view: None };
    let first = next_state(&mut ws).await;
    assert_eq!(first["berserk"], json!({"A": false, "B": false}), "{first}");

    // The BOT through the Bot API: Ana's socket is told.
    let r = with_token(format!("/api/bot/game/{g}/berserk"))
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let seen = loop {
        let v = next_state(&mut ws).await;
        if v["berserk"][them] == true {
            break v;
        }
    };
    assert_eq!(seen["clock"]["left"][them], 90_000, "{seen}");
    assert_eq!(seen["clock"]["left"][&me], 180_000, "{seen}");
    let r = with_token(format!("/api/bot/game/{g}/berserk"))
        .await
        .unwrap();
    assert_eq!(r.status(), 409);
    let v: Value = r.json().await.unwrap();
    assert_eq!(
        error_of(&v).reason.as_deref(),
        Some("berserk_already"),
        "{v}"
    );

    // Ana over her socket.
    send(&mut ws, json!({"type": "berserk"})).await;
    let mine = loop {
        let v = next_state(&mut ws).await;
        if v["berserk"][&me] == true {
            break v;
        }
    };
    assert_eq!(mine["clock"]["left"][&me], 90_000, "{mine}");
    assert_eq!(
        mine["berserkable"],
        json!({"A": false, "B": false}),
        "{mine}"
    );
    send(&mut ws, json!({"type": "berserk"})).await;
    let e = next_error(&mut ws).await;
    assert_eq!(e["reason"], "berserk_already", "{e}");
}
