//! Backups taken the way docs/DEPLOY.md says, while games are played, and
//! restored (issue 28, part 7): SQLite's online `.backup` with the
//! `sqlite3` shell, and PostgreSQL's `pg_dump --format=custom` restored
//! by `pg_restore` into an empty database. A server on the restored
//! database serves every action acknowledged before the backup began,
//! nothing that was never acknowledged, and goes on with the games.
//!
//! The PostgreSQL test needs `GORE_TEST_POSTGRES` (`.ci/run` sets it);
//! without it it fails under `CI=true` and passes with a warning elsewhere.

mod common;

use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};

use common::*;
use serde_json::{json, Value};
use tokio::sync::watch;

/// How many games are played at once.
const GAMES: usize = 4;

/// Actions acknowledged per game, in order.
type Acked = Arc<Mutex<Vec<Vec<String>>>>;

/// Creates the games; returns their ids and seat tokens.
async fn games(c: &reqwest::Client, s: &Server) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for _ in 0..GAMES {
        let g = create_game(c, s, json!({"mode": "local"})).await;
        out.push((g.id.clone(), g.token.clone()));
    }
    out
}

/// Plays the games in turn, one action each, until `stop` says so,
/// recording what the server acknowledged (a 200) and counting it on
/// `count`. A game that ends is left alone.
async fn play(
    url: String,
    games: Vec<(String, String)>,
    acked: Acked,
    count: watch::Sender<usize>,
    mut stop: watch::Receiver<bool>,
) {
    let c = bot();
    let mut total = 0;
    let mut over = vec![false; games.len()];
    while !*stop.borrow() && over.iter().any(|o| !o) {
        for (g, (id, token)) in games.iter().enumerate() {
            if over[g] || *stop.borrow() {
                continue;
            }
            let state: Value = c
                .get(format!("{url}/api/games/{id}"))
                .bearer_auth(token)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let legal = legal(&state);
            if state["status"] == "over" || legal.is_empty() {
                over[g] = true;
                continue;
            }
            let n = ply(&state);
            let a = legal[(n * 7 + 3) % legal.len()].clone();
            let r = c
                .post(format!("{url}/api/games/{id}/actions"))
                .bearer_auth(token)
                .json(&json!({"action": a, "ply": n}))
                .send()
                .await
                .unwrap();
            if r.status() == 200 {
                acked.lock().unwrap()[g].push(a);
                total += 1;
                let _ = count.send(total);
            }
        }
        if stop.has_changed().unwrap_or(true) && *stop.borrow_and_update() {
            break;
        }
    }
}

/// The actions of a game as the server `s` has them.
async fn actions_on(s: &Server, id: &str) -> Vec<String> {
    let (st, v) = get(&bot(), s, id).await;
    assert_eq!(st, 200, "{v}");
    v["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["action"].as_str().unwrap().to_string())
        .collect()
}

/// Plays on `s` while `backup` runs; then checks the restored server
/// `restore()` gives against what was acknowledged.
async fn backed_up_while_playing<B, R, Fut>(s: Server, backup: B, restore: R)
where
    B: FnOnce() + Send + 'static,
    R: FnOnce() -> Fut,
    Fut: std::future::Future<Output = Server>,
{
    let c = bot();
    let games = games(&c, &s).await;
    let acked: Acked = Arc::new(Mutex::new(vec![Vec::new(); GAMES]));
    let (count_tx, mut count) = watch::channel(0usize);
    let (stop_tx, stop) = watch::channel(false);
    let player = tokio::spawn(play(
        s.url.clone(),
        games.clone(),
        acked.clone(),
        count_tx,
        stop,
    ));
    // Some actions in every game first.
    count
        .wait_for(|&n| n >= 3 * GAMES)
        .await
        .expect("the player plays");
    let before = acked.lock().unwrap().clone();
    let started = *count.borrow();
    tokio::task::spawn_blocking(backup).await.unwrap();
    // And some after, so that the games went on through the backup.
    count
        .wait_for(|&n| n >= started + GAMES)
        .await
        .expect("the player plays on");
    stop_tx.send(true).unwrap();
    player.await.unwrap();
    let after = acked.lock().unwrap().clone();
    drop(s);

    let restored = restore().await;
    let c = bot();
    for (g, (id, token)) in games.iter().enumerate() {
        let got = actions_on(&restored, id).await;
        assert!(
            got.starts_with(&before[g]),
            "game {g}: acknowledged before the backup {:?}, restored {got:?}",
            before[g]
        );
        assert!(
            after[g].starts_with(&got),
            "game {g}: restored {got:?} is not what was acknowledged {:?}",
            after[g]
        );
        // The restored server goes on with the game.
        let v = get_as(&c, &restored, id, token).await;
        if v["status"] != "over" {
            let a = legal(&v)[0].clone();
            let (st, v) = act(
                &c,
                &restored,
                id,
                Some(token),
                json!({"action": a, "ply": got.len()}),
            )
            .await;
            assert_eq!(st, 200, "game {g} on the restored server: {v}");
        }
    }
}

fn run(cmd: &mut Command) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?} did not start: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_sqlite_backup_taken_while_games_are_played_restores_them() {
    let dir = tempfile::tempdir().unwrap();
    let config = config_in(&dir);
    let db = config.db.clone();
    let keep = tempfile::tempdir().unwrap();
    let backup = keep.path().join("backup.sqlite3");
    let s = Server::start_with_sqlite(dir, config).await;
    let out = backup.clone();
    backed_up_while_playing(
        s,
        move || {
            // docs/DEPLOY.md: sqlite3 gore.sqlite3 ".backup FILE"
            run(Command::new("sqlite3")
                .arg(&db)
                .arg(format!(".backup {}", out.display())));
        },
        || async {
            // Restore: the backup in place of the database, no -wal
            // or -shm beside it.
            let dir = tempfile::tempdir().unwrap();
            let mut config = config_in(&dir);
            std::fs::copy(&backup, &config.db).unwrap();
            assert!(!Path::new(&format!("{}-wal", config.db)).exists());
            config.rate_limit = 0;
            Server::start_with_sqlite(dir, config).await
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pg_dump_taken_while_games_are_played_restores_them() {
    let Some(base) = postgres_url() else {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("GORE_TEST_POSTGRES is not set: under CI=true the PostgreSQL tests must run");
        }
        eprintln!("*** WARNING: GORE_TEST_POSTGRES is not set: the pg_dump test did NOT run ***");
        return;
    };
    let live = fresh_pg_database(&base).await;
    let target = fresh_pg_database(&base).await;
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_in(&dir);
    config.db = live.clone();
    let s = Server::start_with(dir, config).await;
    let keep = tempfile::tempdir().unwrap();
    let dump = keep.path().join("gore.dump");
    let out = dump.clone();
    backed_up_while_playing(
        s,
        move || {
            // docs/DEPLOY.md: pg_dump --format=custom --file=FILE "$GORE_DB"
            run(Command::new("pg_dump")
                .arg("--format=custom")
                .arg(format!("--file={}", out.display()))
                .arg(&live));
        },
        || async {
            // Restore into an empty database, as after losing the old one.
            run(Command::new("pg_restore")
                .arg("--clean")
                .arg("--if-exists")
                .arg("--no-owner")
                .arg(format!("--dbname={target}"))
                .arg(&dump));
            let dir = tempfile::tempdir().unwrap();
            let mut config = config_in(&dir);
            config.db = target.clone();
            Server::start_with(dir, config).await
        },
    )
    .await;
}
