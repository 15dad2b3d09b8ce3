//! Browser tests of the web app: a real `gore serve` and headless Chromium
//! (Debian's /usr/bin/chromium), driven over the DevTools protocol with
//! chromiumoxide. They click what a person clicks: holes, the offer
//! buttons, the language switch.
//!
//! Without Chromium they print a loud warning and pass, except on CI
//! (`CI=true`), where a missing browser is a failure. Screenshots of the
//! key moments go to `target/screenshots/`.

mod browser_support;
use browser_support::*;

// ---------------------------------------------------------------- tests --

/// A whole game against the AI at level 1, clicking legal holes (and
/// answering offers) until the end; then the result, the review and the
/// record link.
#[test]
fn ai_game_played_to_the_end() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("ai_game_played_to_the_end") else {
        return;
    };
    let server = Server::start();
    runtime().block_on(async {
        let chrome = Chrome::launch(&exe, 1000, 900)
            .await
            .expect("launch chromium");
        let r = ai_game(&chrome, &server).await;
        chrome.close().await;
        r.expect("ai game");
    });
}

async fn ai_game(chrome: &Chrome, server: &Server) -> Res<()> {
    let started = Instant::now();
    let page = chrome.page(&format!("{}/", server.url)).await?;
    wait_id(&page, "play-ai", "home page", 20).await?;
    shot(&page, "01-home").await?;
    set_speed(&page, "normal").await?;
    new_game(&page, "ai", "A", 1).await?;
    // The page shows when the AI thinks (the server's `thinking`): counted
    // however briefly it lasts.
    js(
        &page,
        "return (() => { window.__thinking = 0; \
         new MutationObserver(() => { const g = document.getElementById('game-page'); \
         if (g && g.dataset.thinking === '1') window.__thinking += 1; }) \
         .observe(document.body, { attributes: true, subtree: true, attributeFilter: ['data-thinking'] }); return true; })()",
    )
    .await?;
    wait_for(
        &page,
        "document.querySelectorAll('.hole[aria-disabled=\"false\"]').length === 4",
        "A's four legal holes",
        20,
    )
    .await?;
    // Every hole is a labelled button; the legal ones are enabled.
    let labels = js(
        &page,
        "[...document.querySelectorAll('.hole')].map(h => h.getAttribute('role') + '|' + h.getAttribute('tabindex') + '|' + h.getAttribute('aria-label'))",
    )
    .await?;
    let labels: Vec<String> = serde_json::from_value(labels)?;
    assert_eq!(labels.len(), 8);
    // The board is one Tab stop (roving tabindex): a1, the first playable hole.
    assert!(
        labels.contains(&"button|0|a1: 6 seeds, controlled by A".to_string()),
        "{labels:?}"
    );
    assert!(
        labels.contains(&"button|-1|a3: 6 seeds, controlled by A".to_string()),
        "{labels:?}"
    );
    assert_eq!(
        labels.iter().filter(|l| l.contains("|0|")).count(),
        1,
        "{labels:?}"
    );
    // B's row on top, right to left; A's row at the bottom, left to right.
    let order = js(
        &page,
        "[...document.querySelectorAll('.hole')].map(h => { const r = h.querySelector('.hole-bg').getBoundingClientRect(); return [h.dataset.hole, Math.round(r.x), Math.round(r.y)]; })",
    )
    .await?;
    let pos: Vec<(String, i64, i64)> = serde_json::from_value(order)?;
    let at = |h: &str| pos.iter().find(|p| p.0 == h).cloned().unwrap();
    assert!(
        at("a1").1 < at("a2").1 && at("a2").1 < at("a4").1,
        "{pos:?}"
    );
    assert!(
        at("b4").1 < at("b1").1 && at("b1").2 < at("a1").2,
        "{pos:?}"
    );
    assert!((at("b4").1 - at("a1").1).abs() < 3, "b4 above a1: {pos:?}");
    shot(&page, "02-ai-start").await?;

    // The first sowing, animated: seeds seen in flight, then skipped. A
    // MutationObserver counts every flying seed drawn, however fast or
    // slow the page runs; without animation `Board.fly` draws none. Slow
    // speed keeps the skip button up long enough on a loaded machine.
    let first = js(
        &page,
        "document.querySelector('.hole[data-hole=\"a3\"] .count').textContent",
    )
    .await?;
    assert_eq!(first, Value::String("6".into()));
    js(
        &page,
        "return (() => { window.__flown = 0; \
         new MutationObserver((ms) => { for (const m of ms) for (const n of m.addedNodes) \
         if (n.classList && n.classList.contains('flying')) window.__flown += 1; }) \
         .observe(document.body, { childList: true, subtree: true }); return true; })()",
    )
    .await?;
    set_speed(&page, "slow").await?;
    click(&page, ".hole[data-hole=a3]").await?;
    wait_for(
        &page,
        "window.__flown >= 1 && document.getElementById('skip-btn')",
        "a seed in flight and the skip button",
        10,
    )
    .await?;
    shot(&page, "03-sowing-animation").await?;
    click(&page, "#skip-btn").await?;
    wait_data(
        &page,
        "game-page",
        "busy",
        "0",
        "the animation to stop after skipping",
        5,
    )
    .await?;
    let flown = js(&page, "window.__flown").await?;
    assert!(flown.as_u64().unwrap_or(0) >= 1, "no seed flew: {flown}");
    assert_eq!(text(&page, "#moves li[data-ply='1'] .tok").await?, "a3");

    // A few moves fast, then the rest without animation.
    set_speed(&page, "fast").await?;
    let mut rng = Lcg(7);
    let mut answered = 0;
    let mut clicks = 0;
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        if Instant::now() > deadline {
            return Err(format!("the game did not end in time ({clicks} clicks)").into());
        }
        let v = view(&page).await?;
        if v.status == "over" && !v.busy {
            break;
        }
        if v.busy {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        }
        let before = v.ply;
        if v.accept {
            // The AI offered: answer it (accept).
            shot(&page, "04-ai-offer").await?;
            click(&page, "#accept-btn").await?;
            answered += 1;
        } else if v.pass {
            click(&page, "#pass-btn").await?;
        } else if !v.holes.is_empty() {
            let h = &v.holes[rng.pick(v.holes.len())];
            click(&page, &format!(".hole[data-hole={h}]")).await?;
        } else {
            tokio::time::sleep(Duration::from_millis(80)).await;
            continue;
        }
        clicks += 1;
        if clicks == 6 {
            set_speed(&page, "off").await?;
        }
        wait_ply_above_or_over(&page, before, "the action to be shown", 30).await?;
    }
    wait_shown(&page, "result", "the result", 10).await?;
    no_raw_keys(&page).await?;
    shot(&page, "05-ai-game-over").await?;
    let score = text(&page, "#final-score").await?;
    let nums: Vec<u32> = score
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    assert_eq!(nums.len(), 2, "{score}");
    assert_eq!(nums[0] + nums[1], 48, "{score}");
    let headline = text(&page, "#result-headline").await?;
    assert!(
        headline.contains("You win") || headline.contains("You lose") || headline.contains("draw"),
        "{headline}"
    );
    // The board is swept: every hole empty, the trays hold everything.
    let counts = js(
        &page,
        "[...document.querySelectorAll('.hole .count')].map(c => c.textContent).join(',')",
    )
    .await?;
    assert_eq!(counts, Value::String("0,0,0,0,0,0,0,0".into()));
    let plies = js(
        &page,
        "Number(document.getElementById('game-page').dataset.ply)",
    )
    .await?;
    let plies = plies.as_u64().unwrap();
    assert!(plies >= 2);
    rendered_once(&page, "the AI game", false).await?;
    let thinking = js(&page, "window.__thinking").await?;
    assert!(
        thinking.as_u64().unwrap_or(0) >= 1,
        "the AI's thinking was never shown"
    );
    // Step through the game with the keyboard.
    js(
        &page,
        "document.activeElement && document.activeElement.blur()",
    )
    .await?;
    page.find_element("body").await?.press_key("Home").await?;
    wait_text(
        &page,
        "review-label",
        "Start position",
        "the start position",
        5,
    )
    .await?;
    let counts = js(
        &page,
        "[...document.querySelectorAll('.hole .count')].map(c => c.textContent).join(',')",
    )
    .await?;
    assert_eq!(counts, Value::String("6,6,6,6,6,6,6,6".into()));
    page.find_element("body")
        .await?
        .press_key("ArrowRight")
        .await?;
    wait_text_starts(&page, "review-label", "Move 1 of", "move 1", 5).await?;
    assert_eq!(text(&page, ".hole[data-hole=a3] .count").await?, "0");
    assert!(
        js(
            &page,
            "document.querySelector('.hole[data-hole=a3]').classList.contains('origin')"
        )
        .await?
            == Value::Bool(true)
    );
    click(&page, "#review-next").await?;
    wait_text_starts(&page, "review-label", "Move 2 of", "move 2", 5).await?;
    shot(&page, "06-review").await?;
    click(&page, "#review-last").await?;
    wait_for(
        &page,
        "document.getElementById('review-next').disabled",
        "the last position",
        5,
    )
    .await?;
    // The record and the rematch.
    let href = js(
        &page,
        "document.getElementById('download-btn').getAttribute('href')",
    )
    .await?;
    let href = href.as_str().unwrap_or_default().to_string();
    assert!(
        href.starts_with("/api/games/") && href.ends_with("/record"),
        "{href}"
    );
    let record = js(&page, &format!("fetch('{href}').then(r => r.text())")).await?;
    let record = record.as_str().unwrap_or_default();
    // A standard game: the operator's ply limit (`--max-plies`) shows only
    // in a game it ended.
    assert!(record.contains("[Rules \"standard\"]"), "{record}");
    assert!(record.contains("1. a3"), "{record}");
    let old = js(&page, "location.pathname").await?;
    click(&page, "#rematch-btn").await?;
    wait_for(
        &page,
        &format!("location.pathname !== {old} && document.getElementById('game-page') && document.getElementById('game-page').dataset.status === 'playing'"),
        "the rematch",
        20,
    )
    .await?;
    assert_eq!(
        js(&page, "document.getElementById('game-page').dataset.you").await?,
        Value::String("B".into())
    );
    // Home lists both games.
    nav_to(&page, "/").await?;
    wait_for(&page, "document.querySelectorAll('#my-games .game-item').length === 2 && !document.body.innerText.includes('Loading')", "the list of games", 10).await?;
    shot(&page, "07-home-with-games").await?;
    eprintln!(
        "ai game: {plies} actions, {clicks} clicks, {answered} offers answered, {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Two browsers play a friend game: one offer is accepted, one declined
/// (with the without-glory warning). The invitation is a one-time claim:
/// opening it (or a link preview's `HEAD`) changes nothing until the friend
/// presses "Join"; the host opening his own link is told so; a third
/// browser opening the claimed link is told it was used. Each page draws
/// each action once.
#[test]
fn friend_game_with_offers() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("friend_game_with_offers") else {
        return;
    };
    let server = Server::start();
    runtime().block_on(async {
        let host = Chrome::launch(&exe, 900, 1000)
            .await
            .expect("launch chromium");
        let guest = Chrome::launch(&exe, 900, 1000)
            .await
            .expect("launch chromium");
        let r = friend_game(&host, &guest, &exe, &server).await;
        host.close().await;
        guest.close().await;
        r.expect("friend game");
    });
}

