//! Reviews on AI workers (issue 28, part 4): `gore serve
//! --analysis-threads 0` never computes a review; it writes the request to
//! the shared database, and a `gore worker` claims it, computes it and
//! stores the result, which any server then answers; on SQLite (same
//! machine) and PostgreSQL. A worker SIGKILLed mid-review: another takes
//! the job once the first is silent; one stopped (SIGTERM) finishes it, or
//! gives it back. Two workers never compute the same review.
//!
//! Each process serves its metrics: the reviews each one computed are read
//! there (`gore_reviews_computed_total`).

mod support;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::*;

/// B to move under no-trades: `b4` takes every seed on the board; `b3`
/// lets A's `a2` end the game with 7 of the 9 for A (the hand arithmetic
/// of gore-learn's tests/review.rs).
const BLUNDER_START: &str = "1,4,0,0/1,1,1,1 AAAA/BBBB 19-20 B -";

impl Proc {
    /// `gore serve --ai-threads 0 --analysis-threads 0` on `db`.
    fn server(db: &str) -> Proc {
        Proc::searching_nothing(db, &[])
    }

    /// `gore worker` on `db` with one AI thread and one analysis thread.
    fn worker(db: &str) -> Proc {
        Proc::worker_draining(db, "10")
    }

    /// As [`Proc::worker`], stopping within `seconds` (`--drain-seconds`).
    fn worker_draining(db: &str, seconds: &str) -> Proc {
        Proc::start(
            &["worker", "--threads", "1", "--drain-seconds", seconds],
            db,
            &[],
        )
    }

    /// The reviews this process computed.
    async fn reviews(&self) -> u64 {
        self.metric("gore_reviews_computed_total").await
    }
}

/// A client whose requests come from `ip` (a loopback address).
fn from(ip: [u8; 4]) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(std::net::IpAddr::from(ip))
        .build()
        .unwrap()
}

/// A finished local game on `server`: B blunders with b3, A ends it with
/// a2.
async fn finished_game(server: &Proc) -> String {
    let c = http();
    let g = create(
        &c,
        &server.url,
        json!({"mode": "local", "rules": "no-trades", "start": BLUNDER_START}),
    )
    .await;
    let (id, t) = (g["id"].as_str().unwrap(), g["token"].as_str().unwrap());
    let (st, v) = act(&c, &server.url, id, t, "b3", 0).await.unwrap();
    assert_eq!(st, 200, "{v}");
    let (st, v) = act(&c, &server.url, id, t, "a2", 1).await.unwrap();
    assert_eq!(st, 200, "{v}");
    id.to_string()
}

/// The record of a game of `plies` actions from the standard start, each
/// chosen by a fixed rule (`seed` varies it), for an upload: long enough
/// that its review takes seconds on a test build.
fn long_record(plies: usize, seed: usize) -> String {
    let mut game = gore_core::Game::new(gore_core::Rules::STANDARD);
    for i in 0..plies {
        let legal = game.legal_actions();
        if game.is_over() || legal.is_empty() {
            break;
        }
        let a = legal[(i * 7 + seed) % legal.len()];
        game.play(a).unwrap();
    }
    gore_core::Record::from_game(&game).to_string()
}

