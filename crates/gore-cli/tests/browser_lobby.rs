//! The lobby in the browser (issue 13): two strangers in two browsers
//! (English and Spanish) pair from the home page with one click on a pace,
//! see each other's names, and play to a flag decided by the server; a
//! third browser (French) watches the lobby change live: the seek appears,
//! then the game being played. The server offers a one-minute pace for the
//! test (`--paces 1+0,5+3`), so that the flag falls within the test.

#[allow(unused_imports)] // the shared helpers re-export more than this file uses
mod browser_support;
use browser_support::*;

#[test]
fn strangers_pair_from_the_home_page_and_play_to_a_flag() {
    let Some(exe) = browser_or_skip("strangers_pair_from_the_home_page_and_play_to_a_flag") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = start_server_with(&["--paces", "1+0,5+3"]);
        let host = Chrome::launch(&exe, 1100, 1000).await.unwrap();
        let guest = Chrome::launch(&exe, 390, 844).await.unwrap();
        let watcher = Chrome::launch(&exe, 1000, 900).await.unwrap();
        let r = lobby(&host, &guest, &watcher, &server).await;
        host.close().await;
        guest.close().await;
        watcher.close().await;
        r.unwrap();
    });
}

/// The home page in `lang`, its lobby live.
async fn home(chrome: &Chrome, server: &Server, lang: &str) -> Res<Page> {
    let page = chrome.page(&format!("{}/rules", server.url)).await?;
    js(
        &page,
        &format!("localStorage.setItem('gore.lang', '{lang}'); localStorage.setItem('gore.animation', 'off')"),
    )
    .await?;
    visit(&page, format!("{}/", server.url)).await?;
    wait_data(&page, "lobby-status", "live", "1", "the lobby live", 20).await?;
    Ok(page)
}

async fn my_name(page: &Page) -> Res<String> {
    wait_for(
        page,
        "document.getElementById('my-name').textContent.length > 2",
        "the name",
        10,
    )
    .await?;
    text(page, "#my-name").await
}

async fn lobby(host: &Chrome, guest: &Chrome, watcher: &Chrome, server: &Server) -> Res<()> {
    let w = home(watcher, server, "fr").await?;
    let h = home(host, server, "en").await?;
    let host_name = my_name(&h).await?;
    // The server's paces, as buttons.
    let paces = js(
        &h,
        "[...document.querySelectorAll('#quick-pairing .pace')].map(b => b.dataset.pace).join(' ')",
    )
    .await?;
    assert_eq!(paces, "1+0 5+3");
    click(&h, "#seek-0").await?;
    wait_shown(&h, "seek-line", "seeking", 10).await?;
    // The watcher sees the seek arrive, with the host's name.
    wait_for(
        &w,
        &format!("[...document.querySelectorAll('#challenges .challenge .who')].some(e => e.textContent === {host_name:?})"),
        "the seek in a third browser",
        10,
    )
    .await?;
    shot(&h, "l01-seeking").await?;
    shot(&w, "l02-watcher-sees-the-seek").await?;
    // The guest, in Spanish, clicks the same pace: both are paired.
    let g = home(guest, server, "es").await?;
    let guest_name = my_name(&g).await?;
    click(&g, "#seek-0").await?;
    for (p, who) in [(&h, "the host"), (&g, "the guest")] {
        wait_for(p, "location.pathname.startsWith('/g/') && document.getElementById('game-page') && document.getElementById('clock-A')", &format!("{who}'s game"), 20).await?;
        live(p).await?;
    }
    let (hu, gu) = (
        js(&h, "location.pathname").await?,
        js(&g, "location.pathname").await?,
    );
    assert_eq!(hu, gu, "one game");
    // Each sees both names, his own marked.
    let names_h = text(&h, "#players").await?;
    assert!(
        names_h.contains(&format!("{host_name} (you)")) && names_h.contains(&guest_name),
        "{names_h}"
    );
    let names_g = text(&g, "#players").await?;
    assert!(
        names_g.contains(&format!("{guest_name} (tú)")) && names_g.contains(&host_name),
        "{names_g}"
    );
    assert_eq!(
        text(&g, "#game-title").await?,
        "Partida contra otro jugador"
    );
    // The watcher's lobby lists the game being played, without the seek.
    wait_for(
        &w,
        &format!("[...document.querySelectorAll('#playing-now .playing .who')].some(e => e.textContent.includes({host_name:?}) && e.textContent.includes({guest_name:?})) && !document.querySelector('#challenges .challenge')"),
        "the game listed in a third browser",
        10,
    )
    .await?;
    shot(&w, "l03-watcher-sees-the-game").await?;
    // A moves, B moves, then A lets his minute run out.
    let host_is_a = js(&h, "document.getElementById('game-page').dataset.you").await?
        == Value::String("A".into());
    let (a, b) = if host_is_a { (&h, &g) } else { (&g, &h) };
    click(a, ".hole[data-hole=a3]").await?;
    ply_is(b, 1, "a3 seen by B").await?;
    click(b, ".hole[data-hole=b3]").await?;
    ply_is(a, 2, "b3 seen by A").await?;
    // The chat: markup typed is text read, on the other side.
    let said = "<b>hola</b> & 'bye'";
    js(
        &h,
        &format!("document.getElementById('chat-input').value = {said:?}"),
    )
    .await?;
    click(&h, "#chat-send").await?;
    wait_for(
        &g,
        &format!("[...document.querySelectorAll('#chat-lines .chat-text')].some(e => e.textContent === {said:?}) && !document.querySelector('#chat-lines b')"),
        "the message as text in B's chat",
        10,
    )
    .await?;
    shot(&g, "l04-guest-playing-es").await?;
    wait_shown(a, "result", "the flag, A's page", 90).await?;
    wait_shown(b, "result", "the flag, B's page", 10).await?;
    let reason_h = text(&h, "#result-reason").await?;
    let reason_g = text(&g, "#result-reason").await?;
    assert!(reason_h.contains("ran out of time"), "{reason_h}");
    assert!(
        reason_g.contains("se le ha acabado el tiempo"),
        "{reason_g}"
    );
    shot(&h, "l05-flag").await?;
    // The finished game leaves the watcher's list.
    wait_gone(
        &w,
        "#playing-now .playing",
        "the finished game gone from the lobby",
        20,
    )
    .await?;
    Ok(())
}

