//! The words of the pages (issue 27): what a player reads is in his
//! language and says what is true. Server errors translated without the
//! raw field in front; the rules in words everywhere (title, invitation,
//! lobby line); the lobby's hints; the rated switch hidden from anonymous
//! players; plurals and the Basque "eta"; names instead of "A"/"B" in the
//! chat and the status; one label per button on the end screen; actions in
//! words on the analysis and review pages. Phone (360×740) and desktop
//! (1366×768), in several languages; screenshots in target/screenshots.

#[allow(unused_imports)] // the shared helpers re-export more than this file uses
mod browser_support;
use browser_support::*;

/// A page of the site in `lang` (saved before the page loads), animations
/// off.
async fn open_in(chrome: &Chrome, server: &Server, path: &str, lang: &str) -> Res<Page> {
    let page = chrome.page(&format!("{}/rules", server.url)).await?;
    js(
        &page,
        &format!(
            "localStorage.setItem('gore.lang', '{lang}'); localStorage.setItem('gore.animation', 'off')"
        ),
    )
    .await?;
    visit(&page, format!("{}{path}", server.url)).await?;
    wait_for(
        &page,
        &format!("document.documentElement.lang === '{lang}'"),
        "the language",
        20,
    )
    .await?;
    Ok(page)
}

/// The home page in `lang`, its lobby live.
async fn home(chrome: &Chrome, server: &Server, lang: &str) -> Res<Page> {
    let page = open_in(chrome, server, "/", lang).await?;
    wait_data(&page, "lobby-status", "live", "1", "the lobby live", 20).await?;
    Ok(page)
}

/// The page's visible text.
async fn body(page: &Page) -> Res<String> {
    Ok(js(page, "document.body.innerText")
        .await?
        .as_str()
        .unwrap_or_default()
        .to_string())
}

/// Whether an element takes room on the page (shown, not merely present).
async fn shown(page: &Page, selector: &str) -> Res<bool> {
    let v = js(
        page,
        &format!(
            "(() => {{ const e = document.querySelector({}); return !!e && e.getClientRects().length > 0; }})()",
            serde_json::to_string(selector)?
        ),
    )
    .await?;
    Ok(v == Value::Bool(true))
}

async fn my_name(page: &Page) -> Res<String> {
    wait_for(
        page,
        "document.getElementById('my-name') && document.getElementById('my-name').textContent.length > 2",
        "the name",
        10,
    )
    .await?;
    text(page, "#my-name").await
}

/// The page in dark mode, as a system that prefers it.
async fn dark(page: &Page) -> Res<()> {
    page.emulate_media_features(vec![
        chromiumoxide::cdp::browser_protocol::emulation::MediaFeature::new(
            "prefers-color-scheme",
            "dark",
        ),
    ])
    .await?;
    Ok(())
}

// ------------------------------------------------------- the lobby game --

/// Two strangers, one on a desktop in English, one on a phone in French:
/// the host posts a challenge with 4 seeds and no negotiation; both read
/// the rules in words in the lobby line and the game's title; the rated
/// switch is hidden from them (anonymous) and the hints say where "New
/// game" is (above). In the game: the status names the player awaited,
/// the chat names who wrote, "Your games" names the game as its page does,
/// the note on an opponent who left has no gender, and the French end
/// screen has one label per button.
#[test]
fn a_lobby_game_in_words() {
    let Some(exe) = browser_or_skip("a_lobby_game_in_words") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = start_server_with(&["--paces", "5+3"]);
        let host = Chrome::launch(&exe, 1366, 768).await.unwrap();
        let guest = Chrome::launch(&exe, 360, 740).await.unwrap();
        let r = lobby_game(&host, &guest, &server).await;
        host.close().await;
        guest.close().await;
        r.unwrap();
    });
}

