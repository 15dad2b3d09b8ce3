//! Time management: what one decision may spend when the game is played on
//! a clock. A pure function of the side's remaining time and increment,
//! the game's ply, the kind of decision and the level; it never reads a
//! clock, so the engine protocol (`go atime …`), `gore match --tc` and the
//! server's timed games all spend time by the same policy, and tests give
//! the time as numbers.
//!
//! ```
//! use std::time::Duration;
//! use gore_ai::clock;
//! use gore_ai::Level;
//!
//! let ms = Duration::from_millis;
//! // 10 s left, 100 ms increment, at the start: 10000/30 + 75 ≈ 408 ms.
//! let b = clock::budget(ms(10_000), ms(100), 0, false);
//! assert_eq!(b, ms(408));
//! // An answer to an offer is a quick decision: a quarter of that.
//! assert_eq!(clock::budget(ms(10_000), ms(100), 0, true), ms(102));
//! // The levels below the top keep their depth cap, with the budget as
//! // a bound.
//! let l = clock::limits(Level::MIN, ms(10_000), ms(100), 0, false);
//! assert_eq!(l.time, Some(ms(408)));
//! assert!(l.depth.is_some());
//! ```

use std::time::Duration;

use gore_core::Game;

use crate::{Level, Limits};

/// Decisions still to come for the side to move at the start of a game.
/// Games between engines last some 60–120 plies (docs/STRENGTH.md), so
/// each side makes 30–60 decisions, many of them cheap (a single legal
/// action, an obvious capture); planning for 30 spreads the time over the
/// part of the game where decisions matter.
pub const MOVES_TO_GO_START: u32 = 30;

/// The fewest decisions ever planned for. Late in a game fewer decisions
/// usually remain, but a game can be dragged on to the ply cap (300) or by
/// a starved side passing: keeping a twentieth of the time for each
/// decision never spends the clock on a few moves.
pub const MOVES_TO_GO_MIN: u32 = 20;

/// Plies over which the planned decisions go from
/// [`MOVES_TO_GO_START`] down to [`MOVES_TO_GO_MIN`]: by ply 80 a typical
/// game is past its middle.
pub const MOVES_TO_GO_PLIES: u32 = 80;

/// The share of the increment spent on each decision: three quarters, so
/// that the clock grows a little with every decision when the increment is
/// the main source of time.
pub const INCREMENT_SHARE: (u32, u32) = (3, 4);

/// Answers to offers are quick decisions (accept or decline: two choices,
/// and the search behind them is the same as for the offer): they get this
/// fraction of a sowing's budget.
pub const ANSWER_DIVISOR: u32 = 4;

/// The least a decision is given when the clock allows it: about 10,000
/// nodes at the search's speed (about a million nodes a second), a few
/// plies, enough not to blunder a capture.
pub const FLOOR: Duration = Duration::from_millis(10);

/// The margin kept from the remaining time: the budget is never more than
/// half of it, so that reading the command, answering and the
/// operating system's delays (a few milliseconds) never flag a side, and
/// half the clock stays for the rest of the game. With at least
/// `2 × MARGIN` left, the budget is at most the remaining time minus
/// `MARGIN`.
pub const MARGIN: Duration = Duration::from_millis(25);

/// The least remaining time at which the top level keeps its depth floor
/// ([`crate::TOP_FLOOR`] plies, [`Level::cap`]) on the clock: a search of
/// that depth takes a few tenths of a second in the middle game on a
/// 2-core machine and seldom more than a few seconds
/// (docs/STRENGTH.md), so with a minute left the floor cannot flag the
/// side; with less, the budget alone decides.
pub const FLOOR_RESERVE: Duration = Duration::from_secs(60);

/// The decisions planned for at `ply`.
fn moves_to_go(ply: u32) -> u32 {
    let fall = (MOVES_TO_GO_START - MOVES_TO_GO_MIN) * ply.min(MOVES_TO_GO_PLIES);
    MOVES_TO_GO_START - fall / MOVES_TO_GO_PLIES
}

/// The soft time budget of one decision: `remaining / moves-to-go +
/// increment × 3/4` (a quarter of it for an answer to an offer), at
/// least [`FLOOR`], at most half the remaining time, and never zero.
///
/// `remaining` and `increment` are the clock of the side to move; `ply`
/// is the number of actions played so far in the game; `answer` says
/// whether the decision is an answer to an offer.
pub fn budget(remaining: Duration, increment: Duration, ply: u32, answer: bool) -> Duration {
    let (num, den) = INCREMENT_SHARE;
    let mut soft = remaining / moves_to_go(ply) + increment * num / den;
    if answer {
        soft /= ANSWER_DIVISOR;
    }
    let hard = remaining / 2;
    // Whole milliseconds: what the protocol and the logs show.
    let b = soft.max(FLOOR).min(hard);
    Duration::from_millis(b.as_millis().min(u64::MAX as u128) as u64).max(Duration::from_millis(1))
}

/// The limits of one decision of `level` on the clock: the [`budget`] as
/// the time, under the level's own depth cap (the levels below the top
/// stop at their depth, usually long before the budget). The top level
/// keeps its depth floor only with [`FLOOR_RESERVE`] left
/// (`min_depth: Some(0)`, no floor, below it).
pub fn limits(
    level: Level,
    remaining: Duration,
    increment: Duration,
    ply: u32,
    answer: bool,
) -> Limits {
    let mut limits = Limits::time(budget(remaining, increment, ply, answer));
    if remaining < FLOOR_RESERVE {
        limits.min_depth = Some(0);
    }
    level.cap(limits)
}

