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
    visit(&page, format!("{}/g/{id}", server.url)).await?;
    wait_id(&page, "review-btn", "the Review button", 20).await?;
    click(&page, "#review-btn").await?;
    wait_el(
        &page,
        "#review-chart .review-mark.review-blunder",
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
    wait_el(
        &page,
        "#review-ply-2[aria-current=true]",
        "action 2 selected",
        10,
    )
    .await?;
    click(&page, ".review-mark.review-blunder").await?;
    wait_el(
        &page,
        "#review-ply-1[aria-current=true]",
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
    visit(&page, format!("{}/review", server.url)).await?;
    wait_id(&page, "review-upload", "the upload form", 20).await?;
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
    wait_el(
        &page,
        "#review-chart .review-mark.review-blunder",
        "the uploaded record's review",
        60,
    )
    .await?;
    let best = text(&page, "#review-best").await?;
    assert!(best.contains("b4"), "{tag}: {best}");
    // A record that does not read: the server's message, naming the line.
    visit(&page, format!("{}/review", server.url)).await?;
    wait_id(&page, "review-upload", "the upload form", 20).await?;
    js(
        &page,
        "document.getElementById('review-text').value = '[Rules \"standard\"]\\n\\n1. a1 zz\\n'",
    )
    .await?;
    click(&page, "#review-submit").await?;
    wait_id(&page, "review-error", "the error", 20).await?;
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

/// Issue 27, point 1: `/analysis` open in one tab (it analyses at once,
/// and holds the analysis engine: a long budget), a game's review opened
/// in another tab of the same visitor waits its turn, saying so in the
/// page's language (its place in the analysis engine's queue), never
/// "busy", and completes once the analysis tab stops; a second analysis
/// tab waits too instead of being refused.
async fn review_beside_analysis(
    chrome: &Chrome,
    server: &Server,
    lang: &str,
    tag: &str,
) -> Res<()> {
    let (queued_word, analysis_queued) = match lang {
        "fr" => (
            "En attente du moteur d'analyse",
            "En attente du moteur du serveur",
        ),
        _ => (
            "Waiting for the analysis engine",
            "Waiting for the server's engine",
        ),
    };
    let first = chrome.page(&format!("{}/rules", server.url)).await?;
    js(
        &first,
        &format!("localStorage.setItem('gore.lang', '{lang}'); localStorage.setItem('gore.animation', 'off')"),
    )
    .await?;
    let id = finished_game(&first).await?;
    // The analysis tab: its analysis runs (its first depth comes).
    visit(&first, format!("{}/analysis", server.url)).await?;
    wait_for(
        &first,
        "(() => { const d = document.getElementById('an-depth'); return !!d && Number(d.textContent) >= 1; })()",
        "the analysis tab's analysis running",
        60,
    )
    .await?;
    // A second analysis tab: it waits (no error), told its place.
    // (A new tab opened at /analysis itself never reported its load to
    // chromiumoxide: its replaceState on load, likely. It opens at /rules.)
    let review = chrome.page(&format!("{}/rules", server.url)).await?;
    visit(&review, format!("{}/analysis", server.url)).await?;
    wait_for(
        &review,
        &format!(
            "(document.getElementById('an-state') || {{}}).textContent?.startsWith({})",
            serde_json::to_string(analysis_queued)?
        ),
        "the second analysis tab told its place",
        30,
    )
    .await?;
    assert_eq!(text(&review, "#an-error").await?, "", "{tag}");
    shot(&review, &format!("analysis-{tag}-second-tab-queued")).await?;
    // That tab goes to the review (two tabs: a third one's load hung in
    // chromiumoxide on a loaded machine): it waits, told its place.
    visit(&review, format!("{}/review/{id}", server.url)).await?;
    wait_for(
        &review,
        &format!(
            "(document.getElementById('review-loading') || {{}}).textContent?.startsWith({})",
            serde_json::to_string(queued_word)?
        ),
        "the review told its place in the analysis engine's queue",
        30,
    )
    .await?;
    let err = js(&review, "!!document.getElementById('review-error')").await?;
    assert_eq!(err, serde_json::json!(false), "{tag}: no error");
    let waiting = text(&review, "#review-loading").await?;
    assert!(
        !waiting.contains("busy") && !waiting.contains("occupé"),
        "{tag}: {waiting}"
    );
    shot(&review, &format!("review-{tag}-queued")).await?;
    assert_accessible(&review, &format!("review-{tag}-queued")).await?;
    // The first tab stops: the review runs and completes.
    js(&first, "document.getElementById('an-stop').click()").await?;
    wait_el(
        &review,
        "#review-chart .review-mark.review-blunder",
        "the review, once the analysis tab stopped",
        60,
    )
    .await?;
    assert_eq!(
        js(&review, "!!document.getElementById('review-error')").await?,
        serde_json::json!(false),
        "{tag}"
    );
    shot(&review, &format!("review-{tag}-after-queue")).await?;
    Ok(())
}

#[test]
fn a_review_beside_an_analysis_tab_waits_its_turn_and_completes() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("a_review_beside_an_analysis_tab_waits_its_turn_and_completes")
    else {
        return;
    };
    // An analysis that only `stop` ends within the test: ten minutes, no
    // node cap to speak of.
    let server = start_server_with(&[
        "--analysis-time-ms",
        "600000",
        "--analysis-nodes",
        "100000000000",
    ]);
    runtime().block_on(async {
        for (w, h, lang, tag) in [
            (1366, 768, "en", "beside-en-desktop"),
            (360, 740, "fr", "beside-fr-phone"),
        ] {
            let chrome = Chrome::launch(&exe, w, h).await.expect("launch chromium");
            let r = review_beside_analysis(&chrome, &server, lang, tag).await;
            chrome.close().await;
            r.expect(tag);
        }
    });
}

/// Issue 27, point 15: the end screen's replay controls (⏮ ◀ step ▶ ⏭)
/// on one line, left to right, at desktop and phone sizes (they wrapped
/// on the desktop: ⏮ ◀ above the step's words, ▶ ⏭ below), in English
/// and Spanish.
#[test]
fn the_end_screens_replay_controls_stay_on_one_line() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("the_end_screens_replay_controls_stay_on_one_line") else {
        return;
    };
    let server = Server::start();
    runtime().block_on(async {
        for (w, h, lang, tag) in [
            (1366, 768, "en", "en-desktop"),
            (360, 740, "es", "es-phone"),
            (740, 360, "en", "en-landscape"),
        ] {
            let chrome = Chrome::launch(&exe, w, h).await.expect("launch chromium");
            let r = replay_controls(&chrome, &server, lang, tag).await;
            chrome.close().await;
            r.expect(tag);
        }
    });
}

