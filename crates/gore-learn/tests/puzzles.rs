//! Puzzles: every shipped puzzle re-proved (its answer beats every other
//! legal action by its margin at its depth), the file format, the themes,
//! the proof on hand-made positions and the rating update by hand.

use gore_core::{Action, Hole, Position, Variant};
use gore_learn::puzzles::{
    action_values, parse_file, parse_line, proof_engine, themes_of, update_rating, verify, Proof,
    Theme, VerifyError,
};

const SHIPPED: &str = include_str!("../../gore-server/puzzles/puzzles.txt");

#[test]
fn every_shipped_puzzle_is_unique_under_its_threshold() {
    let puzzles = parse_file(SHIPPED).expect("the shipped file parses");
    assert!(puzzles.len() >= 500, "{} puzzles shipped", puzzles.len());
    let mut engine = proof_engine();
    let mut failed = Vec::new();
    for p in &puzzles {
        assert!(p.position.is_legal(p.answer), "{}: answer legal", p.id);
        assert!(p.margin >= 2, "{}: the shipped margin is 2 seeds", p.id);
        if let Err(e) = verify(p, &mut engine) {
            failed.push(format!("{}: {e}", p.id));
        }
    }
    assert!(failed.is_empty(), "not proved again: {failed:?}");
}

#[test]
fn shipped_puzzles_are_distinct_and_themed() {
    let puzzles = parse_file(SHIPPED).unwrap();
    let mut positions: Vec<String> = puzzles.iter().map(|p| p.position.to_string()).collect();
    positions.sort();
    positions.dedup();
    assert_eq!(positions.len(), puzzles.len(), "no position twice");
    for t in [
        Theme::Capture,
        Theme::Chain,
        Theme::OwnHoles,
        Theme::Quiet,
        Theme::Offer,
        Theme::Accept,
        Theme::Decline,
        Theme::WholeBoard,
        Theme::Sweep,
    ] {
        assert!(
            puzzles.iter().any(|p| p.themes.contains(&t)),
            "no puzzle of theme {t}"
        );
    }
    // Both players have puzzles, and the ratings spread.
    assert!(puzzles.iter().any(|p| p.to_move() == gore_core::Player::A));
    assert!(puzzles.iter().any(|p| p.to_move() == gore_core::Player::B));
    let lo = puzzles.iter().map(|p| p.rating).min().unwrap();
    let hi = puzzles.iter().map(|p| p.rating).max().unwrap();
    assert!(hi - lo >= 800, "ratings {lo}..{hi}");
}

#[test]
fn the_format_round_trips() {
    for p in parse_file(SHIPPED).unwrap() {
        let line = p.to_string();
        assert_eq!(parse_line(&line, 1).unwrap(), p, "{line}");
    }
}

/// The first worked example of RULES.md, B to move: b2 takes a2, a1 and b4.
const EXAMPLE: &str = "1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 B -";
const GOOD: &str =
    "x1;standard;1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 B -;b2;2;depth=4;capture,chain,own-holes;1200;";

#[test]
fn bad_lines_name_the_field() {
    assert!(parse_line(GOOD, 1).is_ok());
    let cases = [
        ("x1;standard;", "fields"),
        (&GOOD.replace("x1;", "x 1;"), "id"),
        (&GOOD.replace("standard", "nope"), "rules"),
        (&GOOD.replace("14-14", "14-15"), "gpn"),
        (&GOOD.replace(";b2;", ";a1;"), "answer"), // A's hole, B to move
        (&GOOD.replace(";b2;", ";zz;"), "answer"),
        (&GOOD.replace(";2;depth", ";0;depth"), "margin"),
        (&GOOD.replace(";2;depth", ";two;depth"), "margin"),
        (&GOOD.replace("depth=4", "depth=x"), "proof"),
        (
            &GOOD.replace("capture,chain,own-holes", "capture,bogus"),
            "themes",
        ),
        (&GOOD.replace("capture,chain,own-holes", "quiet"), "themes"),
        (&GOOD.replace(";1200;", ";high;"), "rating"),
        (&format!("{GOOD}b1"), "line"), // b1 is B's, and A moves after b2
    ];
    for (line, field) in cases {
        let e = parse_line(line, 7).unwrap_err();
        assert_eq!(e.field, field, "{line}: {e}");
        assert_eq!(e.line, 7);
        assert!(
            e.to_string().starts_with(&format!("line 7: {field}:")),
            "{e}"
        );
    }
    let twice = format!("# comment\n\n{GOOD}\n{GOOD}\n");
    let e = parse_file(&twice).unwrap_err();
    assert_eq!((e.line, e.field), (4, "id"));
}

