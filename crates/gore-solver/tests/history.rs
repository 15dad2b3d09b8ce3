//! The exact search with history (gore_solver::history) against hand
//! arithmetic, and the database's bounds against it: on every board of
//! the small layers, LB <= exact <= UB, and exact = LB where LB = UB.

use gore_solver::history::{exact_value, Exact};
use gore_solver::index::{layer_size, unrank};
use gore_solver::naive;
use gore_solver::Lookup;

/// The layers checked on every board, both rule sets.
const UP_TO: usize = 8;

/// By hand (half seeds; the mover's holes first), as in tests/naive.rs:
/// no cycle is possible on these, so the real rule changes nothing.
#[test]
fn tiny_boards_by_hand() {
    assert_eq!(exact_value(&[3, 0, 0, 0, 0, 0, 0, 0], false, 1000), Some(6));
    assert_eq!(exact_value(&[0, 0, 0, 0, 3, 0, 0, 0], false, 1000), Some(0));
    assert_eq!(exact_value(&[0, 0, 0, 3, 0, 0, 0, 0], false, 1000), Some(0));
    assert_eq!(exact_value(&[0, 0, 1, 3, 0, 0, 0, 0], false, 1000), Some(2));
    // Over already: the sweep, 2 and 1 of the mover's.
    assert_eq!(exact_value(&[2, 0, 0, 0, 1, 1, 0, 0], false, 1000), Some(4));
    // Beyond its budget the search says so.
    assert_eq!(exact_value(&[0, 0, 1, 3, 0, 0, 0, 0], false, 1), None);
}

/// The history counts: the mover of `b` must pass, and the opponent then
/// sows his 3 into the mover's first three holes, which ends the game with
/// all 3 the mover's (6). But if the position after the pass has occurred
/// twice already, the pass is its third occurrence: the sweep gives the
/// opponent the 3 in his hole (0 for the mover).
#[test]
fn a_third_occurrence_ends_with_the_sweep() {
    let b = [0, 0, 0, 0, 0, 0, 0, 3];
    let after_pass = [0, 0, 0, 3, 0, 0, 0, 0];
    let mut e = Exact::new(false);
    assert_eq!(e.value_after(&b, &[], 1000), Some(6));
    assert_eq!(e.value_after(&b, &[(after_pass, false)], 1000), Some(6));
    let twice = [(after_pass, false), (b, true), (after_pass, false)];
    assert_eq!(e.value_after(&b, &twice, 1000), Some(0));
    // And `b` itself a third time: over at once, its sweep (nothing his).
    assert_eq!(e.value_after(&b, &[(b, true), (b, true)], 1000), Some(0));
}

/// The full-window search (no ordering) agrees with the reference where
/// the reference is exact, on every board of the layers up to 7.
#[test]
fn full_values_where_exact() {
    for skip in [false, true] {
        let db = naive::memory(7, skip);
        let mut exact = Exact::new(skip);
        for n in 0..=7 {
            for r in 0..layer_size(n) {
                let x = db.values(n, r);
                if x.exact() {
                    let b = unrank(n, r);
                    assert_eq!(exact.value(&b, 10_000_000), Some(x.lb), "{b:?}");
                }
            }
        }
    }
}

/// On every board of layers 0..=8, both rule sets: the exact value is at
/// least LB and at most UB (so equal to both where they meet). Each side
/// is proved by a null-window search, the database only ordering actions.
/// (Layers 9 and 10 pass too but take minutes: `gore solve --verify`
/// checks samples of them, and of the layers up to 10, on every build.)
#[test]
fn bounds_hold_the_exact_value() {
    bounds_hold(UP_TO);
}

fn bounds_hold(up_to: usize) {
    for skip in [false, true] {
        let db = naive::memory(up_to, skip);
        let mut exact = Exact::ordered_by(skip, &db);
        for n in 0..=up_to {
            let before = exact.total_nodes;
            let mut boards_exact = 0;
            for r in 0..layer_size(n) {
                let b = unrank(n, r);
                let x = db.values(n, r);
                let budget = 20_000_000;
                let over = || panic!("layer {n} {b:?}: over budget");
                let lo = exact.at_least(&b, x.lb, budget).unwrap_or_else(over);
                let hi = exact.at_most(&b, x.ub, budget).unwrap_or_else(over);
                assert!(
                    lo && hi,
                    "layer {n} {b:?} (skip-origin {skip}): exact value outside [{}, {}]",
                    x.lb,
                    x.ub
                );
                boards_exact += x.exact() as u32;
            }
            eprintln!(
                "skip {skip} layer {n}: {} nodes",
                exact.total_nodes - before
            );
            assert!(boards_exact > 0, "layer {n}: no exact board");
        }
    }
}

/// Where the bounds part (LB < UB: from layer 13 up), the exact value
/// must still lie between them. Layer 13 of `no-trades`, every tenth board
/// whose bounds differ (all of them pass too, in minutes), each side proved
/// within a node budget; most are proved, and a board beyond the budget is
/// counted, not failed.
#[test]
fn where_the_bounds_part() {
    let n = 13;
    let db = gore_solver::solve::solve_up_to(n, false, &gore_solver::par::Sequential);
    let mut exact = Exact::ordered_by(false, &db);
    let (mut parted, mut proved, mut beyond) = (0, 0, 0);
    for r in 0..layer_size(n) {
        let x = db.values(n, r);
        if x.exact() {
            continue;
        }
        parted += 1;
        if parted % 10 != 1 {
            continue;
        }
        let b = unrank(n, r);
        let budget = 2_000_000;
        let lo = exact.at_least(&b, x.lb, budget);
        let hi = exact.at_most(&b, x.ub, budget);
        assert_ne!(lo, Some(false), "{b:?}: exact value below LB {}", x.lb);
        assert_ne!(hi, Some(false), "{b:?}: exact value above UB {}", x.ub);
        if lo.is_some() && hi.is_some() {
            proved += 1;
        } else {
            beyond += 1;
        }
    }
    eprintln!("layer {n}: {parted} boards with LB < UB, {proved} of a tenth proved inside, {beyond} beyond the budget");
    assert!(parted > 0, "layer 13 has boards with LB < UB");
    assert!(
        proved >= 11,
        "most of the sample proved: {proved} of {}",
        proved + beyond
    );
}