async fn replay_controls(chrome: &Chrome, server: &Server, lang: &str, tag: &str) -> Res<()> {
    let page = chrome.page(&format!("{}/rules", server.url)).await?;
    js(
        &page,
        &format!("localStorage.setItem('gore.lang', '{lang}'); localStorage.setItem('gore.animation', 'off')"),
    )
    .await?;
    let id = finished_game(&page).await?;
    visit(&page, format!("{}/g/{id}", server.url)).await?;
    wait_for(
        &page,
        "(() => { const r = document.getElementById('review'); return !!r && !r.hidden && !!document.getElementById('review-prev'); })()",
        "the replay controls",
        20,
    )
    .await?;
    // One step back: the step's words are a move, the longest they get.
    js(&page, "document.getElementById('review-prev').click()").await?;
    wait_enabled(&page, "review-next", "a step back", 10).await?;
    let boxes = js(
        &page,
        "['review-first', 'review-prev', 'review-label', 'review-next', 'review-last'].map(id => { \
           const r = document.getElementById(id).getBoundingClientRect(); \
           return [id, r.left, r.right, r.top, r.bottom]; })",
    )
    .await?;
    let boxes: Vec<(String, f64, f64, f64, f64)> = serde_json::from_value(boxes)?;
    shot(&page, &format!("replay-controls-{tag}")).await?;
    for pair in boxes.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        assert!(
            a.2 <= b.1 + 0.5,
            "{tag}: {} not left of {}: {boxes:?}",
            a.0,
            b.0
        );
        assert!(
            a.3.max(b.3) < a.4.min(b.4),
            "{tag}: {} and {} not on one line: {boxes:?}",
            a.0,
            b.0
        );
    }
    let wide = js(&page, "document.documentElement.scrollWidth").await?;
    assert!(
        wide.as_f64().unwrap_or(1e9) <= f64::from(chrome_width(tag)),
        "{tag}: {wide} px wide"
    );
    Ok(())
}

