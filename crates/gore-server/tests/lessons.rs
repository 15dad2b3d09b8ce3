//! The lessons' endpoints: the list, a check that meets, misses or goes
//! on, and bad input answered with an error naming the field or the rule,
//! while the server keeps serving. Expected positions worked out by hand
//! (see gore-learn's tests for the sowings written out).

mod common;

use common::*;
use serde_json::{json, Value};

async fn check(s: &Server, id: &str, actions: Value) -> (u16, Value) {
    post_json(
        &bot(),
        s,
        &format!("/api/lessons/{id}/check"),
        json!({ "actions": actions }),
    )
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn the_list_names_ten_lessons_with_their_start_and_legal_actions() {
    let s = Server::start(0).await;
    let r = bot().get(s.at("/api/lessons")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    let lessons = v["lessons"].as_array().unwrap();
    assert_eq!(lessons.len(), 10);
    let first = &lessons[0];
    assert_eq!(first["id"], "sow");
    assert_eq!(first["rules"], "standard");
    assert_eq!(first["gpn"], "4,1,3,0/2,4,3,3 AAAA/BBBB 25-3 A -");
    assert_eq!(first["goal"], json!({"kind": "land_in", "hole": "b2"}));
    assert_eq!(first["moves"], 1);
    // a4 is empty; B has 3 captured seeds, so no offer can be paid.
    assert_eq!(first["legal"], json!(["a1", "a2", "a3"]));
    assert_eq!(first["hint"], "a3");
    assert_eq!(lessons[1]["goal"], json!({"kind": "capture", "seeds": 4}));
    let decline = &lessons[9];
    assert_eq!(decline["moves"], 2);
    assert_eq!(decline["legal"], json!(["accept", "decline"]));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_check_meets_misses_or_goes_on() {
    let s = Server::start(0).await;
    // a3 → a4, b1, b2: met.
    let (st, v) = check(&s, "sow", json!(["a3"])).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["status"], "met");
    assert_eq!(v["gpn"], "4,1,0,1/3,5,3,3 AAAA/BBBB 25-3 B -");
    assert_eq!(v["path"], json!(["a4", "b1", "b2"]));
    // a1 → a2, a3, a4, b1: missed, the last seed in b1.
    let (st, v) = check(&s, "sow", json!(["a1"])).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["status"], "missed");
    assert_eq!(
        v["miss"],
        json!({"kind": "landed_elsewhere", "hole": "b1", "goal_hole": "b2"})
    );
    // a2 (5) takes b3 = 2 only.
    let (_, v) = check(&s, "capture", json!(["a2"])).await;
    assert_eq!(v["miss"], json!({"kind": "too_few", "seeds": 2, "goal": 4}));
    assert_eq!(v["captured"], json!(["b3"]));
    // The pass lesson: B's scripted reply b4 follows.
    let (_, v) = check(&s, "pass", json!(["pass"])).await;
    assert_eq!(v["status"], "met");
    assert_eq!(v["replies"], json!(["b4"]));
    assert_eq!(v["gpn"], "1,1,1,1/1,0,3,0 AAAA/BBBB 37-3 A -");
    // Decline goes on; then a3 ends the game 31-17, without glory.
    let (_, v) = check(&s, "decline", json!(["decline"])).await;
    assert_eq!(v["status"], "continue");
    // Sowing a3, or offering any 1 or 2 of A's four holes (empty ones too;
    // B's 12 seeds pay for two): 1 + 4 + 6.
    let legal = v["legal"].as_array().unwrap();
    assert_eq!(legal.len(), 11, "{v}");
    assert!(legal.contains(&json!("a3")) && legal.contains(&json!("offer:a1,a4")));
    let (_, v) = check(&s, "decline", json!(["decline", "a3"])).await;
    assert_eq!(v["status"], "met");
    assert_eq!(
        v["result"],
        json!({"seeds": [31, 17], "winner": "A", "without_glory": true})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_names_the_field_or_the_rule_and_changes_nothing() {
    let s = Server::start(0).await;
    let (st, v) = check(&s, "nope", json!(["a1"])).await;
    assert_eq!((st, error_of(&v).code.as_str()), (404, "not_found"), "{v}");
    let (st, v) = check(&s, "sow", json!(["x9"])).await;
    assert_eq!(
        (st, error_of(&v).code.as_str()),
        (400, "bad_request"),
        "{v}"
    );
    assert!(error_of(&v).message.starts_with("actions[0]"), "{v}");
    let (st, v) = check(&s, "sow", json!([1])).await;
    assert_eq!(
        (st, error_of(&v).code.as_str()),
        (400, "bad_request"),
        "{v}"
    );
    assert!(error_of(&v).message.contains("actions[0]"), "{v}");
    let (st, v) = post_json(&bot(), &s, "/api/lessons/sow/check", json!({})).await;
    assert_eq!(
        (st, error_of(&v).code.as_str()),
        (400, "bad_request"),
        "{v}"
    );
    assert!(error_of(&v).message.contains("actions"), "{v}");
    // a4 is empty: the rule, with the action's index.
    let (st, v) = check(&s, "sow", json!(["a4"])).await;
    assert_eq!(
        (st, error_of(&v).code.as_str()),
        (422, "illegal_action"),
        "{v}"
    );
    assert!(
        error_of(&v)
            .message
            .starts_with("actions[0]: `a4`: illegal: hole a4 is empty"),
        "{v}"
    );
    let (st, v) = check(&s, "decline", json!(["decline", "a1"])).await;
    assert_eq!(
        (st, error_of(&v).code.as_str()),
        (422, "illegal_action"),
        "{v}"
    );
    assert!(error_of(&v).message.starts_with("actions[1]"), "{v}");
    // Too many actions.
    let (st, v) = check(&s, "sow", json!(["a3", "b1"])).await;
    assert_eq!(
        (st, error_of(&v).code.as_str()),
        (400, "bad_request"),
        "{v}"
    );
    assert!(error_of(&v).message.starts_with("actions:"), "{v}");
    let (st, v) = check(&s, "sow", json!(vec!["a1"; 500])).await;
    assert_eq!(
        (st, error_of(&v).code.as_str()),
        (400, "bad_request"),
        "{v}"
    );
    // Still serving, and the lesson is as it was (lessons keep no state).
    let (st, v) = check(&s, "sow", json!(["a3"])).await;
    assert_eq!((st, v["status"].as_str()), (200, Some("met")));
    let r = bot()
        .get(s.at("/api/lessons/sow/check"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 405);
}
