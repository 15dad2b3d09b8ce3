//! The analysis board's server side: the socket `/api/analysis/ws` and
//! `POST /api/analysis/position`. A client cannot make the server search
//! without bound (the caps are the server's; node caps keep this
//! deterministic), one analysis runs per socket and per client, `stop`
//! stops, bad input is answered naming the field or the rule while the
//! socket keeps serving, and a small solved database gives exact values
//! that agree with the solver's naive reference.

mod common;

use std::time::Duration;

use common::*;
use futures_util::SinkExt;
use gore_core::{Position, Variant};
use gore_solver::disk::write_layer;
use gore_solver::par::Sequential;
use gore_solver::solve;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

async fn analysis_ws(s: &Server) -> Ws {
    let url = format!("ws://{}/api/analysis/ws", s.addr);
    let (inner, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    Ws { inner, view: None }
}

async fn say(ws: &mut Ws, v: Value) {
    ws.inner
        .send(Message::Text(v.to_string().into()))
        .await
        .unwrap();
}

/// Every message up to and including the next `done` (or an `error`).
async fn until_done(ws: &mut Ws) -> Vec<Value> {
    let mut out = Vec::new();
    loop {
        let m = next_msg(ws).await;
        let end = m["type"] == "done" || m["type"] == "error";
        out.push(m);
        if end {
            return out;
        }
    }
}

#[tokio::test]
async fn a_request_for_more_than_the_caps_is_clamped() {
    let s = server(|c| {
        c.analysis_nodes = 20_000;
        c.analysis_time = Duration::from_secs(600);
    })
    .await;
    let mut ws = analysis_ws(&s).await;
    say(
        &mut ws,
        json!({"type": "analyse", "rules": "standard", "time_ms": 1_000_000_000_000u64}),
    )
    .await;
    let started = next_msg(&mut ws).await;
    assert_eq!(started["type"], "started", "{started}");
    assert_eq!(started["limits"]["nodes"], 20_000);
    assert_eq!(started["limits"]["time_ms"], 600_000);
    assert_eq!(started["limits"]["depth"], 40);
    let msgs = until_done(&mut ws).await;
    let done = msgs.last().unwrap();
    assert_eq!(done["type"], "done", "{done}");
    let nodes = done["nodes"].as_u64().unwrap();
    // The position's search and its four actions' each stop at their
    // share of the 20,000; each may count a node or so past it.
    assert!(nodes > 0 && nodes <= 20_000 + 5 * 8, "{nodes} nodes");
    for m in &msgs {
        if m["type"] == "depth" {
            assert!(m["nodes"].as_u64().unwrap() <= 20_000, "{m}");
            let e = m["expected"].as_array().unwrap();
            let sum = e[0].as_f64().unwrap() + e[1].as_f64().unwrap();
            assert!((sum - 48.0).abs() < 1e-9, "{m}");
        }
    }
    assert!(msgs.iter().any(|m| m["type"] == "depth"));
}

#[tokio::test]
async fn one_analysis_per_socket_a_visitors_other_socket_waits_its_turn_and_stop_stops() {
    // Nothing but `stop` ends these: ten minutes, fifty million nodes.
    let s = server(|c| {
        c.analysis_time = Duration::from_secs(600);
        c.analysis_threads = 2;
    })
    .await;
    let mut a = analysis_ws(&s).await;
    say(&mut a, json!({"type": "analyse"})).await;
    let first = next_msg(&mut a).await;
    assert_eq!(first["type"], "started", "{first}");
    assert_eq!(first["id"], 1);

    // The same visitor (address) in another tab: never refused (issue
    // 27): it waits its turn behind his running one, told its place,
    // though the second thread is free (one running per address).
    let mut b = analysis_ws(&s).await;
    say(&mut b, json!({"type": "analyse", "line": "a1"})).await;
    let started = next_msg(&mut b).await;
    assert_eq!(started["type"], "started", "{started}");
    let q = next_msg(&mut b).await;
    assert_eq!(q, json!({"type": "queued", "id": 1, "place": 0}));
    // Asking that tab for another position while it waits: the waiting
    // one ends at once (it leaves the queue) and the new one waits.
    say(&mut b, json!({"type": "analyse", "line": "a2"})).await;
    let done = next_msg(&mut b).await;
    assert_eq!(done["type"], "done", "{done}");
    assert_eq!(
        (done["id"].clone(), done["stopped"].clone()),
        (json!(1), json!(true))
    );
    assert_eq!(next_msg(&mut b).await["type"], "started");
    let q = next_msg(&mut b).await;
    assert_eq!(q, json!({"type": "queued", "id": 2, "place": 0}));

    // A new analysis on the first socket replaces the running one: its
    // `done` (stopped) comes before the new one starts.
    say(&mut a, json!({"type": "analyse", "line": "a1"})).await;
    let msgs = until_done(&mut a).await;
    let done = msgs.last().unwrap();
    assert_eq!(done["type"], "done", "{done}");
    assert_eq!(done["id"], 1);
    assert_eq!(done["stopped"], true);
    let second = next_msg(&mut a).await;
    assert_eq!(second["type"], "started", "{second}");
    assert_eq!(second["id"], 2);
    // After a1 from the start: 0,7,7,7 / 7,7,7,6 (a1's six seeds sown
    // into a2, a3, a4, b1, b2, b3), B to move.
    assert!(
        second["gpn"]
            .as_str()
            .unwrap()
            .starts_with("0,7,7,7/7,7,7,6 "),
        "{second}"
    );

    // The first socket's ended: the other tab's waiting one runs now (its
    // first finding comes), and the first socket's new one waits for it.
    let m = next_msg(&mut b).await;
    assert!(
        m["type"] == "depth" || m["type"] == "action" || m["type"] == "exact",
        "{m}"
    );
    let q = next_of(&mut a, "queued").await;
    assert_eq!(q["id"], 2, "{q}");

    // `stop` stops each.
    say(&mut b, json!({"type": "stop"})).await;
    let done = until_done(&mut b).await.pop().unwrap();
    assert_eq!(
        (
            done["type"].clone(),
            done["id"].clone(),
            done["stopped"].clone()
        ),
        (json!("done"), json!(2), json!(true))
    );
    say(&mut a, json!({"type": "stop"})).await;
    let done = until_done(&mut a).await.pop().unwrap();
    assert_eq!(
        (
            done["type"].clone(),
            done["id"].clone(),
            done["stopped"].clone()
        ),
        (json!("done"), json!(2), json!(true))
    );

    // Their slots are free: a short one runs at once.
    say(
        &mut b,
        json!({"type": "analyse", "line": "a1", "time_ms": 1}),
    )
    .await;
    let started = next_of(&mut b, "started").await;
    assert_eq!(started["limits"]["time_ms"], 1);
    let done = next_of(&mut b, "done").await;
    assert_eq!(done["id"], 3);
}

/// Issue 27, point 1: one visitor with two analysis tabs (one thread, the
/// default one analysis running per address) gets both answers: the
/// second waits its turn, told its place, never a bare refusal.
#[tokio::test]
async fn two_sockets_of_one_visitor_both_get_their_answers() {
    let s = server(|c| c.analysis_nodes = 20_000).await;
    let mut a = analysis_ws(&s).await;
    let mut b = analysis_ws(&s).await;
    say(&mut a, json!({"type": "analyse", "time_ms": 60_000})).await;
    assert_eq!(next_msg(&mut a).await["type"], "started");
    say(
        &mut b,
        json!({"type": "analyse", "line": "a1", "time_ms": 60_000}),
    )
    .await;
    let m = next_msg(&mut b).await;
    assert_eq!(m["type"], "started", "{m}");
    for ws in [&mut a, &mut b] {
        let msgs = until_done(ws).await;
        let done = msgs.last().unwrap();
        assert_eq!(done["type"], "done", "{msgs:?}");
        assert!(done["best"].is_string(), "{done}");
        assert!(
            msgs.iter().all(|m| m["type"] != "error"),
            "never refused: {msgs:?}"
        );
    }
}

#[tokio::test]
async fn bad_input_names_the_field_or_the_rule_and_the_socket_keeps_serving() {
    let s = server(|c| c.analysis_nodes = 5_000).await;
    let mut ws = analysis_ws(&s).await;
    let cases = [
        (
            json!({"type": "analyse", "rules": "no-such-rule"}),
            "bad_request",
            "rules: ",
        ),
        (
            json!({"type": "analyse", "gpn": "1,2,3"}),
            "bad_request",
            "gpn: ",
        ),
        (
            json!({"type": "analyse", "line": "a1 zz"}),
            "bad_request",
            "line: action 2 `zz`: ",
        ),
        // b1 is B's: A cannot sow it at the start.
        (
            json!({"type": "analyse", "line": "b1"}),
            "illegal_action",
            "line: action 1 `b1`: illegal",
        ),
        (
            json!({"type": "analyse", "time_ms": "soon"}),
            "bad_request",
            "time_ms: ",
        ),
        (json!({"type": "sing"}), "bad_request", ""),
    ];
    for (msg, code, start) in cases {
        say(&mut ws, msg.clone()).await;
        let e = next_msg(&mut ws).await;
        assert_eq!(e["type"], "error", "{msg} → {e}");
        assert_eq!(error_of(&e).code, code, "{msg} → {e}");
        let text = error_of(&e).message;
        assert!(text.starts_with(start), "{msg} → {text}");
    }
    // Still serving: a good request is analysed.
    say(&mut ws, json!({"type": "analyse", "line": "a1 b1"})).await;
    let started = next_msg(&mut ws).await;
    assert_eq!(started["type"], "started", "{started}");
    let done = next_of(&mut ws, "done").await;
    assert_eq!(done["id"], 1);

    // The editor's check: the same judgement over HTTP.
    let c = bot();
    let (st, v) = post_json(&c, &s, "/api/analysis/position", json!({"line": "a1"})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["to_move"], "B");
    assert!(
        v["gpn"].as_str().unwrap().starts_with("0,7,7,7/7,7,7,6 "),
        "{v}"
    );
    assert_eq!(v["positions"].as_array().unwrap().len(), 1);
    let legal: Vec<&str> = v["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    for h in ["b1", "b2", "b3", "b4"] {
        assert!(legal.contains(&h), "{legal:?}");
    }
    assert!(!legal.iter().any(|a| a.starts_with('a')), "{legal:?}");
    let (st, v) = post_json(&c, &s, "/api/analysis/position", json!({"gpn": "x"})).await;
    assert_eq!(st, 400, "{v}");
    assert!(error_of(&v).message.starts_with("gpn: "), "{v}");
    let (st, v) = post_json(&c, &s, "/api/analysis/position", json!({"line": "a1 a2"})).await;
    assert_eq!(st, 422, "{v}");
    assert_eq!(error_of(&v).code, "illegal_action");
    assert!(
        error_of(&v).message.starts_with("line: action 2 `a2`"),
        "{v}"
    );
    // A finished game: its result, no legal action.
    let (st, v) = post_json(
        &c,
        &s,
        "/api/analysis/position",
        json!({"gpn": "0,0,1,2/1,0,0,0 AAAA/BBBB 22-22 A -"}),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["legal"], json!([]));
    // Swept: A takes a3 and a4 (3), B b1 (1).
    assert_eq!(v["over"]["seeds"], json!([25, 23]));
}

/// Seeds of A and B from half seeds.
fn seeds(x: [u16; 2]) -> Value {
    json!([x[0] as f64 / 2.0, x[1] as f64 / 2.0])
}

#[tokio::test]
async fn exact_values_come_from_the_solved_database() {
    let db = tempfile::tempdir().unwrap();
    for layer in &solve::solve_up_to(8, false, &Sequential).layers {
        write_layer(db.path(), layer, false).unwrap();
    }
    let s = server(|c| {
        c.solver_db = Some(db.path().to_path_buf());
        c.analysis_nodes = 5_000;
    })
    .await;
    // A: a3 = 1, a4 = 3; B: b1 = 1; 22-21 captured; A to move.
    let gpn = "0,0,1,3/1,0,0,0 AAAA/BBBB 22-21 A -";
    let mut ws = analysis_ws(&s).await;
    say(
        &mut ws,
        json!({"type": "analyse", "rules": "no-trades", "gpn": gpn}),
    )
    .await;
    let msgs = until_done(&mut ws).await;
    let exact = msgs
        .iter()
        .find(|m| m["type"] == "exact")
        .unwrap_or_else(|| panic!("no exact values: {msgs:?}"));
    // By hand: a4 sows b1 b2 b3, every hole holds at most 2, the game
    // ends and A sweeps a3: 22 + 1 for A, 21 + 4 for B; and A cannot do
    // better (the naive solver below agrees).
    let a4 = exact["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["action"] == "a4")
        .unwrap();
    assert_eq!(a4["v"], json!([23.0, 25.0]));
    assert_eq!(a4["exact"], true);
    // The solver's naive reference (another algorithm, in memory).
    let mut v = Variant::STANDARD;
    v.no_trades = true;
    let p = Position::from_gpn(gpn, v).unwrap();
    let naive = gore_solver::naive::memory(5, false);
    let probe = gore_solver::probe::probe(&naive, 5, &p).unwrap();
    let t = probe.totals(probe.values);
    assert_eq!(exact["position"]["v"], seeds(t.v));
    assert_eq!(exact["position"]["lo"], seeds(t.lo));
    assert_eq!(exact["position"]["hi"], seeds(t.hi));
    assert_eq!(exact["position"]["exact"], t.exact);
    let got = exact["actions"].as_array().unwrap();
    assert_eq!(got.len(), probe.actions.len());
    for (g, (a, values)) in got.iter().zip(&probe.actions) {
        let t = probe.totals(*values);
        assert_eq!(g["action"], a.to_string());
        assert_eq!(g["v"], seeds(t.v), "{g}");
        assert_eq!(g["lo"], seeds(t.lo), "{g}");
        assert_eq!(g["hi"], seeds(t.hi), "{g}");
    }
    // With trades the database says nothing.
    say(&mut ws, json!({"type": "analyse", "gpn": gpn})).await;
    let msgs = until_done(&mut ws).await;
    assert!(!msgs.iter().any(|m| m["type"] == "exact"), "{msgs:?}");
}

/// An analysis socket for client `ip`, as a trusted proxy (the server
/// trusts 127.0.0.1) forwards it.
async fn analysis_ws_from(s: &Server, ip: &str) -> Ws {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://{}/api/analysis/ws", s.addr)
        .into_client_request()
        .unwrap();
    req.headers_mut()
        .insert("X-Forwarded-For", ip.parse().unwrap());
    let (inner, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    Ws { inner, view: None }
}

#[tokio::test]
async fn a_flooder_cannot_starve_another_address_and_a_queued_analysis_is_told_its_place() {
    // One thread; nothing but `stop` (or the socket closing) ends the
    // flooder's analyses: ten minutes, no node cap.
    let s = server(|c| {
        c.analysis_threads = 1;
        c.analysis_per_client = 8;
        c.analysis_time = Duration::from_secs(600);
        c.analysis_nodes = u64::MAX;
        c.trust_proxy = vec!["127.0.0.1".parse().unwrap()];
    })
    .await;
    const FLOODER: &str = "203.0.113.1";
    let mut f1 = analysis_ws_from(&s, FLOODER).await;
    say(&mut f1, json!({"type": "analyse"})).await;
    let m = next_msg(&mut f1).await;
    assert_eq!(m["type"], "started", "{m}");
    // f1 took the only thread; the flooder's next two wait, in order.
    let mut f2 = analysis_ws_from(&s, FLOODER).await;
    say(&mut f2, json!({"type": "analyse", "line": "a1"})).await;
    assert_eq!(next_msg(&mut f2).await["type"], "started");
    let q2 = next_msg(&mut f2).await;
    assert_eq!(q2, json!({"type": "queued", "id": 1, "place": 0}));
    let mut f3 = analysis_ws_from(&s, FLOODER).await;
    say(&mut f3, json!({"type": "analyse", "line": "a2"})).await;
    assert_eq!(next_msg(&mut f3).await["type"], "started");
    let q3 = next_msg(&mut f3).await;
    assert_eq!(q3, json!({"type": "queued", "id": 1, "place": 1}));

    // The innocent asks once, last: the flooder was served (f1 runs), so
    // the innocent's turn comes before the flooder's waiting two.
    let mut innocent = analysis_ws_from(&s, "198.51.100.7").await;
    say(
        &mut innocent,
        json!({"type": "analyse", "line": "a1 b1", "time_ms": 1}),
    )
    .await;
    assert_eq!(next_msg(&mut innocent).await["type"], "started");
    let q = next_msg(&mut innocent).await;
    assert_eq!(q, json!({"type": "queued", "id": 1, "place": 0}));

    // f1 ends: the innocent's analysis runs next and is done, while f2
    // (ten minutes unless stopped) would hold the thread had it gone first.
    say(&mut f1, json!({"type": "stop"})).await;
    let done = next_of(&mut f1, "done").await;
    assert_eq!(done["stopped"], true, "{done}");
    let done = next_of(&mut innocent, "done").await;
    assert_eq!(done["id"], 1, "{done}");
    // Only now f2 runs (its first finding comes); f3 still waits.
    let m = next_msg(&mut f2).await;
    assert_ne!(m["type"], "done", "{m}");
}

/// A server whose analysis pool has one thread, with flooders' analyses
/// of ten minutes and no node cap, behind a trusted loopback proxy.
async fn flood_server() -> Server {
    server(|c| {
        c.analysis_threads = 1;
        c.analysis_time = Duration::from_secs(600);
        c.analysis_nodes = u64::MAX;
        c.trust_proxy = vec!["127.0.0.1".parse().unwrap()];
    })
    .await
}

/// An innocent address asks for a 300 ms analysis: it waits, told it is
/// next (place 0). Its socket.
async fn innocent_next(s: &Server) -> Ws {
    let mut innocent = analysis_ws_from(s, "198.51.100.7").await;
    say(
        &mut innocent,
        json!({"type": "analyse", "line": "a1 b1", "time_ms": 300}),
    )
    .await;
    assert_eq!(next_msg(&mut innocent).await["type"], "started");
    let q = next_msg(&mut innocent).await;
    assert_eq!(q, json!({"type": "queued", "id": 1, "place": 0}));
    innocent
}

/// Item 6 of issue 25, at a small scale: many addresses, each with one
/// long analysis at a time, asked again as soon as the last is over.
/// Before, the analyses ran first come first served, so an innocent's
/// short analysis waited for every flooder's (16 × 10 s). Now the pool
/// serves the address that searched least lately first: the flooders, who
/// searched all along, go after the innocent, who waits for the running
/// one only.
#[tokio::test]
async fn many_flooding_addresses_do_not_starve_an_address_that_asks_now_and_then() {
    let s = flood_server().await;
    let mut flood = Vec::new();
    for ip in ["203.0.113.1", "203.0.113.2", "203.0.113.3"] {
        let mut ws = analysis_ws_from(&s, ip).await;
        say(&mut ws, json!({"type": "analyse"})).await;
        assert_eq!(next_msg(&mut ws).await["type"], "started");
        flood.push(ws);
    }
    // Round one: each flooder's analysis runs in turn, stopped, and is
    // asked for again at once (the second and third wait meanwhile).
    for ws in &mut flood[..2] {
        say(ws, json!({"type": "stop"})).await;
        let done = next_of(ws, "done").await;
        assert_eq!(done["stopped"], true, "{done}");
        say(ws, json!({"type": "analyse", "line": "a1"})).await;
        let again = next_of(ws, "started").await;
        assert_eq!(again["id"], 2, "{again}");
    }
    // The third runs; the first two wait. The first was told place 1 when
    // it asked (behind the third, which had not searched yet), then 0 once
    // the third ran. The second is then told 0 or 1: which of the two goes
    // first follows the time each searched before its stop, which the
    // machine decides, not the test.
    let q = next_of(&mut flood[0], "queued").await;
    assert_eq!(q["place"], 1, "{q}");
    let q = next_of(&mut flood[0], "queued").await;
    assert_eq!(q["place"], 0, "{q}");
    let q = next_of(&mut flood[1], "queued").await;
    assert!(q["place"] == 0 || q["place"] == 1, "{q}");

    let mut innocent = innocent_next(&s).await;
    // The running one ends: the innocent's runs and is done, while the
    // flooders' next ones (ten minutes each) still wait or run.
    say(&mut flood[2], json!({"type": "stop"})).await;
    next_of(&mut flood[2], "done").await;
    let done = next_of(&mut innocent, "done").await;
    assert_eq!(done["id"], 1, "{done}");
}

/// Issue 25's analysis flood at its start: flooding addresses, none
/// served yet, each asking for the longest analysis; an innocent's short
/// one goes before every long one waiting (it waits for the search
/// running only), not after a round of them.
#[tokio::test]
async fn a_short_analysis_goes_before_a_round_of_long_ones() {
    let s = flood_server().await;
    let mut flood = Vec::new();
    for ip in ["203.0.113.1", "203.0.113.2", "203.0.113.3", "203.0.113.4"] {
        let mut ws = analysis_ws_from(&s, ip).await;
        say(&mut ws, json!({"type": "analyse"})).await;
        assert_eq!(next_msg(&mut ws).await["type"], "started");
        flood.push(ws);
    }
    // The first runs; the three others wait, told places 0, 1, 2.
    for (n, ws) in flood[1..].iter_mut().enumerate() {
        let q = next_of(ws, "queued").await;
        assert_eq!(q["place"], n, "{q}");
    }
    let mut innocent = innocent_next(&s).await;
    // The running one ends: the innocent's runs next and is done while
    // the three long ones still wait.
    say(&mut flood[0], json!({"type": "stop"})).await;
    next_of(&mut flood[0], "done").await;
    let done = next_of(&mut innocent, "done").await;
    assert_eq!(done["id"], 1, "{done}");
}

/// Issue 37, Medium 5, at a small scale (two places): the queue is full
/// of flooders' long analyses, one per address, each address having
/// searched; an innocent address is not refused `busy` (d0da121 refused
/// it until a flooder stopped): it takes the place of the most served
/// flooder's analysis, which is told `busy`, and runs next.
#[tokio::test]
async fn a_full_queue_gives_an_innocent_the_place_of_the_most_served_flooder() {
    let s = server(|c| {
        c.analysis_threads = 1;
        c.analysis_queue = 2;
        c.analysis_time = Duration::from_secs(600);
        c.analysis_nodes = u64::MAX;
        c.trust_proxy = vec!["127.0.0.1".parse().unwrap()];
    })
    .await;
    let mut flood = Vec::new();
    for ip in ["203.0.113.1", "203.0.113.2", "203.0.113.3"] {
        let mut ws = analysis_ws_from(&s, ip).await;
        say(&mut ws, json!({"type": "analyse"})).await;
        assert_eq!(next_msg(&mut ws).await["type"], "started");
        flood.push(ws);
    }
    // The first two search in turn, stopped and asked again at once: both
    // wait, served, while the third runs. The queue is full.
    for ws in &mut flood[..2] {
        say(ws, json!({"type": "stop"})).await;
        next_of(ws, "done").await;
        say(ws, json!({"type": "analyse", "line": "a1"})).await;
        next_of(ws, "started").await;
    }
    next_of(&mut flood[1], "queued").await;
    let mut innocent = innocent_next(&s).await;
    // One of the two waiting flooders (the one that searched longer, as
    // the machine decided) lost its place.
    let (first, rest) = flood.split_at_mut(1);
    let e = tokio::select! {
        e = next_of(&mut first[0], "error") => e,
        e = next_of(&mut rest[0], "error") => e,
    };
    assert_eq!(error_of(&e).code, "busy", "{e}");
    say(&mut flood[2], json!({"type": "stop"})).await;
    next_of(&mut flood[2], "done").await;
    let done = next_of(&mut innocent, "done").await;
    assert_eq!(done["id"], 1, "{done}");
}

/// Issue 27, point 1, as the pages meet it: a visitor's analysis tab runs
/// (ten minutes unless stopped) and his review waits behind it, told its
/// place; the tab stops: the review is served.
#[tokio::test]
async fn a_visitors_review_waits_for_his_analysis_tab_then_is_served() {
    let s = server(|c| {
        c.analysis_time = Duration::from_secs(600);
        c.analysis_nodes = u64::MAX;
    })
    .await;
    let mut tab = analysis_ws(&s).await;
    say(&mut tab, json!({"type": "analyse"})).await;
    assert_eq!(next_msg(&mut tab).await["type"], "started");
    // Its first finding: it runs.
    let m = next_msg(&mut tab).await;
    assert_ne!(m["type"], "queued", "{m}");
    // His second tab waits, then leaves (its page closed): its analysis
    // leaves the queue.
    let mut second = analysis_ws(&s).await;
    say(&mut second, json!({"type": "analyse", "line": "a1"})).await;
    assert_eq!(next_msg(&mut second).await["type"], "started");
    assert_eq!(next_msg(&mut second).await["type"], "queued");
    second.inner.close(None).await.unwrap();
    drop(second);
    let c = bot();
    let record =
        "[Rules \"no-trades\"]\n[Start \"1,4,0,0/1,1,1,1 AAAA/BBBB 19-20 B -\"]\n\n1. b3 a2\n";
    let review = {
        let (c, url) = (c.clone(), s.at("/api/review"));
        tokio::spawn(async move {
            let r = c
                .post(url)
                .json(&json!({"record": record}))
                .send()
                .await
                .unwrap();
            (r.status().as_u16(), r.text().await.unwrap())
        })
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let v: Value = c
            .get(s.at("/api/review/status"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if v == json!({"state": "queued", "place": 0}) {
            break;
        }
        assert!(
            !review.is_finished(),
            "answered at once: {:?}",
            review.await
        );
        assert!(tokio::time::Instant::now() < deadline, "never queued: {v}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    say(&mut tab, json!({"type": "stop"})).await;
    let done = next_of(&mut tab, "done").await;
    assert_eq!(done["stopped"], true, "{done}");
    let (code, body) = review.await.unwrap();
    assert_eq!(code, 200, "{body}");
}
