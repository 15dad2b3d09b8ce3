//! The network edge against hostile clients (issue 8, points 5, 10, 11 and
//! 12): timeouts, the connection cap, the client address behind a proxy,
//! rate limits that close, strict JSON, 405s, security headers, the `Host`
//! allow-list and `Secure` cookies. Real servers on loopback; raw TCP where
//! a well-behaved client library would hide what is tested.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::*;
use futures_util::{SinkExt, StreamExt};
use gore_server::Config;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

/// A deadline for what should happen, generous for a loaded machine.
const WITHIN: Duration = Duration::from_secs(30);

/// A server with the test defaults changed by `f`, kept local because
/// every edge test runs on a manual clock: the rate limit's buckets refill
/// by it, so a test's requests are as close together as it says, however
/// slow the machine.
async fn manual_server(f: impl FnOnce(&mut Config)) -> Server {
    server(|c| {
        c.clock = gore_server::domain::clock::Clock::manual(1_000_000);
        f(c);
    })
    .await
}

/// One HTTP answer, read off a raw connection.
#[derive(Debug)]
struct Resp {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Resp {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn headers_named(&self, name: &str) -> Vec<&str> {
        self.headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .collect()
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|_| panic!("not JSON: {self:?}"))
    }
}

/// A raw TCP connection speaking HTTP/1.1 by hand.
struct Raw(BufReader<TcpStream>);

impl Raw {
    async fn connect(addr: SocketAddr) -> Raw {
        Raw(BufReader::new(TcpStream::connect(addr).await.unwrap()))
    }

    async fn send(&mut self, text: &str) {
        self.0.get_mut().write_all(text.as_bytes()).await.unwrap();
    }