async fn lobby_game(host: &Chrome, guest: &Chrome, server: &Server) -> Res<()> {
    let h = home(host, server, "en").await?;
    let g = home(guest, server, "fr").await?;
    let host_name = my_name(&h).await?;
    let guest_name = my_name(&g).await?;
    for (p, above) in [
        (&h, "“New game” above"),
        (&g, "« Nouvelle partie » ci-dessus"),
    ] {
        // Anonymous: no rated switch, and the text above it says casual.
        wait_el(p, "label[for=rated]", "the lobby", 10).await?;
        assert!(
            !shown(p, "label[for=rated]").await?,
            "the rated switch is shown to an anonymous player"
        );
        let b = body(p).await?;
        assert!(b.contains(above), "{b}");
        // "New game" is indeed above the lobby.
        let order = js(
            p,
            "document.getElementById('new-game').getBoundingClientRect().top < document.getElementById('lobby').getBoundingClientRect().top",
        )
        .await?;
        assert_eq!(order, Value::Bool(true));
    }
    shot(&g, "w01-lobby-phone-fr").await?;

    // The host's challenge: 4 seeds, no negotiation, 5+3.
    js(&h, "document.getElementById('game-options').open = true").await?;
    set_value(&h, "seeds", "4").await?;
    click(&h, "#rule-no-trades").await?;
    set_value(&h, "clock", "5+3").await?;
    click(&h, "#create-challenge").await?;
    for (p, words) in [
        (&h, "4 seeds per hole · No negotiation"),
        (&g, "4 graines par case · Sans négociation"),
    ] {
        wait_for(
            p,
            &format!("[...document.querySelectorAll('#challenges .challenge .terms')].some(e => e.textContent.includes({words:?}))"),
            "the challenge's rules in words",
            15,
        )
        .await?;
        let b = body(p).await?;
        assert!(!b.contains("seeds=") && !b.contains("no-trades"), "{b}");
    }
    shot(&h, "w02-challenge-desktop-en").await?;
    shot(&g, "w03-challenge-phone-fr").await?;
    assert_accessible(&g, "lobby-fr").await?;
    click(&g, "#challenges [data-accept]").await?;
    for (p, who) in [(&h, "the host"), (&g, "the guest")] {
        wait_for(
            p,
            "location.pathname.startsWith('/g/') && document.getElementById('game-page') && document.getElementById('clock-A')",
            &format!("{who}'s game"),
            20,
        )
        .await?;
        live(p).await?;
    }
    assert_eq!(
        text(&h, "#game-title").await?,
        "Game against another player · 4 seeds per hole · No negotiation"
    );
    assert_eq!(
        text(&g, "#game-title").await?,
        "Partie contre un autre joueur · 4 graines par case · Sans négociation"
    );
    let host_is_a = js(&h, "document.getElementById('game-page').dataset.you").await?
        == Value::String("A".into());
    let (a, b, a_name) = if host_is_a {
        (&h, &g, &host_name)
    } else {
        (&g, &h, &guest_name)
    };
    // B waits for A, by name.
    let waiting = if host_is_a {
        format!("En attente du coup de {a_name}.")
    } else {
        format!("Waiting for {a_name} to play.")
    };
    wait_for(
        b,
        &format!("document.getElementById('turn').textContent === {waiting:?}"),
        "the name of the player awaited",
        10,
    )
    .await?;
    // The chat says who wrote, by name.
    js(&h, "document.getElementById('chat-input').value = 'hello'").await?;
    click(&h, "#chat-send").await?;
    wait_for(
        &g,
        &format!("[...document.querySelectorAll('#chat-lines .chat-line')].some(l => l.querySelector('.chat-text').textContent === 'hello' && l.querySelector('.chat-who').textContent === {host_name:?} && l.innerText.includes({host_name:?}))"),
        "the host's name on his chat line",
        10,
    )
    .await?;
    shot(&g, "w04-chat-phone-fr").await?;
    // One action each (a game without them would be aborted).
    click(a, ".hole[data-hole=a3]").await?;
    ply_is(b, 1, "a3 seen by B").await?;
    click(b, ".hole[data-hole=b3]").await?;
    ply_is(a, 2, "b3 seen by A").await?;

    // The guest opens the home page in another tab: his game is named as
    // on its page.
    let game_url = js(&g, "location.href").await?;
    let game_url = game_url.as_str().ok_or("no url")?.to_string();
    let g2 = guest.page(&format!("{}/", server.url)).await?;
    wait_for(
        &g2,
        "document.querySelector('#my-games .game-title') && !document.querySelector('#my-games .game-meta').textContent.includes('…')",
        "the guest's games",
        20,
    )
    .await?;
    assert_eq!(
        text(&g2, "#my-games .game-title").await?,
        "Partie contre un autre joueur"
    );
    shot(&g2, "w07-your-games-phone-fr").await?;
    // He closes the game's tab: the host is told his opponent left,
    // without a gender.
    g.clone().close().await?;
    wait_el(&h, "#away-note .away-text", "the away note", 20).await?;
    let away = text(&h, "#away-note .away-text").await?;
    assert!(
        away.starts_with("Your opponent left: you may claim the win if they are not back within"),
        "{away}"
    );
    shot(&h, "w05-away-desktop-en").await?;
    choose_lang(&h, "fr").await?;
    wait_for(
        &h,
        "(e => e && e.textContent.startsWith('Votre adversaire a quitté la partie. Sans retour de sa part dans'))(document.querySelector('#away-note .away-text'))",
        "the away note in French",
        10,
    )
    .await?;
    choose_lang(&h, "en").await?;

    // Back in the game; the host resigns: one label per button in French.
    let g = g2;
    visit(&g, game_url).await?;
    wait_data(&g, "game-page", "ply", "2", "the guest's game again", 20).await?;
    live(&g).await?;
    // The host's page hears that the guest is back (the away note goes,
    // the buttons move up) before it is clicked: a click aimed at a
    // button that then moves lands beside it.
    wait_for(
        &h,
        "(n => !n || n.hidden)(document.getElementById('away-note'))",
        "the host sees the guest back",
        20,
    )
    .await?;
    click(&h, "#resign-btn").await?;
    if wait_for(
        &h,
        "!!document.getElementById('resign-yes')",
        "the resign question",
        5,
    )
    .await
    .is_err()
    {
        click(&h, "#resign-btn").await?;
    }
    click(&h, "#resign-yes").await?;
    wait_for(
        &g,
        "!document.getElementById('result').hidden && document.getElementById('review-btn')",
        "the end screen",
        20,
    )
    .await?;
    let labels = js(
        &g,
        "[...document.querySelectorAll('#result a, #result button, a.button, button')].filter(e => e.getClientRects().length).map(e => e.textContent.trim())",
    )
    .await?;
    let labels: Vec<String> = labels
        .as_array()
        .ok_or("no labels")?
        .iter()
        .filter_map(|v| v.as_str().map(String::from))
        .collect();
    let analysers = labels.iter().filter(|l| l.starts_with("Analyser")).count();
    assert_eq!(analysers, 1, "{labels:?}");
    assert!(labels.iter().any(|l| l == "Revoir la partie"), "{labels:?}");
    shot(&g, "w06-end-phone-fr").await?;

    // An invitation to a game with 4 seeds and no negotiation: its rules
    // in words on the page the friend opens.
    let invite = js(
        &h,
        r#"fetch('/api/games', {method: 'POST', headers: {'Content-Type': 'application/json'},
            body: JSON.stringify({mode: 'friend', rules: 'seeds=4,no-trades'})})
            .then(r => r.json()).then(j => j.invite)"#,
    )
    .await?;
    let invite = invite.as_str().ok_or("no invitation")?.to_string();
    let invite = if invite.starts_with("http") {
        invite
    } else {
        format!("{}{invite}", server.url)
    };
    visit(&g, invite).await?;
    wait_id(&g, "join-btn", "the invitation", 20).await?;
    let facts = text(&g, ".claim-facts").await?;
    assert!(
        facts.contains("Règles : 4 graines par case · Sans négociation"),
        "{facts}"
    );
    shot(&g, "w08-invitation-phone-fr").await?;
    Ok(())
}

