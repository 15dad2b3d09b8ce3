//! Browser tests of the home, rules and not-found pages: what a newcomer
//! sees first, in several languages and on a phone and a desktop, checked
//! with axe-core for accessibility.
//!
//! Without Chromium they print a loud warning and pass, except on CI
//! (`CI=true`). Screenshots go to `target/screenshots/`.

mod browser_support;
use browser_support::*;

/// Sets the language through the page's own switch.
async fn choose_lang(page: &Page, lang: &str) -> Res<()> {
    js(
        page,
        &format!("(() => {{ const s = document.getElementById('lang-select'); s.value = '{lang}'; s.dispatchEvent(new Event('change', {{bubbles: true}})); }})()"),
    )
    .await?;
    wait_for(
        page,
        &format!("document.documentElement.lang === '{lang}'"),
        "the language",
        10,
    )
    .await
}

/// The home and rules pages in English and Basque: no serious or critical
/// axe-core violation.
#[test]
fn home_and_rules_are_accessible() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("home_and_rules_are_accessible") else {
        return;
    };
    let server = Server::start();
    runtime().block_on(async {
        let chrome = Chrome::launch(&exe, 1280, 800)
            .await
            .expect("launch chromium");
        let r = accessible(&chrome, &server).await;
        chrome.close().await;
        r.expect("accessibility");
    });
}

async fn accessible(chrome: &Chrome, server: &Server) -> Res<()> {
    let page = chrome.page(&format!("{}/", server.url)).await?;
    wait_for(&page, HOME, "home page", 20).await?;
    for lang in ["en", "eu"] {
        choose_lang(&page, lang).await?;
        assert_accessible(&page, &format!("home-{lang}")).await?;
        // And with the details open.
        js(&page, "document.getElementById('game-options').open = true").await?;
        assert_accessible(&page, &format!("home-details-{lang}")).await?;
        page.goto(format!("{}/rules", server.url)).await?;
        wait_for(
            &page,
            "document.querySelectorAll('.example svg.board').length === 6",
            "rules page",
            20,
        )
        .await?;
        assert_accessible(&page, &format!("rules-{lang}")).await?;
        page.goto(format!("{}/nowhere", server.url)).await?;
        wait_for(
            &page,
            "document.getElementById('not-found')",
            "not-found page",
            20,
        )
        .await?;
        assert_accessible(&page, &format!("not-found-{lang}")).await?;
        page.goto(format!("{}/", server.url)).await?;
        wait_for(&page, HOME, "home page", 20).await?;
    }
    Ok(())
}

/// The home page is ready (its play buttons drawn).
const HOME: &str = "document.getElementById('play-ai')";

/// Where an element is on the screen: its top and bottom, CSS pixels.
async fn rect(page: &Page, selector: &str) -> Res<(f64, f64)> {
    let v = js(
        page,
        &format!(
            "(() => {{ const e = document.querySelector({}); if (!e) return null; const r = e.getBoundingClientRect(); return [r.top, r.bottom]; }})()",
            serde_json::to_string(selector)?
        ),
    )
    .await?;
    let top = v[0].as_f64().ok_or(format!("no {selector}"))?;
    Ok((top, v[1].as_f64().unwrap_or(top)))
}

/// The scripts the page has loaded, by file name.
async fn scripts(page: &Page) -> Res<Vec<String>> {
    let v = js(
        page,
        "performance.getEntriesByType('resource').map(e => e.name).filter(n => n.endsWith('.js')).map(n => n.split('/').pop())",
    )
    .await?;
    Ok(serde_json::from_value(v)?)
}

/// On a phone and a desktop: the three one-click starts, the board's
/// picture and "Your games" all on the first screen, no option code shown
/// even with the details open, the server's defaults shown, each page
/// loading its own code only; one click starts a game against the computer
/// at the server's default level.
#[test]
fn home_page_for_playing() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("home_page_for_playing") else {
        return;
    };
    let server = Server::start();
    runtime().block_on(async {
        for (w, hgt) in [(360, 740), (1280, 800)] {
            let chrome = Chrome::launch(&exe, w, hgt).await.expect("launch chromium");
            let r = home_for_playing(&chrome, &server, w, hgt).await;
            chrome.close().await;
            r.unwrap_or_else(|e| panic!("{w}x{hgt}: {e}"));
        }
    });
}

