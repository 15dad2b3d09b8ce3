//! Browser test of the puzzles page: a puzzle solved in English and in
//! Spanish, "correct" shown and the streak at 1, the page accessible, on
//! a phone-sized screen. The answer is read from the shipped puzzle file
//! (the puzzle's id from the page's own memory of seen puzzles).
//!
//! Without Chromium it prints a loud warning and passes, except on CI
//! (`CI=true`). Screenshots go to `target/screenshots/`.

#[allow(unused_imports)]
mod browser_support;
use browser_support::*;

use gore_core::Action;

const SHIPPED: &str = include_str!("../../gore-server/puzzles/puzzles.txt");

#[test]
fn solve_a_puzzle_in_two_languages() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(exe) = browser_or_skip("solve_a_puzzle_in_two_languages") else {
        return;
    };
    let server = Server::start();
    runtime().block_on(async {
        let chrome = Chrome::launch(&exe, 360, 780)
            .await
            .expect("launch chromium");
        let r = solve(&chrome, &server).await;
        chrome.close().await;
        r.expect("solve a puzzle");
    });
}

async fn solve(chrome: &Chrome, server: &Server) -> Res<()> {
    let puzzles = gore_learn::puzzles::parse_file(SHIPPED).map_err(|e| e.to_string())?;
    let page = chrome.page(&format!("{}/puzzles", server.url)).await?;
    for (lang, correct, streak) in [
        ("en", "Correct!", "Streak: 1 in a row"),
        ("es", "¡Correcto!", "Racha: 1 seguido"),
    ] {
        choose_lang(&page, lang).await?;
        // A fresh player: no rating, no streak, nothing seen.
        js(
            &page,
            "['gore.puzzles.rating','gore.puzzles.streak','gore.puzzles.seen','gore.puzzles.theme'].forEach((k) => localStorage.removeItem(k))",
        )
        .await?;
        page.goto(format!("{}/puzzles", server.url)).await?;
        wait_for(
            &page,
            "document.querySelector('#puzzle-task') && document.querySelector('.board')",
            "a puzzle",
            20,
        )
        .await?;
        assert_eq!(
            text(&page, "#puzzle-streak").await?,
            streak.replace('1', "0").replace("seguido", "seguidos")
        );
        let id = js(
            &page,
            "localStorage.getItem('gore.puzzles.seen').split(',')[0]",
        )
        .await?;
        let id = id.as_str().ok_or("no puzzle id remembered")?.to_string();
        let p = puzzles
            .iter()
            .find(|p| p.id == id)
            .ok_or("an unknown puzzle")?;
        assert_accessible(&page, &format!("puzzles-{lang}")).await?;
        shot(&page, &format!("puzzles-{lang}")).await?;
        match p.answer {
            Action::Sow(hole) => {
                click(&page, &format!(".board .hole[data-hole=\"{hole}\"]")).await?
            }
            Action::Offer(_) => {
                js(
                    &page,
                    "document.querySelector('.puzzle-offers').open = true",
                )
                .await?;
                click(&page, &format!("button[data-action=\"{}\"]", p.answer)).await?;
            }
            a => click(&page, &format!("button[data-action=\"{a}\"]")).await?,
        }
        wait_for(
            &page,
            "document.querySelector('#puzzle-result.right')",
            "the verdict",
            20,
        )
        .await?;
        assert_eq!(text(&page, ".puzzle-verdict").await?, correct);
        assert_eq!(text(&page, "#puzzle-streak").await?, streak);
        let link = js(
            &page,
            "document.getElementById('puzzle-analysis').getAttribute('href')",
        )
        .await?;
        let link = link.as_str().unwrap_or_default().to_string();
        assert!(link.starts_with("/analysis?rules=standard&gpn="), "{link}");
        assert_accessible(&page, &format!("puzzles-solved-{lang}")).await?;
        shot(&page, &format!("puzzles-solved-{lang}")).await?;
    }
    Ok(())
}
