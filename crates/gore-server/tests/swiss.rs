//! Issue 29, Swiss events on the server: created and listed through the
//! API, joined and left by accounts, each round paired once (at the start,
//! then as soon as every game of the round before is over) by the holder
//! of the tournament's pairing lease, the games played to the end through
//! the API, and the pairings, byes and standings (points, Buchholz,
//! Sonneborn-Berger) checked after each round against tables worked by
//! hand from docs/RULES.md ("Tournaments", "Swiss"); a withdrawn player
//! never paired; a restart keeps everything; two servers pair each round
//! once; an arena's row written before Swiss events came still reads. The
//! time is a manual clock. On PostgreSQL too when `GORE_TEST_POSTGRES` is
//! set.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use common::*;
use gore_server::domain::clock::Clock;
use gore_server::domain::tournaments::LEASE;
use serde_json::{json, Value};

/// A fixed start for the manual clock (2026-12-01, Unix ms).
const T0: i64 = 1_796_083_200_000;

/// A new Swiss event of `rounds` rounds (3+2, rated) starting at
/// `starts_at`: its id.
async fn swiss(s: &Server, cookie: &str, rounds: u32, starts_at: i64) -> String {
    let (st, v) = post_with(
        s,
        cookie,
        "/api/tournaments",
        json!({"name": "Swiss 3+2", "kind": "swiss", "clock": "3+2", "rules": "standard",
               "rated": true, "starts_at": starts_at, "rounds": rounds}),
    )
    .await;
    assert_eq!(st, 201, "{v}");
    v["id"].as_str().unwrap().to_string()
}

async fn detail(s: &Server, id: &str) -> Value {
    let (st, v) = get_with(s, "", &format!("/api/tournaments/{id}")).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["tournament"]["kind"], "swiss", "{v}");
    v
}

/// Polls the page until `pred` holds (60 s at most: a deadline for a
/// failing test, generous for a loaded machine).
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

/// The players by pairing number (P1 first): all are rated 1500 when they
/// join, so the pairing numbers are the order of their public ids
/// (RULES.md: rating, then name, that is the account's id).
struct Field {
    /// P1…Pn: (name, public id).
    by_number: Vec<(String, String)>,
    /// Each name's session cookie.
    cookies: BTreeMap<String, String>,
}

impl Field {
    fn p(&self, n: usize) -> &str {
        &self.by_number[n - 1].0
    }
    fn c(&self, n: usize) -> &str {
        &self.cookies[self.p(n)]
    }
    /// The pairing number of public id `id`.
    fn number_of(&self, id: &str) -> usize {
        1 + self
            .by_number
            .iter()
            .position(|(_, x)| x == id)
            .unwrap_or_else(|| panic!("{id} is not a player"))
    }
}

/// Round `r`'s boards as (A's number, B's number), and its bye's number.
fn pairings(f: &Field, d: &Value, r: usize) -> (Vec<(usize, usize)>, Option<usize>) {
    let round = &d["rounds"][r - 1];
    assert_eq!(round["round"], r, "{d}");
    let boards = round["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                f.number_of(b["a"][0].as_str().unwrap()),
                f.number_of(b["b"][0].as_str().unwrap()),
            )
        })
        .collect();
    let bye = round["bye"][0].as_str().map(|p| f.number_of(p));
    (boards, bye)
}

