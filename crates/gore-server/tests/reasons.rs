//! Issue 27, point 4: every refusal a page shows a person carries a
//! `reason` and its `params`, with which the page says it in its own
//! language; the `code` and the English `message` stay as they were, for
//! bots. Over HTTP and over the lobby's socket.

mod common;

use common::*;
use serde_json::{json, Value};

/// The error of an answer, checked: its code, reason and params, and the
/// English message unchanged (the whole sentence, as bots read it).
fn check(what: &str, body: &Value, code: &str, reason: &str, params: Value, message: &str) {
    let e = &body["error"];
    assert_eq!(e["code"], code, "{what}: {body}");
    assert_eq!(e["reason"], reason, "{what}: {body}");
    let got = if e.get("params").is_some() {
        e["params"].clone()
    } else {
        json!({})
    };
    assert_eq!(got, params, "{what}: {body}");
    assert_eq!(e["message"], message, "{what}: {body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn each_refusal_a_person_sees_has_its_reason_and_params() {
    let s = Server::start(0).await;
    // Sign-up: the password, the username.
    let cases = [
        (
            "Irati",
            "short",
            "password_short",
            json!({"min": 8}),
            "password: a password has at least 8 characters",
        ),
        (
            "Irati_Zubia",
            "irati_zubia",
            "password_is_username",
            json!({}),
            "password: a password is not the username",
        ),
        (
            "Irati",
            &"x".repeat(300),
            "password_long",
            json!({"max": 256}),
            "password: a password has at most 256 bytes",
        ),
        (
            "ab",
            "a long passphrase",
            "name_length",
            json!({"min": 3, "max": 20, "found": 2}),
            "username: a name has 3 to 20 characters, not 2",
        ),
        (
            "gore-ai",
            "a long passphrase",
            "name_reserved",
            json!({}),
            "username: this name is the computer's or the site's, or looks like it: choose another",
        ),
        (
            "a b",
            "a long passphrase",
            "name_character",
            json!({"char": " "}),
            "username: a name has letters, digits, - and _ only, not ' '",
        ),
        (
            "_ab",
            "a long passphrase",
            "name_edge",
            json!({}),
            "username: a name begins and ends with a letter or a digit",
        ),
    ];
    for (u, p, reason, params, message) in cases {
        let v = visitor_cookie(&s).await;
        let (st, body) = post_with(
            &s,
            &v,
            "/api/account/signup",
            json!({"username": u, "password": p}),
        )
        .await;
        assert_eq!(st, 400, "{u}: {body}");
        check(u, &body, "bad_request", reason, params, message);
    }
    // A taken username; then a wrong log-in.
    let v = visitor_cookie(&s).await;
    let (st, _) = post_with(
        &s,
        &v,
        "/api/account/signup",
        json!({"username": "Awa_7", "password": "a long passphrase"}),
    )
    .await;
    assert_eq!(st, 201);
    let v = visitor_cookie(&s).await;
    let (_, body) = post_with(
        &s,
        &v,
        "/api/account/signup",
        json!({"username": "awa-7", "password": "a long passphrase"}),
    )
    .await;
    check(
        "taken",
        &body,
        "bad_request",
        "username_taken",
        json!({}),
        "username: this username is taken, or looks like one that is: choose another",
    );
    let (st, body) = post_with(
        &s,
        &v,
        "/api/account/login",
        json!({"username": "Awa_7", "password": "not the passphrase"}),
    )
    .await;
    assert_eq!(st, 401);
    check(
        "log-in",
        &body,
        "unauthorized",
        "bad_login",
        json!({}),
        "wrong username or password",
    );
    // A display name: an account's.
    let (_, body) = post_with(&s, &v, "/api/me/name", json!({"name": "AWA_7"})).await;
    check(
        "name",
        &body,
        "bad_request",
        "name_is_account",
        json!({}),
        "name: this name is an account's, or looks like one: choose another",
    );

    // The analysis board's position: malformed, and seeds that do not add up.
    let (st, body) = post_with(&s, &v, "/api/analysis/position", json!({"gpn": "6,6,6"})).await;
    assert_eq!(st, 400);
    check(
        "gpn",
        &body,
        "bad_request",
        "gpn_fields",
        json!({}),
        "gpn: GPN: expected five fields separated by single spaces: seeds controllers captured to-move offer",
    );
    let (_, body) = post_with(
        &s,
        &v,
        "/api/analysis/position",
        json!({"gpn": "6,6,6,6/6,6,6,6 AAAA/BBBB 1-0 A -"}),
    )
    .await;
    check(
        "seed count",
        &body,
        "bad_request",
        "gpn_seed_count",
        json!({"found": 49, "expected": 48}),
        "gpn: position: holes and captured totals hold 49 seeds, not 48",
    );
    let (_, body) = post_with(
        &s,
        &v,
        "/api/analysis/position",
        json!({"gpn": "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 C -"}),
    )
    .await;
    assert_eq!(
        error_of(&body).reason.as_deref(),
        Some("gpn_field"),
        "{body}"
    );
    assert_eq!(
        body["error"]["params"],
        json!({"field": "to_move"}),
        "{body}"
    );
    let (st, body) = post_with(&s, &v, "/api/analysis/position", json!({"line": "b1"})).await;
    assert_eq!(st, 422, "{body}");
    assert_eq!(
        error_of(&body).reason.as_deref(),
        Some("setup_line"),
        "{body}"
    );
    assert_eq!(
        body["error"]["params"],
        json!({"index": 1, "token": "b1"}),
        "{body}"
    );

    // The lobby: a rated seek of an anonymous player.
    let mut ws = lobby_ws(&s, &v).await;
    send(
        &mut ws,
        json!({"type": "seek", "clock": "5+3", "rated": true}),
    )
    .await;
    let m = next_of(&mut ws, "error").await;
    check(
        "rated",
        &m,
        "unauthorized",
        "rated_needs_accounts",
        json!({}),
        "rated games are between accounts: sign up or log in, or play casual",
    );
}

/// An error with no more to say than its code has no reason, and its
/// body keeps the two fields it always had.
#[tokio::test(flavor = "multi_thread")]
async fn an_error_without_a_reason_keeps_its_two_fields() {
    let s = Server::start(0).await;
    let (st, body) = post_json(&bot(), &s, "/api/games", json!({"mode": "chess"})).await;
    assert_eq!(st, 400, "{body}");
    let e = body["error"].as_object().unwrap();
    let mut keys: Vec<&str> = e.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["code", "message"], "{body}");
}
