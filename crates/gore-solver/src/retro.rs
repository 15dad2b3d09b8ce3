//! The analysis of one layer, with the lower layers known: retrograde
//! propagation by thresholds, with move counters and un-moves.
//!
//! Within a layer the actions that capture nothing (and passes) lead back
//! into the layer and form cycles; captures and the end of the game are
//! *exits* whose values the lower layers give. For one way of scoring the
//! exits, the pair (lo, hi) of RULES.md ("Solved values") is the value of
//! a game seen by one player P, in which never-ending play gives P
//! nothing: at a board where P moves, `f = max(best exit, f of O's
//! replies…)`, at a board where O moves, `g = min(2n − O's best exit,
//! f of P's replies)`. Then lo = f (P to move) and hi = 2n − g (the same
//! board with O to move is hi for O).
//!
//! Both are computed at once by thresholds, from the most seeds down: at
//! threshold `k`, a P-board gets `f = k` when its best exit is `k` or an
//! O-board it leads to got `g = k`; an O-board gets `g = k` when every
//! P-board it leads to has `f >= k` (a counter of its in-layer actions,
//! decremented through the un-moves of each P-board valued) and its own
//! exits leave P at least `k`. Each board is valued at most once per side
//! and each valuation visits its predecessors once: linear in the layer,
//! with no repeated sweeps.
//!
//! V needs one such pass with every exit scored by the lower layers' V.
//! LB and UB come from a second pass in which P's exits are scored as his
//! lower bound (his captures plus the seeds left, less the opponent's UB
//! there) and O's as O's upper bound (less P's LB): f is then LB, and
//! 2n − g is UB. Where the scorings agree on every board's best exit
//! (the layers below exact where it matters), one pass gives all three.

use crate::board::Board;
use crate::index::{layer_size, next_board, rank, unrank};
use crate::moves::{is_ended, sow, unmoves, Outcome};
use crate::par::Workers;
use crate::values::{Lookup, SolvedLayer, Values};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

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
    /// Passes of propagation the layer needed (1, or 2 when the scorings
    /// of its exits differ).
    pub runs: u8,
    /// The working memory the layer took at its peak, in bytes (its
    /// arrays, the result included).
    pub scratch_bytes: u64,
}

/// Marks a value not yet known, and a board without exits.
const NONE: u8 = u8::MAX;
/// Marks a board on which the game is over (in the move counters).
const OVER: u8 = u8::MAX;
/// Tags an O-board on the propagation stack.
const O_SIDE: u64 = 1 << 63;

/// A board in one word, for the propagation stack: popping a board then
/// needs no unranking (a hole holds at most 48 seeds, so the top bit of
/// the last byte is free for the side's tag).
#[inline]
fn pack(b: &Board) -> u64 {
    u64::from_le_bytes(*b)
}

#[inline]
fn unpack(w: u64) -> Board {
    (w & !O_SIDE).to_le_bytes()
}

/// A pass's scorings of the exits: P's, O's (indices into [`SCORINGS`]).
type Pass = (usize, usize);

/// Bytes of exits scanned together for a threshold's seeds.
const SCAN: usize = 64;

/// Boards valued together before their predecessors' cells are touched.
const BATCH: usize = 256;

/// The scorings of the exits: V, LB, UB.
const SCORINGS: usize = 3;

/// What each board's actions are, computed once per layer: the number of
/// in-layer actions (or [`OVER`]) and the best exit under each scoring
/// (or [`NONE`]).
struct Shape {
    count: Vec<u8>,
    exit: [Vec<u8>; SCORINGS],
}

