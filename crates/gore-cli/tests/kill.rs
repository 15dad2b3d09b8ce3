//! Servers SIGKILLed under their games (issue 9): several `gore serve`
//! processes on one PostgreSQL database, killed with no chance to flush or
//! hand anything over. What a server acknowledged is in the database; an
//! AI turn a dead server was computing is taken over by another.
//!
//! They run when `GORE_TEST_POSTGRES` names a database URL (.ci/run sets
//! it); without it they fail under `CI=true` and warn elsewhere.

mod support;

use std::time::Instant;

use gore_server::api::Status;
use serde_json::json;
use support::*;

/// An AI game whose server is killed while the AI thinks: the other server
/// takes the turn over once the dead server is silent (no heartbeat for
/// `DEAD_AFTER`, 5 s), plays it once,
/// and the game goes on there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_server_takes_over_the_ai_turn_of_a_killed_server() {
    let Some(base) = postgres_or_skip("the AI take-over test") else {
        return;
    };
    let db = fresh_database(&base, "ai").await;
    let mut first = Gore::start(&db, &[]);
    let second = Gore::start(&db, &[]);
    let c = http();
    // The player takes B, so the AI (the top level, which thinks for the whole
    // `--ai-time-ms`, 1 s by default) is to move at once: the creating
    // server claims the turn and submits the search before it answers.
    let mut attempt = 0;
    let (id, token, mut watch, killed_at) = loop {
        attempt += 1;
        let g = create(
            &c,
            &first.url,
            json!({"mode": "ai", "level": gore_ai::MAX_LEVEL, "colour": "B"}),
        )
        .await;
        let id = g["id"].as_str().unwrap().to_string();
        let token = g["token"].as_str().unwrap().to_string();
        // The player's socket on the second server, before the kill.
        let watch = Watch::open(&second.url, &id, Some(&token)).await;
        first.kill();
        let killed_at = Instant::now();
        // Had the first server committed the AI's action before it died,
        // this would not test a take-over: start again (a restarted first
        // server), which a 1 s search makes rare.
        if game(&c, &second.url, &id).await.head.ply.index() == 0 {
            break (id, token, watch, killed_at);
        }
        assert!(attempt < 5, "the AI always finished before the kill");
        first = Gore::start(&db, &[]);
    };
    // The second server moves for the AI: once the first is silent for
    // 5 s, at its next look for turns due (every 2 s); 60 s is the bound
    // of a loaded machine, not the promise.
    assert!(
        watch.until(60, |v| v.head.ply.index() >= 1).await,
        "no server took the AI's turn over"
    );
    let taken = killed_at.elapsed();
    eprintln!("the AI's turn was taken over {taken:?} after the kill");
    let entry = &watch.view.actions[0];
    assert_eq!(entry.ply.index(), 1);
    assert_eq!(entry.player, gore_core::Player::A, "the AI plays A");
    // The game goes on on the second server: the player acts there
    // (answering an offer first, if the AI made one), and the AI acts
    // there again.
    use gore_core::Player::{A, B};
    while !watch.view.actions[1..].iter().any(|e| e.player == A) {
        let v = &watch.view;
        assert_eq!(v.head.status, Status::Playing);
        assert_eq!(v.head.to_move, Some(B), "the AI's turn is not taken");
        let ply = v.head.ply.index();
        let action = v
            .head
            .legal
            .iter()
            .map(ToString::to_string)
            .find(|a| !a.starts_with("offer"))
            .expect("a legal action that is no offer");
        let (st, body) = act(&c, &second.url, &id, &token, &action, ply)
            .await
            .unwrap();
        assert_eq!(st, 200, "{body}");
        assert!(
            watch
                .until(60, |v| v.head.ply.index() > ply + 1
                    || v.head.to_move == Some(B) && v.head.ply.index() > ply)
                .await,
            "the game did not go on on the second server"
        );
    }
    // Every ply once, in order (the database's uniqueness of a ply).
    let plies: Vec<usize> = watch.view.actions.iter().map(|e| e.ply.index()).collect();
    assert_eq!(plies, (1..=plies.len()).collect::<Vec<_>>());
}