#[test]
fn themes_come_from_the_answer() {
    let p = Position::from_gpn(EXAMPLE, Variant::STANDARD).unwrap();
    // a2 (A's), a1 (A's) and b4 (B's own): a chain into the mover's holes.
    assert_eq!(
        themes_of(&p, Action::Sow(Hole::B2)),
        [Theme::Capture, Theme::Chain, Theme::OwnHoles]
    );
    // b1 (3 seeds) lands on a4 (6): nothing taken, nothing ended.
    assert_eq!(themes_of(&p, Action::Sow(Hole::B1)), [Theme::Quiet]);
    // The third worked example: every hole holds 2 or 4 after b2.
    let whole =
        Position::from_gpn("3,2,4,2/4,3,1,3 AAAA/BBBB 13-13 B -", Variant::STANDARD).unwrap();
    assert_eq!(
        themes_of(&whole, Action::Sow(Hole::B2)),
        [
            Theme::Capture,
            Theme::Chain,
            Theme::OwnHoles,
            Theme::WholeBoard
        ]
    );
    // B has 14 captured: A may offer two holes; B's answers are themes.
    let offered =
        Position::from_gpn("1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 B a1+a2", Variant::STANDARD).unwrap();
    assert_eq!(themes_of(&offered, Action::Decline), [Theme::Decline]);
    assert_eq!(themes_of(&offered, Action::Accept), [Theme::Accept]);
    let a_moves =
        Position::from_gpn("1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 A -", Variant::STANDARD).unwrap();
    let offer: Action = "offer:a1".parse().unwrap();
    assert_eq!(themes_of(&a_moves, offer), [Theme::Offer]);
    // a4's 3 seeds fall on b1, b2, b3 (1 each): nothing taken, and every
    // hole holds at most 2: the game ends with the sweep.
    let sweep =
        Position::from_gpn("0,0,0,3/0,0,0,0 AAAA/BBBB 20-25 A -", Variant::STANDARD).unwrap();
    assert_eq!(themes_of(&sweep, Action::Sow(Hole::A4)), [Theme::Sweep]);
}

#[test]
fn the_proof_values_the_whole_board() {
    // B sows b2 and takes all 22 seeds on the board: the game ends 35-13
    // for B, a difference of 22 seeds (2200 units), the most B can have
    // (A keeps his 13): no action is worth more.
    let p = Position::from_gpn("3,2,4,2/4,3,1,3 AAAA/BBBB 13-13 B -", Variant::STANDARD).unwrap();
    let mut engine = proof_engine();
    let values = action_values(&p, 4, &mut engine);
    assert_eq!(values.len(), p.legal_actions().len());
    let b2 = values
        .iter()
        .find(|(a, _, _)| *a == Action::Sow(Hole::B2))
        .unwrap();
    assert_eq!(b2.1, 2200);
    assert!(b2.2.is_empty(), "the game is over after it");
    assert!(values.iter().all(|(_, v, _)| *v <= 2200));
    // Sorted best first.
    assert!(values.windows(2).all(|w| w[0].1 >= w[1].1));
}

#[test]
fn verify_refuses_a_wrong_answer_or_a_margin_too_large() {
    let mut p = parse_file(SHIPPED).unwrap().remove(0);
    let mut engine = proof_engine();
    assert_eq!(verify(&p, &mut engine), Ok(()));
    let right = p.answer;
    let other = p
        .position
        .legal_actions()
        .iter()
        .copied()
        .find(|&a| a != right)
        .unwrap();
    let mut wrong = p.clone();
    wrong.answer = other;
    assert_eq!(
        verify(&wrong, &mut engine),
        Err(VerifyError::NotBest { best: right })
    );
    p.margin = 48;
    assert!(matches!(
        verify(&p, &mut engine),
        Err(VerifyError::Margin { .. })
    ));
    assert!(matches!(p.proof, Proof::Search { depth: 12 }));
}

#[test]
fn the_rating_update_by_hand() {
    // Equal ratings: expected 1/2, so ±K/2.
    assert_eq!(update_rating(1500, 1500, true, 32), 1516);
    assert_eq!(update_rating(1500, 1500, false, 32), 1484);
    // 400 above: expected 1/11; a miss costs 32/11 = 2.9 → 3.
    assert_eq!(update_rating(1500, 1900, false, 32), 1497);
    // ...and a success gains 32 × 10/11 = 29.09 → 29.
    assert_eq!(update_rating(1500, 1900, true, 32), 1529);
    // 400 below: expected 10/11, a success gains 2.9 → 3.
    assert_eq!(update_rating(1500, 1100, true, 32), 1503);
    // Kept within 100..=3000.
    assert_eq!(update_rating(100, 3000, false, 32), 100);
    assert_eq!(update_rating(3000, 100, true, 32), 3000);
}
