//! The game page as players expect it (issue 10): your own invitation,
//! the board turned for B, the board on a phone held either way, the
//! markers' contrast, the keyboard, the words, the move list, sounds and
//! dark mode. Each game starts from a position set through the API, so the
//! expected numbers come from the rules (../shared/RULES.md) by hand.

#[allow(unused_imports)] // the shared helpers re-export more than this file uses
mod browser_support;
use browser_support::*;

/// A blank page of the app (for its origin and localStorage).
async fn blank(chrome: &Chrome, server: &Server, lang: &str) -> Res<Page> {
    let page = chrome.page(&format!("{}/rules", server.url)).await?;
    js(
        &page,
        &format!("localStorage.setItem('gore.lang', '{lang}'); localStorage.setItem('gore.animation', 'off')"),
    )
    .await?;
    Ok(page)
}

/// The WCAG 2.2 contrast ratio of two CSS colours, computed in the page.
const CONTRAST_JS: &str = r"
    const lum = (c) => {
        const m = String(c).match(/[\d.]+/g).map(Number);
        const [r, g, b] = m.slice(0, 3).map((v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
";

/// Where each hole is drawn: (name, x, y) of its centre.
async fn hole_places(page: &Page) -> Res<Vec<(String, f64, f64)>> {
    let v = js(
        page,
        "[...document.querySelectorAll('.hole')].map(h => { const r = h.querySelector('.hole-bg').getBoundingClientRect(); return [h.dataset.hole, r.x + r.width / 2, r.y + r.height / 2]; })",
    )
    .await?;
    Ok(serde_json::from_value(v)?)
}

fn at(places: &[(String, f64, f64)], h: &str) -> (f64, f64) {
    let p = places.iter().find(|p| p.0 == h).expect("a hole");
    (p.1, p.2)
}

/// Asserts that `bottom`'s row is at the bottom, read left to right from
/// its side (x1 < x2 < x3 < x4), the other row above it, right to left.
fn assert_bottom(places: &[(String, f64, f64)], bottom: char, who: &str) {
    let (me, them) = if bottom == 'A' {
        ('a', 'b')
    } else {
        ('b', 'a')
    };
    let m = |k: u8| at(places, &format!("{me}{k}"));
    let o = |k: u8| at(places, &format!("{them}{k}"));
    assert!(
        m(1).0 < m(2).0 && m(2).0 < m(3).0 && m(3).0 < m(4).0,
        "{who}: {me}1…{me}4 left to right: {places:?}"
    );
    assert!(
        m(1).1 > o(1).1 + 20.0,
        "{who}: {me}'s row below: {places:?}"
    );
    // Counter-clockwise: the other row runs right to left, its 4 above my 1.
    assert!(
        (o(4).0 - m(1).0).abs() < 3.0 && o(1).0 > o(4).0,
        "{who}: {them}4 above {me}1: {places:?}"
    );
}

// ------------------------------------------------------------ point 1 --

#[test]
fn own_invitation_keeps_the_seat() {
    let Some(exe) = browser_or_skip("own_invitation_keeps_the_seat") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = Server::start();
        let chrome = Chrome::launch(&exe, 1100, 900).await.unwrap();
        let r = own_invitation(&chrome, &server).await;
        chrome.close().await;
        r.unwrap();
    });
}

async fn own_invitation(chrome: &Chrome, server: &Server) -> Res<()> {
    let page = blank(chrome, server, "en").await?;
    let g = create(&page, "{mode: 'friend', colour: 'A'}").await?;
    let invite = g["invite"].as_str().ok_or("no invite")?.to_string();
    let url = g["url"].as_str().ok_or("no url")?.to_string();

    // Opened as the page shows it: the creator is told it is his own link.
    visit(&page, format!("{}{invite}", server.url)).await?;
    wait_el(
        &page,
        "#claim-page[data-view=own]",
        "the own-invitation page",
        20,
    )
    .await?;
    assert!(text(&page, "#own-title")
        .await?
        .contains("your own invitation"));
    assert!(js(&page, "!document.getElementById('join-btn')").await? == Value::Bool(true));
    shot(&page, "g01-own-invitation").await?;

    // The claim itself, as if the page had not known (its summary failed
    // to load): the server refuses it (403) and the page keeps the seat.
    let claim = js(
        &page,
        &format!(
            "fetch('/api/games/{}/join', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify({{code: '{}'}})}}).then(r => r.status)",
            g["id"].as_str().unwrap(),
            invite.rsplit('/').next().unwrap()
        ),
    )
    .await?;
    assert_eq!(claim, Value::from(403));
    let p2 = chrome.browser.new_page("about:blank").await?;
    p2.evaluate_on_new_document(
        "(() => { const f = window.fetch; let once = true; window.fetch = (u, o) => { if (once && String(u).startsWith('/api/games/') && !(o && o.method === 'POST')) { once = false; return Promise.reject(new TypeError('Failed to fetch')); } return f(u, o); }; })()",
    )
    .await?;
    visit(&p2, format!("{}{invite}", server.url)).await?;
    wait_id(&p2, "join-btn", "the join button (the summary failed)", 20).await?;
    click(&p2, "#join-btn").await?;
    wait_el(
        &p2,
        "#claim-page[data-view=own]",
        "the refusal shown as your own invitation",
        10,
    )
    .await?;
    let _ = p2.close().await;

    // The seat is still A's, and the game still waits for the friend.
    open(&page, server, &url).await?;
    assert_eq!(
        js(&page, "document.getElementById('game-page').dataset.you").await?,
        Value::String("A".into())
    );
    assert_eq!(
        js(&page, "document.getElementById('game-page').dataset.status").await?,
        Value::String("waiting".into())
    );
    assert!(js(&page, "!!document.getElementById('invite-link')").await? == Value::Bool(true));
    Ok(())
}

// ------------------------------------------------------------ point 2 --

#[test]
fn board_turns_for_b_and_flips_for_spectators() {
    let Some(exe) = browser_or_skip("board_turns_for_b_and_flips_for_spectators") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = Server::start();
        let player = Chrome::launch(&exe, 1100, 900).await.unwrap();
        let watcher = Chrome::launch(&exe, 360, 740).await.unwrap();
        let r = turned(&player, &watcher, &server).await;
        player.close().await;
        watcher.close().await;
        r.unwrap();
    });
}

