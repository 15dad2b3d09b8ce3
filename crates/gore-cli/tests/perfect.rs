//! `ai:perfect` in `gore match` and `perfect` in `gore engine`: played
//! from a small database built by `gore solve`, refused clearly without
//! one or with trades allowed.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn gore(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gore"))
        .args(args)
        .output()
        .expect("gore runs")
}

fn engine(input: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gore"))
        .arg("engine")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("gore engine runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// A database of the layers 0-10 in a temporary directory.
fn small_db() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let out = gore(&[
        "solve",
        "--db",
        dir.path().to_str().unwrap(),
        "--max-seeds",
        "10",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

/// The engine plays the database's action, without a search (no `info`
/// lines, which the strongest level prints). On `0,0,1,3/1,0,0,0` (A to
/// move, 5 seeds on the board), by hand: a4 sows b1, b2, b3, and every
/// hole then holds at most 2: over, a3's seed A's (1). a3 makes a4 a 4;
/// B's only action is b1 into b2, A's then a4 into b1..b4, and the board
/// is over with nothing A's (0). So a4.
#[test]
fn the_engine_plays_from_the_database() {
    let db = small_db();
    let dir = db.path().to_str().unwrap();
    let out = engine(&format!(
        "gpi\nsetoption name db value {dir}\nsetoption name perfect value true\n\
         rules no-trades\nposition gpn 0,0,1,3/1,0,0,0 AAAA/BBBB 22-21 A -\ngo\nquit\n"
    ));
    assert!(
        out.contains("option name perfect type check default false"),
        "{out}"
    );
    assert!(out.lines().any(|l| l == "bestaction a4"), "{out}");
    assert!(!out.lines().any(|l| l.starts_with("info")), "{out}");
}

#[test]
fn the_engine_refuses_perfect_with_trades_or_without_a_database() {
    let out = engine("setoption name perfect value true\nrules no-trades\ngo\nquit\n");
    assert!(
        out.contains("error go: perfect needs the solver's database (setoption name db value DIR)"),
        "{out}"
    );
    let db = small_db();
    let dir = db.path().to_str().unwrap();
    let out = engine(&format!(
        "setoption name db value {dir}\nsetoption name perfect value true\ngo\nquit\n"
    ));
    assert!(
        out.contains("error go: perfect: ai:perfect plays only games without trades"),
        "{out}"
    );
    let out = engine("setoption name perfect value maybe\nquit\n");
    assert!(
        out.contains("error setoption perfect: `maybe` is not true or false"),
        "{out}"
    );
}

#[test]
fn the_match_refuses_perfect_without_a_database_or_with_trades() {
    let out = gore(&[
        "match",
        "--engine1",
        "ai:perfect",
        "--engine2",
        "random",
        "--rules",
        "no-trades",
        "--games",
        "2",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ai:perfect needs the solver's database: --solver-db DIR"),
        "{err}"
    );
    let db = small_db();
    let dir = db.path().to_str().unwrap();
    let out = gore(&[
        "match",
        "--engine1",
        "ai:perfect",
        "--engine2",
        "random",
        "--games",
        "2",
        "--solver-db",
        dir,
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ai:perfect plays only games without trades"),
        "{err}"
    );
    let empty = tempfile::tempdir().unwrap();
    let out = gore(&[
        "match",
        "--engine1",
        "ai:perfect",
        "--engine2",
        "random",
        "--rules",
        "no-trades",
        "--games",
        "2",
        "--solver-db",
        empty.path().to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no layer of the rules no-trades"), "{err}");
}

/// A match with ai:perfect runs (above the small database it plays as
/// the strongest level) and counts its games.
#[test]
fn a_match_with_perfect_plays() {
    let db = small_db();
    let dir = db.path().to_str().unwrap();
    let out = gore(&[
        "match",
        "--engine1",
        "ai:perfect:nodes=2000",
        "--engine2",
        "greedy",
        "--rules",
        "no-trades,seeds=3",
        "--games",
        "2",
        "--solver-db",
        dir,
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("games 2"), "{text}");
    assert!(text.contains("forfeit 0"), "{text}");
}
