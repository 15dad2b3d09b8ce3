//! The review of a game: every action valued, the mistakes marked.
//!
//! Each position of the game is valued for its player to move, in
//! **expected final seeds** (what he ends the game with under best play
//! from there, captured seeds included; the two players' add up to the
//! game's seeds). The value of an action is the value, for its mover, of
//! the position it leads to; the **loss** of the action played is the
//! best action's value less the played one's. The class comes from the
//! loss ([`Class::of_loss`]):
//!
//! | loss (seeds) | class | mark |
//! |---|---|---|
//! | under 1 | good | |
//! | 1 or more | inaccuracy | `?!` |
//! | 2 or more | mistake | `?` |
//! | 4 or more | blunder | `??` |
//!
//! An action that was the only legal one (a pass with nothing else, or
//! the one sowing left) is **forced**: it loses nothing whatever it costs.
//! Answers to offers (`accept`, `decline`) have two choices and are
//! valued like any other action, and so are offers.
//!
//! The values come from the solved database when it holds the position
//! (`no-trades` rules without a ply cap, few enough seeds on the board:
//! exact, [`Source::Solved`]), else from [`gore_ai::Engine`] at a fixed
//! depth and node cap ([`Budget`]): the same record and budget always give
//! the same review, whatever the machine's speed. With the engine, the
//! best action and the position's value come from a search of the
//! position at the budget's depth, the played action's from a search of
//! the position it leads to one ply shallower; when that says the played
//! action is worth more than the root's best, it is the best (loss 0).

use std::sync::atomic::AtomicBool;

use gore_ai::{Engine, Limits, Options, SEED};
use gore_core::{Action, Game, Player, Position, Record, RecordError};
use gore_solver::disk::Database;

/// The fixed budget of a review's engine searches (never a time: the same
/// budget gives the same review everywhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Depth of the search of each position (plies); the played action's
    /// position is searched one ply shallower.
    pub depth: u32,
    /// Nodes each search may spend at most (the deepest iteration that
    /// completed within them counts).
    pub nodes: u64,
}

impl Budget {
    /// What the server and `gore review` use unless told otherwise: depth 8
    /// with at most 200 000 nodes per search, well under a second per
    /// action on one core.
    pub const DEFAULT: Budget = Budget {
        depth: 8,
        nodes: 200_000,
    };
}

impl Default for Budget {
    fn default() -> Self {
        Budget::DEFAULT
    }
}

/// Where a ply's values come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The engine's search at the review's budget.
    Engine,
    /// The solved database: exact, under the cycle rule's even split.
    Solved,
}

/// How bad an action was, by the expected seeds it lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// The only legal action.
    Forced,
    /// Lost less than [`Class::INACCURACY`] seeds.
    Good,
    /// Lost at least [`Class::INACCURACY`] seeds (`?!`).
    Inaccuracy,
    /// Lost at least [`Class::MISTAKE`] seeds (`?`).
    Mistake,
    /// Lost at least [`Class::BLUNDER`] seeds (`??`).
    Blunder,
}

impl Class {
    /// Seeds lost from which an action is an inaccuracy.
    pub const INACCURACY: f64 = 1.0;
    /// Seeds lost from which an action is a mistake.
    pub const MISTAKE: f64 = 2.0;
    /// Seeds lost from which an action is a blunder.
    pub const BLUNDER: f64 = 4.0;

    /// The class of an action, not forced, that lost `loss` seeds.
    ///
    /// ```
    /// use gore_learn::review::Class;
    /// assert_eq!(Class::of_loss(0.99), Class::Good);
    /// assert_eq!(Class::of_loss(1.0), Class::Inaccuracy);
    /// assert_eq!(Class::of_loss(3.5), Class::Mistake);
    /// assert_eq!(Class::of_loss(4.0), Class::Blunder);
    /// ```
    pub fn of_loss(loss: f64) -> Class {
        if loss >= Class::BLUNDER {
            Class::Blunder
        } else if loss >= Class::MISTAKE {
            Class::Mistake
        } else if loss >= Class::INACCURACY {
            Class::Inaccuracy
        } else {
            Class::Good
        }
    }

