//! axe-core over every page a new player meets (issue 27, "done means":
//! no serious or critical violation on every page, light and dark): the
//! home page and its lobby, a game being played, a finished game, its
//! review, the rules, the lessons and a lesson, the puzzles, the analysis
//! board, a player's page, the leaderboard, an invitation and the page
//! for an address that does not exist; on a phone (360×740) and a desktop
//! (1366×768), in English and French, each in the light and the dark
//! scheme. Each suite also checks its own pages; this one makes sure no
//! page is left out.
//!
//! Without Chromium it prints a loud warning and passes, except on CI
//! (`CI=true`). Screenshots of failures go to `target/screenshots/`.

#[allow(unused_imports)] // the shared helpers re-export more than this file uses
mod browser_support;
use browser_support::*;

/// A game that ends in two actions from this position (browser_review's:
/// B's b3, then A's a2 takes the last seeds).
const START: &str = "1,4,0,0/1,1,1,1 AAAA/BBBB 19-20 B -";

/// The pages, each with what shows it is drawn.
struct Pages {
    list: Vec<(String, &'static str)>,
}

/// Makes what the pages show: an account (logged out again, so that its
/// invitation is seen as a guest sees it), a game on one device, a
/// finished game and an invitation.
async fn make_pages(page: &Page) -> Res<Pages> {
    let v = js(
        page,
        &format!(
            r#"(async () => {{
                const post = (path, body) => fetch(path, {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify(body)}}).then(r => r.text()).then(t => t ? JSON.parse(t) : null);
                await post('/api/account/signup', {{username: 'Awa', password: 'a long passphrase'}});
                const friend = await post('/api/games', {{mode: 'friend', colour: 'A'}});
                await post('/api/account/logout', {{}});
                const local = await post('/api/games', {{mode: 'local'}});
                await post(`/api/games/${{local.id}}/actions`, {{action: 'a1'}});
                const done = await post('/api/games', {{mode: 'local', rules: 'no-trades', start: '{START}'}});
                await post(`/api/games/${{done.id}}/actions`, {{action: 'b3'}});
                const end = await post(`/api/games/${{done.id}}/actions`, {{action: 'a2'}});
                return {{invite: friend.invite, local: local.id, done: done.id, status: end.status}};
            }})()"#
        ),
    )
    .await?;
    if v["status"] != "over" {
        return Err(format!("the game did not end: {v}").into());
    }
    let s = |k: &str| {
        v[k].as_str()
            .map(str::to_string)
            .ok_or(format!("no {k}: {v}"))
    };
    let (invite, local, done) = (s("invite")?, s("local")?, s("done")?);
    // The invitation as a path (the answer may give a whole address).
    let invite = match invite.find("/join/") {
        Some(i) => invite[i..].to_string(),
        None => return Err(format!("an invitation without /join/: {invite}").into()),
    };
    let holes = "document.querySelectorAll('.board .hole .count').length === 8";
    Ok(Pages {
        list: vec![
            ("/".into(), "document.getElementById('play-ai')"),
            (format!("/g/{local}"), holes),
            (
                format!("/g/{done}"),
                "document.getElementById('review-btn')",
            ),
            (
                format!("/review/{done}"),
                "document.querySelector('#review-chart .review-mark')",
            ),
            ("/rules".into(), "document.querySelector('main h1')"),
            ("/learn".into(), "document.getElementById('learn-title')"),
            ("/learn?lesson=offer".into(), holes),
            ("/puzzles".into(), "document.getElementById('puzzle-task')"),
            ("/analysis".into(), holes),
            ("/@/Awa".into(), "document.getElementById('player-games')"),
            (
                "/leaderboard".into(),
                "document.getElementById('leaderboard')",
            ),
            (invite, "document.getElementById('claim-page')"),
            ("/nowhere".into(), "document.getElementById('not-found')"),
        ],
    })
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

async fn sweep(chrome: &Chrome, server: &Server, width: u32, lang: &str) -> Res<usize> {
    let page = chrome.page(&format!("{}/rules", server.url)).await?;
    js(
        &page,
        &format!("localStorage.setItem('gore.lang', '{lang}'); localStorage.setItem('gore.animation', 'off')"),
    )
    .await?;
    let pages = make_pages(&page).await?;
    let mut checked = 0;
    for (path, drawn) in &pages.list {
        visit(&page, format!("{}{path}", server.url)).await?;
        wait_for(
            &page,
            &format!("document.documentElement.lang === '{lang}' && ({drawn})"),
            &format!("{path} drawn"),
            60,
        )
        .await?;
        for dark in [false, true] {
            scheme(&page, dark).await?;
            let tag = format!(
                "a11y-{}-{lang}-{width}-{}",
                path.trim_start_matches('/')
                    .replace(['/', '?', '=', '@'], "_"),
                if dark { "dark" } else { "light" }
            );
            assert_accessible(&page, &tag).await?;
            checked += 1;
        }
        scheme(&page, false).await?;
    }
    Ok(checked)
}

#[test]
fn every_page_is_accessible_light_and_dark() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("every_page_is_accessible_light_and_dark") else {
        return;
    };
    runtime().block_on(async {
        for (w, hgt, lang) in [(360, 740, "fr"), (1366, 768, "en")] {
            // A server each: the account's name is taken once per server.
            let server = Server::start();
            let chrome = Chrome::launch(&exe, w, hgt).await.expect("launch chromium");
            let r = sweep(&chrome, &server, w, lang).await;
            chrome.close().await;
            // 13 pages, light and dark.
            assert_eq!(r.unwrap_or_else(|e| panic!("{lang} at {w}: {e}")), 26);
        }
    });
}
