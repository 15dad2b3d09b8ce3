//! Issue 29, point 3: a player's page lists the tournaments he played
//! (name, kind, start, his rank and score, a link), from the arena's own
//! standings. An arena played through the API with a manual clock: three
//! players, three games worked by hand; a fourth joins and withdraws
//! before the start, and is not listed. On PostgreSQL too when
//! `GORE_TEST_POSTGRES` is set.

mod common;

use std::time::Duration;

use common::*;
use gore_server::domain::clock::Clock;
use serde_json::json;

/// A fixed start for the manual clock (2026-12-01, Unix ms).
const T0: i64 = 1_796_083_200_000;

/// `w` and `l` (paused) join, are paired, pause again; `w` wins their
/// game (each makes an action, then `l` resigns).
async fn game(s: &Server, id: &str, (w, wc): (&str, &str), (l, lc): (&str, &str)) {
    post_ok(s, wc, &format!("/api/tournaments/{id}/join")).await;
    post_ok(s, lc, &format!("/api/tournaments/{id}/join")).await;
    let d = wait_get(s, "", &format!("/api/tournaments/{id}"), |d| {
        game_of(d, w).is_some() && game_of(d, w) == game_of(d, l)
    })
    .await;
    post_ok(s, wc, &format!("/api/tournaments/{id}/pause")).await;
    post_ok(s, lc, &format!("/api/tournaments/{id}/pause")).await;
    let g = game_of(&d, w).unwrap();
    win(s, &g, wc, lc).await;
}

/// The tournaments on `name`'s page: (name, kind, starts_at, phase,
/// rank, players, score).
async fn played(s: &Server, name: &str) -> Vec<(String, String, i64, String, u64, u64, f64)> {
    let (st, page) = get_with(s, "", &format!("/api/players/{name}")).await;
    assert_eq!(st, 200, "{page}");
    page["tournaments"]
        .as_array()
        .unwrap_or_else(|| panic!("no tournaments on the page: {page}"))
        .iter()
        .map(|t| {
            assert_eq!(
                t["url"],
                format!("/tournament/{}", t["id"].as_str().unwrap()).as_str()
            );
            (
                t["name"].as_str().unwrap().to_string(),
                t["kind"].as_str().unwrap().to_string(),
                t["starts_at"].as_i64().unwrap(),
                t["phase"].as_str().unwrap().to_string(),
                t["rank"].as_u64().unwrap(),
                t["players"].as_u64().unwrap(),
                t["score"].as_f64().unwrap(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_finished_arena_is_on_its_players_pages_with_rank_and_score() {
    let clock = Clock::manual(T0);
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_in(&dir);
    config.clock = clock.clone();
    let s = Server::start_with(dir, config).await;
    let ana = account(&s, "Ana").await;
    let bea = account(&s, "Bea").await;
    let cai = account(&s, "Cai").await;
    let gil = account(&s, "Gil").await;
    let start = T0 + 60_000;
    let (st, v) = post_with(
        &s,
        &ana,
        "/api/tournaments",
        json!({"name": "Friday", "kind": "arena", "clock": "3+2", "rules": "standard",
               "rated": true, "starts_at": start, "minutes": 30}),
    )
    .await;
    assert_eq!(st, 201, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    for c in [&ana, &bea, &cai, &gil] {
        post_ok(&s, c, &format!("/api/tournaments/{id}/join")).await;
    }
    // Gil withdraws before the start: out of the standings, off his page.
    post_ok(&s, &gil, &format!("/api/tournaments/{id}/withdraw")).await;
    for c in [&ana, &bea, &cai] {
        post_ok(&s, c, &format!("/api/tournaments/{id}/pause")).await;
    }
    // Before the start: listed, no points (the three tie: the rank among
    // them is the standings' tie order, not checked here).
    let upcoming = played(&s, "Ana").await;
    assert_eq!(upcoming.len(), 1, "{upcoming:?}");
    let (name, kind, at, phase, _, players, score) = upcoming[0].clone();
    assert_eq!(
        (
            name.as_str(),
            kind.as_str(),
            at,
            phase.as_str(),
            players,
            score
        ),
        ("Friday", "arena", start, "upcoming", 3, 0.0)
    );
    clock.advance(Duration::from_millis(60_000));

    // By hand (docs/RULES.md, "Arena"): a win is 2 points, a loss 0; no
    // one wins twice in a row here but Ana, whose second win is not yet
    // doubled (the double comes after two). Ana beats Bea (2), Ana beats
    // Cai (4), Bea beats Cai (2): Ana 4 first, Bea 2 second, Cai 0 third.
    game(&s, &id, ("Ana", &ana), ("Bea", &bea)).await;
    game(&s, &id, ("Ana", &ana), ("Cai", &cai)).await;
    game(&s, &id, ("Bea", &bea), ("Cai", &cai)).await;
    wait_get(&s, "", &format!("/api/tournaments/{id}"), |d| {
        let n: u64 = d["standings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["games"].as_u64().unwrap())
            .sum();
        n == 6 && d["playing"].as_array().unwrap().is_empty()
    })
    .await;
    // While it runs: live.
    assert_eq!(played(&s, "Ana").await[0].3, "running");

    // The end: finished, and on each page his own line.
    clock.advance(Duration::from_secs(30 * 60));
    s.state.tournaments().tick().await;
    wait_get(&s, "", &format!("/api/tournaments/{id}"), |d| {
        d["tournament"]["phase"] == "finished"
    })
    .await;
    let line = |phase: &str, rank: u64, score: f64| {
        vec![(
            "Friday".to_string(),
            "arena".to_string(),
            start,
            phase.to_string(),
            rank,
            3,
            score,
        )]
    };
    assert_eq!(played(&s, "Ana").await, line("finished", 1, 4.0));
    assert_eq!(played(&s, "Bea").await, line("finished", 2, 2.0));
    assert_eq!(played(&s, "Cai").await, line("finished", 3, 0.0));
    assert_eq!(played(&s, "Gil").await, vec![]);
}