async fn turned(player: &Chrome, watcher: &Chrome, server: &Server) -> Res<()> {
    // B against the computer (A opens), in French.
    let page = blank(player, server, "fr").await?;
    let g = create(&page, "{mode: 'ai', level: 1, colour: 'B'}").await?;
    let url = g["url"].as_str().unwrap().to_string();
    open(&page, server, &url).await?;
    wait_for(
        &page,
        "document.querySelectorAll('.hole[aria-disabled=\"false\"]').length > 0",
        "B's turn",
        30,
    )
    .await?;
    assert_bottom(&hole_places(&page).await?, 'B', "B's own page");
    // B's bowl on the right, as A's is on A's page.
    let trays = js(&page, "['A','B'].map(p => document.querySelector('.tray-' + p + ' .tray-bg').getBoundingClientRect().x)").await?;
    assert!(
        trays[1].as_f64() > trays[0].as_f64(),
        "B's bowl on the right: {trays}"
    );
    assert!(
        js(&page, "!document.getElementById('flip-btn')").await? == Value::Bool(true),
        "a seated player has no flip button"
    );
    shot(&page, "g02-board-for-b-fr").await?;

    // A spectator sees A's row at the bottom and may turn the board.
    let w = watcher.page(&format!("{}{url}", server.url)).await?;
    wait_id(&w, "game-page", "the spectator's page", 20).await?;
    assert_bottom(&hole_places(&w).await?, 'A', "the spectator");
    let status = text(&w, "#turn").await?;
    assert!(status.starts_with("You are watching this game"), "{status}");
    click(&w, "#flip-btn").await?;
    wait_data(&w, "game-page", "bottom", "B", "the board turned", 5).await?;
    assert_bottom(&hole_places(&w).await?, 'B', "the spectator, turned");
    assert_eq!(
        js(
            &w,
            "document.getElementById('flip-btn').getAttribute('aria-pressed')"
        )
        .await?,
        Value::String("true".into())
    );
    shot(&w, "g03-spectator-turned").await?;
    // One device: the flip button too.
    let local = create(&page, "{mode: 'local'}").await?;
    open(&page, server, local["url"].as_str().unwrap()).await?;
    assert_bottom(&hole_places(&page).await?, 'A', "one device");
    click(&page, "#flip-btn").await?;
    wait_data(&page, "game-page", "bottom", "B", "the board turned", 5).await?;
    assert_bottom(&hole_places(&page).await?, 'B', "one device, turned");
    // Clicking still plays the hole clicked: a1 is A's, bottom-right... it is now on top.
    click(&page, ".hole[data-hole=a2]").await?;
    wait_data(&page, "game-page", "ply", "1", "a2 played", 10).await?;
    assert_eq!(text(&page, "#moves li[data-ply='1'] .tok").await?, "a2");
    Ok(())
}

// -------------------------------------------------------- points 3, 7 --

/// An element's box in the page (viewport coordinates plus the scroll,
/// so that a click that scrolls does not move it).
async fn rect(page: &Page, sel: &str) -> Res<(f64, f64, f64, f64)> {
    let v = js(
        page,
        &format!("(() => {{ const r = document.querySelector({}).getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY, r.right + scrollX, r.bottom + scrollY]; }})()", serde_json::to_string(sel)?),
    )
    .await?;
    let f = |i: usize| v[i].as_f64().unwrap_or(f64::NAN);
    Ok((f(0), f(1), f(2), f(3)))
}

async fn in_view(page: &Page, sel: &str, what: &str) -> Res<()> {
    js(page, "window.scrollTo(0, 0)").await?;
    let (l, t, r, b) = rect(page, sel).await?;
    let size = js(page, "[window.innerWidth, window.innerHeight]").await?;
    let (w, h) = (size[0].as_f64().unwrap(), size[1].as_f64().unwrap());
    assert!(
        l >= -0.5 && t >= -0.5 && r <= w + 0.5 && b <= h + 0.5 || {
            let _ = shot(page, "fail-in-view").await;
            false
        },
        "{what} ({sel}) is not on the {w}x{h} screen: [{l}, {t}, {r}, {b}]"
    );
    Ok(())
}

#[test]
fn phone_portrait_and_landscape() {
    let Some(exe) = browser_or_skip("phone_portrait_and_landscape") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = Server::start();
        for (w, h, lang) in [(360, 740, "en"), (740, 360, "eu"), (1280, 800, "en")] {
            let chrome = Chrome::launch(&exe, w, h).await.unwrap();
            let r = phone(&chrome, &server, w, h, lang).await;
            chrome.close().await;
            r.unwrap();
        }
    });
}