    /// The word for it: `forced`, `good`, `inaccuracy`, `mistake`, `blunder`.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Forced => "forced",
            Class::Good => "good",
            Class::Inaccuracy => "inaccuracy",
            Class::Mistake => "mistake",
            Class::Blunder => "blunder",
        }
    }

    /// The annotation mark: `?!`, `?`, `??`, or empty for the others.
    pub fn mark(self) -> &'static str {
        match self {
            Class::Inaccuracy => "?!",
            Class::Mistake => "?",
            Class::Blunder => "??",
            Class::Forced | Class::Good => "",
        }
    }
}

/// One action of the game, reviewed. Seeds are expected final seeds
/// (halves and hundredths come from the engine's averages and the solved
/// values' halves).
#[derive(Debug, Clone, PartialEq)]
pub struct ActionReview {
    /// Its number in the game, from 1.
    pub ply: usize,
    /// Who played it.
    pub mover: Player,
    /// The position it was played in.
    pub position: Position,
    /// The action played.
    pub action: Action,
    /// Expected final seeds of A and B before it, under best play.
    pub before: [f64; 2],
    /// The mover's expected final seeds after the action played.
    pub played: f64,
    /// The best action found (the played one when it was best).
    pub best: Action,
    /// The mover's expected final seeds after the best action.
    pub best_value: f64,
    /// Seeds lost: `best_value - played`, never below 0.
    pub loss: f64,
    /// Its class.
    pub class: Class,
    /// Where the values come from.
    pub source: Source,
}

impl ActionReview {
    /// Expected final seeds of A and B after the action played.
    pub fn after(&self) -> [f64; 2] {
        let total = self.before[0] + self.before[1];
        split(self.mover, self.played, total)
    }
}

/// A player's actions, summed up.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Summary {
    /// His actions in the game.
    pub actions: usize,
    /// Of them, the forced ones.
    pub forced: usize,
    /// Seeds lost per action, on average over his actions that were not
    /// forced (0 with none).
    pub average_loss: f64,
    /// His inaccuracies.
    pub inaccuracies: usize,
    /// His mistakes.
    pub mistakes: usize,
    /// His blunders.
    pub blunders: usize,
}

/// A reviewed game.
#[derive(Debug, Clone, PartialEq)]
pub struct Review {
    /// Each action, in order.
    pub actions: Vec<ActionReview>,
    /// Final seeds of A and B when the board ended the game (`None` for a
    /// game stopped before: a resignation, a record cut short).
    pub outcome: Option<[u8; 2]>,
    /// The seeds of the game (48, or 8N).
    pub total_seeds: u8,
    /// Summaries of A and B.
    pub summary: [Summary; 2],
    /// The engine budget used (where the database did not answer).
    pub budget: Budget,
}

/// Why a record cannot be reviewed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReviewError {
    /// The record does not replay (an illegal action, a wrong result).
    Record(RecordError),
    /// The stop flag was raised before the end.
    Stopped,
}

impl std::fmt::Display for ReviewError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReviewError::Record(e) => e.fmt(f),
            ReviewError::Stopped => f.write_str("the review was stopped before the end"),
        }
    }
}

impl std::error::Error for ReviewError {}

/// `[A, B]` when `mover` gets `mine` of `total`.
fn split(mover: Player, mine: f64, total: f64) -> [f64; 2] {
    match mover {
        Player::A => [mine, total - mine],
        Player::B => [total - mine, mine],
    }
}

/// Seeds of the mover from the engine's score (1/100 seed of difference).
fn seeds_of_score(score: i32, total: u8) -> f64 {
    (total as f64 + score as f64 / SEED as f64) / 2.0
}

