//! The puzzle endpoints: a next puzzle near the rating and of the theme,
//! not one just seen; a right and a wrong answer with the solution and
//! the new rating; bad input answered with the field named; another
//! puzzle file given with `--puzzles`; a new solver served easy puzzles
//! of varied themes, as the browser asks for them.

mod common;

use common::*;
use gore_server::domain::puzzles::PuzzleBook;
use serde_json::{json, Value};

async fn get_json(c: &reqwest::Client, s: &Server, path: &str) -> (u16, Value) {
    let r = c.get(s.at(path)).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread")]
async fn solve_right_and_wrong() {
    let s = Server::start(0).await;
    let c = bot();
    let (st, p) = get_json(&c, &s, "/api/puzzles/next?rating=1500").await;
    assert_eq!(st, 200, "{p}");
    let id = p["id"].as_str().unwrap().to_string();
    // The answer, read from the embedded file, not from the server's answer.
    let book = PuzzleBook::embedded().unwrap();
    let puzzle = book.get(&id).expect("a shipped puzzle");
    assert_eq!(p["gpn"], puzzle.position.to_string());
    assert_eq!(p["rules"], "standard");
    let legal: Vec<&str> = p["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(legal.len(), puzzle.position.legal_actions().len());
    let answer = puzzle.answer.to_string();
    assert!(legal.contains(&answer.as_str()));

    let (st, r) = post_json(
        &c,
        &s,
        &format!("/api/puzzles/{id}/solve"),
        json!({"action": answer, "rating": 1500}),
    )
    .await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["correct"], true);
    assert_eq!(r["answer"], answer);
    assert_eq!(r["margin"], 2);
    assert_eq!(r["depth"], 12);
    assert!(r["deep"].as_u64().unwrap() >= 18, "{r}");
    let answers: Vec<String> = puzzle.answers().iter().map(|a| a.to_string()).collect();
    assert_eq!(r["answers"], json!(answers));
    // The solution's positions: the puzzle's, after the answer, after each
    // action of the line.
    let positions = r["positions"].as_array().unwrap();
    assert_eq!(positions.len(), 2 + puzzle.line.len(), "{r}");
    assert_eq!(positions[0], puzzle.position.to_string());
    assert_eq!(
        positions[1],
        puzzle.position.play(puzzle.answer).unwrap().to_string()
    );
    assert!(!r["themes"].as_array().unwrap().is_empty());
    // A success against a puzzle rated R from 1500: up, by at most K = 32.
    let up = r["new_rating"].as_i64().unwrap();
    assert!(up > 1500 && up <= 1532, "{up}");

    let wrong = legal.iter().find(|a| **a != answer).unwrap();
    let (st, r) = post_json(
        &c,
        &s,
        &format!("/api/puzzles/{id}/solve"),
        json!({"action": wrong, "rating": 1500}),
    )
    .await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["correct"], false);
    assert_eq!(r["answer"], answer, "the answer is shown after a miss");
    let down = r["new_rating"].as_i64().unwrap();
    assert!((1468..1500).contains(&down), "{down}");
}