async fn phone(chrome: &Chrome, server: &Server, w: u32, h: u32, lang: &str) -> Res<()> {
    let page = blank(chrome, server, lang).await?;
    let tag = format!("{w}x{h}-{lang}");
    // A pending offer of a1 from A to B (B has 26 captured).
    let g = create(
        &page,
        "{mode: 'local', start: '1,1,0,3/0,2,0,3 AAAA/BBBB 12-26 B a1'}",
    )
    .await?;
    open(&page, server, g["url"].as_str().unwrap()).await?;
    wait_id(&page, "accept-btn", "the offer", 10).await?;
    assert_eq!(js(&page, "window.innerWidth").await?, Value::from(w));
    let sw = js(&page, "document.documentElement.scrollWidth").await?;
    assert!(
        sw.as_u64().unwrap_or(9999) <= w as u64,
        "{tag}: the page is {sw} px wide"
    );
    in_view(&page, "svg.board", &format!("{tag}: the board")).await?;
    in_view(&page, "#accept-btn", &format!("{tag}: Accept")).await?;
    in_view(&page, "#decline-btn", &format!("{tag}: Decline")).await?;
    shot(&page, &format!("g10-offer-{tag}")).await?;
    let board_top = rect(&page, "svg.board").await?.1;
    let turn_h = rect(&page, "#turn").await?;
    // Declined (with its warning), and B sows b2: the board never moved.
    click(&page, "#decline-btn").await?;
    wait_id(&page, "confirm-decline-btn", "the warning", 5).await?;
    assert_eq!(
        rect(&page, "svg.board").await?.1,
        board_top,
        "{tag}: the warning moved the board"
    );
    click(&page, "#confirm-decline-btn").await?;
    wait_for(
        &page,
        "document.querySelector('.hole[data-hole=b2][aria-disabled=\"false\"]')",
        "B's turn after the refusal",
        10,
    )
    .await?;
    let parts = js(&page, "['#players', '#turn', '#player-A', '#player-B'].map(s => { const r = document.querySelector(s).getBoundingClientRect(); return s + ' ' + r.top + '..' + r.bottom; }).join('; ')").await?;
    assert_eq!(
        rect(&page, "svg.board").await?.1,
        board_top,
        "{tag}: the answer moved the board: {parts}"
    );
    let th = rect(&page, "#turn").await?;
    assert_eq!(
        th.3 - th.1,
        turn_h.3 - turn_h.1,
        "{tag}: the status line changed height"
    );
    click(&page, ".hole[data-hole=b2]").await?;
    wait_for(
        &page,
        "document.getElementById('game-page').dataset.ply === '2' && document.getElementById('game-page').dataset.busy === '0'",
        "b2 sown",
        10,
    )
    .await?;
    assert_eq!(
        rect(&page, "svg.board").await?.1,
        board_top,
        "{tag}: the sowing moved the board"
    );
    let th = rect(&page, "#turn").await?;
    assert_eq!(
        th.3 - th.1,
        turn_h.3 - turn_h.1,
        "{tag}: the status line changed height"
    );

    // b2's 2 seeds went to b3 and b4 (B's own: no capture). A may offer
    // a1 to B, who has 26 captured seeds to pay with.
    click(&page, "#offer-btn").await?;
    wait_shown(&page, "offer-panel", "the offer panel", 5).await?;
    assert_eq!(
        rect(&page, "svg.board").await?.1,
        board_top,
        "{tag}: the offer panel moved the board"
    );
    click(&page, ".hole[data-hole=a1]").await?;
    wait_enabled(&page, "send-offer-btn", "an offer that may be sent", 5).await?;
    in_view(&page, "#send-offer-btn", &format!("{tag}: Send")).await?;
    shot(&page, &format!("g11-offer-panel-{tag}")).await?;

    // The end: B sows b4 (3 seeds: a1 a2 a3), every hole at most 2.
    let g = create(
        &page,
        "{mode: 'local', start: '1,1,0,0/0,0,0,3 AAAA/BBBB 12-31 B -'}",
    )
    .await?;
    open(&page, server, g["url"].as_str().unwrap()).await?;
    click(&page, ".hole[data-hole=b4]").await?;
    wait_shown(&page, "result", "the result", 15).await?;
    in_view(&page, "svg.board", &format!("{tag}: the board at the end")).await?;
    in_view(
        &page,
        "#result-headline",
        &format!("{tag}: the winner line"),
    )
    .await?;
    in_view(&page, "#review-prev", &format!("{tag}: the step buttons")).await?;
    in_view(&page, "#review-first", &format!("{tag}: the step buttons")).await?;
    shot(&page, &format!("g12-end-{tag}")).await?;
    Ok(())
}

// -------------------------------------------------------- points 4, 5 --

#[test]
fn markers_contrast_and_keyboard() {
    let Some(exe) = browser_or_skip("markers_contrast_and_keyboard") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = Server::start();
        let chrome = Chrome::launch(&exe, 1100, 900).await.unwrap();
        let r = contrast_keyboard(&chrome, &server).await;
        chrome.close().await;
        r.unwrap();
    });
}