/// The state of a game as the server holds it, asked without cookies (as a
/// stranger or a bot would).
async fn server_status(page: &Page, game: &str) -> Res<String> {
    let v = js(
        page,
        &format!("fetch('/api/games/{game}', {{credentials: 'omit'}}).then(r => r.json()).then(s => s.status)"),
    )
    .await?;
    Ok(v.as_str().unwrap_or_default().to_string())
}

async fn friend_game(host: &Chrome, guest: &Chrome, exe: &Path, server: &Server) -> Res<()> {
    let started = Instant::now();
    let p1 = host.page(&format!("{}/", server.url)).await?;
    set_speed(&p1, "off").await?;
    // Up to three games: random sowings may end a game before both offers.
    for attempt in 0..3 {
        if attempt > 0 {
            visit(&p1, format!("{}/", server.url)).await?;
        }
        new_game(&p1, "friend", "A", 1).await?;
        wait_id(&p1, "invite-link", "the invitation", 10).await?;
        assert_eq!(
            js(&p1, "document.getElementById('game-page').dataset.status").await?,
            Value::String("waiting".into())
        );
        if attempt == 0 {
            no_raw_keys(&p1).await?;
            shot(&p1, "10-friend-invite").await?;
        }
        let link = js(&p1, "document.getElementById('invite-link').value").await?;
        let link = link.as_str().ok_or("no invitation link")?.to_string();
        assert!(link.contains("/join/"), "{link}");
        let game = js(&p1, "location.pathname.split('/')[2]").await?;
        let game = game.as_str().ok_or("no game id")?.to_string();
        // A link preview's GET and HEAD start nothing.
        for method in ["GET", "HEAD"] {
            let code = js(
                &p1,
                &format!("fetch({link:?}, {{method: '{method}', credentials: 'omit', redirect: 'manual'}}).then(r => r.status)"),
            )
            .await?;
            assert_eq!(code, Value::from(200), "{method} {link}");
        }
        assert_eq!(server_status(&p1, &game).await?, "waiting");
        if attempt == 0 {
            // The host opening his own invitation is told to send it, and
            // does not take the friend's seat.
            let own = host.page(&link).await?;
            wait_el(
                &own,
                "#claim-page[data-view=own]",
                "the own-invitation page",
                20,
            )
            .await?;
            let t = text(&own, "#claim-page").await?;
            assert!(
                t.contains("This is your own invitation: send this link to your friend"),
                "{t}"
            );
            assert!(js(&own, "!document.getElementById('join-btn') && !!document.getElementById('copy-invite') && !!document.getElementById('open-game')").await? == Value::Bool(true));
            no_raw_keys(&own).await?;
            shot(&own, "10b-own-invitation").await?;
            own.close().await?;
            assert_eq!(server_status(&p1, &game).await?, "waiting");
        }
        let p2 = guest.page(&link).await?;
        set_speed(&p2, "off").await?;
        wait_id(&p2, "join-btn", "the join page", 20).await?;
        let t = text(&p2, "#claim-page").await?;
        assert!(t.contains("you will play Player B"), "{t}");
        if attempt == 0 {
            no_raw_keys(&p2).await?;
            shot(&p2, "10c-join-page").await?;
        }
        // Opened, not joined: the host still waits, as the server says.
        assert_eq!(server_status(&p2, &game).await?, "waiting");
        assert_eq!(
            js(&p1, "document.getElementById('game-page').dataset.status").await?,
            Value::String("waiting".into())
        );
        click(&p2, "#join-btn").await?;
        wait_data(
            &p2,
            "game-page",
            "status",
            "playing",
            "the guest's game",
            20,
        )
        .await?;
        assert_eq!(
            js(&p2, "document.getElementById('game-page').dataset.you").await?,
            Value::String("B".into())
        );
        wait_data(
            &p1,
            "game-page",
            "status",
            "playing",
            "the host sees the friend arrive",
            20,
        )
        .await?;
        live(&p2).await?;
        if attempt == 0 {
            // A third browser opening the claimed link is refused plainly.
            let third = Chrome::launch(exe, 900, 800).await?;
            let r = claimed_link(&third, &link).await;
            third.close().await;
            r?;
        }
        let done = play_until_offers(&p1, &p2, attempt).await?;
        rendered_once(&p1, "the host", false).await?;
        rendered_once(&p2, "the guest", false).await?;
        if done {
            eprintln!("friend game: {:.1} s", started.elapsed().as_secs_f64());
            return Ok(());
        }
        p2.close().await?;
    }
    Err("no game reached both an accepted and a declined offer".into())
}

