//! A real server on a loopback port with a SQLite file in a temporary
//! directory, and clients for it.
//!
//! With `GORE_TEST_POSTGRES` set to a PostgreSQL URL (a role that may
//! create databases), every server of [`Server::start_with`] (and so of
//! `start`, `start_on`) runs on PostgreSQL instead: each SQLite path a test
//! names is mapped to a fresh database of its own (`gore_t_<pid>_<n>`), so
//! tests run in parallel, and two servers a test starts on one path share
//! one database. Databases of test processes no longer running are dropped
//! when the next test process makes its first one.
#![allow(dead_code)]

pub mod answers;
pub mod shared;

pub use answers::*;

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use gore_server::api::{GameView, ServerMsg};
use gore_server::{AppState, Config};
use serde_json::{json, Value};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// A game socket and the state its messages have built so far: `state`
/// replaces it, `update` is applied to it with the same
/// [`GameView::apply`] a client would use.
pub struct Ws {
    pub inner: WebSocketStream<MaybeTlsStream<TcpStream>>,
    pub view: Option<GameView>,
}

impl std::ops::Deref for Ws {
    type Target = WebSocketStream<MaybeTlsStream<TcpStream>>;
    fn deref(&self) -> &Self::Target {
        &self.inner
    }
}

impl std::ops::DerefMut for Ws {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.inner
    }
}

fn ws_of(inner: WebSocketStream<MaybeTlsStream<TcpStream>>) -> Ws {
    Ws { inner, view: None }
}

pub struct Server {
    /// `http://127.0.0.1:PORT`
    pub url: String,
    pub addr: SocketAddr,
    pub dir: tempfile::TempDir,
    pub state: AppState,
}

/// The PostgreSQL URL of `GORE_TEST_POSTGRES`, if set.
pub fn postgres_url() -> Option<String> {
    std::env::var("GORE_TEST_POSTGRES")
        .ok()
        .filter(|s| !s.trim().is_empty())
}

/// `url` with its database name replaced by `name`.
pub fn with_dbname(url: &str, name: &str) -> String {
    let (scheme, rest) = url.split_once("://").expect("a postgres:// URL");
    let (main, query) = match rest.split_once('?') {
        Some((m, q)) => (m, Some(q)),
        None => (rest, None),
    };
    let host = main.split_once('/').map_or(main, |(h, _)| h);
    match query {
        Some(q) => format!("{scheme}://{host}/{name}?{q}"),
        None => format!("{scheme}://{host}/{name}"),
    }
}

/// A connection to the database `url` names (its driver task spawned).
pub async fn pg_connect(url: &str) -> tokio_postgres::Client {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap_or_else(|e| panic!("cannot connect to GORE_TEST_POSTGRES: {e}"));
    tokio::spawn(conn);
    client
}

/// A fresh, empty PostgreSQL database for this test (see the module's
/// docs); its URL.
pub async fn fresh_pg_database(base: &str) -> String {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    static SWEPT: std::sync::Once = std::sync::Once::new();
    let admin = pg_connect(base).await;
    let pid = std::process::id();
    let mut sweep = false;
    SWEPT.call_once(|| sweep = true);
    if sweep {
        // Databases of earlier test processes that are gone.
        let rows = admin
            .query(
                "SELECT datname FROM pg_database WHERE datname LIKE 'gore\\_t\\_%'",
                &[],
            )
            .await
            .unwrap();
        for r in rows {
            let name: String = r.get(0);
            let owner: Option<u32> = name.split('_').nth(2).and_then(|p| p.parse().ok());
            let alive = owner.is_some_and(|p| std::path::Path::new(&format!("/proc/{p}")).exists());
            if !alive {
                let _ = admin
                    .batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
                    .await;
            }
        }
    }
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let name = format!("gore_t_{pid}_{n}");
    admin
        .batch_execute(&format!("CREATE DATABASE \"{name}\""))
        .await
        .unwrap_or_else(|e| panic!("cannot create the test database {name}: {e}"));
    with_dbname(base, &name)
}

