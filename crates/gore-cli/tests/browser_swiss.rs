//! A Swiss round in the browser (issue 29): Ana on a phone in Spanish
//! makes a Swiss event from `/tournaments` (the form's kind, rounds and
//! start) and sees it upcoming; on a second event, starting a few seconds
//! on, Ana (phone, Spanish), Bea (desktop, English) and Cai (through the
//! API) join; at the start the page shows round 1's board with its game
//! and the bye; the game is played through the API (one action each, then
//! the loser resigns); the page then shows the standings after round 1
//! with their tie-breaks, round 1 among the past rounds, and round 2.
//! Light and dark, axe-clean, nothing wider than the screen, and a phone
//! held sideways in French.

#[allow(unused_imports)] // the shared helpers re-export more than this file uses
mod browser_support;
use browser_support::*;
use serde_json::Value;

#[test]
fn a_swiss_round_from_its_pages() {
    let Some(exe) = browser_or_skip("a_swiss_round_from_its_pages") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = start_server_with(&[]);
        let phone = Chrome::launch(&exe, 360, 740).await.unwrap();
        let desk = Chrome::launch(&exe, 1366, 768).await.unwrap();
        let r = swiss(&phone, &desk, &server).await;
        phone.close().await;
        desk.close().await;
        let id = r.unwrap();
        let side = Chrome::launch(&exe, 740, 360).await.unwrap();
        let r = sideways(&side, &server, &id).await;
        side.close().await;
        r.unwrap();
    });
}

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
    let r = js(&page, &format!("fetch('/api/account/signup', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify({{username: {name:?}, password: 'a long passphrase'}})}}).then(r => r.status)")).await?;
    assert!(r.as_u64().is_some_and(|s| s < 300), "sign up {name}: {r}");
    Ok(page)
}

/// A player without a browser: an HTTP client with his session cookie.
struct Api {
    url: String,
    cookie: String,
    http: reqwest::Client,
}

impl Api {
    async fn sign_up(server: &Server, name: &str) -> Res<Api> {
        let http = reqwest::Client::new();
        let r = http.get(format!("{}/api/me", server.url)).send().await?;
        let visitor = cookie_of(&r)?;
        let r = http
            .post(format!("{}/api/account/signup", server.url))
            .header("cookie", &visitor)
            .json(&serde_json::json!({"username": name, "password": "a long passphrase"}))
            .send()
            .await?;
        assert!(r.status().is_success(), "sign up {name}: {}", r.status());
        Ok(Api {
            url: server.url.clone(),
            cookie: cookie_of(&r)?,
            http,
        })
    }

    async fn get(&self, path: &str) -> Res<Value> {
        let r = self.http.get(format!("{}{path}", self.url));
        Ok(r.header("cookie", &self.cookie)
            .send()
            .await?
            .json()
            .await?)
    }

    async fn post(&self, path: &str, body: Value) -> Res<(u16, Value)> {
        let r = self.http.post(format!("{}{path}", self.url));
        let r = r.header("cookie", &self.cookie).json(&body).send().await?;
        let st = r.status().as_u16();
        Ok((st, r.json().await.unwrap_or(Value::Null)))
    }
}

fn cookie_of(r: &reqwest::Response) -> Res<String> {
    Ok(r.headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .ok_or("no session cookie")?
        .to_string())
}

/// A player of the event: a browser page or a client.
enum Who<'a> {
    Page(&'a Page),
    Api(&'a Api),
}

impl Who<'_> {
    /// Tries `legal[0]` of game `id`: true if the server took it.
    async fn act(&self, id: &str) -> Res<bool> {
        match self {
            Who::Page(page) => {
                let v = js(page, &format!("fetch('/api/games/{id}').then(r => r.json()).then(g => g.legal.length === 0 ? false : fetch('/api/games/{id}/actions', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify({{action: g.legal[0], ply: g.ply}})}}).then(r => r.ok))")).await?;
                Ok(v == Value::Bool(true))
            }
            Who::Api(api) => {
                let g = api.get(&format!("/api/games/{id}")).await?;
                let Some(action) = g["legal"].get(0).cloned() else {
                    return Ok(false);
                };
                let body = serde_json::json!({"action": action, "ply": g["ply"]});
                let (st, _) = api.post(&format!("/api/games/{id}/actions"), body).await?;
                Ok(st == 200)
            }
        }
    }

    async fn resign(&self, id: &str) -> Res<()> {
        let ok = match self {
            Who::Page(page) => {
                js(page, &format!("fetch('/api/games/{id}/resign', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: '{{}}'}}).then(r => r.ok)")).await? == Value::Bool(true)
            }
            Who::Api(api) => {
                let (st, _) = api
                    .post(&format!("/api/games/{id}/resign"), serde_json::json!({}))
                    .await?;
                st == 200
            }
        };
        assert!(ok, "resigned");
        Ok(())
    }
}

