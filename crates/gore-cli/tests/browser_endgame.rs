//! Issue 27, the game page from the first move to the end: a rated game's
//! end shows each rating change (point 7), the invitation says who invites
//! and at what pace (12), the keyboard follows the game (13), the "to move"
//! badge never covers a name (16), a long sowing's animation is capped
//! (17), a finished game offers the record once, no other device and no
//! "Live" dot (23), and its move list's "×N" marks are readable in light
//! and dark (14). Phone (360×740, 740×360) and desktop (1366×768) sizes,
//! two languages or more where there are words.

#[allow(unused_imports)] // the shared helpers re-export more than this file uses
mod browser_support;
use browser_support::*;

/// A blank page of the app in `lang` (for its origin and localStorage),
/// animations at `speed`.
async fn blank(chrome: &Chrome, server: &Server, lang: &str, speed: &str) -> Res<Page> {
    let page = chrome.page(&format!("{}/rules", server.url)).await?;
    js(
        &page,
        &format!("localStorage.setItem('gore.lang', '{lang}'); localStorage.setItem('gore.animation', '{speed}')"),
    )
    .await?;
    Ok(page)
}

/// Sets this browser's display name.
async fn name_me(page: &Page, name: &str) -> Res<()> {
    let v = js(
        page,
        &format!(
            "fetch('/api/me/name', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify({{name: {name:?}}})}}).then(r => r.json())"
        ),
    )
    .await?;
    if v["name"] != name {
        return Err(format!("not renamed: {v}").into());
    }
    Ok(())
}

/// The box of an element: (left, top, right, bottom), or `None` when it
/// is not drawn.
async fn boxed(page: &Page, sel: &str) -> Res<Option<(f64, f64, f64, f64)>> {
    let v = js(
        page,
        &format!(
            "(() => {{ const e = document.querySelector({}); if (!e) return null; const r = e.getBoundingClientRect(); return r.width && r.height ? [r.left, r.top, r.right, r.bottom] : null; }})()",
            serde_json::to_string(sel)?
        ),
    )
    .await?;
    Ok(serde_json::from_value(v)?)
}

/// Whether an element is drawn (a box, not hidden by an ancestor).
async fn shown(page: &Page, sel: &str) -> Res<bool> {
    Ok(boxed(page, sel).await?.is_some())
}

// ------------------------------------------------------------ point 7 --

#[test]
fn a_rated_games_end_shows_each_rating_change() {
    let Some(exe) = browser_or_skip("a_rated_games_end_shows_each_rating_change") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = Server::start();
        let host = Chrome::launch(&exe, 1366, 768).await.unwrap();
        let guest = Chrome::launch(&exe, 360, 740).await.unwrap();
        let r = rated_end(&host, &guest, &server).await;
        host.close().await;
        guest.close().await;
        r.unwrap();
    });
}

/// The home page in `lang`, its lobby live.
async fn home(chrome: &Chrome, server: &Server, lang: &str) -> Res<Page> {
    let page = blank(chrome, server, lang, "off").await?;
    visit(&page, format!("{}/", server.url)).await?;
    wait_data(&page, "lobby-status", "live", "1", "the lobby live", 20).await?;
    Ok(page)
}

/// Signs up on the home page as `name`; back on the home page, logged in.
async fn sign_up(page: &Page, name: &str) -> Res<()> {
    click(page, "#signup-open").await?;
    wait_id(page, "signup-form", "the sign-up form", 10).await?;
    js(
        page,
        &format!("document.getElementById('signup-form-username').value = {name:?}; document.getElementById('signup-form-password').value = 'a long passphrase'"),
    )
    .await?;
    click(page, "#signup-form-submit").await?;
    wait_for(page, &format!("document.getElementById('my-page') && document.getElementById('my-name').textContent === {name:?}"), "logged in", 20).await?;
    wait_data(page, "lobby-status", "live", "1", "the lobby again", 20).await
}

