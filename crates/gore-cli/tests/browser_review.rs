//! The game review in the browser (issue 14): a game finished on one
//! device, its Review button, the evaluation chart with the blunder
//! marked, the blunder clicked, the better action shown and played on the
//! review's board; in English on a desktop and in French on a 360 px
//! phone, checked with axe-core. The game starts from a position whose
//! blunder is known by hand (gore-learn's tests/review.rs): B to move,
//! `b4` takes all 9 seeds on the board, `b3` lets A's `a2` end the game.
//!
//! Without Chromium it prints a loud warning and passes, except on CI
//! (`CI=true`). Screenshots go to `target/screenshots/`.

#[allow(unused_imports)] // the shared helpers re-export more than this file uses
mod browser_support;
use browser_support::*;

const START: &str = "1,4,0,0/1,1,1,1 AAAA/BBBB 19-20 B -";

/// Creates the local game from the page (its cookie holds both seats),
/// plays B's blunder b3 and A's a2 that ends it; returns its id.
async fn finished_game(page: &Page) -> Res<String> {
    let v = js(
        page,
        &format!(
            r#"(async () => {{
                const post = (path, body) => fetch(path, {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify(body)}}).then(r => r.json());
                const g = await post('/api/games', {{mode: 'local', rules: 'no-trades', start: '{START}'}});
                await post(`/api/games/${{g.id}}/actions`, {{action: 'b3'}});
                const end = await post(`/api/games/${{g.id}}/actions`, {{action: 'a2'}});
                return {{id: g.id, status: end.status}};
            }})()"#
        ),
    )
    .await?;
    if v["status"] != "over" {
        return Err(format!("the game did not end: {v}").into());
    }
    Ok(v["id"].as_str().unwrap().to_string())
}