    /// `GET path` with `Host: host`, keeping the connection open.
    async fn get(&mut self, path: &str, host: &str) -> Resp {
        self.send(&format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n"))
            .await;
        self.response().await.expect("closed instead of answering")
    }

    /// The next answer; `None` if the connection closed first.
    async fn response(&mut self) -> Option<Resp> {
        tokio::time::timeout(WITHIN, async {
            let mut line = String::new();
            if self.0.read_line(&mut line).await.unwrap_or(0) == 0 {
                return None;
            }
            let status = line.split(' ').nth(1)?.parse().ok()?;
            let mut headers = Vec::new();
            loop {
                line.clear();
                self.0.read_line(&mut line).await.ok()?;
                let l = line.trim_end();
                if l.is_empty() {
                    break;
                }
                let (k, v) = l.split_once(':')?;
                headers.push((k.trim().to_string(), v.trim().to_string()));
            }
            let mut r = Resp {
                status,
                headers,
                body: String::new(),
            };
            let len: usize = r.header("content-length").map_or(0, |v| v.parse().unwrap());
            let mut body = vec![0; len];
            self.0.read_exact(&mut body).await.ok()?;
            r.body = String::from_utf8(body).unwrap();
            Some(r)
        })
        .await
        .expect("no answer within 30 s")
    }

    /// Waits until the server closes the connection (end of stream or
    /// reset), discarding what it sends meanwhile.
    async fn closed(&mut self) {
        let mut buf = [0u8; 4096];
        tokio::time::timeout(WITHIN, async {
            loop {
                match self.0.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
            }
        })
        .await
        .expect("the server kept the connection open");
    }
}

fn host(s: &Server) -> String {
    s.addr.to_string()
}

// ---------------------------------------------------------------------
// Point 5: connections

#[tokio::test]
async fn a_half_sent_head_is_closed_after_the_read_timeout() {
    let s = manual_server(|c| {
        c.read_timeout = Duration::from_secs(1);
        c.idle_timeout = Duration::from_secs(600);
    })
    .await;
    let mut raw = Raw::connect(s.addr).await;
    raw.send("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ").await;
    raw.closed().await;
    // A connection that sends nothing at all, likewise.
    let mut silent = Raw::connect(s.addr).await;
    silent.closed().await;
    // The server still answers.
    let mut ok = Raw::connect(s.addr).await;
    assert_eq!(ok.get("/", &host(&s)).await.status, 200);
}

#[tokio::test]
async fn a_slow_body_is_cut_after_the_read_timeout() {
    let s = manual_server(|c| {
        c.read_timeout = Duration::from_secs(1);
        c.idle_timeout = Duration::from_secs(600);
    })
    .await;
    let mut raw = Raw::connect(s.addr).await;
    raw.send(&format!(
        "POST /api/games HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Content-Length: 100\r\n\r\n{{\"mode\":",
        host(&s)
    ))
    .await;
    let r = raw.response().await.expect("an answer");
    assert_eq!(r.status, 400, "{r:?}");
    let e = r.json();
    assert_eq!(error_of(&e).code, "bad_request");
    assert!(error_of(&e).message.contains("not sent within"), "{e}");
    raw.closed().await;
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed() {
    let s = manual_server(|c| {
        c.read_timeout = Duration::from_secs(600);
        c.idle_timeout = Duration::from_secs(1);
    })
    .await;
    let mut raw = Raw::connect(s.addr).await;
    let r = raw.get("/", &host(&s)).await;
    assert_eq!(r.status, 200);
    assert_ne!(r.header("connection"), Some("close"));
    raw.closed().await;
}

#[tokio::test]
async fn connections_per_address_are_capped() {
    let s = manual_server(|c| {
        c.max_conns_per_ip = 3;
        c.read_timeout = Duration::from_secs(600);
        c.idle_timeout = Duration::from_secs(600);
    })
    .await;
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut r = Raw::connect(s.addr).await;
        assert_eq!(r.get("/", &host(&s)).await.status, 200);
        held.push(r);
    }
    let mut fourth = Raw::connect(s.addr).await;
    fourth
        .send(&format!("GET / HTTP/1.1\r\nHost: {}\r\n\r\n", host(&s)))
        .await;
    let r = fourth.response().await.expect("an answer");
    assert_eq!(r.status, 503, "{r:?}");
    assert_eq!(r.json()["error"]["code"], "busy");
    assert_eq!(r.header("connection"), Some("close"));
    assert_eq!(r.header("retry-after"), Some("1"));
    fourth.closed().await;
    // One closed: room for one more (once the server has seen it close).
    drop(held.pop());
    let deadline = std::time::Instant::now() + WITHIN;
    loop {
        let mut r = Raw::connect(s.addr).await;
        r.send(&format!("GET / HTTP/1.1\r\nHost: {}\r\n\r\n", host(&s)))
            .await;
        if r.response().await.expect("an answer").status == 200 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "never freed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn shutdown_closes_idle_connections_and_returns() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        db: dir.path().join("gore.sqlite3").to_str().unwrap().into(),
        ..Config::default()
    };
    let state = gore_server::AppState::open(config).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(gore_server::serve(listener, state, async move {
        let _ = stopped.await;
    }));
    let mut raw = Raw::connect(addr).await;
    assert_eq!(raw.get("/", &addr.to_string()).await.status, 200);
    stop.send(()).unwrap();
    raw.closed().await;
    tokio::time::timeout(WITHIN, served)
        .await
        .expect("serve did not return")
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn a_silent_socket_is_closed() {
    let s = manual_server(|c| c.ws_idle_timeout = Duration::from_secs(1)).await;
    let g = create_game(&bot(), &s, json!({"mode": "local"})).await;
    let id = g.id.as_str();
    // A hand-made handshake: a client library would answer the pings.
    let mut raw = Raw::connect(s.addr).await;
    raw.send(&format!(
        "GET /api/games/{id}/ws HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\n\
         Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
         Sec-WebSocket-Version: 13\r\n\r\n",
        host(&s)
    ))
    .await;
    let r = raw.response().await.expect("an answer");
    assert_eq!(r.status, 101, "{r:?}");
    raw.closed().await;
}

// ---------------------------------------------------------------------
// Point 10: rate limits

/// `GET /api/games/{id}` of no game from `xff`: 404 when allowed.
async fn probe(s: &Server, xff: &str) -> u16 {
    bot()
        .get(s.at("/api/games/nosuchgame"))
        .header("x-forwarded-for", xff)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test]
async fn a_trusted_proxy_names_the_client_and_ipv6_counts_per_64() {
    let s = manual_server(|c| {
        c.rate_limit = 1; // bursts of 2
        c.trust_proxy = vec!["127.0.0.1".parse().unwrap()];
    })
    .await;
    assert_eq!(probe(&s, "203.0.113.5").await, 404);
    assert_eq!(probe(&s, "198.51.100.1, 203.0.113.5").await, 404);
    assert_eq!(probe(&s, "203.0.113.5").await, 429, "its bucket is empty");
    assert_eq!(probe(&s, "203.0.113.6").await, 404, "another client");
    assert_eq!(probe(&s, "2001:db8:0:1::1").await, 404);
    assert_eq!(probe(&s, "2001:db8:0:1::2").await, 404);
    assert_eq!(
        probe(&s, "2001:db8:0:1:ffff::3").await,
        429,
        "the same /64 is one client"
    );
    assert_eq!(probe(&s, "2001:db8:0:2::1").await, 404, "another /64");
}

#[tokio::test]
async fn forwarded_for_from_anyone_else_is_ignored() {
    let s = manual_server(|c| c.rate_limit = 1).await;
    assert_eq!(probe(&s, "203.0.113.1").await, 404);
    assert_eq!(probe(&s, "203.0.113.2").await, 404);
    assert_eq!(
        probe(&s, "203.0.113.3").await,
        429,
        "all from 127.0.0.1, whatever they claim"
    );
}

#[tokio::test]
async fn far_over_the_limit_the_connection_is_closed() {
    let s = manual_server(|c| c.rate_limit = 1).await; // bursts of 2; closes after 4 refusals
    let mut raw = Raw::connect(s.addr).await;
    let mut statuses = Vec::new();
    let last = loop {
        let r = raw.get("/api/games/nosuchgame", &host(&s)).await;
        statuses.push(r.status);
        if r.header("connection") == Some("close") || statuses.len() == 10 {
            break r;
        }
        assert_eq!(r.header("retry-after").is_some(), r.status == 429);
    };
    assert_eq!(statuses, [404, 404, 429, 429, 429, 429, 429], "{last:?}");
    assert_eq!(last.json()["error"]["code"], "rate_limited");
    raw.closed().await;
}

/// Reads a socket until the server closes it; the close code.
async fn close_code(ws: &mut Ws) -> u16 {
    tokio::time::timeout(WITHIN, async {
        while let Some(m) = ws.next().await {
            match m {
                Ok(Message::Close(f)) => return f.map_or(0, |f| u16::from(f.code)),
                Ok(_) => {}
                Err(e) => panic!("no close frame: {e}"),
            }
        }
        panic!("closed without a close frame")
    })
    .await
    .expect("the socket stayed open")
}

#[tokio::test]
async fn rate_limited_socket_messages_count_as_abuse() {
    let s = manual_server(|c| c.rate_limit = 1).await;
    let g = create_game(&bot(), &s, json!({"mode": "local"})).await;
    let mut ws = s.ws(g.id.as_str(), None).await;
    for _ in 0..10 {
        send(&mut ws, json!({"type": "ping"})).await;
    }
    assert_eq!(close_code(&mut ws).await, 1008);
}

#[tokio::test]
async fn a_ping_flood_closes_the_socket() {
    let s = manual_server(|c| c.rate_limit = 1).await;
    let g = create_game(&bot(), &s, json!({"mode": "local"})).await;
    let mut ws = s.ws(g.id.as_str(), None).await;
    for _ in 0..20 {
        ws.send(Message::Ping(vec![1, 2, 3].into())).await.unwrap();
    }
    assert_eq!(close_code(&mut ws).await, 1008);
}

// ---------------------------------------------------------------------
// Point 11: strict input

#[tokio::test]
async fn json_with_trailing_data_or_an_array_is_refused() {
    let s = manual_server(|_| {}).await;
    let g = create_game(&bot(), &s, json!({"mode": "local"})).await;
    let (id, token) = (g.id.as_str(), g.token.as_str());
    for body in [
        r#"{"action":"a1","ply":0} trailing {{{"#,
        r#"{"action":"a1","ply":0}{"action":"a2"}"#,
        r#"["a1",0]"#,
    ] {
        let r = bot()
            .post(s.at(&format!("/api/games/{id}/actions")))
            .bearer_auth(token)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400, "{body}");
        let e: Value = r.json().await.unwrap();
        assert_eq!(error_of(&e).code, "bad_request", "{body}");
    }
    assert_eq!(get(&bot(), &s, id).await.1["ply"], 0, "nothing was played");
    let (status, v) = act(
        &bot(),
        &s,
        id,
        Some(token),
        json!({"action": "a1", "ply": 0}),
    )
    .await;
    assert_eq!((status, &v["ply"]), (200, &json!(1)), "{v}");
    // Array bodies are refused at creation too.
    let r = bot()
        .post(s.at("/api/games"))
        .header("content-type", "application/json")
        .body(r#"["local"]"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
}

#[tokio::test]
async fn a_wrong_method_is_405_with_the_json_body_and_allow() {
    let s = manual_server(|_| {}).await;
    for (method, path, allowed) in [
        ("DELETE", "/api/games", "POST"),
        ("PUT", "/api/games/abc/actions", "POST"),
        ("POST", "/api/games/abc", "GET"),
    ] {
        let r = bot()
            .request(method.parse().unwrap(), s.at(path))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 405, "{method} {path}");
        let allow = r.headers()["allow"].to_str().unwrap().to_string();
        assert!(allow.contains(allowed), "{method} {path}: Allow {allow}");
        let e: Value = r.json().await.unwrap();
        assert_eq!(error_of(&e).code, "method_not_allowed", "{method} {path}");
        assert!(error_of(&e).message.contains(method));
    }
}

// ---------------------------------------------------------------------
// Point 12: headers, hosts and cookies

/// The policy issue 8 asks for (the app has no inline script or style).
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; \
     frame-ancestors 'none'; form-action 'self'";

#[tokio::test]
async fn every_answer_has_the_security_headers() {
    let s = manual_server(|c| c.rate_limit = 1).await;
    let c = bot();
    let mut statuses = Vec::new();
    for (method, path) in [
        ("GET", "/"),
        ("GET", "/assets/js/main.js"),
        ("GET", "/nothing-here"),
        ("GET", "/api/games/nosuchgame"),
        ("DELETE", "/api/games"),
        ("GET", "/api/games/nosuchgame"), // the third of a burst of 2
    ] {
        let r = c
            .request(method.parse().unwrap(), s.at(path))
            .send()
            .await
            .unwrap();
        statuses.push(r.status().as_u16());
        let h = r.headers();
        // A page asked for without the assets' cookie is a first visit's,
        // with its own inline code: the same policy, its inline code
        // allowed by hash (and what that code loads, 'strict-dynamic'),
        // nothing else (docs/SECURITY.md).
        let policy = h["content-security-policy"].to_str().unwrap();
        let mut strict = policy.replace(" 'strict-dynamic'", "");
        while let Some(at) = strict.find(" 'sha256-") {
            let end = strict[at + 2..].find('\'').expect("a closed hash") + at + 3;
            strict.replace_range(at..end, "");
        }
        assert_eq!(strict, CSP, "{path}");
        assert!(!policy.contains("unsafe"), "{path}: {policy}");
        assert_eq!(h["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(h["referrer-policy"], "same-origin", "{path}");
        assert_eq!(h["x-frame-options"], "DENY", "{path}");
    }
    assert_eq!(statuses, [200, 200, 404, 404, 405, 429]);
}

#[tokio::test]
async fn with_a_public_url_other_hosts_are_refused() {
    let s = manual_server(|c| c.public_url = Some("http://gore.test".into())).await;
    let mut raw = Raw::connect(s.addr).await;
    let r = raw.get("/", &host(&s)).await;
    assert_eq!(r.status, 421, "{r:?}");
    assert_eq!(r.json()["error"]["code"], "wrong_host");
    assert_eq!(raw.get("/", "rebound.evil.example").await.status, 421);
    assert_eq!(raw.get("/", "gore.test").await.status, 200);
    assert_eq!(raw.get("/", "GORE.test:80").await.status, 200);
    assert_eq!(
        raw.get("/api/games/nosuchgame", "gore.test").await.status,
        404
    );
    // No Host at all (HTTP/1.0).
    let mut old = Raw::connect(s.addr).await;
    old.send("GET / HTTP/1.0\r\n\r\n").await;
    assert_eq!(old.response().await.unwrap().status, 421);

    // Origins are compared with the public URL, scheme included.
    let create = |origin: &'static str| {
        let addr = s.addr;
        async move {
            let mut raw = Raw::connect(addr).await;
            let body = r#"{"mode":"local"}"#;
            raw.send(&format!(
                "POST /api/games HTTP/1.1\r\nHost: gore.test\r\nOrigin: {origin}\r\n\
                 Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            ))
            .await;
            raw.response().await.unwrap().status
        }
    };
    assert_eq!(create("http://gore.test").await, 201);
    assert_eq!(create("https://gore.test").await, 403, "another scheme");
    assert_eq!(create("http://evil.example").await, 403);
}

#[tokio::test]
async fn without_a_public_url_any_host_is_served() {
    let s = manual_server(|_| {}).await;
    let mut raw = Raw::connect(s.addr).await;
    assert_eq!(raw.get("/", "whatever.example").await.status, 200);
}

/// The `Set-Cookie` of a game created with these extra header lines.
async fn created_cookie(s: &Server, host: &str, extra: &str) -> String {
    let mut raw = Raw::connect(s.addr).await;
    let body = r#"{"mode":"local"}"#;
    raw.send(&format!(
        "POST /api/games HTTP/1.1\r\nHost: {host}\r\n{extra}Content-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    ))
    .await;
    let r = raw.response().await.unwrap();
    assert_eq!(r.status, 201, "{r:?}");
    let cookies = r.headers_named("set-cookie");
    assert_eq!(cookies.len(), 1, "{r:?}");
    cookies[0].to_string()
}

fn is_secure(cookie: &str) -> bool {
    cookie
        .split(';')
        .any(|a| a.trim().eq_ignore_ascii_case("secure"))
}

#[tokio::test]
async fn cookies_are_secure_over_https() {
    let https = manual_server(|c| c.public_url = Some("https://gore.test".into())).await;
    let c = created_cookie(&https, "gore.test", "").await;
    assert!(is_secure(&c), "{c}");
    assert!(c.contains("HttpOnly") && c.contains("SameSite=Lax"), "{c}");

    let plain = manual_server(|_| {}).await;
    let h = host(&plain);
    let c = created_cookie(&plain, &h, "").await;
    assert!(!is_secure(&c), "plain http: {c}");
    let c = created_cookie(&plain, &h, "X-Forwarded-Proto: https\r\n").await;
    assert!(
        !is_secure(&c),
        "a proxy header from anyone is not believed: {c}"
    );

    let proxied = manual_server(|c| c.trust_proxy = vec!["127.0.0.0/8".parse().unwrap()]).await;
    let h = host(&proxied);
    let c = created_cookie(&proxied, &h, "X-Forwarded-Proto: https\r\n").await;
    assert!(is_secure(&c), "from a trusted proxy: {c}");
    let c = created_cookie(&proxied, &h, "").await;
    assert!(!is_secure(&c), "{c}");
}