/// A browser without a seat opens an invitation another browser claimed.
async fn claimed_link(chrome: &Chrome, link: &str) -> Res<()> {
    let page = chrome.page(link).await?;
    wait_el(
        &page,
        "#claim-page[data-view=claimed]",
        "the already-used page",
        20,
    )
    .await?;
    let t = text(&page, "#claimed-text").await?;
    assert_eq!(
        t,
        "This invitation has already been used by another browser. Ask your friend for a new game."
    );
    assert_eq!(
        js(&page, "!!document.getElementById('join-btn')").await?,
        Value::Bool(false)
    );
    // Pressing "join" anyway (the API) is refused too: 410 claimed.
    let code = js(
        &page,
        &format!(
            "fetch('/api/games/' + {link:?}.split('/join/')[1].split('/')[0] + '/join', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify({{code: {link:?}.split('/').pop()}})}}).then(r => r.status)"
        ),
    )
    .await?;
    assert_eq!(code, Value::from(410));
    shot(&page, "10d-invitation-used").await?;
    Ok(())
}

/// Plays sowings (both sides) and offers as soon as they are legal; the
/// first offer is accepted, the second declined. False if the game ended
/// first.
async fn play_until_offers(p1: &Page, p2: &Page, attempt: u64) -> Res<bool> {
    let pages = [p1, p2];
    let mut rng = Lcg(11 + attempt);
    let mut offers = 0;
    let mut accepted = false;
    let deadline = Instant::now() + Duration::from_secs(240);
    loop {
        if Instant::now() > deadline {
            return Err("the friend game took too long".into());
        }
        // Whose turn: the page with something to do.
        let mut acted = false;
        for (i, page) in pages.iter().enumerate() {
            let v = view(page).await?;
            if v.status == "over" {
                return Ok(false);
            }
            if v.busy {
                continue;
            }
            let other = pages[1 - i];
            let before = v.ply;
            if v.accept {
                wait_shown(page, "incoming-offer", "the offer box", 5).await?;
                let title = text(page, "#incoming-title").await?;
                assert!(title.contains("offers you"), "{title}");
                if !accepted {
                    shot(page, "12-offer-received").await?;
                    click(page, "#accept-btn").await?;
                    accepted = true;
                    wait_ply_above(page, before, "the acceptance", 10).await?;
                    // The traded holes are marked on both boards.
                    wait_el(
                        other,
                        ".hole.traded",
                        "a traded hole on the offerer's board",
                        10,
                    )
                    .await?;
                    let label = js(
                        page,
                        "document.querySelector('.hole.traded').getAttribute('aria-label')",
                    )
                    .await?;
                    let label = label.as_str().unwrap_or_default().to_string();
                    assert!(label.contains("traded"), "{label}");
                    let badge = js(
                        page,
                        "document.querySelector('.hole.traded .badge').dataset.player",
                    )
                    .await?;
                    let me = js(page, "document.getElementById('game-page').dataset.you").await?;
                    assert_eq!(badge, me, "the traded hole now shows its new controller");
                    shot(other, "13-offer-accepted").await?;
                } else {
                    click(page, "#decline-btn").await?;
                    wait_id(page, "glory-warning", "the without-glory warning", 5).await?;
                    let warning = text(page, "#glory-warning").await?;
                    assert!(warning.contains("victory without glory"), "{warning}");
                    shot(page, "14-decline-warning").await?;
                    click(page, "#confirm-decline-btn").await?;
                    wait_ply_above(page, before, "the refusal", 10).await?;
                    wait_for(other, "document.getElementById('notice') && !document.getElementById('notice').hidden && document.getElementById('notice').textContent.includes('declined')", "the offerer told of the refusal", 10).await?;
                    let notice = text(other, "#notice").await?;
                    assert!(notice.contains("without glory"), "{notice}");
                    let mark = text(
                        page,
                        ".player.player-A .declined-mark, .player.player-B .declined-mark",
                    )
                    .await?;
                    assert!(!mark.is_empty(), "the decliner is marked");
                    shot(other, "15-offer-declined").await?;
                    return Ok(true);
                }
                acted = true;
            } else if v.offer && offers < 2 && (offers == 0 || accepted) {
                click(page, "#offer-btn").await?;
                wait_shown(page, "offer-panel", "the offer panel", 5).await?;
                // Nothing chosen: the offer cannot be sent.
                assert_eq!(
                    js(page, "document.getElementById('send-offer-btn').disabled").await?,
                    Value::Bool(true)
                );
                let choices = js(page, "[...document.querySelectorAll('.hole[aria-disabled=\"false\"]')].map(e => e.dataset.hole)").await?;
                let choices: Vec<String> = serde_json::from_value(choices)?;
                assert!(!choices.is_empty());
                click(page, &format!(".hole[data-hole={}]", choices[0])).await?;
                wait_for(page, &format!("document.querySelector('.hole[data-hole={}]').getAttribute('aria-pressed') === 'true'", choices[0]), "the hole selected", 5).await?;
                let summary = text(page, "#offer-summary").await?;
                assert!(summary.contains("Price: 6 seeds"), "{summary}");
                let ok = js(page, "!document.getElementById('send-offer-btn').disabled").await?;
                assert_eq!(
                    ok,
                    Value::Bool(true),
                    "a one-hole offer is legal: {summary}"
                );
                if offers == 0 {
                    shot(page, "11-offer-panel").await?;
                }
                click(page, "#send-offer-btn").await?;
                offers += 1;
                wait_ply_above(page, before, "the offer", 10).await?;
                wait_id(other, "accept-btn", "the offer on the other screen", 10).await?;
                acted = true;
            } else if v.pass {
                click(page, "#pass-btn").await?;
                acted = true;
            } else if !v.holes.is_empty() {
                let h = &v.holes[rng.pick(v.holes.len())];
                click(page, &format!(".hole[data-hole={h}]")).await?;
                acted = true;
            }
            if acted {
                wait_ply_above_or_over(page, before, "the action", 10).await?;
                // The other browser hears of it over the socket.
                wait_ply_above_or_over(other, before, "the action on the other screen", 10).await?;
                break;
            }
        }
        if !acted {
            tokio::time::sleep(Duration::from_millis(60)).await;
        }
    }
}