/// Solves layer `n` (rules `no-trades`, or `no-trades,skip-origin` when
/// `skip_origin`), the layers below read through `lower`. `progress` is
/// called now and then with the work done so far, out of `2 ×
/// layer_size(n)` (a survey of the boards, then the propagation).
pub fn solve_layer(
    n: usize,
    skip_origin: bool,
    lower: &dyn Lookup,
    workers: &dyn Workers,
    progress: &(dyn Fn(u64) + Sync),
) -> (SolvedLayer, LayerStats) {
    let size = layer_size(n) as usize;
    assert!(size < u32::MAX as usize, "a layer's ranks fit 32 bits");
    let done = AtomicU64::new(0);
    let tick = |k: u64| progress(done.fetch_add(k, Ordering::Relaxed) + k);

    let (mut shape, mut stats) = survey(n, skip_origin, lower, workers, &tick);
    let same = shape.exit[1] == shape.exit[0] && shape.exit[2] == shape.exit[0];
    // (the scoring of P's exits, of O's): V, then the bounds.
    let runs: Vec<Pass> = if same {
        shape.exit[1] = Vec::new();
        shape.exit[2] = Vec::new();
        vec![(0, 0)]
    } else {
        vec![(0, 0), (1, 2)]
    };
    stats.runs = runs.len() as u8;
    // The survey's arrays (a counter, one or three exits), then each pass's
    // cells (4 bytes a board), at most `threads` passes at once.
    let at_once = workers.threads().clamp(1, runs.len());
    let shared = 1 + if same { 1 } else { SCORINGS };
    stats.scratch_bytes = size as u64 * (shared + 4 * at_once) as u64;

    let results: Mutex<Vec<(Pass, Vec<Cell>)>> = Mutex::new(Vec::new());
    let share = 2 * runs.len() as u64;
    for batch in runs.chunks(workers.threads().max(1)) {
        let jobs: Vec<Box<dyn FnOnce() + Send + '_>> = batch
            .iter()
            .map(|&which| {
                let shape = &shape;
                let results = &results;
                let tick = &tick;
                Box::new(move || {
                    let cells = propagate(n, skip_origin, shape, which, &|k| tick(k / share));
                    results
                        .lock()
                        .expect("no job panicked")
                        .push((which, cells));
                }) as Box<dyn FnOnce() + Send + '_>
            })
            .collect();
        workers.run(jobs);
    }
    // Whatever the passes left of their share (boards never valued).
    let reported = done.load(Ordering::Relaxed);
    tick((2 * size as u64).saturating_sub(reported));
    let mut results = results.into_inner().expect("no job panicked");
    results.sort_by_key(|r| r.0);
    let Shape { count, exit } = shape;
    drop(exit);
    let all = 2 * n as u8;
    let half = n as u8;
    let mut values = Vec::with_capacity(size);
    let v_run = &results[0].1;
    let bounds = &results[results.len() - 1].1;
    stats.scratch_bytes = stats
        .scratch_bytes
        .max(size as u64 * (1 + 4 * results.len() as u64 + 3));
    let mut b = unrank(n, 0);
    for r in 0..size {
        let x = if count[r] == OVER {
            let own = 2 * b[..4].iter().sum::<u8>();
            Values {
                v: own,
                lb: own,
                ub: own,
            }
        } else {
            let (lo, hi) = (v_run[r].f, all - v_run[r].g);
            Values {
                v: lo.max(hi.min(half)),
                lb: bounds[r].f,
                ub: all - bounds[r].g,
            }
        };
        if x.exact() {
            stats.exact += 1;
        }
        stats.max_ub_lb = stats.max_ub_lb.max(x.ub - x.lb);
        stats.max_v_lb = stats.max_v_lb.max(x.v - x.lb);
        stats.max_ub_v = stats.max_ub_v.max(x.ub - x.v);
        values.push(x);
        next_board(&mut b);
    }
    (SolvedLayer { n, values }, stats)
}

