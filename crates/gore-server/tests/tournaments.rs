//! Issue 29, arenas on the server: created and listed through the API,
//! joined by accounts, paired once by the holder of the tournament's
//! pairing lease, their games played to the end through the API, the
//! standings checked against tables worked by hand from docs/RULES.md
//! ("Tournaments", "Arena"); a withdrawn player never paired; no player in
//! two games of one arena; a restart keeps everything and goes on pairing;
//! two servers on one database pair each free player once. The time is a
//! manual clock: pairing waits on the start, and a lapsed lease on it. On
//! PostgreSQL too when `GORE_TEST_POSTGRES` is set.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use common::*;
use gore_server::domain::clock::Clock;
use gore_server::domain::tournaments::LEASE;
use serde_json::{json, Value};

/// A fixed start for the manual clock (2026-12-01, Unix ms).
const T0: i64 = 1_796_083_200_000;

async fn arena(s: &Server, cookie: &str, starts_at: i64) -> String {
    let (st, v) = post_with(
        s,
        cookie,
        "/api/tournaments",
        json!({"name": "Hourly 3+2", "kind": "arena", "clock": "3+2", "rules": "standard",
               "rated": true, "starts_at": starts_at, "minutes": 30}),
    )
    .await;
    assert_eq!(st, 201, "{v}");
    v["id"].as_str().unwrap().to_string()
}

async fn detail(s: &Server, id: &str) -> Value {
    let (st, v) = get_with(s, "", &format!("/api/tournaments/{id}")).await;
    assert_eq!(st, 200, "{v}");
    no_one_twice(&v);
    v
}

/// Nobody is in two games of the arena at once.
fn no_one_twice(d: &Value) {
    let mut seen = BTreeSet::new();
    for g in d["playing"].as_array().unwrap() {
        for side in ["a", "b"] {
            let who = g[side][0].as_str().unwrap().to_string();
            assert!(seen.insert(who.clone()), "{who} in two games at once: {d}");
        }
    }
}

