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
use gore_server::domain::accounts::{ACCOUNT_ATTEMPTS, ADDRESS_HASHES, PAIR_ATTEMPTS};
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

/// `POST /api/account/signup` from `from` with session `cookie`.
/// (Local, unlike common's `sign_up`: the raw answer from an address is
/// what these throttles are tested by.)
async fn sign_up(s: &Server, from: &str, cookie: &str, user: &str, pass: &str) -> Answer {
    call(
        s,
        from,
        Some(cookie),
        "/api/account/signup",
        creds(user, pass),
    )
    .await
}

/// `POST /api/account/login` from `from`, without a session.
async fn log_in(s: &Server, from: &str, user: &str, pass: &str) -> Answer {
    call(s, from, None, "/api/account/login", creds(user, pass)).await
}

/// A server behind a trusted loopback proxy (so that a test speaks from
/// any address), on the test's clock, with `tune` applied; local because
/// only these tests speak from several addresses.
async fn proxied_server(clock: &Clock, tune: impl FnOnce(&mut gore_server::Config)) -> Server {
    server(|c| {
        c.clock = clock.clone();
        c.trust_proxy = vec!["127.0.0.1".parse().unwrap()];
        tune(c);
    })
    .await
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
    let s = proxied_server(&clock, |_| {}).await;
    let v = visitor_cookie(&s).await;
    let a = sign_up(&s, "203.0.113.1", &v, "Awa_7", "a good passphrase").await;
    assert_eq!(a.status, 201, "{}", a.body);
    let before = hashes(&s);
    assert_eq!(before, 1, "the sign-up hashed its password once");
    for name in ["Awa_7", "awa-7", "AWA_7"] {
        let v = visitor_cookie(&s).await;
        let a = sign_up(&s, "203.0.113.2", &v, name, "another passphrase").await;
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
    let s = proxied_server(&clock, |c| {
        c.hash_workers = 1;
        c.hash_queue = 0;
    })
    .await;
    let v = visitor_cookie(&s).await;
    let held = s.state.accounts().passwords().admit().unwrap();
    let a = sign_up(&s, "203.0.113.1", &v, "Koffi", "correct horse").await;
    assert_eq!(a.status, 503, "{}", a.body);
    assert_eq!(a.body["error"]["code"], "busy");
    assert!(message(&a).contains("password"), "{}", a.body);
    assert_eq!(a.retry_after.as_deref(), Some("1"));
    assert_eq!(a.cookie, None, "no session given");
    let l = log_in(&s, "203.0.113.1", "Koffi", "correct horse").await;
    assert_eq!(l.status, 503, "{}", l.body);
    assert_eq!(hashes(&s), 0, "nothing was hashed");
    drop(held);
    let a = sign_up(&s, "203.0.113.1", &v, "Koffi", "correct horse").await;
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
    let s = proxied_server(&clock, |_| {}).await;
    let v = visitor_cookie(&s).await;
    let a = sign_up(&s, "203.0.113.7", &v, "Ama_3", "peanut butter").await;
    assert_eq!(a.status, 201, "{}", a.body);
    // The sign-up was one hash of the budget; right passwords use the rest.
    for i in 1..ADDRESS_HASHES {
        let l = log_in(&s, "203.0.113.7", "Ama_3", "peanut butter").await;
        assert_eq!(l.status, 200, "log-in {i}: {}", l.body);
    }
    let spent = hashes(&s);
    assert_eq!(spent, ADDRESS_HASHES as u64);
    let over = log_in(&s, "203.0.113.7", "Ama_3", "peanut butter").await;
    assert_eq!(over.status, 429, "{}", over.body);
    let v2 = visitor_cookie(&s).await;
    let signup = sign_up(&s, "203.0.113.7", &v2, "Irati", "a good passphrase").await;
    assert_eq!(signup.status, 429, "{}", signup.body);
    assert!(message(&signup).contains("address"), "{}", signup.body);
    assert_eq!(hashes(&s), spent, "refused before hashing");
    let other = log_in(&s, "198.51.100.4", "Ama_3", "peanut butter").await;
    assert_eq!(other.status, 200, "{}", other.body);
    clock.advance(Duration::from_secs(15 * 60));
    let again = log_in(&s, "203.0.113.7", "Ama_3", "peanut butter").await;
    assert_eq!(again.status, 200, "{}", again.body);
}

/// `POST /api/account/password` from `from` with the session `cookie`.
async fn change(s: &Server, from: &str, cookie: &str, current: &str, new: &str) -> Answer {
    call(
        s,
        from,
        Some(cookie),
        "/api/account/password",
        json!({"current": current, "new": new}),
    )
    .await
}

async fn log_in_status(s: &Server, from: &str, username: &str, password: &str) -> u16 {
    log_in(s, from, username, password).await.status
}

/// Item 7: a wrong current password counts as a wrong log-in, from that
/// address on that account: after five, that address waits a minute
/// (even with the right one) and no hash is computed meanwhile; log-in
/// from that address waits too, another address does not.
#[tokio::test(flavor = "multi_thread")]
async fn wrong_current_passwords_are_limited_like_log_ins() {
    let clock = Clock::manual(1_796_083_200_000);
    let s = proxied_server(&clock, |_| {}).await;
    let v = visitor_cookie(&s).await;
    let a = sign_up(&s, "203.0.113.5", &v, "Seydou", "first passphrase").await;
    assert_eq!(a.status, 201, "{}", a.body);
    let me = a.cookie.unwrap();
    for i in 0..PAIR_ATTEMPTS {
        let bad = change(&s, "203.0.113.5", &me, "nope nope", "second passphrase").await;
        assert_eq!(bad.status, 400, "try {i}: {}", bad.body);
        assert!(message(&bad).starts_with("current:"), "{}", bad.body);
    }
    let spent = hashes(&s);
    assert_eq!(spent, 1 + PAIR_ATTEMPTS as u64);
    let right = change(
        &s,
        "203.0.113.5",
        &me,
        "first passphrase",
        "second passphrase",
    )
    .await;
    assert_eq!(right.status, 429, "{}", right.body);
    assert_eq!(hashes(&s), spent, "refused before hashing");
    assert_eq!(
        log_in_status(&s, "203.0.113.5", "Seydou", "first passphrase").await,
        429,
        "the same limits as log-in"
    );
    assert_eq!(
        log_in_status(&s, "198.51.100.7", "Seydou", "first passphrase").await,
        200,
        "another address is not concerned"
    );
    // 59 s after the fifth failure, still waiting; at 60 s, through.
    clock.advance(Duration::from_secs(59));
    let early = change(
        &s,
        "203.0.113.5",
        &me,
        "first passphrase",
        "second passphrase",
    )
    .await;
    assert_eq!(early.status, 429, "{}", early.body);
    clock.advance(Duration::from_secs(1));
    let ok = change(
        &s,
        "203.0.113.5",
        &me,
        "first passphrase",
        "second passphrase",
    )
    .await;
    assert_eq!(ok.status, 200, "{}", ok.body);
}

/// Item 8: five wrong passwords from an attacker's address throttle that
/// address on that account, with a backoff that doubles (1, 2, 4, 8
/// minutes between tries, 15 at most); the owner's right password from his own address passes
/// meanwhile, and one typo of his does not lock him out.
#[tokio::test(flavor = "multi_thread")]
async fn an_attacker_cannot_lock_the_owner_out() {
    let clock = Clock::manual(1_796_083_200_000);
    let s = proxied_server(&clock, |_| {}).await;
    let (owner, attacker) = ("198.51.100.7", "203.0.113.9");
    let v = visitor_cookie(&s).await;
    let a = sign_up(&s, owner, &v, "Ama_3", "peanut butter").await;
    assert_eq!(a.status, 201, "{}", a.body);
    for _ in 0..PAIR_ATTEMPTS {
        assert_eq!(
            log_in_status(&s, attacker, "Ama_3", "wrong wrong").await,
            401
        );
    }
    assert_eq!(
        log_in_status(&s, attacker, "Ama_3", "peanut butter").await,
        429,
        "the attacker's address waits, even with the right password"
    );
    assert_eq!(
        log_in_status(&s, owner, "Ama_3", "peanut butter").await,
        200
    );
    assert_eq!(log_in_status(&s, owner, "Ama_3", "peanut buter").await, 401);
    assert_eq!(
        log_in_status(&s, owner, "Ama_3", "peanut butter").await,
        200
    );
    // The backoff: 1 minute after the 5th failure, 2 after the 6th, 4
    // after the 7th.
    for wait in [60, 120, 240] {
        clock.advance(Duration::from_secs(wait - 1));
        assert_eq!(
            log_in_status(&s, attacker, "Ama_3", "wrong wrong").await,
            429,
            "{wait} s less one"
        );
        clock.advance(Duration::from_secs(1));
        assert_eq!(
            log_in_status(&s, attacker, "Ama_3", "wrong wrong").await,
            401,
            "after {wait} s"
        );
    }
    assert_eq!(
        log_in_status(&s, attacker, "Ama_3", "peanut butter").await,
        429,
        "8 failures: 8 minutes now"
    );
    clock.advance(Duration::from_secs(8 * 60));
    assert_eq!(
        log_in_status(&s, attacker, "Ama_3", "wrong wrong").await,
        401
    );
    // The 9th: 16 minutes, capped at 15.
    clock.advance(Duration::from_secs(15 * 60 - 1));
    assert_eq!(
        log_in_status(&s, attacker, "Ama_3", "peanut butter").await,
        429
    );
    clock.advance(Duration::from_secs(1));
    assert_eq!(
        log_in_status(&s, attacker, "Ama_3", "peanut butter").await,
        200
    );
}

/// Item 8: against one account from many addresses (each within its own
/// five), once the account has had its failures for the window, an address
/// that failed on it waits, a fresh one still tries, and the owner's
/// right password from his own address passes.
#[tokio::test(flavor = "multi_thread")]
async fn many_addresses_against_one_account() {
    let clock = Clock::manual(1_796_083_200_000);
    let s = proxied_server(&clock, |_| {}).await;
    let owner = "198.51.100.7";
    let v = visitor_cookie(&s).await;
    let a = sign_up(&s, owner, &v, "Yao_K", "mango season").await;
    assert_eq!(a.status, 201, "{}", a.body);
    // ACCOUNT_ATTEMPTS failures, one per address.
    for i in 0..ACCOUNT_ATTEMPTS {
        let from = format!("203.0.113.{}", 10 + i);
        assert_eq!(log_in_status(&s, &from, "Yao_K", "wrong wrong").await, 401);
    }
    // An address that failed once: under attack, it waits.
    assert_eq!(
        log_in_status(&s, "203.0.113.10", "Yao_K", "wrong wrong").await,
        429
    );
    // A fresh one tries (once: then it has failed).
    assert_eq!(
        log_in_status(&s, "192.0.2.1", "Yao_K", "wrong wrong").await,
        401
    );
    assert_eq!(
        log_in_status(&s, "192.0.2.1", "Yao_K", "mango season").await,
        429
    );
    assert_eq!(log_in_status(&s, owner, "Yao_K", "mango season").await, 200);
    // The window passes: the addresses try again.
    clock.advance(Duration::from_secs(15 * 60));
    assert_eq!(
        log_in_status(&s, "203.0.113.10", "Yao_K", "mango season").await,
        200
    );
}

/// Items 7 and 8: thirty wrong passwords sent at once from one address
/// are not thirty guesses: one attempt of an (account, address) is checked
/// at a time (the others `429`), so no more than five are ever checked
/// before the backoff.
#[tokio::test(flavor = "multi_thread")]
async fn concurrent_guesses_do_not_pass_the_limit() {
    let clock = Clock::manual(1_796_083_200_000);
    let s = proxied_server(&clock, |_| {}).await;
    let v = visitor_cookie(&s).await;
    let a = sign_up(&s, "198.51.100.7", &v, "Irati", "a good passphrase").await;
    assert_eq!(a.status, 201, "{}", a.body);
    let tries = (0..30).map(|i| {
        let s = &s;
        async move { log_in_status(s, "203.0.113.9", "Irati", &format!("guess {i:02} x")).await }
    });
    let codes = futures_util::future::join_all(tries).await;
    let guessed = codes.iter().filter(|&&c| c == 401).count();
    assert!(
        guessed <= PAIR_ATTEMPTS,
        "{guessed} guesses checked: {codes:?}"
    );
    assert_eq!(
        guessed + codes.iter().filter(|&&c| c == 429).count(),
        30,
        "{codes:?}"
    );
    assert!(hashes(&s) <= 1 + PAIR_ATTEMPTS as u64);
}