async fn contrast_keyboard(chrome: &Chrome, server: &Server) -> Res<()> {
    let page = blank(chrome, server, "en").await?;
    // B sows b2 (2 seeds: b3 b4, B's own, no capture), the last-sown
    // marker; then A may sow a1 a3 a4 (a2 is empty), or offer (B has 13).
    let g = create(
        &page,
        "{mode: 'local', start: '3,0,2,4/2,2,5,7 AAAA/BBBB 10-13 B -'}",
    )
    .await?;
    open(&page, server, g["url"].as_str().unwrap()).await?;
    click(&page, ".hole[data-hole=b2]").await?;
    wait_for(
        &page,
        "document.getElementById('game-page').dataset.ply === '1' && document.querySelector('.hole.origin')",
        "b2 sown",
        10,
    )
    .await?;
    let legal = view(&page).await?.holes;
    assert_eq!(legal, ["a1", "a3", "a4"]);

    // Tab through the page: the board is one stop, "Home" one link.
    let mut stops = Vec::new();
    for _ in 0..60 {
        key(&page, "Tab").await?;
        let f = focused(&page).await?;
        if stops.first() == Some(&f) {
            break;
        }
        stops.push(f);
    }
    let holes: Vec<&String> = stops.iter().filter(|s| s.starts_with("hole:")).collect();
    assert_eq!(holes, [&"hole:a1".to_string()], "tab stops: {stops:?}");
    let homes = js(
        &page,
        "[...document.querySelectorAll('a')].filter(a => a.textContent.trim() === 'Home').length",
    )
    .await?;
    assert_eq!(homes, Value::from(1), "one Home link");

    // Arrows move among the playable holes only (a2 is skipped), wrapping.
    page.find_element(".hole[data-hole=a1]")
        .await?
        .focus()
        .await?;
    for want in ["a3", "a4", "a1", "a4"] {
        let k = if want == "a4" && focused(&page).await? == "hole:a1" {
            "ArrowLeft"
        } else {
            "ArrowRight"
        };
        key(&page, k).await?;
        assert_eq!(focused(&page).await?, format!("hole:{want}"), "after {k}");
    }
    // The focused hole is the one Tab comes back to.
    assert_eq!(
        js(
            &page,
            "document.querySelector('.hole[data-hole=a4]').getAttribute('tabindex')"
        )
        .await?,
        Value::String("0".into())
    );
    shot(&page, "g20-focus-a4").await?;

    // Colours: each ring at least 3:1 against the wood, the focus ring 3:1
    // against the last-sown marker and the playable ring.
    let c = js(
        &page,
        &format!(
            "return (() => {{ {CONTRAST_JS}
            const wood = getComputedStyle(document.querySelector('.board-wood')).fill;
            const ring = (h) => getComputedStyle(document.querySelector(`.hole[data-hole=${{h}}] .hole-ring`));
            const focus = ring('a4').stroke;
            const legal = ring('a3').stroke;
            const origin = ring('b2').stroke;
            return {{ wood, focus, legal, origin,
                focusWood: ratio(focus, wood), legalWood: ratio(legal, wood), originWood: ratio(origin, wood),
                focusOrigin: ratio(focus, origin), focusLegal: ratio(focus, legal),
                legalDash: ring('a3').strokeDasharray, originDash: ring('b2').strokeDasharray, focusDash: ring('a4').strokeDasharray }};
            }})()"
        ),
    )
    .await?;
    for k in [
        "focusWood",
        "legalWood",
        "originWood",
        "focusOrigin",
        "focusLegal",
    ] {
        assert!(c[k].as_f64().unwrap_or(0.0) >= 3.0, "{k} below 3:1: {c}");
    }
    // The playable ring and the last-sown marker differ in form (dashes, dots).
    assert_ne!(c["legalDash"], c["originDash"], "{c}");
    assert_eq!(c["focusDash"], Value::String("none".into()), "{c}");

    // Hover: the playable ring turns solid; the hovered "Decline anyway"
    // keeps 4.5:1 for its text.
    page.find_element(".hole[data-hole=a3]")
        .await?
        .hover()
        .await?;
    let dash = js(&page, "getComputedStyle(document.querySelector('.hole[data-hole=a3] .hole-ring')).strokeDasharray").await?;
    assert_eq!(dash, Value::String("none".into()), "hovered ring");

    // Escape leaves offer mode, the focus back on "Offer holes…".
    click(&page, "#offer-btn").await?;
    wait_data(&page, "game-page", "mode", "offer", "offer mode", 5).await?;
    key(&page, "Escape").await?;
    wait_for(
        &page,
        "document.getElementById('game-page').dataset.mode === 'play' && document.activeElement && document.activeElement.id === 'offer-btn'",
        "Escape: back to play, focus on Offer holes…",
        5,
    )
    .await?;

    // "Offer holes…": the focus goes to the first hole that may be offered.
    click(&page, "#offer-btn").await?;
    wait_data(&page, "game-page", "mode", "offer", "offer mode", 5).await?;
    assert_eq!(focused(&page).await?, "hole:a1", "focus after Offer holes…");
    assert_eq!(
        text(&page, "#turn").await?,
        "A: Choose 1 to 3 of your holes to offer, then send the offer."
    );
    key(&page, "Enter").await?;
    wait_enabled(&page, "send-offer-btn", "a1 chosen", 5).await?;
    // Still on the board, so the next hole is one arrow away.
    assert_eq!(focused(&page).await?, "hole:a1");
    click(&page, "#send-offer-btn").await?;
    wait_id(&page, "decline-btn", "the offer to answer", 10).await?;
    click(&page, "#decline-btn").await?;
    wait_id(&page, "confirm-decline-btn", "the warning", 5).await?;
    page.find_element("#confirm-decline-btn")
        .await?
        .hover()
        .await?;
    let hov = js(
        &page,
        &format!(
            "return (() => {{ {CONTRAST_JS} const s = getComputedStyle(document.getElementById('confirm-decline-btn')); return [s.color, s.backgroundColor, ratio(s.color, s.backgroundColor)]; }})()"
        ),
    )
    .await?;
    assert!(
        hov[2].as_f64().unwrap_or(0.0) >= 4.5,
        "hovered Decline anyway: {hov}"
    );
    shot(&page, "g21-decline-hover").await?;
    Ok(())
}

// -------------------------------------------------------- points 6, 8 --

#[test]
fn words_and_move_list() {
    let Some(exe) = browser_or_skip("words_and_move_list") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let mut server = Server::start();
        let chrome = Chrome::launch(&exe, 1100, 900).await.unwrap();
        let r = words(&chrome, &mut server).await;
        chrome.close().await;
        r.unwrap();
    });
}

