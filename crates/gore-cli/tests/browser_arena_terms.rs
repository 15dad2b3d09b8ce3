//! An arena's start time and the Pause button, in the browser (issue 29):
//! on a phone in Spanish the creation form offers a start a few minutes
//! ahead; a start in the past, or more than a month ahead, is said next to
//! its field (focused); ten minutes ahead makes an upcoming arena with its
//! countdown. The creator joins and pauses: the page offers Join again,
//! says he is paused, and the standings mark him so, as the desktop (in
//! English, joined too) sees them. Light and dark, axe-clean.

#[allow(unused_imports)] // the shared helpers re-export more than this file uses
mod browser_support;
use browser_support::*;

#[test]
fn an_arena_starts_when_asked_and_a_player_pauses() {
    let Some(exe) = browser_or_skip("an_arena_starts_when_asked_and_a_player_pauses") else {
        return;
    };
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let server = start_server_with(&[]);
        let phone = Chrome::launch(&exe, 360, 740).await.unwrap();
        let desk = Chrome::launch(&exe, 1366, 768).await.unwrap();
        let r = terms(&phone, &desk, &server).await;
        phone.close().await;
        desk.close().await;
        r.unwrap();
    });
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

/// The `datetime-local` value of now + `ms`, in the page's time.
async fn local(page: &Page, ms: i64) -> Res<String> {
    let v = js(
        page,
        &format!("(() => {{ const at = Date.now() + ({ms}); return new Date(at - new Date(at).getTimezoneOffset() * 60000).toISOString().slice(0, 16); }})()"),
    )
    .await?;
    Ok(v.as_str().ok_or("no date")?.to_string())
}

/// The start is refused with the Spanish sentence next to its field, the
/// field marked and focused.
async fn start_refused(p: &Page) -> Res<()> {
    click(p, "#tour-create").await?;
    wait_for(
        p,
        "!document.getElementById('tour-starts_at-error').hidden && document.activeElement && document.activeElement.id === 'tour-starts_at-error'",
        "the start's error",
        20,
    )
    .await?;
    assert_eq!(
        text(p, "#tour-starts_at-error").await?,
        "Elige un inicio entre ahora y dentro de un mes."
    );
    let marked = js(
        p,
        "document.getElementById('tour-starts_at').getAttribute('aria-invalid')",
    )
    .await?;
    assert_eq!(marked, serde_json::json!("true"));
    Ok(())
}

async fn terms(phone: &Chrome, desk: &Chrome, server: &Server) -> Res<()> {
    let p = account(phone, server, "es", "Ana").await?;
    let d = account(desk, server, "en", "Bea").await?;
    visit(&p, format!("{}/tournaments", server.url)).await?;
    wait_id(&p, "tour-form", "the form", 20).await?;
    // The start offered: a few minutes ahead (4 to 6 from now).
    let ahead = js(
        &p,
        "(new Date(document.getElementById('tour-starts_at').value).getTime() - Date.now()) / 60000",
    )
    .await?;
    let ahead = ahead.as_f64().ok_or("no start")?;
    assert!((3.9..=6.0).contains(&ahead), "{ahead} min ahead");
    assert_eq!(
        text(&p, "label[for=tour-starts_at]").await?,
        "Inicio (tu hora)"
    );

    // Yesterday, or two months ahead: said next to the field.
    set_value(&p, "tour-name", "Sábado").await?;
    set_value(&p, "tour-starts_at", &local(&p, -86_400_000).await?).await?;
    start_refused(&p).await?;
    set_value(&p, "tour-starts_at", &local(&p, 61 * 86_400_000).await?).await?;
    start_refused(&p).await?;
    look(&p, "arena-start-phone-es-error").await?;

    // Ten minutes ahead: an upcoming arena, counting down to its start.
    set_value(
        &p,
        "tour-starts_at",
        &local(&p, 10 * 60_000 + 30_000).await?,
    )
    .await?;
    click(&p, "#tour-create").await?;
    wait_for(
        &p,
        "location.pathname.startsWith('/tournament/') && /^Empieza dentro de (10:\\d\\d|9:\\d\\d)$/.test(document.getElementById('tour-phase').textContent)",
        "the upcoming arena's countdown",
        30,
    )
    .await?;
    let here = js(&p, "location.href").await?;
    let here = here.as_str().ok_or("no address")?.to_string();

    // Ana joins, then pauses: Join is offered again, she is told she is
    // paused, and the standings mark her.
    click(&p, "#tour-join").await?;
    wait_id(&p, "tour-pause", "the Pause button", 20).await?;
    assert_eq!(text(&p, "#tour-pause").await?, "Pausa");
    look(&p, "arena-joined-phone-es").await?;
    click(&p, "#tour-pause").await?;
    wait_for(
        &p,
        "document.getElementById('tour-join') && document.getElementById('tour-paused') && !document.getElementById('tour-pause')",
        "paused",
        20,
    )
    .await?;
    assert_eq!(
        text(&p, "#tour-paused").await?,
        "Estás en pausa: no se te empareja hasta que vuelvas a unirte."
    );
    assert_eq!(
        text(&p, "#tour-standings .paused-mark").await?.trim(),
        "(en pausa)"
    );
    look(&p, "arena-paused-phone-es").await?;

    // The desktop, in English, joins and sees Ana paused, itself not.
    visit(&d, &here).await?;
    wait_id(&d, "tour-join", "the arena", 30).await?;
    click(&d, "#tour-join").await?;
    wait_id(&d, "tour-pause", "joined", 20).await?;
    let rows = js(
        &d,
        "[...document.querySelectorAll('#tour-standings tbody tr')].map(tr => tr.cells[1].textContent).join('|')",
    )
    .await?;
    let rows = rows.as_str().unwrap_or("");
    assert!(rows.contains("Ana (paused)"), "{rows}");
    assert!(rows.split('|').any(|r| r == "Bea"), "{rows}");
    look(&d, "arena-paused-desktop-en").await?;

    // Ana comes back: Pause again, the mark gone.
    click(&p, "#tour-join").await?;
    wait_for(
        &p,
        "document.getElementById('tour-pause') && !document.querySelector('#tour-standings .paused-mark')",
        "back",
        20,
    )
    .await?;
    Ok(())
}
