//! The exact value of a board under the real rule, by a plain search with
//! the game's history: the reference the database's bounds are checked
//! against (LB <= exact <= UB, and exact = LB where LB = UB).
//!
//! The real rule (RULES.md): a position's third occurrence ends the game
//! with the sweep (each player takes the seeds in his holes), and so does
//! a board with every hole at most 2. A position is the board, the player
//! to move and both captured totals; without trades the totals change only
//! by a capture, so a capture makes every earlier position unreachable:
//! the game after it is a *fresh start* from the board left, whose value
//! depends on that board alone. Bounds found on fresh starts are cached
//! ([`Exact`] keeps them across calls); within a layer the history
//! matters and nothing is cached (a table keyed by the history too was
//! measured: it saved 2% of the nodes on layer 7 and cost 4× the time).
//!
//! Values are in **half seeds** of the board's `n` for the player to move
//! (`2n` is everything), like the database's, though under the real rule
//! they are always even.
//!
//! The search is negamax with alpha-beta pruning over the whole game tree
//! (finite: no position occurs a third time). Its cost grows steeply with
//! the layer, so a node budget bounds it (`None` beyond), and the checks
//! of the database search with a null window ([`Exact::at_least`],
//! [`Exact::at_most`]): proving one side of a bound is far cheaper than
//! finding the value. An optional [`Lookup`] orders the actions (best by
//! the database's V first): order never changes a result, only its cost,
//! so the search stays independent of the values it checks.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::board::Board;
use crate::index::rank;
use crate::moves::{is_ended, moves, Outcome};
use crate::values::Lookup;

/// The search ran out of its node budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct OutOfBudget;

/// A position within a layer's history, as one number: the board seen
/// from its mover (its bytes, each at most 48), and in the top bit whether
/// that mover is the second player of the layer's start (the same
/// mover-relative board with the other player to move is another
/// position).
type Key = u64;

fn key(b: &Board, side: bool) -> Key {
    u64::from_le_bytes(*b) | (side as u64) << 63
}

/// A multiplicative hasher for the keys (already well spread: board bytes).
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0 ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 ^= self.0 >> 29;
    }
}

type Map<K, V> = HashMap<K, V, BuildHasherDefault<KeyHasher>>;

/// The exact search, with the bounds of fresh starts it has found (sound
/// to keep: they do not depend on any history).
#[derive(Clone, Default)]
pub struct Exact<'a> {
    skip_origin: bool,
    order: Option<&'a dyn Lookup>,
    /// Fresh starts: (lower, upper) bounds of the value, by board.
    fresh: Map<Key, (i32, i32)>,
    nodes: u64,
    budget: u64,
    /// Nodes searched over the search's life (for measurements).
    pub total_nodes: u64,
}