// ------------------------------------------- plurals and Basque lists --

/// A game on one device from a set position: A offers a1 and a2 (the
/// list in the page's language, "a1 eta a2" in Basque), B declines and
/// sows b4, capturing a2 and a3, which ends the game; the final sweep
/// gives each one seed (a1 to A, b1 to B):
/// "1 seed", "1 semilla", "1 graine", not "1 seeds".
#[test]
fn a_sweep_of_one_seed_and_a_basque_list() {
    let Some(exe) = browser_or_skip("a_sweep_of_one_seed_and_a_basque_list") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = Server::start();
        let mut r = Ok(());
        for (lang, w, hgt, list, swept) in [
            (
                "es",
                360,
                740,
                "a1 y a2",
                "En el reparto final A se ha llevado 1 semilla y B 1 semilla.",
            ),
            (
                "eu",
                1366,
                768,
                "a1 eta a2",
                "Azken banaketa: A-rentzat 1 hazi, B-rentzat 1 hazi.",
            ),
            (
                "fr",
                740,
                360,
                "a1 et a2",
                "Au partage final, A a pris 1 graine et B 1 graine.",
            ),
            (
                "en",
                1366,
                768,
                "a1 and a2",
                "In the final sweep A took 1 seed and B took 1 seed.",
            ),
        ] {
            let chrome = Chrome::launch(&exe, w, hgt).await.unwrap();
            r = sweep(&chrome, &server, lang, list, swept).await;
            chrome.close().await;
            if r.is_err() {
                break;
            }
        }
        r.unwrap();
    });
}