/// The survey: every board's counter and best exits, in parallel chunks.
fn survey(
    n: usize,
    skip_origin: bool,
    lower: &dyn Lookup,
    workers: &dyn Workers,
    tick: &(dyn Fn(u64) + Sync),
) -> (Shape, LayerStats) {
    let size = layer_size(n) as usize;
    let mut count = vec![0u8; size];
    let mut exit = [vec![0u8; size], vec![0u8; size], vec![0u8; size]];
    let parts = (workers.threads().max(1) * 8).min(size.max(1));
    let chunk = size.div_ceil(parts).max(1);
    let stats = Mutex::new(LayerStats {
        n,
        boards: size as u64,
        ..LayerStats::default()
    });
    {
        let [e0, e1, e2] = &mut exit;
        let jobs: Vec<Box<dyn FnOnce() + Send + '_>> = count
            .chunks_mut(chunk)
            .zip(e0.chunks_mut(chunk))
            .zip(e1.chunks_mut(chunk))
            .zip(e2.chunks_mut(chunk))
            .enumerate()
            .map(|(i, (((c, x0), x1), x2))| {
                let stats = &stats;
                Box::new(move || {
                    let (ended, passes) =
                        survey_chunk(n, skip_origin, lower, i * chunk, c, [x0, x1, x2]);
                    tick(c.len() as u64);
                    let mut s = stats.lock().expect("no job panicked");
                    s.ended += ended;
                    s.passes += passes;
                }) as Box<dyn FnOnce() + Send + '_>
            })
            .collect();
        workers.run(jobs);
    }
    let stats = stats.into_inner().expect("no job panicked");
    (Shape { count, exit }, stats)
}

/// Surveys the boards of ranks `first..first + count.len()`; returns the
/// boards over and the boards with a pass among them.
fn survey_chunk(
    n: usize,
    skip_origin: bool,
    lower: &dyn Lookup,
    first: usize,
    count: &mut [u8],
    exit: [&mut [u8]; SCORINGS],
) -> (u64, u64) {
    let [x0, x1, x2] = exit;
    let mut b = unrank(n, first as u64);
    let (mut ended, mut passes) = (0, 0);
    for i in 0..count.len() {
        if i > 0 {
            next_board(&mut b);
        }
        if is_ended(&b) {
            count[i] = OVER;
            ended += 1;
            continue;
        }
        let mut stays = 0u8;
        let mut best = [NONE; SCORINGS];
        let mut better = |s: [u8; SCORINGS]| {
            for k in 0..SCORINGS {
                if best[k] == NONE || s[k] > best[k] {
                    best[k] = s[k];
                }
            }
        };
        if b[..4].iter().all(|&s| s == 0) {
            stays = 1; // a pass
            passes += 1;
        } else {
            for h in 0..4 {
                if b[h] == 0 {
                    continue;
                }
                match sow(&b, h, skip_origin) {
                    Outcome::Stay { .. } => stays += 1,
                    Outcome::End { mover } => better([2 * mover; SCORINGS]),
                    Outcome::Capture { seeds, next } => {
                        let m = n - seeds as usize;
                        let x = lower.values(m, rank(&next));
                        let base = 2 * seeds + 2 * m as u8;
                        better([base - x.v, base - x.ub, base - x.lb]);
                    }
                }
            }
        }
        count[i] = stays;
        x0[i] = best[0];
        x1[i] = best[1];
        x2[i] = best[2];
    }
    (ended, passes)
}