async fn rated_end(host: &Chrome, guest: &Chrome, server: &Server) -> Res<()> {
    let h = home(host, server, "en").await?;
    sign_up(&h, "Awa_K").await?;
    let g = home(guest, server, "es").await?;
    sign_up(&g, "Irati_Z").await?;
    for p in [&h, &g] {
        wait_for(
            p,
            "!document.querySelector('label[for=rated]').hidden",
            "the rated switch",
            10,
        )
        .await?;
        click(p, "#rated").await?;
    }
    click(&h, "#seek-0").await?;
    wait_shown(&h, "seek-line", "seeking", 10).await?;
    click(&g, "#seek-0").await?;
    for (p, who) in [(&h, "the host"), (&g, "the guest")] {
        wait_page(p, "/g/", "rating-A", &format!("{who}'s rated game"), 20).await?;
        live(p).await?;
    }
    // Each makes an action (before that a resignation aborts): A sows a3,
    // then B b3.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let (a, b) = loop {
        if !view(&h).await?.holes.is_empty() {
            break (&h, &g);
        }
        if !view(&g).await?.holes.is_empty() {
            break (&g, &h);
        }
        assert!(std::time::Instant::now() < deadline, "nobody to move");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    click(a, ".hole[data-hole=a3]").await?;
    ply_is(b, 1, "a3 seen by B").await?;
    click(b, ".hole[data-hole=b3]").await?;
    ply_is(a, 2, "b3 seen by A").await?;
    // The host resigns: the guest wins 1662? (+162), the host 1338? (−162):
    // the hand-derived figures of the server's test.
    click(&h, "#resign-btn").await?;
    click(&h, "#resign-yes").await?;
    let host_seat = js(&h, "document.getElementById('game-page').dataset.you").await?;
    let host_seat = host_seat.as_str().unwrap_or_default().to_string();
    let guest_seat = if host_seat == "A" { "B" } else { "A" };
    for (p, who) in [(&h, "the host"), (&g, "the guest")] {
        wait_for(
            p,
            "document.getElementById('rating-diff-A') && document.getElementById('rating-diff-B') && document.getElementById('rating-change-A') && document.getElementById('rating-change-B')",
            &format!("the rating changes on {who}'s page"),
            30,
        )
        .await?;
        for (seat, after, diff) in [
            (host_seat.as_str(), "1338?", "\u{2212}162"),
            (guest_seat, "1662?", "+162"),
        ] {
            // The player card: the new rating and the change, no "1500?".
            let card = text(p, &format!("#rating-{seat}")).await?;
            assert_eq!(card, format!("{after} {diff}"), "{who}, card {seat}");
            assert!(shown(p, &format!("#rating-diff-{seat}")).await?);
            // The end screen: the name, the new rating, the change.
            let line = text(p, &format!("#rating-change-{seat}")).await?;
            assert!(
                line.contains(after) && line.contains(diff),
                "{who}, end screen {seat}: {line}"
            );
        }
        let players = text(p, "#players").await?;
        assert!(!players.contains("1500?"), "{who}: {players}");
        assert_accessible(p, &format!("rated-end-{who}")).await?;
    }
    let line = text(&h, &format!("#rating-change-{host_seat}")).await?;
    assert!(line.starts_with("Awa_K"), "the host's name: {line}");
    let line = text(&g, &format!("#rating-change-{guest_seat}")).await?;
    assert!(line.starts_with("Irati_Z"), "the guest's name: {line}");
    // On the phone, the changes are on the first screen of the end (the
    // result box right under the board).
    js(&g, "document.getElementById('result').scrollIntoView()").await?;
    let r = boxed(&g, "#rating-changes")
        .await?
        .ok_or("no changes box")?;
    assert!(
        r.0 >= 0.0 && r.2 <= 360.0,
        "inside the phone's width: {r:?}"
    );
    shot(&h, "e01-rated-end-desktop-en").await?;
    shot(&g, "e02-rated-end-phone-es").await?;
    Ok(())
}

// ----------------------------------------------------------- point 12 --

#[test]
fn the_invitation_says_who_invites_and_the_time_control() {
    let Some(exe) = browser_or_skip("the_invitation_says_who_invites_and_the_time_control") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = Server::start();
        let host = Chrome::launch(&exe, 1000, 800).await.unwrap();
        let phone = Chrome::launch(&exe, 360, 740).await.unwrap();
        let desk = Chrome::launch(&exe, 1366, 768).await.unwrap();
        let r = invitation(&host, &phone, &desk, &server).await;
        host.close().await;
        phone.close().await;
        desk.close().await;
        r.unwrap();
    });
}

