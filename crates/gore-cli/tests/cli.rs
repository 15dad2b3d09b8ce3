//! The `gore` binary's scriptable output, exactly as the README documents
//! it. Expected positions are worked out by hand from RULES.md.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn gore(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gore"))
        .args(args)
        .output()
        .expect("run gore")
}

fn gore_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gore"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run gore");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn legal_from_start_and_pending_offer() {
    let o = gore(&["legal"]);
    assert!(o.status.success());
    assert_eq!(lines(&o), ["a1", "a2", "a3", "a4"]);
    // Fields may also come as five words.
    let o = gore(&[
        "legal",
        "0,3,7,1/2,0,5,9",
        "AAAA/BBBB",
        "9-12",
        "B",
        "a2+a4",
    ]);
    assert_eq!(lines(&o), ["accept", "decline"]);
}

#[test]
fn legal_of_an_ended_position_prints_nothing() {
    let o = gore(&["legal", "0,0,0,0/0,0,0,0 AAAA/BBBB 24-24 A -"]);
    assert!(o.status.success());
    assert!(o.stdout.is_empty());
}

#[test]
fn legal_lists_pass_and_offers_when_all_own_holes_are_empty() {
    // A's holes are empty; B has 20 captured: offers of 1-3 of A's 4 holes.
    let o = gore(&["legal", "0,0,0,0/5,3,0,7 AAAA/BBBB 13-20 A -"]);
    let l = lines(&o);
    assert_eq!(l.len(), 1 + 4 + 6 + 4);
    assert!(l.contains(&"pass".to_string()));
    assert!(l.contains(&"offer:a1,a2,a4".to_string()));
    assert!(!l.contains(&"offer:a1,a2,a3,a4".to_string()));
}

#[test]
fn apply_prints_each_position() {
    let o = gore(&["apply", "a1", "b1"]);
    assert!(o.status.success());
    assert_eq!(
        lines(&o),
        [
            "0,7,7,7/7,7,7,6 AAAA/BBBB 0-0 B -",
            "1,8,8,8/0,8,8,7 AAAA/BBBB 0-0 A -"
        ]
    );
}

#[test]
fn apply_whole_board_capture_ends_with_result() {
    // Worked example 3: B sows b2 and takes every hole, 22 seeds.
    let o = gore(&[
        "apply",
        "--from",
        "3,2,4,2/4,3,1,3 AAAA/BBBB 13-13 B -",
        "b2",
    ]);
    assert!(o.status.success());
    assert_eq!(
        lines(&o),
        ["0,0,0,0/0,0,0,0 AAAA/BBBB 13-35 A -", "result 13-35"]
    );
}

#[test]
fn apply_end_sweeps_to_controllers() {
    // A sows a1 into a2, a3, a4: every hole holds at most 2. A sweeps his
    // row (3) and, having traded for it, b4 (2).
    let o = gore(&[
        "apply",
        "--from",
        "3,0,0,0/0,0,0,2 AAAA/BBBA 18-25 A -",
        "a1",
    ]);
    assert_eq!(
        lines(&o),
        ["0,0,0,0/0,0,0,0 AAAA/BBBA 23-25 B -", "result 23-25"]
    );
}

#[test]
fn apply_repetition_and_ply_cap_end_the_game() {
    // Offers and declines back to the same position: the third occurrence
    // of the start ends the game; A sweeps 24, B 12.
    let loop8 = [
        "offer:a1", "decline", "offer:b1", "decline", "offer:a1", "decline", "offer:b1", "decline",
    ];
    let mut args = vec!["apply", "--from", "6,6,6,6/6,6,0,0 AAAA/BBBB 6-6 A -"];
    args.extend(loop8);
    let o = gore(&args);
    let l = lines(&o);
    assert_eq!(l.len(), 9, "{l:?}");
    assert_eq!(l[7], "0,0,0,0/0,0,0,0 AAAA/BBBB 30-18 A -");
    assert_eq!(l[8], "result 30-18");

    let o = gore(&["apply", "--rules", "ply-cap=2", "a1", "b1"]);
    assert_eq!(
        lines(&o),
        [
            "0,7,7,7/7,7,7,6 AAAA/BBBB 0-0 B -",
            "0,0,0,0/0,0,0,0 AAAA/BBBB 25-23 A -",
            "result 25-23"
        ]
    );
}

