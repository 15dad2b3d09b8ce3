//! The perfect player for no-trade games: an action that keeps the
//! database's value V and makes progress, chosen with the game's history.
//!
//! # The policy
//! Let `T` be V of the position for the player to move (half seeds of the
//! `n` on the board). The actions that keep V are those whose value by
//! the database is `T` (an exit: a capture scored `2c + 2m − V(x)` with the
//! opponent's V at the board left, or the end; an action inside the
//! layer: `2n − V(next)`); a move into a position's third occurrence is
//! scored by its sweep, as the real rule ends it.
//!
//! Keeping V is not enough: actions that keep V can go round a cycle
//! forever, and under the real rule the third occurrence then ends the
//! game with the sweep, which may hand a won game away. So the player
//! searches, with the history since the last capture (positions before a
//! capture cannot occur again), for a **forced exit**: a strategy that,
//! whatever the opponent does, reaches within `d` of its own actions an
//! exit from the layer worth at least `T` (its own capture or end, the
//! opponent's capture or end valued by the database from its side, or a
//! third occurrence whose sweep gives it at least `T`), playing only
//! V-keeping actions. `d` grows from 1 (iterative deepening) until one is
//! found or a node budget is spent; it plays the first action of the
//! shortest, the exits worth most first.
//!
//! **Why this makes progress in won lines.** A position is *won* when
//! `T > n` (more than half the seeds). Then V = lo (the value when
//! never-ending play gives the mover nothing), so a forced exit worth `T`
//! exists that never repeats a position: the search finds one if its budget
//! reaches that far. After the opponent's reply V is at least `T` again
//! (he cannot raise his own share), and the shortest forced exit from
//! there is shorter by one, unless the opponent's mistake raised `T`,
//! which happens finitely often. So a won line leaves the layer within a
//! bounded number of actions and never ends by repetition against the
//! player. Where `T <= n` (a draw or a loss by V), cycling costs nothing by
//! V, and the player just keeps V (losing, the longest way: below).
//!
//! **What "won" means with bounds.** V counts never-ending play as an
//! even split; the real game has no never-ending play. Where LB = UB the
//! real value is V and this player reaches it (an exact position leaves
//! by exits into positions whose values the database gives; the tests
//! play it against gore-ai's strongest level from sampled exact
//! positions). Where LB < UB, V is the database's best guess, and keeping
//! it is what the player can do.
//!
//! When the search finds no forced exit within its budget, the player
//! keeps V anyway and, among those actions, prefers exits, then the
//! position seen least often in the history (so a cycle is left rather
//! than repeated).

use core::fmt;
use std::collections::HashMap;

use gore_core::{Action, Game, Hole, Player};

use crate::board::{board_of, Board};
use crate::index::rank;
use crate::moves::{is_ended, moves, Outcome};
use crate::probe::ProbeError;
use crate::values::{Lookup, Values};

/// The node budget of one decision by default: a fraction of a second.
pub const DEFAULT_BUDGET: u64 = 2_000_000;

/// The action chosen and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    /// The action to play.
    pub action: Action,
    /// The position's values for the player to move.
    pub values: Values,
    /// The action's value by the database (the player's half seeds of the
    /// `n`): V when it keeps V.
    pub score: u8,
    /// The forced exit found: within how many of the player's actions
    /// (this one included) the layer is left, or `None` if none was found
    /// within the budget.
    pub exit_within: Option<u32>,
}

/// A position within the layer's history: the board from its mover, and
/// whether that mover is the *opponent* of the player choosing.
type Key = (Board, bool);

/// One action of the player to move on a board, in solver terms.
#[derive(Clone, Copy)]
struct Step {
    hole: Option<u8>,
    outcome: Outcome,
    /// Its value by the database (a third occurrence by its sweep).
    score: i32,
}

struct Search<'a> {
    db: &'a dyn Lookup,
    skip_origin: bool,
    hist: HashMap<Key, u8>,
    nodes: u64,
    budget: u64,
    target: i32,
}

/// Seeds on a board.
fn seeds(b: &Board) -> i32 {
    b.iter().map(|&s| s as i32).sum()
}

