//! The index is a bijection on every layer: checked whole on the small
//! layers against an independent enumeration, and by properties up to 20
//! seeds (and on random boards of every layer).

use gore_solver::index::{layer_size, rank, unrank, HOLES, MAX_SEEDS};
use proptest::prelude::*;

/// Every board of `n` seeds, in no particular order: nested loops over the
/// first seven holes, the eighth taking the rest (an enumeration that knows
/// nothing of the combinatorial number system).
fn every_board(n: usize) -> Vec<[u8; HOLES]> {
    let mut out = Vec::new();
    let mut b = [0u8; HOLES];
    fn go(hole: usize, left: usize, b: &mut [u8; HOLES], out: &mut Vec<[u8; HOLES]>) {
        if hole == HOLES - 1 {
            b[hole] = left as u8;
            out.push(*b);
            return;
        }
        for s in 0..=left {
            b[hole] = s as u8;
            go(hole + 1, left - s, b, out);
        }
    }
    go(0, n, &mut b, &mut out);
    out
}

/// Layers 0 to 12 whole: every board gets a distinct rank below the
/// layer's size (so all of them are used), and unrank gives it back.
#[test]
fn every_board_of_the_small_layers() {
    for n in 0..=12 {
        let boards = every_board(n);
        assert_eq!(boards.len() as u64, layer_size(n), "layer {n}");
        let mut seen = vec![false; boards.len()];
        for b in &boards {
            let r = rank(b);
            assert!(r < layer_size(n), "layer {n}: {b:?} ranked {r}");
            assert!(!seen[r as usize], "layer {n}: rank {r} twice");
            seen[r as usize] = true;
            assert_eq!(unrank(n, r), *b);
        }
    }
}

proptest! {
    /// Up to 20 seeds: any rank of the layer unranks to a board of that
    /// layer, which ranks back to it.
    #[test]
    fn unrank_then_rank(n in 0usize..=20, frac in 0.0f64..1.0) {
        let r = ((layer_size(n) as f64) * frac) as u64;
        let r = r.min(layer_size(n) - 1);
        let b = unrank(n, r);
        prop_assert_eq!(b.iter().map(|&s| s as usize).sum::<usize>(), n);
        prop_assert_eq!(rank(&b), r);
    }

    /// Any board of any layer (up to 48 seeds) ranks inside its layer and
    /// unranks back.
    #[test]
    fn rank_then_unrank(cuts in proptest::collection::vec(0usize..=MAX_SEEDS, HOLES - 1)) {
        // Seven cuts of 0..=n sorted give a uniform-ish composition of n.
        let n = *cuts.iter().max().unwrap();
        let mut cuts = cuts;
        cuts.sort_unstable();
        let mut b = [0u8; HOLES];
        let mut prev = 0;
        for (k, c) in cuts.iter().enumerate() {
            b[k] = (c - prev) as u8;
            prev = *c;
        }
        b[HOLES - 1] = (n - prev) as u8;
        let r = rank(&b);
        prop_assert!(r < layer_size(n));
        prop_assert_eq!(unrank(n, r), b);
    }

    /// Ranks keep the boards' order: consecutive ranks are distinct boards.
    #[test]
    fn neighbours_differ(n in 1usize..=20, frac in 0.0f64..1.0) {
        let size = layer_size(n);
        let r = (((size - 1) as f64) * frac) as u64;
        let r = r.min(size - 2);
        prop_assert_ne!(unrank(n, r), unrank(n, r + 1));
    }
}