#[test]
fn apply_errors_keep_printed_lines_and_name_the_rule() {
    let o = gore(&["apply", "a1", "a2"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(lines(&o), ["0,7,7,7/7,7,7,6 AAAA/BBBB 0-0 B -"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("a2") && err.contains("not controlled"),
        "{err}"
    );

    let o = gore(&[
        "apply",
        "--from",
        "3,2,4,2/4,3,1,3 AAAA/BBBB 13-13 B -",
        "b2",
        "a1",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(lines(&o).len(), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("ended"));

    let o = gore(&["apply", "offer:a1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("6 seeds per offered hole"));

    let o = gore(&["apply", "--from", "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A", "a1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    assert!(String::from_utf8_lossy(&o.stderr).contains("GPN"));

    let o = gore(&["apply", "--rules", "sideways", "a1"]);
    assert_eq!(o.status.code(), Some(2)); // clap's usage error
    assert!(String::from_utf8_lossy(&o.stderr).contains("rules"));
}

#[test]
fn perft_prints_every_depth_and_a_summary() {
    // Depth 1: A's four sowings; depth 2: B's four answers to each.
    let o = gore(&["perft", "2"]);
    let l = lines(&o);
    assert_eq!(&l[..2], ["1 4", "2 16"]);
    assert!(
        l[2].starts_with("time ") && l[2].ends_with("leaves/s"),
        "{}",
        l[2]
    );
    assert_eq!(l.len(), 3);

    let o = gore(&[
        "perft",
        "--divide",
        "--from",
        "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a4",
        "1",
    ]);
    let l = lines(&o);
    assert_eq!(&l[..3], ["accept 1", "decline 1", "1 2"]);
}

#[test]
fn play_two_people_with_declines_ends_without_glory_and_saves() {
    let dir = std::env::temp_dir().join(format!("gore-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("game.gore");
    let input = "b1\noffer:a1\ndecline\noffer:b1\ndecline\noffer:a1\nn\noffer:b1\ndecline\n";
    let o = gore_stdin(
        &[
            "play",
            "--opponent",
            "human",
            "--from",
            "6,6,6,6/6,6,0,0 AAAA/BBBB 6-6 A -",
            "--save",
            file.to_str().unwrap(),
        ],
        input,
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains("Refused: illegal: hole b1 is not controlled by player A"),
        "{out}"
    );
    assert!(out.contains("Result 30-18 without glory"), "{out}");
    assert!(out.contains("victory without glory"), "{out}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("[Result \"30-18 without glory\"]"), "{text}");
    assert!(text.contains("[Termination \"repetition\"]"), "{text}");

    let o = gore(&["play", "--load", file.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("8. A decline"), "{out}");
    assert!(out.contains("Result 30-18 without glory"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn play_against_random_mover_is_reproducible_and_survives_junk() {
    // A person who only types junk and then leaves: the random mover
    // never moves for A, the game stays unfinished, nothing panics.
    let args = ["play", "--opponent", "random", "--seed", "3", "--as", "B"];
    let o = gore_stdin(&args, "zz\nhelp\nlegal\nquit\n\n");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("A (random) plays a"), "{out}");
    assert!(out.contains("Legal: b"), "{out}");
    assert!(out.contains("unfinished"), "{out}");
    let again = gore_stdin(&args, "zz\nhelp\nlegal\nquit\n\n");
    assert_eq!(o.stdout, again.stdout);
}

/// The lines of `out` that say what a player (not the person) played.
fn plays<'a>(out: &'a str, who: &str) -> Vec<&'a str> {
    out.lines()
        .filter_map(|l| l.strip_prefix(who))
        .filter_map(|l| l.strip_prefix(" plays "))
        .collect()
}

#[test]
fn play_is_against_the_ai_by_default_and_it_moves_first_for_a() {
    // The person plays B and leaves after the AI's first action.
    let o = gore_stdin(&["play", "--as", "B", "--seed", "7"], "quit\n\n");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("against the AI, level 5"), "{out}");
    let first = plays(&out, "A (AI level 5)");
    assert_eq!(first.len(), 1, "{out}");
    // A's legal first actions are its four sowings.
    assert!(["a1", "a2", "a3", "a4"].contains(&first[0]), "{out}");
    assert!(out.contains("B (you) to move>"), "{out}");
    assert!(out.contains("unfinished"), "{out}");
    // Below the top level the AI searches to its level's depth: same seed,
    // same action.
    let again = gore_stdin(&["play", "--as", "B", "--seed", "7"], "quit\n\n");
    assert_eq!(o.stdout, again.stdout);

    // Any level, and the full-strength AI on the clock.
    let top = gore_ai::MAX_LEVEL.to_string();
    for level in ["1", top.as_str()] {
        let o = gore_stdin(
            &[
                "play",
                "--as",
                "B",
                "--level",
                level,
                "--movetime",
                "50",
                "--seed",
                "1",
            ],
            "quit\n\n",
        );
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{out}");
        let first = plays(&out, &format!("A (AI level {level})"));
        assert_eq!(first.len(), 1, "{out}");
        assert!(["a1", "a2", "a3", "a4"].contains(&first[0]), "{out}");
    }
    let o = gore(&["play", "--level", &(gore_ai::MAX_LEVEL + 1).to_string()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--level"));
}

#[test]
fn play_the_ai_answers_an_offer() {
    // A offers a1 to B (who has 16 captured). If B declines, his b4 drops
    // its seed in a1 (2, A's) and takes a1, then forward a2 (4), a3 (2), a4
    // (4) and b1 (2, his own) until b2 (1) stops it: 14 seeds and the game
    // ends 17-31. Accepting would put 6 seeds into a1 and break that chain.
    let from = "1,4,2,4/2,1,0,1 AAAA/BBBB 17-16 A -";
    let o = gore_stdin(
        &["play", "--from", from, "--seed", "2"],
        "offer:a1\n\nquit\n\n",
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains("A offers a1 to B for 6 captured seeds."),
        "{out}"
    );
    assert!(out.contains("B declines your offer."), "{out}");
    // Then B takes his normal turn.
    assert_eq!(plays(&out, "B (AI level 5)").len(), 1, "{out}");

    // The honourable AI accepts, then moves on.
    let o = gore_stdin(
        &["play", "--from", from, "--seed", "2", "--honourable"],
        "offer:a1\n\nquit\n\n",
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("B accepts your offer."), "{out}");
    assert!(!out.contains("declines"), "{out}");
    assert_eq!(plays(&out, "B (AI level 5)").len(), 1, "{out}");
}

#[test]
fn seeds_option_in_perft_and_apply() {
    // seeds=3, by hand: A's four sowings; after a1 B has 4 sowings, after
    // a2, a3 or a4 (each a capture of 12) 3, 2 or 1 sowings and 10 offers.
    let o = gore(&["perft", "--rules", "seeds=3", "2"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(&lines(&o)[..2], ["1 4", "2 40"]);
    // a4 (3): b1 4, b2 4, b3 4; b3 is taken with b2 and b1 (backward; the
    // emptied a4 stops), forward b4 = 3 stops: 12 seeds.
    let o = gore(&["apply", "--rules", "seeds=3", "a4"]);
    assert_eq!(lines(&o), ["3,3,3,0/0,0,0,3 AAAA/BBBB 12-0 B -"]);
    // Under cede-all, B gives his last two holes away for A's 12 seeds:
    // he has no hole left, the game ends and A sweeps all 24.
    let o = gore(&[
        "apply",
        "--rules",
        "seeds=3,cede-all",
        "--from",
        "3,3,3,0/0,0,0,3 AAAB/AAAB 12-0 B -",
        "offer:a4,b4",
        "accept",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        lines(&o),
        [
            "3,3,3,0/0,0,0,3 AAAB/AAAB 12-0 A a4+b4",
            "0,0,0,0/0,0,0,0 AAAA/AAAA 24-0 A -",
            "result 24-0"
        ]
    );
    // The standard 48 seeds are refused under seeds=3, naming the count.
    let o = gore(&[
        "legal",
        "--rules",
        "seeds=3",
        "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A -",
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("48 seeds, not 24"), "{err}");
    let o = gore(&["perft", "--rules", "seeds=9", "1"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("3 to 8"));
}

/// `gore play --help` names the ladder's top (the text is written by hand:
/// this keeps it the AI's), and a level beyond it is refused.
#[test]
fn play_help_names_the_top_level_and_refuses_the_next() {
    let top = gore_ai::MAX_LEVEL;
    let o = gore(&["play", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(
        help.contains(&format!("to {top} (full strength)")),
        "{help}"
    );
    let next = (top + 1).to_string();
    let o = gore(&["play", "--level", &next]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
}