/// Polls the arena's page until `pred` holds (60 s at most: a deadline
/// for a failing test, generous for a loaded machine).
async fn wait_for(s: &Server, id: &str, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let d = detail(s, id).await;
        if pred(&d) {
            return d;
        }
        assert!(Instant::now() < deadline, "{what}: never came: {d}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The players of the test, by name: their session cookies.
struct Players(BTreeMap<&'static str, String>);

impl Players {
    fn c(&self, name: &str) -> &str {
        &self.0[name]
    }
}

/// One round: for each (winner, loser), both (paused since their last
/// game) join, one after the other, so that they are the only free pair
/// and meet; both pause again (their game goes on, they are not paired
/// after it), and the game is played to the end. Then waits until every
/// result is in the standings (`games` finished games in all).
async fn round(s: &Server, id: &str, p: &Players, pairs: &[(&str, &str)], games: u64) {
    for &(w, l) in pairs {
        tournament_ok(s, p.c(w), id, "join").await;
        tournament_ok(s, p.c(l), id, "join").await;
        let d = wait_for(s, id, &format!("{w} and {l} paired"), |d| {
            game_of(d, w).is_some() && game_of(d, w) == game_of(d, l)
        })
        .await;
        tournament_ok(s, p.c(w), id, "pause").await;
        tournament_ok(s, p.c(l), id, "pause").await;
        let g = game_of(&d, w).unwrap();
        win(s, &g, p.c(w), p.c(l)).await;
    }
    wait_for(s, id, "the round's results", |d| {
        let n: u64 = d["standings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["games"].as_u64().unwrap())
            .sum();
        n == 2 * games && d["playing"].as_array().unwrap().is_empty()
    })
    .await;
}

/// The standings as (name, score, games, wins, on fire, performance), in
/// rank order.
fn table(d: &Value) -> Vec<(String, u64, u64, u64, bool, Value)> {
    d["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["name"].as_str().unwrap().to_string(),
                l["score"].as_u64().unwrap(),
                l["games"].as_u64().unwrap(),
                l["wins"].as_u64().unwrap(),
                l["on_fire"].as_bool().unwrap(),
                l["performance"].clone(),
            )
        })
        .collect()
}

/// Checks the standings against a hand-worked table, in rank order, where
/// `ties` lists the groups of names whose order is the ids' (equal on
/// score, performance and rating: their order is not the test's to know).
fn check_table(d: &Value, want: &[(&str, u64, u64, u64, bool, Value)], ties: &[&[&str]]) {
    let got = table(d);
    assert_eq!(got.len(), want.len(), "{d}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let tied = ties.iter().find(|t| t.contains(&w.0));
        match tied {
            Some(t) => assert!(
                t.contains(&g.0.as_str()),
                "rank {}: {g:?}, want one of {t:?}",
                i + 1
            ),
            None => assert_eq!(g.0, w.0, "rank {}: {d}", i + 1),
        }
        let w_line = line(d, w.0);
        assert_eq!(
            (
                w_line["score"].as_u64().unwrap(),
                w_line["games"].as_u64().unwrap(),
                w_line["wins"].as_u64().unwrap(),
                w_line["on_fire"].as_bool().unwrap(),
                w_line["performance"].clone()
            ),
            (w.1, w.2, w.3, w.4, w.5.clone()),
            "{}: {d}",
            w.0
        );
    }
}

/// An arena through the API from its creation to its fourth round, the
/// standings after each round worked by hand. All players are new
/// accounts rated 1500, so performance is 1500 + 500 × (wins − losses) ÷
/// games (RULES.md), and players equal on score and performance are in
/// the order of their ids (unknown here: checked as a group). The test
/// makes each pairing by letting exactly two free players in at a time
/// (the others paused), so who meets whom is the test's; the arena's own
/// choice among many is checked in the next test.
///
/// Round 1: Ana beats Bea, Cai beats Dan, Fay beats Eli.
///   Ana 2, Cai 2, Fay 2 (perf 1500 + 500 = 2000); Bea, Dan, Eli 0 (1000).
/// Round 2: Ana beats Cai, Fay beats Bea, Dan beats Eli.
///   Ana W W = 4 and on fire, Fay W W = 4 on fire (perf 2000);
///   Cai W L = 2, Dan L W = 2 (perf 1500); Bea L L, Eli L L = 0 (1000).
/// Round 3: Ana beats Fay (Ana on fire: 4, doubled), Cai beats Eli, Bea
///   beats Dan. Then Eli withdraws.
///   Ana W W W = 2 + 2 + 4 = 8, on fire, perf 1500 + 500 × 3/3 = 2000;
///   Cai W L W = 4, perf 1500 + 500 × 1/3 = 1666 (rounded down);
///   Fay W W L = 4, the fire out, perf 1666; Bea L L W = 2, perf
///   1500 − 500/3 = 1333; Dan L W L = 2, perf 1333; Eli L L L = 0, 1000.
/// A restart: server 1 stops pairing, server 2 on the same database takes
/// the lease once it has run out; the standings are the same.
/// Round 4, on server 2: Cai beats Ana, Bea beats Fay; Eli, withdrawn,
///   asks to join and is refused, and Dan, alone free, is not paired.
///   Ana W W W L = 8, fire out, perf 1500 + 500 × 2/4 = 1750;
///   Cai W L W W = 2 + 0 + 2 + 2 = 6 (his game 4 not doubled: L then W
///   before it), on fire, perf 1750; Bea L L W W = 4, on fire, perf 1500;
///   Fay W W L L = 4, perf 1500; Dan 2, perf 1333; Eli 0, 1000.
#[tokio::test(flavor = "multi_thread")]
async fn an_arena_played_through_the_api_matches_the_hand_worked_standings() {
    let clock = Clock::manual(T0);
    let dir = tempfile::tempdir().unwrap();
    let db = db_path(&dir);
    let s1 = server_on_db(&clock, &db).await;
    let mut cookies = BTreeMap::new();
    for name in ["Ana", "Bea", "Cai", "Dan", "Eli", "Fay", "Gil"] {
        cookies.insert(name, account(&s1, name).await);
    }
    let p = Players(cookies);
    let start = T0 + 60_000;
    let id = arena(&s1, p.c("Ana"), start).await;

    // Listed as upcoming; nobody paired before the start, however many
    // join. Gil joins and withdraws before the start: he is gone.
    let (_, lists) = get_with(&s1, "", "/api/tournaments").await;
    assert_eq!(lists["upcoming"][0]["id"], id.as_str(), "{lists}");
    assert_eq!(lists["upcoming"][0]["phase"], "upcoming");
    assert_eq!(lists["running"], json!([]));
    for name in ["Ana", "Bea", "Gil"] {
        tournament_ok(&s1, p.c(name), &id, "join").await;
    }
    tournament_ok(&s1, p.c("Gil"), &id, "withdraw").await;
    s1.state.tournaments().tick().await;
    let d = detail(&s1, &id).await;
    assert_eq!(d["playing"], json!([]), "{d}");
    let names: Vec<&str> = d["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{d}");
    assert!(!names.contains(&"Gil"), "{d}");
    // Everyone pauses until his round; then the start.
    for name in ["Ana", "Bea"] {
        tournament_ok(&s1, p.c(name), &id, "pause").await;
    }
    clock.advance(Duration::from_millis(60_000));
    let (_, lists) = get_with(&s1, "", "/api/tournaments").await;
    assert_eq!(lists["running"][0]["phase"], "running", "{lists}");

    let fire = true;
    round(
        &s1,
        &id,
        &p,
        &[("Ana", "Bea"), ("Cai", "Dan"), ("Fay", "Eli")],
        3,
    )
    .await;
    let d = detail(&s1, &id).await;
    check_table(
        &d,
        &[
            ("Ana", 2, 1, 1, !fire, json!(2000)),
            ("Cai", 2, 1, 1, !fire, json!(2000)),
            ("Fay", 2, 1, 1, !fire, json!(2000)),
            ("Bea", 0, 1, 0, !fire, json!(1000)),
            ("Dan", 0, 1, 0, !fire, json!(1000)),
            ("Eli", 0, 1, 0, !fire, json!(1000)),
        ],
        &[&["Ana", "Cai", "Fay"], &["Bea", "Dan", "Eli"]],
    );

    round(
        &s1,
        &id,
        &p,
        &[("Ana", "Cai"), ("Fay", "Bea"), ("Dan", "Eli")],
        6,
    )
    .await;
    let d = detail(&s1, &id).await;
    check_table(
        &d,
        &[
            ("Ana", 4, 2, 2, fire, json!(2000)),
            ("Fay", 4, 2, 2, fire, json!(2000)),
            ("Cai", 2, 2, 1, !fire, json!(1500)),
            ("Dan", 2, 2, 1, !fire, json!(1500)),
            ("Bea", 0, 2, 0, !fire, json!(1000)),
            ("Eli", 0, 2, 0, !fire, json!(1000)),
        ],
        &[&["Ana", "Fay"], &["Cai", "Dan"], &["Bea", "Eli"]],
    );

    round(
        &s1,
        &id,
        &p,
        &[("Ana", "Fay"), ("Cai", "Eli"), ("Bea", "Dan")],
        9,
    )
    .await;
    tournament_ok(&s1, p.c("Eli"), &id, "withdraw").await;
    let d = detail(&s1, &id).await;
    let r3 = [
        ("Ana", 8, 3, 3, fire, json!(2000)),
        ("Cai", 4, 3, 2, !fire, json!(1666)),
        ("Fay", 4, 3, 2, !fire, json!(1666)),
        ("Bea", 2, 3, 1, !fire, json!(1333)),
        ("Dan", 2, 3, 1, !fire, json!(1333)),
        ("Eli", 0, 3, 0, !fire, json!(1000)),
    ];
    let r3_ties: &[&[&str]] = &[&["Cai", "Fay"], &["Bea", "Dan"]];
    check_table(&d, &r3, r3_ties);
    // Ana's sheet: her third win counted double.
    let sheet: Vec<(u64, bool)> = sheet_of(&s1, &id, &d, "Ana").await["sheet"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["points"].as_u64().unwrap(),
                x["doubled"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(sheet, vec![(2, false), (2, false), (4, true)]);
    assert_eq!(line(&d, "Eli")["presence"], "withdrawn");

    // The restart: server 1 stops pairing (as a server that died); server
    // 2 on the same database shows the same standings, and takes the
    // lease once server 1's has run out.
    s1.state.tournaments().halt();
    let s2 = server_on_db(&clock, &db).await;
    let d2 = detail(&s2, &id).await;
    assert_eq!(d2["standings"], d["standings"], "the standings survive");
    clock.advance(LEASE + Duration::from_secs(1));
    let mut q = BTreeMap::new();
    for name in ["Ana", "Bea", "Cai", "Dan", "Eli", "Fay"] {
        q.insert(name, log_in(&s2, name).await);
    }
    let q = Players(q);
    // Eli withdrew: he may not come back.
    let (st, v) = post_with(
        &s2,
        q.c("Eli"),
        &format!("/api/tournaments/{id}/join"),
        json!({}),
    )
    .await;
    assert_eq!(st, 409, "{v}");
    assert_eq!(
        error_of(&v).reason.as_deref(),
        Some("tournament_withdrawn"),
        "{v}"
    );
    round(&s2, &id, &q, &[("Cai", "Ana"), ("Bea", "Fay")], 11).await;
    // Dan alone joins: nobody to meet (Eli withdrawn, the others paused).
    tournament_ok(&s2, q.c("Dan"), &id, "join").await;
    s2.state.tournaments().tick().await;
    let d = detail(&s2, &id).await;
    assert_eq!(game_of(&d, "Dan"), None, "{d}");
    assert_eq!(game_of(&d, "Eli"), None, "{d}");
    check_table(
        &d,
        &[
            ("Ana", 8, 4, 3, !fire, json!(1750)),
            ("Cai", 6, 4, 3, fire, json!(1750)),
            ("Bea", 4, 4, 2, fire, json!(1500)),
            ("Fay", 4, 4, 2, !fire, json!(1500)),
            ("Dan", 2, 3, 1, !fire, json!(1333)),
            ("Eli", 0, 3, 0, !fire, json!(1000)),
        ],
        &[&["Bea", "Fay"]],
    );
    // Eli's games: three, none after his withdrawal.
    let eli = sheet_of(&s2, &id, &d, "Eli").await;
    assert_eq!(eli["sheet"].as_array().unwrap().len(), 3, "{eli}");

    // The end: after 30 minutes nothing is paired and nobody joins; with
    // no game running the arena is finished.
    clock.advance(Duration::from_secs(30 * 60));
    let (st, v) = post_with(
        &s2,
        q.c("Ana"),
        &format!("/api/tournaments/{id}/join"),
        json!({}),
    )
    .await;
    assert_eq!(
        (st, v["error"]["reason"].as_str()),
        (409, Some("tournament_over")),
        "{v}"
    );
    s2.state.tournaments().tick().await;
    let (_, lists) = get_with(&s2, "", "/api/tournaments").await;
    assert_eq!(lists["finished"][0]["id"], id.as_str(), "{lists}");
    assert_eq!(lists["finished"][0]["phase"], "finished", "{lists}");
    assert_eq!(lists["running"], json!([]), "{lists}");
}

/// Two servers on one database, eight players joined before the start
/// (four through each server), both servers pairing at the start at once
/// (their own ticks and the test's): each player is paired once, in one
/// game (his games on his page: one), the arena's four games are the
/// pairs of the rank order. All are 1500 with no points, so the rank is
/// the id order, and each meets the nearest below him (RULES.md): the
/// 1st the 2nd, the 3rd the 4th, and so on.
#[tokio::test(flavor = "multi_thread")]
async fn two_servers_pair_each_free_player_once() {
    let clock = Clock::manual(T0);
    let dir = tempfile::tempdir().unwrap();
    let db = db_path(&dir);
    let s1 = server_on_db(&clock, &db).await;
    let s2 = server_on_db(&clock, &db).await;
    let names = [
        "Amaia", "Benat", "Carmen", "Danel", "Edurne", "Fermin", "Garazi", "Haritz",
    ];
    let mut cookies = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let s = if i % 2 == 0 { &s1 } else { &s2 };
        cookies.push(account(s, name).await);
    }
    let start = T0 + 60_000;
    let id = arena(&s1, &cookies[0], start).await;
    for (i, c) in cookies.iter().enumerate() {
        let s = if i % 2 == 0 { &s1 } else { &s2 };
        tournament_ok(s, c, &id, "join").await;
    }
    clock.advance(Duration::from_millis(60_000));
    let (t1, t2) = (
        s1.state.tournaments().clone(),
        s2.state.tournaments().clone(),
    );
    tokio::join!(t1.tick(), t2.tick(), t1.tick(), t2.tick());
    let d = wait_for(&s2, &id, "four games", |d| {
        d["playing"].as_array().unwrap().len() == 4
    })
    .await;
    tokio::join!(t1.tick(), t2.tick());
    let d_again = detail(&s1, &id).await;
    assert_eq!(d_again["playing"], d["playing"], "paired once");
    // The pairs of the id order.
    let mut ids: Vec<String> = d["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["player"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    let want: BTreeSet<BTreeSet<String>> =
        ids.chunks(2).map(|c| c.iter().cloned().collect()).collect();
    let got: BTreeSet<BTreeSet<String>> = d["playing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            [&g["a"][0], &g["b"][0]]
                .into_iter()
                .map(|p| p.as_str().unwrap().to_string())
                .collect()
        })
        .collect();
    assert_eq!(got, want, "{d}");
    // Each player's page: one game, this arena's.
    for name in names {
        let (_, page) = get_with(&s1, "", &format!("/api/players/{name}")).await;
        let games = page["games"].as_array().unwrap();
        assert_eq!(games.len(), 1, "{name}: {page}");
        let game = games[0]["id"].as_str().unwrap();
        assert_eq!(game_of(&d, name).as_deref(), Some(game), "{name}");
    }
    // The featured game is the leader's (all equal: the first ranked).
    let leader = &d["standings"][0];
    assert_eq!(d["featured"], leader["game"], "{d}");
}

/// Every field of a new arena is checked, each refusal naming its field;
/// only accounts create and join; an unknown tournament is `not_found`.
#[tokio::test(flavor = "multi_thread")]
async fn bad_requests_are_refused_naming_the_field() {
    let clock = Clock::manual(T0);
    let dir = tempfile::tempdir().unwrap();
    let s = server_on_db(&clock, &db_path(&dir)).await;
    let ana = account(&s, "Ana").await;
    let ok = json!({"name": "Blitz", "clock": "3+2", "minutes": 30});
    let with = |k: &str, v: Value| {
        let mut b = ok.clone();
        b[k] = v;
        b
    };
    for (body, field) in [
        (with("name", json!("  ")), "name"),
        (with("name", json!("x".repeat(41))), "name"),
        (with("kind", json!("swiss")), "rounds"),
        (with("kind", json!("knockout")), "kind"),
        (with("clock", json!("1d")), "clock"),
        (with("clock", json!("fast")), "clock"),
        (with("clock", json!("none")), "clock"),
        (with("rules", json!("seeds=99")), "rules"),
        (with("minutes", json!(9)), "minutes"),
        (with("minutes", json!(181)), "minutes"),
        (with("starts_at", json!(T0 - 3_600_000)), "starts_at"),
        (with("starts_at", json!(T0 + 31 * 86_400_000)), "starts_at"),
    ] {
        let (st, v) = post_with(&s, &ana, "/api/tournaments", body.clone()).await;
        assert_eq!(st, 400, "{body}: {v}");
        let msg = error_of(&v).message;
        assert!(msg.starts_with(&format!("{field}:")), "{body}: {v}");
    }
    let (st, v) = post_with(&s, &ana, "/api/tournaments", with("minutes", json!(-1))).await;
    assert_eq!(st, 400, "{v}");
    // No account: refused, to create and to join.
    let visitor = visitor_cookie(&s).await;
    let (st, v) = post_with(&s, &visitor, "/api/tournaments", ok.clone()).await;
    assert_eq!(
        (st, v["error"]["reason"].as_str()),
        (401, Some("tournament_needs_account"))
    );
    let (st, v) = post_with(&s, &ana, "/api/tournaments", ok.clone()).await;
    assert_eq!(st, 201, "{v}");
    let id = v["id"].as_str().unwrap();
    assert_eq!(v["url"], format!("/tournament/{id}"));
    let (st, _) = post_with(
        &s,
        &visitor,
        &format!("/api/tournaments/{id}/join"),
        json!({}),
    )
    .await;
    assert_eq!(st, 401);
    // Pausing or withdrawing without having joined.
    let (st, v) = post_with(&s, &ana, &format!("/api/tournaments/{id}/pause"), json!({})).await;
    assert_eq!(
        (st, v["error"]["reason"].as_str()),
        (409, Some("tournament_not_joined"))
    );
    // Unknown and malformed ids.
    for bad in ["0000000000", "nope", "ABCDEFGHIJ"] {
        let (st, v) = get_with(&s, "", &format!("/api/tournaments/{bad}")).await;
        assert_eq!(
            (st, v["error"]["reason"].as_str()),
            (404, Some("no_tournament")),
            "{bad}"
        );
        let (st, _) = post_with(&s, &ana, &format!("/api/tournaments/{bad}/join"), json!({})).await;
        assert_eq!(st, 404, "{bad}");
    }
    // The arena starts now when no start is given.
    let (_, d) = get_with(&s, "", &format!("/api/tournaments/{id}")).await;
    assert_eq!(d["tournament"]["starts_at"], T0);
    assert_eq!(d["tournament"]["ends_at"], T0 + 30 * 60_000);
    assert_eq!(d["tournament"]["phase"], "running");
    assert_eq!(d["tournament"]["creator"], "Ana");
}

/// The two guards of a change made once, at the store, deterministic
/// (the servers' race above may or may not happen on a given run): a
/// pairing lease is held by one process at a time, renewed by its holder,
/// taken over once it runs out or its holder falls silent; and a state
/// saved over a version another save moved on from is refused whole, its
/// new games with it. Two handles of one database with their own names:
/// SQLite's (tests/common/shared.rs), and PostgreSQL's when set.
#[tokio::test(flavor = "multi_thread")]
async fn the_lease_and_the_version_let_one_change_through() {
    use gore_server::store::{DbUrl, Store, StoredTournament};
    let shared = common::shared::Shared::new();
    let mut pairs: Vec<(&str, [std::sync::Arc<dyn Store>; 2])> =
        vec![("sqlite", [shared.handle(1), shared.handle(2)])];
    if let Some(base) = postgres_url() {
        let url = DbUrl::parse(&fresh_pg_database(&base).await).unwrap();
        let open = || gore_server::store::open(&url, Default::default());
        pairs.push(("postgres", [open().await.unwrap(), open().await.unwrap()]));
    }
    for (n, [h1, h2]) in pairs {
        // A game's facts to insert with a pairing: a local game's, made
        // through the API on a server of the same database.
        let s = server_on_store(h1.clone(), |_| {}).await;
        // Its own pairing ticks (on the real clock, as h1) would take the
        // lease this test hands around by hand.
        s.state.tournaments().halt();
        let g = create_game(&browser(), &s, json!({"mode": "local"})).await;
        let mut info = h1.load_game(g.id.clone()).await.unwrap().unwrap().info;
        let now = T0;
        // States told apart by a name in them.
        let state = |tag: &str| {
            gore_server::domain::tournaments::TournamentState::from(
                gore_server::domain::tournaments::ArenaState {
                    arena: gore_tournament::arena::Arena::new(
                        gore_tournament::arena::ArenaConfig::new(T0 as u64, T0 as u64 + 600_000),
                    ),
                    names: [(tag.to_string(), tag.to_string())].into(),
                    games: Vec::new(),
                    bots: false,
                    bot_players: Default::default(),
                },
            )
        };
        h1.create_tournament(StoredTournament {
            id: "t000000001".into(),
            kind: "arena".into(),
            name: "lease".into(),
            creator: "c".into(),
            creator_addr: None,
            clock: "3+2".parse().unwrap(),
            rules: gore_core::Rules::STANDARD,
            rated: false,
            starts_at: now,
            ends_at: now + 600_000,
            finished: false,
            created_at: now,
            state: state("new"),
            version: 1,
        })
        .await
        .unwrap();
        let t = || "t000000001".to_string();
        for h in [&h1, &h2] {
            h.heartbeat(h.origin(), now, vec![], 0).await.unwrap();
        }
        let dead_before = now - 5_000;
        assert!(
            h1.claim_tournament(t(), now, now + 10_000, dead_before)
                .await
                .unwrap(),
            "{n}"
        );
        assert!(
            !h2.claim_tournament(t(), now, now + 10_000, dead_before)
                .await
                .unwrap(),
            "{n}"
        );
        // Renewed by its holder; still not the other's until it runs out.
        assert!(h1
            .claim_tournament(t(), now + 5_000, now + 15_000, dead_before)
            .await
            .unwrap());
        assert!(!h2
            .claim_tournament(t(), now + 14_999, now + 20_000, dead_before)
            .await
            .unwrap());
        assert!(
            h2.claim_tournament(t(), now + 15_000, now + 25_000, dead_before)
                .await
                .unwrap(),
            "{n}"
        );
        assert!(!h1
            .claim_tournament(t(), now + 15_000, now + 25_000, dead_before)
            .await
            .unwrap());
        // Its holder silent since before `dead_before`: taken at once.
        assert!(
            h1.claim_tournament(t(), now + 16_000, now + 26_000, now + 1)
                .await
                .unwrap(),
            "{n}"
        );
        // Compare and set: the first save over version 1 goes through; the
        // second, over the same version, is refused and its game is not
        // stored.
        info.id = "g000000001".into();
        assert!(h1
            .save_tournament(t(), 1, state("a"), false, vec![(0, info.clone())], vec![])
            .await
            .unwrap());
        // (A game numbered 1, so that only the version refuses it: a
        // second game 0 would be refused by its number too.)
        info.id = "g000000002".into();
        assert!(!h2
            .save_tournament(t(), 1, state("b"), false, vec![(1, info.clone())], vec![])
            .await
            .unwrap());
        assert!(!h2
            .save_tournament(t(), 1, state("c"), true, vec![], vec![])
            .await
            .unwrap());
        assert!(
            h1.load_game("g000000002".into()).await.unwrap().is_none(),
            "{n}"
        );
        assert!(
            h1.load_game("g000000001".into()).await.unwrap().is_some(),
            "{n}"
        );
        let stored = h2.tournament(t()).await.unwrap().unwrap();
        assert_eq!((stored.version, stored.state), (2, state("a")), "{n}");
    }
}

/// `--tournaments-hourly-arena`: the server schedules an arena every hour
/// (3+2, rated, 57 minutes from each full hour), this hour's and the
/// next, once however many servers share the database; without the flag,
/// none. T0 is a full hour (2026-12-01 00:00 UTC).
#[tokio::test(flavor = "multi_thread")]
async fn the_hourly_arena_is_scheduled_once_by_several_servers() {
    assert_eq!(T0 % 3_600_000, 0);
    let clock = Clock::manual(T0 + 30 * 60_000);
    let dir = tempfile::tempdir().unwrap();
    let db = db_path(&dir);
    let hourly = |db: String| {
        let clock = clock.clone();
        async move {
            let dir = tempfile::tempdir().unwrap();
            let mut config = config_in(&dir);
            config.db = db;
            config.clock = clock;
            config.tournaments_hourly_arena = true;
            Server::start_with(dir, config).await
        }
    };
    let (s1, s2) = (hourly(db.clone()).await, hourly(db.clone()).await);
    let (t1, t2) = (
        s1.state.tournaments().clone(),
        s2.state.tournaments().clone(),
    );
    for _ in 0..2 {
        tokio::join!(t1.tick(), t2.tick());
    }
    let (_, lists) = get_with(&s1, "", "/api/tournaments").await;
    let brief = |v: &Value| {
        v.as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t["name"].as_str().unwrap().to_string(),
                    t["clock"].as_str().unwrap().to_string(),
                    t["rated"].as_bool().unwrap(),
                    t["starts_at"].as_i64().unwrap(),
                    t["ends_at"].as_i64().unwrap(),
                )
            })
            .collect::<Vec<_>>()
    };
    let hour = |h: i64| {
        (
            "Hourly 3+2 arena".to_string(),
            "3+2".to_string(),
            true,
            T0 + h * 3_600_000,
            T0 + h * 3_600_000 + 57 * 60_000,
        )
    };
    assert_eq!(brief(&lists["running"]), vec![hour(0)], "{lists}");
    assert_eq!(brief(&lists["upcoming"]), vec![hour(1)], "{lists}");
    // An hour on: the first is over (nobody played), the second runs, the
    // third is announced.
    clock.advance(Duration::from_secs(3_600));
    tokio::join!(t1.tick(), t2.tick());
    tokio::join!(t1.tick(), t2.tick());
    let (_, lists) = get_with(&s2, "", "/api/tournaments").await;
    assert_eq!(brief(&lists["finished"]), vec![hour(0)], "{lists}");
    assert_eq!(brief(&lists["running"]), vec![hour(1)], "{lists}");
    assert_eq!(brief(&lists["upcoming"]), vec![hour(2)], "{lists}");
    // Without the flag (the default), the server schedules nothing.
    let other = tempfile::tempdir().unwrap();
    let plain = server_on_db(&clock, &db_path(&other)).await;
    plain.state.tournaments().tick().await;
    let (_, lists) = get_with(&plain, "", "/api/tournaments").await;
    assert_eq!(
        lists,
        json!({"upcoming": [], "running": [], "finished": []})
    );
}

