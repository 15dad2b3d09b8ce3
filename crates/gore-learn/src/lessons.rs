//! The lessons of a guided first game: each a small position, a goal and a
//! known solution. [`check`] plays a learner's actions with the rules
//! library and judges the goal from what the actions did (their
//! [`Effect`]s and the game's [`GameOutcome`]); no rule is re-implemented
//! here.
//!
//! The learner is always the player to move at the lesson's start. The
//! opponent's moves, where a lesson needs them, are scripted
//! ([`Lesson::replies`]): they are played, in order, whenever the opponent
//! is to move after a learner action that met the goal or left it open.
//!
//! ```
//! use gore_learn::lessons::{self, Outcome};
//! let lesson = lessons::find("capture").unwrap();
//! // Sowing a4 drops its seed into b1, which then holds 4: captured.
//! assert!(matches!(lessons::check(lesson, &["a4".parse().unwrap()]), Outcome::Met(_)));
//! ```

use gore_core::{
    Action, Effect, Game, Hole, IllegalAction, Outcome as GameOutcome, Player, Position, Rules,
};

/// What a lesson asks of the learner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goal {
    /// Sow so that the last seed falls into this hole.
    LandIn(Hole),
    /// Capture at least this many seeds with one sowing.
    Capture(u8),
    /// Capture with a chain that runs backward from the landing hole.
    ChainBackward,
    /// Capture with a chain that runs forward from the landing hole into a
    /// hole the learner controls.
    ChainForwardOwn,
    /// Capture every seed on the board with one sowing.
    WholeBoard,
    /// End the game with a sowing after which every hole holds at most 2
    /// seeds (the sweep follows).
    EndGame,
    /// Pass (every hole the learner controls is empty).
    Pass,
    /// Offer one or more holes.
    Offer,
    /// Accept the pending offer and pay for it.
    Accept,
    /// Decline the pending offer, then win the game: a victory without
    /// glory. Two learner actions.
    DeclineWithoutGlory,
}

impl Goal {
    /// The goal's name in the API (`land_in`, `capture`, …).
    pub const fn kind(self) -> &'static str {
        match self {
            Goal::LandIn(_) => "land_in",
            Goal::Capture(_) => "capture",
            Goal::ChainBackward => "chain_backward",
            Goal::ChainForwardOwn => "chain_forward_own",
            Goal::WholeBoard => "whole_board",
            Goal::EndGame => "end_game",
            Goal::Pass => "pass",
            Goal::Offer => "offer",
            Goal::Accept => "accept",
            Goal::DeclineWithoutGlory => "decline_without_glory",
        }
    }

    /// How many actions the learner has to reach the goal.
    pub const fn moves(self) -> usize {
        match self {
            Goal::DeclineWithoutGlory => 2,
            _ => 1,
        }
    }
}

/// The kinds of action, for a goal that asks for one kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A sowing.
    Sow,
    /// A pass.
    Pass,
    /// An offer.
    Offer,
    /// Accepting an offer.
    Accept,
    /// Declining an offer.
    Decline,
}

impl Kind {
    /// The kind of an action.
    pub const fn of(action: Action) -> Kind {
        match action {
            Action::Sow(_) => Kind::Sow,
            Action::Pass => Kind::Pass,
            Action::Offer(_) => Kind::Offer,
            Action::Accept => Kind::Accept,
            Action::Decline => Kind::Decline,
        }
    }

    /// Its name in the API: `sow`, `pass`, `offer`, `accept`, `decline`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Sow => "sow",
            Kind::Pass => "pass",
            Kind::Offer => "offer",
            Kind::Accept => "accept",
            Kind::Decline => "decline",
        }
    }
}

/// Why a legal action missed the goal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Miss {
    /// The goal asks for another kind of action.
    WrongKind {
        /// What the goal asks for.
        expected: Kind,
        /// What was played.
        played: Kind,
    },
    /// The last seed fell elsewhere.
    LandedElsewhere {
        /// Where it fell.
        landed: Hole,
        /// Where it should have.
        goal: Hole,
    },
    /// The sowing captured nothing: its last seed fell into the learner's
    /// own hole, or into the opponent's, which then held neither 2 nor 4.
    NoCapture {
        /// Where the last seed fell.
        landed: Hole,
        /// What that hole held then.
        seeds: u8,
        /// Whether the learner controls it.
        own: bool,
    },
    /// The sowing captured, but fewer seeds than asked.
    TooFew {
        /// Seeds captured.
        captured: u8,
        /// The goal's least number.
        goal: u8,
    },
    /// The sowing captured, but no chain ran backward.
    NoBackwardChain {
        /// Seeds captured.
        captured: u8,
    },
    /// The sowing captured, but no chain ran forward into the learner's
    /// own holes.
    NoForwardChainIntoOwn {
        /// Seeds captured.
        captured: u8,
    },
    /// Seeds are left on the board.
    BoardLeft {
        /// Seeds captured.
        captured: u8,
        /// Seeds still on the board.
        left: u32,
    },
    /// The game goes on: this hole holds more than 2 seeds.
    NotEnded {
        /// The first such hole in board order.
        hole: Hole,
        /// Its seeds.
        seeds: u8,
    },
    /// The game ended, but the learner did not win.
    NotWon {
        /// Final seeds of A and B.
        seeds: [u8; 2],
    },
}

