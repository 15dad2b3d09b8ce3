//! Berserk in an arena game, in the browser (issue 29): two accounts, one
//! on a phone in Spanish, the other on a desktop in English, paired in an
//! arena. Before his first action each sees the Berserk button; the phone
//! presses it and its clock shows half the base (3+2: 1:30), the mark
//! by its name, the button gone; the desktop's page shows the same (its
//! own clock whole, its own button still there), and so does a
//! spectator's phone held sideways, in French. Ana then wins with 5
//! actions of her own: the standings show her berserk point in both
//! languages. Light and dark, axe-clean.

#[allow(unused_imports)] // the shared helpers re-export more than this file uses
mod browser_support;
use browser_support::*;

#[test]
fn berserk_in_an_arena_game_halves_the_clock() {
    let Some(exe) = browser_or_skip("berserk_in_an_arena_game_halves_the_clock") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = start_server_with(&[]);
        let phone = Chrome::launch(&exe, 360, 740).await.unwrap();
        let desk = Chrome::launch(&exe, 1366, 768).await.unwrap();
        let side = Chrome::launch(&exe, 740, 360).await.unwrap();
        let r = berserk(&phone, &desk, &side, &server).await;
        phone.close().await;
        desk.close().await;
        side.close().await;
        r.unwrap();
    });
}

/// The system's colour scheme.
async fn scheme(page: &Page, dark: bool) -> Res<()> {
    use chromiumoxide::cdp::browser_protocol::emulation::MediaFeature;
    page.emulate_media_features(vec![MediaFeature::new(
        "prefers-color-scheme",
        if dark { "dark" } else { "light" },
    )])
    .await?;
    Ok(())
}

/// A browser in `lang`, signed up as `name` (none: a visitor).
async fn browser_in(chrome: &Chrome, server: &Server, lang: &str, name: Option<&str>) -> Res<Page> {
    let page = chrome.page(&format!("{}/rules", server.url)).await?;
    js(
        &page,
        &format!("localStorage.setItem('gore.lang', '{lang}'); localStorage.setItem('gore.animation', 'off')"),
    )
    .await?;
    if let Some(name) = name {
        let r = js(
            &page,
            &format!(
                "fetch('/api/account/signup', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify({{username: {name:?}, password: 'a long passphrase'}})}}).then(r => r.status)"
            ),
        )
        .await?;
        assert!(r.as_u64().is_some_and(|s| s < 300), "sign up {name}: {r}");
    }
    Ok(page)
}

/// Nothing is wider than the screen; both schemes pass axe-core;
/// screenshots of each.
async fn look(page: &Page, name: &str) -> Res<()> {
    let wide = js(
        page,
        "document.documentElement.scrollWidth - document.documentElement.clientWidth",
    )
    .await?;
    assert_eq!(wide.as_i64(), Some(0), "{name}: wider than the screen");
    for dark in [false, true] {
        scheme(page, dark).await?;
        assert_accessible(page, name).await?;
        shot(
            page,
            &format!("{name}-{}", if dark { "dark" } else { "light" }),
        )
        .await?;
    }
    scheme(page, false).await
}

/// `POST path` (an empty JSON body) from this page: whether it went through.
async fn post(page: &Page, path: &str) -> Res<bool> {
    let ok = js(
        page,
        &format!("fetch('{path}', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: '{{}}'}}).then(r => r.ok)"),
    )
    .await?;
    Ok(ok == serde_json::Value::Bool(true))
}

/// The player's clock box `p` shows `want` and the box's layout is inside
/// the screen.
fn clock_shows(p: &str, want: &str) -> String {
    format!(
        "(() => {{ const c = document.getElementById('clock-{p}'); if (!c) return false; \
         const r = c.getBoundingClientRect(); \
         return c.textContent === '{want}' && r.width > 0 && r.right <= document.documentElement.clientWidth; }})()"
    )
}

