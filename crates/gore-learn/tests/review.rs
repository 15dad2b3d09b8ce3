//! The review's classification on hand-made games whose mistakes are
//! known by hand (the best action takes every seed on the board; the
//! played one lets the opponent end the game with less), the annotated
//! record, the solved database's exact values.

use std::sync::atomic::AtomicBool;

use gore_core::{Action, Hole, Player, Record, Rules};
use gore_learn::review::{annotate, review, Budget, Class, Source};
use gore_solver::disk::{write_layer, Database};
use gore_solver::par::Sequential;
use gore_solver::solve;

/// A record of `rules` from `start` with `actions`.
fn record(rules: &str, start: &str, actions: &[&str]) -> Record {
    let text = format!(
        "[Rules \"{rules}\"]\n[Start \"{start}\"]\n\n{}\n",
        actions.join(" ")
    );
    Record::parse(&text).unwrap()
}

fn pair(x: [f64; 2]) -> String {
    format!("{:.1}-{:.1}", x[0], x[1])
}

fn sow(h: Hole) -> Action {
    Action::Sow(h)
}

/// B to move with rows `a` and `b`, the captured totals making up the
/// rest of the 48 (under `no-trades`: with such totals an offer would be
/// legal in the standard game, a choice no hand arithmetic here covers).
fn position(a: [u8; 4], b: [u8; 4]) -> String {
    let on_board: u8 = a.iter().chain(&b).sum();
    let rest = 48 - on_board;
    let row = |r: [u8; 4]| format!("{},{},{},{}", r[0], r[1], r[2], r[3]);
    format!(
        "{}/{} AAAA/BBBB {}-{} B -",
        row(a),
        row(b),
        rest / 2,
        rest - rest / 2
    )
}

/// The hand-made positions: B to move, where `b4` (one seed into a1,
/// making 2) captures a1 and, forward, a2's 4, then the board ends with
/// every seed on it B's (the most he can get: the best action, exactly);
/// `b3` (one seed into his own b4) captures nothing, and then A has an
/// action that ends the game, so that B gets at most what it leaves him.
/// (A's row, B's row, seeds on the board, B's most after b3, by hand.)
const CASES: [([u8; 4], [u8; 4], f64, f64); 2] = [
    // b3: b4 holds 2. A's a2 (4 seeds) makes a3, a4, b1, b2 hold 1, 1, 2,
    // 2: it lands on b2 = 2, captures it and backward b1 = 2; a4 = 1 stops.
    // Every hole is then at most 2: A 4 captured + 3 swept, B sweeps b4's
    // 2. So B gets at most 2 of 9: the loss is at least 7, a blunder.
    ([1, 4, 0, 0], [1, 1, 1, 1], 9.0, 2.0),
    // b3: b4 holds 2. A's a2 makes a3, a4, b1, b2 hold 1 each, lands on
    // b2 = 1, captures nothing, and every hole is at most 2: A sweeps 3, B
    // 4. So B gets at most 4 of 7: the loss is at least 3, a mistake or
    // worse.
    ([1, 4, 0, 0], [0, 0, 1, 1], 7.0, 4.0),
];

fn captured_b(start: &str) -> f64 {
    let totals = start.split(' ').nth(2).unwrap();
    totals.split('-').nth(1).unwrap().parse().unwrap()
}

#[test]
fn a_sowing_that_misses_a_capture_loses_at_least_what_hand_arithmetic_says() {
    let stop = AtomicBool::new(false);
    for (a, b, on_board, most_after_b3) in CASES {
        let start = position(a, b);
        let rec = record("no-trades", &start, &["b3"]);
        let r = review(&rec, Budget::DEFAULT, None, &stop).unwrap();
        assert_eq!(r.actions.len(), 1);
        let x = &r.actions[0];
        let cb = captured_b(&start);
        assert_eq!(x.mover, Player::B, "{start}");
        assert_eq!(x.source, Source::Engine);
        assert_eq!(x.action, sow(Hole::B3));
        assert_eq!(x.best, sow(Hole::B4), "{start}");
        assert_eq!(x.best_value, cb + on_board, "{start}");
        assert!(x.played <= cb + most_after_b3, "{start}: {x:?}");
        let least = on_board - most_after_b3;
        assert!(x.loss >= least, "{start}: {x:?}");
        assert_eq!(x.class, Class::of_loss(x.loss));
        assert!(x.class >= Class::of_loss(least), "{start}: {x:?}");
        assert_eq!(x.before[1], cb + on_board);
        assert_eq!(x.before[0] + x.before[1], 48.0);
        let s = r.summary[Player::B.index()];
        assert_eq!(s.actions, 1);
        assert_eq!(s.average_loss, x.loss);
        let counts = [s.inaccuracies, s.mistakes, s.blunders];
        let expected = match x.class {
            Class::Inaccuracy => [1, 0, 0],
            Class::Mistake => [0, 1, 0],
            Class::Blunder => [0, 0, 1],
            c => panic!("{start}: {c:?}"),
        };
        assert_eq!(counts, expected);
        assert_eq!(r.summary[Player::A.index()].actions, 0);
        assert_eq!(r.outcome, None, "the game goes on after b3");
    }
    // The first case's bound alone makes it a blunder.
    let r = review(
        &record("no-trades", &position(CASES[0].0, CASES[0].1), &["b3"]),
        Budget::DEFAULT,
        None,
        &stop,
    )
    .unwrap();
    assert_eq!(r.actions[0].class, Class::Blunder);
}