/// Whether the standings' line of `name` shows `points` (as the page
/// writes it).
fn standing(name: &str, points: &str) -> String {
    format!("[...document.querySelectorAll('#tour-standings tbody tr')].some(tr => tr.cells[1].querySelector('a').textContent === {name:?} && tr.cells[2].textContent === {points:?})")
}

async fn swiss(phone: &Chrome, desk: &Chrome, server: &Server) -> Res<String> {
    let p = account(phone, server, "es", "Ana").await?;
    let d = account(desk, server, "en", "Bea").await?;
    let cai = Api::sign_up(server, "Cai").await?;

    // The form, in Spanish: a Swiss event has rounds and a start.
    visit(&p, format!("{}/tournaments", server.url)).await?;
    wait_id(&p, "tour-form", "the form", 20).await?;
    set_value(&p, "tour-kind", "swiss").await?;
    wait_id(&p, "tour-rounds", "the rounds", 20).await?;
    assert_eq!(
        text(&p, "label[for='tour-rounds']").await?,
        "Rondas (de 3 a 15)"
    );
    set_value(&p, "tour-name", "Suizo del viernes").await?;
    set_value(&p, "tour-rounds", "20").await?;
    click(&p, "#tour-create").await?;
    wait_shown(&p, "tour-rounds-error", "the rounds' error", 20).await?;
    assert_eq!(
        text(&p, "#tour-rounds-error").await?,
        "Un torneo suizo tiene de 3 a 15 rondas."
    );
    look(&p, "swiss-form-phone-es-error").await?;
    set_value(&p, "tour-rounds", "3").await?;
    click(&p, "#tour-create").await?;
    wait_page(&p, "/tournament/", "tour-join", "the new event's page", 30).await?;
    let terms = text(&p, "#tour-terms").await?;
    assert!(terms.starts_with("Suizo · 3 rondas"), "{terms}");
    wait_for(&p, "/^Empieza dentro de (5:00|4:\\d\\d)$/.test(document.getElementById('tour-phase').textContent)", "upcoming", 30).await?;
    assert_eq!(
        text(&p, "#swiss-first").await?,
        "La primera ronda se empareja al comienzo."
    );
    look(&p, "swiss-upcoming-phone-es").await?;

    // A second event, starting in 20 s: all three join before.
    let made = js(&d, "fetch('/api/tournaments', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({name: 'Friday Swiss', kind: 'swiss', clock: '5+3', rounds: 3, starts_at: Date.now() + 20000})}).then(r => r.json()).then(v => v.id)").await?;
    let id = made.as_str().ok_or("no event")?.to_string();
    visit(&d, format!("{}/tournaments", server.url)).await?;
    wait_for(&d, "[...document.querySelectorAll('#tour-upcoming li')].some(li => li.textContent.includes('Friday Swiss') && li.textContent.includes('Swiss · 3 rounds'))", "listed with its rounds", 30).await?;
    look(&d, "swiss-list-desktop-en").await?;
    let (st, v) = cai
        .post(
            &format!("/api/tournaments/{id}/join"),
            serde_json::json!({}),
        )
        .await?;
    assert_eq!(st, 200, "{v}");
    for page in [&p, &d] {
        visit(page, format!("{}/tournament/{id}", server.url)).await?;
        wait_id(page, "tour-join", "the join button", 30).await?;
        click(page, "#tour-join").await?;
        wait_id(page, "tour-withdraw", "joined", 30).await?;
    }

    // At the start: round 1, one board and a bye.
    for page in [&p, &d] {
        wait_el(page, "#swiss-round-1 tbody tr", "round 1", 60).await?;
    }
    let round = cai.get(&format!("/api/tournaments/{id}")).await?;
    let board = &round["rounds"][0]["boards"][0];
    let game = board["game"].as_str().ok_or("no game")?.to_string();
    let (a, b) = (
        board["a"][1].as_str().unwrap_or_default().to_string(),
        board["b"][1].as_str().unwrap_or_default().to_string(),
    );
    let bye = round["rounds"][0]["bye"][1]
        .as_str()
        .ok_or("no bye")?
        .to_string();
    assert_eq!(
        text(&d, "#swiss-round-1 caption").await?,
        "Round 1: being played"
    );
    assert_eq!(
        text(&p, "#swiss-round-1 caption").await?,
        "Ronda 1: en juego"
    );
    assert_eq!(
        text(&d, "#swiss-bye-1").await?,
        format!("Bye: {bye} (1 point)")
    );
    assert_eq!(
        text(&p, "#swiss-bye-1").await?,
        format!("Descanso: {bye} (1 punto)")
    );
    assert_eq!(text(&d, "#tour-phase").await?, "Round 1 of 3");
    let row = text(&d, "#swiss-round-1 tbody tr").await?;
    assert!(
        row.contains(&a) && row.contains(&b) && row.contains("playing"),
        "{row}"
    );
    // The two paired are sent to their game.
    for (page, name) in [(&p, "Ana"), (&d, "Bea")] {
        if name != bye {
            wait_id(page, "tour-my-game", "told to play", 30).await?;
        }
    }
    look(&p, "swiss-round1-phone-es").await?;
    look(&d, "swiss-round1-desktop-en").await?;

    // The game, played through the API: A wins.
    let who = |name: &str| match name {
        "Ana" => Who::Page(&p),
        "Bea" => Who::Page(&d),
        _ => Who::Api(&cai),
    };
    let (wa, wb) = (who(&a), who(&b));
    let (mut acted_a, mut acted_b) = (false, false);
    for _ in 0..20 {
        if acted_a && acted_b {
            break;
        }
        if wa.act(&game).await? {
            acted_a = true;
        } else if wb.act(&game).await? {
            acted_b = true;
        }
    }
    assert!(acted_a && acted_b, "each made an action");
    wb.resign(&game).await?;

    // The standings after round 1, in both languages: A and the bye on 1
    // point, B on 0; round 1 among the past rounds; round 2 paired.
    for page in [&p, &d] {
        wait_for(
            page,
            "document.getElementById('swiss-past') && document.querySelector('#swiss-round-2')",
            "round 2",
            60,
        )
        .await?;
    }
    wait_for(&d, &standing(&a, "1"), "A's point", 30).await?;
    wait_for(&d, &standing(&bye, "1"), "the bye's point", 30).await?;
    wait_for(&d, &standing(&b, "0"), "B's 0", 30).await?;
    assert_eq!(
        text(&d, "#tour-standings caption").await?,
        "Standings after round 1"
    );
    assert_eq!(
        text(&p, "#tour-standings caption").await?,
        "Clasificación tras la ronda 1"
    );
    let heads = js(&p, "[...document.querySelectorAll('#tour-standings thead th')].map(th => th.textContent).join('|')").await?;
    assert_eq!(
        heads.as_str(),
        Some("#Puesto|Jugador|Puntos|BHdesempate Buchholz|SBdesempate Sonneborn-Berger"),
        "{heads}"
    );
    // B's Buchholz is A's point: the last column but one.
    let b_line = js(&d, &format!("[...document.querySelectorAll('#tour-standings tbody tr')].find(tr => tr.cells[1].querySelector('a').textContent === {b:?}).cells[3].textContent")).await?;
    assert_eq!(b_line.as_str(), Some("1"), "B's Buchholz");
    assert_eq!(text(&d, "#tour-phase").await?, "Round 2 of 3");
    // Round 1 in the past rounds: its result.
    js(
        &d,
        "document.querySelector('#swiss-past details').open = true",
    )
    .await?;
    assert!(text(&d, "#swiss-round-1 tbody tr").await?.contains("1–0"));
    // Issue 38, Major 4: the page asks every 2 s; the opened round stays
    // open through two more answers (it closed at each before).
    let asked = "performance.getEntriesByType('resource').filter(e => e.name.includes('/api/tournaments/')).length";
    let n = js(&d, asked).await?.as_u64().unwrap_or(0);
    wait_for(&d, &format!("{asked} >= {}", n + 2), "two more answers", 30).await?;
    let open = js(&d, "document.querySelector('#swiss-past details').open").await?;
    assert_eq!(open, serde_json::json!(true), "the round stayed open");
    look(&p, "swiss-after1-phone-es").await?;
    look(&d, "swiss-after1-desktop-en").await?;
    Ok(id)
}

/// A phone held sideways (740×360), in French, a visitor: the event's
/// page fits its width.
async fn sideways(chrome: &Chrome, server: &Server, id: &str) -> Res<()> {
    let page = chrome.page(&format!("{}/rules", server.url)).await?;
    js(&page, "localStorage.setItem('gore.lang', 'fr')").await?;
    visit(&page, format!("{}/tournament/{id}", server.url)).await?;
    wait_el(&page, "#tour-standings tbody tr", "the standings", 30).await?;
    assert_eq!(
        text(&page, "#tour-standings caption").await?,
        "Classement après la ronde 1"
    );
    look(&page, "swiss-sideways-fr").await
}
