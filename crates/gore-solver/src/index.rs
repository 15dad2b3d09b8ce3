//! A perfect index of each layer: the boards with `n` seeds in 8 holes,
//! numbered `0..layer_size(n)` without gaps (the combinatorial number
//! system), and its inverse.
//!
//! A board `h[0..8]` with `h[0] + … + h[7] = n` is a row of `n` seeds with
//! 7 bars between the holes: the bars stand at `p[k] = h[0] + … + h[k] + k`
//! for `k` in `0..7`, seven distinct places among `n + 7`. The rank is the
//! colex rank of that 7-subset, `C(p[0], 1) + C(p[1], 2) + … + C(p[6], 7)`,
//! which runs over `0..C(n + 7, 7)` exactly once.
//!
//! ```
//! use gore_solver::index::{layer_size, rank, unrank};
//! assert_eq!(layer_size(0), 1);
//! assert_eq!(layer_size(48), 202_927_725);
//! let board = [6, 6, 6, 6, 6, 6, 6, 6];
//! let r = rank(&board);
//! assert!(r < layer_size(48));
//! assert_eq!(unrank(48, r), board);
//! ```

/// The most seeds a board holds (8 holes of 6).
pub const MAX_SEEDS: usize = 48;

/// Holes on a board.
pub const HOLES: usize = 8;

/// `BINOM[m][k]` = C(m, k) for `m` up to `MAX_SEEDS + HOLES` and `k` up to
/// `HOLES`: every binomial the index needs, computed at compile time.
const BINOM: [[u64; HOLES + 1]; MAX_SEEDS + HOLES + 1] = {
    let mut t = [[0u64; HOLES + 1]; MAX_SEEDS + HOLES + 1];
    let mut m = 0;
    while m <= MAX_SEEDS + HOLES {
        t[m][0] = 1;
        let mut k = 1;
        while k <= HOLES && k <= m {
            t[m][k] = t[m - 1][k - 1] + if k < m { t[m - 1][k] } else { 0 };
            k += 1;
        }
        m += 1;
    }
    t
};

/// C(m, k) for the index's range (0 when `k > m`).
#[inline]
fn binom(m: usize, k: usize) -> u64 {
    BINOM[m][k]
}

/// The number of boards with `n` seeds: C(n + 7, 7).
///
/// # Panics
/// If `n > MAX_SEEDS`.
pub fn layer_size(n: usize) -> u64 {
    assert!(n <= MAX_SEEDS, "a board holds at most {MAX_SEEDS} seeds");
    binom(n + HOLES - 1, HOLES - 1)
}

/// The boards of every layer up to `n` together: C(n + 8, 8).
pub fn boards_up_to(n: usize) -> u64 {
    assert!(n <= MAX_SEEDS, "a board holds at most {MAX_SEEDS} seeds");
    binom(n + HOLES, HOLES)
}

/// The rank of a board within its layer (`n` = its seeds).
///
/// # Panics
/// If the board holds more than [`MAX_SEEDS`] seeds.
#[inline]
pub fn rank(board: &[u8; HOLES]) -> u64 {
    let mut r = 0;
    let mut place = 0usize;
    for (k, &seeds) in board[..HOLES - 1].iter().enumerate() {
        place += seeds as usize;
        r += binom(place + k, k + 1);
    }
    debug_assert!(place + board[HOLES - 1] as usize <= MAX_SEEDS);
    r
}

/// The board of layer `n` whose rank is `r`.
///
/// # Panics
/// If `r >= layer_size(n)`.
#[inline]
pub fn unrank(n: usize, mut r: u64) -> [u8; HOLES] {
    assert!(r < layer_size(n), "rank {r} is outside layer {n}");
    // The bars' places, the last first: the largest place p with
    // C(p, k + 1) <= r, then the rest of r for the bars before it.
    let mut places = [0usize; HOLES - 1];
    let mut top = n + HOLES - 2; // the last place a bar may take
    for k in (0..HOLES - 1).rev() {
        let mut p = top;
        while binom(p, k + 1) > r {
            p -= 1;
        }
        r -= binom(p, k + 1);
        places[k] = p;
        top = p.saturating_sub(1);
    }
    let mut board = [0u8; HOLES];
    let mut before = 0usize; // seeds and bars before this hole
    for k in 0..HOLES - 1 {
        board[k] = (places[k] - before) as u8;
        before = places[k] + 1;
    }
    board[HOLES - 1] = (n + HOLES - 1 - before) as u8;
    board
}

/// The board of the next rank in the same layer, in place; `false` (and
/// the board unchanged) on the layer's last board. Walking a layer this
/// way is cheaper than unranking each board.
///
/// ```
/// use gore_solver::index::{next_board, rank, unrank};
/// let mut b = unrank(5, 100);
/// assert!(next_board(&mut b));
/// assert_eq!(rank(&b), 101);
/// ```
#[inline]
pub fn next_board(board: &mut [u8; HOLES]) -> bool {
    // The colex successor of the bars' places: the first bar that can move
    // up does, and the bars below it go back to the bottom; in holes, the
    // first hole after the first with seeds gives one up, and the first
    // hole's seeds (plus that one) go to the hole just before it.
    let Some(j) = (1..HOLES).find(|&j| board[j] > 0) else {
        return false;
    };
    let first = board[0];
    board[0] = 0;
    board[j - 1] = first + 1;
    board[j] -= 1;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The binomials by Pascal's rule, and the totals the module's docs
    /// state (C(56, 8) boards, C(55, 7) with 48 seeds).
    #[test]
    fn sizes() {
        assert_eq!(layer_size(48), 202_927_725);
        assert_eq!(boards_up_to(48), 1_420_494_075);
        assert_eq!(layer_size(1), 8);
        assert_eq!(layer_size(2), 36);
        let total: u64 = (0..=MAX_SEEDS).map(layer_size).sum();
        assert_eq!(total, boards_up_to(48));
    }
}
