//! Browser tests of the analysis board (/analysis): a position set up in
//! the editor (a wrong one explained, then a right one) gets the engine's
//! evaluation streamed in, in English and in Spanish; moves played make a
//! tree with a side line; the share link reopens the same position and
//! line for someone else. Checked with axe-core; screenshots go to
//! `target/screenshots/analysis-*.png`.
//!
//! Without Chromium they print a loud warning and pass, except on CI
//! (`CI=true`).

#[allow(unused_imports)]
mod browser_support;
use browser_support::*;

/// The page's requests to the server have all been answered and drawn.
const SETTLED: &str =
    "(() => { const m = document.querySelector('[data-busy]'); return !!m && m.dataset.busy === '0'; })()";

/// Clicks a button of the page (in the page: the sections that stream
/// findings are redrawn as they come, so a node found first may be gone
/// when a mouse would reach it), then waits for the page to settle.
async fn press(page: &Page, selector: &str) -> Res<()> {
    let found = js(
        page,
        &format!("(() => {{ const b = document.querySelector(\"{selector}\"); if (!b) return false; b.click(); return true; }})()"),
    )
    .await?;
    if found != serde_json::Value::Bool(true) {
        return Err(format!("no element {selector}").into());
    }
    wait_for(page, SETTLED, "the page's requests", 20).await
}

#[test]
fn a_position_set_up_in_the_editor_is_evaluated_and_shared() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("a_position_set_up_in_the_editor_is_evaluated_and_shared")
    else {
        return;
    };
    // A short search per position: the test waits for findings, not time.
    let server = start_server_with(&["--analysis-time-ms", "1500"]);
    runtime().block_on(async {
        let chrome = Chrome::launch(&exe, 1280, 900)
            .await
            .expect("launch chromium");
        let r = flow(&chrome, &server).await;
        chrome.close().await;
        r.expect("the analysis board");
    });
}

