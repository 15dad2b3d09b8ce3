//! The whole stack as an operator starts it without Docker (issue 28, part
//! 6): `deploy/local-stack.sh` with this build's `gore`, on PostgreSQL,
//! with two servers (`--ai-threads 0`), one AI worker (`gore worker`) and
//! nginx in front (compose.yaml's nginx configuration), played through
//! nginx only: a friend game with both seats, an AI game that the worker
//! answers, a game's socket through nginx; then every `/metrics` counts
//! what was played, and the script's stop leaves no process behind.
//! Without a database it makes and removes a throwaway cluster; when one
//! of its processes dies it stops the others and exits 1.
//!
//! It runs when `GORE_TEST_POSTGRES` names a database (`.ci/run` sets it)
//! and nginx is installed; without them it fails under `CI=true` and warns
//! elsewhere.

mod support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use support::*;
use tokio_tungstenite::tungstenite::Message;

const NGINX: &str = "/usr/sbin/nginx";

/// `deploy/local-stack.sh` running, and what it printed once ready.
struct Stack {
    child: Child,
    /// The site, nginx's address: `http://127.0.0.1:PORT` (no final `/`).
    site: String,
    /// Every `/metrics` address it printed, by whose (`server 1`,
    /// `worker 1`…).
    metrics: Vec<(String, String)>,
    /// Every process it started (servers, workers, nginx, a throwaway
    /// PostgreSQL).
    pids: Vec<u32>,
    /// Its directory (logs, configuration, a throwaway database).
    dir: String,
    /// Its stderr, for the messages of a failure.
    stderr: tempfile::NamedTempFile,
}

impl Stack {
    /// Starts the script with `args` (before its `--`) and waits (bounded)
    /// for its `ready` line; `Err` with what it said if it stopped before.
    fn start(args: &[&str]) -> Result<Stack, String> {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/local-stack.sh");
        let stderr = tempfile::NamedTempFile::new().unwrap();
        let mut child = Command::new("bash")
            .arg(&script)
            .args(["--gore", env!("CARGO_BIN_EXE_gore")])
            .args(["--port", "0", "--timeout", "300"])
            .args(args)
            // One client address makes every request here: no rate limit.
            .args(["--", "--rate-limit", "0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr.reopen().unwrap())
            // A database only where the test names one.
            .env_remove("GORE_STACK_DB")
            .spawn()
            .expect("run deploy/local-stack.sh");
        let (tx, rx) = mpsc::channel();
        let out = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut printed = Vec::new();
        // The script's own bound is 300 s; this one is above it.
        let deadline = Instant::now() + Duration::from_secs(420);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) if line == "ready" => break,
                Ok(line) => printed.push(line),
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    let said = std::fs::read_to_string(stderr.path()).unwrap_or_default();
                    return Err(format!("stdout: {printed:#?}\nstderr: {said}"));
                }
            }
        }
        let value = |label: &str| {
            printed
                .iter()
                .find_map(|l| l.strip_prefix(label))
                .unwrap_or_else(|| panic!("no {label:?} line in {printed:#?}"))
                .to_string()
        };
        let site = value("site: ").trim_end_matches('/').to_string();
        let metrics = printed
            .iter()
            .filter_map(|l| l.strip_prefix("metrics ")?.split_once(": "))
            .map(|(whose, url)| (whose.to_string(), url.to_string()))
            .collect();
        let pids = printed
            .iter()
            .filter_map(|l| l.rsplit_once(" pid "))
            .map(|(_, pid)| pid.parse().expect("a pid"))
            .collect();
        Ok(Stack {
            child,
            site,
            metrics,
            pids,
            dir: value("logs: "),
            stderr,
        })
    }

    /// What the script wrote to stderr so far.
    fn said(&self) -> String {
        std::fs::read_to_string(self.stderr.path()).unwrap_or_default()
    }
}

impl Drop for Stack {
    /// A test that failed midway still stops the stack (the script stops
    /// its processes on SIGTERM).
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            // SAFETY: kill(2) on our own child's pid.
            unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM) };
            let deadline = Instant::now() + Duration::from_secs(60);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// [`Stack::start`], again when nginx lost its free port to another
