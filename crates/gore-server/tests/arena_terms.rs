//! Issue 29, an arena's terms at its creation: the start time (not in the
//! past beyond a minute, the form's precision; not more than a month
//! ahead: typed errors naming the field) and whether BOT accounts may
//! join (a BOT joins, with its API token, an arena that allows BOTs, and
//! is refused, typed, by one that does not; the hourly arena does not).
//! The time is a manual clock. On PostgreSQL too when
//! `GORE_TEST_POSTGRES` is set.

mod common;

use common::*;
use gore_server::domain::clock::Clock;
use serde_json::{json, Value};

/// A fixed start for the manual clock (2026-12-01 00:30, Unix ms).
const T0: i64 = 1_796_085_000_000;
const MIN: i64 = 60_000;
const DAY: i64 = 86_400_000;

async fn with_token(s: &Server, path: &str, token: &str, body: Value) -> (u16, Value) {
    let r = bot()
        .post(s.at(path))
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .unwrap();
    let st = r.status().as_u16();
    (st, r.json().await.unwrap_or(Value::Null))
}

async fn create(c: &reqwest::Client, s: &Server, extra: Value) -> (u16, Value) {
    let mut body = json!({"name": "Friday", "clock": "3+2", "minutes": 30});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    post_json(c, s, "/api/tournaments", body).await
}

/// The start: a minute's slack in the past, up to 30 days ahead; beyond,
/// `bad_request` naming `starts_at`, and nothing is made.
#[tokio::test(flavor = "multi_thread")]
async fn the_start_is_from_now_to_a_month_ahead() {
    let clock = Clock::manual(T0);
    let s = server_with_clock(&clock).await;
    let ana = account_browser(&s, "Ana").await;
    for (at, why) in [
        (T0 - 2 * MIN, "in the past"),
        (T0 - 61_000, "in the past"),
        (T0 + 30 * DAY + 1, "within a month"),
        (T0 + 60 * DAY, "within a month"),
    ] {
        let (st, v) = create(&ana, &s, json!({"starts_at": at})).await;
        assert_eq!(st, 400, "{at}: {v}");
        assert_eq!(error_of(&v).code, "bad_request", "{v}");
        let msg = error_of(&v).message;
        assert!(msg.starts_with("starts_at"), "{msg}");
        assert!(msg.contains(why), "{msg}");
    }
    let (_, lists) = get_with(&s, "", "/api/tournaments").await;
    assert_eq!(lists["upcoming"], json!([]), "{lists}");
    assert_eq!(lists["running"], json!([]), "{lists}");
    // Within the minute just gone: now. Ten minutes ahead, a month ahead:
    // upcoming, at that time.
    let (st, v) = create(&ana, &s, json!({"starts_at": T0 - 59_000})).await;
    assert_eq!(st, 201, "{v}");
    let (_, d) = get_with(
        &s,
        "",
        &format!("/api/tournaments/{}", v["id"].as_str().unwrap()),
    )
    .await;
    assert_eq!(d["tournament"]["starts_at"], T0, "{d}");
    assert_eq!(d["tournament"]["phase"], "running", "{d}");
    for at in [T0 + 10 * MIN, T0 + 30 * DAY] {
        let (st, v) = create(&ana, &s, json!({"starts_at": at})).await;
        assert_eq!(st, 201, "{v}");
        let path = format!("/api/tournaments/{}", v["id"].as_str().unwrap());
        let (_, d) = get_with(&s, "", &path).await;
        assert_eq!(d["tournament"]["starts_at"], at, "{d}");
        assert_eq!(d["tournament"]["phase"], "upcoming", "{d}");
    }
}

/// A BOT joins an arena that allows BOTs (with its token) and is paired
/// there, its game marked BOT; an arena that does not, and the hourly
/// arena, refuse it (`forbidden`, `tournament_no_bots`), changing nothing.
#[tokio::test(flavor = "multi_thread")]
async fn a_bot_joins_only_where_bots_are_allowed() {
    let clock = Clock::manual(T0);
    let s = server(|c| {
        c.clock = clock.clone();
        c.tournaments_hourly_arena = true;
    })
    .await;
    let ana = account_browser(&s, "Ana").await;
    let (robo_browser, robo) = bot_account(&s, "Robo").await;
    let (st, open) = create(&ana, &s, json!({"bots": true})).await;
    assert_eq!(st, 201, "{open}");
    let (st, closed) = create(&ana, &s, json!({})).await;
    assert_eq!(st, 201, "{closed}");
    let (open, closed) = (open["id"].as_str().unwrap(), closed["id"].as_str().unwrap());

    let (_, d) = get_with(&s, "", &format!("/api/tournaments/{closed}")).await;
    assert_eq!(d["tournament"]["bots"], false, "{d}");
    let (st, v) = with_token(
        &s,
        &format!("/api/tournaments/{closed}/join"),
        &robo,
        json!({}),
    )
    .await;
    assert_eq!(st, 403, "{v}");
    assert_eq!(
        error_of(&v).reason.as_deref(),
        Some("tournament_no_bots"),
        "{v}"
    );
    let (_, d) = get_with(&s, "", &format!("/api/tournaments/{closed}")).await;
    assert_eq!(d["standings"], json!([]), "{d}");

    // The hourly arena (scheduled by the server's tick) does not allow BOTs.
    s.state.tournaments().tick().await;
    let (_, lists) = get_with(&s, "", "/api/tournaments").await;
    let hourly = lists["running"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["creator"] == "")
        .unwrap_or_else(|| panic!("no hourly arena: {lists}"))
        .clone();
    assert_eq!(hourly["bots"], false, "{hourly}");
    let path = format!("/api/tournaments/{}/join", hourly["id"].as_str().unwrap());
    let (st, v) = with_token(&s, &path, &robo, json!({})).await;
    assert_eq!(st, 403, "{v}");
    assert_eq!(
        error_of(&v).reason.as_deref(),
        Some("tournament_no_bots"),
        "{v}"
    );

    // Where BOTs are allowed: never from the BOT's browser session (a BOT
    // acts with its token)...
    let (_, d) = get_with(&s, "", &format!("/api/tournaments/{open}")).await;
    assert_eq!(d["tournament"]["bots"], true, "{d}");
    let path = format!("/api/tournaments/{open}/join");
    let (st, v) = post_json(&robo_browser, &s, &path, json!({})).await;
    assert_eq!(st, 403, "{v}");
    assert_eq!(error_of(&v).reason.as_deref(), Some("bot_not_here"), "{v}");
    // ...but with its token: joined and paired with Ana, the game marked.
    let (st, v) = with_token(
        &s,
        &format!("/api/tournaments/{open}/join"),
        &robo,
        json!({}),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    let (st, v) = post_json(
        &ana,
        &s,
        &format!("/api/tournaments/{open}/join"),
        json!({}),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    s.state.tournaments().run(open).await.unwrap();
    let (_, d) = get_with(&s, "", &format!("/api/tournaments/{open}")).await;
    let names: Vec<&str> = d["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{d}");
    assert!(names.contains(&"Robo") && names.contains(&"Ana"), "{d}");
    let game = d["playing"][0]["game"]
        .as_str()
        .unwrap_or_else(|| panic!("not paired: {d}"));
    let (_, g) = get_with(&s, "", &format!("/api/games/{game}")).await;
    let bots: Vec<bool> = ["A", "B"]
        .iter()
        .map(|p| g["seats"][p]["bot"].as_bool().unwrap_or(false))
        .collect();
    assert_eq!(bots.iter().filter(|b| **b).count(), 1, "{g}");
}
