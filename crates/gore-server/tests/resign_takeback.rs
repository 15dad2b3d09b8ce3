//! Issue 10, the server's side: each sowing's path and each legal
//! sowing's preview (checked against hand arithmetic from the rules and a
//! naive sowing written here), resigning and taking back in every mode,
//! their refusals, over HTTP and the socket, and with two servers on one
//! store (a takeback reaches every socket as a whole state, and a
//! takeback followed by a new action at the same ply is never missed).

mod common;

use std::time::{Duration, Instant};

use common::shared::*;
use common::*;
use serde_json::{json, Value};

const HOLES: [&str; 8] = ["a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"];

fn names(holes: &[usize]) -> Vec<String> {
    holes.iter().map(|&i| HOLES[i].to_string()).collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("an array: {v}"))
        .iter()
        .map(|h| h.as_str().unwrap().to_string())
        .collect()
}

/// A naive sowing, straight from RULES.md: the seeds of each hole, who
/// controls it, the mover, the origin. Returns the holes sown in order,
/// the holes captured in the order taken (landing, backward, forward) and
/// the seeds they held.
fn reference(
    mut seeds: [u8; 8],
    ctrl: [char; 8],
    mover: char,
    origin: usize,
    skip_origin: bool,
) -> (Vec<usize>, Vec<usize>, u8) {
    let n = seeds[origin];
    seeds[origin] = 0;
    let mut at = origin;
    let mut path = Vec::new();
    for _ in 0..n {
        at = (at + 1) % 8;
        if skip_origin && at == origin {
            at = (at + 1) % 8;
        }
        seeds[at] += 1;
        path.push(at);
    }
    let ripe = |i: usize| seeds[i] == 2 || seeds[i] == 4;
    let mut taken = Vec::new();
    if n > 0 && ctrl[at] != mover && ripe(at) {
        taken.push(at);
        for step in [7, 1] {
            let mut j = at;
            loop {
                j = (j + step) % 8;
                if taken.contains(&j) || !ripe(j) {
                    break;
                }
                taken.push(j);
            }
        }
    }
    let total = taken.iter().map(|&i| seeds[i]).sum();
    (path, taken, total)
}

/// Reads the seeds, controllers and mover of a GPN.
fn parse_gpn(gpn: &str) -> ([u8; 8], [char; 8], char) {
    let f: Vec<&str> = gpn.split(' ').collect();
    let seeds: Vec<u8> = f[0].split(['/', ',']).map(|n| n.parse().unwrap()).collect();
    let ctrl: Vec<char> = f[1].chars().filter(|&c| c != '/').collect();
    (
        seeds.try_into().unwrap(),
        ctrl.try_into().unwrap(),
        f[3].chars().next().unwrap(),
    )
}

/// Every preview of `state` agrees with the naive sowing from its
/// position, and there is one per legal sowing.
fn check_previews(state: &Value, skip_origin: bool) {
    let (seeds, ctrl, mover) = parse_gpn(state["position"].as_str().unwrap());
    let sowings: Vec<String> = legal(state)
        .into_iter()
        .filter(|a| HOLES.contains(&a.as_str()))
        .collect();
    let previews = state["previews"].as_array().unwrap();
    assert_eq!(previews.len(), sowings.len(), "{state}");
    for (p, a) in previews.iter().zip(&sowings) {
        assert_eq!(p["action"], a.as_str());
        let origin = HOLES.iter().position(|h| h == a).unwrap();
        let (path, taken, total) = reference(seeds, ctrl, mover, origin, skip_origin);
        assert_eq!(strings(&p["path"]), names(&path), "{p}");
        assert_eq!(strings(&p["captured"]), names(&taken), "{p}");
        assert_eq!(p["seeds"], total, "{p}");
    }
}

