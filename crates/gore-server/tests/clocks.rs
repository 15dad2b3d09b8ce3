//! Issue 13, clocks, aborting, and how games end (RULES.md, "Games between
//! people"): Fischer and correspondence clocks kept by the server, a flag
//! on time decided with nobody connected, the first actions free but
//! bounded (an abort), aborting by hand, and records that say how each game
//! ended. Time is a manual clock the test moves: no sleeps. On PostgreSQL
//! too when `GORE_TEST_POSTGRES` is set (the CI sets it).

mod common;

use std::time::Duration;

use common::shared::*;
use common::*;
use gore_server::domain::clock::Clock;
use serde_json::{json, Value};

/// A fixed start for the manual clock (2026-12-01, Unix ms).
const T0: i64 = 1_796_083_200_000;

/// A friend game with `clock` (A the creator), claimed by B: id and both
/// tokens.
async fn timed_friend(s: &Server, clock: &str) -> (String, String, String) {
    let g = create_game(
        &browser(),
        s,
        json!({"mode": "friend", "colour": "A", "clock": clock}),
    )
    .await;
    let id = g.id.clone();
    let ta = g.token.clone();
    let tb = claim_seat(&browser(), s, g.invite.as_deref().unwrap())
        .await
        .token;
    (id, ta, tb)
}

