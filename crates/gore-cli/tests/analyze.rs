//! `gore analyze` with the game's history (`--actions`, `--record`,
//! `--ply`): the search judges repetition as the game would.

use std::process::{Command, Output};
use std::sync::atomic::AtomicBool;

use gore_ai::{Engine, Limits, Options};
use gore_core::{Action, Game, Position, Record, Rules, Variant};

fn gore(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gore"))
        .args(args)
        .output()
        .expect("run gore")
}

/// A game between two level-3 engines (seeds 38 and 39), up to the
/// moment B answers the offer `a1+a4` in a position that has occurred
/// twice after a decline before: declining now makes its third occurrence,
/// and the game ends by repetition. Found by self-play, keeping a game that
/// ended by repetition where the answer's value with history and without
/// it differ.
const LINE: &str = "a3 b4 a3 b1 a3 b1 a4 b1 a3 b4 a1 b1 a1 b4 a1 b3 a3 offer:b3 decline a2 \
offer:b4 accept a3 b1 a1 b3 a1 b2 b4 b3 b4 b2 b4 b3 a2 offer:b2,b3 decline a4 b2 a2 b3 b4 \
offer:b1,b3 decline a2 offer:b3 decline a1 pass a2 offer:b1,b3 decline b4 pass a1 pass a2 \
offer:b3 decline a4 offer:b2,b3 decline a4 offer:b1 decline b4 offer:b1,b2 decline a2 b2 a1 \
offer:b3 decline a2 offer:b2 decline a3 b2 offer:a2,a3 decline offer:b2 decline offer:a1,b4 \
decline b3 a1 offer:b1,b3 decline offer:a1,a4 decline offer:b1,b3 decline offer:a1,a4";

const GPN: &str = "0,2,1,4/4,0,0,1 AAAA/BBBA 24-12 B a1+a4";

fn line() -> Vec<&'static str> {
    LINE.split_whitespace().collect()
}

fn game() -> Game {
    let mut g = Game::new(Rules::STANDARD);
    for t in line() {
        g.play(t.parse::<Action>().unwrap()).unwrap();
    }
    g
}

/// The last `depth N score S …` line's score, the best action and the
/// output's text.
fn analysis(o: &Output) -> (String, String, String) {
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let score = out
        .lines()
        .rfind(|l| l.starts_with("depth "))
        .map(|l| l.split_whitespace().nth(3).unwrap().to_string())
        .expect("a depth line");
    let best = out
        .lines()
        .find_map(|l| l.strip_prefix("bestaction "))
        .expect("bestaction")
        .to_string();
    (score, best, out)
}

#[test]
fn the_line_reaches_the_position_of_the_test() {
    let g = game();
    assert_eq!(g.position().to_string(), GPN);
    assert!(!g.is_over());
    // Declining repeats a position for the third time: the game ends.
    let mut d = g.clone();
    d.play(Action::Decline).unwrap();
    assert_eq!(
        d.outcome().map(|o| o.reason),
        Some(gore_core::EndReason::Repetition)
    );
}

#[test]
fn analyze_with_the_actions_knows_the_repetition() {
    // By hand from the GPN: after B declines, A controls a1..a4 (0+2+1+4)
    // and b4 (1), B controls b1..b3 (4+0+0): the sweep gives A 24+8 = 32
    // and B 12+4 = 16, so the decline that ends the game is worth 16 - 32
    // = -16 seeds to B. Position::sweep_totals says the same.
    let pos = Position::from_gpn(GPN, Variant::STANDARD).unwrap();
    let after = pos.play(Action::Decline).unwrap();
    let swept = after.sweep_totals();
    assert_eq!(swept, [32, 16]);

    // The repetition ends the game at once, so even a two-ply search
    // with the history sees it. (Deeper searches may find that accepting
    // does better than the repetition; never worse: see below.)
    let mut args = vec!["analyze", "--depth", "2", "--actions"];
    args.extend(line());
    let (score, best, out) = analysis(&gore(&args));
    assert_eq!(score, "-16.00", "{out}");
    assert_eq!(best, "decline", "{out}");
    assert!(
        out.contains(&format!("position {GPN} after 93 actions")),
        "{out}"
    );
    assert!(out.contains("seed difference -16.00 for B"), "{out}");

    // The library's search of the same game, history and all, agrees.
    let stop = AtomicBool::new(false);
    let mut e = Engine::new(Options {
        hash_mb: 64,
        glory: 0,
        ..Options::default()
    });
    let r = e
        .search(&game(), &Limits::depth(2), &stop, &mut |_| {})
        .unwrap();
    assert_eq!((r.score, r.best), (-1600, Action::Decline));
    // Deeper, the value can only be at least the repetition's: declining
    // is always there to take.
    let mut args = vec!["analyze", "--depth", "6", "--actions"];
    args.extend(line());
    let (deep, _, out) = analysis(&gore(&args));
    assert!(deep.parse::<f64>().unwrap() >= -16.0, "{out}");

    // The position alone knows no repetition: declining looks better
    // than it is.
    let (bare, _, out) = analysis(&gore(&["analyze", "--depth", "2", GPN]));
    assert_ne!(bare, "-16.00", "{out}");
    let bare: f64 = bare.parse().unwrap();
    assert!(bare > -16.0, "{out}");
}

#[test]
fn analyze_reads_a_record_and_its_plies() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.gore");
    std::fs::write(&path, Record::from_game(&game()).to_string()).unwrap();
    let file = path.to_str().unwrap();
    let (score, best, out) = analysis(&gore(&["analyze", "--depth", "2", "--record", file]));
    assert_eq!(
        (score.as_str(), best.as_str()),
        ("-16.00", "decline"),
        "{out}"
    );
    // --ply 2: the position after a3 b4 from the start, with A to move.
    let o = gore(&["analyze", "--depth", "2", "--record", file, "--ply", "2"]);
    let out = String::from_utf8_lossy(&o.stdout);
    let mut g = Game::new(Rules::STANDARD);
    for t in ["a3", "b4"] {
        g.play(t.parse().unwrap()).unwrap();
    }
    assert!(
        out.contains(&format!("position {} after 2 actions", g.position())),
        "{out}"
    );
    // Past the end.
    let o = gore(&["analyze", "--record", file, "--ply", "94"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--ply: 94 is past the record's end (93 actions)"),
        "{err}"
    );
}

#[test]
fn bad_actions_are_named_by_number() {
    let o = gore(&["analyze", "--depth", "2", "--actions", "a3", "b4", "b9"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--actions: action 3 `b9`:"), "{err}");
    // A token that reads but is illegal: after a3 b4, A is to move and
    // b1 is B's.
    let o = gore(&["analyze", "--depth", "2", "--actions", "a3", "b4", "b1"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--actions: action 3 `b1`:"), "{err}");
    assert!(o.stdout.is_empty());
    // A record that does not parse names the file.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.gore");
    std::fs::write(&path, "[Rules \"wibble\"]\n\n1. a1\n").unwrap();
    let o = gore(&["analyze", "--record", path.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--record "), "{err}");
}