/// How far the learner's actions went when the goal was met or missed, or
/// when the lesson goes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The position after the learner's actions and the replies played.
    pub position: Position,
    /// The opponent's scripted replies played after the last learner action.
    pub replies: Vec<Action>,
    /// What the learner's last action did (none if no action was played).
    pub effect: Option<Effect>,
    /// The game's result, if it has ended.
    pub outcome: Option<GameOutcome>,
}

/// The judgment of a learner's actions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The goal is met.
    Met(Step),
    /// The goal is not met yet and the learner has actions left.
    Continue(Step),
    /// A legal action missed the goal.
    Missed(Step, Miss),
    /// The action at this index (from 0) broke a rule; nothing was played
    /// from it on.
    Illegal {
        /// Its index among the learner's actions.
        index: usize,
        /// The action.
        action: Action,
        /// The rule it broke.
        rule: IllegalAction,
    },
    /// More actions than the lesson takes: it was decided (met or missed)
    /// after `decided` of them.
    TooMany {
        /// How many actions decided the lesson.
        decided: usize,
    },
}

/// A lesson: a position, a goal, the opponent's scripted replies and a
/// known solution. Everything is in notation, read by the rules library
/// (the tests check that each lesson reads).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lesson {
    /// Its name in URLs and in the UI's text keys (`sow`, `capture`, …).
    pub id: &'static str,
    /// The rule set.
    pub rules: &'static str,
    /// The start position, GPN.
    pub start: &'static str,
    /// What the learner must do.
    pub goal: Goal,
    /// The opponent's scripted actions, in notation.
    pub replies: &'static [&'static str],
    /// A sequence of learner actions that meets the goal, in notation.
    pub solution: &'static [&'static str],
}

/// The lessons, in the order they are taught. (Board sums by hand in each
/// comment: the holes plus both captured totals make 48.)
pub const LESSONS: [Lesson; 10] = [
    // a3 (3 seeds) drops into a4, b1 and b2: the last one in b2 (4 → 5,
    // no capture). a1 ends in b1, a2 in a3.
    Lesson {
        id: "sow",
        rules: "standard",
        start: "4,1,3,0/2,4,3,3 AAAA/BBBB 25-3 A -",
        goal: Goal::LandIn(Hole::B2),
        replies: &[],
        solution: &["a3"],
    },
    // a4 makes b1 4: captured (a4, emptied, and b2 = 0 stop the chain).
    // a2 takes only b3 = 2; a3 ends in b2 = 1; a1 in its own a2.
    Lesson {
        id: "capture",
        rules: "standard",
        start: "1,5,3,1/3,0,1,3 AAAA/BBBB 28-3 A -",
        goal: Goal::Capture(4),
        replies: &[],
        solution: &["a4"],
    },
    // a4 (4 seeds) makes b1..b4 2, 4, 2, 2: b4 is taken, then b3, b2, b1
    // backward; a4 (emptied) stops it. a2 takes b1 alone (a4 = 5 stops).
    Lesson {
        id: "chain-backward",
        rules: "standard",
        start: "0,3,1,4/1,3,1,1 AAAA/BBBB 31-3 A -",
        goal: Goal::ChainBackward,
        replies: &[],
        solution: &["a4"],
    },
    // a4 (4) lands in b4 = 2; forward a1 = 2 and a2 = 4 are taken too
    // (a3 = 1 stops); backward b3 = 1 stops. a2 takes b2 and b1 backward.
    Lesson {
        id: "chain-forward",
        rules: "standard",
        start: "2,4,1,4/1,1,0,1 AAAA/BBBB 31-3 A -",
        goal: Goal::ChainForwardOwn,
        replies: &[],
        solution: &["a4"],
    },
    // RULES.md's third example with the rows swapped: a2 (3) makes every
    // hole with seeds 2 or 4 and takes them all (22 seeds).
    Lesson {
        id: "whole-board",
        rules: "standard",
        start: "4,3,1,3/3,2,4,2 AAAA/BBBB 23-3 A -",
        goal: Goal::WholeBoard,
        replies: &[],
        solution: &["a2"],
    },
    // a2 (3) leaves 2,0,1,2/1,2,1,2: every hole at most 2, the game ends
    // and each side sweeps its own holes (A 34 + 5, B 3 + 6).
    Lesson {
        id: "end-sweep",
        rules: "standard",
        start: "2,3,0,1/0,2,1,2 AAAA/BBBB 34-3 A -",
        goal: Goal::EndGame,
        replies: &[],
        solution: &["a2"],
    },
    // A's holes are empty and B has too few captured seeds to pay for an
    // offer: A passes; B then sows b4 (5) into A's row.
    Lesson {
        id: "pass",
        rules: "standard",
        start: "0,0,0,0/0,0,3,5 AAAA/BBBB 37-3 A -",
        goal: Goal::Pass,
        replies: &["b4"],
        solution: &["pass"],
    },
    // B holds 12 captured seeds, enough to pay for two holes. A offers the
    // empty a4; B accepts (a4 becomes his, with 6 of his seeds) and sows b2.
    Lesson {
        id: "offer",
        rules: "standard",
        start: "2,3,1,0/3,2,4,1 AAAA/BBBB 20-12 A -",
        goal: Goal::Offer,
        replies: &["accept", "b2"],
        solution: &["offer:a4"],
    },
    // B offers b2; A accepts: b2 becomes A's and A drops 6 of his 12
    // captured seeds into it.
    Lesson {
        id: "accept",
        rules: "standard",
        start: "1,2,3,0/2,0,4,1 AAAA/BBBB 12-23 A b2",
        goal: Goal::Accept,
        replies: &[],
        solution: &["accept"],
    },
    // B offers b2; A declines, then sows a3 (3): 0,0,0,1/1,1,2,1, every
    // hole at most 2, the game ends 31-17 for A, without glory.
    Lesson {
        id: "decline",
        rules: "standard",
        start: "0,0,3,0/0,0,2,1 AAAA/BBBB 30-12 A b2",
        goal: Goal::DeclineWithoutGlory,
        replies: &[],
        solution: &["decline", "a3"],
    },
];

