//! Goré behind Debian's nginx, with the configuration of `deploy/nginx`
//! (docs/DEPLOY.md): a game is created, watched and played through nginx,
//! its WebSocket included, and the server sees each client's own address
//! (through `X-Forwarded-For`, believed from `--trust-proxy 127.0.0.1`),
//! not nginx's, and not one a client invents.
//!
//! One `gore serve` on SQLite stands behind both `server` lines of the
//! upstream (two SQLite servers would be two different sites); the version
//! with two servers on PostgreSQL comes with the PostgreSQL store.
//!
//! nginx is `/usr/sbin/nginx` (`apt-get install nginx`; `.ci/run` installs
//! it). Without it the test prints a loud warning and passes, except on CI
//! (`CI=true`), where a missing nginx is a failure.

use std::io::{BufRead, BufReader};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures::{SinkExt, StreamExt};
use gore_server::api::{ClientMsg, ServerMsg};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::{self, Message};

const NGINX: &str = "/usr/sbin/nginx";

/// A child process, stopped when dropped.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        // SIGTERM first: nginx's master then stops its workers (a SIGKILL
        // would leave them holding the port).
        // SAFETY: kill(2) on our own child's pid; no memory is involved.
        unsafe { libc::kill(self.0.id() as libc::pid_t, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "gore-proxy-test-{}-{:?}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir_all(dir.join("nginx/gore")).unwrap();
    dir
}

/// `gore serve` on SQLite, nginx's 127.0.0.1 believed; its `host:port`.
fn start_gore(dir: &Path) -> (Proc, String) {
    start_gore_on(dir, dir.join("gore.sqlite3").to_str().unwrap(), "gore.log")
}

/// `gore serve` on database `db`, logging to `dir/log`.
fn start_gore_on(dir: &Path, db: &str, log: &str) -> (Proc, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gore"))
        .args(["serve", "--port", "0", "--trust-proxy", "127.0.0.1"])
        // No rate limit (no clock in this test); one socket per client
        // address, which shows whose address the server saw.
        .args(["--rate-limit", "0", "--max-sockets-per-ip", "1"])
        .arg("--db")
        .arg(db)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(dir.join(log)).unwrap())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    let host = line
        .strip_prefix("Goré is ready: open http://")
        .and_then(|r| r.strip_suffix("/\n"))
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    (Proc(child), host)
}

/// Copies `deploy/nginx` into `dir/nginx`, the upstream's servers and the
/// listening port rewritten; the port nginx will listen on.
fn write_nginx_config(dir: &Path, gore: &str) -> u16 {
    write_nginx_config_for(dir, gore, gore)
}

/// As [`write_nginx_config`], with the upstream's two servers.
fn write_nginx_config_for(dir: &Path, first: &str, second: &str) -> u16 {
    let deploy = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/nginx");
    let read = |f: &str| std::fs::read_to_string(deploy.join(f)).unwrap();
    let write = |f: &str, s: &str| std::fs::write(dir.join("nginx").join(f), s).unwrap();
    // A free port, given back for nginx to take.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let upstream = read("gore/upstream.conf");
    for line in ["server 127.0.0.1:8081 ", "server 127.0.0.1:8082 "] {
        assert!(upstream.contains(line), "upstream.conf has no {line:?}");
    }
    write(
        "gore/upstream.conf",
        &upstream
            .replace("127.0.0.1:8081", first)
            .replace("127.0.0.1:8082", second),
    );
    let local = read("gore-local.conf");
    assert!(local.contains("listen 127.0.0.1:8080;"), "{local}");
    write(
        "gore-local.conf",
        &local.replace(
            "listen 127.0.0.1:8080;",
            &format!("listen 127.0.0.1:{port};"),
        ),
    );
    write("gore/proxy.conf", &read("gore/proxy.conf"));
    write("nginx-test.conf", &read("nginx-test.conf"));
    port
}