/// A review, from the finished game's page to the better action played.
async fn review_in(chrome: &Chrome, server: &Server, lang: &str, tag: &str) -> Res<()> {
    let page = chrome.page(&format!("{}/rules", server.url)).await?;
    js(
        &page,
        &format!("localStorage.setItem('gore.lang', '{lang}'); localStorage.setItem('gore.animation', 'off')"),
    )
    .await?;
    let id = finished_game(&page).await?;
    page.goto(format!("{}/g/{id}", server.url)).await?;
    wait_for(
        &page,
        "document.getElementById('review-btn')",
        "the Review button",
        20,
    )
    .await?;
    click(&page, "#review-btn").await?;
    wait_for(
        &page,
        "document.querySelector('#review-chart .review-mark.review-blunder')",
        "the chart with the blunder marked",
        60,
    )
    .await?;
    let path = js(&page, "location.pathname").await?;
    assert_eq!(path, format!("/review/{id}"), "{tag}");
    assert_eq!(js(&page, "document.documentElement.lang").await?, lang);
    // Two actions: B's b3 a blunder, A's a2 the end.
    let items = js(
        &page,
        "[...document.querySelectorAll('#review-list .review-item')].map(b => b.textContent)",
    )
    .await?;
    assert_eq!(items, serde_json::json!(["1. B b3 ??", "2. A a2"]), "{tag}");
    // The mark's accessible name names the action and its class.
    let label = js(
        &page,
        "document.querySelector('.review-mark.review-blunder').getAttribute('aria-label')",
    )
    .await?;
    let label = label.as_str().unwrap_or_default().to_string();
    let blunder_word = if lang == "fr" { "gaffe" } else { "blunder" };
    assert!(
        label.starts_with("1. B b3") && label.contains(blunder_word),
        "{tag}: {label}"
    );
    shot(&page, &format!("review-{tag}-chart")).await?;
    assert_accessible(&page, &format!("review-{tag}")).await?;

    // Select the other action, then click the blunder's mark.
    click(&page, "#review-ply-2").await?;
    wait_for(
        &page,
        "document.querySelector('#review-ply-2[aria-current=true]')",
        "action 2 selected",
        10,
    )
    .await?;
    click(&page, ".review-mark.review-blunder").await?;
    wait_for(
        &page,
        "document.querySelector('#review-ply-1[aria-current=true]')",
        "the blunder selected",
        10,
    )
    .await?;
    let best = text(&page, "#review-best").await?;
    assert!(best.contains("b4"), "{tag}: {best}");
    // b4: B ends with all 9 seeds on the board, 20 + 9 = 29 of 48.
    assert!(best.contains("19.0–29.0"), "{tag}: {best}");
    let played = text(&page, "#review-played").await?;
    assert!(
        played.contains("b3") && played.contains("??"),
        "{tag}: {played}"
    );
    // The board before b3: b4 is the better action's hole, playable.
    let legal = js(
        &page,
        "[...document.querySelectorAll('#review-detail .hole.legal')].map(g => g.dataset.hole)",
    )
    .await?;
    assert_eq!(legal, serde_json::json!(["b4"]), "{tag}");
    let href = js(
        &page,
        "document.getElementById('review-analysis-best').getAttribute('href')",
    )
    .await?;
    assert_eq!(
        href,
        "/analysis?rules=no-trades&gpn=1%2C4%2C0%2C0%2F1%2C1%2C1%2C1+AAAA%2FBBBB+19-20+B+-&line=b4&ply=1",
        "{tag}"
    );
    shot(&page, &format!("review-{tag}-blunder")).await?;

    // Play the better action on the board: a1 (2) and a2 (4) captured,
    // B's three 1s left (the sweep is the game's, not shown).
    click(&page, "#review-detail .hole[data-hole=b4]").await?;
    wait_for(
        &page,
        "document.getElementById('review-play-best').getAttribute('aria-pressed') === 'true'",
        "the better action played",
        10,
    )
    .await?;
    let counts = js(
        &page,
        "['a1','a2','a3','a4','b1','b2','b3','b4'].map(h => document.querySelector(`#review-detail .hole[data-hole=${h}] .count`).textContent)",
    )
    .await?;
    assert_eq!(
        counts,
        serde_json::json!(["0", "0", "0", "0", "1", "1", "1", "0"]),
        "{tag}"
    );
    let tray_b = text(&page, "#review-detail .tray-B .tray-count").await?;
    assert_eq!(tray_b.trim(), "26", "{tag}: 20 + 6 captured");
    shot(&page, &format!("review-{tag}-better")).await?;
    assert_accessible(&page, &format!("review-{tag}-better")).await?;

    // The same game from its record, uploaded on /review.
    page.goto(format!("{}/review", server.url)).await?;
    wait_for(
        &page,
        "document.getElementById('review-upload')",
        "the upload form",
        20,
    )
    .await?;
    assert_accessible(&page, &format!("review-{tag}-upload")).await?;
    js(
        &page,
        &format!(
            "document.getElementById('review-text').value = {}",
            serde_json::to_string(&format!(
                "[Rules \"no-trades\"]\n[Start \"{START}\"]\n\n1. b3 a2\n"
            ))?
        ),
    )
    .await?;
    click(&page, "#review-submit").await?;
    wait_for(
        &page,
        "document.querySelector('#review-chart .review-mark.review-blunder')",
        "the uploaded record's review",
        60,
    )
    .await?;
    let best = text(&page, "#review-best").await?;
    assert!(best.contains("b4"), "{tag}: {best}");
    // A record that does not read: the server's message, naming the line.
    page.goto(format!("{}/review", server.url)).await?;
    wait_for(
        &page,
        "document.getElementById('review-upload')",
        "the upload form",
        20,
    )
    .await?;
    js(
        &page,
        "document.getElementById('review-text').value = '[Rules \"standard\"]\\n\\n1. a1 zz\\n'",
    )
    .await?;
    click(&page, "#review-submit").await?;
    wait_for(
        &page,
        "document.getElementById('review-error')",
        "the error",
        20,
    )
    .await?;
    let err = text(&page, "#review-error").await?;
    assert!(err.contains("line 3") && err.contains("zz"), "{tag}: {err}");
    Ok(())
}

#[test]
fn a_finished_game_is_reviewed_and_its_blunder_shown_in_english_and_french() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("a_finished_game_is_reviewed_and_its_blunder_shown") else {
        return;
    };
    let server = Server::start();
    runtime().block_on(async {
        let desktop = Chrome::launch(&exe, 1280, 900)
            .await
            .expect("launch chromium");
        let r = review_in(&desktop, &server, "en", "en-desktop").await;
        desktop.close().await;
        r.expect("English, desktop");
        let phone = Chrome::launch(&exe, 360, 780)
            .await
            .expect("launch chromium");
        let r = review_in(&phone, &server, "fr", "fr-phone").await;
        phone.close().await;
        r.expect("French, phone");
    });
}