/// Every lesson, in order.
pub fn all() -> &'static [Lesson] {
    &LESSONS
}

/// The lesson with this id.
pub fn find(id: &str) -> Option<&'static Lesson> {
    LESSONS.iter().find(|l| l.id == id)
}

impl Lesson {
    /// The rule set, read.
    ///
    /// # Panics
    /// Never for the lessons of [`LESSONS`] (the tests read each one).
    pub fn rules(&self) -> Rules {
        self.rules.parse().expect("a lesson's rule set reads")
    }

    /// The start position, read and checked.
    ///
    /// # Panics
    /// Never for the lessons of [`LESSONS`] (the tests read each one).
    pub fn position(&self) -> Position {
        Position::from_gpn(self.start, self.rules().variant).expect("a lesson's start is valid")
    }

    /// The learner: the player to move at the start.
    pub fn learner(&self) -> Player {
        self.position().to_move()
    }

    /// The known solution, read.
    ///
    /// # Panics
    /// Never for the lessons of [`LESSONS`] (the tests read each one).
    pub fn solution(&self) -> Vec<Action> {
        read_actions(self.solution)
    }

    /// The opponent's scripted replies, read.
    ///
    /// # Panics
    /// Never for the lessons of [`LESSONS`] (the tests read each one).
    pub fn replies(&self) -> Vec<Action> {
        read_actions(self.replies)
    }
}

fn read_actions(tokens: &[&str]) -> Vec<Action> {
    tokens
        .iter()
        .map(|t| t.parse().expect("a lesson's action reads"))
        .collect()
}

/// What one learner action means for the goal.
enum Judged {
    Met,
    Open,
    Missed(Miss),
}

/// Plays the learner's `actions` from the lesson's start, with the
/// opponent's scripted replies in between, and judges the goal after each.
pub fn check(lesson: &Lesson, actions: &[Action]) -> Outcome {
    let start = lesson.position();
    let learner = start.to_move();
    let mut game = Game::from_position(start, lesson.rules().ply_cap);
    let mut replies = lesson.replies().into_iter();
    let mut step = Step {
        position: start,
        replies: Vec::new(),
        effect: None,
        outcome: None,
    };
    let moves = lesson.goal.moves();
    for (index, &action) in actions.iter().enumerate() {
        if index >= moves {
            return Outcome::TooMany { decided: moves };
        }
        let before = *game.position();
        let played = match game.play(action) {
            Ok(p) => p,
            Err(rule) => {
                return Outcome::Illegal {
                    index,
                    action,
                    rule,
                }
            }
        };
        step.effect = Some(played.effect);
        step.outcome = game.outcome().copied();
        step.replies.clear();
        let judged = judge(
            lesson.goal,
            index + 1 == moves,
            learner,
            &before,
            action,
            &played.effect,
            &game,
        );
        if let Judged::Missed(miss) = judged {
            step.position = *game.position();
            if index + 1 < actions.len() {
                return Outcome::TooMany { decided: index + 1 };
            }
            return Outcome::Missed(step, miss);
        }
        // The opponent's turn, scripted; a reply the position refuses (a
        // lesson's mistake, which the tests rule out) ends the script.
        while !game.is_over() && game.position().to_move() != learner {
            match replies.next() {
                Some(reply) if game.play(reply).is_ok() => step.replies.push(reply),
                _ => break,
            }
        }
        step.position = *game.position();
        step.outcome = game.outcome().copied();
        if let Judged::Met = judged {
            if index + 1 < actions.len() {
                return Outcome::TooMany { decided: index + 1 };
            }
            return Outcome::Met(step);
        }
    }
    Outcome::Continue(step)
}

