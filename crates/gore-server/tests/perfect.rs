//! The perfect player in the web app: a server started with a solver
//! database (`--solver-db`, here a small one built in the test) offers it
//! for ai games without trades and plays every AI action of such a game as
//! `gore_solver::perfect` chooses it; games with trades, other modes and a
//! server without a database refuse it with a clear message.

mod common;

use std::sync::Arc;

use common::*;
use gore_core::{Action, Game, Position, Rules};
use gore_solver::disk::{write_layer, Database};
use gore_solver::par::Sequential;
use gore_solver::perfect::Perfect;
use gore_solver::solve;
use serde_json::{json, Value};

/// Layers 0-12 of `no-trades` written under a new directory.
fn small_db() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mem = solve::solve_up_to(12, false, &Sequential);
    for layer in &mem.layers {
        write_layer(dir.path(), layer, false).unwrap();
    }
    dir
}

/// 12 seeds on the board, A to move: inside the database.
const START: &str = "3,0,2,1/0,3,1,2 AAAA/BBBB 18-18 A -";

#[tokio::test]
async fn a_no_trade_game_at_level_perfect_is_played_by_the_perfect_player() {
    let db_dir = small_db();
    let s = server(|c| c.solver_db = Some(db_dir.path().to_path_buf())).await;
    let c = bot();
    let r = c.get(s.at("/api/solver")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v, json!({"perfect": ["no-trades"]}));

    // The same database, read by the test: the player the server should be.
    let db = Database::open(db_dir.path(), false).unwrap();
    let max_n = db.max_layer().unwrap();
    let perfect = Perfect::new(Arc::new(db), max_n, false);
    let rules: Rules = "no-trades".parse().unwrap();

    // The AI is A and moves first.
    let created = create_game(
        &c,
        &s,
        json!({"mode": "ai", "rules": "no-trades", "perfect": true, "colour": "B", "start": START}),
    )
    .await;
    let id = created.id.clone();
    let token = created.token.clone();
    let mut checked = 0;
    loop {
        // Wait for the human's turn or the end.
        let v = poll_until(&c, &s, &id, |v| {
            v["status"] == "over" || v["to_move"] == "B"
        })
        .await;
        assert_eq!(v["seats"]["A"]["perfect"], true, "{v}");
        // Replay the game and check each AI action against the player.
        let start = Position::from_gpn(v["start"].as_str().unwrap(), rules.variant).unwrap();
        let mut g = Game::from_position(start, None);
        for e in v["actions"].as_array().unwrap() {
            let a: Action = e["action"].as_str().unwrap().parse().unwrap();
            if g.position().to_move() == gore_core::Player::A {
                let want = perfect.choose(&g).unwrap().action;
                assert_eq!(a, want, "at {}", g.position());
                checked += 1;
            }
            g.play(a).unwrap();
        }
        if v["status"] == "over" {
            break;
        }
        // The human plays its first legal action.
        let me = get_as(&c, &s, &id, &token).await;
        let a = legal(&me)[0].clone();
        let (status, answer) = act(
            &c,
            &s,
            &id,
            Some(&token),
            json!({"action": a, "ply": ply(&me)}),
        )
        .await;
        assert_eq!(status, 200, "{answer}");
    }
    assert!(checked >= 2, "the AI played {checked} actions");
    let record = c
        .get(s.at(&format!("/api/games/{id}/record")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(record.contains("[A \"gore-ai perfect\"]"), "{record}");
}

async fn refused(s: &Server, body: Value, why: &str) {
    let (status, v) = post_json(&bot(), s, "/api/games", body).await;
    assert_eq!(status, 400, "{v}");
    assert_eq!(error_of(&v).code, "bad_request", "{v}");
    let m = error_of(&v).message;
    assert!(m.contains(why), "{m}");
}

#[tokio::test]
async fn perfect_is_refused_with_trades_other_modes_or_no_database() {
    let db_dir = small_db();
    let s = server(|c| c.solver_db = Some(db_dir.path().to_path_buf())).await;
    refused(
        &s,
        json!({"mode": "ai", "rules": "standard", "perfect": true}),
        "perfect: the perfect player plays only games without trades",
    )
    .await;
    refused(
        &s,
        json!({"mode": "ai", "rules": "no-trades,skip-origin", "perfect": true}),
        "perfect: this server's solver database has no layer of these rules",
    )
    .await;
    refused(
        &s,
        json!({"mode": "friend", "rules": "no-trades", "perfect": true}),
        "perfect: the perfect player is an AI: ai games only",
    )
    .await;
    let bare = server(|_| {}).await;
    let v: Value = bot()
        .get(bare.at("/api/solver"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v, json!({"perfect": []}));
    refused(
        &bare,
        json!({"mode": "ai", "rules": "no-trades", "perfect": true}),
        "perfect: this server has no solver database (gore serve --solver-db DIR)",
    )
    .await;
    // A level game without trades is still a level game.
    let created = create_game(
        &bot(),
        &bare,
        json!({"mode": "ai", "rules": "no-trades", "colour": "A"}),
    )
    .await;
    let (_, v) = get(&bot(), &bare, created.id.as_str()).await;
    assert!(v["seats"]["B"].get("perfect").is_none(), "{v}");
}