async fn invitation(host: &Chrome, phone: &Chrome, desk: &Chrome, server: &Server) -> Res<()> {
    let h = blank(host, server, "en", "off").await?;
    name_me(&h, "Maialen").await?;
    let timed = create(&h, "{mode: 'friend', colour: 'A', clock: '5+3'}").await?;
    let untimed = create(&h, "{mode: 'friend', colour: 'B'}").await?;
    let timed_url = timed["invite"].as_str().ok_or("an invitation")?;
    let untimed_url = untimed["invite"].as_str().ok_or("an invitation")?;
    // The friend opens the links (another browser: it holds no seat): on a
    // phone in French, on the desktop in Spanish.
    let f = blank(phone, server, "fr", "off").await?;
    let d = blank(desk, server, "es", "off").await?;
    for (page, width, height, url, host_line, clock_line, name) in [
        (
            &f,
            360.0,
            740.0,
            timed_url,
            "Invitation de Maialen",
            "Cadence : 5 min + 3 s",
            "e10-invitation-phone-fr",
        ),
        (
            &f,
            360.0,
            740.0,
            untimed_url,
            "Invitation de Maialen",
            "Cadence : sans pendule",
            "e11-invitation-untimed-phone-fr",
        ),
        (
            &d,
            1366.0,
            768.0,
            timed_url,
            "Te invita Maialen",
            "Control de tiempo: 5 min + 3 s",
            "e12-invitation-desktop-es",
        ),
    ] {
        visit(page, format!("{}{url}", server.url)).await?;
        wait_id(page, "join-btn", "the invitation", 20).await?;
        assert_eq!(text(page, "#join-host").await?, host_line, "{name}");
        assert_eq!(text(page, "#join-clock").await?, clock_line, "{name}");
        for sel in ["#join-host", "#join-clock", "#join-btn"] {
            let r = boxed(page, sel).await?.ok_or(format!("{sel} not drawn"))?;
            assert!(
                r.0 >= 0.0 && r.2 <= width && r.3 <= height,
                "{name}: {sel} on the first screen: {r:?}"
            );
        }
        assert_accessible(page, name).await?;
        shot(page, name).await?;
    }
    Ok(())
}

// ----------------------------------------------------------- point 13 --

#[test]
fn the_keyboard_follows_the_game() {
    let Some(exe) = browser_or_skip("the_keyboard_follows_the_game") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = Server::start();
        let host = Chrome::launch(&exe, 1366, 768).await.unwrap();
        let guest = Chrome::launch(&exe, 360, 740).await.unwrap();
        let r = keyboard(&host, &guest, &server).await;
        host.close().await;
        guest.close().await;
        r.unwrap();
    });
}

/// Tab until a hole of the board has the focus: its name.
async fn tab_to_board(page: &Page) -> Res<String> {
    let mut seen = Vec::new();
    for _ in 0..40 {
        key(page, "Tab").await?;
        let f = focused(page).await?;
        if let Some(h) = f.strip_prefix("hole:") {
            return Ok(h.to_string());
        }
        seen.push(f);
    }
    Err(format!("Tab never reached the board: {seen:?}").into())
}

/// Whether the focus is on a hole that may be played now.
const ON_PLAYABLE: &str = "document.activeElement && document.activeElement.dataset && document.activeElement.dataset.hole && document.activeElement.getAttribute('aria-disabled') === 'false'";

/// Waits until the live region (or the toast) says `words`.
async fn said(page: &Page, words: &str, what: &str) -> Res<()> {
    wait_for(
        page,
        &format!(
            "document.getElementById('live').textContent.includes({words:?}) && !document.getElementById('toast').hidden && document.getElementById('toast').textContent.includes({words:?})"
        ),
        what,
        10,
    )
    .await
}

