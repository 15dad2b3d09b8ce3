//! A plain reference solver for small layers: the definitions of
//! ../shared/RULES.md, "Solved values", computed literally by fixed-point
//! iteration over each layer. Slow (every board visited many times); for
//! the tests, and for checking the real analysis on small layers.
//!
//! All values are in **half seeds** of the layer's `n`, for the player to
//! move: `2n` is everything.
//!
//! Per layer, with the lower layers known, each action of a board is an
//! *exit* (a capture, scored with the lower layer's value of the board
//! left to the opponent, or the end of the game) or a *stay* in the layer
//! (scored `2n` less the opponent's value there). A pair (lo, hi) is the
//! least / greatest fixed point of
//! `lo(s) = max(exits, 2n − hi(next))`, `hi(s) = max(exits', 2n − lo(next))`:
//! lo is what the mover forces by an exit in a bounded number of actions
//! when never-ending play gives him nothing, hi the least he can be held
//! to when it gives him everything. Then
//! - V = max(lo, min(n, hi)) with every exit scored by the lower layers' V;
//! - (LB, UB) = (lo, hi) with the exits of lo scored as the capturer's
//!   lower bound (his captures plus the seeds left less the opponent's UB
//!   there) and those of hi as his upper bound (less the opponent's LB).

use crate::index::{layer_size, rank, unrank};
use crate::moves::{is_ended, moves, Outcome};
use crate::values::{Lookup, Memory, SolvedLayer, Values};

/// One layer's values, by rank, in half seeds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    /// The stored value (never-ending play an even split).
    pub v: Vec<u16>,
    /// The lower bound under the real rule.
    pub lb: Vec<u16>,
    /// The upper bound under the real rule.
    pub ub: Vec<u16>,
}

/// Which of a lower layer's values scores a capture.
#[derive(Clone, Copy)]
enum Score {
    V,
    Lb,
    Ub,
}

/// The layers `0..=max_n`.
pub fn solve(max_n: usize, skip_origin: bool) -> Vec<Layer> {
    let mut layers: Vec<Layer> = Vec::with_capacity(max_n + 1);
    for n in 0..=max_n {
        let layer = solve_layer(n, skip_origin, |m, at| {
            let low = &layers[m];
            [low.v[at], low.lb[at], low.ub[at]]
        });
        layers.push(layer);
    }
    layers
}

/// The layers `0..=max_n` as a [`Memory`], the form the rest of the crate
/// reads (tests, and small databases for the commands' tests).
pub fn memory(max_n: usize, skip_origin: bool) -> Memory {
    let layers = solve(max_n, skip_origin)
        .into_iter()
        .enumerate()
        .map(|(n, l)| SolvedLayer {
            n,
            values: (0..l.v.len())
                .map(|i| Values {
                    v: l.v[i] as u8,
                    lb: l.lb[i] as u8,
                    ub: l.ub[i] as u8,
                })
                .collect(),
        })
        .collect();
    Memory { layers }
}

/// One layer by the definitions, the lower layers' values (V, LB, UB of
/// the board of rank `at` in layer `m`) read through `lower`.
pub fn layer_from(n: usize, skip_origin: bool, lower: &dyn Lookup) -> SolvedLayer {
    let l = solve_layer(n, skip_origin, |m, at| {
        let x = lower.values(m, at as u64);
        [x.v as u16, x.lb as u16, x.ub as u16]
    });
    SolvedLayer {
        n,
        values: (0..l.v.len())
            .map(|i| Values {
                v: l.v[i] as u8,
                lb: l.lb[i] as u8,
                ub: l.ub[i] as u8,
            })
            .collect(),
    }
}

/// One action's place in the iteration: a fixed score, or a board of the
/// same layer (by rank) whose opponent's value it is `2n` less.
#[derive(Clone, Copy)]
enum Step {
    Exit([u16; 3]),
    Stay(usize),
}

fn solve_layer(n: usize, skip_origin: bool, lower: impl Fn(usize, usize) -> [u16; 3]) -> Layer {
    let size = layer_size(n) as usize;
    let all = 2 * n as u16;
    // Each board's steps, or its value when the game is over on it.
    let mut steps: Vec<Vec<Step>> = Vec::with_capacity(size);
    let mut over: Vec<Option<u16>> = Vec::with_capacity(size);
    for r in 0..size {
        let b = unrank(n, r as u64);
        if is_ended(&b) {
            let own: u16 = b[..4].iter().map(|&s| s as u16).sum();
            over.push(Some(2 * own));
            steps.push(Vec::new());
            continue;
        }
        over.push(None);
        let list = moves(&b, skip_origin)
            .map(|(_, o)| match o {
                Outcome::Stay { next } => Step::Stay(rank(&next) as usize),
                Outcome::End { mover } => Step::Exit([2 * mover as u16; 3]),
                Outcome::Capture { seeds, next } => {
                    let m = n - seeds as usize;
                    let at = rank(&next) as usize;
                    let [v, lb, ub] = lower(m, at);
                    let score = |x: u16| 2 * seeds as u16 + (2 * m as u16 - x);
                    Step::Exit([score(v), score(ub), score(lb)])
                }
            })
            .collect();
        steps.push(list);
    }
    let pair = |low: Score, high: Score| -> (Vec<u16>, Vec<u16>) {
        let (kl, kh) = (low as usize, high as usize);
        let mut lo: Vec<u16> = over.iter().map(|o| o.unwrap_or(0)).collect();
        let mut hi: Vec<u16> = over.iter().map(|o| o.unwrap_or(all)).collect();
        loop {
            let mut changed = false;
            let (old_lo, old_hi) = (lo.clone(), hi.clone());
            for s in 0..size {
                if over[s].is_some() {
                    continue;
                }
                let (mut l, mut h) = (0u16, 0u16);
                for st in &steps[s] {
                    let (a, b) = match *st {
                        Step::Exit(e) => (e[kl], e[kh]),
                        Step::Stay(t) => (all - old_hi[t], all - old_lo[t]),
                    };
                    l = l.max(a);
                    h = h.max(b);
                }
                if l != lo[s] || h != hi[s] {
                    changed = true;
                    lo[s] = l;
                    hi[s] = h;
                }
            }
            if !changed {
                return (lo, hi);
            }
        }
    };
    let (lo, hi) = pair(Score::V, Score::V);
    let v = lo
        .iter()
        .zip(&hi)
        .map(|(&l, &h)| l.max(h.min(n as u16)))
        .collect();
    let (lb, ub) = pair(Score::Lb, Score::Ub);
    Layer { v, lb, ub }
}
