//! Browser tests of what every page shares (issue 27): the header's menu
//! on a phone, the home page's picture of the board, "Your games" after
//! logging out, the leaderboard and the player pages, and what the pages
//! preload.
//!
//! Without Chromium they print a loud warning and pass, except on CI
//! (`CI=true`). Screenshots go to `target/screenshots/`.

// Not every helper's import is used here.
#[allow(unused_imports)]
mod browser_support;
use browser_support::*;

/// The menu's destinations, by address.
const DESTINATIONS: [&str; 6] = [
    "/",
    "/rules",
    "/learn",
    "/puzzles",
    "/analysis",
    "/leaderboard",
];

/// How a person would find the header's link to `href`: `ok` when it is
/// drawn whole inside the screen and nothing covers either end of it (a
/// link cut by the edge of a scrolling row is not), else why not.
async fn link_seen(page: &Page, href: &str) -> Res<String> {
    let v = js(
        page,
        &format!(
            r#"(() => {{
                const a = document.querySelector('.site-header nav a[href="' + {} + '"]');
                if (!a) return 'missing';
                const r = a.getBoundingClientRect();
                if (r.width < 1 || r.height < 1) return 'hidden';
                if (r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight) return 'outside the screen';
                if (a.scrollWidth > a.clientWidth + 1) return 'its text cut';
                for (const x of [r.left + 2, r.right - 2]) {{
                    const e = document.elementFromPoint(x, r.top + r.height / 2);
                    if (!e || !(e === a || a.contains(e))) return 'covered or clipped at x=' + Math.round(x);
                }}
                return 'ok';
            }})()"#,
            serde_json::to_string(href)?
        ),
    )
    .await?;
    Ok(v.as_str().unwrap_or("?").to_string())
}

/// A screenshot of the screen only (what a person sees without
/// scrolling), beside [`shot`]'s whole page.
async fn screen_shot(page: &Page, name: &str) -> Res<()> {
    let path = screenshots_dir().join(format!("{name}.png"));
    page.save_screenshot(ScreenshotParams::builder().build(), &path)
        .await?;
    Ok(())
}

/// Whether the element a selector finds is drawn inside the screen.
async fn on_screen(page: &Page, selector: &str) -> Res<bool> {
    let v = js(
        page,
        &format!(
            "(() => {{ const e = document.querySelector({}); if (!e) return false; const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight; }})()",
            serde_json::to_string(selector)?
        ),
    )
    .await?;
    Ok(v == Value::Bool(true))
}

/// Issue 27, point 6: on a phone, upright (360×740) and on its side
/// (740×360), in the four languages, every destination of the menu is
/// reachable as a person sees it: the links fit, or a menu button (which
/// says whether it is open) shows them all, Escape closing it and giving
/// the focus back; the language switch stays in the header. On a desktop
/// (1366×768) the links are all in the header, as before, with no button.
#[test]
fn the_menu_reaches_every_page_on_a_phone() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("the_menu_reaches_every_page_on_a_phone") else {
        return;
    };
    let server = Server::start();
    runtime().block_on(async {
        for (w, hgt) in [(360, 740), (740, 360), (1366, 768)] {
            let chrome = Chrome::launch(&exe, w, hgt).await.expect("launch chromium");
            let r = menu(&chrome, &server, w, hgt).await;
            chrome.close().await;
            r.unwrap_or_else(|e| panic!("{w}x{hgt}: {e}"));
        }
    });
}