/// process before it bound it (the script says so and stops).
fn start_stack(args: &[&str]) -> Stack {
    let mut tries = Vec::new();
    loop {
        match tokio::task::block_in_place(|| Stack::start(args)) {
            Ok(stack) => return stack,
            Err(e) if tries.len() < 2 && e.contains("nginx") => tries.push(e),
            Err(e) => panic!("the stack did not start ({tries:#?}): {e}"),
        }
    }
}

/// Sends SIGTERM to the script and waits (bounded) for it to exit 0; then
/// no process it started may be left.
async fn stop(stack: &mut Stack) {
    let pids = stack.pids.clone();
    assert!(pids.iter().all(|&p| alive(p)), "{pids:?}");
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(stack.child.id() as libc::pid_t, libc::SIGTERM) };
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(st) = stack.child.try_wait().unwrap() {
            break st;
        }
        assert!(
            Instant::now() < deadline,
            "the script did not stop: {}",
            stack.said()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(status.success(), "{status:?}: {}", stack.said());
    let left: Vec<u32> = pids.into_iter().filter(|&p| alive(p)).collect();
    assert!(left.is_empty(), "still running after the stop: {left:?}");
}

/// Whether process `pid` is still there (a zombie counts as gone: it has
/// exited).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z'))
    })
}

/// The sum over a metric's label sets (e.g. every `via` of
/// `gore_actions_acknowledged_total`), in Prometheus's text format.
fn metric_sum(text: &str, name: &str) -> f64 {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let (key, value) = l.rsplit_once(' ')?;
            let base = key.split('{').next()?;
            (base == name).then(|| value.parse::<f64>().ok())?
        })
        .sum()
}