/// nginx with that configuration, once it accepts connections; `None`
/// when its port was taken meanwhile (by another test's server).
fn start_nginx(dir: &Path, port: u16) -> Option<Proc> {
    let conf = dir.join("nginx");
    let status = Command::new(NGINX)
        .arg("-p")
        .arg(&conf)
        .arg("-c")
        .arg(conf.join("nginx-test.conf"))
        .arg("-t")
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "nginx -t: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    let mut nginx = Proc(
        Command::new(NGINX)
            .arg("-p")
            .arg(&conf)
            .arg("-c")
            .arg(conf.join("nginx-test.conf"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("nginx.stderr")).unwrap())
            .spawn()
            .unwrap(),
    );
    // Ready when it accepts (it binds before it starts its worker, which
    // then takes the queued connection).
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(st) = nginx.0.try_wait().unwrap() {
            let log = std::fs::read_to_string(dir.join("nginx.stderr")).unwrap_or_default()
                + &std::fs::read_to_string(conf.join("error.log")).unwrap_or_default();
            if log.contains("Address already in use") {
                return None;
            }
            panic!("nginx exited ({st}): {log}");
        }
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Some(nginx);
        }
        assert!(Instant::now() < deadline, "nginx does not listen on {port}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A connection to nginx from the loopback address `127.0.0.LAST`: each
/// test client has its own address, as clients on the Internet have.
async fn connect_from(last: u8, port: u16) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket
        .bind(SocketAddr::new(
            IpAddr::V4(Ipv4Addr::new(127, 0, 0, last)),
            0,
        ))
        .unwrap();
    socket
        .connect(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .unwrap()
}

/// One HTTP/1.1 request through nginx from `127.0.0.LAST`, with extra
/// header lines; the status, the head and the JSON body.
async fn call(
    last: u8,
    port: u16,
    method: &str,
    path: &str,
    extra: &str,
    body: &str,
) -> (u16, String, serde_json::Value) {
    let mut s = connect_from(last, port).await;
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n{extra}\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), s.read_to_end(&mut raw))
        .await
        .expect("no answer through nginx in 20 s")
        .unwrap();
    let raw = String::from_utf8(raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let status = head[9..12].parse().unwrap();
    (
        status,
        head.to_string(),
        serde_json::from_str(body).unwrap_or(serde_json::Value::Null),
    )
}

type Ws = tokio_tungstenite::WebSocketStream<TcpStream>;

/// A game's socket through nginx from `127.0.0.LAST`, with `Origin` (the
/// server compares it with the `Host` nginx passes on) and perhaps a
/// forged `X-Forwarded-For`; the socket, or the status it was refused with.
async fn socket(last: u8, port: u16, path: &str, forged_for: Option<&str>) -> Result<Ws, u16> {
    let mut req = format!("ws://127.0.0.1:{port}{path}")
        .into_client_request()
        .unwrap();
    let h = req.headers_mut();
    h.insert(
        "origin",
        format!("http://127.0.0.1:{port}").parse().unwrap(),
    );
    if let Some(f) = forged_for {
        h.insert("x-forwarded-for", f.parse().unwrap());
    }
    let stream = connect_from(last, port).await;
    match tokio_tungstenite::client_async(req, stream).await {
        Ok((ws, _)) => Ok(ws),
        Err(tungstenite::Error::Http(res)) => Err(res.status().as_u16()),
        Err(e) => panic!("socket through nginx: {e}"),
    }
}