async fn keyboard(host: &Chrome, guest: &Chrome, server: &Server) -> Res<()> {
    // Against the AI, in English on the desktop: Tab to the board, Enter
    // sows a1; once the AI has replied the focus is on a hole to play, not
    // on a1, emptied (no sowing of B's reaches it from here: b4 is empty,
    // b1..b3 hold too few; no trades, so no offer to answer instead).
    let page = blank(host, server, "en", "normal").await?;
    let g = create(
        &page,
        "{mode: 'ai', level: 1, colour: 'A', rules: 'no-trades', start: '4,3,3,3/2,1,1,0 AAAA/BBBB 15-16 A -'}",
    )
    .await?;
    open(&page, server, g["url"].as_str().unwrap()).await?;
    ply_is(&page, 0, "the game").await?;
    let hole = tab_to_board(&page).await?;
    key(&page, "Enter").await?;
    ply_is(&page, 2, "the AI's reply").await?;
    wait_for(
        &page,
        ON_PLAYABLE,
        "the focus on a playable hole after the AI's reply",
        10,
    )
    .await?;
    let now = focused(&page).await?;
    assert_ne!(now, format!("hole:{hole}"), "not the hole just sown");
    shot(&page, "e20-keyboard-after-ai-en").await?;
    // Enter there plays it, and so on: the keyboard alone plays on.
    key(&page, "Enter").await?;
    ply_is(&page, 4, "a second reply").await?;
    wait_for(&page, ON_PLAYABLE, "the focus on a playable hole again", 10).await?;

    // Between people (the host in English on the desktop, the guest in
    // Spanish on a phone): Enter on the hole just sown, while the other
    // is to play, says why nothing happens.
    let h = blank(host, server, "en", "off").await?;
    name_me(&h, "Awa").await?;
    let g = create(&h, "{mode: 'friend', colour: 'A'}").await?;
    let invite = g["invite"].as_str().ok_or("an invitation")?.to_string();
    let (id, code) = invite
        .trim_start_matches("/join/")
        .split_once('/')
        .ok_or("an invitation's link")?;
    let gp = blank(guest, server, "es", "off").await?;
    name_me(&gp, "Irati").await?;
    let joined = js(
        &gp,
        &format!(
            r#"fetch('/api/games/{id}/join', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify({{code: '{code}'}})}})
            .then(r => r.json()).then(j => {{ localStorage.setItem('gore.games', JSON.stringify([{{id: '{id}', mode: 'friend', seat: j.seat}}])); return j; }})"#
        ),
    )
    .await?;
    if joined["seat"].is_null() {
        return Err(format!("not joined: {joined}").into());
    }
    open(&h, server, &format!("/g/{id}")).await?;
    open(&gp, server, &format!("/g/{id}")).await?;
    let sown = tab_to_board(&h).await?;
    key(&h, "Enter").await?;
    ply_is(&h, 1, "A's sowing").await?;
    assert_eq!(focused(&h).await?, format!("hole:{sown}"));
    key(&h, "Enter").await?;
    said(
        &h,
        &format!("{sown} cannot be sown now. Waiting for"),
        "why, in English",
    )
    .await?;
    shot(&h, "e21-keyboard-why-en").await?;
    // The guest, whose focus was nowhere, is put on a hole to play.
    ply_is(&gp, 1, "A's sowing, B's page").await?;
    wait_for(&gp, ON_PLAYABLE, "B's focus on a playable hole", 10).await?;
    key(&gp, "Enter").await?;
    ply_is(&gp, 2, "B's sowing").await?;
    let b_sown = focused(&gp).await?;
    key(&gp, "Enter").await?;
    said(
        &gp,
        &format!(
            "No se puede sembrar {} ahora.",
            b_sown.trim_start_matches("hole:")
        ),
        "why, in Spanish",
    )
    .await?;
    shot(&gp, "e22-keyboard-why-phone-es").await?;
    // B's reply moves A's focus off the emptied hole, to one to play.
    ply_is(&h, 2, "B's sowing, A's page").await?;
    wait_for(
        &h,
        ON_PLAYABLE,
        "A's focus on a playable hole after B's reply",
        10,
    )
    .await?;
    Ok(())
}

// ----------------------------------------------------------- point 16 --

#[test]
fn the_to_move_badge_never_covers_a_name() {
    let Some(exe) = browser_or_skip("the_to_move_badge_never_covers_a_name") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = Server::start();
        let wide = Chrome::launch(&exe, 740, 360).await.unwrap();
        let tall = Chrome::launch(&exe, 360, 740).await.unwrap();
        let r = badge(&wide, &tall, &server).await;
        wide.close().await;
        tall.close().await;
        r.unwrap();
    });
}