fn chrome_width(tag: &str) -> u32 {
    match tag {
        t if t.ends_with("desktop") => 1366,
        t if t.ends_with("phone") => 360,
        _ => 740,
    }
}

/// A game of `plies` actions picked without thought (the server judges
/// each position), written as a record: a review full of marks.
async fn careless_record(page: &Page, plies: usize) -> Res<String> {
    let line = js(
        page,
        &format!(
            r#"(async () => {{
                const post = (path, body) => fetch(path, {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify(body)}}).then(r => r.json());
                const line = [];
                for (let k = 0; k < {plies}; k++) {{
                    const r = await post('/api/analysis/position', {{rules: 'no-trades', line: line.join(' ')}});
                    if (r.over || !r.legal.length) break;
                    line.push(r.legal[(k * 7 + 3) % r.legal.length]);
                }}
                return line.join(' ');
            }})()"#
        ),
    )
    .await?;
    let line = line.as_str().unwrap_or_default().to_string();
    Ok(format!("[Rules \"no-trades\"]\n\n1. {line}\n"))
}

/// The worst contrast of the review's marked text ("?!", "?", "??" and
/// the counts) against what is drawn behind it.
const WORST_CONTRAST: &str = r#"(() => {
    const rgb = (s) => (s.match(/[\d.]+/g) || []).map(Number);
    const lum = ([r, g, b]) => [r, g, b].map((c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; })
        .reduce((s, c, i) => s + c * [0.2126, 0.7152, 0.0722][i], 0);
    const behind = (el) => { for (let e = el; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor); if (c.length >= 3 && (c.length < 4 || c[3] > 0.5)) return c; } return [255, 255, 255]; };
    let worst = [99, ''];
    for (const el of document.querySelectorAll('.review-item.review-inaccuracy, .review-item.review-mistake, .review-item.review-blunder, td.review-inaccuracy, td.review-mistake, td.review-blunder')) {
        const a = lum(rgb(getComputedStyle(el).color)), b = lum(behind(el));
        const r = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
        if (r < worst[0]) worst = [r, `${el.className}: ${el.textContent}`];
    }
    return worst;
})()"#;

/// Issue 27, points 15 and 14: a careless game's review, whose marks
/// cluster on the chart: no two labels of the chart overlap (nor a label
/// and another mark's circle), on a desktop and a phone; the "?!" and "?"
/// marks read at 4.5:1 at least, light and dark (selected or not), and
/// axe-core finds nothing serious.
#[test]
fn the_review_charts_labels_never_overlap_and_its_marks_read_light_and_dark() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("the_review_charts_labels_never_overlap") else {
        return;
    };
    // The record is made from 44 analyses in a row: more than the address's
    // burst when the machine is fast (the limit is not what is tested here).
    let server = start_server_with(&["--rate-limit", "0"]);
    runtime().block_on(async {
        for (w, h, tag) in [(1366, 768, "desktop"), (360, 740, "phone")] {
            let chrome = Chrome::launch(&exe, w, h).await.expect("launch chromium");
            let r = chart_labels(&chrome, &server, tag).await;
            chrome.close().await;
            r.expect(tag);
        }
    });
}

