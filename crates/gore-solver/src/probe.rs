//! Probing: the solved values of a gore-core position and of each of its
//! legal actions, and the text `gore probe` prints.
//!
//! Values are in **half seeds** of the position's `n` seeds on the board,
//! for the player to move at the position (RULES.md, "Solved values"). An
//! action is valued from that same player's side: a capture of `c` seeds
//! into layer `m = n − c`, the opponent's values `x` at the board left,
//! scores `2c + (2m − x)` (the bounds swapped: the mover's LB from the
//! opponent's UB); an action inside the layer is the case `c = 0`; an
//! action that ends the game scores exactly twice the mover's seeds of the
//! `n` (this action's captures and the seeds left in his holes).

use core::fmt;

use gore_core::{Action, Hole, Player, Position};

use crate::board::{board_of, Outside};
use crate::index::rank;
use crate::values::{Lookup, Values};

/// The values of a position and of its legal actions, for its player to
/// move, in half seeds of its `n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// Seeds on the board (the layer).
    pub n: usize,
    /// The player to move, whose values these are.
    pub mover: Player,
    /// Seeds captured so far by A and by B (the position's totals).
    pub captured: [u8; 2],
    /// The position's values.
    pub values: Values,
    /// Every legal action, in gore-core's order, with its values.
    pub actions: Vec<(Action, Values)>,
}

/// Why a position cannot be probed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeError {
    /// The position is not one of a no-trade database's.
    Outside(Outside),
    /// More seeds on the board than the database's layers hold.
    TooManySeeds {
        /// Seeds on the board.
        n: usize,
        /// The database's top layer.
        max_n: usize,
    },
    /// The game is over on this board: no action, nothing to look up.
    GameOver,
    /// The position's rules are not the database's (`skip-origin` or not).
    Rules {
        /// The position's rules.
        position: &'static str,
        /// The database's.
        database: &'static str,
    },
    /// The database holds no layer yet.
    Empty,
}

impl fmt::Display for ProbeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProbeError::Outside(o) => write!(f, "position outside the database: {o}"),
            ProbeError::TooManySeeds { n, max_n } => write!(
                f,
                "position outside the database: {n} seeds on the board, the database holds up to {max_n}"
            ),
            ProbeError::GameOver => {
                f.write_str("the game is over on this board (every hole at most 2): nothing to probe")
            }
            ProbeError::Rules { position, database } => write!(
                f,
                "the position's rules are {position}, the database's {database}"
            ),
            ProbeError::Empty => f.write_str("the database holds no layer yet (run gore solve)"),
        }
    }
}

impl std::error::Error for ProbeError {}

impl From<Outside> for ProbeError {
    fn from(o: Outside) -> Self {
        ProbeError::Outside(o)
    }
}

/// The values of `p` alone (half seeds of its `n`, for its player to
/// move), without its actions: one board, one lookup. The refusals of
/// [`probe`].
#[inline]
pub fn value(db: &dyn Lookup, max_n: usize, p: &Position) -> Result<Values, ProbeError> {
    let (board, n) = board_of(p)?;
    if n > max_n {
        return Err(ProbeError::TooManySeeds { n, max_n });
    }
    if p.is_ended() {
        return Err(ProbeError::GameOver);
    }
    Ok(db.values(n, rank(&board)))
}