async fn menu(chrome: &Chrome, server: &Server, w: u32, hgt: u32) -> Res<()> {
    let page = chrome.page(&format!("{}/rules", server.url)).await?;
    wait_for(
        &page,
        "document.querySelector('.example svg.board')",
        "the rules page",
        20,
    )
    .await?;
    let desktop = w > 1000;
    for lang in ["en", "es", "fr", "eu"] {
        choose_lang(&page, lang).await?;
        let size = format!("{w}x{hgt} {lang}");
        assert!(
            on_screen(&page, "#lang-select").await?,
            "{size}: the language switch"
        );
        let mut unseen = Vec::new();
        for href in DESTINATIONS {
            let seen = link_seen(&page, href).await?;
            if seen != "ok" {
                unseen.push(format!("{href}: {seen}"));
            }
        }
        if desktop {
            assert!(unseen.is_empty(), "{size}: {unseen:?}");
            assert!(
                !on_screen(&page, "#menu-button").await?,
                "{size}: a menu button on a desktop"
            );
            screen_shot(&page, &format!("site-menu-{w}x{hgt}-{lang}")).await?;
            continue;
        }
        if unseen.is_empty() {
            continue;
        }
        // Not all in the header: then behind a menu button.
        assert!(
            on_screen(&page, "#menu-button").await?,
            "{size}: links not seen ({unseen:?}) and no menu button"
        );
        let label = text(&page, "#menu-button").await?;
        assert!(
            !label.trim().is_empty(),
            "{size}: the menu button says nothing"
        );
        assert_eq!(
            js(
                &page,
                "document.getElementById('menu-button').getAttribute('aria-expanded')"
            )
            .await?,
            "false"
        );
        click(&page, "#menu-button").await?;
        wait_for(
            &page,
            "document.getElementById('menu-button').getAttribute('aria-expanded') === 'true'",
            "the menu open",
            10,
        )
        .await?;
        for href in DESTINATIONS {
            let seen = link_seen(&page, href).await?;
            assert_eq!(seen, "ok", "{size}, the menu open: {href}");
        }
        // The focus went into the list, and the current page is marked.
        let inside = js(
            &page,
            "!!document.activeElement && !!document.activeElement.closest('#site-nav')",
        )
        .await?;
        assert_eq!(inside, Value::Bool(true), "{size}: the focus after opening");
        let current = js(
            &page,
            "document.querySelector('#site-nav a[aria-current=page]')?.getAttribute('href')",
        )
        .await?;
        assert_eq!(current, "/rules", "{size}");
        screen_shot(&page, &format!("site-menu-{w}x{hgt}-{lang}-open")).await?;
        if lang == "en" {
            assert_accessible(&page, &format!("menu-open-{w}x{hgt}")).await?;
        }
        key(&page, "Escape").await?;
        wait_for(
            &page,
            "document.getElementById('menu-button').getAttribute('aria-expanded') === 'false'",
            "the menu closed by Escape",
            10,
        )
        .await?;
        assert_eq!(
            focused(&page).await?,
            "#menu-button",
            "{size}: the focus after Escape"
        );
        let hidden = link_seen(&page, "/puzzles").await?;
        assert_ne!(
            hidden, "ok",
            "{size}: the list closed still covers the page"
        );
        // A link of the menu leads to its page.
        click(&page, "#menu-button").await?;
        click(&page, "#site-nav a[href='/puzzles']").await?;
        wait_for(
            &page,
            "location.pathname === '/puzzles'",
            "the puzzles page",
            20,
        )
        .await?;
        page.goto(format!("{}/rules", server.url)).await?;
        wait_for(
            &page,
            "document.querySelector('.example svg.board')",
            "the rules page",
            20,
        )
        .await?;
    }
    Ok(())
}

/// Issue 27, point 25: the home page's picture of the board shows what the
/// game page shows, a board of eight holes and their seeds, and no oval
/// "stores" at its ends (Goré has none): its shapes are the frame, the
/// eight holes and the 48 seeds, all within the frame.
#[test]
fn the_home_picture_has_no_stores() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("the_home_picture_has_no_stores") else {
        return;
    };
    let server = Server::start();
    runtime().block_on(async {
        for (w, hgt) in [(360, 740), (1366, 768)] {
            let chrome = Chrome::launch(&exe, w, hgt).await.expect("launch chromium");
            let r = picture(&chrome, &server, w, hgt).await;
            chrome.close().await;
            r.unwrap_or_else(|e| panic!("{w}x{hgt}: {e}"));
        }
    });
}

async fn picture(chrome: &Chrome, server: &Server, w: u32, hgt: u32) -> Res<()> {
    let page = chrome.page(&format!("{}/", server.url)).await?;
    wait_for(
        &page,
        "document.getElementById('play-ai') && document.querySelector('img.home-board')?.complete",
        "the home page and its picture",
        20,
    )
    .await?;
    let v = js(
        &page,
        r#"fetch(document.querySelector('img.home-board').src).then(r => r.text()).then(t => {
            const svg = new DOMParser().parseFromString(t, 'image/svg+xml').documentElement;
            const shapes = [...svg.querySelectorAll('rect, circle, ellipse, path, polygon')];
            const rects = shapes.filter(s => s.tagName === 'rect');
            const frame = rects[0];
            const fx = Number(frame.getAttribute('x')), fw = Number(frame.getAttribute('width'));
            const circles = shapes.filter(s => s.tagName === 'circle');
            const holes = circles.filter(c => Number(c.getAttribute('r')) >= 20);
            const seeds = circles.filter(c => Number(c.getAttribute('r')) < 20);
            const holeXs = holes.map(c => Number(c.getAttribute('cx')));
            const r = Number(holes[0].getAttribute('r'));
            const inner = [Math.min(...holeXs) - r, Math.max(...holeXs) + r];
            return {
                shapes: shapes.length, rects: rects.length, holes: holes.length, seeds: seeds.length,
                others: shapes.length - rects.length - circles.length,
                // Room at the ends of the frame beyond the holes (a store's place).
                ends: [inner[0] - fx, fx + fw - inner[1]],
                width: Number(svg.getAttribute('viewBox').split(' ')[2]),
            };
        })"#,
    )
    .await?;
    screen_shot(&page, &format!("site-home-picture-{w}x{hgt}")).await?;
    assert_eq!(v["rects"], 1, "one frame and no store: {v}");
    assert_eq!(v["others"], 0, "no other shape: {v}");
    assert_eq!(
        (v["holes"].as_u64(), v["seeds"].as_u64()),
        (Some(8), Some(48)),
        "{v}"
    );
    for end in v["ends"].as_array().ok_or("ends")? {
        assert!(
            end.as_f64().unwrap_or(99.0) <= 30.0,
            "no room for a store at the frame's ends: {v}"
        );
    }
    Ok(())
}