/// A player who never makes his first action is not paired again and
/// again: the game is aborted after its first-action time (30 s, RULES.md
/// "Aborting"), counts for nobody, and the absent player is paused (he
/// joins again to play on); his opponent stays in and meets the next
/// player who comes.
#[tokio::test(flavor = "multi_thread")]
async fn an_absent_player_is_paused_after_his_abort() {
    let clock = Clock::manual(T0);
    let dir = tempfile::tempdir().unwrap();
    let s = server_on_db(&clock, &db_path(&dir)).await;
    let mut cookies = BTreeMap::new();
    for name in ["Ana", "Bea", "Cai"] {
        cookies.insert(name, account(&s, name).await);
    }
    let p = Players(cookies);
    let id = arena(&s, p.c("Ana"), T0).await;
    tournament_ok(&s, p.c("Ana"), &id, "join").await;
    tournament_ok(&s, p.c("Bea"), &id, "join").await;
    let d = wait_for(&s, &id, "Ana and Bea paired", |d| {
        game_of(d, "Ana").is_some()
    })
    .await;
    let game = game_of(&d, "Ana").unwrap();
    // A (to act first) never acts: at 30 s the game is aborted.
    let absent = d["playing"][0]["a"][1].as_str().unwrap().to_string();
    let present = d["playing"][0]["b"][1].as_str().unwrap().to_string();
    clock.advance(Duration::from_secs(30));
    s.state.games().settle_clocks().await;
    let (_, g) = get_with(&s, "", &format!("/api/games/{game}")).await;
    assert_eq!(result_of(&g).reason, "abort", "{g}");
    s.state.tournaments().tick().await;
    let d = wait_for(&s, &id, "the abort recorded", |d| {
        d["playing"].as_array().unwrap().is_empty()
    })
    .await;
    assert_eq!(line(&d, &absent)["presence"], "paused", "{d}");
    assert_eq!(line(&d, &present)["presence"], "joined", "{d}");
    for who in [&absent, &present] {
        assert_eq!(line(&d, who)["games"], 0, "an abort counts for nobody: {d}");
        assert_eq!(line(&d, who)["score"], 0, "{d}");
    }
    // Cai comes: he meets the one still in, not the absent one.
    tournament_ok(&s, p.c("Cai"), &id, "join").await;
    let d = wait_for(&s, &id, "Cai paired", |d| game_of(d, "Cai").is_some()).await;
    assert_eq!(game_of(&d, "Cai"), game_of(&d, &present), "{d}");
    assert_eq!(game_of(&d, &absent), None, "{d}");
}

