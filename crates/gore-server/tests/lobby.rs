//! Issue 13, the lobby: quick pairing, open challenges created and
//! accepted (through another server too), cancelled when their creator
//! leaves, games being played listed, all live over the lobby socket; and
//! what an attacker would try. On PostgreSQL too when `GORE_TEST_POSTGRES`
//! is set (then the servers of one test share one database); without it,
//! the servers of the cross-server tests share the SQLite store of
//! tests/common/shared.rs.

mod common;

use std::collections::HashSet;
use std::time::Duration;

use common::shared::*;
use common::*;
use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// A new browser session on `s`: its cookie header value and its player
/// (`GET /api/me` makes both).
async fn visitor(s: &Server) -> (String, String) {
    let r = bot().get(s.at("/api/me")).send().await.unwrap();
    let cookie = r
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .expect("a session cookie")
        .to_string();
    let me: Value = r.json().await.unwrap();
    (cookie, me["name"].as_str().unwrap().to_string())
}

/// The next lobby state that satisfies `pred`.
async fn lobby_until(ws: &mut Ws, pred: impl Fn(&Value) -> bool) -> Value {
    loop {
        let m = next_of(ws, "lobby").await;
        if pred(&m) {
            return m;
        }
    }
}

fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

/// Two servers on one store: PostgreSQL when the tests have it, else the
/// shared SQLite store of tests/common/shared.rs.
async fn two_servers() -> (Server, Server) {
    if postgres_url().is_some() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir
            .path()
            .join("lobby.sqlite3")
            .to_str()
            .unwrap()
            .to_string();
        let s1 = Server::start_on(dir, db.clone(), 0).await;
        let s2 = Server::start_on(tempfile::tempdir().unwrap(), db, 0).await;
        (s1, s2)
    } else {
        let shared = Shared::new();
        (server_on(&shared, 1).await, server_on(&shared, 2).await)
    }
}

/// Quick pairing: A seeks 5+3 and waits, his seek listed live; B seeks the
/// same and both are paired into one game, A and B on opposite seats, with
/// their names and the clock; the game is listed as being played.
#[tokio::test(flavor = "multi_thread")]
async fn two_clients_pair_by_quick_pairing() {
    let s = Server::start(0).await;
    let (ca, name_a) = visitor(&s).await;
    let (cb, name_b) = visitor(&s).await;
    let mut wa = lobby_ws(&s, &ca).await;
    let mut wb = lobby_ws(&s, &cb).await;
    let hello_a = next_of(&mut wa, "hello").await;
    assert_eq!(hello_a["name"], name_a.as_str());
    next_of(&mut wb, "hello").await;
    send(&mut wa, json!({"type": "seek", "clock": "5+3"})).await;
    let waiting = next_of(&mut wa, "waiting").await;
    let seek = waiting["id"].as_str().unwrap().to_string();
    // B sees A's seek in the lobby.
    let l = lobby_until(&mut wb, |l| ids(&l["challenges"]).contains(&seek)).await;
    let c = &l["challenges"][0];
    assert_eq!(
        (c["by"].clone(), c["name"].clone()),
        (hello_a["you"].clone(), json!(name_a))
    );
    assert_eq!(
        (c["clock"].as_str(), c["quick"].as_bool()),
        (Some("5+3"), Some(true))
    );
    // A different pace does not pair.
    send(&mut wb, json!({"type": "seek", "clock": "10+5"})).await;
    next_of(&mut wb, "waiting").await;
    send(&mut wb, json!({"type": "seek", "clock": "5+3"})).await;
    let pb = next_of(&mut wb, "paired").await;
    let pa = next_of(&mut wa, "paired").await;
    assert_eq!(pa["game"], pb["game"], "one game for both");
    let game = pa["game"].as_str().unwrap().to_string();
    let (_, va) = get_with(&s, &ca, &format!("/api/games/{game}")).await;
    let (_, vb) = get_with(&s, &cb, &format!("/api/games/{game}")).await;
    let seats: HashSet<&str> = [va["you"].as_str().unwrap(), vb["you"].as_str().unwrap()].into();
    assert_eq!(seats, HashSet::from(["A", "B"]), "opposite seats");
    assert_eq!(va["status"], "playing");
    assert_eq!(va["lobby"], true);
    assert_eq!(clock_of(&va).control, "5+3");
    let you_a = va["you"].as_str().unwrap();
    assert_eq!(va["seats"][you_a]["name"], name_a.as_str());
    let you_b = vb["you"].as_str().unwrap();
    assert_eq!(va["seats"][you_b]["name"], name_b.as_str());
    // The lobby now lists the game and neither seek (B's 10+5 was
    // replaced by his 5+3).
    let l = lobby_until(&mut wa, |l| ids(&l["games"]).contains(&game)).await;
    assert!(l["challenges"].as_array().unwrap().is_empty(), "{l}");
    // Both can act for their own seat only: the one to move plays.
    let (to_move_cookie, other_cookie) = if you_a == "A" { (&ca, &cb) } else { (&cb, &ca) };
    let (st, _) = post_with(
        &s,
        other_cookie,
        &format!("/api/games/{game}/actions"),
        json!({"action": "a1"}),
    )
    .await;
    assert_eq!(st, 403, "B's seat cannot play A's move");
    let (st, v) = post_with(
        &s,
        to_move_cookie,
        &format!("/api/games/{game}/actions"),
        json!({"action": "a1"}),
    )
    .await;
    assert_eq!(st, 200, "{v}");
}

