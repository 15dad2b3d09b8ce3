//! The bots' pages in the browser (issue 29, point 8). A BOT, Robo, is
//! driven through the Bot API by this test (its token made from a
//! browser, its event stream read here). A person on a phone, in Spanish,
//! finds it on `/bots` through the menu, online; on its page she
//! challenges it, sees the challenge pending, then its decline with the
//! reason in her words; challenged again, the BOT accepts and she lands in
//! the game. A person on a desktop, in English, sees the list and the
//! leaderboard with the BOT apart, and withdraws a challenge. A phone held
//! sideways, in French, sees a bot's form fit. Light and dark, axe-clean.
//!
//! Also a player's page with the tournaments he played (issue 29, point
//! 3): after one game of an arena, each player's page lists it with his
//! rank and points, in Spanish on a phone and in English on a desktop.

#[allow(unused_imports)] // the shared helpers re-export more than this file uses
mod browser_support;
use browser_support::*;
use serde_json::Value;

#[test]
fn a_person_challenges_a_bot_from_its_page() {
    let Some(exe) = browser_or_skip("a_person_challenges_a_bot_from_its_page") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = start_server_with(&[]);
        let maker = Chrome::launch(&exe, 1366, 768).await.unwrap();
        let token = bot_token(&maker, &server).await;
        maker.close().await;
        let token = token.unwrap();
        let phone = Chrome::launch(&exe, 360, 740).await.unwrap();
        let desk = Chrome::launch(&exe, 1366, 768).await.unwrap();
        let r = challenge(&phone, &desk, &server, &token).await;
        phone.close().await;
        desk.close().await;
        r.unwrap();
        let side = Chrome::launch(&exe, 740, 360).await.unwrap();
        let r = sideways(&side, &server).await;
        side.close().await;
        r.unwrap();
    });
}

#[test]
fn a_players_page_lists_his_tournaments() {
    let Some(exe) = browser_or_skip("a_players_page_lists_his_tournaments") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = start_server_with(&[]);
        let phone = Chrome::launch(&exe, 360, 740).await.unwrap();
        let desk = Chrome::launch(&exe, 1366, 768).await.unwrap();
        let r = tournaments(&phone, &desk, &server).await;
        phone.close().await;
        desk.close().await;
        r.unwrap();
    });
}

/// `code` in `page`, a fetch that answers whether it was ok.
async fn ok(page: &Page, code: &str) -> Res<bool> {
    Ok(js(page, code).await? == Value::Bool(true))
}

/// Tries `legal[0]` of game `id` as this browser's player: true if the
/// server took it (false: not his turn).
async fn try_action(page: &Page, id: &str) -> Res<bool> {
    ok(
        page,
        &format!(
            "fetch('/api/games/{id}').then(r => r.json()).then(g => g.legal.length === 0 ? false : \
             fetch('/api/games/{id}/actions', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify({{action: g.legal[0], ply: g.ply}})}}).then(r => r.ok))"
        ),
    )
    .await
}