async fn words(chrome: &Chrome, server: &mut Server) -> Res<()> {
    let page = blank(chrome, server, "en").await?;
    // No offer possible (B has 4 captured, less than 6): no "…or offer holes".
    let g = create(
        &page,
        "{mode: 'local', start: '6,6,6,6/6,6,6,2 AAAA/BBBB 0-4 A -'}",
    )
    .await?;
    open(&page, server, g["url"].as_str().unwrap()).await?;
    assert_eq!(text(&page, "#turn").await?, "A: choose a hole to sow.");
    assert!(js(&page, "!document.getElementById('offer-btn')").await? == Value::Bool(true));

    // A repetition: A (3 seeds in a1) offers a2, B declines and must pass
    // (B's holes are empty); twice more the same, and the position (A to
    // move, no offer) has come a third time. Sweep: A's a1 gives A 3.
    let g = create(
        &page,
        "{mode: 'local', start: '3,0,0,0/0,0,0,0 AAAA/BBBB 20-25 A -'}",
    )
    .await?;
    open(&page, server, g["url"].as_str().unwrap()).await?;
    for round in 0..2 {
        click(&page, "#offer-btn").await?;
        click(&page, ".hole[data-hole=a2]").await?;
        wait_enabled(&page, "send-offer-btn", "a2 chosen", 5).await?;
        click(&page, "#send-offer-btn").await?;
        wait_id(&page, "decline-btn", "the offer", 10).await?;
        click(&page, "#decline-btn").await?;
        click(&page, "#confirm-decline-btn").await?;
        wait_id(&page, "pass-btn", "B's pass", 10).await?;
        if round == 0 {
            // A has 20 captured: B may pass or offer, and is told both.
            assert_eq!(
                text(&page, "#turn").await?,
                "B: All your holes are empty: pass (or offer holes)."
            );
            let notice = text(&page, "#notice").await?;
            assert!(notice.starts_with("B declined the offer of A."), "{notice}");
        }
        click(&page, "#pass-btn").await?;
        wait_for(
            &page,
            &format!("document.getElementById('game-page').dataset.ply === '{}' && document.getElementById('game-page').dataset.busy === '0'", 3 * (round + 1)),
            "the round",
            10,
        )
        .await?;
    }
    assert_eq!(
        js(&page, "document.getElementById('game-page').dataset.status").await?,
        Value::String("over".into()),
        "the third occurrence ends the game"
    );
    let reason = text(&page, "#result-reason").await?;
    assert!(reason.contains("came up for the third time"), "{reason}");
    assert!(reason.contains("the same seeds in every hole"), "{reason}");
    assert!(reason.contains("A took 3 seeds and B took 0"), "{reason}");
    assert_eq!(text(&page, "#final-score").await?, "A 23 – 25 B");
    // The move list speaks English; the notation is in the title.
    let moves = js(
        &page,
        "[...document.querySelectorAll('#moves .tok')].map(t => t.textContent).join('|')",
    )
    .await?;
    assert_eq!(
        moves,
        Value::String("offers a2|declines|passes|offers a2|declines|passes".into())
    );
    let title = js(
        &page,
        "document.querySelector('#moves li[data-ply=\"1\"] button').title",
    )
    .await?;
    assert!(
        title
            .as_str()
            .unwrap_or_default()
            .starts_with("offer:a2 — "),
        "{title}"
    );
    // The review: B's decline shows only from its move on.
    js(&page, "document.getElementById('review-first').click()").await?;
    wait_text(&page, "review-label", "Start position", "the start", 5).await?;
    assert!(
        text(&page, "#player-B").await?.find("declined").is_none(),
        "no decline at the start"
    );
    js(&page, "document.getElementById('review-next').click()").await?;
    js(&page, "document.getElementById('review-next').click()").await?;
    wait_text_starts(&page, "review-label", "Move 2 of 6", "move 2", 5).await?;
    assert_eq!(
        text(&page, "#review-label").await?,
        "Move 2 of 6: B declines"
    );
    assert!(text(&page, "#player-B")
        .await?
        .contains("declined an offer"));
    shot(&page, "g30-repetition-en").await?;
    // In French.
    set_value(&page, "lang-select", "fr").await?;
    wait_for(
        &page,
        "document.documentElement.lang === 'fr' && document.querySelector('#moves .tok')",
        "French",
        10,
    )
    .await?;
    let moves = js(
        &page,
        "[...document.querySelectorAll('#moves .tok')].map(t => t.textContent).join('|')",
    )
    .await?;
    assert_eq!(
        moves,
        Value::String("offre a2|refuse|passe|offre a2|refuse|passe".into())
    );
    shot(&page, "g31-repetition-fr").await?;

    // The final sweep is named, with who gets what (slow, to read it).
    js(
        &page,
        "localStorage.setItem('gore.animation', 'slow'); localStorage.setItem('gore.lang', 'en')",
    )
    .await?;
    let g = create(
        &page,
        "{mode: 'local', start: '1,1,0,0/0,0,0,3 AAAA/BBBB 12-31 B -'}",
    )
    .await?;
    open(&page, server, g["url"].as_str().unwrap()).await?;
    click(&page, ".hole[data-hole=b4]").await?;
    wait_el(&page, ".hole.flash-sweep", "the sweep", 15).await?;
    // b4's 3 seeds: a1 a2 a3 → 2,2,1,0: A controls them all, 5 seeds.
    assert_eq!(
        text(&page, "#turn").await?,
        "The end: the seeds left go to whoever controls their hole (A gets 5, B gets 0)."
    );
    wait_shown(&page, "result", "the result", 15).await?;

    // The AI declines an offer: the page says so, after its next sowing
    // too. Honourable off, level 1; B (the AI) has 30 captured, so A may
    // offer, and an AI of level 1 may accept or decline: either is said.
    js(&page, "localStorage.setItem('gore.animation', 'off')").await?;
    let g = create(
        &page,
        "{mode: 'ai', level: 1, colour: 'A', start: '2,3,1,4/2,1,3,2 AAAA/BBBB 0-30 A -'}",
    )
    .await?;
    open(&page, server, g["url"].as_str().unwrap()).await?;
    click(&page, "#offer-btn").await?;
    click(&page, ".hole[data-hole=a1]").await?;
    wait_enabled(&page, "send-offer-btn", "a1 chosen", 5).await?;
    click(&page, "#send-offer-btn").await?;
    wait_for(
        &page,
        "Number(document.getElementById('game-page').dataset.ply) >= 3 && document.getElementById('game-page').dataset.busy === '0'",
        "the AI's answer and its turn",
        30,
    )
    .await?;
    let answer = js(
        &page,
        "document.querySelector('#moves li[data-ply=\"2\"] .tok').dataset.action",
    )
    .await?;
    let notice = text(&page, "#notice").await?;
    if answer == Value::String("decline".into()) {
        assert!(notice.contains("B declined the offer of A."), "{notice}");
        assert!(notice.contains("victory without glory"), "{notice}");
    } else {
        assert!(notice.contains("B accepted the offer"), "{notice}");
    }
    shot(&page, "g32-ai-answer").await?;

    // A lost connection, said in Basque; the holes wait for it.
    js(&page, "localStorage.setItem('gore.lang', 'eu')").await?;
    let g = create(&page, "{mode: 'local'}").await?;
    open(&page, server, g["url"].as_str().unwrap()).await?;
    assert_eq!(view(&page).await?.holes.len(), 4);
    server.stop();
    wait_for(
        &page,
        "document.querySelectorAll('.hole[aria-disabled=\"false\"]').length === 0",
        "the holes still",
        30,
    )
    .await?;
    assert_eq!(
        text(&page, "#turn").await?,
        "Zerbitzariarekiko konexioa galdu da: itxaron itzuli arte jokatzeko."
    );
    shot(&page, "g33-offline-eu").await?;
    server.restart();
    wait_for(
        &page,
        "document.querySelectorAll('.hole[aria-disabled=\"false\"]').length === 4",
        "the holes back",
        40,
    )
    .await?;
    Ok(())
}