/// A challenge posted on one server is listed on the other and accepted
/// through it; its creator hears of the game on his server.
#[tokio::test(flavor = "multi_thread")]
async fn a_challenge_created_on_one_server_is_accepted_through_another() {
    let (s1, s2) = two_servers().await;
    let (ca, _) = visitor(&s1).await;
    let (cb, name_b) = visitor(&s2).await;
    let mut wa = lobby_ws(&s1, &ca).await;
    let mut wb = lobby_ws(&s2, &cb).await;
    next_of(&mut wa, "hello").await;
    next_of(&mut wb, "hello").await;
    send(
        &mut wa,
        json!({"type": "challenge", "rules": "seeds=4", "clock": "10+5", "colour": "B"}),
    )
    .await;
    let id = next_of(&mut wa, "waiting").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let l = lobby_until(&mut wb, |l| ids(&l["challenges"]).contains(&id)).await;
    let c = l["challenges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id.as_str())
        .unwrap()
        .clone();
    assert_eq!(
        (
            c["rules"].as_str(),
            c["colour"].as_str(),
            c["quick"].as_bool()
        ),
        (Some("seeds=4"), Some("B"), Some(false))
    );
    // A third visitor, through HTTP on server 2.
    let (st, v) = post_with(
        &s2,
        &cb,
        &format!("/api/lobby/challenges/{id}/accept"),
        json!({}),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    let game = v["game"].as_str().unwrap().to_string();
    let pa = next_of(&mut wa, "paired").await;
    assert_eq!(pa["game"], game.as_str());
    // The creator chose B: he is B; the rules are his.
    let (_, va) = get_with(&s1, &ca, &format!("/api/games/{game}")).await;
    assert_eq!(va["you"], "B");
    assert_eq!(va["rules"], "seeds=4");
    assert_eq!(va["seats"]["A"]["name"], name_b.as_str());
    // Accepting again: taken.
    let (cc, _) = visitor(&s2).await;
    let (st, e) = post_with(
        &s2,
        &cc,
        &format!("/api/lobby/challenges/{id}/accept"),
        json!({}),
    )
    .await;
    assert_eq!(st, 410, "{e}");
    // The creator's own poll says which game it made.
    let (st, v) = get_with(&s1, &ca, &format!("/api/lobby/challenges/{id}")).await;
    assert_eq!((st, v["game"].as_str()), (200, Some(game.as_str())));
    // The lobby of server 2 lists the game being played.
    lobby_until(&mut wb, |l| {
        ids(&l["games"]).contains(&game) && !ids(&l["challenges"]).contains(&id)
    })
    .await;
    // A spectator on server 2 is counted in the lobby of server 1 (each
    // server writes its counts every 3 s; the lobby reads them again every
    // 5 s), then no more once he leaves.
    let spectator = s2.ws(&game, None).await;
    let watched = |n: u64| {
        let game = game.clone();
        move |l: &Value| {
            l["games"]
                .as_array()
                .unwrap()
                .iter()
                .any(|g| g["id"] == game.as_str() && g["spectators"] == n)
        }
    };
    lobby_until(&mut wa, watched(1)).await;
    drop(spectator);
    lobby_until(&mut wa, watched(0)).await;
}

/// A creator who leaves the lobby (his last lobby socket closes) takes his
/// challenges with him: the others see them go.
#[tokio::test(flavor = "multi_thread")]
async fn a_challenge_goes_when_its_creator_leaves() {
    let (s1, s2) = two_servers().await;
    let (ca, _) = visitor(&s1).await;
    let (cb, _) = visitor(&s2).await;
    let mut wa = lobby_ws(&s1, &ca).await;
    let mut wb = lobby_ws(&s2, &cb).await;
    next_of(&mut wa, "hello").await;
    send(&mut wa, json!({"type": "challenge", "clock": "none"})).await;
    let id = next_of(&mut wa, "waiting").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    lobby_until(&mut wb, |l| ids(&l["challenges"]).contains(&id)).await;
    wa.close(None).await.unwrap();
    drop(wa);
    lobby_until(&mut wb, |l| !ids(&l["challenges"]).contains(&id)).await;
    let (st, _) = post_with(
        &s2,
        &cb,
        &format!("/api/lobby/challenges/{id}/accept"),
        json!({}),
    )
    .await;
    assert_eq!(st, 404, "withdrawn");
}

/// Many seekers at once, on two servers: everyone is paired exactly once,
/// nobody twice, nobody left waiting (an even number of them).
#[tokio::test(flavor = "multi_thread")]
async fn a_rush_of_seekers_pairs_everyone_once() {
    let (s1, s2) = two_servers().await;
    let n = 24;
    let mut people = Vec::new();
    for i in 0..n {
        let s = if i % 2 == 0 { &s1 } else { &s2 };
        let (c, _) = visitor(s).await;
        let mut ws = lobby_ws(s, &c).await;
        let you = next_of(&mut ws, "hello").await["you"]
            .as_str()
            .unwrap()
            .to_string();
        people.push((c, ws, you));
    }
    // Everyone seeks at once.
    for (_, ws, _) in people.iter_mut() {
        send(ws, json!({"type": "seek", "clock": "3+2"})).await;
    }
    let mut games: std::collections::HashMap<String, usize> = Default::default();
    for (_, ws, _) in people.iter_mut() {
        let p = tokio::time::timeout(Duration::from_secs(30), next_of(ws, "paired"))
            .await
            .expect("everyone is paired");
        *games
            .entry(p["game"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    assert_eq!(games.len(), n / 2, "{games:?}");
    assert!(games.values().all(|&k| k == 2), "{games:?}");
    // Nobody is paired a second time, and nothing waits in the lobby.
    let r: Value = bot()
        .get(s1.at("/api/lobby"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(r["challenges"].as_array().unwrap().is_empty(), "{r}");
    // One window for all of them at once.
    let checks = people.iter_mut().map(|(_, ws, _)| {
        tokio::time::timeout(Duration::from_millis(300), async move {
            loop {
                let m = next_msg(ws).await;
                if m["type"] == "paired" {
                    return m;
                }
            }
        })
    });
    for extra in futures_util::future::join_all(checks).await {
        assert!(extra.is_err(), "paired twice: {extra:?}");
    }
}

/// What an attacker tries: his own challenge, another's withdrawal, bad
/// terms, a rated game without an account, a socket without a session or
/// from another site.
#[tokio::test(flavor = "multi_thread")]
async fn the_lobby_refuses_what_it_must() {
    let s = Server::start(0).await;
    let (ca, _) = visitor(&s).await;
    let (cb, _) = visitor(&s).await;
    // A challenge waits while its creator is in the lobby (issue 25).
    let mut in_lobby = lobby_ws(&s, &ca).await;
    next_of(&mut in_lobby, "hello").await;
    let (st, v) = post_with(&s, &ca, "/api/lobby/challenges", json!({"clock": "5+3"})).await;
    assert_eq!(st, 201, "{v}");
    let id = v["waiting"].as_str().unwrap().to_string();
    let (st, e) = post_with(
        &s,
        &ca,
        &format!("/api/lobby/challenges/{id}/accept"),
        json!({}),
    )
    .await;
    assert_eq!(st, 409, "his own: {e}");
    // Another session cannot withdraw it, nor learn its game.
    let r = bot()
        .delete(s.at(&format!("/api/lobby/challenges/{id}")))
        .header("cookie", &cb)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    assert_eq!(
        get_with(&s, &cb, &format!("/api/lobby/challenges/{id}"))
            .await
            .0,
        404
    );
    for (body, field) in [
        (json!({"clock": "0+1"}), "clock"),
        (json!({"clock": "5+3", "colour": "C"}), "colour"),
        (json!({"clock": "5+3", "rules": "nonsense"}), "rules"),
    ] {
        let (st, e) = post_with(&s, &cb, "/api/lobby/challenges", body.clone()).await;
        assert_eq!(st, 400, "{body}: {e}");
        assert!(error_of(&e).message.starts_with(field), "{body}: {e}");
    }
    // Rated needs an account (tests/ratings.rs plays rated games).
    let (st, e) = post_with(
        &s,
        &cb,
        "/api/lobby/challenges",
        json!({"clock": "5+3", "rated": true}),
    )
    .await;
    assert_eq!(st, 401, "{e}");
    let (st, e) = post_with(&s, &cb, "/api/lobby/seek", json!({"clock": "none"})).await;
    assert_eq!(st, 400, "{e}");
    // Its creator withdraws it.
    let r = bot()
        .delete(s.at(&format!("/api/lobby/challenges/{id}")))
        .header("cookie", &ca)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    // No session: no lobby socket. Another site: refused.
    let req = format!("ws://{}/api/lobby/ws", s.addr)
        .into_client_request()
        .unwrap();
    let e = tokio_tungstenite::connect_async(req).await.unwrap_err();
    assert!(e.to_string().contains("403"), "{e}");
    let mut req = format!("ws://{}/api/lobby/ws", s.addr)
        .into_client_request()
        .unwrap();
    req.headers_mut().insert("cookie", ca.parse().unwrap());
    req.headers_mut()
        .insert("origin", "https://evil.example".parse().unwrap());
    let e = tokio_tungstenite::connect_async(req).await.unwrap_err();
    assert!(e.to_string().contains("403"), "{e}");
    // Garbage on the socket: an error naming the problem, then closed.
    let mut ws = lobby_ws(&s, &ca).await;
    next_of(&mut ws, "hello").await;
    send(&mut ws, json!({"type": "seek"})).await;
    let e = next_of(&mut ws, "error").await;
    assert!(error_of(&e).message.contains("clock"), "{e}");
    for _ in 0..5 {
        send(&mut ws, json!({"type": "nonsense"})).await;
    }
    let closed = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(m) = ws.next().await {
            if m.is_err() || matches!(m, Ok(tokio_tungstenite::tungstenite::Message::Close(_))) {
                return;
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "closed after abuse");
}

/// The next message of one of `kinds` (others skipped).
async fn next_of_any(ws: &mut Ws, kinds: &[&str]) -> Value {
    loop {
        let m = next_msg(ws).await;
        if kinds.iter().any(|k| m["type"] == *k) {
            return m;
        }
    }
}

/// Issue 25 item 12, ghost seeks: a seek or challenge waits only while its
/// creator's lobby socket is open. Over HTTP without one it is refused,
/// naming the rule, and nothing is listed; one whose socket closes is
/// gone; an innocent seeker then waits instead of being paired with a
/// ghost who never plays.
#[tokio::test(flavor = "multi_thread")]
async fn ghost_seeks_are_never_paired() {
    let s = Server::start(0).await;
    let (ghost, _) = visitor(&s).await;
    let (innocent, _) = visitor(&s).await;
    for path in ["/api/lobby/seek", "/api/lobby/challenges"] {
        let (st, e) = post_with(&s, &ghost, path, json!({"clock": "5+3"})).await;
        assert_eq!(
            (st, e["error"]["code"].as_str()),
            (409, Some("refused")),
            "{path}: {e}"
        );
        assert!(error_of(&e).message.contains("lobby socket"), "{e}");
    }
    let (_, l) = get_with(&s, &innocent, "/api/lobby").await;
    assert_eq!(l["challenges"], json!([]), "{l}");
    // A ghost with a socket that closes: his seek goes with it. (The
    // innocent is in the lobby first: he hears the seek come and go.)
    let mut wi = lobby_ws(&s, &innocent).await;
    next_of(&mut wi, "hello").await;
    let mut wg = lobby_ws(&s, &ghost).await;
    next_of(&mut wg, "hello").await;
    send(&mut wg, json!({"type": "seek", "clock": "5+3"})).await;
    let id = next_of(&mut wg, "waiting").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    lobby_until(&mut wi, |l| ids(&l["challenges"]).contains(&id)).await;
    wg.close(None).await.unwrap();
    drop(wg);
    lobby_until(&mut wi, |l| !ids(&l["challenges"]).contains(&id)).await;
    send(&mut wi, json!({"type": "seek", "clock": "5+3"})).await;
    let m = next_of_any(&mut wi, &["waiting", "paired", "error"]).await;
    assert_eq!(m["type"], "waiting", "{m}");
}

/// Issue 25 item 12: one address has at most 8 seeks and challenges
/// waiting (throw-away sessions of one address placed 639 in 30 s): a
/// ninth session's seek or challenge is refused (`busy`, naming the rule);
/// once one of the 8 is withdrawn, it may wait.
#[tokio::test(flavor = "multi_thread")]
async fn an_address_has_at_most_8_seeks_waiting() {
    let s = Server::start(0).await;
    let mut sockets = Vec::new();
    for i in 0..8 {
        let (c, _) = visitor(&s).await;
        let mut w = lobby_ws(&s, &c).await;
        next_of(&mut w, "hello").await;
        // Challenges do not pair with each other; one seek among them.
        let m = if i == 7 {
            json!({"type": "seek", "clock": "10+5"})
        } else {
            json!({"type": "challenge", "clock": "5+3"})
        };
        send(&mut w, m).await;
        next_of(&mut w, "waiting").await;
        sockets.push(w);
    }
    let (ninth, _) = visitor(&s).await;
    let mut w9 = lobby_ws(&s, &ninth).await;
    next_of(&mut w9, "hello").await;
    for m in [
        json!({"type": "seek", "clock": "3+2"}),
        json!({"type": "challenge", "clock": "5+3"}),
    ] {
        send(&mut w9, m.clone()).await;
        let e = next_of_any(&mut w9, &["waiting", "paired", "error"]).await;
        assert_eq!(e["type"], "error", "{m}: {e}");
        assert_eq!(error_of(&e).code, "busy", "{e}");
        assert!(error_of(&e).message.starts_with("seek limit"), "{e}");
    }
    send(&mut sockets[0], json!({"type": "cancel"})).await;
    next_of(&mut sockets[0], "cancelled").await;
    send(&mut w9, json!({"type": "seek", "clock": "3+2"})).await;
    let m = next_of_any(&mut w9, &["waiting", "paired", "error"]).await;
    assert_eq!(m["type"], "waiting", "{m}");
}

/// Issue 25 item 12: the rows of abandoned anonymous players are
/// forgotten by the sweep: a visitor who did nothing for a day is gone
/// (his session gets a new player), one who took a seat stays. Time is a
/// manual clock: at 24 h less 1 ms nobody is forgotten, at 24 h one.
#[tokio::test(flavor = "multi_thread")]
async fn abandoned_anonymous_players_are_forgotten() {
    use gore_server::domain::clock::Clock;
    let clock = Clock::manual(1_796_083_200_000);
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_in(&dir);
    config.clock = clock.clone();
    let s = Server::start_with(dir, config).await;
    let (idle, _) = visitor(&s).await;
    let (player, _) = visitor(&s).await;
    let id_of = |c: String| {
        let s = &s;
        async move { get_with(s, &c, "/api/me").await.1["id"].clone() }
    };
    let (idle_id, player_id) = (id_of(idle.clone()).await, id_of(player.clone()).await);
    let (st, g) = post_with(&s, &player, "/api/games", json!({"mode": "ai", "level": 1})).await;
    assert_eq!(st, 201, "{g}");
    let lobby = s.state.lobby();
    clock.advance(Duration::from_millis(86_400_000 - 1));
    assert_eq!(lobby.forget_idle_players().await.unwrap(), 0);
    clock.advance(Duration::from_millis(1));
    assert_eq!(lobby.forget_idle_players().await.unwrap(), 1);
    assert_eq!(id_of(player.clone()).await, player_id);
    let again = id_of(idle.clone()).await;
    assert!(again.is_string() && again != idle_id, "{again} {idle_id}");
}
