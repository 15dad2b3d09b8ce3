//! `gore review --record FILE`: the annotated record on stdout (it reads
//! back, its comments the review's), each player's summary, and a record
//! that does not replay refused naming the flag and the action.

use std::process::{Command, Output};

use gore_core::Record;

fn gore(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gore"))
        .args(args)
        .output()
        .expect("run gore")
}

/// B to move under no-trades: `b4` takes all 9 seeds on the board (29 for
/// B); `b3` lets A's `a2` capture 4 and end the game, 26-22 (gore-learn's
/// tests/review.rs gives the hand arithmetic).
const BLUNDER: &str = "[Rules \"no-trades\"]\n[Start \"1,4,0,0/1,1,1,1 AAAA/BBBB 19-20 B -\"]\n[Result \"26-22\"]\n\n1. b3 a2\n";

#[test]
fn the_annotated_record_marks_the_blunder_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("blunder.gore");
    std::fs::write(&path, BLUNDER).unwrap();
    let out = gore(&["review", "--record", path.to_str().unwrap(), "--depth", "6"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("1. b3 {26.0-22.0 ?? blunder -7.0 best b4 19.0-29.0} a2 {26.0-22.0}"),
        "{text}"
    );
    assert!(
        text.contains("[Review \"gore engine depth 6 nodes"),
        "{text}"
    );
    assert!(text.contains("# B: 1 actions (0 forced), average loss 7.00 seeds, 0 inaccuracies, 0 mistakes, 1 blunders"), "{text}");
    let rec = Record::parse(&text).unwrap();
    rec.replay().unwrap();
    assert_eq!(rec.comments.len(), 2);
}

#[test]
fn a_record_that_does_not_replay_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.gore");
    std::fs::write(&path, "[Rules \"standard\"]\n\n1. a1 a2\n").unwrap();
    let out = gore(&["review", "--record", path.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("--record") && err.contains("action 2 (a2)"),
        "{err}"
    );
}
