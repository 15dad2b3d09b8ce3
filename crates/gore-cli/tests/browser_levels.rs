//! Browser test of the ladder on the home page: every level of gore-ai is
//! listed with its name, the chosen level is described below the list in
//! the player's language (English and French here), choosing another level
//! changes the description without moving what follows, and the game page
//! names the computer's level.
//!
//! The expected words come from gore-ai (`Level::profile()`, English) and
//! from the French strings file, not from the page.
//!
//! Without Chromium it prints a loud warning and passes, except on CI
//! (`CI=true`). Screenshots go to `target/screenshots/`.

#[allow(unused_imports)]
mod browser_support;
use browser_support::*;

use gore_ai::{Level, MAX_LEVEL};

/// A language's strings, read from the table the server embeds
/// (assets/i18n/strings.json: each key with its text in every language).
fn strings_of(lang: &str) -> serde_json::Map<String, Value> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../gore-server/assets/i18n/strings.json");
    let text = std::fs::read_to_string(&path).expect("the strings file");
    let Value::Object(table) = serde_json::from_str(&text).expect("JSON") else {
        panic!("strings.json is not an object");
    };
    table
        .into_iter()
        .filter_map(|(key, texts)| Some((key, texts.get(lang)?.clone())))
        .collect()
}

fn string(strings: &serde_json::Map<String, Value>, key: &str) -> String {
    strings
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no string {key}"))
        .to_string()
}

/// Switches the language with the page's own switch; waits until the
/// level list is in it (its first option starts with `first`).
async fn choose_lang_and_levels(page: &Page, lang: &str, first: &str) -> Res<()> {
    choose_lang(page, lang).await?;
    wait_for(
        page,
        &format!("document.querySelector('#level option') && document.querySelector('#level option').textContent.startsWith({first:?})"),
        lang,
        10,
    )
    .await
}

/// Chooses a level in the list as a person does (a change event).
async fn choose_level(page: &Page, value: &str) -> Res<()> {
    set_value(page, "level", value).await
}

