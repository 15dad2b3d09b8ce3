//! The metrics (issue 28, part 1): `GET /metrics` on a listener of its
//! own, in Prometheus's text format, moved by exactly what was done: an
//! action over HTTP and over a socket, refusals with their codes, a
//! socket open, tournament pairings; and never served on the public port.
//!
//! On PostgreSQL too when `GORE_TEST_POSTGRES` is set.

mod common;

use std::collections::HashMap;

use common::*;
use serde_json::json;
use tokio::net::TcpListener;

/// A server and its metrics' address (local: only these tests read the
/// metrics listener).
async fn server_with_metrics(rate_limit: u32) -> (Server, String) {
    let s = Server::start(rate_limit).await;
    let at = metrics_of(&s).await;
    (s, at)
}

/// The address of a new metrics listener of `s`.
async fn metrics_of(s: &Server) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let at = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(gore_server::serve_metrics(
        listener,
        s.state.clone(),
        std::future::pending(),
    ));
    at
}

/// The samples of a scrape: each series (name and labels, as written)
/// with its value. The text must be well formed: `# TYPE`/`# HELP` lines,
/// samples `SERIES VALUE`, and `# EOF` last.
async fn scrape(at: &str) -> HashMap<String, f64> {
    let r = bot().get(format!("{at}/metrics")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let kind = r.headers()["content-type"].to_str().unwrap().to_string();
    assert!(kind.starts_with("application/openmetrics-text"), "{kind}");
    let text = r.text().await.unwrap();
    assert_eq!(text.lines().last(), Some("# EOF"), "{text}");
    let mut samples = HashMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("{line}"));
        let value: f64 = value.parse().unwrap_or_else(|_| panic!("{line}"));
        assert!(
            samples.insert(series.to_string(), value).is_none(),
            "twice: {line}"
        );
    }
    samples
}

/// A series' value (0 when it was never written).
fn value(samples: &HashMap<String, f64>, series: &str) -> f64 {
    samples.get(series).copied().unwrap_or(0.0)
}

/// How much each series moved between two scrapes.
fn moved(before: &HashMap<String, f64>, after: &HashMap<String, f64>, series: &str) -> f64 {
    value(after, series) - value(before, series)
}