/// The PostgreSQL database standing for the SQLite path `db` in this test
/// process (made on first use).
async fn pg_database_for(base: &str, db: &str) -> String {
    static MAP: tokio::sync::Mutex<Option<std::collections::HashMap<String, String>>> =
        tokio::sync::Mutex::const_new(None);
    let key = db
        .strip_prefix("sqlite://")
        .or_else(|| db.strip_prefix("sqlite:"))
        .unwrap_or(db)
        .to_string();
    let mut map = MAP.lock().await;
    let map = map.get_or_insert_with(Default::default);
    if let Some(url) = map.get(&key) {
        return url.clone();
    }
    let url = fresh_pg_database(base).await;
    map.insert(key, url.clone());
    url
}

impl Server {
    pub async fn start(rate_limit: u32) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("gore.sqlite3");
        Server::start_on(dir, db.to_str().unwrap().to_string(), rate_limit).await
    }

    /// Another server on the same database.
    pub async fn start_on(dir: tempfile::TempDir, db: String, rate_limit: u32) -> Server {
        let config = Config {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            db,
            rate_limit,
            ai_time: Duration::from_millis(300),
            ..Config::default()
        };
        Server::start_with(dir, config).await
    }

    /// A server with any configuration (its `addr` is ignored: a free
    /// loopback port is taken). On PostgreSQL when `GORE_TEST_POSTGRES` is
    /// set (the SQLite path in `config.db` then names its database).
    pub async fn start_with(dir: tempfile::TempDir, mut config: Config) -> Server {
        if let Some(base) = postgres_url() {
            if !config.db.starts_with("postgres") {
                config.db = pg_database_for(&base, &config.db).await;
            }
        }
        let state = AppState::open(config).await.unwrap();
        Server::serve(dir, state).await
    }

    /// As [`Server::start_with`], always on the SQLite file `config.db`
    /// (for tests that reach into the file).
    pub async fn start_with_sqlite(dir: tempfile::TempDir, config: Config) -> Server {
        let state = AppState::open(config).await.unwrap();
        Server::serve(dir, state).await
    }

    /// As [`Server::start`], always on SQLite.
    pub async fn start_sqlite(rate_limit: u32) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let mut config = config_in(&dir);
        config.rate_limit = rate_limit;
        Server::start_with_sqlite(dir, config).await
    }

    /// A server on a state made by the test (another store, options).
    pub async fn serve(dir: tempfile::TempDir, state: AppState) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(gore_server::serve(
            listener,
            state.clone(),
            std::future::pending(),
        ));
        Server {
            url: format!("http://{addr}"),
            addr,
            dir,
            state,
        }
    }

    pub fn at(&self, path: &str) -> String {
        format!("{}{path}", self.url)
    }

    /// A socket on a game, with a token in the query or none (spectator).
    pub async fn ws(&self, id: &str, token: Option<&str>) -> Ws {
        let url = match token {
            Some(t) => format!("ws://{}/api/games/{id}/ws?token={t}", self.addr),
            None => format!("ws://{}/api/games/{id}/ws", self.addr),
        };
        ws_of(tokio_tungstenite::connect_async(url).await.unwrap().0)
    }

    /// A socket on a game with `Authorization: Bearer`.
    pub async fn ws_bearer(&self, id: &str, token: &str) -> Ws {
        let mut req = format!("ws://{}/api/games/{id}/ws", self.addr)
            .into_client_request()
            .unwrap();
        req.headers_mut()
            .insert("authorization", format!("Bearer {token}").parse().unwrap());
        ws_of(tokio_tungstenite::connect_async(req).await.unwrap().0)
    }
}

/// A client that keeps cookies, like a browser.
pub fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap()
}

/// A client without cookies (a bot, or a stranger).
pub fn bot() -> reqwest::Client {
    reqwest::Client::builder().build().unwrap()
}

/// `POST /api/games`; panics unless 201.
pub async fn create(c: &reqwest::Client, s: &Server, body: Value) -> Value {
    let r = c.post(s.at("/api/games")).json(&body).send().await.unwrap();
    assert_eq!(r.status(), 201, "{:?}", r.text().await);
    r.json().await.unwrap()
}

