//! Between gore-core's positions and the solver's boards.
//!
//! A [`Board`] is seen from the player to move (the *mover*): his four
//! holes first, then the opponent's, each row from its hole 1 to its
//! hole 4. Sowing runs counter-clockwise, a1 → a4 → b1 → b4 → a1, the same
//! way from either side, so a board read this way is the same problem
//! whoever moves: B to move on `a / b` is A to move on `b / a`.

use gore_core::{HoleSet, Player, Position, PositionError, Setup, Variant};

/// Eight holes seen from the player to move: `[0..4]` his, `[4..8]` the
/// opponent's.
pub type Board = [u8; 8];

/// Why a position is not one of the database's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outside {
    /// Its rules allow trades: values there depend on negotiation.
    TradesAllowed,
    /// A hole changed hands (a trade was made): control is no longer
    /// A's row and B's row.
    HolesTraded,
    /// An offer is pending.
    OfferPending,
}

impl core::fmt::Display for Outside {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Outside::TradesAllowed => "the rules allow trades (the database is for no-trades)",
            Outside::HolesTraded => {
                "holes have changed hands (the database knows A's row A's, B's row B's)"
            }
            Outside::OfferPending => "an offer is pending (the database has no trades)",
        })
    }
}

/// The board of a no-trade position, seen from its player to move, and
/// its layer (the seeds on it).
///
/// ```
/// use gore_core::{Position, Variant};
/// use gore_solver::board::board_of;
/// let mut v = Variant::STANDARD;
/// v.no_trades = true;
/// let p = Position::from_gpn("1,2,3,4/5,6,7,8 AAAA/BBBB 12-0 B -", v).unwrap();
/// assert_eq!(board_of(&p), Ok(([5, 6, 7, 8, 1, 2, 3, 4], 36)));
/// ```
pub fn board_of(p: &Position) -> Result<(Board, usize), Outside> {
    if !p.variant().no_trades {
        return Err(Outside::TradesAllowed);
    }
    let s = p.to_setup();
    if s.offer != HoleSet::EMPTY {
        return Err(Outside::OfferPending);
    }
    let rows_kept = s.controllers[..4].iter().all(|&c| c == Player::A)
        && s.controllers[4..].iter().all(|&c| c == Player::B);
    if !rows_kept {
        return Err(Outside::HolesTraded);
    }
    let mut board = [0u8; 8];
    let (mine, theirs) = match s.to_move {
        Player::A => (0, 4),
        Player::B => (4, 0),
    };
    board[..4].copy_from_slice(&s.seeds[mine..mine + 4]);
    board[4..].copy_from_slice(&s.seeds[theirs..theirs + 4]);
    let n = board.iter().map(|&x| x as usize).sum();
    Ok((board, n))
}

/// The board of a position as if trades were not allowed: any rules
/// whose rows are still whole (no hole traded) and with no offer pending.
/// For using the database as an estimate in games with trades, where its
/// values are not exact (they assume no trade will ever be made).
///
/// ```
/// use gore_core::{Position, Variant};
/// use gore_solver::board::board_ignoring_trades;
/// let p = Position::from_gpn("1,2,3,4/5,6,7,8 AAAA/BBBB 12-0 A -", Variant::STANDARD).unwrap();
/// assert_eq!(board_ignoring_trades(&p), Ok(([1, 2, 3, 4, 5, 6, 7, 8], 36)));
/// ```
pub fn board_ignoring_trades(p: &Position) -> Result<(Board, usize), Outside> {
    let mut v = p.variant();
    if v.no_trades {
        return board_of(p);
    }
    v.no_trades = true;
    let s = p.to_setup();
    if s.offer != HoleSet::EMPTY {
        return Err(Outside::OfferPending);
    }
    match Position::from_setup(&s, v) {
        Ok(q) => board_of(&q),
        Err(_) => Err(Outside::HolesTraded),
    }
}

/// A position of `variant` (no trades) with this board, `to_move` to move,
/// and `captured` taken so far (which must make up the variant's total
/// with the board).
pub fn position_of(
    board: &Board,
    to_move: Player,
    captured: [u8; 2],
    variant: Variant,
) -> Result<Position, PositionError> {
    let mut seeds = [0u8; 8];
    let (mine, theirs) = match to_move {
        Player::A => (0, 4),
        Player::B => (4, 0),
    };
    seeds[mine..mine + 4].copy_from_slice(&board[..4]);
    seeds[theirs..theirs + 4].copy_from_slice(&board[4..]);
    let setup = Setup {
        seeds,
        captured,
        to_move,
        ..Setup::INITIAL
    };
    Position::from_setup(&setup, variant)
}