impl<'a> Exact<'a> {
    /// A search for the rules `no-trades` (with `skip-origin` when
    /// `skip_origin`), with no values known yet.
    pub fn new(skip_origin: bool) -> Exact<'a> {
        Exact {
            skip_origin,
            ..Exact::default()
        }
    }

    /// The same search trying actions in the order of `db`'s values (it
    /// must hold every layer the search reaches).
    pub fn ordered_by(skip_origin: bool, db: &'a dyn Lookup) -> Exact<'a> {
        Exact {
            skip_origin,
            order: Some(db),
            ..Exact::default()
        }
    }

    /// The exact value (half seeds of the board's seeds, for the mover) of
    /// a game started on `board`, with no history, or `None` if the search
    /// needs more than `budget` nodes (the bounds found on the way are
    /// kept, so a later call goes further).
    pub fn value(&mut self, board: &Board, budget: u64) -> Option<u8> {
        let all = 2 * seeds(board);
        self.window(board, -1, all + 1, budget).map(|v| v as u8)
    }

    /// Whether the exact value of a fresh start on `board` is at least `v`
    /// (half seeds), or `None` beyond `budget` nodes.
    pub fn at_least(&mut self, board: &Board, v: u8, budget: u64) -> Option<bool> {
        let v = v as i32;
        self.window(board, v - 1, v, budget).map(|r| r >= v)
    }

    /// Whether the exact value of a fresh start on `board` is at most `v`
    /// (half seeds), or `None` beyond `budget` nodes.
    pub fn at_most(&mut self, board: &Board, v: u8, budget: u64) -> Option<bool> {
        let v = v as i32;
        self.window(board, v, v + 1, budget).map(|r| r <= v)
    }

    /// A fresh start's value if it lies strictly inside `alpha..beta`, else
    /// a bound beyond the window on the same side.
    fn window(&mut self, board: &Board, alpha: i32, beta: i32, budget: u64) -> Option<i32> {
        self.nodes = 0;
        self.budget = budget;
        self.fresh(board, alpha, beta).ok()
    }

    /// The exact value of the game on `board` (its mover to move) after
    /// the positions of `history` in this layer (each as its board from
    /// its mover and whether that mover is the player to move on `board`),
    /// `board` itself not among them. `None` beyond `budget` nodes.
    ///
    /// This is what a player mid-game faces: the occurrences so far count
    /// for the threefold rule.
    pub fn value_after(
        &mut self,
        board: &Board,
        history: &[(Board, bool)],
        budget: u64,
    ) -> Option<u8> {
        self.nodes = 0;
        self.budget = budget;
        if is_ended(board) {
            return Some(2 * board[..4].iter().sum::<u8>());
        }
        let mut hist: Map<Key, u8> = Map::default();
        // Sides relative to the player to move now: `false` is him.
        for &(b, same) in history.iter().chain([(*board, true)].iter()) {
            *hist.entry(key(&b, !same)).or_insert(0) += 1;
        }
        if hist[&key(board, false)] >= 3 {
            // Already a third occurrence: the game is over with the sweep.
            return Some(2 * board[..4].iter().sum::<u8>());
        }
        let all = 2 * seeds(board);
        self.search(board, false, &mut hist, -1, all + 1)
            .ok()
            .map(|v| v as u8)
    }

    /// A fresh start on `b`: its value inside `alpha..beta`, or a bound
    /// beyond the window; the bounds learnt are kept.
    fn fresh(&mut self, b: &Board, mut alpha: i32, mut beta: i32) -> Result<i32, OutOfBudget> {
        if is_ended(b) {
            return Ok(2 * b[..4].iter().map(|&s| s as i32).sum::<i32>());
        }
        let all = 2 * seeds(b);
        let k = key(b, false);
        let (lower, upper) = self.fresh.get(&k).copied().unwrap_or((0, all));
        if lower == upper || lower >= beta {
            return Ok(lower);
        }
        if upper <= alpha {
            return Ok(upper);
        }
        alpha = alpha.max(lower - 1);
        beta = beta.min(upper + 1);
        let mut hist: Map<Key, u8> = Map::default();
        hist.insert(k, 1);
        let r = self.search(b, false, &mut hist, alpha, beta)?;
        let e = self.fresh.entry(k).or_insert((0, all));
        if r <= alpha {
            e.1 = e.1.min(r);
        } else if r >= beta {
            e.0 = e.0.max(r);
        } else {
            *e = (r, r);
        }
        Ok(r)
    }

    /// The ordering score of an action by the database (higher first).
    fn guess(&self, n: i32, o: &Outcome) -> i32 {
        let Some(db) = self.order else { return 0 };
        match *o {
            Outcome::End { mover } => 2 * mover as i32,
            Outcome::Capture { seeds: c, next } => {
                let m = n - c as i32;
                2 * c as i32 + 2 * m - db.values(m as usize, rank(&next)).v as i32
            }
            Outcome::Stay { next } => 2 * n - db.values(n as usize, rank(&next)).v as i32,
        }
    }

    /// Negamax on `b` (not ended), its mover `side`, `hist` counting the
    /// occurrences of this layer's positions (`b`'s own included): the
    /// mover's value if it lies in `alpha..beta`, else a bound beyond the
    /// window on the same side.
    fn search(
        &mut self,
        b: &Board,
        side: bool,
        hist: &mut Map<Key, u8>,
        mut alpha: i32,
        beta: i32,
    ) -> Result<i32, OutOfBudget> {
        self.nodes += 1;
        self.total_nodes += 1;
        if self.nodes > self.budget {
            return Err(OutOfBudget);
        }
        let n = seeds(b);
        let all = 2 * n;
        let mut list: [(i32, Outcome); 5] = [(0, Outcome::End { mover: 0 }); 5];
        let mut count = 0;
        for (_, o) in moves(b, self.skip_origin) {
            // Without a database, exits first: cheap, and often enough.
            let g = match (self.order, o) {
                (None, Outcome::Stay { .. }) => 0,
                (None, _) => 1,
                _ => self.guess(n, &o),
            };
            list[count] = (g, o);
            count += 1;
        }
        let list = &mut list[..count];
        list.sort_by_key(|&(g, _)| -g);
        let mut best = -1;
        for &(_, o) in list.iter() {
            let score = match o {
                Outcome::End { mover } => 2 * mover as i32,
                Outcome::Capture { seeds: c, next } => {
                    let gain = 2 * c as i32 + 2 * (n - c as i32);
                    gain - self.fresh(&next, gain - beta, gain - alpha)?
                }
                Outcome::Stay { next } => {
                    let k = key(&next, !side);
                    let seen = hist.get(&k).copied().unwrap_or(0);
                    if seen >= 2 {
                        // Its third occurrence: the sweep, the opponent to
                        // move there (his holes first on `next`).
                        2 * next[4..].iter().map(|&s| s as i32).sum::<i32>()
                    } else {
                        hist.insert(k, seen + 1);
                        let r = self.search(&next, !side, hist, all - beta, all - alpha);
                        if seen == 0 {
                            hist.remove(&k);
                        } else {
                            hist.insert(k, seen);
                        }
                        all - r?
                    }
                }
            };
            best = best.max(score);
            alpha = alpha.max(best);
            if alpha >= beta {
                break;
            }
        }
        Ok(best)
    }
}

/// The seeds on a board.
fn seeds(b: &Board) -> i32 {
    b.iter().map(|&s| s as i32).sum()
}

/// The exact value (half seeds, for the mover) of a game started on
/// `board` with no history, under `no-trades` (and `skip-origin` when
/// `skip_origin`), or `None` if the search needs more than `budget` nodes:
/// the check `gore solve --verify` runs on sampled boards of small layers.
///
/// ```
/// use gore_solver::history::exact_value;
/// // 3 seeds in the mover's first hole: sown to his next three, over, all his.
/// assert_eq!(exact_value(&[3, 0, 0, 0, 0, 0, 0, 0], false, 1000), Some(6));
/// ```
pub fn exact_value(board: &Board, skip_origin: bool, budget: u64) -> Option<u8> {
    Exact::new(skip_origin).value(board, budget)
}