/// `POST /api/games`, answered 201: the answer, typed.
pub async fn create_game(c: &reqwest::Client, s: &Server, body: Value) -> Created {
    typed(&create(c, s, body).await)
}

/// `GET /api/games/{id}`.
pub async fn get(c: &reqwest::Client, s: &Server, id: &str) -> (u16, Value) {
    let r = c
        .get(s.at(&format!("/api/games/{id}")))
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// `POST /api/games/{id}/actions` with an optional bearer token.
pub async fn act(
    c: &reqwest::Client,
    s: &Server,
    id: &str,
    token: Option<&str>,
    body: Value,
) -> (u16, Value) {
    let mut req = c
        .post(s.at(&format!("/api/games/{id}/actions")))
        .json(&body);
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let r = req.send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// The next JSON message (ping/pong skipped), within 30 s (a deadline
/// for a failing test, generous for a loaded machine).
pub async fn next_msg(ws: &mut Ws) -> Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(30), ws.next())
            .await
            .expect("no message within 30 s")
            .expect("socket closed")
            .expect("socket error");
        match m {
            Message::Text(t) => return serde_json::from_str(t.as_str()).unwrap(),
            Message::Close(f) => panic!("closed: {f:?}"),
            _ => continue,
        }
    }
}

/// The state after the next `state` or `update` message, as JSON (an
/// update is applied to the state the socket has: it must follow it).
pub async fn next_state(ws: &mut Ws) -> Value {
    loop {
        let m = next_msg(ws).await;
        if m["type"] != "state" && m["type"] != "update" {
            continue;
        }
        match serde_json::from_value::<ServerMsg>(m.clone()).expect("a server message") {
            ServerMsg::State { state } => ws.view = Some(*state),
            ServerMsg::Update { update } => {
                let view = ws.view.as_mut().expect("an update before any state");
                assert!(view.apply(&update), "an update that does not follow: {m}");
            }
            _ => unreachable!(),
        }
        return serde_json::to_value(ws.view.as_ref().unwrap()).unwrap();
    }
}

/// Waits for a state with at least `n` actions.
pub async fn state_with(ws: &mut Ws, n: usize) -> Value {
    loop {
        let s = next_state(ws).await;
        if s["actions"].as_array().unwrap().len() >= n {
            return s;
        }
    }
}

/// The next `error` message's error.
pub async fn next_error(ws: &mut Ws) -> Value {
    loop {
        let m = next_msg(ws).await;
        if m["type"] == "error" {
            return m["error"].clone();
        }
    }
}

pub async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

pub async fn send_action(ws: &mut Ws, action: &str, ply: usize) {
    send(ws, json!({"type": "action", "action": action, "ply": ply})).await;
}

