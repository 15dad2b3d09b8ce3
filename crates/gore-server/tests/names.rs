//! Issue 13, names: every browser has a display name (generated on its
//! first visit, or chosen), checked as docs/API.md says, shown in the seats
//! and written in the record; a game keeps the names it began with. On
//! PostgreSQL too when `GORE_TEST_POSTGRES` is set.

mod common;

use common::*;
use serde_json::{json, Value};

async fn me(c: &reqwest::Client, s: &Server) -> Value {
    let r = c.get(s.at("/api/me")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

async fn rename(c: &reqwest::Client, s: &Server, name: &str) -> (u16, Value) {
    post_json(c, s, "/api/me/name", json!({ "name": name })).await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_first_visit_gets_a_name_that_stays() {
    let s = Server::start(0).await;
    let c = browser();
    let first = me(&c, &s).await["name"].as_str().unwrap().to_string();
    // Generated: a given name, a dash, four digits.
    let (given, digits) = first.rsplit_once('-').expect("Name-1234");
    assert!(!given.is_empty() && digits.len() == 4, "{first}");
    assert!(digits.bytes().all(|b| b.is_ascii_digit()), "{first}");
    assert_eq!(
        me(&c, &s).await["name"],
        first.as_str(),
        "the same next time"
    );
    // Another browser, another name (with 40 × 10,000 names, equal names
    // would be a bug in the draw far more often than chance).
    assert_ne!(me(&browser(), &s).await["name"], first.as_str());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_chosen_name_is_checked_and_kept() {
    let s = Server::start(0).await;
    let c = browser();
    me(&c, &s).await;
    let (st, v) = rename(&c, &s, "  Kóffi_7 ").await;
    assert_eq!((st, v["name"].as_str()), (200, Some("Kóffi_7")));
    assert_eq!(me(&c, &s).await["name"], "Kóffi_7");
    for (bad, why) in [
        ("ab", "3 to 20"),
        ("<script>", "letters, digits"),
        ("Ay la", "letters, digits"),
        ("gore-ai", "computer's"),
        ("G0RE_AI", "computer's"),
        ("Admin", "computer's"),
        ("Ayl\u{430}", "one script"),
        ("-Ayla", "begins and ends"),
        ("merde", "not allowed"),
    ] {
        let (st, v) = rename(&c, &s, bad).await;
        assert_eq!(st, 400, "{bad:?}: {v}");
        let m = error_of(&v).message;
        assert!(m.starts_with("name: ") && m.contains(why), "{bad:?}: {m}");
    }
    // Nothing refused changed the name.
    assert_eq!(me(&c, &s).await["name"], "Kóffi_7");
    // A name too long for the body limit is refused as a body, not a crash.
    let (st, _) = rename(&c, &s, &"x".repeat(20_000)).await;
    assert_eq!(st, 413);
}

/// Another site cannot rename a player (the session cookie would go with
/// its request): cross-origin writes are refused.
#[tokio::test(flavor = "multi_thread")]
async fn another_site_cannot_rename_a_player() {
    let s = Server::start(0).await;
    let c = browser();
    let name = me(&c, &s).await["name"].as_str().unwrap().to_string();
    let r = c
        .post(s.at("/api/me/name"))
        .header("origin", "https://evil.example")
        .json(&json!({"name": "Pwned"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert_eq!(me(&c, &s).await["name"], name.as_str());
}

/// The seats carry the names their players had when they sat down; the
/// record's A and B tags are those names; a later rename changes neither.
#[tokio::test(flavor = "multi_thread")]
async fn games_show_and_record_their_players_names() {
    let s = Server::start(0).await;
    let (alice, bob) = (browser(), browser());
    rename(&alice, &s, "Awa").await;
    rename(&bob, &s, "Irati").await;
    let g = create_game(&alice, &s, json!({"mode": "friend", "colour": "A"})).await;
    let id = g.id.clone();
    let (_, v) = get(&bot(), &s, &id).await;
    assert_eq!(v["seats"]["A"]["name"], "Awa");
    assert_eq!(v["seats"]["B"].get("name"), None, "not yet taken");
    claim(&bob, &s, g.invite.as_deref().unwrap()).await;
    let (_, v) = get(&bot(), &s, &id).await;
    assert_eq!(v["seats"]["B"]["name"], "Irati");
    rename(&alice, &s, "Someone").await;
    let (_, v) = get(&bot(), &s, &id).await;
    assert_eq!(v["seats"]["A"]["name"], "Awa", "the game keeps its names");
    let rec = bot()
        .get(s.at(&format!("/api/games/{id}/record")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(rec.contains("[A \"Awa\"]\n[B \"Irati\"]\n"), "{rec}");
    // Against the AI: the human's name, and the AI's own.
    let g = create_game(&bob, &s, json!({"mode": "ai", "colour": "B", "level": 1})).await;
    let (_, v) = get(&bot(), &s, g.id.as_str()).await;
    assert_eq!(v["seats"]["B"]["name"], "Irati");
    assert_eq!(v["seats"]["A"]["kind"], "ai");
}