impl Search<'_> {
    /// The actions of the mover on `b` (side `side`), with their values
    /// by the database from his side, best first (exits first among
    /// equals).
    fn steps(&self, b: &Board, side: bool) -> Vec<Step> {
        let n = seeds(b);
        let mut list: Vec<Step> = moves(b, self.skip_origin)
            .map(|(hole, o)| {
                let score = match o {
                    Outcome::End { mover } => 2 * mover as i32,
                    Outcome::Capture { seeds: c, next } => {
                        let m = n - c as i32;
                        2 * c as i32 + 2 * m - self.db.values(m as usize, rank(&next)).v as i32
                    }
                    Outcome::Stay { next } => {
                        if self.seen(&next, !side) >= 2 {
                            // Its third occurrence: the sweep (the opponent
                            // to move there, his holes first).
                            2 * next[4..].iter().map(|&s| s as i32).sum::<i32>()
                        } else {
                            2 * n - self.db.values(n as usize, rank(&next)).v as i32
                        }
                    }
                };
                Step {
                    hole,
                    outcome: o,
                    score,
                }
            })
            .collect();
        let stay = |s: &Step| matches!(s.outcome, Outcome::Stay { .. });
        list.sort_by_key(|s| (-s.score, stay(s)));
        list
    }

    fn seen(&self, b: &Board, side: bool) -> u8 {
        self.hist.get(&(*b, side)).copied().unwrap_or(0)
    }

    /// Whether `step`'s result is an exit worth at least the target for
    /// the player (a capture, the end, or a third occurrence), `None` if
    /// it stays in the layer.
    fn exit(&self, step: &Step, side: bool) -> Option<bool> {
        match step.outcome {
            Outcome::Stay { next } if self.seen(&next, !side) < 2 => None,
            _ => Some(step.score >= self.target),
        }
    }

    /// The player to move on `b` (the player choosing: side `false`) can
    /// force an exit worth the target within `d` of his actions.
    fn ours(&mut self, b: &Board, d: u32) -> Option<bool> {
        self.nodes += 1;
        if self.nodes > self.budget {
            return None;
        }
        for step in self.steps(b, false) {
            if step.score < self.target {
                break; // the rest do not keep the target either
            }
            match self.exit(&step, false) {
                Some(true) => return Some(true),
                Some(false) => {}
                None if d > 1 => {
                    let Outcome::Stay { next } = step.outcome else {
                        unreachable!()
                    };
                    if self.enter(&next, true, |s| s.theirs(&next, d - 1))? {
                        return Some(true);
                    }
                }
                None => {}
            }
        }
        Some(false)
    }

    /// The opponent to move on `b`: every action of his leads to an exit
    /// worth the target for the player, or to a position from which the
    /// player forces one within `d` of his actions.
    fn theirs(&mut self, b: &Board, d: u32) -> Option<bool> {
        self.nodes += 1;
        if self.nodes > self.budget {
            return None;
        }
        let n = seeds(b);
        for step in self.steps(b, true) {
            let ok = match step.outcome {
                Outcome::Stay { next } if self.seen(&next, false) < 2 => {
                    self.enter(&next, false, |s| s.ours(&next, d))?
                }
                // The player's share is the rest of the opponent's.
                _ => 2 * n - step.score >= self.target,
            };
            if !ok {
                return Some(false);
            }
        }
        Some(true)
    }

    /// Runs `f` with `b` (side `side`) counted once more in the history.
    fn enter<T>(&mut self, b: &Board, side: bool, f: impl FnOnce(&mut Self) -> T) -> T {
        *self.hist.entry((*b, side)).or_insert(0) += 1;
        let r = f(self);
        let e = self.hist.get_mut(&(*b, side)).expect("entered");
        *e -= 1;
        if *e == 0 {
            self.hist.remove(&(*b, side));
        }
        r
    }
}