async fn flow(chrome: &Chrome, server: &Server) -> Res<()> {
    let page = chrome.page(&format!("{}/analysis", server.url)).await?;
    wait_id(&page, "an-hole-a1", "the editor", 20).await?;
    wait_for(&page, SETTLED, "the page's requests", 20).await?;
    for (lang, title, depth_word) in [
        ("en", "Analysis board", "Depth"),
        ("es", "Tablero de análisis", "Profundidad"),
    ] {
        choose_lang(&page, lang).await?;
        assert_eq!(text(&page, "h1").await?, title);
        // Back to the standard start (a fresh tree), then one seed fewer
        // in a1: 47 seeds where the rules want 48, which the server
        // explains.
        press(&page, "#an-reset").await?;
        wait_for(
            &page,
            "document.getElementById('an-gpn').value.startsWith('6,6,6,6/6,6,6,6 ')",
            "the start position",
            20,
        )
        .await?;
        press(&page, "#an-minus-a1").await?;
        wait_for(
            &page,
            // The rules library's reason, in the page's words and
            // language (no raw `gpn:` field in front since issue 27,
            // point 4): 47 seeds where 48 are due.
            "(t => t.includes('47') && t.includes('48') && !t.includes('gpn:'))(document.getElementById('an-error').textContent)",
            "the rules library's reason",
            20,
        )
        .await?;
        // The seed goes to A's captured ones: a valid position.
        set_value(&page, "an-captured-A", "1").await?;
        wait_for(
            &page,
            "document.getElementById('an-gpn').value === '5,6,6,6/6,6,6,6 AAAA/BBBB 1-0 A -' \
             && document.getElementById('an-error').textContent === ''",
            "the edited position",
            20,
        )
        .await?;
        // The evaluation streams in: a depth, expected seeds adding up to
        // 48, a best line; and every action's value.
        wait_for(
            &page,
            "Number((document.getElementById('an-depth') || {}).textContent) >= 2",
            "an evaluation",
            30,
        )
        .await?;
        let expected = text(&page, "#an-expected").await?;
        let nums: Vec<f64> = expected
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter_map(|s| s.parse().ok())
            .collect();
        assert_eq!(nums.len(), 2, "{expected}");
        assert!((nums[0] + nums[1] - 48.0).abs() < 0.11, "{expected}");
        assert!(!text(&page, "#an-line").await?.trim().is_empty());
        let eval_text = text(&page, "#an-eval").await?;
        assert!(eval_text.contains(depth_word), "{eval_text}");
        wait_for(
            &page,
            "[...document.querySelectorAll('[data-value-of]')].every(e => e.textContent !== '…')",
            "every action's value",
            30,
        )
        .await?;
        shot(&page, &format!("analysis-{lang}")).await?;
        assert_accessible(&page, &format!("analysis-{lang}")).await?;

        // Moves: a1 (main line), back (←), a2 (a side line).
        press(&page, "button[data-action='a1']").await?;
        wait_count(&page, ".an-move", 1, "a1 played", 20).await?;
        js(
            &page,
            "document.activeElement && document.activeElement.blur()",
        )
        .await?;
        page.find_element("body")
            .await?
            .press_key("ArrowLeft")
            .await?;
        wait_gone(&page, ".an-move.current", "back at the start", 20).await?;
        press(&page, "button[data-action='a2']").await?;
        wait_for(
            &page,
            "document.querySelectorAll('.an-variation .an-move').length === 1 \
             && document.querySelector('.an-move.current').textContent === '1. a2'",
            "a side line",
            20,
        )
        .await?;
    }
    // The share link opens the same position and line elsewhere.
    let link = js(&page, "document.getElementById('an-link').value").await?;
    let link = link.as_str().unwrap_or_default().to_string();
    assert!(link.contains("/analysis?"), "{link}");
    assert!(link.contains("line=a2"), "{link}");
    // Someone else opening the link: this tab goes to it (the server
    // allows one analysis per address, and leaving the page closes its
    // socket). Closing the tab and opening another hung twice on a loaded
    // machine in chromiumoxide (the close, then the new tab's load, never
    // answered); navigating the same tab is what the other tests do.
    visit(&page, link.as_str()).await?;
    let other = page;
    wait_for(
        &other,
        "document.getElementById('an-gpn') \
         && document.getElementById('an-gpn').value === '5,6,6,6/6,6,6,6 AAAA/BBBB 1-0 A -' \
         && document.querySelector('.an-move.current') \
         && document.querySelector('.an-move.current').textContent === '1. a2'",
        "the shared position and line",
        20,
    )
    .await?;
    wait_for(
        &other,
        "Number((document.getElementById('an-depth') || {}).textContent) >= 1",
        "an evaluation of the shared position",
        30,
    )
    .await?;
    shot(&other, "analysis-shared").await?;
    Ok(())
}

/// On a 360 px phone in dark mode: nothing wider than the screen, no
/// serious accessibility violation, an evaluation all the same.
#[test]
fn the_analysis_board_fits_a_phone_in_dark_mode() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("the_analysis_board_fits_a_phone_in_dark_mode") else {
        return;
    };
    let server = start_server_with(&["--analysis-time-ms", "1000"]);
    runtime().block_on(async {
        let chrome = Chrome::launch(&exe, 360, 780)
            .await
            .expect("launch chromium");
        let r = phone(&chrome, &server).await;
        chrome.close().await;
        r.expect("the analysis board on a phone");
    });
}

