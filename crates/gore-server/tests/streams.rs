//! Issue 37: the Bot API's streams under abuse. An event stream is counted
//! as a socket of its address, an account holds two at most, and all of
//! an account's streams on a server share one reader of the store, woken
//! only by the changes that concern the account.

mod common;

use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value as Json};

/// `GET path` with a bearer token by `c`: the response, its body unread
/// (a stream stays open while it is held).
async fn open(c: &reqwest::Client, s: &Server, path: &str, token: &str) -> reqwest::Response {
    c.get(s.at(path)).bearer_auth(token).send().await.unwrap()
}

/// Opens an event stream until it is let in (a stream closed by the
/// client frees its place once the server sees it go): a deadline for a
/// failing test, not a wait for success.
async fn open_when_free(c: &reqwest::Client, s: &Server, token: &str) -> reqwest::Response {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let r = open(c, s, "/api/stream/event", token).await;
        if r.status() == 200 {
            return r;
        }
        assert!(Instant::now() < deadline, "never freed: {}", r.status());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Before, 600 streams on one token were accepted from 10 addresses, and
/// streams were not counted with the sockets: 19 addresses × 64 unread
/// streams held 905 connections. Now an account holds two, and each is a
/// socket of its address.
#[tokio::test(flavor = "multi_thread")]
async fn event_streams_are_counted_as_sockets_and_capped_per_account() {
    let s = server(|c| c.max_sockets_per_ip = 4).await;
    let here = client_from(Ipv4Addr::new(127, 0, 0, 1));
    let (_, robo) = bot_account(&s, "Robo").await;
    let a = open(&here, &s, "/api/stream/event", &robo).await;
    assert_eq!(a.status(), 200);
    let b = open(&here, &s, "/api/stream/event", &robo).await;
    assert_eq!(b.status(), 200);
    let third = open(&here, &s, "/api/stream/event", &robo).await;
    assert_eq!(third.status(), 503);
    let v: Json = third.json().await.unwrap();
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("event streams"),
        "{v}"
    );
    // One closed by its client: the account may open another.
    drop(a);
    let a = open_when_free(&here, &s, &robo).await;
    // Two more from the same address by another BOT make four sockets:
    // the address is full for every kind, streams and sockets alike.
    let (_, ruby) = bot_account(&s, "Ruby").await;
    let _c = open(&here, &s, "/api/stream/event", &ruby).await;
    let d = open(&here, &s, "/api/stream/event", &ruby).await;
    assert_eq!(d.status(), 200);
    let browser = account_browser(&s, "Zed").await;
    let zed = api_token(&browser, &s, &["read"]).await;
    let full = open(&here, &s, "/api/stream/event", &zed).await;
    assert_eq!(full.status(), 503);
    let v: Json = full.json().await.unwrap();
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("from your address"),
        "{v}"
    );
    // From another address, Zed's stream opens.
    let there = client_from(Ipv4Addr::new(127, 0, 0, 2));
    assert_eq!(
        open(&there, &s, "/api/stream/event", &zed).await.status(),
        200
    );
    drop((a, b, d));
}

/// Before, each stream read the store at every challenge made, answered
/// or withdrawn by anyone, and every second: 600 streams on one token
/// and 5 challenges a second took an innocent's action from 1.4 to 269
/// ms. Now an account's streams (two Bot API streams and three user
/// sockets here) share one reader, which reads once per change that
/// concerns the account (and once a second); a bystander's reader reads
/// only once a second.
#[tokio::test(flavor = "multi_thread")]
async fn an_accounts_streams_share_one_read_per_change() {
    let dir = tempfile::tempdir().unwrap();
    let store = gore_server::store::sqlite::SqliteStore::open(
        &dir.path().join("counted.sqlite3"),
        Default::default(),
    )
    .unwrap();
    let (counted, reads) = Counting::store(store, "c.challenger = $1 OR c.dest = $1");
    let s = server_on_store(counted, |_| {}).await;
    let robo_cookie = account(&s, "Robo").await;
    let robo = token_of(&s, &robo_cookie).await;
    let by_cookie = account(&s, "Bystander").await;
    let bystander = token_of(&s, &by_cookie).await;
    let ana = account_browser(&s, "Ana").await;
    let robo_id = me_id(&s, &robo_cookie).await;
    let bystander_id = me_id(&s, &by_cookie).await;
    let mut streams = Vec::new();
    for _ in 0..2 {
        streams.push(open(&bot(), &s, "/api/stream/event", &robo).await);
    }
    let _watching = open(&bot(), &s, "/api/stream/event", &bystander).await;
    let mut sockets = Vec::new();
    for _ in 0..3 {
        sockets.push(user_ws(&s, &robo_cookie).await);
    }
    // Ana challenges Robo and withdraws, twenty times: forty changes that
    // concern Robo, none the bystander.
    const CHANGES: usize = 40;
    let begun = Instant::now();
    let before: Vec<String> = reads.lock().unwrap().clone();
    for _ in 0..CHANGES / 2 {
        let (st, v) = post_json(
            &ana,
            &s,
            "/api/challenge/Robo",
            json!({"rules": "standard", "rated": false}),
        )
        .await;
        assert_eq!(st, 201, "{v}");
        let id = v["challenge"]["id"].as_str().unwrap().to_string();
        let (st, v) = post_json(&ana, &s, &format!("/api/challenge/{id}/cancel"), json!({})).await;
        assert_eq!(st, 200, "{v}");
    }
    // Each of Robo's user sockets hears of the last withdrawal: the
    // reader read after it.
    for ws in &mut sockets {
        loop {
            let m = next_msg(ws).await;
            if m["type"] == "challengeCanceled" {
                break;
            }
        }
    }
    let seconds = begun.elapsed().as_secs() as usize + 1;
    let after: Vec<String> = reads.lock().unwrap()[before.len()..].to_vec();
    let of = |who: &str| after.iter().filter(|r| *r == who).count();
    // Robo: at most one read per change and one per second (and the
    // challenges' own reads, one per challenge); five readers would make
    // five times the changes.
    assert!(
        of(&robo_id) <= CHANGES + CHANGES / 2 + seconds + 2,
        "{} reads for Robo in {seconds} s",
        of(&robo_id)
    );
    assert!(
        of(&bystander_id) <= seconds + 2,
        "{} reads for the bystander in {seconds} s",
        of(&bystander_id)
    );
    drop(streams);
}

