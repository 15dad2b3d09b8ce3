//! Issue 29, points 5 and 6: personal API tokens, BOT accounts, and the
//! Bot API (challenges, the event and game streams, acting in a game),
//! through real servers: on SQLite, and on PostgreSQL when
//! `GORE_TEST_POSTGRES` is set (tests/common).

mod common;

use std::time::Duration;

use common::*;
use serde_json::{json, Value};

/// `method path` with a bearer token and an optional JSON body.
async fn call(
    s: &Server,
    method: &str,
    path: &str,
    token: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let c = bot();
    let mut req = match method {
        "GET" => c.get(s.at(path)),
        "DELETE" => c.delete(s.at(path)),
        _ => c.post(s.at(path)),
    }
    .bearer_auth(token);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let r = req.send().await.unwrap();
    let st = r.status().as_u16();
    (st, r.json().await.unwrap_or(Value::Null))
}

/// The error's code and reason.
fn refusal(body: &Value) -> (String, String) {
    let e = &body["error"];
    (
        e["code"].as_str().unwrap_or("").to_string(),
        e["reason"].as_str().unwrap_or("").to_string(),
    )
}

/// Point 5: tokens are made with the session only, shown once, listed
/// without the token, authenticate as their account with their scopes,
/// and are refused malformed, unknown or revoked; an account with no
/// game becomes a BOT for good, marked in its views and kept out of the
/// lobby and the browser's games; one with games cannot.
#[tokio::test(flavor = "multi_thread")]
async fn tokens_and_bot_accounts() {
    let s = Server::start(0).await;
    let ada = account_browser(&s, "Ada").await;
    let t = api_token(&ada, &s, &["bot:play", "read"]).await;
    assert!(t.starts_with("gore_") && t.len() == 69, "{t}");

    // Listed without the token.
    let r = ada.get(s.at("/api/account/tokens")).send().await.unwrap();
    let list: Value = r.json().await.unwrap();
    assert_eq!(list["tokens"].as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list["tokens"][0]["scopes"], json!(["bot:play", "read"]));
    assert!(list["tokens"][0].get("token").is_none(), "{list}");
    assert!(
        !list.to_string().contains(&t[5..]),
        "the token is shown once"
    );

    // The token is the account.
    let (st, me) = call(&s, "GET", "/api/account", &t, None).await;
    assert_eq!(st, 200, "{me}");
    assert_eq!(me["username"], "Ada");
    assert_eq!(me["bot"], false);

    // Malformed, unknown, absent: 401, the same account untouched.
    let zeros = format!("gore_{}", "0".repeat(64));
    for bad in [
        "xyz",
        "gore_123",
        &zeros,
        &t[..68],
        "0123456789abcdef0123456789abcdef",
    ] {
        let (st, body) = call(&s, "POST", "/api/bot/account/upgrade", bad, None).await;
        assert_eq!(st, 401, "{bad}: {body}");
        assert_eq!(refusal(&body), ("unauthorized".into(), "bad_token".into()));
    }
    let r = bot().get(s.at("/api/stream/event")).send().await.unwrap();
    assert_eq!(r.status(), 401);

    // A token never makes nor lists tokens (the session cookie does).
    let (st, _) = call(
        &s,
        "POST",
        "/api/account/tokens",
        &t,
        Some(json!({"description": "more", "scopes": ["read"]})),
    )
    .await;
    assert_eq!(st, 401);
    let (st, _) = call(&s, "GET", "/api/account/tokens", &t, None).await;
    assert_eq!(st, 401);
    // Bad bodies name their field.
    for (body, field) in [
        (json!({"description": "x", "scopes": ["admin"]}), "scopes"),
        (json!({"description": "x", "scopes": []}), "scopes"),
        (
            json!({"description": "", "scopes": ["read"]}),
            "description",
        ),
    ] {
        let (st, b) = post_json(&ada, &s, "/api/account/tokens", body).await;
        assert_eq!(st, 400, "{b}");
        assert!(error_of(&b).message.starts_with(field), "{b}");
    }

    // A read-only token may not upgrade.
    let read = api_token(&ada, &s, &["read"]).await;
    let (st, body) = call(&s, "POST", "/api/bot/account/upgrade", &read, None).await;
    assert_eq!(st, 403, "{body}");
    assert_eq!(refusal(&body), ("forbidden".into(), "token_scope".into()));
    let (_, me) = call(&s, "GET", "/api/account", &t, None).await;
    assert_eq!(me["bot"], false, "nothing changed");

    // Upgraded for good (again: still a BOT).
    let (st, body) = call(&s, "POST", "/api/bot/account/upgrade", &t, None).await;
    assert_eq!(st, 200, "{body}");
    let (_, me) = call(&s, "GET", "/api/account", &t, None).await;
    assert_eq!(me["bot"], true);
    let (st, _) = call(&s, "POST", "/api/bot/account/upgrade", &t, None).await;
    assert_eq!(st, 200);
    let r = bot().get(s.at("/api/players/Ada")).send().await.unwrap();
    let page: Value = r.json().await.unwrap();
    assert_eq!(page["bot"], true, "{page}");

    // A BOT's browser: no lobby, no game of the site's.
    let (st, body) = post_json(&ada, &s, "/api/lobby/seek", json!({"clock": "5+3"})).await;
    assert_eq!(st, 403, "{body}");
    assert_eq!(refusal(&body), ("forbidden".into(), "bot_not_here".into()));
    let (st, body) = post_json(&ada, &s, "/api/games", json!({"mode": "ai"})).await;
    assert_eq!(st, 403, "{body}");
    assert_eq!(refusal(&body).1, "bot_not_here");

    // An account that has played cannot become a BOT.
    let bea = account_browser(&s, "Bea").await;
    create(&bea, &s, json!({"mode": "ai", "level": 1})).await;
    let tb = api_token(&bea, &s, &["bot:play"]).await;
    let (st, body) = call(&s, "POST", "/api/bot/account/upgrade", &tb, None).await;
    assert_eq!(st, 409, "{body}");
    assert_eq!(refusal(&body), ("refused".into(), "bot_has_games".into()));
    let (_, me) = call(&s, "GET", "/api/account", &tb, None).await;
    assert_eq!(me["bot"], false, "nothing changed");
    let r = bot().get(s.at("/api/players/Bea")).send().await.unwrap();
    let page: Value = r.json().await.unwrap();
    assert!(page.get("bot").is_none(), "{page}");

    // Revoked: 401 at once; someone else's token id: 404.
    let id = list["tokens"][0]["id"].as_str().unwrap();
    let r = bea
        .delete(s.at(&format!("/api/account/tokens/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404, "not Bea's");
    let r = ada
        .delete(s.at(&format!("/api/account/tokens/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    let (st, body) = call(&s, "GET", "/api/account", &t, None).await;
    assert_eq!(st, 401, "{body}");
    assert_eq!(refusal(&body).1, "bad_token");
}

/// Point 6: a person challenges a BOT through the API; the BOT hears it
/// on its event stream, declines one (the person hears why), sees one
/// withdrawn, accepts one; the game is the site's own (rated, timed), both
/// players hear `gameStart`; the BOT's game stream says `gameFull`, then
/// a `gameState` at each action; the person plays from the site, the BOT
/// through the API; every bad request is a clear error and changes
/// nothing; the BOT chats and resigns; both hear `gameFinish`. The
/// person's and the BOT's requests go to two servers on one database.
#[tokio::test(flavor = "multi_thread")]
async fn a_bot_plays_a_person_through_the_api() {
    let s1 = Server::start(0).await;
    // Two servers share a PostgreSQL database (a SQLite file is one
    // server's): then the person's requests go to the second.
    let second = match postgres_url() {
        Some(_) => {
            let db = s1.dir.path().join("gore.sqlite3");
            let dir = tempfile::tempdir().unwrap();
            Some(Server::start_on(dir, db.to_str().unwrap().into(), 0).await)
        }
        None => None,
    };
    let s2 = second.as_ref().unwrap_or(&s1);

    let robo = account_browser(&s1, "Robo").await;
    let bt = api_token(&robo, &s1, &["bot:play"]).await;
    let (st, _) = call(&s1, "POST", "/api/bot/account/upgrade", &bt, None).await;
    assert_eq!(st, 200);
    let carmen = account_browser(s2, "Carmen").await;
    let ct = api_token(&carmen, s2, &["read"]).await;
    let eve = account_browser(s2, "Eve").await;
    let et = api_token(&eve, s2, &["bot:play"]).await;

    // The BOT's stream on server 1, the person's on server 2.
    let mut bot_events = Lines::open(&s1, "/api/stream/event", &bt).await;
    let mut her_events = Lines::open(s2, "/api/stream/event", &ct).await;

    // Bad challenges: unknown player, oneself, rules, clock, rated untimed.
    for (path, body, code) in [
        ("/api/challenge/Nobody", json!({}), 404),
        ("/api/challenge/Carmen", json!({}), 409),
        ("/api/challenge/Robo", json!({"rules": "seeds=99"}), 400),
        ("/api/challenge/Robo", json!({"clock": "5+x"}), 400),
        ("/api/challenge/Robo", json!({"rated": true}), 400),
        ("/api/challenge/Robo", json!({"colour": "C"}), 400),
    ] {
        let (st, b) = post_json(&carmen, s2, path, body).await;
        assert_eq!(st, code, "{path}: {b}");
    }

    // Declined, with a reason the challenger hears.
    let (st, c) = post_json(&carmen, s2, "/api/challenge/Robo", json!({"clock": "5+3"})).await;
    assert_eq!(st, 201, "{c}");
    let id = c["challenge"]["id"].as_str().unwrap().to_string();
    let e = bot_events.next_of("challenge").await;
    assert_eq!(e["challenge"]["id"], id.as_str());
    assert_eq!(e["challenge"]["challenger"]["name"], "Carmen");
    assert_eq!(e["challenge"]["destUser"]["bot"], true);
    assert_eq!(e["challenge"]["clock"], "5+3");
    let (st, b) = call(
        &s1,
        "POST",
        &format!("/api/challenge/{id}/decline"),
        &bt,
        Some(json!({"reason": "whatever"})),
    )
    .await;
    assert_eq!(st, 400, "a reason of the list: {b}");
    let (st, _) = call(
        &s1,
        "POST",
        &format!("/api/challenge/{id}/decline"),
        &bt,
        Some(json!({"reason": "tooFast"})),
    )
    .await;
    assert_eq!(st, 200);
    let e = her_events.next_of("challengeDeclined").await;
    assert_eq!(e["challenge"]["declineReason"], "tooFast");
    let (st, b) = call(
        &s1,
        "POST",
        &format!("/api/challenge/{id}/accept"),
        &bt,
        None,
    )
    .await;
    assert_eq!((st, refusal(&b).1), (410, "challenge_gone".into()), "{b}");

    // Withdrawn: the BOT hears it.
    let (_, c) = post_json(&carmen, s2, "/api/challenge/Robo", json!({})).await;
    let id = c["challenge"]["id"].as_str().unwrap().to_string();
    bot_events.next_of("challenge").await;
    let (st, _) = post_json(
        &carmen,
        s2,
        &format!("/api/challenge/{id}/cancel"),
        json!({}),
    )
    .await;
    assert_eq!(st, 200);
    let e = bot_events.next_of("challengeCanceled").await;
    assert_eq!(e["challenge"]["id"], id.as_str());

    // Accepted: a rated, timed game of the site's; Carmen plays A.
    let (st, c) = post_json(
        &carmen,
        s2,
        "/api/challenge/Robo",
        json!({"clock": "10+5", "rated": true, "colour": "A"}),
    )
    .await;
    assert_eq!(st, 201, "{c}");
    let id = c["challenge"]["id"].as_str().unwrap().to_string();
    bot_events.next_of("challenge").await;
    // Someone else may not accept it, nor Carmen her own.
    let (st, _) = call(
        s2,
        "POST",
        &format!("/api/challenge/{id}/accept"),
        &et,
        None,
    )
    .await;
    assert_eq!(st, 404);
    let (st, _) = post_json(
        &carmen,
        s2,
        &format!("/api/challenge/{id}/accept"),
        json!({}),
    )
    .await;
    assert_eq!(st, 409);
    let (st, a) = call(
        &s1,
        "POST",
        &format!("/api/challenge/{id}/accept"),
        &bt,
        None,
    )
    .await;
    assert_eq!(st, 200, "{a}");
    let game = a["game"].as_str().unwrap().to_string();
    let start = bot_events.next_of("gameStart").await;
    assert_eq!(start["game"]["id"], game.as_str());
    assert_eq!(start["game"]["colour"], "B");
    assert_eq!(start["game"]["opponent"]["name"], "Carmen");
    assert_eq!(start["game"]["rated"], true);
    let hers = her_events.next_of("gameStart").await;
    assert_eq!(hers["game"]["colour"], "A");
    assert_eq!(hers["game"]["opponent"]["bot"], true);

    // The BOT's game stream on server 1.
    let mut stream = Lines::open(&s1, &format!("/api/bot/game/stream/{game}"), &bt).await;
    let full = stream.next().await;
    assert_eq!(full["type"], "gameFull", "{full}");
    assert_eq!(full["rules"], "standard");
    assert_eq!(full["rated"], true);
    assert_eq!(full["clock"], "10+5");
    assert_eq!(full["A"]["name"], "Carmen");
    assert_eq!(full["B"]["name"], "Robo");
    assert_eq!(full["B"]["bot"], true);
    assert_eq!(full["you"], "B");
    assert_eq!(full["state"]["actions"], "");
    assert_eq!(full["state"]["status"], "started");
    // The lobby's list of games being played marks the BOT.
    let r = bot().get(s2.at("/api/lobby")).send().await.unwrap();
    let lobby: Value = r.json().await.unwrap();
    let listed = lobby["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == game.as_str());
    assert_eq!(
        listed.map(|g| g["bots"].clone()),
        Some(json!([false, true])),
        "{lobby}"
    );
    // The site's own view marks the BOT.
    let (_, view) = get(&carmen, s2, &game).await;
    assert_eq!(view["seats"]["B"]["bot"], true, "{view}");
    assert_eq!(view["seats"]["A"]["bot"], false, "{view}");

    let rules = "standard";
    let mut position = full["state"]["position"].as_str().unwrap().to_string();
    let mut ply = 0;
    // Not its turn (A is to move): refused, nothing changed.
    let first = legal_in(rules, &position)[0].clone();
    let (st, b) = call(
        &s1,
        "POST",
        &format!("/api/bot/game/{game}/move/{first}"),
        &bt,
        None,
    )
    .await;
    assert_eq!((st, refusal(&b).1), (403, "not_your_turn".into()), "{b}");

    for round in 0..3 {
        // Carmen plays from the site (server 2), with her session's seat.
        let (_, v) = get(&carmen, s2, &game).await;
        let mine = legal(&v)[0].clone();
        let (st, b) = act(
            &carmen,
            s2,
            &game,
            None,
            json!({"action": mine, "ply": ply}),
        )
        .await;
        assert_eq!(st, 200, "{b}");
        ply += 1;
        let state = stream.next().await;
        assert_eq!(state["type"], "gameState", "{state}");
        assert_eq!(state["ply"], ply, "{state}");
        assert!(
            state["actions"].as_str().unwrap().ends_with(&mine),
            "{state}"
        );
        assert_eq!(state["to_move"], "B", "{state}");
        assert!(state["clock"]["A"].is_i64(), "{state}");
        position = state["position"].as_str().unwrap().to_string();

        if round == 0 {
            // Bad requests, each refused, nothing changed.
            let path = |a: &str| format!("/api/bot/game/{game}/move/{a}");
            let illegal = ["a1", "a2", "a3", "a4"]
                .into_iter()
                .find(|a| !legal_in(rules, &position).contains(&a.to_string()))
                .unwrap_or("offer:b1");
            let (st, b) = call(&s1, "POST", &path(illegal), &bt, None).await;
            assert_eq!(st, 422, "{illegal}: {b}");
            assert!(refusal(&b).1.starts_with("illegal_"), "{b}");
            let (st, b) = call(&s1, "POST", &path("zz"), &bt, None).await;
            assert_eq!(st, 400, "{b}");
            let (st, b) = call(&s1, "POST", &path("b1"), "gore_nope", None).await;
            assert_eq!((st, refusal(&b).1), (401, "bad_token".into()));
            let (st, b) = call(s2, "POST", &path("b1"), &et, None).await;
            assert_eq!(
                (st, refusal(&b).1),
                (403, "no_seat".into()),
                "someone else's game"
            );
            let (st, b) = call(&s1, "POST", "/api/bot/game/0000000000/move/b1", &bt, None).await;
            assert_eq!(st, 404, "{b}");
            let (st, _) = call(
                s2,
                "GET",
                &format!("/api/bot/game/stream/{game}"),
                &et,
                None,
            )
            .await;
            assert_eq!(st, 403);
            let (_, v) = get(&carmen, s2, &game).await;
            assert_eq!(ply_of(&v), ply, "nothing changed: {v}");
        }

        // The BOT answers through the API (server 1).
        let reply = legal_in(rules, &position)[0].clone();
        let (st, b) = call(
            &s1,
            "POST",
            &format!("/api/bot/game/{game}/move/{reply}"),
            &bt,
            None,
        )
        .await;
        assert_eq!(st, 200, "{reply}: {b}");
        ply += 1;
        let state = stream.next().await;
        assert_eq!(state["ply"], ply, "{state}");
        let v = poll_until(&carmen, s2, &game, |v| ply_of(v) == ply).await;
        assert_eq!(v["to_move"], "A");
    }

    // Chat, then the BOT resigns: the stream ends with the result.
    let (st, line) = call(
        &s1,
        "POST",
        &format!("/api/bot/game/{game}/chat"),
        &bt,
        Some(json!({"text": "good game"})),
    )
    .await;
    assert_eq!(st, 201, "{line}");
    assert_eq!(line["from"], "B");
    let (st, _) = call(
        &s1,
        "POST",
        &format!("/api/bot/game/{game}/resign"),
        &bt,
        None,
    )
    .await;
    assert_eq!(st, 200);
    let end = stream.next().await;
    assert_eq!(end["status"], "resign", "{end}");
    assert_eq!(end["winner"], "A");
    let fin = bot_events.next_of("gameFinish").await;
    assert_eq!(fin["game"]["id"], game.as_str());
    assert_eq!(fin["game"]["winner"], "A");
    let fin = her_events.next_of("gameFinish").await;
    assert_eq!(fin["game"]["winner"], "A");
    let (st, b) = call(
        &s1,
        "POST",
        &format!("/api/bot/game/{game}/resign"),
        &bt,
        None,
    )
    .await;
    assert_eq!((st, refusal(&b).1), (409, "game_over".into()));
    // No rematch with a BOT: it is challenged again.
    let (st, b) = post_json(
        &carmen,
        s2,
        &format!("/api/games/{game}/rematch"),
        json!({}),
    )
    .await;
    assert_eq!((st, refusal(&b).1), (409, "rematch_bot".into()), "{b}");

    // Rated: the leaderboard lists the BOT as one.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let r = bot()
            .get(s1.at("/api/leaderboard/slow"))
            .send()
            .await
            .unwrap();
        let rows: Value = r.json().await.unwrap();
        if let Some(row) = rows
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == "Robo")
        {
            assert_eq!(row["bot"], true, "{rows}");
            let her = rows
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["name"] == "Carmen");
            assert!(her.is_some_and(|r| r.get("bot").is_none()), "{rows}");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "not rated: {rows}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The number of actions of a game's state.
fn ply_of(v: &Value) -> usize {
    v["ply"].as_u64().unwrap_or(0) as usize
}

/// Issue 29, point 9: a token revoked mid-game ends the BOT's access at
/// once (its actions are refused, nothing changes) and its open streams
/// within a keep-alive.
#[tokio::test(flavor = "multi_thread")]
async fn a_token_revoked_mid_game_ends_the_bots_access() {
    let s = Server::start(0).await;
    let robo = account_browser(&s, "Robo").await;
    let (st, made) = post_json(
        &robo,
        &s,
        "/api/account/tokens",
        json!({"description": "engine", "scopes": ["bot:play"]}),
    )
    .await;
    assert_eq!(st, 201);
    let bt = made["token"].as_str().unwrap().to_string();
    let token_id = made["id"].as_str().unwrap().to_string();
    call(&s, "POST", "/api/bot/account/upgrade", &bt, None).await;
    let ana = account_browser(&s, "Ana").await;
    let (_, c) = post_json(&ana, &s, "/api/challenge/Robo", json!({"colour": "A"})).await;
    let id = c["challenge"]["id"].as_str().unwrap();
    let (st, a) = call(
        &s,
        "POST",
        &format!("/api/challenge/{id}/accept"),
        &bt,
        None,
    )
    .await;
    assert_eq!(st, 200, "{a}");
    let game = a["game"].as_str().unwrap().to_string();
    let mut events = Lines::open(&s, "/api/stream/event", &bt).await;
    let mut stream = Lines::open(&s, &format!("/api/bot/game/stream/{game}"), &bt).await;
    let full = stream.next().await;
    let (_, v) = get(&ana, &s, &game).await;
    let (st, _) = act(
        &ana,
        &s,
        &game,
        None,
        json!({"action": legal(&v)[0], "ply": 0}),
    )
    .await;
    assert_eq!(st, 200);
    let state = stream.next().await;
    assert_eq!(state["ply"], 1, "{full} {state}");

    let r = robo
        .delete(s.at(&format!("/api/account/tokens/{token_id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    let position = state["position"].as_str().unwrap();
    let reply = legal_in("standard", position)[0].clone();
    let (st, b) = call(
        &s,
        "POST",
        &format!("/api/bot/game/{game}/move/{reply}"),
        &bt,
        None,
    )
    .await;
    assert_eq!((st, refusal(&b).1), (401, "bad_token".into()), "{b}");
    let (_, v) = get(&ana, &s, &game).await;
    assert_eq!(ply_of(&v), 1, "nothing changed: {v}");
    let (st, _) = call(
        &s,
        "GET",
        &format!("/api/bot/game/stream/{game}"),
        &bt,
        None,
    )
    .await;
    assert_eq!(st, 401);
    stream.ended().await;
    events.ended().await;
}

/// `GET path` with the browser `c`'s cookies: the status and JSON.
async fn get_as_browser(c: &reqwest::Client, s: &Server, path: &str) -> (u16, Value) {
    let r = c.get(s.at(path)).send().await.unwrap();
    let st = r.status().as_u16();
    (st, r.json().await.unwrap_or(Value::Null))
}

/// A flood of challenges is refused: one open at a time to one player,
/// 20 open from one account at most; one cancelled makes room.
#[tokio::test(flavor = "multi_thread")]
async fn open_challenges_are_limited() {
    let s = Server::start(0).await;
    let eve = account_browser(&s, "Eve").await;
    // 21 players to challenge: Desta … Destu.
    let names: Vec<String> = (b'a'..=b'u')
        .map(|c| format!("Dest{}", c as char))
        .collect();
    for name in &names {
        account_browser(&s, name).await;
    }
    let mut first = String::new();
    for (i, name) in names[..20].iter().enumerate() {
        let (st, c) = post_json(&eve, &s, &format!("/api/challenge/{name}"), json!({})).await;
        assert_eq!(st, 201, "{i}: {c}");
        if i == 0 {
            first = c["challenge"]["id"].as_str().unwrap().to_string();
        }
    }
    // A second open challenge to one player, however many are open.
    let (st, b) = post_json(&eve, &s, "/api/challenge/Destb", json!({})).await;
    assert_eq!(
        (st, refusal(&b).1),
        (409, "challenge_pending".into()),
        "{b}"
    );
    assert_eq!(b["error"]["params"]["name"], "Destb", "{b}");
    let (st, b) = post_json(&eve, &s, "/api/challenge/Destu", json!({})).await;
    assert_eq!(
        (st, refusal(&b).1),
        (409, "too_many_challenges".into()),
        "{b}"
    );
    let (st, _) = post_json(
        &eve,
        &s,
        &format!("/api/challenge/{first}/cancel"),
        json!({}),
    )
    .await;
    assert_eq!(st, 200);
    let (st, _) = post_json(&eve, &s, "/api/challenge/Destu", json!({})).await;
    assert_eq!(st, 201);
    // The cancelled one was to Desta: she may be challenged again.
    let (st, b) = post_json(&eve, &s, "/api/challenge/Desta", json!({})).await;
    assert_eq!(
        (st, refusal(&b).1),
        (409, "too_many_challenges".into()),
        "20 open again: {b}"
    );
}

/// A challenge nobody answers lapses 20 minutes after it was made (by
/// the server's clock): until then it is open and a second one to the
/// same BOT is refused; then it reads `canceled`, the BOT's stream says
/// so, it can no longer be accepted, and the challenger may challenge
/// again.
#[tokio::test(flavor = "multi_thread")]
async fn an_unanswered_challenge_lapses() {
    use gore_server::domain::clock::Clock;
    let clock = Clock::manual(1_796_083_200_000);
    let dir = tempfile::tempdir().unwrap();
    let config = gore_server::Config {
        clock: clock.clone(),
        ..config_in(&dir)
    };
    let s = Server::start_with(dir, config).await;
    let (_, bt) = bot_account(&s, "Robo").await;
    let eve = account_browser(&s, "Eve").await;
    let mut events = Lines::open(&s, "/api/stream/event", &bt).await;
    let (st, c) = post_json(&eve, &s, "/api/challenge/Robo", json!({})).await;
    assert_eq!(st, 201, "{c}");
    let id = c["challenge"]["id"].as_str().unwrap().to_string();
    let e = events.next_of("challenge").await;
    assert_eq!(e["challenge"]["id"], id.as_str());
    let status = |v: &Value| v["challenge"]["status"].as_str().unwrap_or("").to_string();

    // 20 minutes less a millisecond: still open.
    clock.advance(Duration::from_millis(20 * 60_000 - 1));
    let (st, v) = get_as_browser(&eve, &s, &format!("/api/challenge/{id}")).await;
    assert_eq!((st, status(&v)), (200, "created".into()), "{v}");
    let (st, b) = post_json(&eve, &s, "/api/challenge/Robo", json!({})).await;
    assert_eq!(
        (st, refusal(&b).1),
        (409, "challenge_pending".into()),
        "{b}"
    );

    // 20 minutes: lapsed.
    clock.advance(Duration::from_millis(1));
    let (st, v) = get_as_browser(&eve, &s, &format!("/api/challenge/{id}")).await;
    assert_eq!((st, status(&v)), (200, "canceled".into()), "{v}");
    let e = events.next_of("challengeCanceled").await;
    assert_eq!(e["challenge"]["id"], id.as_str());
    let (st, b) = call(
        &s,
        "POST",
        &format!("/api/challenge/{id}/accept"),
        &bt,
        None,
    )
    .await;
    assert_eq!((st, refusal(&b).1), (410, "challenge_gone".into()), "{b}");
    let (st, c) = post_json(&eve, &s, "/api/challenge/Robo", json!({})).await;
    assert_eq!(st, 201, "{c}");
    assert_eq!(status(&c), "created");
}

/// A BOT challenges a person, who answers from the site with her session
/// (no token): a decline the BOT hears, then an acceptance; the game's
/// seat is her session's.
#[tokio::test(flavor = "multi_thread")]
async fn a_person_answers_a_bots_challenge_with_her_session() {
    let s = Server::start(0).await;
    let (robo, bt) = bot_account(&s, "Robo").await;
    let ana = account_browser(&s, "Ana").await;
    let mut events = Lines::open(&s, "/api/stream/event", &bt).await;
    let (st, c) = call(
        &s,
        "POST",
        "/api/challenge/Ana",
        &bt,
        Some(json!({"colour": "B"})),
    )
    .await;
    assert_eq!(st, 201, "{c}");
    let id = c["challenge"]["id"].as_str().unwrap().to_string();
    // A stranger's browser: not an account, not hers.
    let (st, b) = post_json(
        &browser(),
        &s,
        &format!("/api/challenge/{id}/accept"),
        json!({}),
    )
    .await;
    assert_eq!(
        (st, refusal(&b).1),
        (401, "challenge_needs_account".into()),
        "{b}"
    );
    let (st, _) = post_json(
        &ana,
        &s,
        &format!("/api/challenge/{id}/decline"),
        json!({"reason": "later"}),
    )
    .await;
    assert_eq!(st, 200);
    let e = events.next_of("challengeDeclined").await;
    assert_eq!(e["challenge"]["declineReason"], "later");

    let (_, c) = call(
        &s,
        "POST",
        "/api/challenge/Ana",
        &bt,
        Some(json!({"colour": "B"})),
    )
    .await;
    let id = c["challenge"]["id"].as_str().unwrap().to_string();
    let (st, a) = post_json(&ana, &s, &format!("/api/challenge/{id}/accept"), json!({})).await;
    assert_eq!(st, 200, "{a}");
    let game = a["game"].as_str().unwrap().to_string();
    let start = events.next_of("gameStart").await;
    assert_eq!(start["game"]["id"], game.as_str());
    let (_, v) = get(&ana, &s, &game).await;
    assert_eq!(v["you"], "A", "her session holds her seat: {v}");
    assert_eq!(v["seats"]["B"]["bot"], true);
    assert!(!legal(&v).is_empty(), "she is to move: {v}");
    // The BOT's own browser session holds no seat of it.
    let (_, v) = get(&robo, &s, &game).await;
    assert_eq!(v["you"], Value::Null, "{v}");
}

/// A server that drains (before it stops) takes no new challenge nor
/// acceptance (`503 draining`) and ends its streams, so that a bot
/// reconnects to another server.
#[tokio::test(flavor = "multi_thread")]
async fn a_draining_server_ends_the_streams_and_takes_no_challenge() {
    let s = Server::start(0).await;
    let (_, bt) = bot_account(&s, "Robo").await;
    let ana = account_browser(&s, "Ana").await;
    let (_, c) = post_json(&ana, &s, "/api/challenge/Robo", json!({})).await;
    let id = c["challenge"]["id"].as_str().unwrap().to_string();
    let mut events = Lines::open(&s, "/api/stream/event", &bt).await;
    events.next_of("challenge").await;
    s.state.begin_drain();
    let (st, b) = call(
        &s,
        "POST",
        &format!("/api/challenge/{id}/accept"),
        &bt,
        None,
    )
    .await;
    assert_eq!((st, refusal(&b).0), (503, "draining".into()), "{b}");
    let (st, _) = post_json(&ana, &s, "/api/challenge/Robo", json!({})).await;
    assert_eq!(st, 503);
    events.ended().await;
}

/// A BOT does not join an arena (issue 29: never in tournaments unless
/// the creator allows bots, which no arena does yet), even from its own
/// account's browser session; a person does.
#[tokio::test(flavor = "multi_thread")]
async fn a_bot_does_not_join_an_arena() {
    let s = Server::start(0).await;
    let ada = account_browser(&s, "Ada").await;
    let robo = account_browser(&s, "Robo").await;
    let t = api_token(&robo, &s, &["bot:play"]).await;
    let (st, body) = call(&s, "POST", "/api/bot/account/upgrade", &t, None).await;
    assert_eq!(st, 200, "{body}");
    let (st, arena) = post_json(
        &ada,
        &s,
        "/api/tournaments",
        json!({"name": "Evening arena", "kind": "arena", "clock": "3+2",
               "rules": "standard", "rated": false, "minutes": 30}),
    )
    .await;
    assert_eq!(st, 201, "{arena}");
    let id = arena["id"].as_str().unwrap();
    let join = format!("/api/tournaments/{id}/join");
    let (st, body) = post_json(&robo, &s, &join, json!({})).await;
    assert_eq!(st, 403, "{body}");
    assert_eq!(refusal(&body).1, "bot_not_here");
    let (st, body) = post_json(&ada, &s, &join, json!({})).await;
    assert_eq!(st, 200, "{body}");
    let r = ada
        .get(s.at(&format!("/api/tournaments/{id}")))
        .send()
        .await
        .unwrap();
    let v: Value = r.json().await.unwrap();
    assert!(!v.to_string().contains("Robo"), "{v}");
}

/// Issue 29, point 8, on the server: a person challenges a BOT with her
/// session and waits for its answer (`GET /api/challenge/{id}?wait=`): a
/// decline with its reason, then an acceptance with the game, her seat
/// hers. The bots' list says which BOTs stream their events now and
/// their ratings; the leaderboard lists people and BOTs apart.
#[tokio::test(flavor = "multi_thread")]
async fn a_person_challenges_a_bot_and_the_bots_are_listed_apart() {
    let s = Server::start(0).await;
    let (robo, bt) = bot_account(&s, "Robo").await;
    let irati = account_browser(&s, "Irati").await;
    let bots = || async {
        let r = bot().get(s.at("/api/bots")).send().await.unwrap();
        assert_eq!(r.status(), 200);
        let v: Value = r.json().await.unwrap();
        v["bots"].as_array().unwrap().clone()
    };
    // Listed (a BOT, not a person), offline: no stream yet.
    let list = bots().await;
    assert_eq!(list.len(), 1, "{list:?}");
    assert_eq!(list[0]["name"], "Robo");
    assert_eq!(list[0]["online"], false);
    assert_eq!(list[0]["ratings"], json!([]));
    let mut events = Lines::open(&s, "/api/stream/event", &bt).await;
    assert_eq!(bots().await[0]["online"], true, "its stream is open");

    // Her challenge, from her session; she waits for the answer.
    let (st, c) = post_json(
        &irati,
        &s,
        "/api/challenge/Robo",
        json!({"clock": "10+5", "rated": true, "colour": "A"}),
    )
    .await;
    assert_eq!(st, 201, "{c}");
    let id = c["challenge"]["id"].as_str().unwrap().to_string();
    // The BOT's browser session plays nothing: it cannot accept (issue
    // 37: it could).
    let (st, v) = post_json(&robo, &s, &format!("/api/challenge/{id}/accept"), json!({})).await;
    assert_eq!((st, refusal(&v).1), (403, "bot_not_here".into()), "{v}");
    let r = irati
        .get(s.at(&format!("/api/challenge/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["challenge"]["status"], "created", "{v}");
    // Someone else's: not found; a stranger's browser: no account.
    let carmen = account_browser(&s, "Carmen").await;
    for (c, code) in [(&carmen, 404), (&browser(), 401)] {
        let r = c
            .get(s.at(&format!("/api/challenge/{id}")))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), code);
    }
    let r = irati
        .get(s.at(&format!("/api/challenge/{id}?wait=soon")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400, "a wait that is no number");
    let waiting = |id: String| {
        let irati = irati.clone();
        let url = s.at(&format!("/api/challenge/{id}?wait=25"));
        tokio::spawn(async move {
            let r = irati.get(url).send().await.unwrap();
            assert_eq!(r.status(), 200);
            r.json::<Value>().await.unwrap()
        })
    };
    let answer = waiting(id.clone());
    let e = events.next_of("challenge").await;
    assert_eq!(e["challenge"]["id"], id.as_str());
    let (st, _) = call(
        &s,
        "POST",
        &format!("/api/challenge/{id}/decline"),
        &bt,
        Some(json!({"reason": "tooFast"})),
    )
    .await;
    assert_eq!(st, 200);
    let v = answer.await.unwrap();
    assert_eq!(v["challenge"]["status"], "declined", "{v}");
    assert_eq!(v["challenge"]["declineReason"], "tooFast", "{v}");

    let (_, c) = post_json(
        &irati,
        &s,
        "/api/challenge/Robo",
        json!({"clock": "10+5", "rated": true, "colour": "A"}),
    )
    .await;
    let id = c["challenge"]["id"].as_str().unwrap().to_string();
    let answer = waiting(id.clone());
    let (st, a) = call(
        &s,
        "POST",
        &format!("/api/challenge/{id}/accept"),
        &bt,
        None,
    )
    .await;
    assert_eq!(st, 200, "{a}");
    let game = a["game"].as_str().unwrap().to_string();
    let v = answer.await.unwrap();
    assert_eq!(v["challenge"]["status"], "accepted", "{v}");
    assert_eq!(v["challenge"]["game"], game.as_str(), "{v}");
    let (_, g) = get(&irati, &s, &game).await;
    assert_eq!(g["you"], "A", "her session holds her seat: {g}");

    // One action each, and the BOT resigns: a rated game over.
    let (st, b) = act(
        &irati,
        &s,
        &game,
        None,
        json!({"action": legal(&g)[0], "ply": 0}),
    )
    .await;
    assert_eq!(st, 200, "{b}");
    let (_, g) = get(&robo, &s, &game).await;
    let position = g["position"].as_str().unwrap().to_string();
    let reply = legal_in("standard", &position)[0].clone();
    let (st, b) = call(
        &s,
        "POST",
        &format!("/api/bot/game/{game}/move/{reply}"),
        &bt,
        None,
    )
    .await;
    assert_eq!(st, 200, "{b}");
    let (st, _) = call(
        &s,
        "POST",
        &format!("/api/bot/game/{game}/resign"),
        &bt,
        None,
    )
    .await;
    assert_eq!(st, 200);

    // The leaderboard apart: people, BOTs, or both.
    let board = |q: &'static str| {
        let url = s.at(&format!("/api/leaderboard/slow{q}"));
        async move {
            let r = bot().get(url).send().await.unwrap();
            let st = r.status().as_u16();
            let v: Value = r.json().await.unwrap();
            let names: Vec<String> = v
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|r| r["name"].as_str().unwrap().to_string())
                        .collect()
                })
                .unwrap_or_default();
            (st, names)
        }
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while board("").await.1.len() < 2 {
        assert!(std::time::Instant::now() < deadline, "not rated");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(board("").await, (200, vec!["Irati".into(), "Robo".into()]));
    assert_eq!(board("?bots=false").await, (200, vec!["Irati".into()]));
    assert_eq!(board("?bots=true").await, (200, vec!["Robo".into()]));
    assert_eq!(board("?bots=maybe").await.0, 400);
    // The BOT's rating on the bots' list.
    let list = bots().await;
    assert_eq!(list[0]["ratings"][0]["pace"], "slow", "{list:?}");
    assert!(list[0]["ratings"][0]["rating"].as_i64().unwrap() < 1500);
    // Its stream closed: offline once its last mark is old (15 s); the
    // page's figure, not waited for here.
    drop(events);
}

/// Issue 36: a BOT reaches every command of the table through its door,
/// by lichess's URLs or by the command's name, and each is counted by
/// door. Irati (A, casual 5+3) asks a takeback; the BOT answers it with
/// lichess's `takeback/no`; the BOT gives her time by `give-time`; a
/// report of the chat is a person's (`409 command_not_here`); a name that
/// is no command `404`; its move is counted with `via="bot"`, which no
/// door counted before.
#[tokio::test(flavor = "multi_thread")]
async fn a_bot_reaches_every_command_through_its_door() {
    let s = Server::start(0).await;
    let (_robo, bt) = bot_account(&s, "Robo").await;
    let irati = account_browser(&s, "Irati").await;
    let (st, c) = post_json(
        &irati,
        &s,
        "/api/challenge/Robo",
        json!({"clock": "5+3", "colour": "A"}),
    )
    .await;
    assert_eq!(st, 201, "{c}");
    let id = c["challenge"]["id"].as_str().unwrap().to_string();
    let (st, a) = call(
        &s,
        "POST",
        &format!("/api/challenge/{id}/accept"),
        &bt,
        None,
    )
    .await;
    assert_eq!(st, 200, "{a}");
    let game = a["game"].as_str().unwrap().to_string();
    let metric = |series: &str| {
        let text = s.state.metrics_text();
        text.lines()
            .find_map(|l| l.strip_prefix(series)?.trim().parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    let moves = r#"gore_actions_acknowledged_total{via="bot"}"#;
    assert_eq!(metric(moves), 0.0);

    // Both first actions: hers from the site, the BOT's by its door.
    let (_, v) = get(&irati, &s, &game).await;
    let (st, b) = act(
        &irati,
        &s,
        &game,
        None,
        json!({"action": legal(&v)[0], "ply": 0}),
    )
    .await;
    assert_eq!(st, 200, "{b}");
    let (_, v) = get(&irati, &s, &game).await;
    let bots_move = legal_in("standard", v["position"].as_str().unwrap())[0].clone();
    let path = |what: &str| format!("/api/bot/game/{game}/{what}");
    let (st, b) = call(&s, "POST", &path(&format!("move/{bots_move}")), &bt, None).await;
    assert_eq!((st, &b), (200, &json!({"ok": true})));
    assert_eq!(metric(moves), 1.0, "the BOT's move counted by its door");

    // Her takeback request, declined by lichess's URL.
    let (st, v) = post_json(
        &irati,
        &s,
        &format!("/api/games/{game}/takeback"),
        json!({}),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["takeback"], "A", "{v}");
    let (st, b) = call(&s, "POST", &path("takeback/no"), &bt, None).await;
    assert_eq!(st, 200, "{b}");
    let (_, v) = get(&irati, &s, &game).await;
    assert_eq!(v["takeback"], Value::Null, "declined: {v}");
    assert_eq!(v["ply"], 2, "nothing taken back: {v}");

    // Her clock runs (she is to act, both have acted): the BOT gives her
    // 15 s. Her flag falls at the state's `now` plus her time left: 15 s
    // later than before, whatever time passed between the two reads.
    let flag =
        |v: &Value| v["clock"]["now"].as_i64().unwrap() + v["clock"]["left"]["A"].as_i64().unwrap();
    assert_eq!(clock_of(&v).running.as_deref(), Some("A"), "{v}");
    let before = flag(&v);
    let (st, b) = call(&s, "POST", &path("give-time"), &bt, None).await;
    assert_eq!((st, &b), (200, &json!({"ok": true})));
    let (_, v) = get(&irati, &s, &game).await;
    assert_eq!(flag(&v) - before, 15_000, "{v}");

    let (st, b) = call(&s, "POST", &path("report-chat"), &bt, Some(json!({"n": 1}))).await;
    assert_eq!((st, refusal(&b).1), (409, "command_not_here".into()), "{b}");
    let (st, b) = call(&s, "POST", &path("dance"), &bt, None).await;
    assert_eq!(st, 404, "{b}");
    let ok = |door: &str, command: &str| {
        metric(&format!(
            r#"gore_game_commands_total{{door="{door}",command="{command}",outcome="ok"}}"#
        ))
    };
    assert_eq!(ok("bot", "takeback_answer"), 1.0);
    assert_eq!(ok("bot", "give_time"), 1.0);
    assert_eq!(ok("http", "takeback"), 1.0);
}

/// Issue 37: a challenge by name finds the account written in capitals
/// too (`HUMANO` found nobody, though `Hurnano`, a look-alike, found
/// `Humano`).
#[tokio::test(flavor = "multi_thread")]
async fn a_challenge_by_name_finds_it_in_capitals() {
    let s = Server::start(0).await;
    let _humano = account_browser(&s, "Humano").await;
    let irati = account_browser(&s, "Irati").await;
    for (n, name) in ["HUMANO", "humano", "Hurnano"].into_iter().enumerate() {
        let (st, c) = post_json(&irati, &s, &format!("/api/challenge/{name}"), json!({})).await;
        assert_eq!(st, 201, "{name}: {c}");
        assert_eq!(c["challenge"]["destUser"]["name"], "Humano", "{c}");
        let id = c["challenge"]["id"].as_str().unwrap();
        let (st, v) = post_json(
            &irati,
            &s,
            &format!("/api/challenge/{id}/cancel"),
            json!({}),
        )
        .await;
        assert_eq!(st, 200, "{n}: {v}");
    }
}