/// `POST /api/games/{id}/{what}` with a bearer token.
async fn post(s: &Server, id: &str, what: &str, token: Option<&str>, body: Value) -> (u16, Value) {
    let mut req = bot()
        .post(s.at(&format!("/api/games/{id}/{what}")))
        .json(&body);
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let r = req.send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

/// The next `state` or `update` message, applied to the socket's view;
/// returns the message's type and the view.
async fn next_change(ws: &mut Ws) -> (String, Value) {
    loop {
        let m = next_msg(ws).await;
        let kind = m["type"].as_str().unwrap().to_string();
        if kind != "state" && kind != "update" {
            continue;
        }
        match serde_json::from_value::<gore_server::api::ServerMsg>(m.clone()).unwrap() {
            gore_server::api::ServerMsg::State { state } => ws.view = Some(*state),
            gore_server::api::ServerMsg::Update { update } => {
                let view = ws.view.as_mut().expect("an update before any state");
                assert!(view.apply(&update), "an update that does not follow: {m}");
            }
            _ => unreachable!(),
        }
        return (
            kind,
            serde_json::to_value(ws.view.as_ref().unwrap()).unwrap(),
        );
    }
}

fn ids(g: &Value) -> (String, String) {
    (
        g["id"].as_str().unwrap().to_string(),
        g["token"].as_str().unwrap().to_string(),
    )
}

/// A friend game, both seats claimed: (id, A's token, B's token).
async fn friend(s: &Server, start: Option<&str>) -> (String, String, String) {
    let mut body = json!({"mode": "friend", "colour": "A"});
    if let Some(start) = start {
        body["start"] = json!(start);
    }
    let g = create(&browser(), s, body).await;
    let (id, ta) = ids(&g);
    let tb = claim_seat(&browser(), s, g["invite"].as_str().unwrap())
        .await
        .token;
    (id, ta, tb)
}

// ---- paths and previews ----

/// From the start, each of A's four sowings of 6 seeds runs to the sixth
/// hole after it and captures nothing (every landing hole then holds 7):
/// a1 → a2 … b3, a2 → a3 … b4, a3 → a4 … a1, a4 → b1 … a2.
#[tokio::test]
async fn previews_from_the_start() {
    let s = Server::start(1000).await;
    let (id, t) = ids(&create(&bot(), &s, json!({"mode": "local"})).await);
    let v = get_as(&bot(), &s, &id, &t).await;
    let previews = v["previews"].as_array().unwrap();
    let expect = [
        ("a1", ["a2", "a3", "a4", "b1", "b2", "b3"]),
        ("a2", ["a3", "a4", "b1", "b2", "b3", "b4"]),
        ("a3", ["a4", "b1", "b2", "b3", "b4", "a1"]),
        ("a4", ["b1", "b2", "b3", "b4", "a1", "a2"]),
    ];
    assert_eq!(previews.len(), 4, "{v}");
    for (p, (a, path)) in previews.iter().zip(expect) {
        assert_eq!(p["action"], a);
        assert_eq!(strings(&p["path"]), path);
        assert_eq!(strings(&p["captured"]), Vec::<String>::new());
        assert_eq!(p["seeds"], 0);
    }
    check_previews(&v, false);
    // A spectator gets no legal action and no preview.
    let (_, spectator) = get(&bot(), &s, &id).await;
    assert!(spectator["legal"].as_array().unwrap().is_empty());
    assert!(spectator["previews"].as_array().unwrap().is_empty());
    // The sowing played: its path is in the log, nothing captured.
    let after = play(&s, &id, &t, "a3", 0).await;
    let entry = &after["actions"][0];
    assert_eq!(strings(&entry["path"]), expect[2].1);
    assert_eq!(strings(&entry["captured"]), Vec::<String>::new());
    check_previews(&after, false);
}

/// RULES.md's worked examples, B sowing b2:
/// - `1,3,1,5/3,4,2,1`: 4 seeds to b3, b4, a1, a2; a2 = 4 (A's) is taken,
///   then backward a1 = 2 and b4 = 2 (b3 = 3 stops), forward a3 = 1 stops:
///   a2, a1, b4, 8 seeds.
/// - `0,1,1,1/2,6,3,0`: 6 seeds to b3 … a4; a4 = 2 is taken, backward a3 = 2,
///   a2 = 2 (a1 = 1 stops), forward b1 = 2 (b2, emptied, stops): a4, a3,
///   a2, b1, 8 seeds.
#[tokio::test]
async fn previews_and_paths_of_the_worked_examples() {
    let s = Server::start(1000).await;
    for (start, path, taken) in [
        (
            "1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 B -",
            vec!["b3", "b4", "a1", "a2"],
            vec!["a2", "a1", "b4"],
        ),
        (
            "0,1,1,1/2,6,3,0 AAAA/BBBB 17-17 B -",
            vec!["b3", "b4", "a1", "a2", "a3", "a4"],
            vec!["a4", "a3", "a2", "b1"],
        ),
    ] {
        let (id, t) = ids(&create(&bot(), &s, json!({"mode": "local", "start": start})).await);
        let v = get_as(&bot(), &s, &id, &t).await;
        check_previews(&v, false);
        let p = v["previews"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["action"] == "b2")
            .unwrap()
            .clone();
        assert_eq!(strings(&p["path"]), path, "{start}");
        assert_eq!(strings(&p["captured"]), taken, "{start}");
        assert_eq!(p["seeds"], 8, "{start}");
        // Played, the log says the same.
        let after = play(&s, &id, &t, "b2", 0).await;
        assert_eq!(strings(&after["actions"][0]["path"]), path);
        assert_eq!(strings(&after["actions"][0]["captured"]), taken);
        // The log kept in the store reads back the same (a server that
        // loads the game builds each path from the positions it kept).
        let again = Server::start_on(
            tempfile::tempdir().unwrap(),
            s.dir.path().join("gore.sqlite3").to_str().unwrap().into(),
            1000,
        )
        .await;
        let loaded = get_as(&bot(), &again, &id, &t).await;
        assert_eq!(loaded["actions"], after["actions"], "{start}");
    }
}

/// A lap of 9 seeds from a1 (`9,5,5,5/6,6,6,6`): standard, it drops the
/// 8th seed back in a1 and ends in a2; under `skip-origin` it steps over
/// a1 and ends in a3.
#[tokio::test]
async fn a_lap_with_and_without_the_origin() {
    let s = Server::start(1000).await;
    let start = "9,5,5,5/6,6,6,6 AAAA/BBBB 0-0 A -";
    for (rules, skip, path) in [
        (
            "standard",
            false,
            ["a2", "a3", "a4", "b1", "b2", "b3", "b4", "a1", "a2"],
        ),
        (
            "skip-origin",
            true,
            ["a2", "a3", "a4", "b1", "b2", "b3", "b4", "a2", "a3"],
        ),
    ] {
        let (id, t) = ids(&create(
            &bot(),
            &s,
            json!({"mode": "local", "rules": rules, "start": start}),
        )
        .await);
        let v = get_as(&bot(), &s, &id, &t).await;
        check_previews(&v, skip);
        assert_eq!(strings(&v["previews"][0]["path"]), path, "{rules}");
        let after = play(&s, &id, &t, "a1", 0).await;
        assert_eq!(strings(&after["actions"][0]["path"]), path, "{rules}");
    }
}

/// Offers, answers and passes have no path; previews follow each turn
/// (the answerer of an offer has none: accept and decline are not
/// sowings).
#[tokio::test]
async fn no_path_for_an_offer_and_no_preview_for_an_answer() {
    let s = Server::start(1000).await;
    // B has 12 captured: A may offer a2 (6 seeds a hole).
    let (id, t) = ids(&create(
        &bot(),
        &s,
        json!({"mode": "local", "start": "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 A -"}),
    )
    .await);
    let v = play(&s, &id, &t, "offer:a2", 0).await;
    assert_eq!(strings(&v["actions"][0]["path"]), Vec::<String>::new());
    assert_eq!(legal(&v), ["accept", "decline"]);
    assert!(v["previews"].as_array().unwrap().is_empty());
    let v = play(&s, &id, &t, "decline", 1).await;
    assert_eq!(strings(&v["actions"][1]["path"]), Vec::<String>::new());
    check_previews(&v, false);
    assert!(!v["previews"].as_array().unwrap().is_empty());
}

/// The final sweep's seeds: from `0,0,2,1/0,3,0,0 … 20-22 A -`, A sows a4
/// (1 seed) into b1 (now 1: no capture; b2 still holds 3), then B sows b2
/// into b3, b4, a1 (a1 now 1: no capture). Every hole holds at most 2:
/// the game ends, each player taking what is on the holes they control:
/// A a1 + a3 = 3, B b1 + b3 + b4 = 3. Result 23-25, swept [3, 3].
#[tokio::test]
async fn the_result_says_what_the_sweep_gave() {
    let s = Server::start(1000).await;
    let (id, t) = ids(&create(
        &bot(),
        &s,
        json!({"mode": "local", "start": "0,0,2,1/0,3,0,0 AAAA/BBBB 20-22 A -"}),
    )
    .await);
    let v = play(&s, &id, &t, "a4", 0).await;
    assert_eq!(v["status"], "playing", "{v}");
    assert_eq!(v["result"], Value::Null);
    let v = play(&s, &id, &t, "b2", 1).await;
    assert_eq!(v["status"], "over", "{v}");
    assert_eq!(
        v["actions"][1]["position"],
        "1,0,2,0/1,0,1,1 AAAA/BBBB 20-22 A -"
    );
    assert_eq!(result_of(&v).reason, "board");
    assert_eq!(result_of(&v).seeds, [23, 25]);
    assert_eq!(result_of(&v).swept, [3, 3]);
}

// ---- resign ----

/// A resigns a friend game while B is to move (any moment): B wins, the
/// seeds are not swept (14-14 as they stood), and the game then refuses
/// actions, a second resignation and takebacks. Both sockets hear it.
#[tokio::test]
async fn resigning_a_friend_game() {
    let s = Server::start(1000).await;
    let (id, ta, tb) = friend(&s, Some("1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 B -")).await;
    let mut wa = s.ws(&id, Some(&ta)).await;
    let mut wb = s.ws(&id, Some(&tb)).await;
    next_change(&mut wa).await;
    next_change(&mut wb).await;
    // A spectator cannot resign for anyone.
    let (st, e) = post(&s, &id, "resign", None, json!({})).await;
    assert_eq!((st, code(&e)), (403, "forbidden"), "{e}");
    let (st, v) = post(&s, &id, "resign", Some(&ta), json!({})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["status"], "over");
    assert_eq!(v["to_move"], Value::Null);
    assert_eq!(
        v["result"],
        json!({"seeds": [14, 14], "winner": "B", "without_glory": false,
               "reason": "resign", "swept": [0, 0]})
    );
    assert!(v["legal"].as_array().unwrap().is_empty());
    for ws in [&mut wa, &mut wb] {
        let (kind, seen) = next_change(ws).await;
        assert_eq!(kind, "update");
        assert_eq!(result_of(&seen).winner.as_deref(), Some("B"));
    }
    let (st, e) = post(&s, &id, "resign", Some(&tb), json!({})).await;
    assert_eq!((st, code(&e)), (409, "game_over"), "{e}");
    let (st, e) = act(&bot(), &s, &id, Some(&tb), json!({"action": "b2"})).await;
    assert_eq!((st, code(&e)), (409, "game_over"), "{e}");
    let (st, e) = post(&s, &id, "takeback", Some(&tb), json!({})).await;
    assert_eq!((st, code(&e)), (409, "game_over"), "{e}");
    // The record says who resigned, and replays to that result.
    let text = bot()
        .get(s.at(&format!("/api/games/{id}/record")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.contains("[Termination \"resign\"]"), "{text}");
    assert!(text.contains("[Resigned \"A\"]"), "{text}");
    assert!(text.contains("[Result \"14-14\"]"), "{text}");
    let r = gore_core::Record::parse(&text).unwrap();
    assert_eq!(
        r.forfeit,
        Some(gore_core::Forfeit::Resign(gore_core::Player::A))
    );
    r.replay().unwrap();
    // A server loading the game again has the same result.
    let again = Server::start_on(
        tempfile::tempdir().unwrap(),
        s.dir.path().join("gore.sqlite3").to_str().unwrap().into(),
        1000,
    )
    .await;
    assert_eq!(get(&bot(), &again, &id).await.1["result"], v["result"]);
}

/// A winner who declined an offer wins "without glory", by resignation
/// too: B declines A's offer of a2, then A resigns.
#[tokio::test]
async fn a_resignation_after_a_decline_is_without_glory() {
    let s = Server::start(1000).await;
    let (id, ta, tb) = friend(&s, Some("0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a4")).await;
    play(&s, &id, &tb, "decline", 0).await;
    let (st, v) = post(&s, &id, "resign", Some(&ta), json!({})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(result_of(&v).winner.as_deref(), Some("B"));
    assert!(result_of(&v).without_glory);
    assert_eq!(result_of(&v).seeds, [9, 12]);
}

/// In a local game the player to move resigns; in an ai game the human,
/// over the socket, even while the AI is to move. A friend game still
/// waiting for the friend cannot be resigned.
#[tokio::test]
async fn resigning_local_ai_and_waiting_games() {
    let s = Server::start(1000).await;
    let (id, t) = ids(&create(&bot(), &s, json!({"mode": "local"})).await);
    play(&s, &id, &t, "a3", 0).await;
    let (st, v) = post(&s, &id, "resign", Some(&t), json!({})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(
        result_of(&v).winner.as_deref(),
        Some("A"),
        "B was to move: B resigned"
    );

    let g = create(&bot(), &s, json!({"mode": "ai", "colour": "B", "level": 1})).await;
    let (id, t) = ids(&g);
    let mut ws = s.ws(&id, Some(&t)).await;
    next_change(&mut ws).await;
    send(&mut ws, json!({"type": "resign"})).await;
    loop {
        let (_, v) = next_change(&mut ws).await;
        if v["status"] == "over" {
            assert_eq!(result_of(&v).winner.as_deref(), Some("A"), "{v}");
            assert_eq!(result_of(&v).reason, "resign");
            break;
        }
    }
    // The AI does not move in a resigned game: its last state stands.
    let over = get(&bot(), &s, &id).await.1;
    assert_eq!(over["thinking"], false);
    send(&mut ws, json!({"type": "resign"})).await;
    assert_eq!(next_error(&mut ws).await["code"], "game_over");

    let g = create(&bot(), &s, json!({"mode": "friend", "colour": "A"})).await;
    let (id, t) = ids(&g);
    let (st, e) = post(&s, &id, "resign", Some(&t), json!({})).await;
    assert_eq!((st, code(&e)), (403, "forbidden"), "{e}");
}

// ---- takeback ----

/// A local game: each takeback undoes the last action, reaching the
/// socket as a whole state; with nothing left it is refused. The game
/// counts its takebacks, and its record says so.
#[tokio::test]
async fn takebacks_in_a_local_game() {
    let s = Server::start(1000).await;
    let (id, t) = ids(&create(&bot(), &s, json!({"mode": "local"})).await);
    let mut ws = s.ws(&id, Some(&t)).await;
    let mut spectator = s.ws(&id, None).await;
    next_change(&mut ws).await;
    next_change(&mut spectator).await;
    let one = play(&s, &id, &t, "a3", 0).await;
    play(&s, &id, &t, "b1", 1).await;
    for w in [&mut ws, &mut spectator] {
        next_change(w).await;
        next_change(w).await;
    }
    let (st, v) = post(&s, &id, "takeback", Some(&t), json!({})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(ply(&v), 1);
    assert_eq!(v["position"], one["position"]);
    assert_eq!(v["takebacks"], 1);
    assert_eq!(v["to_move"], "B");
    for w in [&mut ws, &mut spectator] {
        let (kind, seen) = next_change(w).await;
        assert_eq!(kind, "state", "a takeback is a whole state");
        assert_eq!(ply(&seen), 1);
        assert_eq!(seen["takebacks"], 1);
    }
    // Over the socket.
    send(&mut ws, json!({"type": "takeback"})).await;
    let (kind, seen) = next_change(&mut ws).await;
    assert_eq!((kind.as_str(), ply(&seen)), ("state", 0));
    assert_eq!(seen["takebacks"], 2);
    assert_eq!(seen["position"], "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A -");
    let (st, e) = post(&s, &id, "takeback", Some(&t), json!({})).await;
    assert_eq!((st, code(&e)), (409, "refused"), "{e}");
    send(&mut ws, json!({"type": "takeback"})).await;
    assert_eq!(next_error(&mut ws).await["code"], "refused");
    // Play goes on from there, updates following the new state.
    send_action(&mut ws, "a1", 0).await;
    let (kind, seen) = next_change(&mut ws).await;
    assert_eq!((kind.as_str(), ply(&seen)), ("update", 1));
    assert_eq!(seen["actions"][0]["action"], "a1");
    let text = bot()
        .get(s.at(&format!("/api/games/{id}/record")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.contains("[Takebacks \"2\"]"), "{text}");
    assert!(text.contains("1. a1\n"), "{text}");
    gore_core::Record::parse(&text).unwrap().replay().unwrap();
    // Stored: a server loading it has the same game.
    let again = Server::start_on(
        tempfile::tempdir().unwrap(),
        s.dir.path().join("gore.sqlite3").to_str().unwrap().into(),
        1000,
    )
    .await;
    let loaded = get(&bot(), &again, &id).await.1;
    assert_eq!(loaded["actions"], seen["actions"]);
    assert_eq!(loaded["takebacks"], 2);
}

/// An ai game: a takeback goes back to the human's previous turn (the
/// AI's reply undone too), and the AI plays on afterwards. A takeback
/// right after the human's action, while the AI may be thinking, undoes
/// the human's action and the AI's search comes to nothing. When the AI
/// opened and the human has not played, there is nothing to take back.
#[tokio::test(flavor = "multi_thread")]
async fn takebacks_in_an_ai_game() {
    let s = Server::start(1000).await;
    let g = create(&bot(), &s, json!({"mode": "ai", "colour": "A", "level": 1})).await;
    let (id, t) = ids(&g);
    play(&s, &id, &t, "a3", 0).await;
    poll_until(&bot(), &s, &id, |v| ply(v) == 2).await;
    let (st, v) = post(&s, &id, "takeback", Some(&t), json!({})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(ply(&v), 0, "{v}");
    assert_eq!(v["to_move"], "A");
    assert_eq!(legal(&v).len(), 4);
    // At once after an action: back to ply 0 whether the AI had answered.
    play(&s, &id, &t, "a1", 0).await;
    let (st, v) = post(&s, &id, "takeback", Some(&t), json!({})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!((ply(&v), v["takebacks"].as_u64()), (0, Some(2)), "{v}");
    // The AI answers the next action, once, to that action.
    play(&s, &id, &t, "a2", 0).await;
    let v = poll_until(&bot(), &s, &id, |v| ply(v) >= 2 && v["thinking"] == false).await;
    assert_eq!(ply(&v), 2, "{v}");
    assert_eq!(v["actions"][0]["action"], "a2");
    assert_eq!(v["actions"][1]["player"], "B");

    // The top level thinks for the server's whole AI time (300 ms here): the
    // takeback comes while it thinks. Its search is discarded: after the
    // human's next action the AI answers that one, at ply 2.
    let g = create(
        &bot(),
        &s,
        json!({"mode": "ai", "colour": "A", "level": gore_ai::MAX_LEVEL}),
    )
    .await;
    let (id, t) = ids(&g);
    let v = play(&s, &id, &t, "a3", 0).await;
    assert_eq!(v["thinking"], true, "{v}");
    let (st, v) = post(&s, &id, "takeback", Some(&t), json!({})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!((ply(&v), v["thinking"].as_bool()), (0, Some(false)), "{v}");
    play(&s, &id, &t, "a4", 0).await;
    let v = poll_until(&bot(), &s, &id, |v| ply(v) >= 2 && v["thinking"] == false).await;
    assert_eq!(ply(&v), 2, "{v}");
    assert_eq!(v["actions"][0]["action"], "a4");
    assert_eq!(v["actions"][1]["player"], "B");
    assert_eq!(v["takebacks"], 1);

    let g = create(&bot(), &s, json!({"mode": "ai", "colour": "B", "level": 1})).await;
    let (id, t) = ids(&g);
    poll_until(&bot(), &s, &id, |v| ply(v) == 1).await;
    let (st, e) = post(&s, &id, "takeback", Some(&t), json!({})).await;
    assert_eq!((st, code(&e)), (409, "refused"), "{e}");
    // No seat, no takeback.
    let (st, e) = post(&s, &id, "takeback", None, json!({})).await;
    assert_eq!((st, code(&e)), (403, "forbidden"), "{e}");
}

/// A friend game: a takeback is a request the opponent answers. Granted,
/// the asker's last action and the reply since are undone; declined,
/// nothing changes; a new action cancels it. Refusals: answering one's
/// own request, answering none, asking with nothing to undo, asking while
/// the opponent's request waits.
#[tokio::test]
async fn takeback_requests_in_a_friend_game() {
    let s = Server::start(1000).await;
    let (id, ta, tb) = friend(&s, None).await;
    let mut wa = s.ws(&id, Some(&ta)).await;
    let mut wb = s.ws(&id, Some(&tb)).await;
    next_change(&mut wa).await;
    next_change(&mut wb).await;
    play(&s, &id, &ta, "a3", 0).await;
    // B has not played: nothing of B's to take back.
    let (st, e) = post(&s, &id, "takeback", Some(&tb), json!({})).await;
    assert_eq!((st, code(&e)), (409, "refused"), "{e}");
    play(&s, &id, &tb, "b1", 1).await;
    for w in [&mut wa, &mut wb] {
        next_change(w).await;
        next_change(w).await;
    }
    // A asks, over the socket; both hear of it.
    send(&mut wa, json!({"type": "takeback"})).await;
    for w in [&mut wa, &mut wb] {
        let (kind, seen) = next_change(w).await;
        assert_eq!(kind, "update");
        assert_eq!(seen["takeback"], "A");
        assert_eq!(ply(&seen), 2);
    }
    let (st, e) = post(
        &s,
        &id,
        "takeback/answer",
        Some(&ta),
        json!({"accept": true}),
    )
    .await;
    assert_eq!((st, code(&e)), (409, "refused"), "own request: {e}");
    let (st, e) = post(&s, &id, "takeback", Some(&tb), json!({})).await;
    assert_eq!((st, code(&e)), (409, "refused"), "A's request waits: {e}");
    let (st, e) = post(&s, &id, "takeback/answer", None, json!({"accept": true})).await;
    assert_eq!((st, code(&e)), (403, "forbidden"), "{e}");
    let (st, e) = post(&s, &id, "takeback/answer", Some(&tb), json!({"accept": 1})).await;
    assert_eq!((st, code(&e)), (400, "bad_request"), "{e}");
    // B grants it: a3 and b1 are undone, A is to move at the start.
    send(&mut wb, json!({"type": "takeback_answer", "accept": true})).await;
    for w in [&mut wa, &mut wb] {
        let (kind, seen) = next_change(w).await;
        assert_eq!(kind, "state");
        assert_eq!(ply(&seen), 0);
        assert_eq!(seen["takeback"], Value::Null);
        assert_eq!(seen["takebacks"], 1);
    }
    assert_eq!(
        legal(
            &wa.view
                .as_ref()
                .map(|v| serde_json::to_value(v).unwrap())
                .unwrap()
        )
        .len(),
        4
    );
    // Asked and declined: nothing changes but the request.
    play(&s, &id, &ta, "a1", 0).await;
    let (st, v) = post(&s, &id, "takeback", Some(&ta), json!({})).await;
    assert_eq!((st, v["takeback"].as_str()), (200, Some("A")), "{v}");
    let (st, v) = post(
        &s,
        &id,
        "takeback/answer",
        Some(&tb),
        json!({"accept": false}),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    assert_eq!((ply(&v), v["takeback"].clone()), (1, Value::Null));
    assert_eq!(v["takebacks"], 1);
    // Asked, then B plays: the request lapses.
    post(&s, &id, "takeback", Some(&ta), json!({})).await;
    let v = play(&s, &id, &tb, "b2", 1).await;
    assert_eq!(v["takeback"], Value::Null);
    let (st, e) = post(
        &s,
        &id,
        "takeback/answer",
        Some(&tb),
        json!({"accept": true}),
    )
    .await;
    assert_eq!((st, code(&e)), (409, "refused"), "no request: {e}");
    // A's request now, granted over HTTP: A's a1 and B's b2 are undone.
    post(&s, &id, "takeback", Some(&ta), json!({})).await;
    let (st, v) = post(
        &s,
        &id,
        "takeback/answer",
        Some(&tb),
        json!({"accept": true}),
    )
    .await;
    assert_eq!((st, ply(&v)), (200, 0), "{v}");
    assert_eq!(v["takebacks"], 2);
}

/// Bad bodies and unknown games are refused as everywhere.
#[tokio::test]
async fn bad_requests_change_nothing() {
    let s = Server::start(1000).await;
    let (st, e) = post(&s, "0000000000", "resign", None, json!({})).await;
    assert_eq!((st, code(&e)), (404, "not_found"), "{e}");
    let (st, e) = post(
        &s,
        "0000000000",
        "takeback/answer",
        None,
        json!({"accept": true}),
    )
    .await;
    assert_eq!((st, code(&e)), (404, "not_found"), "{e}");
    let (id, ta, tb) = friend(&s, None).await;
    play(&s, &id, &ta, "a3", 0).await;
    post(&s, &id, "takeback", Some(&ta), json!({})).await;
    let (st, e) = post(&s, &id, "takeback/answer", Some(&tb), json!({})).await;
    assert_eq!((st, code(&e)), (400, "bad_request"), "{e}");
    let mut ws = s.ws(&id, Some(&tb)).await;
    next_change(&mut ws).await;
    send(&mut ws, json!({"type": "takeback_answer"})).await;
    assert_eq!(next_error(&mut ws).await["code"], "bad_request");
    let v = get_as(&bot(), &s, &id, &tb).await;
    assert_eq!((ply(&v), v["takeback"].as_str()), (1, Some("A")));
}

// ---- several servers ----

/// Reads a socket's changes until its view satisfies `pred`; returns the
/// type of the message that made it so, and the view.
async fn until_ws(ws: &mut Ws, pred: impl Fn(&Value) -> bool) -> (String, Value) {
    loop {
        let (kind, v) = next_change(ws).await;
        if pred(&v) {
            return (kind, v);
        }
    }
}

/// Waits until `pred` holds on `s`'s view of the game.
async fn until(s: &Server, id: &str, pred: impl Fn(&Value) -> bool) -> Value {
    poll_until(&bot(), s, id, pred).await
}

/// Two servers on one store: a friend game whose players are on either
/// server. A's request (server 1) reaches B (server 2); B's grant reaches
/// A's socket as a whole state; then A plays another action at the same
/// ply, and server 2 shows that one, not the one taken back.
async fn takeback_across(s1: &Server, s2: &Server) {
    let (id, ta, tb) = friend(s1, None).await;
    let mut wa = s1.ws(&id, Some(&ta)).await;
    let mut wb = s2.ws(&id, Some(&tb)).await;
    next_change(&mut wa).await;
    next_change(&mut wb).await;
    play(s1, &id, &ta, "a3", 0).await;
    until(s2, &id, |v| ply(v) == 1).await;
    play(s2, &id, &tb, "b1", 1).await;
    until(s1, &id, |v| ply(v) == 2).await;
    play(s1, &id, &ta, "a1", 2).await;
    until_ws(&mut wa, |v| ply(v) == 3).await;
    let (st, v) = post(s1, &id, "takeback", Some(&ta), json!({})).await;
    assert_eq!(st, 200, "{v}");
    let (_, seen) = until_ws(&mut wb, |v| v["takeback"] == "A").await;
    assert_eq!(ply(&seen), 3, "server 2 heard the action and the request");
    send(&mut wb, json!({"type": "takeback_answer", "accept": true})).await;
    let (kind, seen) = until_ws(&mut wa, |v| v["takebacks"] == 1).await;
    assert_eq!(kind, "state", "server 1's socket gets the whole state");
    assert_eq!(ply(&seen), 2);
    assert_eq!(seen["takeback"], Value::Null);
    assert_eq!(seen["to_move"], "A");
    let (kind, seen) = until_ws(&mut wb, |v| v["takebacks"] == 1).await;
    assert_eq!((kind.as_str(), ply(&seen)), ("state", 2));
    // Another action at ply 3, on server 1: server 2 shows it.
    play(s1, &id, &ta, "a2", 2).await;
    let v2 = until(s2, &id, |v| ply(v) == 3 && v["takebacks"] == 1).await;
    assert_eq!(v2["actions"][2]["action"], "a2", "{v2}");
    let v1 = get(&bot(), s1, &id).await.1;
    assert_eq!(v1["actions"], v2["actions"]);
    let (_, seen) = until_ws(&mut wb, |v| ply(v) == 3).await;
    assert_eq!(seen["actions"][2]["action"], "a2", "{seen}");
    // A stale server's action at the old ply is refused, not appended.
    let (st, e) = act(
        &bot(),
        s2,
        &id,
        Some(&tb),
        json!({"action": "b2", "ply": 2}),
    )
    .await;
    assert_eq!((st, code(&e)), (409, "stale"), "{e}");
}

/// A local game on two servers: server 2 has it in memory at ply 2;
/// server 1 takes back and plays another action, back at ply 2; server 2
/// must show the new action (its ply alone would say nothing changed).
/// Then a takeback and an action racing on the two servers: one wins,
/// and both servers agree.
async fn same_ply_after_a_takeback(s1: &Server, s2: &Server) {
    let (id, t) = ids(&create(&bot(), s1, json!({"mode": "local"})).await);
    play(s1, &id, &t, "a3", 0).await;
    play(s1, &id, &t, "b1", 1).await;
    until(s2, &id, |v| ply(v) == 2).await;
    let mut w2 = s2.ws(&id, Some(&t)).await;
    next_change(&mut w2).await;
    let (st, _) = post(s1, &id, "takeback", Some(&t), json!({})).await;
    assert_eq!(st, 200);
    play(s1, &id, &t, "b2", 1).await;
    let v = until(s2, &id, |v| v["actions"][1]["action"] == "b2").await;
    assert_eq!(v["takebacks"], 1);
    assert_eq!(v["actions"], get(&bot(), s1, &id).await.1["actions"]);
    // Server 2's socket ends with the same game.
    until_ws(&mut w2, |seen| seen["actions"] == v["actions"]).await;
    // A race: server 1 takes back while server 2 plays at ply 2.
    let c = bot();
    let (tb, pl) = tokio::join!(
        post(s1, &id, "takeback", Some(&t), json!({})),
        act(&c, s2, &id, Some(&t), json!({"action": "a1", "ply": 2})),
    );
    assert!(
        tb.0 == 200 || pl.0 == 200,
        "one of them wins: {tb:?} {pl:?}"
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (v1, v2) = (get(&bot(), s1, &id).await.1, get(&bot(), s2, &id).await.1);
        if v1["actions"] == v2["actions"] && v1["takebacks"] == v2["takebacks"] {
            break;
        }
        assert!(Instant::now() < deadline, "the servers disagree: {v1} {v2}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_takeback_request_across_two_servers() {
    let shared = Shared::new();
    let (s1, s2) = (server_on(&shared, 1).await, server_on(&shared, 2).await);
    takeback_across(&s1, &s2).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_takeback_then_an_action_at_the_same_ply_on_two_servers() {
    let shared = Shared::new();
    let (s1, s2) = (server_on(&shared, 1).await, server_on(&shared, 2).await);
    same_ply_after_a_takeback(&s1, &s2).await;
}

/// A resignation on one server ends the game on the other.
#[tokio::test(flavor = "multi_thread")]
async fn a_resignation_across_two_servers() {
    let shared = Shared::new();
    let (s1, s2) = (server_on(&shared, 1).await, server_on(&shared, 2).await);
    let (id, ta, tb) = friend(&s1, None).await;
    let mut wb = s2.ws(&id, Some(&tb)).await;
    next_change(&mut wb).await;
    let (st, _) = post(&s1, &id, "resign", Some(&ta), json!({})).await;
    assert_eq!(st, 200);
    let (_, seen) = until_ws(&mut wb, |v| v["status"] == "over").await;
    assert_eq!(result_of(&seen).reason, "resign");
    assert_eq!(result_of(&seen).winner.as_deref(), Some("B"));
    let (st, e) = act(
        &bot(),
        &s2,
        &id,
        Some(&ta),
        json!({"action": "a1", "ply": 0}),
    )
    .await;
    assert_eq!((st, code(&e)), (409, "game_over"), "{e}");
}

/// The same two tests with two servers on one PostgreSQL database
/// (`GORE_TEST_POSTGRES`): the store's checks and `NOTIFY` do it.
#[tokio::test(flavor = "multi_thread")]
async fn takebacks_on_two_servers_on_postgres() {
    let Some(base) = postgres_url() else {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("GORE_TEST_POSTGRES is not set: under CI=true the PostgreSQL tests must run");
        }
        eprintln!("\n*** WARNING: GORE_TEST_POSTGRES is not set: the PostgreSQL takeback test did NOT run. ***");
        return;
    };
    let url = fresh_pg_database(&base).await;
    let on_url = |c: &mut gore_server::Config| c.db = url.clone();
    let (s1, s2) = (server(on_url).await, server(on_url).await);
    takeback_across(&s1, &s2).await;
    same_ply_after_a_takeback(&s1, &s2).await;
}