/// The values of one ply: (best action, its value, value of the played
/// action), in mover's expected final seeds.
struct Ply {
    best: Action,
    best_value: f64,
    played: f64,
    source: Source,
}

/// Values of `action` in `game` and of the best action, from the solved
/// database, when it holds the position and the rules are its own.
fn solved_ply(db: &Database, game: &Game, action: Action) -> Option<Ply> {
    let rules = game.rules();
    if !rules.variant.no_trades || rules.ply_cap.is_some() {
        return None;
    }
    let pos = game.position();
    let probe = db.probe(pos).ok()?;
    let base = pos.captured(pos.to_move()) as f64;
    let value = |half: u8| base + half as f64 / 2.0;
    let played = probe.actions.iter().find(|(a, _)| *a == action)?.1.v;
    // The first of the best, in gore-core's order (the played one on a tie).
    let (mut best, mut best_v) = (action, played);
    for &(a, x) in &probe.actions {
        if x.v > best_v {
            (best, best_v) = (a, x.v);
        }
    }
    Some(Ply {
        best,
        best_value: value(best_v),
        played: value(played),
        source: Source::Solved,
    })
}

/// Values of `action` in `game` and of the best action by the engine.
fn engine_ply(
    engine: &mut Engine,
    game: &Game,
    action: Action,
    budget: Budget,
    stop: &AtomicBool,
) -> Option<Ply> {
    let total = game.position().variant().total_seeds();
    let me = game.position().to_move();
    let limits = Limits {
        depth: Some(budget.depth.max(2)),
        nodes: Some(budget.nodes),
        time: None,
        min_depth: Some(0),
    };
    // With one legal action the engine answers without searching (a static
    // evaluation): the position it leads to is searched instead.
    let forced = game.legal_actions().len() == 1;
    let root = if forced {
        None
    } else {
        Some(engine.search(game, &limits, stop, &mut |_| {})?)
    };
    let played_score = if let Some(root) = root.as_ref().filter(|r| r.best == action) {
        root.score
    } else {
        let mut next = game.clone();
        next.play(action).ok()?;
        match next.outcome() {
            Some(o) => (o.seeds[me.index()] as i32 - o.seeds[me.opponent().index()] as i32) * SEED,
            None => {
                let sub = Limits {
                    depth: Some(budget.depth.max(2) - 1),
                    ..limits
                };
                let r = engine.search(&next, &sub, stop, &mut |_| {})?;
                if next.position().to_move() == me {
                    r.score
                } else {
                    -r.score
                }
            }
        }
    };
    let (best, best_score) = match root {
        Some(root) if root.score >= played_score => (root.best, root.score),
        _ => (action, played_score),
    };
    Some(Ply {
        best,
        best_value: seeds_of_score(best_score, total),
        played: seeds_of_score(played_score, total),
        source: Source::Engine,
    })
}