#[test]
fn accounts_play_a_rated_game_and_see_their_ratings_move() {
    let Some(exe) = browser_or_skip("accounts_play_a_rated_game_and_see_their_ratings_move") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = Server::start();
        let host = Chrome::launch(&exe, 1100, 1000).await.unwrap();
        let guest = Chrome::launch(&exe, 390, 844).await.unwrap();
        let r = rated(&host, &guest, &server).await;
        host.close().await;
        guest.close().await;
        r.unwrap();
    });
}

/// Signs up on the home page as `name`; back on the home page, logged in.
async fn sign_up(page: &Page, name: &str) -> Res<()> {
    click(page, "#signup-open").await?;
    wait_id(page, "signup-form", "the sign-up form", 10).await?;
    js(
        page,
        &format!("document.getElementById('signup-form-username').value = {name:?}; document.getElementById('signup-form-password').value = 'a long passphrase'"),
    )
    .await?;
    click(page, "#signup-form-submit").await?;
    wait_for(page, &format!("document.getElementById('my-page') && document.getElementById('my-name').textContent === {name:?}"), "logged in", 20).await?;
    wait_data(page, "lobby-status", "live", "1", "the lobby again", 20).await
}

async fn rated(host: &Chrome, guest: &Chrome, server: &Server) -> Res<()> {
    let h = home(host, server, "en").await?;
    sign_up(&h, "Awa_K").await?;
    let g = home(guest, server, "es").await?;
    sign_up(&g, "Irati_Z").await?;
    shot(&g, "l06-signed-up-es").await?;
    // Rated, 3+2, one click each.
    for p in [&h, &g] {
        wait_for(
            p,
            "!document.querySelector('label[for=rated]').hidden",
            "the rated switch",
            10,
        )
        .await?;
        click(p, "#rated").await?;
    }
    click(&h, "#seek-0").await?;
    wait_shown(&h, "seek-line", "seeking", 10).await?;
    click(&g, "#seek-0").await?;
    for (p, who) in [(&h, "the host"), (&g, "the guest")] {
        wait_page(p, "/g/", "rating-A", &format!("{who}'s rated game"), 20).await?;
        live(p).await?;
    }
    assert_eq!(text(&h, "#rating-A").await?, "1500?");
    assert_eq!(text(&h, "#rating-B").await?, "1500?");
    // Each makes an action first: before that a resignation aborts a
    // rated game (issue 25). A, to move, sows a3; then B b3.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let (a, b) = loop {
        // The page of the one to move offers holes (once it has drawn).
        if !view(&h).await?.holes.is_empty() {
            break (&h, &g);
        }
        if !view(&g).await?.holes.is_empty() {
            break (&g, &h);
        }
        assert!(std::time::Instant::now() < deadline, "nobody to move");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    click(a, ".hole[data-hole=a3]").await?;
    wait_data(b, "game-page", "ply", "1", "a3 seen by B", 20).await?;
    click(b, ".hole[data-hole=b3]").await?;
    wait_data(a, "game-page", "ply", "2", "b3 seen by A", 20).await?;
    // The host resigns: the guest wins.
    click(&h, "#resign-btn").await?;
    click(&h, "#resign-yes").await?;
    wait_shown(&g, "result", "the result, B's page", 20).await?;
    // Each one's page: the rating moved (hand-derived: 1500 ± 350 beating
    // 1500 ± 350 gives 1662 and 1338), with its chart and the game.
    for (p, name, shown, result) in [
        (&h, "Awa_K", "1338?", "lost"),
        (&g, "Irati_Z", "1662?", "ganada"),
    ] {
        visit(p, format!("{}/@/{name}", server.url)).await?;
        wait_for(p, &format!("document.getElementById('rating-fast') && document.getElementById('rating-fast').textContent.includes({shown:?})"), &format!("{name}'s new rating"), 20).await?;
        wait_el(p, "#history-fast svg polyline", "the chart", 10).await?;
        let games = text(p, "#player-games").await?;
        assert!(games.contains(result), "{name}: {games}");
    }
    shot(&h, "l07-player-page").await?;
    shot(&g, "l08-player-page-es").await?;
    visit(&h, format!("{}/leaderboard", server.url)).await?;
    wait_count(&h, "#board-fast li a", 2, "the leaderboard", 20).await?;
    let first = js(&h, "document.querySelector('#board-fast li a').textContent").await?;
    assert_eq!(first, "Irati_Z");
    shot(&h, "l09-leaderboard").await?;
    Ok(())
}