/// The next message from the server (within 20 s).
async fn next(ws: &mut Ws) -> ServerMsg {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(20), ws.next())
            .await
            .expect("no message through nginx in 20 s")
            .expect("socket closed")
            .unwrap();
        if let Message::Text(t) = m {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_is_played_through_nginx_and_the_server_sees_each_client() {
    if !Path::new(NGINX).exists() {
        let msg = format!(
            "\n\n*** {NGINX} not found: the nginx proxy test did NOT run \
             (apt-get install nginx) ***\n\n"
        );
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{msg}(CI=true: a missing nginx is a failure)");
        }
        eprintln!("{msg}");
        return;
    }
    let dir = temp_dir();
    let (_gore, gore) = start_gore(&dir);
    // The free port found may be taken before nginx binds it: another.
    let (port, _nginx) = (0..5)
        .find_map(|_| {
            let port = write_nginx_config(&dir, &gore);
            start_nginx(&dir, port).map(|n| (port, n))
        })
        .expect("nginx found no free port in 5 tries");
    let origin = format!("Origin: http://127.0.0.1:{port}\r\n");

    // Created through nginx by the client at 127.0.0.2, with an Origin:
    // the server accepts the write only if nginx passed the Host on as
    // sent (port included). A forged X-Forwarded-Proto: https is replaced
    // by nginx's own scheme (http here), so the cookie is not Secure.
    let (st, head, v) = call(
        2,
        port,
        "POST",
        "/api/games",
        &format!("{origin}X-Forwarded-Proto: https\r\n"),
        r#"{"mode": "local"}"#,
    )
    .await;
    assert_eq!(st, 201, "{head}\n{v}");
    let cookie = head
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("set-cookie:"))
        .unwrap_or_else(|| panic!("no session cookie: {head}"));
    assert!(!cookie.to_ascii_lowercase().contains("secure"), "{cookie}");
    let id = v["id"].as_str().unwrap().to_string();
    let token = v["token"].as_str().unwrap().to_string();

    // The player's socket (127.0.0.2) and a spectator's (127.0.0.3).
    let mut player = socket(2, port, &format!("/api/games/{id}/ws?token={token}"), None)
        .await
        .expect("the player's socket through nginx");
    let mut spectator = socket(3, port, &format!("/api/games/{id}/ws"), None)
        .await
        .expect("a spectator's socket through nginx");
    let ServerMsg::State { state } = next(&mut player).await else {
        panic!("the first message is not the state")
    };
    assert_eq!(state.head.ply.index(), 0);
    let ServerMsg::State { state: seen } = next(&mut spectator).await else {
        panic!("the spectator's first message is not the state")
    };
    assert_eq!(seen.head.ply.index(), 0);

    // An action over the socket; both sockets receive it.
    let action = state.head.legal[0].to_string();
    let msg = ClientMsg::Action {
        action: action.clone(),
        ply: Some(gore_server::api::Ply::ZERO),
    };
    player
        .send(Message::Text(serde_json::to_string(&msg).unwrap().into()))
        .await
        .unwrap();
    for ws in [&mut player, &mut spectator] {
        match next(ws).await {
            ServerMsg::Update { update } => {
                assert_eq!(update.since.index(), 0);
                assert_eq!(update.head.ply.index(), 1);
                let played: Vec<String> = update
                    .actions
                    .iter()
                    .map(|e| e.action.to_string())
                    .collect();
                assert_eq!(played, std::slice::from_ref(&action));
            }
            m => panic!("expected the update, got {m:?}"),
        }
    }
    // And the game over HTTP, from yet another client, has it.
    let (st, _, v) = call(4, port, "GET", &format!("/api/games/{id}"), "", "").await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["actions"][0]["action"], action.as_str(), "{v}");

    // One socket per client address (--max-sockets-per-ip 1). Every
    // connection reaches the server from nginx's 127.0.0.1: had the server
    // seen that address, the spectator's socket would have been refused.
    // 127.0.0.2 has its socket: a second is refused, even when it claims
    // to be someone else (nginx appends the real address to the forged
    // X-Forwarded-For, and the server believes only what 127.0.0.1 added);
    // a new client gets one.
    let path = format!("/api/games/{id}/ws");
    assert_eq!(socket(2, port, &path, None).await.err(), Some(503));
    assert_eq!(
        socket(2, port, &path, Some("198.51.100.7")).await.err(),
        Some(503),
        "a forged X-Forwarded-For was believed"
    );
    let mut third = socket(5, port, &path, None)
        .await
        .expect("a new client's socket");
    assert!(matches!(next(&mut third).await, ServerMsg::State { .. }));
    // A socket closed frees its address's slot.
    player.close(None).await.unwrap();
    drop(player);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        match socket(2, port, &path, None).await {
            Ok(_) => break,
            Err(503) if Instant::now() < deadline => {
                // The server frees the slot when it sees the close.
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(st) => panic!("the closed socket's slot is not given back: {st}"),
        }
    }
    drop((spectator, third));
    // The analysis board's socket opens through nginx too
    // (its config upgraded only the games' sockets; the lobby's path is
    // the same location's, and its socket needs a session first).
    let ws = socket(4, port, "/api/analysis/ws", None).await;
    assert!(
        ws.is_ok(),
        "the analysis socket through nginx: {:?}",
        ws.err()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two servers on one PostgreSQL database behind nginx, as docs/DEPLOY.md
/// sets them up: a game created through nginx, played through nginx (each
/// request may reach either server) with its socket through nginx, is one
/// game on both servers, and the socket receives every action.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_on_postgres_behind_nginx_are_one_site() {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let Some(db) = std::env::var("GORE_TEST_POSTGRES")
        .ok()
        .filter(|u| !u.is_empty())
    else {
        assert!(
            !ci,
            "GORE_TEST_POSTGRES is not set: under CI=true this test must run"
        );
        eprintln!(
            "\n*** GORE_TEST_POSTGRES is not set: the two-server nginx test did NOT run ***\n"
        );
        return;
    };
    if !Path::new(NGINX).exists() {
        assert!(!ci, "{NGINX} not found: under CI=true this test must run");
        eprintln!("\n*** {NGINX} not found: the two-server nginx test did NOT run ***\n");
        return;
    }
    let dir = temp_dir();
    let (_g1, first) = start_gore_on(&dir, &db, "gore1.log");
    let (_g2, second) = start_gore_on(&dir, &db, "gore2.log");
    let (port, _nginx) = (0..5)
        .find_map(|_| {
            let port = write_nginx_config_for(&dir, &first, &second);
            start_nginx(&dir, port).map(|n| (port, n))
        })
        .expect("nginx found no free port in 5 tries");
    let origin = format!("Origin: http://127.0.0.1:{port}\r\n");
    let (st, head, v) = call(
        2,
        port,
        "POST",
        "/api/games",
        &origin,
        r#"{"mode": "local"}"#,
    )
    .await;
    assert_eq!(st, 201, "{head}\n{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let token = v["token"].as_str().unwrap().to_string();
    let mut ws = socket(2, port, &format!("/api/games/{id}/ws?token={token}"), None)
        .await
        .expect("the socket through nginx");
    let ServerMsg::State { state } = next(&mut ws).await else {
        panic!("the first message is the state");
    };
    let mut view = *state;
    for n in 0..6 {
        let action = view.head.legal[0].to_string();
        let body = format!(r#"{{"action": "{action}", "ply": {n}}}"#);
        let auth = format!("{origin}Authorization: Bearer {token}\r\n");
        let path = format!("/api/games/{id}/actions");
        let (st, head, v) = call(3 + n as u8, port, "POST", &path, &auth, &body).await;
        assert_eq!(st, 200, "{head}\n{v}");
        // The socket hears of it, whichever server took the action.
        loop {
            match next(&mut ws).await {
                ServerMsg::Update { update } => {
                    assert!(view.apply(&update), "an update that does not follow");
                    if view.head.ply.index() == n + 1 {
                        break;
                    }
                }
                ServerMsg::State { state } => view = *state,
                m => panic!("{m:?}"),
            }
        }
    }
    // Each server, asked directly, tells the same game.
    for server in [&first, &second] {
        let mut s = TcpStream::connect(server.as_str()).await.unwrap();
        let req =
            format!("GET /api/games/{id} HTTP/1.1\r\nHost: {server}\r\nConnection: close\r\n\r\n");
        s.write_all(req.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).await.unwrap();
        let raw = String::from_utf8(raw).unwrap();
        let (_, body) = raw.split_once("\r\n\r\n").unwrap();
        let seen: gore_server::api::GameView = serde_json::from_str(body).unwrap();
        assert_eq!(seen.actions, view.actions, "{server}");
    }
}