/// The level list: each option's value and text.
async fn options(page: &Page) -> Res<Vec<(String, String)>> {
    let v = js(
        page,
        "[...document.querySelectorAll('#level option')].map(o => [o.value, o.textContent])",
    )
    .await?;
    Ok(v.as_array()
        .ok_or("no list")?
        .iter()
        .map(|p| {
            (
                p[0].as_str().unwrap_or_default().to_string(),
                p[1].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect())
}

/// Where the element after the description starts (its top, in CSS px):
/// it must not move when the description changes.
const BELOW: &str =
    "document.getElementById('honourable').closest('label').getBoundingClientRect().top";

#[test]
fn the_home_page_names_and_describes_every_level() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("the_home_page_names_and_describes_every_level") else {
        return;
    };
    let server = Server::start();
    runtime().block_on(async {
        for (w, hgt) in [(360, 740), (1280, 800)] {
            let chrome = Chrome::launch(&exe, w, hgt).await.expect("launch chromium");
            let r = levels(&chrome, &server, w, hgt).await;
            chrome.close().await;
            r.unwrap_or_else(|e| panic!("{w}x{hgt}: {e}"));
        }
    });
}

async fn levels(chrome: &Chrome, server: &Server, w: u32, hgt: u32) -> Res<()> {
    let size = format!("{w}x{hgt}");
    let page = chrome.page(&format!("{}/", server.url)).await?;
    wait_for(
        &page,
        "document.getElementById('level') && document.getElementById('level-desc')",
        "the level list",
        20,
    )
    .await?;
    js(&page, "document.getElementById('game-options').open = true").await?;

    // Every level, weakest first, with gore-ai's name for it.
    let list = options(&page).await?;
    let want: Vec<(String, String)> = Level::all()
        .map(|l| {
            (
                l.get().to_string(),
                format!("Level {} — {}", l.get(), l.profile().name),
            )
        })
        .collect();
    assert_eq!(list.len(), usize::from(MAX_LEVEL), "{list:?}");
    assert_eq!(list, want);
    let hint = text(&page, "#play-ai-hint").await?;
    assert!(hint.contains(&format!("from 1 to {MAX_LEVEL}")), "{hint}");

    // The default level described; each choice describes its level, and
    // what follows the description stays where it was.
    let described = |l: Level| format!("{} — {}", l.profile().name, l.profile().describe);
    assert_eq!(
        text(&page, "#level-desc").await?,
        described(Level::STANDARD)
    );
    shot(&page, &format!("levels-{size}-en-standard")).await?;
    let top = js(&page, BELOW).await?.as_f64().ok_or("no position")?;
    for l in Level::all() {
        choose_level(&page, &l.get().to_string()).await?;
        let want = described(l);
        wait_for(
            &page,
            &format!(
                "document.getElementById('level-desc').textContent === {}",
                serde_json::to_string(&want)?
            ),
            &format!("the description of level {}", l.get()),
            5,
        )
        .await?;
        let now = js(&page, BELOW).await?.as_f64().ok_or("no position")?;
        assert!(
            (now - top).abs() < 0.5,
            "level {}: what follows moved from {top} to {now}",
            l.get()
        );
        let summary = text(&page, "#game-summary").await?;
        assert!(
            summary.starts_with(&format!(
                "Computer: {} (level {})",
                l.profile().name,
                l.get()
            )),
            "{summary}"
        );
    }
    choose_level(&page, "1").await?;
    shot(&page, &format!("levels-{size}-en-1")).await?;

    // In French: the names and descriptions of fr.json, the same behaviour.
    let strings = strings_of("fr");
    choose_lang_and_levels(&page, "fr", "Niveau").await?;
    js(&page, "document.getElementById('game-options').open = true").await?;
    let list = options(&page).await?;
    let want: Vec<(String, String)> = Level::all()
        .map(|l| {
            let n = l.get();
            (
                n.to_string(),
                format!(
                    "Niveau {n} — {}",
                    string(&strings, &format!("level.{n}.name"))
                ),
            )
        })
        .collect();
    assert_eq!(list, want);
    let fr_described = |n: u8| {
        format!(
            "{} — {}",
            string(&strings, &format!("level.{n}.name")),
            string(&strings, &format!("level.{n}.desc"))
        )
    };
    // The choice was kept (level 1) through the change of language.
    assert_eq!(text(&page, "#level-desc").await?, fr_described(1));
    let top = js(&page, BELOW).await?.as_f64().ok_or("no position")?;
    for l in Level::all() {
        let n = l.get();
        choose_level(&page, &n.to_string()).await?;
        wait_for(
            &page,
            &format!(
                "document.getElementById('level-desc').textContent === {}",
                serde_json::to_string(&fr_described(n))?
            ),
            &format!("the French description of level {n}"),
            5,
        )
        .await?;
        let now = js(&page, BELOW).await?.as_f64().ok_or("no position")?;
        assert!(
            (now - top).abs() < 0.5,
            "fr, level {n}: what follows moved from {top} to {now}"
        );
    }
    choose_level(&page, "3").await?;
    shot(&page, &format!("levels-{size}-fr-3")).await?;

    // Back in English, a game at level 1: the game page names the level.
    choose_lang_and_levels(&page, "en", "Level").await?;
    new_game(&page, "ai", "A", 1).await?;
    let name = format!("Computer — {} (level 1)", Level::MIN.profile().name);
    wait_for(
        &page,
        &format!(
            "[...document.querySelectorAll('.player-name')].some(e => e.textContent === {})",
            serde_json::to_string(&name)?
        ),
        "the computer's name and level",
        10,
    )
    .await?;
    shot(&page, &format!("levels-{size}-game-1")).await?;

    // A long name in Basque, at the top level: the page names it too.
    visit(&page, format!("{}/", server.url)).await?;
    wait_id(&page, "level", "home again", 20).await?;
    choose_lang_and_levels(&page, "eu", "1.").await?;
    new_game(&page, "ai", "A", MAX_LEVEL).await?;
    let eu = strings_of("eu");
    let name = string(&eu, &format!("level.{MAX_LEVEL}.name"));
    wait_for(
        &page,
        &format!(
            "[...document.querySelectorAll('.player-name')].some(e => e.textContent.includes({name:?}) && e.textContent.includes('{MAX_LEVEL}. maila'))"
        ),
        "the top level's Basque name",
        10,
    )
    .await?;
    shot(&page, &format!("levels-{size}-game-eu-top")).await?;
    Ok(())
}
