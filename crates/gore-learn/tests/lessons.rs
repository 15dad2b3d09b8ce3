//! The lessons: each start is valid, each known solution meets its goal,
//! and the goal is really checked. Every expected value below was worked
//! out by hand from the lesson's position (the sowing written out hole by
//! hole in the comments), not taken from `check`.

use gore_core::{Action, Hole, IllegalAction, Player, Position};
use gore_learn::lessons::{self, check, Goal, Kind, Miss, Outcome};

fn act(s: &str) -> Action {
    s.parse().unwrap()
}

fn acts(list: &[&str]) -> Vec<Action> {
    list.iter().map(|s| act(s)).collect()
}

fn run(id: &str, list: &[&str]) -> Outcome {
    check(lessons::find(id).expect("lesson"), &acts(list))
}

fn missed(id: &str, list: &[&str]) -> Miss {
    match run(id, list) {
        Outcome::Missed(_, m) => m,
        o => panic!("{id} {list:?}: expected a miss, got {o:?}"),
    }
}

fn illegal(id: &str, list: &[&str]) -> (usize, IllegalAction) {
    match run(id, list) {
        Outcome::Illegal { index, rule, .. } => (index, rule),
        o => panic!("{id} {list:?}: expected an illegal action, got {o:?}"),
    }
}

fn met(id: &str, list: &[&str]) -> lessons::Step {
    match run(id, list) {
        Outcome::Met(s) => s,
        o => panic!("{id} {list:?}: expected the goal met, got {o:?}"),
    }
}

#[test]
fn ten_lessons_cover_the_issue_topics_in_order() {
    let ids: Vec<&str> = lessons::all().iter().map(|l| l.id).collect();
    assert_eq!(
        ids,
        [
            "sow",
            "capture",
            "chain-backward",
            "chain-forward",
            "whole-board",
            "end-sweep",
            "pass",
            "offer",
            "accept",
            "decline"
        ]
    );
}

#[test]
fn every_start_is_valid_unended_and_the_learner_is_a() {
    for l in lessons::all() {
        let rules: gore_core::Rules = l.rules.parse().expect(l.id);
        let p =
            Position::from_gpn(l.start, rules.variant).unwrap_or_else(|e| panic!("{}: {e}", l.id));
        assert!(!p.is_ended(), "{}: the start is an ended board", l.id);
        assert_eq!(p.to_move(), Player::A, "{}", l.id);
        // Writers print it back the same (no stray spaces or zeros).
        assert_eq!(p.to_string(), l.start, "{}", l.id);
        for t in l.solution.iter().chain(l.replies) {
            t.parse::<Action>()
                .unwrap_or_else(|e| panic!("{}: {t}: {e}", l.id));
        }
        assert_eq!(l.solution.len(), l.goal.moves(), "{}", l.id);
    }
}

#[test]
fn every_known_solution_meets_its_goal_and_every_reply_is_played() {
    for l in lessons::all() {
        match check(l, &l.solution()) {
            Outcome::Met(step) => assert_eq!(step.replies, l.replies(), "{}", l.id),
            o => panic!("{}: the solution gives {o:?}", l.id),
        }
    }
}

/// For every lesson, the legal first actions that meet the goal (or, for
/// the two-step lesson, keep it open) are exactly these; every other legal
/// first action misses. Hand-made lists: see each lesson's test below.
#[test]
fn only_the_right_first_actions_meet_the_goal() {
    let pairs = [
        "offer:a1",
        "offer:a2",
        "offer:a3",
        "offer:a4",
        "offer:a1,a2",
        "offer:a1,a3",
        "offer:a1,a4",
        "offer:a2,a3",
        "offer:a2,a4",
        "offer:a3,a4",
    ];
    let good: [(&str, &[&str]); 10] = [
        ("sow", &["a3"]),
        ("capture", &["a4"]),
        ("chain-backward", &["a4"]),
        ("chain-forward", &["a4"]),
        ("whole-board", &["a1", "a2"]),
        ("end-sweep", &["a2"]),
        ("pass", &["pass"]),
        ("offer", &pairs),
        ("accept", &["accept"]),
        ("decline", &["decline"]),
    ];
    for (id, ok) in good {
        let l = lessons::find(id).unwrap();
        let legal = l.position().legal_actions();
        assert!(!legal.is_empty(), "{id}");
        let mut seen_ok = 0;
        for &a in legal.iter() {
            let o = check(l, &[a]);
            let passes = matches!(o, Outcome::Met(_) | Outcome::Continue(_));
            let expected = ok.contains(&a.to_string().as_str());
            assert_eq!(passes, expected, "{id}: {a} gives {o:?}");
            seen_ok += usize::from(expected);
        }
        assert_eq!(seen_ok, ok.len(), "{id}: every good action is legal");
    }
}

