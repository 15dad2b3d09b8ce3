//! Issue 25, items 1, 7 and 8: password hashing and the log-in throttles.
//! Every argon2 hash (19 MiB, tens of milliseconds) goes through a few
//! workers with a short queue, beyond which it is refused `busy`; the cheap
//! checks come first (a taken name costs no hash); one address has a
//! budget of hashes; a wrong current password counts like a wrong log-in;
//! log-in failures are throttled per (account, address) with a backoff, so
//! that an attacker cannot lock the owner out. On PostgreSQL too when
//! `GORE_TEST_POSTGRES` is set. The hashes are counted by the server's own
//! counter, never timed.

mod common;

use std::time::Duration;

use common::*;
use gore_server::domain::accounts::ADDRESS_HASHES;
use gore_server::domain::clock::Clock;
use serde_json::{json, Value};

struct Answer {
    status: u16,
    cookie: Option<String>,
    retry_after: Option<String>,
    body: Value,
}

/// `POST path` with `body`, from the address `from` (the server trusts
/// the loopback proxy) and with the session `cookie` if any.
async fn call(s: &Server, from: &str, cookie: Option<&str>, path: &str, body: Value) -> Answer {
    let mut req = bot()
        .post(s.at(path))
        .header("x-forwarded-for", from)
        .json(&body);
    if let Some(c) = cookie {
        req = req.header("cookie", c);
    }
    let r = req.send().await.unwrap();
    let header = |name: &str| {
        r.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let cookie = header("set-cookie")
        .as_deref()
        .and_then(|v| v.split(';').next())
        .map(str::to_string);
    let retry_after = header("retry-after");
    Answer {
        status: r.status().as_u16(),
        cookie,
        retry_after,
        body: r.json().await.unwrap_or(Value::Null),
    }
}

fn creds(u: &str, p: &str) -> Value {
    json!({"username": u, "password": p})
}

/// A server behind a trusted loopback proxy (so that a test speaks from
/// any address), on the test's clock, with `tune` applied.
async fn server(clock: &Clock, tune: impl FnOnce(&mut gore_server::Config)) -> Server {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_in(&dir);
    config.clock = clock.clone();
    config.trust_proxy = vec!["127.0.0.1".parse().unwrap()];
    tune(&mut config);
    Server::start_with(dir, config).await
}

fn hashes(s: &Server) -> u64 {
    s.state.accounts().passwords().hashes()
}

fn message(a: &Answer) -> String {
    a.body["error"]["message"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

/// Item 1: a sign-up whose name is taken (or looks like a taken one) is
/// refused before any hash: the flood of the issue cost a 19 MiB hash per
/// request and stored nothing.
#[tokio::test(flavor = "multi_thread")]
async fn a_taken_name_is_refused_before_any_hash() {
    let clock = Clock::manual(1_796_083_200_000);
    let s = server(&clock, |_| {}).await;
    let v = visitor_cookie(&s).await;
    let a = call(
        &s,
        "203.0.113.1",
        Some(&v),
        "/api/account/signup",
        creds("Awa_7", "a good passphrase"),
    )
    .await;
    assert_eq!(a.status, 201, "{}", a.body);
    let before = hashes(&s);
    assert_eq!(before, 1, "the sign-up hashed its password once");
    for name in ["Awa_7", "awa-7", "AWA_7"] {
        let v = visitor_cookie(&s).await;
        let a = call(
            &s,
            "203.0.113.2",
            Some(&v),
            "/api/account/signup",
            creds(name, "another passphrase"),
        )
        .await;
        assert_eq!(a.status, 400, "{name}: {}", a.body);
        assert!(message(&a).starts_with("username:"), "{}", a.body);
    }
    assert_eq!(hashes(&s), before, "no hash for a taken name");
}

/// Item 1: one worker and no queue: while a hash holds the worker, a
/// sign-up and a log-in are refused `503 busy` at once (with
/// `Retry-After`), and nothing is saved; the same sign-up passes once the
/// worker is free.
#[tokio::test(flavor = "multi_thread")]
async fn hashes_beyond_the_workers_and_their_queue_are_refused_busy() {
    let clock = Clock::manual(1_796_083_200_000);
    let s = server(&clock, |c| {
        c.hash_workers = 1;
        c.hash_queue = 0;
    })
    .await;
    let v = visitor_cookie(&s).await;
    let held = s.state.accounts().passwords().admit().unwrap();
    let a = call(
        &s,
        "203.0.113.1",
        Some(&v),
        "/api/account/signup",
        creds("Koffi", "correct horse"),
    )
    .await;
    assert_eq!(a.status, 503, "{}", a.body);
    assert_eq!(a.body["error"]["code"], "busy");
    assert!(message(&a).contains("password"), "{}", a.body);
    assert_eq!(a.retry_after.as_deref(), Some("1"));
    assert_eq!(a.cookie, None, "no session given");
    let l = call(
        &s,
        "203.0.113.1",
        None,
        "/api/account/login",
        creds("Koffi", "correct horse"),
    )
    .await;
    assert_eq!(l.status, 503, "{}", l.body);
    assert_eq!(hashes(&s), 0, "nothing was hashed");
    drop(held);
    let a = call(
        &s,
        "203.0.113.1",
        Some(&v),
        "/api/account/signup",
        creds("Koffi", "correct horse"),
    )
    .await;
    assert_eq!(a.status, 201, "the name was still free: {}", a.body);
    assert_eq!(hashes(&s), 1);
}

/// Item 1: one address has a budget of hashes (sign-ups, log-ins and
/// password changes together) within 15 minutes; beyond it, `429` before
/// any hash; another address is not concerned; the budget is back once
/// the window has passed.
#[tokio::test(flavor = "multi_thread")]
async fn an_address_has_a_budget_of_hashes() {
    let clock = Clock::manual(1_796_083_200_000);
    let s = server(&clock, |_| {}).await;
    let v = visitor_cookie(&s).await;
    let a = call(
        &s,
        "203.0.113.7",
        Some(&v),
        "/api/account/signup",
        creds("Ama_3", "peanut butter"),
    )
    .await;
    assert_eq!(a.status, 201, "{}", a.body);
    // The sign-up was one hash of the budget; right passwords use the rest.
    for i in 1..ADDRESS_HASHES {
        let l = call(
            &s,
            "203.0.113.7",
            None,
            "/api/account/login",
            creds("Ama_3", "peanut butter"),
        )
        .await;
        assert_eq!(l.status, 200, "log-in {i}: {}", l.body);
    }
    let spent = hashes(&s);
    assert_eq!(spent, ADDRESS_HASHES as u64);
    let over = call(
        &s,
        "203.0.113.7",
        None,
        "/api/account/login",
        creds("Ama_3", "peanut butter"),
    )
    .await;
    assert_eq!(over.status, 429, "{}", over.body);
    let v2 = visitor_cookie(&s).await;
    let signup = call(
        &s,
        "203.0.113.7",
        Some(&v2),
        "/api/account/signup",
        creds("Irati", "a good passphrase"),
    )
    .await;
    assert_eq!(signup.status, 429, "{}", signup.body);
    assert!(message(&signup).contains("address"), "{}", signup.body);
    assert_eq!(hashes(&s), spent, "refused before hashing");
    let other = call(
        &s,
        "198.51.100.4",
        None,
        "/api/account/login",
        creds("Ama_3", "peanut butter"),
    )
    .await;
    assert_eq!(other.status, 200, "{}", other.body);
    clock.advance(Duration::from_secs(15 * 60));
    let again = call(
        &s,
        "203.0.113.7",
        None,
        "/api/account/login",
        creds("Ama_3", "peanut butter"),
    )
    .await;
    assert_eq!(again.status, 200, "{}", again.body);
}