/// The language switch: Basque everywhere (remembered), the rules page
/// with its three example boards, and a phone-sized screen.
#[test]
fn languages_rules_and_phone_layout() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("languages_rules_and_phone_layout") else {
        return;
    };
    let server = Server::start();
    runtime().block_on(async {
        let chrome = Chrome::launch(&exe, 360, 740)
            .await
            .expect("launch chromium");
        let r = languages(&chrome, &server).await;
        chrome.close().await;
        r.expect("languages");
        // A browser that prefers Spanish gets Spanish at once.
        let chrome = Chrome::launch(&exe, 800, 800)
            .await
            .expect("launch chromium");
        let r = first_language(&chrome, &server).await;
        chrome.close().await;
        r.expect("first language");
    });
}

/// No untranslated key (like `home.start`) nor `null` shows anywhere.
async fn no_raw_keys(page: &Page) -> Res<()> {
    let raw = js(
        page,
        r"(document.body.innerText.match(/\b(nav|home|game|offer|status|result|review|settings|rules|invite|notice|player|conn|error|hole|board|describe|mode|join|continue|device)\.[a-zA-Z-]+/g) || []).join(' ')",
    )
    .await?;
    assert_eq!(raw, Value::String(String::new()), "untranslated keys");
    let stray = js(
        page,
        r"(document.body.innerText.match(/\b(null|undefined|NaN|\[object Object\])\b/g) || []).join(' ')",
    )
    .await?;
    assert_eq!(
        stray,
        Value::String(String::new()),
        "stray text on the page"
    );
    Ok(())
}

