//! Issue 29, point 7: `gore bot` with `gore engine` plays as a BOT account
//! through a real `gore serve`'s Bot API: it declines a challenge it may
//! not play (with the reason), accepts one it may, and plays a full rated
//! game against a person driven through the site's API, then stops
//! (`--games 1`).

mod support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::{http, Gore};

/// The session cookie an answer sets, if any.
fn cookie_of(res: &reqwest::Response) -> Option<String> {
    res.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("gore_session="))
        .and_then(|v| v.split(';').next())
        .map(str::to_string)
}

/// A new account `name`: its session's cookie.
async fn account(c: &reqwest::Client, url: &str, name: &str) -> String {
    let r = c.get(format!("{url}/api/me")).send().await.unwrap();
    let first = cookie_of(&r).expect("a session");
    let r = c
        .post(format!("{url}/api/account/signup"))
        .header("cookie", &first)
        .json(&json!({"username": name, "password": "a long passphrase"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    cookie_of(&r).expect("the logged-in session")
}

/// `POST path` with a cookie or a token: the status and the answer.
async fn post(
    c: &reqwest::Client,
    url: &str,
    path: &str,
    cookie: Option<&str>,
    token: Option<&str>,
    body: Value,
) -> (u16, Value) {
    let mut req = c.post(format!("{url}{path}")).json(&body);
    if let Some(k) = cookie {
        req = req.header("cookie", k);
    }
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let r = req.send().await.unwrap();
    let st = r.status().as_u16();
    (st, r.json().await.unwrap_or(Value::Null))
}

/// `GET path` with a cookie.
async fn get(c: &reqwest::Client, url: &str, path: &str, cookie: &str) -> Value {
    let r = c
        .get(format!("{url}{path}"))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    r.json().await.unwrap()
}

/// An event stream's next object of type `kind` (30 s at most: a
/// deadline for a failing test).
async fn next_of(res: &mut reqwest::Response, buf: &mut Vec<u8>, kind: &str) -> Value {
    loop {
        while let Some(i) = buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = buf.drain(..=i).collect();
            let text = String::from_utf8(line).unwrap();
            if text.trim().is_empty() {
                continue;
            }
            let v: Value = serde_json::from_str(&text).unwrap();
            if v["type"] == kind {
                return v;
            }
        }
        let chunk = tokio::time::timeout(Duration::from_secs(30), res.chunk())
            .await
            .expect("no event within 30 s")
            .unwrap()
            .expect("the stream ended");
        buf.extend_from_slice(&chunk);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn gore_bot_plays_a_full_game_against_a_person() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gore.sqlite3");
    let server = Gore::start(db.to_str().unwrap(), &[]);
    let url = server.url.clone();
    let c = http();

    // The BOT account and its token.
    let robo = account(&c, &url, "Robo").await;
    let (st, t) = post(
        &c,
        &url,
        "/api/account/tokens",
        Some(&robo),
        None,
        json!({"description": "gore bot", "scopes": ["bot:play"]}),
    )
    .await;
    assert_eq!(st, 201, "{t}");
    let token = t["token"].as_str().unwrap().to_string();
    let (st, _) = post(
        &c,
        &url,
        "/api/bot/account/upgrade",
        None,
        Some(&token),
        json!({}),
    )
    .await;
    assert_eq!(st, 200);

    // The person, with a token to read her events.
    let irati = account(&c, &url, "Irati").await;
    let (_, t) = post(
        &c,
        &url,
        "/api/account/tokens",
        Some(&irati),
        None,
        json!({"description": "events", "scopes": ["read"]}),
    )
    .await;
    let read = t["token"].as_str().unwrap().to_string();
    let mut events = c
        .get(format!("{url}/api/stream/event"))
        .bearer_auth(&read)
        .send()
        .await
        .unwrap();
    let mut buf = Vec::new();

    // The bridge: standard rules only, level 1 (quick), one game.
    let mut bridge = Command::new(env!("CARGO_BIN_EXE_gore"))
        .args(["bot", "--server", &url, "--token", &token])
        .args(["--level", "1", "--rules", "standard", "--games", "1"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("gore bot starts");

    // Rules it does not play: declined, with the reason.
    let (st, ch) = post(
        &c,
        &url,
        "/api/challenge/Robo",
        Some(&irati),
        None,
        json!({"rules": "seeds=5"}),
    )
    .await;
    assert_eq!(st, 201, "{ch}");
    let e = next_of(&mut events, &mut buf, "challengeDeclined").await;
    assert_eq!(e["challenge"]["declineReason"], "rules", "{e}");

    // A rated 10+5 game, the BOT to open (Irati plays B).
    let (st, ch) = post(
        &c,
        &url,
        "/api/challenge/Robo",
        Some(&irati),
        None,
        json!({"clock": "10+5", "rated": true, "colour": "B"}),
    )
    .await;
    assert_eq!(st, 201, "{ch}");
    let start = next_of(&mut events, &mut buf, "gameStart").await;
    let game = start["game"]["id"].as_str().unwrap().to_string();
    assert_eq!(start["game"]["colour"], "B");

    // Irati plays her first legal action whenever it is her turn, through
    // the site's API, until the game is over.
    let deadline = Instant::now() + Duration::from_secs(600);
    let mut bot_actions = 0;
    let view = loop {
        assert!(Instant::now() < deadline, "the game did not end");
        let v = get(&c, &url, &format!("/api/games/{game}"), &irati).await;
        if v["status"] == "over" {
            break v;
        }
        let legal = v["legal"].as_array().cloned().unwrap_or_default();
        match legal.first() {
            Some(a) => {
                let ply = v["ply"].as_u64().unwrap();
                let (st, b) = post(
                    &c,
                    &url,
                    &format!("/api/games/{game}/actions"),
                    Some(&irati),
                    None,
                    json!({"action": a, "ply": ply}),
                )
                .await;
                assert!(st == 200 || st == 409, "{st}: {b}");
            }
            None => tokio::time::sleep(Duration::from_millis(20)).await,
        }
        bot_actions = v["actions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["player"] == "A")
            .count();
    };
    let reason = view["result"]["reason"].as_str().unwrap().to_string();
    assert!(
        ["board", "no-hole", "repetition", "ply-cap"].contains(&reason.as_str()),
        "a full game, played to the board's end: {view}"
    );
    assert!(bot_actions > 5, "the BOT played: {view}");
    assert_eq!(view["seats"]["A"]["bot"], true);
    let fin = next_of(&mut events, &mut buf, "gameFinish").await;
    assert_eq!(fin["game"]["id"], game.as_str());

    // `--games 1`: the bridge stops by itself.
    let stop = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = bridge.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < stop, "gore bot did not stop");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(status.success(), "{status}");
}

/// `gore serve` on `db` at `port` (the same address after a restart),
/// once it says it is ready.
fn serve_at(db: &str, port: u16) -> Gore {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_gore"))
        .args(["serve", "--rate-limit", "0", "--db", db])
        .args(["--port", &port.to_string()])
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start gore serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.starts_with("Goré is ready"), "{line:?}");
    Gore {
        child,
        url: format!("http://127.0.0.1:{port}"),
    }
}

/// The server is killed mid-game and started again on the same address:
/// the bridge opens its streams again and the game goes on to its end.
#[tokio::test(flavor = "multi_thread")]
async fn gore_bot_goes_on_after_the_server_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gore.sqlite3");
    let db = db.to_str().unwrap().to_string();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = serve_at(&db, port);
    let url = server.url.clone();
    let c = http();
    let robo = account(&c, &url, "Robo").await;
    let (_, t) = post(
        &c,
        &url,
        "/api/account/tokens",
        Some(&robo),
        None,
        json!({"description": "gore bot", "scopes": ["bot:play"]}),
    )
    .await;
    let token = t["token"].as_str().unwrap().to_string();
    let (st, _) = post(
        &c,
        &url,
        "/api/bot/account/upgrade",
        None,
        Some(&token),
        json!({}),
    )
    .await;
    assert_eq!(st, 200);
    let irati = account(&c, &url, "Irati").await;
    let mut bridge = Command::new(env!("CARGO_BIN_EXE_gore"))
        .args(["bot", "--server", &url, "--token", &token])
        .args(["--level", "1", "--games", "1"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("gore bot starts");
    let (st, ch) = post(
        &c,
        &url,
        "/api/challenge/Robo",
        Some(&irati),
        None,
        json!({"colour": "B"}),
    )
    .await;
    assert_eq!(st, 201, "{ch}");

    // Her games: the one the BOT accepted.
    let deadline = Instant::now() + Duration::from_secs(60);
    let game = loop {
        let page = c
            .get(format!("{url}/api/players/Irati"))
            .send()
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap();
        if let Some(id) = page["games"][0]["id"].as_str() {
            break id.to_string();
        }
        assert!(Instant::now() < deadline, "not accepted: {page}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };

    let deadline = Instant::now() + Duration::from_secs(600);
    let mut restarted = false;
    let view = loop {
        assert!(Instant::now() < deadline, "the game did not end");
        let v = get(&c, &url, &format!("/api/games/{game}"), &irati).await;
        if v["status"] == "over" {
            break v;
        }
        let ply = v["ply"].as_u64().unwrap();
        if ply >= 6 && !restarted {
            // Killed as a crash would, then back on the same address.
            server.kill();
            server = serve_at(&db, port);
            restarted = true;
            continue;
        }
        match v["legal"].as_array().and_then(|l| l.first()) {
            Some(a) => {
                let (st, b) = post(
                    &c,
                    &url,
                    &format!("/api/games/{game}/actions"),
                    Some(&irati),
                    None,
                    json!({"action": a, "ply": ply}),
                )
                .await;
                assert!(st == 200 || st == 409, "{st}: {b}");
            }
            None => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    };
    assert!(restarted);
    let reason = view["result"]["reason"].as_str().unwrap();
    assert!(
        ["board", "no-hole", "repetition", "ply-cap"].contains(&reason),
        "played to the end after the restart: {view}"
    );
    let stop = Instant::now() + Duration::from_secs(90);
    let status = loop {
        if let Some(s) = bridge.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < stop, "gore bot did not stop");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(status.success(), "{status}");
}

/// A new BOT account `name`: its token.
async fn bot_account(c: &reqwest::Client, url: &str, name: &str) -> String {
    let cookie = account(c, url, name).await;
    let (st, t) = post(
        c,
        url,
        "/api/account/tokens",
        Some(&cookie),
        None,
        json!({"description": "gore bot", "scopes": ["bot:play"]}),
    )
    .await;
    assert_eq!(st, 201, "{t}");
    let token = t["token"].as_str().unwrap().to_string();
    let (st, _) = post(
        c,
        url,
        "/api/bot/account/upgrade",
        None,
        Some(&token),
        json!({}),
    )
    .await;
    assert_eq!(st, 200);
    token
}

/// `gore bot` as the BOT of `token` on `url`, level 1, with `extra`.
fn bridge(url: &str, token: &str, extra: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_gore"))
        .args(["bot", "--server", url, "--token", token, "--level", "1"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("gore bot starts")
}

/// Waits (`secs` at most) for `child` to exit; its success.
async fn exits(child: &mut std::process::Child, secs: u64) -> bool {
    let stop = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s.success();
        }
        assert!(Instant::now() < stop, "gore bot did not stop");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Two BOTs: one challenges the other (`--challenge`, rated 5+3), both
/// play the game to its end through their bridges and stop.
#[tokio::test(flavor = "multi_thread")]
async fn two_bots_play_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gore.sqlite3");
    let server = Gore::start(db.to_str().unwrap(), &[]);
    let url = server.url.clone();
    let c = http();
    let one = bot_account(&c, &url, "Robo").await;
    let two = bot_account(&c, &url, "Kiri").await;
    let mut b2 = bridge(&url, &two, &["--games", "1"]);
    // Kiri's bridge follows its events before the challenge comes (it
    // would see it when it connects anyway: open challenges are said
    // first).
    let mut b1 = bridge(
        &url,
        &one,
        &[
            "--games",
            "1",
            "--challenge",
            "Kiri",
            "--challenge-clock",
            "5+3",
            "--challenge-rated",
        ],
    );
    assert!(exits(&mut b1, 600).await, "Robo's bridge");
    assert!(exits(&mut b2, 60).await, "Kiri's bridge");
    let page: Value = c
        .get(format!("{url}/api/players/Kiri"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(page["bot"], true, "{page}");
    let game = page["games"][0]["id"].as_str().expect("a game").to_string();
    let r = c
        .get(format!("{url}/api/games/{game}"))
        .send()
        .await
        .unwrap();
    let view: Value = r.json().await.unwrap();
    assert_eq!(view["status"], "over", "{view}");
    assert_eq!(view["rated"], true, "{view}");
    let reason = view["result"]["reason"].as_str().unwrap();
    assert!(
        ["board", "no-hole", "repetition", "ply-cap"].contains(&reason),
        "played to the end: {view}"
    );
    assert_eq!(view["seats"]["A"]["bot"], true);
    assert_eq!(view["seats"]["B"]["bot"], true);
}

/// On PostgreSQL, two servers: the BOT's bridge on one, the person on
/// the other; a full rated game.
#[tokio::test(flavor = "multi_thread")]
async fn a_bot_and_a_person_on_two_servers() {
    let Some(base) = support::postgres_or_skip("a_bot_and_a_person_on_two_servers") else {
        return;
    };
    let db = support::fresh_database(&base, "bot").await;
    let one = Gore::start(&db, &[]);
    let two = Gore::start(&db, &[]);
    let c = http();
    let token = bot_account(&c, &one.url, "Robo").await;
    let irati = account(&c, &two.url, "Irati").await;
    let mut b = bridge(&one.url, &token, &["--games", "1"]);
    let (st, ch) = post(
        &c,
        &two.url,
        "/api/challenge/Robo",
        Some(&irati),
        None,
        json!({"clock": "10+5", "rated": true, "colour": "A"}),
    )
    .await;
    assert_eq!(st, 201, "{ch}");
    let deadline = Instant::now() + Duration::from_secs(60);
    let game = loop {
        let page: Value = c
            .get(format!("{}/api/players/Irati", two.url))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if let Some(id) = page["games"][0]["id"].as_str() {
            break id.to_string();
        }
        assert!(Instant::now() < deadline, "not accepted: {page}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let deadline = Instant::now() + Duration::from_secs(600);
    let view = loop {
        assert!(Instant::now() < deadline, "the game did not end");
        let v = get(&c, &two.url, &format!("/api/games/{game}"), &irati).await;
        if v["status"] == "over" {
            break v;
        }
        match v["legal"].as_array().and_then(|l| l.first()) {
            Some(a) => {
                let ply = v["ply"].as_u64().unwrap();
                let (st, b) = post(
                    &c,
                    &two.url,
                    &format!("/api/games/{game}/actions"),
                    Some(&irati),
                    None,
                    json!({"action": a, "ply": ply}),
                )
                .await;
                assert!(st == 200 || st == 409, "{st}: {b}");
            }
            None => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    };
    let reason = view["result"]["reason"].as_str().unwrap();
    assert!(
        ["board", "no-hole", "repetition", "ply-cap"].contains(&reason),
        "{view}"
    );
    assert!(exits(&mut b, 60).await);
}
