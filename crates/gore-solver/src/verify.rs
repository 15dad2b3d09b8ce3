//! Checks of a solved database that need only its stored values (one ply
//! from each board checked), for `gore solve --verify`:
//!
//! - **Bellman**: V(s) = the best action's V-score: an exit's (a capture
//!   `2c + (2m − V(next))`, the end `2 × mover's seeds`) or `2n − V(t)`
//!   for an action to `t` inside the layer;
//! - **the bounds' fixed-point equations**: (LB, UB) is the pair (lo, hi)
//!   of RULES.md ("Solved values") with lo's exits scored as the mover's
//!   lower bound (a capture's `2c + (2m − UB(next))`) and hi's as his upper
//!   bound (`2c + (2m − LB(next))`), the reference in [`crate::naive`]:
//!   `LB(s) = max(E_LB(s), max_t (2n − UB(t)))` and
//!   `UB(s) = max(E_UB(s), max_t (2n − LB(t)))`, `t` over the boards the
//!   actions inside the layer reach. Both sides are stored values, so one
//!   ply checks them (each of LB and UB read through the other);
//! - **order**: LB ≤ V ≤ UB ≤ 2n, and on an ended board all three are
//!   twice the mover's seeds.
//!
//! A third check, exactness against a search with the repetition history
//! on small layers, plugs in as an [`ExtraCheck`]: `gore solve --verify`
//! passes one that proves LB <= exact <= UB with [`crate::history`].

use core::fmt;

use crate::board::Board;
use crate::index::{layer_size, rank, unrank};
use crate::moves::{is_ended, moves, Outcome};
use crate::values::{Lookup, Values};

/// Which property a board breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// V is not the best action's V-score.
    Bellman,
    /// LB is not the right side of its equation.
    LowerBound,
    /// UB is not the right side of its equation.
    UpperBound,
    /// Not LB ≤ V ≤ UB ≤ 2n, or an ended board not valued at its seeds.
    Order,
    /// An extra check (e.g. a search with the history) disagreed.
    Extra,
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Check::Bellman => "Bellman property (V = best action)",
            Check::LowerBound => "LB fixed-point equation",
            Check::UpperBound => "UB fixed-point equation",
            Check::Order => "LB <= V <= UB <= 2n",
            Check::Extra => "extra check",
        })
    }
}

/// A board that fails a check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Its layer.
    pub n: usize,
    /// Its rank.
    pub rank: u64,
    /// The board, mover's holes first.
    pub board: Board,
    /// The property broken.
    pub check: Check,
    /// The stored values.
    pub found: Values,
    /// What the property asks for (half seeds), or why (extra checks).
    pub expected: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.found;
        write!(
            f,
            "layer {} rank {} board {:?}: {} fails: stored V {} LB {} UB {} (half seeds), expected {}",
            self.n, self.rank, self.board, self.check, x.v, x.lb, x.ub, self.expected
        )
    }
}

impl std::error::Error for Failure {}

/// A further check of one board (layer, rank), e.g. exactness against a
/// search with the history; `Err` says what disagreed.
pub type ExtraCheck<'a> = &'a (dyn Fn(&dyn Lookup, usize, u64) -> Result<(), String> + Sync);

/// A board's actions split for the checks: the exits' three scores and
/// the ranks of the in-layer successors.
struct Actions {
    /// Each exit's (V, LB, UB) scores, from the mover's side.
    exits: Vec<[u8; 3]>,
    /// Ranks of the boards reached inside the layer (opponent to move).
    stays: Vec<u64>,
}

fn actions(db: &dyn Lookup, n: usize, b: &Board, skip_origin: bool) -> Actions {
    let mut a = Actions {
        exits: Vec::new(),
        stays: Vec::new(),
    };
    for (_, o) in moves(b, skip_origin) {
        match o {
            Outcome::Stay { next } => a.stays.push(rank(&next)),
            Outcome::End { mover } => a.exits.push([2 * mover; 3]),
            Outcome::Capture { seeds, next } => {
                let m = n - seeds as usize;
                let x = db.values(m, rank(&next));
                let s = |y: u8| 2 * seeds + (2 * m as u8 - y);
                a.exits.push([s(x.v), s(x.ub), s(x.lb)]);
            }
        }
    }
    a
}