// ------------------------------------------------------ points 16, 17 --

#[test]
fn sound_title_and_dark_mode() {
    let Some(exe) = browser_or_skip("sound_title_and_dark_mode") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = Server::start();
        let chrome = Chrome::launch(&exe, 1600, 1000).await.unwrap();
        let r = sound_dark(&chrome, &server).await;
        chrome.close().await;
        r.unwrap();
    });
}

async fn sound_dark(chrome: &Chrome, server: &Server) -> Res<()> {
    let page = blank(chrome, server, "en").await?;
    js(&page, "localStorage.setItem('gore.animation', 'fast')").await?;
    let g = create(&page, "{mode: 'local'}").await?;
    let url = g["url"].as_str().unwrap().to_string();
    open(&page, server, &url).await?;
    // Off by default: a sowing plays nothing.
    assert!(js(&page, "document.getElementById('sound-on').checked").await? == Value::Bool(false));
    assert!(js(&page, "document.title")
        .await?
        .as_str()
        .unwrap_or_default()
        .starts_with("● "));
    click(&page, ".hole[data-hole=a1]").await?;
    wait_for(&page, "document.getElementById('game-page').dataset.ply === '1' && document.getElementById('game-page').dataset.busy === '0'", "a1", 10).await?;
    assert_eq!(js(&page, "window.goreSounds.length").await?, Value::from(0));
    // On, remembered across a reload; then a sowing sounds, and the turn.
    js(
        &page,
        "document.querySelector('details.settings').open = true",
    )
    .await?;
    click(&page, "#sound-on").await?;
    page.reload().await?;
    wait_id(&page, "sound-on", "the page again", 20).await?;
    live(&page).await?;
    assert!(js(&page, "document.getElementById('sound-on').checked").await? == Value::Bool(true));
    click(&page, ".hole[data-hole=b1]").await?;
    wait_for(&page, "document.getElementById('game-page').dataset.ply === '2' && document.getElementById('game-page').dataset.busy === '0'", "b1", 10).await?;
    let sounds = js(&page, "window.goreSounds.join(',')").await?;
    let s = sounds.as_str().unwrap_or_default();
    assert!(s.starts_with("sow") && s.ends_with("turn"), "{s}");

    // A notification when the turn comes back while the page is hidden:
    // the browser's Notification and visibility stood in for (headless
    // Chromium shows neither), the player's choice remembered as "on".
    page.evaluate_on_new_document(
        "(() => { window.__notes = []; window.Notification = class { constructor(t, o) { window.__notes.push(o.body); } close() {} }; window.Notification.permission = 'granted'; window.Notification.requestPermission = async () => 'granted'; Object.defineProperty(document, 'hidden', { get: () => !!window.__hidden }); })()",
    )
    .await?;
    js(&page, "localStorage.setItem('gore.notify', 'on')").await?;
    let ai = create(&page, "{mode: 'ai', level: 1, colour: 'A'}").await?;
    open(&page, server, ai["url"].as_str().unwrap()).await?;
    wait_for(
        &page,
        "document.querySelectorAll('.hole[aria-disabled=\"false\"]').length === 4",
        "A's turn",
        20,
    )
    .await?;
    js(&page, "window.__hidden = true").await?;
    click(&page, ".hole[data-hole=a1]").await?;
    ply_is(&page, 2, "a1 and the computer's reply").await?;
    wait_for(&page, "window.__notes.length === 1", "the notification", 10).await?;
    assert_eq!(
        js(&page, "window.__notes[0]").await?,
        Value::String("It is your turn to play.".into())
    );
    assert!(js(&page, "document.title")
        .await?
        .as_str()
        .unwrap_or_default()
        .starts_with("● "));
    js(&page, "window.__hidden = false").await?;
    open(&page, server, &url).await?;

    // A large screen: the board larger than the old 760 px, all of it on the screen.
    let (l, t, r, b) = rect(&page, "svg.board").await?;
    assert!(
        r - l > 800.0,
        "the board on a 1600 px screen is {} px wide",
        r - l
    );
    assert!(
        t >= 0.0 && b <= 1000.0,
        "the board is on the screen: {t}..{b}"
    );
    shot(&page, "g40-large-light").await?;

    // Dark mode follows the system: a dark page, text still 4.5:1, the board wood.
    page.emulate_media_features(vec![
        chromiumoxide::cdp::browser_protocol::emulation::MediaFeature::new(
            "prefers-color-scheme",
            "dark",
        ),
    ])
    .await?;
    let d = js(
        &page,
        &format!(
            "return (() => {{ {CONTRAST_JS}
            const body = getComputedStyle(document.body);
            const card = getComputedStyle(document.querySelector('.moves-card'));
            const tok = getComputedStyle(document.querySelector('#moves .tok-A'));
            const wood = getComputedStyle(document.querySelector('.board-wood')).fill;
            const ring = getComputedStyle(document.querySelector('.hole.legal .hole-ring')).stroke;
            const lang = getComputedStyle(document.querySelector('.lang-switch select'));
            return {{ bg: lum(body.backgroundColor), text: ratio(body.color, body.backgroundColor),
                lang: ratio(lang.color, lang.backgroundColor),
                cardText: ratio(card.color, card.backgroundColor), tok: ratio(tok.color, card.backgroundColor),
                ring: ratio(ring, wood) }};
            }})()"
        ),
    )
    .await?;
    assert!(d["bg"].as_f64().unwrap_or(1.0) < 0.05, "a dark page: {d}");
    // (The language switch was cream on cream here, once.)
    for k in ["text", "cardText", "tok", "lang"] {
        assert!(d[k].as_f64().unwrap_or(0.0) >= 4.5, "{k}: {d}");
    }
    assert!(d["ring"].as_f64().unwrap_or(0.0) >= 3.0, "ring: {d}");
    // Everything else axe checks, contrast included, holds in the dark too.
    assert_accessible(&page, "game-dark").await?;
    shot(&page, "g41-large-dark").await?;
    Ok(())
}