async fn phone(chrome: &Chrome, server: &Server) -> Res<()> {
    let page = chrome
        .page(&format!(
            "{}/analysis?rules=no-trades&line=a1+b1&ply=1",
            server.url
        ))
        .await?;
    page.emulate_media_features(vec![
        chromiumoxide::cdp::browser_protocol::emulation::MediaFeature::new(
            "prefers-color-scheme",
            "dark",
        ),
    ])
    .await?;
    // The link's ply: after a1, with b1 still in the tree.
    wait_for(
        &page,
        "document.querySelectorAll('.an-move').length === 2 \
         && document.querySelector('.an-move.current').textContent === '1. a1' \
         && Number((document.getElementById('an-depth') || {}).textContent) >= 1",
        "the linked line, evaluated",
        30,
    )
    .await?;
    let wide = js(&page, "document.documentElement.scrollWidth").await?;
    assert!(wide.as_f64().unwrap_or(9999.0) <= 360.0, "{wide} px wide");
    shot(&page, "analysis-phone-dark").await?;
    assert_accessible(&page, "analysis-phone-dark").await?;
    Ok(())
}

/// A finished game's "Analyse" link opens the analysis board at its start
/// with its actions, at the ply shown.
#[test]
fn a_finished_game_opens_in_the_analysis_board() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("a_finished_game_opens_in_the_analysis_board") else {
        return;
    };
    let server = start_server_with(&["--analysis-time-ms", "1000"]);
    runtime().block_on(async {
        let chrome = Chrome::launch(&exe, 1280, 900)
            .await
            .expect("launch chromium");
        let r = finished(&chrome, &server).await;
        chrome.close().await;
        r.expect("a finished game in the analysis board");
    });
}

async fn finished(chrome: &Chrome, server: &Server) -> Res<()> {
    let page = chrome.page(&format!("{}/", server.url)).await?;
    wait_id(&page, "lang-select", "the home page", 20).await?;
    // A local game one action from its end: a4 sows b1 b2 b3 and every
    // hole then holds at most 2 (A sweeps a3: 23-25).
    let start = "0,0,1,3/1,0,0,0 AAAA/BBBB 22-21 A -";
    let url = js(
        &page,
        &format!(
            "(async () => {{ \
               const r = await fetch('/api/games', {{method: 'POST', credentials: 'same-origin', \
                 headers: {{'Content-Type': 'application/json'}}, \
                 body: JSON.stringify({{mode: 'local', rules: 'no-trades', start: '{start}'}})}}); \
               const g = await r.json(); \
               const p = await fetch('/api/games/' + g.id + '/actions', {{method: 'POST', credentials: 'same-origin', \
                 headers: {{'Content-Type': 'application/json', 'Authorization': 'Bearer ' + g.token}}, body: JSON.stringify({{action: 'a4'}})}}); \
               return p.ok ? g.url : 'play failed ' + p.status + ' ' + (await p.text()); }})()"
        ),
    )
    .await?;
    let url = url.as_str().unwrap_or_default().to_string();
    assert!(url.starts_with("/g/"), "{url}");
    visit(&page, format!("{}{url}", server.url)).await?;
    wait_id(&page, "analyse-link", "the Analyse link", 20).await?;
    let href = js(
        &page,
        "document.getElementById('analyse-link').getAttribute('href')",
    )
    .await?;
    let href = href.as_str().unwrap_or_default().to_string();
    assert!(href.starts_with("/analysis?"), "{href}");
    assert!(
        href.contains("rules=no-trades") && href.contains("line=a4"),
        "{href}"
    );
    click(&page, "#analyse-link").await?;
    wait_for(
        &page,
        "location.pathname === '/analysis' \
         && document.querySelector('.an-move.current') \
         && document.querySelector('.an-move.current').textContent === '1. a4' \
         && document.getElementById('an-status').textContent.includes('23') \
         && document.getElementById('an-gpn').value === '0,0,1,3/1,0,0,0 AAAA/BBBB 22-21 A -'",
        "the game in the analysis board",
        20,
    )
    .await?;
    shot(&page, "analysis-from-game").await?;
    Ok(())
}

