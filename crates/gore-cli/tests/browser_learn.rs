//! Browser tests of the lessons: a first-time visitor is offered them on
//! the home page, opens the first one and completes it with the keyboard
//! only, in English and in Spanish (a miss, a retry, then the goal); the
//! pages pass axe-core, on a desktop and on a 360 px phone.
//!
//! Without Chromium they print a loud warning and pass, except on CI
//! (`CI=true`). Screenshots go to `target/screenshots/`.

// Not every helper's import is used here.
#[allow(unused_imports)]
mod browser_support;
use browser_support::*;

const LESSON_READY: &str = "document.querySelector('[data-lesson=sow]') && document.querySelectorAll('#board .hole').length === 8";

#[test]
fn a_first_time_visitor_completes_the_first_lesson_by_keyboard() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("a_first_time_visitor_completes_the_first_lesson_by_keyboard")
    else {
        return;
    };
    let server = Server::start();
    runtime().block_on(async {
        let chrome = Chrome::launch(&exe, 1280, 900)
            .await
            .expect("launch chromium");
        let r = first_lesson(&chrome, &server).await;
        chrome.close().await;
        r.expect("the first lesson");
    });
}

async fn first_lesson(chrome: &Chrome, server: &Server) -> Res<()> {
    // A fresh profile: a first-time visitor. The offer is on the home page.
    let page = chrome.page(&format!("{}/", server.url)).await?;
    wait_id(&page, "learn-welcome-start", "the offer of the lessons", 20).await?;
    assert_eq!(text(&page, "#learn-welcome-title").await?, "New to Goré?");
    shot(&page, "learn-home-offer").await?;
    assert_accessible(&page, "home-with-lessons-offer").await?;

    // Keyboard only: Tab to "Start the first lesson", Enter.
    tab_to(&page, "#learn-welcome-start").await?;
    key(&page, "Enter").await?;
    wait_for(&page, LESSON_READY, "the first lesson", 20).await?;
    assert_eq!(text(&page, "#lesson-title").await?, "Sowing");

    // The board is one Tab stop: a1, the first playable hole (a4 is empty).
    tab_to(&page, "hole:a1").await?;
    key(&page, "ArrowRight").await?;
    assert_eq!(focused(&page).await?, "hole:a2");
    key(&page, "ArrowRight").await?;
    assert_eq!(focused(&page).await?, "hole:a3");
    // Wrong first: back to a1, which ends in b1.
    key(&page, "Home").await?;
    assert_eq!(focused(&page).await?, "hole:a1");
    key(&page, "Enter").await?;
    wait_el(&page, "[data-status=missed]", "the miss", 20).await?;
    let fb = text(&page, "#lesson-feedback").await?;
    assert!(
        fb.contains("Not yet.") && fb.contains("fell into b1; the goal is b2"),
        "{fb}"
    );
    assert_eq!(focused(&page).await?, "#lesson-retry");
    shot(&page, "learn-missed-en").await?;
    key(&page, "Enter").await?;
    wait_el(&page, "[data-status=open]", "the retry", 20).await?;
    assert_eq!(focused(&page).await?, "hole:a1");
    // The right sowing: a3 (3 seeds: a4, b1, b2).
    key(&page, "ArrowRight").await?;
    key(&page, "ArrowRight").await?;
    assert_eq!(focused(&page).await?, "hole:a3");
    key(&page, "Enter").await?;
    wait_el(&page, "[data-status=met]", "the goal met", 20).await?;
    let fb = text(&page, "#lesson-feedback").await?;
    assert!(fb.starts_with("Well done!"), "{fb}");
    // The board shows the position after a3 (b2: 4 + 1).
    assert_eq!(text(&page, ".hole[data-hole=b2] .count").await?, "5");
    assert_eq!(focused(&page).await?, "#lesson-next");
    let done = js(
        &page,
        "JSON.parse(localStorage.getItem('gore.lessons')).done",
    )
    .await?;
    assert_eq!(done, serde_json::json!(["sow"]));
    shot(&page, "learn-met-en").await?;
    assert_accessible(&page, "lesson-met-en").await?;
    // Next lesson, by keyboard: the heading takes the focus.
    key(&page, "Enter").await?;
    wait_el(&page, "[data-lesson=capture]", "the second lesson", 20).await?;
    assert_eq!(focused(&page).await?, "#lesson-title");

    // The home page no longer offers the lessons once one was opened.
    visit(&page, format!("{}/", server.url)).await?;
    wait_id(&page, "play-ai", "home page", 20).await?;
    // (and nothing stands in its place: no stray text in the page).
    let stray = js(
        &page,
        "[...document.getElementById('main').childNodes].some(n => n.nodeType === 3 && n.textContent.trim())",
    )
    .await?;
    assert_eq!(stray, Value::Bool(false));
    assert_eq!(
        js(&page, "!!document.getElementById('learn-welcome')").await?,
        Value::Bool(false)
    );

    // Spanish: the list shows the progress; the first lesson again, by keyboard.
    choose_lang(&page, "es").await?;
    visit(&page, format!("{}/learn", server.url)).await?;
    wait_el(&page, ".lesson-list", "the list", 20).await?;
    assert_eq!(text(&page, "#learn-title").await?, "Aprender Goré");
    assert_eq!(
        text(&page, "#learn-progress").await?,
        "1 de 10 lecciones hechas"
    );
    assert_accessible(&page, "lesson-list-es").await?;
    shot(&page, "learn-list-es").await?;
    tab_to(&page, "#lesson-open-sow").await?;
    key(&page, "Enter").await?;
    wait_for(&page, LESSON_READY, "the first lesson in Spanish", 20).await?;
    assert_eq!(text(&page, "#lesson-title").await?, "Sembrar");
    assert_eq!(focused(&page).await?, "#lesson-title");
    tab_to(&page, "hole:a1").await?;
    key(&page, "ArrowRight").await?;
    key(&page, "Enter").await?;
    // a2 (1 seed) ends in a3.
    wait_el(&page, "[data-status=missed]", "the miss", 20).await?;
    let fb = text(&page, "#lesson-feedback").await?;
    assert!(
        fb.contains("Todavía no.") && fb.contains("cayó en a3"),
        "{fb}"
    );
    key(&page, "Enter").await?;
    wait_el(&page, "[data-status=open]", "the retry", 20).await?;
    key(&page, "End").await?;
    assert_eq!(focused(&page).await?, "hole:a3");
    key(&page, "Enter").await?;
    wait_el(&page, "[data-status=met]", "the goal met", 20).await?;
    let fb = text(&page, "#lesson-feedback").await?;
    assert!(fb.starts_with("¡Muy bien!"), "{fb}");
    shot(&page, "learn-met-es").await?;
    assert_accessible(&page, "lesson-met-es").await?;
    Ok(())
}

