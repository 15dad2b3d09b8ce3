//! Ratings of rated games between accounts: Glicko-2 (Glickman, "Example
//! of the Glicko-2 system"), one rating per pace category, provisional
//! until [`PROVISIONAL_GAMES`] games. Pure: no clock, no storage; the
//! service stores what these functions return.
//!
//! The arithmetic is the `skillratings` crate's (a well-kept crate
//! implementing the paper's steps, used by many game servers); this module
//! decides what Goré makes of it: the categories, the start, the bounds of
//! the deviation, what counts as provisional. Each finished game is a rating
//! period of one game for each player, as lichess does, so that a rating
//! moves as soon as a game ends.
//!
//! ```
//! use gore_domain::rating::{Rating, Score};
//!
//! let (a, b) = (Rating::START, Rating::START);
//! let (a2, b2) = (a.after_game(&b, Score::Win), b.after_game(&a, Score::Loss));
//! assert!(a2.rating > a.rating && b2.rating < b.rating);
//! assert!(a2.is_provisional());
//! ```

use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use super::clock::TimeControl;
use skillratings::glicko2::{glicko2_rating_period, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

/// Games a player must have played in a category before his rating there
/// stops being provisional (shown with a `?`).
pub const PROVISIONAL_GAMES: u32 = 10;

/// The least deviation a rating keeps, so that an established player's
/// rating still moves (lichess keeps the same floor).
pub const MIN_DEVIATION: f64 = 45.0;

/// Glicko-2's τ, the constraint on the volatility's change: Glickman
/// suggests 0.3 to 1.2; 0.5 is his worked example's and the crate's.
pub const TAU: f64 = 0.5;

/// Decisions a player makes in a typical game: games between people and
/// between the levels that search last about 100 plies
/// (docs/STRENGTH.md), 50 for each side.
pub const DECISIONS_PER_SIDE: u32 = 50;

/// The expected clock time of one player in a game, under which a pace is
/// [`Pace::Fast`]: 8 minutes.
pub const FAST_UNDER: Duration = Duration::from_secs(8 * 60);

/// A pace category: each has its own rating and leaderboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pace {
    /// A player's expected clock time in a game under [`FAST_UNDER`].
    Fast,
    /// Longer clocks.
    Slow,
    /// Days per action.
    Correspondence,
}

impl TimeControl {
    /// The pace category: a Fischer clock is fast when a player's expected
    /// time in a game, `base + 50 × increment` ([`DECISIONS_PER_SIDE`]),
    /// is under 8 minutes.
    pub fn pace(&self) -> Pace {
        match *self {
            TimeControl::Correspondence { .. } => Pace::Correspondence,
            TimeControl::Fischer { base, increment } => {
                if base + increment * DECISIONS_PER_SIDE < FAST_UNDER {
                    Pace::Fast
                } else {
                    Pace::Slow
                }
            }
        }
    }
}

/// A game's result for one player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Score {
    /// He won.
    Win,
    /// Neither won.
    Draw,
    /// He lost.
    Loss,
}

impl Score {
    /// The same game seen from the opponent.
    pub fn reversed(self) -> Score {
        match self {
            Score::Win => Score::Loss,
            Score::Draw => Score::Draw,
            Score::Loss => Score::Win,
        }
    }

    fn outcome(self) -> Outcomes {
        match self {
            Score::Win => Outcomes::WIN,
            Score::Draw => Outcomes::DRAW,
            Score::Loss => Outcomes::LOSS,
        }
    }
}

/// One player's rating in one category.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// The rating (1500 at the start).
    pub rating: f64,
    /// Its deviation (350 at the start, never under [`MIN_DEVIATION`]).
    pub deviation: f64,
    /// Its volatility (0.06 at the start).
    pub volatility: f64,
    /// Rated games played in the category.
    pub games: u32,
}

impl Rating {
    /// A new player's rating: Glickman's start, 1500 ± 350, volatility 0.06.
    pub const START: Rating = Rating {
        rating: 1500.0,
        deviation: 350.0,
        volatility: 0.06,
        games: 0,
    };

