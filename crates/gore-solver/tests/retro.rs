//! The retrograde analysis against the reference solver (the definitions
//! of RULES.md by fixed-point iteration) on every board of the layers 0
//! to 14, under both rule sets, and the un-moves against the moves.

use gore_solver::index::{layer_size, next_board, rank, unrank};
use gore_solver::moves::{is_ended, moves, unmoves, Outcome};
use gore_solver::naive;
use gore_solver::par::Sequential;
use gore_solver::solve::solve_up_to;
use std::collections::HashMap;

/// Every in-layer predecessor the moves give, as a multiset per board,
/// equals what `unmoves` finds, on every board of the layers 0 to 13.
#[test]
fn unmoves_invert_the_moves() {
    for skip in [false, true] {
        for n in 0..=13usize {
            let mut preds: HashMap<[u8; 8], Vec<[u8; 8]>> = HashMap::new();
            let mut b = unrank(n, 0);
            loop {
                if !is_ended(&b) {
                    for (_, o) in moves(&b, skip) {
                        if let Outcome::Stay { next } = o {
                            preds.entry(next).or_default().push(b);
                        }
                    }
                }
                if !next_board(&mut b) {
                    break;
                }
            }
            let mut b = unrank(n, 0);
            loop {
                if !is_ended(&b) {
                    let mut found = Vec::new();
                    unmoves(&b, skip, |y| found.push(*y));
                    found.sort();
                    let mut want = preds.remove(&b).unwrap_or_default();
                    want.sort();
                    assert_eq!(found, want, "predecessors of {b:?}, skip-origin {skip}");
                }
                if !next_board(&mut b) {
                    break;
                }
            }
        }
    }
}

/// Walking a layer with `next_board` from its first board visits every
/// rank in order, each board once, and `unrank` agrees with the walk: the
/// index is a bijection onto `0..layer_size(n)` on every layer up to 20
/// (the walk's boards are distinct compositions of n, since each one's
/// rank is one more than the last's).
#[test]
fn next_board_walks_the_ranks() {
    for n in 0..=20usize {
        let mut b = unrank(n, 0);
        for r in 1..layer_size(n) {
            assert!(next_board(&mut b));
            assert_eq!(b.iter().map(|&s| s as usize).sum::<usize>(), n);
            assert_eq!(rank(&b), r, "layer {n}");
            assert_eq!(unrank(n, r), b, "layer {n}");
        }
        assert!(!next_board(&mut b), "layer {n} ends");
    }
}

/// V, LB and UB of every board of the layers 0 to 14 equal the
/// reference's, both rule sets.
#[test]
fn equals_the_definitions_up_to_14() {
    for skip in [false, true] {
        let fast = solve_up_to(14, skip, &Sequential);
        let slow = naive::memory(14, skip);
        for n in 0..=14 {
            for (r, (a, b)) in fast.layers[n]
                .values
                .iter()
                .zip(&slow.layers[n].values)
                .enumerate()
            {
                assert_eq!(
                    a,
                    b,
                    "layer {n}, board {:?}, skip-origin {skip}",
                    unrank(n, r as u64)
                );
            }
        }
    }
}

/// On every board of the layers up to 20, both rule sets: V obeys the
/// Bellman equation (V = the best of its actions' values, captures
/// scored by the lower layer's V, in-layer actions 2n less the opponent's
/// V), and LB <= V <= UB (the bounds bracket V, layer by layer: RULES.md).
#[test]
fn bellman_and_bracket_up_to_20() {
    for skip in [false, true] {
        let db = solve_up_to(20, skip, &Sequential);
        let val = |b: &[u8; 8]| {
            let n: usize = b.iter().map(|&s| s as usize).sum();
            db.layers[n].values[rank(b) as usize]
        };
        for n in 0..=20usize {
            let all = 2 * n as u8;
            let mut b = unrank(n, 0);
            loop {
                let x = val(&b);
                assert!(x.lb <= x.v && x.v <= x.ub, "layer {n} {b:?}: {x:?}");
                if is_ended(&b) {
                    let own = 2 * b[..4].iter().sum::<u8>();
                    assert_eq!((x.v, x.lb, x.ub), (own, own, own), "{b:?} is over");
                } else {
                    let best = moves(&b, skip)
                        .map(|(_, o)| match o {
                            Outcome::End { mover } => 2 * mover,
                            Outcome::Stay { next } => all - val(&next).v,
                            Outcome::Capture { seeds, next } => {
                                2 * seeds + (all - 2 * seeds) - val(&next).v
                            }
                        })
                        .max()
                        .unwrap();
                    assert_eq!(x.v, best, "layer {n} {b:?} (skip-origin {skip})");
                }
                if !next_board(&mut b) {
                    break;
                }
            }
        }
    }
}