async fn tournaments(phone: &Chrome, desk: &Chrome, server: &Server) -> Res<()> {
    let p = account(phone, server, "es", "Ana").await?;
    let d = account(desk, server, "en", "Bea").await?;
    let id = js(
        &p,
        "fetch('/api/tournaments', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({name: 'Viernes', clock: '5+3', minutes: 30, rated: false})}).then(r => r.json()).then(v => v.id)",
    )
    .await?;
    let id = id.as_str().ok_or("no arena")?.to_string();
    for page in [&p, &d] {
        assert!(
            ok(
                page,
                &format!("fetch('/api/tournaments/{id}/join', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: '{{}}'}}).then(r => r.ok)"),
            )
            .await?,
            "joined"
        );
    }
    // Paired (the server pairs at once after a join): Bea wins their game
    // (one action each, then Ana resigns). Polled, 90 s at most.
    let standings = format!("fetch('/api/tournaments/{id}').then(r => r.json())");
    let mut game = String::new();
    for _ in 0..(100 * SLACK) {
        let v = js(&p, &format!("{standings}.then(v => (v.standings.find(l => l.name === 'Ana') || {{}}).game || '')")).await?;
        game = v.as_str().unwrap_or("").to_string();
        if !game.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    }
    assert!(!game.is_empty(), "never paired");
    let (mut ana, mut bea) = (false, false);
    for _ in 0..20 {
        if ana && bea {
            break;
        }
        if try_action(&p, &game).await? {
            ana = true;
        } else if try_action(&d, &game).await? {
            bea = true;
        }
    }
    assert!(ana && bea, "each made an action");
    assert!(
        ok(
            &p,
            &format!("fetch('/api/games/{game}/resign', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: '{{}}'}}).then(r => r.ok)"),
        )
        .await?
    );

    // The result recorded (by the arena's next tick), then her page and
    // his, each in its language: the arena, rank and points.
    let mut scored = false;
    for _ in 0..(100 * SLACK) {
        let v = js(
            &d,
            &format!(
                "{standings}.then(v => (v.standings.find(l => l.name === 'Bea') || {{}}).score)"
            ),
        )
        .await?;
        if v.as_u64() == Some(2) {
            scored = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    }
    assert!(scored, "Bea's 2 points never came");
    visit(&d, format!("{}/@/Bea", server.url)).await?;
    wait_el(
        &d,
        "#player-tournaments li[data-id]",
        "Bea's tournament",
        60,
    )
    .await?;
    let line = text(&d, "#player-tournaments li").await?;
    assert!(
        line.contains("Viernes") && line.contains("Arena · Rank 1 of 2 · 2 points · in progress"),
        "{line}"
    );
    let href = js(
        &d,
        "document.querySelector('#player-tournaments li a').getAttribute('href')",
    )
    .await?;
    assert_eq!(href, Value::String(format!("/tournament/{id}")));
    look(&d, "player-desktop-en-tournaments").await?;
    visit(&p, format!("{}/@/Ana", server.url)).await?;
    wait_el(
        &p,
        "#player-tournaments li[data-id]",
        "Ana's tournament",
        60,
    )
    .await?;
    let line = text(&p, "#player-tournaments li").await?;
    assert!(
        line.contains("Viernes") && line.contains("Arena · Puesto 2 de 2 · 0 puntos · en curso"),
        "{line}"
    );
    js(
        &p,
        "document.getElementById('player-tournaments').scrollIntoView()",
    )
    .await?;
    look(&p, "player-phone-es-tournaments").await?;
    Ok(())
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

/// Nothing is wider than the screen; both schemes pass axe-core;
/// screenshots of each.
async fn look(page: &Page, name: &str) -> Res<()> {
    let wide = js(
        page,
        "document.documentElement.scrollWidth - document.documentElement.clientWidth",
    )
    .await?;
    assert_eq!(wide.as_i64(), Some(0), "{name}: wider than the screen");
    for dark in [false, true] {
        scheme(page, dark).await?;
        assert_accessible(page, name).await?;
        shot(
            page,
            &format!("{name}-{}", if dark { "dark" } else { "light" }),
        )
        .await?;
    }
    scheme(page, false).await
}

/// A browser in `lang`, signed up as `name`.
async fn account(chrome: &Chrome, server: &Server, lang: &str, name: &str) -> Res<Page> {
    let page = chrome.page(&format!("{}/rules", server.url)).await?;
    js(
        &page,
        &format!("localStorage.setItem('gore.lang', '{lang}'); localStorage.setItem('gore.animation', 'off')"),
    )
    .await?;
    let r = js(
        &page,
        &format!(
            "fetch('/api/account/signup', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify({{username: {name:?}, password: 'a long passphrase'}})}}).then(r => r.status)"
        ),
    )
    .await?;
    assert!(r.as_u64().is_some_and(|s| s < 300), "sign up {name}: {r}");
    Ok(page)
}

/// Robo's account, made from a browser with a `bot:play` token, upgraded
/// to a BOT through the API; its token.
async fn bot_token(chrome: &Chrome, server: &Server) -> Res<String> {
    let page = account(chrome, server, "en", "Robo").await?;
    let v = js(
        &page,
        "fetch('/api/account/tokens', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({description: 'engine', scopes: ['bot:play']})}).then(r => r.json()).then(v => v.token)",
    )
    .await?;
    let token = v.as_str().ok_or("no token")?.to_string();
    let (st, body) = api(server, "POST", "/api/bot/account/upgrade", &token).await?;
    assert_eq!(st, 200, "{body}");
    Ok(token)
}

/// `method path` with the BOT's token.
async fn api(server: &Server, method: &str, path: &str, token: &str) -> Res<(u16, Value)> {
    let c = reqwest::Client::new();
    let url = format!("{}{path}", server.url);
    let req = if method == "GET" {
        c.get(url)
    } else {
        c.post(url)
    };
    let r = req.bearer_auth(token).send().await?;
    let st = r.status().as_u16();
    Ok((st, r.json().await.unwrap_or(Value::Null)))
}

/// The BOT's event stream, read a line at a time.
struct Events {
    res: reqwest::Response,
    buf: Vec<u8>,
}

impl Events {
    async fn open(server: &Server, token: &str) -> Res<Events> {
        let res = reqwest::Client::new()
            .get(format!("{}/api/stream/event", server.url))
            .bearer_auth(token)
            .send()
            .await?;
        assert_eq!(res.status(), 200);
        Ok(Events {
            res,
            buf: Vec::new(),
        })
    }

    /// The next event of type `kind` (others skipped), within 60 s (a
    /// failing test's bound, times the slack).
    async fn next_of(&mut self, kind: &str) -> Res<Value> {
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(60 * SLACK);
        loop {
            if let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=i).collect();
                let text = String::from_utf8(line)?;
                if text.trim().is_empty() {
                    continue;
                }
                let v: Value = serde_json::from_str(&text)?;
                if v["type"] == kind {
                    return Ok(v);
                }
                continue;
            }
            let chunk = tokio::time::timeout_at(deadline, self.res.chunk())
                .await
                .map_err(|_| format!("no {kind} event"))??
                .ok_or("the event stream ended")?;
            self.buf.extend_from_slice(&chunk);
        }
    }
}