/// Chooses the perfect player's action in `game` (no trades, not over),
/// `db` holding the layers `0..=max_n` of its rules (the caller matches
/// `skip-origin`), searching at most `budget` nodes for a forced exit.
pub fn choose(
    db: &dyn Lookup,
    max_n: usize,
    game: &Game,
    budget: u64,
) -> Result<Choice, ProbeError> {
    let p = game.position();
    let (board, n) = board_of(p)?;
    if n > max_n {
        return Err(ProbeError::TooManySeeds { n, max_n });
    }
    if game.is_over() || is_ended(&board) {
        return Err(ProbeError::GameOver);
    }
    let mover = p.to_move();
    let values = db.values(n, rank(&board));
    // The layer's history: the positions since the last capture (the
    // captured totals unchanged), the current one included.
    let mut hist: HashMap<Key, u8> = HashMap::new();
    for q in game.history().iter().rev() {
        if q.captured(Player::A) != p.captured(Player::A)
            || q.captured(Player::B) != p.captured(Player::B)
        {
            break;
        }
        if let Ok((b, _)) = board_of(q) {
            *hist.entry((b, q.to_move() != mover)).or_insert(0) += 1;
        }
    }
    let mut s = Search {
        db,
        skip_origin: p.variant().skip_origin,
        hist,
        nodes: 0,
        budget,
        target: values.v as i32,
    };
    let steps = s.steps(&board, false);
    let keep: Vec<Step> = steps
        .iter()
        .copied()
        .filter(|st| st.score >= s.target)
        .collect();
    // V is the best action's value, so some action keeps it; if the
    // database were inconsistent, the best available stands in.
    let keep = if keep.is_empty() {
        vec![steps[0]]
    } else {
        keep
    };
    let action_of = |st: &Step| -> Action {
        match st.hole {
            None => Action::Pass,
            Some(h) => {
                let base = if mover == Player::A { 0 } else { 4 };
                Action::Sow(Hole::new(base + h).expect("a hole of the row"))
            }
        }
    };
    let choice = |st: &Step, exit_within| Choice {
        action: action_of(st),
        values,
        score: st.score.clamp(0, 255) as u8,
        exit_within,
    };
    let n = seeds(&board);
    // Losing by V (less than half the seeds): among the actions that keep
    // V, the one that makes the game last, as a person holding out would:
    // a move that stays in the layer (the position seen least first),
    // then a capture, the end of the game last.
    if s.target < n {
        let st = keep
            .iter()
            .min_by_key(|st| match st.outcome {
                Outcome::Stay { next } if s.seen(&next, true) < 2 => s.seen(&next, true) as u32,
                Outcome::End { .. } => 4,
                _ => 3,
            })
            .expect("an action keeps V");
        return Ok(choice(st, None));
    }
    // An exit that keeps V: progress at once, the end of the game itself
    // first (the shortest end when winning), then the best capture.
    let now = |st: &&Step| s.exit(st, false) == Some(true);
    if let Some(st) = keep
        .iter()
        .filter(now)
        .find(|st| matches!(st.outcome, Outcome::End { .. }))
        .or_else(|| keep.iter().find(now))
    {
        return Ok(choice(st, Some(1)));
    }
    let mut d = 2;
    'deepen: loop {
        for st in &keep {
            let Outcome::Stay { next } = st.outcome else {
                continue;
            };
            if s.seen(&next, true) >= 2 {
                continue;
            }
            match s.enter(&next, true, |s| s.theirs(&next, d - 1)) {
                Some(true) => return Ok(choice(st, Some(d))),
                Some(false) => {}
                None => break 'deepen,
            }
        }
        d += 1;
        if d > 200 {
            break;
        }
    }
    // No forced exit within the budget: keep V, exits first, then the
    // position seen least.
    let st = keep
        .iter()
        .min_by_key(|st| match st.outcome {
            Outcome::Stay { next } => 1 + s.seen(&next, true) as u32,
            _ => 0,
        })
        .expect("an action keeps V");
    Ok(choice(st, None))
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (V {}", self.action, self.values.v)?;
        match self.exit_within {
            Some(d) => write!(f, ", leaves the layer within {d})"),
            None => f.write_str(")"),
        }
    }
}

/// A perfect player with its database, as the CLI and the server hold it:
/// it checks a game's rules against the database's, and says whether a
/// position is inside it.
#[derive(Clone)]
pub struct Perfect {
    db: std::sync::Arc<dyn Lookup + Send + Sync>,
    max_n: usize,
    skip_origin: bool,
    budget: u64,
}

impl fmt::Debug for Perfect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Perfect")
            .field("max_n", &self.max_n)
            .field("skip_origin", &self.skip_origin)
            .finish()
    }
}

/// The name of a no-trade rule set.
fn rules_name(skip_origin: bool) -> &'static str {
    if skip_origin {
        "no-trades,skip-origin"
    } else {
        "no-trades"
    }
}

impl Perfect {
    /// The player over `db`, which holds the layers `0..=max_n` of the
    /// rules `no-trades` (with `skip-origin` when `skip_origin`).
    pub fn new(
        db: std::sync::Arc<dyn Lookup + Send + Sync>,
        max_n: usize,
        skip_origin: bool,
    ) -> Perfect {
        Perfect {
            db,
            max_n,
            skip_origin,
            budget: DEFAULT_BUDGET,
        }
    }

    /// The same with another node budget per decision.
    pub fn with_budget(mut self, budget: u64) -> Perfect {
        self.budget = budget;
        self
    }

    /// The database's top layer.
    pub fn max_n(&self) -> usize {
        self.max_n
    }

    /// Whether games of `variant` can be played from this database: no
    /// trades, and `skip-origin` as the database's.
    pub fn check(&self, variant: gore_core::Variant) -> Result<(), ProbeError> {
        if !variant.no_trades {
            return Err(ProbeError::Outside(crate::board::Outside::TradesAllowed));
        }
        if variant.skip_origin != self.skip_origin {
            return Err(ProbeError::Rules {
                position: rules_name(variant.skip_origin),
                database: rules_name(self.skip_origin),
            });
        }
        Ok(())
    }

    /// Whether the game's current position is one of the database's (the
    /// rules checked, the seeds on the board within its layers).
    pub fn covers(&self, game: &Game) -> bool {
        self.check(game.position().variant()).is_ok()
            && board_of(game.position()).is_ok_and(|(_, n)| n <= self.max_n)
    }

    /// The perfect action in `game` ([`choose`]), its rules checked.
    pub fn choose(&self, game: &Game) -> Result<Choice, ProbeError> {
        self.check(game.position().variant())?;
        choose(&*self.db, self.max_n, game, self.budget)
    }
}