/// One pass of propagation, P's exits scored by `which.0` and O's by
/// `which.1` (0 V, 1 the capturer's LB, 2 his UB): every board's cell,
/// `f` its value with P to move, `g` with O to move (P's share); boards
/// never valued get 0 (never-ending play gives P nothing).
fn propagate(
    n: usize,
    skip_origin: bool,
    shape: &Shape,
    which: Pass,
    tick: &(dyn Fn(u64) + Sync),
) -> Vec<Cell> {
    let (exit, exit_o) = (&shape.exit[which.0], &shape.exit[which.1]);
    let all = 2 * n as u8;
    // Everything the propagation reads or writes of a board, side by side:
    // a predecessor costs one cache miss, not three.
    let mut cell: Vec<Cell> = shape
        .count
        .iter()
        .zip(exit_o)
        .map(|(&count, &exit_o)| Cell {
            f: NONE,
            g: NONE,
            count,
            exit_o,
        })
        .collect();
    // How many boards have each best exit: thresholds without any are
    // not scanned for P's seeds.
    let mut seeds = vec![0u64; all as usize + 1];
    for (&c, &e) in shape.count.iter().zip(exit) {
        if c != OVER && e != NONE {
            seeds[e as usize] += 1;
        }
    }
    // O-boards whose replies are all valued but whose own best exit gives
    // P less than the threshold then: valued at that exit's threshold.
    // From the start, the boards without in-layer actions.
    let mut later: Vec<Vec<u32>> = vec![Vec::new(); all as usize + 1];
    for (t, c) in cell.iter().enumerate() {
        if c.count == 0 {
            later[(all - c.exit_o) as usize].push(t as u32);
        }
    }
    let mut stack: Vec<u64> = Vec::new();
    // The predecessors of a batch of boards valued, ranked before any
    // cell is touched, then the cells in tight loops without branches on
    // what they hold: their cache misses overlap instead of queueing.
    let mut decrement: Vec<(u32, u64)> = Vec::new();
    let mut raise: Vec<(u32, u64)> = Vec::new();
    let mut hits: Vec<u32> = Vec::new();
    let mut valued = 0u64;
    for k in (1..=all).rev() {
        // P-boards whose best exit is k; O-boards whose replies are all
        // valued and whose own best exit leaves P exactly k.
        if seeds[k as usize] > 0 {
            // A scan for them, in blocks that a vector compare skips.
            for (i, block) in exit.chunks(SCAN).enumerate() {
                if !block.iter().fold(false, |any, &e| any | (e == k)) {
                    continue;
                }
                for (j, &e) in block.iter().enumerate() {
                    let s = i * SCAN + j;
                    let c = &mut cell[s];
                    if e == k && c.f == NONE && c.count != OVER {
                        c.f = k;
                        stack.push(pack(&unrank(n, s as u64)));
                    }
                }
            }
        }
        for t in std::mem::take(&mut later[k as usize]) {
            let c = &mut cell[t as usize];
            debug_assert!(c.g == NONE);
            c.g = k;
            stack.push(pack(&unrank(n, t as u64)) | O_SIDE);
        }
        while !stack.is_empty() {
            let from = stack.len().saturating_sub(BATCH);
            decrement.clear();
            raise.clear();
            for &top in &stack[from..] {
                let here = unpack(top);
                // P valued here: one reply fewer to wait for at each
                // O-board leading to it; O valued: P's boards leading to
                // it are worth k to P.
                let list = if top & O_SIDE == 0 {
                    &mut decrement
                } else {
                    &mut raise
                };
                unmoves(&here, skip_origin, |y| list.push((rank(y) as u32, pack(y))));
            }
            let before = valued;
            valued += (stack.len() - from) as u64;
            stack.truncate(from);
            hits.clear();
            hits.resize(decrement.len().max(raise.len()), 0);
            let mut m = 0;
            for (i, &(t, _)) in decrement.iter().enumerate() {
                let c = &mut cell[t as usize];
                c.count -= 1;
                hits[m] = i as u32;
                m += (c.count == 0) as usize;
            }
            for &i in &hits[..m] {
                let (t, tb) = decrement[i as usize];
                let c = &mut cell[t as usize];
                let e = c.exit_o;
                if e == NONE || all - e >= k {
                    c.g = k;
                    stack.push(tb | O_SIDE);
                } else {
                    later[(all - e) as usize].push(t);
                }
            }
            let mut m = 0;
            for (i, &(s, _)) in raise.iter().enumerate() {
                let c = &mut cell[s as usize];
                let fresh = c.f == NONE;
                c.f = if fresh { k } else { c.f };
                hits[m] = i as u32;
                m += fresh as usize;
            }
            for &i in &hits[..m] {
                stack.push(raise[i as usize].1);
            }
            if valued / 65_536 != before / 65_536 {
                tick(65_536);
            }
        }
    }
    for c in &mut cell {
        if c.f == NONE {
            c.f = 0;
        }
        if c.g == NONE {
            c.g = 0;
        }
    }
    cell
}

/// A board's state in one pass: P's value `f`, O's `g` (P's share), the
/// in-layer actions not yet valued, and O's best exit.
#[derive(Clone, Copy)]
struct Cell {
    f: u8,
    g: u8,
    count: u8,
    exit_o: u8,
}
