//! The moves of a board, seen from the player to move, without gore-core
//! in the loop: the solver plays every board of every layer, so it sows
//! on its own `[u8; 8]` (checked against gore-core over whole layers in
//! tests/moves.rs).
//!
//! Holes `0..4` are the mover's, `4..8` the opponent's, and sowing goes
//! from hole `i` to hole `(i + 1) % 8` (a1 → … → a4 → b1 → … → b4 → a1 seen
//! from either side).

use crate::board::Board;

/// What one action of the mover leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing captured and the game goes on: the same layer, the
    /// opponent to move on `next` (seen from the opponent).
    Stay {
        /// The board after the action, from the opponent's side.
        next: Board,
    },
    /// A capture of `seeds`, and the game goes on in a lower layer, the
    /// opponent to move on `next` (seen from the opponent).
    Capture {
        /// Seeds the mover captured.
        seeds: u8,
        /// The board after the capture, from the opponent's side.
        next: Board,
    },
    /// The action ended the game (every hole at most 2 afterwards): of the
    /// layer's seeds the mover ends with `mover` (his captures and the
    /// seeds left in his holes), the opponent with the rest.
    End {
        /// The mover's seeds of the layer's `n`.
        mover: u8,
    },
}

/// The board seen from the other side.
#[inline]
pub fn flip(b: &Board) -> Board {
    [b[4], b[5], b[6], b[7], b[0], b[1], b[2], b[3]]
}

/// Whether the game is over on this board (every hole at most 2).
#[inline]
pub fn is_ended(b: &Board) -> bool {
    b.iter().all(|&s| s <= 2)
}

/// Whether a hole's seeds are taken by a capture (2 or 4).
#[inline]
fn ripe(s: u8) -> bool {
    s == 2 || s == 4
}

/// The moves of the mover on a board that is not ended: one per hole of
/// his with seeds (`Some(hole)`), or a pass (`None`) when all his holes
/// are empty. `skip_origin`: a lap of 8 or more seeds skips its hole.
pub fn moves(b: &Board, skip_origin: bool) -> impl Iterator<Item = (Option<u8>, Outcome)> + '_ {
    debug_assert!(!is_ended(b));
    let pass = b[..4].iter().all(|&s| s == 0);
    let sows = (0..4u8)
        .filter(move |&h| b[h as usize] > 0)
        .map(move |h| (Some(h), sow(b, h as usize, skip_origin)));
    let passes = pass.then(|| (None, Outcome::Stay { next: flip(b) }));
    sows.chain(passes)
}

/// Sows hole `h` (the mover's, not empty) and captures.
pub fn sow(b: &Board, h: usize, skip_origin: bool) -> Outcome {
    let mut board = *b;
    let mut hand = board[h];
    board[h] = 0;
    let mut at = h;
    while hand > 0 {
        at = (at + 1) % 8;
        if skip_origin && at == h {
            continue;
        }
        board[at] += 1;
        hand -= 1;
    }
    let mut taken = 0u8;
    if at >= 4 && ripe(board[at]) {
        // The landing hole, then the runs of 2s and 4s on both sides of
        // it; every hole at most once (a board all ripe is taken whole).
        let mut mark = [false; 8];
        mark[at] = true;
        let mut i = (at + 7) % 8;
        while !mark[i] && ripe(board[i]) {
            mark[i] = true;
            i = (i + 7) % 8;
        }
        let mut i = (at + 1) % 8;
        while !mark[i] && ripe(board[i]) {
            mark[i] = true;
            i = (i + 1) % 8;
        }
        for (s, m) in board.iter_mut().zip(mark) {
            if m {
                taken += *s;
                *s = 0;
            }
        }
    }
    if is_ended(&board) {
        let own: u8 = board[..4].iter().sum();
        return Outcome::End { mover: taken + own };
    }
    let next = flip(&board);
    if taken > 0 {
        Outcome::Capture { seeds: taken, next }
    } else {
        Outcome::Stay { next }
    }
}

/// The in-layer predecessors of a board: every board `y` (of the same
/// layer, not over) with an action that captures nothing, does not end
/// the game, and leaves `x` to the opponent (`x` seen from him). Calls
/// `found(y)` once per such (board, action) pair, so a board with two
/// actions to `x` comes twice, as the move counters count it.
///
/// `x` must not be over (the boards the layer's analysis propagates).
/// The reverse of [`sow`]: the hole `h` sown held `s` seeds and is left
/// with its laps (`s / 8` without skip-origin, none with it); every other
/// hole lost what the sowing dropped in it; the last seed did not make a
/// 2 or a 4 in the opponent's row.
#[inline]
pub fn unmoves(x: &Board, skip_origin: bool, mut found: impl FnMut(&Board)) {
    debug_assert!(!is_ended(x));
    let z = flip(x);
    // A pass: the mover's row was empty, the board is unchanged.
    if z[..4].iter().all(|&s| s == 0) {
        found(&z);
    }
    for h in 0..4usize {
        let (lap, laps) = if skip_origin {
            if z[h] != 0 {
                continue;
            }
            // Any number of whole laps of 7 (the other holes), limited by
            // the emptiest other hole.
            let most = (0..8).filter(|&i| i != h).map(|i| z[i]).min().unwrap_or(0);
            (7u8, 0..=most)
        } else {
            // Exactly z[h] laps of 8 came back to the hole sown.
            (8u8, z[h]..=z[h])
        };
        for q in laps {
            // Take q seeds from every other hole, then the rest one by one.
            let mut y = z;
            let mut ok = true;
            for (i, s) in y.iter_mut().enumerate() {
                if i != h {
                    if *s < q {
                        ok = false;
                        break;
                    }
                    *s -= q;
                }
            }
            if !ok {
                break;
            }
            let mut at = h;
            let base = lap * q;
            for e in 0..lap {
                if e > 0 {
                    at = (at + 1) % 8;
                    if at == h {
                        at = (at + 1) % 8; // only with skip-origin (laps of 7)
                    }
                    if y[at] == 0 {
                        break;
                    }
                    y[at] -= 1;
                }
                let s = base + e;
                if s == 0 {
                    continue;
                }
                // Without skip-origin, s = 8q lands back on h itself.
                let last = if e == 0 {
                    if skip_origin {
                        // 7q seeds end on the hole before h (skipping h).
                        let mut l = (h + 7) % 8;
                        if l == h {
                            l = (l + 7) % 8;
                        }
                        l
                    } else {
                        h
                    }
                } else {
                    at
                };
                if last >= 4 && ripe(z[last]) {
                    continue; // that sowing would have captured
                }
                let mut prev = y;
                prev[h] = s;
                if !is_ended(&prev) {
                    found(&prev);
                }
            }
        }
    }
}