/// A game's Bot API streams: two per account and game (600 were
/// accepted on one game before, each building the game's view at every
/// change), and one read and one encoding of the game per change however
/// many follow it (before: one per stream). Counted by the metric
/// `gore_bot_game_reads`.
#[tokio::test(flavor = "multi_thread")]
async fn a_games_streams_are_capped_and_share_one_read_per_change() {
    let s = server(|_| {}).await;
    let (_, robo) = bot_account(&s, "Robo").await;
    let ana = account_browser(&s, "Ana").await;
    let (st, c) = post_json(&ana, &s, "/api/challenge/Robo", json!({"colour": "A"})).await;
    assert_eq!(st, 201, "{c}");
    let id = c["challenge"]["id"].as_str().unwrap();
    let accept = format!("/api/challenge/{id}/accept");
    let r = bot()
        .post(s.at(&accept))
        .bearer_auth(&robo)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let game = r.json::<Json>().await.unwrap()["game"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("/api/bot/game/stream/{game}");
    let mut streams = vec![
        Lines::open(&s, &path, &robo).await,
        Lines::open(&s, &path, &robo).await,
    ];
    let third = open(&bot(), &s, &path, &robo).await;
    assert_eq!(third.status(), 503, "a third stream of one game");
    for st in &mut streams {
        assert_eq!(st.next().await["type"], "gameFull");
    }
    let reads = || {
        let text = s.state.metrics_text();
        text.lines()
            .find_map(|l| {
                l.strip_prefix("gore_bot_game_reads_total ")?
                    .parse::<u64>()
                    .ok()
            })
            .expect("the metric")
    };
    // Two actions, Ana's and Robo's: each stream is told each, the game
    // read once for each (the two streams' reader's first read before).
    let before = reads();
    let (_, v) = get(&ana, &s, &game).await;
    let (st, b) = act(
        &ana,
        &s,
        &game,
        None,
        json!({"action": legal(&v)[0], "ply": 0}),
    )
    .await;
    assert_eq!(st, 200, "{b}");
    let mut seen = Vec::new();
    for st in &mut streams {
        seen.push(st.next_of("gameState").await);
    }
    assert_eq!(seen[0]["ply"], 1, "{seen:?}");
    assert_eq!(seen[0], seen[1]);
    let reply = legal_in("standard", seen[0]["position"].as_str().unwrap())[0].clone();
    let r = bot()
        .post(s.at(&format!("/api/bot/game/{game}/move/{reply}")))
        .bearer_auth(&robo)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    for st in &mut streams {
        assert_eq!(st.next_of("gameState").await["ply"], 2);
    }
    assert_eq!(reads() - before, 2, "one read per change, not per stream");
}

/// The public id of the session `cookie`'s player.
async fn me_id(s: &Server, cookie: &str) -> String {
    let (_, v) = get_with(s, cookie, "/api/me").await;
    v["id"].as_str().unwrap().to_string()
}

/// A new personal API token (scope `read`) of the session `cookie`'s
/// account.
async fn token_of(s: &Server, cookie: &str) -> String {
    let (st, v) = post_with(
        s,
        cookie,
        "/api/account/tokens",
        json!({"description": "streams", "scopes": ["read"]}),
    )
    .await;
    assert_eq!(st, 201, "{v}");
    v["token"].as_str().unwrap().to_string()
}
