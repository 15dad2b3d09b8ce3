//! Sockets and strict input (issue 25, points 13 to 15): silent sockets
//! are closed, sockets are counted per address across every kind and in
//! all, `resync` is limited and answers with what the client lacks, and
//! unknown fields, look-alike reserved names, foreign origins and page
//! floods are refused.
//!
//! On PostgreSQL too with `GORE_TEST_POSTGRES`.

mod common;

use std::time::Duration;

use common::*;
use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Opens the socket at `path` with these headers: the socket, or the
/// HTTP status it was refused with.
async fn open(s: &Server, path: &str, headers: &[(&str, &str)]) -> Result<Socket, u16> {
    let mut req = format!("ws://{}{path}", s.addr)
        .into_client_request()
        .unwrap();
    for (k, v) in headers {
        let name = tokio_tungstenite::tungstenite::http::HeaderName::from_bytes(k.as_bytes());
        req.headers_mut()
            .insert(name.unwrap(), v.parse().expect("a header value"));
    }
    match tokio_tungstenite::connect_async(req).await {
        Ok((ws, _)) => Ok(ws),
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => Err(r.status().as_u16()),
        Err(e) => panic!("{path}: {e}"),
    }
}

// ---------------------------------------------------------------------
// Point 13: descriptors held by silent sockets

/// Reads `ws` (the client library answers each ping as it reads) until
/// the server closes it: the pings it sent first and the close frame's
/// reason. A socket still open after 30 s fails the test.
async fn pings_until_closed(ws: &mut Socket) -> (usize, String) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let mut pings = 0;
    loop {
        let m = tokio::time::timeout_at(deadline, ws.next())
            .await
            .unwrap_or_else(|_| panic!("still open after {pings} pings answered and 30 s"));
        match m {
            Some(Ok(Message::Ping(_))) => pings += 1,
            Some(Ok(Message::Close(f))) => {
                return (pings, f.map(|f| f.reason.to_string()).unwrap_or_default())
            }
            Some(Ok(_)) => {}
            None | Some(Err(_)) => return (pings, String::new()),
        }
    }
}

/// A client that answers the server's pings but never says anything is
/// closed after the silence timeout, on each kind of socket: its pongs
/// kept it past the ping timeout, not past the silence.
#[tokio::test]
async fn a_socket_that_only_answers_pings_is_closed() {
    let s = server(|c| {
        // A ping every 200 ms, each answered; 2 s of silence allowed.
        c.ws_idle_timeout = Duration::from_millis(400);
        c.ws_silence_timeout = Duration::from_secs(2);
    })
    .await;
    let g = create_game(&bot(), &s, json!({"mode": "local"})).await;
    let id = g.id.as_str();
    let cookie = visitor_cookie(&s).await;
    let game = open(&s, &format!("/api/games/{id}/ws"), &[]).await.unwrap();
    let lobby = open(&s, "/api/lobby/ws", &[("cookie", &cookie)])
        .await
        .unwrap();
    let analysis = open(&s, "/api/analysis/ws", &[]).await.unwrap();
    // Read at once: a socket not read answers no ping.
    let reading =
        [("game", game), ("lobby", lobby), ("analysis", analysis)].map(|(name, mut ws)| {
            tokio::spawn(async move { (name, pings_until_closed(&mut ws).await) })
        });
    for task in reading {
        let (name, (pings, reason)) = task.await.unwrap();
        // More pings answered than fit in the ping timeout (two): the
        // pongs counted there, and the silence closed it.
        assert!(pings >= 3, "{name}: closed after {pings} pings ({reason})");
        assert_eq!(reason, "silent", "{name}");
    }
}

