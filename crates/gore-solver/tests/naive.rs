//! The reference solver (gore_solver::naive) against hand arithmetic on
//! tiny boards, and the properties RULES.md states of its values: V obeys
//! the Bellman equation everywhere (the optimal actions keep V), and
//! LB <= UB (under the coupled definition of the bounds).

use gore_solver::index::{layer_size, rank, unrank};
use gore_solver::moves::{is_ended, moves, Outcome};
use gore_solver::naive::{solve, Layer};

fn v(layers: &[Layer], b: [u8; 8]) -> u16 {
    let n: usize = b.iter().map(|&s| s as usize).sum();
    layers[n].v[rank(&b) as usize]
}

/// Worked by hand (half seeds; the mover's holes first):
/// - 3 seeds in the mover's first hole: sown to his next three, the board
///   is over (every hole at most 2) and all 3 are his: 6.
/// - 3 in the opponent's first hole: the mover can only pass, and the
///   opponent then takes all 3: 0.
/// - 3 in the mover's last hole: sown into the opponent's row, over: 0.
/// - 1 and 3 in the mover's holes 3 and 4: sowing the 3 ends it with 1
///   seed his (2); sowing the 1 makes a 4 that the opponent, who must
///   pass, leaves to him, and sowing it hands all 4 over (0). So 2.
#[test]
fn tiny_boards_by_hand() {
    let layers = solve(4, false);
    assert_eq!(v(&layers, [3, 0, 0, 0, 0, 0, 0, 0]), 6);
    assert_eq!(v(&layers, [0, 0, 0, 0, 3, 0, 0, 0]), 0);
    assert_eq!(v(&layers, [0, 0, 0, 3, 0, 0, 0, 0]), 0);
    assert_eq!(v(&layers, [0, 0, 1, 3, 0, 0, 0, 0]), 2);
    // Boards already over are their sweep: 2 and 1 seeds of the mover's.
    assert_eq!(v(&layers, [2, 0, 0, 0, 1, 1, 0, 0]), 4);
}

/// V(s) = max over actions of the exit's value (a capture scored with
/// the lower layer's V, or the end) or 2n − V(next), on every board of
/// the layers up to 12, both rule sets; and LB <= UB everywhere.
#[test]
fn bellman_and_bounds_up_to_12() {
    for skip in [false, true] {
        let layers = solve(12, skip);
        for n in 0..=12usize {
            let all = 2 * n as u16;
            for r in 0..layer_size(n) {
                let b = unrank(n, r);
                let here = &layers[n];
                let (vv, lb, ub) = (here.v[r as usize], here.lb[r as usize], here.ub[r as usize]);
                assert!(lb <= ub, "layer {n} {b:?}: LB {lb} > UB {ub}");
                if is_ended(&b) {
                    continue;
                }
                let best = moves(&b, skip)
                    .map(|(_, o)| match o {
                        Outcome::End { mover } => 2 * mover as u16,
                        Outcome::Stay { next } => all - v(&layers, next),
                        Outcome::Capture { seeds, next } => {
                            let m = 2 * (n as u16 - seeds as u16);
                            2 * seeds as u16 + (m - v(&layers, next))
                        }
                    })
                    .max()
                    .unwrap();
                assert_eq!(vv, best, "layer {n} {b:?} (skip-origin {skip})");
            }
        }
    }
}
