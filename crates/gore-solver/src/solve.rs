//! Solving a whole database: every layer from 0 up, each stored as soon
//! as it is solved, on both cores.
//!
//! A capture takes 2 or 4 seeds from each hole it empties, so a layer's
//! exits lead only to lower layers **of the same parity**: the even layers
//! and the odd layers are two independent chains. [`solve_all`] runs the
//! two chains at once (each layer's own jobs go to the same workers), so
//! both cores stay busy even on the layers that need one pass only, and
//! at most two layers are in memory at a time.

use crate::index::MAX_SEEDS;
use crate::par::Workers;
use crate::retro::{solve_layer, LayerStats};
use crate::values::{Lookup, SolvedLayer, Values};
use std::sync::{Mutex, OnceLock};

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

/// Solves every layer from 0 to `max_n` that `store` lacks, the even and
/// the odd ones side by side, and returns the statistics of the layers it
/// solved, in order. Stops at the first error of `store.save`.
///
/// ```
/// use gore_solver::par::Sequential;
/// use gore_solver::solve::{solve_all, MemoryStore, Quiet};
/// use gore_solver::Lookup;
/// let store = MemoryStore::default();
/// let stats = solve_all(6, false, &store, &Sequential, &Quiet).unwrap();
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
) -> Result<Vec<LayerStats>, String> {
    assert!(
        max_n <= MAX_SEEDS,
        "a board holds at most {MAX_SEEDS} seeds"
    );
    let solved: Mutex<Vec<LayerStats>> = Mutex::new(Vec::new());
    let failed: Mutex<Option<String>> = Mutex::new(None);
    let chain = |parity: usize| {
        for n in (parity..=max_n).step_by(2) {
            if failed.lock().expect("no chain panicked").is_some() {
                return;
            }
            if store.has(n) {
                continue;
            }
            let total = 2 * crate::index::layer_size(n);
            progress.begin(n, total);
            let (layer, stats) = solve_layer(n, skip_origin, store, workers, &|done| {
                progress.advance(n, done)
            });
            if let Err(e) = store.save(layer, &stats) {
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