async fn chart_labels(chrome: &Chrome, server: &Server, tag: &str) -> Res<()> {
    let page = chrome.page(&format!("{}/review", server.url)).await?;
    wait_id(&page, "review-text", "the upload form", 20).await?;
    // One record for both sizes: 44 positions asked for twice in a row
    // would spend the address's rate limit (the phone's run was refused
    // once the first visits' pages were quicker).
    static RECORD: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);
    let known = RECORD.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let record = match known {
        Some(r) => r,
        None => {
            let r = careless_record(&page, 44).await?;
            *RECORD.lock().unwrap_or_else(|e| e.into_inner()) = Some(r.clone());
            r
        }
    };
    js(
        &page,
        &format!(
            "document.getElementById('review-text').value = {}",
            serde_json::to_string(&record)?
        ),
    )
    .await?;
    click(&page, "#review-submit").await?;
    wait_id(&page, "review-chart", "the review", 120).await?;
    let marks = js(
        &page,
        "[...document.querySelectorAll('#review-chart .review-mark circle')].map(c => { const r = c.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })",
    )
    .await?;
    let marks: Vec<[f64; 4]> = serde_json::from_value(marks)?;
    let labels = js(
        &page,
        "[...document.querySelectorAll('#review-chart .review-mark-text')].map(t => { const r = t.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })",
    )
    .await?;
    let labels: Vec<[f64; 4]> = serde_json::from_value(labels)?;
    shot(&page, &format!("review-chart-labels-{tag}")).await?;
    // The game is careless enough that marks cluster: some two circles
    // closer than a label is wide.
    let clustered = marks.iter().enumerate().any(|(i, a)| {
        marks[i + 1..]
            .iter()
            .any(|b| (a[0] - b[0]).abs() < (a[2] - a[0]) * 1.5)
    });
    assert!(clustered && marks.len() >= 4, "{tag}: marks {marks:?}");
    assert!(!labels.is_empty(), "{tag}");
    let meets = |a: &[f64; 4], b: &[f64; 4]| {
        a[0] < b[2] - 0.5 && b[0] < a[2] - 0.5 && a[1] < b[3] - 0.5 && b[1] < a[3] - 0.5
    };
    for (i, a) in labels.iter().enumerate() {
        for b in &labels[i + 1..] {
            assert!(!meets(a, b), "{tag}: labels {a:?} and {b:?} overlap");
        }
        let over = marks.iter().filter(|m| meets(a, m)).count();
        assert_eq!(over, 0, "{tag}: label {a:?} covers a mark");
    }
    // Contrast, light then dark, with an inaccuracy selected too.
    let has_inaccuracy = js(
        &page,
        "!!document.querySelector('.review-item.review-inaccuracy')",
    )
    .await?;
    assert_eq!(
        has_inaccuracy,
        serde_json::json!(true),
        "{tag}: a game with ?! marks"
    );
    for scheme in ["light", "dark"] {
        page.emulate_media_features(vec![
            chromiumoxide::cdp::browser_protocol::emulation::MediaFeature::new(
                "prefers-color-scheme",
                scheme,
            ),
        ])
        .await?;
        for selected in [false, true] {
            if selected {
                js(
                    &page,
                    "document.querySelector('.review-item.review-inaccuracy').click()",
                )
                .await?;
                wait_el(
                    &page,
                    ".review-item.review-inaccuracy[aria-current=true]",
                    "an inaccuracy selected",
                    10,
                )
                .await?;
            }
            let worst = js(&page, WORST_CONTRAST).await?;
            let ratio = worst[0].as_f64().unwrap_or(0.0);
            assert!(ratio >= 4.5, "{tag} {scheme}: {worst}");
        }
        shot(&page, &format!("review-chart-labels-{tag}-{scheme}")).await?;
        assert_accessible(&page, &format!("review-marks-{tag}-{scheme}")).await?;
    }
    Ok(())
}