async fn berserk(phone: &Chrome, desk: &Chrome, side: &Chrome, server: &Server) -> Res<()> {
    let p = browser_in(phone, server, "es", Some("Ana")).await?;
    let d = browser_in(desk, server, "en", Some("Bea")).await?;
    let id = js(
        &p,
        "fetch('/api/tournaments', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({name: 'Berserk', clock: '3+2', minutes: 30, rated: false})}).then(r => r.json()).then(v => v.id)",
    )
    .await?;
    let id = id.as_str().ok_or("no arena")?.to_string();
    for page in [&p, &d] {
        assert!(post(page, &format!("/api/tournaments/{id}/join")).await?);
    }
    for page in [&p, &d] {
        visit(page, format!("{}/tournament/{id}", server.url)).await?;
        wait_id(page, "tour-my-game", "paired", 30).await?;
        click(page, "#tour-my-game").await?;
        wait_page(page, "/g/", "berserk-btn", "the game's Berserk button", 30).await?;
    }
    let game = js(&p, "location.pathname.slice(3)").await?;
    let game = game.as_str().ok_or("no game")?.to_string();
    let you = js(
        &p,
        &format!("fetch('/api/games/{game}').then(r => r.json()).then(g => g.you)"),
    )
    .await?;
    let ana = you.as_str().ok_or("no seat")?.to_string();
    let bea = if ana == "A" { "B" } else { "A" };

    // Before: the button, its hint in each language, both clocks whole.
    assert_eq!(text(&p, "#berserk-btn").await?, "Berserk");
    let hint = js(&p, "document.getElementById('berserk-btn').title").await?;
    assert!(
        hint.as_str()
            .is_some_and(|h| h.starts_with("Reduce tu reloj a la mitad")),
        "{hint}"
    );
    let hint = js(&d, "document.getElementById('berserk-btn').title").await?;
    assert!(
        hint.as_str()
            .is_some_and(|h| h.starts_with("Halve your clock")),
        "{hint}"
    );
    wait_for(&p, &clock_shows(&ana, "3:00"), "Ana's whole clock", 20).await?;
    look(&p, "berserk-phone-es-before").await?;

    // The phone presses it: its clock halved, the mark, no button.
    click(&p, "#berserk-btn").await?;
    wait_for(
        &p,
        &format!(
            "!document.getElementById('berserk-btn') && document.getElementById('berserk-{ana}') && {}",
            clock_shows(&ana, "1:30")
        ),
        "Ana berserk on her page",
        20,
    )
    .await?;
    assert_eq!(text(&p, &format!("#clock-{bea}")).await?, "3:00");
    assert_eq!(text(&p, &format!("#berserk-{ana}")).await?, "Berserk");
    assert!(
        js(&p, &format!("!document.getElementById('berserk-{bea}')")).await?
            == serde_json::Value::Bool(true)
    );
    look(&p, "berserk-phone-es-after").await?;

    // The desktop sees it live; its own clock whole, its button still there.
    wait_for(
        &d,
        &format!(
            "document.getElementById('berserk-{ana}') && {} && {} && document.getElementById('berserk-btn')",
            clock_shows(&ana, "1:30"),
            clock_shows(bea, "3:00")
        ),
        "Ana's berserk on Bea's page",
        20,
    )
    .await?;
    look(&d, "berserk-desktop-en").await?;

    // A spectator's phone held sideways, in French: the mark and the halved
    // clock, no button.
    let s = browser_in(side, server, "fr", None).await?;
    visit(&s, format!("{}/g/{game}", server.url)).await?;
    wait_for(
        &s,
        &format!(
            "document.getElementById('berserk-{ana}') && {}",
            clock_shows(&ana, "1:30")
        ),
        "the spectator sees the berserk",
        20,
    )
    .await?;
    assert!(
        js(&s, "!document.getElementById('berserk-btn')").await? == serde_json::Value::Bool(true)
    );
    let title = js(
        &s,
        &format!("document.getElementById('berserk-{ana}').title"),
    )
    .await?;
    assert!(
        title
            .as_str()
            .is_some_and(|t| t.starts_with("Divisez votre pendule")),
        "{title}"
    );
    look(&s, "berserk-sideways-fr-spectator").await?;

    // Ana wins with 5 actions of her own (Bea resigns): 2 + 1 points, the
    // berserk point shown in the standings in both languages.
    let (mut mine, mut theirs) = (0, 0);
    for _ in 0..100 {
        if mine >= 5 && theirs > 0 {
            break;
        }
        if try_action(&p, &game).await? {
            mine += 1;
        } else if try_action(&d, &game).await? {
            theirs += 1;
        }
    }
    assert_eq!(mine, 5, "Ana's actions");
    assert!(post(&d, &format!("/api/games/{game}/resign")).await?);
    for page in [&p, &d] {
        visit(page, format!("{}/tournament/{id}", server.url)).await?;
        wait_for(
            page,
            "[...document.querySelectorAll('#tour-standings tbody tr')].some(tr => tr.cells[1].textContent.startsWith('Ana') && tr.cells[2].textContent.trim().startsWith('3') && tr.cells[2].querySelector('.berserk-points'))",
            "Ana's 3 points with the berserk point",
            30,
        )
        .await?;
    }
    assert_eq!(
        text(&p, "#tour-standings .berserk-points .sr-only").await?,
        "1 punto de berserk"
    );
    assert_eq!(
        text(&d, "#tour-standings .berserk-points .sr-only").await?,
        "1 berserk point"
    );
    look(&p, "berserk-standings-phone-es").await?;
    look(&d, "berserk-standings-desktop-en").await?;
    Ok(())
}

/// Tries `legal[0]` of game `id` as this browser's player: true if the
/// server took it (false: not his turn).
async fn try_action(page: &Page, id: &str) -> Res<bool> {
    let v = js(
        page,
        &format!(
            "fetch('/api/games/{id}').then(r => r.json()).then(g => g.legal.length === 0 ? false : \
             fetch('/api/games/{id}/actions', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify({{action: g.legal[0], ply: g.ply}})}}).then(r => r.ok))"
        ),
    )
    .await?;
    Ok(v == serde_json::Value::Bool(true))
}