/// Issue 37: an account has at most three tournaments not over, an
/// address six (whatever the accounts), a BOT none; a place is free again
/// once one of them is over. Before, one account from 20 addresses made
/// 1,197 running arenas in 1.5 s, and a BOT's token made them too.
#[tokio::test(flavor = "multi_thread")]
async fn an_account_and_an_address_have_few_tournaments_not_over() {
    use gore_server::domain::tournaments::{OPEN_PER_ACCOUNT, OPEN_PER_ADDRESS};
    assert_eq!((OPEN_PER_ACCOUNT, OPEN_PER_ADDRESS), (3, 6));
    let clock = Clock::manual(T0);
    let dir = tempfile::tempdir().unwrap();
    let s = server_on_db(&clock, &db_path(&dir)).await;
    let from = |last: u8| client_from(std::net::Ipv4Addr::new(127, 0, 0, last));
    let make = |c: reqwest::Client, cookie: String, kind: &'static str| {
        let s = &s;
        async move {
            let body = match kind {
                // In an hour: still not over at the end.
                "swiss" => json!({"name": "Club", "kind": "swiss", "clock": "3+2",
                                  "rounds": 3, "rated": false,
                                  "starts_at": T0 + 3_600_000}),
                _ => json!({"name": "Club", "kind": "arena", "clock": "3+2",
                            "minutes": 10, "rated": false}),
            };
            post_by(&c, s, &cookie, "/api/tournaments", body).await
        }
    };
    let refused = |(st, v): (u16, Value)| {
        assert_eq!(st, 409, "{v}");
        assert_eq!(v["error"]["reason"], "too_many_tournaments", "{v}");
        assert_eq!(v["error"]["params"]["max"], 3, "{v}");
        assert_eq!(v["error"]["params"]["address_max"], 6, "{v}");
    };
    let ana = account(&s, "Ana").await;
    // Three of either kind from one address; a fourth from anywhere is
    // refused.
    let mut anas = Vec::new();
    for kind in ["arena", "swiss", "arena"] {
        let (st, v) = make(from(1), ana.clone(), kind).await;
        assert_eq!(st, 201, "{v}");
        anas.push(v["id"].as_str().unwrap().to_string());
    }
    refused(make(from(1), ana.clone(), "arena").await);
    refused(make(from(2), ana.clone(), "swiss").await);
    // Others from Ana's address: three more in all, then the address is
    // full for everyone; from another address Cai still creates.
    let bea = account(&s, "Bea").await;
    let cai = account(&s, "Cai").await;
    for _ in 0..3 {
        let (st, v) = make(from(1), bea.clone(), "arena").await;
        assert_eq!(st, 201, "{v}");
    }
    refused(make(from(1), cai.clone(), "arena").await);
    let (st, v) = make(from(3), cai.clone(), "arena").await;
    assert_eq!(st, 201, "{v}");
    // A BOT creates none, by its token (its session was refused before).
    let (_, token) = bot_account(&s, "Robo").await;
    let r = from(4)
        .post(s.at("/api/tournaments"))
        .bearer_auth(&token)
        .json(&json!({"name": "Bots", "kind": "arena", "clock": "3+2", "minutes": 10}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 403);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"]["reason"], "bot_creates_no_tournament", "{v}");
    // Ana's and Bea's arenas end (10 minutes, nobody played): once over,
    // their places are free, and Ana (her Swiss event still to come)
    // creates two more and no third.
    clock.advance(Duration::from_secs(11 * 60));
    s.state.tournaments().tick().await;
    for id in [&anas[0], &anas[2]] {
        wait_for(&s, id, "the arena over", |d| {
            d["tournament"]["phase"] == "finished"
        })
        .await;
    }
    for _ in 0..2 {
        let (st, v) = make(from(1), ana.clone(), "arena").await;
        assert_eq!(st, 201, "{v}");
    }
    refused(make(from(1), ana.clone(), "arena").await);
}

