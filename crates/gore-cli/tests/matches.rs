//! `gore match`: the report's lines, determinism, saved records, errors and
//! external engines over the engine protocol.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Command, Output};

use gore_core::{Record, RecordResult};

fn gore(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gore"))
        .args(args)
        .output()
        .expect("run gore")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The report as `key → rest of the line`.
fn report(o: &Output) -> HashMap<String, String> {
    assert!(o.status.success(), "gore failed: {}", stderr(o));
    stdout(o)
        .lines()
        .map(|l| {
            let (k, v) = l.split_once(' ').unwrap_or((l, ""));
            (k.to_string(), v.to_string())
        })
        .collect()
}

/// The numbers after each word of a `k1 v1  k2 v2 …` line.
fn fields(line: &str) -> HashMap<String, u64> {
    let words: Vec<&str> = line.split_whitespace().collect();
    words
        .chunks(2)
        .filter_map(|c| Some((c[0].to_string(), c.get(1)?.parse().ok()?)))
        .collect()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gore-match-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn engine_cmd() -> String {
    format!("{} engine", env!("CARGO_BIN_EXE_gore"))
}

#[test]
fn a_short_match_prints_the_documented_lines() {
    let o = gore(&[
        "match",
        "--engine1",
        "ai:8:depth=4",
        "--engine2",
        "random",
        "--games",
        "20",
    ]);
    let r = report(&o);
    assert_eq!(r["engine1"], "ai:8:depth=4");
    assert_eq!(r["engine2"], "random");
    assert_eq!(r["rules"], "ply-cap=300", "the default ply cap applies");
    // games 20  wins W  draws D  losses L
    let g = fields(&format!("games {}", r["games"]));
    assert_eq!(g["games"], 20);
    assert_eq!(g["wins"] + g["draws"] + g["losses"], 20);
    let score: f64 = r["score"].trim_end_matches('%').parse().unwrap();
    let expect = 100.0 * (g["wins"] as f64 + g["draws"] as f64 / 2.0) / 20.0;
    assert!((score - expect).abs() < 0.051, "{score} vs {expect}");
    assert!(score > 80.0, "the AI should crush a random mover: {score}%");
    // elo +X ± Y (95%)
    let elo: Vec<&str> = r["elo"].split_whitespace().collect();
    assert_eq!(elo.len(), 4, "{:?}", r["elo"]);
    assert!(elo[0].starts_with('+'));
    assert_eq!((elo[1], elo[3]), ("±", "(95%)"));
    // By colour: ten games each.
    for side in ["as-a", "as-b"] {
        let f = fields(&r[side]);
        assert_eq!(f["wins"] + f["draws"] + f["losses"], 10, "{side}");
    }
    let e = fields(&r["ended"]);
    assert_eq!(
        e["board"] + e["repetition"] + e["ply-cap"] + e["forfeit"],
        20
    );
    assert_eq!(e["forfeit"], 0);
    assert_eq!(r["forfeits"], "engine1 0  engine2 0");
    assert!(r["plies"].parse::<f64>().unwrap() > 2.0);
    assert!(!r.contains_key("sprt"));
}

#[test]
fn the_same_command_gives_the_same_output_whatever_the_threads() {
    let args = |c: &'static str| {
        [
            "match",
            "--engine1",
            "ai:3",
            "--engine2",
            "ai:2",
            "--games",
            "12",
            "--seed",
            "42",
            "--concurrency",
            c,
        ]
    };
    let a = gore(&args("2"));
    let b = gore(&args("2"));
    let c = gore(&args("1"));
    assert!(a.status.success(), "{}", stderr(&a));
    assert_eq!(stdout(&a), stdout(&b));
    assert_eq!(stdout(&a), stdout(&c));
    // Another seed plays other games (the counts may agree; the plies
    // almost never do).
    let mut other = args("2");
    other[8] = "43";
    let d = gore(&other);
    assert_ne!(stdout(&a), stdout(&d));
}

#[test]
fn saved_records_parse_replay_and_agree_with_the_report() {
    let dir = temp_dir("save");
    let o = gore(&[
        "match",
        "--engine1",
        "ai:2",
        "--engine2",
        "greedy",
        "--games",
        "6",
        "--seed",
        "3",
        "--save",
        dir.to_str().unwrap(),
    ]);
    let r = report(&o);
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let expected: Vec<String> = (1..=6).map(|i| format!("game-{i:04}.gore")).collect();
    assert_eq!(names, expected);
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    for (i, name) in names.iter().enumerate() {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let rec = Record::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let game = rec.replay().unwrap_or_else(|e| panic!("{name}: {e}"));
        let outcome = game.outcome().expect("a finished game");
        // Engine1 plays A in the odd-numbered games (1, 3, …).
        let (a, b) = if i % 2 == 0 {
            ("ai:2", "greedy")
        } else {
            ("greedy", "ai:2")
        };
        assert_eq!(rec.players, [Some(a.into()), Some(b.into())], "{name}");
        assert_eq!(rec.event.as_deref(), Some("gore match: ai:2 vs greedy"));
        assert_eq!(rec.rules.to_string(), "ply-cap=300");
        assert_eq!(
            rec.result,
            Some(RecordResult::Finished {
                seeds: outcome.seeds,
                without_glory: outcome.without_glory(),
            })
        );
        assert_eq!(rec.termination, Some(outcome.reason));
        assert!(rec
            .extra
            .contains(&("Round".to_string(), (i + 1).to_string())));
        // The pair's two games start with the same opening.
        if i % 2 == 1 {
            let prev = std::fs::read_to_string(dir.join(&names[i - 1])).unwrap();
            let prev = Record::parse(&prev).unwrap();
            assert_eq!(prev.actions[..2], rec.actions[..2], "{name}");
        }
        let mine = outcome.seeds[i % 2];
        match mine.cmp(&24) {
            std::cmp::Ordering::Greater => wins += 1,
            std::cmp::Ordering::Equal => draws += 1,
            std::cmp::Ordering::Less => losses += 1,
        }
    }
    assert_eq!(
        r["games"],
        format!("6  wins {wins}  draws {draws}  losses {losses}")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_engine_specs_are_clear_errors() {
    for (spec, why) in [
        ("ai:13", "the level `13` is not a number from 1 to 12"),
        ("ai:8:fast", "unknown option `fast`"),
        ("stockfish", "unknown engine kind `stockfish`"),
        ("cmd:", "no command after cmd:"),
    ] {
        let o = gore(&["match", "--engine1", spec, "--engine2", "random"]);
        assert_eq!(o.status.code(), Some(1), "{spec}");
        let e = stderr(&o);
        assert!(e.contains(why), "{spec}: {e}");
        assert!(o.stdout.is_empty());
    }
    // An external engine that cannot start stops the match before any game.
    let o = gore(&[
        "match",
        "--engine1",
        "random",
        "--engine2",
        "cmd:/nonexistent/engine",
        "--timeout",
        "2000",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("--engine2 `cmd:/nonexistent/engine`"), "{e}");
    // One message, whether the shell had exited before `gpi` was written
    // (the write fails) or after (its output ends): how it ended, its last
    // words, and what did not come.
    assert!(e.contains("exited (exit status: 127); stderr: "), "{e}");
    assert!(e.contains("/nonexistent/engine"), "{e}");
    assert!(e.contains("before `gpiok`"), "{e}");
    assert!(!e.contains("cannot send"), "{e}");
    // Bad SPRT and rules are named too.
    let o = gore(&[
        "match",
        "--engine1",
        "random",
        "--engine2",
        "random",
        "--sprt",
        "10,0",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("elo1 must be greater than elo0"));
}

#[test]
fn an_external_engine_plays_like_the_built_in_one() {
    let spec = format!("cmd:depth=4:{}", engine_cmd());
    let ext = gore(&[
        "match",
        "--engine1",
        &spec,
        "--engine2",
        "random",
        "--games",
        "4",
        "--progress",
    ]);
    let r = report(&ext);
    assert_eq!(r["forfeits"], "engine1 0  engine2 0");
    assert!(
        stderr(&ext).contains("progress 4/4 games"),
        "{}",
        stderr(&ext)
    );
    // The same search in-process: the same games, so the same report.
    let own = gore(&[
        "match",
        "--engine1",
        "ai:8:depth=4",
        "--engine2",
        "random",
        "--games",
        "4",
    ]);
    let mut r2 = report(&own);
    r2.insert("engine1".into(), r["engine1"].clone());
    assert_eq!(r, r2);
}

#[test]
fn a_misbehaving_external_engine_forfeits() {
    // Answers the handshake, then plays a hole that does not exist.
    let script = "while read l; do case \"$l\" in gpi) echo gpiok;; isready) echo readyok;; \
                  go*) echo bestaction a9;; quit) exit;; esac; done";
    let spec = format!("cmd:{script}");
    let dir = temp_dir("forfeit");
    let o = gore(&[
        "match",
        "--engine1",
        "random",
        "--engine2",
        &spec,
        "--games",
        "2",
        "--save",
        dir.to_str().unwrap(),
    ]);
    let r = report(&o);
    assert_eq!(r["games"], "2  wins 2  draws 0  losses 0");
    assert_eq!(r["forfeits"], "engine1 0  engine2 2");
    assert!(stderr(&o).contains("engine2"), "{}", stderr(&o));
    assert!(stderr(&o).contains("`bestaction a9`"), "{}", stderr(&o));
    // The record of a forfeited game is unfinished and says why.
    let text = std::fs::read_to_string(dir.join("game-0002.gore")).unwrap();
    let rec = Record::parse(&text).unwrap();
    assert_eq!(rec.result, Some(RecordResult::Unfinished));
    assert!(!rec.replay().unwrap().is_over());
    let forfeit = rec.extra.iter().find(|(k, _)| k == "Forfeit").unwrap();
    assert!(forfeit.1.contains("engine2"), "{forfeit:?}");
    let _ = std::fs::remove_dir_all(&dir);
    // Silent after the handshake: a timeout.
    let script = "while read l; do case \"$l\" in gpi) echo gpiok;; isready) echo readyok;; \
                  quit) exit;; esac; done";
    let spec = format!("cmd:movetime=10:{script}");
    let o = gore(&[
        "match",
        "--engine1",
        &spec,
        "--engine2",
        "random",
        "--games",
        "2",
        "--timeout",
        "300",
    ]);
    let r = report(&o);
    assert_eq!(r["games"], "2  wins 0  draws 0  losses 2");
    assert!(
        stderr(&o).contains("no `bestaction` within 310 ms"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn sprt_stops_a_lopsided_match_early() {
    let o = gore(&[
        "match",
        "--engine1",
        "ai:8:depth=3",
        "--engine2",
        "random",
        "--games",
        "400",
        "--sprt",
        "0,100",
    ]);
    let r = report(&o);
    let g = fields(&format!("games {}", r["games"]));
    assert!(
        g["games"] < 400 && g["games"].is_multiple_of(2),
        "{:?}",
        r["games"]
    );
    let s = &r["sprt"];
    assert!(s.starts_with("llr "), "{s}");
    assert!(s.contains("lower -2.94  upper 2.94"), "{s}");
    assert!(s.contains("elo0 0  elo1 100  alpha 0.05  beta 0.05"), "{s}");
    assert!(s.ends_with("result H1"), "{s}");
}
