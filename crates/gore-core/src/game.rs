//! A game: a start position, the actions played, repetition, the ply cap,
//! declined offers and the result.

use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;

use crate::action::Action;
use crate::effect::Effect;
use crate::error::{IllegalAction, ParseEndReasonError};
use crate::position::Position;
use crate::rules::Rules;
use crate::types::Player;

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// After a sowing, every hole held at most 2 seeds.
    Board,
    /// After an accepted offer, the offerer controlled no hole (only
    /// possible under `cede-all`).
    NoHole,
    /// The same position occurred for the third time.
    Repetition,
    /// The `ply-cap` option's number of actions was reached.
    PlyCap,
}

impl EndReason {
    /// Every reason, in the order of RULES.md.
    pub const ALL: [EndReason; 4] = [
        EndReason::Board,
        EndReason::NoHole,
        EndReason::Repetition,
        EndReason::PlyCap,
    ];

    /// The word used in records: `board`, `no-hole`, `repetition`, `ply-cap`.
    pub const fn as_str(self) -> &'static str {
        match self {
            EndReason::Board => "board",
            EndReason::NoHole => "no-hole",
            EndReason::Repetition => "repetition",
            EndReason::PlyCap => "ply-cap",
        }
    }
}

impl fmt::Display for EndReason {
    /// The word of [`EndReason::as_str`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for EndReason {
    type Err = ParseEndReasonError;

    /// Reads the word written by [`EndReason::as_str`].
    ///
    /// ```
    /// use gore_core::EndReason;
    /// assert_eq!("no-hole".parse(), Ok(EndReason::NoHole));
    /// assert!("Board".parse::<EndReason>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<EndReason, ParseEndReasonError> {
        EndReason::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or(ParseEndReasonError)
    }
}

/// What [`Game::play`] did: the action's [`Effect`] and, if it ended the
/// game, the outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Played {
    /// The holes sown and captured.
    pub effect: Effect,
    /// The result, if this action ended the game.
    pub outcome: Option<Outcome>,
}

/// The result of a finished game.
///
/// ```
/// use gore_core::{EndReason, Outcome, Player};
/// let o = Outcome { reason: EndReason::Board, seeds: [30, 18], declined: [true, false] };
/// assert_eq!(o.winner(), Some(Player::A));
/// assert!(o.without_glory());
/// assert_eq!(o.to_string(), "30-18 without glory");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// Why the game ended.
    pub reason: EndReason,
    /// Final seeds of A and B, after the sweep (they add up to the game's
    /// seeds: 48, or 8N under `seeds=N`).
    pub seeds: [u8; 2],
    /// Whether each player declined an offer during the game.
    pub declined: [bool; 2],
}

impl Outcome {
    /// The player with more seeds; `None` for a draw (24–24).
    pub fn winner(&self) -> Option<Player> {
        use core::cmp::Ordering::*;
        match self.seeds[0].cmp(&self.seeds[1]) {
            Greater => Some(Player::A),
            Less => Some(Player::B),
            Equal => None,
        }
    }

    /// "Victory without glory": the winner declined an offer at some point.
    pub fn without_glory(&self) -> bool {
        self.winner().is_some_and(|w| self.declined[w.index()])
    }
}

impl fmt::Display for Outcome {
    /// `30-18`, with ` without glory` when it applies.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.seeds[0], self.seeds[1])?;
        if self.without_glory() {
            f.write_str(" without glory")?;
        }
        Ok(())
    }
}

/// Why [`Game::from_history`] refused a stored history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryError {
    /// The step refused, from 1.
    pub ply: usize,
    /// What is wrong with it.
    pub why: &'static str,
}

impl core::fmt::Display for HistoryError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "ply {}: {}", self.ply, self.why)
    }
}

impl core::error::Error for HistoryError {}

/// A game in progress or finished: it owns the history, counts
/// repetitions, applies the ply cap, remembers declined offers and holds the
/// result. An illegal action returns the rule it breaks and changes nothing.
///
/// ```
/// use gore_core::{Action, Game, Hole, Rules};
/// let mut g = Game::new(Rules::STANDARD);
/// g.play(Action::Sow(Hole::A1)).unwrap();
/// assert!(g.play(Action::Sow(Hole::A2)).is_err()); // B to move
/// assert_eq!(g.actions().len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Game {
    ply_cap: Option<u32>,
    start: Position,
    position: Position,
    actions: Vec<Action>,
    /// Positions reached, the start first (before any sweep).
    history: Vec<Position>,
    declined: [bool; 2],
    outcome: Option<Outcome>,
}

impl Game {
    /// A new game from the start position of `rules`' variant.
    pub fn new(rules: Rules) -> Game {
        Game::from_position(Position::new(rules.variant), rules.ply_cap)
    }

    /// A game from any valid position, ending after `ply_cap` actions if
    /// one is given; repetition counts from here. A position already ended
    /// on the board gives a finished game.
    ///
    /// The variant is the position's own, fixed when it was validated;
    /// [`Game::rules`] reports it with the ply cap.
    pub fn from_position(start: Position, ply_cap: Option<u32>) -> Game {
        let mut g = Game {
            ply_cap,
            start,
            position: start,
            actions: Vec::new(),
            history: alloc::vec![start],
            declined: [false; 2],
            outcome: None,
        };
        if start.is_ended() {
            g.finish(Game::board_end(&start));
        }
        g
    }

