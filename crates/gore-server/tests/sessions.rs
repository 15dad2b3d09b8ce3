//! Issue 25 item 11, sessions: only ids the server issued are sessions; a
//! log-in and a sign-up issue a new id and end the old one; logging out
//! ends the session (its seats and its account with it); an account's
//! seats are the account's, held by any of its sessions; a new password
//! ends every other session, seats included. On PostgreSQL too when
//! `GORE_TEST_POSTGRES` is set.

mod common;

use common::*;
use serde_json::{json, Value};

/// A request's answer: status, the session it set (`gore_session=…`), body.
struct Answer {
    status: u16,
    cookie: Option<String>,
    body: Value,
}

async fn answer(r: reqwest::RequestBuilder) -> Answer {
    let r = r.send().await.unwrap();
    let cookie = r
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(str::to_string);
    Answer {
        status: r.status().as_u16(),
        cookie,
        body: r.json().await.unwrap_or(Value::Null),
    }
}

async fn post(s: &Server, cookie: &str, path: &str, body: Value) -> Answer {
    answer(bot().post(s.at(path)).header("cookie", cookie).json(&body)).await
}

async fn me(s: &Server, cookie: &str) -> Answer {
    answer(bot().get(s.at("/api/me")).header("cookie", cookie)).await
}

/// The seat `cookie` holds in `game` (`null`: none).
async fn seat_in(s: &Server, cookie: &str, game: &str) -> Value {
    get_with(s, cookie, &format!("/api/games/{game}")).await.1["you"].clone()
}

/// A friend game created by `cookie`'s session (seat A): its id.
async fn new_game(s: &Server, cookie: &str) -> String {
    let a = post(
        s,
        cookie,
        "/api/games",
        json!({"mode": "friend", "colour": "A"}),
    )
    .await;
    assert_eq!(a.status, 201, "{}", a.body);
    a.body["id"].as_str().unwrap().to_string()
}

/// Logs in from the session `cookie` (not a new visitor, as common's
/// `log_in`): these tests follow what becomes of that session.
async fn log_in_from(s: &Server, cookie: &str, username: &str, password: &str) -> String {
    let a = post(
        s,
        cookie,
        "/api/account/login",
        json!({"username": username, "password": password}),
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.body);
    a.cookie.expect("a new session")
}

/// A session id that has ended (or never was) is not one: the server
/// answers as to a browser without a cookie, issuing a new id, anonymous.
async fn assert_not_a_session(s: &Server, cookie: &str, why: &str) {
    let a = me(s, cookie).await;
    assert_eq!(a.status, 200, "{why}: {}", a.body);
    assert_eq!(a.body["account"], false, "{why}");
    let fresh = a
        .cookie
        .unwrap_or_else(|| panic!("{why}: {cookie} was taken"));
    assert_ne!(fresh, cookie, "{why}");
}

/// Logging out ends the session: the old cookie holds none of the
/// account's seats, is not the account, and a game it creates is not
/// created under the account's name.
#[tokio::test(flavor = "multi_thread")]
async fn logging_out_ends_the_session() {
    let s = Server::start(0).await;
    let c = sign_up(&s, "Koffi", "correct horse").await;
    let game = new_game(&s, &c).await;
    assert_eq!(seat_in(&s, &c, &game).await, "A");
    let out = post(&s, &c, "/api/account/logout", json!({})).await;
    assert_eq!(out.status, 204);
    let after = out.cookie.expect("a new anonymous session");
    assert_ne!(after, c);
    assert_eq!(seat_in(&s, &c, &game).await, Value::Null, "the old cookie");
    assert_eq!(seat_in(&s, &after, &game).await, Value::Null, "the new one");
    assert_not_a_session(&s, &c, "logged out").await;
    // Whatever the old cookie creates is not the account's.
    let a = post(
        &s,
        &c,
        "/api/games",
        json!({"mode": "friend", "colour": "A"}),
    )
    .await;
    assert_eq!(a.status, 201, "{}", a.body);
    assert_ne!(a.cookie.as_deref(), Some(c.as_str()));
    let id = a.body["id"].as_str().unwrap();
    let v = get_with(&s, &c, &format!("/api/games/{id}")).await.1;
    assert_ne!(v["seats"]["A"]["name"], "Koffi", "{v}");
    assert_eq!(v["you"], Value::Null, "the old cookie got no seat");
    let (st, v) = get_with(&s, &c, "/api/me").await;
    assert_eq!(st, 200);
    assert_ne!(v["name"], "Koffi");
}