/// Probes `p` in `db`, whose layers are `0..=max_n` of `p`'s rules (the
/// caller matches `skip-origin`: a [`Lookup`] does not know its rules).
///
/// ```
/// use gore_core::{Position, Variant};
/// use gore_solver::{naive, probe::probe};
/// let mut v = Variant::STANDARD;
/// v.no_trades = true;
/// let db = naive::memory(5, false);
/// // A: a3 = 1, a4 = 3; B: b1 = 1. a4 ends the game with a3's seed A's.
/// let p = Position::from_gpn("0,0,1,3/1,0,0,0 AAAA/BBBB 22-21 A -", v).unwrap();
/// let lines = probe(&db, 5, &p).unwrap().lines();
/// assert_eq!(lines[0], "position V 23-25 lo 23-25 hi 23-25 exact");
/// ```
pub fn probe(db: &dyn Lookup, max_n: usize, p: &Position) -> Result<Probe, ProbeError> {
    let values = value(db, max_n, p)?;
    let n = p.seeds_on_board() as usize;
    let mover = p.to_move();
    let before = p.captured(mover);
    let mut actions = Vec::with_capacity(5);
    for &a in p.legal_actions().iter() {
        // Legal by construction (the list is p's own), and the rules of
        // p (no trades, rows kept) hold after it: no checks again.
        let mut next = *p;
        next.play_unchecked(a);
        let x = if next.is_ended() {
            let own = 2 * (next.sweep_totals()[mover.index()] - before);
            Values {
                v: own,
                lb: own,
                ub: own,
            }
        } else {
            let b = mover_board(&next);
            let m = next.seeds_on_board() as usize;
            let y = db.values(m, rank(&b));
            let c2 = 2 * (n - m) as u8;
            Values {
                v: c2 + (2 * m as u8 - y.v),
                lb: c2 + (2 * m as u8 - y.ub),
                ub: c2 + (2 * m as u8 - y.lb),
            }
        };
        actions.push((a, x));
    }
    Ok(Probe {
        n,
        mover,
        captured: [p.captured(Player::A), p.captured(Player::B)],
        values,
        actions,
    })
}

/// The board of a position whose rows are still A's and B's, seen from
/// its player to move ([`board_of`] without its checks).
#[inline]
fn mover_board(p: &Position) -> crate::board::Board {
    let mut b = [0u8; 8];
    let off = match p.to_move() {
        Player::A => 0,
        Player::B => 4,
    };
    for (i, h) in Hole::ALL.iter().enumerate() {
        b[(i + 8 - off) % 8] = p.seeds(*h);
    }
    b
}

/// Final totals of A and B, in half seeds, for three outcomes of the
/// board's seeds: the mover getting V, LB and UB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    /// `[A, B]` when the mover gets V.
    pub v: [u16; 2],
    /// `[A, B]` when the mover gets LB (`lo` in the probe's text).
    pub lo: [u16; 2],
    /// `[A, B]` when the mover gets UB (`hi`).
    pub hi: [u16; 2],
    /// LB = UB.
    pub exact: bool,
}

/// The final totals of A and B (half seeds) when the player `mover` gets
/// `values` (half seeds of `n`) and the rest of the `n` seeds go to the
/// other, with `captured` (A's, B's) already taken.
///
/// ```
/// use gore_core::Player;
/// use gore_solver::{probe::totals, Values};
/// // The issue's example: A to move, 20-18 captured, 10 on the board,
/// // LB 4 and UB 6 seeds.
/// let t = totals(Values { v: 9, lb: 8, ub: 12 }, 10, Player::A, [20, 18]);
/// assert_eq!((t.lo, t.hi), ([48, 48], [52, 44]));
/// ```
pub fn totals(values: Values, n: usize, mover: Player, captured: [u8; 2]) -> Totals {
    let split = |mine: u8| -> [u16; 2] {
        let mine = mine as u16;
        let theirs = 2 * n as u16 - mine;
        let (a, b) = match mover {
            Player::A => (mine, theirs),
            Player::B => (theirs, mine),
        };
        [2 * captured[0] as u16 + a, 2 * captured[1] as u16 + b]
    };
    Totals {
        v: split(values.v),
        lo: split(values.lb),
        hi: split(values.ub),
        exact: values.exact(),
    }
}

/// Half seeds as seeds: `49` is `24.5`, `48` is `24`.
pub fn half(h: u16) -> String {
    if h.is_multiple_of(2) {
        format!("{}", h / 2)
    } else {
        format!("{}.5", h / 2)
    }
}

