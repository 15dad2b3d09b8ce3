//! The links a player shares and the one cookie a browser keeps: an
//! invitation is a one-time claim, a device link opens one's own seat
//! elsewhere until revoked, and every seat of a browser rides on one
//! session cookie.

mod common;

use common::*;
use serde_json::{json, Value};

/// The creator who opens his own invitation keeps his seat, and the link
/// stays valid for the friend.
#[tokio::test(flavor = "multi_thread")]
async fn opening_ones_own_invitation_keeps_ones_seat() {
    let s = Server::start(0).await;
    let alice = browser();
    let g = create_game(&alice, &s, json!({"mode": "friend", "colour": "A"})).await;
    let id = g.id.as_str();
    let invite = g.invite.as_deref().unwrap();
    let path = format!("/api/games/{id}/join");
    let body = json!({"code": invite.rsplit('/').next().unwrap()});
    let (st, e) = post_json(&alice, &s, &path, body.clone()).await;
    assert_eq!((st, error_of(&e).code.as_str()), (403, "forbidden"), "{e}");
    assert!(error_of(&e).message.contains("your own invitation"));
    assert_eq!(get(&alice, &s, id).await.1["you"], "A");
    // The friend can still claim it.
    let bob = browser();
    assert_eq!(claim(&bob, &s, invite).await["seat"], "B");
    assert_eq!(get(&alice, &s, id).await.1["you"], "A");
}

/// "Continue on another device": a link that gives the same seat to
/// another browser, refused once revoked; spectators get none.
#[tokio::test(flavor = "multi_thread")]
async fn a_device_link_opens_ones_seat_until_revoked() {
    let s = Server::start(0).await;
    let desk = browser();
    let g = create(&desk, &s, json!({"mode": "ai", "colour": "A", "level": 1})).await;
    let id = g["id"].as_str().unwrap();
    let devices = format!("/api/games/{id}/devices");
    let (st, e) = post_json(&bot(), &s, &devices, json!({})).await;
    assert_eq!((st, error_of(&e).code.as_str()), (403, "forbidden"));
    let (st, link) = post_json(&desk, &s, &devices, json!({})).await;
    assert_eq!(st, 201, "{link}");
    let url = link["url"].as_str().unwrap().to_string();
    assert!(url.starts_with(&format!("/continue/{id}/")), "{url}");
    // Asked again: the same link.
    assert_eq!(
        post_json(&desk, &s, &devices, json!({})).await.1["url"],
        url.as_str()
    );
    // The phone opens it: the page changes nothing; "continue" gives it A.
    let phone = browser();
    let r = phone.get(s.at(&url)).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(get(&phone, &s, id).await.1["you"], serde_json::Value::Null);
    let body = json!({"code": url.rsplit('/').next().unwrap()});
    let (st, seat) = post_json(
        &phone,
        &s,
        &format!("/api/games/{id}/continue"),
        body.clone(),
    )
    .await;
    assert_eq!(st, 200, "{seat}");
    assert_eq!(seat["seat"], "A");
    assert_ne!(seat["token"], g["token"], "the phone's own secret");
    assert_eq!(get(&phone, &s, id).await.1["you"], "A");
    // Revoked: the link opens nothing more.
    let r = desk.delete(s.at(&devices)).send().await.unwrap();
    assert_eq!(r.status(), 204);
    let (st, e) = post_json(&browser(), &s, &format!("/api/games/{id}/continue"), body).await;
    assert_eq!((st, error_of(&e).code.as_str()), (410, "claimed"), "{e}");
    // A wrong code is refused the same way, and changes nothing.
    let (st, _) = post_json(
        &browser(),
        &s,
        &format!("/api/games/{id}/continue"),
        json!({"code": "0".repeat(32)}),
    )
    .await;
    assert_eq!(st, 410);
}