/// On a 360 px phone, in Basque and in dark mode: the lesson fits the
/// width, its offer lesson's buttons work by keyboard, and axe passes.
#[test]
fn lessons_on_a_phone_in_basque_and_dark() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("lessons_on_a_phone_in_basque_and_dark") else {
        return;
    };
    let server = Server::start();
    runtime().block_on(async {
        let chrome = Chrome::launch(&exe, 360, 740)
            .await
            .expect("launch chromium");
        let r = phone(&chrome, &server).await;
        chrome.close().await;
        r.expect("the phone");
    });
}

async fn phone(chrome: &Chrome, server: &Server) -> Res<()> {
    let page = chrome.page(&format!("{}/", server.url)).await?;
    wait_id(&page, "learn-welcome", "the offer", 20).await?;
    choose_lang(&page, "eu").await?;
    page.emulate_media_features(vec![
        chromiumoxide::cdp::browser_protocol::emulation::MediaFeature::new(
            "prefers-color-scheme",
            "dark",
        ),
    ])
    .await?;
    shot(&page, "learn-home-offer-phone-eu-dark").await?;
    // "No, thanks": the offer goes and stays gone.
    click(&page, "#learn-welcome-dismiss").await?;
    wait_gone(&page, "#learn-welcome", "the offer dismissed", 10).await?;
    visit(&page, format!("{}/learn?lesson=offer", server.url)).await?;
    wait_for(
        &page,
        "document.querySelector('[data-lesson=offer]') && document.getElementById('lesson-offer')",
        "the offer lesson",
        20,
    )
    .await?;
    // The lesson fits the phone's width (the site's header is not the
    // lessons' own).
    let right = js(&page, "(() => { let m = 0; document.querySelectorAll('.lesson, .lesson *').forEach(e => { m = Math.max(m, e.getBoundingClientRect().right); }); return m; })()").await?;
    assert!(
        right.as_f64().unwrap_or(999.0) <= 360.0,
        "the lesson's right edge {right}"
    );
    assert_accessible(&page, "lesson-offer-phone-eu-dark").await?;
    // Offer a4 by keyboard: the button, the hole, the send button.
    page.find_element("#lesson-offer").await?.focus().await?;
    key(&page, "Enter").await?;
    wait_id(&page, "lesson-send-offer", "choosing holes", 10).await?;
    assert_eq!(focused(&page).await?, "hole:a1");
    key(&page, "End").await?;
    assert_eq!(focused(&page).await?, "hole:a4");
    key(&page, "Enter").await?;
    wait_enabled(&page, "lesson-send-offer", "a4 chosen", 10).await?;
    tab_to(&page, "#lesson-send-offer").await?;
    key(&page, "Enter").await?;
    wait_el(&page, "[data-status=met]", "the offer made", 20).await?;
    let fb = text(&page, "#lesson-feedback").await?;
    // B accepted and sowed b2 (the scripted replies); a4 is his, with 6.
    assert!(
        fb.starts_with("Oso ondo!")
            && fb.contains("Aurkariak onartu egin du.")
            && fb.contains("Aurkariak b2 erein du."),
        "{fb}"
    );
    assert_eq!(text(&page, ".hole[data-hole=a4] .count").await?, "6");
    shot(&page, "learn-offer-met-phone-eu-dark").await?;
    assert_accessible(&page, "lesson-offer-met-phone-eu-dark").await?;
    Ok(())
}