#[test]
fn sow_lesson() {
    // a3 (3) → a4, b1, b2: the last seed in b2.
    let s = met("sow", &["a3"]);
    assert_eq!(s.position.to_string(), "4,1,0,1/3,5,3,3 AAAA/BBBB 25-3 B -");
    // a1 (4) → a2, a3, a4, b1; a2 (1) → a3.
    assert_eq!(
        missed("sow", &["a1"]),
        Miss::LandedElsewhere {
            landed: Hole::B1,
            goal: Hole::B2
        }
    );
    assert_eq!(
        missed("sow", &["a2"]),
        Miss::LandedElsewhere {
            landed: Hole::A3,
            goal: Hole::B2
        }
    );
    assert_eq!(
        illegal("sow", &["a4"]),
        (0, IllegalAction::EmptyHole(Hole::A4))
    );
    assert_eq!(
        illegal("sow", &["b1"]),
        (0, IllegalAction::NotControlled(Hole::B1, Player::A))
    );
}

#[test]
fn capture_lesson() {
    // a4 (1) → b1: 3 + 1 = 4, captured; a4 (emptied) and b2 (0) stop.
    let s = met("capture", &["a4"]);
    let e = s.effect.unwrap();
    assert_eq!(e.seeds_captured, 4);
    assert_eq!(e.captures(), [Hole::B1]);
    // a2 (5) → a3, a4, b1, b2, b3: b3 = 2 taken, b2 = 1 and b4 = 3 stop.
    assert_eq!(
        missed("capture", &["a2"]),
        Miss::TooFew {
            captured: 2,
            goal: 4
        }
    );
    // a3 (3) → a4, b1, b2: b2 = 1.
    assert_eq!(
        missed("capture", &["a3"]),
        Miss::NoCapture {
            landed: Hole::B2,
            seeds: 1,
            own: false
        }
    );
    // a1 (1) → a2, his own: 5 + 1 = 6.
    assert_eq!(
        missed("capture", &["a1"]),
        Miss::NoCapture {
            landed: Hole::A2,
            seeds: 6,
            own: true
        }
    );
}

#[test]
fn chain_backward_lesson() {
    // a4 (4) → b1..b4 = 2, 4, 2, 2: b4, then b3, b2, b1 backward; 10 seeds.
    let e = met("chain-backward", &["a4"]).effect.unwrap();
    assert_eq!(e.captures(), [Hole::B4, Hole::B3, Hole::B2, Hole::B1]);
    assert_eq!(e.seeds_captured, 10);
    // a2 (3) → a3, a4 = 5, b1 = 2: b1 alone.
    assert_eq!(
        missed("chain-backward", &["a2"]),
        Miss::NoBackwardChain { captured: 2 }
    );
    // a3 (1) → a4 = 5, his own.
    assert_eq!(
        missed("chain-backward", &["a3"]),
        Miss::NoCapture {
            landed: Hole::A4,
            seeds: 5,
            own: true
        }
    );
}

#[test]
fn chain_forward_lesson() {
    // a4 (4) → b1..b4: b4 = 2 taken; b3 = 1 stops backward; forward a1 = 2,
    // a2 = 4 taken, a3 = 1 stops: 8 seeds. The board is then 0,0,1,0 /
    // 2,2,1,0: every hole at most 2, the game ends.
    let s = met("chain-forward", &["a4"]);
    let e = s.effect.unwrap();
    assert_eq!(e.captures(), [Hole::B4, Hole::A1, Hole::A2]);
    assert_eq!(e.seeds_captured, 8);
    // Swept: A 31 + 8 + 1 (a3) = 40; B 3 + 5 = 8.
    assert_eq!(s.outcome.unwrap().seeds, [40, 8]);
    // a2 (4) → a3, a4, b1, b2: b2 = 2 and b1 = 2 backward; b3 = 0 stops.
    assert_eq!(
        missed("chain-forward", &["a2"]),
        Miss::NoForwardChainIntoOwn { captured: 4 }
    );
    // a1 (2) → a2, a3 = 2, his own.
    assert_eq!(
        missed("chain-forward", &["a1"]),
        Miss::NoCapture {
            landed: Hole::A3,
            seeds: 2,
            own: true
        }
    );
}

#[test]
fn whole_board_lesson() {
    // a2 (3) → a3 = 2, a4 = 4, b1 = 4; then b2 = 2, b3 = 4, b4 = 2, a1 = 4
    // forward, a4, a3 backward: 22, every seed on the board.
    let s = met("whole-board", &["a2"]);
    assert_eq!(s.effect.unwrap().seeds_captured, 22);
    assert_eq!(s.outcome.unwrap().seeds, [45, 3]);
    // a4 (3) → b1 = 4, b2 = 3, b3 = 5.
    assert_eq!(
        missed("whole-board", &["a4"]),
        Miss::NoCapture {
            landed: Hole::B3,
            seeds: 5,
            own: false
        }
    );
    // a3 (1) → a4 = 4, his own.
    assert_eq!(
        missed("whole-board", &["a3"]),
        Miss::NoCapture {
            landed: Hole::A4,
            seeds: 4,
            own: true
        }
    );
}