/// GET `path` on `server` as `c`: the status and the body.
async fn get(c: &reqwest::Client, server: &Proc, path: &str) -> (u16, Value) {
    let r = c.get(format!("{}{path}", server.url)).send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

/// Waits (60 s at most: the bound of a loaded machine) until the status
/// at `path` is `state`.
async fn until_status(c: &reqwest::Client, server: &Proc, path: &str, state: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (code, v) = get(c, server, path).await;
        assert_eq!(code, 200, "{v}");
        if v["state"] == state {
            return;
        }
        assert!(Instant::now() < deadline, "{path} never {state}: {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A web server that computes no review and one worker: the request
/// waits (queued) until a worker exists, the worker computes it, the
/// server answers it, and a second request is answered from the store.
async fn a_worker_reviews_for_a_server_that_does_not(db: &str) {
    let server = Proc::server(db);
    let id = finished_game(&server).await;
    let path = format!("/api/games/{id}/review");
    let waiting = {
        let (c, url) = (http(), format!("{}{path}", server.url));
        tokio::spawn(async move {
            let r = c.get(url).send().await.unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        })
    };
    // Written, and nobody computes it.
    until_status(&http(), &server, &format!("{path}/status"), "queued").await;
    assert!(!waiting.is_finished(), "answered with no worker");
    let worker = Proc::worker(db);
    let (code, v) = waiting.await.unwrap();
    assert_eq!(code, 200, "{v}");
    let b3 = &v["actions"][0];
    assert_eq!(
        (&b3["action"], &b3["best"], &b3["class"]),
        (&json!("b3"), &json!("b4"), &json!("blunder")),
        "{v}"
    );
    assert_eq!(worker.reviews().await, 1, "the worker computed it");
    let (code, again) = get(&http(), &server, &path).await;
    assert_eq!((code, &again), (200, &v), "the stored review");
    until_status(&http(), &server, &format!("{path}/status"), "done").await;
    // An upload too.
    let text = format!("[Rules \"no-trades\"]\n[Start \"{BLUNDER_START}\"]\n\n1. b3 a2\n");
    let r = http()
        .post(format!("{}/api/review", server.url))
        .json(&json!({"record": text}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let up: Value = r.json().await.unwrap();
    assert_eq!(up["actions"][0]["class"], "blunder");
    assert_eq!(worker.reviews().await, 2);
    assert_eq!(server.reviews().await, 0, "the web server computed one");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_reviews_for_a_server_that_does_not_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gore.sqlite3");
    a_worker_reviews_for_a_server_that_does_not(db.to_str().unwrap()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_reviews_for_a_server_that_does_not_on_postgres() {
    let Some(base) = postgres_or_skip("the review worker test") else {
        return;
    };
    let db = fresh_database(&base, "reviewworker").await;
    a_worker_reviews_for_a_server_that_does_not(&db).await;
}

/// Posts `record` for review as `c`, in a task: the status and the body.
fn upload(
    c: reqwest::Client,
    server: &Proc,
    record: String,
) -> tokio::task::JoinHandle<(u16, Value)> {
    let url = format!("{}/api/review", server.url);
    tokio::spawn(async move {
        // A review of 100 actions on a loaded machine, in a debug build,
        // may take longer than the client's 30 s: the server's own bound
        // (5 minutes, then `busy`) is the one waited for.
        let r = c
            .post(url)
            .timeout(Duration::from_secs(320))
            .json(&json!({ "record": record }))
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
    })
}

/// A worker SIGKILLed while it computes a review: its claim stays, but
/// its heartbeat stops, and another worker takes the job once the first
/// is silent for `DEAD_AFTER`; the visitor's request is answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_workers_review_is_taken_by_another() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gore.sqlite3");
    let db = db.to_str().unwrap();
    let server = Proc::server(db);
    let mut first = Proc::worker(db);
    let c = http();
    let waiting = upload(c.clone(), &server, long_record(100, 1));
    // The first worker claimed it and computes it.
    let deadline = Instant::now() + Duration::from_secs(60);
    while first.metric("gore_analysis_running").await == 0 {
        assert!(
            !waiting.is_finished(),
            "answered before it was seen running"
        );
        assert!(Instant::now() < deadline, "the worker never computed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (_, status) = get(&c, &server, "/api/review/status").await;
    assert_eq!(status, json!({"state": "running"}));
    first.kill();
    let killed = Instant::now();
    assert!(!waiting.is_finished(), "the review was too short to kill");
    let second = Proc::worker(db);
    let (code, v) = waiting.await.unwrap();
    assert_eq!(code, 200, "{v}");
    assert!(v["actions"].as_array().unwrap().len() >= 50, "{v}");
    assert!(
        killed.elapsed() >= gore_server::domain::DEAD_AFTER,
        "taken before the first worker was silent long enough: {:?}",
        killed.elapsed()
    );
    assert_eq!(second.reviews().await, 1, "the second worker computed it");
    assert_eq!(server.reviews().await, 0);
}

/// Waits until `worker` computes (its analysis pool runs a job), while
/// the request `waiting` is still unanswered.
async fn until_computing(worker: &Proc, waiting: &tokio::task::JoinHandle<(u16, Value)>) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while worker.metric("gore_analysis_running").await == 0 {
        assert!(
            !waiting.is_finished(),
            "answered before it was seen running"
        );
        assert!(Instant::now() < deadline, "the worker never computed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A worker stopped (SIGTERM) while it computes a review finishes it
/// within `--drain-seconds` before it exits: the visitor is answered with
/// no other worker there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_worker_finishes_its_review() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gore.sqlite3");
    let db = db.to_str().unwrap();
    let server = Proc::server(db);
    let mut worker = Proc::worker_draining(db, "600");
    let waiting = upload(http(), &server, long_record(100, 2));
    until_computing(&worker, &waiting).await;
    worker.term();
    let (code, v) = waiting.await.unwrap();
    assert_eq!(code, 200, "{v}");
    let st = worker.child.wait().unwrap();
    assert!(st.success(), "the worker exited {st}");
}

/// A worker stopped while it computes a review, with no time to finish
/// it (`--drain-seconds 0`), gives it back as it exits: the review waits
/// again at once (not after the worker's silence), and another worker
/// computes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_worker_gives_its_review_back() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gore.sqlite3");
    let db = db.to_str().unwrap();
    let server = Proc::server(db);
    let mut first = Proc::worker_draining(db, "0");
    let c = http();
    let waiting = upload(c.clone(), &server, long_record(100, 3));
    until_computing(&first, &waiting).await;
    first.term();
    first.child.wait().unwrap();
    let (_, status) = get(&c, &server, "/api/review/status").await;
    assert_eq!(status["state"], "queued", "given back: {status}");
    let second = Proc::worker(db);
    let (code, v) = waiting.await.unwrap();
    assert_eq!(code, 200, "{v}");
    assert_eq!(second.reviews().await, 1);
}

/// Two workers on one PostgreSQL database, six reviews asked at once from
/// six addresses: every review was computed once, by one worker (a review
/// both computed would count twice), and both worked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_workers_never_compute_the_same_review() {
    let Some(base) = postgres_or_skip("the two review workers test") else {
        return;
    };
    let db = fresh_database(&base, "reviewworkers").await;
    let server = Proc::server(&db);
    let one = Proc::worker(&db);
    let two = Proc::worker(&db);
    let asks: Vec<_> = (0..6u8)
        .map(|i| {
            upload(
                from([127, 0, 3, i + 1]),
                &server,
                long_record(24, i as usize),
            )
        })
        .collect();
    for ask in asks {
        let (code, v) = ask.await.unwrap();
        assert_eq!(code, 200, "{v}");
    }
    let (a, b) = (one.reviews().await, two.reviews().await);
    assert_eq!(a + b, 6, "reviews {a} + {b} for 6 asked");
    assert!(a > 0 && b > 0, "both workers computed: {a} and {b}");
    assert_eq!(server.reviews().await, 0);
}