/// Reviews the game of `record` (its start, its actions): each action
/// valued by `db` where it holds the position, else by the engine at
/// `budget`. The record must replay (its result included). `stop` ends the
/// review early ([`ReviewError::Stopped`]).
pub fn review(
    record: &Record,
    budget: Budget,
    db: Option<&Database>,
    stop: &AtomicBool,
) -> Result<Review, ReviewError> {
    let full = record.replay().map_err(ReviewError::Record)?;
    let start = record.start_position().map_err(ReviewError::Record)?;
    let mut game = Game::from_position(start, record.rules.ply_cap);
    let total = start.variant().total_seeds();
    // A fresh engine per review, its searches in a fixed order: the same
    // record gives the same values. Analysis asks for the value, not for
    // the AI's taste: no glory, no honour.
    let mut engine = Engine::new(Options {
        glory: 0,
        honourable: false,
        ..Options::default()
    });
    let mut actions = Vec::with_capacity(record.actions.len());
    for (i, &action) in record.actions.iter().enumerate() {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(ReviewError::Stopped);
        }
        let pos = *game.position();
        let mover = pos.to_move();
        let forced = game.legal_actions().len() == 1;
        let ply = db
            .and_then(|db| solved_ply(db, &game, action))
            .or_else(|| engine_ply(&mut engine, &game, action, budget, stop))
            .ok_or(ReviewError::Stopped)?;
        let loss = (ply.best_value - ply.played).max(0.0);
        let class = if forced {
            Class::Forced
        } else {
            Class::of_loss(loss)
        };
        actions.push(ActionReview {
            ply: i + 1,
            mover,
            position: pos,
            action,
            before: split(mover, ply.best_value, total as f64),
            played: ply.played,
            best: if forced { action } else { ply.best },
            best_value: if forced { ply.played } else { ply.best_value },
            loss: if forced { 0.0 } else { loss },
            class,
            source: ply.source,
        });
        // Legal: the record replayed.
        game.play(action).map_err(|error| {
            ReviewError::Record(RecordError {
                line: 0,
                kind: gore_core::RecordErrorKind::Illegal {
                    ply: i + 1,
                    action,
                    error,
                },
            })
        })?;
    }
    let summary = [Player::A, Player::B].map(|p| summarize(&actions, p));
    Ok(Review {
        actions,
        outcome: full.outcome().map(|o| o.seeds),
        total_seeds: total,
        summary,
        budget,
    })
}

fn summarize(actions: &[ActionReview], p: Player) -> Summary {
    let mut s = Summary::default();
    let mut lost = 0.0;
    for a in actions.iter().filter(|a| a.mover == p) {
        s.actions += 1;
        match a.class {
            Class::Forced => s.forced += 1,
            Class::Good => {}
            Class::Inaccuracy => s.inaccuracies += 1,
            Class::Mistake => s.mistakes += 1,
            Class::Blunder => s.blunders += 1,
        }
        lost += a.loss;
    }
    let counted = s.actions - s.forced;
    if counted > 0 {
        s.average_loss = lost / counted as f64;
    }
    s
}

/// Seeds with one decimal: `24.5`, `30.0`.
fn one(x: f64) -> String {
    format!("{:.1}", (x * 10.0).round() / 10.0)
}

/// The comment a review writes after an action (docs/NOTATION.md,
/// "Comments"): the expected final seeds `A-B` after it, then for a
/// marked action its mark, class, seeds lost and the best action with the
/// seeds after it; `forced` for a forced one.
///
/// `25.5-22.5`, `?? blunder -5.0 best b3 27.0-21.0`, `forced 24.0-24.0`.
pub fn comment(a: &ActionReview) -> String {
    let after = a.after();
    let pair = |x: [f64; 2]| format!("{}-{}", one(x[0]), one(x[1]));
    match a.class {
        Class::Forced => format!("forced {}", pair(after)),
        Class::Good => pair(after),
        c => {
            let total = after[0] + after[1];
            format!(
                "{} {} {} -{} best {} {}",
                pair(after),
                c.mark(),
                c.as_str(),
                one(a.loss),
                a.best,
                pair(split(a.mover, a.best_value, total))
            )
        }
    }
}

/// `record` with the review's comments on its actions (replacing any it
/// had) and a `Review` tag naming how the values were found.
pub fn annotate(record: &Record, review: &Review) -> Record {
    let mut r = record.clone();
    r.comments = review.actions.iter().map(|a| (a.ply, comment(a))).collect();
    let solved = review.actions.iter().any(|a| a.source == Source::Solved);
    let how = format!(
        "gore engine depth {} nodes {}{}; loss marks ?! >= 1, ? >= 2, ?? >= 4 seeds",
        review.budget.depth,
        review.budget.nodes,
        if solved { ", solved database" } else { "" }
    );
    r.extra.retain(|(k, _)| k != "Review");
    r.extra.push(("Review".to_string(), how));
    r
}