/// A client that sends a `ping` message now and then is not silent: its
/// socket stays open well past the silence timeout.
#[tokio::test]
async fn a_socket_that_speaks_stays_open() {
    // Timeouts with room for a loaded machine: the client answers each
    // ping within the 2 s idle timeout and speaks every second, well
    // inside the 3 s of silence allowed.
    let s = server(|c| {
        c.ws_idle_timeout = Duration::from_secs(2);
        c.ws_silence_timeout = Duration::from_secs(3);
    })
    .await;
    let mut ws = open(&s, "/api/analysis/ws", &[]).await.unwrap();
    // A message at each of the server's pings (every second), for 8 of
    // them: about 8 s, more than twice the silence allowed.
    let mut pings = 0;
    while pings < 8 {
        let m = tokio::time::timeout(Duration::from_secs(30), ws.next())
            .await
            .expect("no ping within 30 s");
        match m {
            Some(Ok(Message::Ping(_))) => {
                pings += 1;
                ws.send(Message::Text(r#"{"type":"ping"}"#.into()))
                    .await
                    .unwrap();
            }
            Some(Ok(Message::Text(_))) => {}
            other => panic!("closed after {pings} pings: {other:?}"),
        }
    }
}

/// The per-address cap counts game, lobby and analysis sockets together,
/// and an IPv6 client is one /64 (as the rate limiter counts it).
#[tokio::test]
async fn sockets_are_counted_per_address_of_every_kind_and_per_64() {
    let s = server(|c| {
        c.max_sockets_per_ip = 3;
        c.trust_proxy = vec!["127.0.0.1".parse().unwrap()];
    })
    .await;
    let g = create_game(&bot(), &s, json!({"mode": "local"})).await;
    let id = g.id.as_str();
    let cookie = visitor_cookie(&s).await;
    let game_path = format!("/api/games/{id}/ws");
    let xff = |a: &'static str| ("x-forwarded-for", a);
    let _a = open(&s, &game_path, &[xff("2001:db8:0:1::1")])
        .await
        .unwrap();
    let _b = open(
        &s,
        "/api/lobby/ws",
        &[xff("2001:db8:0:1::2"), ("cookie", &cookie)],
    )
    .await
    .unwrap();
    let _c = open(&s, "/api/analysis/ws", &[xff("2001:db8:0:1:ffff::3")])
        .await
        .unwrap();
    // A fourth from the same /64, of any kind: refused.
    for path in [game_path.as_str(), "/api/analysis/ws"] {
        let r = open(&s, path, &[xff("2001:db8:0:1::4")]).await;
        assert_eq!(r.err(), Some(503), "{path}: a fourth socket of one /64");
    }
    // Another /64 is another client.
    assert!(open(&s, "/api/analysis/ws", &[xff("2001:db8:0:2::1")])
        .await
        .is_ok());
}

/// Sockets from every address together are capped (`max_sockets`), so
/// that many addresses cannot take every descriptor.
#[tokio::test]
async fn sockets_in_all_are_capped() {
    let s = server(|c| {
        c.max_sockets = 2;
        c.trust_proxy = vec!["127.0.0.1".parse().unwrap()];
    })
    .await;
    let path = "/api/analysis/ws";
    let _a = open(&s, path, &[("x-forwarded-for", "192.0.2.1")])
        .await
        .unwrap();
    let _b = open(&s, path, &[("x-forwarded-for", "192.0.2.2")])
        .await
        .unwrap();
    assert_eq!(
        open(&s, path, &[("x-forwarded-for", "192.0.2.3")])
            .await
            .err(),
        Some(503),
        "a third socket over a cap of 2"
    );
}

// ---------------------------------------------------------------------
// Point 14: resync amplification

/// A local game with `n` actions played over HTTP (the first legal one
/// each time): its id and token.
async fn local_game_with(s: &Server, n: usize) -> (String, String) {
    let c = bot();
    let g = create_game(&c, s, json!({"mode": "local"})).await;
    let id = g.id.clone();
    let token = g.token.clone();
    for ply in 0..n {
        let v = get_as(&c, s, &id, &token).await;
        let first = legal(&v)[0].clone();
        let (st, body) = act(
            &c,
            s,
            &id,
            Some(&token),
            json!({"action": first, "ply": ply}),
        )
        .await;
        assert_eq!(st, 200, "{body}");
    }
    (id, token)
}

/// `resync` with the client's ply answers with an update of the actions
/// after it only; without one, or with a ply the game has not reached,
/// the whole state.
#[tokio::test]
async fn a_resync_with_a_ply_gets_only_what_follows_it() {
    let s = server(|_| {}).await;
    let (id, token) = local_game_with(&s, 6).await;
    let mut ws = s.ws(&id, Some(&token)).await;
    let first = next_state(&mut ws).await;
    assert_eq!(first["actions"].as_array().unwrap().len(), 6);

    send(&mut ws, json!({"type": "resync", "ply": 4})).await;
    let m = next_msg(&mut ws).await;
    assert_eq!(m["type"], "update", "{m}");
    // Plies 4 and 5: two actions, the head at ply 6.
    assert_eq!(m["update"]["since"], 4, "{m}");
    assert_eq!(m["update"]["actions"].as_array().unwrap().len(), 2, "{m}");
    assert_eq!(m["update"]["ply"], 6, "{m}");
    // The player to move is told his legal actions, as in a state.
    assert!(!m["update"]["legal"].as_array().unwrap().is_empty(), "{m}");

    send(&mut ws, json!({"type": "resync", "ply": 6})).await;
    let m = next_msg(&mut ws).await;
    assert_eq!(m["type"], "update", "{m}");
    assert_eq!(m["update"]["actions"].as_array().unwrap().len(), 0, "{m}");

    // A ply the game has not reached: the whole state.
    send(&mut ws, json!({"type": "resync", "ply": 7})).await;
    let m = next_msg(&mut ws).await;
    assert_eq!(m["type"], "state", "{m}");
    assert_eq!(m["state"]["actions"].as_array().unwrap().len(), 6);
}

/// Resyncs are limited per socket: three at once, then `rate_limited`
/// naming the resync; another socket has its own.
#[tokio::test]
async fn resyncs_are_limited_per_socket() {
    let s = server(|_| {}).await;
    let (id, _) = local_game_with(&s, 2).await;
    let mut ws = s.ws(&id, None).await;
    next_state(&mut ws).await;
    for i in 0..3 {
        send(&mut ws, json!({"type": "resync"})).await;
        let m = next_msg(&mut ws).await;
        assert_eq!(m["type"], "state", "resync {i}: {m}");
    }
    send(&mut ws, json!({"type": "resync"})).await;
    let m = next_msg(&mut ws).await;
    assert_eq!(m["type"], "error", "{m}");
    assert_eq!(error_of(&m).code, "rate_limited", "{m}");
    let message = error_of(&m).message;
    assert!(message.starts_with("resync:"), "{message}");
    // The socket still works, and another socket has its own budget.
    send(&mut ws, json!({"type": "ping"})).await;
    assert_eq!(next_msg(&mut ws).await["type"], "pong");
    let mut other = s.ws(&id, None).await;
    next_state(&mut other).await;
    send(&mut other, json!({"type": "resync", "ply": 0})).await;
    assert_eq!(next_msg(&mut other).await["type"], "update");
}

// ---------------------------------------------------------------------
// Point 15: strict input

/// A field no request or message has is refused `bad_request` naming it,
/// over HTTP and on each socket, and changes nothing.
#[tokio::test]
async fn unknown_fields_are_refused_and_named() {
    let s = server(|_| {}).await;
    let c = bot();
    let (st, body) = post_json(&c, &s, "/api/games", json!({"mode": "local", "sneaky": 1})).await;
    assert_eq!(st, 400, "{body}");
    assert!(error_of(&body).message.contains("sneaky"), "{body}");

    let (id, token) = local_game_with(&s, 0).await;
    let first = legal(&get_as(&c, &s, &id, &token).await)[0].clone();
    let (st, body) = act(
        &c,
        &s,
        &id,
        Some(&token),
        json!({"action": first, "ply": 0, "evil": 1}),
    )
    .await;
    assert_eq!(st, 400, "{body}");
    assert_eq!(error_of(&body).code, "bad_request");
    assert!(error_of(&body).message.contains("evil"), "{body}");

    let mut ws = s.ws(&id, Some(&token)).await;
    next_state(&mut ws).await;
    for m in [
        json!({"type": "action", "action": first, "ply": 0, "evil": 1}),
        json!({"type": "resign", "evil": 1}),
        json!({"type": "resync", "ply": 0, "evil": 1}),
    ] {
        send(&mut ws, m.clone()).await;
        let e = next_error(&mut ws).await;
        assert_eq!(e["code"], "bad_request", "{m}: {e}");
        assert!(e["message"].as_str().unwrap().contains("evil"), "{m}: {e}");
    }
    // Nothing was played or resigned.
    let v = get_as(&c, &s, &id, &token).await;
    assert_eq!(ply(&v), 0, "{v}");
    assert_eq!(v["status"], "playing", "{v}");

    let cookie = visitor_cookie(&s).await;
    let mut lobby = lobby_ws(&s, &cookie).await;
    send(&mut lobby, json!({"type": "ping", "evil": 1})).await;
    let e = next_of(&mut lobby, "error").await;
    assert!(error_of(&e).message.contains("evil"), "{e}");

    let mut analysis = ws_of_path(&s, "/api/analysis/ws").await;
    for m in [
        json!({"type": "stop", "evil": 1}),
        json!({"type": "analyse", "line": "", "evil": 1}),
    ] {
        send(&mut analysis, m.clone()).await;
        let e = next_of(&mut analysis, "error").await;
        assert!(error_of(&e).message.contains("evil"), "{m}: {e}");
    }
}

/// A socket at `path` as a [`Ws`].
async fn ws_of_path(s: &Server, path: &str) -> Ws {
    Ws {
        inner: open(s, path, &[]).await.unwrap(),
        view: None,
    }
}

/// Names that look like a reserved one once digits read as letters and
/// accents dropped, and `root`, are refused naming the field and the rule.
#[tokio::test]
async fn look_alikes_of_reserved_names_are_refused() {
    let s = server(|_| {}).await;
    let cookie = visitor_cookie(&s).await;
    for name in ["Adm1n", "admín", "G0re-A1", "root", "r00t", "ÁDMIN"] {
        let (st, body) = post_with(&s, &cookie, "/api/me/name", json!({ "name": name })).await;
        assert_eq!(st, 400, "{name}: {body}");
        let m = error_of(&body).message;
        assert!(m.starts_with("name"), "{name}: {m}");
        assert!(m.contains("looks like it"), "{name}: {m}");
    }
    for name in ["Ayla-4821", "Rootsy", "Moussa"] {
        let (st, body) = post_with(&s, &cookie, "/api/me/name", json!({ "name": name })).await;
        assert_eq!(st, 200, "{name}: {body}");
    }
}

/// Without `--public-url`, a write's `Origin` must be this server's
/// scheme too (it is served over plain HTTP here): `https://` with the
/// right host is another origin.
#[tokio::test]
async fn the_origins_scheme_is_checked_without_a_public_url() {
    let s = server(|_| {}).await;
    let post = |origin: String| {
        bot()
            .post(s.at("/api/games"))
            .header("origin", origin)
            .json(&json!({"mode": "local"}))
            .send()
    };
    let r = post(format!("https://{}", s.addr)).await.unwrap();
    assert_eq!(r.status(), 403);
    let r = post(format!("http://{}", s.addr)).await.unwrap();
    assert_eq!(r.status(), 201);
}

/// Pages that look a game up (`/g/{id}`) count against the address's rate
/// limit like the API; assets and the other pages (served from memory) do
/// not.
#[tokio::test]
async fn pages_are_rate_limited_per_address() {
    let s = server(|c| c.rate_limit = 1).await; // bursts of 2
    let get = |path: String| bot().get(s.at(&path)).send();
    for i in 0..5 {
        for path in ["/assets/js/main.js", "/", "/rules"] {
            let r = get(path.into()).await.unwrap();
            assert_eq!(r.status(), 200, "{path} {i}");
        }
    }
    let statuses: Vec<u16> = {
        let mut v = Vec::new();
        for i in 0..3 {
            v.push(
                get(format!("/g/nosuchgame{i}"))
                    .await
                    .unwrap()
                    .status()
                    .as_u16(),
            );
        }
        v
    };
    assert_ne!(statuses[0], 429, "{statuses:?}");
    assert_ne!(statuses[1], 429, "{statuses:?}");
    assert_eq!(
        statuses[2], 429,
        "a third page within the burst of 2: {statuses:?}"
    );
}
