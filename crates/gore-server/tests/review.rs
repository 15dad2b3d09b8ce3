//! Game reviews over HTTP: a finished game's (`GET /api/games/{id}/review`,
//! cached), an unfinished one refused, an uploaded record's
//! (`POST /api/review`) with its refusals naming the field and line, and
//! the bound per client of the analysis pool.

mod common;

use std::net::{IpAddr, Ipv4Addr};

use common::*;
use gore_server::ai::{AiJob, ClientKey};
use serde_json::{json, Value};

/// B to move under no-trades: `b4` takes every seed on the board (9);
/// `b3` lets A's `a2` end the game with 7 of the 9 for A (the hand
/// arithmetic of gore-learn's tests/review.rs).
const BLUNDER_START: &str = "1,4,0,0/1,1,1,1 AAAA/BBBB 19-20 B -";

/// A finished local game: B blunders with b3, A ends it with a2.
async fn finished_game(c: &reqwest::Client, s: &Server) -> String {
    let g = create_game(
        c,
        s,
        json!({"mode": "local", "rules": "no-trades", "start": BLUNDER_START}),
    )
    .await;
    let (id, t) = (g.id.as_str(), g.token.as_str());
    let (code, v) = act(c, s, id, Some(t), json!({"action": "b3"})).await;
    assert_eq!(code, 200, "{v}");
    let (code, v) = act(c, s, id, Some(t), json!({"action": "a2"})).await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["status"], "over", "{v}");
    id.to_string()
}

async fn get_review(c: &reqwest::Client, s: &Server, id: &str) -> (u16, Value) {
    let r = c
        .get(s.at(&format!("/api/games/{id}/review")))
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_finished_game_is_reviewed_and_the_review_is_cached() {
    let s = Server::start(0).await;
    let c = bot();
    let id = finished_game(&c, &s).await;
    assert!(!s.state.reviews().cached(&id).await);
    let (code, v) = get_review(&c, &s, &id).await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["rules"], "no-trades");
    assert_eq!(v["start"], BLUNDER_START);
    assert_eq!(v["total"], 48);
    // A: 19 + 4 captured + 3 swept; B: 20 + b4's 2.
    assert_eq!(v["outcome"], json!([26, 22]));
    let actions = v["actions"].as_array().unwrap();
    assert_eq!(actions.len(), 2);
    let b3 = &actions[0];
    assert_eq!(b3["mover"], "B");
    assert_eq!(b3["action"], "b3");
    assert_eq!(b3["gpn"], BLUNDER_START);
    assert_eq!(b3["best"], "b4");
    // b4: B ends with all 9 on the board: 29 of 48.
    assert_eq!(b3["best_after"], json!([19.0, 29.0]));
    assert_eq!(b3["before"], json!([19.0, 29.0]));
    // After b3, A's a2 leaves B 22 (at most: A could do no better).
    assert!(b3["after"][1].as_f64().unwrap() <= 22.0, "{b3}");
    assert!(b3["loss"].as_f64().unwrap() >= 7.0, "{b3}");
    assert_eq!(b3["class"], "blunder");
    assert_eq!(b3["mark"], "??");
    assert_eq!(v["summary"][1]["blunders"], 1);
    assert_eq!(v["summary"][1]["actions"], 1);
    assert_eq!(v["summary"][0]["actions"], 1);
    // The annotated record reads back, with the comments.
    let text = v["record"].as_str().unwrap();
    let rec = gore_core::Record::parse(text).unwrap();
    rec.replay().unwrap();
    assert_eq!(rec.comments.len(), 2);
    assert!(rec.comments[0].1.contains("?? blunder"), "{text}");
    assert!(rec.comments[0].1.contains("best b4"), "{text}");
    assert!(s.state.reviews().cached(&id).await);
    // The second visitor gets the same review, from the cache.
    let (code, again) = get_review(&bot(), &s, &id).await;
    assert_eq!(code, 200);
    assert_eq!(again, v);
    // The games' AI pool never saw it; the analysis pool is idle again.
    assert_eq!(s.state.analysis_pool().stats().running, 0);
}

#[tokio::test]
async fn an_unfinished_game_or_no_game_is_refused() {
    let s = Server::start(0).await;
    let c = bot();
    let g = create_game(&c, &s, json!({"mode": "local"})).await;
    let id = g.id.as_str();
    let (code, v) = get_review(&c, &s, id).await;
    assert_eq!(code, 409, "{v}");
    assert_eq!(error_of(&v).code, "refused");
    assert!(error_of(&v).message.contains("not finished"), "{v}");
    assert!(!s.state.reviews().cached(id).await);
    let (code, v) = get_review(&c, &s, "nosuchgame").await;
    assert_eq!(
        (code, v["error"]["code"].as_str()),
        (404, Some("not_found"))
    );
}

