//! Browser tests of the home, rules and not-found pages: what a newcomer
//! sees first, in several languages and on a phone and a desktop, checked
//! with axe-core for accessibility.
//!
//! Without Chromium they print a loud warning and pass, except on CI
//! (`CI=true`). Screenshots go to `target/screenshots/`.

// Not every helper's import is used here.
#[allow(unused_imports)]
mod browser_support;
use browser_support::*;

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
        visit(&page, format!("{}/rules", server.url)).await?;
        wait_count(&page, ".example svg.board", 6, "rules page", 20).await?;
        assert_accessible(&page, &format!("rules-{lang}")).await?;
        visit(&page, format!("{}/nowhere", server.url)).await?;
        wait_id(&page, "not-found", "not-found page", 20).await?;
        assert_accessible(&page, &format!("not-found-{lang}")).await?;
        visit(&page, format!("{}/", server.url)).await?;
        wait_for(&page, HOME, "home page", 20).await?;
    }
    // The same in dark mode (the system's choice): home, details open,
    // and the rules.
    page.emulate_media_features(vec![
        chromiumoxide::cdp::browser_protocol::emulation::MediaFeature::new(
            "prefers-color-scheme",
            "dark",
        ),
    ])
    .await?;
    assert_accessible(&page, "home-dark").await?;
    js(&page, "document.getElementById('game-options').open = true").await?;
    assert_accessible(&page, "home-details-dark").await?;
    visit(&page, format!("{}/rules", server.url)).await?;
    wait_count(&page, ".example svg.board", 6, "rules page", 20).await?;
    assert_accessible(&page, "rules-dark").await?;
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
    // The modules fetched as code (not those a first visit's page puts in
    // the cache for the next, by `fetch`), and those the page carries (a
    // first visit's: mapped to `data:` URLs).
    let v = js(
        page,
        r#"return (() => {
            const map = document.querySelector('script[type=importmap]');
            const carried = map ? Object.entries(JSON.parse(map.textContent).imports)
                .filter(([k, v]) => k.startsWith('gore/') && v.startsWith('data:')).map(([k]) => k.slice(5)) : [];
            const fetched = performance.getEntriesByType('resource').filter(e => e.initiatorType !== 'fetch')
                .map(e => e.name).filter(n => n.endsWith('.js')).map(n => n.split('/').pop());
            return [...new Set(carried.concat(fetched))];
        })()"#,
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
    // The defaults are the server's own (the API documents level 5 and a
    // side drawn at random), not the page's.
    let standard = gore_ai::Level::STANDARD.get();
    assert_eq!(
        js(&page, "document.getElementById('level').value").await?,
        standard.to_string()
    );
    assert_eq!(
        js(&page, "document.getElementById('colour-random').checked").await?,
        true
    );
    let summary = text(&page, "#game-summary").await?;
    assert!(
        summary.contains(&format!("(level {standard})")) && summary.contains("random"),
        "{summary}"
    );
    // Only the home page's code.
    let loaded = scripts(&page).await?;
    assert!(loaded.iter().any(|s| s == "home.js"), "{loaded:?}");
    assert!(!loaded.iter().any(|s| s == "game.js"), "{loaded:?}");

    // One click: a game against the computer at the default level.
    click(&page, "#play-ai").await?;
    wait_page(&page, "/g/", "game-page", "the game page", 20).await?;
    let loaded = scripts(&page).await?;
    assert!(!loaded.iter().any(|s| s == "home.js"), "{loaded:?}");
    // The game's state came in the page (its answer to /g/{id} carries
    // what `GET /api/games/{id}` would): the page did not ask for it.
    wait_count(&page, ".hole .count", 8, "the board", 20).await?;
    let state_requests = js(
        &page,
        "performance.getEntriesByType('resource').filter(e => /\\/api\\/games\\/[0-9a-z]+$/.test(e.name)).map(e => e.initiatorType)",
    )
    .await?;
    assert_eq!(
        state_requests,
        serde_json::json!([]),
        "the game's state requests"
    );
    let level = js(
        &page,
        "fetch('/api/games/' + location.pathname.split('/').pop()).then(r => r.json()).then(v => (v.seats.A.kind === 'ai' ? v.seats.A : v.seats.B).level)",
    )
    .await?;
    assert_eq!(level, standard, "the game's level");

    // Back home: the game is listed, on the first screen.
    visit(&page, format!("{}/", server.url)).await?;
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
    first_screen(&page, &size, w, inner).await?;
    // The picture is drawn.
    wait_for(
        &page,
        "document.querySelector('.home-board').complete && document.querySelector('.home-board').naturalWidth > 0",
        "the board's picture",
        10,
    )
    .await?;
    shot(&page, &format!("home-{size}")).await?;
    // The same first screen in the other languages (longer words).
    for lang in ["es", "fr", "eu"] {
        choose_lang(&page, lang).await?;
        first_screen(&page, &format!("{size} {lang}"), w, inner).await?;
        shot(&page, &format!("home-{size}-{lang}")).await?;
    }
    choose_lang(&page, "en").await?;

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
    assert_accessible(&page, &format!("home-details-{size}")).await?;

    // A choice shows in the summary at once and is kept.
    set_value(&page, "seeds", "4").await?;
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