async fn sweep(chrome: &Chrome, server: &Server, lang: &str, list: &str, swept: &str) -> Res<()> {
    let page = open_in(chrome, server, "/", lang).await?;
    // The session first (the game's seat is the session's).
    let _ = my_name(&page).await?;
    // A has offered a1 and a2; B (22 captured) answers.
    let url = js(
        &page,
        r#"fetch('/api/games', {method: 'POST', headers: {'Content-Type': 'application/json'},
            body: JSON.stringify({mode: 'local', start: '0,1,1,0/1,0,0,3 AAAA/BBBB 20-22 B a1+a2'})})
            .then(r => r.json()).then(j => j.url)"#,
    )
    .await?;
    let url = url.as_str().ok_or("no game url")?.to_string();
    visit(&page, format!("{}{url}", server.url)).await?;
    wait_id(&page, "accept-btn", "the pending offer", 20).await?;
    let title = text(&page, "#incoming-title").await?;
    assert!(title.contains(list), "{lang}: {title}");
    assert!(lang == "en" || !title.contains(" and "), "{lang}: {title}");
    shot(&page, &format!("w10-offer-{lang}")).await?;
    click(&page, "#decline-btn").await?;
    wait_id(&page, "confirm-decline-btn", "the confirmation", 5).await?;
    click(&page, "#confirm-decline-btn").await?;
    ply_is(&page, 1, "the refusal").await?;
    click(&page, ".hole[data-hole=b4]").await?;
    wait_shown(&page, "result", "the result", 15).await?;
    let reason = text(&page, "#result-reason").await?;
    assert!(reason.ends_with(swept), "{lang}: {reason}");
    shot(&page, &format!("w11-sweep-{lang}")).await?;
    if lang == "en" {
        return Ok(());
    }
    // The analysis and review pages name the actions in words: the
    // refusal is "rechazar", "ukatu", "refuser", not `decline`.
    let declined = match lang {
        "es" => "rechazar",
        "eu" => "ukatu",
        _ => "refuser",
    };
    let id = url.rsplit('/').next().unwrap_or_default().to_string();
    click(&page, "#analyse-link").await?;
    wait_count(
        &page,
        ".an-move",
        2,
        "the game's line on the analysis board",
        30,
    )
    .await?;
    let line = js(
        &page,
        "[...document.querySelectorAll('.an-move')].map(e => e.textContent).join(' | ')",
    )
    .await?;
    assert_eq!(
        line,
        Value::String(format!("1. {declined} | 2. b4")),
        "{lang}"
    );
    visit(&page, format!("{}/review/{id}", server.url)).await?;
    wait_count(&page, "#review-list li", 2, "the review's list", 60).await?;
    let list = text(&page, "#review-list").await?;
    assert!(
        list.contains(&format!("1. B {declined}")) && !list.contains("decline"),
        "{lang}: {list}"
    );
    shot(&page, &format!("w12-review-{lang}")).await?;
    Ok(())
}