/// The page is no wider than the screen.
async fn fits(page: &Page, what: &str) -> Res<()> {
    let w = js(
        page,
        "[document.documentElement.scrollWidth, window.innerWidth]",
    )
    .await?;
    let (sw, iw) = (w[0].as_u64().unwrap_or(0), w[1].as_u64().unwrap_or(0));
    assert_eq!(iw, 360, "{what}: the screen is a phone's");
    assert!(
        sw <= iw,
        "{what}: the page is {sw} px wide on a {iw} px screen"
    );
    Ok(())
}

async fn languages(chrome: &Chrome, server: &Server) -> Res<()> {
    let page = chrome.page(&format!("{}/", server.url)).await?;
    wait_id(&page, "play-ai", "home page", 20).await?;
    assert_eq!(
        js(&page, "document.documentElement.lang").await?,
        Value::String("en".into())
    );
    assert_eq!(
        text(&page, "#play-ai .play-label").await?,
        "Play the computer"
    );
    assert_eq!(js(&page, "window.innerWidth").await?, Value::from(360));
    fits(&page, "home").await?;
    shot(&page, "20-phone-home-en").await?;

    choose_lang(&page, "eu").await?;
    wait_for(
        &page,
        "document.querySelector('#play-ai .play-label').textContent === 'Jokatu ordenagailuaren aurka'",
        "Basque",
        5,
    )
    .await?;
    assert_eq!(
        text(&page, ".site-header nav a[href='/rules']").await?,
        "Arauak"
    );
    assert_eq!(text(&page, "#new-game h2").await?, "Partida berria");
    assert_eq!(text(&page, "label[for=level] span").await?, "Maila");
    let body = js(&page, "document.body.innerText").await?;
    let body = body.as_str().unwrap_or_default();
    for s in [
        "Jokatu ordenagailuaren aurka",
        "Jokatu lagun baten aurka",
        "Bi jokalari gailu honetan",
        "Zure partidak",
        "Maila, aldea eta arauak",
    ] {
        assert!(
            body.contains(s),
            "{s:?} missing from the Basque page: {body}"
        );
    }
    no_raw_keys(&page).await?;
    shot(&page, "21-phone-home-eu").await?;

    // Remembered across a reload.
    page.reload().await?;
    wait_for(
        &page,
        "document.getElementById('play-ai') && document.documentElement.lang === 'eu'",
        "Basque after reload",
        10,
    )
    .await?;
    assert_eq!(
        text(&page, "#play-ai .play-label").await?,
        "Jokatu ordenagailuaren aurka"
    );

    // The rules in Basque, with the three worked examples drawn.
    nav_to(&page, "/rules").await?;
    wait_count(&page, ".example svg.board", 6, "the example boards", 10).await?;
    assert_eq!(text(&page, ".rules-page h1").await?, "Goré jokoaren arauak");
    let rules = js(&page, "document.querySelector('.rules-page').innerText").await?;
    assert!(rules
        .as_str()
        .unwrap_or_default()
        .contains("loriarik gabeko garaipena"));
    // Example 1 after the sowing: a2 holds 4, and a2, a1, b4 are marked captured.
    let captured = js(&page, "[...document.querySelectorAll('.example')[0].querySelectorAll('svg.board')[1].querySelectorAll('.hole.captured')].map(h => h.dataset.hole).join(',')").await?;
    assert_eq!(captured, Value::String("a1,a2,b4".into()));
    let a2 = js(&page, "document.querySelectorAll('.example')[0].querySelectorAll('svg.board')[1].querySelector('.hole[data-hole=a2] .count').textContent").await?;
    assert_eq!(a2, Value::String("4".into()));
    fits(&page, "rules").await?;
    no_raw_keys(&page).await?;
    shot(&page, "22-phone-rules-eu").await?;
    // Play example 3 (the whole board) to its end.
    js(&page, "localStorage.setItem('gore.animation', 'fast')").await?;
    click(&page, ".example:nth-of-type(3) .button-row button.primary").await?;
    wait_for(&page, "document.querySelectorAll('.example')[2].querySelector('svg.board .tray-B .tray-count').textContent === '35'", "example 3 played: B takes the 22 seeds", 30).await?;
    let counts = js(&page, "[...document.querySelectorAll('.example')[2].querySelector('svg.board').querySelectorAll('.hole .count')].map(c => c.textContent).join(',')").await?;
    assert_eq!(counts, Value::String("0,0,0,0,0,0,0,0".into()));

    // Spanish and French too.
    choose_lang(&page, "es").await?;
    wait_for(&page, "document.querySelector('.rules-page h1') && document.querySelector('.rules-page h1').textContent === 'Las reglas del goré'", "Spanish rules", 10).await?;
    assert!(
        js(
            &page,
            "document.querySelector('.rules-page').innerText.includes('victoria sin gloria')"
        )
        .await?
            == Value::Bool(true)
    );
    choose_lang(&page, "fr").await?;
    wait_for(&page, "document.querySelector('.rules-page h1') && document.querySelector('.rules-page h1').textContent === 'Les règles du goré'", "French rules", 10).await?;
    assert!(
        js(
            &page,
            "document.querySelector('.rules-page').innerText.includes('victoire sans gloire')"
        )
        .await?
            == Value::Bool(true)
    );

    // A game on one device, on the phone, in Basque.
    choose_lang(&page, "eu").await?;
    nav_to(&page, "/").await?;
    new_game(&page, "local", "A", 1).await?;
    wait_for(
        &page,
        "document.querySelectorAll('.hole[aria-disabled=\"false\"]').length === 4",
        "legal holes",
        10,
    )
    .await?;
    let label = js(
        &page,
        "document.querySelector('.hole[data-hole=a3]').getAttribute('aria-label')",
    )
    .await?;
    assert_eq!(label, Value::String("a3: 6 hazi, A-k kontrolatua".into()));
    assert_eq!(text(&page, "#moves-title").await?, "Jokaldiak");
    fits(&page, "game").await?;
    no_raw_keys(&page).await?;
    // Touch targets: a hole is at least 40 px across on a 360 px screen.
    let w = js(
        &page,
        "document.querySelector('.hole[data-hole=a1] .hole-bg').getBoundingClientRect().width",
    )
    .await?;
    assert!(w.as_f64().unwrap_or(0.0) >= 40.0, "hole width {w}");
    shot(&page, "23-phone-game-eu").await?;
    Ok(())
}