/// `V <A>-<B> lo <A>-<B> hi <A>-<B> exact|bounded`, the part of a probe
/// line after its first word.
pub fn describe(t: &Totals) -> String {
    let pair = |x: [u16; 2]| format!("{}-{}", half(x[0]), half(x[1]));
    format!(
        "V {} lo {} hi {} {}",
        pair(t.v),
        pair(t.lo),
        pair(t.hi),
        if t.exact { "exact" } else { "bounded" }
    )
}

impl Probe {
    /// The final totals when the mover gets `values` (the position's or
    /// an action's) of this position's seeds.
    pub fn totals(&self, values: Values) -> Totals {
        totals(values, self.n, self.mover, self.captured)
    }

    /// The text of `gore probe`: `position V … lo … hi … exact|bounded`,
    /// then one such line per legal action, headed by its token.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![format!("position {}", describe(&self.totals(self.values)))];
        for &(a, x) in &self.actions {
            out.push(format!("{a} {}", describe(&self.totals(x))));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naive;
    use gore_core::Variant;

    fn no_trades(skip_origin: bool) -> Variant {
        let mut v = Variant::STANDARD;
        v.no_trades = true;
        v.skip_origin = skip_origin;
        v
    }

    fn pos(gpn: &str) -> Position {
        Position::from_gpn(gpn, no_trades(false)).unwrap()
    }

    /// The issue's example, whole line: A to move, 20-18 captured, 10 on
    /// the board, V 4.5 seeds, LB 4, UB 6: A ends 24.5, 24 or 26.
    #[test]
    fn the_issues_example() {
        let t = totals(
            Values {
                v: 9,
                lb: 8,
                ub: 12,
            },
            10,
            Player::A,
            [20, 18],
        );
        assert_eq!(describe(&t), "V 24.5-23.5 lo 24-24 hi 26-22 bounded");
        // B to move with the same values: lo still gives the mover LB.
        let t = totals(
            Values {
                v: 9,
                lb: 8,
                ub: 12,
            },
            10,
            Player::B,
            [20, 18],
        );
        assert_eq!(describe(&t), "V 25.5-22.5 lo 26-22 hi 24-24 bounded");
    }

    /// `0,0,1,3/1,0,0,0`, A to move (n = 5), by hand:
    /// - a4 sows b1, b2, b3 (2, 1, 1): every hole at most 2, the game ends,
    ///   A keeps a3's 1 seed: 1 of 5.
    /// - a3 sows a4 (4); B's only move b1 → b2; A's only move a4 sows b1..b4
    ///   (1, 2, 1, 1): the end, A's holes empty: 0 of 5.
    ///
    /// So V = LB = UB = 1 seed (2 half seeds), by a4.
    #[test]
    fn a_small_position_by_hand() {
        let db = naive::memory(5, false);
        let p = pos("0,0,1,3/1,0,0,0 AAAA/BBBB 22-21 A -");
        let pr = probe(&db, 5, &p).unwrap();
        assert_eq!(pr.values, Values { v: 2, lb: 2, ub: 2 });
        assert_eq!(value(&db, 5, &p), Ok(pr.values));
        assert_eq!(
            pr.lines(),
            [
                "position V 23-25 lo 23-25 hi 23-25 exact",
                "a3 V 22-26 lo 22-26 hi 22-26 exact",
                "a4 V 23-25 lo 23-25 hi 23-25 exact",
            ]
        );
        // The same board with B to move (rows swapped): B gets the 1 seed.
        let p = pos("1,0,0,0/0,0,1,3 AAAA/BBBB 21-22 B -");
        assert_eq!(
            probe(&db, 5, &p).unwrap().lines(),
            [
                "position V 25-23 lo 25-23 hi 25-23 exact",
                "b3 V 26-22 lo 26-22 hi 26-22 exact",
                "b4 V 25-23 lo 25-23 hi 25-23 exact",
            ]
        );
    }

    /// `0,0,0,1/1,0,0,3`, A to move (n = 5): a4 puts 1 seed on b1, which
    /// holds 2: captured (a4 empty and b2 empty stop the chain). B then
    /// must sow b4's 3 onto a1, a2, a3: the end, B's row empty, A keeps 3.
    /// A gets 2 + 3 = all 5.
    #[test]
    fn a_capture_by_hand() {
        let db = naive::memory(5, false);
        let p = pos("0,0,0,1/1,0,0,3 AAAA/BBBB 20-23 A -");
        assert_eq!(
            probe(&db, 5, &p).unwrap().lines(),
            [
                "position V 25-23 lo 25-23 hi 25-23 exact",
                "a4 V 25-23 lo 25-23 hi 25-23 exact",
            ]
        );
    }

    /// Every board looked up has these values (the opponent's).
    struct Fixed(Values);
    impl Lookup for Fixed {
        fn values(&self, _n: usize, _rank: u64) -> Values {
            self.0
        }
    }

    /// A capture's conversion with bounds apart: the opponent's
    /// (V, LB, UB) = (1.5, 1, 2) of the 3 seeds left makes the capturer's
    /// 2 + (3 − x): V 3.5, LB 3 (from the opponent's UB), UB 4.
    #[test]
    fn a_capture_swaps_the_bounds() {
        let db = Fixed(Values { v: 3, lb: 2, ub: 4 });
        let p = pos("0,0,0,1/1,0,0,3 AAAA/BBBB 20-23 A -");
        let pr = probe(&db, 5, &p).unwrap();
        assert_eq!(
            pr.actions,
            [(
                Action::Sow(gore_core::Hole::A4),
                Values { v: 7, lb: 6, ub: 8 }
            )]
        );
        assert_eq!(pr.lines()[1], "a4 V 23.5-24.5 lo 23-25 hi 24-24 bounded");
    }

    /// A pass stays in the layer: 2n less the opponent's values, swapped.
    #[test]
    fn a_pass_stays_in_the_layer() {
        let db = Fixed(Values { v: 3, lb: 1, ub: 4 });
        // A's row empty, B's b4 = 3: A must pass (n = 3).
        let p = pos("0,0,0,0/0,0,0,3 AAAA/BBBB 20-25 A -");
        let pr = probe(&db, 3, &p).unwrap();
        assert_eq!(pr.actions, [(Action::Pass, Values { v: 3, lb: 2, ub: 5 })]);
    }

    /// The fast board of a position is board_of's, on every board of a
    /// layer with either player to move.
    #[test]
    fn mover_board_is_board_of() {
        for r in 0..crate::index::layer_size(6) {
            let b = crate::index::unrank(6, r);
            for who in [Player::A, Player::B] {
                let p = crate::board::position_of(&b, who, [21, 21], no_trades(false)).unwrap();
                assert_eq!(board_of(&p), Ok((mover_board(&p), 6)));
            }
        }
    }

    #[test]
    fn refusals() {
        let db = naive::memory(3, false);
        // Trades allowed.
        let p =
            Position::from_gpn("0,0,0,0/0,0,0,3 AAAA/BBBB 20-25 A -", Variant::STANDARD).unwrap();
        assert_eq!(
            probe(&db, 3, &p),
            Err(ProbeError::Outside(Outside::TradesAllowed))
        );
        // More seeds than the database holds.
        let p = pos("0,0,1,3/1,0,0,0 AAAA/BBBB 22-21 A -");
        assert_eq!(
            probe(&db, 3, &p),
            Err(ProbeError::TooManySeeds { n: 5, max_n: 3 })
        );
        // The game is over.
        let p = pos("0,0,1,2/0,0,0,0 AAAA/BBBB 23-22 A -");
        assert_eq!(probe(&db, 3, &p), Err(ProbeError::GameOver));
        for e in [
            ProbeError::Outside(Outside::HolesTraded),
            ProbeError::TooManySeeds { n: 5, max_n: 3 },
            ProbeError::GameOver,
        ] {
            assert!(!e.to_string().contains('\n'));
        }
    }
}
