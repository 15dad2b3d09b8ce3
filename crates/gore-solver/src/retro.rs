//! The analysis of one layer, with the lower layers known.

use crate::index::layer_size;
use crate::par::Workers;
use crate::values::{Lookup, SolvedLayer};

/// What solving a layer measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LayerStats {
    /// The layer.
    pub n: usize,
    /// Boards in it.
    pub boards: u64,
    /// Boards on which the game is over (every hole at most 2).
    pub ended: u64,
    /// Boards whose value is exact (LB = UB).
    pub exact: u64,
    /// Boards on which the mover must pass (his holes empty, the game on).
    pub passes: u64,
    /// The largest UB − LB (half seeds).
    pub max_ub_lb: u8,
    /// The largest V − LB.
    pub max_v_lb: u8,
    /// The largest UB − V.
    pub max_ub_v: u8,
    /// The working memory the layer took, in bytes (its arrays).
    pub scratch_bytes: u64,
}

/// Solves layer `n` (rules `no-trades`, or `no-trades,skip-origin` when
/// `skip_origin`), the layers below read through `lower`. `progress` is
/// called now and then with the boards done so far (out of
/// `layer_size(n)` per pass).
pub fn solve_layer(
    n: usize,
    skip_origin: bool,
    lower: &dyn Lookup,
    workers: &dyn Workers,
    progress: &(dyn Fn(u64) + Sync),
) -> (SolvedLayer, LayerStats) {
    // Placeholder until the retrograde analysis lands: the definitions.
    let _ = workers;
    let layer = crate::naive::layer_from(n, skip_origin, lower);
    progress(layer_size(n));
    let stats = stats_of(&layer, skip_origin);
    (layer, stats)
}

fn stats_of(layer: &SolvedLayer, _skip_origin: bool) -> LayerStats {
    let n = layer.n;
    let mut s = LayerStats {
        n,
        boards: layer_size(n),
        ..LayerStats::default()
    };
    for (r, x) in layer.values.iter().enumerate() {
        let b = crate::index::unrank(n, r as u64);
        if crate::moves::is_ended(&b) {
            s.ended += 1;
        } else if b[..4].iter().all(|&h| h == 0) {
            s.passes += 1;
        }
        if x.exact() {
            s.exact += 1;
        }
        s.max_ub_lb = s.max_ub_lb.max(x.ub - x.lb);
        s.max_v_lb = s.max_v_lb.max(x.v - x.lb);
        s.max_ub_v = s.max_ub_v.max(x.ub - x.v);
    }
    s
}

/// Solves the layers `0..=max_n` in memory.
pub fn solve_up_to(max_n: usize, skip_origin: bool, workers: &dyn Workers) -> crate::Memory {
    let mut mem = crate::Memory::default();
    for n in 0..=max_n {
        let (layer, _) = solve_layer(n, skip_origin, &mem, workers, &|_| {});
        mem.layers.push(layer);
    }
    mem
}