/// A game on one device from a set position: A's pending offer of a1 is
/// declined (the warning first), the server goes away and comes back (the
/// page reconnects), then B's last sowing, played with the keyboard, ends
/// the game: the sweep, the score and the "victory without glory" mark.
#[test]
fn without_glory_keyboard_and_reconnection() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("without_glory_keyboard_and_reconnection") else {
        return;
    };
    let mut server = Server::start();
    runtime().block_on(async {
        let chrome = Chrome::launch(&exe, 1000, 1000)
            .await
            .expect("launch chromium");
        let r = without_glory(&chrome, &mut server).await;
        chrome.close().await;
        r.expect("without glory");
    });
}

async fn without_glory(chrome: &Chrome, server: &mut Server) -> Res<()> {
    let page = chrome.page(&format!("{}/", server.url)).await?;
    wait_id(&page, "play-ai", "home page", 20).await?;
    set_speed(&page, "normal").await?;
    // A pending offer of a1 from A; B holds 31 captured seeds; b4 has 3.
    let url = js(
        &page,
        r#"fetch('/api/games', {method: 'POST', headers: {'Content-Type': 'application/json'},
            body: JSON.stringify({mode: 'local', start: '1,1,0,0/0,0,0,3 AAAA/BBBB 12-31 B a1'})})
            .then(r => r.json()).then(j => j.url)"#,
    )
    .await?;
    let url = url.as_str().ok_or("no game url")?.to_string();
    visit(&page, format!("{}{url}", server.url)).await?;
    wait_id(&page, "accept-btn", "the pending offer", 20).await?;
    assert_eq!(text(&page, "#incoming-title").await?, "A offers B a1");
    assert!(
        js(
            &page,
            "document.querySelector('.hole[data-hole=a1]').classList.contains('offered')"
        )
        .await?
            == Value::Bool(true)
    );
    let label = js(
        &page,
        "document.querySelector('.hole[data-hole=a1]').getAttribute('aria-label')",
    )
    .await?;
    assert_eq!(
        label,
        Value::String("a1: 1 seed, controlled by A, offered".into())
    );
    wait_el(&page, "#conn.conn-open", "the live connection", 10).await?;
    assert_eq!(text(&page, "#conn .conn-text").await?, "Live");

    // The server goes away: the page says so and keeps trying.
    server.stop();
    wait_el(&page, "#conn.conn-closed", "the lost connection", 20).await?;
    let conn = text(&page, "#conn .conn-text").await?;
    assert!(conn.starts_with("Connection lost; retrying in"), "{conn}");
    shot(&page, "30-connection-lost").await?;
    server.restart();
    wait_el(&page, "#conn.conn-open", "the connection back", 30).await?;

    // Decline: first the warning, and Back; then decline for good.
    click(&page, "#decline-btn").await?;
    wait_id(&page, "glory-warning", "the warning", 5).await?;
    click(&page, "#cancel-decline-btn").await?;
    wait_for(
        &page,
        "document.getElementById('accept-btn') && !document.getElementById('glory-warning')",
        "back to the offer",
        5,
    )
    .await?;
    click(&page, "#decline-btn").await?;
    wait_id(&page, "confirm-decline-btn", "the confirmation", 5).await?;
    click(&page, "#confirm-decline-btn").await?;
    wait_for(&page, "(g => g.dataset.ply === '1' && g.dataset.busy === '0')(document.getElementById('game-page'))", "the refusal", 10).await?;
    assert!(text(&page, "#player-B .declined-mark")
        .await?
        .contains("declined"));
    wait_text_starts(
        &page,
        "live",
        "B declined the offer.",
        "the announcement",
        5,
    )
    .await?;

    // B's only sowing, with the keyboard: b4 is a focusable button.
    let legal = view(&page).await?.holes;
    assert_eq!(legal, ["b4"]);
    let b4 = page.find_element(".hole[data-hole=b4]").await?;
    b4.focus().await?;
    assert_eq!(
        js(&page, "document.activeElement.dataset.hole").await?,
        Value::String("b4".into())
    );
    b4.press_key("Enter").await?;
    // The sowing and then the sweep, seed by seed.
    wait_id(&page, "skip-btn", "the animation", 5).await?;
    wait_el(&page, ".hole.flash-sweep", "the sweep", 10).await?;
    shot(&page, "31-sweep").await?;
    wait_shown(&page, "result", "the result", 15).await?;
    assert_eq!(text(&page, "#final-score").await?, "A 17 – 31 B");
    assert_eq!(text(&page, "#result-headline").await?, "B wins.");
    let glory = text(&page, "#without-glory").await?;
    assert!(
        glory.contains("Victory without glory: B declined an offer."),
        "{glory}"
    );
    wait_text_starts(
        &page,
        "live",
        "Game over: A 17, B 31. B wins.",
        "the result announced",
        5,
    )
    .await?;
    no_raw_keys(&page).await?;
    shot(&page, "32-without-glory").await?;
    // The review has the start, the refusal, the sowing and the sweep.
    page.find_element("body")
        .await?
        .press_key("ArrowLeft")
        .await?;
    wait_text_starts(
        &page,
        "review-label",
        "Move 2 of 2",
        "the board before the sweep",
        5,
    )
    .await?;
    let counts = js(
        &page,
        "[...document.querySelectorAll('.hole .count')].map(c => c.textContent).join(',')",
    )
    .await?;
    assert_eq!(counts, Value::String("2,2,1,0,0,0,0,0".into()));
    Ok(())
}