#[test]
fn end_sweep_lesson() {
    // a2 (3) → a3 = 1, a4 = 2, b1 = 1: 2,0,1,2 / 1,2,1,2, the end; A sweeps
    // 5 (34 + 5 = 39), B sweeps 6 (3 + 6 = 9).
    let s = met("end-sweep", &["a2"]);
    let o = s.outcome.unwrap();
    assert_eq!(o.seeds, [39, 9]);
    assert_eq!(s.position.seeds_on_board(), 0);
    // a1 (2) → a2 = 4, a3 = 1; a4 (1) → b1 = 1, a2 keeps 3.
    assert_eq!(
        missed("end-sweep", &["a1"]),
        Miss::NotEnded {
            hole: Hole::A2,
            seeds: 4
        }
    );
    assert_eq!(
        missed("end-sweep", &["a4"]),
        Miss::NotEnded {
            hole: Hole::A2,
            seeds: 3
        }
    );
}

#[test]
fn pass_lesson() {
    // B then sows b4 (5) → a1, a2, a3, a4, b1.
    let s = met("pass", &["pass"]);
    assert_eq!(s.replies, acts(&["b4"]));
    assert_eq!(s.position.to_string(), "1,1,1,1/1,0,3,0 AAAA/BBBB 37-3 A -");
    assert_eq!(
        illegal("pass", &["a1"]),
        (0, IllegalAction::EmptyHole(Hole::A1))
    );
    // B has 3 captured seeds: he cannot pay 6.
    assert_eq!(
        illegal("pass", &["offer:a1"]),
        (
            0,
            IllegalAction::CannotPay {
                price: 6,
                captured: 3
            }
        )
    );
}

#[test]
fn offer_lesson() {
    // B accepts (a4 his, 6 of his 12 seeds in it), then sows b2 (2) → b3, b4.
    let s = met("offer", &["offer:a4"]);
    assert_eq!(s.replies, acts(&["accept", "b2"]));
    assert_eq!(s.position.to_string(), "2,3,1,6/3,0,5,2 AAAB/BBBB 20-6 A -");
    assert_eq!(
        missed("offer", &["a1"]),
        Miss::WrongKind {
            expected: Kind::Offer,
            played: Kind::Sow
        }
    );
    // Three holes cost 18; B has 12.
    assert_eq!(
        illegal("offer", &["offer:a1,a2,a3"]),
        (
            0,
            IllegalAction::CannotPay {
                price: 18,
                captured: 12
            }
        )
    );
}

#[test]
fn accept_lesson() {
    let s = met("accept", &["accept"]);
    assert_eq!(s.position.to_string(), "1,2,3,0/2,6,4,1 AAAA/BABB 6-23 A -");
    assert_eq!(
        missed("accept", &["decline"]),
        Miss::WrongKind {
            expected: Kind::Accept,
            played: Kind::Decline
        }
    );
    assert_eq!(illegal("accept", &["a3"]), (0, IllegalAction::OfferPending));
}

#[test]
fn decline_lesson() {
    match run("decline", &["decline"]) {
        Outcome::Continue(s) => {
            assert_eq!(
                s.position.to_string(),
                "0,0,3,0/0,0,2,1 AAAA/BBBB 30-12 A -"
            )
        }
        o => panic!("{o:?}"),
    }
    // a3 (3) → a4, b1, b2 = 1 each: every hole at most 2. A: 30 + 1; B:
    // 12 + 1 + 1 + 2 + 1. A wins, having declined: without glory.
    let o = met("decline", &["decline", "a3"]).outcome.unwrap();
    assert_eq!(o.seeds, [31, 17]);
    assert!(o.without_glory());
    assert_eq!(
        missed("decline", &["accept"]),
        Miss::WrongKind {
            expected: Kind::Decline,
            played: Kind::Accept
        }
    );
    // An offer instead of the sowing: the game goes on (a3 holds 3).
    assert_eq!(
        missed("decline", &["decline", "offer:a3"]),
        Miss::NotEnded {
            hole: Hole::A3,
            seeds: 3
        }
    );
    assert_eq!(
        illegal("decline", &["decline", "a1"]),
        (1, IllegalAction::EmptyHole(Hole::A1))
    );
    assert_eq!(
        run("decline", &["decline", "a3", "a1"]),
        Outcome::TooMany { decided: 2 }
    );
}

#[test]
fn no_action_leaves_the_lesson_open_and_extra_actions_are_refused() {
    for l in lessons::all() {
        match check(l, &[]) {
            Outcome::Continue(s) => {
                assert_eq!(s.position, l.position());
                assert!(s.replies.is_empty() && s.effect.is_none());
            }
            o => panic!("{}: {o:?}", l.id),
        }
    }
    assert_eq!(run("sow", &["a3", "b1"]), Outcome::TooMany { decided: 1 });
    // A miss decides the lesson too.
    assert_eq!(run("sow", &["a1", "b1"]), Outcome::TooMany { decided: 1 });
}

#[test]
fn goal_kinds_are_distinct() {
    let kinds: Vec<&str> = lessons::all().iter().map(|l| l.goal.kind()).collect();
    let mut sorted = kinds.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), 10);
    assert_eq!(lessons::find("sow").unwrap().goal, Goal::LandIn(Hole::B2));
    assert!(lessons::find("nope").is_none());
}