/// A seat's view of the game, over the API through nginx.
async fn seat_view(c: &reqwest::Client, site: &str, id: &str, token: &str) -> Value {
    let r = c
        .get(format!("{site}/api/games/{id}"))
        .bearer_auth(token)
        .send()
        .await
        .expect("read the game through nginx");
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

/// The stack started, a friend game and an AI game played through nginx,
/// every server's metrics scraped, the stack stopped with nothing left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_local_stack_plays_through_nginx_and_counts_on_every_server() {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let Some(base) = postgres_or_skip("the whole-stack test") else {
        return;
    };
    if !Path::new(NGINX).exists() {
        assert!(!ci, "{NGINX} not found: under CI=true this test must run");
        eprintln!("\n*** {NGINX} not found: the whole-stack test did NOT run ***\n");
        return;
    }
    let db = fresh_database(&base, "stack").await;
    let mut stack = start_stack(&["--db", &db, "--workers", "1"]);
    let site = stack.site.clone();
    let whose: Vec<&str> = stack.metrics.iter().map(|(w, _)| w.as_str()).collect();
    assert_eq!(
        whose,
        ["server 1", "server 2", "worker 1"],
        "one /metrics each"
    );
    let c = http();

    // A friend game: its creator (A) and the friend who claims the
    // invitation (B), each with a token of their own.
    let created = create(&c, &site, json!({"mode": "friend", "colour": "A"})).await;
    let id = created["id"].as_str().unwrap().to_string();
    let a = created["token"].as_str().unwrap().to_string();
    let invite = created["invite"].as_str().expect("an invitation");
    let code = invite.rsplit('/').next().unwrap();
    let r = c
        .post(format!("{site}/api/games/{id}/join"))
        .json(&json!({ "code": code }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "joining through nginx");
    let joined: Value = r.json().await.unwrap();
    let b = joined["token"].as_str().unwrap().to_string();
    // A spectator's socket through nginx hears every action, whichever
    // server nginx gave each request to.
    let mut watch = Watch::open(&site, &id, None).await;
    let mut played = 0;
    for ply in 0..6 {
        // Whoever has legal actions acts (a turn may hold more than one).
        // A read or an action may reach the server that has not heard of
        // the last change yet (a notice takes milliseconds, more on a
        // loaded machine): ask again until a seat is seen to act at this
        // ply, within a generous bound.
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut seen = Vec::new();
        'turn: loop {
            for token in [&a, &b] {
                let v = seat_view(&c, &site, &id, token).await;
                let legal = v["legal"].get(0).and_then(Value::as_str);
                if let (Some(action), true) = (legal, v["ply"] == ply) {
                    let (status, v) = act(&c, &site, &id, token, action, ply)
                        .await
                        .expect("an action through nginx");
                    if status == 200 {
                        break 'turn;
                    }
                    seen.push(v);
                } else {
                    seen.push(v);
                }
            }
            assert!(
                Instant::now() < deadline,
                "nobody could act at ply {ply} within 60 s: {seen:#?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        played += 1;
        assert!(
            watch.until(120, |g| g.head.ply.index() == ply + 1).await,
            "the socket through nginx did not hear ply {}",
            ply + 1
        );
    }
    drop(watch);

    // An AI game: the human plays first; the AI's answer arrives on the
    // game's socket through nginx.
    let created = create(&c, &site, json!({"mode": "ai", "level": 1, "colour": "A"})).await;
    let ai_id = created["id"].as_str().unwrap().to_string();
    let human = created["token"].as_str().unwrap().to_string();
    let mut watch = Watch::open(&site, &ai_id, Some(&human)).await;
    let first = watch.view.head.legal[0].to_string();
    let (status, v) = act(&c, &site, &ai_id, &human, &first, 0)
        .await
        .expect("the human's action through nginx");
    assert_eq!(status, 200, "{v}");
    played += 1;
    assert!(
        watch
            .until(300, |g| g
                .actions
                .iter()
                .any(|e| e.player == gore_core::Player::B))
            .await,
        "the AI did not answer within 300 s"
    );
    drop(watch);

    // An analysis on the board, through nginx: the worker runs it (the
    // servers have no analysis threads), its findings reach the socket.
    let url = format!("{}/api/analysis/ws", site.replace("http", "ws"));
    let (mut board, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let analyse = json!({"type": "analyse", "line": "a1", "time_ms": 300});
    board
        .send(Message::Text(analyse.to_string().into()))
        .await
        .unwrap();
    let mut kinds = Vec::new();
    while kinds.last().map(String::as_str) != Some("done") {
        let m = tokio::time::timeout(Duration::from_secs(120), board.next())
            .await
            .expect("the analysis's messages through nginx in time")
            .expect("the analysis socket open")
            .unwrap();
        if let Message::Text(t) = m {
            let v: Value = serde_json::from_str(&t).unwrap();
            kinds.push(v["type"].as_str().unwrap_or("?").to_string());
        }
    }
    assert_eq!(kinds[0], "started", "{kinds:?}");
    assert!(kinds.iter().any(|k| k == "depth"), "{kinds:?}");
    drop(board);
    // The worker counts it once its last batch is written: just after
    // the socket could read it.
    let worker = stack.metrics.last().unwrap().1.clone();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let text = c.get(&worker).send().await.unwrap().text().await.unwrap();
        if metric_sum(&text, "gore_board_analyses_computed_total") >= 1.0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the worker never counted the analysis"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Every process's metrics (straight from each, as Prometheus scrapes
    // them): the servers together acknowledged every action and searched
    // nothing (--ai-threads 0); the worker searched the AI's answer.
    let mut acknowledged = 0.0;
    let mut server_searches = 0.0;
    let mut worker_searches = 0.0;
    let (mut server_boards, mut worker_boards) = (0.0, 0.0);
    for (whose, url) in &stack.metrics {
        let text = c.get(url).send().await.unwrap().text().await.unwrap();
        assert!(text.ends_with("# EOF\n"), "{whose}: {text}");
        assert_eq!(
            metric_sum(&text, "gore_db_failed_closed"),
            0.0,
            "{whose}: {text}"
        );
        let searches = metric_sum(&text, "gore_ai_search_seconds_count");
        let boards = metric_sum(&text, "gore_board_analyses_computed_total");
        if whose.starts_with("server") {
            acknowledged += metric_sum(&text, "gore_actions_acknowledged_total");
            server_searches += searches;
            server_boards += boards;
        } else {
            worker_searches += searches;
            worker_boards += boards;
        }
    }
    eprintln!(
        "metrics: the servers acknowledged {acknowledged} actions ({played} played) and \
         searched {server_searches} times, the worker {worker_searches}"
    );
    assert!(
        acknowledged >= played as f64,
        "{acknowledged} actions acknowledged over the servers, {played} played"
    );
    assert_eq!(server_searches, 0.0, "a server searched (--ai-threads 0)");
    assert!(worker_searches >= 1.0, "the worker counted no search");
    assert_eq!(
        (server_boards, worker_boards),
        (0.0, 1.0),
        "the board's analysis is the worker's"
    );

    // The stop: SIGTERM to the script stops every process it started.
    assert_eq!(
        stack.pids.len(),
        4,
        "two servers, a worker and nginx: {:?}",
        stack.pids
    );
    stop(&mut stack).await;
}

/// Without a database, the script makes a throwaway PostgreSQL cluster of
/// its own (initdb), serves a game on it, and removes it at the stop.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_database_the_local_stack_makes_and_removes_its_own() {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let initdb = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .any(|v| v.path().join("bin/initdb").exists());
    for (what, there) in [
        ("PostgreSQL's initdb", initdb),
        (NGINX, Path::new(NGINX).exists()),
    ] {
        if !there {
            assert!(!ci, "{what} not found: under CI=true this test must run");
            eprintln!(
                "\n*** {what} not found: the throwaway-database stack test did NOT run ***\n"
            );
            return;
        }
    }
    let mut stack = start_stack(&["--servers", "1", "--workers", "1"]);
    // The script's own cluster: a postgres process of its own, in its
    // directory.
    assert_eq!(
        stack.pids.len(),
        4,
        "server, worker, nginx, postgres: {:?}",
        stack.pids
    );
    let dir = stack.dir.clone();
    assert!(
        Path::new(&dir).join("postgres/PG_VERSION").exists(),
        "{dir}"
    );
    let site = stack.site.clone();
    let c = http();
    let created = create(&c, &site, json!({"mode": "local"})).await;
    let id = created["id"].as_str().unwrap();
    let token = created["token"].as_str().unwrap();
    let v = seat_view(&c, &site, id, token).await;
    let action = v["legal"][0].as_str().expect("a legal action");
    let (status, v) = act(&c, &site, id, token, action, 0).await.unwrap();
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["ply"], 1, "{v}");
    stop(&mut stack).await;
    assert!(!Path::new(&dir).exists(), "{dir} is left after the stop");
}