    /// Whether the rating is still provisional: fewer than
    /// [`PROVISIONAL_GAMES`] games.
    pub fn is_provisional(&self) -> bool {
        self.games < PROVISIONAL_GAMES
    }

    /// The rating as players see it: rounded, with a `?` while provisional
    /// ("1500?", "1712").
    pub fn shown(&self) -> String {
        let r = self.rating.round() as i64;
        if self.is_provisional() {
            format!("{r}?")
        } else {
            r.to_string()
        }
    }

    /// The rating after a rating period with these games (opponent's
    /// rating before the period, result): Glickman's steps 1-8. No game:
    /// the deviation grows as the paper's step 6 says.
    pub fn after_period(&self, games: &[(Rating, Score)]) -> Rating {
        let results: Vec<(Glicko2Rating, Outcomes)> = games
            .iter()
            .map(|(o, s)| (o.glicko(), s.outcome()))
            .collect();
        let config = Glicko2Config {
            tau: TAU,
            ..Glicko2Config::new()
        };
        let next = glicko2_rating_period(&self.glicko(), &results, &config);
        Rating {
            rating: next.rating,
            deviation: next.deviation.clamp(MIN_DEVIATION, Rating::START.deviation),
            volatility: next.volatility,
            games: self.games + games.len() as u32,
        }
    }

    /// The rating after one game against `opponent` (his rating before the
    /// game): a rating period of one game.
    pub fn after_game(&self, opponent: &Rating, score: Score) -> Rating {
        self.after_period(&[(*opponent, score)])
    }

    fn glicko(&self) -> Glicko2Rating {
        Glicko2Rating {
            rating: self.rating,
            deviation: self.deviation,
            volatility: self.volatility,
        }
    }
}

impl Default for Rating {
    fn default() -> Rating {
        Rating::START
    }
}

