//! Trade decisions the engine got wrong, as regression tests.
//!
//! Each case is a decision of level 8 (`nodes=20000`, glory 0) in a game
//! against level 6 that lost 3 or more seeds by a deep re-search with the
//! game's history (200,000 nodes for the position and for each action's
//! position: `examples/trade_errors.rs`, docs/STRENGTH.md "Trades"). The
//! actions listed as good are those whose deep value is within 1 seed of
//! the best action's (the values are in the comments). The engine at
//! 20,000 nodes, searching with the game's history, must now choose one
//! of them. (Before the fix, an answer cost a ply of depth: it played the
//! errors again.)

use std::sync::atomic::AtomicBool;

use gore_ai::{Engine, Limits, Options};
use gore_core::{Action, Game, Rules};

struct Case {
    kind: &'static str,
    /// The game from the start, up to the decision.
    actions: &'static str,
    /// The actions within 1 seed of the deep best.
    good: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        kind: "sowing",
        // deep values: b1=-9.25 b2=-2.25 b3=-6.00
        actions: "a2 b4 a2 b1 a4 b1 a1 b2 a4 b2 a3 b2 a1 b1 a3 b1 a2 b4 a1 b2 a1 b4 a1 b1 a3",
        good: &["b2"],
    },
    Case {
        kind: "offer",
        // deep values: b4=-17.25 offer:b3=-22.25 offer:b4=-17.75
        actions: concat!(
            "a2 b4 a2 b1 a4 b1 a1 b2 a4 b2 a3 b2 a1 b1 a3 b1 a2 b4 a1 b2 a1 b4 a1 b1 a3 ",
            "b1 a4 b4 a2 b4 a4 offer:b2 accept a2 b3 a4 b1 a1 offer:b1 decline offer:a1 ",
            "decline b4 offer:a1 decline b3 a1 offer:b1 decline offer:a1 decline b4 ",
            "offer:a4 decline offer:b1 decline offer:a4 accept offer:b1 accept a2 a4 ",
            "offer:a1 decline offer:a4 accept a2 b3 b2 b3 offer:b2 accept b4 a2 b2 a2 b4 ",
            "a4 b4 a4 pass b1 b2 a2 b3 a2 b4 a1 offer:b2 accept b2 b3 a2",
        ),
        good: &["b4", "offer:b4"],
    },
    Case {
        kind: "answer",
        // deep values: accept=-1.00 decline=-7.25
        actions: concat!(
            "a4 b3 a1 b4 a1 b4 a1 b2 a1 b2 a3 b4 a1 b3 a4 b2 a1 b1 a4 b2 a3 b1 a4 b1 a1 ",
            "b4 a1 b1 a3 b1 a2 b1 a1 b3 a1 b2 a4 b2 a4 b4 a4 b2 a1 b4 a1 b3 a1 b2 a4 b4 ",
            "a1 b3 offer:a2 accept b4 a3 offer:b4",
        ),
        good: &["accept"],
    },
    Case {
        kind: "answer",
        // deep values: accept=28.50 decline=23.00
        actions: concat!(
            "a2 b3 a2 b2 a2 b2 a3 b3 a4 offer:b3 accept b3 b1 a1 b2 b3 b4 a1 b4 a1 b2 b3 ",
            "b4 a1 b1 b3 b2 a4 b4 a2 offer:b4 accept a3 b2 a3 b1 b3 b2 a1 b1 b4 pass a1 ",
            "offer:b2 decline a2 offer:b2 decline a2 pass a1 offer:b2 decline a2 pass b4 ",
            "pass a3 pass a3 pass a2 pass a3 pass a1 pass b4 pass a3 pass a2 pass a3 pass ",
            "a1 pass a2 pass a4 b2 a2 offer:b1 decline offer:a1 accept offer:a1 accept ",
            "offer:b3 accept offer:b1 decline a1 offer:b1",
        ),
        good: &["accept"],
    },
    Case {
        kind: "offer",
        // deep values: a3=31.75 b2=32.00 offer:a3=28.75 offer:b1=32.00 offer:b2=27.25 offer:b3=33.50 offer:b4=26.50
        actions: concat!(
            "a2 b3 a2 b2 a1 b4 a1 b4 a1 b2 a2 b4 offer:a2 accept b1 a3 a2 a4 b1 a4 b1 a3 ",
            "b1 a4 b1 a1 a2 a3 b1 a1 b4 offer:a3 accept a2 a4 b3 a4 b3 a1 b1 a1 a3 a1 b3 ",
            "a4 b4 a1 b3 a4 b4 a1 a3 a4 a2 a1 offer:a2 accept a2 a3 pass b2 offer:a1,a4 ",
            "decline b1 a4",
        ),
        good: &["offer:b3"],
    },
    Case {
        kind: "offer",
        // deep values: b4=-34.50 offer:b3=-39.75 offer:b4=-34.25
        actions: concat!(
            "a4 b2 a4 b3 a2 b1 a2 b1 a3 b4 a2 b4 a1 b3 a4 b3 a1 b4 a1 b2 a4 b2 a1 b3 a1 ",
            "offer:b2 accept a2 b3 a4 b1 a1 b3 a2 b1 a1 b4 a1 b4 a1 b3 a1 b4 a1 b1 b2 b3 ",
            "a1 b4 b2 b3 a2 b3 a1 b4 b2 b3 a1 b4 a3 offer:b1 decline a4 offer:b1 accept ",
            "b2 b3 a1",
        ),
        good: &["b4", "offer:b4"],
    },
    Case {
        kind: "sowing",
        // deep values: b1=0.00 b2=-15.75 b3=-8.00 b4=-2.75 offer:b1=-8.00 offer:b2=-8.25 offer:b3=-12.00 offer:b4=-14.50
        actions: "a1 b4 a1 b1 a4 b1 a2 b4 a2 b2 a4 b3 a2",
        good: &["b1"],
    },
    Case {
        kind: "offer",
        // deep values: pass=-27.00 offer:a3=-29.25 offer:a4=-31.25
        actions: concat!(
            "a3 b4 a3 b1 a4 b3 a4 b1 a1 b3 a3 b1 a1 b2 a3 b3 a1 b1 a3 b1 a2 b1 a1 b3 a1 ",
            "b2 a4 b1 a1 b4 a4 b3 a4 b1 a1 b1 a4 b1 a3 b1 a1 b3 a1 b2 a2 b1 a2 b1 a1 b1 ",
            "a4 b4 a1 b1 a3 b4 a1 b1 a3 b3 a3 b3 a1 b4 a2 b1 a2 b2 a3 b1 a2 b3 a3 b1 a1 ",
            "b4 a3 b1 a2 offer:b1 accept offer:a2 accept b4 a1 b3 a1 b2 a1 b4 a1 b3 a3 b4 ",
            "b1 b2 a3 a2 a1 b4 a1 b3 b1 b2 offer:b1 accept b1 a1 b2 a3 offer:a2 decline ",
            "a4 b1 a3 offer:a2 accept a4 b1 offer:a1 accept b4 a4 b4 a2 b1 a4 b1 a3 b1 a4 ",
            "b1 a2 offer:b2 decline a3 offer:b1 accept b1 b4 a4 a1 a2 b4 a4 b3 b1 a1 a2 ",
            "b3 offer:b1 accept b1 a3 a1 a3 b1 a2 b3 a3 a1 a4 b1 a3 a1 offer:a2 accept b3 ",
            "a4 a2 a4 b3 a3 b1 a4 b3 pass b2",
        ),
        good: &["pass"],
    },
    Case {
        kind: "offer",
        // deep values: b1=-18.00 offer:b1=-26.75 offer:b3=-22.25
        actions: concat!(
            "a3 b4 a3 b1 a4 b3 a4 b1 a1 b3 a3 b4 a1 b4 a2 b2 a3 b1 a3 b1 a1 b1 a1 b4 a4 ",
            "b1 a4 b2 a1 b1 a4 b1 a3 b1 a2 b1 a3 b2 a4 b2 a3 b1 a1 b4 a2 b4 a1 b2 a1 b1 ",
            "a4 b4 a2 b1 a1 b2 a2 offer:b4 accept a4 b1 b4 b1 a2 b3 a1 b3 b4 b2 b4 b1 a4 ",
            "b2 a3 b3 a2 offer:b2 accept a2 b1 a4 b3 a2",
        ),
        good: &["b1"],
    },
    Case {
        kind: "offer",
        // deep values: a1=-16.75 offer:a1=-26.25 offer:a4=-27.25
        actions: concat!(
            "a3 b2 a3 b1 a1 b2 a3 b3 a1 b3 a2 b2 a3 b2 a2 b3 a3 b4 a1 b4 a1 b1 a2 b4 a3 ",
            "b4 a1 b3 a2 b4 offer:a2 accept a2 a3 b4 a1 a2 a4 b3 a3 b4 a3 b3 a4 b3 ",
            "offer:a3 accept b4 a1 b1 a4 b1 pass a3 a1 a3 pass a2",
        ),
        good: &["a1"],
    },
    Case {
        kind: "answer",
        // deep values: accept=18.25 decline=15.75
        actions: concat!(
            "a2 b1 a1 b1 a4 b4 a1 b1 a2 b1 a3 b1 a2 offer:b4 accept a1 b2 a4 b1 a1 b3 a1 ",
            "b1 a3 b3 a1 b2 a3 b3 a4 offer:b2",
        ),
        good: &["accept"],
    },
    Case {
        kind: "sowing",
        // deep values: a1=14.00 a2=20.75 b1=23.50 b2=28.25 b3=21.75 b4=14.00
        actions: concat!(
            "a2 b2 a2 b3 a1 b4 a1 b4 a1 b2 a2 b4 offer:a2 accept b1 a3 a2 a4 b2 a4 b3 a3 ",
            "b3 a4 b4 a1 b1 a1 b4 a1 b1 offer:a1 accept a2 a4 b4 a3 a1 a3",
        ),
        good: &["b2"],
    },
    Case {
        kind: "sowing",
        // deep values: a1=8.25 a2=22.75 a3=19.25 a4=17.50 b1=18.50
        actions: concat!(
            "a4 b4 a4 b3 a4 b4 a3 b4 a1 b3 a3 b4 a2 b2 a1 b2 a4 b2 a4 b4 a1 offer:b2 ",
            "accept a3 b4 a3 b3 b2 b3 a4 b3 a3 b1 a1 b1 b2 b4 b2 b1 b2 offer:b1 accept",
        ),
        good: &["a2"],
    },
];

#[test]
fn confirmed_trade_errors_are_no_longer_made() {
    let rules: Rules = "ply-cap=300".parse().expect("rules");
    let mut failures = Vec::new();
    for c in CASES {
        let mut game = Game::new(rules);
        for t in c.actions.split_whitespace() {
            let a: Action = t.parse().expect("an action");
            game.play(a).expect("a legal action");
        }
        let mut engine = Engine::new(Options {
            glory: 0,
            ..Options::default()
        });
        let r = engine
            .search(
                &game,
                &Limits::nodes(20_000),
                &AtomicBool::new(false),
                &mut |_| {},
            )
            .expect("a live game");
        if !c.good.contains(&r.best.to_string().as_str()) {
            failures.push(format!(
                "{} at {}: played {}, good {:?}",
                c.kind,
                game.position(),
                r.best,
                c.good
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
