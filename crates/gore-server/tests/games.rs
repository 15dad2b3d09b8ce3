//! Games over HTTP and WebSocket on a real server: each kind of game, the
//! broadcast to players and spectators, the AI's answers, a friend game
//! with its invitation and offers, records, rematches, pages, persistence.

mod common;

use common::*;
use serde_json::json;

fn is_token(t: &str) -> bool {
    t.len() == 32 && t.bytes().all(|b| b.is_ascii_hexdigit())
}

#[tokio::test(flavor = "multi_thread")]
async fn creates_each_kind_of_game() {
    let s = Server::start(0).await;

    // ai, creator A: the human moves first.
    let c = browser();
    let r = c
        .post(s.at("/api/games"))
        .json(&json!({"mode": "ai", "level": 1, "colour": "A"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_string();
    let g: serde_json::Value = r.json().await.unwrap();
    let id = g["id"].as_str().unwrap();
    assert_eq!(id.len(), 10);
    // One session cookie for all of the browser's seats.
    assert!(cookie.starts_with("gore_session="), "{cookie}");
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Path=/")
    );
    assert_eq!(g["seat"], "A");
    assert!(is_token(g["token"].as_str().unwrap()));
    assert_eq!(g["url"], format!("/g/{id}"));
    assert!(g.get("invite").is_none());
    let (st, v) = get(&c, &s, id).await; // the cookie identifies the player
    assert_eq!(st, 200);
    assert_eq!(v["mode"], "ai");
    assert_eq!(v["rules"], "standard");
    assert_eq!(v["status"], "playing");
    assert_eq!(v["you"], "A");
    assert_eq!(v["to_move"], "A");
    assert_eq!(v["position"], "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A -");
    assert_eq!(v["start"], v["position"]);
    assert_eq!(legal(&v), ["a1", "a2", "a3", "a4"]);
    assert_eq!(v["seats"]["A"]["kind"], "human");
    assert_eq!(v["seats"]["A"]["joined"], true);
    // The creator's display name (tests/names.rs checks names).
    assert!(v["seats"]["A"]["name"].is_string(), "{v}");
    assert_eq!(v["seats"]["B"]["kind"], "ai");
    assert_eq!(v["seats"]["B"]["level"], 1);
    assert_eq!(v["declined"], json!({"A": false, "B": false}));
    assert_eq!(v["result"], serde_json::Value::Null);
    // A stranger sees the same game as a spectator.
    let (_, spect) = get(&bot(), &s, id).await;
    assert_eq!(spect["you"], serde_json::Value::Null);
    assert_eq!(legal(&spect), Vec::<String>::new());

    // ai, creator B: the AI (A) opens at once.
    let c2 = browser();
    let g = create(&c2, &s, json!({"mode": "ai", "level": 1, "colour": "B"})).await;
    assert_eq!(g["seat"], "B");
    let id = g["id"].as_str().unwrap();
    let v = poll_until(&c2, &s, id, |v| ply(v) == 1).await;
    assert_eq!(v["actions"][0]["player"], "A");
    assert_eq!(v["you"], "B");
    assert!(!legal(&v).is_empty());

    // friend: waiting for the friend, with an invitation.
    let c3 = browser();
    let g = create(&c3, &s, json!({"mode": "friend", "colour": "B"})).await;
    assert_eq!(g["seat"], "B");
    let id = g["id"].as_str().unwrap();
    let invite = g["invite"].as_str().unwrap();
    assert!(invite.starts_with(&format!("/join/{id}/")));
    assert!(is_token(invite.rsplit('/').next().unwrap()));
    assert_ne!(invite.rsplit('/').next().unwrap(), g["token"]);
    let (_, v) = get(&c3, &s, id).await;
    assert_eq!(v["status"], "waiting");
    assert_eq!(
        v["seats"]["A"],
        json!({"kind": "human", "joined": false, "bot": false})
    );
    assert_eq!(v["seats"]["B"]["joined"], true);
    assert!(
        v["seats"]["B"]["name"].is_string(),
        "the creator's name: {v}"
    );

    // local: one token for both players.
    let c4 = browser();
    let g = create(
        &c4,
        &s,
        json!({"mode": "local", "rules": "no-trades,skip-origin"}),
    )
    .await;
    assert_eq!(g["seat"], "both");
    let id = g["id"].as_str().unwrap();
    let (_, v) = get(&c4, &s, id).await;
    assert_eq!(v["you"], "both");
    assert_eq!(v["rules"], "skip-origin,no-trades");
    assert_eq!(legal(&v).len(), 4);

    // seeds=N: N seeds in each hole at the start (the home page's "seeds
    // per hole"); a4 (4) reaches b1..b4, and b4 = 5 is not taken.
    let g = create_game(
        &c4,
        &s,
        json!({"mode": "local", "rules": "seeds=4,cede-all"}),
    )
    .await;
    let id = g.id.as_str();
    let (_, v) = get(&c4, &s, id).await;
    assert_eq!(v["rules"], "seeds=4,cede-all");
    assert_eq!(v["position"], "4,4,4,4/4,4,4,4 AAAA/BBBB 0-0 A -");
    let token = g.token.as_str();
    let (status, v) = act(&c4, &s, id, Some(token), json!({"action": "a4", "ply": 0})).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["position"], "4,4,4,0/5,5,5,5 AAAA/BBBB 0-0 B -");

    // Defaults: the standard level (5, docs/API.md), standard rules, a random seat.
    let g = create(&bot(), &s, json!({"mode": "ai"})).await;
    assert!(g["seat"] == "A" || g["seat"] == "B");
    let (_, v) = get(&bot(), &s, g["id"].as_str().unwrap()).await;
    let ai = if g["seat"] == "A" { "B" } else { "A" };
    assert_eq!(v["seats"][ai]["level"], gore_ai::Level::STANDARD.get());
    assert_eq!(v["rules"], "standard");

    // Bad requests name the field.
    for (body, field) in [
        (json!({"mode": "chess"}), "mode"),
        (json!({}), "mode"),
        (
            json!({"mode": "ai", "level": gore_ai::MAX_LEVEL + 1}),
            "level",
        ),
        (json!({"mode": "ai", "level": 0}), "level"),
        (json!({"mode": "ai", "level": "hard"}), "level"),
        (json!({"mode": "ai", "colour": "C"}), "colour"),
        (json!({"mode": "ai", "rules": "fast"}), "rules"),
        (json!({"mode": "ai", "rules": "seeds=2"}), "rules"),
        (
            json!({"mode": "local", "start": "6,6,6,6/6,6,6,7 AAAA/BBBB 0-0 A -"}),
            "start",
        ),
    ] {
        let r = bot()
            .post(s.at("/api/games"))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400, "{body}");
        let e: serde_json::Value = r.json().await.unwrap();
        assert_eq!(error_of(&e).code, "bad_request");
        let m = error_of(&e).message;
        assert!(m.contains(field), "{body}: {m}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn http_and_ws_actions_reach_both_players_and_a_spectator() {
    let s = Server::start(0).await;
    let alice = browser();
    let g = create_game(&alice, &s, json!({"mode": "friend", "colour": "A"})).await;
    let id = g.id.clone();
    let ta = g.token.clone();
    let mut wa = s.ws(&id, Some(&ta)).await;
    let mut spectator = s.ws(&id, None).await;
    let st = next_state(&mut wa).await;
    assert_eq!(
        (st["you"].as_str(), st["status"].as_str()),
        (Some("A"), Some("waiting"))
    );
    assert!(
        legal(&st).is_empty(),
        "nobody plays before the friend arrives"
    );
    let st = next_state(&mut spectator).await;
    assert_eq!(st["you"], serde_json::Value::Null);

    // The friend opens the invitation in his browser: the page only; then
    // he presses "join".
    let bob = browser();
    let r = bob
        .get(s.at(g.invite.as_deref().unwrap()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let tb = claim_seat(&bob, &s, g.invite.as_deref().unwrap())
        .await
        .token;
    let (_, v) = get(&bob, &s, &id).await;
    assert_eq!(v["you"], "B");
    assert_eq!(v["status"], "playing");
    // Everyone watching hears of it.
    let st = next_state(&mut wa).await;
    assert_eq!(st["status"], "playing");
    assert_eq!(st["seats"]["B"]["joined"], true);
    assert_eq!(legal(&st), ["a1", "a2", "a3", "a4"]);
    assert_eq!(next_state(&mut spectator).await["status"], "playing");

    let mut wb = s.ws_bearer(&id, &tb).await;
    let st = next_state(&mut wb).await;
    assert_eq!(st["you"], "B");
    assert!(legal(&st).is_empty(), "not B's turn");

    // A plays over HTTP (cookie).
    let (code, v) = act(&alice, &s, &id, None, json!({"action": "a3", "ply": 0})).await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["you"], "A");
    assert_eq!(ply(&v), 1);
    assert_eq!(
        v["actions"][0],
        json!({"ply": 1, "player": "A", "action": "a3", "captured": [],
               "position": "7,6,0,7/7,7,7,7 AAAA/BBBB 0-0 B -",
               // a3's 6 seeds, one in each of the next six holes.
               "path": ["a4", "b1", "b2", "b3", "b4", "a1"]})
    );
    for ws in [&mut wa, &mut wb, &mut spectator] {
        let st = state_with(ws, 1).await;
        assert_eq!(st["position"], "7,6,0,7/7,7,7,7 AAAA/BBBB 0-0 B -");
        assert_eq!(st["to_move"], "B");
    }
    // Each socket got its own view.
    let (_, vb) = get(&bob, &s, &id).await;
    assert_eq!(legal(&vb), ["b1", "b2", "b3", "b4"]);

    // B plays over the socket.
    send_action(&mut wb, "b2", 1).await;
    let mut seen = Vec::new();
    for ws in [&mut wa, &mut wb, &mut spectator] {
        let st = state_with(ws, 2).await;
        assert_eq!(st["actions"][1]["action"], "b2");
        assert_eq!(st["actions"][1]["player"], "B");
        seen.push((st["you"].clone(), legal(&st).len()));
    }
    assert_eq!(seen[0], (json!("A"), 4));
    assert_eq!(seen[1], (json!("B"), 0));
    assert_eq!(seen[2], (serde_json::Value::Null, 0));

    // A plays over the socket too, with a bearer-less `?token=`.
    send_action(&mut wa, "a1", 2).await;
    let st = state_with(&mut spectator, 3).await;
    assert_eq!(st["actions"][2]["action"], "a1");
}

#[tokio::test(flavor = "multi_thread")]
async fn in_an_ai_game_the_ai_answers_the_human() {
    let s = Server::start(0).await;
    let c = bot();
    let g = create_game(&c, &s, json!({"mode": "ai", "level": 1, "colour": "A"})).await;
    let id = g.id.as_str();
    let t = g.token.as_str();
    let mut ws = s.ws(id, Some(t)).await;
    let mut spectator = s.ws(id, None).await;
    next_state(&mut ws).await;
    for _ in 0..3 {
        let v = get_as(&c, &s, id, t).await;
        if v["status"] == "over" {
            return;
        }
        assert_eq!(v["to_move"], "A", "{v}");
        let n = ply(&v);
        let mine = legal(&v);
        let (code, v) = act(&c, &s, id, Some(t), json!({"action": mine[0], "ply": n})).await;
        assert_eq!(code, 200, "{v}");
        if v["status"] == "over" {
            return;
        }
        // The AI's answer is pushed to the sockets.
        let st = loop {
            let st = state_with(&mut ws, n + 2).await;
            if st["to_move"] == "A" || st["status"] == "over" {
                break st;
            }
        };
        assert_eq!(st["actions"][n + 1]["player"], "B", "{st}");
        if st["status"] == "over" {
            return;
        }
        assert!(!legal(&st).is_empty());
        let sp = state_with(&mut spectator, ply(&st)).await;
        assert!(legal(&sp).is_empty());
    }
    // The next GET has it all.
    let (_, v) = get(&c, &s, id).await;
    assert!(ply(&v) >= 6);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_ai_answers_offers() {
    let s = Server::start(0).await;
    let c = bot();
    let start = "3,3,3,3/3,3,3,3 AAAA/BBBB 12-12 A -";
    // An honourable AI accepts, then takes its own turn.
    let g = create_game(
        &c,
        &s,
        json!({"mode": "ai", "level": 1, "colour": "A", "honourable": true, "start": start}),
    )
    .await;
    let (id, t) = (g.id.as_str(), g.token.as_str());
    let v = get_as(&c, &s, id, t).await;
    assert_eq!(v["start"], start);
    assert!(legal(&v).contains(&"offer:a1".to_string()), "{v}");
    let (code, v) = act(&c, &s, id, Some(t), json!({"action": "offer:a1", "ply": 0})).await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["position"], "3,3,3,3/3,3,3,3 AAAA/BBBB 12-12 B a1");
    let v = poll_until(&c, &s, id, |v| ply(v) >= 3).await;
    assert_eq!(v["actions"][1]["action"], "accept");
    assert_eq!(v["actions"][1]["player"], "B");
    assert_eq!(v["actions"][2]["player"], "B");
    assert!(v["actions"][1]["position"]
        .as_str()
        .unwrap()
        .starts_with("9,3,3,3/3,3,3,3 BAAA/BBBB 12-6"));

    // Any AI answers an offer one way or the other, then plays on.
    let g = create_game(
        &c,
        &s,
        json!({"mode": "ai", "level": 2, "colour": "A", "start": start}),
    )
    .await;
    let (id, t) = (g.id.as_str(), g.token.as_str());
    let (code, _) = act(
        &c,
        &s,
        id,
        Some(t),
        json!({"action": "offer:a1,a2", "ply": 0}),
    )
    .await;
    assert_eq!(code, 200);
    let v = poll_until(&c, &s, id, |v| ply(v) >= 3).await;
    let answer = v["actions"][1]["action"].as_str().unwrap();
    assert!(answer == "accept" || answer == "decline", "{v}");
    assert_eq!(v["declined"]["B"], answer == "decline");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_friend_game_with_offers_declined_and_accepted() {
    let s = Server::start(0).await;
    let alice = browser();
    let start = "3,3,3,3/3,3,3,3 AAAA/BBBB 12-12 A -";
    let g = create_game(
        &alice,
        &s,
        json!({"mode": "friend", "colour": "A", "start": start}),
    )
    .await;
    let id = g.id.clone();
    let invite = g.invite.clone().unwrap();

    // A wrong code or an unknown game: 404, and nobody joins.
    let stranger = browser();
    let (code, _) = post_json(
        &stranger,
        &s,
        &format!("/api/games/{id}/join"),
        json!({"code": "0".repeat(32)}),
    )
    .await;
    assert_eq!(code, 404);
    let (code, _) = post_json(
        &stranger,
        &s,
        "/api/games/zzzzzzzzzz/join",
        json!({"code": "0".repeat(32)}),
    )
    .await;
    assert_eq!(code, 404);
    // Opening the link (a browser, or a link-preview bot's GET and HEAD)
    // is only the page: nothing changes until "join" is pressed.
    for r in [
        stranger.get(s.at(&invite)).send().await.unwrap(),
        stranger.head(s.at(&invite)).send().await.unwrap(),
    ] {
        assert_eq!(r.status(), 200);
        // No session is made: the only cookie is the assets' version
        // (which page a browser gets, docs/API.md "Pages").
        for c in r.headers().get_all("set-cookie") {
            let c = c.to_str().unwrap();
            assert!(c.starts_with("gore_assets="), "{c}");
        }
    }
    assert_eq!(get(&alice, &s, &id).await.1["status"], "waiting");
    // Before the friend arrives, A may not play.
    let (code, e) = act(&alice, &s, &id, None, json!({"action": "a1"})).await;
    assert_eq!(
        (code, e["error"]["code"].as_str()),
        (403, Some("forbidden"))
    );

    // The friend claims the invitation: his own new secret, not a token
    // that travelled in the link, and a session cookie.
    let bob = browser();
    let joined = claim(&bob, &s, &invite).await;
    assert_eq!(joined["seat"], "B");
    assert!(!invite.ends_with(joined["token"].as_str().unwrap()));
    assert_eq!(get(&bob, &s, &id).await.1["you"], "B");
    // The link is spent: another browser opening it later is refused
    // `claimed`, and the friend keeps his seat.
    let (code, e) = post_json(
        &stranger,
        &s,
        &format!("/api/games/{id}/join"),
        json!({"code": invite.rsplit('/').next().unwrap()}),
    )
    .await;
    assert_eq!(
        (code, e["error"]["code"].as_str()),
        (410, Some("claimed")),
        "{e}"
    );
    assert_eq!(
        get(&stranger, &s, &id).await.1["you"],
        serde_json::Value::Null
    );
    assert_eq!(get(&bob, &s, &id).await.1["you"], "B");
    let mut wa = s.ws_bearer(&id, g.token.as_str()).await;
    assert_eq!(next_state(&mut wa).await["status"], "playing");

    // A offers a1; B declines, then sows.
    let (code, v) = act(
        &alice,
        &s,
        &id,
        None,
        json!({"action": "offer:a1", "ply": 0}),
    )
    .await;
    assert_eq!(code, 200, "{v}");
    let (_, vb) = get(&bob, &s, &id).await;
    assert_eq!(legal(&vb), ["accept", "decline"]);
    let (code, v) = act(&bob, &s, &id, None, json!({"action": "decline", "ply": 1})).await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["declined"], json!({"A": false, "B": true}));
    assert_eq!(v["to_move"], "B", "the answer does not end B's turn");
    let (code, v) = act(&bob, &s, &id, None, json!({"action": "b1", "ply": 2})).await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["position"], "3,3,3,3/0,4,4,4 AAAA/BBBB 12-12 A -");

    // A offers again; B accepts: a1 is B's, with 6 of B's seeds added.
    act(
        &alice,
        &s,
        &id,
        None,
        json!({"action": "offer:a1", "ply": 3}),
    )
    .await;
    let (code, v) = act(&bob, &s, &id, None, json!({"action": "accept", "ply": 4})).await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["position"], "9,3,3,3/0,4,4,4 BAAA/BBBB 12-6 B -");
    assert!(legal(&v).contains(&"a1".to_string()), "B may sow a1 now");
    let (code, _) = act(&bob, &s, &id, None, json!({"action": "a1", "ply": 5})).await;
    assert_eq!(code, 200);

    // A saw it all on the socket.
    let st = state_with(&mut wa, 6).await;
    let actions: Vec<&str> = st["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        ["offer:a1", "decline", "b1", "offer:a1", "accept", "a1"]
    );
    assert_eq!(st["declined"]["B"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_game_to_its_end_its_record_and_rematches() {
    let s = Server::start(0).await;
    let c = bot();
    // A sows a1 (3 seeds): every hole then holds at most 2; the sweep.
    let g = create(
        &c,
        &s,
        json!({"mode": "local", "start": "3,0,0,0/1,0,0,0 AAAA/BBBB 20-24 A -"}),
    )
    .await;
    let (id, t) = (g["id"].as_str().unwrap(), g["token"].as_str().unwrap());
    let (code, v) = act(&c, &s, id, Some(t), json!({"action": "a1"})).await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["status"], "over");
    assert_eq!(v["to_move"], serde_json::Value::Null);
    assert!(legal(&v).is_empty());
    assert_eq!(
        v["result"],
        // The sweep of 0,1,1,1/1,0,0,0: A a2 + a3 + a4 = 3, B b1 = 1.
        json!({"seeds": [23, 25], "winner": "B", "without_glory": false, "reason": "board",
               "swept": [3, 1]})
    );
    // The last action shows the board before the sweep; the game after it.
    assert_eq!(
        v["actions"][0]["position"],
        "0,1,1,1/1,0,0,0 AAAA/BBBB 20-24 B -"
    );
    assert_eq!(v["position"], "0,0,0,0/0,0,0,0 AAAA/BBBB 23-25 B -");
    let (code, e) = act(&c, &s, id, Some(t), json!({"action": "b1"})).await;
    assert_eq!(
        (code, e["error"]["code"].as_str()),
        (409, Some("game_over"))
    );

    // The record.
    let r = c
        .get(s.at(&format!("/api/games/{id}/record")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    assert_eq!(
        r.headers()["content-disposition"],
        format!("attachment; filename=\"gore-{id}.gore\"")
    );
    let text = r.text().await.unwrap();
    let rec = gore_core::Record::parse(&text).unwrap();
    let game = rec.replay().unwrap();
    assert_eq!(game.actions().len(), 1);
    assert!(text.contains("[Result \"23-25\"]"), "{text}");
    assert!(
        text.contains("[Start \"3,0,0,0/1,0,0,0 AAAA/BBBB 20-24 A -\"]"),
        "{text}"
    );

    // A local rematch: both seats again, same start.
    let r = c
        .post(s.at(&format!("/api/games/{id}/rematch")))
        .bearer_auth(t)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let m: serde_json::Value = r.json().await.unwrap();
    assert_eq!(m["seat"], "both");
    assert_ne!(m["id"], g["id"]);
    let (_, v) = get(&c, &s, m["id"].as_str().unwrap()).await;
    assert_eq!(v["start"], "3,0,0,0/1,0,0,0 AAAA/BBBB 20-24 A -");
    assert_eq!(get(&c, &s, id).await.1["rematch"]["id"], m["id"]);

    // A friend rematch: seats swapped; the other player gets the other seat.
    let alice = browser();
    let bob = browser();
    let g = create(
        &alice,
        &s,
        json!({"mode": "friend", "colour": "A", "level": 3}),
    )
    .await;
    let id = g["id"].as_str().unwrap();
    claim(&bob, &s, g["invite"].as_str().unwrap()).await;
    // A spectator may not ask.
    let r = bot()
        .post(s.at(&format!("/api/games/{id}/rematch")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let ma: serde_json::Value = alice
        .post(s.at(&format!("/api/games/{id}/rematch")))
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(ma["seat"], "B");
    assert!(ma["invite"].is_string());
    let new_id = ma["id"].as_str().unwrap();
    let (_, v) = get(&bob, &s, id).await;
    assert_eq!(
        v["rematch"],
        json!({"id": new_id, "url": format!("/g/{new_id}")})
    );
    let mb: serde_json::Value = bob
        .post(s.at(&format!("/api/games/{id}/rematch")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(mb["id"], ma["id"]);
    assert_eq!(mb["seat"], "A");
    let (_, v) = get(&bob, &s, new_id).await;
    assert_eq!(v["you"], "A");
    assert_eq!(v["status"], "playing");
    assert_eq!(get(&alice, &s, new_id).await.1["you"], "B");
}

#[tokio::test(flavor = "multi_thread")]
async fn pages_and_assets() {
    let s = Server::start(0).await;
    let c = bot();
    let g = create(&c, &s, json!({"mode": "local"})).await;
    let game = format!("/g/{}", g["id"].as_str().unwrap());
    for path in ["/", game.as_str(), "/rules"] {
        let r = c.get(s.at(path)).send().await.unwrap();
        assert_eq!(r.status(), 200, "{path}");
        assert_eq!(
            r.headers()["content-type"],
            "text/html; charset=utf-8",
            "{path}"
        );
        assert_eq!(r.headers()["x-content-type-options"], "nosniff");
    }
    let r = c.get(s.at("/assets/index.html")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let etag = r.headers()["etag"].to_str().unwrap().to_string();
    let r = c
        .get(s.at("/assets/index.html"))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 304);
    // A game that does not exist is not found either (the app's page).
    for path in [
        "/assets/nothing.js",
        "/assets/../Cargo.toml",
        "/nowhere",
        "/g/abcdefghjk",
    ] {
        assert_eq!(
            c.get(s.at(path)).send().await.unwrap().status(),
            404,
            "{path}"
        );
    }
    let r = c.get(s.at("/api/nothing")).send().await.unwrap();
    assert_eq!(r.status(), 404);
    let e: serde_json::Value = r.json().await.unwrap();
    assert_eq!(error_of(&e).code, "not_found");
    // Every embedded script and stylesheet comes with its type.
    let index = c.get(s.at("/")).send().await.unwrap().text().await.unwrap();
    for (ext, want) in [(".js", "text/javascript"), (".css", "text/css")] {
        for part in index
            .split('"')
            .filter(|p| p.starts_with("/assets/") && p.ends_with(ext))
        {
            let r = c.get(s.at(part)).send().await.unwrap();
            assert_eq!(r.status(), 200, "{part}");
            assert!(
                r.headers()["content-type"]
                    .to_str()
                    .unwrap()
                    .starts_with(want),
                "{part}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn games_are_kept_in_the_database() {
    let s = Server::start(0).await;
    let c = bot();
    let g = create_game(&c, &s, json!({"mode": "local"})).await;
    let (id, t) = (g.id.as_str(), g.token.as_str());
    for (i, a) in ["a1", "b1", "a2", "b2"].iter().enumerate() {
        let (code, v) = act(&c, &s, id, Some(t), json!({"action": a, "ply": i})).await;
        assert_eq!(code, 200, "{v}");
    }
    let (_, before) = get(&c, &s, id).await;
    // A second server on the same file loads the game from the database.
    let db = s.dir.path().join("gore.sqlite3");
    let s2 = Server::start_on(tempfile::tempdir().unwrap(), db.to_str().unwrap().into(), 0).await;
    let (code, after) = get(&c, &s2, id).await;
    assert_eq!(code, 200);
    assert_eq!(after, before);
    let (code, _) = act(&c, &s2, id, Some(t), json!({"action": "a3", "ply": 4})).await;
    assert_eq!(code, 200);
    // sqlite:// URLs work too.
    let s3 = Server::start_on(
        tempfile::tempdir().unwrap(),
        format!("sqlite://{}", db.display()),
        0,
    )
    .await;
    assert_eq!(ply(&get(&c, &s3, id).await.1), 5);
}
