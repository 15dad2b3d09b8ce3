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
    wait_for(
        &page,
        "document.getElementById('start-game')",
        "home page",
        20,
    )
    .await?;
    for lang in ["en", "eu"] {
        choose_lang(&page, lang).await?;
        assert_accessible(&page, &format!("home-{lang}")).await?;
        page.goto(format!("{}/rules", server.url)).await?;
        wait_for(
            &page,
            "document.querySelector('.rules-page h1, .rules-page h2')",
            "rules page",
            20,
        )
        .await?;
        assert_accessible(&page, &format!("rules-{lang}")).await?;
        page.goto(format!("{}/", server.url)).await?;
        wait_for(
            &page,
            "document.getElementById('start-game')",
            "home page",
            20,
        )
        .await?;
    }
    Ok(())
}