/// One action over HTTP, one over the game's socket, and a stale one each
/// way: the acknowledged and refused counters move by one each, with the
/// code; the latency histogram counts the four; the commits are timed;
/// the socket is counted while open.
#[tokio::test(flavor = "multi_thread")]
async fn playing_moves_the_counters_by_exactly_what_was_done() {
    let (s, at) = server_with_metrics(0).await;
    let c = bot();
    let g = create_game(&c, &s, json!({"mode": "local"})).await;
    let id = g.id.clone();
    let token = g.token.clone();
    let mut ws = s.ws(&id, Some(&token)).await;
    let first = next_state(&mut ws).await;
    let before = scrape(&at).await;
    assert_eq!(value(&before, r#"gore_sockets_open{kind="game"}"#), 1.0);
    assert_eq!(value(&before, r#"gore_sockets_open{kind="lobby"}"#), 0.0);
    assert!(value(&before, "gore_games_in_memory") >= 1.0);
    assert!(value(&before, "gore_descriptors_open") > 0.0);
    assert!(value(&before, "gore_descriptors_limit") >= value(&before, "gore_descriptors_open"));
    assert_eq!(value(&before, "gore_db_failed_closed"), 0.0);

    // Over HTTP: one acknowledged, one stale.
    let a = legal(&first)[0].clone();
    let (st, v) = act(&c, &s, &id, Some(&token), json!({"action": a, "ply": 0})).await;
    assert_eq!(st, 200, "{v}");
    let (st, v) = act(&c, &s, &id, Some(&token), json!({"action": a, "ply": 0})).await;
    assert_eq!(st, 409, "{v}");
    // Over the socket: one acknowledged, one stale.
    let now = state_with(&mut ws, 1).await;
    let b = legal(&now)[0].clone();
    send_action(&mut ws, &b, 1).await;
    let now = state_with(&mut ws, 2).await;
    send_action(&mut ws, &legal(&now)[0], 0).await;
    assert_eq!(next_error(&mut ws).await["code"], "stale");

    let after = scrape(&at).await;
    let m = |series: &str| moved(&before, &after, series);
    assert_eq!(m(r#"gore_actions_acknowledged_total{via="http"}"#), 1.0);
    assert_eq!(m(r#"gore_actions_acknowledged_total{via="socket"}"#), 1.0);
    assert_eq!(
        m(r#"gore_actions_refused_total{via="http",code="stale"}"#),
        1.0
    );
    assert_eq!(
        m(r#"gore_actions_refused_total{via="socket",code="stale"}"#),
        1.0
    );
    assert_eq!(m("gore_action_seconds_count"), 4.0);
    assert!(m("gore_action_seconds_sum") > 0.0);
    // The HTTP refusal is an error answer too; the socket's is not HTTP.
    assert_eq!(m(r#"gore_http_refusals_total{code="stale"}"#), 1.0);
    // The two actions were committed (other changes may be too).
    assert!(m("gore_db_commit_seconds_count") >= 2.0);
    assert_eq!(m("gore_db_commit_failures_total"), 0.0);

    drop(ws);
    // The socket is counted until its loop ends: wait for it.
    let t0 = std::time::Instant::now();
    loop {
        let now = scrape(&at).await;
        if value(&now, r#"gore_sockets_open{kind="game"}"#) == 0.0 {
            break;
        }
        assert!(t0.elapsed().as_secs() < 30, "the socket is still counted");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// Every `429` of the rate limit is counted with its code, exactly.
#[tokio::test(flavor = "multi_thread")]
async fn a_rate_limit_refusal_is_counted_with_its_code() {
    let (s, at) = server_with_metrics(1).await;
    let before = scrape(&at).await;
    let c = bot();
    let mut limited = 0;
    for _ in 0..8 {
        let r = c.get(s.at("/api/games/nosuchgame0")).send().await.unwrap();
        limited += usize::from(r.status() == 429);
    }
    assert!(limited > 0, "the limit of 1 a second never refused");
    let after = scrape(&at).await;
    assert_eq!(
        moved(
            &before,
            &after,
            r#"gore_http_refusals_total{code="rate_limited"}"#
        ),
        limited as f64
    );
}

/// The metrics are on their own listener only: the public port answers
/// `/metrics` 404, and the metrics' listener serves nothing else.
#[tokio::test(flavor = "multi_thread")]
async fn the_metrics_are_not_served_on_the_public_port() {
    let (s, at) = server_with_metrics(0).await;
    let r = bot().get(s.at("/metrics")).send().await.unwrap();
    assert_eq!(r.status(), 404);
    let text = r.text().await.unwrap();
    assert!(!text.contains("gore_actions"), "{text}");
    let r = bot().get(format!("{at}/")).send().await.unwrap();
    assert_eq!(r.status(), 404);
    assert!(scrape(&at).await.contains_key("gore_games_in_memory"));
}

/// An AI turn is timed once, waiting and searching, under its level.
#[tokio::test(flavor = "multi_thread")]
async fn an_ai_turn_is_timed_by_its_level() {
    let (s, at) = server_with_metrics(0).await;
    let before = scrape(&at).await;
    let c = bot();
    // The AI plays A, first.
    let g = create_game(&c, &s, json!({"mode": "ai", "level": 1, "colour": "B"})).await;
    let id = g.id.as_str();
    poll_until(&c, &s, id, |v| ply(v) >= 1).await;
    let after = scrape(&at).await;
    let m = |series: &str| moved(&before, &after, series);
    assert_eq!(m(r#"gore_ai_wait_seconds_count{level="1"}"#), 1.0);
    assert_eq!(m(r#"gore_ai_search_seconds_count{level="1"}"#), 1.0);
    assert!(m(r#"gore_ai_search_seconds_sum{level="1"}"#) > 0.0);
    // The AI's move was committed.
    assert!(m("gore_db_commit_seconds_count") >= 1.0);
}

/// Several servers on PostgreSQL: a server that holds a game hears the
/// other's action as a notice, counts it, and times the catch-up; it is
/// not behind, and ready.
#[tokio::test(flavor = "multi_thread")]
async fn notices_from_another_server_are_counted() {
    let Some(base) = postgres_url() else {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("GORE_TEST_POSTGRES is not set: under CI=true the PostgreSQL tests must run");
        }
        eprintln!("\n*** WARNING: GORE_TEST_POSTGRES is not set: notices were NOT tested. ***");
        return;
    };
    let url = fresh_pg_database(&base).await;
    let on_url = |c: &mut gore_server::Config| c.db = url.clone();
    let (s1, s2) = (server(on_url).await, server(on_url).await);
    let at2 = metrics_of(&s2).await;
    let c = bot();
    let g = create_game(&c, &s1, json!({"mode": "local"})).await;
    let (id, token) = (g.id.as_str(), g.token.as_str());
    // Server 2 holds the game: a spectator's socket there.
    let mut watcher = s2.ws(id, None).await;
    next_state(&mut watcher).await;
    let before = scrape(&at2).await;
    let a = legal(&get_as(&c, &s1, id, token).await)[0].clone();
    let (st, v) = act(&c, &s1, id, Some(token), json!({"action": a, "ply": 0})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(ply(&state_with(&mut watcher, 1).await), 1);
    let after = scrape(&at2).await;
    assert!(moved(&before, &after, "gore_notices_received_total") >= 1.0);
    assert!(moved(&before, &after, "gore_catch_up_seconds_count") >= 1.0);
    assert_eq!(value(&after, "gore_behind_notices"), 0.0);
    // Server 2 did not act: nothing acknowledged there.
    assert_eq!(
        moved(
            &before,
            &after,
            r#"gore_actions_acknowledged_total{via="http"}"#
        ),
        0.0
    );
    let r = bot().get(s2.at("/readyz")).send().await.unwrap();
    assert_eq!(r.status(), 200);
}

/// Waits until `series` reads `want` in a scrape of `at` (60 s at most: a
/// deadline for a failing test; the pairing may be the ticker's).
async fn scrape_until(at: &str, series: &str, want: f64) -> HashMap<String, f64> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let now = scrape(at).await;
        if value(&now, series) >= want {
            return now;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{series} never reached {want}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// Tournament pairings are counted by kind, each pass that paired timed:
/// an arena of three pairs one game (the third player waits), a Swiss
/// event of five pairs its first round's two games (the fifth has the
/// bye); nothing before the start, and nothing more when nobody is free.
#[tokio::test(flavor = "multi_thread")]
async fn tournament_pairings_are_counted_by_kind() {
    use gore_server::domain::clock::Clock;
    // 2026-12-01, Unix ms: the manual clock's start.
    const T0: i64 = 1_796_083_200_000;
    let clock = Clock::manual(T0);
    let dir = tempfile::tempdir().unwrap();
    let config = gore_server::Config {
        clock: clock.clone(),
        ..config_in(&dir)
    };
    let s = Server::start_with(dir, config).await;
    let at = metrics_of(&s).await;
    let start = T0 + 60_000;
    let mut cookies = Vec::new();
    for name in ["Ana", "Bea", "Cai", "Dan", "Eli", "Fay", "Gil", "Hal"] {
        cookies.push(account(&s, name).await);
    }
    let mut ids = Vec::new();
    for body in [
        json!({"name": "Arena", "kind": "arena", "clock": "3+2", "starts_at": start, "minutes": 30}),
        json!({"name": "Swiss", "kind": "swiss", "clock": "3+2", "starts_at": start, "rounds": 3}),
    ] {
        let (st, v) = post_with(&s, &cookies[0], "/api/tournaments", body).await;
        assert_eq!(st, 201, "{v}");
        ids.push(v["id"].as_str().unwrap().to_string());
    }
    let join = |id: &str, cookie: &str| {
        let (id, cookie) = (id.to_string(), cookie.to_string());
        let s = &s;
        async move {
            let path = format!("/api/tournaments/{id}/join");
            let (st, v) = post_with(s, &cookie, &path, json!({})).await;
            assert_eq!(st, 200, "{v}");
        }
    };
    for cookie in &cookies[..3] {
        join(&ids[0], cookie).await;
    }
    for cookie in &cookies[3..] {
        join(&ids[1], cookie).await;
    }
    s.state.tournaments().tick().await;
    let before = scrape(&at).await;
    let arena = r#"gore_tournament_games_paired_total{kind="arena"}"#;
    let swiss = r#"gore_tournament_games_paired_total{kind="swiss"}"#;
    assert_eq!(value(&before, arena), 0.0);
    assert_eq!(value(&before, swiss), 0.0);
    assert_eq!(value(&before, "gore_tournament_pairing_seconds_count"), 0.0);

    clock.advance(std::time::Duration::from_millis(60_000));
    s.state.tournaments().tick().await;
    scrape_until(&at, arena, 1.0).await;
    scrape_until(&at, swiss, 2.0).await;
    // Nobody is free now: more passes pair nothing.
    s.state.tournaments().tick().await;
    s.state.tournaments().tick().await;
    let after = scrape(&at).await;
    assert_eq!(value(&after, arena), 1.0);
    assert_eq!(value(&after, swiss), 2.0);
    assert_eq!(value(&after, "gore_tournament_pairing_seconds_count"), 2.0);
    assert!(value(&after, "gore_tournament_pairing_seconds_sum") > 0.0);
}