// ----------------------------------------------------------- point 15 --

#[test]
fn preview_of_a_sowing() {
    let Some(exe) = browser_or_skip("preview_of_a_sowing") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = Server::start();
        let chrome = Chrome::launch(&exe, 1100, 900).await.unwrap();
        let r = preview(&chrome, &server).await;
        chrome.close().await;
        r.unwrap();
    });
}

/// The holes marked by the preview: (hole, its "+n") and the capture marks.
async fn marked(page: &Page) -> Res<(Vec<String>, Vec<String>)> {
    let v = js(
        page,
        "[[...document.querySelectorAll('.hole.pv-drop')].map(h => h.dataset.hole + h.querySelector('.pv').textContent), [...document.querySelectorAll('.hole.pv-capture')].map(h => h.dataset.hole)]",
    )
    .await?;
    Ok(serde_json::from_value(v)?)
}

async fn preview(chrome: &Chrome, server: &Server) -> Res<()> {
    let page = blank(chrome, server, "en").await?;
    // RULES.md's first worked example with 9 seeds in b4: B sows b2 (4
    // seeds: b3 b4 a1 a2) and takes a2=4, then a1=2 backward; b4 (now 10)
    // stops the chain, a3=1 forward. b1 (3 seeds: b2 b3 b4) lands on B's
    // own b4: no capture. b4's 9 seeds make a lap: a1 gets 2, b4 itself 1.
    let g = create(
        &page,
        "{mode: 'local', start: '1,3,1,5/3,4,2,9 AAAA/BBBB 10-10 B -'}",
    )
    .await?;
    open(&page, server, g["url"].as_str().unwrap()).await?;
    assert_eq!(marked(&page).await?, (vec![], vec![]));
    page.find_element(".hole[data-hole=b2]")
        .await?
        .hover()
        .await?;
    wait_el(&page, ".hole.pv-drop", "the preview", 5).await?;
    let (drops, caps) = marked(&page).await?;
    assert_eq!(drops, ["a1+1", "a2+1", "b3+1", "b4+1"]);
    assert_eq!(caps, ["a1", "a2"]);
    shot(&page, "g50-preview-b2").await?;
    // The keyboard shows it too.
    page.find_element(".hole[data-hole=b1]")
        .await?
        .focus()
        .await?;
    page.find_element("#game-title").await?.hover().await?;
    wait_count(&page, ".hole.pv-drop", 3, "b1's preview", 5).await?;
    assert_eq!(
        marked(&page).await?,
        (vec!["b2+1".into(), "b3+1".into(), "b4+1".into()], vec![])
    );
    page.find_element(".hole[data-hole=b4]")
        .await?
        .focus()
        .await?;
    wait_count(&page, ".hole.pv-drop", 8, "b4's preview", 5).await?;
    let (drops, caps) = marked(&page).await?;
    assert_eq!(
        drops,
        ["a1+2", "a2+1", "a3+1", "a4+1", "b1+1", "b2+1", "b3+1", "b4+1"]
    );
    // b4's 9 seeds: a1 a2 a3 a4 b1 b2 b3 b4 a1; the last lands on a1 (1+2=3): no capture.
    assert!(caps.is_empty(), "{caps:?}");
    // Gone once the hole is played.
    key(&page, "Enter").await?;
    wait_for(&page, "document.getElementById('game-page').dataset.ply === '1' && document.getElementById('game-page').dataset.busy === '0'", "b4 sown", 10).await?;
    let counts = js(
        &page,
        "[...document.querySelectorAll('.hole .count')].map(c => c.textContent).join(',')",
    )
    .await?;
    assert_eq!(counts, Value::String("3,4,2,6/4,5,3,1".replace('/', ",")));
    Ok(())
}

// -------------------------------------------------------- axe-core --

#[test]
fn game_and_review_pass_axe() {
    let Some(exe) = browser_or_skip("game_and_review_pass_axe") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = Server::start();
        let chrome = Chrome::launch(&exe, 1100, 900).await.unwrap();
        let r = accessible(&chrome, &server).await;
        chrome.close().await;
        r.unwrap();
    });
}

async fn accessible(chrome: &Chrome, server: &Server) -> Res<()> {
    for lang in ["en", "eu"] {
        let page = blank(chrome, server, lang).await?;
        // Mid-game, an offer pending (B must answer A's offer of a1).
        let g = create(
            &page,
            "{mode: 'local', start: '1,1,0,3/0,2,0,3 AAAA/BBBB 12-26 B a1'}",
        )
        .await?;
        open(&page, server, g["url"].as_str().unwrap()).await?;
        // (Once the box's entrance, which fades it in, is over.)
        wait_for(
            &page,
            "document.getElementById('accept-btn') && document.getElementById('incoming-offer').getAnimations().every(a => a.playState === 'finished')",
            "the offer",
            10,
        )
        .await?;
        assert_accessible(&page, &format!("game-offer-{lang}")).await?;
        // The offer panel of one's own offer, and the warning of a decline.
        click(&page, "#decline-btn").await?;
        wait_id(&page, "glory-warning", "the warning", 5).await?;
        assert_accessible(&page, &format!("game-warning-{lang}")).await?;
        // The review of a finished game.
        let g = create(
            &page,
            "{mode: 'local', start: '1,1,0,0/0,0,0,3 AAAA/BBBB 12-31 B -'}",
        )
        .await?;
        open(&page, server, g["url"].as_str().unwrap()).await?;
        click(&page, ".hole[data-hole=b4]").await?;
        wait_shown(&page, "result", "the result", 15).await?;
        js(&page, "document.getElementById('review-prev').click()").await?;
        assert_accessible(&page, &format!("review-{lang}")).await?;
        let _ = page.close().await;
    }
    Ok(())
}
// ----------------------------------------------------------- point 14 --