async fn first_language(chrome: &Chrome, server: &Server) -> Res<()> {
    let page = chrome.page("about:blank").await?;
    // The browser's preferred language, as a Spanish-speaking user's.
    let ua = chrome.browser.user_agent().await?;
    page.execute(
        SetUserAgentOverrideParams::builder()
            .user_agent(ua)
            .accept_language("es-ES,es")
            .build()?,
    )
    .await?;
    visit(&page, format!("{}/rules", server.url)).await?;
    let nav = js(&page, "navigator.language").await?;
    assert!(nav.as_str().unwrap_or_default().starts_with("es"), "{nav}");
    wait_for(
        &page,
        "document.documentElement.lang === 'es' && document.querySelector('.rules-page h1')",
        "Spanish from navigator.language",
        10,
    )
    .await?;
    assert_eq!(text(&page, ".rules-page h1").await?, "Las reglas del goré");
    assert_eq!(
        js(&page, "document.getElementById('lang-select').value").await?,
        Value::String("es".into())
    );
    // Not remembered until chosen.
    assert_eq!(
        js(&page, "localStorage.getItem('gore.lang')").await?,
        Value::Null
    );
    Ok(())
}

/// The home page's "seeds per hole" starts a `seeds=N` game: the board
/// shows N in every hole, and the server holds the same rules.
#[test]
fn seeds_per_hole_starts_a_smaller_game() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("seeds_per_hole_starts_a_smaller_game") else {
        return;
    };
    let server = Server::start();
    runtime().block_on(async {
        let chrome = Chrome::launch(&exe, 1000, 900)
            .await
            .expect("launch chromium");
        let r = seeds_game(&chrome, &server).await;
        chrome.close().await;
        r.expect("seeds game");
    });
}