/// Logging out and in again, on the same browser or another: the account
/// still holds its games.
#[tokio::test(flavor = "multi_thread")]
async fn logging_in_again_finds_ones_games() {
    let s = Server::start(0).await;
    let c = sign_up(&s, "Awa_7", "a good passphrase").await;
    let game = new_game(&s, &c).await;
    let out = post(&s, &c, "/api/account/logout", json!({})).await;
    let anon = out.cookie.unwrap();
    let back = log_in_from(&s, &anon, "Awa_7", "a good passphrase").await;
    assert_eq!(seat_in(&s, &back, &game).await, "A", "the same browser");
    let elsewhere = log_in_from(&s, &visitor_cookie(&s).await, "Awa_7", "a good passphrase").await;
    assert_eq!(seat_in(&s, &elsewhere, &game).await, "A", "another device");
    // A seat taken on one device is the account's on the other.
    let second = new_game(&s, &elsewhere).await;
    assert_eq!(seat_in(&s, &back, &second).await, "A");
}

/// A new password ends every other session of the account: the stolen
/// cookie is neither the account nor holds any of its seats, including
/// those taken with it; the new session holds them all.
#[tokio::test(flavor = "multi_thread")]
async fn a_new_password_ends_every_other_session_and_its_seats() {
    let s = Server::start(0).await;
    let mine = sign_up(&s, "Seydou", "first passphrase").await;
    let g1 = new_game(&s, &mine).await;
    let stolen = log_in_from(&s, &visitor_cookie(&s).await, "Seydou", "first passphrase").await;
    let g2 = new_game(&s, &stolen).await;
    assert_eq!(seat_in(&s, &stolen, &g1).await, "A");
    let a = post(
        &s,
        &mine,
        "/api/account/password",
        json!({"current": "first passphrase", "new": "second passphrase"}),
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.body);
    let now = a.cookie.unwrap();
    for g in [&g1, &g2] {
        assert_eq!(seat_in(&s, &stolen, g).await, Value::Null, "{g}");
        assert_eq!(seat_in(&s, &mine, g).await, Value::Null, "{g}");
        assert_eq!(seat_in(&s, &now, g).await, "A", "{g}");
    }
    assert_not_a_session(&s, &stolen, "the other session").await;
    assert_not_a_session(&s, &mine, "this session, rotated").await;
    assert_eq!(me(&s, &now).await.body["account"], true);
}

/// A well-formed id the server never issued (fixation: planted by
/// someone who knows it) is not adopted: the answer issues another, and
/// the planted one holds nothing of what the browser does after.
#[tokio::test(flavor = "multi_thread")]
async fn an_id_chosen_by_the_client_is_not_adopted() {
    let s = Server::start(0).await;
    let planted = format!("gore_session={}", "5e55".repeat(8));
    assert_not_a_session(&s, &planted, "never issued").await;
    let a = post(
        &s,
        &planted,
        "/api/games",
        json!({"mode": "friend", "colour": "A"}),
    )
    .await;
    assert_eq!(a.status, 201, "{}", a.body);
    let issued = a.cookie.expect("an issued session");
    assert_ne!(issued, planted);
    let game = a.body["id"].as_str().unwrap();
    assert_eq!(seat_in(&s, &issued, game).await, "A");
    assert_eq!(seat_in(&s, &planted, game).await, Value::Null);
    // Signing up with it: the account's session is a new id, the planted
    // one still nothing.
    let up = post(
        &s,
        &planted,
        "/api/account/signup",
        json!({"username": "Irati", "password": "a long passphrase"}),
    )
    .await;
    assert_eq!(up.status, 201, "{}", up.body);
    assert_ne!(up.cookie.as_deref(), Some(planted.as_str()));
    assert_not_a_session(&s, &planted, "after a sign-up").await;
}