#[tokio::test(flavor = "multi_thread")]
async fn next_follows_rating_theme_and_seen() {
    let s = Server::start(0).await;
    let c = bot();
    let book = PuzzleBook::embedded().unwrap();
    // A theme filter: every puzzle of theme decline is answered by declining.
    for _ in 0..5 {
        let (st, p) = get_json(&c, &s, "/api/puzzles/next?theme=decline").await;
        assert_eq!(st, 200, "{p}");
        let pz = book.get(p["id"].as_str().unwrap()).unwrap();
        assert_eq!(pz.answer.to_string(), "decline");
    }
    // Not one just seen: every sweep puzzle but one seen, that one comes.
    let sweeps: Vec<&str> = book
        .all()
        .iter()
        .filter(|p| p.themes.contains(&gore_learn::puzzles::Theme::Sweep))
        .map(|p| p.id.as_str())
        .collect();
    assert!(sweeps.len() >= 2 && sweeps.len() <= 50);
    let seen = sweeps[1..].join(",");
    for _ in 0..3 {
        let (_, p) = get_json(
            &c,
            &s,
            &format!("/api/puzzles/next?theme=sweep&seen={seen}"),
        )
        .await;
        assert_eq!(p["id"], sweeps[0]);
    }
    // Near the rating: a high rating gets a puzzle above the middle.
    let hi = book.all().iter().map(|p| p.rating).max().unwrap();
    let (_, p) = get_json(&c, &s, &format!("/api/puzzles/next?rating={hi}")).await;
    assert!(p["rating"].as_i64().unwrap() > 1500, "{p}");
    let (_, p) = get_json(&c, &s, "/api/puzzles/next?rating=0").await;
    assert!(p["rating"].as_i64().unwrap() < 1500, "{p}");
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_names_the_field() {
    let s = Server::start(0).await;
    let c = bot();
    for (q, field) in [
        ("rating=abc", "rating"),
        ("rating=99999", "rating"),
        ("theme=nope", "theme"),
        ("colour=red", "colour"),
    ] {
        let (st, v) = get_json(&c, &s, &format!("/api/puzzles/next?{q}")).await;
        assert_eq!(
            (st, error_of(&v).code.as_str()),
            (400, "bad_request"),
            "{q}: {v}"
        );
        assert!(error_of(&v).message.starts_with(field), "{q}: {v}");
    }
    let (_, p) = get_json(&c, &s, "/api/puzzles/next").await;
    let id = p["id"].as_str().unwrap().to_string();
    let path = format!("/api/puzzles/{id}/solve");
    let (st, v) = post_json(&c, &s, "/api/puzzles/nope/solve", json!({"action": "a1"})).await;
    assert_eq!((st, error_of(&v).code.as_str()), (404, "not_found"), "{v}");
    let (st, v) = post_json(&c, &s, &path, json!({"action": "zz"})).await;
    assert_eq!(
        (st, error_of(&v).code.as_str()),
        (400, "bad_request"),
        "{v}"
    );
    assert!(error_of(&v).message.starts_with("action"), "{v}");
    let (st, v) = post_json(&c, &s, &path, json!({"move": "a1"})).await;
    assert_eq!(st, 400, "{v}");
    assert!(error_of(&v).message.contains("action"), "{v}");
    let (st, v) = post_json(&c, &s, &path, json!({"action": "a1", "rating": -5})).await;
    assert!(st == 400 || st == 422, "{v}");
    // An action the position does not allow: the rule is named.
    let book = PuzzleBook::embedded().unwrap();
    let pz = book.get(&id).unwrap();
    let illegal = [
        "a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4", "accept", "pass",
    ]
    .into_iter()
    .find(|a| !pz.position.is_legal(a.parse().unwrap()))
    .unwrap();
    let (st, v) = post_json(&c, &s, &path, json!({"action": illegal})).await;
    assert_eq!(
        (st, error_of(&v).code.as_str()),
        (422, "illegal_action"),
        "{v}"
    );
    // The server still serves.
    let (st, _) = get_json(&c, &s, "/api/puzzles/next").await;
    assert_eq!(st, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn another_puzzle_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mine.txt");
    std::fs::write(
        &file,
        "# one puzzle\nx1;standard;1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 B -;b2;2;depth=4;capture,chain,own-holes;1200;\n",
    )
    .unwrap();
    let mut config = config_in(&dir);
    config.puzzles = Some(file.clone());
    let s = Server::start_with(dir, config).await;
    let c = bot();
    let (st, p) = get_json(&c, &s, "/api/puzzles/next").await;
    assert_eq!(st, 200);
    assert_eq!(p["id"], "x1");
    assert_eq!(p["to_move"], "B");
    // A file that does not parse stops the server from starting, naming the line and field.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "x1;standard;nope\n").unwrap();
    let mut config = config_in(&dir);
    config.puzzles = Some(bad);
    let err = gore_server::AppState::open(config)
        .await
        .err()
        .expect("refused");
    let msg = format!("{err:#}");
    assert!(msg.contains("line 1: fields"), "{msg}");
}

/// A new solver (no rating sent: 1500; the seen ids sent as the browser
/// does, the latest first) answering every puzzle right: the first five
/// are from the easy end of the book (each at most its median, the first
/// within its easiest fifth), and no two in a row share a key theme
/// (issue 27: the first five were all "accept" at 1510).
#[tokio::test(flavor = "multi_thread")]
async fn a_new_solver_meets_easy_varied_puzzles() {
    let s = Server::start(0).await;
    let c = bot();
    let book = PuzzleBook::embedded().unwrap();
    let mut ratings: Vec<i32> = book.all().iter().map(|p| p.rating).collect();
    ratings.sort_unstable();
    let fifth = ratings[ratings.len() / 5];
    let median = ratings[ratings.len() / 2];
    for round in 0..4 {
        let mut seen: Vec<String> = Vec::new();
        let mut rating: Option<i64> = None;
        let mut keys = Vec::new();
        for n in 0..8 {
            let mut q = format!("/api/puzzles/next?seen={}", seen.join(","));
            if let Some(r) = rating {
                q.push_str(&format!("&rating={r}"));
            }
            let (st, p) = get_json(&c, &s, &q).await;
            assert_eq!(st, 200, "{p}");
            let id = p["id"].as_str().unwrap().to_string();
            let pz = book.get(&id).unwrap();
            if n == 0 {
                assert!(
                    pz.rating <= fifth,
                    "round {round}: first puzzle {} rated {}",
                    id,
                    pz.rating
                );
            }
            if n < 5 {
                assert!(
                    pz.rating <= median,
                    "round {round}: puzzle {n} {} rated {}",
                    id,
                    pz.rating
                );
            }
            keys.push(gore_learn::puzzles::key_theme(&pz.themes));
            let (_, r) = post_json(
                &c,
                &s,
                &format!("/api/puzzles/{id}/solve"),
                json!({"action": pz.answer.to_string(), "rating": rating.unwrap_or(1500)}),
            )
            .await;
            assert_eq!(r["correct"], true);
            rating = r["new_rating"].as_i64();
            seen.insert(0, id);
        }
        assert!(
            keys.windows(2).all(|w| w[0] != w[1]),
            "round {round}: consecutive themes {keys:?}"
        );
    }
}

/// A puzzle with two answers accepts both (the book's own check: the
/// line format's `a|b`).
#[tokio::test(flavor = "multi_thread")]
async fn every_answer_of_a_puzzle_is_right() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("two.txt");
    std::fs::write(
        &file,
        "x2;standard;1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 B -;b2|b1;2;depth=4..8;capture,chain,own-holes;1200;\n",
    )
    .unwrap();
    let mut config = config_in(&dir);
    config.puzzles = Some(file.clone());
    let s = Server::start_with(dir, config).await;
    let c = bot();
    for (action, right) in [("b2", true), ("b1", true), ("b3", false)] {
        let (st, r) = post_json(&c, &s, "/api/puzzles/x2/solve", json!({"action": action})).await;
        assert_eq!(st, 200, "{r}");
        assert_eq!(r["correct"], right, "{action}: {r}");
        assert_eq!(r["answers"], json!(["b2", "b1"]));
        assert_eq!(
            (r["depth"].as_u64(), r["deep"].as_u64()),
            (Some(4), Some(8))
        );
    }
}

/// The themes the filter may offer are the ones with puzzles, counted
/// here from the file's text itself (its seventh field): the shipped book
/// has no offer or pass puzzle (none survived the deep check), and a
/// filter offering them answered only "no puzzle" (issue 27, point 2).
#[tokio::test(flavor = "multi_thread")]
async fn the_themes_offered_are_the_ones_with_puzzles() {
    let s = Server::start(0).await;
    let c = bot();
    let (st, v) = get_json(&c, &s, "/api/puzzles/themes").await;
    assert_eq!(st, 200);
    let mut counted: std::collections::BTreeMap<String, u64> = Default::default();
    for line in gore_server::domain::puzzles::EMBEDDED.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        for t in line.split(';').nth(6).unwrap().split(',') {
            *counted.entry(t.to_string()).or_default() += 1;
        }
    }
    let listed: std::collections::BTreeMap<String, u64> = v["themes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["theme"].as_str().unwrap().to_string(),
                t["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(listed, counted);
    assert!(
        !listed.contains_key("offer") && !listed.contains_key("pass"),
        "{v}"
    );
    // Each listed theme serves a puzzle of its own.
    for theme in listed.keys() {
        let (st, p) = get_json(&c, &s, &format!("/api/puzzles/next?theme={theme}")).await;
        assert_eq!(st, 200, "{theme}: {p}");
    }
    // The order is the themes' own, not the file's.
    let order: Vec<&str> = v["themes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["theme"].as_str().unwrap())
        .collect();
    let all = [
        "capture",
        "chain",
        "own-holes",
        "whole-board",
        "sweep",
        "quiet",
        "offer",
        "accept",
        "decline",
        "pass",
    ];
    let mut by_all: Vec<&str> = all.iter().copied().filter(|t| order.contains(t)).collect();
    by_all.dedup();
    assert_eq!(order, by_all);
}
