//! Solving a whole database: every layer from 0 up, each stored as soon
//! as it is solved, on both cores.
//!
//! A capture takes 2 or 4 seeds from each hole it empties, so a layer's
//! exits lead only to lower layers **of the same parity**: the even layers
//! and the odd layers are two independent chains. [`solve_all`] runs the
//! two chains at once (each layer's own jobs go to the same workers), so
//! both cores stay busy even on the layers that need one pass only. At
//! most two layers are in memory at a time, and two only while their
//! working memory together fits the build's budget: the largest layers,
//! whose two passes keep both cores busy anyway, are solved one at a time.

use crate::index::MAX_SEEDS;
use crate::par::Workers;
use crate::retro::{solve_layer, LayerStats};
use crate::values::{Lookup, SolvedLayer, Values};
use std::sync::{Condvar, Mutex, OnceLock};

/// Where solved layers go, and where the solver reads them back: the
/// CLI's directory of memory-mapped files, or [`MemoryStore`].
///
/// `values` is called only for layers [`Store::has`] reports (or that
/// [`Store::save`] has just kept), from several threads at once.
pub trait Store: Lookup {
    /// Whether layer `n` is solved already (an interrupted build resumes
    /// after the layers it has).
    fn has(&self, n: usize) -> bool;

    /// Keeps a solved layer; from then on [`Lookup::values`] answers for
    /// it. An error stops the build (what is kept stays kept).
    fn save(&self, layer: SolvedLayer, stats: &LayerStats) -> Result<(), String>;
}

/// What a build reports as it goes (progress bars, logs).
pub trait Progress: Sync {
    /// Layer `n` starts: `total` units of work, reported by `advance`.
    fn begin(&self, n: usize, total: u64);
    /// Layer `n` has done `done` of its units.
    fn advance(&self, n: usize, done: u64);
    /// Layer `n` is solved and kept.
    fn end(&self, n: usize, stats: &LayerStats);
}

/// Reports nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Quiet;

impl Progress for Quiet {
    fn begin(&self, _: usize, _: u64) {}
    fn advance(&self, _: usize, _: u64) {}
    fn end(&self, _: usize, _: &LayerStats) {}
}

/// The working memory solving layer `n` may take at its peak, in bytes: a
/// counter and three exits a board from the survey, then two passes'
/// 4-byte cells (or, at the end, the cells and the 3-byte result).
pub fn layer_memory(n: usize) -> u64 {
    12 * crate::index::layer_size(n)
}

/// Solves every layer from 0 to `max_n` that `store` lacks, the even and
/// the odd ones side by side while their [`layer_memory`] together fits
/// `budget` bytes (a layer larger than the budget alone waits until it is
/// alone), and returns the statistics of the layers it solved, in order.
/// Stops at the first error of `store.save`.
///
/// ```
/// use gore_solver::par::Sequential;
/// use gore_solver::solve::{solve_all, MemoryStore, Quiet};
/// use gore_solver::Lookup;
/// let store = MemoryStore::default();
/// let stats = solve_all(6, false, &store, &Sequential, &Quiet, u64::MAX).unwrap();
/// assert_eq!(stats.len(), 7);
/// // Three seeds in the mover's first hole: sown, the game over, all his.
/// let b = [3, 0, 0, 0, 0, 0, 0, 0];
/// assert_eq!(store.values(3, gore_solver::index::rank(&b)).v, 6);
/// ```
pub fn solve_all(
    max_n: usize,
    skip_origin: bool,
    store: &dyn Store,
    workers: &dyn Workers,
    progress: &dyn Progress,
    budget: u64,
) -> Result<Vec<LayerStats>, String> {
    assert!(
        max_n <= MAX_SEEDS,
        "a board holds at most {MAX_SEEDS} seeds"
    );
    let solved: Mutex<Vec<LayerStats>> = Mutex::new(Vec::new());
    let memory = Budget::default();
    let failed: Mutex<Option<String>> = Mutex::new(None);
    let chain = |parity: usize| {
        for n in (parity..=max_n).step_by(2) {
            if failed.lock().expect("no chain panicked").is_some() {
                return;
            }
            if store.has(n) {
                continue;
            }
            let need = layer_memory(n);
            memory.take(need, budget);
            let total = 2 * crate::index::layer_size(n);
            progress.begin(n, total);
            let (layer, stats) = solve_layer(n, skip_origin, store, workers, &|done| {
                progress.advance(n, done)
            });
            let saved = store.save(layer, &stats);
            memory.give(need);
            if let Err(e) = saved {
                failed.lock().expect("no chain panicked").get_or_insert(e);
                return;
            }
            progress.end(n, &stats);
            solved.lock().expect("no chain panicked").push(stats);
        }
    };
    let jobs: Vec<Box<dyn FnOnce() + Send + '_>> = vec![
        Box::new(|| chain(0)) as Box<dyn FnOnce() + Send + '_>,
        Box::new(|| chain(1)),
    ];
    workers.run(jobs);
    if let Some(e) = failed.into_inner().expect("no chain panicked") {
        return Err(e);
    }
    let mut solved = solved.into_inner().expect("no chain panicked");
    solved.sort_by_key(|s| s.n);
    Ok(solved)
}

/// The working memory the chains hold, and a wait for enough of it.
#[derive(Default)]
struct Budget {
    used: Mutex<u64>,
    freed: Condvar,
}

impl Budget {
    /// Waits until `need` more fits `budget` (or nothing else is held).
    fn take(&self, need: u64, budget: u64) {
        let mut used = self.used.lock().expect("no chain panicked");
        while *used > 0 && *used + need > budget {
            used = self.freed.wait(used).expect("no chain panicked");
        }
        *used += need;
    }

    fn give(&self, need: u64) {
        *self.used.lock().expect("no chain panicked") -= need;
        self.freed.notify_all();
    }
}

/// A [`Store`] in memory (tests, small databases): layers kept as solved.
#[derive(Debug)]
pub struct MemoryStore {
    layers: [OnceLock<SolvedLayer>; MAX_SEEDS + 1],
}

impl Default for MemoryStore {
    fn default() -> MemoryStore {
        MemoryStore {
            layers: std::array::from_fn(|_| OnceLock::new()),
        }
    }
}

impl MemoryStore {
    /// The layers kept, from 0 up to the first missing one.
    pub fn into_memory(self) -> crate::Memory {
        let layers = self
            .layers
            .into_iter()
            .map_while(|l| l.into_inner())
            .collect();
        crate::Memory { layers }
    }
}

impl Lookup for MemoryStore {
    fn values(&self, n: usize, rank: u64) -> Values {
        self.layers[n]
            .get()
            .expect("a layer solved before it is read")
            .values[rank as usize]
    }
}

impl Store for MemoryStore {
    fn has(&self, n: usize) -> bool {
        self.layers[n].get().is_some()
    }

    fn save(&self, layer: SolvedLayer, _: &LayerStats) -> Result<(), String> {
        let n = layer.n;
        self.layers[n]
            .set(layer)
            .map_err(|_| format!("layer {n} is solved twice"))
    }
}

/// Solves the layers `0..=max_n` in memory (the two parities side by
/// side, as [`solve_all`] does).
pub fn solve_up_to(max_n: usize, skip_origin: bool, workers: &dyn Workers) -> crate::Memory {
    let store = MemoryStore::default();
    solve_all(max_n, skip_origin, &store, workers, &Quiet, u64::MAX)
        .expect("a store in memory keeps every layer");
    store.into_memory()
}