#[tokio::test]
async fn an_uploaded_record_is_reviewed_and_a_bad_one_named() {
    let s = Server::start(0).await;
    let c = bot();
    let text = format!("[Rules \"no-trades\"]\n[Start \"{BLUNDER_START}\"]\n\n1. b3 a2\n");
    let (code, v) = post_json(&c, &s, "/api/review", json!({"record": text})).await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["actions"][0]["class"], "blunder");
    assert_eq!(v["actions"][0]["best"], "b4");

    // A token that is no action: the field, the line and the token.
    let bad = "[Rules \"standard\"]\n\n1. a1 b1\n2. zz\n";
    let (code, v) = post_json(&c, &s, "/api/review", json!({"record": bad})).await;
    assert_eq!(code, 400, "{v}");
    assert_eq!(error_of(&v).code, "bad_request");
    let msg = error_of(&v).message;
    assert!(msg.starts_with("record: record line 4"), "{msg}");
    assert!(msg.contains("`zz`"), "{msg}");

    // An illegal action: its ply and the rule.
    let bad = "[Rules \"standard\"]\n\n1. a1 a2\n";
    let (code, v) = post_json(&c, &s, "/api/review", json!({"record": bad})).await;
    assert_eq!(code, 400, "{v}");
    let msg = error_of(&v).message;
    assert!(msg.contains("action 2 (a2)"), "{msg}");

    // No Rules tag.
    let (code, v) = post_json(&c, &s, "/api/review", json!({"record": "1. a1\n"})).await;
    assert_eq!(code, 400, "{v}");
    assert!(error_of(&v).message.contains("Rules"));

    // Not a record field at all.
    let (code, v) = post_json(&c, &s, "/api/review", json!({"text": "x"})).await;
    assert_eq!(code, 400, "{v}");
    assert!(error_of(&v).message.contains("record"));

    // Too long a record (over 12 KiB, under the body limit).
    let long = format!("[Rules \"standard\"]\n\n#{}\n", "x".repeat(13 * 1024));
    let (code, v) = post_json(&c, &s, "/api/review", json!({"record": long})).await;
    assert_eq!(code, 400, "{v}");
    assert!(error_of(&v).message.contains("bytes"));
    // The server still serves.
    let (code, _) = post_json(&c, &s, "/api/review", json!({"record": text})).await;
    assert_eq!(code, 200);
}

#[tokio::test]
async fn a_visitors_review_waits_behind_his_analysis_then_is_served() {
    // --analysis-per-client 1 (the default): while this visitor's job
    // holds the analysis pool (his /analysis tab), his review is not
    // refused (issue 27): it waits its turn, told its place, then is served.
    let s = Server::start(0).await;
    let c = bot();
    let id = finished_game(&c, &s).await;
    let me = ClientKey::ip(IpAddr::V4(Ipv4Addr::LOCALHOST));
    let (release, held) = std::sync::mpsc::channel::<()>();
    let ticket = s
        .state
        .analysis_pool()
        .submit(AiJob::new(me.clone(), "held", 0, move |_stop| {
            let _ = held.recv();
        }))
        .unwrap();
    assert_eq!(s.state.analysis_pool().client_jobs(&me), 1);
    let waiting = {
        let (c, s_url, id) = (c.clone(), s.url.clone(), id.clone());
        tokio::spawn(async move {
            let r = c
                .get(format!("{s_url}/api/games/{id}/review"))
                .send()
                .await
                .unwrap();
            (r.status().as_u16(), r.text().await.unwrap())
        })
    };
    // The request reaches the pool when it does: wait for that event.
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(60);
    while !s.state.analysis_pool().is_thinking(&format!("review:{id}")) {
        assert!(
            !waiting.is_finished(),
            "answered at once: {:?}",
            waiting.await
        );
        assert!(
            tokio::time::Instant::now() < deadline,
            "the review never queued"
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let status = format!("/api/games/{id}/review/status");
    assert_eq!(
        review_status(&c, &s, &status).await,
        json!({"state": "queued", "place": 0})
    );
    assert!(!s.state.reviews().cached(&id).await);
    release.send(()).unwrap();
    ticket.await.unwrap();
    let (code, body) = waiting.await.unwrap();
    assert_eq!(code, 200, "{body}");
    assert!(s.state.reviews().cached(&id).await);
}

async fn review_status(c: &reqwest::Client, s: &Server, path: &str) -> Value {
    let r = c.get(s.at(path)).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    r.json().await.unwrap()
}

/// A review that waits for the analysis pool is told its place (issue 25,
/// item 6): its status says `queued` with the jobs before it while another
/// address's search holds the one thread, then `done`.
#[tokio::test]
async fn a_waiting_review_is_told_its_place() {
    let s = Server::start(0).await;
    let c = bot();
    let id = finished_game(&c, &s).await;
    let status = format!("/api/games/{id}/review/status");
    assert_eq!(
        review_status(&c, &s, &status).await,
        json!({"state": "none"})
    );
    let other = ClientKey::named("another address");
    let (release, held) = std::sync::mpsc::channel::<()>();
    let ticket = s
        .state
        .analysis_pool()
        .submit(AiJob::new(other, "held", 0, move |_stop| {
            let _ = held.recv();
        }))
        .unwrap();
    let waiting = {
        let (c, s_url, id) = (c.clone(), s.url.clone(), id.clone());
        tokio::spawn(async move {
            c.get(format!("{s_url}/api/games/{id}/review"))
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        })
    };
    // The request reaches the pool when it does: wait for that event
    // (bounded), then read the status it gives.
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(60);
    while !s.state.analysis_pool().is_thinking(&format!("review:{id}")) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the review never queued"
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    assert_eq!(
        review_status(&c, &s, &status).await,
        json!({"state": "queued", "place": 0})
    );
    // Nobody's upload waits.
    assert_eq!(
        review_status(&c, &s, "/api/review/status").await,
        json!({"state": "none"})
    );
    release.send(()).unwrap();
    ticket.await.unwrap();
    assert_eq!(waiting.await.unwrap(), 200);
    assert_eq!(
        review_status(&c, &s, &status).await,
        json!({"state": "done"})
    );
}