async fn seeds_game(chrome: &Chrome, server: &Server) -> Res<()> {
    let page = chrome.page(&server.url).await?;
    wait_id(&page, "seeds", "the seeds-per-hole choice", 20).await?;
    // Six choices, 3 to 8, the standard 6 chosen.
    let choices = js(
        &page,
        "return [...document.querySelectorAll('#seeds option')].map(o => o.value + (o.selected ? '*' : ''))",
    )
    .await?;
    assert_eq!(choices, serde_json::json!(["3", "4", "5", "6*", "7", "8"]));
    set_value(&page, "seeds", "3").await?;
    new_game(&page, "local", "A", 1).await?;
    wait_count(&page, ".hole .count", 8, "the board", 20).await?;
    let counts = js(
        &page,
        "return [...document.querySelectorAll('.hole .count')].map(c => c.textContent)",
    )
    .await?;
    assert_eq!(
        counts,
        serde_json::json!(["3", "3", "3", "3", "3", "3", "3", "3"])
    );
    let title = text(&page, "#game-page h1, #game-page h2")
        .await
        .unwrap_or_default();
    shot(&page, "seeds-3").await?;
    // The rules in words, as the home page says them (issue 27, point 11).
    assert!(title.contains("3 seeds per hole"), "title: {title}");
    Ok(())
}

/// "Continue on another device": a player's page makes a link; another
/// browser opens it (which changes nothing), presses the button and plays
/// the seat; once revoked, the link gives a clear page to a new browser.
#[test]
fn continue_on_another_device() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("continue_on_another_device") else {
        return;
    };
    let server = Server::start();
    runtime().block_on(async {
        let first = Chrome::launch(&exe, 1000, 1000)
            .await
            .expect("launch chromium");
        let r = another_device(&first, &exe, &server).await;
        first.close().await;
        r.expect("continue on another device");
    });
}

async fn another_device(first: &Chrome, exe: &Path, server: &Server) -> Res<()> {
    let page = first.page(&format!("{}/", server.url)).await?;
    set_speed(&page, "off").await?;
    // A game against the AI (one device offers no other device: its link
    // would open both seats).
    new_game(&page, "ai", "A", 1).await?;
    wait_for(
        &page,
        "document.querySelectorAll('.hole[aria-disabled=\"false\"]').length === 4",
        "A's legal holes",
        20,
    )
    .await?;
    click(&page, "#devices summary").await?;
    click(&page, "#device-btn").await?;
    wait_id(&page, "device-link", "the device link", 10).await?;
    let link = js(&page, "document.getElementById('device-link').value").await?;
    let link = link.as_str().ok_or("no device link")?.to_string();
    assert!(link.contains("/continue/"), "{link}");
    no_raw_keys(&page).await?;
    shot(&page, "40-device-link").await?;

    let second = Chrome::launch(exe, 420, 900).await?;
    let r = async {
        let p2 = second.page(&link).await?;
        set_speed(&p2, "off").await?;
        wait_id(&p2, "continue-btn", "the continue page", 20).await?;
        let t = text(&p2, "#claim-page h1").await?;
        assert_eq!(t, "Continue this game on this device");
        // Opening it gave no seat yet: the page's own state is a spectator's.
        let you = js(
            &p2,
            &format!("fetch('/api/games/' + {link:?}.split('/continue/')[1].split('/')[0]).then(r => r.json()).then(s => s.you)"),
        )
        .await?;
        assert_eq!(you, Value::Null, "a seat before the button");
        shot(&p2, "41-continue-page").await?;
        click(&p2, "#continue-btn").await?;
        wait_data(&p2, "game-page", "you", "A", "the seat on the second device", 20)
        .await?;
        live(&p2).await?;
        wait_for(
            &p2,
            "document.querySelector('.hole[data-hole=a2][aria-disabled=\"false\"]')",
            "a legal hole on the second device",
            10,
        )
        .await?;
        click(&p2, ".hole[data-hole=a2]").await?;
        // (The AI may have replied already.)
        wait_for(&p2, "Number(document.getElementById('game-page').dataset.ply) >= 1", "the sowing", 10).await?;
        rendered_once(&p2, "the second device", false).await?;
        Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    }
    .await;
    second.close().await;
    r?;
    // The first device sees the action played on the second.
    wait_for(
        &page,
        "Number(document.getElementById('game-page').dataset.ply) >= 1",
        "the action on the first device",
        10,
    )
    .await?;
    assert_eq!(text(&page, "#moves li[data-ply='1'] .tok").await?, "a2");

    // Revoked: a new browser opening the link is told so.
    click(&page, "#revoke-device").await?;
    wait_for(
        &page,
        "document.getElementById('device-revoked') && document.getElementById('device-btn')",
        "the revocation",
        10,
    )
    .await?;
    let third = Chrome::launch(exe, 900, 800).await?;
    let r = async {
        let p3 = third.page(&link).await?;
        wait_id(&p3, "continue-btn", "the continue page", 20).await?;
        click(&p3, "#continue-btn").await?;
        wait_el(
            &p3,
            "#claim-page[data-view=claimed]",
            "the revoked-link page",
            10,
        )
        .await?;
        let t = text(&p3, "#claimed-text").await?;
        assert!(t.contains("revoked"), "{t}");
        no_raw_keys(&p3).await?;
        shot(&p3, "42-continue-revoked").await?;
        Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    }
    .await;
    third.close().await;
    r
}