/// Asserts that on `page` the "to move" badge and the name of the player
/// to move do not overlap.
async fn badge_clear(page: &Page, what: &str) -> Res<()> {
    wait_el(
        page,
        ".player.to-move .to-move-mark",
        "a player to move",
        20,
    )
    .await?;
    let mark = boxed(page, ".player.to-move .to-move-mark")
        .await?
        .ok_or("no badge")?;
    let name = boxed(page, ".player.to-move .player-name")
        .await?
        .ok_or("no name")?;
    let apart = mark.2 <= name.0 || name.2 <= mark.0 || mark.3 <= name.1 || name.3 <= mark.1;
    if !apart {
        let _ = shot(page, &format!("fail-{what}")).await;
    }
    assert!(apart, "{what}: the badge {mark:?} covers the name {name:?}");
    Ok(())
}

async fn badge(wide: &Chrome, tall: &Chrome, server: &Server) -> Res<()> {
    // Two long names (20 characters, the most a name may have).
    let w = blank(wide, server, "en", "off").await?;
    name_me(&w, "Maximiliana_Etxeberr").await?;
    let g = create(&w, "{mode: 'friend', colour: 'A'}").await?;
    let invite = g["invite"].as_str().ok_or("an invitation")?.to_string();
    let (id, code) = invite
        .trim_start_matches("/join/")
        .split_once('/')
        .ok_or("an invitation's link")?;
    let t = blank(tall, server, "eu", "off").await?;
    name_me(&t, "Bartholomew_Okonkwoo").await?;
    let joined = js(
        &t,
        &format!(
            r#"fetch('/api/games/{id}/join', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify({{code: '{code}'}})}})
            .then(r => r.json()).then(j => {{ localStorage.setItem('gore.games', JSON.stringify([{{id: '{id}', mode: 'friend', seat: j.seat}}])); return j; }})"#
        ),
    )
    .await?;
    if joined["seat"].is_null() {
        return Err(format!("not joined: {joined}").into());
    }
    for lang in ["en", "eu"] {
        for p in [&w, &t] {
            js(p, &format!("localStorage.setItem('gore.lang', '{lang}')")).await?;
            open(p, server, &format!("/g/{id}")).await?;
        }
        let ply = js(&w, "document.getElementById('game-page').dataset.ply").await?;
        let ply: u64 = ply.as_str().unwrap_or("0").parse()?;
        // A to move, then B: each badge, on each screen.
        badge_clear(&w, &format!("740x360-{lang}-ply{ply}")).await?;
        badge_clear(&t, &format!("360x740-{lang}-ply{ply}")).await?;
        shot(&w, &format!("e3{ply}-badge-740x360-{lang}")).await?;
        shot(&t, &format!("e3{ply}-badge-360x740-{lang}")).await?;
        let mover = if view(&w).await?.holes.is_empty() {
            &t
        } else {
            &w
        };
        let hole = view(mover).await?.holes[0].clone();
        click(mover, &format!(".hole[data-hole={hole}]")).await?;
        ply_is(&w, ply + 1, "the move, 740x360").await?;
        ply_is(&t, ply + 1, "the move, 360x740").await?;
        badge_clear(&w, &format!("740x360-{lang}-ply{}", ply + 1)).await?;
        badge_clear(&t, &format!("360x740-{lang}-ply{}", ply + 1)).await?;
        shot(&w, &format!("e3{}-badge-740x360-{lang}", ply + 1)).await?;
        shot(&t, &format!("e3{}-badge-360x740-{lang}", ply + 1)).await?;
    }
    Ok(())
}

// ----------------------------------------------------------- point 17 --

#[test]
fn a_long_sowings_animation_is_capped() {
    let Some(exe) = browser_or_skip("a_long_sowings_animation_is_capped") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = Server::start();
        let chrome = Chrome::launch(&exe, 1366, 768).await.unwrap();
        let r = capped(&chrome, &server).await;
        chrome.close().await;
        r.unwrap();
    });
}

/// The animation's cap on one sowing's seeds (ms, at normal speed).
const SOW_CAP_MS: f64 = 2000.0;