/// How one game moved a player's rating: shown on the game's page once
/// the game is rated.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RatingChange {
    /// His rating after the game, as shown (`1662?`).
    pub after: String,
    /// The rounded rating after minus the rounded rating before (`162`,
    /// `-162`), so that the figures shown add up.
    pub change: i64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    fn rating(rating: f64, deviation: f64) -> Rating {
        Rating {
            rating,
            deviation,
            volatility: 0.06,
            games: 20,
        }
    }

    #[test]
    fn glickmans_worked_example() {
        // "Example of the Glicko-2 system", τ = 0.5: a 1500 ± 200 player
        // beats a 1400 ± 30 and loses to a 1550 ± 100 and a 1700 ± 300;
        // the paper finds 1464.06 ± 151.52, volatility 0.05999.
        let player = Rating {
            volatility: 0.06,
            ..rating(1500.0, 200.0)
        };
        let next = player.after_period(&[
            (rating(1400.0, 30.0), Score::Win),
            (rating(1550.0, 100.0), Score::Loss),
            (rating(1700.0, 300.0), Score::Loss),
        ]);
        assert!(close(next.rating, 1464.06, 0.01), "{next:?}");
        assert!(close(next.deviation, 151.52, 0.01), "{next:?}");
        assert!(close(next.volatility, 0.05999, 0.00001), "{next:?}");
        assert_eq!(next.games, 23);
    }

    #[test]
    fn hand_derived_first_games() {
        // The paper's steps 1-8 computed independently (a 40-line
        // reference in Python, kept out of the tree): two new players,
        // one game.
        let new = Rating::START;
        let win = new.after_game(&new, Score::Win);
        let loss = new.after_game(&new, Score::Loss);
        let draw = new.after_game(&new, Score::Draw);
        assert!(close(win.rating, 1662.31, 0.01), "{win:?}");
        assert!(close(loss.rating, 1337.69, 0.01), "{loss:?}");
        assert!(close(win.deviation, 290.32, 0.01), "{win:?}");
        assert!(close(draw.rating, 1500.0, 1e-9), "{draw:?}");
        // An established 1700 ± 60 beats a newcomer: he gains 4.47, the
        // newcomer loses 98.17 (his deviation is large, the other's small).
        let strong = rating(1700.0, 60.0);
        let s = strong.after_game(&new, Score::Win);
        let n = new.after_game(&strong, Score::Loss);
        assert!(close(s.rating, 1704.47, 0.01), "{s:?}");
        assert!(close(s.deviation, 60.54, 0.01), "{s:?}");
        assert!(close(n.rating, 1401.83, 0.01), "{n:?}");
        assert!(close(n.deviation, 266.74, 0.01), "{n:?}");
    }

    #[test]
    fn provisional_until_ten_games() {
        let mut r = Rating::START;
        for n in 0..PROVISIONAL_GAMES {
            assert!(r.is_provisional(), "after {n} games");
            assert!(r.shown().ends_with('?'));
            r = r.after_game(&Rating::START, Score::Draw);
        }
        assert_eq!(r.games, 10);
        assert!(!r.is_provisional());
        assert!(!r.shown().ends_with('?'));
        assert_eq!(Rating::START.shown(), "1500?");
    }

    #[test]
    fn the_paces_the_lobby_offers() {
        let fischer = |base: u64, inc: u64| TimeControl::Fischer {
            base: Duration::from_secs(base * 60),
            increment: Duration::from_secs(inc),
        };
        // base + 50 × increment: 3+2 → 4 min 40, 5+3 → 7 min 30 (fast);
        // 10+5 → 14 min 10, 15+10 → 23 min 20 (slow).
        assert_eq!(fischer(3, 2).pace(), Pace::Fast);
        assert_eq!(fischer(5, 3).pace(), Pace::Fast);
        assert_eq!(fischer(10, 5).pace(), Pace::Slow);
        assert_eq!(fischer(15, 10).pace(), Pace::Slow);
        // The edge: exactly 8 minutes is slow, a second less fast.
        let edge = TimeControl::Fischer {
            base: Duration::from_secs(8 * 60 - 50),
            increment: Duration::from_secs(1),
        };
        assert_eq!(edge.pace(), Pace::Slow);
        let under = TimeControl::Fischer {
            base: Duration::from_secs(8 * 60 - 51),
            increment: Duration::from_secs(1),
        };
        assert_eq!(under.pace(), Pace::Fast);
        assert_eq!(
            TimeControl::Correspondence { days: 3 }.pace(),
            Pace::Correspondence
        );
    }

    proptest! {
        #[test]
        fn a_win_raises_a_loss_lowers_and_both_grow_surer(
            r in 800.0f64..2600.0, d in 45.0f64..350.0,
            o in 800.0f64..2600.0, od in 45.0f64..350.0,
        ) {
            let (me, them) = (rating(r, d), rating(o, od));
            let win = me.after_game(&them, Score::Win);
            let loss = me.after_game(&them, Score::Loss);
            prop_assert!(win.rating > r, "{win:?}");
            prop_assert!(loss.rating < r, "{loss:?}");
            prop_assert!(win.rating > me.after_game(&them, Score::Draw).rating);
            for next in [win, loss] {
                prop_assert!(next.deviation >= MIN_DEVIATION);
                // A game makes the rating surer: never above the deviation
                // grown by the new volatility (the paper's step 6).
                let grown = (d * d + (173.7178 * next.volatility).powi(2)).sqrt();
                prop_assert!(next.deviation <= grown.max(MIN_DEVIATION) + 1e-9, "{next:?}");
                prop_assert_eq!(next.games, 21);
            }
            // Equal deviations: what one wins the other loses.
            let twin = rating(o, d);
            let gain = me.after_game(&twin, Score::Win).rating - r;
            let lost = o - twin.after_game(&me, Score::Loss).rating;
            prop_assert!((gain - lost).abs() < 1e-6, "{gain} {lost}");
        }
    }
}