/// Plays one learner action on the open lesson, as a person does.
async fn lesson_action(page: &Page, action: &str) -> Res<()> {
    match action {
        "pass" => click(page, "#lesson-pass").await?,
        "accept" => click(page, "#lesson-accept").await?,
        "decline" => click(page, "#lesson-decline").await?,
        a if a.starts_with("offer:") => {
            click(page, "#lesson-offer").await?;
            for hole in a[6..].split(',') {
                wait_el(page, "#board .hole.legal", "the holes to offer", 10).await?;
                click(page, &format!("#board .hole[data-hole={hole}]")).await?;
            }
            wait_enabled(page, "lesson-send-offer", "the offer ready", 10).await?;
            click(page, "#lesson-send-offer").await?;
        }
        hole => {
            wait_for(
                page,
                &format!("document.querySelector('#board .hole.legal[data-hole={hole}]')"),
                "the hole playable",
                10,
            )
            .await?;
            click(page, &format!("#board .hole[data-hole={hole}]")).await?;
        }
    }
    Ok(())
}

/// What repeats in a lesson's feedback, if anything: a clause twice (say
/// "…the game is over. The game is over: A 45, B 3."), a hole named twice
/// ("Your opponent sowed b4… Your opponent sows b4."), or three words in
/// a row twice.
fn repetition(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let clauses: Vec<&str> = lower
        .split(|c: char| ".:;,!?¡¿".contains(c))
        .map(str::trim)
        .filter(|s| s.split_whitespace().count() >= 2)
        .collect();
    for (i, c) in clauses.iter().enumerate() {
        if clauses[i + 1..].contains(c) {
            return Some(format!("the clause \"{c}\" twice"));
        }
    }
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    for hole in ["a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"] {
        if words.iter().filter(|w| **w == hole).count() > 1 {
            return Some(format!("{hole} named twice"));
        }
    }
    let grams: Vec<String> = words.windows(3).map(|w| w.join(" ")).collect();
    for (i, g) in grams.iter().enumerate() {
        if grams[i + 1..].contains(g) {
            return Some(format!("\"{g}\" twice"));
        }
    }
    None
}