/// The best exit score of kind `k` (0 V, 1 LB, 2 UB); 0 with no exit
/// (the fixed points start from 0: no exit forces nothing).
fn best_exit(a: &Actions, k: usize) -> u8 {
    a.exits.iter().map(|e| e[k]).max().unwrap_or(0)
}

/// Checks one board of layer `n`: order, Bellman and both bounds'
/// equations, reading layer `n` and the layers below from `db`.
pub fn check_board(db: &dyn Lookup, n: usize, r: u64, skip_origin: bool) -> Result<(), Failure> {
    let b = unrank(n, r);
    let x = db.values(n, r);
    let all = 2 * n as u8;
    let fail = |check, expected: String| Failure {
        n,
        rank: r,
        board: b,
        check,
        found: x,
        expected,
    };
    if is_ended(&b) {
        let own = 2 * b[..4].iter().sum::<u8>();
        if x != (Values {
            v: own,
            lb: own,
            ub: own,
        }) {
            return Err(fail(
                Check::Order,
                format!("{own} for all three (the game is over)"),
            ));
        }
        return Ok(());
    }
    if !(x.lb <= x.v && x.v <= x.ub && x.ub <= all) {
        return Err(fail(Check::Order, format!("LB <= V <= UB <= {all}")));
    }
    let a = actions(db, n, &b, skip_origin);
    let bellman = a
        .stays
        .iter()
        .map(|&t| all - db.values(n, t).v)
        .chain(a.exits.iter().map(|e| e[0]))
        .max()
        .expect("a board not ended has an action");
    if x.v != bellman {
        return Err(fail(Check::Bellman, bellman.to_string()));
    }
    // LB from the LB-scores of the exits and the opponent's UB inside
    // the layer; UB from the UB-scores and the opponent's LB.
    let (mut lb, mut ub) = (best_exit(&a, 1), best_exit(&a, 2));
    for &t in &a.stays {
        let y = db.values(n, t);
        lb = lb.max(all - y.ub);
        ub = ub.max(all - y.lb);
    }
    if x.lb != lb {
        return Err(fail(Check::LowerBound, lb.to_string()));
    }
    if x.ub != ub {
        return Err(fail(Check::UpperBound, ub.to_string()));
    }
    Ok(())
}

/// Checks the boards `ranks` of layer `n`, then `extra` on each if given;
/// returns how many were checked, or the first failure.
pub fn check_layer(
    db: &dyn Lookup,
    n: usize,
    skip_origin: bool,
    ranks: &[u64],
    extra: Option<ExtraCheck<'_>>,
) -> Result<u64, Failure> {
    for &r in ranks {
        check_board(db, n, r, skip_origin)?;
        if let Some(check) = extra {
            check(db, n, r).map_err(|why| Failure {
                n,
                rank: r,
                board: unrank(n, r),
                check: Check::Extra,
                found: db.values(n, r),
                expected: why,
            })?;
        }
    }
    Ok(ranks.len() as u64)
}