/// The game of board `b` (1 for the first) of round `r`.
fn game(d: &Value, r: usize, b: usize) -> String {
    d["rounds"][r - 1]["boards"][b - 1]["game"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The standings as (number, points, Buchholz, Sonneborn-Berger,
/// withdrawn), the leader first.
fn table(f: &Field, d: &Value) -> Vec<(usize, f64, f64, f64, bool)> {
    d["standings"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, l)| {
            assert_eq!(l["rank"], i + 1, "{d}");
            (
                f.number_of(l["player"].as_str().unwrap()),
                l["points"].as_f64().unwrap(),
                l["buchholz"].as_f64().unwrap(),
                l["sonneborn_berger"].as_f64().unwrap(),
                l["withdrawn"].as_bool().unwrap(),
            )
        })
        .collect()
}

/// Five players, three rounds, worked by hand from RULES.md ("Swiss").
/// P1…P5 are the pairing numbers (all 1500: the order of the ids).
///
/// Round 1 (all on 0): the bye to the lowest ranked, P5; S1 = {P1, P2}
///   against S2 = {P3, P4}; no colour wishes: the higher ranked is A if
///   his number is odd: P1–P3, P4–P2. P1 and P2 win.
///   Standings (points, Buchholz, S-B): P1, P2, P5 on 1 (0, 0) in number
///   order; P3, P4 on 0 (1, 0). P5's bye is a game against a virtual
///   opponent with his points before it plus 1 − 1: 0.
/// Round 2: ranked P1, P2, P5 (1), P3, P4 (0); the bye to P4 (lowest,
///   none yet). Bracket 1 {P1, P2, P5}: S1 = {P1}, S2 = {P2, P5}. P1–P2
///   would float P5 down, who floated down last round (his bye); P1–P5
///   floats P2, who did not: P1–P5 (P1 B: two A's would be his second in
///   a row; he wants B strongly, P5 has no wish). P2 meets P3 below: both
///   played B, both want A strongly; the higher ranked, P2, has A.
///   Boards: P5–P1 (higher score 1, sum 2), P2–P3 (sum 1). P1 and P3 win.
///   P5 then withdraws (his game over, P2–P3 still played).
///   Adjusted points (unplayed rounds as ½): P1 2, P2 1, P3 1, P4 ½,
///   P5 ½. Buchholz: P1 = 1 + ½, P2 = ½ + 1, P3 = 2 + 1, P4 = 1 + its
///   bye's virtual opponent (0 + 1 − 1) = 1, P5 = virtual (0 + 0 + ½ for
///   round 2) + 2 = 2½. S-B: P1 1 + ½, P2 ½, P3 1, P4 0 (the bye's 0),
///   P5 ½ (his bye's). Table: P1 2 (1½, 1½); P3 1 (3, 1); P5 1 (2½, ½);
///   P2 1 (1½, ½); P4 1 (1, 0).
/// Round 3: P5 withdrawn: four players, no bye. P1 (2) floats down to the
///   players on 1 and meets the highest he has not met, P2; P3–P4 are
///   left (not met). P1 (A, B) mildly wants A, P2 (B, A) mildly B: P1–P2.
///   P3 (B, B) absolutely A, P4 (A, bye) strongly B: P3–P4. P2 and P3
///   win. Final points P1 2, P2 2, P3 2, P4 1, P5 1.
///   Adjusted: P1 2, P2 2, P3 2, P4 ½, P5 1 (bye and missed round ½
///   each). Buchholz: P1 = 2 + 1 + 2 = 5; P2 = ½ + 2 + 2 = 4½; P3 = 2 + 2
///   + ½ = 4½; P4 = 2 + (0 + 0 + ½) + 2 = 4½; P5 = (0 + 0 + 1) + 2 + (1 +
///   1 − 0) = 5. S-B: P1 = 2 + 1 = 3; P2 = ½ + 2 = 2½; P3 = 2 + ½ = 2½;
///   P4 = ½ (his bye's); P5 = 1 (his bye's; the missed round not
///   counted). P2 and P3 tie on everything: pairing number.
///
/// On the way: Gil joins and withdraws before the start (gone); nothing
/// is paired before the start; Hana cannot join once two of the three
/// rounds are paired; P5, withdrawn, cannot come back; a Swiss event has
/// no pause; the round after a restart is paired by the second server.
#[tokio::test(flavor = "multi_thread")]
async fn a_swiss_event_played_through_the_api_matches_the_hand_worked_tables() {
    let clock = Clock::manual(T0);
    let dir = tempfile::tempdir().unwrap();
    let db = db_path(&dir);
    let s1 = server_on_db(&clock, &db).await;
    let names = ["Ana", "Bea", "Cai", "Dan", "Eli"];
    let mut cookies = BTreeMap::new();
    for name in names.into_iter().chain(["Gil", "Hana"]) {
        cookies.insert(name.to_string(), account(&s1, name).await);
    }
    let start = T0 + 60_000;
    let id = swiss(&s1, &cookies["Ana"], 3, start).await;

    // Listed as upcoming, with its rounds.
    let (_, lists) = get_with(&s1, "", "/api/tournaments").await;
    let line = &lists["upcoming"][0];
    assert_eq!(
        (&line["id"], &line["kind"], &line["rounds"], &line["round"]),
        (&json!(id), &json!("swiss"), &json!(3), &json!(0)),
        "{lists}"
    );
    for name in names.into_iter().chain(["Gil"]) {
        tournament_ok(&s1, &cookies[name], &id, "join").await;
    }
    // Joining twice is nothing.
    tournament_ok(&s1, &cookies["Ana"], &id, "join").await;
    tournament_ok(&s1, &cookies["Gil"], &id, "withdraw").await;
    let (st, v) = post_tournament(&s1, &cookies["Ana"], &id, "pause").await;
    assert_eq!(
        (st, v["error"]["reason"].as_str()),
        (409, Some("tournament_no_pause")),
        "{v}"
    );
    s1.state.tournaments().tick().await;
    let d = detail(&s1, &id).await;
    assert_eq!(d["rounds"], json!([]), "nothing before the start: {d}");
    let mut by_number: Vec<(String, String)> = d["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["name"].as_str().unwrap().to_string(),
                l["player"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(by_number.len(), 5, "Gil is gone: {d}");
    by_number.sort_by(|a, b| a.1.cmp(&b.1));
    let f = Field { by_number, cookies };

    // Round 1, at the start.
    clock.advance(Duration::from_millis(60_000));
    s1.state.tournaments().tick().await;
    let d = wait_for(&s1, &id, "round 1", |d| {
        d["rounds"].as_array().unwrap().len() == 1
    })
    .await;
    assert_eq!(d["tournament"]["phase"], "running", "{d}");
    assert_eq!(pairings(&f, &d, 1), (vec![(1, 3), (4, 2)], Some(5)), "{d}");
    assert_eq!(
        d["standings"][0]["game"].as_str(),
        Some(game(&d, 1, 1).as_str()),
        "P1 is playing board 1: {d}"
    );
    win(&s1, &game(&d, 1, 1), f.c(1), f.c(3)).await;
    win(&s1, &game(&d, 1, 2), f.c(2), f.c(4)).await;
    let d = wait_for(&s1, &id, "round 2", |d| {
        d["rounds"].as_array().unwrap().len() == 2
    })
    .await;
    assert_eq!(d["standings_after"], 1, "{d}");
    let (no, yes) = (false, true);
    assert_eq!(
        table(&f, &d),
        vec![
            (1, 1.0, 0.0, 0.0, no),
            (2, 1.0, 0.0, 0.0, no),
            (5, 1.0, 0.0, 0.0, no),
            (3, 0.0, 1.0, 0.0, no),
            (4, 0.0, 1.0, 0.0, no),
        ],
        "{d}"
    );
    assert_eq!(d["rounds"][0]["complete"], true, "{d}");
    assert_eq!(d["rounds"][0]["boards"][0]["result"], "a_wins", "{d}");
    assert_eq!(d["rounds"][0]["boards"][1]["result"], "b_wins", "{d}");

    // Round 2; two of three rounds paired: too late to join.
    assert_eq!(pairings(&f, &d, 2), (vec![(5, 1), (2, 3)], Some(4)), "{d}");
    let (st, v) = post_tournament(&s1, &f.cookies["Hana"], &id, "join").await;
    assert_eq!(
        (st, v["error"]["reason"].as_str()),
        (409, Some("tournament_too_late")),
        "{v}"
    );
    win(&s1, &game(&d, 2, 1), f.c(1), f.c(5)).await;
    tournament_ok(&s1, f.c(5), &id, "withdraw").await;
    let (st, v) = post_tournament(&s1, f.c(5), &id, "join").await;
    assert_eq!(
        (st, v["error"]["reason"].as_str()),
        (409, Some("tournament_withdrawn")),
        "{v}"
    );
    win(&s1, &game(&d, 2, 2), f.c(3), f.c(2)).await;
    let d = wait_for(&s1, &id, "round 3", |d| {
        d["rounds"].as_array().unwrap().len() == 3
    })
    .await;
    assert_eq!(d["standings_after"], 2, "{d}");
    assert_eq!(
        table(&f, &d),
        vec![
            (1, 2.0, 1.5, 1.5, no),
            (3, 1.0, 3.0, 1.0, no),
            (5, 1.0, 2.5, 0.5, yes),
            (2, 1.0, 1.5, 0.5, no),
            (4, 1.0, 1.0, 0.0, no),
        ],
        "{d}"
    );
    // Round 3: P5 withdrawn is not paired; four players, no bye.
    assert_eq!(pairings(&f, &d, 3), (vec![(1, 2), (3, 4)], None), "{d}");

    // The restart: server 1 stops (as a server that died); server 2 on
    // the same database shows the same page and takes the lease once
    // server 1's has run out.
    s1.state.tournaments().halt();
    let s2 = server_on_db(&clock, &db).await;
    assert_eq!(detail(&s2, &id).await, d, "the event survives");
    clock.advance(LEASE + Duration::from_secs(1));
    let mut again = BTreeMap::new();
    for n in 1..=4 {
        again.insert(f.p(n).to_string(), log_in(&s2, f.p(n)).await);
    }
    let f = Field {
        by_number: f.by_number,
        cookies: again,
    };
    win(&s2, &game(&d, 3, 1), f.c(2), f.c(1)).await;
    win(&s2, &game(&d, 3, 2), f.c(3), f.c(4)).await;
    let d = wait_for(&s2, &id, "the end", |d| {
        d["tournament"]["phase"] == "finished"
    })
    .await;
    assert_eq!(d["standings_after"], 3, "{d}");
    assert_eq!(
        table(&f, &d),
        vec![
            (1, 2.0, 5.0, 3.0, no),
            (2, 2.0, 4.5, 2.5, no),
            (3, 2.0, 4.5, 2.5, no),
            (5, 1.0, 5.0, 1.0, yes),
            (4, 1.0, 4.5, 0.5, no),
        ],
        "{d}"
    );
    assert_eq!(d["rounds"].as_array().unwrap().len(), 3, "no fourth: {d}");
    let (st, v) = post_tournament(&s2, f.c(1), &id, "join").await;
    assert_eq!(
        (st, v["error"]["reason"].as_str()),
        (409, Some("tournament_over")),
        "{v}"
    );
    let (_, lists) = get_with(&s2, "", "/api/tournaments").await;
    assert_eq!(lists["finished"][0]["id"], id.as_str(), "{lists}");
    assert_eq!(lists["finished"][0]["round"], 3, "{lists}");
    assert_eq!(lists["running"], json!([]), "{lists}");
}

/// Two servers on one database, nine players (four joined through one,
/// five through the other), three rounds, both servers pairing at once
/// (their own ticks and the test's) after each round: each round is
/// paired once (four games and a bye, everyone in exactly one of them),
/// nobody meets anyone twice nor has two byes, and each player's page
/// lists one game per round he played.
#[tokio::test(flavor = "multi_thread")]
async fn two_servers_pair_each_round_once() {
    let clock = Clock::manual(T0);
    let dir = tempfile::tempdir().unwrap();
    let db = db_path(&dir);
    let servers = [
        server_on_db(&clock, &db).await,
        server_on_db(&clock, &db).await,
    ];
    let names = [
        "Amaia", "Benat", "Carmen", "Danel", "Edurne", "Fermin", "Garazi", "Haritz", "Itziar",
    ];
    let mut cookies = BTreeMap::new();
    for (i, name) in names.iter().enumerate() {
        cookies.insert(name.to_string(), account(&servers[i % 2], name).await);
    }
    let id = swiss(&servers[0], &cookies["Amaia"], 3, T0 + 60_000).await;
    for (i, name) in names.iter().enumerate() {
        tournament_ok(&servers[i % 2], &cookies[*name], &id, "join").await;
    }
    let d = detail(&servers[0], &id).await;
    let ids: BTreeMap<String, String> = d["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["player"].as_str().unwrap().to_string(),
                l["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    clock.advance(Duration::from_millis(60_000));
    let (t1, t2) = (
        servers[0].state.tournaments().clone(),
        servers[1].state.tournaments().clone(),
    );
    let mut met = BTreeSet::new();
    let mut byes = BTreeSet::new();
    let mut played: BTreeMap<String, usize> = BTreeMap::new();
    for r in 1..=3usize {
        tokio::join!(t1.tick(), t2.tick(), t1.tick(), t2.tick());
        let d = wait_for(&servers[r % 2], &id, "a round", |d| {
            d["rounds"].as_array().unwrap().len() == r
        })
        .await;
        tokio::join!(t1.tick(), t2.tick());
        let round = &detail(&servers[0], &id).await["rounds"][r - 1];
        assert_eq!(*round, d["rounds"][r - 1], "paired once");
        let boards = round["boards"].as_array().unwrap();
        assert_eq!(boards.len(), 4, "{d}");
        let mut seen = BTreeSet::new();
        let bye = round["bye"][0].as_str().unwrap().to_string();
        assert!(byes.insert(bye.clone()), "{bye} had two byes: {d}");
        seen.insert(bye);
        for (i, b) in boards.iter().enumerate() {
            let (a, bb) = (
                b["a"][0].as_str().unwrap().to_string(),
                b["b"][0].as_str().unwrap().to_string(),
            );
            for p in [&a, &bb] {
                assert!(seen.insert(p.clone()), "{p} twice in round {r}: {d}");
                *played.entry(p.clone()).or_default() += 1;
            }
            let pair: BTreeSet<String> = [a.clone(), bb.clone()].into();
            assert!(met.insert(pair), "a rematch in round {r}: {d}");
            let s = &servers[i % 2];
            let (ca, cb) = (&cookies[&ids[&a]], &cookies[&ids[&bb]]);
            win(s, b["game"].as_str().unwrap(), ca, cb).await;
        }
        assert_eq!(seen.len(), 9, "{d}");
    }
    let d = wait_for(&servers[0], &id, "the end", |d| {
        d["tournament"]["phase"] == "finished"
    })
    .await;
    assert_eq!(d["standings_after"], 3, "{d}");
    // Each player's page: one game per round he played.
    for (player, name) in &ids {
        let (_, page) = get_with(&servers[1], "", &format!("/api/players/{name}")).await;
        let games = page["games"].as_array().unwrap().len();
        assert_eq!(games, played[player], "{name}: {page}");
    }
}

/// A Swiss event's terms are checked, naming the wrong field.
#[tokio::test(flavor = "multi_thread")]
async fn a_swiss_event_needs_its_rounds_and_a_pace() {
    let clock = Clock::manual(T0);
    let dir = tempfile::tempdir().unwrap();
    let s = server_on_db(&clock, &db_path(&dir)).await;
    let ana = account(&s, "Ana").await;
    let ok = json!({"name": "Swiss", "kind": "swiss", "clock": "3+2", "rounds": 5});
    for (body, field) in [
        (
            json!({"name": "Swiss", "kind": "swiss", "clock": "3+2"}),
            "rounds",
        ),
        (
            json!({"name": "Swiss", "kind": "swiss", "clock": "3+2", "rounds": 2}),
            "rounds",
        ),
        (
            json!({"name": "Swiss", "kind": "swiss", "clock": "3+2", "rounds": 16}),
            "rounds",
        ),
        (
            json!({"name": "Swiss", "kind": "swiss", "clock": "1d", "rounds": 5}),
            "clock",
        ),
    ] {
        let (st, v) = post_with(&s, &ana, "/api/tournaments", body.clone()).await;
        assert_eq!(st, 400, "{body}: {v}");
        let message = v["error"]["message"].as_str().unwrap_or_default();
        assert!(message.starts_with(field), "{body}: {v}");
    }
    let (st, v) = post_with(&s, &ana, "/api/tournaments", ok).await;
    assert_eq!(st, 201, "{v}");
}

/// An arena's row as the code before Swiss events wrote it (the state
/// JSON of that code, taken from it) in a database at schema version 18
/// with its game: after the migration that lets `kind` be `swiss` (both
/// tables rebuilt), it reads as the same arena, its game is still its
/// game, the foreign key from `tournament_games` still holds, and a
/// Swiss row is allowed. SQLite, and PostgreSQL when set.
#[tokio::test]
async fn an_arena_stored_before_swiss_events_reads_after_the_migration() {
    use gore_server::domain::tournaments::TournamentState;
    use gore_server::store::postgres::{PgOptions, PgStore};
    use gore_server::store::schema::{Dialect, STEPS};
    use gore_server::store::sqlite::SqliteStore;
    use gore_server::store::Store;
    let arena = r#"{"config":{"starts_at":1796083200000,"ends_at":1796085000000,"berserk_min_actions":5,"streaks":true},"players":{"ana0000001":{"id":"ana0000001","rating":1500,"presence":"joined","free_since":1796083260000},"bea0000001":{"id":"bea0000001","rating":1600,"presence":"joined","free_since":1796083260000}},"games":[{"a":"bea0000001","b":"ana0000001","started_at":1796083200000,"result":{"game":0,"outcome":"a_wins","ended_at":1796083260000,"berserk_a":false,"berserk_b":false,"actions_a":4294967295,"actions_b":4294967295}}],"finished":[0]}"#;
    let state = format!(
        r#"{{"arena":{arena},"names":{{"ana0000001":"Ana","bea0000001":"Bea"}},"games":["g000000001"]}}"#
    );
    let start = gore_core::Position::new(gore_core::Rules::STANDARD.variant).to_string();
    let game = |id: &str| {
        format!(
            "INSERT INTO games (id, mode, rules, start, level, creator, status, created_at,
                 updated_at)
             VALUES ('{id}', 'friend', 'standard', '{start}', 5, 'A', 'over', 1, 1);"
        )
    };
    let rows = format!(
        "{}
         INSERT INTO tournaments (id, kind, name, creator, clock, rules, rated, starts_at,
             ends_at, finished, created_at, state, version)
         VALUES ('t000000001', 'arena', 'Old', 'ana0000001', '3+2', 'standard', TRUE,
             1796083200000, 1796085000000, FALSE, 1796083100000, '{state}', 4);
         INSERT INTO tournament_games (tournament_id, n, game_id)
             VALUES ('t000000001', 0, 'g000000001');",
        game("g000000001")
    );
    let orphan = "INSERT INTO tournament_games (tournament_id, n, game_id)
                  VALUES ('t000000009', 0, 'g000000002')";
    let check = |store: std::sync::Arc<dyn Store>| async move {
        let t = store
            .tournament("t000000001".into())
            .await
            .unwrap()
            .expect("the arena");
        assert_eq!((t.kind.as_str(), t.version), ("arena", 4));
        let TournamentState::Arena(s) = &t.state else {
            panic!("not an arena: {:?}", t.state);
        };
        assert_eq!(s.games, vec!["g000000001".to_string()]);
        assert_eq!(s.names["bea0000001"], "Bea");
        assert_eq!(s.arena.players.len(), 2);
        assert_eq!(s.arena.standings()[0].score, 2);
    };

    // SQLite.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.sqlite3");
    let mut c = rusqlite::Connection::open(&path).unwrap();
    for (i, step) in STEPS[..18].iter().enumerate() {
        let tx = c.transaction().unwrap();
        tx.execute_batch(&step.text(Dialect::Sqlite)).unwrap();
        tx.pragma_update(None, "user_version", (i + 1) as i64)
            .unwrap();
        tx.commit().unwrap();
    }
    c.execute_batch(&rows).unwrap();
    drop(c);
    check(std::sync::Arc::new(
        SqliteStore::open(&path, Default::default()).unwrap(),
    ))
    .await;
    let c = rusqlite::Connection::open(&path).unwrap();
    c.pragma_update(None, "foreign_keys", "ON").unwrap();
    let kept: String = c
        .query_row(
            "SELECT game_id FROM tournament_games WHERE tournament_id = 't000000001'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(kept, "g000000001");
    c.execute_batch(&game("g000000002")).unwrap();
    assert!(c.execute_batch(orphan).is_err(), "the foreign key holds");
    c.execute_batch("UPDATE tournaments SET kind = 'swiss'")
        .unwrap();

    // PostgreSQL.
    let Some(base) = postgres_url() else { return };
    let url = fresh_pg_database(&base).await;
    let pg = pg_connect(&url).await;
    pg.batch_execute(
        "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)",
    )
    .await
    .unwrap();
    for (i, step) in STEPS[..18].iter().enumerate() {
        pg.batch_execute(&step.text(Dialect::Postgres))
            .await
            .unwrap();
        pg.batch_execute(&format!("INSERT INTO schema_version VALUES ({}, 0)", i + 1))
            .await
            .unwrap();
    }
    pg.batch_execute(&rows).await.unwrap();
    check(std::sync::Arc::new(
        PgStore::connect(&url, PgOptions::default()).await.unwrap(),
    ))
    .await;
    let kept = pg
        .query_one(
            "SELECT game_id FROM tournament_games WHERE tournament_id = 't000000001'",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(kept.get::<_, String>(0), "g000000001");
    pg.batch_execute(&game("g000000002")).await.unwrap();
    assert!(
        pg.batch_execute(orphan).await.is_err(),
        "the foreign key holds"
    );
    pg.batch_execute("UPDATE tournaments SET kind = 'swiss'")
        .await
        .unwrap();
}

/// `--tournaments-daily-swiss`: the server schedules a Swiss every day
/// (5+3, rated, 7 rounds, from 18:00 UTC), today's while it has not begun
/// and tomorrow's, once however many servers share the database. T0 is
/// midnight UTC.
#[tokio::test(flavor = "multi_thread")]
async fn the_daily_swiss_is_scheduled_once_by_several_servers() {
    assert_eq!(T0 % 86_400_000, 0);
    let clock = Clock::manual(T0 + 3_600_000);
    let dir = tempfile::tempdir().unwrap();
    let db = db_path(&dir);
    let daily = || {
        let (clock, db) = (clock.clone(), db.clone());
        async move {
            let dir = tempfile::tempdir().unwrap();
            let mut config = config_in(&dir);
            config.db = db;
            config.clock = clock;
            config.tournaments_daily_swiss = true;
            Server::start_with(dir, config).await
        }
    };
    let (s1, s2) = (daily().await, daily().await);
    let (t1, t2) = (
        s1.state.tournaments().clone(),
        s2.state.tournaments().clone(),
    );
    let brief = |v: &Value| {
        v.as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t["name"].as_str().unwrap().to_string(),
                    t["kind"].as_str().unwrap().to_string(),
                    t["clock"].as_str().unwrap().to_string(),
                    t["rated"].as_bool().unwrap(),
                    t["rounds"].as_u64().unwrap(),
                    t["starts_at"].as_i64().unwrap(),
                )
            })
            .collect::<Vec<_>>()
    };
    let day = |d: i64| {
        (
            "Daily 5+3 Swiss".to_string(),
            "swiss".to_string(),
            "5+3".to_string(),
            true,
            7,
            T0 + d * 86_400_000 + 18 * 3_600_000,
        )
    };
    for _ in 0..2 {
        tokio::join!(t1.tick(), t2.tick());
    }
    let (_, lists) = get_with(&s1, "", "/api/tournaments").await;
    assert_eq!(brief(&lists["upcoming"]), vec![day(0), day(1)], "{lists}");
    // A day on: today's has begun (nobody joined: it ended at once), and
    // the day after tomorrow's is announced.
    clock.advance(Duration::from_secs(86_400));
    tokio::join!(t1.tick(), t2.tick());
    tokio::join!(t1.tick(), t2.tick());
    let (_, lists) = get_with(&s2, "", "/api/tournaments").await;
    assert_eq!(brief(&lists["upcoming"]), vec![day(1), day(2)], "{lists}");
    assert_eq!(brief(&lists["finished"]), vec![day(0)], "{lists}");
}

/// A player who never makes his first action loses his Swiss game: it is
/// aborted after its first-action time (30 s, RULES.md "Aborting"), the
/// abort counts against him, his opponent wins, and he is withdrawn; with
/// one player left to pair, the event ends after that round.
#[tokio::test(flavor = "multi_thread")]
async fn an_absent_player_loses_his_swiss_game_and_is_withdrawn() {
    let clock = Clock::manual(T0);
    let dir = tempfile::tempdir().unwrap();
    let s = server_on_db(&clock, &db_path(&dir)).await;
    let mut cookies = BTreeMap::new();
    for name in ["Ana", "Bea"] {
        cookies.insert(name, account(&s, name).await);
    }
    let id = swiss(&s, cookies["Ana"].as_str(), 3, T0 + 1_000).await;
    for c in cookies.values() {
        tournament_ok(&s, c, &id, "join").await;
    }
    clock.advance(Duration::from_secs(1));
    s.state.tournaments().tick().await;
    let d = wait_for(&s, &id, "round 1", |d| {
        d["rounds"].as_array().unwrap().len() == 1
    })
    .await;
    let board = &d["rounds"][0]["boards"][0];
    // A (to act first) never acts: at 30 s the game is aborted.
    let (absent, present) = (board["a"][1].clone(), board["b"][1].clone());
    clock.advance(Duration::from_secs(30));
    s.state.games().settle_clocks().await;
    let game = board["game"].as_str().unwrap();
    let (_, g) = get_with(&s, "", &format!("/api/games/{game}")).await;
    assert_eq!(result_of(&g).reason, "abort", "{g}");
    s.state.tournaments().tick().await;
    let d = wait_for(&s, &id, "the abort recorded", |d| {
        d["tournament"]["phase"] == "finished"
    })
    .await;
    assert_eq!(d["rounds"][0]["boards"][0]["result"], "b_wins", "{d}");
    assert_eq!(d["rounds"].as_array().unwrap().len(), 1, "{d}");
    let lines = d["standings"].as_array().unwrap();
    assert_eq!(lines[0]["name"], present, "{d}");
    assert_eq!(lines[0]["points"], 1.0, "{d}");
    assert_eq!(lines[1]["name"], absent, "{d}");
    assert_eq!(lines[1]["withdrawn"], true, "{d}");
}