    /// Why an ended position ended.
    fn board_end(position: &Position) -> EndReason {
        if position.player_without_hole().is_some() {
            EndReason::NoHole
        } else {
            EndReason::Board
        }
    }

    /// The rule set: the start position's variant and the ply cap.
    pub fn rules(&self) -> Rules {
        Rules {
            variant: self.start.variant(),
            ply_cap: self.ply_cap,
        }
    }

    /// Where the game started.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position (after the final sweep when the game is over).
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The actions played, in order.
    pub fn actions(&self) -> &[Action] {
        &self.actions
    }

    /// The result, once the game is over.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// Whether `player` has declined an offer in this game.
    pub fn has_declined(&self, player: Player) -> bool {
        self.declined[player.index()]
    }

    /// Every position reached, the start first, before any final sweep:
    /// what repetition counts (searches use it too).
    pub fn history(&self) -> &[Position] {
        &self.history
    }

    /// How many times the current position has occurred (1 the first time).
    pub fn repetitions(&self) -> usize {
        let now = self.history.last().unwrap_or(&self.start);
        self.history.iter().filter(|p| *p == now).count()
    }

    /// Rebuilds a game from what a store kept of it: its start, its ply cap
    /// and each action with the position it led to (before any final
    /// sweep), without sowing again. The steps are trusted to come from an
    /// earlier [`Game::play`] of this game; what is cheap to check is
    /// checked (every position has the start's variant, a game over takes
    /// no more actions), and the result,
    /// repetitions and declines are worked out as `play` works them out.
    ///
    /// ```
    /// use gore_core::{Action, Game, Hole, Rules};
    /// let mut g = Game::new(Rules::STANDARD);
    /// g.play(Action::Sow(Hole::A3)).unwrap();
    /// g.play(Action::Sow(Hole::B1)).unwrap();
    /// let steps = g.actions().iter().copied().zip(g.history()[1..].iter().copied());
    /// let again = Game::from_history(*g.start(), None, steps).unwrap();
    /// assert_eq!(again, g);
    /// ```
    pub fn from_history(
        start: Position,
        ply_cap: Option<u32>,
        steps: impl IntoIterator<Item = (Action, Position)>,
    ) -> Result<Game, HistoryError> {
        let mut g = Game::from_position(start, ply_cap);
        let mut steps = steps.into_iter().enumerate().peekable();
        while let Some((i, (action, next))) = steps.next() {
            let ply = i + 1;
            if g.outcome.is_some() {
                return Err(HistoryError {
                    ply,
                    why: "the game was already over",
                });
            }
            if next.variant() != start.variant() {
                return Err(HistoryError {
                    ply,
                    why: "the position has another variant",
                });
            }
            if action == Action::Decline {
                g.declined[g.position.to_move().index()] = true;
            }
            g.position = next;
            g.actions.push(action);
            g.history.push(next);
            if steps.peek().is_none() {
                g.conclude();
            } else if next.is_ended() {
                g.finish(Game::board_end(&next));
            } else if g
                .ply_cap
                .is_some_and(|cap| g.actions.len() as u64 >= cap as u64)
            {
                g.finish(EndReason::PlyCap);
            }
            // Repetition is counted for the last position only: play never
            // goes on after a third occurrence, and counting at every step
            // would make a long game's load quadratic.
        }
        Ok(g)
    }

    /// Ends the game if the last position calls for it.
    fn conclude(&mut self) {
        let next = self.position;
        if next.is_ended() {
            self.finish(Game::board_end(&next));
        } else if self.repetitions() >= 3 {
            self.finish(EndReason::Repetition);
        } else if self
            .ply_cap
            .is_some_and(|cap| self.actions.len() as u64 >= cap as u64)
        {
            self.finish(EndReason::PlyCap);
        }
    }

    /// The legal actions now: none once the game is over.
    pub fn legal_actions(&self) -> crate::ActionList {
        if self.is_over() {
            crate::ActionList::new()
        } else {
            self.position.legal_actions()
        }
    }

    /// Plays an action. On error nothing changes. Returns what it did (the
    /// holes sown and captured) and the outcome if it ended the game.
    pub fn play(&mut self, action: Action) -> Result<Played, IllegalAction> {
        if self.outcome.is_some() {
            return Err(IllegalAction::GameOver);
        }
        let (next, effect) = self.position.play_effect(action)?;
        if action == Action::Decline {
            self.declined[self.position.to_move().index()] = true;
        }
        self.position = next;
        self.actions.push(action);
        self.history.push(next);
        self.conclude();
        Ok(Played {
            effect,
            outcome: self.outcome,
        })
    }

    fn finish(&mut self, reason: EndReason) {
        self.position = self.position.swept();
        self.outcome = Some(Outcome {
            reason,
            seeds: [
                self.position.captured(Player::A),
                self.position.captured(Player::B),
            ],
            declined: self.declined,
        });
    }
}