/// The three play buttons, the picture and the details' switch on the
/// first screen, "Your games" starting on it, nothing wider than it.
async fn first_screen(page: &Page, size: &str, w: u32, inner: f64) -> Res<()> {
    for sel in [
        "#play-ai",
        "#play-friend",
        "#play-local",
        ".home-board",
        "#game-options > summary",
    ] {
        let (top, bottom) = rect(page, sel).await?;
        assert!(
            top >= 0.0 && bottom <= inner,
            "{size}: {sel} is at {top}..{bottom}, the screen is {inner} high"
        );
    }
    let (top, _) = rect(page, "#my-games .game-item").await?;
    assert!(
        top < inner,
        "{size}: your games start at {top}, below the {inner} px screen"
    );
    let wide = js(page, "document.documentElement.scrollWidth").await?;
    assert!(
        wide.as_f64().unwrap_or(0.0) <= f64::from(w),
        "{size}: {wide} px wide"
    );
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
        visit(&page, format!("{}{path}", server.url)).await?;
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

// ------------------------------------------------------------ benchmark --

/// The load times of docs/BENCHMARKS.md ("The web app on a slow
/// connection"): the home, game, lessons, puzzles and analysis pages on
/// emulated slow 3G (400 kbit/s each way, `GORE_BENCH_LATENCY` ms of
/// latency, 400 by default), cold (empty cache) and warm (a reload), the
/// median of `GORE_BENCH_RUNS` (7) runs, from the navigation's start to the
/// page being usable (the play buttons, the lessons' title, or the board's
/// eight holes drawn), and from the HTML's arrival to the same.
/// `GORE_BENCH_BIN` names another `gore` binary to measure (an older
/// build, for the "before" figures). Run with
/// `cargo test -p gore-cli --test browser_home -- --ignored --nocapture slow_3g`.
#[test]
#[ignore = "a benchmark: minutes on slow 3G"]
fn slow_3g_load_times() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("slow_3g_load_times") else {
        return;
    };
    let bin = std::env::var("GORE_BENCH_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_gore").into());
    let runs: usize = std::env::var("GORE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    let dir = tempfile::tempdir().expect("tempdir");
    let mut child = Command::new(&bin)
        .args(["serve", "--port", "0", "--db"])
        .arg(dir.path().join("db.sqlite3"))
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start gore serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("Goré is ready: open ")
        .unwrap()
        .trim_end_matches('/')
        .to_string();
    let r = runtime().block_on(async {
        let chrome = Chrome::launch(&exe, 1280, 800).await.expect("launch");
        let r = bench(&chrome, &url, runs).await;
        chrome.close().await;
        r
    });
    let _ = child.kill();
    let _ = child.wait();
    let rows = r.expect("benchmark");
    eprintln!(
        "\n{bin}: median of {runs} runs, ms (slow 3G: 400 kbit/s, {} ms)",
        latency()
    );
    for (what, cold, warm, bytes, html) in rows {
        eprintln!("{what:<8} cold {cold:>6.0}  warm {warm:>6.0}  after the HTML (cold) {html:>6.0}  transferred cold {bytes} bytes");
    }
}