/// Every server SIGKILLed at once while players keep acting on both, then
/// started again: every action a server acknowledged is in the log, in
/// order (at most one more, whose answer the kill cut off), the games go
/// on, and an AI game left with the AI to move is played on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_server_killed_and_restarted_loses_nothing_acknowledged() {
    let Some(base) = postgres_or_skip("the kill-every-server test") else {
        return;
    };
    let db = fresh_database(&base, "all").await;
    let mut servers = vec![Gore::start(&db, &[]), Gore::start(&db, &[])];
    let urls: Vec<String> = servers.iter().map(|s| s.url.clone()).collect();
    let c = http();
    // Local games (one token plays both sides), half created on each.
    let mut games = Vec::new();
    for n in 0..6 {
        let g = create(&c, &urls[n % 2], json!({"mode": "local"})).await;
        games.push((
            g["id"].as_str().unwrap().to_string(),
            g["token"].as_str().unwrap().to_string(),
        ));
    }
    // Each game is played by a task that alternates between the servers
    // and records the actions acknowledged (200), until a request fails.
    let (enough_tx, mut enough_rx) = tokio::sync::mpsc::channel::<()>(64);
    let mut players = Vec::new();
    for (n, (id, token)) in games.iter().cloned().enumerate() {
        let (c, urls, enough) = (c.clone(), urls.clone(), enough_tx.clone());
        players.push(tokio::spawn(async move {
            let mut acked: Vec<String> = Vec::new();
            let mut legal = game_as(&c, &urls[0], &id, &token).await.head.legal;
            let mut k = n;
            loop {
                let Some(action) = legal.get(k % legal.len().max(1)).map(ToString::to_string)
                else {
                    return acked; // the game ended
                };
                let server = &urls[k % 2];
                k += 1;
                match act(&c, server, &id, &token, &action, acked.len()).await {
                    Ok((200, v)) => {
                        acked.push(action);
                        if acked.len() == 10 {
                            let _ = enough.send(()).await;
                        }
                        legal = serde_json::from_value(v["legal"].clone()).unwrap();
                    }
                    // The server died under the request (or answered
                    // without acknowledging): nothing more is promised.
                    r => {
                        if acked.len() < 10 {
                            eprintln!("{id}: after {} actions: {r:?}", acked.len());
                        }
                        return acked;
                    }
                }
            }
        }));
    }
    drop(enough_tx);
    // Also an AI game where the AI is to move (the top level thinks for 1 s).
    let ai = create(
        &c,
        &urls[1],
        json!({"mode": "ai", "level": gore_ai::MAX_LEVEL, "colour": "B"}),
    )
    .await;
    let ai_id = ai["id"].as_str().unwrap().to_string();
    // Once every game has 10 actions acknowledged, in mid-flight: kill.
    for _ in 0..games.len() {
        enough_rx
            .recv()
            .await
            .expect("a game ended before 10 actions");
    }
    for s in &mut servers {
        s.kill();
    }
    let mut acked = Vec::new();
    for p in players {
        acked.push(p.await.unwrap());
    }
    // Started again (new processes, new ports), nothing of the old ones
    // left but the database.
    let servers = [Gore::start(&db, &[]), Gore::start(&db, &[])];
    for ((id, token), acked) in games.iter().zip(&acked) {
        assert!(acked.len() >= 10, "{id}: {acked:?}");
        for s in &servers {
            let stored = game(&c, &s.url, id).await;
            let played: Vec<String> = stored
                .actions
                .iter()
                .map(|e| e.action.to_string())
                .collect();
            assert!(
                played.len() == acked.len() || played.len() == acked.len() + 1,
                "{id}: {} actions stored, {} acknowledged",
                played.len(),
                acked.len()
            );
            assert_eq!(
                &played[..acked.len()],
                &acked[..],
                "{id}: the acknowledged actions"
            );
        }
        // The game goes on, on either server.
        let stored = game(&c, &servers[0].url, id).await;
        if stored.head.status == Status::Playing {
            let legal = &stored.head.legal;
            assert!(legal.is_empty(), "a spectator is shown no legal actions");
            let mut w = Watch::open(&servers[1].url, id, Some(token)).await;
            let action = w.view.head.legal[0].to_string();
            let ply = w.view.head.ply.index();
            let (st, v) = act(&c, &servers[0].url, id, token, &action, ply)
                .await
                .unwrap();
            assert_eq!(st, 200, "{v}");
            assert!(
                w.until(20, |v| v.head.ply.index() == ply + 1).await,
                "{id}: no update"
            );
        }
    }
    // The AI game goes on with the new servers: the AI's first action
    // (played before the kill, or taken over after it), then the player's
    // on one server, and the AI's answer.
    let ai_token = ai["token"].as_str().unwrap();
    let mut w = Watch::open(&servers[0].url, &ai_id, Some(ai_token)).await;
    use gore_core::Player::{A, B};
    assert!(
        w.until(60, |v| v.head.to_move == Some(B)).await,
        "the AI game stopped with its server"
    );
    let ply = w.view.head.ply.index();
    let action = w
        .view
        .head
        .legal
        .iter()
        .map(ToString::to_string)
        .find(|a| !a.starts_with("offer"))
        .unwrap();
    let (st, v) = act(&c, &servers[1].url, &ai_id, ai_token, &action, ply)
        .await
        .unwrap();
    assert_eq!(st, 200, "{v}");
    assert!(
        w.until(60, |v| v.actions[ply..].iter().any(|e| e.player == A))
            .await,
        "the AI does not play on after the restart"
    );
}