/// Issue 27, point 5: for `1,1,1,1/6,0,24,0 AAAA/ABBB 0-14 A -` with the
/// budget run out, the list beside the evaluation showed a1–a4 at "A 15.6
/// – B 32.4, depth 0" (a guess, not a search) while the evaluation said
/// a2, A 33 – B 15. Now no action shows a depth-0 value (an action the
/// budget left unsearched says so), the evaluation's best action is
/// marked best in the list with the evaluation's value, and no action is
/// valued above it; in English and Spanish, on a desktop and a phone.
#[test]
fn the_analysis_list_agrees_with_the_evaluation_and_never_shows_a_guess() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("the_analysis_list_agrees_with_the_evaluation") else {
        return;
    };
    // A small node budget: deterministic, and short of every action.
    let server = start_server_with(&["--analysis-nodes", "3000"]);
    runtime().block_on(async {
        for (w, h, lang, tag) in [
            (1366, 768, "en", "en-desktop"),
            (360, 740, "es", "es-phone"),
        ] {
            let chrome = Chrome::launch(&exe, w, h).await.expect("launch chromium");
            let r = agreement(&chrome, &server, lang, tag).await;
            chrome.close().await;
            r.expect(tag);
        }
    });
}

async fn agreement(chrome: &Chrome, server: &Server, lang: &str, tag: &str) -> Res<()> {
    let page = chrome.page(&format!("{}/rules", server.url)).await?;
    js(
        &page,
        &format!("localStorage.setItem('gore.lang', '{lang}')"),
    )
    .await?;
    visit(
        &page,
        format!(
            "{}/analysis?gpn=1%2C1%2C1%2C1%2F6%2C0%2C24%2C0+AAAA%2FABBB+0-14+A+-",
            server.url
        ),
    )
    .await?;
    // The analysis ends (its budget spent): its Stop button goes grey.
    wait_for(
        &page,
        "(() => { const s = document.getElementById('an-stop'); const d = document.getElementById('an-depth'); \
         return !!s && s.disabled && !!d && Number(d.textContent) >= 1; })()",
        "the analysis over",
        60,
    )
    .await?;
    let rows = js(
        &page,
        "[...document.querySelectorAll('[data-value-of]')].map(e => [e.dataset.valueOf, e.textContent])",
    )
    .await?;
    let rows: Vec<(String, String)> = serde_json::from_value(rows)?;
    // a1–a4, b1 (A's) and the offers A may make.
    assert!(rows.len() >= 5, "{tag}: {rows:?}");
    let depth0 = if lang == "es" {
        "profundidad 0"
    } else {
        "depth 0"
    };
    let unsearched = if lang == "es" {
        "sin calcular"
    } else {
        "not searched"
    };
    let value = |s: &str| -> Option<f64> {
        // "A 33 – B 15 …": A's seeds, the first number.
        s.split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .find_map(|x| x.parse::<f64>().ok())
    };
    for (a, s) in &rows {
        assert!(!s.contains(depth0), "{tag}: {a} shows a guess: {s}");
        assert!(s != "…", "{tag}: {a} never settled");
        assert!(
            s.contains(unsearched) || value(s).is_some(),
            "{tag}: {a}: {s}"
        );
    }
    // The evaluation's best (its line's first action) is the list's best.
    let line = text(&page, "#an-line").await?;
    let best = line
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string();
    let marked = js(
        &page,
        "[...document.querySelectorAll('.an-best')].map(b => b.closest('[data-value-of]').dataset.valueOf)",
    )
    .await?;
    assert_eq!(marked, serde_json::json!([best]), "{tag}: {rows:?}");
    let expected = text(&page, "#an-expected").await?;
    let best_row = &rows.iter().find(|(a, _)| *a == best).expect("best row").1;
    assert_eq!(
        value(best_row),
        value(&expected),
        "{tag}: {best_row} vs {expected}"
    );
    for (a, s) in &rows {
        if let Some(v) = value(s).filter(|_| !s.contains(unsearched)) {
            assert!(
                v <= value(&expected).unwrap() + 0.05,
                "{tag}: {a} {s} above the best {expected}"
            );
        }
    }
    shot(&page, &format!("analysis-agreement-{tag}")).await?;
    assert_accessible(&page, &format!("analysis-agreement-{tag}")).await?;
    Ok(())
}