async fn record(s: &Server, id: &str) -> String {
    bot()
        .get(s.at(&format!("/api/games/{id}/record")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// 1+2: the first actions are free; then each side's time runs while he
/// is to act and gains 2 s after each action. B, to act with 60 s, does
/// nothing: at 60 s less a millisecond the game goes on, at 60 s the
/// server ends it (nobody is connected), A the winner, on time. Hand
/// arithmetic throughout.
#[tokio::test(flavor = "multi_thread")]
async fn a_flag_on_time_is_decided_with_nobody_connected() {
    let clock = Clock::manual(T0);
    let s = server_with_clock(&clock).await;
    let (id, ta, tb) = timed_friend(&s, "1+2").await;
    let (_, v) = get(&bot(), &s, &id).await;
    assert_eq!(clock_of(&v).control, "1+2");
    assert_eq!(clock_of(&v).left.pair(), (60_000, 60_000));
    assert_eq!(clock_of(&v).running, None, "the first actions are free");
    assert_eq!(clock_of(&v).due.as_deref(), Some("abort"));
    assert_eq!(clock_of(&v).deadline_in, Some(30_000));
    clock.advance(Duration::from_secs(20));
    play(&s, &id, &ta, "a3", 0).await;
    clock.advance(Duration::from_secs(25));
    play(&s, &id, &tb, "b3", 1).await;
    // Both have acted: A's clock runs from here.
    clock.advance(Duration::from_secs(10));
    let v = play(&s, &id, &ta, "a1", 2).await;
    // A: 60 - 10 + 2 = 52 s; B, to act, 60 s and running.
    assert_eq!(clock_of(&v).left.pair(), (52_000, 60_000));
    assert_eq!(clock_of(&v).running.as_deref(), Some("B"));
    assert_eq!(clock_of(&v).due.as_deref(), Some("flag"));
    assert_eq!(v["abortable"], false, "both have acted");
    clock.advance(Duration::from_millis(59_999));
    s.state.games().settle_clocks().await;
    let (_, v) = get(&bot(), &s, &id).await;
    assert_eq!(v["status"], "playing", "a millisecond left");
    assert_eq!(clock_of(&v).left.b, 1);
    clock.advance(Duration::from_millis(1));
    s.state.games().settle_clocks().await;
    let (_, v) = get(&bot(), &s, &id).await;
    assert_eq!(v["status"], "over", "{v}");
    assert_eq!(result_of(&v).reason, "time");
    assert_eq!(result_of(&v).winner.as_deref(), Some("A"));
    assert_eq!(result_of(&v).swept, [0, 0]);
    assert_eq!(clock_of(&v).running, None);
    assert_eq!(clock_of(&v).left.b, 0);
    // Too late: B's action is refused, the game stays as it ended.
    let (st, e) = act(
        &bot(),
        &s,
        &id,
        Some(&tb),
        json!({"action": "b2", "ply": 3}),
    )
    .await;
    assert_eq!(st, 409, "{e}");
    assert_eq!(ply(&get(&bot(), &s, &id).await.1), 3);
    let rec = record(&s, &id).await;
    assert!(
        rec.contains("[Termination \"time\"]\n[Loser \"B\"]\n"),
        "{rec}"
    );
    assert!(rec.contains("[TimeControl \"1+2\"]"), "{rec}");
    // The record replays: its Result is the captured totals as they stood.
    let parsed: gore_core::Record = rec.parse().unwrap();
    parsed.replay().unwrap();
}

/// An action at the very deadline is too late, whoever asks first: the
/// play itself ends the game on time when the referee has not yet.
#[tokio::test(flavor = "multi_thread")]
async fn an_action_after_the_deadline_is_refused_and_the_flag_falls() {
    let clock = Clock::manual(T0);
    let s = server_with_clock(&clock).await;
    let (id, ta, tb) = timed_friend(&s, "1+0").await;
    play(&s, &id, &ta, "a3", 0).await;
    play(&s, &id, &tb, "b3", 1).await;
    clock.advance(Duration::from_secs(60));
    let (st, e) = act(
        &bot(),
        &s,
        &id,
        Some(&ta),
        json!({"action": "a1", "ply": 2}),
    )
    .await;
    assert_eq!(st, 409, "{e}");
    assert!(error_of(&e).message.contains("time is up"), "{e}");
    let (_, v) = get(&bot(), &s, &id).await;
    assert_eq!(result_of(&v).reason, "time");
    assert_eq!(result_of(&v).winner.as_deref(), Some("B"));
}

/// A player who never makes his first action: after 30 s the game is
/// aborted (no winner, no result), with nobody connected.
#[tokio::test(flavor = "multi_thread")]
async fn a_first_action_never_made_aborts_the_game() {
    let clock = Clock::manual(T0);
    let s = server_with_clock(&clock).await;
    let (id, ta, _tb) = timed_friend(&s, "5+3").await;
    play(&s, &id, &ta, "a3", 0).await;
    // B's 30 s count from A's first action.
    clock.advance(Duration::from_millis(29_999));
    s.state.games().settle_clocks().await;
    assert_eq!(get(&bot(), &s, &id).await.1["status"], "playing");
    clock.advance(Duration::from_millis(1));
    s.state.games().settle_clocks().await;
    let (_, v) = get(&bot(), &s, &id).await;
    assert_eq!(v["status"], "over");
    assert_eq!(result_of(&v).reason, "abort");
    assert_eq!(result_of(&v).winner, None);
    let rec = record(&s, &id).await;
    assert!(rec.contains("[Result \"*\"]"), "{rec}");
    assert!(rec.contains("[Termination \"abort\"]"), "{rec}");
}

/// Correspondence, 1 day an action: the time left counts down for the
/// player to act only; a day without his action loses the game.
#[tokio::test(flavor = "multi_thread")]
async fn correspondence_days_per_action() {
    const DAY: i64 = 86_400_000;
    let clock = Clock::manual(T0);
    let s = server_with_clock(&clock).await;
    let (id, ta, tb) = timed_friend(&s, "1d").await;
    clock.advance(Duration::from_secs(3600));
    play(&s, &id, &ta, "a3", 0).await;
    clock.advance(Duration::from_secs(7200));
    let v = play(&s, &id, &tb, "b3", 1).await;
    assert_eq!(clock_of(&v).running.as_deref(), Some("A"));
    assert_eq!(clock_of(&v).left.pair(), (DAY, DAY));
    clock.advance(Duration::from_millis(DAY as u64 - 1));
    s.state.games().settle_clocks().await;
    let (_, v) = get(&bot(), &s, &id).await;
    assert_eq!(v["status"], "playing");
    assert_eq!(clock_of(&v).left.a, 1);
    clock.advance(Duration::from_millis(1));
    s.state.games().settle_clocks().await;
    let (_, v) = get(&bot(), &s, &id).await;
    assert_eq!(
        (
            v["result"]["reason"].as_str(),
            v["result"]["winner"].as_str()
        ),
        (Some("time"), Some("B"))
    );
}

/// Abort by hand: either player, before each has made an action; after,
/// refused with the rule; a local game is never aborted; a stranger
/// cannot abort.
#[tokio::test(flavor = "multi_thread")]
async fn abort_before_each_player_has_acted() {
    let s = Server::start(0).await;
    let (id, ta, tb) = timed_friend(&s, "none").await;
    let (_, v) = get(&bot(), &s, &id).await;
    assert_eq!(v.get("clock"), None, "untimed: no clock");
    assert_eq!(v["abortable"], true);
    let abort = |token: Option<String>, id: String| {
        let s = &s;
        async move {
            let mut req = bot().post(s.at(&format!("/api/games/{id}/abort")));
            if let Some(t) = token {
                req = req.bearer_auth(t);
            }
            let r = req.send().await.unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };
    assert_eq!(abort(None, id.clone()).await.0, 403, "a stranger");
    play(&s, &id, &ta, "a3", 0).await;
    // B has not acted: A may still abort (so may B).
    let (st, v) = abort(Some(ta.clone()), id.clone()).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(result_of(&v).reason, "abort");
    assert_eq!(result_of(&v).winner, None);
    assert_eq!(v["abortable"], false);
    let (st, _) = abort(Some(tb.clone()), id.clone()).await;
    assert_eq!(st, 409, "already over");
    // Once each has acted: refused, naming the rule.
    let (id, ta, tb) = timed_friend(&s, "none").await;
    play(&s, &id, &ta, "a3", 0).await;
    play(&s, &id, &tb, "b3", 1).await;
    let (st, e) = abort(Some(tb), id.clone()).await;
    assert_eq!(st, 409);
    assert!(error_of(&e).message.contains("resign"), "{e}");
    assert_eq!(get(&bot(), &s, &id).await.1["status"], "playing");
    let local = create_game(&bot(), &s, json!({"mode": "local"})).await;
    let (lid, lt) = (local.id.clone(), local.token.clone());
    assert_eq!(abort(Some(lt), lid).await.0, 409);
}

/// The clock field is checked and named; clocks are for games between
/// people.
#[tokio::test(flavor = "multi_thread")]
async fn bad_clocks_are_refused_by_name() {
    let s = Server::start(0).await;
    for (body, part) in [
        (json!({"mode": "friend", "clock": "0+5"}), "base"),
        (json!({"mode": "friend", "clock": "5+999"}), "increment"),
        (json!({"mode": "friend", "clock": "30d"}), "days"),
        (
            json!({"mode": "friend", "clock": "fast"}),
            "minutes+seconds",
        ),
        (json!({"mode": "ai", "clock": "5+3"}), "between people"),
        (json!({"mode": "local", "clock": "5+3"}), "between people"),
    ] {
        let (st, e) = post_json(&bot(), &s, "/api/games", body.clone()).await;
        assert_eq!(st, 400, "{body}");
        let m = error_of(&e).message;
        assert!(m.starts_with("clock"), "{body}: {m}");
        assert!(m.contains(part), "{body}: {m}");
    }
}

/// The socket's updates carry the clocks as of each change.
#[tokio::test(flavor = "multi_thread")]
async fn updates_carry_the_clocks() {
    let clock = Clock::manual(T0);
    let s = server_with_clock(&clock).await;
    let (id, ta, tb) = timed_friend(&s, "3+2").await;
    let mut ws = s.ws(&id, Some(&ta)).await;
    next_state(&mut ws).await;
    play(&s, &id, &ta, "a3", 0).await;
    play(&s, &id, &tb, "b3", 1).await;
    next_state(&mut ws).await;
    let st = next_state(&mut ws).await;
    assert_eq!(clock_of(&st).running.as_deref(), Some("A"));
    assert_eq!(clock_of(&st).deadline_in, Some(180_000));
    clock.advance(Duration::from_secs(7));
    play(&s, &id, &ta, "a1", 2).await;
    let st = next_state(&mut ws).await;
    // 180 - 7 + 2 = 175 s.
    assert_eq!(clock_of(&st).left.a, 175_000);
    assert_eq!(clock_of(&st).running.as_deref(), Some("B"));
    // Resigning stops the clocks.
    let r = bot()
        .post(s.at(&format!("/api/games/{id}/resign")))
        .bearer_auth(&tb)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let st = next_state(&mut ws).await;
    assert_eq!(result_of(&st).reason, "resign");
    assert_eq!(clock_of(&st).running, None);
    assert_eq!(st["clock"].get("deadline_in"), None);
}

/// Several servers on one store: a game played on one server and left
/// there is ended on time by another, which never had it in memory.
#[tokio::test(flavor = "multi_thread")]
async fn another_server_ends_a_game_on_time() {
    let shared = Shared::new();
    // Each server its own clock: only the second one's time is up.
    let (clock1, clock2) = (Clock::manual(T0), Clock::manual(T0));
    let start = |me, clock: Clock| {
        let shared = &shared;
        async move {
            let dir = tempfile::tempdir().unwrap();
            let mut config = config_in(&dir);
            config.clock = clock;
            let state = gore_server::AppState::with_store(config, shared.handle(me)).unwrap();
            Server::serve(dir, state).await
        }
    };
    let s1 = start(1, clock1.clone()).await;
    let s2 = start(2, clock2.clone()).await;
    let (id, ta, tb) = timed_friend(&s1, "1+0").await;
    play(&s1, &id, &ta, "a3", 0).await;
    play(&s1, &id, &tb, "b3", 1).await;
    clock2.advance(Duration::from_secs(60));
    s1.state.games().settle_clocks().await;
    assert_eq!(get(&bot(), &s1, &id).await.1["status"], "playing");
    s2.state.games().settle_clocks().await;
    // Server 1 hears of it (its own clock says A still has time).
    let v = poll_until(&bot(), &s1, &id, |v| v["status"] == "over").await;
    assert_eq!(result_of(&v).reason, "time");
    assert_eq!(result_of(&v).winner.as_deref(), Some("B"));
}

/// Issue 25, item 4: a server outage is not charged to the clocks. Two
/// games on server 1, a 3+2 and a 1+0, the same actions at the same
/// times: A and B make their first actions at 0 s, A acts at 10 s (3+2:
/// 180 - 10 + 2 = 172 s; 1+0: 60 - 10 = 50 s), B thinks 20 s, and the
/// server's last heartbeat is at 30 s. Then server 1 dies (its clock
/// stops: it never beats again; it is left running in this process but
/// nothing reaches it) and server 2 starts on the same database 65 s
/// later. B has his time back, exactly: 160 s in the 3+2 (not 160 - 65 =
/// 95), 40 s in the 1+0, which is not lost on time at the restart (its
/// deadline, 70 s, passed during the outage) but at 40 s after it. His 20
/// s before the outage stay charged. A third server loading the game
/// while server 2 lives gives nothing more.
#[tokio::test(flavor = "multi_thread")]
async fn a_server_outage_is_given_back_to_the_player_to_act() {
    let c1 = Clock::manual(T0);
    let dir = tempfile::tempdir().unwrap();
    let db = dir
        .path()
        .join("gore.sqlite3")
        .to_str()
        .unwrap()
        .to_string();
    let s1 = {
        let mut config = config_in(&dir);
        config.clock = c1.clone();
        Server::start_with(dir, config).await
    };
    let (g3, a3, b3) = timed_friend(&s1, "3+2").await;
    let (g1, a1, b1) = timed_friend(&s1, "1+0").await;
    for (id, ta, tb) in [(&g3, &a3, &b3), (&g1, &a1, &b1)] {
        play(&s1, id, ta, "a3", 0).await;
        play(&s1, id, tb, "b3", 1).await;
    }
    c1.advance(Duration::from_secs(10));
    play(&s1, &g3, &a3, "a1", 2).await;
    play(&s1, &g1, &a1, "a1", 2).await;
    c1.advance(Duration::from_secs(20));
    s1.state.games().heartbeat().await;
    let (_, v) = get(&bot(), &s1, &g3).await;
    assert_eq!(clock_of(&v).left.pair(), (172_000, 160_000));

    // The outage: 65 s with no server.
    let c2 = Clock::manual(T0 + 30_000 + 65_000);
    let start = |clock: &Clock| {
        let mut config = config_in(&tempfile::tempdir().unwrap());
        config.db = db.clone();
        config.clock = clock.clone();
        Server::start_with(tempfile::tempdir().unwrap(), config)
    };
    let s2 = start(&c2).await;
    let (_, v) = get(&bot(), &s2, &g3).await;
    assert_eq!(v["status"], "playing", "{v}");
    assert_eq!(clock_of(&v).running.as_deref(), Some("B"));
    assert_eq!(clock_of(&v).left.pair(), (172_000, 160_000));
    assert_eq!(clock_of(&v).deadline_in, Some(160_000));
    s2.state.games().settle_clocks().await;
    let (_, v) = get(&bot(), &s2, &g1).await;
    assert_eq!(
        v["status"], "playing",
        "not lost on time at the restart: {v}"
    );
    assert_eq!(clock_of(&v).left.pair(), (50_000, 40_000));
    // A third server, server 2 alive: nothing more is given.
    let s3 = start(&c2).await;
    let (_, v) = get(&bot(), &s3, &g3).await;
    assert_eq!(clock_of(&v).left.pair(), (172_000, 160_000));
    // The clocks run on from there: B plays the 3+2 after 10 s (160 - 10
    // + 2 = 152); the 1+0 falls 40 s after the restart, not before.
    c2.advance(Duration::from_secs(10));
    let v = play(&s2, &g3, &b3, "b1", 3).await;
    assert_eq!(clock_of(&v).left.pair(), (172_000, 152_000));
    c2.advance(Duration::from_millis(29_999));
    assert_eq!(s2.state.games().settle_clocks().await, 0);
    assert_eq!(get(&bot(), &s2, &g1).await.1["clock"]["left"]["B"], 1);
    c2.advance(Duration::from_millis(1));
    s2.state.games().settle_clocks().await;
    let (_, v) = get(&bot(), &s2, &g1).await;
    assert_eq!(v["status"], "over", "{v}");
    assert_eq!(
        (
            v["result"]["reason"].as_str(),
            v["result"]["winner"].as_str()
        ),
        (Some("time"), Some("A"))
    );
}