/// Issue 27, point 19: every lesson played to its goal, in the four
/// languages: no sentence of the feedback repeats another; and the move
/// is shown on the board, not just its result: the hole sown marked, each
/// hole a seed fell into (+1), the landing hole ringed and named so, or
/// the opponent's reply's hole; on a desktop, and a phone for the marks.
#[test]
fn lessons_show_the_move_and_never_repeat_a_sentence() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("lessons_show_the_move_and_never_repeat_a_sentence") else {
        return;
    };
    let server = Server::start();
    runtime().block_on(async {
        for (w, h, langs) in [
            (1366, 768, &["en", "es", "fr", "eu"][..]),
            (360, 740, &["es"][..]),
        ] {
            let chrome = Chrome::launch(&exe, w, h).await.expect("launch chromium");
            let r = every_lesson(&chrome, &server, langs, w).await;
            chrome.close().await;
            r.expect("the lessons");
        }
    });
}

async fn every_lesson(chrome: &Chrome, server: &Server, langs: &[&str], width: u32) -> Res<()> {
    let page = chrome.page(&format!("{}/rules", server.url)).await?;
    for lang in langs {
        js(
            &page,
            &format!("localStorage.setItem('gore.lang', '{lang}')"),
        )
        .await?;
        for lesson in gore_learn::lessons::all() {
            let id = lesson.id;
            // Navigated from the page, and waited on by what it shows:
            // CDP's own navigation now and then never reported the load
            // on a busy machine ("Timeout" after 60 s).
            go(&page, &format!("{}/learn?lesson={id}", server.url)).await;
            wait_for(
                &page,
                &format!("document.querySelector('[data-lesson=\"{id}\"]') && document.querySelectorAll('#board .hole').length === 8"),
                "the lesson",
                20,
            )
            .await?;
            for (k, action) in lesson.solution.iter().enumerate() {
                lesson_action(&page, action).await?;
                let want = if k + 1 == lesson.solution.len() {
                    "met"
                } else {
                    "continue"
                };
                wait_for(
                    &page,
                    &format!("document.querySelector('[data-status={want}]')"),
                    &format!("{id}: {action} played"),
                    20,
                )
                .await?;
            }
            let fb = text(&page, "#lesson-feedback").await?;
            if let Some(r) = repetition(&fb) {
                panic!("{lang} {id}: {r}: {fb}");
            }
            // The move on the board.
            let marks = js(
                &page,
                "({origin: [...document.querySelectorAll('#board .hole.origin')].map(g => g.dataset.hole), \
                   landed: [...document.querySelectorAll('#board .hole.landed')].map(g => [g.dataset.hole, g.getAttribute('aria-label')]), \
                   drops: [...document.querySelectorAll('#board .hole.sown-into, #board .hole.landed')].map(g => g.dataset.hole)})",
            )
            .await?;
            match id {
                "sow" => {
                    // a3's 3 seeds into a4, b1 and b2: the last in b2.
                    assert_eq!(
                        marks["origin"],
                        serde_json::json!(["a3"]),
                        "{lang}: {marks}"
                    );
                    assert_eq!(
                        marks["drops"],
                        serde_json::json!(["a4", "b1", "b2"]),
                        "{lang}: {marks}"
                    );
                    assert_eq!(marks["landed"][0][0], "b2", "{lang}: {marks}");
                    let label = marks["landed"][0][1].as_str().unwrap_or_default();
                    let landed_words = match *lang {
                        "es" => "aquí cayó la última semilla",
                        "fr" => "la dernière graine est tombée ici",
                        "eu" => "azken hazia hemen erori da",
                        _ => "the last seed fell here",
                    };
                    assert!(label.ends_with(landed_words), "{lang}: {label}");
                    shot(&page, &format!("learn-sow-move-{lang}-{width}")).await?;
                    assert_accessible(&page, &format!("learn-sow-move-{lang}-{width}")).await?;
                }
                // The opponent's reply is the move last made.
                "pass" => assert_eq!(
                    marks["origin"],
                    serde_json::json!(["b4"]),
                    "{lang}: {marks}"
                ),
                _ => {}
            }
            if *lang == "en" && ["end-sweep", "pass", "decline", "whole-board"].contains(&id) {
                shot(&page, &format!("learn-{id}-done-en")).await?;
            }
        }
    }
    Ok(())
}