/// [`limits`] for the side to move in `game`: its ply and whether an
/// offer waits for an answer are read from the game.
pub fn limits_for(game: &Game, level: Level, remaining: Duration, increment: Duration) -> Limits {
    let ply = u32::try_from(game.actions().len()).unwrap_or(u32::MAX);
    let answer = game.position().pending_offer().is_some();
    limits(level, remaining, increment, ply, answer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn worked_examples() {
        // Hand arithmetic: 60 s at ply 0 plan 30 decisions: 2000 ms.
        assert_eq!(budget(ms(60_000), ms(0), 0, false), ms(2000));
        // At ply 40, halfway down from 30 to 20: 25 decisions, 2400 ms,
        // plus 3/4 of a 1 s increment.
        assert_eq!(budget(ms(60_000), ms(1000), 40, false), ms(3150));
        // From ply 80 on, 20 decisions.
        assert_eq!(budget(ms(60_000), ms(0), 200, false), ms(3000));
        // An answer: a quarter.
        assert_eq!(budget(ms(60_000), ms(0), 0, true), ms(500));
        // Little time: the floor, but never more than half the clock.
        assert_eq!(budget(ms(100), ms(0), 0, false), FLOOR);
        assert_eq!(budget(ms(12), ms(0), 0, false), ms(6));
        assert_eq!(budget(ms(0), ms(0), 0, false), ms(1));
        // A big increment with little left: half of what is left.
        assert_eq!(budget(ms(400), ms(10_000), 0, false), ms(200));
    }

    #[test]
    fn limits_keep_the_level_depth() {
        // A minute left: the top level keeps its floor of 13 plies.
        let top = limits(Level::MAX, ms(60_000), ms(0), 0, false);
        let floored = Limits {
            min_depth: Some(13),
            ..Limits::time(ms(2000))
        };
        assert_eq!(top, floored);
        for level in Level::all() {
            let l = limits(level, ms(60_000), ms(0), 0, false);
            assert_eq!(l.time, Some(ms(2000)), "level {level}");
            assert_eq!(l.depth, level.profile().depth, "level {level}");
            assert_eq!(l.nodes, None);
        }
    }

    #[test]
    fn the_floor_gives_way_when_the_clock_is_short() {
        // 59.999 s: under a minute, the budget alone decides, and the
        // engine's own cap cannot put the floor back.
        let short = limits(Level::MAX, ms(59_999), ms(0), 0, false);
        assert_eq!(short.min_depth, Some(0));
        assert_eq!(Level::MAX.cap(short), short);
        // 59999 / 30 = 1999 ms.
        assert_eq!(short.time, Some(ms(1999)));
        // The floor is the top level's alone.
        for level in Level::all().filter(|l| !l.is_max()) {
            let l = limits(level, ms(120_000), ms(0), 0, false);
            assert_eq!(l.min_depth, None, "level {level}");
        }
    }

    #[test]
    fn the_game_says_ply_and_answer() {
        use gore_core::{Action, Rules};
        let mut game = Game::new(Rules::STANDARD);
        assert_eq!(
            limits_for(&game, Level::MAX, ms(60_000), ms(0)).time,
            Some(ms(2000))
        );
        // After 8 plies: 30 - 10 × 8/80 = 29 decisions, 60000/29 = 2068 ms.
        for _ in 0..8 {
            let sow = game
                .legal_actions()
                .iter()
                .copied()
                .find(|a| matches!(a, Action::Sow(_)))
                .expect("a sowing");
            game.play(sow).expect("legal");
        }
        assert!(!game.is_over());
        assert_eq!(
            limits_for(&game, Level::MAX, ms(60_000), ms(0)).time,
            Some(ms(2068))
        );
    }

    proptest! {
        #[test]
        fn the_budget_is_positive_and_within_the_clock(
            rem in 0u64..10_000_000, inc in 0u64..1_000_000, ply in 0u32..2000, answer: bool
        ) {
            let b = budget(ms(rem), ms(inc), ply, answer);
            prop_assert!(b > Duration::ZERO);
            // Never more than half the clock, so never more than the
            // remaining time minus the margin when there is room for it.
            if rem >= 2 {
                prop_assert!(b <= ms(rem) / 2, "{b:?} of {rem}");
            }
            if ms(rem) >= 2 * MARGIN {
                prop_assert!(b <= ms(rem) - MARGIN, "{b:?} of {rem}");
            }
            // At least the floor when half the clock allows it.
            if ms(rem) / 2 >= FLOOR {
                prop_assert!(b >= FLOOR);
            }
        }

        #[test]
        fn the_budget_grows_with_the_time_and_the_increment(
            rem in 0u64..10_000_000, more in 0u64..1_000_000,
            inc in 0u64..1_000_000, more_inc in 0u64..1_000_000,
            ply in 0u32..2000, answer: bool
        ) {
            let b = budget(ms(rem), ms(inc), ply, answer);
            prop_assert!(budget(ms(rem + more), ms(inc), ply, answer) >= b);
            prop_assert!(budget(ms(rem), ms(inc + more_inc), ply, answer) >= b);
            // An answer never gets more than a sowing.
            prop_assert!(budget(ms(rem), ms(inc), ply, true) <= budget(ms(rem), ms(inc), ply, false));
        }
    }
}