/// The emulated latency, ms: `GORE_BENCH_LATENCY`, else 400 (the
/// figures of issue 10; DevTools' "Slow 3G" preset is 2000).
fn latency() -> f64 {
    std::env::var("GORE_BENCH_LATENCY")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400.0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

// Network.emulateNetworkConditions is what the brief's figures use (CDP
// deprecates it for a newer per-request form).
#[allow(deprecated)]
async fn bench(
    chrome: &Chrome,
    url: &str,
    runs: usize,
) -> Res<Vec<(&'static str, f64, f64, u64, f64)>> {
    use chromiumoxide::cdp::browser_protocol::network::{
        ClearBrowserCacheParams, ClearBrowserCookiesParams, EmulateNetworkConditionsParams,
        EnableParams,
    };
    let page = chrome.page(&format!("{url}/rules")).await?;
    // A game to open (one device: no AI to wait for).
    let id = js(
        &page,
        "fetch('/api/games', {method: 'POST', headers: {'content-type': 'application/json'}, body: '{\"mode\":\"local\"}'}).then(r => r.json()).then(v => v.id)",
    )
    .await?;
    let id = id.as_str().ok_or("no game")?.to_string();
    // The moment the page is usable, seen by the page itself.
    page.evaluate_on_new_document(
        "(() => { const ready = () => document.getElementById('play-ai') || document.getElementById('start-game') || document.getElementById('learn-title') || document.querySelectorAll('.hole .count').length === 8;
           const mark = () => { if (window.__ready === undefined && ready()) window.__ready = performance.now(); };
           new MutationObserver(mark).observe(document, {childList: true, subtree: true}); })()",
    )
    .await?;
    page.execute(EnableParams::default()).await?;
    page.execute(EmulateNetworkConditionsParams::new(
        false,
        latency(),
        400_000.0 / 8.0,
        400_000.0 / 8.0,
    ))
    .await?;
    let mut rows = Vec::new();
    for (what, path) in [
        ("home", "/".to_string()),
        ("game", format!("/g/{id}")),
        ("learn", "/learn".to_string()),
        ("puzzles", "/puzzles".to_string()),
        ("analysis", "/analysis".to_string()),
    ] {
        let (mut cold, mut warm, mut bytes, mut after) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for _ in 0..runs {
            // A first visit: nothing cached, no cookie (which would get
            // the plain page, made for a browser with the assets), and
            // nothing stored (a puzzle history asks for another puzzle
            // than the one a first visit's page carries).
            page.execute(ClearBrowserCacheParams::default()).await?;
            page.execute(ClearBrowserCookiesParams::default()).await?;
            js(&page, "localStorage.clear()").await?;
            for warm_run in [false, true] {
                page.goto(format!("{url}{path}")).await?;
                wait_for(&page, "window.__ready !== undefined", "the page usable", 60).await?;
                let t = js(&page, "window.__ready")
                    .await?
                    .as_f64()
                    .unwrap_or(f64::NAN);
                if warm_run {
                    warm.push(t);
                } else {
                    cold.push(t);
                    let b = js(
                        &page,
                        "performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource')).filter(e => e.startTime <= window.__ready).reduce((s, e) => s + (e.transferSize || 0), 0)",
                    )
                    .await?;
                    bytes.push(b.as_f64().unwrap_or(0.0));
                    // From the HTML's arrival to the content drawn.
                    let html = js(
                        &page,
                        "performance.getEntriesByType('navigation')[0].responseEnd",
                    )
                    .await?;
                    after.push(t - html.as_f64().unwrap_or(0.0));
                    // A first visit's inline page fills the cache for the
                    // next once drawn: the warm run is that next visit.
                    wait_for(
                        &page,
                        "!document.getElementById('gore-cache') || document.documentElement.dataset.assetsCached === 'true'",
                        "the cache filled",
                        120,
                    )
                    .await?;
                }
            }
        }
        rows.push((
            what,
            median(cold),
            median(warm),
            median(bytes) as u64,
            median(after),
        ));
    }
    Ok(rows)
}
