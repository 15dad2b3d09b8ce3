//! Browser test of the perfect level: a server with a solver database
//! offers it on the home page only for games without trades, and the game
//! page names the computer as the perfect player.
//!
//! Without Chromium it prints a loud warning and passes, except on CI
//! (`CI=true`). Screenshots go to `target/screenshots/`.

#[allow(unused_imports)]
mod browser_support;
use browser_support::*;

/// Whether the level list offers "perfect".
const OFFERED: &str = "!!document.querySelector('#level option[value=\"perfect\"]')";

#[test]
fn the_perfect_level_is_offered_for_no_trade_games() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("the_perfect_level_is_offered_for_no_trade_games") else {
        return;
    };
    let db = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gore"))
        .args([
            "solve",
            "--db",
            db.path().to_str().unwrap(),
            "--max-seeds",
            "8",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let server = start_server_with(&[
        "--solver-db",
        db.path().to_str().unwrap(),
        "--ai-time-ms",
        "200",
    ]);
    runtime().block_on(async {
        let chrome = Chrome::launch(&exe, 1280, 800)
            .await
            .expect("launch chromium");
        let r = perfect_level(&chrome, &server).await;
        chrome.close().await;
        r.expect("the perfect level");
    });
}

async fn perfect_level(chrome: &Chrome, server: &Server) -> Res<()> {
    let page = chrome.page(&server.url).await?;
    wait_id(&page, "level", "the level list", 20).await?;
    js(&page, "document.getElementById('game-options').open = true").await?;
    // Standard rules: trades allowed, no perfect level (the server has
    // answered /api/solver by the time the list has its levels and the
    // summary is written; the check is repeated after the no-trades box).
    let offered = js(&page, OFFERED).await?;
    assert_eq!(offered, serde_json::json!(false));
    click(&page, "#rule-no-trades").await?;
    wait_for(&page, OFFERED, "the perfect level with no-trades", 10).await?;
    set_value(&page, "level", "perfect").await?;
    wait_text_starts(
        &page,
        "game-summary",
        "Computer: perfect play",
        "the summary",
        10,
    )
    .await?;
    shot(&page, "perfect-home").await?;
    // Trades allowed again: the level goes, and the summary says the top
    // level (the one the perfect player searches as above its database).
    click(&page, "#rule-no-trades").await?;
    wait_for(
        &page,
        &format!("!{OFFERED}"),
        "no perfect level with trades",
        10,
    )
    .await?;
    let top = gore_ai::MAX_LEVEL;
    wait_for(
        &page,
        &format!(
            "document.getElementById('game-summary').textContent.startsWith('Computer: Full strength (level {top})')"
        ),
        "the summary at the top level",
        10,
    )
    .await?;
    // And back: the choice was kept; start a game, the computer is named.
    click(&page, "#rule-no-trades").await?;
    wait_for(&page, OFFERED, "the perfect level again", 10).await?;
    set_value(&page, "level", "perfect").await?;
    click(&page, "#colour-A").await?;
    click(&page, "#play-ai").await?;
    wait_page(&page, "/g/", "game-page", "the game page", 20).await?;
    wait_for(
        &page,
        "document.body.textContent.includes('Computer (perfect)')",
        "the computer named perfect",
        20,
    )
    .await?;
    shot(&page, "perfect-game").await?;
    Ok(())
}