// ------------------------------------------------------ server errors --

/// Submits one of the home page's small forms (`signup-form`,
/// `login-form`, `name-form`) with these values, and returns the error
/// line it then shows.
async fn refused(page: &Page, form: &str, values: &[(&str, &str)]) -> Res<String> {
    for (field, value) in values {
        js(
            page,
            &format!(
                "document.getElementById('{form}-{field}').value = {}",
                serde_json::to_string(value)?
            ),
        )
        .await?;
    }
    // The last error, if any, is cleared first: the new one is waited for.
    js(page, &format!("(e => {{ if (e) {{ e.hidden = true; e.textContent = ''; }} }})(document.getElementById('{form}-error'))")).await?;
    click(page, &format!("#{form}-submit")).await?;
    wait_for(
        page,
        &format!("(e => e && !e.hidden && e.textContent.length > 0)(document.getElementById('{form}-error'))"),
        &format!("the error of {form}"),
        20,
    )
    .await?;
    text(page, &format!("#{form}-error")).await
}

/// English words the server says that must not reach a page in another
/// language, and the raw fields it puts in front of them.
const ENGLISH: &[&str] = &[
    "password:",
    "username:",
    "name:",
    "gpn:",
    "GPN:",
    "a password",
    "wrong username",
    "this name",
    "a name has",
    "Refused",
    "position:",
    "expected five",
];

fn no_english(what: &str, s: &str) {
    for w in ENGLISH {
        assert!(!s.contains(w), "{what}: {w:?} in {s:?}");
    }
}

/// Errors the server answers, provoked as a person would, read in
/// Spanish and Basque on a phone and in French on a desktop: the sign-up
/// (a short password, the computer's name, a taken name), the log-in, a
/// new display name, and the analysis board's position. Each is said in
/// the page's language, without the field's code in front.
#[test]
fn server_errors_in_the_pages_language() {
    let Some(exe) = browser_or_skip("server_errors_in_the_pages_language") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = Server::start();
        let mut r = Ok(());
        for (lang, w, hgt) in [("es", 360, 740), ("fr", 1366, 768), ("eu", 360, 740)] {
            let chrome = Chrome::launch(&exe, w, hgt).await.unwrap();
            r = errors(&chrome, &server, lang).await;
            chrome.close().await;
            if r.is_err() {
                break;
            }
        }
        r.unwrap();
    });
}