async fn capped(chrome: &Chrome, server: &Server) -> Res<()> {
    let page = blank(chrome, server, "en", "normal").await?;
    // A sows a1's 29 seeds (3 laps and more; 36 on the board, 6 and 6
    // captured).
    let g = create(
        &page,
        "{mode: 'local', start: '29,1,1,1/1,1,1,1 AAAA/BBBB 6-6 A -'}",
    )
    .await?;
    open(&page, server, g["url"].as_str().unwrap()).await?;
    ply_is(&page, 0, "the game").await?;
    // Every seed's flight, as the page asks the browser for it: its
    // duration (the schedule, not the time a loaded machine takes).
    js(
        &page,
        "(() => { window.__flights = []; const orig = Element.prototype.animate; Element.prototype.animate = function (k, o) { if (this.classList && this.classList.contains('flying')) window.__flights.push(typeof o === 'number' ? o : o.duration); return orig.call(this, k, o); }; return true; })()",
    )
    .await?;
    click(&page, ".hole[data-hole=a1]").await?;
    ply_is(&page, 1, "the sowing shown").await?;
    let flights: Vec<f64> = serde_json::from_value(js(&page, "window.__flights").await?)?;
    assert!(flights.len() >= 29, "a flight per seed: {flights:?}");
    // The sowing comes first, one seed at a time, one after the other.
    let sowing: f64 = flights[..29].iter().sum();
    assert!(
        sowing <= SOW_CAP_MS + 1.0,
        "29 seeds in {sowing} ms, more than {SOW_CAP_MS}: {flights:?}"
    );
    // A short sowing keeps its pace (230 ms a seed).
    let planned = js(&page, "window.goreSowings").await?;
    assert_eq!(planned[0]["seeds"], 29, "{planned}");
    assert!(planned[0]["total"].as_f64().unwrap_or(f64::MAX) <= SOW_CAP_MS + 1.0);
    let n = flights.len();
    js(&page, "window.__flights = []").await?;
    let v = view(&page).await?;
    let hole = v.holes.first().ok_or("B has a hole")?.clone();
    let seeds = js(
        &page,
        &format!("Number(document.querySelector('.hole[data-hole={hole}] .count').textContent)"),
    )
    .await?;
    click(&page, &format!(".hole[data-hole={hole}]")).await?;
    ply_is(&page, 2, "a short sowing").await?;
    let flights: Vec<f64> = serde_json::from_value(js(&page, "window.__flights").await?)?;
    let seeds = seeds.as_u64().unwrap_or(0) as usize;
    if seeds > 0 && seeds * 230 <= SOW_CAP_MS as usize {
        assert!(
            flights[..seeds].iter().all(|d| (*d - 230.0).abs() < 0.5),
            "{seeds} seeds at 230 ms each: {flights:?} (before: {n})"
        );
    }
    Ok(())
}

// ------------------------------------------------------- points 23, 14 --

#[test]
fn a_finished_game_offers_the_record_once_and_no_live_dot() {
    let Some(exe) = browser_or_skip("a_finished_game_offers_the_record_once_and_no_live_dot")
    else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = Server::start();
        let desk = Chrome::launch(&exe, 1366, 768).await.unwrap();
        let phone = Chrome::launch(&exe, 360, 740).await.unwrap();
        let r = finished(&desk, &phone, &server).await;
        desk.close().await;
        phone.close().await;
        r.unwrap();
    });
}

/// The elements drawn whose own text is `words`.
async fn drawn_with_text(page: &Page, words: &str) -> Res<usize> {
    let v = js(
        page,
        &format!(
            "[...document.querySelectorAll('a, button')].filter(e => e.textContent.trim() === {words:?} && e.getClientRects().length > 0).length"
        ),
    )
    .await?;
    Ok(v.as_u64().unwrap_or(0) as usize)
}

/// Asserts what a finished game's page offers, in `lang`.
async fn finished_page(page: &Page, download: &str, what: &str) -> Res<()> {
    wait_for(
        page,
        "!document.getElementById('result').hidden && document.getElementById('game-page').dataset.busy === '0'",
        "the result",
        20,
    )
    .await?;
    assert_eq!(
        drawn_with_text(page, download).await?,
        1,
        "{what}: \"{download}\" once"
    );
    assert!(!shown(page, "#devices").await?, "{what}: no other device");
    assert!(!shown(page, "#conn").await?, "{what}: no Live dot");
    assert!(!shown(page, "#conn .dot").await?, "{what}: no dot");
    Ok(())
}

