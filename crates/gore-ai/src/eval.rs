//! Static evaluation of non-final positions, in hundredths of a seed, from
//! the point of view of the player to move.

use gore_core::{Hole, Position};

/// One seed is worth this many score units.
pub const SEED: i32 = 100;

/// Weights of the evaluation terms (score units). Tuned by matches; see
/// docs/STRENGTH.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Weights {
    /// Per seed lying in a hole the player controls (it is his at the sweep,
    /// but can still be taken).
    pub board_seed: i32,
    /// Per opponent-controlled hole holding 1 or 3 (a target for a capture).
    pub target: i32,
    /// Per hole the player can sow from.
    pub mobility: i32,
}

impl Default for Weights {
    fn default() -> Self {
        // Tuned by matches (examples/tune.rs, docs/STRENGTH.md): the target
        // term did not pay at these depths, so it weighs nothing for now.
        Weights {
            board_seed: 25,
            target: 0,
            mobility: 25,
        }
    }
}

/// The final score difference of an ended position for the player to move:
/// the sweep gives every hole's seeds to its controller.
#[inline]
pub fn terminal(pos: &Position) -> i32 {
    let t = pos.sweep_totals();
    let me = pos.to_move();
    (t[me.index()] as i32 - t[me.opponent().index()] as i32) * SEED
}

/// The evaluation of a position still in play.
#[inline]
pub fn evaluate(pos: &Position, w: &Weights) -> i32 {
    let me = pos.to_move();
    let mut cap = pos.captured(me) as i32 - pos.captured(me.opponent()) as i32;
    cap *= SEED;
    let mut board = 0;
    let mut targets = 0;
    let mut mobility = 0;
    for h in Hole::ALL {
        let n = pos.seeds(h) as i32;
        let sign = if pos.controller(h) == me { 1 } else { -1 };
        board += sign * n;
        if n == 1 || n == 3 {
            targets -= sign; // an opponent's 1 or 3 is my target
        }
        if n > 0 {
            mobility += sign;
        }
    }
    cap + board * w.board_seed + targets * w.target + mobility * w.mobility
}

/// Knowledge from outside the search: for the positions it knows, the
/// final score difference for the player to move, in score units (the
/// no-trade database, say). The search asks it at its leaves in place of
/// [`evaluate`]; `None` leaves the static evaluation in charge.
///
/// In games where trades are possible such values are estimates, not
/// truths: whether they help is for a match to tell (docs/STRENGTH.md).
pub trait Oracle: Send + Sync + std::fmt::Debug {
    /// The position's value for its player to move, if known.
    fn score(&self, pos: &Position) -> Option<i32>;
}