async fn errors(chrome: &Chrome, server: &Server, lang: &str) -> Res<()> {
    let page = home(chrome, server, lang).await?;
    let _ = my_name(&page).await?;
    let expect = |es: &'static str, fr: &'static str, eu: &'static str| match lang {
        "es" => es,
        "fr" => fr,
        _ => eu,
    };
    // Sign-up: a short password, the computer's name, a taken name.
    click(&page, "#signup-open").await?;
    wait_id(&page, "signup-form", "the sign-up form", 10).await?;
    let e = refused(
        &page,
        "signup-form",
        &[
            ("username", &format!("Irati_{lang}")),
            ("password", "short"),
        ],
    )
    .await?;
    assert_eq!(
        e,
        expect(
            "La contraseña debe tener al menos 8 caracteres.",
            "Un mot de passe a au moins 8 caractères.",
            "Pasahitzak gutxienez 8 karaktere izan behar ditu."
        )
    );
    shot(&page, &format!("w20-signup-error-{lang}")).await?;
    let e = refused(
        &page,
        "signup-form",
        &[("username", "gore-ai"), ("password", "a long passphrase")],
    )
    .await?;
    assert!(
        e.starts_with(expect(
            "Este nombre es del ordenador",
            "Ce nom est celui de l'ordinateur",
            "Izen hori ordenagailuarena"
        )),
        "{lang}: {e}"
    );
    no_english(lang, &e);
    if lang == "es" {
        // The first one takes the name; the others find it taken.
        let page2 = home(chrome, server, lang).await?;
        click(&page2, "#signup-open").await?;
        wait_id(&page2, "signup-form", "the form", 10).await?;
        js(
            &page2,
            "document.getElementById('signup-form-username').value = 'Awa_K'; document.getElementById('signup-form-password').value = 'a long passphrase'",
        )
        .await?;
        click(&page2, "#signup-form-submit").await?;
        wait_id(&page2, "my-page", "logged in", 20).await?;
        // Logged in: the rated switch shows, and the text above it no
        // longer says every quick game is casual.
        wait_data(&page2, "lobby-status", "live", "1", "the lobby again", 20).await?;
        wait_for(
            &page2,
            "document.querySelector('label[for=rated]').getClientRects().length > 0",
            "the rated switch",
            10,
        )
        .await?;
        assert_eq!(
            text(&page2, "#quick-hint").await?,
            "Un clic: juegas con el primer jugador que quiera el mismo ritmo. Reglas estándar; partida amistosa salvo si marcas «Puntuable»."
        );
        page2.close().await?;
    } else {
        let e = refused(
            &page,
            "signup-form",
            &[("username", "awa-k"), ("password", "a long passphrase")],
        )
        .await?;
        assert!(
            e.starts_with(expect(
                "",
                "Ce nom d'utilisateur est déjà pris",
                "Erabiltzaile-izen hori hartuta dago"
            )),
            "{lang}: {e}"
        );
        no_english(lang, &e);
    }
    // Log-in: a wrong password.
    click(&page, "#login-open").await?;
    wait_id(&page, "login-form", "the log-in form", 10).await?;
    let e = refused(
        &page,
        "login-form",
        &[("username", "Awa_K"), ("password", "not the passphrase")],
    )
    .await?;
    assert_eq!(
        e,
        expect(
            "Nombre de usuario o contraseña incorrectos.",
            "Nom d'utilisateur ou mot de passe incorrect.",
            "Erabiltzaile-izena edo pasahitza ez da zuzena."
        )
    );
    // A display name too short.
    click(&page, "#name-edit").await?;
    wait_id(&page, "name-form", "the name form", 10).await?;
    let e = refused(&page, "name-form", &[("name", "ab")]).await?;
    assert_eq!(
        e,
        expect(
            "Un nombre tiene entre 3 y 20 caracteres, no 2.",
            "Un nom a de 3 à 20 caractères, pas 2.",
            "Izen batek 3 eta 20 karaktere artean ditu, ez 2."
        )
    );
    shot(&page, &format!("w21-name-error-{lang}")).await?;
    assert_accessible(&page, &format!("home-errors-{lang}")).await?;

    // The analysis board: a position that is not one, then one whose
    // seeds do not add up.
    visit(&page, format!("{}/analysis", server.url)).await?;
    wait_id(&page, "an-gpn", "the analysis page", 20).await?;
    for (gpn, words) in [
        (
            "6,6,6",
            expect(
                "Una posición (GPN) tiene cinco partes",
                "Une position (GPN) a cinq parties",
                "Posizio batek (GPN) zuriunez bereizitako bost zati ditu",
            ),
        ),
        (
            "6,6,6,6/6,6,6,6 AAAA/BBBB 1-0 A -",
            expect(
                "Esta posición tiene 49 semillas, no 48",
                "Cette position a 49 graines, pas 48",
                "Posizio honek 49 hazi ditu, ez 48",
            ),
        ),
    ] {
        js(
            &page,
            &format!("document.getElementById('an-error').textContent = ''; document.getElementById('an-gpn').value = {}", serde_json::to_string(gpn)?),
        )
        .await?;
        click(&page, "#an-gpn-set").await?;
        wait_for(
            &page,
            "document.getElementById('an-error').textContent.length > 0",
            "the position's error",
            20,
        )
        .await?;
        let e = text(&page, "#an-error").await?;
        assert!(e.starts_with(words), "{lang}: {e}");
        no_english(lang, &e);
    }
    shot(&page, &format!("w22-analysis-error-{lang}")).await?;
    dark(&page).await?;
    assert_accessible(&page, &format!("analysis-errors-dark-{lang}")).await?;
    Ok(())
}