/// Signing up and logging in each issue a new id and end the one the
/// browser had: it is no longer a session at all.
#[tokio::test(flavor = "multi_thread")]
async fn log_in_and_sign_up_issue_a_new_id_and_end_the_old() {
    let s = Server::start(0).await;
    let v = visitor_cookie(&s).await;
    let game = new_game(&s, &v).await;
    let up = post(
        &s,
        &v,
        "/api/account/signup",
        json!({"username": "Yao_K", "password": "mango season"}),
    )
    .await;
    assert_eq!(up.status, 201, "{}", up.body);
    let c = up.cookie.unwrap();
    assert_ne!(c, v);
    assert_not_a_session(&s, &v, "before the sign-up").await;
    assert_eq!(seat_in(&s, &c, &game).await, "A", "the game went along");
    let w = visitor_cookie(&s).await;
    let other = new_game(&s, &w).await;
    let c2 = log_in_from(&s, &w, "Yao_K", "mango season").await;
    assert_ne!(c2, w);
    assert_not_a_session(&s, &w, "before the log-in").await;
    assert_eq!(seat_in(&s, &w, &other).await, Value::Null);
    assert_eq!(
        seat_in(&s, &c2, &other).await,
        "A",
        "the browser's seats follow"
    );
    assert_eq!(seat_in(&s, &c, &other).await, "A", "the account's");
}

/// The game socket of the session whose cookie is `cookie`.
async fn game_ws(s: &Server, cookie: &str, game: &str) -> Ws {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://{}/api/games/{game}/ws", s.addr)
        .into_client_request()
        .unwrap();
    req.headers_mut().insert("cookie", cookie.parse().unwrap());
    let (inner, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    Ws { inner, view: None }
}

/// A socket opened with a session's cookie holds the seat while the
/// session does: once a new password ends the (stolen) session, its open
/// socket's actions are refused, and the owner's new session plays on.
#[tokio::test(flavor = "multi_thread")]
async fn an_open_socket_loses_the_seat_when_its_session_ends() {
    let s = Server::start(0).await;
    let mine = sign_up(&s, "Ama_3", "peanut butter").await;
    let a = post(&s, &mine, "/api/games", json!({"mode": "local"})).await;
    let game = a.body["id"].as_str().unwrap().to_string();
    let stolen = log_in_from(&s, &visitor_cookie(&s).await, "Ama_3", "peanut butter").await;
    let mut ws = game_ws(&s, &stolen, &game).await;
    let first = next_state(&mut ws).await;
    assert_eq!(first["you"], "both", "{first}");
    let moves = legal(&first);
    let a = post(
        &s,
        &mine,
        "/api/account/password",
        json!({"current": "peanut butter", "new": "jam and bread"}),
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.body);
    let now = a.cookie.unwrap();
    send_action(&mut ws, &moves[0], 0).await;
    // Refused (an error), not played (an update with the action).
    let m = loop {
        let m = next_msg(&mut ws).await;
        let played = m["type"] == "update"
            && m["update"]["actions"]
                .as_array()
                .is_some_and(|a| !a.is_empty());
        if m["type"] == "error" || played {
            break m;
        }
    };
    assert_eq!(error_of(&m).code, "forbidden", "{m}");
    let (st, v) = get_with(&s, &now, &format!("/api/games/{game}")).await;
    assert_eq!((st, v["you"].as_str(), ply(&v)), (200, Some("both"), 0));
    let r = bot()
        .post(s.at(&format!("/api/games/{game}/actions")))
        .header("cookie", &now)
        .json(&json!({"action": moves[0], "ply": 0}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

/// A lobby socket whose session ended (a new password asked from this
/// very browser) seeks nothing under the ended session: it is closed, so
/// that the page reconnects with the session it now has (a seek under the
/// ended one would pair a game no session of the player holds).
#[tokio::test(flavor = "multi_thread")]
async fn a_lobby_socket_of_an_ended_session_is_closed() {
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    let s = Server::start(0).await;
    let mine = sign_up(&s, "Yaw_2", "plantain chips").await;
    let mut ws = lobby_ws(&s, &mine).await;
    next_of(&mut ws, "lobby").await;
    let a = post(
        &s,
        &mine,
        "/api/account/password",
        json!({"current": "plantain chips", "new": "fried plantain"}),
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.body);
    send(&mut ws, json!({"type": "seek", "clock": "5+3"})).await;
    loop {
        let m = tokio::time::timeout(std::time::Duration::from_secs(30), ws.next())
            .await
            .expect("an answer within 30 s");
        match m {
            None | Some(Err(_)) | Some(Ok(Message::Close(_))) => break,
            Some(Ok(Message::Text(t))) => {
                let v: Value = serde_json::from_str(t.as_str()).unwrap();
                assert_ne!(v["type"], "waiting", "sought under an ended session: {v}");
                assert_ne!(v["type"], "paired", "{v}");
            }
            Some(Ok(_)) => {}
        }
    }
}