/// Issue 37: a refused creation is refused again at once for a while,
/// without the database. Before, each refusal was three write
/// transactions, and a flood of them (725 a second from one account and
/// 20 addresses) cost the innocent more than d0da121's creations did.
/// Counted: the inserts of a tournament the server asks of the database.
#[tokio::test(flavor = "multi_thread")]
async fn a_refused_creation_is_refused_again_without_the_database() {
    use gore_server::domain::tournaments::REFUSED_FOR_MS;
    let clock = Clock::manual(T0);
    let dir = tempfile::tempdir().unwrap();
    let store = gore_server::store::sqlite::SqliteStore::open(
        &dir.path().join("counted.sqlite3"),
        Default::default(),
    )
    .unwrap();
    let (counted, inserts) = Counting::store(store, "INSERT INTO tournaments");
    let c = clock.clone();
    let s = server_on_store(counted, move |config| config.clock = c).await;
    let ana = account(&s, "Ana").await;
    let arena = json!({"name": "Club", "kind": "arena", "clock": "3+2", "minutes": 60});
    let browser = bot();
    let make = || post_by(&browser, &s, &ana, "/api/tournaments", arena.clone());
    for _ in 0..3 {
        assert_eq!(make().await.0, 201);
    }
    let asked = || inserts.lock().unwrap().len();
    assert_eq!(asked(), 3);
    // The fourth is refused by the database (its three tries), the next
    // ten at once.
    for n in 0..11 {
        let (st, v) = make().await;
        assert_eq!(st, 409, "{v}");
        assert_eq!(v["error"]["reason"], "too_many_tournaments", "{v}");
        assert_eq!(asked(), 6, "after refusal {n}");
    }
    // Later, the database is asked again.
    clock.advance(Duration::from_millis(REFUSED_FOR_MS as u64));
    assert_eq!(make().await.0, 409);
    assert_eq!(asked(), 9);
}