#[test]
fn the_best_action_loses_nothing() {
    // b4 takes every seed on the board: nothing does better.
    let stop = AtomicBool::new(false);
    let start = position(CASES[0].0, CASES[0].1);
    let rec = record("no-trades", &start, &["b4"]);
    let r = review(&rec, Budget::DEFAULT, None, &stop).unwrap();
    let x = &r.actions[0];
    assert_eq!((x.best, x.loss, x.class), (sow(Hole::B4), 0.0, Class::Good));
    assert_eq!(x.played, captured_b(&start) + 9.0);
    assert_eq!(r.summary[1].average_loss, 0.0);
    // The game ended: 0 for A's row and B all 9 on the board.
    assert_eq!(r.outcome.map(|o| o[1] as f64), Some(x.played));
}

#[test]
fn the_only_legal_action_is_forced_and_loses_nothing() {
    // B has only b4 (3 seeds: a1, a2, a3 make 1, 1, 1: no capture), then A
    // plays on; whatever b4 costs, it was the only action.
    let stop = AtomicBool::new(false);
    let rec = record("no-trades", "0,0,0,3/0,0,0,3 AAAA/BBBB 21-21 B -", &["b4"]);
    let r = review(&rec, Budget::DEFAULT, None, &stop).unwrap();
    let x = &r.actions[0];
    assert_eq!(
        (x.class, x.loss, x.best),
        (Class::Forced, 0.0, sow(Hole::B4))
    );
    // Its value is the position it leads to, searched (not a guess of the
    // position before it): the mover's before is what he gets after it.
    assert_eq!(x.before[1], x.played);
    assert_eq!(r.summary[1].forced, 1);
    assert_eq!(r.summary[1].average_loss, 0.0);
}

#[test]
fn a_whole_game_is_reviewed_ply_by_ply_and_the_annotated_record_reads_back() {
    // Every action of a short game from the start, with a known blunder
    // at its end: the game's last action is B's b3 of the first case.
    let stop = AtomicBool::new(false);
    let game = "a1 b1 a2 b2";
    let rec = Record::parse(&format!("[Rules \"standard\"]\n\n1. {game}\n")).unwrap();
    let budget = Budget {
        depth: 4,
        nodes: 20_000,
    };
    let r = review(&rec, budget, None, &stop).unwrap();
    assert_eq!(r.actions.len(), 4);
    assert_eq!(
        r.actions.iter().map(|a| a.mover).collect::<Vec<_>>(),
        [Player::A, Player::B, Player::A, Player::B]
    );
    for a in &r.actions {
        assert!(a.loss >= 0.0 && a.best_value >= a.played, "{a:?}");
        assert!((a.before[0] + a.before[1] - 48.0).abs() < 1e-9);
    }
    assert_eq!(r.outcome, None, "the game goes on");
    // Same budget, same review.
    assert_eq!(review(&rec, budget, None, &stop).unwrap(), r);

    let blunder = record("no-trades", &position(CASES[0].0, CASES[0].1), &["b3"]);
    let rb = review(&blunder, Budget::DEFAULT, None, &stop).unwrap();
    let annotated = annotate(&blunder, &rb);
    let text = annotated.to_string();
    assert!(
        text.contains(&format!(
            "b3 {{{} ?? blunder -",
            pair(rb.actions[0].after())
        )),
        "{text}"
    );
    assert!(text.contains("[Review \"gore engine depth 8"), "{text}");
    assert!(text.contains(" best b4 "), "{text}");
    let back = Record::parse(&text).unwrap();
    assert_eq!(back, annotated);
    assert_eq!(back.actions, blunder.actions);
    back.replay().unwrap();
}

#[test]
fn a_record_that_does_not_replay_is_refused_with_its_ply() {
    let stop = AtomicBool::new(false);
    let rec = Record::parse("[Rules \"standard\"]\n\n1. a1 a2\n").unwrap();
    let e = review(&rec, Budget::DEFAULT, None, &stop).unwrap_err();
    assert!(e.to_string().contains("action 2 (a2)"), "{e}");
}

#[test]
fn with_a_solved_database_the_values_are_exact() {
    // Layers 0..=9 of no-trades: the positions above hold 5 to 7 seeds.
    let dir = tempfile::tempdir().unwrap();
    let mem = solve::solve_up_to(9, false, &Sequential);
    for layer in &mem.layers {
        write_layer(dir.path(), layer, false).unwrap();
    }
    let db = Database::open(dir.path(), false).unwrap();
    let stop = AtomicBool::new(false);
    let rules: Rules = "no-trades".parse().unwrap();
    for (a, b, on_board, most_after_b3) in CASES {
        let start = position(a, b);
        let rec = record(&rules.to_string(), &start, &["b3"]);
        let solved = review(&rec, Budget::DEFAULT, Some(&db), &stop).unwrap();
        let x = &solved.actions[0];
        assert_eq!(x.source, Source::Solved);
        assert_eq!(x.best, sow(Hole::B4));
        assert_eq!(x.best_value, captured_b(&start) + on_board);
        assert!(x.loss >= on_board - most_after_b3, "{x:?}");
        // The engine, at its budget, sees these few seeds to the end.
        let searched = review(&rec, Budget::DEFAULT, None, &stop).unwrap();
        let y = &searched.actions[0];
        assert_eq!((y.best, y.loss, y.class), (x.best, x.loss, x.class));
    }
}