#[test]
fn resign_and_takeback() {
    let Some(exe) = browser_or_skip("resign_and_takeback") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = Server::start();
        let host = Chrome::launch(&exe, 1100, 900).await.unwrap();
        let guest = Chrome::launch(&exe, 360, 740).await.unwrap();
        let r = resign_takeback(&host, &guest, &server).await;
        host.close().await;
        guest.close().await;
        r.unwrap();
    });
}

async fn counts(page: &Page) -> Res<String> {
    let v = js(
        page,
        "[...document.querySelectorAll('.hole .count')].map(c => c.textContent).join(',')",
    )
    .await?;
    Ok(v.as_str().unwrap_or_default().to_string())
}

async fn resign_takeback(host: &Chrome, guest: &Chrome, server: &Server) -> Res<()> {
    let page = blank(host, server, "en").await?;
    // One device: a1 then a takeback, the board back to the start.
    let g = create(&page, "{mode: 'local'}").await?;
    open(&page, server, g["url"].as_str().unwrap()).await?;
    assert!(
        js(&page, "!document.getElementById('takeback-btn')").await? == Value::Bool(true),
        "nothing to take back yet"
    );
    click(&page, ".hole[data-hole=a1]").await?;
    ply_is(&page, 1, "a1").await?;
    // a1's 6 seeds: a2 a3 a4 b1 b2 b3.
    assert_eq!(counts(&page).await?, "0,7,7,7,7,7,7,6");
    click(&page, "#takeback-btn").await?;
    ply_is(&page, 0, "the takeback").await?;
    assert_eq!(counts(&page).await?, "6,6,6,6,6,6,6,6");
    assert_eq!(view(&page).await?.holes, ["a1", "a2", "a3", "a4"]);

    // Resign, with a confirmation: "Keep playing" changes nothing.
    click(&page, "#resign-btn").await?;
    wait_id(&page, "resign-yes", "the confirmation", 5).await?;
    click(&page, "#resign-no").await?;
    wait_id(&page, "resign-btn", "back", 5).await?;
    assert_eq!(
        js(&page, "document.getElementById('game-page').dataset.status").await?,
        Value::String("playing".into())
    );
    click(&page, "#resign-btn").await?;
    click(&page, "#resign-yes").await?;
    wait_shown(&page, "result", "the result", 10).await?;
    // A (to move) resigned: B wins, the seeds not swept.
    assert_eq!(text(&page, "#final-score").await?, "A 0 – 0 B");
    assert_eq!(text(&page, "#result-headline").await?, "B wins.");
    assert_eq!(
        text(&page, "#result-reason").await?,
        "The game ended because A resigned."
    );
    shot(&page, "g60-resigned").await?;

    // Against the computer: the takeback undoes the AI's reply too.
    let g = create(&page, "{mode: 'ai', level: 1, colour: 'A'}").await?;
    open(&page, server, g["url"].as_str().unwrap()).await?;
    click(&page, ".hole[data-hole=a2]").await?;
    ply_is(&page, 2, "a2 and the AI's reply").await?;
    click(&page, "#takeback-btn").await?;
    ply_is(&page, 0, "back to the start").await?;
    assert_eq!(counts(&page).await?, "6,6,6,6,6,6,6,6");

    // Between friends: a request the opponent grants.
    let g = create(&page, "{mode: 'friend', colour: 'A'}").await?;
    let invite = g["invite"].as_str().unwrap().to_string();
    let url = g["url"].as_str().unwrap().to_string();
    let other = guest.page(&format!("{}{invite}", server.url)).await?;
    wait_id(&other, "join-btn", "the invitation", 20).await?;
    click(&other, "#join-btn").await?;
    wait_id(&other, "game-page", "the guest's game", 20).await?;
    live(&other).await?;
    open(&page, server, &url).await?;
    click(&page, ".hole[data-hole=a3]").await?;
    ply_is(&page, 1, "a3").await?;
    ply_is(&other, 1, "a3 seen by B").await?;
    click(&page, "#takeback-btn").await?;
    wait_id(&page, "takeback-waiting", "the request sent", 10).await?;
    wait_id(&other, "takeback-yes", "the request received", 10).await?;
    assert_eq!(
        text(&other, "#takeback-asked")
            .await?
            .split("Allow")
            .next()
            .unwrap_or_default(),
        "A asks to take back their last move."
    );
    shot(&other, "g61-takeback-asked-phone").await?;
    click(&other, "#takeback-yes").await?;
    ply_is(&page, 0, "the takeback granted").await?;
    ply_is(&other, 0, "the takeback granted, B's page").await?;
    assert_eq!(view(&page).await?.holes, ["a1", "a2", "a3", "a4"]);
    // Asked again and refused: A is told, the move stays.
    click(&page, ".hole[data-hole=a3]").await?;
    ply_is(&page, 1, "a3 again").await?;
    ply_is(&other, 1, "a3 again, B's page").await?;
    click(&page, "#takeback-btn").await?;
    wait_id(&other, "takeback-no", "the second request", 10).await?;
    click(&other, "#takeback-no").await?;
    wait_for(
        &page,
        "!document.getElementById('toast').hidden && document.getElementById('toast').textContent === 'Your takeback request was refused.'",
        "the refusal told",
        10,
    )
    .await?;
    ply_is(&page, 1, "the move kept").await?;
    Ok(())
}