/// Judges one learner action. `last` says whether it is the learner's
/// last action in the lesson (an open goal is then missed).
fn judge(
    goal: Goal,
    last: bool,
    learner: Player,
    before: &Position,
    action: Action,
    effect: &Effect,
    game: &Game,
) -> Judged {
    let kind = Kind::of(action);
    let wrong = |expected: Kind| {
        if kind == expected {
            None
        } else {
            Some(Judged::Missed(Miss::WrongKind {
                expected,
                played: kind,
            }))
        }
    };
    let after = game.position();
    match goal {
        Goal::Pass => wrong(Kind::Pass).unwrap_or(Judged::Met),
        Goal::Offer => wrong(Kind::Offer).unwrap_or(Judged::Met),
        Goal::Accept => wrong(Kind::Accept).unwrap_or(Judged::Met),
        Goal::DeclineWithoutGlory => {
            if before.pending_offer().is_some() {
                // The first action: the answer.
                return wrong(Kind::Decline).unwrap_or(Judged::Open);
            }
            match game.outcome() {
                Some(o) if o.winner() == Some(learner) && o.without_glory() => Judged::Met,
                Some(o) => Judged::Missed(Miss::NotWon { seeds: o.seeds }),
                None if last => Judged::Missed(not_ended(after)),
                None => Judged::Open,
            }
        }
        _ => {
            if let Some(w) = wrong(Kind::Sow) {
                return w;
            }
            let Some(landed) = effect.sowing.and_then(|s| s.last()) else {
                return Judged::Missed(Miss::WrongKind {
                    expected: Kind::Sow,
                    played: kind,
                });
            };
            let captured = effect.seeds_captured;
            let no_capture = || {
                // What the landing hole held right after the sowing: the
                // position before any sweep (the game's own is swept when
                // the sowing ended it).
                let sown = before.play(action).map_or(0, |p| p.seeds(landed));
                Judged::Missed(Miss::NoCapture {
                    landed,
                    seeds: sown,
                    own: before.controller(landed) == learner,
                })
            };
            match goal {
                Goal::LandIn(hole) if landed == hole => Judged::Met,
                Goal::LandIn(hole) => Judged::Missed(Miss::LandedElsewhere { landed, goal: hole }),
                Goal::EndGame => match game.outcome() {
                    Some(_) => Judged::Met,
                    None => Judged::Missed(not_ended(after)),
                },
                _ if captured == 0 => no_capture(),
                Goal::Capture(n) if captured >= n => Judged::Met,
                Goal::Capture(n) => Judged::Missed(Miss::TooFew { captured, goal: n }),
                Goal::ChainBackward if effect.captured.contains(landed.prev()) => Judged::Met,
                Goal::ChainBackward => Judged::Missed(Miss::NoBackwardChain { captured }),
                Goal::ChainForwardOwn => {
                    // The forward run from the landing hole, as the rules
                    // took it; does it reach a hole the learner controls?
                    let mut at = landed.next();
                    let mut into_own = false;
                    while at != landed && effect.captured.contains(at) {
                        into_own |= before.controller(at) == learner;
                        at = at.next();
                    }
                    if into_own {
                        Judged::Met
                    } else {
                        Judged::Missed(Miss::NoForwardChainIntoOwn { captured })
                    }
                }
                // (Compared with the board before: the game's position is
                // swept, hence empty, whenever the sowing ended the game.)
                Goal::WholeBoard if u32::from(captured) == before.seeds_on_board() => Judged::Met,
                Goal::WholeBoard => Judged::Missed(Miss::BoardLeft {
                    captured,
                    left: before.seeds_on_board() - u32::from(captured),
                }),
                // The other goals were judged above.
                _ => Judged::Open,
            }
        }
    }
}

/// The first hole (board order) holding more than 2 seeds.
fn not_ended(p: &Position) -> Miss {
    let hole = Hole::ALL
        .into_iter()
        .find(|&h| p.seeds(h) > 2)
        .unwrap_or(Hole::A1);
    Miss::NotEnded {
        hole,
        seeds: p.seeds(hole),
    }
}