/// A process of the stack that dies (a server SIGKILLed) makes the script
/// stop the others and exit 1, its logs kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_server_stops_the_local_stack_with_its_logs_kept() {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let Some(base) = postgres_or_skip("the dead-server stack test") else {
        return;
    };
    if !Path::new(NGINX).exists() {
        assert!(!ci, "{NGINX} not found: under CI=true this test must run");
        eprintln!("\n*** {NGINX} not found: the dead-server stack test did NOT run ***\n");
        return;
    }
    let db = fresh_database(&base, "stackdie").await;
    let mut stack = start_stack(&["--db", &db, "--servers", "1", "--workers", "0"]);
    let pids = stack.pids.clone();
    assert_eq!(pids.len(), 2, "a server and nginx: {pids:?}");
    // The server's pid is printed first.
    // SAFETY: kill(2) on a process of this test's own stack.
    unsafe { libc::kill(pids[0] as libc::pid_t, libc::SIGKILL) };
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(st) = stack.child.try_wait().unwrap() {
            break st;
        }
        assert!(Instant::now() < deadline, "the script did not stop");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(status.code(), Some(1), "{}", stack.said());
    assert!(stack.said().contains("server1 exited"), "{}", stack.said());
    let left: Vec<u32> = pids.into_iter().filter(|&p| alive(p)).collect();
    assert!(left.is_empty(), "still running: {left:?}");
    let dir = Path::new(&stack.dir);
    assert!(dir.join("server1.log").exists(), "the logs are not kept");
    let _ = std::fs::remove_dir_all(dir);
}
