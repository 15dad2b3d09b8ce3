//! Clocks in the browser (issue 13): a friend game with a clock chosen on
//! the home page; both clocks shown, the running one ticking, the first
//! move's countdown and the abort button; then a game played to a flag on
//! the server's real clock (a minute: the server decides, both pages show
//! it), in English for one player and Spanish for the other.

#[allow(unused_imports)] // the shared helpers re-export more than this file uses
mod browser_support;
use browser_support::*;

#[test]
fn clocks_tick_and_the_flag_falls() {
    let Some(exe) = browser_or_skip("clocks_tick_and_the_flag_falls") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = Server::start();
        let host = Chrome::launch(&exe, 1100, 900).await.unwrap();
        let guest = Chrome::launch(&exe, 390, 800).await.unwrap();
        let r = clocks(&host, &guest, &server).await;
        host.close().await;
        guest.close().await;
        r.unwrap();
    });
}

/// Opens the invitation at `invite` on `page` and joins.
async fn join(page: &Page, server: &Server, invite: &str) -> Res<()> {
    visit(page, format!("{}{invite}", server.url)).await?;
    wait_id(page, "join-btn", "the invitation", 20).await?;
    click(page, "#join-btn").await?;
    wait_id(page, "game-page", "the guest's game", 20).await?;
    live(page).await
}

async fn clocks(host: &Chrome, guest: &Chrome, server: &Server) -> Res<()> {
    // The home page: a friend game with 3 min + 2 s chosen in the form.
    let page = host.page(&format!("{}/", server.url)).await?;
    js(
        &page,
        "localStorage.setItem('gore.lang', 'en'); localStorage.setItem('gore.animation', 'off')",
    )
    .await?;
    visit(&page, format!("{}/", server.url)).await?;
    wait_id(&page, "clock", "the clock choice", 20).await?;
    js(&page, "document.getElementById('game-options').open = true").await?;
    let paces = js(
        &page,
        "[...document.querySelectorAll('#clock option')].map(o => o.value).join(' ')",
    )
    .await?;
    assert_eq!(paces, "none 3+2 5+3 10+5 15+10 1d 3d", "the server's paces");
    set_value(&page, "clock", "3+2").await?;
    click(&page, "#colour-A").await?;
    click(&page, "#play-friend").await?;
    wait_page(&page, "/g/", "clock-A", "the game page with clocks", 20).await?;
    live(&page).await?;
    assert_eq!(text(&page, "#clock-A").await?, "3:00");
    assert_eq!(text(&page, "#clock-B").await?, "3:00");
    shot(&page, "c01-clocks-waiting").await?;

    // A friend game of one minute, made through the API, for the flag.
    let g = js(
        &page,
        r#"fetch('/api/games', {method: 'POST', headers: {'Content-Type': 'application/json'},
            body: JSON.stringify({mode: 'friend', colour: 'A', clock: '1+0'})}).then(r => r.json())"#,
    )
    .await?;
    let url = g["url"].as_str().ok_or("no url")?.to_string();
    let invite = g["invite"].as_str().ok_or("no invite")?.to_string();
    let other = guest.page(&format!("{}/rules", server.url)).await?;
    js(
        &other,
        "localStorage.setItem('gore.lang', 'es'); localStorage.setItem('gore.animation', 'off')",
    )
    .await?;
    join(&other, server, &invite).await?;
    visit(&page, format!("{}{url}", server.url)).await?;
    wait_id(&page, "clock-A", "the clocks", 20).await?;
    live(&page).await?;
    // Before each has moved: A's first move counted down, abort offered.
    wait_shown(&page, "clock-note", "the first move's countdown", 10).await?;
    let note = text(&page, "#clock-note").await?;
    assert!(note.contains("s to make a first move"), "{note}");
    wait_id(&other, "abort-btn", "abort, in B's page", 10).await?;
    click(&page, ".hole[data-hole=a3]").await?;
    ply_is(&other, 1, "a3 seen by B").await?;
    click(&other, ".hole[data-hole=b3]").await?;
    ply_is(&page, 2, "b3 seen by A").await?;
    // Both have moved: no abort, A's clock runs and ticks down.
    wait_gone(&page, "#abort-btn", "no abort once both moved", 10).await?;
    wait_for(
        &page,
        "document.getElementById('clock-A').classList.contains('running')",
        "A's clock running",
        10,
    )
    .await?;
    wait_text(&page, "clock-A", "0:58", "A's clock ticking", 10).await?;
    assert_eq!(
        text(&page, "#clock-B").await?,
        "1:00",
        "B's clock stands still"
    );
    assert!(
        js(
            &other,
            "document.getElementById('clock-A').classList.contains('running')"
        )
        .await?
            == Value::Bool(true),
        "B sees A's clock run"
    );
    shot(&page, "c02-clock-running").await?;
    // Under 20 s: tenths, and the low-time warning.
    wait_for(
        &page,
        "document.getElementById('clock-A').classList.contains('low')",
        "the low-time warning",
        60,
    )
    .await?;
    let low = text(&page, "#clock-A").await?;
    assert!(
        low.starts_with("0:1") && low.contains('.'),
        "tenths under 20 s: {low}"
    );
    shot(&page, "c03-low-time").await?;
    // A does nothing: the server's flag reaches both pages.
    wait_shown(&page, "result", "the flag, A's page", 40).await?;
    wait_shown(&other, "result", "the flag, B's page", 10).await?;
    assert_eq!(
        text(&page, "#result-headline").await?,
        "You lose. (B wins.)"
    );
    assert_eq!(
        text(&page, "#result-reason").await?,
        "The game ended because A ran out of time."
    );
    assert_eq!(text(&page, "#clock-A").await?, "0:00.0");
    let reason = text(&other, "#result-reason").await?;
    assert!(reason.contains("se le ha acabado el tiempo"), "{reason}");
    shot(&page, "c04-flag").await?;
    shot(&other, "c05-flag-es-phone").await?;
    Ok(())
}