/// Issue 25 item 10: revoking a device link ends the devices that already
/// claimed it (each got its own secret, never the seat's), by cookie and by
/// bearer alike; a new link does not bring them back; the desk keeps its
/// seat.
#[tokio::test(flavor = "multi_thread")]
async fn revoking_a_device_link_ends_the_devices_that_claimed_it() {
    let s = Server::start(0).await;
    let desk = browser();
    let g = create_game(&desk, &s, json!({"mode": "local"})).await;
    let id = g.id.as_str();
    let devices = format!("/api/games/{id}/devices");
    let (_, link) = post_json(&desk, &s, &devices, json!({})).await;
    let link_code = link["url"].as_str().unwrap().rsplit('/').next().unwrap();
    let cont = format!("/api/games/{id}/continue");
    let (phone, tablet) = (browser(), browser());
    let (st, p) = post_json(&phone, &s, &cont, json!({ "code": link_code })).await;
    assert_eq!(st, 200, "{p}");
    let (st, t) = post_json(&tablet, &s, &cont, json!({ "code": link_code })).await;
    assert_eq!(st, 200, "{t}");
    let (pt, tt) = (p["token"].as_str().unwrap(), t["token"].as_str().unwrap());
    assert_ne!(pt, g.token.as_str(), "not the seat's secret");
    assert_ne!(pt, tt, "each device its own");
    // Claimed: the phone plays, by cookie and by its token.
    assert_eq!(get(&phone, &s, id).await.1["you"], "both");
    let (st, v) = act(&phone, &s, id, None, json!({"action": "a3", "ply": 0})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(get_as(&bot(), &s, id, pt).await["you"], "both");
    let next = legal(&get(&desk, &s, id).await.1)[0].clone();
    // Revoked: neither device holds the seat any more.
    let r = desk.delete(s.at(&devices)).send().await.unwrap();
    assert_eq!(r.status(), 204);
    for c in [&phone, &tablet] {
        assert_eq!(get(c, &s, id).await.1["you"], Value::Null);
    }
    assert_eq!(get_as(&bot(), &s, id, pt).await["you"], Value::Null);
    let (st, e) = act(&bot(), &s, id, Some(pt), json!({"action": next, "ply": 1})).await;
    assert_eq!((st, error_of(&e).code.as_str()), (403, "forbidden"), "{e}");
    let (st, e) = act(&phone, &s, id, None, json!({"action": next, "ply": 1})).await;
    assert_eq!((st, error_of(&e).code.as_str()), (403, "forbidden"), "{e}");
    // A new link does not bring the old devices back.
    let (st, _) = post_json(&desk, &s, &devices, json!({})).await;
    assert_eq!(st, 201);
    assert_eq!(get_as(&bot(), &s, id, pt).await["you"], Value::Null);
    assert_eq!(get(&tablet, &s, id).await.1["you"], Value::Null);
    // The desk keeps its seat and plays on.
    assert_eq!(get(&desk, &s, id).await.1["you"], "both");
    let (st, v) = act(&desk, &s, id, None, json!({"action": next, "ply": 1})).await;
    assert_eq!(st, 200, "{v}");
}

/// One browser creating many games carries one cookie, not one per game:
/// only its first answer sets a cookie, and that cookie alone holds every
/// seat.
#[tokio::test(flavor = "multi_thread")]
async fn one_session_cookie_holds_every_seat_of_a_browser() {
    let s = Server::start(0).await;
    let raw = bot(); // cookies handled by hand, to see them
    let r = raw
        .post(s.at("/api/games"))
        .json(&json!({"mode": "local"}))
        .send()
        .await
        .unwrap();
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(cookie.starts_with("gore_session="), "{cookie}");
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"));
    let session = cookie.split(';').next().unwrap().to_string();
    let first: Value = r.json().await.unwrap();
    let mut ids = vec![first["id"].as_str().unwrap().to_string()];
    for i in 0..30 {
        let mode = if i % 2 == 0 { "local" } else { "friend" };
        let r = raw
            .post(s.at("/api/games"))
            .header("cookie", &session)
            .json(&json!({"mode": mode}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
        assert!(r.headers().get("set-cookie").is_none(), "a second cookie");
        ids.push(
            r.json::<Value>().await.unwrap()["id"]
                .as_str()
                .unwrap()
                .into(),
        );
    }
    for id in &ids {
        let v: Value = raw
            .get(s.at(&format!("/api/games/{id}")))
            .header("cookie", &session)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert!(v["you"].is_string(), "{id}: {v}");
    }
    // Without the cookie, the same requests are a spectator's.
    assert_eq!(
        get(&raw, &s, &ids[0]).await.1["you"],
        serde_json::Value::Null
    );
    // A forged session holds nothing.
    let v: Value = raw
        .get(s.at(&format!("/api/games/{}", ids[0])))
        .header("cookie", format!("gore_session={}", "a".repeat(32)))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["you"], serde_json::Value::Null);
}