/// Issue 37: every running tournament is ticked however many there are.
/// Before, the ticks looked at the first 1,000 running by start: an arena
/// begun after a flood of 1,000 was paired at its joins, but its finished
/// games were never recorded and its players never paired again.
#[tokio::test(flavor = "multi_thread")]
async fn an_arena_begun_after_a_thousand_others_is_still_ticked() {
    use gore_server::store::{DbUrl, StoredTournament};
    let clock = Clock::manual(T0);
    let dir = tempfile::tempdir().unwrap();
    let db = db_path(&dir);
    let store = gore_server::store::open(&DbUrl::parse(&db).unwrap(), Default::default())
        .await
        .unwrap();
    // The flood, begun a minute before the innocent's arena.
    let begun = T0 - 60_000;
    for n in 0..1_000 {
        let arena = gore_tournament::arena::Arena::new(gore_tournament::arena::ArenaConfig::new(
            begun as u64,
            begun as u64 + 180 * 60_000,
        ));
        store
            .create_tournament(StoredTournament {
                id: format!("f{n:09}"),
                kind: "arena".into(),
                name: format!("flood {n}"),
                creator: "flooder".into(),
                creator_addr: None,
                clock: "3+2".parse().unwrap(),
                rules: gore_core::Rules::STANDARD,
                rated: false,
                starts_at: begun,
                ends_at: begun + 180 * 60_000,
                finished: false,
                created_at: begun,
                state: gore_server::domain::tournaments::ArenaState {
                    arena,
                    names: BTreeMap::new(),
                    games: Vec::new(),
                    bots: false,
                    bot_players: Default::default(),
                }
                .into(),
                version: 1,
            })
            .await
            .unwrap();
    }
    let s = server_on_db(&clock, &db).await;
    let ana = account(&s, "Ana").await;
    let bea = account(&s, "Bea").await;
    let id = arena(&s, &ana, T0).await;
    tournament_ok(&s, &ana, &id, "join").await;
    tournament_ok(&s, &bea, &id, "join").await;
    let d = wait_for(&s, &id, "Ana and Bea paired", |d| {
        game_of(d, "Ana").is_some()
    })
    .await;
    let first = game_of(&d, "Ana").unwrap();
    win(&s, &first, &ana, &bea).await;
    // The ticks (the server's own, and this one) record the result and
    // pair them again.
    s.state.tournaments().tick().await;
    let d = wait_for(&s, &id, "the result recorded and a new pairing", |d| {
        line(d, "Ana")["games"] == 1 && game_of(d, "Ana").is_some_and(|g| g != first)
    })
    .await;
    assert_eq!(line(&d, "Ana")["score"], 2, "{d}");
    assert_eq!(game_of(&d, "Ana"), game_of(&d, "Bea"), "{d}");
}