async fn finished(desk: &Chrome, phone: &Chrome, server: &Server) -> Res<()> {
    // One device, in English on the desktop: never another device; at the
    // end one download. B's b4 (3 seeds) makes a1, a2 and a3 2 each and
    // captures them (×6); the board is empty, the game over.
    let page = blank(desk, server, "en", "off").await?;
    let g = create(
        &page,
        "{mode: 'local', start: '1,1,1,0/0,0,0,3 AAAA/BBBB 12-30 B -'}",
    )
    .await?;
    open(&page, server, g["url"].as_str().unwrap()).await?;
    ply_is(&page, 0, "the game").await?;
    assert!(
        !shown(&page, "#devices").await?,
        "one device: no other device"
    );
    assert_eq!(drawn_with_text(&page, "Download the record").await?, 1);
    click(&page, ".hole[data-hole=b4]").await?;
    finished_page(&page, "Download the record", "one device, en").await?;
    assert_eq!(text(&page, "#moves .gain").await?, "×6");
    shot(&page, "e40-finished-local-en").await?;
    // The "×N" marks readable, light and dark: 4.5:1 on their chip, and
    // no serious axe violation. (At the review's start no move is the
    // current one, whose chip has colours of its own.)
    click(&page, "#review-first").await?;
    wait_for(
        &page,
        "document.querySelector('#moves .move') && !document.querySelector('#moves .move.current')",
        "no current move",
        5,
    )
    .await?;
    for dark in [false, true] {
        page.emulate_media_features(vec![
            chromiumoxide::cdp::browser_protocol::emulation::MediaFeature::new(
                "prefers-color-scheme",
                if dark { "dark" } else { "light" },
            ),
        ])
        .await?;
        let c = js(
            &page,
            r"(() => {
                const lum = (c) => {
                    const m = String(c).match(/[\d.]+/g).map(Number);
                    const [r, g, b] = m.slice(0, 3).map((v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
                    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
                };
                const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
                return [...document.querySelectorAll('#moves .gain')].map((e) => ratio(getComputedStyle(e).color, getComputedStyle(e.closest('.move')).backgroundColor));
            })()",
        )
        .await?;
        let ratios: Vec<f64> = serde_json::from_value(c)?;
        assert!(!ratios.is_empty());
        assert!(
            ratios.iter().all(|r| *r >= 4.5),
            "×N marks below 4.5:1 (dark: {dark}): {ratios:?}"
        );
        let mode = if dark { "dark" } else { "light" };
        assert_accessible(&page, &format!("finished-{mode}")).await?;
        shot(&page, &format!("e41-finished-moves-{mode}")).await?;
    }
    page.emulate_media_features(vec![
        chromiumoxide::cdp::browser_protocol::emulation::MediaFeature::new(
            "prefers-color-scheme",
            "light",
        ),
    ])
    .await?;

    // A game between people, the guest in Spanish on a phone: another
    // device offered while it goes on, not once it is over (here, the host
    // resigns).
    let h = blank(desk, server, "en", "off").await?;
    let g = create(&h, "{mode: 'friend', colour: 'A'}").await?;
    let invite = g["invite"].as_str().ok_or("an invitation")?.to_string();
    let (id, code) = invite
        .trim_start_matches("/join/")
        .split_once('/')
        .ok_or("an invitation's link")?;
    let gp = blank(phone, server, "es", "off").await?;
    let joined = js(
        &gp,
        &format!(
            r#"fetch('/api/games/{id}/join', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify({{code: '{code}'}})}})
            .then(r => r.json()).then(j => {{ localStorage.setItem('gore.games', JSON.stringify([{{id: '{id}', mode: 'friend', seat: j.seat}}])); return j; }})"#
        ),
    )
    .await?;
    if joined["seat"].is_null() {
        return Err(format!("not joined: {joined}").into());
    }
    open(&h, server, &format!("/g/{id}")).await?;
    open(&gp, server, &format!("/g/{id}")).await?;
    assert!(shown(&gp, "#devices").await?, "offered during the game");
    assert!(shown(&gp, "#conn .dot").await?, "live during the game");
    // Each acts, then the host resigns.
    click(&h, ".hole[data-hole=a3]").await?;
    ply_is(&gp, 1, "a3, B's page").await?;
    click(&gp, ".hole[data-hole=b3]").await?;
    ply_is(&h, 2, "b3, A's page").await?;
    click(&h, "#resign-btn").await?;
    click(&h, "#resign-yes").await?;
    finished_page(&gp, "Descargar la partida", "friend, es, phone").await?;
    finished_page(&h, "Download the record", "friend, en, desktop").await?;
    shot(&gp, "e42-finished-friend-phone-es").await?;
    shot(&h, "e43-finished-friend-desktop-en").await?;
    Ok(())
}