async fn challenge(phone: &Chrome, desk: &Chrome, server: &Server, token: &str) -> Res<()> {
    let mut events = Events::open(server, token).await?;
    let p = account(phone, server, "es", "Irati").await?;
    let d = account(desk, server, "en", "Bea").await?;

    // The phone finds the bots through the menu: Robo, online, marked.
    visit(&p, format!("{}/", server.url)).await?;
    wait_for(&p, "document.documentElement.lang === 'es'", "Spanish", 20).await?;
    nav_to(&p, "/bots").await?;
    wait_el(&p, "#bot-list li[data-id]", "the bots' list", 30).await?;
    assert_eq!(text(&p, "#bots-page h1").await?, "Bots");
    let line = text(&p, "#bot-list li").await?;
    assert!(
        line.contains("Robo")
            && line.contains("BOT")
            && line.contains("conectado")
            && line.contains("ninguna partida puntuable"),
        "{line}"
    );
    look(&p, "bots-phone-es").await?;
    click(&p, "#bot-list li a.who").await?;
    wait_at(
        &p,
        "/@/Robo",
        "bot-challenge-send",
        "the bot's page with its form",
        30,
    )
    .await?;
    assert_eq!(text(&p, "#bot-challenge-title").await?, "Desafiar a Robo");
    let about = text(&p, "#bot-line").await?;
    assert!(about.starts_with("BOT"), "{about}");
    wait_text(&p, "bot-presence", "conectado", "the bot online", 30).await?;
    look(&p, "bot-phone-es-form").await?;

    // A rated challenge at 10+5, which Robo declines: too fast for it.
    js(
        &p,
        "(s => { s.value = '10+5'; s.dispatchEvent(new Event('change', {bubbles: true})); })(document.getElementById('bot-clock'))",
    )
    .await?;
    click(&p, "#bot-rated").await?;
    click(&p, "#bot-challenge-send").await?;
    wait_id(&p, "bot-challenge-cancel", "the challenge pending", 30).await?;
    assert_eq!(
        text(&p, "#bot-challenge-status").await?,
        "Desafío enviado: esperando la respuesta de Robo…"
    );
    let sent = events.next_of("challenge").await?;
    assert_eq!(sent["challenge"]["challenger"]["name"], "Irati", "{sent}");
    assert_eq!(sent["challenge"]["clock"], "10+5", "{sent}");
    assert_eq!(sent["challenge"]["rated"], true, "{sent}");
    look(&p, "bot-phone-es-pending").await?;
    let id = sent["challenge"]["id"].as_str().ok_or("no id")?.to_string();
    // Declined without a reason: `generic`.
    let (st, _) = api(
        server,
        "POST",
        &format!("/api/challenge/{id}/decline"),
        token,
    )
    .await?;
    assert_eq!(st, 200);
    wait_text_starts(
        &p,
        "bot-challenge-status",
        "Robo lo ha rechazado",
        "the decline",
        30,
    )
    .await?;
    assert_eq!(
        text(&p, "#bot-challenge-status").await?,
        "Robo lo ha rechazado: ahora no acepta desafíos."
    );
    look(&p, "bot-phone-es-declined").await?;

    // Again, declined as too fast: the reason in her words.
    click(&p, "#bot-challenge-send").await?;
    let sent = events.next_of("challenge").await?;
    let id = sent["challenge"]["id"].as_str().ok_or("no id")?.to_string();
    let r = reqwest::Client::new()
        .post(format!("{}/api/challenge/{id}/decline", server.url))
        .bearer_auth(token)
        .header("Content-Type", "application/json")
        .body(r#"{"reason": "tooFast"}"#)
        .send()
        .await?;
    assert_eq!(r.status(), 200);
    wait_text(
        &p,
        "bot-challenge-status",
        "Robo lo ha rechazado: este reloj es demasiado rápido para él.",
        "the decline, too fast",
        30,
    )
    .await?;

    // A third time Robo accepts: she lands in the game, in her seat.
    click(&p, "#bot-challenge-send").await?;
    let sent = events.next_of("challenge").await?;
    let id = sent["challenge"]["id"].as_str().ok_or("no id")?.to_string();
    let (st, a) = api(
        server,
        "POST",
        &format!("/api/challenge/{id}/accept"),
        token,
    )
    .await?;
    assert_eq!(st, 200, "{a}");
    let game = a["game"].as_str().ok_or("no game")?.to_string();
    wait_at(&p, &format!("/g/{game}"), "game-page", "the game", 30).await?;
    let you = js(
        &p,
        &format!("fetch('/api/games/{game}').then(r => r.json()).then(g => g.you)"),
    )
    .await?;
    assert!(you == "A" || you == "B", "her seat: {you}");
    // The game is named for what it is, and Robo's seat carries the BOT
    // mark (hers does not).
    assert_eq!(text(&p, "#game-title").await?, "Partida contra un BOT");
    let robo = if you == "A" { "B" } else { "A" };
    wait_for(
        &p,
        &format!("!!document.getElementById('bot-{robo}')"),
        "Robo's BOT mark",
        30,
    )
    .await?;
    assert_eq!(text(&p, &format!("#bot-{robo}")).await?, "BOT");
    assert!(text(&p, &format!("#player-{robo} .player-name"))
        .await?
        .contains("Robo"));
    assert_eq!(
        js(&p, &format!("!!document.getElementById('bot-{you}')")).await?,
        false
    );
    look(&p, "bot-phone-es-game").await?;

    // One action each, then Robo resigns: a rated game over.
    let mine = js(
        &p,
        &format!(
            "fetch('/api/games/{game}').then(r => r.json()).then(g => g.legal.length === 0 ? false : \
             fetch('/api/games/{game}/actions', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify({{action: g.legal[0], ply: g.ply}})}}).then(r => r.ok))"
        ),
    )
    .await?;
    let mut played = false;
    for a in ["a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"] {
        let (st, _) = api(
            server,
            "POST",
            &format!("/api/bot/game/{game}/move/{a}"),
            token,
        )
        .await?;
        if st == 200 {
            played = true;
            break;
        }
    }
    if mine != Value::Bool(true) {
        // Robo was to move first: now she is.
        let again = js(
            &p,
            &format!(
                "fetch('/api/games/{game}').then(r => r.json()).then(g => \
                 fetch('/api/games/{game}/actions', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify({{action: g.legal[0], ply: g.ply}})}}).then(r => r.ok))"
            ),
        )
        .await?;
        assert_eq!(again, Value::Bool(true));
    }
    assert!(played, "Robo made an action");
    let (st, _) = api(
        server,
        "POST",
        &format!("/api/bot/game/{game}/resign"),
        token,
    )
    .await?;
    assert_eq!(st, 200);

    // The desktop, in English: the leaderboard with Robo apart, marked.
    visit(&d, format!("{}/", server.url)).await?;
    nav_to(&d, "/leaderboard").await?;
    wait_for(
        &d,
        "document.querySelector('#leaderboard ol[id$=\"-bots\"] li')",
        "the BOTs' list of the leaderboard",
        60,
    )
    .await?;
    let pace = js(
        &d,
        "document.querySelector('#leaderboard ol[id$=\"-bots\"]').id.replace('board-', '').replace('-bots', '')",
    )
    .await?;
    let pace = pace.as_str().ok_or("no pace")?.to_string();
    let people = text(&d, &format!("#board-{pace}")).await?;
    let bots = text(&d, &format!("#board-{pace}-bots")).await?;
    assert!(
        people.contains("Irati") && !people.contains("Robo"),
        "{people}"
    );
    assert!(
        bots.contains("Robo") && bots.contains("BOT") && !bots.contains("Irati"),
        "{bots}"
    );
    look(&d, "leaderboard-desktop-en").await?;

    // The bots' page, in English, with Robo's rating; she withdraws a
    // challenge, and the BOT hears it.
    nav_to(&d, "/bots").await?;
    wait_el(&d, "#bot-list li[data-id]", "the bots' list", 30).await?;
    let line = text(&d, "#bot-list li").await?;
    assert!(
        line.contains("online") && line.contains(&capital(&pace)),
        "{line}"
    );
    look(&d, "bots-desktop-en").await?;
    click(&d, "#bot-list li a.button").await?;
    wait_id(&d, "bot-challenge-send", "the bot's form", 30).await?;
    look(&d, "bot-desktop-en-form").await?;
    click(&d, "#bot-challenge-send").await?;
    wait_id(&d, "bot-challenge-cancel", "pending", 30).await?;
    assert_eq!(
        text(&d, "#bot-challenge-status").await?,
        "Challenge sent: waiting for Robo to answer…"
    );
    let sent = events.next_of("challenge").await?;
    assert_eq!(sent["challenge"]["challenger"]["name"], "Bea");
    click(&d, "#bot-challenge-cancel").await?;
    wait_for(
        &d,
        "document.getElementById('bot-challenge-status').textContent === 'Challenge withdrawn.' && document.getElementById('bot-challenge-send')",
        "withdrawn",
        30,
    )
    .await?;
    let gone = events.next_of("challengeCanceled").await?;
    assert_eq!(gone["challenge"]["id"], sent["challenge"]["id"]);

    // Logged out, she is asked to log in instead.
    js(
        &d,
        "fetch('/api/account/logout', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{}'}).then(r => r.ok)",
    )
    .await?;
    visit(&d, format!("{}/@/Robo", server.url)).await?;
    wait_id(&d, "bot-login", "asked to log in", 30).await?;
    assert!(js(&d, "!document.getElementById('bot-challenge-send')").await? == Value::Bool(true));
    Ok(())
}

/// `fast` → `Fast`: the pace as the English page names it.
fn capital(pace: &str) -> String {
    let mut c = pace.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// A phone held sideways (740×360), in French: the bots' list and a bot's
/// form fit its width.
async fn sideways(chrome: &Chrome, server: &Server) -> Res<()> {
    let page = account(chrome, server, "fr", "Chloe").await?;
    visit(&page, format!("{}/bots", server.url)).await?;
    wait_el(&page, "#bot-list li[data-id]", "the list", 30).await?;
    assert_eq!(text(&page, "#bots-page h1").await?, "Bots");
    look(&page, "bots-sideways-fr").await?;
    click(&page, "#bot-list li a.who").await?;
    wait_id(&page, "bot-challenge-send", "the form", 30).await?;
    assert_eq!(text(&page, "#bot-challenge-title").await?, "Défier Robo");
    look(&page, "bot-sideways-fr-form").await
}