/// `k` ranks of layer `n` drawn from `seed` (every rank, in order, when
/// `k` covers the layer): the same sample for the same seed.
pub fn sample(n: usize, k: u64, seed: u64) -> Vec<u64> {
    let size = layer_size(n);
    if k >= size {
        return (0..size).collect();
    }
    // SplitMix64: a few lines, no dependency, and reproducible.
    let mut state = seed ^ (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut ranks: Vec<u64> = (0..k).map(|_| next() % size).collect();
    ranks.sort_unstable();
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naive;

    #[test]
    fn the_reference_passes_every_check() {
        for skip in [false, true] {
            let db = naive::memory(10, skip);
            for n in 0..=10 {
                let all: Vec<u64> = (0..layer_size(n)).collect();
                assert_eq!(
                    check_layer(&db, n, skip, &all, None),
                    Ok(layer_size(n)),
                    "layer {n}"
                );
            }
        }
    }

    /// One value changed anywhere fails the layer's check (each of V, LB
    /// and UB, up and down, on every board of a layer with cycles).
    #[test]
    fn a_changed_value_fails() {
        let n = 8;
        let good = naive::memory(n, false);
        let all: Vec<u64> = (0..layer_size(n)).collect();
        let mut caught = 0;
        for r in (0..layer_size(n) as usize).step_by(97) {
            for field in 0..3 {
                for up in [false, true] {
                    let mut bad = good.clone();
                    let x = &mut bad.layers[n].values[r];
                    let f = match field {
                        0 => &mut x.v,
                        1 => &mut x.lb,
                        _ => &mut x.ub,
                    };
                    if (!up && *f == 0) || (up && *f == 2 * n as u8) {
                        continue;
                    }
                    *f = if up { *f + 1 } else { *f - 1 };
                    assert!(
                        check_layer(&bad, n, false, &all, None).is_err(),
                        "rank {r} field {field} up {up}"
                    );
                    caught += 1;
                }
            }
        }
        assert!(caught > 100);
    }

    /// The check at the changed board itself names the property.
    #[test]
    fn failures_name_the_property() {
        let n = 8;
        let mut db = naive::memory(n, false);
        // A board on which the game goes on, with LB < UB if there is one.
        let r = (0..layer_size(n))
            .find(|&r| !is_ended(&unrank(n, r)))
            .unwrap();
        let x = db.layers[n].values[r as usize];
        let v = if x.v > 0 { x.v - 1 } else { x.v + 1 };
        db.layers[n].values[r as usize] = Values {
            v,
            lb: x.lb.min(v),
            ub: x.ub.max(v),
        };
        let e = check_board(&db, n, r, false).unwrap_err();
        assert_eq!(e.check, Check::Bellman, "{e}");
        assert!(!e.to_string().contains('\n'));
    }

    /// In the odd layers from 13 seeds up LB and UB part on some boards:
    /// the checks hold there (the layers solved by the retrograde
    /// analysis) and catch a bound moved on a board where they part.
    #[test]
    fn bounds_apart_are_checked() {
        let n = 13;
        let mut db = crate::solve::solve_up_to(n, false, &crate::par::Sequential);
        let ranks: Vec<u64> = (0..layer_size(n)).collect();
        assert_eq!(check_layer(&db, n, false, &ranks, None), Ok(layer_size(n)));
        let r = (0..layer_size(n))
            .find(|&r| !db.values(n, r).exact())
            .expect("a board of layer 13 with LB < UB");
        assert_eq!(check_board(&db, n, r, false), Ok(()));
        let x = db.layers[n].values[r as usize];
        for bad in [Values { lb: x.lb + 1, ..x }, Values { ub: x.ub - 1, ..x }] {
            db.layers[n].values[r as usize] = bad;
            let e = check_board(&db, n, r, false).unwrap_err();
            assert!(
                matches!(e.check, Check::LowerBound | Check::UpperBound),
                "{e}"
            );
        }
    }

    #[test]
    fn extra_checks_run() {
        let db = naive::memory(4, false);
        let ranks = sample(4, 10, 1);
        let refuse = |_: &dyn Lookup, _: usize, r: u64| {
            if r == ranks[3] {
                Err("disagrees".to_string())
            } else {
                Ok(())
            }
        };
        let e = check_layer(&db, 4, false, &ranks, Some(&refuse)).unwrap_err();
        assert_eq!((e.check, e.rank), (Check::Extra, ranks[3]));
    }

    #[test]
    fn samples_are_reproducible_and_inside() {
        let a = sample(20, 1000, 7);
        assert_eq!(a, sample(20, 1000, 7));
        assert_ne!(a, sample(20, 1000, 8));
        assert!(a.iter().all(|&r| r < layer_size(20)));
        assert_eq!(sample(3, 1000, 7), (0..layer_size(3)).collect::<Vec<_>>());
    }
}
