//! A database that fails is noticed and the server fails closed: after a
//! failed write, or with its file deleted, it acknowledges no more changes
//! (503 `unavailable`) and keeps serving reads, until restarted; nothing
//! it acknowledged is lost.
//!
//! SQLite only (the file is deleted, filled, or written behind the
//! server's back), even with `GORE_TEST_POSTGRES` set: tests/postgres.rs
//! has PostgreSQL's own policy for a lost database.

mod common;

use common::*;
use gore_server::{AppState, SqliteOptions};
use serde_json::{json, Value};

/// Plays the first legal action of a local game; the status and answer.
async fn step(s: &Server, id: &str, token: &str) -> (u16, Value) {
    let c = bot();
    let v = get_as(&c, s, id, token).await;
    let a = legal(&v).first().cloned().unwrap_or_else(|| "a1".into());
    act(&c, s, id, Some(token), json!({"action": a, "ply": ply(&v)})).await
}

async fn new_local(s: &Server) -> (String, String) {
    let g = create_game(&bot(), s, json!({"mode": "local", "rules": "no-trades"})).await;
    (g.id.as_str().into(), g.token.as_str().into())
}

/// The database file deleted under the server: the next action is refused
/// 503 and so is every later change, while the games can still be watched.
#[tokio::test(flavor = "multi_thread")]
async fn a_deleted_database_stops_acknowledging() {
    let s = Server::start_sqlite(0).await;
    let (id, t) = new_local(&s).await;
    assert_eq!(step(&s, &id, &t).await.0, 200);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(s.dir.path().join(format!("gore.sqlite3{suffix}")));
    }
    let (st, e) = step(&s, &id, &t).await;
    assert_eq!(
        (st, e["error"]["code"].as_str()),
        (503, Some("unavailable")),
        "{e}"
    );
    let (st, e) = post_json(&bot(), &s, "/api/games", json!({"mode": "local"})).await;
    assert_eq!(
        (st, e["error"]["code"].as_str()),
        (503, Some("unavailable")),
        "{e}"
    );
    let (st, v) = get(&bot(), &s, &id).await;
    assert_eq!(
        (st, ply(&v)),
        (200, 1),
        "reads go on, from what was acknowledged"
    );
}

/// A write that fails (the file may not grow: as a full disk) makes the
/// server refuse every later change, without claiming that "nothing was
/// changed"; after a restart on the same file, every action that was
/// acknowledged is there.
#[tokio::test(flavor = "multi_thread")]
async fn after_a_failed_write_nothing_more_is_acknowledged_and_nothing_acknowledged_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let config = config_in(&dir);
    // The file's size now, with the schema: it may not grow past it by more
    // than a few pages.
    let pages = {
        let s = Server::start_with_sqlite(tempfile::tempdir().unwrap(), config.clone()).await;
        drop(s.state);
        let c = rusqlite::Connection::open(&config.db).unwrap();
        c.query_row("PRAGMA page_count", [], |r| r.get::<_, u32>(0))
            .unwrap()
    };
    let state = AppState::open_with(
        config.clone(),
        SqliteOptions {
            max_pages: Some(pages + 2),
        },
    )
    .await
    .unwrap();
    let s = Server::serve(tempfile::tempdir().unwrap(), state).await;
    let mut acknowledged: Vec<(String, usize)> = Vec::new();
    let mut failure = None;
    'games: for _ in 0..100 {
        let (id, t) = match post_json(
            &bot(),
            &s,
            "/api/games",
            json!({"mode": "local", "rules": "no-trades"}),
        )
        .await
        {
            (201, g) => (
                g["id"].as_str().unwrap().to_string(),
                g["token"].as_str().unwrap().to_string(),
            ),
            (_, e) => {
                failure = Some(e);
                break;
            }
        };
        loop {
            match step(&s, &id, &t).await {
                (200, v) => {
                    acknowledged.push((id.clone(), ply(&v)));
                    if v["status"] == "over" {
                        break;
                    }
                }
                (_, e) => {
                    failure = Some(e);
                    break 'games;
                }
            }
        }
    }
    let e = failure.expect("the file never filled");
    assert_eq!(error_of(&e).code, "unavailable", "{e}");
    assert!(!error_of(&e).message.contains("nothing was changed"), "{e}");
    assert!(acknowledged.len() > 3, "the cap left room for some actions");
    // Nothing more is acknowledged, even what would fit.
    let (id, _) = acknowledged.last().unwrap().clone();
    let (st, _) = post_json(&bot(), &s, "/api/games", json!({"mode": "local"})).await;
    assert_eq!(st, 503);
    assert_eq!(get(&bot(), &s, &id).await.0, 200, "reads go on");

    // Restarted on the same file: every acknowledged action is stored.
    let again = Server::start_with_sqlite(tempfile::tempdir().unwrap(), config).await;
    for (id, ply_after) in &acknowledged {
        let (st, v) = get(&bot(), &again, id).await;
        assert_eq!(st, 200);
        assert!(
            ply(&v) >= *ply_after,
            "game {id}: ply {ply_after} was acknowledged, {} stored",
            ply(&v)
        );
    }
}

/// A database the server cannot open is refused at start with the path,
/// not at the first player's action.
#[tokio::test(flavor = "multi_thread")]
async fn an_unusable_database_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let config = gore_server::Config {
        // A directory is no database file.
        db: dir.path().to_str().unwrap().to_string(),
        ..config_in(&dir)
    };
    let e = AppState::open(config).await.err().expect("refused");
    let text = format!("{e:#}");
    assert!(text.contains(dir.path().to_str().unwrap()), "{text}");
}