async fn home_for_playing(chrome: &Chrome, server: &Server, w: u32, hgt: u32) -> Res<()> {
    let page = chrome.page(&format!("{}/", server.url)).await?;
    wait_for(&page, HOME, "home page", 20).await?;
    let size = format!("{w}x{hgt}");
    // The defaults are the server's own (the API documents level 4 and a
    // side drawn at random), not the page's.
    assert_eq!(
        js(&page, "document.getElementById('level').value").await?,
        "4"
    );
    assert_eq!(
        js(&page, "document.getElementById('colour-random').checked").await?,
        true
    );
    let summary = text(&page, "#game-summary").await?;
    assert!(
        summary.contains("level 4") && summary.contains("random"),
        "{summary}"
    );
    // Only the home page's code.
    let loaded = scripts(&page).await?;
    assert!(loaded.iter().any(|s| s == "home.js"), "{loaded:?}");
    assert!(!loaded.iter().any(|s| s == "game.js"), "{loaded:?}");

    // One click: a game against the computer at the default level.
    click(&page, "#play-ai").await?;
    wait_for(
        &page,
        "location.pathname.startsWith('/g/') && document.getElementById('game-page')",
        "the game page",
        20,
    )
    .await?;
    let level = js(
        &page,
        "fetch('/api/games/' + location.pathname.split('/').pop()).then(r => r.json()).then(v => (v.seats.A.kind === 'ai' ? v.seats.A : v.seats.B).level)",
    )
    .await?;
    assert_eq!(level, 4, "the game's level");
    let loaded = scripts(&page).await?;
    assert!(!loaded.iter().any(|s| s == "home.js"), "{loaded:?}");

    // Back home: the game is listed, on the first screen.
    page.goto(format!("{}/", server.url)).await?;
    wait_for(
        &page,
        "document.querySelector('#my-games .game-item') && !document.querySelector('#my-games').innerText.includes('Loading')",
        "the list of games",
        20,
    )
    .await?;
    let inner = js(&page, "window.innerHeight")
        .await?
        .as_f64()
        .unwrap_or(0.0);
    assert_eq!(inner, f64::from(hgt));
    for sel in [
        "#play-ai",
        "#play-friend",
        "#play-local",
        ".home-board",
        "#game-options > summary",
    ] {
        let (top, bottom) = rect(&page, sel).await?;
        assert!(
            top >= 0.0 && bottom <= inner,
            "{size}: {sel} is at {top}..{bottom}, the screen is {inner} high"
        );
    }
    let (top, _) = rect(&page, "#my-games .game-item").await?;
    assert!(
        top < inner,
        "{size}: your games start at {top}, below the {inner} px screen"
    );
    let wide = js(&page, "document.documentElement.scrollWidth").await?;
    assert!(
        wide.as_f64().unwrap_or(0.0) <= f64::from(w),
        "{size}: {wide} px wide"
    );
    // The picture is drawn.
    wait_for(
        &page,
        "document.querySelector('.home-board').complete && document.querySelector('.home-board').naturalWidth > 0",
        "the board's picture",
        10,
    )
    .await?;
    shot(&page, &format!("home-{size}")).await?;

    // The details, in plain words: no option code.
    click(&page, "#game-options > summary").await?;
    wait_for(
        &page,
        "document.getElementById('game-options').open",
        "the details",
        5,
    )
    .await?;
    let body = js(&page, "document.body.innerText").await?;
    let body = body.as_str().unwrap_or_default();
    for code in ["skip-origin", "no-trades", "cede-all", "seeds="] {
        assert!(!body.contains(code), "{size}: {code:?} shown: {body}");
    }
    assert!(
        body.contains("Long sowings skip their starting hole"),
        "{body}"
    );
    shot(&page, &format!("home-details-{size}")).await?;

    // A choice shows in the summary at once and is kept.
    js(
        &page,
        "(() => { const s = document.getElementById('seeds'); s.value = '4'; s.dispatchEvent(new Event('change', {bubbles: true})); })()",
    )
    .await?;
    click(&page, "#colour-B").await?;
    let summary = text(&page, "#game-summary").await?;
    assert!(
        summary.contains("4 seeds per hole") && summary.contains("You play B"),
        "{summary}"
    );
    page.reload().await?;
    wait_for(&page, HOME, "home page", 20).await?;
    assert_eq!(
        js(&page, "document.getElementById('seeds').value").await?,
        "4"
    );
    assert_eq!(
        js(&page, "document.getElementById('colour-B').checked").await?,
        true
    );
    js(&page, "localStorage.removeItem('gore.newGame')").await?;
    Ok(())
}

/// Unknown addresses and games: the app's own page, translated, status
/// 404, with the way home.
#[test]
fn not_found_pages_are_the_apps_own() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("not_found_pages_are_the_apps_own") else {
        return;
    };
    let server = Server::start();
    runtime().block_on(async {
        let chrome = Chrome::launch(&exe, 360, 740)
            .await
            .expect("launch chromium");
        let r = not_found(&chrome, &server).await;
        chrome.close().await;
        r.expect("not found");
    });
}

async fn not_found(chrome: &Chrome, server: &Server) -> Res<()> {
    let page = chrome.page(&format!("{}/", server.url)).await?;
    wait_for(&page, HOME, "home page", 20).await?;
    for (lang, path, title) in [
        ("es", "/no/existe", "Página no encontrada"),
        ("fr", "/g/nosuchgame1", "Partie introuvable"),
        ("eu", "/assets/v/0/js/main.js", "Ez da orria aurkitu"),
        ("en", "/g/nosuchgame2", "Game not found"),
    ] {
        js(
            &page,
            &format!("localStorage.setItem('gore.lang', '{lang}')"),
        )
        .await?;
        page.goto(format!("{}{path}", server.url)).await?;
        wait_for(
            &page,
            &format!("document.documentElement.lang === '{lang}' && document.querySelector('#not-found h1')"),
            "the not-found page",
            20,
        )
        .await?;
        assert_eq!(text(&page, "#not-found h1").await?, title, "{lang} {path}");
        let status = js(&page, "fetch(location.href).then(r => r.status)").await?;
        assert_eq!(status, 404, "{path}");
        let home = js(
            &page,
            "document.querySelector('#not-found a').getAttribute('href')",
        )
        .await?;
        assert_eq!(home, "/");
        shot(&page, &format!("not-found-{lang}")).await?;
    }
    Ok(())
}
