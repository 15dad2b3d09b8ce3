//! Issue 13, chat in games between people: the two players' messages, as
//! text, to both players on any server and never to spectators; the
//! history on joining; length, one line, and a rate limit per seat; a
//! report. On PostgreSQL too when `GORE_TEST_POSTGRES` is set.

mod common;

use common::shared::*;
use common::*;
use serde_json::{json, Value};

async fn say(s: &Server, id: &str, token: Option<&str>, text: &str) -> (u16, Value) {
    let mut req = bot()
        .post(s.at(&format!("/api/games/{id}/chat")))
        .json(&json!({"text": text}));
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let r = req.send().await.unwrap();
    let st = r.status().as_u16();
    (st, r.json().await.unwrap_or(Value::Null))
}

/// Markup is text: what A writes is what B reads, to the character; the
/// spectator hears nothing of it (his next message is the next action).
#[tokio::test(flavor = "multi_thread")]
async fn players_chat_and_spectators_do_not_hear() {
    let s = Server::start(0).await;
    let (id, ta, tb) = friend_game(&s, json!({"mode": "friend", "colour": "A"})).await;
    let mut wa = s.ws(&id, Some(&ta)).await;
    let mut wb = s.ws(&id, Some(&tb)).await;
    let mut spec = s.ws(&id, None).await;
    assert_eq!(next_of(&mut wa, "chat_history").await["lines"], json!([]));
    next_of(&mut wb, "chat_history").await;
    next_state(&mut spec).await;
    let hostile = "<img src=x onerror=alert(1)> & \"bye\"";
    send(&mut wa, json!({"type": "chat", "text": hostile})).await;
    let got = next_of(&mut wb, "chat").await;
    assert_eq!(got["line"]["text"], hostile);
    assert_eq!(got["line"]["from"], "A");
    assert_eq!(got["line"]["n"], 1);
    assert_eq!(
        next_of(&mut wa, "chat").await["line"]["n"],
        1,
        "the writer too"
    );
    let (st, v) = say(&s, &id, Some(&tb), "  hello  ").await;
    assert_eq!((st, v["text"].as_str()), (201, Some("hello")));
    assert_eq!(next_of(&mut wa, "chat").await["line"]["text"], "hello");
    // The spectator's next message is the action A now plays.
    act(
        &bot(),
        &s,
        &id,
        Some(&ta),
        json!({"action": "a3", "ply": 0}),
    )
    .await;
    let m = next_msg(&mut spec).await;
    assert_eq!(m["type"], "update", "no chat for spectators: {m}");
    // Joining later: the history.
    let mut wb2 = s.ws(&id, Some(&tb)).await;
    let h = next_of(&mut wb2, "chat_history").await;
    let texts: Vec<&str> = h["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, [hostile, "hello"]);
    // A spectator cannot speak, nor report; a player may report.
    assert_eq!(say(&s, &id, None, "hi").await.0, 403);
    let r = bot()
        .post(s.at(&format!("/api/games/{id}/chat/1/report")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let r = bot()
        .post(s.at(&format!("/api/games/{id}/chat/1/report")))
        .bearer_auth(&tb)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
}

/// One line of 1 to 200 characters, 5 a seat in 10 seconds; no chat in
/// games against the AI or on one device.
#[tokio::test(flavor = "multi_thread")]
async fn messages_are_checked_and_limited() {
    let s = Server::start(0).await;
    let (id, ta, tb) = friend_game(&s, json!({"mode": "friend", "colour": "A"})).await;
    for (text, why) in [
        ("", "1 to 200"),
        ("   ", "1 to 200"),
        (&"x".repeat(201) as &str, "1 to 200"),
        ("two\nlines", "one line"),
        ("bell\u{7}", "one line"),
    ] {
        let (st, e) = say(&s, &id, Some(&ta), text).await;
        assert_eq!(st, 400, "{text:?}");
        let m = error_of(&e).message;
        assert!(m.starts_with("text:") && m.contains(why), "{text:?}: {m}");
    }
    assert_eq!(
        say(&s, &id, Some(&ta), &"é".repeat(200)).await.0,
        201,
        "200 characters, not bytes"
    );
    for i in 0..4 {
        assert_eq!(say(&s, &id, Some(&ta), &format!("m{i}")).await.0, 201);
    }
    let (st, e) = say(&s, &id, Some(&ta), "one too many").await;
    assert_eq!(st, 429, "{e}");
    assert_eq!(say(&s, &id, Some(&tb), "B has his own limit").await.0, 201);
    let ai = create(&bot(), &s, json!({"mode": "ai", "level": 1, "colour": "A"})).await;
    let (st, _) = say(&s, ai["id"].as_str().unwrap(), ai["token"].as_str(), "hi").await;
    assert_eq!(st, 409);
}

/// Two servers on one store: a message written on one reaches the other
/// player's socket on the other.
#[tokio::test(flavor = "multi_thread")]
async fn chat_crosses_servers() {
    let shared = Shared::new();
    let (s1, s2) = (server_on(&shared, 1).await, server_on(&shared, 2).await);
    let (id, ta, tb) = friend_game(&s1, json!({"mode": "friend", "colour": "A"})).await;
    let mut wb = s2.ws(&id, Some(&tb)).await;
    next_of(&mut wb, "chat_history").await;
    assert_eq!(say(&s1, &id, Some(&ta), "across").await.0, 201);
    let got = next_of(&mut wb, "chat").await;
    assert_eq!(got["line"]["text"], "across");
}
