//! The arenas' pages in the browser (issue 29, point 3): two accounts, one
//! on a phone in Spanish, the other on a desktop in English. The first
//! creates an arena starting now from `/tournaments`, the second finds it
//! in the list and joins; both are told they are paired and reach their
//! game from the tournament page; after each has made one action the
//! creator resigns; both, on their finished game's page, are called to
//! their next game (the user socket) and one follows the call; the
//! standings show the winner's 2 points in both languages. Light and dark, axe-clean.

#[allow(unused_imports)] // the shared helpers re-export more than this file uses
mod browser_support;
use browser_support::*;

#[test]
fn two_accounts_play_an_arena_from_its_pages() {
    let Some(exe) = browser_or_skip("two_accounts_play_an_arena_from_its_pages") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = start_server_with(&[]);
        let phone = Chrome::launch(&exe, 360, 740).await.unwrap();
        let desk = Chrome::launch(&exe, 1366, 768).await.unwrap();
        let r = arena(&phone, &desk, &server).await;
        phone.close().await;
        desk.close().await;
        r.unwrap();
        let side = Chrome::launch(&exe, 740, 360).await.unwrap();
        let r = sideways(&side, &server).await;
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

/// A browser in `lang`, signed up as `name`.
async fn account(chrome: &Chrome, server: &Server, lang: &str, name: &str) -> Res<Page> {
    let page = chrome.page(&format!("{}/rules", server.url)).await?;
    js(
        &page,
        &format!("localStorage.setItem('gore.lang', '{lang}'); localStorage.setItem('gore.animation', 'off')"),
    )
    .await?;
    let r = js(
        &page,
        &format!(
            "fetch('/api/account/signup', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify({{username: {name:?}, password: 'a long passphrase'}})}}).then(r => r.status)"
        ),
    )
    .await?;
    assert!(r.as_u64().is_some_and(|s| s < 300), "sign up {name}: {r}");
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

/// The standings' line of `name` shows `score` points.
fn scored(name: &str, score: u32) -> String {
    format!(
        "[...document.querySelectorAll('#tour-standings tbody tr')].some(tr => tr.cells[1].querySelector('a').textContent === {name:?} && tr.cells[2].textContent.trim().startsWith('{score}'))"
    )
}

async fn arena(phone: &Chrome, desk: &Chrome, server: &Server) -> Res<()> {
    let p = account(phone, server, "es", "Ana").await?;
    let d = account(desk, server, "en", "Bea").await?;

    // The phone finds the list through the menu, in Spanish.
    visit(&p, format!("{}/", server.url)).await?;
    wait_for(&p, "document.documentElement.lang === 'es'", "Spanish", 20).await?;
    nav_to(&p, "/tournaments").await?;
    wait_id(&p, "tour-form", "the form", 20).await?;
    assert_eq!(text(&p, "#tournaments h1").await?, "Torneos");
    // A wrong length is said next to its field, in Spanish.
    set_value(&p, "tour-name", "Viernes").await?;
    set_value(&p, "tour-minutes", "5").await?;
    click(&p, "#tour-create").await?;
    wait_shown(&p, "tour-minutes-error", "the minutes' error", 20).await?;
    assert_eq!(
        text(&p, "#tour-minutes-error").await?,
        "Una arena dura de 10 a 180 minutos."
    );
    look(&p, "tournaments-phone-es-error").await?;
    set_value(&p, "tour-minutes", "30").await?;
    set_value(&p, "tour-clock", "5+3").await?;
    // Now, rather than the form's default of a few minutes ahead.
    let now = js(
        &p,
        "new Date(Date.now() - new Date().getTimezoneOffset() * 60000).toISOString().slice(0, 16)",
    )
    .await?;
    set_value(&p, "tour-starts_at", now.as_str().unwrap_or("")).await?;
    click(&p, "#tour-create").await?;
    wait_page(&p, "/tournament/", "tour-join", "the new arena's page", 30).await?;
    let terms = text(&p, "#tour-terms").await?;
    assert!(terms.contains("amistoso"), "{terms}");
    click(&p, "#tour-join").await?;
    wait_id(&p, "tour-withdraw", "joined", 20).await?;
    look(&p, "tournament-phone-es-joined").await?;

    // The desktop finds it running in the list, in English, and joins.
    visit(&d, format!("{}/tournaments", server.url)).await?;
    wait_for(
        &d,
        "[...document.querySelectorAll('#tour-running a')].some(a => a.textContent === 'Viernes')",
        "the arena listed",
        30,
    )
    .await?;
    let line = text(&d, "#tour-running li").await?;
    assert!(
        line.contains("casual") && line.contains("1 player"),
        "{line}"
    );
    look(&d, "tournaments-desktop-en").await?;
    click(&d, "#tour-running a").await?;
    wait_id(&d, "tour-join", "the arena's page", 30).await?;
    click(&d, "#tour-join").await?;

    // Both are told they are paired, and reach the game from there.
    wait_id(&d, "tour-my-game", "paired (desktop)", 30).await?;
    assert_eq!(text(&d, "#tour-my-game").await?, "Paired: go to your game");
    wait_id(&p, "tour-my-game", "paired (phone, by polling)", 30).await?;
    assert_eq!(
        text(&p, "#tour-my-game").await?,
        "Emparejado: ve a tu partida"
    );
    // Issue 38, Major 4: the page asks every 2 s, and the keyboard's
    // focus stays on a standings' link (it has no id) through two more
    // answers: before, each answer redrew the page and the focus went
    // back to the body.
    wait_el(&d, "#tour-standings tbody a", "the standings", 30).await?;
    js(
        &d,
        "document.querySelector('#tour-standings tbody a').focus()",
    )
    .await?;
    let asked = "performance.getEntriesByType('resource').filter(e => e.name.includes('/api/tournaments/')).length";
    let n = js(&d, asked).await?.as_u64().unwrap_or(0);
    wait_for(&d, &format!("{asked} >= {}", n + 2), "two more answers", 30).await?;
    let kept = js(
        &d,
        "document.activeElement === document.querySelector('#tour-standings tbody a')",
    )
    .await?;
    assert_eq!(kept, serde_json::json!(true), "the focus stayed");
    // The leader's game is linked too (the one being played).
    wait_el(&d, "#tour-featured a", "the leader's game", 30).await?;
    look(&d, "tournament-desktop-en-paired").await?;
    look(&p, "tournament-phone-es-paired").await?;
    let game = js(
        &p,
        "document.getElementById('tour-my-game').getAttribute('href').slice(3)",
    )
    .await?;
    let game = game.as_str().ok_or("no game link")?.to_string();
    for page in [&p, &d] {
        click(page, "#tour-my-game").await?;
        wait_at(page, &format!("/g/{game}"), "game-page", "the game", 30).await?;
    }

    play_one_each_then_resign(&p, &d, &game).await?;

    // Both read their result on the finished game's page: the next
    // pairing reaches them there (the user socket, issue 36), in their
    // language, with a link to the new game; Bea follows it.
    for (page, said) in [
        (
            &p,
            "Tu siguiente partida del arena, contra Bea, ha empezado.",
        ),
        (&d, "Your next arena game, against Ana, has started."),
    ] {
        wait_shown(
            page,
            "game-call",
            "the next game's call on the finished game's page",
            30,
        )
        .await?;
        assert_eq!(text(page, "#game-call span").await?, said);
        let href = js(
            page,
            "document.getElementById('game-call-go').getAttribute('href')",
        )
        .await?;
        assert_ne!(
            href.as_str(),
            Some(format!("/g/{game}").as_str()),
            "a new game"
        );
    }
    look(&p, "game-phone-es-next-game-call").await?;
    look(&d, "game-desktop-en-next-game-call").await?;
    let next = js(
        &d,
        "document.getElementById('game-call-go').getAttribute('href')",
    )
    .await?;
    let next = next.as_str().ok_or("no link")?.to_string();
    click(&d, "#game-call-go").await?;
    wait_at(
        &d,
        &next,
        "game-page",
        "the next game, by the call's link",
        30,
    )
    .await?;

    // The standings give Bea her 2 points, in both languages.
    for page in [&d, &p] {
        visit(
            page,
            format!(
                "{}/tournament/{}",
                server.url,
                tournament_id(page, &game).await?
            ),
        )
        .await?;
        wait_for(page, &scored("Bea", 2), "Bea's 2 points", 30).await?;
        wait_for(page, &scored("Ana", 0), "Ana's 0", 30).await?;
    }
    assert_eq!(text(&d, "#tour-standings caption").await?, "Standings");
    assert_eq!(text(&p, "#tour-standings caption").await?, "Clasificación");
    look(&d, "tournament-desktop-en-standings").await?;
    look(&p, "tournament-phone-es-standings").await?;

    // A second win in a row sets Bea on fire: her line is marked so.
    wait_for(&p, &format!("document.getElementById('tour-my-game') && document.getElementById('tour-my-game').getAttribute('href') !== '/g/{game}'"), "paired again", 30).await?;
    let game2 = js(&p, "document.getElementById('tour-my-game') && document.getElementById('tour-my-game').getAttribute('href').slice(3)").await?;
    let game2 = game2.as_str().ok_or("not paired again")?.to_string();
    assert_ne!(game2, game);
    play_one_each_then_resign(&p, &d, &game2).await?;
    for page in [&d, &p] {
        wait_for(page, &scored("Bea", 4), "Bea's 4 points", 30).await?;
        wait_for(page, "[...document.querySelectorAll('#tour-standings tbody tr')].some(tr => tr.cells[1].textContent.startsWith('Bea') && tr.cells[2].querySelector('.fire-mark'))", "Bea on fire", 30).await?;
    }
    let fire = text(&p, "#tour-standings .fire-mark .sr-only").await?;
    assert_eq!(fire, "en racha: puntos dobles");
    look(&p, "tournament-phone-es-fire").await?;
    look(&d, "tournament-desktop-en-fire").await?;

    // An arena in ten minutes is upcoming, with a countdown to its start.
    let later = js(
        &d,
        "fetch('/api/tournaments', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({name: 'Later', clock: '3+2', minutes: 60, rated: true, starts_at: Date.now() + 600000})}).then(r => r.json()).then(v => v.id)",
    )
    .await?;
    let later = later.as_str().ok_or("no upcoming arena")?.to_string();
    visit(&d, format!("{}/tournaments", server.url)).await?;
    wait_for(&d, "[...document.querySelectorAll('#tour-upcoming li')].some(li => li.textContent.includes('Later') && li.textContent.includes('rated'))", "the upcoming arena listed", 30).await?;
    visit(&d, format!("{}/tournament/{later}", server.url)).await?;
    wait_for(
        &d,
        "/^Starts in (10:00|9:\\d\\d)$/.test(document.getElementById('tour-phase').textContent)",
        "the countdown to the start",
        30,
    )
    .await?;
    look(&d, "tournament-desktop-en-upcoming").await?;

    // Logged out, the desktop is told to sign up or log in to join.
    let out = js(
        &d,
        "fetch('/api/account/logout', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{}'}).then(r => r.ok)",
    )
    .await?;
    assert_eq!(out, serde_json::Value::Bool(true));
    let here = js(&d, "location.href").await?;
    visit(&d, here.as_str().ok_or("no address")?).await?;
    wait_text(
        &d,
        "tour-actions",
        "Sign up or log in to join.",
        "told to sign up",
        30,
    )
    .await?;
    assert!(
        js(&d, "!document.getElementById('tour-join')").await? == serde_json::Value::Bool(true)
    );
    look(&d, "tournament-desktop-en-visitor").await?;
    Ok(())
}

/// A phone held sideways (740×360), in French: both pages fit its width.
async fn sideways(chrome: &Chrome, server: &Server) -> Res<()> {
    let page = chrome.page(&format!("{}/rules", server.url)).await?;
    js(&page, "localStorage.setItem('gore.lang', 'fr')").await?;
    visit(&page, format!("{}/tournaments", server.url)).await?;
    wait_for(
        &page,
        "document.querySelector('#tour-running a') && document.getElementById('tour-visitor')",
        "the list",
        30,
    )
    .await?;
    assert_eq!(text(&page, "#tournaments h1").await?, "Tournois");
    look(&page, "tournaments-sideways-fr").await?;
    click(&page, "#tour-running a").await?;
    wait_el(&page, "#tour-standings tbody tr", "the standings", 30).await?;
    assert_eq!(text(&page, "#tour-standings caption").await?, "Classement");
    look(&page, "tournament-sideways-fr").await
}

/// The arena whose game `game` is (the list's only one).
async fn tournament_id(page: &Page, game: &str) -> Res<String> {
    let v = js(
        page,
        "fetch('/api/tournaments').then(r => r.json()).then(l => [...l.running, ...l.finished][0].id)",
    )
    .await?;
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("no arena for game {game}: {v}").into())
}

/// Each makes one action in `game`, whoever is to move first; then Ana
/// (`p`) resigns.
async fn play_one_each_then_resign(p: &Page, d: &Page, game: &str) -> Res<()> {
    // Each makes one action, whoever is to move first.
    let (mut ana, mut bea) = (false, false);
    for _ in 0..20 {
        if ana && bea {
            break;
        }
        if try_action(p, game).await? {
            ana = true;
        } else if try_action(d, game).await? {
            bea = true;
        }
    }
    assert!(ana && bea, "each made an action: {ana} {bea}");
    let resigned = js(
        p,
        &format!("fetch('/api/games/{game}/resign', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: '{{}}'}}).then(r => r.ok)"),
    )
    .await?;
    assert_eq!(resigned, serde_json::Value::Bool(true));
    Ok(())
}