pub fn legal(state: &Value) -> Vec<String> {
    state["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect()
}

pub fn ply(state: &Value) -> usize {
    state["actions"].as_array().unwrap().len()
}

/// Polls `GET` until `pred` holds (30 s at most: a deadline for a failing
/// test, generous for a loaded machine).
pub async fn poll_until(
    c: &reqwest::Client,
    s: &Server,
    id: &str,
    pred: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let (_, v) = get(c, s, id).await;
        if pred(&v) {
            return v;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "condition not reached: {v}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Polls `GET path` as `cookie` until `pred` holds (60 s at most: a
/// deadline for a failing test, generous for a loaded machine): the answer.
pub async fn wait_get(
    s: &Server,
    cookie: &str,
    path: &str,
    pred: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let (_, v) = get_with(s, cookie, path).await;
        if pred(&v) {
            return v;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{path}: never came: {v}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Claims a friend game's invitation (`POST /api/games/{id}/join` with
/// the code of the link) as `c`; panics unless 200. The answer holds the
/// friend's new seat and token.
pub async fn claim(c: &reqwest::Client, s: &Server, invite: &str) -> Value {
    let (id, code) = invite
        .strip_prefix("/join/")
        .and_then(|r| r.split_once('/'))
        .expect("an invitation path");
    let r = c
        .post(s.at(&format!("/api/games/{id}/join")))
        .json(&json!({ "code": code }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
    r.json().await.unwrap()
}

/// As [`claim`], the answer typed: the friend's seat and token.
pub async fn claim_seat(c: &reqwest::Client, s: &Server, invite: &str) -> Created {
    typed(&claim(c, s, invite).await)
}

/// `GET /api/games/{id}` with a bearer token.
pub async fn get_as(c: &reqwest::Client, s: &Server, id: &str, token: &str) -> Value {
    let r = c
        .get(s.at(&format!("/api/games/{id}")))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

/// `POST` a JSON body to `path`: the status and the JSON answer.
pub async fn post_json(c: &reqwest::Client, s: &Server, path: &str, body: Value) -> (u16, Value) {
    let r = c.post(s.at(path)).json(&body).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// A test configuration on the database file in `dir`.
pub fn config_in(dir: &tempfile::TempDir) -> Config {
    Config {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        db: dir
            .path()
            .join("gore.sqlite3")
            .to_str()
            .unwrap()
            .to_string(),
        rate_limit: 0,
        ai_time: Duration::from_millis(300),
        ..Config::default()
    }
}

/// A new browser session on `s` (`GET /api/me` makes it): its cookie
/// header value, `gore_session=…`.
pub async fn visitor_cookie(s: &Server) -> String {
    let r = bot().get(s.at("/api/me")).send().await.unwrap();
    r.headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .expect("a session cookie")
        .to_string()
}

/// Signs up (`path` = signup) or logs in to account `name` (its password
/// "long enough pass"), expecting `status`: the new session's cookie.
pub async fn session(s: &Server, name: &str, path: &str, status: u16) -> String {
    let v = visitor_cookie(s).await;
    let r = bot()
        .post(s.at(path))
        .header("cookie", &v)
        .json(&serde_json::json!({"username": name, "password": "long enough pass"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), status, "{name}");
    r.headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .unwrap()
        .to_string()
}

/// A new account `name`: its session cookie.
pub async fn account(s: &Server, name: &str) -> String {
    session(s, name, "/api/account/signup", 201).await
}

/// A new visitor signs up as `name` with `password`: the logged-in
/// session's cookie.
pub async fn sign_up(s: &Server, name: &str, password: &str) -> String {
    let v = visitor_cookie(s).await;
    let r = bot()
        .post(s.at("/api/account/signup"))
        .header("cookie", &v)
        .json(&json!({"username": name, "password": password}))
        .send()
        .await
        .unwrap();
    let st = r.status().as_u16();
    let cookie = r
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(str::to_string);
    let body: Value = r.json().await.unwrap_or(Value::Null);
    assert_eq!(st, 201, "{body}");
    cookie.expect("a new session")
}

/// A browser (cookies kept) logged in to a new account `name`.
pub async fn account_browser(s: &Server, name: &str) -> reqwest::Client {
    let c = browser();
    c.get(s.at("/api/me")).send().await.unwrap();
    let (st, body) = post_json(
        &c,
        s,
        "/api/account/signup",
        json!({"username": name, "password": "a long passphrase"}),
    )
    .await;
    assert_eq!(st, 201, "{body}");
    c
}

/// A new personal API token of the browser's account with `scopes`.
pub async fn api_token(c: &reqwest::Client, s: &Server, scopes: &[&str]) -> String {
    let (st, body) = post_json(
        c,
        s,
        "/api/account/tokens",
        json!({"description": "my engine", "scopes": scopes}),
    )
    .await;
    assert_eq!(st, 201, "{body}");
    body["token"].as_str().unwrap().to_string()
}

/// A new account `name` made a BOT: its browser and a `bot:play` token.
pub async fn bot_account(s: &Server, name: &str) -> (reqwest::Client, String) {
    let c = account_browser(s, name).await;
    let token = api_token(&c, s, &["bot:play"]).await;
    let r = bot()
        .post(s.at("/api/bot/account/upgrade"))
        .bearer_auth(&token)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    let st = r.status().as_u16();
    let v: Value = r.json().await.unwrap_or(Value::Null);
    assert_eq!(st, 200, "{v}");
    (c, token)
}

/// A friend game made of `body` by one browser (its creator's seat as
/// `body` says) and claimed by another: its id, the creator's token and
/// the friend's.
pub async fn friend_game(s: &Server, body: Value) -> (String, String, String) {
    let g = create_game(&browser(), s, body).await;
    let invite = g.invite.expect("a friend game's invitation");
    let friend = claim_seat(&browser(), s, &invite).await;
    (g.id, g.token, friend.token)
}

/// Logs in to `name` on `s` (perhaps another server of the database): the
/// new session's cookie.
pub async fn log_in(s: &Server, name: &str) -> String {
    session(s, name, "/api/account/login", 200).await
}

/// The socket at `path` of the session whose cookie is `cookie`.
pub async fn session_ws(s: &Server, path: &str, cookie: &str) -> Ws {
    let mut req = format!("ws://{}{path}", s.addr)
        .into_client_request()
        .unwrap();
    req.headers_mut().insert("cookie", cookie.parse().unwrap());
    let (inner, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    Ws { inner, view: None }
}

/// The lobby socket of the session whose cookie is `cookie`.
pub async fn lobby_ws(s: &Server, cookie: &str) -> Ws {
    session_ws(s, "/api/lobby/ws", cookie).await
}

/// The user socket (a player's own events) of the session whose cookie
/// is `cookie`.
pub async fn user_ws(s: &Server, cookie: &str) -> Ws {
    session_ws(s, "/api/user/ws", cookie).await
}

/// One legal action of game `id` by whichever of the sessions `a` and `b`
/// (cookies) is to act: which of them acted.
pub async fn act_once(s: &Server, id: &str, a: &str, b: &str) -> usize {
    for (i, c) in [a, b].into_iter().enumerate() {
        let (st, v) = get_with(s, c, &format!("/api/games/{id}")).await;
        assert_eq!(st, 200, "{v}");
        let legal = legal(&v);
        if legal.is_empty() {
            continue;
        }
        let (st, after) = post_with(
            s,
            c,
            &format!("/api/games/{id}/actions"),
            json!({"action": legal[0], "ply": ply(&v)}),
        )
        .await;
        assert_eq!(st, 200, "{after}");
        return i;
    }
    panic!("nobody to act in {id}");
}

/// Game `id` between the sessions `winner` and `loser` played to the end:
/// each makes an action (a resignation before that would be an abort,
/// RULES.md "Aborting"), then `loser` resigns.
pub async fn win(s: &Server, id: &str, winner: &str, loser: &str) {
    let mut acted = [false, false];
    while acted != [true, true] {
        acted[act_once(s, id, winner, loser).await] = true;
    }
    let (st, v) = post_with(s, loser, &format!("/api/games/{id}/resign"), json!({})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["result"]["reason"], "resign", "{v}");
}

/// The next message of type `kind` (others skipped).
pub async fn next_of(ws: &mut Ws, kind: &str) -> Value {
    loop {
        let m = next_msg(ws).await;
        if m["type"] == kind {
            return m;
        }
    }
}

/// `GET path` with a cookie: the status and the JSON answer.
pub async fn get_with(s: &Server, cookie: &str, path: &str) -> (u16, Value) {
    let r = bot()
        .get(s.at(path))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    let st = r.status().as_u16();
    (st, r.json().await.unwrap_or(Value::Null))
}

/// A client whose connections come from `ip` (any 127.x.y.z is loopback on
/// Linux): another client address for the server, with no proxy needed.
pub fn client_from(ip: std::net::Ipv4Addr) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(std::net::IpAddr::V4(ip))
        .build()
        .unwrap()
}

/// `POST path` by client `c` with a cookie and a JSON body: the status and
/// the answer.
pub async fn post_by(
    c: &reqwest::Client,
    s: &Server,
    cookie: &str,
    path: &str,
    body: Value,
) -> (u16, Value) {
    let r = c
        .post(s.at(path))
        .header("cookie", cookie)
        .json(&body)
        .send()
        .await
        .unwrap();
    let st = r.status().as_u16();
    (st, r.json().await.unwrap_or(Value::Null))
}

/// `POST path` with a cookie and a JSON body: the status and the answer.
pub async fn post_with(s: &Server, cookie: &str, path: &str, body: Value) -> (u16, Value) {
    post_by(&bot(), s, cookie, path, body).await
}

/// `POST path` with an empty body as `cookie`, answered 200: the answer.
pub async fn post_ok(s: &Server, cookie: &str, path: &str) -> Value {
    let (st, v) = post_with(s, cookie, path, json!({})).await;
    assert_eq!(st, 200, "{path}: {v}");
    v
}

/// `POST /api/tournaments/{id}/{what}` (`join`, `pause`, `withdraw`) as
/// `cookie`: the status and the answer.
pub async fn post_tournament(s: &Server, cookie: &str, id: &str, what: &str) -> (u16, Value) {
    post_with(
        s,
        cookie,
        &format!("/api/tournaments/{id}/{what}"),
        json!({}),
    )
    .await
}

/// As [`post_tournament`], answered 200: the answer.
pub async fn tournament_ok(s: &Server, cookie: &str, id: &str, what: &str) -> Value {
    post_ok(s, cookie, &format!("/api/tournaments/{id}/{what}")).await
}

/// The line of the player called `name` in a tournament's page `d`.
pub fn line<'a>(d: &'a Value, name: &str) -> &'a Value {
    d["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == name)
        .unwrap_or_else(|| panic!("{name} not in the standings: {d}"))
}

/// The game the player called `name` plays now in arena page `d`, if any.
pub fn game_of(d: &Value, name: &str) -> Option<String> {
    line(d, name)["game"].as_str().map(str::to_string)
}

/// The line of the player called `name` in arena `id`, with his score
/// sheet (`GET /api/tournaments/{id}/players/{player}`), as page `d`
/// names him; his page line has no sheet (the page stays small).
pub async fn sheet_of(s: &Server, id: &str, d: &Value, name: &str) -> Value {
    let line = line(d, name);
    assert!(line.get("sheet").is_none(), "a sheet on the page: {line}");
    let player = line["player"].as_str().unwrap();
    let (st, v) = get_with(s, "", &format!("/api/tournaments/{id}/players/{player}")).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["name"], name, "{v}");
    v
}

/// A server on a fresh database (SQLite, or PostgreSQL with
/// `GORE_TEST_POSTGRES`), its test configuration changed by `f`.
pub async fn server(f: impl FnOnce(&mut Config)) -> Server {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_in(&dir);
    f(&mut config);
    Server::start_with(dir, config).await
}

/// A server whose time is `clock` (a manual one moves only when the test
/// says: no sleeps).
pub async fn server_with_clock(clock: &gore_server::domain::clock::Clock) -> Server {
    server(|c| c.clock = clock.clone()).await
}

/// A server whose time is `clock` on the database `db` (a SQLite path, or
/// a PostgreSQL URL): servers given one `db` share it.
pub async fn server_on_db(clock: &gore_server::domain::clock::Clock, db: &str) -> Server {
    server(|c| {
        c.db = db.to_string();
        c.clock = clock.clone();
    })
    .await
}

/// The path of the SQLite file in `dir` that [`config_in`] names (for
/// [`server_on_db`], to start another server on one database).
pub fn db_path(dir: &tempfile::TempDir) -> String {
    dir.path()
        .join("gore.sqlite3")
        .to_str()
        .unwrap()
        .to_string()
}

/// A server on a store made by the test, its test configuration changed
/// by `f`.
pub async fn server_on_store(
    store: std::sync::Arc<dyn gore_server::store::Store>,
    f: impl FnOnce(&mut Config),
) -> Server {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_in(&dir);
    f(&mut config);
    let state = AppState::with_store(config, store).unwrap();
    Server::serve(dir, state).await
}

/// The holder of `token` plays `action` at `ply` over HTTP, and it is
/// acknowledged: the state he is answered.
pub async fn play(s: &Server, id: &str, token: &str, action: &str, ply: usize) -> Value {
    let (st, v) = act(
        &bot(),
        s,
        id,
        Some(token),
        json!({"action": action, "ply": ply}),
    )
    .await;
    assert_eq!(st, 200, "{action} at {ply}: {v}");
    v
}

/// An NDJSON stream being read.
pub struct Lines {
    res: reqwest::Response,
    buf: Vec<u8>,
    /// Empty lines (keep-alives) seen.
    pub blank: usize,
}

impl Lines {
    pub async fn open(s: &Server, path: &str, token: &str) -> Lines {
        let res = bot()
            .get(s.at(path))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "{path}");
        assert_eq!(
            res.headers()["content-type"],
            "application/x-ndjson",
            "{path}"
        );
        Lines {
            res,
            buf: Vec::new(),
            blank: 0,
        }
    }

    /// The next object (empty lines counted, skipped), within 30 s (a
    /// deadline for a failing test, generous on a loaded machine).
    pub async fn next(&mut self) -> Value {
        loop {
            if let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=i).collect();
                let text = String::from_utf8(line).unwrap();
                if text.trim().is_empty() {
                    self.blank += 1;
                    continue;
                }
                return serde_json::from_str(&text).unwrap();
            }
            let chunk = tokio::time::timeout(Duration::from_secs(30), self.res.chunk())
                .await
                .expect("no line within 30 s")
                .unwrap()
                .expect("the stream ended");
            self.buf.extend_from_slice(&chunk);
        }
    }

    /// The next object of type `kind`, others skipped.
    pub async fn next_of(&mut self, kind: &str) -> Value {
        loop {
            let v = self.next().await;
            if v["type"] == kind {
                return v;
            }
        }
    }

    /// Waits for the stream's end (30 s at most), reading what comes.
    pub async fn ended(&mut self) {
        loop {
            let chunk = tokio::time::timeout(Duration::from_secs(30), self.res.chunk())
                .await
                .expect("the stream did not end within 30 s")
                .unwrap();
            if chunk.is_none() {
                return;
            }
        }
    }
}

/// The legal actions of a game stream's state (the bot's own rules
/// library, as an engine would).
pub fn legal_in(rules: &str, position: &str) -> Vec<String> {
    let rules: gore_core::Rules = rules.parse().unwrap();
    let p = gore_core::Position::from_gpn(position, rules.variant).unwrap();
    p.legal_actions().iter().map(|a| a.to_string()).collect()
}

/// A SQLite store that notes the first parameter (a text) of each
/// statement read or written whose SQL contains a pattern: how often the
/// server asks the database something, for the tests of floods.
#[derive(Clone)]
pub struct Counting {
    inner: gore_server::store::sqlite::SqliteExec,
    pattern: &'static str,
    seen: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Counting {
    /// `store` counted: the store to serve on, and what it notes.
    pub fn store(
        store: gore_server::store::sqlite::SqliteStore,
        pattern: &'static str,
    ) -> (
        std::sync::Arc<dyn gore_server::store::Store>,
        std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    ) {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let counting = Counting {
            inner: store.0,
            pattern,
            seen: seen.clone(),
        };
        (
            std::sync::Arc::new(gore_server::store::queries::Db(counting)),
            seen,
        )
    }

    fn note(&self, stmts: &[gore_server::store::sql::Stmt]) {
        for s in stmts.iter().filter(|s| s.sql.contains(self.pattern)) {
            let first = match s.params.first() {
                Some(gore_server::store::sql::Value::Text(t)) => t.clone(),
                _ => String::new(),
            };
            self.seen.lock().unwrap().push(first);
        }
    }
}

impl gore_server::store::sql::Executor for Counting {
    fn write(
        &self,
        stmts: Vec<gore_server::store::sql::Stmt>,
    ) -> futures_util::future::BoxFuture<
        'static,
        Result<Vec<gore_server::store::sql::Answer>, gore_server::store::StoreError>,
    > {
        self.note(&stmts);
        self.inner.write(stmts)
    }

    fn read(
        &self,
        stmts: Vec<gore_server::store::sql::Stmt>,
    ) -> futures_util::future::BoxFuture<
        'static,
        Result<Vec<Vec<gore_server::store::sql::Row>>, gore_server::store::StoreError>,
    > {
        self.note(&stmts);
        self.inner.read(stmts)
    }

    fn failure(&self) -> Option<String> {
        self.inner.failure()
    }

    fn origin(&self) -> &str {
        self.inner.origin()
    }
}
